"""Memory on Home Assistant's storage helper: sections, validation, bounds, writes, migrations, removal."""

from __future__ import annotations

from datetime import timedelta
import logging
from pathlib import Path
import re
from typing import TYPE_CHECKING, Any
from unittest.mock import patch

import pytest
from pytest_homeassistant_custom_component.common import async_fire_time_changed

from custom_components.agent_media.const import STORAGE_MINOR_VERSION, STORAGE_VERSION, storage_key
from custom_components.agent_media.memory import (
    MAX_ACTIVE_DOWNLOADS,
    MAX_BLOCKED_PER_TITLE,
    MAX_CONVERSATIONS,
    MAX_ERRORS,
    MAX_EVENTS,
    MAX_REQUESTERS,
    MAX_SEARCH_RESULTS,
    SAVE_DELAY,
    AgentMediaMemory,
    NewerStoreError,
    retry_delay,
    title_key,
)
from custom_components.agent_media.untrusted import UnstorableValueError
from homeassistant.const import EVENT_HOMEASSISTANT_FINAL_WRITE
from homeassistant.helpers.json import json_bytes
from homeassistant.helpers.storage import Store
from homeassistant.util import dt as dt_util
from homeassistant.util.json import json_loads

if TYPE_CHECKING:
    from homeassistant.core import HomeAssistant

ENTRY_ID = "memory_entry"
KEY = storage_key(ENTRY_ID)
ALICE = "user:alice"
BOB = "user:bob"
SATELLITE = "device:kitchen"
# A version 2 Store as Agent Media wrote it before its records were typed: every section and every optional
# field filled, by the calls of `_fill_every_section`.
VERSION_2_FILE = Path(__file__).parent / "fixtures" / "memory_v2.json"


def _results(count: int) -> list[dict[str, Any]]:
    return [
        {"title": f"Sintel.2010.{n}p", "seeders": n, "download_link": f"magnet:{n}"} for n in range(count)
    ]


async def _flush(hass: HomeAssistant) -> None:
    hass.bus.async_fire(EVENT_HOMEASSISTANT_FINAL_WRITE)
    await hass.async_block_till_done()


async def _fire_delayed_save(hass: HomeAssistant) -> None:
    """Let the Store's delay pass: its timer checks the loop clock, so move that clock too."""
    later = hass.loop.time() + SAVE_DELAY + 1
    with patch.object(hass.loop, "time", return_value=later):
        async_fire_time_changed(hass, dt_util.utcnow() + timedelta(seconds=SAVE_DELAY + 1))
    await hass.async_block_till_done()


async def _loaded(hass: HomeAssistant) -> AgentMediaMemory:
    memory = AgentMediaMemory(hass, ENTRY_ID)
    await memory.async_load()
    return memory


async def test_sections_round_trip_through_storage(hass: HomeAssistant, hass_storage: dict[str, Any]) -> None:
    memory = await _loaded(hass)
    memory.household.set_folder("download", "/media/downloads")
    memory.household.set_preference("preferred_resolution", "2160p")
    memory.household.set_language("fr")
    memory.conversations.add_turn("conv-1", ALICE, "Find Sintel", "I found 3 releases.")
    memory.conversations.set_media("conv-1", ALICE, {"title": "Sintel", "year": 2010, "imdb_id": "tt1727587"})
    memory.working.store_search(ALICE, "Sintel 2010", _results(3), {"title": "Sintel", "year": 2010})
    memory.downloads.add("A" * 40, {"name": "Sintel.2010.2160p", "media": {"title": "Sintel", "year": 2010}})
    memory.journal.add_event("download_completed", {"name": "Sintel"})
    memory.journal.add_error("find_torrents", "cannot_connect", "Knaben is down")
    await _flush(hass)

    stored = hass_storage[KEY]
    assert (stored["version"], stored["minor_version"]) == (STORAGE_VERSION, STORAGE_MINOR_VERSION)
    assert set(stored["data"]) == {"household", "conversations", "working", "downloads", "journal", "wanted"}

    again = await _loaded(hass)
    assert again.household.folders() == {"download": "/media/downloads"}
    assert again.household.preferences() == {"preferred_resolution": "2160p"}
    assert again.household.language() == "fr"
    assert again.conversations.messages("conv-1")[0] == {"role": "user", "content": "Find Sintel"}
    assert again.conversations.media("conv-1") == {"title": "Sintel", "year": 2010, "imdb_id": "tt1727587"}
    search = again.working.search(ALICE)
    assert search is not None
    assert [result["index"] for result in search["results"]] == [1, 2, 3]
    assert search["media"] == {"title": "Sintel", "year": 2010}
    assert again.downloads.get("a" * 40)["media"] == {"title": "Sintel", "year": 2010}
    assert [event["type"] for event in again.journal.unread_events()] == ["download_completed"]
    assert again.journal.recent_errors()[0]["error"] == "cannot_connect"


