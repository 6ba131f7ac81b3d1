"""The wanted scheduler: searches the due wanted titles and followed shows again, and adds what appeared.

Every WANTED_CHECK_INTERVAL it looks for due items only (each stores its next check, so a restart keeps the
schedule). A wanted title found nothing acceptable: it waits longer (memory.retry_delay). An acceptable
release appeared: it is added to the folder chosen when it was wanted, leaves the list, and the next turn
tells the news (`NewsKind.WANTED_ADDED`). A service down ends the round quietly; the items stay due for the
next one. `SIGNAL_CHECK_WANTED` asks for a round now (a title wanted, a show followed).

Following a show: from the season it was followed from, every episode whose air date (TMDB) has passed and
that was not added yet is searched and added. A season that has aired whole, of which nothing was added
yet, is first looked for as one season pack. What was added is remembered per show (episode "s01e02",
pack "s01"), so nothing is fetched twice. A show is checked every FOLLOW_CHECK_INTERVAL, and AIRED_GRACE
after its next air date when that comes sooner, however much it is missing: a check searches at most
MAX_SHOW_SEARCHES of it, in order, starting after where the previous check stopped, so the sources are never
asked more often because nothing was found, and every missing episode gets its turn.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
import re
from typing import TYPE_CHECKING, Any, Final

from homeassistant.core import callback
from homeassistant.helpers.dispatcher import async_dispatcher_connect
from homeassistant.helpers.event import async_track_time_interval
from homeassistant.util import dt as dt_util

from .clients.errors import AgentMediaClientError
from .const import (
    AIRED_GRACE,
    DOMAIN,
    FOLLOW_CHECK_INTERVAL,
    LOGGER,
    SIGNAL_CHECK_WANTED,
    WANTED_CHECK_INTERVAL,
)
from .errors import ErrorCode, OperationError
from .memory import title_key
from .news import NewsKind, async_tell
from .operations import SOURCE_SERVICE, AddedDownload, Request, media_label
from .release import parse_release
from .requester import requester_from_key

if TYPE_CHECKING:
    from collections.abc import Mapping
    from datetime import date

    from homeassistant.core import CALLBACK_TYPE, HomeAssistant

    from .clients.tmdb import TMDBClient
    from .memory import AgentMediaMemory, FollowedShow
    from .operations import Operations
    from .operations.base import BackgroundRunner

MAX_SHOW_SEARCHES: Final = 10  # searches for one show at one check; the rest waits for its next check
_TAG: Final = re.compile(r"s(\d+)(?:e(\d+))?")
# Failures of a service: the round ends, and what was due stays due.
_SERVICE_DOWN: Final = frozenset(
    {ErrorCode.CANNOT_CONNECT, ErrorCode.RATE_LIMITED, ErrorCode.BAD_RESPONSE, ErrorCode.INVALID_AUTH}
)


class _ServicesDownError(Exception):
    """A service failed: stop this round."""


class WantedScheduler:
    """Checks one entry's due wanted titles and followed shows; one round at a time."""

    def __init__(
        self,
        hass: HomeAssistant,
        *,
        entry_id: str,
        memory: AgentMediaMemory,
        tmdb: TMDBClient,
        operations: Operations,
        start_background: BackgroundRunner,
    ) -> None:
        """Keep the collaborators; `async_start` starts the timer."""
        self.hass = hass
        self.entry_id = entry_id
        self.memory = memory
        self.tmdb = tmdb
        self.operations = operations
        self._start_background = start_background
        self._lock = asyncio.Lock()
        self._unsubscribe: list[CALLBACK_TYPE] = []

    @callback
    def async_start(self) -> None:
        """Check every WANTED_CHECK_INTERVAL, and when asked (`SIGNAL_CHECK_WANTED`), until stopped."""
        self._unsubscribe = [
            async_track_time_interval(
                self.hass,
                self._on_interval,
                timedelta(seconds=WANTED_CHECK_INTERVAL),
                name=f"{DOMAIN} wanted check",
            ),
            async_dispatcher_connect(
                self.hass, SIGNAL_CHECK_WANTED.format(self.entry_id), self.request_check
            ),
        ]

    @callback
    def async_stop(self) -> None:
        """Stop the timer and the listening (a round running is cancelled with the entry)."""
        while self._unsubscribe:
            self._unsubscribe.pop()()

    @callback
    def _on_interval(self, _now: datetime) -> None:
        self.request_check()

    @callback
    def request_check(self) -> None:
        """Check what is due soon, in the background (a round already running covers it)."""
        if not self._lock.locked():
            self._start_background(self.async_check(), f"{DOMAIN} wanted check")

    async def async_check(self) -> list[str]:
        """Search what is due now; return the names of what was added."""
        async with self._lock:
            operations = self.operations
            added: list[str] = []
            try:
                for key in self.memory.wanted.due_titles():
                    added += await self._async_check_title(operations, key)
                for key in self.memory.wanted.due_shows():
                    added += await self._async_check_show(operations, key)
            except _ServicesDownError:
                pass  # logged where it happened; the next round tries again
            return added

    async def _async_acquire(
        self,
        operations: Operations,
        record: Mapping[str, Any],
        season: int | None,
        episode: int | None,
    ) -> AddedDownload | None:
        """Search and add one title; None when nothing acceptable was added (a refusal is journalled)."""
        media = record["media"]
        try:
            save_path = record.get("save_path")
            if save_path is not None:
                save_path = await operations.settings.async_checked_path(save_path)
            outcome = await operations.acquiring.async_acquire(
                Request(requester=requester_from_key(record.get("requester")), source=SOURCE_SERVICE),
                media,
                season=season,
                episode=episode,
                save_path=save_path,
            )
        except OperationError as err:
            if err.code in _SERVICE_DOWN:
                LOGGER.debug("Wanted titles not searched now (%s): %s", err.code, err.placeholders)
                raise _ServicesDownError from err
            if err.code is ErrorCode.DANGEROUS_FILES and (name := err.placeholders.get("name")):
                self.memory.wanted.block(title_key(media, season, episode), None, str(name))
            self.memory.journal.add_error(
                "wanted", err.code.value, f"{media_label(media, season, episode)}: {err.translation_key}"
            )
            return None
        return outcome if isinstance(outcome, AddedDownload) else None

    def _tell(self, label: str, added: AddedDownload) -> None:
        async_tell(
            self.hass,
            self.entry_id,
            self.memory.journal,
            NewsKind.WANTED_ADDED,
            {"title": label, "name": added.name, "hash": added.info_hash},
        )

    async def _async_check_title(self, operations: Operations, key: str) -> list[str]:
        wanted = self.memory.wanted
        if (record := wanted.titles().get(key)) is None:
            return []  # forgotten meanwhile
        season, episode = record.get("season"), record.get("episode")
        added = await self._async_acquire(operations, record, season, episode)
        if added is None:
            wanted.searched(key)
            return []
        wanted.unwant(key)
        label = media_label(record["media"], season, episode)
        self._tell(label, added)
        return [label]

    async def _async_check_show(self, operations: Operations, key: str) -> list[str]:
        """Search what a followed show is missing, MAX_SHOW_SEARCHES at most, and set its next check.

        The check starts after what the last one searched last, so a long backlog is gone through in turns
        rather than its first episodes searched again and again.
        """
        wanted = self.memory.wanted
        if (record := wanted.shows().get(key)) is None:
            return []
        now = dt_util.utcnow()
        try:
            missing, next_air = await self._async_missing(record, now.date())
        except AgentMediaClientError as err:
            LOGGER.debug("Followed show %s not checked now: %s", record["media"].get("title"), err)
            raise _ServicesDownError from err
        added: list[str] = []
        searched = resume_after = record.get("resume_after")
        budget = MAX_SHOW_SEARCHES
        try:
            for item in _from_cursor(missing, resume_after):
                if item.covered_by(wanted.shows().get(key, record)["fetched"]):
                    continue  # a season pack added in this check holds it
                if budget == 0:
                    resume_after = searched  # the rest has its turn at the next check
                    break
                budget -= 1
                found = await self._async_acquire(operations, record, item.season, item.episode)
                searched = item.tag
                if found is not None:
                    added.append(self._fetched(key, record, found, item.season, item.episode))
            else:
                resume_after = None
        except _ServicesDownError:
            wanted.next_show_check(key, None, searched)  # still due: the next round goes on from there
            raise
        wanted.next_show_check(key, _next_show_check(now, next_air), resume_after)
        return added

    async def _async_missing(
        self, record: Mapping[str, Any], today: date
    ) -> tuple[list[_Missing], date | None]:
        """Return what of a followed show has aired and was not added, in order, and its next air date.

        A season that aired whole, of which nothing was added, comes first as one pack.
        """
        media, tmdb = record["media"], self.tmdb
        fetched = set(record["fetched"])
        missing: list[_Missing] = []
        next_air: date | None = None
        for season in await tmdb.async_seasons(media["tmdb_id"]):
            if season.number < (record.get("from_season") or 1):
                continue
            if season.air_date is None or season.air_date > today:
                next_air = _earliest(next_air, season.air_date)
                continue
            episodes = await tmdb.async_episodes(media["tmdb_id"], season.number)
            aired = [item.episode for item in episodes if item.air_date and item.air_date <= today]
            upcoming = [item.air_date for item in episodes if item.air_date and item.air_date > today]
            next_air = _earliest(next_air, min(upcoming, default=None))
            pack = _pack_tag(season.number)
            if pack in fetched:
                continue
            whole = len(aired) == season.episode_count == len(episodes)
            if whole and aired and not any(tag.startswith(pack) for tag in fetched):
                missing.append(_Missing(season.number, None))
            missing += [
                _Missing(season.number, episode)
                for episode in aired
                if _episode_tag(season.number, episode) not in fetched
            ]
        return missing, next_air

    def _fetched(
        self, key: str, record: FollowedShow, added: AddedDownload, season: int, episode: int | None
    ) -> str:
        """Remember what the added release holds (a pack may come for one episode); tell it."""
        parsed = parse_release(added.name)
        if parsed.episodes:
            tags = [_episode_tag(season, number) for number in parsed.episodes]
        elif episode is not None and not parsed.seasons:
            tags = [_episode_tag(season, episode)]  # the name says nothing of what it holds
        else:
            tags = [_pack_tag(season)]
        for tag in tags:
            self.memory.wanted.fetched(key, tag)
        label = media_label(record["media"], season, episode)
        self._tell(label, added)
        return label


