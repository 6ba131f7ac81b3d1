"""The download event entity: it mirrors this entry's added and completed events, and nothing else."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from custom_components.agent_media.clients.qbittorrent import AddedTorrent
from custom_components.agent_media.const import (
    EVENT_DOWNLOAD_ADDED,
    EVENT_DOWNLOAD_COMPLETED,
    SIGNAL_DOWNLOAD_EVENT,
)
from custom_components.agent_media.memory import download_record
from custom_components.agent_media.operations.adding import SAFETY_CHECKED, SAFETY_WAITING
from homeassistant.const import STATE_UNKNOWN
from homeassistant.helpers.dispatcher import async_dispatcher_send

from .helpers import async_add_download, wait_for_torrent, wait_until
from .rig.torrents import make_local_torrent

if TYPE_CHECKING:
    from pytest_homeassistant_custom_component.common import MockConfigEntry

    from homeassistant.core import HomeAssistant

    from .rig.qbittorrent import QBittorrentInstance

EVENT_ENTITY = "event.agent_media_downloads"
SYNTHETIC_HASH = "0123456789abcdef0123456789abcdef01234567"


pytestmark = pytest.mark.usefixtures("core_setup")  # the conversation dependency needs core


async def test_event_entity_describes_its_event_types(
    hass: HomeAssistant, setup_integration: MockConfigEntry
) -> None:
    state = hass.states.get(EVENT_ENTITY)
    assert state.state == STATE_UNKNOWN  # nothing happened yet
    assert state.attributes["event_types"] == ["added", "completed"]
    assert state.attributes["friendly_name"] == "Agent Media Downloads"


async def test_added_download_fires_the_entity(
    hass: HomeAssistant, qbittorrent: QBittorrentInstance, setup_integration: MockConfigEntry
) -> None:
    """A magnet the agent adds (no peers: it never gets metadata) is announced at once, without waiting."""
    added = await async_add_download(
        hass,
        setup_integration,
        magnet=f"magnet:?xt=urn:btih:{SYNTHETIC_HASH}&dn=Big+Buck+Bunny",
        source="service",
    )
    await hass.async_block_till_done()

    state = hass.states.get(EVENT_ENTITY)
    assert state.attributes["event_type"] == "added"
    assert state.attributes["hash"] == added.info_hash == SYNTHETIC_HASH
    assert state.attributes["name"] == "Big Buck Bunny"
    assert state.attributes["source"] == "service"
    assert "entry_id" not in state.attributes
    # The coordinator polled at once: the download already has its entities. (Not waiting for background
    # tasks: downloads.py keeps watching for the magnet's metadata, for hours.)
    assert SYNTHETIC_HASH in setup_integration.runtime_data.coordinator.data.downloads


async def test_a_magnet_started_by_its_safety_check_is_not_added_again(
    hass: HomeAssistant, qbittorrent: QBittorrentInstance, setup_integration: MockConfigEntry
) -> None:
    """The add fired "added"; the check that starts the magnet once its files are known does not."""
    entry = setup_integration
    # A magnet whose metadata came: stopped in qBittorrent with its file list, recorded as waiting.
    torrent = make_local_torrent(
        qbittorrent.downloads_dir, "Sintel.2010.720p", files={"Sintel.2010.720p.mkv": 128 * 1024}
    )
    await hass.async_add_executor_job(
        lambda: qbittorrent.api().torrents_add(
            torrent_files={"x.torrent": torrent.torrent_bytes},
            save_path=str(qbittorrent.downloads_dir),
            is_paused=True,
            is_stopped=True,
        )
    )
    await wait_for_torrent(hass, qbittorrent, torrent.info_hash)
    memory = entry.runtime_data.memory
    memory.downloads.add(
        torrent.info_hash, download_record(torrent.name, source="service", safety=SAFETY_WAITING)
    )
    fired: list[str] = []
    hass.bus.async_listen(EVENT_DOWNLOAD_ADDED, lambda event: fired.append(event.data["hash"]))

    await entry.runtime_data.operations.adder.async_finish_safety_check(
        AddedTorrent(info_hash=torrent.info_hash, name=torrent.name)
    )

    assert memory.downloads.records()[torrent.info_hash]["safety"] == SAFETY_CHECKED
    # Started, and followed at once: the coordinator polled on the start.
    await wait_until(
        lambda: torrent.info_hash in entry.runtime_data.coordinator.data.downloads,
        what="the started download followed",
    )
    await hass.async_block_till_done()
    assert hass.states.get(EVENT_ENTITY).state == STATE_UNKNOWN
    assert fired == []


async def test_events_of_other_entries_are_ignored(
    hass: HomeAssistant, setup_integration: MockConfigEntry
) -> None:
    """The entity follows its entry's download events inside Home Assistant, not the bus (output only)."""
    for event_type in (EVENT_DOWNLOAD_ADDED, EVENT_DOWNLOAD_COMPLETED):
        data = {"entry_id": "another-entry", "hash": SYNTHETIC_HASH, "name": "Sintel"}
        async_dispatcher_send(hass, SIGNAL_DOWNLOAD_EVENT.format("another-entry"), event_type, data)
        # An automation firing our bus event, even with this entry's id, is not a download.
        hass.bus.async_fire(event_type, {**data, "entry_id": setup_integration.entry_id})
    await hass.async_block_till_done()
    assert hass.states.get(EVENT_ENTITY).state == STATE_UNKNOWN

    async_dispatcher_send(
        hass,
        SIGNAL_DOWNLOAD_EVENT.format(setup_integration.entry_id),
        EVENT_DOWNLOAD_COMPLETED,
        {"entry_id": setup_integration.entry_id, "hash": SYNTHETIC_HASH, "name": "Sintel", "size": 1},
    )
    await hass.async_block_till_done()
    state = hass.states.get(EVENT_ENTITY)
    assert state.attributes["event_type"] == "completed"
    assert state.attributes["size"] == 1
