"""Download sensors on a real qbittorrent-nox: aggregate figures, per-download entities that come and go."""

from __future__ import annotations

import shutil
from typing import TYPE_CHECKING, Any

import pytest

from custom_components.agent_media import coordinator as coordinator_module
from custom_components.agent_media.compat import async_get_entry_device
from custom_components.agent_media.const import DOMAIN, DOWNLOAD_ENTITY_GRACE
from custom_components.agent_media.sensor import size_display
from custom_components.agent_media.torrents import MAX_LABEL, DownloadState, DownloadView, download_label
from homeassistant.const import STATE_UNKNOWN
from homeassistant.helpers import device_registry as dr, entity_registry as er

from .helpers import async_add_download, introduce, poll, refresh_until, seed, wait_for_torrent, wait_until
from .rig.torrents import LocalTorrent, make_local_torrent

if TYPE_CHECKING:
    from pathlib import Path

    from pytest_homeassistant_custom_component.common import MockConfigEntry

    from homeassistant.core import HomeAssistant

    from .rig.qbittorrent import QBittorrentInstance

DOWNLOAD_KEYS = ("progress", "state", "eta", "size")


pytestmark = pytest.mark.usefixtures("core_setup")  # the conversation dependency needs core


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
    await refresh_until(
        hass, entry, lambda: download_device(hass, entry, waiting.info_hash), what="the download's device"
    )

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
    # A count reads alone ("1", never "1 downloads": Home Assistant's units have no plural forms).
    assert "unit_of_measurement" not in active.attributes
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
    await refresh_until(
        hass, entry, lambda: download_device(hass, entry, waiting.info_hash), what="the download's device"
    )
    entity_ids = {key: download_entity_id(hass, entry, waiting.info_hash, key) for key in DOWNLOAD_KEYS}
    assert hass.states.get(entity_ids["progress"]).state == "0.0"

    # It completes: the entities stay a while, showing it.
    await hass.async_add_executor_job(shutil.copy, waiting.data_path, tmp_path / "incoming" / waiting.name)
    await hass.async_add_executor_job(
        lambda: qbittorrent.api().torrents_recheck(torrent_hashes=waiting.info_hash)
    )
    await wait_for_torrent(hass, qbittorrent, waiting.info_hash, lambda t: t["state"] == "stalledUP")
    await refresh_until(
        hass, entry, lambda: hass.states.get(entity_ids["state"]).state == "completed", what="completed"
    )
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
    entity_id = await refresh_until(
        hass, entry, lambda: download_entity_id(hass, entry, torrent.info_hash, "progress"), what="its entity"
    )
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
    device = await refresh_until(
        hass, entry, lambda: download_device(hass, entry, info_hash), what="its device"
    )
    assert device.name == "Elephants Dream"
    assert hass.states.get(download_entity_id(hass, entry, info_hash, "state")).state == "metadata"
    assert download_entity_id(hass, entry, info_hash, "size") is None  # made once the size is known

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


BIG_BUCK_BUNNY = {
    "title": "Big Buck Bunny",
    "year": 2008,
    "imdb_id": "tt1254207",
    "tmdb_id": 10378,
    "media_type": "movie",
    "poster_path": "/big-buck-bunny.png",
}


async def test_download_with_media_is_named_by_its_title(
    hass: HomeAssistant, qbittorrent: QBittorrentInstance, setup_integration: MockConfigEntry, tmp_path: Path
) -> None:
    """The agent's download reads "Big Buck Bunny (2008)", not its release name, with short entity ids."""
    entry = setup_integration
    torrent = make_local_torrent(
        tmp_path / "payload", "Big.Buck.Bunny.2008.1080p.BluRay.x264-PUBLICDOMAIN.mkv", size=512 * 1024
    )
    incoming = tmp_path / "incoming"
    await hass.async_add_executor_job(incoming.mkdir)
    await async_add_download(
        hass, entry, torrent_file=torrent.torrent_bytes, save_path=str(incoming), media=BIG_BUCK_BUNNY
    )
    await wait_for_torrent(hass, qbittorrent, torrent.info_hash, lambda t: t["state"] == "stalledDL")
    device = await refresh_until(
        hass, entry, lambda: download_device(hass, entry, torrent.info_hash), what="the download's device"
    )

    assert device.name == "Big Buck Bunny (2008)"
    entity_ids = {key: download_entity_id(hass, entry, torrent.info_hash, key) for key in DOWNLOAD_KEYS}
    assert entity_ids == {
        "progress": "sensor.big_buck_bunny_2008_progress",
        "state": "sensor.big_buck_bunny_2008_state",
        "eta": "sensor.big_buck_bunny_2008_time_remaining",
        "size": "sensor.big_buck_bunny_2008_size",
    }
    size = hass.states.get(entity_ids["size"])
    assert size.attributes["friendly_name"] == "Big Buck Bunny (2008) Size"
    assert size.attributes["device_class"] == "data_size"
    assert size.attributes["unit_of_measurement"] == "kB"
    assert float(size.state) == pytest.approx(524.288)


