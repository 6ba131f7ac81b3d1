"""Memory on Home Assistant's storage helper: tiers, bounds, delayed writes, migrations, removal."""

from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING, Any
from unittest.mock import patch

import pytest
from pytest_homeassistant_custom_component.common import async_fire_time_changed

from custom_components.agent_media.const import STORAGE_MINOR_VERSION, STORAGE_VERSION, storage_key
from custom_components.agent_media.memory import (
    MAX_ACTIVE_DOWNLOADS,
    MAX_CONVERSATIONS,
    MAX_ERRORS,
    MAX_EVENTS,
    MAX_SEARCH_RESULTS,
    MAX_SEARCHES,
    SAVE_DELAY,
    AgentMediaMemory,
)
from homeassistant.const import EVENT_HOMEASSISTANT_FINAL_WRITE
from homeassistant.exceptions import HomeAssistantError
from homeassistant.helpers.storage import Store
from homeassistant.util import dt as dt_util

if TYPE_CHECKING:
    from homeassistant.core import HomeAssistant

ENTRY_ID = "memory_entry"
KEY = storage_key(ENTRY_ID)


def _results(count: int) -> list[dict[str, Any]]:
    return [{"title": f"Sintel.2010.{n}p", "seeders": n} for n in range(count)]


async def _flush(hass: HomeAssistant) -> None:
    hass.bus.async_fire(EVENT_HOMEASSISTANT_FINAL_WRITE)
    await hass.async_block_till_done()


async def _fire_delayed_save(hass: HomeAssistant) -> None:
    """Let the Store's delay pass: its timer checks the loop clock, so move that clock too."""
    later = hass.loop.time() + SAVE_DELAY + 1
    with patch.object(hass.loop, "time", return_value=later):
        async_fire_time_changed(hass, dt_util.utcnow() + timedelta(seconds=SAVE_DELAY + 1))
    await hass.async_block_till_done()


async def test_tiers_round_trip_through_storage(hass: HomeAssistant, hass_storage: dict[str, Any]) -> None:
    memory = AgentMediaMemory(hass, ENTRY_ID)
    await memory.async_load()
    memory.set_folder("download", "/media/downloads")
    memory.set_preference("preferred_resolution", "2160p")
    memory.set_language("fr")
    memory.add_turn("conv-1", "Find Sintel", "I found 3 releases.")
    memory.set_entity("conv-1", "media", {"title": "Sintel", "year": 2010, "imdb_id": "tt1727587"})
    memory.store_search_results("conv-1", "Sintel 2010", _results(3), media={"title": "Sintel"})
    memory.add_active_download("ABCDEF" * 6 + "abcd", {"name": "Sintel.2010.1p", "source": "conversation"})
    memory.add_error("add_torrent_by_index", "not_found", "There are only 3 results.")
    memory.add_background_event("download_completed", {"name": "Sintel.2010.1p"})

    # Nothing is written until the delayed save fires (or Home Assistant writes on the way out).
    assert KEY not in hass_storage
    await _flush(hass)
    stored = hass_storage[KEY]
    assert stored["version"] == STORAGE_VERSION
    assert stored["minor_version"] == STORAGE_MINOR_VERSION
    assert stored["data"]["folders"] == {"download": "/media/downloads"}

    reloaded = AgentMediaMemory(hass, ENTRY_ID)
    await reloaded.async_load()
    assert reloaded.folders() == {"download": "/media/downloads"}
    assert reloaded.get_folder("download") == "/media/downloads"
    assert reloaded.get_folder("movie") is None
    assert reloaded.preferences() == {"preferred_resolution": "2160p"}
    assert reloaded.language() == "fr"
    assert reloaded.conversation_messages("conv-1") == [
        {"role": "user", "content": "Find Sintel"},
        {"role": "assistant", "content": "I found 3 releases."},
    ]
    assert reloaded.get_entity("conv-1", "media") == {"title": "Sintel", "year": 2010, "imdb_id": "tt1727587"}
    assert [result["index"] for result in reloaded.search_results("conv-1")] == [1, 2, 3]
    assert list(reloaded.active_downloads()) == ["abcdef" * 6 + "abcd"]
    assert reloaded.recent_errors()[0]["error"] == "not_found"
    assert [event["type"] for event in reloaded.unread_events()] == ["download_completed"]


async def test_latest_search_is_reachable_from_a_new_conversation(hass: HomeAssistant) -> None:
    memory = AgentMediaMemory(hass, ENTRY_ID)
    await memory.async_load()
    assert memory.search_results("voice-1") == []
    memory.store_search_results("voice-1", "Sintel", _results(2))
    memory.store_search_results("voice-2", "Tears of Steel", _results(4))
    # A conversation's own search wins; an unknown conversation gets the latest search.
    assert len(memory.search_results("voice-1")) == 2
    assert len(memory.search_results("voice-3")) == 4
    search = memory.search(None)
    assert search is not None
    assert search["query"] == "Tears of Steel"


