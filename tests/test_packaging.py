"""What HACS and Home Assistant require of the package; every translation key the code uses exists."""

from __future__ import annotations

import json
from pathlib import Path
import re
from typing import Any

from custom_components.agent_media.const import DOMAIN

REPO = Path(__file__).parent.parent
PACKAGE = REPO / "custom_components" / DOMAIN


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


def source_files() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def test_manifest_holds_what_hacs_and_home_assistant_require() -> None:
    manifest = load(PACKAGE / "manifest.json")
    assert manifest["domain"] == DOMAIN
    assert manifest["name"] == "Agent Media"
    for key in ("documentation", "issue_tracker", "codeowners", "version", "requirements"):
        assert manifest[key], key
    assert manifest["config_flow"] is True
    assert manifest["integration_type"] == "service"
    assert manifest["iot_class"] == "cloud_polling"
    assert "conversation" in manifest["dependencies"]
    # hassfest: domain, name, then the rest in alphabetical order.
    keys = list(manifest)
    assert keys[:2] == ["domain", "name"]
    assert keys[2:] == sorted(keys[2:])
    # Floors, never exact pins: Home Assistant core pins these packages itself.
    assert all(">=" in req and "==" not in req for req in manifest["requirements"])
    assert any(req.startswith("qbittorrent-api>=") for req in manifest["requirements"])
    assert any(req.startswith("openai>=") for req in manifest["requirements"])


def test_hacs_json_has_only_valid_keys() -> None:
    hacs = load(REPO / "hacs.json")
    assert hacs["name"] == "Agent Media"
    assert hacs["homeassistant"] == "2025.4.0"
    allowed = {
        "name",
        "homeassistant",
        "render_readme",
        "zip_release",
        "filename",
        "content_in_root",
        "hide_default_branch",
        "country",
        "hacs",
        "persistent_directory",
    }
    assert set(hacs) <= allowed


def test_english_translation_matches_strings() -> None:
    assert load(PACKAGE / "translations" / "en.json") == load(PACKAGE / "strings.json")


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


def test_quality_scale_marks_every_rule() -> None:
    text = (PACKAGE / "quality_scale.yaml").read_text(encoding="utf-8")
    rules = re.findall(r"^  ([a-z-]+):", text, flags=re.MULTILINE)
    assert len(rules) >= 52
    expected = ("config-flow", "runtime-data", "test-before-setup", "reauthentication-flow", "strict-typing")
    assert set(expected) <= set(rules)
    assert "status: exempt" not in text or "comment:" in text
