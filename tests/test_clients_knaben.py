"""KnabenClient against the loopback Knaben server, on Home Assistant's aiohttp session."""

from __future__ import annotations

import base64
import json
import socket
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, urlsplit

import pytest

from custom_components.agent_media.clients.errors import (
    CannotConnectError,
    InvalidResponseError,
    RateLimitedError,
    RequestRejectedError,
)
from custom_components.agent_media.clients.knaben import KnabenClient, TorrentResult, build_magnet, parse_hit
from custom_components.agent_media.clients.qbittorrent import QBittorrentClient, info_hash_from_magnet
from homeassistant.helpers.aiohttp_client import async_get_clientsession

from .rig.knaben_server import synthetic_hash

if TYPE_CHECKING:
    from homeassistant.core import HomeAssistant

    from .rig.knaben_server import KnabenServer
    from .rig.qbittorrent import QBittorrentInstance


def make_client(hass: HomeAssistant, server: KnabenServer, **kwargs: float) -> KnabenClient:
    return KnabenClient(async_get_clientsession(hass), base_url=server.base_url, **kwargs)


async def test_search_sends_the_recommended_body(hass: HomeAssistant, knaben_server: KnabenServer) -> None:
    await make_client(hass, knaben_server).async_search("Sintel 2010", media_type="movie", limit=20)
    assert knaben_server.requests[-1] == {
        "search_type": "100%",
        "search_field": "title",
        "query": "Sintel 2010",
        "order_by": "seeders",
        "order_direction": "desc",
        "from": 0,
        "size": 20,
        "hide_unsafe": True,
        "hide_xxx": True,
        "categories": [3000000],
    }


async def test_search_categories_and_limits(hass: HomeAssistant, knaben_server: KnabenServer) -> None:
    client = make_client(hass, knaben_server)
    await client.async_search("Pioneer One", media_type="tv", limit=5000)
    assert knaben_server.requests[-1]["categories"] == [2000000]
    assert knaben_server.requests[-1]["size"] == 300  # Knaben's maximum
    await client.async_search("Pioneer One", limit=0)
    assert "categories" not in knaben_server.requests[-1]
    assert knaben_server.requests[-1]["size"] == 1


async def test_search_parses_the_recorded_shapes(hass: HomeAssistant, knaben_server: KnabenServer) -> None:
    results = await make_client(hass, knaben_server).async_search(
        "Night of the Living Dead 1968", media_type="movie"
    )
    titles = [r.title for r in results]
    # The dead release (0 seeders) is dropped; the rest keep Knaben's order (most seeders first).
    assert "Night.of.the.Living.Dead.1968.480p.DVDRip.XviD-OLD" not in titles
    assert len(results) == 5
    assert [r.seeders for r in results] == sorted((r.seeders for r in results), reverse=True)

    uhd = next(r for r in results if "2160p" in r.title)
    assert uhd.info_hash == synthetic_hash("Night of the Living Dead 1968 2160p")  # upper case in the hit
    assert uhd.magnet is not None
    assert uhd.download_link == uhd.magnet
    assert uhd.category_ids == (3003000,)
    assert uhd.virus_score == 0.05
    assert uhd.size == 24_600_000_000

    full_hd = next(r for r in results if r.title.endswith("BluRay.x264.AAC-PDGROUP"))
    assert full_hd.magnet is None  # magnetUrl null: the link is built from the hash
    assert full_hd.download_link == build_magnet(full_hd.info_hash or "", full_hd.title)
    assert info_hash_from_magnet(full_hd.download_link or "") == full_hd.info_hash
    assert full_hd.category_ids == (3000000, 3001000)
    assert full_hd.virus_score is None  # an empty list
    assert full_hd.published == "2019-05-14T00:00:00"

    web = next(r for r in results if "720p" in r.title)
    assert web.torrent_url is not None
    assert web.torrent_url.endswith(".torrent")
    assert web.virus_score == 0.0

    assert next(r for r in results if ".CAM." in r.title).virus_score is None
    assert next(r for r in results if r.title.endswith("-FREE")).virus_score == 0.93
    json.dumps([r.as_dict() for r in results])  # JSON-safe


async def test_total_as_an_object_and_odd_fields(hass: HomeAssistant, knaben_server: KnabenServer) -> None:
    info_hash = synthetic_hash("odd fields")
    base32_hash = base64.b32encode(bytes.fromhex(info_hash)).decode()
    knaben_server.set_hits(
        [
            # categoryId as a bare number, virusDetection as a list and as a string, numbers as strings
            {
                "title": "Tears of Steel 2012 1080p",
                "hash": info_hash.upper(),
                "seeders": "12",
                "peers": "3",
                "bytes": "1500000000",
                "categoryId": 3001000,
                "virusDetection": [0.2, 0.7],
            },
            {
                "title": "Tears of Steel 2012 720p",
                "hash": None,
                "seeders": 5,
                "virusDetection": "0.4",
                "magnetUrl": f"magnet:?xt=urn:btih:{base32_hash}&dn=Tears",
            },
            # the "link" is itself a magnet
            {
                "title": "Tears of Steel 2012 480p",
                "seeders": 2,
                "link": f"magnet:?xt=urn:btih:{synthetic_hash('link magnet')}",
            },
            # dropped: no title; nothing to download; no seeders; not even an object
            {"hash": synthetic_hash("untitled"), "seeders": 9},
            {"title": "Tears of Steel nothing", "seeders": 9},
            {"title": "Tears of Steel dead", "hash": synthetic_hash("dead"), "seeders": 0},
            "garbage",
        ]
    )
    results = await make_client(hass, knaben_server).async_search("Tears of Steel")
    assert [r.title for r in results] == [
        "Tears of Steel 2012 1080p",
        "Tears of Steel 2012 720p",
        "Tears of Steel 2012 480p",
    ]
    first, second, third = results
    assert (first.info_hash, first.seeders, first.peers, first.size) == (info_hash, 12, 3, 1_500_000_000)
    assert first.category_ids == (3001000,)
    assert first.virus_score == 0.7
    assert second.info_hash == info_hash  # taken from the base32 magnet
    assert second.virus_score == 0.4
    assert second.category_ids == ()
    assert third.magnet is not None
    assert third.torrent_url is None
    assert third.info_hash == synthetic_hash("link magnet")


