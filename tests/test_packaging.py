"""What HACS, hassfest and Home Assistant require of the package, checked offline.

The rules come from HACS's validators (hacs.json schema, integration manifest, brand assets, licence, README),
hassfest's (manifest schema and key order, translations, services.yaml against the strings), the brands
repository's image rules (which HA 2026.3+ applies to a custom integration's own brand/ folder) and how Home
Assistant installs requirements and sets up dependencies.
"""

from __future__ import annotations

from dataclasses import dataclass
import json
from pathlib import Path
import re
import struct
from typing import Any
from urllib.parse import urlsplit

from awesomeversion import AwesomeVersion
from packaging.requirements import Requirement
from packaging.version import Version
import pytest
import yaml

from custom_components.agent_media.const import DOMAIN
from homeassistant import components, const

REPO = Path(__file__).parent.parent
PACKAGE = REPO / "custom_components" / DOMAIN
BRAND = PACKAGE / "brand"
CORE_COMPONENTS = Path(next(iter(components.__path__)))
HA_VERSION = const.__version__

# hassfest script/hassfest/translations.py: lower case, digits, "-" and "_", not doubled nor at either end.
TRANSLATION_KEY = re.compile(r"^(?!.+[_-]{2})(?![_-])[a-z0-9-_]+(?<![_-])$")
SLUG = re.compile(r"^[a-z0-9_]+$")
PLACEHOLDER_IN_SINGLE_QUOTES = re.compile(r"'{\w+}'")
HTML_TAG = re.compile(r"<[a-z/!][^>]*>", re.IGNORECASE)
# Optional parts of Home Assistant: when one fails to set up (2026.10 counts an after-dependency's failure
# as the integration's own) or cannot install its requirements (both versions), Agent Media must still load.
OPTIONAL_PARTS = {"assist_pipeline", "stt", "tts", "wake_word", "cloud", "mobile_app", "ffmpeg"}


