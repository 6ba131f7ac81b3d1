"""Per requester (owned by the operations): the lists "the 2nd one" picks from, and a pending confirmation.

So "the 2nd one" means the asker's own list, never another person's.
"""

from __future__ import annotations

import copy
from datetime import timedelta
from typing import TYPE_CHECKING, Any, Final

from homeassistant.util import dt as dt_util

from ..links import LINK_ID_LENGTH
from ..untrusted import MAX_NAME, MAX_TITLE, check_storable, clip, storable_text
from .records import clean_media, now, trim_oldest

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from .records import Confirmation, EarlierList, PendingQuestion, Search, SearchResult, WorkingState
    from .store import MemoryStore

MAX_REQUESTERS: Final = 20
MAX_SEARCH_RESULTS: Final = 50
MAX_PENDING_OPTIONS: Final = 5
MAX_EARLIER_LISTS: Final = 4  # lists of other conversations kept per requester, besides the latest
PENDING_QUESTION_TTL: Final = timedelta(minutes=30)  # an unanswered question is stale after this
CONFIRMATION_TTL: Final = timedelta(minutes=5)


def clean_result(result: Mapping[str, Any], index: int) -> SearchResult:
    """Return a search result as kept, numbered; its outside text clipped and made storable.

    Its link is never kept (it may carry an indexer's API key or a passkey): only the id under which
    `links.ResultLinks` holds it in RAM.
    """
    cleaned: SearchResult = {
        "index": index,
        "title": clip(result.get("title", "?"), MAX_NAME),
        "size": _count(result.get("size")),
        "seeders": _count(result.get("seeders")),
        "peers": _count(result.get("peers")),
    }
    if info_hash := _text(result.get("info_hash"), 64):
        cleaned["info_hash"] = info_hash
    if link_id := _text(result.get("link_id"), LINK_ID_LENGTH):
        cleaned["link_id"] = link_id
    if tracker := _text(result.get("tracker"), 80):
        cleaned["tracker"] = tracker
    if source := _text(result.get("source"), 80):
        cleaned["source"] = source
    if reason := _text(result.get("reason"), 200):
        cleaned["reason"] = reason
    return cleaned


