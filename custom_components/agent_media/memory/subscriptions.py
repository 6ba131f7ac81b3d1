"""Who waits to hear that a title is ready, and the news each of them must still hear at their next turn.

Owned by the operations (subscribe, unsubscribe, list) and the lifecycle (a completion takes the title's
subscribers). A subscription is keyed by the title's key (`title_key`: "movie:45745", "tv:900001" for any
episode of a show) or, for a download of no known title, by "hash:<infohash>". Each subscriber is told once:
taking a title's subscribers removes them. The section is stored only while it holds something, so a Store
that never had a subscription is written as before.
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Final

from ..untrusted import MAX_TITLE, clip, storable_copy
from .records import clean_media, empty_subscriptions, now, trim_oldest
from .wanted import title_key

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping
    from typing import Any

    from .records import Subscriber, Subscription, Subscriptions
    from .store import MemoryStore

MAX_SUBSCRIPTIONS: Final = 100  # titles waited for
MAX_SUBSCRIBERS: Final = 20  # per title
MAX_UNTOLD: Final = 20  # news kept per requester for their next turn
MAX_UNTOLD_REQUESTERS: Final = 50
HASH_PREFIX: Final = "hash:"


class SubscriptionsSection:
    """Subscriptions by title, and per requester the news still to tell them."""

    def __init__(self, store: MemoryStore) -> None:
        """Read and write the subscriptions section of `store`."""
        self._store = store

    @property
    def _data(self) -> Subscriptions:
        data = self._store.data
        if "subscriptions" not in data:
            data["subscriptions"] = empty_subscriptions()
        return data["subscriptions"]

    def waiting(self) -> dict[str, Subscription]:
        """Return every subscription by key."""
        return copy.deepcopy(self._data["waiting"])

    def subscribe(
        self,
        key: str,
        label: str,
        media: Mapping[str, Any] | None,
        requester_key: str,
        target: str | None,
    ) -> bool:
        """Add a subscriber to a title (again: their target is updated); return False if they were already in.

        Raises ValueError when the title already has as many subscribers as it may.
        """
        waiting = self._data["waiting"]
        moment = now()
        subscription = waiting.get(key)
        if subscription is None:
            subscription = waiting[key] = storable_copy(
                {
                    "label": clip(label, MAX_TITLE),
                    "media": clean_media(media),
                    "subscribers": [],
                    "updated": moment,
                }
            )
        subscribers = subscription["subscribers"]
        known = next((item for item in subscribers if item["requester"] == requester_key), None)
        if known is None and len(subscribers) >= MAX_SUBSCRIBERS:
            raise ValueError("too many subscribers")
        if known is not None:
            subscribers.remove(known)
        subscribers.append({"requester": requester_key, "target": target, "at": moment})
        subscription["updated"] = moment
        trim_oldest(waiting, MAX_SUBSCRIPTIONS, "updated")
        self._store.schedule_save()
        return known is None

    def unsubscribe(self, key: str, requester_key: str | None) -> list[str]:
        """Drop a requester's subscription to a title (None: everyone's); return whose were dropped."""
        waiting = self._data["waiting"]
        if (subscription := waiting.get(key)) is None:
            return []
        dropped = [
            item["requester"]
            for item in subscription["subscribers"]
            if requester_key is None or item["requester"] == requester_key
        ]
        subscription["subscribers"] = [
            item for item in subscription["subscribers"] if item["requester"] not in dropped
        ]
        if not subscription["subscribers"]:
            del waiting[key]
        if dropped:
            self._store.schedule_save()
        return dropped

    def latest(self) -> tuple[str, Subscription] | None:
        """Return the subscription someone joined last ("me too"), or None."""
        waiting = self._data["waiting"]
        if not waiting:
            return None
        key = max(waiting, key=lambda name: waiting[name]["updated"])
        return key, copy.deepcopy(waiting[key])

    def take(self, keys: Iterable[str]) -> list[Subscriber]:
        """Remove and return the subscribers of these keys (each requester once): they are told now."""
        waiting = self._data["waiting"]
        taken: dict[str, Subscriber] = {}
        for key in keys:
            if (subscription := waiting.pop(key, None)) is None:
                continue
            for subscriber in subscription["subscribers"]:
                taken.setdefault(subscriber["requester"], subscriber)
            self._store.schedule_save()
        return list(taken.values())

    def add_untold(self, requester_keys: Iterable[str], event_id: str) -> None:
        """Keep a journal event for each requester's next turn, even once someone else heard it."""
        untold = self._data["untold"]
        for requester_key in requester_keys:
            ids = untold.setdefault(requester_key, [])
            ids.append(event_id)
            del ids[: max(0, len(ids) - MAX_UNTOLD)]
        while len(untold) > MAX_UNTOLD_REQUESTERS:
            del untold[next(iter(untold))]
        self._store.schedule_save()

    def untold(self, requester_key: str) -> list[str]:
        """Return the journal events the requester must still hear."""
        return list(self._data["untold"].get(requester_key, []))

    def mark_told(self, requester_key: str, event_ids: Iterable[str]) -> None:
        """Forget the events the requester has now heard."""
        untold = self._data["untold"]
        told = set(event_ids)
        if not told or requester_key not in untold:
            return
        untold[requester_key] = [event_id for event_id in untold[requester_key] if event_id not in told]
        if not untold[requester_key]:
            del untold[requester_key]
        self._store.schedule_save()


def hash_key(info_hash: str) -> str:
    """Return the subscription key of a download of no known title."""
    return f"{HASH_PREFIX}{info_hash.lower()}"


def completion_keys(info_hash: str, media: Mapping[str, Any] | None) -> list[str]:
    """Return the subscription keys a finished download answers: its hash, and its film or show."""
    keys = [hash_key(info_hash)]
    if media and media.get("title"):
        keys.append(title_key(media))
    return keys
