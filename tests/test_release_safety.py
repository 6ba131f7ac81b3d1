"""Safety before download: every add path stops a torrent before data, reads its files, refuses bad ones.

Real qbittorrent-nox, local torrents (their file list is known at once) and magnets without peers (their
metadata never comes, so they wait, stopped by qBittorrent's stop condition).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest
from pytest_homeassistant_custom_component.common import async_capture_events

from custom_components.agent_media.agent.tools import ToolContext, ToolRegistry
from custom_components.agent_media.clients.qbittorrent import AddedTorrent
from custom_components.agent_media.const import DOMAIN, EVENT_DOWNLOAD_ADDED
from custom_components.agent_media.errors import DangerousTorrentError
from custom_components.agent_media.news import NewsKind
from custom_components.agent_media.operations.adding import SAFETY_CHECKED, SAFETY_WAITING
from custom_components.agent_media.requester import SYSTEM, SYSTEM_KEY
from custom_components.agent_media.safety import (
    dangerous_file_reason,
    dangerous_files,
    dangerous_name_extension,
)
from custom_components.agent_media.torrents import SAFETY_EXISTING, TORRENT_TAG
from homeassistant.exceptions import ServiceValidationError

from .helpers import (
    async_add_download,
    torrents_in_qbittorrent,
    wait_for_torrent,
    wait_for_torrent_gone,
    wait_until,
)
from .rig.knaben_server import synthetic_hash
from .rig.torrents import make_local_torrent
from .test_services import TorrentFileServer, file_server

if TYPE_CHECKING:
    from pytest_homeassistant_custom_component.common import MockConfigEntry

    from homeassistant.core import HomeAssistant

    from .rig.qbittorrent import QBittorrentInstance

__all__ = ["file_server"]

# A fake: the film is a shortcut and an installer rides along.
FAKE_FILES = {
    "Night.of.the.Living.Dead.1968.1080p.mkv.exe": 64 * 1024,
    "Codec/setup.bat": 1024,
    "Night.of.the.Living.Dead.1968.1080p.mkv.lnk": 2048,
    "Readme.txt": 200,
}
CLEAN_FILES = {"Nosferatu.1922.720p.BluRay.x264.mkv": 128 * 1024, "Subs/English.srt": 2048}


STOPPED = frozenset({"pausedDL", "pausedUP", "stoppedDL", "stoppedUP"})


@pytest.mark.parametrize(
    ("name", "dangerous"),
    [
        ("Movie.2010.1080p.mkv", False),
        ("Folder/Movie.2010.1080p.mkv.exe", True),
        ("Movie.mkv.LNK", True),
        ("setup.bat", True),
        ("install.cmd", True),
        ("run.ps1", True),
        ("x.vbs", True),
        ("x.scr", True),
        ("archive.zipx", True),
        ("Movie\u202evkm.exe", True),
        ("Subs/English.srt", False),
        ("Sample/sample.mp4", False),
        ("Readme.txt", False),
        # Windows (and qBittorrent there) drops the dots and spaces that end a name: these are programs.
        ("Setup.exe.", True),
        ("Update.exe   ", True),
        ("Codec/install.bat. . .", True),
        ("Codec\\install.cmd.", True),
        ("Extras./Movie.mkv.lnk .", True),
        ("Movie.2010.1080p.mkv.", False),
        ("Sample /sample.mkv ", False),
    ],
)
def test_dangerous_file_names(name: str, dangerous: bool) -> None:
    assert (dangerous_file_reason(name) is not None) is dangerous
    assert dangerous_files([name]) == ([name] if dangerous else [])


async def test_a_torrent_holding_programs_is_refused_and_removed(
    hass: HomeAssistant, setup_integration: MockConfigEntry, qbittorrent: QBittorrentInstance
) -> None:
    entry = setup_integration
    added_events = async_capture_events(hass, EVENT_DOWNLOAD_ADDED)
    fake = make_local_torrent(qbittorrent.downloads_dir, "Night.of.the.Living.Dead.1968", files=FAKE_FILES)

    with pytest.raises(DangerousTorrentError) as refused:
        await async_add_download(hass, entry, torrent_file=fake.torrent_bytes)

    assert sorted(refused.value.files) == sorted(
        f"{fake.name}/{path}" for path in FAKE_FILES if not path.endswith(".txt")
    )
    assert "mkv.exe" in str(refused.value.detail)
    assert "setup.bat" in str(refused.value.detail)
    assert fake.info_hash not in await torrents_in_qbittorrent(hass, qbittorrent)
    assert fake.info_hash not in entry.runtime_data.memory.downloads.records()
    assert added_events == []
    # The payload on disk was not ours to delete.
    assert (fake.data_path / "Readme.txt").exists()


@pytest.mark.parametrize("name", ["Sintel.2010.1080p.mkv.exe.", "Sintel.2010.1080p.mkv.exe   "])
def test_a_release_name_is_read_as_windows_would(name: str) -> None:
    assert dangerous_name_extension(name) == "exe"


async def test_programs_named_as_windows_would_shorten_them_are_refused(
    hass: HomeAssistant, setup_integration: MockConfigEntry, qbittorrent: QBittorrentInstance
) -> None:
    """qBittorrent on Windows writes "Setup.exe." as Setup.exe: refused before anything is added."""
    files = {"Sintel.2010.1080p.mkv": 64 * 1024, "Setup.exe.": 1024, "Codec/Update.exe   ": 1024}
    fake = make_local_torrent(qbittorrent.downloads_dir, "Sintel.2010.1080p", files=files)

    with pytest.raises(DangerousTorrentError) as refused:
        await async_add_download(hass, setup_integration, torrent_file=fake.torrent_bytes)

    assert refused.value.files == [f"{fake.name}/Setup.exe.", f"{fake.name}/Codec/Update.exe   "]
    assert fake.info_hash not in await torrents_in_qbittorrent(hass, qbittorrent)


async def test_the_agent_tool_explains_the_refusal(
    hass: HomeAssistant,
    setup_integration: MockConfigEntry,
    qbittorrent: QBittorrentInstance,
    file_server: TorrentFileServer,
) -> None:
    entry = setup_integration
    fake = make_local_torrent(qbittorrent.downloads_dir, "Nosferatu.1922.1080p", files=FAKE_FILES)
    file_server.files["fake.torrent"] = fake.torrent_bytes
    link_id = entry.runtime_data.operations.collaborators.links.remember(file_server.url("fake.torrent"))
    result = {"title": fake.name, "size": 1, "seeders": 9, "link_id": link_id}
    entry.runtime_data.memory.working.store_search(SYSTEM_KEY, "Nosferatu 1922", [result], None)
    context = ToolContext(hass=hass, entry=entry, requester=SYSTEM, conversation_id="c1")

    result = await ToolRegistry(entry).async_run("add_torrent_by_index", {"index": 1}, context)

    assert result["status"] == "error"
    assert result["error"] == "dangerous_files"
    assert f"{fake.name}/Night.of.the.Living.Dead.1968.1080p.mkv.exe" in result["dangerous_files"]
    assert "setup.bat" in result["message"]
    assert fake.info_hash not in await torrents_in_qbittorrent(hass, qbittorrent)
    assert entry.runtime_data.memory.journal.recent_errors()[-1]["error"] == "dangerous_files"


async def test_the_download_action_refuses_too(
    hass: HomeAssistant,
    setup_integration: MockConfigEntry,
    qbittorrent: QBittorrentInstance,
    file_server: TorrentFileServer,
) -> None:
    fake = make_local_torrent(qbittorrent.downloads_dir, "The.General.1926", files=FAKE_FILES)
    file_server.files["general.torrent"] = fake.torrent_bytes

    with pytest.raises(ServiceValidationError) as refused:
        await hass.services.async_call(
            DOMAIN,
            "download",
            {"url": file_server.url("general.torrent")},
            blocking=True,
            return_response=True,
        )

    assert refused.value.translation_key == "dangerous_files"
    assert "setup.bat" in str(refused.value)
    assert fake.info_hash not in await torrents_in_qbittorrent(hass, qbittorrent)


async def test_a_clean_torrent_is_checked_then_started(
    hass: HomeAssistant, setup_integration: MockConfigEntry, qbittorrent: QBittorrentInstance
) -> None:
    entry = setup_integration
    clean = make_local_torrent(qbittorrent.downloads_dir, "Nosferatu.1922.720p", files=CLEAN_FILES)

    added = await async_add_download(
        hass, entry, torrent_file=clean.torrent_bytes, save_path=str(qbittorrent.downloads_dir)
    )

    assert added.info_hash == clean.info_hash
    assert entry.runtime_data.memory.downloads.records()[clean.info_hash]["safety"] == SAFETY_CHECKED
    # Started after the check: qBittorrent verifies the local data and completes it offline.
    torrent = await wait_for_torrent(hass, qbittorrent, clean.info_hash, lambda t: t["progress"] == 1)
    assert torrent["state"] not in STOPPED
    assert TORRENT_TAG in torrent["tags"]


async def test_a_magnet_waits_for_its_metadata_stopped_before_any_data(
    hass: HomeAssistant, setup_integration: MockConfigEntry, qbittorrent: QBittorrentInstance
) -> None:
    entry = setup_integration
    info_hash = synthetic_hash("safety magnet")
    magnet = f"magnet:?xt=urn:btih:{info_hash}&dn=Elephants.Dream.2006.1080p"

    added = await async_add_download(hass, entry, magnet=magnet)

    assert added.info_hash == info_hash
    assert entry.runtime_data.memory.downloads.records()[info_hash]["safety"] == SAFETY_WAITING
    # Running only to fetch the metadata, with qBittorrent's stop condition set.
    torrent = await wait_for_torrent(hass, qbittorrent, info_hash)
    assert torrent["state"] not in STOPPED
    properties = await hass.async_add_executor_job(
        lambda: qbittorrent.api().torrents_properties(torrent_hash=info_hash)
    )
    assert properties["total_size"] in (-1, 0)  # no metadata, so no data either
    # The background check is an entry task: unloading the entry (the fixture does) cancels it.


async def test_someone_elses_torrent_is_left_alone(
    hass: HomeAssistant, setup_integration: MockConfigEntry, qbittorrent: QBittorrentInstance
) -> None:
    entry = setup_integration
    own = make_local_torrent(qbittorrent.downloads_dir, "Elephants.Dream.2006", files=CLEAN_FILES)
    await hass.async_add_executor_job(
        lambda: qbittorrent.api().torrents_add(
            torrent_files={"own.torrent": own.torrent_bytes},
            save_path=str(qbittorrent.downloads_dir),
            is_paused=True,
            is_stopped=True,
        )
    )
    await wait_for_torrent(hass, qbittorrent, own.info_hash)

    await async_add_download(hass, entry, torrent_file=own.torrent_bytes)

    assert entry.runtime_data.memory.downloads.records()[own.info_hash]["safety"] == SAFETY_EXISTING
    # Still as its owner left it: stopped (after qBittorrent's look at the data on disk).
    torrent = await wait_for_torrent(
        hass, qbittorrent, own.info_hash, lambda t: not str(t["state"]).startswith("checking")
    )
    assert torrent["state"] in STOPPED


async def test_the_background_check_refuses_when_the_file_list_arrives(
    hass: HomeAssistant, setup_integration: MockConfigEntry, qbittorrent: QBittorrentInstance
) -> None:
    """The late half of a magnet's check, on a torrent whose file list is there (as once metadata came)."""
    entry = setup_integration
    memory = entry.runtime_data.memory
    fake = make_local_torrent(qbittorrent.downloads_dir, "Tears.of.Steel.2012", files=FAKE_FILES)
    clean = make_local_torrent(qbittorrent.downloads_dir, "Tears.of.Steel.2012.720p", files=CLEAN_FILES)
    for torrent in (fake, clean):
        await hass.async_add_executor_job(
            lambda data=torrent.torrent_bytes: qbittorrent.api().torrents_add(
                torrent_files={"x.torrent": data},
                save_path=str(qbittorrent.downloads_dir),
                is_paused=True,
                is_stopped=True,
            )
        )
        await wait_for_torrent(hass, qbittorrent, torrent.info_hash)
        memory.downloads.add(torrent.info_hash, {"name": torrent.name, "safety": SAFETY_WAITING})

    adder = entry.runtime_data.operations.adder
    await adder.async_finish_safety_check(AddedTorrent(info_hash=fake.info_hash, name=fake.name))
    await adder.async_finish_safety_check(AddedTorrent(info_hash=clean.info_hash, name=clean.name))

    assert fake.info_hash not in await torrents_in_qbittorrent(hass, qbittorrent)
    assert fake.info_hash not in memory.downloads.records()
    refused = [event for event in memory.journal.unread_events() if event["type"] == NewsKind.REFUSED]
    assert [event["data"]["hash"] for event in refused] == [fake.info_hash]
    assert any(path.endswith("setup.bat") for path in refused[0]["data"]["dangerous_files"])
    assert memory.downloads.records()[clean.info_hash]["safety"] == SAFETY_CHECKED
    await wait_for_torrent(hass, qbittorrent, clean.info_hash, lambda t: t["state"] not in STOPPED)