async def test_finished_download_keeps_its_title_for_the_grace_period(
    hass: HomeAssistant, qbittorrent: QBittorrentInstance, setup_integration: MockConfigEntry, tmp_path: Path
) -> None:
    """Completion forgets the agent's record of the download; its device keeps the name people know."""
    entry = setup_integration
    torrent = make_local_torrent(tmp_path / "payload", "Big.Buck.Bunny.2008.720p.mkv")
    incoming = tmp_path / "incoming"
    await hass.async_add_executor_job(incoming.mkdir)
    await async_add_download(
        hass, entry, torrent_file=torrent.torrent_bytes, save_path=str(incoming), media=BIG_BUCK_BUNNY
    )
    await wait_for_torrent(hass, qbittorrent, torrent.info_hash, lambda t: t["state"] == "stalledDL")
    device = await refresh_until(
        hass, entry, lambda: download_device(hass, entry, torrent.info_hash), what="its device"
    )
    assert device.name == "Big Buck Bunny (2008)"

    await hass.async_add_executor_job(shutil.copy, torrent.data_path, incoming / torrent.name)
    await hass.async_add_executor_job(
        lambda: qbittorrent.api().torrents_recheck(torrent_hashes=torrent.info_hash)
    )
    await wait_for_torrent(hass, qbittorrent, torrent.info_hash, lambda t: t["state"] == "stalledUP")
    await refresh_until(
        hass, entry, lambda: entry.runtime_data.memory.downloads.records() == {}, what="the record forgotten"
    )
    assert hass.states.get("sensor.big_buck_bunny_2008_state").state == "completed"
    assert download_device(hass, entry, torrent.info_hash).name == "Big Buck Bunny (2008)"


async def test_device_takes_the_title_once_known(
    hass: HomeAssistant, qbittorrent: QBittorrentInstance, setup_integration: MockConfigEntry, tmp_path: Path
) -> None:
    """A download whose media becomes known later is renamed; its entity ids stay as they were made."""
    entry = setup_integration
    torrent = make_local_torrent(tmp_path / "payload", "Pioneer.One.S01E02.720p.WEB.x264-PUBLICDOMAIN.mkv")
    await add_torrent(hass, qbittorrent, torrent, tmp_path / "incoming")
    await wait_for_torrent(hass, qbittorrent, torrent.info_hash, lambda t: t["state"] == "stalledDL")
    progress = await refresh_until(
        hass, entry, lambda: download_entity_id(hass, entry, torrent.info_hash, "progress"), what="its entity"
    )
    assert download_device(hass, entry, torrent.info_hash).name == "Pioneer.One.S01E02.720p.WEB.x264…"
    assert progress == "sensor.pioneer_one_s01e02_720p_web_x264_progress"

    pioneer_one = {"title": "Pioneer One", "year": 2010, "tmdb_id": 900001, "media_type": "tv"}
    entry.runtime_data.memory.downloads.add(
        torrent.info_hash, {"name": torrent.name, "source": "service", "media": pioneer_one}
    )
    await refresh_until(
        hass,
        entry,
        lambda: download_device(hass, entry, torrent.info_hash).name,
        lambda name: name == "Pioneer One S01E02",
        what="the device renamed",
    )
    assert download_entity_id(hass, entry, torrent.info_hash, "progress") == progress
    assert hass.states.get(progress).attributes["friendly_name"] == "Pioneer One S01E02 Progress"


