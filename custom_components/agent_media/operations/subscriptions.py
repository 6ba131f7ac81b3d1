"""Subscriptions: "tell me when Sintel is ready", "me too", "let me know when the next episode is out".

Anyone who may see the downloads may subscribe (the open READ permission): to a download in progress, a wanted
title, a followed show, or any title TMDB knows. The lifecycle takes a title's subscribers when a download of
it is ready and tells each once, on their own target. A person lists and drops their own subscriptions; a
trusted requester (an administrator, an automation) everyone's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from homeassistant.core import split_entity_id

from ..errors import ErrorCode, OperationError
from ..memory import MAX_SUBSCRIBERS, hash_key, title_key
from ..requester import EVERYONE, Permission
from .base import OperationsPart
from .describe import media_label
from .wanted import named_keys

if TYPE_CHECKING:
    from collections.abc import Mapping

    from ..requester import Requester
    from .base import Collaborators, Request
    from .finding import Finding

NOTIFY_DOMAIN: Final = "notify"


@dataclass(frozen=True, slots=True)
class Subscribed:
    """A subscription made: the title as people say it, its key, and whether the requester was new to it."""

    label: str
    key: str
    new: bool


class SubscriptionOperations(OperationsPart):
    """Who waits to hear that a title is ready."""

    def __init__(self, collaborators: Collaborators, *, finding: Finding) -> None:
        """Bind to the collaborators and the part a title is identified through."""
        super().__init__(collaborators)
        self.finding = finding

    async def async_subscribe(
        self,
        request: Request,
        *,
        title: str | None = None,
        info_hash: str | None = None,
        target: str | None = None,
    ) -> Subscribed:
        """Subscribe the requester to a title, a download (by hash), or with neither the latest ("me too").

        `target`: a notify entity to tell them on (a satellite is told on itself; one standing for a person
        subscribes that person, told on that satellite unless a target is given).
        """
        requester = request.requester
        self.require(requester, Permission.READ)
        if target is not None and not _is_notify_entity(target):
            raise OperationError(ErrorCode.BAD_ARGS, "bad_notify_target", target=target)
        if info_hash is not None:
            key, label, media = self._of_download(info_hash)
        elif title is not None:
            key, label, media = await self._async_of_title(request, title)
        else:
            key, label, media = self._latest()
        try:
            new = self.memory.subscriptions.subscribe(
                key,
                label,
                media,
                requester.person_key,
                # A satellite standing for a person subscribes them, told on that satellite (its key).
                target or (requester.key if requester.person is not None else None),
            )
        except ValueError as err:
            raise OperationError(ErrorCode.NOT_ALLOWED, "too_many_subscribers", max=MAX_SUBSCRIBERS) from err
        return Subscribed(label=label, key=key, new=new)

    def list_subscriptions(self, requester: Requester) -> list[dict[str, Any]]:
        """Return who waits for what: the requester's own subscriptions, or everyone's for a trusted one."""
        self.require(requester, Permission.READ)
        everyone = requester.may(
            Permission.CLEAR_HOUSEHOLD,
            allow_non_admin_settings=self.collaborators.options.allow_non_admin_settings,
        )
        listed = []
        for key, subscription in self.memory.subscriptions.waiting().items():
            subscribers = [
                item["requester"]
                for item in subscription["subscribers"]
                if everyone or item["requester"] == requester.person_key
            ]
            if subscribers:
                listed.append({"key": key, "title": subscription["label"], "subscribers": subscribers})
        return listed

    def unsubscribe(self, requester: Requester, title: str, *, subscriber: str | None = None) -> list[str]:
        """Drop the requester's subscriptions to the titles the words name; return their names.

        `subscriber`: someone else's requester key, or "all" for everyone's (a trusted requester only).
        """
        self.require(requester, Permission.READ)
        whose: str | None = requester.person_key
        if subscriber is not None and subscriber != whose:
            self.require(requester, Permission.CLEAR_HOUSEHOLD)
            whose = None if subscriber == EVERYONE else subscriber
        waiting = self.memory.subscriptions.waiting()
        keys = named_keys(title, {key: {"title": item["label"]} for key, item in waiting.items()})
        dropped = [waiting[key]["label"] for key in keys if self.memory.subscriptions.unsubscribe(key, whose)]
        if not dropped:
            raise OperationError(ErrorCode.NOT_FOUND, "not_subscribed", title=title)
        return dropped

    def _of_download(self, info_hash: str) -> tuple[str, str, Mapping[str, Any] | None]:
        record = self.memory.downloads.get(info_hash)
        if record is None:
            raise OperationError(ErrorCode.NOT_FOUND, "unknown_torrent", hash=info_hash[:40])
        if (media := record.get("media")) is not None:
            return title_key(media), media_label(media), media
        return hash_key(info_hash), record["name"], None

    async def _async_of_title(
        self, request: Request, title: str
    ) -> tuple[str, str, Mapping[str, Any] | None]:
        """Find the title among the downloads in progress, wanted titles and followed shows, else on TMDB."""
        known: dict[str, Mapping[str, Any]] = {}
        for record in self.memory.downloads.records().values():
            if (media := record.get("media")) is not None:
                known[title_key(media)] = media
        for item in (*self.memory.wanted.titles().values(), *self.memory.wanted.shows().values()):
            known.setdefault(title_key(item["media"]), item["media"])
        if keys := named_keys(title, known):
            return keys[0], media_label(known[keys[0]]), known[keys[0]]
        match = await self.finding.async_match(title, year=None, media_type=None, language=request.language)
        identified = match.as_dict()
        return title_key(identified), media_label(identified), identified

    def _latest(self) -> tuple[str, str, Mapping[str, Any] | None]:
        """Return what "me too" means: the title someone subscribed to last, else the latest download."""
        if (latest := self.memory.subscriptions.latest()) is not None:
            key, subscription = latest
            return key, subscription["label"], subscription.get("media")
        records = self.memory.downloads.records()
        if not records:
            raise OperationError(ErrorCode.NOT_FOUND, "nothing_to_subscribe")
        info_hash = max(records, key=lambda name: records[name]["added_at"])
        return self._of_download(info_hash)


def _is_notify_entity(entity_id: str) -> bool:
    try:
        return split_entity_id(entity_id)[0] == NOTIFY_DOMAIN
    except ValueError:
        return False
