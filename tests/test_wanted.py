"""The wanted list and followed shows end to end: voice, actions, the model, the scheduler, restarts."""

from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING, Any

import pytest
from pytest_homeassistant_custom_component.common import MockConfigEntry, async_fire_time_changed
import voluptuous as vol

from custom_components.agent_media.clients.qbittorrent import QBittorrentClient
from custom_components.agent_media.const import (
    DOMAIN,
    FOLLOW_CHECK_INTERVAL,
    WANTED_CHECK_INTERVAL,
)
from homeassistant.exceptions import ServiceValidationError
from homeassistant.util import dt as dt_util

from .helpers import torrents_in_qbittorrent, wait_until
from .rig.knaben_server import _hit, movie_hits, show_hits, synthetic_hash
from .rig.torrents import make_local_torrent
from .test_conversation import converse, speech, tool_results

if TYPE_CHECKING:
    from freezegun.api import FrozenDateTimeFactory

    from homeassistant.core import HomeAssistant

    from .rig.knaben_server import KnabenServer
    from .rig.llm_server import ScriptedLLMServer
    from .rig.qbittorrent import QBittorrentInstance
    from .rig.tmdb_server import TMDBServer

pytestmark = pytest.mark.usefixtures("core_setup")

WANTED_SENSOR = "sensor.agent_media_wanted_titles"
FOLLOWED_SENSOR = "sensor.agent_media_followed_shows"
PIONEER_ID = 900001
# The schedule's clock is frozen and moved by the test; the event loop's is not, so what waits on the loop (a
# file list qBittorrent gives a moment later, a slow body) waits real time instead of forever.
SCHEDULE_CLOCK = pytest.mark.freeze_time(ignore=["asyncio"])


def _release(kind: str, title: str = "Night of the Living Dead", year: int = 1968) -> dict[str, Any]:
    return next(
        hit
        for hit in movie_hits(title, year)
        if hit["hash"].lower() == synthetic_hash(f"{title} {year} {kind}")
    )


def _episode(number: int) -> dict[str, Any]:
    """A good release of Pioneer One S01E0n (hash and magnet of its own)."""
    info_hash = synthetic_hash(f"pioneer s01e{number:02d} 1080p")
    name = f"Pioneer.One.S01E{number:02d}.1080p.WEB.x264-VODO"
    return show_hits()[0] | {
        "title": name,
        "hash": info_hash,
        "magnetUrl": f"magnet:?xt=urn:btih:{info_hash}&dn={name}",
    }


async def _ask(hass: HomeAssistant, entry: MockConfigEntry, text: str) -> str:
    return speech(await converse(hass, entry, text))


def _count(hass: HomeAssistant, entity_id: str) -> str:
    state = hass.states.get(entity_id)
    assert state is not None
    return state.state


async def test_a_wanted_title_is_added_when_a_release_appears(
    hass: HomeAssistant,
    local_entry: MockConfigEntry,
    knaben_server: KnabenServer,
    qbittorrent: QBittorrentInstance,
    llm_server: ScriptedLLMServer,
) -> None:
    knaben_server.set_hits([_release("cam")])
    answer = await _ask(hass, local_entry, "Get Night of the Living Dead when it's out")
    assert answer == "I'll download Night of the Living Dead (1968) as soon as it's out."
    assert _count(hass, WANTED_SENSOR) == "1"
    state = hass.states.get(WANTED_SENSOR)
    assert state is not None
    assert state.attributes["titles"] == ["Night of the Living Dead (1968)"]
    assert await _ask(hass, local_entry, "What am I waiting for?") == (
        "You're waiting for Night of the Living Dead (1968)."
    )

    # A good release appears; the next round of the scheduler finds the title due and adds it.
    knaben_server.set_hits([_release("1080p"), _release("cam")])
    local_entry.runtime_data.memory.wanted.check_all_now()
    async_fire_time_changed(hass, dt_util.utcnow() + timedelta(seconds=WANTED_CHECK_INTERVAL + 1))
    good = synthetic_hash("Night of the Living Dead 1968 1080p")
    await wait_until(
        lambda: torrents_in_qbittorrent(hass, qbittorrent), lambda held: good in held, what="the add"
    )
    await wait_until(lambda: _count(hass, WANTED_SENSOR), lambda count: count == "0", what="an empty list")
    news = await _ask(hass, local_entry, "What's new?")
    assert "Night of the Living Dead (1968) is out and downloading" in news
    assert await _ask(hass, local_entry, "What am I waiting for?") == "You're not waiting for anything."
    assert llm_server.requests == []  # every sentence was answered locally


