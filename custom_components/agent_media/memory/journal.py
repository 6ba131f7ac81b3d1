"""The journal: recent errors, and background news with a read flag (told at the next turn)."""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any, Final

from homeassistant.util.ulid import ulid_now

from ..untrusted import clip, storable_copy
from .records import now

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

    from .records import Journal, JournalError, JournalEvent
    from .store import MemoryStore

MAX_ERRORS: Final = 10
MAX_EVENTS: Final = 50


class JournalSection:
    """Recent errors, and news told at the next turn."""

    def __init__(self, store: MemoryStore) -> None:
        """Read and write the journal section of `store`."""
        self._store = store

    @property
    def _data(self) -> Journal:
        return self._store.data["journal"]

    def add_event(self, event_type: str, data: Mapping[str, Any], *, read: bool = False) -> str:
        """Record something that happened while nobody was talking; the next turn tells it. Return its id.

        `read`: already told to the household (news for some people only, who keep it as untold).
        """
        events = self._data["events"]
        event_id = ulid_now()
        events.append(
            {"id": event_id, "type": event_type, "data": storable_copy(data), "at": now(), "read": read}
        )
        # Over the cap, forget read events first, then the oldest unread ones.
        while len(events) > MAX_EVENTS:
            oldest_read = next((event for event in events if event["read"]), None)
            events.remove(oldest_read if oldest_read is not None else events[0])
        self._store.schedule_save()
        return event_id

    def unread_events(self) -> list[JournalEvent]:
        """Return the events not told yet, oldest first."""
        return [copy.deepcopy(event) for event in self._data["events"] if not event["read"]]

    def news_for(self, also: Iterable[str]) -> list[JournalEvent]:
        """Return the events not told yet, and those of `also` (read or not), oldest first."""
        chosen = set(also)
        return [
            copy.deepcopy(event)
            for event in self._data["events"]
            if not event["read"] or event["id"] in chosen
        ]

    def mark_read(self, event_ids: Iterable[str] | None = None) -> None:
        """Mark events as told: the given ones, or all of them."""
        chosen = None if event_ids is None else set(event_ids)
        changed = False
        for event in self._data["events"]:
            if not event["read"] and (chosen is None or event["id"] in chosen):
                event["read"] = True
                changed = True
        if changed:
            self._store.schedule_save()

    def add_error(self, action: str, error: str, message: str) -> None:
        """Remember a failure (what was tried, the error code, the explanation)."""
        errors = self._data["errors"]
        errors.append(
            {
                "action": clip(action, 40),
                "error": clip(error, 40),
                "message": clip(message, 300),
                "at": now(),
            }
        )
        del errors[: max(0, len(errors) - MAX_ERRORS)]
        self._store.schedule_save()

    def recent_errors(self) -> list[JournalError]:
        """Return the remembered failures, oldest first."""
        return [error.copy() for error in self._data["errors"]]
