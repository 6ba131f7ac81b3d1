"""Posters as image entities, served through Home Assistant's image proxy from the TMDB stand-in."""

from __future__ import annotations

from http import HTTPStatus
from typing import TYPE_CHECKING, Any

import pytest

from custom_components.agent_media.compat import async_get_entry_device
from custom_components.agent_media.const import DOMAIN
from homeassistant.const import STATE_UNAVAILABLE
from homeassistant.helpers import device_registry as dr, entity_registry as er
from homeassistant.util import dt as dt_util

from .helpers import async_add_download, poll, refresh_until, wait_for_torrent
from .rig.tmdb_server import poster_bytes
from .rig.torrents import make_local_torrent

if TYPE_CHECKING:
    from pathlib import Path

    from pytest_homeassistant_custom_component.common import MockConfigEntry
    from pytest_homeassistant_custom_component.typing import ClientSessionGenerator

    from homeassistant.core import HomeAssistant

    from .rig.qbittorrent import QBittorrentInstance
    from .rig.tmdb_server import TMDBServer

pytestmark = pytest.mark.usefixtures("core_setup")  # the conversation dependency needs core

LATEST_DOWNLOAD = "image.agent_media_latest_download"
POSTER = "/big-buck-bunny.png"
BIG_BUCK_BUNNY = {
    "title": "Big Buck Bunny",
    "year": 2008,
    "imdb_id": "tt1254207",
    "tmdb_id": 10378,
    "media_type": "movie",
    "poster_path": POSTER,
}
SERVED = (HTTPStatus.OK, poster_bytes(POSTER), "image/png")  # what the image proxy answers with the poster


def poster_entity_id(hass: HomeAssistant, entry: MockConfigEntry, info_hash: str) -> str | None:
    return er.async_get(hass).async_get_entity_id("image", DOMAIN, f"{entry.entry_id}_{info_hash}_poster")


def poster_requests(tmdb_server: TMDBServer) -> list[str]:
    return [request["path"] for request in tmdb_server.requests if request["path"].startswith("/t/p/")]


async def fetch_image(hass_client: ClientSessionGenerator, entity_id: str) -> tuple[int, bytes, str]:
    client = await hass_client()
    response = await client.get(f"/api/image_proxy/{entity_id}")
    return response.status, await response.read(), response.content_type


async def add_big_buck_bunny(
    hass: HomeAssistant, entry: MockConfigEntry, tmp_path: Path, *, complete: bool, media: dict[str, Any]
) -> str:
    """Add the film as the agent does; with its data already there it completes at once, else it stalls."""
    torrent = make_local_torrent(tmp_path / "films", "Big.Buck.Bunny.2008.1080p.BluRay.x264-PUBLICDOMAIN.mkv")
    save_path = tmp_path / ("films" if complete else "incoming")
    await hass.async_add_executor_job(lambda: save_path.mkdir(exist_ok=True))
    await async_add_download(
        hass, entry, torrent_file=torrent.torrent_bytes, save_path=str(save_path), media=media
    )
    return torrent.info_hash


async def test_download_poster_through_the_image_proxy_is_cached(
    hass: HomeAssistant,
    hass_client: ClientSessionGenerator,
    qbittorrent: QBittorrentInstance,
    tmdb_server: TMDBServer,
    setup_integration: MockConfigEntry,
    tmp_path: Path,
) -> None:
    entry = setup_integration
    info_hash = await add_big_buck_bunny(hass, entry, tmp_path, complete=False, media=BIG_BUCK_BUNNY)
    await wait_for_torrent(hass, qbittorrent, info_hash, lambda t: t["state"] == "stalledDL")
    registry = er.async_get(hass)
    unique_id = f"{entry.entry_id}_{info_hash}_poster"
    entity_id = await refresh_until(
        hass, entry, lambda: registry.async_get_entity_id("image", DOMAIN, unique_id), what="the poster"
    )
    assert entity_id == "image.big_buck_bunny_2008_poster"
    device = async_get_entry_device(
        dr.async_get(hass), (DOMAIN, f"{entry.entry_id}_{info_hash}"), entry.entry_id
    )
    assert er.async_get(hass).async_get(entity_id).device_id == device.id
    state = hass.states.get(entity_id)
    assert state.attributes["friendly_name"] == "Big Buck Bunny (2008) Poster"
    assert state.attributes["entity_picture"].startswith(f"/api/image_proxy/{entity_id}?token=")
    assert dt_util.parse_datetime(state.state) is not None  # the time the poster was last changed

    for _ in range(2):
        assert await fetch_image(hass_client, entity_id) == SERVED
    assert poster_requests(tmdb_server) == [f"/t/p/w342{POSTER}"]  # fetched once, then from the cache

    # Removed from qBittorrent: the poster goes with the download's device.
    await hass.async_add_executor_job(
        lambda: qbittorrent.api().torrents_delete(delete_files=False, torrent_hashes=info_hash)
    )
    await poll(hass)
    assert hass.states.get(entity_id) is None
    assert er.async_get(hass).async_get(entity_id) is None


