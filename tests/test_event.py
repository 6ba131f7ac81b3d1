"""The download event entity: it mirrors this entry's added and completed events, and nothing else."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from custom_components.agent_media.const import (
    EVENT_DOWNLOAD_ADDED,
    EVENT_DOWNLOAD_COMPLETED,
    SIGNAL_DOWNLOAD_EVENT,
)
from homeassistant.const import STATE_UNKNOWN
from homeassistant.helpers.dispatcher import async_dispatcher_send

from .helpers import async_add_download

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
