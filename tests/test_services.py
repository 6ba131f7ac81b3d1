"""The actions, called through Home Assistant's service registry against the real rig."""

from __future__ import annotations

import json
from pathlib import Path
import re
from typing import TYPE_CHECKING, Any

from aiohttp import web
import pytest
from pytest_homeassistant_custom_component.common import MockConfigEntry, async_capture_events
import voluptuous as vol

from custom_components.agent_media import services
from custom_components.agent_media.agent.tools import ToolContext, ToolRegistry
from custom_components.agent_media.const import CONF_LLM_BASE_URL, DOMAIN, EVENT_DOWNLOAD_ADDED
from custom_components.agent_media.requester import SYSTEM
from homeassistant.config_entries import ConfigEntryState
from homeassistant.core import Context
from homeassistant.exceptions import HomeAssistantError, ServiceValidationError, Unauthorized
from homeassistant.helpers.service import async_get_all_descriptions
from homeassistant.util.yaml import load_yaml_dict

from .helpers import last_results, torrents_in_qbittorrent, wait_for_torrent, wait_until
from .rig._server import HTML_PAGE, LoopbackServer
from .rig.knaben_server import synthetic_hash
from .rig.torrents import LocalTorrent, make_local_torrent

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from pytest_homeassistant_custom_component.common import MockUser

    from homeassistant.core import HomeAssistant

    from .rig.knaben_server import KnabenServer
    from .rig.qbittorrent import QBittorrentInstance

SYNTHETIC_MAGNET = f"magnet:?xt=urn:btih:{synthetic_hash('services magnet')}&dn=Elephants.Dream.2006.720p"


class TorrentFileServer(LoopbackServer):
    """Serves .torrent files, a missing file and an HTML page, as a tracker's download links do."""

    def __init__(self) -> None:
        super().__init__()
        self.files: dict[str, bytes] = {}
        self.app.router.add_get("/page.html", self._page)
        self.app.router.add_get("/{name}", self._file)

    def url(self, name: str) -> str:
        return f"{self.root_url}/{name}"

    async def _page(self, _request: web.Request) -> web.Response:
        return web.Response(text=HTML_PAGE, content_type="text/html")

    async def _file(self, request: web.Request) -> web.Response:
        data = self.files.get(request.match_info["name"])
        if data is None:
            return web.Response(status=404, text="not found")
        return web.Response(body=data, content_type="application/x-bittorrent")


@pytest.fixture
async def file_server(socket_enabled: None) -> AsyncIterator[TorrentFileServer]:
    async with TorrentFileServer() as server:
        yield server


@pytest.fixture
def allowed_dir(hass: HomeAssistant, tmp_path: Path) -> Path:
    """A folder Home Assistant allows (allowlist_external_dirs), with a movie folder inside."""
    allowed = tmp_path / "media"
    (allowed / "movies").mkdir(parents=True)
    (allowed / "notes.txt").write_text("not a folder")
    hass.config.allowlist_external_dirs = {str(allowed)}
    return allowed


@pytest.fixture
def local_torrent(qbittorrent: QBittorrentInstance) -> LocalTorrent:
    """A torrent whose data is already in qBittorrent's download folder (completes offline)."""
    return make_local_torrent(qbittorrent.downloads_dir, "Big.Buck.Bunny.2008.720p.mkv")


async def call(hass: HomeAssistant, service: str, data: dict[str, Any] | None = None, **kwargs: Any) -> Any:
    return await hass.services.async_call(DOMAIN, service, data or {}, blocking=True, **kwargs)


def translated(err: pytest.ExceptionInfo[HomeAssistantError], key: str) -> str:
    """Assert the error's translation key and that its text comes from the translations."""
    assert err.value.translation_domain == DOMAIN
    assert err.value.translation_key == key
    message = str(err.value)
    assert message
    assert message != key
    return message


# --- search ------------------------------------------------------------------------------------------------