async def test_working_state_is_per_requester(hass: HomeAssistant, hass_storage: dict[str, Any]) -> None:
    memory = await _loaded(hass)
    memory.working.store_search(ALICE, "Sintel", _results(3), None)
    memory.working.set_question(BOB, "Which one?", _results(2), {"title": "Elephants Dream"})
    assert memory.working.search(BOB) is None
    assert memory.working.question(ALICE) is None
    assert memory.working.search(SATELLITE) is None
    question = memory.working.question(BOB)
    assert question is not None
    assert question["media"] == {"title": "Elephants Dream"}
    memory.clear("search", requester_key=BOB)
    assert memory.working.question(BOB) is None
    assert memory.working.search(ALICE) is not None


async def test_conversations_belong_to_their_opener(
    hass: HomeAssistant, hass_storage: dict[str, Any]
) -> None:
    memory = await _loaded(hass)
    assert memory.conversations.owner("conv") is None  # nobody's yet
    memory.conversations.add_turn("conv", ALICE, "hello", "hi")
    assert memory.conversations.owner("conv") == ALICE
    memory.clear("conversation", requester_key=BOB)
    assert memory.conversations.messages("conv")  # Bob cannot clear Alice's
    memory.clear("conversation", requester_key=ALICE)
    assert memory.conversations.messages("conv") == []


@pytest.mark.parametrize(
    "value",
    [
        "/media/\udcff",  # a byte that is not UTF-8, as surrogateescape gives it
        "/media/a\x00b",
        "/media/a\x1bb",
    ],
)
async def test_unstorable_values_are_refused_and_saving_goes_on(
    hass: HomeAssistant, hass_storage: dict[str, Any], value: str
) -> None:
    memory = await _loaded(hass)
    with pytest.raises(UnstorableValueError):
        memory.household.set_folder("download", value)
    with pytest.raises(UnstorableValueError):
        memory.household.set_preference("preferred_codec", value)
    memory.household.set_folder("movie", "/media/movies")
    await _flush(hass)
    assert hass_storage[KEY]["data"]["household"]["folders"] == {"movie": "/media/movies"}


async def test_outside_text_is_repaired_not_refused(
    hass: HomeAssistant, hass_storage: dict[str, Any]
) -> None:
    memory = await _loaded(hass)
    memory.working.store_search(ALICE, "x", [{"title": "Bad\udcffname\x00", "seeders": 1}], None)
    memory.downloads.add("b" * 40, {"name": "Name\udc80", "save_path": "/dl/\udc80"})
    memory.journal.add_event("download_completed", {"name": "Ev\udc80", "size": float("nan")})
    await _flush(hass)
    search = memory.working.search(ALICE)
    assert search is not None
    assert "\udcff" not in search["results"][0]["title"]
    assert "\x00" not in search["results"][0]["title"]
    assert hass_storage[KEY]["data"]["journal"]["events"][0]["data"]["size"] is None