@dataclass(frozen=True, slots=True)
class _Missing:
    """An aired episode of a followed show not added yet, or a whole season to look for as one pack."""

    season: int
    episode: int | None  # None: the season's pack

    @property
    def tag(self) -> str:
        """How it is remembered once added: "s01e02", or "s01" for a pack."""
        return _pack_tag(self.season) if self.episode is None else _episode_tag(self.season, self.episode)

    def covered_by(self, fetched: list[str]) -> bool:
        """Return whether what was added holds it (its own tag, or its season's pack)."""
        return self.tag in fetched or _pack_tag(self.season) in fetched


def _order(tag: str) -> tuple[int, int]:
    """Return where a tag ("s01", "s01e02") stands in a show's order: a pack before its episodes."""
    found = _TAG.fullmatch(tag)
    return (int(found.group(1)), int(found.group(2) or 0)) if found else (0, 0)


def _from_cursor(missing: list[_Missing], resume_after: str | None) -> list[_Missing]:
    """Return the missing items starting after `resume_after`, then from the first one around again."""
    if resume_after is None:
        return missing
    cursor = _order(resume_after)
    later = [item for item in missing if _order(item.tag) > cursor]
    return later + [item for item in missing if _order(item.tag) <= cursor]


def _pack_tag(season: int) -> str:
    return f"s{season:02d}"


def _episode_tag(season: int, episode: int) -> str:
    return f"s{season:02d}e{episode:02d}"


def _earliest(current: date | None, candidate: date | None) -> date | None:
    if candidate is None:
        return current
    return candidate if current is None else min(current, candidate)


def _next_show_check(now: datetime, next_air: date | None) -> datetime:
    """After FOLLOW_CHECK_INTERVAL, or AIRED_GRACE after the next air date when that comes sooner."""
    later = now + timedelta(seconds=FOLLOW_CHECK_INTERVAL)
    if next_air is None:
        return later
    aired = datetime(next_air.year, next_air.month, next_air.day, tzinfo=UTC) + timedelta(seconds=AIRED_GRACE)
    return min(later, max(aired, now))