async def test_search_numbers_and_remembers_like_the_agent(
    hass: HomeAssistant, setup_integration: MockConfigEntry
) -> None:
    entry = setup_integration
    response = await call(hass, "search", {"query": "Sintel 2010", "limit": 3}, return_response=True)

    results = response["results"]
    assert [result["index"] for result in results] == [1, 2, 3]
    assert all("Sintel" in result["title"] for result in results)
    remembered = last_results(entry.runtime_data.memory)
    # Remembered with the id of its link (the link itself stays in RAM); the answer shows neither.
    assert all(kept.pop("link_id") for kept in remembered[:3])
    assert remembered[:3] == results

    # The agent's own tool ranks and numbers the same search the same way.
    registry = ToolRegistry(entry)
    found = await registry.async_run(
        "find_torrents",
        {"media_title": "Sintel 2010"},
        ToolContext(hass=hass, entry=entry, requester=SYSTEM, conversation_id="other"),
    )
    assert [torrent["title"] for torrent in found["torrents"][:3]] == [result["title"] for result in results]


async def test_search_by_media_type(
    hass: HomeAssistant, setup_integration: MockConfigEntry, knaben_server: KnabenServer
) -> None:
    response = await call(
        hass, "search", {"query": "Pioneer One S01E01", "media_type": "tv"}, return_response=True
    )

    assert response["results"]
    assert all("Pioneer.One.S01" in result["title"] for result in response["results"])
    assert knaben_server.requests[-1]["categories"] == [2000000]


async def test_search_without_usable_results_keeps_the_last_search(
    hass: HomeAssistant, setup_integration: MockConfigEntry
) -> None:
    entry = setup_integration
    await call(hass, "search", {"query": "Tears of Steel"}, return_response=True)
    before = last_results(entry.runtime_data.memory)

    response = await call(hass, "search", {"query": "No Such Film Anywhere 1901"}, return_response=True)

    assert response == {"results": []}
    assert last_results(entry.runtime_data.memory) == before


async def test_search_failure_is_a_service_error(
    hass: HomeAssistant, setup_integration: MockConfigEntry, knaben_server: KnabenServer
) -> None:
    knaben_server.fail_next("500", times=3)  # every attempt
    with pytest.raises(HomeAssistantError) as err:
        await call(hass, "search", {"query": "Sintel"}, return_response=True)
    assert not isinstance(err.value, ServiceValidationError)
    assert "knaben" in translated(err, "service_cannot_connect")


@pytest.mark.parametrize("data", [{"query": ""}, {"query": "   "}, {"query": "Sintel", "limit": 0}, {}])
async def test_search_schema_refuses_bad_shapes(
    hass: HomeAssistant, setup_integration: MockConfigEntry, data: dict[str, Any]
) -> None:
    with pytest.raises(vol.Invalid):
        await call(hass, "search", data, return_response=True)


# --- download ----------------------------------------------------------------------------------------------


async def test_download_by_index(
    hass: HomeAssistant, setup_integration: MockConfigEntry, qbittorrent: QBittorrentInstance
) -> None:
    entry = setup_integration
    events = async_capture_events(hass, EVENT_DOWNLOAD_ADDED)
    searched = await call(hass, "search", {"query": "Tears of Steel 2012"}, return_response=True)
    second = last_results(entry.runtime_data.memory)[1]
    assert second["title"] == searched["results"][1]["title"]

    response = await call(hass, "download", {"index": 2}, return_response=True)

    assert response == {"hash": second["info_hash"], "name": response["name"]}
    assert response["hash"] in await torrents_in_qbittorrent(hass, qbittorrent)
    assert entry.runtime_data.memory.downloads.records()[response["hash"]]["source"] == "service"
    assert [event.data["source"] for event in events] == ["service"]
    assert events[0].data["hash"] == response["hash"]


async def test_download_magnet(
    hass: HomeAssistant, setup_integration: MockConfigEntry, qbittorrent: QBittorrentInstance
) -> None:
    response = await call(hass, "download", {"magnet": SYNTHETIC_MAGNET}, return_response=True)

    assert response["hash"] == synthetic_hash("services magnet")
    assert response["hash"] in await torrents_in_qbittorrent(hass, qbittorrent)


