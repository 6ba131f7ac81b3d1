"""Download sensors on a real qbittorrent-nox: aggregate figures, per-download entities that come and go."""

from __future__ import annotations

from datetime import timedelta
import shutil
from typing import TYPE_CHECKING

import pytest
from pytest_homeassistant_custom_component.common import async_fire_time_changed

from custom_components.agent_media import coordinator as coordinator_module
from custom_components.agent_media.compat import async_get_entry_device
from custom_components.agent_media.const import DOMAIN, DOWNLOAD_ENTITY_GRACE, IDLE_SCAN_INTERVAL
from custom_components.agent_media.coordinator import DownloadState
from homeassistant.const import STATE_UNKNOWN
from homeassistant.helpers import device_registry as dr, entity_registry as er
from homeassistant.util import dt as dt_util

from .helpers import wait_for_torrent, wait_until
from .rig.torrents import LocalTorrent, make_local_torrent

if TYPE_CHECKING:
    from pathlib import Path

    from pytest_homeassistant_custom_component.common import MockConfigEntry

    from homeassistant.core import HomeAssistant

    from .rig.qbittorrent import QBittorrentInstance

DOWNLOAD_KEYS = ("progress", "state", "eta", "size")


pytestmark = pytest.mark.usefixtures("core_setup")  # the conversation dependency needs core


async def poll(hass: HomeAssistant, seconds: float = IDLE_SCAN_INTERVAL + 1) -> None:
    """Move time forward (past the longest poll interval by default) and let what is due run."""
    async_fire_time_changed(hass, dt_util.utcnow() + timedelta(seconds=seconds))
    await hass.async_block_till_done(wait_background_tasks=True)


async def add_torrent(
    hass: HomeAssistant, qbittorrent: QBittorrentInstance, torrent: LocalTorrent, save_path: Path
) -> None:
    await hass.async_add_executor_job(lambda: save_path.mkdir(parents=True, exist_ok=True))
    await hass.async_add_executor_job(
        lambda: qbittorrent.api().torrents_add(
            torrent_files={f"{torrent.info_hash}.torrent": torrent.torrent_bytes}, save_path=str(save_path)
        )
    )


def download_entity_id(hass: HomeAssistant, entry: MockConfigEntry, info_hash: str, key: str) -> str | None:
    return er.async_get(hass).async_get_entity_id("sensor", DOMAIN, f"{entry.entry_id}_{info_hash}_{key}")


def download_device(hass: HomeAssistant, entry: MockConfigEntry, info_hash: str) -> dr.DeviceEntry | None:
    return async_get_entry_device(
        dr.async_get(hass), (DOMAIN, f"{entry.entry_id}_{info_hash}"), entry.entry_id
    )


