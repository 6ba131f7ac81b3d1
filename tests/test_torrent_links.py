""".torrent links, as private trackers behind Jackett or Prowlarr give them: read whole, checked, added.

The Torznab stand-in answers with .torrent links only (the API key in each, no info hash, no magnet); the
links serve release-sized .torrent files (over 1 MB, a sample, an .nfo, subtitles) in small pieces with
pauses, as every stand-in sends its bodies. Real qbittorrent-nox behind.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from custom_components.agent_media.clients.bittorrent import MAX_TORRENT_FILE_BYTES
from custom_components.agent_media.const import DOMAIN
from custom_components.agent_media.operations.adding import SAFETY_WAITING
from homeassistant.exceptions import HomeAssistantError, ServiceValidationError

from .helpers import torrents_in_qbittorrent, wait_for_torrent
from .rig.torrents import make_hostile_torrent
from .test_search_sources import add_indexer
from .test_services import TorrentFileServer, file_server

if TYPE_CHECKING:
    from pytest_homeassistant_custom_component.common import MockConfigEntry

    from homeassistant.core import HomeAssistant

    from .rig.qbittorrent import QBittorrentInstance
    from .rig.torznab_server import Release, TorznabServer

__all__ = ["file_server"]

REMUX = "Big.Buck.Bunny.2008.2160p.UHD.BluRay.REMUX.HDR.HEVC-PRIVATE"


async def search(hass: HomeAssistant, query: str) -> list[dict[str, Any]]:
    response = await hass.services.async_call(
        DOMAIN, "search", {"query": query}, blocking=True, return_response=True
    )
    return list(response["results"])


def release_named(server: TorznabServer, title: str) -> Release:
    return next(release for release in server.releases if release.title == title)


async def test_a_torrent_link_is_read_whole_and_added(
    hass: HomeAssistant,
    setup_integration: MockConfigEntry,
    torznab_server: TorznabServer,
    qbittorrent: QBittorrentInstance,
) -> None:
    """A 2 MB .torrent sent 16 kB at a time arrives whole: qBittorrent takes it with all its files."""
    torznab_server.torrent_links_only = True
    await add_indexer(hass, setup_integration, torznab_server)
    torrent = torznab_server.torrent_for(release_named(torznab_server, REMUX))
    assert len(torrent.torrent_bytes) > 1_000_000

    results = await search(hass, "Big Buck Bunny 2008 2160p REMUX")
    (remux,) = [result for result in results if result["title"] == REMUX]
    assert remux.get("info_hash") is None  # nothing but the link: the hash is only known from the file
    added = await hass.services.async_call(
        DOMAIN, "download", {"index": remux["index"]}, blocking=True, return_response=True
    )

    assert added == {"hash": torrent.info_hash, "name": REMUX}
    assert len(torznab_server.downloads) == 1
    await wait_for_torrent(hass, qbittorrent, torrent.info_hash)
    files = await hass.async_add_executor_job(
        lambda: qbittorrent.api().torrents_files(torrent_hash=torrent.info_hash)
    )
    assert sorted(item["name"] for item in files) == sorted(f"{REMUX}/{path}" for path in torrent.files)


async def test_a_link_that_redirects_to_a_magnet_adds_the_magnet(
    hass: HomeAssistant,
    setup_integration: MockConfigEntry,
    torznab_server: TorznabServer,
    qbittorrent: QBittorrentInstance,
) -> None:
    """Jackett answers the links of trackers that only have magnets with a redirect to the magnet."""
    torznab_server.torrent_links_only = True
    torznab_server.links_redirect_to_magnets = True
    await add_indexer(hass, setup_integration, torznab_server)
    release = release_named(torznab_server, REMUX)

    results = await search(hass, "Big Buck Bunny 2008 2160p REMUX")
    (remux,) = [result for result in results if result["title"] == REMUX]
    added = await hass.services.async_call(
        DOMAIN, "download", {"index": remux["index"]}, blocking=True, return_response=True
    )

    assert added["hash"] == release.info_hash
    record = setup_integration.runtime_data.memory.downloads.records()[release.info_hash]
    assert record["safety"] == SAFETY_WAITING  # a magnet: checked once its metadata comes
    await wait_for_torrent(hass, qbittorrent, release.info_hash)


@pytest.mark.parametrize("failure", ["huge", "huge_stream"])
async def test_a_link_past_the_size_cap_is_refused_while_it_streams(
    hass: HomeAssistant,
    setup_integration: MockConfigEntry,
    torznab_server: TorznabServer,
    qbittorrent: QBittorrentInstance,
    failure: str,
) -> None:
    """11 MiB, with its length declared or chunked without one: refused at 10 MiB, nothing added."""
    torznab_server.torrent_links_only = True
    torznab_server.huge_bytes = MAX_TORRENT_FILE_BYTES + 1024 * 1024
    await add_indexer(hass, setup_integration, torznab_server)
    results = await search(hass, "Big Buck Bunny 2008 2160p REMUX")
    (remux,) = [result for result in results if result["title"] == REMUX]
    torznab_server.fail_next(failure)

    with pytest.raises(HomeAssistantError) as refused:
        await hass.services.async_call(
            DOMAIN, "download", {"index": remux["index"]}, blocking=True, return_response=True
        )

    assert refused.value.translation_key == "service_invalid_response"
    assert "10 MB" in str(refused.value)
    assert await torrents_in_qbittorrent(hass, qbittorrent) == {}


async def test_a_hostile_torrent_is_refused_without_adding_anything(
    hass: HomeAssistant,
    setup_integration: MockConfigEntry,
    qbittorrent: QBittorrentInstance,
    file_server: TorrentFileServer,
) -> None:
    """About 9 MB listing 150,000 files: refused by the bounded reading, with a reason people can read."""
    hostile = await hass.async_add_executor_job(make_hostile_torrent)
    assert MAX_TORRENT_FILE_BYTES * 0.8 < len(hostile) < MAX_TORRENT_FILE_BYTES
    file_server.files["hostile.torrent"] = hostile

    with pytest.raises(ServiceValidationError) as refused:
        await hass.services.async_call(
            DOMAIN,
            "download",
            {"url": file_server.url("hostile.torrent")},
            blocking=True,
            return_response=True,
        )

    assert refused.value.translation_key == "request_rejected"
    assert "more than 10,000" in str(refused.value)
    assert await torrents_in_qbittorrent(hass, qbittorrent) == {}
    assert setup_integration.runtime_data.memory.downloads.records() == {}
