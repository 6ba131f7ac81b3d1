"""Wanted operations: titles waited for until an acceptable release is out, and followed shows.

The scheduler (wanted.py, outside the operations) searches them again when due, through `Acquiring`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from homeassistant.helpers.dispatcher import async_dispatcher_send
from homeassistant.util import dt as dt_util

from ..const import SIGNAL_CHECK_WANTED
from ..errors import ErrorCode, OperationError, client_errors
from ..memory import MAX_FOLLOWED, MAX_WANTED, title_key
from ..ranking import normalize_title
from ..requester import EVERYONE, Permission
from .acquiring import AddedDownload
from .base import OperationsPart
from .describe import media_label

if TYPE_CHECKING:
    from collections.abc import Mapping
    from datetime import date

    from ..clients.tmdb import SeasonSummary
    from ..memory import WantedTitle
    from ..requester import Requester
    from .acquiring import Acquiring
    from .base import Collaborators, Request
    from .finding import Finding
    from .settings import Settings


@dataclass(frozen=True, slots=True)
class WantOutcome:
    """async_want's outcome: added at once (`added`), or kept on the wanted list (`record`)."""

    label: str
    media: dict[str, Any]
    added: AddedDownload | None = None
    record: Mapping[str, Any] | None = None


def current_season(seasons: list[SeasonSummary], today: date) -> int:
    """Return the season airing now: the last one that began airing, else the first announced, else 1."""
    begun = [season.number for season in seasons if season.air_date is not None and season.air_date <= today]
    if begun:
        return begun[-1]
    return seasons[0].number if seasons else 1