async def test_without_a_conversation_the_last_search_is_the_latest_anywhere(hass: HomeAssistant) -> None:
    """An action's "download index" after a voice search uses the voice search, not an older action's."""
    memory = AgentMediaMemory(hass, ENTRY_ID)
    await memory.async_load()
    memory.store_search_results(None, "Nosferatu", _results(1))
    memory.store_search_results("voice-1", "Sintel", _results(3))
    assert len(memory.search_results(None)) == 3
    memory.store_search_results(None, "The General", _results(2))
    assert len(memory.search_results(None)) == 2
    assert len(memory.search_results("voice-1")) == 3


async def test_every_tier_is_bounded(hass: HomeAssistant) -> None:
    memory = AgentMediaMemory(hass, ENTRY_ID, max_history_messages=4)
    await memory.async_load()
    for turn in range(10):
        memory.add_turn("conv", f"question {turn}", f"answer {turn}")
    assert [message["content"] for message in memory.conversation_messages("conv")] == [
        "question 8",
        "answer 8",
        "question 9",
        "answer 9",
    ]
    for conversation in range(MAX_CONVERSATIONS + 5):
        memory.add_turn(f"conv-{conversation}", "hi", "hello")
    assert len(memory.as_dict()["conversations"]) == MAX_CONVERSATIONS
    assert memory.conversation_messages(f"conv-{MAX_CONVERSATIONS + 4}")  # the newest stays

    memory.store_search_results("big", "Big Buck Bunny", _results(MAX_SEARCH_RESULTS + 30))
    assert len(memory.search_results("big")) == MAX_SEARCH_RESULTS
    for search in range(MAX_SEARCHES + 3):
        memory.store_search_results(f"s-{search}", "Sintel", _results(1))
    assert len(memory.as_dict()["searches"]) == MAX_SEARCHES

    for download in range(MAX_ACTIVE_DOWNLOADS + 3):
        memory.add_active_download(f"{download:040x}", {"name": str(download)})
    assert len(memory.active_downloads()) == MAX_ACTIVE_DOWNLOADS

    for error in range(MAX_ERRORS + 4):
        memory.add_error("find_torrents", "cannot_connect", str(error))
    assert [error["message"] for error in memory.recent_errors()][-1] == str(MAX_ERRORS + 3)
    assert len(memory.recent_errors()) == MAX_ERRORS


async def test_events_read_flag_and_cap(hass: HomeAssistant) -> None:
    memory = AgentMediaMemory(hass, ENTRY_ID)
    await memory.async_load()
    memory.add_background_event("download_completed", {"name": "Sintel"})
    memory.add_background_event("download_completed", {"name": "Tears of Steel"})
    first, second = memory.unread_events()
    memory.mark_events_read([first["id"]])
    assert [event["data"]["name"] for event in memory.unread_events()] == ["Tears of Steel"]
    memory.mark_events_read()
    assert memory.unread_events() == []

    # Over the cap, read events go first: the unread ones survive.
    for event in range(MAX_EVENTS - 3):
        memory.add_background_event("download_completed", {"name": f"old {event}"})
    memory.mark_events_read()
    for event in range(5):
        memory.add_background_event("download_completed", {"name": f"new {event}"})
    events = memory.as_dict()["events"]
    assert len(events) == MAX_EVENTS
    assert [event["data"]["name"] for event in memory.unread_events()] == [f"new {n}" for n in range(5)]
    assert second["id"] not in {event["id"] for event in events}


async def test_a_burst_of_changes_is_one_write(hass: HomeAssistant, hass_storage: dict[str, Any]) -> None:
    memory = AgentMediaMemory(hass, ENTRY_ID)
    await memory.async_load()
    writes: list[str] = []
    write = Store._async_write_data  # the harness's in-memory writer

    async def counting_write(store: Store[Any], *args: Any) -> None:  # (path, data); newer HA: (data)
        writes.append(store.key)
        await write(store, *args)

    with patch.object(Store, "_async_write_data", counting_write):
        for turn in range(50):
            memory.add_turn("conv", f"q{turn}", f"a{turn}")
            memory.store_search_results("conv", "Sintel", _results(5))
        await hass.async_block_till_done()
        assert writes == []
        await _fire_delayed_save(hass)
        assert writes == [KEY]
        assert len(hass_storage[KEY]["data"]["conversations"]["conv"]["messages"]) == 10

        memory.add_error("find_torrents", "cannot_connect", "down")
        await _fire_delayed_save(hass)
        assert writes == [KEY, KEY]


