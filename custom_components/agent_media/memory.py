"""The agent's memory: long-term, short-term and episodic, on one versioned Store per config entry.

- Long-term: configured folders, preferences, the user's language.
- Short-term, per conversation: the last messages and entities such as the media looked up last.
- Episodic: search results (per conversation, the latest also reachable from a new conversation, since voice
  starts a new conversation each time), a pending question with numbered options (one at a time), active
  downloads, recent errors, background events with a read flag.

Every list and map is bounded, so neither the file nor the prompt built from it grows without limit. Changes
are written with `async_delay_save`, so a burst of turns costs one write.
"""

from __future__ import annotations

import copy
from datetime import timedelta
from typing import TYPE_CHECKING, Any, Final

from homeassistant.core import HomeAssistant, callback
from homeassistant.helpers.storage import Store
from homeassistant.util import dt as dt_util
from homeassistant.util.ulid import ulid_now

from .const import DEFAULT_MAX_HISTORY_MESSAGES, STORAGE_MINOR_VERSION, STORAGE_VERSION, storage_key

if TYPE_CHECKING:
    from collections.abc import Iterable

SAVE_DELAY: Final = 10.0  # seconds; coalesces the writes of a conversation into one
# Seconds; short, since a lost write of the incomplete downloads could announce a completion twice.
DOWNLOADS_SAVE_DELAY: Final = 2.0
MAX_FOLDERS: Final = 32
MAX_PREFERENCES: Final = 32
MAX_CONVERSATIONS: Final = 20
MAX_ENTITIES_PER_CONVERSATION: Final = 8
MAX_SEARCHES: Final = 10
MAX_SEARCH_RESULTS: Final = 50
MAX_ACTIVE_DOWNLOADS: Final = 100
MAX_ERRORS: Final = 10
MAX_EVENTS: Final = 50
MAX_MESSAGE_CHARS: Final = 2000
MAX_PENDING_OPTIONS: Final = 5
PENDING_QUESTION_TTL: Final = timedelta(minutes=30)  # an unanswered question is stale after this

# Where results go when the caller has no conversation (an action, a test).
NO_CONVERSATION: Final = "_"

CLEAR_SCOPES: Final = ("all", "conversation", "search", "errors", "events")


def _empty_data() -> dict[str, Any]:
    return {
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
        # The downloads coordinator's hashes seen incomplete, so a completion while HA is stopped still fires.
        "incomplete_downloads": [],
    }


_OPTIONAL_DICTS: Final = frozenset({"pending_question"})


def _normalized(data: Any) -> dict[str, Any]:
    """Return stored data with every key present and of the right type (tolerates older or damaged files)."""
    result = _empty_data()
    if not isinstance(data, dict):
        return result
    for key, default in result.items():
        value = data.get(key)
        if key in _OPTIONAL_DICTS:
            if isinstance(value, dict):
                result[key] = value
        elif default is None:
            if isinstance(value, str):
                result[key] = value
        elif isinstance(value, type(default)):
            result[key] = value
    return result


class _MemoryStore(Store[dict[str, Any]]):
    """The Store, with the migrations between layouts of the stored data."""

    async def _async_migrate_func(
        self, old_major_version: int, _old_minor_version: int, old_data: dict[str, Any]
    ) -> dict[str, Any]:
        if old_major_version > STORAGE_VERSION:
            # Written by a newer release: refuse rather than silently drop what we do not understand.
            raise NotImplementedError
        # Minor versions only add keys; normalising fills them in.
        return _normalized(old_data)


def _conversation_key(conversation_id: str | None) -> str:
    return conversation_id or NO_CONVERSATION


def _trim_oldest(mapping: dict[str, dict[str, Any]], limit: int, field: str) -> None:
    """Drop the entries with the oldest `field` until `limit` remain."""
    if len(mapping) <= limit:
        return
    ordered = sorted(mapping, key=lambda key: str(mapping[key].get(field, "")))
    for key in ordered[: len(mapping) - limit]:
        del mapping[key]


