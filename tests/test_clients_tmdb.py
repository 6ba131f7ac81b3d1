"""TMDBClient against the loopback TMDB server, on Home Assistant's aiohttp session."""

from __future__ import annotations

import json
import socket
from typing import TYPE_CHECKING, Any

import pytest

from custom_components.agent_media.clients._http import NO_RETRY, RetryPolicy
from custom_components.agent_media.clients.errors import (
    CannotConnectError,
    InvalidAuthError,
    InvalidResponseError,
    RateLimitedError,
    ResponseTooLargeError,
)
from custom_components.agent_media.clients.tmdb import (
    MediaMatch,
    TMDBClient,
    is_read_access_token,
    tmdb_language,
)
from custom_components.agent_media.const import MAX_TITLE_LENGTH, MAX_TMDB_RESULTS
from homeassistant.helpers.aiohttp_client import async_get_clientsession

from .rig._server import RecordedSleep

if TYPE_CHECKING:
    from homeassistant.core import HomeAssistant

    from .rig.tmdb_server import TMDBServer


def make_client(
    hass: HomeAssistant,
    server: TMDBServer,
    key: str | None = None,
    *,
    retry: RetryPolicy = NO_RETRY,
    **kwargs: Any,
) -> TMDBClient:
    return TMDBClient(
        async_get_clientsession(hass),
        server.api_key if key is None else key,
        base_url=server.base_url,
        retry=retry,
        **kwargs,
    )


def test_credential_detection(hass: HomeAssistant) -> None:
    assert not is_read_access_token("0123456789abcdef0123456789ABCDEF")
    assert is_read_access_token("eyJhbGciOiJIUzI1NiJ9.eyJhdWQiOiJ4In0.c2ln")
    assert is_read_access_token("  eyJhbGciOiJIUzI1NiJ9.e30.c2ln\n")
    assert not is_read_access_token("not-a-key")  # unknown shapes go as a v3 key, TMDB will say 401


async def test_v3_key_goes_in_the_query(hass: HomeAssistant, tmdb_server: TMDBServer) -> None:
    client = make_client(hass, tmdb_server, f"  {tmdb_server.api_key} ")
    assert not client.uses_bearer_token
    await client.async_validate()
    request = tmdb_server.requests[-1]
    assert request["path"] == "/3/configuration"
    assert request["query"]["api_key"] == tmdb_server.api_key
    assert request["authorization"] is None


async def test_read_token_goes_in_the_header(hass: HomeAssistant, tmdb_server: TMDBServer) -> None:
    client = make_client(hass, tmdb_server, tmdb_server.read_token)
    assert client.uses_bearer_token
    await client.async_validate()
    request = tmdb_server.requests[-1]
    assert request["authorization"] == f"Bearer {tmdb_server.read_token}"
    assert "api_key" not in request["query"]


@pytest.mark.parametrize("key", ["0" * 32, "eyJhbGciOiJIUzI1NiJ9.e30.wrong"])
async def test_wrong_credential_is_invalid_auth(
    hass: HomeAssistant, tmdb_server: TMDBServer, key: str
) -> None:
    with pytest.raises(InvalidAuthError) as caught:
        await make_client(hass, tmdb_server, key).async_validate()
    assert caught.value.service == "tmdb"
    assert key not in str(caught.value)


async def test_search_movie(hass: HomeAssistant, tmdb_server: TMDBServer) -> None:
    matches = await make_client(hass, tmdb_server).async_search("sintel", year=2010, media_type="movie")
    assert matches == [
        MediaMatch(
            title="Sintel",
            year=2010,
            tmdb_id=45745,
            imdb_id=None,
            media_type="movie",
            original_title="Sintel",
            popularity=9.8,
            poster_path="/sintel.png",
        )
    ]
    request = tmdb_server.requests[-1]
    assert request["path"] == "/3/search/movie"
    assert request["query"]["query"] == "sintel"
    assert request["query"]["year"] == "2010"
    assert request["query"]["include_adult"] == "false"


async def test_search_movie_wrong_year_finds_nothing(hass: HomeAssistant, tmdb_server: TMDBServer) -> None:
    assert await make_client(hass, tmdb_server).async_search("Sintel", year=1990, media_type="movie") == []


async def test_search_tv(hass: HomeAssistant, tmdb_server: TMDBServer) -> None:
    matches = await make_client(hass, tmdb_server).async_search("Pioneer One", year=2010, media_type="tv")
    assert [(m.title, m.year, m.media_type) for m in matches] == [("Pioneer One", 2010, "tv")]
    request = tmdb_server.requests[-1]
    assert request["path"] == "/3/search/tv"
    assert request["query"]["first_air_date_year"] == "2010"