async def test_unchanged_values_do_not_schedule_writes(
    hass: HomeAssistant, hass_storage: dict[str, Any]
) -> None:
    memory = AgentMediaMemory(hass, ENTRY_ID)
    await memory.async_load()
    memory.set_folder("download", "/media")
    await memory.async_flush()
    hass_storage.pop(KEY)
    memory.set_folder("download", "/media")
    memory.set_language(None)
    memory.set_preference("absent", None)
    memory.mark_events_read()
    memory.set_entity("c", "media", {"title": "Sintel"})
    await memory.async_flush()
    assert hass_storage[KEY]["data"]["conversations"]["c"]["entities"] == {"media": {"title": "Sintel"}}
    hass_storage.pop(KEY)
    memory.set_entity("c", "media", {"title": "Sintel"})
    await memory.async_flush()
    assert KEY not in hass_storage


async def test_clear_scopes(hass: HomeAssistant) -> None:
    memory = AgentMediaMemory(hass, ENTRY_ID)
    await memory.async_load()

    def fill() -> None:
        memory.set_folder("download", "/media")
        memory.add_turn("c", "q", "a")
        memory.store_search_results("c", "Sintel", _results(2))
        memory.add_error("find_torrents", "cannot_connect", "down")
        memory.add_background_event("download_completed", {"name": "Sintel"})

    fill()
    memory.clear("search")
    assert memory.search_results("c") == []
    assert memory.conversation_messages("c")
    memory.clear("conversation")
    assert memory.conversation_messages("c") == []
    memory.clear("errors")
    assert memory.recent_errors() == []
    memory.clear("events")
    assert memory.unread_events() == []
    assert memory.folders() == {"download": "/media"}
    fill()
    memory.set_incomplete_downloads(["0123456789abcdef0123456789abcdef01234567"])
    memory.clear()
    assert memory.as_dict() == {
        "folders": {},
        "preferences": {},
        "language": None,
        "conversations": {},
        "searches": {},
        "latest_search": None,
        "pending_question": None,
        "active_downloads": {},
        "errors": [],
        "events": [],
        # The downloads coordinator's bookkeeping survives: it is not something the user told us.
        "incomplete_downloads": ["0123456789abcdef0123456789abcdef01234567"],
    }
    with pytest.raises(ValueError, match="unknown memory scope"):
        memory.clear("everything")


async def test_pop_active_download(hass: HomeAssistant) -> None:
    memory = AgentMediaMemory(hass, ENTRY_ID)
    await memory.async_load()
    info_hash = "a" * 40
    memory.add_active_download(info_hash.upper(), {"name": "Sintel", "media": {"title": "Sintel"}})
    record = memory.pop_active_download(info_hash)
    assert record is not None
    assert record["media"] == {"title": "Sintel"}
    assert "added_at" in record
    assert memory.pop_active_download(info_hash) is None


async def test_damaged_or_older_data_is_normalised(hass: HomeAssistant, hass_storage: dict[str, Any]) -> None:
    hass_storage[KEY] = {
        "version": STORAGE_VERSION,
        "minor_version": STORAGE_MINOR_VERSION,
        "key": KEY,
        "data": {"folders": {"download": "/media"}, "events": "not a list", "language": 3},
    }
    memory = AgentMediaMemory(hass, ENTRY_ID)
    await memory.async_load()
    assert memory.folders() == {"download": "/media"}
    assert memory.unread_events() == []
    assert memory.language() is None
    assert memory.search_results(None) == []


async def test_minor_version_migration(hass: HomeAssistant, hass_storage: dict[str, Any]) -> None:
    # An older minor layout (before some keys existed) loads, is completed and re-saved at once.
    hass_storage[KEY] = {
        "version": STORAGE_VERSION,
        "minor_version": STORAGE_MINOR_VERSION - 1 if STORAGE_MINOR_VERSION > 1 else 0,
        "key": KEY,
        "data": {"folders": {"movie": "/media/movies"}},
    }
    memory = AgentMediaMemory(hass, ENTRY_ID)
    await memory.async_load()
    assert memory.get_folder("movie") == "/media/movies"
    assert hass_storage[KEY]["minor_version"] == STORAGE_MINOR_VERSION
    assert hass_storage[KEY]["data"]["events"] == []


async def test_newer_major_version_is_refused(hass: HomeAssistant, hass_storage: dict[str, Any]) -> None:
    hass_storage[KEY] = {"version": STORAGE_VERSION + 1, "minor_version": 1, "key": KEY, "data": {}}
    memory = AgentMediaMemory(hass, ENTRY_ID)
    # Our migration refuses it; newer Home Assistant refuses it before asking.
    with pytest.raises((NotImplementedError, HomeAssistantError)):
        await memory.async_load()


async def test_remove_deletes_the_store(hass: HomeAssistant, hass_storage: dict[str, Any]) -> None:
    memory = AgentMediaMemory(hass, ENTRY_ID)
    await memory.async_load()
    memory.set_folder("download", "/media")
    await memory.async_flush()
    assert KEY in hass_storage
    memory.set_folder("movie", "/media/movies")  # a pending delayed save must not resurrect it
    await memory.async_remove()
    await _flush(hass)
    assert KEY not in hass_storage
    assert memory.folders() == {}
