"""Completion on time against a real qbittorrent-nox: within one busy poll of finishing, across restarts.

Time is moved with `async_fire_time_changed` by the busy interval only (5 s): a coordinator that had fallen
back to its idle minute would not poll, and the completion event would not come.
"""

from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING, Any

import pytest
from pytest_homeassistant_custom_component.common import (
    MockConfigEntry,
    async_capture_events,
)

from custom_components.agent_media.const import (
    CONF_STALLED_TIMEOUT,
    DEFAULT_SCAN_INTERVAL,
    EVENT_DOWNLOAD_COMPLETED,
    IDLE_SCAN_INTERVAL,
    SIGNAL_DOWNLOAD_ADDED,
)
from custom_components.agent_media.operations.adding import SAFETY_CHECKED, SAFETY_WAITING
from custom_components.agent_media.torrents import PAUSED_STATES, TORRENT_TAG
from homeassistant.helpers.dispatcher import async_dispatcher_send

from .helpers import (
    async_add_download,
    introduce,
    is_done,
    poll,
    seed,
    torrents_in_qbittorrent,
    wait_for_torrent,
    wait_until,
)
from .rig.knaben_server import synthetic_hash
from .rig.qbittorrent import SETUPS
from .rig.torrents import make_local_torrent
from .test_coordinator_qbittorrent import BIG_BUCK_BUNNY, finish_download

if TYPE_CHECKING:
    from pathlib import Path

    from homeassistant.core import HomeAssistant

    from .rig.qbittorrent import QBittorrentInstance

pytestmark = pytest.mark.usefixtures("core_setup")  # the conversation dependency needs core


async def busy_poll(hass: HomeAssistant) -> None:
    """Move time by one busy interval (and a little): only a coordinator polling fast polls."""
    await poll(hass, DEFAULT_SCAN_INTERVAL + 0.5)


async def test_completion_within_one_busy_poll_after_our_add(
    hass: HomeAssistant, qbittorrent: QBittorrentInstance, setup_integration: MockConfigEntry, tmp_path: Path
) -> None:
    """Added stopped, checked, started: qBittorrent shows it stopped a moment longer; polling stays fast."""
    completed = async_capture_events(hass, EVENT_DOWNLOAD_COMPLETED)
    coordinator = setup_integration.runtime_data.coordinator
    torrent = make_local_torrent(tmp_path / "films", "Big.Buck.Bunny.2008.1080p.mkv")

    await async_add_download(
        hass, setup_integration, torrent_file=torrent.torrent_bytes, save_path=str(tmp_path / "films")
    )
    await hass.async_block_till_done(wait_background_tasks=True)
    assert coordinator.update_interval == timedelta(seconds=DEFAULT_SCAN_INTERVAL)
    await wait_for_torrent(hass, qbittorrent, torrent.info_hash, is_done)
    await busy_poll(hass)
    assert [event.data["hash"] for event in completed] == [torrent.info_hash]
    await busy_poll(hass)
    assert coordinator.update_interval == timedelta(seconds=IDLE_SCAN_INTERVAL)


