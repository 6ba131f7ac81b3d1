"""The folder tools: path checks, Home Assistant's allowed folders, traversal, and who may change settings."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest
import voluptuous as vol

from custom_components.agent_media.agent.tools import SetPreference, ToolContext, ToolRegistry
from custom_components.agent_media.const import CONF_ALLOW_NON_ADMIN_SETTINGS
from custom_components.agent_media.requester import async_resolve_requester
from homeassistant.core import Context

from .test_conversation import converse, queue_call, speech, tool_results

if TYPE_CHECKING:
    from pathlib import Path

    from pytest_homeassistant_custom_component.common import MockConfigEntry

    from homeassistant.auth.models import User
    from homeassistant.core import HomeAssistant

    from .rig.llm_server import ScriptedLLMServer

pytestmark = pytest.mark.usefixtures("core_setup")  # the conversation dependency needs core


@pytest.fixture
def media(hass: HomeAssistant, tmp_path: Path) -> Path:
    """An allowed media folder with some content, and a forbidden folder next to it."""
    root = tmp_path / "media"
    (root / "downloads").mkdir(parents=True)
    (root / "movies" / "Sintel (2010)").mkdir(parents=True)
    (root / "movies" / "Sintel (2010)" / "Sintel.2010.1080p.mkv").write_bytes(b"x" * 2048)
    (root / "movies" / "notes.txt").write_text("Tears of Steel next")
    (root / "file.txt").write_text("not a folder")
    (tmp_path / "private").mkdir()
    (tmp_path / "private" / "secret.txt").write_text("secret")
    hass.config.allowlist_external_dirs = {str(root)}
    return root


async def run(
    hass: HomeAssistant, entry: MockConfigEntry, name: str, args: dict[str, Any], user: User | None
) -> dict[str, Any]:
    """Call a tool the way the agent does, as the given user, who asked for a folder change in words."""
    requester = await async_resolve_requester(hass, Context(user_id=user.id if user else None))
    words = f"Set the {args.get('folder_name')} folder to {args.get('path_value')}"
    context = ToolContext(hass=hass, entry=entry, requester=requester, conversation_id="c1", user_text=words)
    return await ToolRegistry(entry).async_run(name, args, context)


async def test_set_folder_checks_the_path(
    hass: HomeAssistant, setup_integration: MockConfigEntry, media: Path, hass_admin_user: User
) -> None:
    entry = setup_integration
    memory = entry.runtime_data.memory
    cases = {
        "relative/path": "invalid_path",
        "/etc": "not_allowed",
        str(media.parent / "private"): "not_allowed",
        f"{media}/../private": "not_allowed",
        str(media / "missing"): "path_not_found",
        str(media / "file.txt"): "not_a_directory",
    }
    for path, code in cases.items():
        result = await run(
            hass, entry, "set_path_for_folder", {"folder_name": "movie", "path_value": path}, hass_admin_user
        )
        assert (path, result["status"], result["error"]) == (path, "error", code)
    assert memory.household.folders() == {}

    bad_name = await run(
        hass,
        entry,
        "set_path_for_folder",
        {"folder_name": "../../x", "path_value": str(media)},
        hass_admin_user,
    )
    assert bad_name["error"] == "bad_args"

    result = await run(
        hass,
        entry,
        "set_path_for_folder",
        {"folder_name": "TV Show", "path_value": f"{media}/movies/"},
        hass_admin_user,
    )
    assert result == {"status": "ok", "folder_name": "tv_show", "path": str(media / "movies")}
    assert memory.household.folders() == {"tv_show": str(media / "movies")}


async def test_media_dirs_are_allowed(
    hass: HomeAssistant, setup_integration: MockConfigEntry, tmp_path: Path, hass_admin_user: User
) -> None:
    library = tmp_path / "library"
    library.mkdir()
    hass.config.allowlist_external_dirs = set()
    hass.config.media_dirs = {"local": str(library)}
    result = await run(
        hass,
        setup_integration,
        "set_path_for_folder",
        {"folder_name": "movie", "path_value": str(library)},
        hass_admin_user,
    )
    assert result["status"] == "ok"


async def test_list_folder_stays_inside(
    hass: HomeAssistant, setup_integration: MockConfigEntry, media: Path, hass_admin_user: User
) -> None:
    entry = setup_integration
    entry.runtime_data.memory.household.set_folder("movie", str(media / "movies"))
    (media / "movies" / "escape").symlink_to(media.parent / "private")

    listing = await run(hass, entry, "list_folder", {"folder_name": "movie"}, None)
    assert listing["status"] == "ok"
    assert [(item["name"], item["type"]) for item in listing["entries"]] == [
        ("escape", "directory"),
        ("Sintel (2010)", "directory"),
        ("notes.txt", "file"),
    ]
    inside = await run(hass, entry, "list_folder", {"folder_name": "movie", "path": "Sintel (2010)"}, None)
    assert inside["entries"] == [{"name": "Sintel.2010.1080p.mkv", "type": "file", "size": "2 kB"}]

    refused = {
        "../private": "not_allowed",
        "Sintel (2010)/../../file.txt": "not_allowed",
        str(media.parent / "private"): "not_allowed",
        "escape": "not_allowed",  # a symlink out of the folder
        "missing": "path_not_found",
        "notes.txt": "not_a_directory",
    }
    for path, code in refused.items():
        result = await run(hass, entry, "list_folder", {"folder_name": "movie", "path": path}, None)
        assert (path, result["status"], result["error"]) == (path, "error", code)
    unknown = await run(hass, entry, "list_folder", {"folder_name": "music"}, None)
    assert unknown["error"] == "not_found"
    assert "movie" in unknown["message"]


async def test_non_admin_cannot_change_folders(
    hass: HomeAssistant,
    setup_integration: MockConfigEntry,
    llm_server: ScriptedLLMServer,
    media: Path,
    hass_read_only_user: User,
) -> None:
    entry = setup_integration
    args = {"folder_name": "download", "path_value": str(media / "downloads")}
    queue_call(llm_server, "native", "set_path_for_folder", args)
    llm_server.queue_text("Only an administrator can change the download folder.")
    result = await converse(hass, entry, "Set the download folder", user=hass_read_only_user)
    assert speech(result) == "Only an administrator can change the download folder."
    refusal = tool_results(llm_server.requests[1])[0]
    assert (refusal["status"], refusal["error"]) == ("error", "not_allowed")
    assert entry.runtime_data.memory.household.folders() == {}

    # Without a user (a voice satellite, an automation) it is Home Assistant itself asking: allowed.
    assert (await run(hass, entry, "set_path_for_folder", args, None))["status"] == "ok"
    # Reading is not a setting: anyone may list a folder.
    entry.runtime_data.memory.household.set_folder("download", str(media / "downloads"))
    assert (await run(hass, entry, "list_folder", {"folder_name": "download"}, hass_read_only_user))[
        "status"
    ] == "ok"


async def test_option_lets_non_admins_change_folders(
    hass: HomeAssistant, config_entry: MockConfigEntry, media: Path, hass_read_only_user: User
) -> None:
    hass.config_entries.async_update_entry(
        config_entry, options={**config_entry.options, CONF_ALLOW_NON_ADMIN_SETTINGS: True}
    )
    assert await hass.config_entries.async_setup(config_entry.entry_id)
    result = await run(
        hass,
        config_entry,
        "set_path_for_folder",
        {"folder_name": "download", "path_value": str(media / "downloads")},
        hass_read_only_user,
    )
    assert result["status"] == "ok"
    assert await hass.config_entries.async_unload(config_entry.entry_id)


def test_schemas_say_only_what_the_model_needs() -> None:
    """Choices and aliases are checked, not listed (a wrong value says the choices); the subject is not marked
    required (no call goes without it), a second required argument is."""
    specs = {spec["function"]["name"]: spec["function"] for spec in ToolRegistry(None).specs()}  # type: ignore[arg-type]
    preference = specs["set_preference"]["parameters"]["properties"]
    assert preference["resolution"] == preference["codec"] == {"type": "string"}
    assert SetPreference.parameters({"resolution": "4K", "codec": "HEVC"}) == {
        "resolution": "2160p",
        "codec": "x265",
    }
    with pytest.raises(vol.Invalid, match="expected one of any, 2160p, 1080p, 720p, 480p"):
        SetPreference.parameters({"resolution": "1440p"})
    assert "required" not in specs["find_torrents"]["parameters"]
    assert "required" not in specs["download_media"]["parameters"]
    assert specs["play_media"]["parameters"]["required"] == ["player"]
    assert specs["set_path_for_folder"]["parameters"]["required"] == ["folder_name", "path_value"]
    # Short enums stay listed, without the type their values say.
    assert specs["find_media_imdb_id"]["parameters"]["properties"]["media_type"] == {"enum": ["movie", "tv"]}
