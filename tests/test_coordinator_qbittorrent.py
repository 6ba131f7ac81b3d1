"""The downloads coordinator against a real qbittorrent-nox: completion events, restarts, outages, polling."""

from __future__ import annotations

from datetime import timedelta
import logging
import shutil
from typing import TYPE_CHECKING, Any

import pytest
from pytest_homeassistant_custom_component.common import (
    MockConfigEntry,
    async_capture_events,
)

from custom_components.agent_media import coordinator as coordinator_module
from custom_components.agent_media.const import (
    DEFAULT_SCAN_INTERVAL,
    DOMAIN,
    EVENT_DOWNLOAD_ADDED,
    EVENT_DOWNLOAD_COMPLETED,
    IDLE_SCAN_INTERVAL,
)
from homeassistant.config_entries import ConfigEntryState
from homeassistant.const import STATE_UNAVAILABLE

from .helpers import (
    async_add_download,
    is_done,
    poll,
    refresh_until,
    torrents_in_qbittorrent,
    wait_for_torrent,
    wait_until,
)
from .rig.torrents import LocalTorrent, make_local_torrent

if TYPE_CHECKING:
    from pathlib import Path

    from homeassistant.core import HomeAssistant

    from .rig.qbittorrent import QBittorrentInstance

EVENT_ENTITY = "event.agent_media_downloads"
ACTIVE_DOWNLOADS = "sensor.agent_media_active_downloads"
BIG_BUCK_BUNNY = {
    "title": "Big Buck Bunny",
    "year": 2008,
    "imdb_id": "tt1254207",
    "tmdb_id": 10378,
    "media_type": "movie",
}


pytestmark = pytest.mark.usefixtures("core_setup")  # the conversation dependency needs core


async def add_waiting_download(
    hass: HomeAssistant, qbittorrent: QBittorrentInstance, tmp_path: Path, name: str
) -> tuple[LocalTorrent, Path]:
    """Add a local torrent whose save path is empty, so it stalls at 0 %; return it and that folder."""
    torrent = make_local_torrent(tmp_path / "payload", name)
    empty = tmp_path / "incoming"
    empty.mkdir(exist_ok=True)
    await hass.async_add_executor_job(
        lambda: qbittorrent.api().torrents_add(
            torrent_files={f"{name}.torrent": torrent.torrent_bytes}, save_path=str(empty), category="films"
        )
    )
    await wait_for_torrent(hass, qbittorrent, torrent.info_hash, lambda t: t["state"] == "stalledDL")
    return torrent, empty


async def finish_download(
    hass: HomeAssistant, qbittorrent: QBittorrentInstance, torrent: LocalTorrent, save_path: Path
) -> None:
    """Put the payload where the stalled torrent looks and let qBittorrent check it: it completes."""
    await hass.async_add_executor_job(shutil.copy, torrent.data_path, save_path / torrent.name)
    await hass.async_add_executor_job(
        lambda: qbittorrent.api().torrents_recheck(torrent_hashes=torrent.info_hash)
    )
    await wait_for_torrent(hass, qbittorrent, torrent.info_hash, is_done)


def event_entity_fires(hass: HomeAssistant) -> list[dict[str, Any]]:
    """Record each time the event entity fires (its state is the time of the last event)."""
    fired: list[dict[str, Any]] = []

    def remember(event: Any) -> None:
        new_state = event.data["new_state"]
        old_state = event.data["old_state"]
        if (
            event.data["entity_id"] == EVENT_ENTITY
            and new_state is not None
            and new_state.attributes.get("event_type") is not None
            and (old_state is None or old_state.state != new_state.state)
        ):
            fired.append(dict(new_state.attributes))

    hass.bus.async_listen("state_changed", remember)
    return fired