async def test_damaged_records_are_dropped_and_the_rest_kept(
    hass: HomeAssistant, hass_storage: dict[str, Any], caplog: pytest.LogCaptureFixture
) -> None:
    now = dt_util.utcnow().isoformat()
    hass_storage[KEY] = {
        "version": STORAGE_VERSION,
        "minor_version": STORAGE_MINOR_VERSION,
        "key": KEY,
        "data": {
            "household": {"folders": {"download": "/media", "movie": 42}, "preferences": {"x": {"no": 1}}},
            "conversations": {
                "good": {"owner": ALICE, "messages": [{"role": "user", "content": "hi"}], "updated": now},
                "bad": {"messages": "not a list", "updated": now},
            },
            "working": {
                ALICE: {"search": {"query": "q", "results": [{"index": "one"}], "at": now}, "updated": now}
            },
            "downloads": {
                "records": {"a" * 40: {"name": "Sintel", "added_at": now}, "b" * 40: {"name": None}},
                "incomplete": ["a" * 40, 7],
            },
            "journal": {
                "errors": ["oops"],
                "events": [{"id": "1", "type": "t", "data": {}, "at": now, "read": 0}],
            },
        },
    }
    with caplog.at_level(logging.WARNING):
        memory = await _loaded(hass)
    assert memory.household.folders() == {"download": "/media"}
    assert memory.household.preferences() == {}
    assert memory.conversations.messages("good") == [{"role": "user", "content": "hi"}]
    assert memory.conversations.messages("bad") == []
    assert memory.working.search(ALICE) is None
    assert list(memory.downloads.records()) == ["a" * 40]
    assert memory.downloads.incomplete() == ["a" * 40]
    assert memory.journal.recent_errors() == []
    assert memory.journal.unread_events() == []
    assert "dropped 7 damaged record(s)" in caplog.text
    memory.household.set_language("en")  # and it saves again
    await _flush(hass)
    assert hass_storage[KEY]["data"]["household"]["language"] == "en"


async def test_version_1_is_migrated_without_losing_anything(
    hass: HomeAssistant, hass_storage: dict[str, Any]
) -> None:
    now = dt_util.utcnow().isoformat()
    hass_storage[KEY] = {
        "version": 1,
        "minor_version": 2,
        "key": KEY,
        "data": {
            "folders": {"download": "/media/downloads"},
            "preferences": {"preferred_codec": "x265"},
            "language": "de",
            "conversations": {
                "c1": {
                    "messages": [{"role": "user", "content": "Hallo"}],
                    "entities": {"media": {"title": "Sintel"}},
                    "updated": now,
                },
            },
            "searches": {
                "c1": {"query": "Sintel", "results": [{"index": 1, "title": "Sintel.2010"}], "at": now}
            },
            "latest_search": "c1",
            "pending_question": None,
            "active_downloads": {
                "c" * 40: {"name": "Sintel.2010", "added_at": now, "media": {"title": "Sintel"}}
            },
            "errors": [{"action": "a", "error": "not_found", "message": "m", "at": now}],
            "events": [
                {"id": "e1", "type": "download_completed", "data": {"name": "N"}, "at": now, "read": False}
            ],
            "incomplete_downloads": ["c" * 40],
        },
    }
    memory = await _loaded(hass)
    assert memory.household.folders() == {"download": "/media/downloads"}
    assert memory.household.preferences() == {"preferred_codec": "x265"}
    assert memory.household.language() == "de"
    assert memory.conversations.messages("c1") == [{"role": "user", "content": "Hallo"}]
    assert memory.conversations.media("c1") == {"title": "Sintel"}
    assert memory.conversations.owner("c1") is None  # unowned: claimed by whoever continues it
    search = memory.working.search("system")  # the actions' and automations' latest search
    assert search is not None
    assert search["results"][0]["title"] == "Sintel.2010"
    assert memory.downloads.get("c" * 40)["media"] == {"title": "Sintel"}
    assert memory.downloads.incomplete() == ["c" * 40]
    assert [event["id"] for event in memory.journal.unread_events()] == ["e1"]
    memory.household.set_language("fr")
    await _flush(hass)
    assert hass_storage[KEY]["version"] == STORAGE_VERSION


async def test_newer_version_is_refused_and_left_untouched(
    hass: HomeAssistant, hass_storage: dict[str, Any]
) -> None:
    stored = {"version": STORAGE_VERSION + 1, "minor_version": 1, "key": KEY, "data": {"future": True}}
    hass_storage[KEY] = dict(stored)
    memory = AgentMediaMemory(hass, ENTRY_ID)
    with pytest.raises(NewerStoreError):
        await memory.async_load()
    memory.household.set_language("en")  # nothing is written for a memory that did not load
    await _flush(hass)
    assert hass_storage[KEY] == stored