async def test_download_url_fetches_the_torrent_file(
    hass: HomeAssistant,
    setup_integration: MockConfigEntry,
    qbittorrent: QBittorrentInstance,
    file_server: TorrentFileServer,
    local_torrent: LocalTorrent,
    allowed_dir: Path,
) -> None:
    hass.config.allowlist_external_dirs = {str(allowed_dir), str(qbittorrent.downloads_dir)}
    file_server.files["bunny.torrent"] = local_torrent.torrent_bytes

    response = await call(
        hass,
        "download",
        {"url": file_server.url("bunny.torrent"), "folder": str(qbittorrent.downloads_dir)},
        return_response=True,
    )

    # The hash comes from the file's bytes, not from a magnet: qBittorrent knows the torrent at once.
    assert response == {"hash": local_torrent.info_hash, "name": local_torrent.name}
    held = await torrents_in_qbittorrent(hass, qbittorrent)
    assert Path(held[local_torrent.info_hash]["save_path"]) == qbittorrent.downloads_dir


async def test_download_into_a_configured_folder(
    hass: HomeAssistant,
    setup_integration: MockConfigEntry,
    qbittorrent: QBittorrentInstance,
    allowed_dir: Path,
) -> None:
    movies = allowed_dir / "movies"
    await call(hass, "set_folder", {"folder": "movie", "path": str(movies)}, return_response=True)

    response = await call(
        hass, "download", {"magnet": SYNTHETIC_MAGNET, "folder": "movie"}, return_response=True
    )

    held = await torrents_in_qbittorrent(hass, qbittorrent)
    assert Path(held[response["hash"]]["save_path"]) == movies


@pytest.mark.parametrize(
    ("data", "key"),
    [
        ({"index": 1}, "no_search_results"),
        ({"magnet": "magnet:?xt=urn:btih:not-a-hash&dn=Sintel"}, "invalid_magnet"),
        ({"magnet": "https://example.org/sintel.torrent"}, "invalid_magnet"),
        ({"url": "ftp://127.0.0.1/sintel.torrent"}, "invalid_url"),
        ({"url": SYNTHETIC_MAGNET}, "invalid_url"),
        ({"url": "http:///no-host.torrent"}, "invalid_url"),
        ({"magnet": SYNTHETIC_MAGNET, "folder": "/etc"}, "folder_not_allowed"),
        ({"magnet": SYNTHETIC_MAGNET, "folder": "cartoons"}, "unknown_folder"),
    ],
)
async def test_download_refusals_add_nothing(
    hass: HomeAssistant,
    setup_integration: MockConfigEntry,
    qbittorrent: QBittorrentInstance,
    allowed_dir: Path,
    data: dict[str, Any],
    key: str,
) -> None:
    entry = setup_integration
    events = async_capture_events(hass, EVENT_DOWNLOAD_ADDED)
    with pytest.raises(ServiceValidationError) as err:
        await call(hass, "download", data, return_response=True)
    translated(err, key)
    assert await torrents_in_qbittorrent(hass, qbittorrent) == {}
    assert entry.runtime_data.memory.downloads.records() == {}
    assert events == []


async def test_download_unknown_index_adds_nothing(
    hass: HomeAssistant, setup_integration: MockConfigEntry, qbittorrent: QBittorrentInstance
) -> None:
    response = await call(hass, "search", {"query": "Nosferatu 1922"}, return_response=True)
    count = len(last_results(setup_integration.runtime_data.memory))
    assert count >= len(response["results"]) > 0

    with pytest.raises(ServiceValidationError) as err:
        await call(hass, "download", {"index": count + 1}, return_response=True)
    assert str(count) in translated(err, "unknown_index")
    assert await torrents_in_qbittorrent(hass, qbittorrent) == {}


@pytest.mark.parametrize(
    "data",
    [
        {},
        {"magnet": SYNTHETIC_MAGNET, "url": "https://example.org/a.torrent"},
        {"index": 1, "magnet": SYNTHETIC_MAGNET},
        {"index": 0},
        {"magnet": ""},
    ],
)
async def test_download_schema_wants_exactly_one_source(
    hass: HomeAssistant, setup_integration: MockConfigEntry, data: dict[str, Any]
) -> None:
    with pytest.raises(vol.Invalid):
        await call(hass, "download", data, return_response=True)