async def test_search_multi_skips_people(hass: HomeAssistant, tmdb_server: TMDBServer) -> None:
    tmdb_server.add_result("tv", 900002, "The General Show", "1955-01-01")  # synthetic
    matches = await make_client(hass, tmdb_server).async_search("The General")
    assert tmdb_server.requests[-1]["path"] == "/3/search/multi"
    assert [(m.title, m.media_type) for m in matches] == [
        ("The General", "movie"),
        ("The General Show", "tv"),
    ]


async def test_search_multi_year_keeps_close_matches(hass: HomeAssistant, tmdb_server: TMDBServer) -> None:
    tmdb_server.add_result("tv", 900003, "The General Show", "1955-01-01")  # synthetic
    client = make_client(hass, tmdb_server)
    assert [m.year for m in await client.async_search("The General", year=1927)] == [1926]
    # A year that matches nothing keeps everything rather than answering with nothing.
    assert len(await client.async_search("The General", year=1990)) == 2


async def test_identify_movie_with_imdb_id(hass: HomeAssistant, tmdb_server: TMDBServer) -> None:
    match = await make_client(hass, tmdb_server).async_identify(
        "Big Buck Bunny", year=2008, media_type="movie"
    )
    assert match is not None
    assert match.as_dict() == {
        "title": "Big Buck Bunny",
        "year": 2008,
        "imdb_id": "tt1254207",
        "tmdb_id": 10378,
        "media_type": "movie",
        "poster_path": "/big-buck-bunny.png",
    }
    assert tmdb_server.requests[-1]["path"] == "/3/movie/10378/external_ids"
    json.dumps(match.as_dict())  # JSON-safe


@pytest.mark.parametrize(
    "poster_path",
    [
        "https://example.com/a.jpg",  # another host
        "/../../etc/passwd.jpg",
        "/a/b.jpg",  # a folder
        "/poster.svg",  # not a picture format we show
        "/" + "a" * 80 + ".jpg",
        "/poster.jpg?x=1",
        12,
    ],
)
async def test_poster_paths_of_other_shapes_are_dropped(
    hass: HomeAssistant, tmdb_server: TMDBServer, poster_path: Any
) -> None:
    tmdb_server.add_result("movie", 990010, "Elephants Dream Redux", "2031-01-01")
    tmdb_server.set_poster_path("movie", 990010, poster_path)
    [match] = await make_client(hass, tmdb_server).async_search("Elephants Dream Redux", media_type="movie")
    assert match.poster_path is None


async def test_poster_url_uses_the_configured_image_base(
    hass: HomeAssistant, tmdb_server: TMDBServer
) -> None:
    client = make_client(hass, tmdb_server)
    assert await client.async_poster_url("/sintel.png") == f"{tmdb_server.root_url}/t/p/w342/sintel.png"
    assert await client.async_poster_url("/sintel.png", "w92") == f"{tmdb_server.root_url}/t/p/w92/sintel.png"
    # /configuration was asked once: the image base is kept.
    assert [request["path"] for request in tmdb_server.requests] == ["/3/configuration"]


async def test_poster_url_falls_back_to_tmdb_s_image_base(
    hass: HomeAssistant, tmdb_server: TMDBServer
) -> None:
    client = make_client(hass, tmdb_server)
    tmdb_server.fail_next("401")
    assert await client.async_poster_url("/sintel.png") == "https://image.tmdb.org/t/p/w342/sintel.png"
    # Asked again next time, and kept once it answers.
    assert await client.async_poster_url("/sintel.png") == f"{tmdb_server.root_url}/t/p/w342/sintel.png"


async def test_identify_without_type(hass: HomeAssistant, tmdb_server: TMDBServer) -> None:
    match = await make_client(hass, tmdb_server).async_identify("Night of the Living Dead")
    assert match is not None
    assert (match.tmdb_id, match.imdb_id, match.year) == (10331, "tt0063350", 1968)


async def test_identify_show(hass: HomeAssistant, tmdb_server: TMDBServer) -> None:
    match = await make_client(hass, tmdb_server).async_identify("Pioneer One", media_type="tv")
    assert match is not None
    assert (match.media_type, match.imdb_id) == ("tv", "tt9000001")
    assert tmdb_server.requests[-1]["path"] == "/3/tv/900001/external_ids"