async def test_download_without_a_poster_has_no_poster_entity(
    hass: HomeAssistant, qbittorrent: QBittorrentInstance, setup_integration: MockConfigEntry, tmp_path: Path
) -> None:
    entry = setup_integration
    media = {key: value for key, value in BIG_BUCK_BUNNY.items() if key != "poster_path"}
    info_hash = await add_big_buck_bunny(hass, entry, tmp_path, complete=False, media=media)
    await wait_for_torrent(hass, qbittorrent, info_hash, lambda t: t["state"] == "stalledDL")
    await refresh_until(
        hass, entry, lambda: hass.states.get("sensor.big_buck_bunny_2008_progress"), what="its sensors"
    )
    assert (
        er.async_get(hass).async_get_entity_id("image", DOMAIN, f"{entry.entry_id}_{info_hash}_poster")
        is None
    )


async def test_latest_download_shows_the_last_completed_poster_across_restarts(
    hass: HomeAssistant,
    hass_client: ClientSessionGenerator,
    hass_storage: dict[str, Any],
    qbittorrent: QBittorrentInstance,
    tmdb_server: TMDBServer,
    setup_integration: MockConfigEntry,
    tmp_path: Path,
) -> None:
    entry = setup_integration
    assert hass.states.get(LATEST_DOWNLOAD).state == STATE_UNAVAILABLE  # nothing completed yet
    assert (await fetch_image(hass_client, LATEST_DOWNLOAD))[0] == HTTPStatus.INTERNAL_SERVER_ERROR

    info_hash = await add_big_buck_bunny(hass, entry, tmp_path, complete=True, media=BIG_BUCK_BUNNY)
    await wait_for_torrent(hass, qbittorrent, info_hash, lambda t: t["progress"] == 1)
    await poll(hass)
    await poll(hass)

    state = hass.states.get(LATEST_DOWNLOAD)
    assert state.attributes["title"] == "Big Buck Bunny (2008)"
    completed_at = dt_util.parse_datetime(state.state)
    assert completed_at is not None
    assert await fetch_image(hass_client, LATEST_DOWNLOAD) == (
        HTTPStatus.OK,
        poster_bytes(POSTER),
        "image/png",
    )

    # After a restart it is still there, unchanged, from memory.
    assert await hass.config_entries.async_reload(entry.entry_id)
    await hass.async_block_till_done()
    stored = hass_storage[f"{DOMAIN}.{entry.entry_id}"]["data"]["downloads"]["latest_completed"]
    assert stored == {
        "title": "Big Buck Bunny (2008)",
        "poster_path": POSTER,
        "completed_at": completed_at.isoformat(),
    }
    state = hass.states.get(LATEST_DOWNLOAD)
    assert (state.state, state.attributes["title"]) == (completed_at.isoformat(), "Big Buck Bunny (2008)")
    assert await fetch_image(hass_client, LATEST_DOWNLOAD) == (
        HTTPStatus.OK,
        poster_bytes(POSTER),
        "image/png",
    )


async def test_latest_download_without_a_poster_is_unavailable(
    hass: HomeAssistant, qbittorrent: QBittorrentInstance, setup_integration: MockConfigEntry, tmp_path: Path
) -> None:
    entry = setup_integration
    entry.runtime_data.memory.downloads.set_latest_completed("Sintel (2010)", None)
    media = {key: value for key, value in BIG_BUCK_BUNNY.items() if key != "poster_path"}
    info_hash = await add_big_buck_bunny(hass, entry, tmp_path, complete=True, media=media)
    await wait_for_torrent(hass, qbittorrent, info_hash, lambda t: t["progress"] == 1)
    await refresh_until(
        hass,
        entry,
        lambda: entry.runtime_data.memory.downloads.latest_completed()["title"],
        lambda title: title == "Big Buck Bunny (2008)",
        what="the latest completed",
    )
    assert hass.states.get(LATEST_DOWNLOAD).state == STATE_UNAVAILABLE