async def test_aggregate_and_download_sensors(
    hass: HomeAssistant, qbittorrent: QBittorrentInstance, setup_integration: MockConfigEntry, tmp_path: Path
) -> None:
    entry = setup_integration
    library = make_local_torrent(tmp_path / "library", "Night.of.the.Living.Dead.1968.mkv")
    await add_torrent(hass, qbittorrent, library, tmp_path / "library")
    waiting = make_local_torrent(tmp_path / "payload", "Sintel.2010.mkv", size=512 * 1024)
    await add_torrent(hass, qbittorrent, waiting, tmp_path / "incoming")
    await wait_for_torrent(hass, qbittorrent, waiting.info_hash, lambda t: t["state"] == "stalledDL")
    await wait_for_torrent(hass, qbittorrent, library.info_hash, lambda t: t["progress"] == 1)
    await poll(hass)

    # Aggregate figures on the service device.
    assert hass.states.get("sensor.agent_media_active_downloads").state == "1"
    assert hass.states.get("sensor.agent_media_stalled_downloads").state == "1"
    assert hass.states.get("sensor.agent_media_queued_downloads").state == "0"
    speed = hass.states.get("sensor.agent_media_download_speed")
    assert speed.state == "0.0"
    assert speed.attributes["device_class"] == "data_rate"
    assert speed.attributes["unit_of_measurement"] == "MB/s"
    assert speed.attributes["state_class"] == "measurement"
    assert speed.attributes["friendly_name"] == "Agent Media Download speed"
    active = hass.states.get("sensor.agent_media_active_downloads")
    assert active.attributes["unit_of_measurement"] == "downloads"
    assert active.attributes["state_class"] == "measurement"

    # Entities of the download in progress, none for the finished library torrent.
    assert download_device(hass, entry, library.info_hash) is None
    device = download_device(hass, entry, waiting.info_hash)
    assert device is not None
    assert device.name == "Sintel.2010.mkv"
    service = async_get_entry_device(dr.async_get(hass), (DOMAIN, entry.entry_id), entry.entry_id)
    assert device.via_device_id == service.id
    entity_ids = {key: download_entity_id(hass, entry, waiting.info_hash, key) for key in DOWNLOAD_KEYS}
    assert {er.async_get(hass).async_get(entity_id).device_id for entity_id in entity_ids.values()} == {
        device.id
    }
    progress = hass.states.get(entity_ids["progress"])
    assert progress.state == "0.0"
    assert progress.attributes["unit_of_measurement"] == "%"
    assert progress.attributes["friendly_name"] == "Sintel.2010.mkv Progress"
    assert "state_class" not in progress.attributes
    state = hass.states.get(entity_ids["state"])
    assert state.state == "stalled"
    assert state.attributes["options"] == [member.value for member in DownloadState]
    assert hass.states.get(entity_ids["eta"]).state == STATE_UNKNOWN  # no peers: no estimate
    size = hass.states.get(entity_ids["size"])
    assert size.attributes["device_class"] == "data_size"
    assert size.attributes["unit_of_measurement"] == "kB"  # not "0.00 GB"
    assert float(size.state) == pytest.approx(512 * 1024 / 1e3)


async def test_finished_download_keeps_its_entities_for_a_grace_period(
    hass: HomeAssistant, qbittorrent: QBittorrentInstance, setup_integration: MockConfigEntry, tmp_path: Path
) -> None:
    entry = setup_integration
    waiting = make_local_torrent(tmp_path / "payload", "Sintel.2010.mkv")
    await add_torrent(hass, qbittorrent, waiting, tmp_path / "incoming")
    await wait_for_torrent(hass, qbittorrent, waiting.info_hash, lambda t: t["state"] == "stalledDL")
    await poll(hass)
    entity_ids = {key: download_entity_id(hass, entry, waiting.info_hash, key) for key in DOWNLOAD_KEYS}
    assert hass.states.get(entity_ids["progress"]).state == "0.0"

    # It completes: the entities stay a while, showing it.
    await hass.async_add_executor_job(shutil.copy, waiting.data_path, tmp_path / "incoming" / waiting.name)
    await hass.async_add_executor_job(
        lambda: qbittorrent.api().torrents_recheck(torrent_hashes=waiting.info_hash)
    )
    await wait_for_torrent(hass, qbittorrent, waiting.info_hash, lambda t: t["state"] == "stalledUP")
    await poll(hass)
    assert hass.states.get(entity_ids["progress"]).state == "100.0"
    assert hass.states.get(entity_ids["state"]).state == "completed"
    assert float(hass.states.get(entity_ids["eta"]).state) == 0
    assert hass.states.get("sensor.agent_media_active_downloads").state == "0"

    await poll(hass)  # still within the grace period
    assert download_device(hass, entry, waiting.info_hash) is not None

    await poll(hass, DOWNLOAD_ENTITY_GRACE + 1)
    assert download_device(hass, entry, waiting.info_hash) is None
    for entity_id in entity_ids.values():
        assert er.async_get(hass).async_get(entity_id) is None
        assert hass.states.get(entity_id) is None


async def test_removed_download_loses_its_entities_at_once(
    hass: HomeAssistant, qbittorrent: QBittorrentInstance, setup_integration: MockConfigEntry, tmp_path: Path
) -> None:
    entry = setup_integration
    torrent = make_local_torrent(tmp_path / "payload", "Tears.of.Steel.2012.mkv")
    await add_torrent(hass, qbittorrent, torrent, tmp_path / "incoming")
    await wait_for_torrent(hass, qbittorrent, torrent.info_hash, lambda t: t["state"] == "stalledDL")
    await poll(hass)
    entity_id = download_entity_id(hass, entry, torrent.info_hash, "progress")
    assert hass.states.get(entity_id).state == "0.0"

    await hass.async_add_executor_job(
        lambda: qbittorrent.api().torrents_delete(delete_files=False, torrent_hashes=torrent.info_hash)
    )
    await poll(hass)
    assert download_device(hass, entry, torrent.info_hash) is None
    assert hass.states.get(entity_id) is None
    assert hass.states.get("sensor.agent_media_active_downloads").state == "0"