async def test_download_url_that_fails_adds_nothing(
    hass: HomeAssistant,
    setup_integration: MockConfigEntry,
    qbittorrent: QBittorrentInstance,
    file_server: TorrentFileServer,
) -> None:
    with pytest.raises(HomeAssistantError) as err:
        await call(hass, "download", {"url": file_server.url("missing.torrent")}, return_response=True)
    assert not isinstance(err.value, ServiceValidationError)
    translated(err, "service_cannot_connect")

    with pytest.raises(ServiceValidationError) as rejected:
        await call(hass, "download", {"url": file_server.url("page.html")}, return_response=True)
    translated(rejected, "request_rejected")
    assert await torrents_in_qbittorrent(hass, qbittorrent) == {}


async def test_download_with_qbittorrent_down_is_a_service_error(
    hass: HomeAssistant, setup_integration: MockConfigEntry, qbittorrent: QBittorrentInstance
) -> None:
    await qbittorrent.stop()
    with pytest.raises(HomeAssistantError) as err:
        await call(hass, "download", {"magnet": SYNTHETIC_MAGNET}, return_response=True)
    assert not isinstance(err.value, ServiceValidationError)
    translated(err, "service_cannot_connect")
    assert setup_integration.runtime_data.memory.downloads.records() == {}


# --- folders -----------------------------------------------------------------------------------------------


async def test_set_folder(hass: HomeAssistant, setup_integration: MockConfigEntry, allowed_dir: Path) -> None:
    path = allowed_dir / "movies"
    response = await call(hass, "set_folder", {"folder": "movie", "path": f"{path}/"}, return_response=True)

    assert response == {"folder": "movie", "path": str(path)}
    assert setup_integration.runtime_data.memory.household.folders() == {"movie": str(path)}


@pytest.mark.parametrize(
    ("folder", "path", "key"),
    [
        ("movie", "/etc", "folder_not_allowed"),
        ("movie", "{allowed}/missing", "path_not_found"),
        ("movie", "{allowed}/notes.txt", "not_a_directory"),
        ("movie", "movies", "path_not_absolute"),
        ("My Films!", "{allowed}/movies", "invalid_folder_name"),
    ],
)
async def test_set_folder_refusals_change_nothing(
    hass: HomeAssistant,
    setup_integration: MockConfigEntry,
    allowed_dir: Path,
    folder: str,
    path: str,
    key: str,
) -> None:
    with pytest.raises(ServiceValidationError) as err:
        await call(
            hass,
            "set_folder",
            {"folder": folder, "path": path.format(allowed=allowed_dir)},
            return_response=True,
        )
    translated(err, key)
    assert setup_integration.runtime_data.memory.household.folders() == {}


async def test_set_folder_needs_an_administrator(
    hass: HomeAssistant,
    setup_integration: MockConfigEntry,
    allowed_dir: Path,
    hass_read_only_user: MockUser,
    hass_admin_user: MockUser,
) -> None:
    data = {"folder": "movie", "path": str(allowed_dir / "movies")}
    with pytest.raises(Unauthorized):
        await call(
            hass, "set_folder", data, context=Context(user_id=hass_read_only_user.id), return_response=True
        )
    assert setup_integration.runtime_data.memory.household.folders() == {}

    await call(hass, "set_folder", data, context=Context(user_id=hass_admin_user.id), return_response=True)
    assert setup_integration.runtime_data.memory.household.folders() == {"movie": data["path"]}


# --- downloads in qBittorrent ------------------------------------------------------------------------------