async def test_identify_by_original_title(hass: HomeAssistant, tmdb_server: TMDBServer) -> None:
    match = await make_client(hass, tmdb_server).async_identify("Nosferatu, eine Symphonie des Grauens")
    assert match is not None
    assert (match.title, match.original_title, match.imdb_id) == (
        "Nosferatu",
        "Nosferatu, eine Symphonie des Grauens",
        "tt0013442",
    )


async def test_identify_prefers_the_year_then_popularity(
    hass: HomeAssistant, tmdb_server: TMDBServer
) -> None:
    # A synthetic, more popular namesake listed after the real one.
    tmdb_server.add_result("movie", 990001, "Sintel", "2031-05-01", imdb_id="tt9900001", popularity=99.0)
    tmdb_server.add_result(
        "movie", 990002, "Sintel Returns", "2010-01-01", imdb_id="tt9900002", popularity=500.0
    )
    client = make_client(hass, tmdb_server)
    with_year = await client.async_identify("Sintel", year=2010, media_type="movie")
    assert with_year is not None
    assert with_year.tmdb_id == 45745  # exact title and year beat popularity
    without_year = await client.async_identify("Sintel", media_type="movie")
    assert without_year is not None
    assert without_year.tmdb_id == 990001  # exact title, then the more popular


async def test_identify_without_imdb_id(hass: HomeAssistant, tmdb_server: TMDBServer) -> None:
    tmdb_server.add_result("movie", 990003, "Elephants Dream Remix", "2006-05-05", imdb_id=None)  # synthetic
    match = await make_client(hass, tmdb_server).async_identify("Elephants Dream Remix", media_type="movie")
    assert match is not None
    assert (match.tmdb_id, match.imdb_id) == (990003, None)


async def test_identify_unknown_title(hass: HomeAssistant, tmdb_server: TMDBServer) -> None:
    assert await make_client(hass, tmdb_server).async_identify("No Such Film At All") is None


# --- failures -------------------------------------------------------------------------------------


async def test_scripted_401_is_invalid_auth(hass: HomeAssistant, tmdb_server: TMDBServer) -> None:
    tmdb_server.fail_next("401")
    with pytest.raises(InvalidAuthError):
        await make_client(hass, tmdb_server).async_search("Sintel")


async def test_html_page_is_invalid_response(hass: HomeAssistant, tmdb_server: TMDBServer) -> None:
    tmdb_server.fail_next("html")
    with pytest.raises(InvalidResponseError) as caught:
        await make_client(hass, tmdb_server).async_search("Sintel")
    assert "text/html" in caught.value.detail


async def test_json_that_is_not_an_object(hass: HomeAssistant, tmdb_server: TMDBServer) -> None:
    tmdb_server.fail_next("bad_shape")
    with pytest.raises(InvalidResponseError):
        await make_client(hass, tmdb_server).async_validate()


async def test_server_error_is_cannot_connect(hass: HomeAssistant, tmdb_server: TMDBServer) -> None:
    tmdb_server.fail_next("500")
    with pytest.raises(CannotConnectError) as caught:
        await make_client(hass, tmdb_server).async_identify("Sintel")
    assert not isinstance(caught.value, RateLimitedError)
    assert "500" in caught.value.detail


async def test_429_is_rate_limited(hass: HomeAssistant, tmdb_server: TMDBServer) -> None:
    tmdb_server.fail_next("429")
    client = make_client(hass, tmdb_server)
    with pytest.raises(RateLimitedError) as caught:
        await client.async_search("Sintel")
    assert "retry after 1 s" in caught.value.detail
    assert await client.async_search("Sintel")  # one-off: the next call works


async def test_slow_server_times_out(hass: HomeAssistant, tmdb_server: TMDBServer) -> None:
    tmdb_server.fail_next("slow")
    with pytest.raises(CannotConnectError) as caught:
        await make_client(hass, tmdb_server, timeout=0.3).async_search("Sintel")
    assert caught.value.detail == "timed out"


async def test_unreachable_is_cannot_connect(hass: HomeAssistant, socket_enabled: None) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    client = TMDBClient(async_get_clientsession(hass), "0" * 32, base_url=f"http://127.0.0.1:{port}/3")
    with pytest.raises(CannotConnectError):
        await client.async_validate()


# --- language ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        ("fr", "fr"),
        ("pt-BR", "pt-BR"),
        ("en_us", "en-US"),
        ("zh-Hans", "zh"),
        ("DE", "de"),
        ("", None),
        (None, None),
        ("french", None),
    ],
)
def test_tmdb_language(language: str | None, expected: str | None) -> None:
    assert tmdb_language(language) == expected


