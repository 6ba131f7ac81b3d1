"""TorznabClient against the loopback Torznab (Jackett) server, on Home Assistant's aiohttp session."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import pytest

from custom_components.agent_media.clients._http import NO_RETRY, RetryPolicy
from custom_components.agent_media.clients.errors import (
    CannotConnectError,
    InvalidAuthError,
    InvalidResponseError,
    RateLimitedError,
    RequestRejectedError,
    ResponseTooLargeError,
    TimedOutError,
)
from custom_components.agent_media.clients.qbittorrent import QBittorrentClient
from custom_components.agent_media.clients.torznab import (
    TorznabCapabilities,
    TorznabClient,
    normalize_api_url,
    parse_xml,
    search_params,
)
from custom_components.agent_media.const import MAX_LINK_LENGTH, MAX_TITLE_LENGTH, MAX_TORZNAB_ITEMS
from homeassistant.helpers.aiohttp_client import async_get_clientsession

from .rig._server import RecordedSleep
from .rig.knaben_server import synthetic_hash
from .rig.torznab_server import TORZNAB_NS

if TYPE_CHECKING:
    from homeassistant.core import HomeAssistant

    from .rig.qbittorrent import QBittorrentInstance
    from .rig.torznab_server import TorznabServer

NEWZNAB_NS = "http://www.newznab.com/DTD/2010/feeds/attributes/"
FULL_CAPS = TorznabCapabilities(
    server="Jackett",
    max_limit=100,
    tv_search=frozenset({"q", "season", "ep", "imdbid"}),
    movie_search=frozenset({"q", "imdbid"}),
)


def make_client(
    hass: HomeAssistant,
    server: TorznabServer,
    *,
    api_key: str | None = None,
    retry: RetryPolicy = NO_RETRY,
    **kwargs: Any,
) -> TorznabClient:
    return TorznabClient(
        async_get_clientsession(hass),
        server.base_url,
        server.api_key if api_key is None else api_key,
        retry=retry,
        **kwargs,
    )


def searches(server: TorznabServer) -> list[dict[str, str]]:
    """The search requests the server saw (caps left out), without the API key."""
    return [
        {key: value for key, value in request.items() if key != "apikey"}
        for request in server.requests
        if request.get("t") != "caps"
    ]


def rss(*items: str) -> bytes:
    """A Torznab answer holding these items."""
    return (
        '<?xml version="1.0" encoding="UTF-8"?>'
        f'<rss version="2.0" xmlns:torznab="{TORZNAB_NS}" xmlns:newznab="{NEWZNAB_NS}">'
        f"<channel><title>Jackett</title>{''.join(items)}</channel></rss>"
    ).encode()


# --- URLs and capabilities -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        (
            "http://jackett:9117/api/v2.0/indexers/all/results/torznab/",
            "/api/v2.0/indexers/all/results/torznab/api",
        ),
        (
            "http://jackett:9117/api/v2.0/indexers/all/results/torznab/api",
            "/api/v2.0/indexers/all/results/torznab/api",
        ),
        ("http://prowlarr:9696/1/", "/1/api"),
        ("  http://prowlarr:9696/1/api?apikey=secret&t=caps  ", "/1/api"),
        ("http://bitmagnet:3333/torznab", "/torznab/api"),
    ],
)
def test_normalize_api_url(url: str, expected: str) -> None:
    normalized = normalize_api_url(url)
    assert normalized.endswith(expected)
    assert "secret" not in normalized


async def test_caps_are_read(hass: HomeAssistant, torznab_server: TorznabServer) -> None:
    caps = await make_client(hass, torznab_server).async_validate()
    assert caps == TorznabCapabilities(
        server="Jackett",
        max_limit=100,
        tv_search=frozenset({"q", "season", "ep", "imdbid", "tvdbid"}),
        movie_search=frozenset({"q", "imdbid", "tmdbid"}),
    )
    assert torznab_server.requests == [{"t": "caps", "apikey": torznab_server.api_key}]


async def test_caps_are_asked_once(hass: HomeAssistant, torznab_server: TorznabServer) -> None:
    client = make_client(hass, torznab_server)
    await client.async_search("Sintel", media_type="movie")
    await client.async_search("Big Buck Bunny", media_type="movie")
    assert [request["t"] for request in torznab_server.requests] == ["caps", "movie", "movie"]
    await client.async_validate()  # validation asks afresh
    assert [request["t"] for request in torznab_server.requests][-1] == "caps"


async def test_unavailable_modes_and_missing_params(
    hass: HomeAssistant, torznab_server: TorznabServer
) -> None:
    torznab_server.answer_next(
        b'<caps><searching><search available="yes"/><tv-search available="yes" supportedParams=""/>'
        b'<movie-search available="no" supportedParams="q,imdbid"/></searching></caps>'
    )
    caps = await make_client(hass, torznab_server).async_validate()
    # No limits nor server; a mode without supportedParams takes the specification's defaults.
    assert caps == TorznabCapabilities(
        server=None, max_limit=None, tv_search=frozenset({"q", "season", "ep"}), movie_search=None
    )


async def test_wrong_api_key_is_invalid_auth(hass: HomeAssistant, torznab_server: TorznabServer) -> None:
    wrong = "0" * 32
    with pytest.raises(InvalidAuthError) as caught:
        await make_client(hass, torznab_server, api_key=wrong).async_validate()
    assert caught.value.detail == "credentials refused (Torznab error 100: Invalid API Key)"
    assert caught.value.service == "Jackett"
    assert wrong not in str(caught.value)


async def test_caps_that_are_not_caps(hass: HomeAssistant, torznab_server: TorznabServer) -> None:
    torznab_server.answer_next(rss())
    with pytest.raises(InvalidResponseError) as caught:
        await make_client(hass, torznab_server).async_validate()
    assert caught.value.detail == "answered without Torznab capabilities"


# --- searches ------------------------------------------------------------------------------------------


async def test_movie_search_by_imdb_id(hass: HomeAssistant, torznab_server: TorznabServer) -> None:
    results = await make_client(hass, torznab_server, name="My Jackett").async_search(
        "Big Buck Bunny 2008", media_type="movie", imdb_id="tt1254207"
    )
    assert searches(torznab_server) == [{"t": "movie", "cat": "2000", "imdbid": "1254207", "limit": "100"}]
    assert [r.title for r in results] == [
        "Big.Buck.Bunny.2008.1080p.BluRay.x264.AAC-PDGROUP",
        "Big.Buck.Bunny.2008.2160p.UHD.BluRay.REMUX.HDR.HEVC-PRIVATE",
    ]
    full_hd, remux = results
    assert full_hd.info_hash == synthetic_hash("Big Buck Bunny 2008 1080p")
    assert full_hd.magnet is not None
    assert full_hd.download_link == full_hd.magnet
    assert (full_hd.seeders, full_hd.peers, full_hd.size) == (900, 90, 8_790_000_000)  # peers: the leechers
    assert full_hd.category_ids == (2040,)
    assert full_hd.tracker == "Example Tracker"
    assert full_hd.published == "2021-04-16T10:21:00+00:00"
    assert full_hd.source == "My Jackett"
    assert full_hd.virus_score is None
    # Only a .torrent link through the indexer; the hash comes from its attribute.
    assert remux.magnet is None
    assert remux.info_hash == synthetic_hash("torznab bunny 2160p remux")
    assert remux.torrent_url is not None
    assert remux.torrent_url.startswith(torznab_server.root_url)
    json.dumps([r.as_dict() for r in results])


async def test_movie_search_by_text_when_the_indexer_takes_no_imdb_id(
    hass: HomeAssistant, torznab_server: TorznabServer
) -> None:
    torznab_server.movie_params = "q"  # asking by imdbid now would get error 203
    results = await make_client(hass, torznab_server).async_search(
        "Sintel", media_type="movie", imdb_id="tt1727587"
    )
    assert searches(torznab_server) == [{"t": "movie", "cat": "2000", "q": "Sintel", "limit": "100"}]
    # Most seeders first; the dead release is dropped.
    assert [(r.title, r.seeders) for r in results] == [
        ("Sintel.2010.1080p.WEB-DL.DD5.1.H264-OPEN", 75),
        ("Sintel (2010) 720p WEBRip x264 AAC", 10),
    ]


async def test_plain_search_when_there_is_no_movie_search(
    hass: HomeAssistant, torznab_server: TorznabServer
) -> None:
    torznab_server.movie_params = None
    results = await make_client(hass, torznab_server).async_search(
        "Night of the Living Dead", media_type="movie", imdb_id="tt0063350"
    )
    assert searches(torznab_server) == [
        {"t": "search", "q": "Night of the Living Dead", "cat": "2000", "limit": "100"}
    ]
    assert [r.title for r in results] == [
        "Night.of.the.Living.Dead.1968.REMASTERED.1080p.BluRay.x264-CLASSIC"
    ]


async def test_tv_search_with_season_and_episode(hass: HomeAssistant, torznab_server: TorznabServer) -> None:
    client = make_client(hass, torznab_server)
    episode = await client.async_search("Pioneer One", media_type="tv", season=1, episode=1)
    season = await client.async_search("Pioneer One", media_type="tv", season=1)
    assert searches(torznab_server) == [
        {"t": "tvsearch", "cat": "5000", "q": "Pioneer One", "season": "1", "ep": "1", "limit": "100"},
        {"t": "tvsearch", "cat": "5000", "q": "Pioneer One", "season": "1", "limit": "100"},
    ]
    assert [r.title for r in episode] == ["Pioneer.One.S01E01.1080p.WEB.x264-VODO"]
    assert [r.title for r in season] == [
        "Pioneer.One.S01.COMPLETE.1080p.WEB.x264-VODO",
        "Pioneer.One.S01E01.1080p.WEB.x264-VODO",
        "Pioneer.One.S01E02.720p.WEB.x264-VODO",
    ]


async def test_episode_in_the_text_without_tv_search(
    hass: HomeAssistant, torznab_server: TorznabServer
) -> None:
    torznab_server.tv_params = None
    results = await make_client(hass, torznab_server).async_search(
        "Pioneer One", media_type="tv", season=1, episode=2
    )
    assert searches(torznab_server) == [
        {"t": "search", "q": "Pioneer One S01E02", "cat": "5000", "limit": "100"}
    ]
    assert [r.title for r in results] == ["Pioneer.One.S01E02.720p.WEB.x264-VODO"]


async def test_search_without_a_type(hass: HomeAssistant, torznab_server: TorznabServer) -> None:
    results = await make_client(hass, torznab_server).async_search("Sintel", limit=1)
    assert searches(torznab_server) == [{"t": "search", "q": "Sintel", "limit": "1"}]
    assert len(results) == 1  # the indexer applies the limit


def test_search_params_choices() -> None:
    params = search_params(FULL_CAPS, "Pioneer One", media_type="tv", imdb_id="tt9000001", season=2)
    assert params == {"t": "tvsearch", "cat": "5000", "imdbid": "9000001", "season": "2", "limit": "100"}
    no_ep = TorznabCapabilities(
        server=None, max_limit=20, tv_search=frozenset({"q", "season"}), movie_search=None
    )
    assert search_params(no_ep, "Pioneer One", media_type="tv", season=1, episode=3, limit=50) == {
        "t": "tvsearch",
        "cat": "5000",
        "q": "Pioneer One",
        "season": "1",
        "limit": "20",  # the indexer's maximum
    }
    # A malformed IMDb id is not sent.
    assert "imdbid" not in search_params(FULL_CAPS, "Sintel", media_type="movie", imdb_id="tt12; drop")
    # Season and episode mean nothing to a film search.
    assert search_params(no_ep, "Sintel", media_type="movie", season=1)["q"] == "Sintel"


async def test_result_can_be_added_to_qbittorrent(
    hass: HomeAssistant, torznab_server: TorznabServer, qbittorrent: QBittorrentInstance
) -> None:
    results = await make_client(hass, torznab_server).async_search("Sintel 1080p", media_type="movie")
    (release,) = results
    qbt = QBittorrentClient(qbittorrent.url, qbittorrent.username, qbittorrent.password)
    added = await qbt.async_add_magnet(release.download_link or "")
    assert (added.info_hash, added.name) == (release.info_hash, release.title)
    await qbt.async_close()


# --- odd items and bounds ------------------------------------------------------------------------------


async def test_items_in_their_odd_shapes(hass: HomeAssistant, torznab_server: TorznabServer) -> None:
    magnet_hash = synthetic_hash("odd magnet only")
    torznab_server.answer_next(b"<caps/>")  # caps with nothing: plain searches only
    torznab_server.answer_next(
        rss(
            # newznab attributes; the magnet only as the link; leechers given; size from the enclosure
            "<item><title>Tears of Steel 2012 1080p</title>"
            f"<link>magnet:?xt=urn:btih:{magnet_hash}</link>"
            '<enclosure url="https://tracker.example.org/t/1.torrent" length="1500000000"/>'
            '<newznab:attr name="seeders" value="12"/><newznab:attr name="leechers" value="4"/>'
            '<newznab:attr name="peers" value="99"/><pubDate>not a date</pubDate></item>',
            # categories as elements; the title far too long; a link too long to keep
            "<item><title>Tears of Steel " + "long " * 200 + "</title>"
            f"<link>https://tracker.example.org/{'y' * MAX_LINK_LENGTH}</link>"
            f'<torznab:attr name="infohash" value="{synthetic_hash("odd long").upper()}"/>'
            '<torznab:attr name="seeders" value="5"/><category>2040</category><category>2000</category>'
            "<size>700000000</size></item>",
            # dropped: no title; nothing to download; dead; seeders that are not a number
            '<item><torznab:attr name="seeders" value="9"/><link>magnet:?xt=urn:btih:00</link></item>',
            '<item><title>Tears of Steel nothing</title><torznab:attr name="seeders" value="9"/></item>',
            f"<item><title>Tears of Steel dead</title><link>magnet:?xt=urn:btih:{synthetic_hash('d')}</link>"
            '<torznab:attr name="seeders" value="0"/></item>',
            f"<item><title>Tears of Steel NaN</title><link>magnet:?xt=urn:btih:{synthetic_hash('n')}</link>"
            '<torznab:attr name="seeders" value="many"/></item>',
        )
    )
    first, second = await make_client(hass, torznab_server).async_search("Tears of Steel")
    assert (first.title, first.info_hash, first.seeders, first.peers) == (
        "Tears of Steel 2012 1080p",
        magnet_hash,
        12,
        4,
    )
    assert first.torrent_url == "https://tracker.example.org/t/1.torrent"
    assert first.size == 1_500_000_000
    assert first.published is None
    assert first.tracker is None
    assert len(second.title) == MAX_TITLE_LENGTH
    assert second.torrent_url is None  # too long: dropped, never cut
    assert second.info_hash == synthetic_hash("odd long")
    assert second.category_ids == (2040, 2000)
    assert second.size == 700_000_000


async def test_items_read_are_bounded(hass: HomeAssistant, torznab_server: TorznabServer) -> None:
    torznab_server.answer_next(b"<caps/>")
    item = (
        "<item><title>Elephants Dream {n}</title><link>magnet:?xt=urn:btih:{h}</link>"
        '<torznab:attr name="seeders" value="{s}"/></item>'
    )
    torznab_server.answer_next(
        rss(
            *(
                item.format(n=n, h=synthetic_hash(f"bound {n}"), s=n + 1)
                for n in range(MAX_TORZNAB_ITEMS + 200)
            )
        )
    )
    results = await make_client(hass, torznab_server).async_search("Elephants Dream", limit=3)
    # Only the first MAX_TORZNAB_ITEMS items are read; of those, the three with most seeders are kept.
    assert [r.seeders for r in results] == [MAX_TORZNAB_ITEMS, MAX_TORZNAB_ITEMS - 1, MAX_TORZNAB_ITEMS - 2]


# --- XML safety ----------------------------------------------------------------------------------------

BILLION_LAUGHS = b"""<?xml version="1.0"?>
<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
<!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]>
<caps><server title="&lol3;"/></caps>"""
EXTERNAL_ENTITY = b"""<?xml version="1.0"?>
<!DOCTYPE caps [<!ENTITY secret SYSTEM "file:///etc/passwd">]><caps><server title="&secret;"/></caps>"""


@pytest.mark.parametrize(
    ("body", "detail"),
    [
        (BILLION_LAUGHS, "answered with XML that declares a DTD (refused)"),
        (EXTERNAL_ENTITY, "answered with XML that declares a DTD (refused)"),
        (
            b'<!DOCTYPE caps SYSTEM "http://127.0.0.1:1/x.dtd"><caps/>',
            "answered with XML that declares a DTD (refused)",
        ),
        (b"<caps><server title='&undeclared;'/></caps>", "answered with malformed XML"),
        (b"<caps><searching></caps>", "answered with malformed XML"),
        (b"", "answered with malformed XML"),
    ],
)
async def test_unsafe_or_malformed_xml_is_refused(
    hass: HomeAssistant, torznab_server: TorznabServer, body: bytes, detail: str
) -> None:
    torznab_server.answer_next(body, content_type="application/xml")
    with pytest.raises(InvalidResponseError) as caught:
        await make_client(hass, torznab_server).async_validate()
    assert caught.value.detail == detail


def test_parse_xml_keeps_namespaces() -> None:
    root = parse_xml(rss('<item><torznab:attr name="seeders" value="3"/></item>'), "test")
    assert root.find(f"channel/item/{{{TORZNAB_NS}}}attr") is not None


async def test_search_answer_without_channel(hass: HomeAssistant, torznab_server: TorznabServer) -> None:
    torznab_server.answer_next(b"<caps/>")
    torznab_server.answer_next(b"<rss version='2.0'/>")
    with pytest.raises(InvalidResponseError) as caught:
        await make_client(hass, torznab_server).async_search("Sintel")
    assert caught.value.detail == "answered without an RSS channel"


# --- failures ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("code", "status", "error", "detail"),
    [
        (429, 200, RateLimitedError, "limit reached (Torznab error 429: Indexer disabled)"),
        (500, 200, RateLimitedError, "limit reached (Torznab error 500: Indexer disabled)"),
        (101, 200, InvalidAuthError, "credentials refused (Torznab error 101: Indexer disabled)"),
        (203, 400, RequestRejectedError, "request refused (Torznab error 203: Indexer disabled)"),
        (900, 400, CannotConnectError, "indexer failed (Torznab error 900: Indexer disabled)"),
    ],
)
async def test_torznab_errors_are_mapped(
    hass: HomeAssistant,
    torznab_server: TorznabServer,
    code: int,
    status: int,
    error: type[Exception],
    detail: str,
) -> None:
    client = make_client(hass, torznab_server)
    await client.async_validate()
    torznab_server.fail_next_with_error(code, "Indexer disabled", status=status)
    with pytest.raises(error) as caught:
        await client.async_search("Sintel")
    assert type(caught.value) is error
    assert caught.value.detail == detail  # type: ignore[attr-defined]


async def test_long_error_descriptions_are_clipped(
    hass: HomeAssistant, torznab_server: TorznabServer
) -> None:
    torznab_server.fail_next_with_error(900, "System.Exception: boom\n   at Jackett." * 200, status=400)
    with pytest.raises(CannotConnectError) as caught:
        await make_client(hass, torznab_server).async_validate()
    assert len(caught.value.detail) < 200


async def test_an_error_that_quotes_the_api_key_is_masked(
    hass: HomeAssistant, torznab_server: TorznabServer
) -> None:
    """Jackett's descriptions can quote the request, key included: errors end up in answers and the Store."""
    quoted = f"Request to /api?apikey={torznab_server.api_key}&t=caps failed"
    torznab_server.fail_next_with_error(900, quoted, status=400)
    with pytest.raises(CannotConnectError) as caught:
        await make_client(hass, torznab_server).async_validate()
    assert torznab_server.api_key not in str(caught.value)
    assert "apikey=***" in caught.value.detail