async def test_actions_want_list_check_and_forget(
    hass: HomeAssistant,
    setup_integration: MockConfigEntry,
    knaben_server: KnabenServer,
    qbittorrent: QBittorrentInstance,
) -> None:
    knaben_server.set_hits([_release("cam", "Nosferatu", 1922)])
    wanted = await hass.services.async_call(
        DOMAIN, "want", {"title": "Nosferatu", "year": 1922}, blocking=True, return_response=True
    )
    assert wanted is not None
    assert (wanted["title"], wanted["added"], wanted["reason"]) == (
        "Nosferatu (1922)",
        False,
        "no_acceptable",
    )
    listed = await hass.services.async_call(DOMAIN, "list_wanted", {}, blocking=True, return_response=True)
    assert listed is not None
    assert [item["key"] for item in listed["wanted"]] == ["movie:653"]
    assert listed["followed"] == []

    knaben_server.set_hits([_release("720p", "Nosferatu", 1922)])
    checked = await hass.services.async_call(DOMAIN, "check_wanted", {}, blocking=True, return_response=True)
    assert checked == {"added": ["Nosferatu (1922)"]}
    assert synthetic_hash("Nosferatu 1922 720p") in await torrents_in_qbittorrent(hass, qbittorrent)
    assert setup_integration.runtime_data.memory.wanted.titles() == {}

    knaben_server.set_hits([])
    await hass.services.async_call(DOMAIN, "want", {"title": "Sintel"}, blocking=True)
    forgotten = await hass.services.async_call(
        DOMAIN, "forget_wanted", {"title": "movie:45745"}, blocking=True, return_response=True
    )
    assert forgotten == {"forgotten": ["Sintel (2010)"]}
    with pytest.raises(ServiceValidationError) as err:
        await hass.services.async_call(DOMAIN, "forget_wanted", {"title": "Sintel"}, blocking=True)
    assert err.value.translation_key == "not_wanted"
    with pytest.raises(ServiceValidationError) as err:
        await hass.services.async_call(DOMAIN, "want", {"title": "No Such Film At All"}, blocking=True)
    assert err.value.translation_key == "media_not_found"
    with pytest.raises(ServiceValidationError) as err:
        await hass.services.async_call(DOMAIN, "unfollow_show", {"title": "Pioneer One"}, blocking=True)
    assert err.value.translation_key == "not_following"
    for bad in ({"title": "Sintel", "season": "two"}, {"title": "Sintel", "year": "soon"}, {"title": ""}):
        with pytest.raises(vol.Invalid):
            await hass.services.async_call(DOMAIN, "want", bad, blocking=True)


async def test_an_aired_episode_of_a_followed_show_is_added_and_following_survives_a_restart(
    hass: HomeAssistant,
    local_entry: MockConfigEntry,
    knaben_server: KnabenServer,
    tmdb_server: TMDBServer,
    qbittorrent: QBittorrentInstance,
) -> None:
    today = dt_util.utcnow().date()
    tmdb_server.set_air_dates(
        PIONEER_ID, {1: [today - timedelta(days=14), today - timedelta(days=7), today + timedelta(days=7)]}
    )
    knaben_server.set_hits([_episode(1), _episode(2)])
    answer = await _ask(hass, local_entry, "Follow Pioneer One")
    assert answer == "I'm following Pioneer One (2010): new episodes will download by themselves."
    aired = {synthetic_hash("pioneer s01e01 1080p"), synthetic_hash("pioneer s01e02 1080p")}
    await wait_until(
        lambda: torrents_in_qbittorrent(hass, qbittorrent),
        lambda held: aired <= set(held),
        what="both episodes",
    )
    wanted = local_entry.runtime_data.memory.wanted
    await wait_until(
        lambda: wanted.shows()[f"tv:{PIONEER_ID}"]["fetched"], lambda tags: len(tags) == 2, what="tags"
    )
    show = wanted.shows()[f"tv:{PIONEER_ID}"]
    assert show["fetched"] == ["s01e01", "s01e02"]
    next_check = dt_util.parse_datetime(show["next_check"])
    assert next_check is not None
    assert next_check <= dt_util.utcnow() + timedelta(seconds=FOLLOW_CHECK_INTERVAL)
    assert _count(hass, FOLLOWED_SENSOR) == "1"
    assert "Pioneer One (2010) S01E02 is out and downloading" in await _ask(hass, local_entry, "What's new?")

    # Restarts keep the show and what was fetched: a second round adds nothing again.
    assert await hass.config_entries.async_reload(local_entry.entry_id)
    await hass.async_block_till_done()
    assert local_entry.runtime_data.memory.wanted.shows()[f"tv:{PIONEER_ID}"]["fetched"] == [
        "s01e01",
        "s01e02",
    ]
    assert await local_entry.runtime_data.wanted.async_check() == []
    assert _count(hass, FOLLOWED_SENSOR) == "1"
    assert (
        await _ask(hass, local_entry, "Stop following Pioneer One")
        == "I've stopped following Pioneer One (2010)."
    )
    assert _count(hass, FOLLOWED_SENSOR) == "0"
    assert await _ask(hass, local_entry, "Unfollow Pioneer One") == "You're not following Pioneer One."


