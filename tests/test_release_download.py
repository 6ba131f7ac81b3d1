"""download_media end to end: one call identifies, searches, ranks and adds; or asks, answered by number.

Through `conversation.async_converse` with the scripted LLM (native tool calls and the JSON-action form), the
recorded-shape TMDB and Knaben servers and a real qbittorrent-nox. Public-domain films and the
Creative-Commons series Pioneer One only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest
from pytest_homeassistant_custom_component.common import async_capture_events

from custom_components.agent_media.const import EVENT_DOWNLOAD_ADDED
from custom_components.agent_media.ranking import RankingPreferences, rank_releases
from custom_components.agent_media.requester import SYSTEM_KEY

from .helpers import torrents_in_qbittorrent
from .rig.knaben_server import _hit, synthetic_hash
from .test_conversation import (
    FORMS,
    converse,
    queue_call,
    speech,
    tool_results,
    turn_context,
)

if TYPE_CHECKING:
    from pytest_homeassistant_custom_component.common import MockConfigEntry

    from homeassistant.auth.models import User
    from homeassistant.core import HomeAssistant

    from .rig.knaben_server import KnabenServer
    from .rig.llm_server import ScriptedLLMServer
    from .rig.qbittorrent import QBittorrentInstance

pytestmark = pytest.mark.usefixtures("core_setup")  # the conversation dependency needs core

TV = {"category": "TV / HD", "categoryId": [2000000, 2001000]}
GB = 1_000_000_000


def pioneer(name: str, *, size: int, seeders: int) -> dict[str, Any]:
    """A release of Pioneer One (CC BY-NC-SA web series), synthetic hash."""
    return _hit(name, label=f"release {name}", size=size, seeders=seeders, peers=3, **TV)


PIONEER_RELEASES = [
    pioneer("Pioneer.One.S02E01.1080p.WEB.x264-VODO", size=int(1.5 * GB), seeders=300),
    pioneer("Pioneer.One.S02E02.1080p.WEB.x264-VODO", size=int(1.4 * GB), seeders=280),
    pioneer("Pioneer.One.S02.1080p.WEB.x264-VODO", size=12 * GB, seeders=120),
    pioneer("Pioneer.One.S01.1080p.WEB.x264-VODO", size=11 * GB, seeders=200),
    pioneer("Pioneer.One.S01E03.1080p.WEB.x264-VODO", size=int(1.3 * GB), seeders=90),
]


def movie(name: str, *, size: int, seeders: int) -> dict[str, Any]:
    return _hit(name, label=f"release {name}", size=size, seeders=seeders, peers=3)


def result_of(llm_server: ScriptedLLMServer, request: int) -> dict[str, Any]:
    """The last tool result sent back to the model in the given request."""
    return tool_results(llm_server.requests[request])[-1]


# --- one call ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("form", FORMS)
async def test_download_in_4k_takes_two_model_calls(
    hass: HomeAssistant,
    setup_integration: MockConfigEntry,
    llm_server: ScriptedLLMServer,
    knaben_server: KnabenServer,
    qbittorrent: QBittorrentInstance,
    form: str,
) -> None:
    entry = setup_integration
    added_events = async_capture_events(hass, EVENT_DOWNLOAD_ADDED)
    queue_call(
        llm_server, form, "download_media", {"media_title": "Night of the Living Dead", "quality": "4K"}
    )
    llm_server.queue_text("Night of the Living Dead (1968) in 4K is downloading.")

    result = await converse(hass, entry, "Download Night of the Living Dead in 4K")

    assert speech(result) == "Night of the Living Dead (1968) in 4K is downloading."
    assert len(llm_server.requests) == 2
    assert llm_server.pending == 0
    outcome = result_of(llm_server, 1)
    assert outcome["status"] == "ok"
    assert outcome["decision"] == "downloading"
    assert outcome["media"]["tmdb_id"] == 10331
    assert outcome["media"]["year"] == 1968
    assert "2160p" in outcome["release"]
    assert outcome["why"].startswith("2160p BluRay HDR")
    expected = synthetic_hash("Night of the Living Dead 1968 2160p")
    assert outcome["hash"] == expected
    # The right release is in the real qBittorrent, recorded with its film.
    assert expected in await torrents_in_qbittorrent(hass, qbittorrent)
    record = entry.runtime_data.memory.downloads.records()[expected]
    assert record["media"]["imdb_id"] == "tt0063350"
    assert [event.data["hash"] for event in added_events] == [expected]
    # Knaben was asked for title and year among films.
    assert knaben_server.requests[-1]["query"] == "Night of the Living Dead 1968"
    assert knaben_server.requests[-1]["categories"] == [3000000]


async def test_nothing_at_the_asked_quality_asks_then_the_2nd_one_is_added(
    hass: HomeAssistant,
    setup_integration: MockConfigEntry,
    llm_server: ScriptedLLMServer,
    qbittorrent: QBittorrentInstance,
) -> None:
    entry = setup_integration
    memory = entry.runtime_data.memory
    # Nosferatu's only 480p release has no seeders: nothing fits, so it asks.
    queue_call(llm_server, "native", "download_media", {"media_title": "Nosferatu", "quality": "480p"})
    llm_server.queue_text("There is no 480p release. Would you like 720p, 1080p or 4K?")
    first = await converse(hass, entry, "Download Nosferatu in 480p")
    assert "480p" in speech(first)

    asked = result_of(llm_server, 1)
    assert asked["status"] == "ok"
    assert asked["decision"] == "ask"
    assert "480p" in asked["question"]
    assert [option["index"] for option in asked["options"]] == [1, 2, 3]
    assert "720p" in asked["options"][0]["title"]
    assert await torrents_in_qbittorrent(hass, qbittorrent) == {}
    pending = memory.working.question(SYSTEM_KEY)
    assert pending is not None
    assert pending["media"]["tmdb_id"] == 653
    second_option = pending["options"][1]

    # A new conversation (voice), answered by number: the prompt shows the question and its options.
    queue_call(llm_server, "native", "add_torrent_by_index", {"index": 2})
    llm_server.queue_text("Downloading the 1080p one.")
    second = await converse(hass, entry, "The 2nd one")
    assert second.conversation_id != first.conversation_id
    prompt = turn_context(llm_server.requests[2])
    assert "Waiting for the user's answer to: There is no good 480p release" in prompt
    assert f'{{"n":2,"release":"{second_option["title"]}"' in prompt

    added = result_of(llm_server, 3)
    assert added["status"] == "ok"
    assert added["hash"] == second_option["info_hash"]
    assert second_option["info_hash"] in await torrents_in_qbittorrent(hass, qbittorrent)
    assert memory.downloads.records()[added["hash"]]["media"]["title"] == "Nosferatu"
    assert memory.working.question(SYSTEM_KEY) is None
    llm_server.queue_text("Nothing is waiting.")
    await converse(hass, entry, "Anything else?")
    assert "Waiting for the user's answer" not in turn_context(llm_server.requests[4])


async def test_two_equally_good_but_different_releases_ask(
    hass: HomeAssistant,
    setup_integration: MockConfigEntry,
    llm_server: ScriptedLLMServer,
    knaben_server: KnabenServer,
    qbittorrent: QBittorrentInstance,
) -> None:
    hits = [
        movie("Sintel.2010.1080p.BluRay.x264.DTS-GRPA", size=int(8.5 * GB), seeders=200),
        movie("Sintel.2010.1080p.WEB-DL.x265.DDP5.1-GRPB", size=int(4.5 * GB), seeders=180),
    ]
    ranked, _ = rank_releases(
        [{**hit, "size": hit["bytes"]} for hit in hits],
        title="Sintel",
        year=2010,
        preferences=RankingPreferences(resolution="1080p"),
    )
    assert abs(ranked[0].score - ranked[1].score) < 6  # the premise: as good as each other
    knaben_server.set_hits(hits)
    queue_call(llm_server, "native", "download_media", {"media_title": "Sintel", "year": 2010})
    llm_server.queue_text("Two releases are about as good: BluRay or the smaller WEB-DL?")

    await converse(hass, entry := setup_integration, "Download Sintel")

    asked = result_of(llm_server, 1)
    assert asked["decision"] == "ask"
    assert {option["title"] for option in asked["options"]} == {hit["title"] for hit in hits}
    assert await torrents_in_qbittorrent(hass, qbittorrent) == {}
    assert entry.runtime_data.memory.working.question(SYSTEM_KEY) is not None


# --- TV ----------------------------------------------------------------------------------------------------


async def test_season_pack(
    hass: HomeAssistant,
    setup_integration: MockConfigEntry,
    llm_server: ScriptedLLMServer,
    knaben_server: KnabenServer,
    qbittorrent: QBittorrentInstance,
) -> None:
    knaben_server.set_hits(PIONEER_RELEASES)
    queue_call(llm_server, "native", "download_media", {"media_title": "Pioneer One", "season": 2})
    llm_server.queue_text("Season 2 of Pioneer One is downloading.")

    await converse(hass, setup_integration, "Download season 2 of Pioneer One")

    outcome = result_of(llm_server, 1)
    assert outcome["decision"] == "downloading"
    assert outcome["media"]["media_type"] == "tv"
    assert outcome["release"] == "Pioneer.One.S02.1080p.WEB.x264-VODO"
    assert "season pack" in outcome["why"]
    assert synthetic_hash("release Pioneer.One.S02.1080p.WEB.x264-VODO") in await torrents_in_qbittorrent(
        hass, qbittorrent
    )
    # Shows are searched by title in Knaben's TV categories.
    assert knaben_server.requests[-1]["query"] == "Pioneer One"
    assert knaben_server.requests[-1]["categories"] == [2000000]


async def test_single_episode_and_asking_before_a_pack(
    hass: HomeAssistant,
    setup_integration: MockConfigEntry,
    llm_server: ScriptedLLMServer,
    knaben_server: KnabenServer,
    qbittorrent: QBittorrentInstance,
) -> None:
    knaben_server.set_hits(PIONEER_RELEASES)
    args = {"media_title": "Pioneer One", "media_type": "tv", "season": 2, "episode": 2}
    queue_call(llm_server, "native", "download_media", args)
    llm_server.queue_text("Episode 2 of season 2 is downloading.")
    await converse(hass, setup_integration, "Download Pioneer One season 2 episode 2")
    outcome = result_of(llm_server, 1)
    assert outcome["decision"] == "downloading"
    assert outcome["release"] == "Pioneer.One.S02E02.1080p.WEB.x264-VODO"

    # S01E05 exists only inside the season 1 pack: ask before downloading a whole season.
    queue_call(llm_server, "native", "download_media", {**args, "season": 1, "episode": 5})
    llm_server.queue_text("Only the whole season 1 holds that episode. Shall I download it?")
    await converse(hass, setup_integration, "Download Pioneer One season 1 episode 5")
    asked = result_of(llm_server, 3)
    assert asked["decision"] == "ask"
    assert asked["options"][0]["title"] == "Pioneer.One.S01.1080p.WEB.x264-VODO"
    assert set(await torrents_in_qbittorrent(hass, qbittorrent)) == {
        synthetic_hash("release Pioneer.One.S02E02.1080p.WEB.x264-VODO")
    }


# --- preferences -------------------------------------------------------------------------------------------


SINTEL_CHOICES = [
    movie("Sintel.2010.1080p.BluRay.x264.DTS-HD.MA.5.1-GRPA", size=14 * GB, seeders=900),
    movie("Sintel.2010.1080p.WEB-DL.x265.AAC-GRPB", size=int(3.2 * GB), seeders=40),
    movie("Sintel.2010.FRENCH.1080p.WEB-DL.x264.AC3-GRPC", size=int(4.1 * GB), seeders=30),
    movie("Sintel.2010.2160p.WEB-DL.x265.HDR-GRPD", size=18 * GB, seeders=300),
]


@pytest.mark.parametrize(
    ("said", "preference", "picked"),
    [
        (
            "I prefer 1080p x265 under 10 GB",
            {"resolution": "1080p", "codec": "x265", "max_size_gb": 10},
            "Sintel.2010.1080p.WEB-DL.x265.AAC-GRPB",
        ),
        (
            "French audio please, from now on",
            {"languages": "French"},
            "Sintel.2010.FRENCH.1080p.WEB-DL.x264.AC3-GRPC",
        ),
    ],
)
async def test_preferences_set_in_conversation_change_the_pick(
    hass: HomeAssistant,
    setup_integration: MockConfigEntry,
    llm_server: ScriptedLLMServer,
    knaben_server: KnabenServer,
    qbittorrent: QBittorrentInstance,
    said: str,
    hass_admin_user: User,
    preference: dict[str, Any],
    picked: str,
) -> None:
    entry = setup_integration
    # Without preferences the big BluRay wins.
    ranked, _ = rank_releases(
        [{**hit, "size": hit["bytes"]} for hit in SINTEL_CHOICES],
        title="Sintel",
        year=2010,
        preferences=RankingPreferences(resolution="1080p"),
    )
    assert ranked[0].result["title"] == SINTEL_CHOICES[0]["title"]
    knaben_server.set_hits(SINTEL_CHOICES)

    queue_call(llm_server, "native", "set_preference", preference)
    llm_server.queue_text("Noted.")
    await converse(hass, entry, said, user=hass_admin_user)
    stored = result_of(llm_server, 1)
    assert stored["status"] == "ok"
    # A person's preferences are their own (issue 23): the household's stay as they were.
    assert entry.runtime_data.memory.household.person_preferences(f"user:{hass_admin_user.id}")
    assert entry.runtime_data.memory.household.preferences() == {}

    queue_call(llm_server, "native", "download_media", {"media_title": "Sintel"})
    llm_server.queue_text("Sintel is downloading.")
    await converse(hass, entry, "Download Sintel", user=hass_admin_user)
    assert "Preferences the user set:" in turn_context(llm_server.requests[2])
    outcome = result_of(llm_server, 3)
    assert outcome["decision"] == "downloading"
    assert outcome["release"] == picked
    assert synthetic_hash(f"release {picked}") in await torrents_in_qbittorrent(hass, qbittorrent)


async def test_preferences_from_options_and_memory_over_them(
    hass: HomeAssistant, setup_integration: MockConfigEntry
) -> None:
    entry = setup_integration

    def ranking_preferences(entry: MockConfigEntry, resolution: str | None = None) -> RankingPreferences:
        return entry.runtime_data.operations.settings.ranking_preferences(resolution=resolution)

    hass.config_entries.async_update_entry(
        entry,
        options={
            **entry.options,
            "preferred_resolution": "720p",
            "max_size_gb": 5,
            "preferred_codec": "x264",
            "preferred_languages": "German, en",
        },
    )
    await hass.async_block_till_done()  # the entry reloads with its new options
    assert ranking_preferences(entry) == RankingPreferences(
        resolution="720p", max_size_bytes=5 * GB, codec="x264", languages=("German", "en")
    )
    memory = entry.runtime_data.memory
    memory.household.set_preference("preferred_codec", "any")
    memory.household.set_preference("max_size_gb", 0)
    memory.household.set_preference("preferred_languages", ["fr"])
    assert ranking_preferences(entry, resolution="2160p") == RankingPreferences(
        resolution="2160p", max_size_bytes=None, codec=None, languages=("fr",)
    )