async def test_a_burst_of_changes_is_one_write(hass: HomeAssistant, hass_storage: dict[str, Any]) -> None:
    memory = await _loaded(hass)
    writes: list[str] = []
    write = Store._async_write_data  # the harness's in-memory writer

    async def counting_write(store: Store[Any], *args: Any) -> None:  # (path, data); newer HA: (data)
        writes.append(store.key)
        await write(store, *args)

    with patch.object(Store, "_async_write_data", counting_write):
        for turn in range(50):
            memory.conversations.add_turn("conv", ALICE, f"q{turn}", f"a{turn}")
            memory.working.store_search(ALICE, "Sintel", _results(5), None)
        await hass.async_block_till_done()
        assert writes == []
        await _fire_delayed_save(hass)
        assert writes == [KEY]
        assert len(hass_storage[KEY]["data"]["conversations"]["conv"]["messages"]) == 10


async def test_everything_is_bounded(hass: HomeAssistant, hass_storage: dict[str, Any]) -> None:
    memory = await _loaded(hass)
    for number in range(MAX_CONVERSATIONS + 5):
        memory.conversations.add_turn(f"conv-{number}", ALICE, "q", "a")
    for number in range(MAX_REQUESTERS + 5):
        memory.working.store_search(f"user:{number}", "q", _results(MAX_SEARCH_RESULTS + 10), None)
    for number in range(MAX_ACTIVE_DOWNLOADS + 5):
        memory.downloads.add(f"{number:040x}", {"name": f"n{number}"})
    for number in range(MAX_EVENTS + 5):
        memory.journal.add_event("download_completed", {"name": f"n{number}"})
    for number in range(MAX_ERRORS + 5):
        memory.journal.add_error("tool", "code", f"m{number}")
    memory.conversations.add_turn("long", ALICE, "x" * 10_000, "y" * 10_000)
    data = memory.as_dict()
    assert len(data["conversations"]) == MAX_CONVERSATIONS
    assert len(data["working"]) == MAX_REQUESTERS
    assert all(len(state["search"]["results"]) == MAX_SEARCH_RESULTS for state in data["working"].values())
    assert len(data["downloads"]["records"]) == MAX_ACTIVE_DOWNLOADS
    assert len(data["journal"]["events"]) == MAX_EVENTS
    assert len(data["journal"]["errors"]) == MAX_ERRORS
    assert all(len(message["content"]) <= 2000 for message in memory.conversations.messages("long"))


async def test_clear_all_keeps_the_downloads_bookkeeping(
    hass: HomeAssistant, hass_storage: dict[str, Any]
) -> None:
    memory = await _loaded(hass)
    memory.household.set_folder("download", "/media")
    memory.downloads.set_incomplete(["d" * 40])
    memory.clear("all")
    assert memory.household.folders() == {}
    assert memory.downloads.incomplete() == ["d" * 40]
    with pytest.raises(ValueError, match="unknown memory scope"):
        memory.clear("everything")


async def test_confirmations_are_one_shot_and_expire(
    hass: HomeAssistant, hass_storage: dict[str, Any]
) -> None:
    memory = await _loaded(hass)
    memory.working.set_confirmation(ALICE, "set_path_for_folder", {"folder_name": "download"})
    assert memory.working.pop_confirmation(BOB) is None
    confirmation = memory.working.pop_confirmation(ALICE)
    assert confirmation is not None
    assert (confirmation["tool"], confirmation["args"]) == (
        "set_path_for_folder",
        {"folder_name": "download"},
    )
    assert memory.working.pop_confirmation(ALICE) is None
    memory.working.set_confirmation(ALICE, "set_preference", {"codec": "x265"})
    later = dt_util.utcnow() + timedelta(minutes=6)
    with patch("custom_components.agent_media.memory.working.dt_util.utcnow", return_value=later):
        assert memory.working.pop_confirmation(ALICE) is None


async def test_remove_deletes_the_store(hass: HomeAssistant, hass_storage: dict[str, Any]) -> None:
    memory = await _loaded(hass)
    memory.household.set_folder("download", "/media")
    await memory.async_flush()
    assert KEY in hass_storage
    memory.household.set_folder("movie", "/media/movies")  # a pending delayed save must not resurrect it
    await memory.async_remove()
    await _flush(hass)
    assert KEY not in hass_storage
    assert memory.household.folders() == {}