async def test_list_pause_resume_remove(
    hass: HomeAssistant,
    setup_integration: MockConfigEntry,
    qbittorrent: QBittorrentInstance,
    file_server: TorrentFileServer,
    local_torrent: LocalTorrent,
) -> None:
    file_server.files["bunny.torrent"] = local_torrent.torrent_bytes
    added = await call(hass, "download", {"url": file_server.url("bunny.torrent")}, return_response=True)
    info_hash = added["hash"]
    # A torrent someone added in qBittorrent itself is listed too, marked as not ours.
    await hass.async_add_executor_job(lambda: qbittorrent.api().torrents_add(urls=SYNTHETIC_MAGNET))

    listed = (await call(hass, "list_downloads", return_response=True))["downloads"]
    by_hash = {download["hash"]: download for download in listed}
    assert set(by_hash) == {info_hash, synthetic_hash("services magnet")}
    assert by_hash[info_hash]["name"] == local_torrent.name
    assert by_hash[info_hash]["added_by_agent_media"] is True
    assert by_hash[synthetic_hash("services magnet")]["added_by_agent_media"] is False

    # The local data is checked, then the torrent completes offline; pause it afterwards.
    await wait_for_torrent(hass, qbittorrent, info_hash, lambda t: t["state"] not in CHECKING)
    await call(hass, "pause", {"hash": info_hash.upper()})
    await wait_for_torrent(hass, qbittorrent, info_hash, lambda t: t["state"] in PAUSED)
    listed = (await call(hass, "list_downloads", return_response=True))["downloads"]
    assert {d["hash"]: d["paused"] for d in listed}[info_hash] is True

    await call(hass, "resume", {"hash": info_hash})
    # Resumed, qBittorrent 5 may look at the data again for a moment before it seeds.
    await wait_for_torrent(hass, qbittorrent, info_hash, lambda t: t["state"] not in PAUSED | CHECKING)
    listed = (await call(hass, "list_downloads", return_response=True))["downloads"]
    assert {d["hash"]: (d["paused"], d["state"]) for d in listed}[info_hash] == (False, "completed")

    await call(hass, "remove", {"hash": info_hash, "delete_files": True})
    assert info_hash not in await torrents_in_qbittorrent(hass, qbittorrent)
    assert info_hash not in setup_integration.runtime_data.memory.downloads.records()
    await wait_until(
        lambda: hass.async_add_executor_job(local_torrent.data_path.exists),
        lambda exists: not exists,
        what="qBittorrent to delete the data",
    )


PAUSED = frozenset({"pausedDL", "pausedUP", "stoppedDL", "stoppedUP"})  # qBittorrent 4.x and 5.x names
CHECKING = frozenset({"checkingDL", "checkingUP", "checkingResumeData", "allocating", "metaDL"})


async def test_remove_keeps_files_by_default(
    hass: HomeAssistant,
    setup_integration: MockConfigEntry,
    qbittorrent: QBittorrentInstance,
    file_server: TorrentFileServer,
    local_torrent: LocalTorrent,
) -> None:
    file_server.files["bunny.torrent"] = local_torrent.torrent_bytes
    added = await call(hass, "download", {"url": file_server.url("bunny.torrent")}, return_response=True)

    await call(hass, "remove", {"hash": added["hash"]})

    assert added["hash"] not in await torrents_in_qbittorrent(hass, qbittorrent)
    assert local_torrent.data_path.exists()


@pytest.mark.parametrize("service", ["pause", "resume", "remove"])
async def test_torrent_actions_refuse_unknown_hashes(
    hass: HomeAssistant, setup_integration: MockConfigEntry, service: str
) -> None:
    with pytest.raises(ServiceValidationError) as err:
        await call(hass, service, {"hash": synthetic_hash("never added")})
    translated(err, "unknown_torrent")
    with pytest.raises(ServiceValidationError) as err:
        await call(hass, service, {"hash": "not-a-hash"})
    translated(err, "invalid_hash")


# --- memory ------------------------------------------------------------------------------------------------


async def test_clear_memory(
    hass: HomeAssistant, setup_integration: MockConfigEntry, allowed_dir: Path
) -> None:
    memory = setup_integration.runtime_data.memory
    await call(
        hass, "set_folder", {"folder": "movie", "path": str(allowed_dir / "movies")}, return_response=True
    )
    await call(hass, "search", {"query": "Elephants Dream"}, return_response=True)
    assert last_results(memory)

    await call(hass, "clear_memory", {"scope": "search"})
    assert last_results(memory) == []
    assert memory.household.folders() != {}

    await call(hass, "clear_memory")
    assert memory.household.folders() == {}

    with pytest.raises(vol.Invalid):
        await call(hass, "clear_memory", {"scope": "everything"})


# --- which entry -------------------------------------------------------------------------------------------