def test_parse_hit_edge_cases() -> None:
    assert parse_hit({"title": "  ", "hash": synthetic_hash("blank")}) is None
    only_url = parse_hit({"title": "Sintel", "link": "https://tracker.example.org/x.torrent", "seeders": 1})
    assert only_url is not None
    assert only_url.download_link == "https://tracker.example.org/x.torrent"
    bad_hash = parse_hit({"title": "Sintel", "hash": "xyz", "link": "https://tracker.example.org/y.torrent"})
    assert bad_hash is not None
    assert bad_hash.info_hash is None
    no_magnet = parse_hit(
        {"title": "Sintel", "magnetUrl": "https://not-a-magnet", "hash": synthetic_hash("s")}
    )
    assert no_magnet is not None
    assert no_magnet.magnet is None
    assert parse_hit({"title": "Sintel", "virusDetection": True, "hash": synthetic_hash("b")}) is not None


def test_build_magnet_escapes_the_name() -> None:
    magnet = build_magnet(synthetic_hash("name").upper(), "Big Buck Bunny & friends")
    query = parse_qs(urlsplit(magnet).query)
    assert query["xt"] == [f"urn:btih:{synthetic_hash('name')}"]
    assert query["dn"] == ["Big Buck Bunny & friends"]
    assert build_magnet(synthetic_hash("bare")) == f"magnet:?xt=urn:btih:{synthetic_hash('bare')}"


def test_download_link_preference() -> None:
    base: dict[str, Any] = {
        "title": "Sintel",
        "size": 1,
        "seeders": 1,
        "peers": 0,
        "tracker": None,
        "category_ids": (),
        "virus_score": None,
        "published": None,
    }
    url = "https://tracker.example.org/z.torrent"
    info_hash = synthetic_hash("pref")
    with_magnet = TorrentResult(info_hash=info_hash, magnet="magnet:?xt=urn:btih:x", torrent_url=url, **base)
    assert with_magnet.download_link == "magnet:?xt=urn:btih:x"
    with_hash = TorrentResult(info_hash=info_hash, magnet=None, torrent_url=url, **base)
    assert with_hash.download_link == build_magnet(info_hash, "Sintel")
    with_url = TorrentResult(info_hash=None, magnet=None, torrent_url=url, **base)
    assert with_url.download_link == url


async def test_result_can_be_added_to_qbittorrent(
    hass: HomeAssistant, knaben_server: KnabenServer, qbittorrent: QBittorrentInstance
) -> None:
    results = await make_client(hass, knaben_server).async_search("Elephants Dream 2006", media_type="movie")
    built = next(r for r in results if r.magnet is None and r.info_hash)
    qbt = QBittorrentClient(qbittorrent.url, qbittorrent.username, qbittorrent.password)
    added = await qbt.async_add_magnet(built.download_link or "")
    assert (added.info_hash, added.name) == (built.info_hash, built.title)
    await qbt.async_close()


# --- failures -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kind", "error"),
    [
        ("html", InvalidResponseError),
        ("bad_shape", InvalidResponseError),
        ("500", CannotConnectError),
        ("429", RateLimitedError),
        ("403", RequestRejectedError),  # Knaben takes no credentials: a refusal, not an auth problem
        ("401", RequestRejectedError),
    ],
)
async def test_failures_are_mapped(
    hass: HomeAssistant, knaben_server: KnabenServer, kind: str, error: type[Exception]
) -> None:
    knaben_server.fail_next(kind)
    client = make_client(hass, knaben_server)
    with pytest.raises(error) as caught:
        await client.async_search("Sintel")
    assert type(caught.value) is error
    assert caught.value.service == "knaben"  # type: ignore[attr-defined]
    assert await client.async_search("Sintel")  # one-off


async def test_hits_not_a_list(hass: HomeAssistant, knaben_server: KnabenServer) -> None:
    knaben_server.set_hits([])
    assert await make_client(hass, knaben_server).async_search("Sintel") == []
    knaben_server.set_hits("nope")  # type: ignore[arg-type]
    with pytest.raises(InvalidResponseError):
        await make_client(hass, knaben_server).async_search("Sintel")


async def test_slow_server_times_out(hass: HomeAssistant, knaben_server: KnabenServer) -> None:
    knaben_server.fail_next("slow")
    with pytest.raises(CannotConnectError) as caught:
        await make_client(hass, knaben_server, timeout=0.3).async_search("Sintel")
    assert caught.value.detail == "timed out"


async def test_unreachable_is_cannot_connect(hass: HomeAssistant, socket_enabled: None) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    client = KnabenClient(async_get_clientsession(hass), base_url=f"http://127.0.0.1:{port}/v1")
    with pytest.raises(CannotConnectError):
        await client.async_search("Sintel")
