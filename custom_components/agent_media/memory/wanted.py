"""Titles wanted until an acceptable release appears, followed shows, and blocklisted releases.

Owned by the operations and the wanted scheduler. Each wanted title and followed show keeps its next check,
so a restart keeps the schedule; the keys are `title_key`s ("movie:10378", "tv:1399:s01e02").
"""

from __future__ import annotations

import copy
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, Final

from homeassistant.core import callback
from homeassistant.util import dt as dt_util

from ..const import WANTED_FIRST_RETRY_HOURS, WANTED_HOURLY_RETRIES, WANTED_MAX_RETRY_DAYS
from ..ranking import normalize_title
from ..untrusted import MAX_NAME, MAX_TITLE, clip, storable_copy
from .records import clean_media, now

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    from .records import BlockedRelease, FollowedShow, Media, Wanted, WantedTitle
    from .store import MemoryStore

MAX_WANTED: Final = 100
MAX_FOLLOWED: Final = 50
MAX_FETCHED: Final = 500  # episodes and season packs remembered per followed show
MAX_BLOCKED_TITLES: Final = 200
MAX_BLOCKED_PER_TITLE: Final = 20
MAX_FOLLOWERS: Final = 20  # per show


def title_key(media: Mapping[str, Any], season: int | None = None, episode: int | None = None) -> str:
    """Return the key of a title on the wanted list and the blocklist: "movie:10378", "tv:1399:s01e02".

    Without a TMDB id the folded title stands in ("movie:big buck bunny").
    """
    kind = media.get("media_type") if media.get("media_type") in ("movie", "tv") else "media"
    tmdb_id = media.get("tmdb_id")
    if isinstance(tmdb_id, int) and not isinstance(tmdb_id, bool):
        key = f"{kind}:{tmdb_id}"
    else:
        key = f"{kind}:{normalize_title(str(media.get('title') or ''))[:MAX_TITLE]}"
    if season is not None:
        key += f":s{season:02d}"
    if episode is not None:
        key += f"{'' if season is not None else ':'}e{episode:02d}"
    return key


def retry_delay(attempts: int) -> timedelta:
    """Return how long a wanted title waits after `attempts` searches found nothing acceptable.

    1 h, doubled up to 16 h, then one more day after each search, up to a search every 7 days.
    """
    if attempts <= WANTED_HOURLY_RETRIES:
        return timedelta(hours=WANTED_FIRST_RETRY_HOURS * 2 ** max(0, attempts - 1))
    return timedelta(days=min(attempts - WANTED_HOURLY_RETRIES, WANTED_MAX_RETRY_DAYS))


def _identified(media: Mapping[str, Any]) -> Media:
    if (cleaned := clean_media(media)) is None:
        raise ValueError("a wanted or followed title needs its title")
    return cleaned


def wanted_title(
    media: Mapping[str, Any],
    *,
    season: int | None,
    episode: int | None,
    save_path: str | None,
    reason: str,
    requester_key: str | None,
) -> WantedTitle:
    """Return a title just wanted: whoever wants it has just searched, so it is searched again after a while.

    Raises ValueError when `media` has no title.
    """
    moment = dt_util.utcnow()
    record: WantedTitle = storable_copy(
        {
            "media": _identified(media),
            "season": season,
            "episode": episode,
            "save_path": save_path,
            "reason": clip(reason, 40),
            "requester": requester_key,
            "added_at": moment.isoformat(),
            "next_check": (moment + retry_delay(1)).isoformat(),
            "attempts": 1,
        }
    )
    return record


def followed_show(
    media: Mapping[str, Any],
    *,
    from_season: int | None,
    save_path: str | None,
    requester_key: str | None,
    previous: FollowedShow | None = None,
) -> FollowedShow:
    """Return a show just followed, due now; following it again keeps what was fetched of it, and since when.

    Raises ValueError when `media` has no title.
    """
    moment = now()
    record: FollowedShow = storable_copy(
        {
            "media": _identified(media),
            "from_season": from_season,
            "save_path": save_path,
            "requester": requester_key,
            "followed_at": previous["followed_at"] if previous else moment,
            "next_check": moment,
            "fetched": previous["fetched"] if previous else [],
        }
    )
    followers = _followers(previous, requester_key)
    if followers != ([requester_key] if requester_key else []):  # one follower: the requester says it
        record["followers"] = followers
    return record