PIONEER_ONE = {"title": "Pioneer One", "media_type": "tv"}


@pytest.mark.parametrize(
    ("name", "media", "label"),
    [
        ("Big.Buck.Bunny.2008.1080p.mkv", {"title": "Big Buck Bunny", "year": 2008}, "Big Buck Bunny (2008)"),
        ("Nosferatu.1922.mkv", {"title": "Nosferatu", "media_type": "movie"}, "Nosferatu"),
        ("Pioneer.One.S01E02.720p", PIONEER_ONE, "Pioneer One S01E02"),
        (
            "Pioneer.One.S01E01-E03.720p",
            {"title": "Pioneer One", "media_type": "tv"},
            "Pioneer One S01E01-E03",
        ),
        ("Pioneer.One.S01.COMPLETE.720p", PIONEER_ONE, "Pioneer One S01"),
        ("Pioneer.One.S01-S03.720p", PIONEER_ONE, "Pioneer One S01-S03"),
        ("Pioneer.One.720p", PIONEER_ONE, "Pioneer One"),
        ("Sintel.2010.mkv", None, "Sintel.2010.mkv"),
        (
            "Night.of.the.Living.Dead.1968.REMASTERED.1080p.BluRay.x264-PUBLICDOMAIN",
            None,
            "Night.of.the.Living.Dead.1968…",
        ),
        ("x" * 90, None, "x" * 39 + "…"),  # no boundary to cut at
    ],
)
def test_download_label(name: str, media: dict[str, Any] | None, label: str) -> None:
    assert download_label(name, media) == label
    assert len(download_label(name, media)) <= MAX_LABEL + len(" S01E01-E03")


@pytest.mark.parametrize(
    ("size", "unit", "precision"),
    [
        (512 * 1024, "kB", 0),
        (700 * 1024 * 1024, "MB", 1),
        (8 * 1024**3, "GB", 2),
        (None, "GB", 2),  # a magnet before its metadata: films are mostly gigabytes
    ],
)
def test_size_unit_follows_the_size(size: int | None, unit: str, precision: int) -> None:
    download = DownloadView(
        info_hash="0" * 40,
        name="Tears.of.Steel.2012.mkv",
        label="Tears.of.Steel.2012.mkv",
        poster_path=None,
        state=DownloadState.DOWNLOADING,
        progress=0.0,
        eta=None,
        size=size,
        download_speed=0,
    )
    assert size_display(download) == (unit, precision)


async def test_a_magnets_size_sensor_waits_for_its_metadata(
    hass: HomeAssistant,
    qbittorrent: QBittorrentInstance,
    seeder: QBittorrentInstance,
    setup_integration: MockConfigEntry,
    tmp_path: Path,
) -> None:
    """Its unit is chosen from the size, so the sensor is made when the size is known: kB, not "0.00 GB"."""
    entry = setup_integration
    torrent = await seed(hass, seeder, tmp_path, "Big.Buck.Bunny.Trailer.mkv", size=512 * 1024)
    await hass.async_add_executor_job(lambda: qbittorrent.api().torrents_add(urls=torrent.magnet))
    await wait_for_torrent(hass, qbittorrent, torrent.info_hash, lambda t: t["state"] == "metaDL")
    await refresh_until(
        hass, entry, lambda: download_entity_id(hass, entry, torrent.info_hash, "state"), what="its entity"
    )
    assert download_entity_id(hass, entry, torrent.info_hash, "size") is None

    await introduce(hass, qbittorrent, seeder, torrent.info_hash)
    await wait_for_torrent(hass, qbittorrent, torrent.info_hash, lambda t: t["size"] > 0, what="its metadata")
    size_id = await refresh_until(
        hass, entry, lambda: download_entity_id(hass, entry, torrent.info_hash, "size"), what="its size"
    )
    size = hass.states.get(size_id)
    assert size.attributes["unit_of_measurement"] == "kB"
    assert float(size.state) == pytest.approx(512 * 1024 / 1e3)
