"""SearchSources: Knaben and Torznab indexers searched together, on loopback servers."""

from __future__ import annotations

import json
import logging
from typing import TYPE_CHECKING

import aiohttp

from custom_components.agent_media.clients._http import NO_RETRY
from custom_components.agent_media.clients.knaben import KnabenClient, TorrentResult
from custom_components.agent_media.clients.sources import (
    SearchOutcome,
    SearchSources,
    SourceFailure,
    merge_results,
)
from custom_components.agent_media.clients.torznab import TorznabClient
from homeassistant.helpers.aiohttp_client import async_get_clientsession

from .rig.knaben_server import synthetic_hash
from .rig.torznab_server import TorznabServer

if TYPE_CHECKING:
    import pytest

    from homeassistant.core import HomeAssistant

    from .rig.knaben_server import KnabenServer


def knaben_for(hass: HomeAssistant, server: KnabenServer, **kwargs: float) -> KnabenClient:
    return KnabenClient(async_get_clientsession(hass), base_url=server.base_url, retry=NO_RETRY, **kwargs)


def indexer_for(
    hass: HomeAssistant, server: TorznabServer, name: str = "Jackett", **kwargs: float
) -> TorznabClient:
    return TorznabClient(
        async_get_clientsession(hass), server.base_url, server.api_key, name=name, retry=NO_RETRY, **kwargs
    )


def release(title: str, label: str | None, seeders: int, source: str) -> TorrentResult:
    return TorrentResult(
        title=title,
        info_hash=synthetic_hash(label) if label else None,
        magnet=None,
        torrent_url=None if label else "https://tracker.example.org/x.torrent",
        size=1,
        seeders=seeders,
        peers=0,
        tracker=None,
        category_ids=(),
        virus_score=None,
        published=None,
        source=source,
    )


async def test_results_are_merged_by_hash(
    hass: HomeAssistant, knaben_server: KnabenServer, torznab_server: TorznabServer
) -> None:
    sources = SearchSources(knaben_for(hass, knaben_server), [indexer_for(hass, torznab_server)])
    assert sources.names == ("knaben", "Jackett")
    outcome = await sources.async_search("Big Buck Bunny 2008", media_type="movie", imdb_id="tt1254207")
    assert outcome.failures == []
    assert outcome.failure_summary is None
    assert outcome.sources == ("knaben", "Jackett")
    hashes = [result.info_hash for result in outcome.results]
    assert len(hashes) == len(set(hashes))
    # The 1080p release is on both: the record with more seeders (the indexer's, 900 against 340) stays.
    shared = next(r for r in outcome.results if r.info_hash == synthetic_hash("Big Buck Bunny 2008 1080p"))
    assert (shared.seeders, shared.source) == (900, "Jackett")
    # Each source's own releases are there, naming where they come from.
    assert {r.source for r in outcome.results} == {"knaben", "Jackett"}
    remux = next(r for r in outcome.results if "REMUX" in r.title)
    assert remux.source == "Jackett"
    assert [r.seeders for r in outcome.results] == sorted((r.seeders for r in outcome.results), reverse=True)
    # Knaben searched the text; the indexer the IMDb id.
    assert knaben_server.requests[-1]["query"] == "Big Buck Bunny 2008"
    assert torznab_server.requests[-1]["imdbid"] == "1254207"
    json.dumps(outcome.as_dict())


async def test_the_record_with_more_seeders_wins_either_way(
    hass: HomeAssistant, knaben_server: KnabenServer, torznab_server: TorznabServer
) -> None:
    sources = SearchSources(knaben_for(hass, knaben_server), [indexer_for(hass, torznab_server)])
    outcome = await sources.async_search("Sintel 2010", media_type="movie")
    shared = [r for r in outcome.results if r.info_hash == synthetic_hash("Sintel 2010 720p")]
    assert [(r.seeders, r.source) for r in shared] == [(64, "knaben")]  # the indexer has it with 10


async def test_tv_search_reaches_every_source(
    hass: HomeAssistant, knaben_server: KnabenServer, torznab_server: TorznabServer
) -> None:
    sources = SearchSources(knaben_for(hass, knaben_server), [indexer_for(hass, torznab_server)])
    outcome = await sources.async_search("Pioneer One", media_type="tv", season=1, episode=1)
    assert knaben_server.requests[-1]["categories"] == [2000000]
    assert (torznab_server.requests[-1]["season"], torznab_server.requests[-1]["ep"]) == ("1", "1")
    episode = [r for r in outcome.results if r.info_hash == synthetic_hash("pioneer s01e01 1080p")]
    assert [(r.seeders, r.source) for r in episode] == [(210, "knaben")]


async def test_one_source_down_the_others_answer(
    hass: HomeAssistant, knaben_server: KnabenServer, torznab_server: TorznabServer
) -> None:
    sources = SearchSources(knaben_for(hass, knaben_server), [indexer_for(hass, torznab_server)])
    torznab_server.fail_next("500")
    outcome = await sources.async_search("Sintel 2010", media_type="movie")
    assert outcome.results
    assert {r.source for r in outcome.results} == {"knaben"}
    assert outcome.failures == [SourceFailure("Jackett", "cannot_connect", "server error (HTTP 500)")]
    assert outcome.failure_summary == "Jackett: server error (HTTP 500)"
    assert outcome.as_dict()["failures"] == [
        {"source": "Jackett", "code": "cannot_connect", "detail": "server error (HTTP 500)"}
    ]


