"""The entry's memory: typed sections with one owner each, on one versioned Store per config entry.

- `household` (operations): folders, release preferences, the language last spoken.
- `conversations` (the agent): per conversation id, the requester that opened it, its last messages and the
  media looked up last; besides, in memory only, the owner of every conversation Home Assistant may still
  hold a chat log of. Another requester sending that id gets a conversation of its own.
- `working` (operations): per requester, the lists "the 2nd one" picks from (a search, a pending question with
  numbered options), each of the conversation it was made in, and a pending confirmation — so "the 2nd one"
  means the asker's own list, never another person's.
- `downloads` (operations/adding.py adds, the lifecycle completes): what Agent Media added, with the media
  identity of the result actually added, and the hashes last seen incomplete.
- `journal`: recent errors and background news with a read flag.
- `subscriptions` (operations subscribe, the lifecycle tells): who waits to hear that a title is ready, and
  per requester the news they must still hear at their next turn; stored only while not empty.
- `library` (the lifecycle adds, the media source and "play" read): the titles organised into the library.
- `wanted` (operations and the wanted scheduler): titles wanted until an acceptable release appears, each
  with its next check; followed shows with what was fetched of them; releases blocklisted per title.

Every record's shape is declared once, in `records.py`; loading checks the stored records against schemas
derived from those declarations (`schema.py`, `store.py`). Writing accepts only JSON-safe, valid UTF-8 values
(`UnstorableValueError` otherwise), so one bad string can never stop every later save. Every list and map is
bounded.
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any, Final

from ..const import DEFAULT_MAX_HISTORY_MESSAGES, storage_key
from .conversations import MAX_CONVERSATIONS, OWNER_KEPT_FOR, ConversationsSection
from .downloads import MAX_ACTIVE_DOWNLOADS, DownloadsSection, download_record, replacement_record
from .household import MAX_FOLDERS, HouseholdSection
from .journal import MAX_ERRORS, MAX_EVENTS, JournalSection
from .library import MAX_LIBRARY_TITLES, LibrarySection
from .records import (
    BlockedRelease,
    Confirmation,
    Conversation,
    DownloadDetails,
    DownloadRecord,
    EarlierList,
    FollowedShow,
    Household,
    JournalError,
    JournalEvent,
    LatestCompleted,
    LibraryTitle,
    Media,
    Message,
    PendingQuestion,
    Replacement,
    Search,
    SearchResult,
    StoredMemory,
    Subscriber,
    Subscription,
    WantedTitle,
    WorkingState,
    clean_media,
    empty_memory,
)
from .store import SAVE_DELAY, MemoryNotSavedError, MemoryStore, NewerStoreError
from .subscriptions import MAX_SUBSCRIBERS, MAX_SUBSCRIPTIONS, SubscriptionsSection, completion_keys, hash_key
from .wanted import (
    MAX_BLOCKED_PER_TITLE,
    MAX_FOLLOWED,
    MAX_WANTED,
    WantedSection,
    followed_show,
    retry_delay,
    title_key,
    wanted_title,
)
from .working import (
    MAX_EARLIER_LISTS,
    MAX_PENDING_OPTIONS,
    MAX_REQUESTERS,
    MAX_SEARCH_RESULTS,
    WorkingSection,
    clean_result,
)

if TYPE_CHECKING:
    from collections.abc import Iterable

    from homeassistant.core import HomeAssistant

__all__ = [
    "CLEAR_SCOPES",
    "HOUSEHOLD_SCOPES",
    "MAX_ACTIVE_DOWNLOADS",
    "MAX_BLOCKED_PER_TITLE",
    "MAX_CONVERSATIONS",
    "MAX_EARLIER_LISTS",
    "MAX_ERRORS",
    "MAX_EVENTS",
    "MAX_FOLDERS",
    "MAX_FOLLOWED",
    "MAX_LIBRARY_TITLES",
    "MAX_PENDING_OPTIONS",
    "MAX_REQUESTERS",
    "MAX_SEARCH_RESULTS",
    "MAX_SUBSCRIBERS",
    "MAX_SUBSCRIPTIONS",
    "MAX_WANTED",
    "OWNER_KEPT_FOR",
    "SAVE_DELAY",
    "AgentMediaMemory",
    "BlockedRelease",
    "Confirmation",
    "Conversation",
    "DownloadDetails",
    "DownloadRecord",
    "EarlierList",
    "FollowedShow",
    "Household",
    "JournalError",
    "JournalEvent",
    "LatestCompleted",
    "LibrarySection",
    "LibraryTitle",
    "Media",
    "MemoryNotSavedError",
    "Message",
    "NewerStoreError",
    "PendingQuestion",
    "Replacement",
    "Search",
    "SearchResult",
    "StoredMemory",
    "Subscriber",
    "Subscription",
    "SubscriptionsSection",
    "WantedSection",
    "WantedTitle",
    "WorkingState",
    "clean_media",
    "clean_result",
    "completion_keys",
    "download_record",
    "followed_show",
    "hash_key",
    "replacement_record",
    "retry_delay",
    "storage_key",
    "title_key",
    "wanted_title",
]

# Scopes of clear_memory. "mine" scopes touch only the caller's own state unless the caller may clear others'.
CLEAR_SCOPES: Final = ("all", "conversation", "search", "errors", "events")
HOUSEHOLD_SCOPES: Final = frozenset({"all", "errors", "events"})


class AgentMediaMemory:
    """Memory of one config entry: its sections on one Store. Methods are called from the event loop only."""

    def __init__(
        self, hass: HomeAssistant, entry_id: str, *, max_history_messages: int = DEFAULT_MAX_HISTORY_MESSAGES
    ) -> None:
        """Prepare an empty memory; `async_load` fills it from storage."""
        self._store = MemoryStore(hass, entry_id)
        self.household = HouseholdSection(self._store)
        self.conversations = ConversationsSection(self._store, max(2, max_history_messages))
        self.working = WorkingSection(self._store)
        self.downloads = DownloadsSection(self._store)
        self.journal = JournalSection(self._store)
        self.wanted = WantedSection(self._store)
        self.subscriptions = SubscriptionsSection(self._store)
        self.library = LibrarySection(self._store)

    async def async_load(self) -> None:
        """Read and validate the stored memory (nothing stored yet is an empty memory).

        Raises NewerStoreError when a newer release wrote it; then nothing is ever written back.
        """
        await self._store.async_load()

    async def async_flush(self) -> None:
        """Write a pending delayed save now (on unload, so a reload reads fresh data)."""
        await self._store.async_flush()

    async def async_save_now(self) -> None:
        """Write what is pending now, for a caller that answers only once it is kept.

        Raises MemoryNotSavedError when it could not be written (the repair issue says so too).
        """
        await self._store.async_save_now()

    async def async_remove(self) -> None:
        """Delete the stored memory (the entry is being removed)."""
        await self._store.async_remove()

    def news_for(self, requester_key: str) -> list[JournalEvent]:
        """Return the news a requester's turn tells: what nobody heard yet, and what they subscribed to."""
        return self.journal.news_for(self.subscriptions.untold(requester_key))

    def mark_told(self, requester_key: str, event_ids: Iterable[str]) -> None:
        """Mark news as heard: by the household, and by this requester."""
        told = list(event_ids)
        self.journal.mark_read(told)
        self.subscriptions.mark_told(requester_key, told)

    def as_dict(self) -> dict[str, Any]:
        """Return a copy of everything remembered (diagnostics)."""
        return dict(copy.deepcopy(self._store.data))

    def clear(self, scope: str, *, requester_key: str | None = None) -> None:
        """Forget part of the memory.

        With `requester_key`, "conversation" and "search" forget only that requester's own, else everyone's.
        "all" forgets everything but the downloads coordinator's bookkeeping (not something anyone told us).
        """
        if scope not in CLEAR_SCOPES:
            raise ValueError(f"unknown memory scope {scope!r}")
        data = self._store.data
        if scope == "all":
            empty = empty_memory()
            empty["downloads"] = data["downloads"]
            self._store.data = empty
            self.wanted.changed()
        elif scope == "conversation":
            self.conversations.clear(requester_key)
        elif scope == "search":
            self.working.clear(requester_key)
        elif scope == "errors":
            data["journal"]["errors"] = []
        else:
            data["journal"]["events"] = []
        self._store.schedule_save()