async def test_download_completes_once_with_payload(
    hass: HomeAssistant, qbittorrent: QBittorrentInstance, setup_integration: MockConfigEntry, tmp_path: Path
) -> None:
    entry = setup_integration
    completed = async_capture_events(hass, EVENT_DOWNLOAD_COMPLETED)
    fires = event_entity_fires(hass)
    torrent, save_path = await add_waiting_download(hass, qbittorrent, tmp_path, "Sintel.2010.mkv")
    await refresh_until(hass, entry, lambda: hass.states.get(ACTIVE_DOWNLOADS).state == "1", what="it active")
    assert completed == []

    await finish_download(hass, qbittorrent, torrent, save_path)
    await poll(hass)
    await poll(hass)

    assert len(completed) == 1
    assert completed[0].data == {
        "entry_id": entry.entry_id,
        "hash": torrent.info_hash,
        "name": "Sintel.2010.mkv",
        "save_path": str(save_path),
        "content_path": str(save_path / "Sintel.2010.mkv"),
        "size": 256 * 1024,
        "category": "films",
        "subscribers": [],  # nobody asked to be told
    }
    assert len(fires) == 1
    assert fires[0]["event_type"] == "completed"
    assert fires[0]["hash"] == torrent.info_hash
    assert "entry_id" not in fires[0]
    assert hass.states.get(ACTIVE_DOWNLOADS).state == "0"
    # The agent hears of it on its next turn.
    events = entry.runtime_data.memory.journal.unread_events()
    assert [(event["type"], event["data"]["hash"]) for event in events] == [
        ("download_completed", torrent.info_hash)
    ]

    # A recheck of the finished torrent lowers its progress for a moment: still no second completion.
    await hass.async_add_executor_job(
        lambda: qbittorrent.api().torrents_recheck(torrent_hashes=torrent.info_hash)
    )

    async def torrent_after_a_poll() -> dict[str, Any]:
        await poll(hass)
        return (await torrents_in_qbittorrent(hass, qbittorrent, torrent.info_hash)).get(
            torrent.info_hash, {}
        )

    await wait_until(torrent_after_a_poll, lambda found: found and is_done(found), what="the recheck to end")
    await poll(hass)
    assert len(completed) == 1
    assert len(fires) == 1


async def test_agent_download_completes_with_media(
    hass: HomeAssistant, qbittorrent: QBittorrentInstance, setup_integration: MockConfigEntry, tmp_path: Path
) -> None:
    """A download the agent added completes (its data is already there) and carries the TMDB details."""
    entry = setup_integration
    added_events = async_capture_events(hass, EVENT_DOWNLOAD_ADDED)
    completed = async_capture_events(hass, EVENT_DOWNLOAD_COMPLETED)
    fires = event_entity_fires(hass)
    torrent = make_local_torrent(tmp_path / "films", "Big.Buck.Bunny.2008.1080p.mkv")

    await async_add_download(
        hass,
        entry,
        torrent_file=torrent.torrent_bytes,
        save_path=str(tmp_path / "films"),
        media=BIG_BUCK_BUNNY,
        conversation_id="conversation-1",
    )
    await hass.async_block_till_done(wait_background_tasks=True)
    assert len(added_events) == 1
    assert torrent.info_hash in entry.runtime_data.memory.downloads.records()

    await wait_for_torrent(hass, qbittorrent, torrent.info_hash, is_done)
    await poll(hass)
    await poll(hass)

    assert len(completed) == 1
    assert completed[0].data == {
        "entry_id": entry.entry_id,
        "hash": torrent.info_hash,
        "name": "Big.Buck.Bunny.2008.1080p.mkv",
        "save_path": str(tmp_path / "films"),
        "content_path": str(torrent.data_path),
        "size": 256 * 1024,
        "category": "",
        "title": "Big Buck Bunny",
        "year": 2008,
        "imdb_id": "tt1254207",
        "media_type": "movie",
        "subscribers": [],
    }
    assert [fire["event_type"] for fire in fires] == ["added", "completed"]
    assert entry.runtime_data.memory.downloads.records() == {}


async def test_complete_torrents_never_fire(
    hass: HomeAssistant, qbittorrent: QBittorrentInstance, config_entry: MockConfigEntry, tmp_path: Path
) -> None:
    """A library of finished torrents is not news: no events, no per-download entities."""
    torrent = make_local_torrent(tmp_path / "library", "Night.of.the.Living.Dead.1968.mkv")
    await hass.async_add_executor_job(
        lambda: qbittorrent.api().torrents_add(
            torrent_files={"notld.torrent": torrent.torrent_bytes}, save_path=str(tmp_path / "library")
        )
    )
    await wait_for_torrent(hass, qbittorrent, torrent.info_hash, is_done)
    completed = async_capture_events(hass, EVENT_DOWNLOAD_COMPLETED)

    assert await hass.config_entries.async_setup(config_entry.entry_id)
    await hass.async_block_till_done()
    await poll(hass)

    assert completed == []
    assert config_entry.runtime_data.coordinator.data.downloads == {}
    assert config_entry.runtime_data.coordinator.data.torrents == 1
    assert config_entry.runtime_data.memory.journal.unread_events() == []
    assert await hass.config_entries.async_unload(config_entry.entry_id)