async def test_a_store_of_minor_version_1_loads_with_an_empty_wanted_section(
    hass: HomeAssistant, hass_storage: dict[str, Any]
) -> None:
    now = dt_util.utcnow().isoformat()
    hass_storage[KEY] = {
        "version": STORAGE_VERSION,
        "minor_version": 1,
        "key": KEY,
        "data": {
            "household": {"folders": {"download": "/media"}, "preferences": {}, "language": None},
            "downloads": {"records": {"a" * 40: {"name": "Sintel", "added_at": now}}, "incomplete": []},
        },
    }
    memory = await _loaded(hass)
    assert memory.household.folders() == {"download": "/media"}
    assert list(memory.downloads.records()) == ["a" * 40]
    assert memory.wanted.titles() == {}
    assert memory.wanted.shows() == {}
    memory.wanted.want(
        "movie:45745",
        {"title": "Sintel"},
        season=None,
        episode=None,
        save_path=None,
        reason="x",
        requester_key=None,
    )
    await _flush(hass)
    assert hass_storage[KEY]["minor_version"] == STORAGE_MINOR_VERSION == 2
    assert "movie:45745" in hass_storage[KEY]["data"]["wanted"]["titles"]


async def test_damaged_wanted_records_are_dropped(hass: HomeAssistant, hass_storage: dict[str, Any]) -> None:
    now = dt_util.utcnow().isoformat()
    good = {"media": {"title": "Sintel"}, "reason": "x", "added_at": now, "next_check": now, "attempts": 1}
    hass_storage[KEY] = {
        "version": STORAGE_VERSION,
        "minor_version": STORAGE_MINOR_VERSION,
        "key": KEY,
        "data": {
            "wanted": {
                "titles": {"movie:45745": good, "movie:1": good | {"attempts": "many"}},
                "shows": {"tv:9": {"media": {"title": "Pioneer One"}, "fetched": "s01e01"}},
                "blocked": {"movie:45745": [{"hash": None, "name": "Sintel.CAM", "at": now}], "movie:2": [7]},
            }
        },
    }
    memory = await _loaded(hass)
    assert list(memory.wanted.titles()) == ["movie:45745"]
    assert memory.wanted.shows() == {}
    assert memory.wanted.is_blocked("movie:45745", None, "sintel.cam")


def test_title_keys() -> None:
    movie = {"title": "Big Buck Bunny", "tmdb_id": 10378, "media_type": "movie"}
    assert title_key(movie) == "movie:10378"
    show = {"title": "Pioneer One", "tmdb_id": 900001, "media_type": "tv"}
    assert title_key(show, 1, 2) == "tv:900001:s01e02"
    assert title_key(show, 1) == "tv:900001:s01"
    assert title_key({"title": "The Big Buck Bunny!", "media_type": "movie"}) == "movie:big buck bunny"


def test_the_wanted_retry_schedule() -> None:
    hours = [retry_delay(attempts) / timedelta(hours=1) for attempts in range(1, 6)]
    assert hours == [1, 2, 4, 8, 16]
    days = [retry_delay(attempts) / timedelta(days=1) for attempts in range(6, 14)]
    assert days == [1, 2, 3, 4, 5, 6, 7, 7]


async def test_the_blocklist_by_hash_or_name_and_capped(hass: HomeAssistant) -> None:
    memory = await _loaded(hass)
    memory.wanted.block("movie:45745", "A" * 40, "Sintel.2010.1080p.BluRay")
    assert memory.wanted.is_blocked("movie:45745", "a" * 40, "another name")
    assert memory.wanted.is_blocked("movie:45745", None, "SINTEL.2010.1080P.BLURAY")
    assert not memory.wanted.is_blocked("movie:45745", "b" * 40, "Sintel.2010.720p")
    assert not memory.wanted.is_blocked("movie:10378", "a" * 40, "Sintel.2010.1080p.BluRay")
    for number in range(MAX_BLOCKED_PER_TITLE):
        memory.wanted.block("movie:45745", None, f"Sintel.{number}")
    assert not memory.wanted.is_blocked("movie:45745", "a" * 40, "x")  # the oldest went first
    assert memory.wanted.is_blocked("movie:45745", None, f"Sintel.{MAX_BLOCKED_PER_TITLE - 1}")