@pytest.mark.parametrize(
    ("kind", "error", "detail"),
    [
        ("html", InvalidResponseError, "answered with text/html, not XML"),
        ("bad_shape", InvalidResponseError, "answered with application/json, not XML"),
        ("500", CannotConnectError, "server error (HTTP 500)"),
        ("429", RateLimitedError, "rate limited (HTTP 429, retry after 1 s)"),
        ("403", InvalidAuthError, "credentials refused (HTTP 403)"),
        ("huge", ResponseTooLargeError, "answered with more than 4 MB"),
    ],
)
async def test_http_failures_are_mapped(
    hass: HomeAssistant, torznab_server: TorznabServer, kind: str, error: type[Exception], detail: str
) -> None:
    torznab_server.fail_next(kind)
    client = make_client(hass, torznab_server)
    with pytest.raises(error) as caught:
        await client.async_validate()
    assert type(caught.value) is error
    assert caught.value.detail == detail  # type: ignore[attr-defined]
    assert await client.async_validate()  # one-off


async def test_busy_indexer_is_asked_again(hass: HomeAssistant, torznab_server: TorznabServer) -> None:
    sleep = RecordedSleep()
    torznab_server.retry_after = None
    torznab_server.fail_next("503", times=2)
    caps = await make_client(hass, torznab_server, retry=RetryPolicy(sleep=sleep)).async_validate()
    assert caps.server == "Jackett"
    assert len(torznab_server.requests) == 3
    assert sleep.waits == [0.5, 1.0]