async def test_restart_between_add_and_completion_fires_once(
    hass: HomeAssistant,
    qbittorrent: QBittorrentInstance,
    config_entry: MockConfigEntry,
    hass_storage: dict[str, Any],
    tmp_path: Path,
) -> None:
    """The download finishes while Home Assistant is away: exactly one event once it is back."""
    completed = async_capture_events(hass, EVENT_DOWNLOAD_COMPLETED)
    fires = event_entity_fires(hass)
    assert await hass.config_entries.async_setup(config_entry.entry_id)
    await hass.async_block_till_done()
    torrent, save_path = await add_waiting_download(hass, qbittorrent, tmp_path, "Tears.of.Steel.2012.mkv")
    await refresh_until(
        hass, config_entry, lambda: hass.states.get(ACTIVE_DOWNLOADS).state == "1", what="it active"
    )

    assert await hass.config_entries.async_unload(config_entry.entry_id)
    await hass.async_block_till_done()
    # Kept in the entry's one Store, beside the agent's memory.
    assert hass_storage[f"{DOMAIN}.{config_entry.entry_id}"]["data"]["downloads"]["incomplete"] == [
        torrent.info_hash
    ]
    await finish_download(hass, qbittorrent, torrent, save_path)

    assert await hass.config_entries.async_setup(config_entry.entry_id)
    await hass.async_block_till_done()
    # Announced during setup, once the event entity listens, without waiting for the next poll.
    assert [event.data["hash"] for event in completed] == [torrent.info_hash]
    await poll(hass)
    await poll(hass)
    assert [event.data["hash"] for event in completed] == [torrent.info_hash]
    assert [(fire["event_type"], fire["hash"]) for fire in fires] == [("completed", torrent.info_hash)]

    # And once more: a second restart does not announce it again.
    assert await hass.config_entries.async_reload(config_entry.entry_id)
    await hass.async_block_till_done()
    await poll(hass)
    assert len(completed) == 1
    assert await hass.config_entries.async_unload(config_entry.entry_id)
    await hass.async_block_till_done()
    assert hass_storage[f"{DOMAIN}.{config_entry.entry_id}"]["data"]["downloads"]["incomplete"] == []


