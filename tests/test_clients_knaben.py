"""KnabenClient against the loopback Knaben server, on Home Assistant's aiohttp session."""

from __future__ import annotations

import base64
from datetime import UTC, datetime
import json
import socket
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, urlsplit

import pytest

from custom_components.agent_media.clients._http import NO_RETRY, RetryPolicy, parse_retry_after
from custom_components.agent_media.clients.bittorrent import build_magnet, info_hash_from_magnet
from custom_components.agent_media.clients.errors import (
    CannotConnectError,
    InvalidResponseError,
    RateLimitedError,
    RequestRejectedError,
    ResponseTooLargeError,
    TimedOutError,
)
from custom_components.agent_media.clients.knaben import KnabenClient, TorrentResult, parse_hit
from custom_components.agent_media.clients.qbittorrent import QBittorrentClient
from custom_components.agent_media.const import MAX_LINK_LENGTH, MAX_TITLE_LENGTH
from homeassistant.helpers.aiohttp_client import async_get_clientsession

from .rig._server import RecordedSleep
from .rig.knaben_server import synthetic_hash

if TYPE_CHECKING:
    from homeassistant.core import HomeAssistant

    from .rig.knaben_server import KnabenServer
    from .rig.qbittorrent import QBittorrentInstance


def make_client(
    hass: HomeAssistant, server: KnabenServer, *, retry: RetryPolicy = NO_RETRY, **kwargs: Any
) -> KnabenClient:
    return KnabenClient(async_get_clientsession(hass), base_url=server.base_url, retry=retry, **kwargs)