async def test_entry_resolution(
    hass: HomeAssistant,
    setup_integration: MockConfigEntry,
    entry_data: dict[str, Any],
    entry_options: dict[str, Any],
) -> None:
    first = setup_integration
    with pytest.raises(ServiceValidationError) as err:
        await call(hass, "list_downloads", {"config_entry_id": "no-such-entry"}, return_response=True)
    translated(err, "entry_not_found")

    second = MockConfigEntry(
        domain=DOMAIN, title="Second Agent Media", data=entry_data, options=entry_options
    )
    second.add_to_hass(hass)
    assert await hass.config_entries.async_setup(second.entry_id)
    await hass.async_block_till_done()
    with pytest.raises(ServiceValidationError) as err:
        await call(hass, "list_downloads", return_response=True)
    translated(err, "entry_required")
    assert await call(hass, "list_downloads", {"config_entry_id": second.entry_id}, return_response=True) == {
        "downloads": []
    }

    assert await hass.config_entries.async_unload(second.entry_id)
    await hass.async_block_till_done()
    with pytest.raises(ServiceValidationError) as err:
        await call(hass, "list_downloads", {"config_entry_id": second.entry_id}, return_response=True)
    assert "Second Agent Media" in translated(err, "entry_not_loaded")
    # With one entry loaded again, it is used without naming it.
    assert await call(hass, "list_downloads", return_response=True) == {"downloads": []}

    assert await hass.config_entries.async_unload(first.entry_id)
    await hass.async_block_till_done()
    with pytest.raises(ServiceValidationError) as err:
        await call(hass, "list_downloads", return_response=True)
    translated(err, "no_loaded_entry")


async def test_actions_work_without_a_reachable_language_model(
    hass: HomeAssistant,
    entry_data: dict[str, Any],
    entry_options: dict[str, Any],
    qbittorrent: QBittorrentInstance,
    core_setup: None,
) -> None:
    entry = MockConfigEntry(
        domain=DOMAIN,
        data=entry_data | {CONF_LLM_BASE_URL: "http://127.0.0.1:9/v1"},  # nothing listens on port 9
        options=entry_options,
    )
    entry.add_to_hass(hass)
    assert await hass.config_entries.async_setup(entry.entry_id)
    await hass.async_block_till_done()
    assert entry.state is ConfigEntryState.LOADED

    searched = await call(hass, "search", {"query": "Big Buck Bunny 2008"}, return_response=True)
    added = await call(hass, "download", {"index": 1}, return_response=True)

    assert added["hash"] == last_results(entry.runtime_data.memory)[0]["info_hash"]
    assert searched["results"][0]["title"] == last_results(entry.runtime_data.memory)[0]["title"]
    assert added["hash"] in await torrents_in_qbittorrent(hass, qbittorrent)
    assert await hass.config_entries.async_unload(entry.entry_id)
    await hass.async_block_till_done()


async def test_actions_are_described(hass: HomeAssistant, setup_integration: MockConfigEntry) -> None:
    """services.yaml passes Home Assistant's own validation (an invalid file is dropped with a warning)."""
    descriptions = (await async_get_all_descriptions(hass))[DOMAIN]

    assert set(descriptions) == {service for service, *_ in services._SERVICES}
    assert set(descriptions["download"]["fields"]) == {"config_entry_id", "index", "magnet", "url", "folder"}
    entry_selector = descriptions["search"]["fields"]["config_entry_id"]["selector"]
    assert entry_selector == {"config_entry": {"integration": DOMAIN}}


def test_every_error_of_the_actions_is_translated() -> None:
    package = Path(services.__file__).parent
    sources = [package / "services.py", package / "errors.py", *sorted((package / "operations").glob("*.py"))]
    source = "\n".join(path.read_text(encoding="utf-8") for path in sources)
    keys = (
        set(re.findall(r'_validation_error\(\s*"([a-z_]+)"', source))
        | set(re.findall(r'OperationError\(\s*ErrorCode\.[A-Z_]+,\s*"([a-z_]+)"', source))
        | set(re.findall(r'ErrorCode\.[A-Z_]+, "([a-z_]+)"\)', source))
        | {"permission_denied"}
    )
    strings = json.loads(
        (Path(services.__file__).parent / "translations" / "en.json").read_text(encoding="utf-8")
    )
    assert len(keys) > 20
    assert keys <= set(strings["exceptions"]), keys - set(strings["exceptions"])
    assert set(strings["services"]) == set(hass_services_yaml())


def hass_services_yaml() -> dict[str, Any]:
    return load_yaml_dict(str(Path(services.__file__).parent / "services.yaml"))
