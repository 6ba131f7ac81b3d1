"""Each stored record's shape is declared once (memory/records.py); its load schema is derived from it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, get_args, get_type_hints, is_typeddict

import pytest
import voluptuous as vol

from custom_components.agent_media.memory import AgentMediaMemory, download_record, replacement_record
from custom_components.agent_media.memory.records import (
    DownloadRecord,
    FollowedShow,
    Media,
    Message,
    StoredMemory,
    WantedTitle,
)
from custom_components.agent_media.memory.schema import MAX_TEXT, schema_of

if TYPE_CHECKING:
    from homeassistant.core import HomeAssistant

NOW = "2026-12-02T14:11:54.423962+00:00"


def _records_within(declared: Any, found: set[type]) -> set[type]:
    """Return every record (TypedDict) a declared type holds, at any depth."""
    if is_typeddict(declared):
        if declared in found:
            return found
        found.add(declared)
        for field in get_type_hints(declared, include_extras=True).values():
            _records_within(field, found)
        return found
    for argument in get_args(declared):
        _records_within(argument, found)
    return found


def test_every_stored_record_has_a_schema() -> None:
    records = _records_within(StoredMemory, set())
    assert {record.__name__ for record in records} >= {
        "Media",
        "SearchResult",
        "Search",
        "PendingQuestion",
        "Confirmation",
        "EarlierList",
        "WorkingState",
        "Message",
        "Conversation",
        "Replacement",
        "DownloadRecord",
        "LatestCompleted",
        "JournalError",
        "JournalEvent",
        "WantedTitle",
        "FollowedShow",
        "BlockedRelease",
        "Household",
        "Subscription",
        "Subscriber",
    }
    # The sections themselves are checked entry by entry when loading (a damaged entry is dropped alone).
    sections = {"StoredMemory", "Household", "Downloads", "Journal", "Wanted", "Subscriptions"}
    for record in records:
        if record.__name__ not in sections:
            assert isinstance(schema_of(record), vol.Schema), record


def test_required_and_optional_keys_are_as_declared() -> None:
    media = vol.Schema(schema_of(Media))
    assert media({"title": "Sintel"}) == {"title": "Sintel"}
    with pytest.raises(vol.Invalid):
        media({"year": 2010})
    download = vol.Schema(schema_of(DownloadRecord))  # its optional fields are inherited (total=False)
    assert download({"name": "Sintel", "added_at": NOW}) == {"name": "Sintel", "added_at": NOW}
    assert (
        download({"name": "Sintel", "added_at": NOW, "replacements": 1, "media": None})["replacements"] == 1
    )
    with pytest.raises(vol.Invalid):
        download({"name": "Sintel"})
    with pytest.raises(vol.Invalid):
        download({"name": "Sintel", "added_at": NOW, "replacements": None})  # declared int, not int | None


def test_what_a_schema_refuses_repairs_and_drops() -> None:
    media = vol.Schema(schema_of(Media))
    repaired = media({"title": "Sintel", "poster_path": "//elsewhere/x.jpg", "rating": 9})
    assert repaired == {"title": "Sintel", "poster_path": None}  # a wrong poster path is outside data
    for damaged in (
        {"title": "Sintel", "year": True},  # JSON's true is no year
        {"title": "Sintel", "year": "2010"},
        {"title": "x" * (MAX_TEXT + 1)},
        {"title": "Sintel", "media_type": "book"},
    ):
        with pytest.raises(vol.Invalid):
            media(damaged)
    with pytest.raises(vol.Invalid):
        vol.Schema(schema_of(Message))({"role": "system", "content": "hi"})
    wanted = vol.Schema(schema_of(WantedTitle))
    with pytest.raises(vol.Invalid):
        wanted({"media": None, "reason": "x", "added_at": NOW, "next_check": NOW, "attempts": 1})
    show = {"media": {"title": "Pioneer One"}, "followed_at": NOW, "next_check": NOW, "fetched": ["s01e01"]}
    assert vol.Schema(schema_of(FollowedShow))(show) == show
    with pytest.raises(vol.Invalid):
        vol.Schema(schema_of(FollowedShow))(show | {"fetched": ["s01e01" * 5]})  # 20 characters at most


def test_a_type_without_a_stored_schema_is_refused_when_declared() -> None:
    with pytest.raises(TypeError, match="no stored schema"):
        schema_of(set[str])
    with pytest.raises(TypeError, match="no stored schema"):
        schema_of(dict[str, int])


async def test_a_download_record_is_built_in_one_place(hass: HomeAssistant) -> None:
    """`download_record` and `DownloadsSection.add` with the same fields keep the same record."""
    memory = AgentMediaMemory(hass, "records_entry")
    await memory.async_load()
    sintel = {"title": "Sintel", "year": 2010, "poster_path": "//elsewhere/x.jpg", "rating": 9}
    built = download_record(
        "Sintel.2010.1080p\x00",
        save_path="/media/downloads",
        source="conversation",
        added_at=NOW,
        safety="checked",
        media=sintel,
        requester="user:alice",
    )
    assert built == {
        "name": "Sintel.2010.1080p",
        "save_path": "/media/downloads",
        "source": "conversation",
        "added_at": NOW,
        "safety": "checked",
        "media": {"title": "Sintel", "year": 2010},
        "requester": "user:alice",
    }
    memory.downloads.add("A" * 40, built)
    memory.downloads.add("B" * 40, {**built, "name": "Sintel.2010.1080p\x00", "media": sintel})
    assert memory.downloads.get("a" * 40) == memory.downloads.get("b" * 40) == built
    memory.downloads.update("a" * 40, replacement=replacement_record("no_progress", None, None))
    assert memory.downloads.get("a" * 40)["replacement"] == {
        "reason": "no_progress",
        "hash": None,
        "name": None,
    }