async def test_slow_indexer_times_out(hass: HomeAssistant, torznab_server: TorznabServer) -> None:
    client = make_client(hass, torznab_server, timeout=0.3)
    await client.async_validate()
    torznab_server.fail_next("slow")
    with pytest.raises(TimedOutError):
        await client.async_search("Sintel")


async def test_caps_and_search_share_one_deadline(hass: HomeAssistant, torznab_server: TorznabServer) -> None:
    torznab_server.slow_seconds = 0.2
    torznab_server.fail_next("slow")  # caps answer after 0.2 s of the 0.3 s
    torznab_server.fail_next("slow")  # so the search has no time left
    with pytest.raises(TimedOutError):
        await make_client(hass, torznab_server, timeout=0.3).async_search("Sintel")


async def test_same_search_is_answered_from_the_cache(
    hass: HomeAssistant, torznab_server: TorznabServer
) -> None:
    now = [0.0]
    client = make_client(hass, torznab_server, clock=lambda: now[0])
    first = await client.async_search("Sintel", media_type="movie", imdb_id="tt1727587")
    assert await client.async_search("Sintel", media_type="movie", imdb_id="tt1727587") == first
    assert len(searches(torznab_server)) == 1
    now[0] += 600
    await client.async_search("Sintel", media_type="movie", imdb_id="tt1727587")
    assert len(searches(torznab_server)) == 2


async def test_failed_search_is_not_cached(hass: HomeAssistant, torznab_server: TorznabServer) -> None:
    client = make_client(hass, torznab_server)
    await client.async_validate()
    torznab_server.fail_next("500")
    with pytest.raises(CannotConnectError):
        await client.async_search("Sintel")
    assert await client.async_search("Sintel")