class AgentMediaMemory:
    """Memory of one config entry. Methods are called from the event loop only."""

    def __init__(
        self, hass: HomeAssistant, entry_id: str, *, max_history_messages: int = DEFAULT_MAX_HISTORY_MESSAGES
    ) -> None:
        """Prepare an empty memory; `async_load` fills it from storage."""
        self._hass = hass
        self._store = _MemoryStore(
            hass,
            STORAGE_VERSION,
            storage_key(entry_id),
            private=True,  # may hold personal data (paths, what the household watches)
            atomic_writes=True,
            minor_version=STORAGE_MINOR_VERSION,
        )
        self._max_history_messages = max(2, max_history_messages)
        self._data: dict[str, Any] = _empty_data()
        self._save_pending = False

    # --- persistence ---------------------------------------------------------------------------------------

    async def async_load(self) -> None:
        """Read the stored memory (nothing stored yet is an empty memory)."""
        self._data = _normalized(await self._store.async_load())

    async def async_flush(self) -> None:
        """Write a pending delayed save now (on unload, so a reload reads fresh data)."""
        if self._save_pending:
            self._save_pending = False
            await self._store.async_save(self._data_to_save())

    async def async_remove(self) -> None:
        """Delete the stored memory (the entry is being removed)."""
        # Writing a pending save first also cancels its timer, so it cannot bring the file back afterwards.
        await self.async_flush()
        self._data = _empty_data()
        await self._store.async_remove()

    @callback
    def _schedule_save(self, delay: float = SAVE_DELAY) -> None:
        self._save_pending = True
        self._store.async_delay_save(self._data_to_save, delay)

    @callback
    def _data_to_save(self) -> dict[str, Any]:
        # The Store serialises in the executor; hand it a copy the event loop will not mutate meanwhile.
        self._save_pending = False
        return copy.deepcopy(self._data)

    def as_dict(self) -> dict[str, Any]:
        """Return a copy of everything remembered (diagnostics)."""
        return copy.deepcopy(self._data)

    # --- long-term ---------------------------------------------------------------------------------------

    def get_folder(self, name: str) -> str | None:
        """Return the path configured for a folder name, if any."""
        path = self._data["folders"].get(name)
        return path if isinstance(path, str) else None

    def folders(self) -> dict[str, str]:
        """Return every configured folder (name → absolute path)."""
        return dict(self._data["folders"])

    def set_folder(self, name: str, path: str) -> None:
        """Configure a folder; the caller has validated the path."""
        folders: dict[str, str] = self._data["folders"]
        if folders.get(name) == path:
            return
        if name not in folders and len(folders) >= MAX_FOLDERS:
            raise ValueError(f"at most {MAX_FOLDERS} folders can be configured")
        folders[name] = path
        self._schedule_save()

    def preferences(self) -> dict[str, Any]:
        """Return the stored preferences."""
        return dict(self._data["preferences"])

    def set_preference(self, key: str, value: Any) -> None:
        """Store a preference (JSON-safe value); None removes it."""
        preferences: dict[str, Any] = self._data["preferences"]
        if value is None:
            if preferences.pop(key, None) is not None:
                self._schedule_save()
            return
        if preferences.get(key) == value:
            return
        if key not in preferences and len(preferences) >= MAX_PREFERENCES:
            raise ValueError(f"at most {MAX_PREFERENCES} preferences can be stored")
        preferences[key] = value
        self._schedule_save()

    def language(self) -> str | None:
        """Return the language the user last spoke."""
        language: str | None = self._data["language"]
        return language

    def set_language(self, language: str | None) -> None:
        """Remember the user's language (written only when it changes)."""
        if language and language != self._data["language"]:
            self._data["language"] = language
            self._schedule_save()

    # --- short-term, per conversation ---------------------------------------------------------------------

    def _conversation(self, conversation_id: str | None) -> dict[str, Any] | None:
        conversation: dict[str, Any] | None = self._data["conversations"].get(
            _conversation_key(conversation_id)
        )
        return conversation

    def _conversation_for_update(self, conversation_id: str | None) -> dict[str, Any]:
        conversations: dict[str, dict[str, Any]] = self._data["conversations"]
        key = _conversation_key(conversation_id)
        if (conversation := conversations.get(key)) is None:
            conversation = conversations[key] = {"messages": [], "entities": {}}
        conversation["updated"] = dt_util.utcnow().isoformat()
        _trim_oldest(conversations, MAX_CONVERSATIONS, "updated")
        return conversation

    def add_turn(self, conversation_id: str | None, user_text: str, assistant_text: str) -> None:
        """Remember one exchange of a conversation, keeping the last `max_history_messages` messages."""
        conversation = self._conversation_for_update(conversation_id)
        messages: list[dict[str, str]] = conversation["messages"]
        messages.append({"role": "user", "content": user_text[:MAX_MESSAGE_CHARS]})
        messages.append({"role": "assistant", "content": assistant_text[:MAX_MESSAGE_CHARS]})
        del messages[: max(0, len(messages) - self._max_history_messages)]
        self._schedule_save()

    def conversation_messages(self, conversation_id: str | None) -> list[dict[str, str]]:
        """Return the remembered messages of a conversation, oldest first."""
        conversation = self._conversation(conversation_id)
        return list(conversation["messages"]) if conversation else []

    def set_entity(self, conversation_id: str | None, key: str, value: dict[str, Any]) -> None:
        """Remember an entity of a conversation, such as the media looked up last."""
        current = self._conversation(conversation_id)
        if current is not None and current["entities"].get(key) == value:
            return
        conversation = self._conversation_for_update(conversation_id)
        entities: dict[str, Any] = conversation["entities"]
        entities.pop(key, None)
        entities[key] = value
        while len(entities) > MAX_ENTITIES_PER_CONVERSATION:
            del entities[next(iter(entities))]
        self._schedule_save()

    def get_entity(self, conversation_id: str | None, key: str) -> dict[str, Any] | None:
        """Return an entity remembered in a conversation."""
        conversation = self._conversation(conversation_id)
        if conversation is None:
            return None
        value = conversation["entities"].get(key)
        return value if isinstance(value, dict) else None

    # --- episodic ------------------------------------------------------------------------------------------

    def store_search_results(
        self,
        conversation_id: str | None,
        query: str,
        results: list[dict[str, Any]],
        *,
        media: dict[str, Any] | None = None,
    ) -> None:
        """Keep a search's results, numbered from 1, for this conversation and as the latest search."""
        searches: dict[str, dict[str, Any]] = self._data["searches"]
        key = _conversation_key(conversation_id)
        searches[key] = {
            "query": query,
            "results": [
                {**result, "index": index} for index, result in enumerate(results[:MAX_SEARCH_RESULTS], 1)
            ],
            "media": media,
            "at": dt_util.utcnow().isoformat(),
        }
        self._data["latest_search"] = key
        self._data["pending_question"] = None  # a new search supersedes an unanswered question
        _trim_oldest(searches, MAX_SEARCHES, "at")
        self._schedule_save()

    def set_pending_question(
        self,
        conversation_id: str | None,
        question: str,
        options: list[dict[str, Any]],
        *,
        media: dict[str, Any] | None = None,
    ) -> None:
        """Remember a question put to the user with numbered options (from 1), until answered or stale.

        One at a time, reachable from any conversation (voice starts a new one each time).
        """
        self._data["pending_question"] = {
            "conversation_id": conversation_id,
            "question": question,
            "options": [
                {**option, "index": index} for index, option in enumerate(options[:MAX_PENDING_OPTIONS], 1)
            ],
            "media": media,
            "at": dt_util.utcnow().isoformat(),
        }
        self._schedule_save()

    def pending_question(self) -> dict[str, Any] | None:
        """Return the unanswered question, unless it is stale."""
        pending: dict[str, Any] | None = self._data["pending_question"]
        if pending is None:
            return None
        asked = dt_util.parse_datetime(str(pending.get("at", "")))
        if asked is None or dt_util.utcnow() - asked > PENDING_QUESTION_TTL:
            return None
        return copy.deepcopy(pending)

    def clear_pending_question(self) -> None:
        """Forget the question (answered, or the user moved on)."""
        if self._data["pending_question"] is not None:
            self._data["pending_question"] = None
            self._schedule_save()

    def search(self, conversation_id: str | None) -> dict[str, Any] | None:
        """Return this conversation's last search (query, results, media, at), else the latest search.

        Without a conversation (an action, another agent) "the last search" is the latest one anywhere.
        """
        searches: dict[str, dict[str, Any]] = self._data["searches"]
        record = searches.get(conversation_id) if conversation_id else None
        if record is None and (latest := self._data["latest_search"]) is not None:
            record = searches.get(latest)
        return record

    def search_results(self, conversation_id: str | None) -> list[dict[str, Any]]:
        """Return the numbered results of this conversation's last search, else of the latest search."""
        record = self.search(conversation_id)
        return list(record["results"]) if record else []

    def add_active_download(self, info_hash: str, record: dict[str, Any]) -> None:
        """Record a download that was added and is not finished yet."""
        downloads: dict[str, dict[str, Any]] = self._data["active_downloads"]
        downloads[info_hash.lower()] = {"added_at": dt_util.utcnow().isoformat(), **record}
        _trim_oldest(downloads, MAX_ACTIVE_DOWNLOADS, "added_at")
        self._schedule_save()

    def active_downloads(self) -> dict[str, dict[str, Any]]:
        """Return the active downloads by infohash."""
        return {info_hash: dict(record) for info_hash, record in self._data["active_downloads"].items()}

    def pop_active_download(self, info_hash: str) -> dict[str, Any] | None:
        """Forget an active download (finished or removed) and return what was recorded."""
        record: dict[str, Any] | None = self._data["active_downloads"].pop(info_hash.lower(), None)
        if record is not None:
            self._schedule_save()
        return record

    def add_background_event(self, event_type: str, data: dict[str, Any]) -> None:
        """Record something that happened while nobody was talking; the next turn tells the user."""
        events: list[dict[str, Any]] = self._data["events"]
        events.append(
            {
                "id": ulid_now(),
                "type": event_type,
                "data": data,
                "at": dt_util.utcnow().isoformat(),
                "read": False,
            }
        )
        # Over the cap, forget read events first, then the oldest unread ones.
        while len(events) > MAX_EVENTS:
            oldest_read = next((event for event in events if event["read"]), None)
            events.remove(oldest_read if oldest_read is not None else events[0])
        self._schedule_save()

    def unread_events(self) -> list[dict[str, Any]]:
        """Return the events not told yet, oldest first."""
        return [dict(event) for event in self._data["events"] if not event["read"]]

    def mark_events_read(self, event_ids: Iterable[str] | None = None) -> None:
        """Mark events as told: the given ones, or all of them."""
        wanted = None if event_ids is None else set(event_ids)
        changed = False
        for event in self._data["events"]:
            if not event["read"] and (wanted is None or event["id"] in wanted):
                event["read"] = True
                changed = True
        if changed:
            self._schedule_save()

    def incomplete_downloads(self) -> list[str]:
        """Return the hashes the downloads coordinator last saw incomplete."""
        return [value for value in self._data["incomplete_downloads"] if isinstance(value, str)]

    def set_incomplete_downloads(self, hashes: Iterable[str]) -> None:
        """Remember the hashes seen incomplete (written soon: they decide which completions fire)."""
        self._data["incomplete_downloads"] = sorted(hashes)
        self._schedule_save(DOWNLOADS_SAVE_DELAY)

    def add_error(self, action: str, error: str, message: str) -> None:
        """Remember a failure (what was tried, the error code, the explanation)."""
        errors: list[dict[str, Any]] = self._data["errors"]
        errors.append(
            {"action": action, "error": error, "message": message, "at": dt_util.utcnow().isoformat()}
        )
        del errors[: max(0, len(errors) - MAX_ERRORS)]
        self._schedule_save()

    def recent_errors(self) -> list[dict[str, Any]]:
        """Return the remembered failures, oldest first."""
        return [dict(error) for error in self._data["errors"]]

    def clear(self, scope: str | None = None) -> None:
        """Forget part of the memory: "all" (default), "conversation", "search", "errors" or "events"."""
        scope = scope or "all"
        if scope not in CLEAR_SCOPES:
            raise ValueError(f"unknown memory scope {scope!r}")
        empty = _empty_data()
        if scope == "all":
            # The coordinator's bookkeeping is not something the user told us; keep it.
            empty["incomplete_downloads"] = self._data["incomplete_downloads"]
            self._data = empty
        elif scope == "conversation":
            self._data["conversations"] = empty["conversations"]
        elif scope == "search":
            self._data["searches"] = empty["searches"]
            self._data["latest_search"] = None
            self._data["pending_question"] = None
        elif scope == "errors":
            self._data["errors"] = empty["errors"]
        else:
            self._data["events"] = empty["events"]
        self._schedule_save()