async def test_a_slow_source_is_cut_at_its_own_timeout(
    hass: HomeAssistant, knaben_server: KnabenServer, torznab_server: TorznabServer
) -> None:
    knaben_server.fail_next("slow")  # would answer after a minute
    sources = SearchSources(
        knaben_for(hass, knaben_server, timeout=0.3), [indexer_for(hass, torznab_server, timeout=15)]
    )
    outcome = await sources.async_search("Sintel", media_type="movie")
    assert outcome.failures == [SourceFailure("knaben", "timed_out", "timed out")]
    assert {r.source for r in outcome.results} == {"Jackett"}


async def test_every_source_down(
    hass: HomeAssistant, knaben_server: KnabenServer, torznab_server: TorznabServer
) -> None:
    knaben_server.fail_next("html")
    wrong_key = TorznabClient(
        async_get_clientsession(hass), torznab_server.base_url, "0" * 32, name="Prowlarr"
    )
    sources = SearchSources(knaben_for(hass, knaben_server), [wrong_key])
    outcome = await sources.async_search("Sintel")
    assert outcome.results == []
    assert [(f.source, f.code) for f in outcome.failures] == [
        ("knaben", "bad_response"),
        ("Prowlarr", "invalid_auth"),
    ]
    assert outcome.failure_summary == (
        "knaben: answered with text/html, not JSON; "
        "Prowlarr: credentials refused (Torznab error 100: Invalid API Key)"
    )


async def test_several_indexers_in_parallel(
    hass: HomeAssistant, knaben_server: KnabenServer, torznab_server: TorznabServer
) -> None:
    async with TorznabServer(title="Prowlarr", indexer="2") as second:
        sources = SearchSources(
            knaben_for(hass, knaben_server),
            [indexer_for(hass, torznab_server), indexer_for(hass, second, name="Prowlarr")],
        )
        outcome = await sources.async_search(
            "Night of the Living Dead", media_type="movie", imdb_id="tt0063350"
        )
    assert outcome.failures == []
    remastered = [r for r in outcome.results if "REMASTERED" in r.title]
    assert [r.source for r in remastered] == ["Jackett"]  # the same hash on both indexers: a tie, the first
    assert len(second.requests) == 2  # caps, movie


async def test_an_unexpected_error_is_one_failure(
    hass: HomeAssistant,
    knaben_server: KnabenServer,
    torznab_server: TorznabServer,
    caplog: pytest.LogCaptureFixture,
) -> None:
    closed = aiohttp.ClientSession()
    await closed.close()  # searching on it raises RuntimeError, none of the clients' errors
    broken = TorznabClient(closed, torznab_server.base_url, torznab_server.api_key, name="Broken")
    sources = SearchSources(knaben_for(hass, knaben_server), [broken])
    with caplog.at_level(logging.ERROR):
        outcome = await sources.async_search("Sintel")
    assert outcome.results
    assert outcome.failures == [SourceFailure("Broken", "unexpected", "unexpected error")]
    assert "Unexpected error while searching Broken" in caplog.text


async def test_no_sources_finds_nothing() -> None:
    sources = SearchSources(None)
    assert sources.names == ()
    assert await sources.async_search("Sintel") == SearchOutcome(results=[], failures=[], sources=())


async def test_without_knaben(hass: HomeAssistant, torznab_server: TorznabServer) -> None:
    outcome = await SearchSources(None, [indexer_for(hass, torznab_server)]).async_search("Sintel")
    assert outcome.sources == ("Jackett",)
    assert {r.source for r in outcome.results} == {"Jackett"}


async def test_repeated_search_comes_from_the_caches(
    hass: HomeAssistant, knaben_server: KnabenServer, torznab_server: TorznabServer
) -> None:
    sources = SearchSources(knaben_for(hass, knaben_server), [indexer_for(hass, torznab_server)])
    first = await sources.async_search("Sintel 2010", media_type="movie", imdb_id="tt1727587")
    asked = (len(knaben_server.requests), len(torznab_server.requests))
    assert await sources.async_search("Sintel 2010", media_type="movie", imdb_id="tt1727587") == first
    assert (len(knaben_server.requests), len(torznab_server.requests)) == asked


def test_merge_keeps_unhashed_and_bounds() -> None:
    merged = merge_results(
        [
            [release("A", "a", 5, "knaben"), release("B", None, 7, "knaben")],
            [release("A again", "a", 5, "Jackett"), release("B again", None, 1, "Jackett")],
            [release("A most", "a", 6, "Prowlarr")],
        ]
    )
    assert [(r.title, r.source) for r in merged] == [
        ("B", "knaben"),
        ("A most", "Prowlarr"),
        ("B again", "Jackett"),
    ]
    tie = merge_results([[release("A", "a", 5, "knaben")], [release("A again", "a", 5, "Jackett")]])
    assert [r.source for r in tie] == ["knaben"]
    many = [[release(f"R{n}", f"r{n}", n, "knaben") for n in range(50)]]
    assert [r.seeders for r in merge_results(many, max_results=3)] == [49, 48, 47]