def _followers(previous: FollowedShow | None, requester_key: str | None) -> list[str]:
    """Return who follows a show once this requester (re)followed it: earlier followers first."""
    followers = list(followers_of(previous)) if previous else []
    if requester_key and requester_key not in followers:
        followers.append(requester_key)
    return followers[-MAX_FOLLOWERS:]


def followers_of(record: FollowedShow) -> list[str]:
    """Return who follows a show (a show followed before followers were kept: who followed it)."""
    if "followers" in record:
        return list(record["followers"])
    requester = record.get("requester")
    return [requester] if requester else []


def blocked_release(info_hash: str | None, name: str) -> BlockedRelease:
    """Return a release blocklisted now: by its hash (lower case) and its name."""
    return {"hash": info_hash.lower() if info_hash else None, "name": clip(name, MAX_NAME), "at": now()}


def _is_due(next_check: str, moment: datetime) -> bool:
    when = dt_util.parse_datetime(next_check)
    return when is None or when <= moment


class WantedSection:
    """Titles wanted until an acceptable release appears, followed shows, and blocklisted releases.

    Listeners (the wanted sensors) hear every change of the wanted titles and followed shows.
    """

    def __init__(self, store: MemoryStore) -> None:
        """Read and write the wanted section of `store`; no listeners yet."""
        self._store = store
        self._listeners: list[Callable[[], None]] = []

    @property
    def _data(self) -> Wanted:
        return self._store.data["wanted"]

    @callback
    def add_listener(self, listener: Callable[[], None]) -> Callable[[], None]:
        """Call `listener` after each change of the wanted titles or followed shows; return its remover."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener)

    def changed(self) -> None:
        """Save soon and tell the listeners (also after the whole memory was cleared)."""
        self._store.schedule_save()
        for listener in list(self._listeners):
            listener()

    # --- wanted titles -------------------------------------------------------------------------------------

    def want(
        self,
        key: str,
        media: Mapping[str, Any],
        *,
        season: int | None,
        episode: int | None,
        save_path: str | None,
        reason: str,
        requester_key: str | None,
    ) -> WantedTitle:
        """Put a title on the list (searched again after the first delay); one already there stays as it is.

        Raises ValueError when the list is full (or `media` has no title).
        """
        titles = self._data["titles"]
        if (record := titles.get(key)) is not None:
            return copy.deepcopy(record)
        if len(titles) >= MAX_WANTED:
            raise ValueError(f"at most {MAX_WANTED} titles can be wanted")
        titles[key] = record = wanted_title(
            media,
            season=season,
            episode=episode,
            save_path=save_path,
            reason=reason,
            requester_key=requester_key,
        )
        self.changed()
        return copy.deepcopy(record)

    def titles(self) -> dict[str, WantedTitle]:
        """Return the wanted titles by key, oldest first."""
        return {key: copy.deepcopy(record) for key, record in self._data["titles"].items()}

    def due_titles(self) -> list[str]:
        """Return the keys of the wanted titles whose next check has come."""
        moment = dt_util.utcnow()
        return [key for key, record in self._data["titles"].items() if _is_due(record["next_check"], moment)]

    def searched(self, key: str) -> None:
        """Note one more search that found nothing acceptable: the next waits longer (see retry_delay)."""
        if (record := self._data["titles"].get(key)) is not None:
            record["attempts"] += 1
            record["next_check"] = (dt_util.utcnow() + retry_delay(record["attempts"])).isoformat()
            self._store.schedule_save()

    def check_all_now(self) -> None:
        """Make every wanted title and followed show due (a search asked for now)."""
        moment = now()
        for title in self._data["titles"].values():
            title["next_check"] = moment
        for show in self._data["shows"].values():
            show["next_check"] = moment
        self._store.schedule_save()

    def unwant(self, key: str) -> WantedTitle | None:
        """Take a title off the list (added, or forgotten); return its record."""
        record = self._data["titles"].pop(key, None)
        if record is not None:
            self.changed()
        return record

    # --- followed shows ------------------------------------------------------------------------------------

    def follow(
        self,
        key: str,
        media: Mapping[str, Any],
        *,
        from_season: int | None,
        save_path: str | None,
        requester_key: str | None,
    ) -> FollowedShow:
        """Follow a show (checked at once); following it again keeps what was fetched.

        Raises ValueError when the list is full (or `media` has no title).
        """
        shows = self._data["shows"]
        if key not in shows and len(shows) >= MAX_FOLLOWED:
            raise ValueError(f"at most {MAX_FOLLOWED} shows can be followed")
        shows[key] = record = followed_show(
            media,
            from_season=from_season,
            save_path=save_path,
            requester_key=requester_key,
            previous=shows.get(key),
        )
        self.changed()
        return copy.deepcopy(record)

    def shows(self) -> dict[str, FollowedShow]:
        """Return the followed shows by key."""
        return {key: copy.deepcopy(record) for key, record in self._data["shows"].items()}

    def due_shows(self) -> list[str]:
        """Return the keys of the followed shows whose next check has come."""
        moment = dt_util.utcnow()
        return [key for key, record in self._data["shows"].items() if _is_due(record["next_check"], moment)]

    def fetched(self, key: str, item: str) -> None:
        """Remember that an episode ("s01e02") or a season pack ("s01") of a followed show was added."""
        if (record := self._data["shows"].get(key)) is not None and item not in record["fetched"]:
            record["fetched"].append(item)
            del record["fetched"][: max(0, len(record["fetched"]) - MAX_FETCHED)]
            self._store.schedule_save()

    def next_show_check(self, key: str, when: datetime | None, resume_after: str | None) -> None:
        """Set when a followed show is checked next (None: it stays due) and where that check starts."""
        if (record := self._data["shows"].get(key)) is not None:
            if when is not None:
                record["next_check"] = when.isoformat()
            record["resume_after"] = resume_after
            self._store.schedule_save()

    def followers(self, key: str) -> list[str]:
        """Return who follows the show of this key (none: it is not followed)."""
        record = self._data["shows"].get(key)
        return followers_of(record) if record is not None else []

    def unfollow(self, key: str, requester_key: str | None = None) -> bool:
        """Drop a follower of a show (None: every follower); return whether they followed it.

        The show stays followed while someone follows it (by the earliest of them, whose preferences its
        episodes are then picked with); with its last follower it is no longer followed.
        """
        if (record := self._data["shows"].get(key)) is None:
            return False
        followers = followers_of(record)
        if requester_key is not None and requester_key not in followers:
            return False
        kept = [follower for follower in followers if requester_key is not None and follower != requester_key]
        if kept:
            record["requester"] = kept[0]
            if len(kept) == 1:
                record.pop("followers", None)  # one follower: the requester says it
            else:
                record["followers"] = kept
        else:
            del self._data["shows"][key]
        self.changed()
        return True

    # --- blocklist -----------------------------------------------------------------------------------------

    def block(self, key: str, info_hash: str | None, name: str) -> None:
        """Never pick this release for this title again (it stalled, or was replaced)."""
        blocked = self._data["blocked"]
        releases = blocked.setdefault(key, [])
        releases.append(blocked_release(info_hash, name))
        del releases[: max(0, len(releases) - MAX_BLOCKED_PER_TITLE)]
        if len(blocked) > MAX_BLOCKED_TITLES:
            oldest = min(blocked, key=lambda title: blocked[title][-1]["at"])
            del blocked[oldest]
        self._store.schedule_save()

    def is_blocked(self, key: str, info_hash: str | None, name: str) -> bool:
        """Return whether a release is blocklisted for this title: by its hash, or its case-folded name."""
        releases = self._data["blocked"].get(key, [])
        folded = clip(name, MAX_NAME).casefold()
        wanted_hash = info_hash.lower() if info_hash else None
        return any(
            (wanted_hash is not None and release.get("hash") == wanted_hash)
            or release["name"].casefold() == folded
            for release in releases
        )