class Clock:
    """A clock the test moves by hand, for the cache."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


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

    assert {r.source for r in results} == {"knaben"}
    assert uhd.as_dict()["source"] == "knaben"
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
    assert await client.async_search("Sintel")  # one-off, and failures are not cached


async def test_hits_not_a_list(hass: HomeAssistant, knaben_server: KnabenServer) -> None:
    knaben_server.set_hits([])
    assert await make_client(hass, knaben_server).async_search("Sintel") == []
    knaben_server.set_hits("nope")  # type: ignore[arg-type]
    with pytest.raises(InvalidResponseError):
        await make_client(hass, knaben_server).async_search("Sintel")


async def test_slow_server_times_out(hass: HomeAssistant, knaben_server: KnabenServer) -> None:
    knaben_server.fail_next("slow")
    with pytest.raises(TimedOutError) as caught:
        await make_client(hass, knaben_server, timeout=0.3).async_search("Sintel")
    assert caught.value.detail == "timed out"
    assert caught.value.code == "timed_out"


async def test_unreachable_is_cannot_connect(hass: HomeAssistant, socket_enabled: None) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    client = KnabenClient(async_get_clientsession(hass), base_url=f"http://127.0.0.1:{port}/v1")
    with pytest.raises(CannotConnectError):
        await client.async_search("Sintel")


# --- bounds on outside data ----------------------------------------------------------------------------


async def test_long_fields_are_clipped_or_dropped(hass: HomeAssistant, knaben_server: KnabenServer) -> None:
    info_hash = synthetic_hash("long fields")
    knaben_server.set_hits(
        [
            {
                "title": "Sintel " + "very " * 2000 + "long",
                "hash": info_hash,
                "magnetUrl": f"magnet:?xt=urn:btih:{info_hash}&tr=" + "x" * MAX_LINK_LENGTH,
                "link": "https://tracker.example.org/" + "y" * MAX_LINK_LENGTH,
                "tracker": "Example " * 100,
                "seeders": 3,
                "bytes": "1e999",  # overflows to infinity: no size rather than a crash
            }
        ]
    )
    (result,) = await make_client(hass, knaben_server).async_search("Sintel")
    assert len(result.title) == MAX_TITLE_LENGTH
    assert result.title.startswith("Sintel very very")
    assert result.title.endswith("…")
    assert result.magnet is None  # too long to be a sane magnet: dropped, never cut
    assert result.torrent_url is None
    assert result.download_link == build_magnet(info_hash, result.title)
    assert result.tracker is not None
    assert len(result.tracker) <= 100
    assert result.size == 0


async def test_results_are_bounded_by_the_limit(hass: HomeAssistant, knaben_server: KnabenServer) -> None:
    knaben_server.set_hits(
        [{"title": f"Sintel {n}", "hash": synthetic_hash(f"many {n}"), "seeders": 1} for n in range(400)]
    )
    client = make_client(hass, knaben_server)
    assert len(await client.async_search("Sintel", limit=1000)) == 300
    assert len(await client.async_search("Sintel", limit=7)) == 7


@pytest.mark.parametrize("kind", ["huge", "huge_stream"])
async def test_oversized_answer_is_refused(
    hass: HomeAssistant, knaben_server: KnabenServer, kind: str
) -> None:
    knaben_server.fail_next(kind)  # 10 MB, with and without a Content-Length
    client = make_client(hass, knaben_server)
    with pytest.raises(ResponseTooLargeError) as caught:
        await client.async_search("Sintel")
    assert caught.value.detail == "answered with more than 2 MB"
    assert caught.value.code == "too_large"
    assert await client.async_search("Sintel")  # nothing was kept from it


async def test_byte_cap_is_configurable(hass: HomeAssistant, knaben_server: KnabenServer) -> None:
    knaben_server.huge_bytes = 200_000
    knaben_server.fail_next("huge_stream")
    with pytest.raises(ResponseTooLargeError) as caught:
        await make_client(hass, knaben_server, max_bytes=64 * 1024).async_search("Sintel")
    assert caught.value.detail == "answered with more than 64 KB"


# --- politeness: retries and the cache -----------------------------------------------------------------


async def test_busy_server_is_asked_again_after_retry_after(
    hass: HomeAssistant, knaben_server: KnabenServer
) -> None:
    sleep = RecordedSleep()
    knaben_server.retry_after = "2"
    knaben_server.fail_next("503", times=2)
    results = await make_client(hass, knaben_server, retry=RetryPolicy(sleep=sleep)).async_search("Sintel")
    assert results
    assert len(knaben_server.requests) == 3
    assert sleep.waits == [2.0, 2.0]  # Retry-After, longer than the doubling 0.5 s then 1 s


async def test_server_errors_back_off_then_give_up(hass: HomeAssistant, knaben_server: KnabenServer) -> None:
    sleep = RecordedSleep()
    knaben_server.fail_next("500", times=3)
    client = make_client(hass, knaben_server, retry=RetryPolicy(sleep=sleep))
    with pytest.raises(CannotConnectError) as caught:
        await client.async_search("Sintel")
    assert caught.value.detail == "server error (HTTP 500)"
    assert len(knaben_server.requests) == 3  # bounded attempts
    assert sleep.waits == [0.5, 1.0]  # doubling, no Retry-After on a 500


async def test_rate_limit_keeps_what_the_server_asked(
    hass: HomeAssistant, knaben_server: KnabenServer
) -> None:
    sleep = RecordedSleep()
    knaben_server.fail_next("429", times=3)
    with pytest.raises(RateLimitedError) as caught:
        await make_client(hass, knaben_server, retry=RetryPolicy(sleep=sleep)).async_search("Sintel")
    assert caught.value.retry_after == 1.0
    assert sleep.waits == [1.0, 1.0]


@pytest.mark.parametrize(
    ("retry_after", "max_total_wait", "timeout", "waits"),
    [
        ("120", 5.0, 15.0, []),  # more than the policy waits in all: no retry
        ("3", 5.0, 15.0, [3.0]),  # a second 3 s wait would pass 5 s in all
        ("2", 5.0, 2.0, []),  # would pass the call's deadline
    ],
)
async def test_waits_stay_within_the_policy_and_the_deadline(
    hass: HomeAssistant,
    knaben_server: KnabenServer,
    retry_after: str,
    max_total_wait: float,
    timeout: float,
    waits: list[float],
) -> None:
    sleep = RecordedSleep()
    knaben_server.retry_after = retry_after
    knaben_server.fail_next("429", times=3)
    retry = RetryPolicy(max_total_wait=max_total_wait, sleep=sleep)
    with pytest.raises(RateLimitedError) as caught:
        await make_client(hass, knaben_server, retry=retry, timeout=timeout).async_search("Sintel")
    assert f"retry after {retry_after} s" in caught.value.detail
    assert sleep.waits == waits
    assert len(knaben_server.requests) == len(waits) + 1


async def test_client_errors_are_not_retried(hass: HomeAssistant, knaben_server: KnabenServer) -> None:
    sleep = RecordedSleep()
    knaben_server.fail_next("403")
    with pytest.raises(RequestRejectedError):
        await make_client(hass, knaben_server, retry=RetryPolicy(sleep=sleep)).async_search("Sintel")
    assert len(knaben_server.requests) == 1
    assert sleep.waits == []


async def test_retry_really_waits(hass: HomeAssistant, knaben_server: KnabenServer) -> None:
    knaben_server.fail_next("500")
    client = make_client(hass, knaben_server, retry=RetryPolicy(first_delay=0.01))  # asyncio.sleep
    assert await client.async_search("Sintel")
    assert len(knaben_server.requests) == 2


async def test_same_search_is_answered_from_the_cache(
    hass: HomeAssistant, knaben_server: KnabenServer
) -> None:
    clock = Clock()
    client = make_client(hass, knaben_server, clock=clock)
    first = await client.async_search("Sintel 2010", media_type="movie")
    clock.now += 599
    assert await client.async_search("Sintel 2010", media_type="movie") == first
    assert len(knaben_server.requests) == 1
    await client.async_search("Sintel 2010")  # another search: another body
    assert len(knaben_server.requests) == 2
    clock.now += 2  # ten minutes after the first
    await client.async_search("Sintel 2010", media_type="movie")
    assert len(knaben_server.requests) == 3


async def test_cache_can_be_turned_off(hass: HomeAssistant, knaben_server: KnabenServer) -> None:
    client = make_client(hass, knaben_server, cache_ttl=0)
    await client.async_search("Sintel")
    await client.async_search("Sintel")
    assert len(knaben_server.requests) == 2


@pytest.mark.parametrize(
    ("header", "seconds"),
    [
        ("30", 30.0),
        (" 0 ", 0.0),
        ("Wed, 21 Oct 2026 07:28:30 GMT", 30.0),  # an HTTP date, 30 s after "now"
        ("Wed, 21 Oct 2026 07:27:00 GMT", 0.0),  # already past
        ("-5", None),
        ("soon", None),
        ("", None),
        (None, None),
    ],
)
def test_parse_retry_after(header: str | None, seconds: float | None) -> None:
    now = datetime(2026, 10, 21, 7, 28, tzinfo=UTC)
    assert parse_retry_after(header, now=now) == seconds


async def test_retry_after_as_a_date_is_honoured(hass: HomeAssistant, knaben_server: KnabenServer) -> None:
    sleep = RecordedSleep()
    knaben_server.retry_after = "Thu, 01 Jan 1970 00:00:00 GMT"  # long past: no extra wait
    knaben_server.fail_next("503")
    assert await make_client(hass, knaben_server, retry=RetryPolicy(sleep=sleep)).async_search("Sintel")
    assert sleep.waits == [0.5]