async def test_a_restart_resumes_the_waiting_check(
    hass: HomeAssistant,
    config_entry: MockConfigEntry,
    qbittorrent: QBittorrentInstance,
    hass_storage: dict[str, Any],
) -> None:
    """Home Assistant stopped while a torrent waited for its file list: the check carries on after setup."""
    fake = make_local_torrent(qbittorrent.downloads_dir, "Night.of.the.Living.Dead.1968", files=FAKE_FILES)
    await hass.async_add_executor_job(
        lambda: qbittorrent.api().torrents_add(
            torrent_files={"x.torrent": fake.torrent_bytes},
            save_path=str(qbittorrent.downloads_dir),
            tags=TORRENT_TAG,
            is_paused=True,
            is_stopped=True,
        )
    )
    await wait_for_torrent(hass, qbittorrent, fake.info_hash)
    # What the previous run left in the entry's Store.
    hass_storage[f"{DOMAIN}.{config_entry.entry_id}"] = {
        "version": 1,
        "minor_version": 1,
        "key": f"{DOMAIN}.{config_entry.entry_id}",
        "data": {
            "active_downloads": {
                fake.info_hash: {
                    "name": fake.name,
                    "source": "conversation",
                    "added_at": "2026-11-30T05:00:00+00:00",
                    "safety": SAFETY_WAITING,
                }
            }
        },
    }

    assert await hass.config_entries.async_setup(config_entry.entry_id)
    memory = config_entry.runtime_data.memory
    # qBittorrent may list it gone before the check, awaiting that removal, has forgotten and told it.
    await wait_until(
        lambda: [event["type"] for event in memory.journal.unread_events()],
        lambda types: types == [NewsKind.REFUSED],
        what="the refusal told",
    )
    assert fake.info_hash not in memory.downloads.records()
    await wait_for_torrent_gone(hass, qbittorrent, fake.info_hash)
    assert await hass.config_entries.async_unload(config_entry.entry_id)