def named_keys(words: str, media_by_key: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """Return the keys a person's words name: the key itself, or every title holding all the words."""
    if words in media_by_key:
        return [words]
    words_named = set(normalize_title(words).split())
    return [
        key
        for key, media in media_by_key.items()
        if words_named and words_named <= set(normalize_title(str(media.get("title", ""))).split())
    ]


class WantedOperations(OperationsPart):
    """The wanted titles and the followed shows."""

    def __init__(
        self, collaborators: Collaborators, *, settings: Settings, finding: Finding, acquiring: Acquiring
    ) -> None:
        """Bind to the collaborators and the parts a wanted title is identified and added through."""
        super().__init__(collaborators)
        self.settings = settings
        self.finding = finding
        self.acquiring = acquiring

    def keep_wanted(
        self,
        requester: Requester,
        media: dict[str, Any],
        *,
        season: int | None = None,
        episode: int | None = None,
        save_path: str | None = None,
        reason: str,
    ) -> WantedTitle:
        """Put a title on the wanted list (once per title); return the stored record."""
        self.require(requester, Permission.ADD)
        if media.get("media_type") != "tv":
            season = episode = None
        try:
            return self.memory.wanted.want(
                title_key(media, season, episode),
                media,
                season=season,
                episode=episode,
                save_path=save_path,
                reason=reason,
                requester_key=requester.person_key,
            )
        except ValueError as err:
            raise OperationError(ErrorCode.NOT_ALLOWED, "too_many_wanted", max=MAX_WANTED) from err

    async def async_want(
        self,
        request: Request,
        title: str,
        *,
        year: int | None = None,
        media_type: str | None = None,
        season: int | None = None,
        episode: int | None = None,
    ) -> WantOutcome:
        """Identify a title and add it now when an acceptable release exists, else keep it as wanted."""
        requester = request.requester
        self.require(requester, Permission.ADD)
        if media_type is None and (season is not None or episode is not None):
            media_type = "tv"
        match = await self.finding.async_match(
            title, year=year, media_type=media_type, language=request.language
        )
        media = match.as_dict() | {"original_title": match.original_title}
        if match.media_type != "tv":
            season = episode = None
        save_path = await self.settings.async_save_path(request.folder)
        outcome = await self.acquiring.async_acquire(
            replace(request, conversation_id=None),  # a wanted title is not tied to the conversation
            media,
            season=season,
            episode=episode,
            save_path=save_path,
        )
        label = media_label(media, season, episode)
        if isinstance(outcome, AddedDownload):
            return WantOutcome(label=label, media=media, added=outcome)
        record = self.keep_wanted(
            requester, media, season=season, episode=episode, save_path=save_path, reason=outcome.reason
        )
        return WantOutcome(label=label, media=media, record=record)

    def list_wanted(self, requester: Requester) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """Return the wanted titles and the followed shows, each described for people and automations."""
        self.require(requester, Permission.READ)
        wanted = self.memory.wanted
        titles = [
            {
                "key": key,
                "title": media_label(record["media"], record.get("season"), record.get("episode")),
                "media_type": record["media"].get("media_type"),
                "reason": record["reason"],
                "searches": record["attempts"],
                "next_check": record["next_check"],
            }
            for key, record in wanted.titles().items()
        ]
        shows = [
            {
                "key": key,
                "title": media_label(record["media"]),
                "from_season": record.get("from_season"),
                "downloaded": len(record["fetched"]),
                "next_check": record["next_check"],
            }
            for key, record in wanted.shows().items()
        ]
        return titles, shows

    def forget_wanted(self, requester: Requester, title: str) -> list[str]:
        """Take off the list every wanted title its key or all its words name; return their names."""
        self.require(requester, Permission.ADD)
        wanted = self.memory.wanted
        keys = named_keys(title, {key: record["media"] for key, record in wanted.titles().items()})
        if not keys:
            raise OperationError(ErrorCode.NOT_FOUND, "not_wanted", title=title)
        return [
            media_label(record["media"], record.get("season"), record.get("episode"))
            for key in keys
            if (record := wanted.unwant(key)) is not None
        ]

    async def async_follow_show(
        self, request: Request, title: str, *, year: int | None = None, season: int | None = None
    ) -> tuple[dict[str, Any], int]:
        """Follow a show from a season (the one airing now unless named); return the show and that season.

        Its aired episodes not downloaded yet are then searched in the background (the wanted scheduler).
        """
        requester = request.requester
        self.require(requester, Permission.ADD)
        match = await self.finding.async_match(title, year=year, media_type="tv", language=request.language)
        media = match.as_dict() | {"original_title": match.original_title}
        save_path = await self.settings.async_save_path(request.folder)
        if season is None:
            with client_errors():
                seasons = await self.collaborators.tmdb.async_seasons(match.tmdb_id)
            season = current_season(seasons, dt_util.utcnow().date())
        try:
            self.memory.wanted.follow(
                title_key(media),
                media,
                from_season=season,
                save_path=save_path,
                requester_key=requester.person_key,
            )
        except ValueError as err:
            raise OperationError(ErrorCode.NOT_ALLOWED, "too_many_followed", max=MAX_FOLLOWED) from err
        async_dispatcher_send(self.hass, SIGNAL_CHECK_WANTED.format(self.collaborators.entry_id))
        return media, season

    def unfollow_show(self, requester: Requester, title: str, *, follower: str | None = None) -> list[str]:
        """Stop the requester following every show its key or all its words name; return their names.

        A show stays followed while others follow it. `follower`: someone else's requester key, or "all" to
        stop following it for everyone (a trusted requester only), as `unsubscribe` does.
        """
        self.require(requester, Permission.ADD)
        whose: str | None = requester.person_key
        if follower is not None and follower != whose:
            self.require(requester, Permission.CLEAR_HOUSEHOLD)
            whose = None if follower == EVERYONE else follower
        wanted = self.memory.wanted
        shows = wanted.shows()
        keys = named_keys(title, {key: record["media"] for key, record in shows.items()})
        stopped = [media_label(shows[key]["media"]) for key in keys if wanted.unfollow(key, whose)]
        if not stopped:
            raise OperationError(ErrorCode.NOT_FOUND, "not_following", title=title)
        return stopped

    async def async_check_wanted(self, requester: Requester) -> list[str]:
        """Search every wanted title and followed show now; return the names of what was added."""
        self.require(requester, Permission.ADD)
        self.memory.wanted.check_all_now()
        return await self.collaborators.check_wanted()