async def test_device_follows_the_download_name(
    hass: HomeAssistant, qbittorrent: QBittorrentInstance, setup_integration: MockConfigEntry
) -> None:
    entry = setup_integration
    info_hash = "0123456789abcdef0123456789abcdef01234567"  # synthetic: stays fetching metadata
    await hass.async_add_executor_job(
        lambda: qbittorrent.api().torrents_add(urls=f"magnet:?xt=urn:btih:{info_hash}&dn=Elephants+Dream")
    )
    await wait_for_torrent(hass, qbittorrent, info_hash, lambda t: t["state"] == "metaDL")
    await poll(hass)
    assert download_device(hass, entry, info_hash).name == "Elephants Dream"
    assert hass.states.get(download_entity_id(hass, entry, info_hash, "state")).state == "metadata"
    assert hass.states.get(download_entity_id(hass, entry, info_hash, "size")).state == STATE_UNKNOWN

    await hass.async_add_executor_job(
        lambda: qbittorrent.api().torrents_rename(
            torrent_hash=info_hash, new_torrent_name="Elephants Dream 2006"
        )
    )

    # qBittorrent 5 puts the new name in its sync answers at its next refresh, a little after torrents/info.
    async def device_name_after_a_poll() -> str | None:
        await poll(hass)
        return download_device(hass, entry, info_hash).name

    await wait_until(
        device_name_after_a_poll, lambda name: name == "Elephants Dream 2006", what="the new name"
    )


async def test_entities_are_capped_and_the_agent_downloads_come_first(
    hass: HomeAssistant,
    qbittorrent: QBittorrentInstance,
    config_entry: MockConfigEntry,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(coordinator_module, "MAX_DOWNLOAD_ENTITIES", 2)
    assert await hass.config_entries.async_setup(config_entry.entry_id)
    await hass.async_block_till_done()
    hashes = [f"{digit}" * 40 for digit in "123"]
    for info_hash in hashes:
        await hass.async_add_executor_job(
            lambda info_hash=info_hash: qbittorrent.api().torrents_add(
                urls=f"magnet:?xt=urn:btih:{info_hash}"
            )
        )
    for info_hash in hashes:
        await wait_for_torrent(hass, qbittorrent, info_hash, lambda t: t["state"] == "metaDL")
    # The agent added the first one (recorded in memory as downloads.py does).
    config_entry.runtime_data.memory.downloads.add(hashes[0], {"name": "Sintel", "source": "service"})
    await poll(hass)

    shown = [info_hash for info_hash in hashes if download_device(hass, config_entry, info_hash) is not None]
    assert len(shown) == 2
    assert hashes[0] in shown
    assert hass.states.get("sensor.agent_media_active_downloads").state == "3"
    assert await hass.config_entries.async_unload(config_entry.entry_id)


async def test_stale_download_devices_are_removed_at_setup(
    hass: HomeAssistant, qbittorrent: QBittorrentInstance, config_entry: MockConfigEntry
) -> None:
    """A download that went away while Home Assistant was stopped leaves no device behind."""
    registry = dr.async_get(hass)
    stale = registry.async_get_or_create(
        config_entry_id=config_entry.entry_id,
        identifiers={(DOMAIN, f"{config_entry.entry_id}_{'a' * 40}")},
        name="The.General.1926.mkv",
    )
    assert await hass.config_entries.async_setup(config_entry.entry_id)
    await hass.async_block_till_done()
    assert registry.async_get(stale.id) is None
    assert (
        async_get_entry_device(registry, (DOMAIN, config_entry.entry_id), config_entry.entry_id) is not None
    )
    assert await hass.config_entries.async_unload(config_entry.entry_id)