async def test_a_whole_aired_season_comes_as_a_pack(
    hass: HomeAssistant,
    setup_integration: MockConfigEntry,
    knaben_server: KnabenServer,
    tmdb_server: TMDBServer,
    qbittorrent: QBittorrentInstance,
) -> None:
    aired = dt_util.utcnow().date() - timedelta(days=30)
    tmdb_server.set_air_dates(PIONEER_ID, {1: [aired, aired]})
    knaben_server.set_hits(show_hits())
    followed = await hass.services.async_call(
        DOMAIN, "follow_show", {"title": "Pioneer One", "season": 1}, blocking=True, return_response=True
    )
    assert followed == {"title": "Pioneer One", "tmdb_id": PIONEER_ID, "from_season": 1}
    await setup_integration.runtime_data.wanted.async_check()  # the round follow_show started, or this one
    pack = synthetic_hash("pioneer s01 pack")
    await wait_until(
        lambda: torrents_in_qbittorrent(hass, qbittorrent), lambda held: pack in held, what="the pack"
    )
    assert setup_integration.runtime_data.memory.wanted.shows()[f"tv:{PIONEER_ID}"]["fetched"] == ["s01"]


async def test_the_models_tool_keeps_a_title_wanted(
    hass: HomeAssistant,
    setup_integration: MockConfigEntry,
    knaben_server: KnabenServer,
    llm_server: ScriptedLLMServer,
) -> None:
    knaben_server.set_hits([_release("cam", "Tears of Steel", 2012)])
    llm_server.queue_tool_calls([("download_media", {"media_title": "Tears of Steel", "wait": True})])
    llm_server.queue_text("I'll get Tears of Steel once a good copy is out.")
    assert speech(
        await converse(hass, setup_integration, "Grab Tears of Steel whenever it's out")
    ).startswith("I'll")
    result = tool_results(llm_server.requests[1])[-1]
    assert (result["decision"], result["title"]) == ("wanted", "Tears of Steel (2012)")
    llm_server.queue_tool_calls([("forget_wanted", {"title": "Tears of Steel"})])
    llm_server.queue_text("Forgotten.")
    await converse(hass, setup_integration, "Actually forget about Tears of Steel")
    assert "forget_wanted" in {tool["function"]["name"] for tool in llm_server.requests[2]["tools"]}
    assert setup_integration.runtime_data.memory.wanted.titles() == {}


# Shows in the public domain, besides Pioneer One (ids synthetic, as in the TMDB stand-in).
MORE_SHOWS = {900002: ("Flash Gordon", "1954-10-01"), 900003: ("One Step Beyond", "1959-01-20")}


async def _round(hass: HomeAssistant, freezer: FrozenDateTimeFactory, seconds: float) -> None:
    """Let `seconds` pass, then let the scheduler's round (and anything else that came due) finish."""
    freezer.tick(timedelta(seconds=seconds))
    async_fire_time_changed(hass)
    await hass.async_block_till_done(wait_background_tasks=True)


async def _long_sessions(hass: HomeAssistant, qbittorrent: QBittorrentInstance) -> None:
    """Let qBittorrent's Web UI sessions outlast the hours the test's clock jumps ahead of the real one.

    qBittorrent 5 gives its session cookie an expiry (an hour by default), which the client judges by the
    test's clock: without this it would stop sending the cookie after the first hour.
    """
    await hass.async_add_executor_job(
        lambda: qbittorrent.api().app_set_preferences({"web_ui_session_timeout": 24 * 3600})
    )