async def test_one_of_ours_shown_still_stopped_after_its_start_keeps_the_polling_fast(
    hass: HomeAssistant, qbittorrent: QBittorrentInstance, setup_integration: MockConfigEntry, tmp_path: Path
) -> None:
    """The poll right after an add may still see it stopped (the start is not shown yet): no idle minute."""
    completed = async_capture_events(hass, EVENT_DOWNLOAD_COMPLETED)
    coordinator = setup_integration.runtime_data.coordinator
    torrent = make_local_torrent(tmp_path / "films", "Elephants.Dream.2006.mkv")
    await hass.async_add_executor_job(
        lambda: qbittorrent.api().torrents_add(
            torrent_files={"e.torrent": torrent.torrent_bytes},
            save_path=str(tmp_path / "films"),
            tags=TORRENT_TAG,
            is_paused=True,
            is_stopped=True,
        )
    )
    await wait_for_torrent(hass, qbittorrent, torrent.info_hash, lambda t: t["state"] in PAUSED_STATES)
    setup_integration.runtime_data.memory.downloads.add(
        torrent.info_hash, {"name": torrent.name, "source": "service", "safety": SAFETY_CHECKED}
    )
    async_dispatcher_send(hass, SIGNAL_DOWNLOAD_ADDED.format(setup_integration.entry_id), torrent.info_hash)
    await hass.async_block_till_done(wait_background_tasks=True)
    assert coordinator.data.downloads[torrent.info_hash].state == "paused"  # seen stopped…
    assert coordinator.update_interval == timedelta(seconds=DEFAULT_SCAN_INTERVAL)  # …and still polled fast

    await hass.async_add_executor_job(
        lambda: (
            qbittorrent.api().torrents_resume(torrent_hashes=torrent.info_hash)
            if qbittorrent.version < (5,)
            else qbittorrent.api().torrents_start(torrent_hashes=torrent.info_hash)
        )
    )
    await wait_for_torrent(hass, qbittorrent, torrent.info_hash, is_done)
    await busy_poll(hass)
    assert [event.data["hash"] for event in completed] == [torrent.info_hash]


async def test_torrents_stuck_waiting_for_metadata_stop_the_fast_polling(
    hass: HomeAssistant, qbittorrent: QBittorrentInstance, config_entry: MockConfigEntry
) -> None:
    hass.config_entries.async_update_entry(
        config_entry, options={**config_entry.options, CONF_STALLED_TIMEOUT: 2}
    )
    assert await hass.config_entries.async_setup(config_entry.entry_id)
    await hass.async_block_till_done()
    coordinator = config_entry.runtime_data.coordinator
    dead = synthetic_hash("no peer has it")  # someone else's magnet: never replaced, only polled less
    await hass.async_add_executor_job(
        lambda: qbittorrent.api().torrents_add(urls=f"magnet:?xt=urn:btih:{dead}&dn=Nosferatu.1922")
    )
    await wait_for_torrent(hass, qbittorrent, dead, lambda torrent: torrent["state"] == "metaDL")
    await coordinator.async_refresh()
    assert coordinator.update_interval == timedelta(seconds=DEFAULT_SCAN_INTERVAL)

    async def interval_after_a_refresh() -> timedelta | None:  # the no-progress clock is the real one
        await coordinator.async_refresh()
        return coordinator.update_interval

    await wait_until(
        interval_after_a_refresh,
        lambda interval: interval == timedelta(seconds=IDLE_SCAN_INTERVAL),
        what="idle",
    )
    assert coordinator.data.active_downloads == 1  # still shown as active: only the polling slows
    assert await hass.config_entries.async_unload(config_entry.entry_id)


@pytest.mark.parametrize("qbittorrent_setup", SETUPS, ids=lambda setup: setup.name, indirect=True)
async def test_added_then_completed_from_a_peer(
    hass: HomeAssistant,
    qbittorrent: QBittorrentInstance,
    seeder: QBittorrentInstance,
    setup_integration: MockConfigEntry,
    tmp_path: Path,
) -> None:
    """Add → checked → started → downloaded from its one peer → one completion, whatever the set-up."""
    completed = async_capture_events(hass, EVENT_DOWNLOAD_COMPLETED)
    torrent = await seed(hass, seeder, tmp_path, "Big.Buck.Bunny.2008.1080p.mkv")

    await async_add_download(
        hass, setup_integration, torrent_file=torrent.torrent_bytes, media=BIG_BUCK_BUNNY
    )
    await wait_until(
        lambda: torrents_in_qbittorrent(hass, qbittorrent, torrent.info_hash),
        lambda found: found[torrent.info_hash]["state"] not in PAUSED_STATES,
        what="started after its check",
    )
    await introduce(hass, qbittorrent, seeder, torrent.info_hash)
    done = await wait_for_torrent(hass, qbittorrent, torrent.info_hash, is_done, what="downloaded")
    await busy_poll(hass)

    assert [event.data["hash"] for event in completed] == [torrent.info_hash]
    assert completed[0].data["content_path"] == done["content_path"]
    assert completed[0].data["title"] == "Big Buck Bunny"


