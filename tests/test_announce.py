"""A finished download told where it was asked: the satellite that asked, else a notify target (opt-in).

The satellite and the notify service are Home Assistant registry entries and services registered by the test
(the outer edge: no satellite hardware here); the download really completes in qBittorrent.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest
from pytest_homeassistant_custom_component.common import MockConfigEntry, async_mock_service

from custom_components.agent_media.const import CONF_ANNOUNCE_COMPLETIONS, CONF_ANNOUNCE_TARGET
from homeassistant.helpers import device_registry as dr, entity_registry as er

from .helpers import async_add_download, async_set_up_entry, is_done, poll, wait_for_torrent
from .rig.torrents import make_local_torrent
from .test_coordinator_qbittorrent import BIG_BUCK_BUNNY

if TYPE_CHECKING:
    from pathlib import Path

    from homeassistant.core import HomeAssistant, ServiceCall

    from .rig.qbittorrent import QBittorrentInstance

pytestmark = pytest.mark.usefixtures("core_setup")


def satellite(hass: HomeAssistant, *, features: int) -> str:
    """A voice satellite's device and assist_satellite entity; return the device id."""
    owner = MockConfigEntry(domain="satellite_maker")
    owner.add_to_hass(hass)
    device = dr.async_get(hass).async_get_or_create(
        config_entry_id=owner.entry_id, identifiers={("satellite_maker", "kitchen")}
    )
    er.async_get(hass).async_get_or_create(
        "assist_satellite", "satellite_maker", "kitchen", device_id=device.id, suggested_object_id="kitchen"
    )
    hass.states.async_set("assist_satellite.kitchen", "idle", {"supported_features": features})
    return device.id


async def complete(
    hass: HomeAssistant,
    entry: MockConfigEntry,
    qbittorrent: QBittorrentInstance,
    tmp_path: Path,
    requester: str,
) -> None:
    torrent = make_local_torrent(tmp_path / "films", "Big.Buck.Bunny.2008.1080p.mkv")
    await async_add_download(
        hass,
        entry,
        torrent_file=torrent.torrent_bytes,
        save_path=str(tmp_path / "films"),
        media=BIG_BUCK_BUNNY,
        requester_key=requester,
    )
    await wait_for_torrent(hass, qbittorrent, torrent.info_hash, is_done)
    await poll(hass)
    await poll(hass)


async def test_announced_on_the_satellite_that_asked(
    hass: HomeAssistant,
    entry_data: dict[str, Any],
    entry_options: dict[str, Any],
    qbittorrent: QBittorrentInstance,
    tmp_path: Path,
) -> None:
    announced: list[ServiceCall] = async_mock_service(hass, "assist_satellite", "announce")
    notified: list[ServiceCall] = async_mock_service(hass, "notify", "send_message")
    device_id = satellite(hass, features=1)
    entry = await async_set_up_entry(
        hass,
        entry_data,
        {**entry_options, CONF_ANNOUNCE_COMPLETIONS: True, CONF_ANNOUNCE_TARGET: "notify.phone"},
    )
    await complete(hass, entry, qbittorrent, tmp_path, f"device:{device_id}")
    assert [call.data for call in announced] == [
        {"entity_id": "assist_satellite.kitchen", "message": "Big Buck Bunny has finished downloading"}
    ]
    assert notified == []
    # The news is still told at the next turn.
    assert entry.runtime_data.memory.journal.unread_events()


async def test_a_satellite_that_cannot_announce_falls_back_to_the_notify_target(
    hass: HomeAssistant,
    entry_data: dict[str, Any],
    entry_options: dict[str, Any],
    qbittorrent: QBittorrentInstance,
    tmp_path: Path,
) -> None:
    announced: list[ServiceCall] = async_mock_service(hass, "assist_satellite", "announce")
    notified: list[ServiceCall] = async_mock_service(hass, "notify", "send_message")
    device_id = satellite(hass, features=0)
    entry = await async_set_up_entry(
        hass,
        entry_data,
        {**entry_options, CONF_ANNOUNCE_COMPLETIONS: True, CONF_ANNOUNCE_TARGET: "notify.phone"},
    )
    await complete(hass, entry, qbittorrent, tmp_path, f"device:{device_id}")
    assert announced == []
    assert [call.data for call in notified] == [
        {"entity_id": "notify.phone", "message": "Big Buck Bunny has finished downloading"}
    ]


async def test_nothing_is_announced_unless_asked_for(
    hass: HomeAssistant,
    entry_data: dict[str, Any],
    entry_options: dict[str, Any],
    qbittorrent: QBittorrentInstance,
    tmp_path: Path,
) -> None:
    announced: list[ServiceCall] = async_mock_service(hass, "assist_satellite", "announce")
    device_id = satellite(hass, features=1)
    entry = await async_set_up_entry(hass, entry_data, entry_options)  # the option is off by default
    await complete(hass, entry, qbittorrent, tmp_path, f"device:{device_id}")
    assert announced == []
    assert entry.runtime_data.memory.journal.unread_events()


async def test_no_target_and_no_service_are_skipped_cleanly(
    hass: HomeAssistant,
    entry_data: dict[str, Any],
    entry_options: dict[str, Any],
    qbittorrent: QBittorrentInstance,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    device_id = satellite(hass, features=1)  # it could announce, but the service is not there
    entry = await async_set_up_entry(hass, entry_data, {**entry_options, CONF_ANNOUNCE_COMPLETIONS: True})
    await complete(hass, entry, qbittorrent, tmp_path, f"device:{device_id}")
    assert entry.runtime_data.memory.journal.unread_events()
    assert "Traceback" not in caplog.text