def _list_files_late(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make qBittorrent's file list of each torrent empty the first time it is asked for (as under load)."""
    real = QBittorrentClient.async_files
    asked: set[str] = set()

    async def listed_late(client: QBittorrentClient, info_hash: str) -> list[dict[str, Any]]:
        if info_hash not in asked:
            asked.add(info_hash)
            return []
        return await real(client, info_hash)

    monkeypatch.setattr(QBittorrentClient, "async_files", listed_late)


def _searches(knaben_server: KnabenServer) -> dict[str, int]:
    """How many searches Knaben received, by query (Knaben is asked the title alone, even for episodes)."""
    counts: dict[str, int] = {}
    for body in knaben_server.requests:
        counts[body["query"]] = counts.get(body["query"], 0) + 1
    return counts


@SCHEDULE_CLOCK
@pytest.mark.parametrize("files_listed_late", [False, True])
async def test_followed_shows_are_searched_every_six_hours_whatever_is_missing(
    hass: HomeAssistant,
    setup_integration: MockConfigEntry,
    knaben_server: KnabenServer,
    tmdb_server: TMDBServer,
    qbittorrent: QBittorrentInstance,
    freezer: FrozenDateTimeFactory,
    monkeypatch: pytest.MonkeyPatch,
    files_listed_late: bool,
) -> None:
    """Three followed shows with twelve aired episodes nobody has: one check each per 6 hours, not a storm.

    Each check searches at most MAX_SHOW_SEARCHES episodes, and the next starts where it stopped, so the
    twelfth episode gets its turn too. A loaded qBittorrent lists a new .torrent's files a moment after the
    add: the add then waits for them on the loop's clock, not the frozen one.
    """
    if files_listed_late:
        _list_files_late(monkeypatch)
    await _long_sessions(hass, qbittorrent)
    today = dt_util.utcnow().date()
    season = [today - timedelta(days=7 * (12 - week)) for week in range(12)] + [today + timedelta(days=7)]
    tmdb_server.set_air_dates(PIONEER_ID, {1: season})
    for tmdb_id, (title, first_aired) in MORE_SHOWS.items():
        tmdb_server.add_result("tv", tmdb_id, title, first_aired, imdb_id=f"tt{tmdb_id + 9_000_000}")
        tmdb_server.set_air_dates(tmdb_id, {1: season})
    knaben_server.set_hits([])
    for title in ("Pioneer One", *(title for title, _aired in MORE_SHOWS.values())):
        await hass.services.async_call(DOMAIN, "follow_show", {"title": title, "season": 1}, blocking=True)
        await hass.async_block_till_done(wait_background_tasks=True)
    for _round_number in range(6):  # the scheduler's rounds of the next hour
        await _round(hass, freezer, WANTED_CHECK_INTERVAL)

    assert _searches(knaben_server) == {"Pioneer One": 10, "Flash Gordon": 10, "One Step Beyond": 10}

    # The twelfth episode is out now; the next check (6 hours after the first) starts at the eleventh.
    episode_12 = make_local_torrent(qbittorrent.downloads_dir, "Pioneer.One.S01E12.1080p.WEB.x264-VODO.mkv")
    link = knaben_server.serve_torrent(episode_12.info_hash, episode_12.torrent_bytes)
    release = _hit(episode_12.name, label="pioneer s01e12", size=1_400_000_000, seeders=80, peers=3)
    knaben_server.set_hits(
        [release | {"hash": None, "magnetUrl": None, "link": link, "categoryId": [2000000]}]
    )
    rounds_left = (FOLLOW_CHECK_INTERVAL - 6 * WANTED_CHECK_INTERVAL) // WANTED_CHECK_INTERVAL
    for _round_number in range(rounds_left):
        await _round(hass, freezer, WANTED_CHECK_INTERVAL)

    assert _searches(knaben_server) == {"Pioneer One": 20, "Flash Gordon": 20, "One Step Beyond": 20}
    assert setup_integration.runtime_data.memory.wanted.shows()[f"tv:{PIONEER_ID}"]["fetched"] == ["s01e12"]
    assert episode_12.info_hash in await torrents_in_qbittorrent(hass, qbittorrent)


@SCHEDULE_CLOCK
async def test_a_wanted_title_is_searched_on_its_back_off(
    hass: HomeAssistant,
    setup_integration: MockConfigEntry,
    knaben_server: KnabenServer,
    qbittorrent: QBittorrentInstance,
    freezer: FrozenDateTimeFactory,
) -> None:
    """Searched when wanted, then 1 h, 2 h and 4 h later: four searches in eight hours of 10-minute rounds."""
    await _long_sessions(hass, qbittorrent)
    knaben_server.set_hits([])
    await hass.services.async_call(DOMAIN, "want", {"title": "Nosferatu", "year": 1922}, blocking=True)
    per_search = len(knaben_server.requests)  # the title with its year, then without
    assert per_search >= 1
    searched_at: list[int] = []
    for minute in range(10, 8 * 60 + 1, 10):
        before = len(knaben_server.requests)
        await _round(hass, freezer, WANTED_CHECK_INTERVAL)
        if len(knaben_server.requests) > before:
            searched_at.append(minute)

    assert len(knaben_server.requests) == 4 * per_search
    assert [minute // 60 for minute in searched_at] == [1, 3, 7]  # 1 h, then 2 h, then 4 h later