def _count(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _text(value: Any, limit: int) -> str | None:
    return storable_text(value)[:limit] if isinstance(value, str) and value else None


def _is_fresh(timestamp: str, ttl: timedelta) -> bool:
    moment = dt_util.parse_datetime(timestamp)
    return moment is not None and dt_util.utcnow() - moment <= ttl


def _holds_list(state: WorkingState | EarlierList) -> bool:
    """Return whether a requester's state or earlier list has something to pick a number from."""
    question = state.get("question")
    return bool(state.get("search")) or (
        question is not None and _is_fresh(question["at"], PENDING_QUESTION_TTL)
    )


class WorkingSection:
    """Per requester: the lists "the 2nd one" picks from, and a pending confirmation.

    A list (a search, and a question asked about it) belongs to the conversation it was made in. The latest
    one sits at the top of the requester's state, the lists of a few other conversations under `earlier`. In
    a conversation with a list of its own, a number means that list; anywhere else (a new conversation, an
    action) the requester's latest.
    """

    def __init__(self, store: MemoryStore) -> None:
        """Read and write the working section of `store`."""
        self._store = store

    @property
    def _data(self) -> dict[str, WorkingState]:
        return self._store.data["working"]

    def _for_update(self, requester_key: str) -> WorkingState:
        if (state := self._data.get(requester_key)) is None:
            state = self._data[requester_key] = {"updated": now()}
        else:
            state["updated"] = now()
        trim_oldest(self._data, MAX_REQUESTERS, "updated")
        return state

    def _latest_for_update(self, requester_key: str, conversation_id: str | None) -> WorkingState:
        """Make the conversation's list the requester's latest; the previous latest goes under `earlier`."""
        state = self._for_update(requester_key)
        key = conversation_id or ""
        if (state.get("conversation_id") or "") == key:
            return state
        earlier = state.get("earlier") or []
        own = next((item for item in earlier if item["conversation_id"] == key), None)
        kept = [item for item in earlier if item["conversation_id"] != key]
        if _holds_list(state):
            kept.insert(
                0,
                {
                    "conversation_id": state.get("conversation_id") or "",
                    "search": state.get("search"),
                    "question": state.get("question"),
                },
            )
        state["earlier"] = kept[:MAX_EARLIER_LISTS]
        state["conversation_id"] = key
        state["search"] = own.get("search") if own else None
        state["question"] = own.get("question") if own else None
        return state

    def _list(self, requester_key: str, conversation_id: str | None) -> WorkingState | EarlierList | None:
        """Return the list a number means in this conversation: its own if it has one, else the latest."""
        if (state := self._data.get(requester_key)) is None:
            return None
        if conversation_id and (state.get("conversation_id") or "") != conversation_id:
            for item in state.get("earlier") or []:
                if item["conversation_id"] == conversation_id and _holds_list(item):
                    return item
        return state

    def store_search(
        self,
        requester_key: str,
        query: str,
        results: Sequence[Mapping[str, Any]],
        media: Mapping[str, Any] | None,
        conversation_id: str | None = None,
    ) -> list[SearchResult]:
        """Keep a search's results, numbered from 1 (a new search supersedes its conversation's question)."""
        numbered = [
            clean_result(result, index) for index, result in enumerate(results[:MAX_SEARCH_RESULTS], 1)
        ]
        state = self._latest_for_update(requester_key, conversation_id)
        state["search"] = {
            "query": clip(query, MAX_TITLE),
            "results": numbered,
            "media": clean_media(media),
            "at": now(),
        }
        state["question"] = None
        self._store.schedule_save()
        return numbered

    def search(self, requester_key: str, conversation_id: str | None = None) -> Search | None:
        """Return the search (query, results, media, at) a number means in this conversation (None: any)."""
        listed = self._list(requester_key, conversation_id)
        search = listed.get("search") if listed else None
        return copy.deepcopy(search) if search is not None else None

    def set_question(
        self,
        requester_key: str,
        question: str,
        options: Sequence[Mapping[str, Any]],
        media: Mapping[str, Any] | None,
        conversation_id: str | None = None,
    ) -> None:
        """Remember a question put to the requester with numbered options, until answered or stale."""
        state = self._latest_for_update(requester_key, conversation_id)
        state["question"] = {
            "question": clip(question, 400),
            "options": [
                clean_result(option, option.get("index", index))
                for index, option in enumerate(options[:MAX_PENDING_OPTIONS], 1)
            ],
            "media": clean_media(media),
            "at": now(),
        }
        self._store.schedule_save()

    def question(self, requester_key: str, conversation_id: str | None = None) -> PendingQuestion | None:
        """Return the unanswered question a number answers in this conversation, unless it is stale."""
        listed = self._list(requester_key, conversation_id)
        question = listed.get("question") if listed else None
        if question is None or not _is_fresh(question["at"], PENDING_QUESTION_TTL):
            return None
        return copy.deepcopy(question)

    def clear_question(self, requester_key: str, conversation_id: str | None = None) -> None:
        """Forget the question answered in this conversation (or the requester moved on)."""
        if (listed := self._list(requester_key, conversation_id)) and listed.get("question") is not None:
            listed["question"] = None
            self._store.schedule_save()

    def set_confirmation(self, requester_key: str, tool: str, args: dict[str, Any]) -> None:
        """Remember a change that waits for the requester's spoken yes."""
        check_storable(args)
        self._for_update(requester_key)["confirmation"] = {"tool": tool, "args": args, "at": now()}
        self._store.schedule_save()

    def pop_confirmation(self, requester_key: str) -> Confirmation | None:
        """Return and forget the change waiting for a yes, unless it is stale."""
        state = self._data.get(requester_key)
        confirmation = state.pop("confirmation", None) if state else None
        if confirmation is not None:
            self._store.schedule_save()
        if confirmation is None or not _is_fresh(confirmation["at"], CONFIRMATION_TTL):
            return None
        return confirmation

    def clear(self, requester_key: str | None) -> None:
        """Forget one requester's searches and questions, or everyone's."""
        if requester_key is None:
            self._data.clear()
        else:
            self._data.pop(requester_key, None)