async def test_identify_in_the_users_language(hass: HomeAssistant, tmdb_server: TMDBServer) -> None:
    match = await make_client(hass, tmdb_server).async_identify(
        "Night of the Living Dead", year=1968, media_type="movie", language="fr"
    )
    assert match is not None
    # Spoken in French; the original title is what release names carry.
    assert (match.title, match.original_title) == ("La Nuit des morts-vivants", "Night of the Living Dead")
    assert match.imdb_id == "tt0063350"
    search = next(r for r in tmdb_server.requests if r["path"] == "/3/search/movie")
    assert search["query"]["language"] == "fr"


async def test_identify_by_a_translated_title(hass: HomeAssistant, tmdb_server: TMDBServer) -> None:
    match = await make_client(hass, tmdb_server).async_identify("La nuit des morts vivants", language="fr-FR")
    assert match is not None
    assert (match.tmdb_id, match.title, match.original_title) == (
        10331,
        "La Nuit des morts-vivants",
        "Night of the Living Dead",
    )
    assert tmdb_server.requests[0]["query"]["language"] == "fr-FR"


async def test_no_language_sends_none(hass: HomeAssistant, tmdb_server: TMDBServer) -> None:
    match = await make_client(hass, tmdb_server).async_identify(
        "Night of the Living Dead", language="klingon"
    )
    assert match is not None
    assert match.title == "Night of the Living Dead"
    assert "language" not in tmdb_server.requests[0]["query"]


# --- bounds, retries and the cache ----------------------------------------------------------------------


async def test_results_and_titles_are_bounded(hass: HomeAssistant, tmdb_server: TMDBServer) -> None:
    for n in range(MAX_TMDB_RESULTS + 10):
        tmdb_server.add_result("movie", 980000 + n, f"Sintel Fan Film {n}", "2011-01-01")  # synthetic
    matches = await make_client(hass, tmdb_server).async_search("Sintel", media_type="movie")
    assert len(matches) == MAX_TMDB_RESULTS
    tmdb_server.add_result("movie", 979998, "Tears " + "long " * 500, "2011-01-01", original="x" * 5000)
    (long_one,) = await make_client(hass, tmdb_server).async_search("Tears long", media_type="movie")
    assert len(long_one.title) == MAX_TITLE_LENGTH
    assert len(long_one.original_title) == MAX_TITLE_LENGTH


async def test_imdb_id_must_look_like_one(hass: HomeAssistant, tmdb_server: TMDBServer) -> None:
    tmdb_server.add_result("movie", 990004, "Elephants Dream Redux", "2007-01-01", imdb_id="<script>")
    match = await make_client(hass, tmdb_server).async_identify("Elephants Dream Redux", media_type="movie")
    assert match is not None
    assert match.imdb_id is None


async def test_oversized_answer_is_refused(hass: HomeAssistant, tmdb_server: TMDBServer) -> None:
    tmdb_server.fail_next("huge")
    with pytest.raises(ResponseTooLargeError):
        await make_client(hass, tmdb_server).async_search("Sintel")


async def test_rate_limit_is_retried_after_retry_after(hass: HomeAssistant, tmdb_server: TMDBServer) -> None:
    sleep = RecordedSleep()
    tmdb_server.fail_next("429", times=2)
    match = await make_client(hass, tmdb_server, retry=RetryPolicy(sleep=sleep)).async_identify("Sintel")
    assert match is not None
    assert match.imdb_id == "tt1727587"
    assert sleep.waits == [1.0, 1.0]
    assert [r["path"] for r in tmdb_server.requests] == ["/3/search/multi"] * 3 + [
        "/3/movie/45745/external_ids"
    ]


class Clock:
    def __init__(self) -> None:
        self.now = 50.0

    def __call__(self) -> float:
        return self.now


async def test_identify_is_answered_from_the_cache(hass: HomeAssistant, tmdb_server: TMDBServer) -> None:
    clock = Clock()
    client = make_client(hass, tmdb_server, clock=clock)
    first = await client.async_identify("Night of the Living Dead", media_type="movie")
    assert first is not None
    assert len(tmdb_server.requests) == 2  # search, external ids
    assert await client.async_identify("Night of the Living Dead", media_type="movie") == first
    assert len(tmdb_server.requests) == 2
    # Another language is another search, but the IMDb id is known already.
    french = await client.async_identify("Night of the Living Dead", media_type="movie", language="fr")
    assert french is not None
    assert (french.title, french.imdb_id) == ("La Nuit des morts-vivants", first.imdb_id)
    assert len(tmdb_server.requests) == 3
    clock.now += 600
    await client.async_identify("Night of the Living Dead", media_type="movie")
    assert len(tmdb_server.requests) == 5