@pytest.mark.parametrize("qbittorrent_setup", SETUPS, ids=lambda setup: setup.name, indirect=True)
async def test_held_for_its_safety_check_across_a_restart(
    hass: HomeAssistant,
    qbittorrent: QBittorrentInstance,
    seeder: QBittorrentInstance,
    config_entry: MockConfigEntry,
    tmp_path: Path,
) -> None:
    """A magnet whose peers were away when Home Assistant stopped: checked and started after setup, once."""
    completed = async_capture_events(hass, EVENT_DOWNLOAD_COMPLETED)
    torrent = await seed(hass, seeder, tmp_path, "Night.of.the.Living.Dead.1968.mkv")
    assert await hass.config_entries.async_setup(config_entry.entry_id)
    await hass.async_block_till_done()
    await async_add_download(hass, config_entry, magnet=torrent.magnet, media=BIG_BUCK_BUNNY)
    record = config_entry.runtime_data.memory.downloads.get(torrent.info_hash)
    assert record is not None
    assert record["safety"] == SAFETY_WAITING
    assert await hass.config_entries.async_unload(config_entry.entry_id)
    await hass.async_block_till_done()

    # While Home Assistant is away the peer shows up: the file list arrives and the stop condition holds it.
    await introduce(hass, qbittorrent, seeder, torrent.info_hash)
    held = await wait_for_torrent(
        hass,
        qbittorrent,
        torrent.info_hash,
        lambda t: t["size"] > 0 and t["state"] in PAUSED_STATES,
        what="held",
    )
    assert held["progress"] == 0  # the stop condition held it: nothing downloaded unchecked

    assert await hass.config_entries.async_setup(config_entry.entry_id)
    await hass.async_block_till_done()
    memory = config_entry.runtime_data.memory

    def checked() -> Any:
        return (memory.downloads.get(torrent.info_hash) or {}).get("safety")

    await wait_until(checked, lambda safety: safety in (SAFETY_CHECKED, None), what="the safety check")
    await introduce(hass, qbittorrent, seeder, torrent.info_hash)  # a restarted torrent forgets its peers
    await wait_for_torrent(hass, qbittorrent, torrent.info_hash, is_done, what="downloaded from the seeder")
    await busy_poll(hass)
    assert [event.data["hash"] for event in completed] == [torrent.info_hash]
    assert completed[0].data["title"] == "Big Buck Bunny"

    assert await hass.config_entries.async_reload(config_entry.entry_id)
    await hass.async_block_till_done()
    await busy_poll(hass)
    assert len(completed) == 1
    assert await hass.config_entries.async_unload(config_entry.entry_id)


async def test_ours_completed_while_home_assistant_was_down(
    hass: HomeAssistant, qbittorrent: QBittorrentInstance, config_entry: MockConfigEntry, tmp_path: Path
) -> None:
    """Added by the agent while its peers were away, finished while Home Assistant was stopped: one event."""
    completed = async_capture_events(hass, EVENT_DOWNLOAD_COMPLETED)
    incoming = tmp_path / "incoming"
    incoming.mkdir()
    torrent = make_local_torrent(tmp_path / "payload", "Sintel.2010.1080p.mkv")
    assert await hass.config_entries.async_setup(config_entry.entry_id)
    await hass.async_block_till_done()
    await async_add_download(
        hass, config_entry, torrent_file=torrent.torrent_bytes, save_path=str(incoming), media=BIG_BUCK_BUNNY
    )
    await hass.async_block_till_done(wait_background_tasks=True)
    await wait_for_torrent(hass, qbittorrent, torrent.info_hash, lambda t: t["state"] == "stalledDL")
    assert await hass.config_entries.async_unload(config_entry.entry_id)
    await hass.async_block_till_done()

    await finish_download(hass, qbittorrent, torrent, incoming)
    assert await hass.config_entries.async_setup(config_entry.entry_id)
    await hass.async_block_till_done()
    assert [event.data["hash"] for event in completed] == [torrent.info_hash]
    await busy_poll(hass)
    assert len(completed) == 1
    assert await hass.config_entries.async_unload(config_entry.entry_id)