async def test_qbittorrent_outage_makes_entities_unavailable_then_recovers(
    hass: HomeAssistant,
    qbittorrent: QBittorrentInstance,
    setup_integration: MockConfigEntry,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    torrent, save_path = await add_waiting_download(hass, qbittorrent, tmp_path, "Elephants.Dream.2006.mkv")
    await poll(hass)
    download_entities = [
        state.entity_id
        for state in hass.states.async_all("sensor")
        if state.entity_id.startswith("sensor.elephants_dream")
    ]
    assert len(download_entities) == 4
    caplog.set_level(logging.INFO, logger="custom_components.agent_media")

    await qbittorrent.stop()
    await poll(hass)
    await poll(hass)
    for entity_id in [ACTIVE_DOWNLOADS, EVENT_ENTITY, *download_entities]:
        assert hass.states.get(entity_id).state == STATE_UNAVAILABLE, entity_id
    errors = [record for record in caplog.records if "Error fetching" in record.getMessage()]
    assert len(errors) == 1
    assert "Cannot read the downloads from qBittorrent" in errors[0].getMessage()
    assert "Traceback" not in caplog.text

    await qbittorrent.start()
    await wait_for_torrent(hass, qbittorrent, torrent.info_hash, lambda t: t["state"] == "stalledDL")
    await poll(hass)
    await poll(hass)
    assert hass.states.get(ACTIVE_DOWNLOADS).state == "1"
    for entity_id in download_entities:
        assert hass.states.get(entity_id).state != STATE_UNAVAILABLE, entity_id
    assert len([record for record in caplog.records if "recovered" in record.getMessage()]) == 1

    # The chain of deltas survived the restart: completion is still noticed, once.
    completed = async_capture_events(hass, EVENT_DOWNLOAD_COMPLETED)
    await finish_download(hass, qbittorrent, torrent, save_path)
    await poll(hass)
    await poll(hass)
    assert [event.data["hash"] for event in completed] == [torrent.info_hash]


async def test_polls_fast_only_while_something_downloads(
    hass: HomeAssistant, qbittorrent: QBittorrentInstance, setup_integration: MockConfigEntry, tmp_path: Path
) -> None:
    coordinator = setup_integration.runtime_data.coordinator
    assert coordinator.update_interval == timedelta(seconds=IDLE_SCAN_INTERVAL)

    torrent, save_path = await add_waiting_download(hass, qbittorrent, tmp_path, "Nosferatu.1922.mkv")
    await poll(hass)
    assert coordinator.update_interval == timedelta(seconds=DEFAULT_SCAN_INTERVAL)

    await finish_download(hass, qbittorrent, torrent, save_path)
    await poll(hass)
    assert coordinator.update_interval == timedelta(seconds=IDLE_SCAN_INTERVAL)


async def test_scan_interval_option(
    hass: HomeAssistant, qbittorrent: QBittorrentInstance, config_entry: MockConfigEntry, tmp_path: Path
) -> None:
    hass.config_entries.async_update_entry(config_entry, options={**config_entry.options, "scan_interval": 2})
    assert await hass.config_entries.async_setup(config_entry.entry_id)
    await hass.async_block_till_done()
    await add_waiting_download(hass, qbittorrent, tmp_path, "The.General.1926.mkv")
    await poll(hass)
    assert config_entry.runtime_data.coordinator.update_interval == timedelta(seconds=2)
    assert await hass.config_entries.async_unload(config_entry.entry_id)
    assert config_entry.state is ConfigEntryState.NOT_LOADED


async def test_changed_password_starts_reauth(
    hass: HomeAssistant, qbittorrent: QBittorrentInstance, setup_integration: MockConfigEntry
) -> None:
    """qBittorrent restarted with another password: the coordinator asks for new credentials, no traceback."""
    await hass.async_add_executor_job(
        lambda: qbittorrent.api().app_set_preferences(prefs={"web_ui_password": "a-new-password"})
    )
    await qbittorrent.stop()
    qbittorrent._api = None
    await qbittorrent.start()
    await poll(hass)

    assert hass.states.get(ACTIVE_DOWNLOADS).state == STATE_UNAVAILABLE
    flows = hass.config_entries.flow.async_progress_by_handler(DOMAIN)
    assert [flow["context"]["source"] for flow in flows] == ["reauth"]


async def add_then_delete_in_qbittorrent(
    hass: HomeAssistant, qbittorrent: QBittorrentInstance, entry: MockConfigEntry, tmp_path: Path
) -> LocalTorrent:
    """Add a download through Agent Media, then delete it in qBittorrent itself, as its Web UI would."""
    sintel = make_local_torrent(tmp_path / "payload", "Sintel.2010.mkv")
    await async_add_download(
        hass, entry, torrent_file=sintel.torrent_bytes, save_path=str(tmp_path / "incoming"), media=None
    )
    await poll(hass)
    assert sintel.info_hash in entry.runtime_data.memory.downloads.records()
    await hass.async_add_executor_job(
        lambda: qbittorrent.api().torrents_delete(delete_files=False, torrent_hashes=sintel.info_hash)
    )
    return sintel


async def until_listed(hass: HomeAssistant, entry: MockConfigEntry, count: int) -> None:
    """Poll until the coordinator sees qBittorrent list `count` torrents."""
    await refresh_until(
        hass,
        entry,
        lambda: entry.runtime_data.coordinator.data.torrents,
        lambda torrents: torrents == count,
        what=f"qBittorrent to list {count} torrents",
    )


async def test_download_removed_in_qbittorrent_is_forgotten(
    hass: HomeAssistant,
    qbittorrent: QBittorrentInstance,
    setup_integration: MockConfigEntry,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A recorded download that someone deletes in qBittorrent's own Web UI stops being ours, in time."""
    entry = setup_integration
    memory = entry.runtime_data.memory
    library = make_local_torrent(tmp_path / "library", "Night.of.the.Living.Dead.1968.mkv")
    await hass.async_add_executor_job(
        lambda: qbittorrent.api().torrents_add(
            torrent_files={"notld.torrent": library.torrent_bytes}, save_path=str(tmp_path / "library")
        )
    )
    sintel = await add_then_delete_in_qbittorrent(hass, qbittorrent, entry, tmp_path)
    await until_listed(hass, entry, 1)  # the library only
    # Missing for a moment is not removed: qBittorrent lists its torrents only as it loads them.
    assert sintel.info_hash in memory.downloads.records()

    monkeypatch.setattr(coordinator_module, "RECORD_ABSENCE_LIMIT", 0.0)
    await refresh_until(hass, entry, memory.downloads.records, lambda records: not records, what="no record")


async def test_nothing_listed_forgets_nothing(
    hass: HomeAssistant,
    qbittorrent: QBittorrentInstance,
    setup_integration: MockConfigEntry,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """qBittorrent listing no torrent at all (still loading them after a restart) removes no record."""
    entry = setup_integration
    memory = entry.runtime_data.memory
    sintel = await add_then_delete_in_qbittorrent(hass, qbittorrent, entry, tmp_path)
    monkeypatch.setattr(coordinator_module, "RECORD_ABSENCE_LIMIT", 0.0)
    await until_listed(hass, entry, 0)
    await poll(hass)
    assert sintel.info_hash in memory.downloads.records()