async def test_poster_paths_are_kept_only_in_their_safe_shape(
    hass: HomeAssistant, hass_storage: dict[str, Any]
) -> None:
    """A poster path is outside data: a wrong one is dropped on load and on write, its record kept."""
    now = dt_util.utcnow().isoformat()
    sintel = {"title": "Sintel", "year": 2010, "media_type": "movie"}
    hass_storage[KEY] = {
        "version": STORAGE_VERSION,
        "minor_version": STORAGE_MINOR_VERSION,
        "key": KEY,
        "data": {
            "downloads": {
                "records": {
                    "a" * 40: {
                        "name": "Sintel",
                        "added_at": now,
                        "media": {**sintel, "poster_path": "/sintel.jpg"},
                    },
                    "b" * 40: {
                        "name": "Sintel",
                        "added_at": now,
                        "media": {**sintel, "poster_path": "//evil/x.jpg"},
                    },
                },
                "latest_completed": {
                    "title": "Sintel (2010)",
                    "poster_path": "/../x.png",
                    "completed_at": now,
                },
            },
        },
    }
    memory = await _loaded(hass)
    assert memory.downloads.media("a" * 40)["poster_path"] == "/sintel.jpg"
    assert memory.downloads.media("b" * 40).get("poster_path") is None
    assert memory.downloads.latest_completed() == {
        "title": "Sintel (2010)",
        "poster_path": None,
        "completed_at": now,
    }

    memory.downloads.add("c" * 40, {"name": "Sintel", "media": {**sintel, "poster_path": "javascript:x.png"}})
    assert "poster_path" not in memory.downloads.media("c" * 40)
    memory.downloads.set_latest_completed("Tears of Steel (2012)", "/tears-of-steel.webp")
    assert memory.downloads.latest_completed()["poster_path"] == "/tears-of-steel.webp"


async def test_a_damaged_latest_completed_download_is_dropped(
    hass: HomeAssistant, hass_storage: dict[str, Any]
) -> None:
    hass_storage[KEY] = {
        "version": STORAGE_VERSION,
        "minor_version": STORAGE_MINOR_VERSION,
        "key": KEY,
        "data": {"downloads": {"records": {}, "latest_completed": {"title": 7}}},
    }
    memory = await _loaded(hass)
    assert memory.downloads.latest_completed() is None


SINTEL = {
    "title": "Sintel",
    "year": 2010,
    "imdb_id": "tt1727587",
    "tmdb_id": 45745,
    "media_type": "movie",
    "original_title": "Sintel (Durian)",
    "poster_path": "/sintel.jpg",
}
PIONEER = {"title": "Pioneer One", "year": 2010, "tmdb_id": 900001, "media_type": "tv"}


def _every_field_results(count: int) -> list[dict[str, Any]]:
    return [
        {
            "title": f"Sintel.2010.{n}080p.WEB",
            "size": 1_000_000 * n,
            "seeders": n,
            "peers": n + 1,
            "info_hash": f"{n:040x}",
            "link_id": f"link{n}",
            "tracker": "Knaben",
            "source": "knaben",
            "reason": "1080p WEB",
        }
        for n in range(1, count + 1)
    ]