def load(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def all_keys(tree: Any, prefix: str = "") -> set[str]:
    """Every dotted path in a JSON tree."""
    if not isinstance(tree, dict):
        return set()
    keys: set[str] = set()
    for key, value in tree.items():
        path = f"{prefix}{key}"
        keys.add(path)
        keys |= all_keys(value, f"{path}.")
    return keys


def all_strings(tree: Any, prefix: str = "") -> list[tuple[str, Any]]:
    """Every (dotted path, leaf value) in a JSON tree."""
    if isinstance(tree, dict):
        return [pair for key, value in tree.items() for pair in all_strings(value, f"{prefix}{key}.")]
    return [(prefix.rstrip("."), tree)]


def source_files() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


# --- manifest.json ----------------------------------------------------------------------------------------

MANIFEST_KEYS = {  # hassfest's custom-integration manifest schema (the keys an integration like ours may use)
    "domain": str,
    "name": str,
    "after_dependencies": list,
    "codeowners": list,
    "config_flow": bool,
    "dependencies": list,
    "documentation": str,
    "import_executor": bool,
    "integration_type": str,
    "iot_class": str,
    "issue_tracker": str,
    "loggers": list,
    "quality_scale": str,
    "requirements": list,
    "single_config_entry": bool,
    "version": str,
}
INTEGRATION_TYPES = {"device", "entity", "hardware", "helper", "hub", "service", "system"}
IOT_CLASSES = {"assumed_state", "calculated", "cloud_polling", "cloud_push", "local_polling", "local_push"}


def test_manifest_matches_hassfest_and_hacs_schemas() -> None:
    manifest = load(PACKAGE / "manifest.json")
    assert set(manifest) <= set(MANIFEST_KEYS), set(manifest) - set(MANIFEST_KEYS)
    for key, value in manifest.items():
        assert isinstance(value, MANIFEST_KEYS[key]), key
    # Required by hassfest for a custom integration and by HACS.
    for key in ("domain", "name", "codeowners", "documentation", "issue_tracker", "version", "iot_class"):
        assert manifest.get(key), key
    assert manifest["domain"] == DOMAIN == PACKAGE.name
    assert not (CORE_COMPONENTS / DOMAIN).exists(), "the domain would shadow a core integration"
    assert manifest["name"] == "Agent Media"
    assert manifest["integration_type"] in INTEGRATION_TYPES
    assert manifest["iot_class"] in IOT_CLASSES
    assert manifest["config_flow"] is True
    assert (PACKAGE / "config_flow.py").is_file()
    assert all(re.fullmatch(r"@[\w.-]+(/[\w.-]+)?", owner) for owner in manifest["codeowners"])
    for key in ("documentation", "issue_tracker"):
        url = urlsplit(manifest[key])
        assert url.scheme == "https", key
        assert url.netloc, key
    assert not manifest["documentation"].startswith("https://www.home-assistant.io/integrations")
    assert AwesomeVersion(manifest["version"]).valid
    assert all(isinstance(logger, str) and logger for logger in manifest["loggers"])


def test_manifest_keys_and_format_are_what_hassfest_writes() -> None:
    text = (PACKAGE / "manifest.json").read_text(encoding="utf-8")
    manifest = json.loads(text)
    keys = list(manifest)
    assert keys[:2] == ["domain", "name"]
    assert keys[2:] == sorted(keys[2:])
    assert text == json.dumps(manifest, indent=2) + "\n"


def test_dependencies_are_core_integrations_and_none_is_optional() -> None:
    manifest = load(PACKAGE / "manifest.json")
    dependencies = manifest.get("dependencies", [])
    after_dependencies = manifest.get("after_dependencies", [])
    assert "conversation" in dependencies
    for domain in [*dependencies, *after_dependencies]:
        assert (CORE_COMPONENTS / domain / "manifest.json").is_file(), domain
    # An optional part that fails would take the agent down with it.
    assert not OPTIONAL_PARTS & {*dependencies, *after_dependencies}
    # What the code imports from homeassistant.components is a dependency, an entity platform or a helper
    # component that conversation itself depends on (hassfest's dependencies check).
    imported = {
        match
        for path in source_files()
        for match in re.findall(r"homeassistant\.components(?:\.| import )(\w+)", path.read_text("utf-8"))
    }
    # `llm`: the Assist tools platform (llm.py, HA ≥ 2026.8), a dependency of conversation there; `ai_task`:
    # an entity platform (HA ≥ 2025.7); `repairs`: the fix-flow platform, which hassfest allows undeclared.
    platforms_and_helpers = {"sensor", "event", "image", "diagnostics", "llm", "ai_task", "repairs"}
    assert imported <= {*dependencies, *after_dependencies, *platforms_and_helpers}, imported


def core_pins(package: str) -> dict[str, Version]:
    """Return {component: version} for every core integration of this HA that pins `package` exactly."""
    pins: dict[str, Version] = {}
    for manifest_path in CORE_COMPONENTS.glob("*/manifest.json"):
        for line in json.loads(manifest_path.read_text("utf-8")).get("requirements", []):
            requirement = Requirement(line)
            if requirement.name.lower() == package and (specs := list(requirement.specifier)):
                pins[manifest_path.parent.name] = Version(specs[0].version)
    constraints = (CORE_COMPONENTS.parent / "package_constraints.txt").read_text("utf-8")
    for line in constraints.splitlines():
        if line.strip() and not line.startswith("#"):
            requirement = Requirement(line)
            if requirement.name.lower() == package and (specs := list(requirement.specifier)):
                pins["package_constraints.txt"] = Version(specs[0].version)
    return pins


@pytest.mark.parametrize("package", ["qbittorrent-api", "openai"])
def test_requirements_coexist_with_core_pins(package: str) -> None:
    """A range that excludes a core pin would flip the shared package at every restart."""
    requirements = {
        Requirement(line).name.lower(): Requirement(line)
        for line in load(PACKAGE / "manifest.json")["requirements"]
    }
    ours = requirements[package]
    specs = list(ours.specifier)
    assert [spec.operator for spec in specs] == [">="], "a floor, never a pin: core pins these itself"
    pins = core_pins(package)
    assert pins, f"no core integration of HA {HA_VERSION} pins {package}"
    refused = {
        component: str(version) for component, version in pins.items() if version not in ours.specifier
    }
    assert not refused, f"{ours} refuses the versions HA {HA_VERSION} pins: {refused}"


def test_requirement_floors_are_those_of_the_oldest_supported_home_assistant() -> None:
    """The floors are HA 2025.4's own pins (the floors run of scripts/test tests what those users get);
    newer Home Assistant pins the same packages at or above them."""
    oldest = AwesomeVersion(HA_VERSION) < AwesomeVersion("2025.5.0")
    for line in load(PACKAGE / "manifest.json")["requirements"]:
        requirement = Requirement(line)
        floor = Version(next(iter(requirement.specifier)).version)
        lowest_pin = min(core_pins(requirement.name.lower()).values())
        assert lowest_pin == floor if oldest else lowest_pin >= floor, line


# --- hacs.json, licence, README ------------------------------------------------------------------------

HACS_KEYS = {  # HACS's HACS_MANIFEST_JSON_SCHEMA; anything else fails its action
    "name": str,
    "content_in_root": bool,
    "country": (str, list),
    "filename": str,
    "hacs": str,
    "hide_default_branch": bool,
    "homeassistant": str,
    "persistent_directory": str,
    "render_readme": bool,
    "zip_release": bool,
}


def test_hacs_json_matches_the_hacs_schema() -> None:
    hacs = load(REPO / "hacs.json")
    assert set(hacs) <= set(HACS_KEYS), set(hacs) - set(HACS_KEYS)
    for key, value in hacs.items():
        assert isinstance(value, HACS_KEYS[key]), key
    assert hacs["name"] == load(PACKAGE / "manifest.json")["name"]
    assert not hacs.get("zip_release") or hacs.get("filename")
    assert not hacs.get("content_in_root"), "the integration lives in custom_components/agent_media"
    minimum = AwesomeVersion(hacs["homeassistant"])
    assert minimum.valid
    assert minimum == AwesomeVersion("2025.4.4")  # the oldest version the suite runs on
    assert AwesomeVersion(HA_VERSION) >= minimum


def test_licence_and_readme_exist() -> None:
    licence = (REPO / "LICENSE").read_text(encoding="utf-8")
    # GitHub recognises the MIT text, one of the open-source licences HACS accepts.
    assert licence.startswith("MIT License\n")
    assert "Permission is hereby granted, free of charge" in licence
    assert 'THE SOFTWARE IS PROVIDED "AS IS"' in licence
    assert (REPO / "README.md").is_file()


# --- brand images -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Png:
    width: int
    height: int
    color_type: int  # 6 = RGBA, 4 = grey + alpha


def read_png(path: Path) -> Png:
    """Read a PNG's header (signature and IHDR), failing on anything that is not a PNG."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", f"{path.name} is not a PNG"
    length, chunk_type = struct.unpack(">I4s", data[8:16])
    assert chunk_type == b"IHDR", path.name
    assert length == 13, path.name
    width, height, _depth, color_type = struct.unpack(">IIBB", data[16:26])
    return Png(width=width, height=height, color_type=color_type)


BRAND_IMAGES = {  # home-assistant/brands's rules, which HA's brands integration serves from brand/
    f"{dark}{kind}{hdpi}.png": (kind, 2 if hdpi else 1)
    for dark in ("", "dark_")
    for kind in ("icon", "logo")
    for hdpi in ("", "@2x")
}


def test_brand_folder_holds_only_images_home_assistant_serves_and_their_sources() -> None:
    assert (BRAND / "icon.png").is_file(), "HACS looks for brand/icon.png"
    names = {path.name for path in BRAND.iterdir()}
    assert names <= {*BRAND_IMAGES, "src"}, names - {*BRAND_IMAGES, "src"}
    assert set(BRAND_IMAGES) <= names, "every variant, so dark themes and HiDPI screens get ours"
    for name in BRAND_IMAGES:
        source = name.replace("@2x", "").replace(".png", ".svg")
        assert (BRAND / "src" / source).is_file(), f"{name} has no SVG source"


@pytest.mark.parametrize("name", sorted(BRAND_IMAGES))
def test_brand_image_sizes_and_format(name: str) -> None:
    kind, scale = BRAND_IMAGES[name]
    png = read_png(BRAND / name)
    assert png.color_type in {4, 6}, "transparent background"
    if kind == "icon":
        assert (png.width, png.height) == (256 * scale, 256 * scale)
    else:
        assert 128 * scale <= min(png.width, png.height) <= 256 * scale
        assert png.width >= png.height, "landscape"
    if scale == 2:
        base = read_png(BRAND / name.replace("@2x", ""))
        assert (png.width, png.height) == (base.width * 2, base.height * 2)


def test_brand_variants_are_not_copies() -> None:
    """The brands checks refuse a logo equal to the icon, a dark variant equal to the light one, and so on."""
    data = {name: (BRAND / name).read_bytes() for name in BRAND_IMAGES}
    pairs = [
        (a, b)
        for a in data
        for b in data
        if a < b
        and (
            a.replace("logo", "icon") == b.replace("logo", "icon")
            or a.replace("dark_", "") == b.replace("dark_", "")
            or a.replace("@2x", "") == b.replace("@2x", "")
        )
    ]
    assert pairs
    assert all(data[a] != data[b] for a, b in pairs), [
        pair for pair in pairs if data[pair[0]] == data[pair[1]]
    ]


# --- translations -----------------------------------------------------------------------------------------

TOP_LEVEL_STRINGS = {
    "title", "config", "options", "selector", "device_automation", "system_health", "config_panel",
    "application_credentials", "issues", "entity_component", "device", "entity", "exceptions", "services",
    "conversation", "common", "config_subentries",
}  # fmt: skip


def test_english_translation_matches_strings() -> None:
    assert load(PACKAGE / "translations" / "en.json") == load(PACKAGE / "strings.json")


def test_translation_values_follow_hassfest_rules() -> None:
    strings = load(PACKAGE / "translations" / "en.json")  # what hassfest reads for a custom integration
    assert set(strings) <= TOP_LEVEL_STRINGS, set(strings) - TOP_LEVEL_STRINGS
    problems: list[str] = []
    for path, value in all_strings(strings):
        if not isinstance(value, str):
            problems.append(f"{path}: not a string")
            continue
        if value != value.strip():
            problems.append(f"{path}: leading or trailing spaces")
        if HTML_TAG.search(value):
            problems.append(f"{path}: HTML")
        if PLACEHOLDER_IN_SINGLE_QUOTES.search(value):
            problems.append(f"{path}: placeholder in single quotes")
        if "[%key:" in value:
            problems.append(f"{path}: a reference, which a custom integration's translations never resolve")
    assert not problems, problems


def test_translation_keys_have_hassfest_shapes() -> None:
    strings = load(PACKAGE / "strings.json")
    keys: list[str] = []
    for platform_entities in strings.get("entity", {}).values():
        for key, entity in platform_entities.items():
            keys.append(key)
            keys.extend(entity.get("state", {}))
            for attribute_key, attribute in entity.get("state_attributes", {}).items():
                keys.append(attribute_key)
                keys.extend(attribute.get("state", {}))
    for selector in strings.get("selector", {}).values():
        keys.extend(selector["options"])
    for service_key, service in strings.get("services", {}).items():
        keys.append(service_key)
        keys.extend(service.get("fields", {}))
        keys.extend(service.get("sections", {}))
    bad = [key for key in keys if not TRANSLATION_KEY.match(key)]
    assert not bad, bad
    assert all(SLUG.match(key) for key in [*strings.get("entity", {}), *strings.get("exceptions", {})])
    for key, exception in strings.get("exceptions", {}).items():
        assert set(exception) == {"message"}, key
    for key, issue in strings.get("issues", {}).items():
        assert "title" in issue, key
        assert ("description" in issue) != ("fix_flow" in issue), key


@pytest.mark.parametrize("flow", ["config", "options"])
def test_flow_steps_describe_only_their_fields(flow: str) -> None:
    steps = load(PACKAGE / "strings.json")[flow]["step"]
    for step_id, step in steps.items():
        assert set(step.get("data_description", {})) <= set(step.get("data", {})), step_id
        assert set(step) <= {
            "title",
            "description",
            "data",
            "data_description",
            "menu_options",
            "submit",
            "sections",
        }


def test_every_translation_key_used_in_code_exists() -> None:
    strings = load(PACKAGE / "strings.json")
    known = all_keys(strings)
    missing: list[str] = []
    for path in source_files():
        text = path.read_text(encoding="utf-8")
        missing.extend(
            f"{path.name}: {key}"
            for key in re.findall(r'translation_key\s*=\s*"([^"]+)"', text)
            if not any(k == key or k.endswith(f".{key}") for k in known)
        )
    assert not missing, missing


def test_config_flow_errors_and_steps_are_translated() -> None:
    strings = load(PACKAGE / "strings.json")
    flow = (PACKAGE / "config_flow.py").read_text(encoding="utf-8")
    errors = set(re.findall(r'return "([a-z_]+)"', flow)) | set(re.findall(r'\] = "([a-z_]+)"', flow))
    assert errors
    assert errors <= set(strings["config"]["error"]), errors - set(strings["config"]["error"])
    steps = set(re.findall(r'step_id="([a-z_]+)"', flow))
    assert steps - {"init"} <= set(strings["config"]["step"])
    assert "init" in strings["options"]["step"]


# --- services.yaml against the strings and icons ----------------------------------------------------------


def services_yaml() -> dict[str, Any]:
    services: dict[str, Any] = yaml.safe_load((PACKAGE / "services.yaml").read_text(encoding="utf-8"))
    return services


def test_services_yaml_matches_hassfest_schema() -> None:
    allowed_field_keys = {
        "example",
        "default",
        "required",
        "advanced",
        "selector",
        "filter",
        "name",
        "description",
    }
    for service, schema in services_yaml().items():
        assert SLUG.match(service), service
        assert set(schema or {}) <= {"fields", "target", "name", "description"}, service
        for field, field_schema in (schema or {}).get("fields", {}).items():
            if "fields" in field_schema:  # a section
                assert set(field_schema) <= {"collapsed", "fields", "name", "description"}, (service, field)
                continue
            assert set(field_schema) <= allowed_field_keys, (service, field)
            if "selector" in field_schema:
                assert len(field_schema["selector"]) == 1, (service, field)


def test_every_service_and_field_is_translated_and_has_an_icon() -> None:
    services = services_yaml()
    strings = load(PACKAGE / "strings.json")
    icons = load(PACKAGE / "icons.json").get("services", {})
    assert set(strings["services"]) == set(services), "services in one file and not the other"
    assert set(icons) == set(services)
    for service, schema in services.items():
        translated = strings["services"][service]
        assert translated.get("name"), service
        assert translated.get("description"), service
        fields = {
            name: field
            for name, entry in (schema or {}).get("fields", {}).items()
            for name, field in (entry["fields"].items() if "fields" in entry else [(name, entry)])
        }
        assert set(translated.get("fields", {})) == set(fields), service
        for name, field in fields.items():
            assert translated["fields"][name].get("name"), (service, name)
            assert translated["fields"][name].get("description"), (service, name)
            select = field.get("selector", {}).get("select") or {}
            if key := select.get("translation_key"):
                assert set(strings["selector"][key]["options"]) == set(select["options"]), (service, name)


# --- quality scale ----------------------------------------------------------------------------------------


def test_quality_scale_marks_every_rule() -> None:
    text = (PACKAGE / "quality_scale.yaml").read_text(encoding="utf-8")
    rules = re.findall(r"^  ([a-z-]+):", text, flags=re.MULTILINE)
    assert len(rules) >= 52
    expected = ("config-flow", "runtime-data", "test-before-setup", "reauthentication-flow", "strict-typing")
    assert set(expected) <= set(rules)
    assert "status: exempt" not in text or "comment:" in text