def _fill_every_section(memory: AgentMediaMemory) -> None:
    """Make every kind of record, with every optional field (the calls that wrote VERSION_2_FILE)."""
    memory.household.set_folder("download", "/media/downloads")
    memory.household.set_folder("movie", "/media/movies")
    memory.household.set_preference("preferred_resolution", "2160p")
    memory.household.set_preference("max_size_gb", 12.5)
    memory.household.set_preference("organize_library", True)
    memory.household.set_preference("preferred_languages", ["fr", "en"])
    memory.household.set_language("fr")
    memory.conversations.add_turn("conv-1", ALICE, "Find Sintel", "I found 3 releases.")
    memory.conversations.set_media("conv-1", ALICE, SINTEL)
    memory.conversations.add_turn("conv-2", SATELLITE, "What's new?", "Nothing yet.")
    memory.working.store_search(ALICE, "Sintel 2010", _every_field_results(3), SINTEL, "conv-1")
    memory.working.set_question(ALICE, "Which one?", _every_field_results(2), SINTEL, "conv-1")
    memory.working.store_search(ALICE, "Pioneer One", _every_field_results(2), PIONEER, "conv-2")
    memory.working.set_confirmation(
        ALICE, "set_path_for_folder", {"folder_name": "download", "path_value": "/x"}
    )
    memory.working.store_search("system", "Big Buck Bunny", _every_field_results(1), None)
    memory.downloads.add(
        "A" * 40,
        {
            "name": "Sintel.2010.2160p",
            "save_path": "/media/downloads",
            "source": "conversation",
            "safety": "checked",
            "media": SINTEL,
            "requester": ALICE,
            "conversation_id": "conv-1",
            "replacements": 1,
        },
    )
    memory.downloads.update(
        "a" * 40, replacement={"reason": "no_progress", "hash": "b" * 40, "name": "Sintel.2010.1080p"}
    )
    memory.downloads.add("c" * 40, {"name": "Pioneer.One.S01E01", "media": PIONEER, "source": "service"})
    memory.downloads.set_incomplete(["c" * 40, "a" * 40])
    memory.downloads.set_latest_completed("Sintel (2010)", "/sintel.jpg")
    memory.journal.add_event("download_completed", {"name": "Sintel", "size": 123, "title": "Sintel"})
    memory.journal.add_event("wanted_added", {"name": "Pioneer.One.S01E02"})
    memory.journal.mark_read([memory.journal.unread_events()[0]["id"]])
    memory.journal.add_error("find_torrents", "cannot_connect", "Knaben is down")
    memory.wanted.want(
        "tv:900001:s01e02",
        PIONEER,
        season=1,
        episode=2,
        save_path="/media/tv",
        reason="not_found",
        requester_key=ALICE,
    )
    memory.wanted.want(
        "movie:45745",
        SINTEL,
        season=None,
        episode=None,
        save_path=None,
        reason="no_acceptable",
        requester_key=None,
    )
    memory.wanted.follow("tv:900001", PIONEER, from_season=1, save_path="/media/tv", requester_key=ALICE)
    memory.wanted.fetched("tv:900001", "s01e01")
    memory.wanted.fetched("tv:900001", "s02")
    memory.wanted.next_show_check("tv:900001", dt_util.utcnow(), "s01e03")
    memory.wanted.block("movie:45745", "D" * 40, "Sintel.2010.CAM")
    memory.wanted.block("movie:45745", None, "Sintel.2010.TS")


_MOMENT = re.compile(rb'"\d{4}-\d\d-\d\dT[0-9:.]+\+00:00"')
_EVENT_ID = re.compile(rb'"id":"[0-9A-Z]{26}"')


def _without_moments(written: bytes) -> bytes:
    """Return a written Store with its times and event ids (ULIDs) blanked: the rest must match."""
    return _EVENT_ID.sub(b'"id":"<ulid>"', _MOMENT.sub(b'"<moment>"', written))


async def test_a_version_2_file_is_written_back_byte_for_byte(
    hass: HomeAssistant, hass_storage: dict[str, Any]
) -> None:
    written = VERSION_2_FILE.read_bytes()
    stored = json_loads(written)
    hass_storage[KEY] = stored
    memory = await _loaded(hass)
    memory.clear("search", requester_key="user:nobody")  # changes nothing, but asks for a write
    await _flush(hass)
    assert hass_storage[KEY] is not stored  # written anew
    assert json_bytes(hass_storage[KEY]) == written


async def test_the_sections_write_what_version_2_always_wrote(
    hass: HomeAssistant, hass_storage: dict[str, Any]
) -> None:
    memory = await _loaded(hass)
    _fill_every_section(memory)
    await _flush(hass)
    written = json_bytes(hass_storage[KEY])
    assert _without_moments(written) == _without_moments(VERSION_2_FILE.read_bytes())
    assert _without_moments(written) != written  # what differs from run to run was found
