"""Facts about qBittorrent's torrents, as pure functions and classes: whose, in which state, complete or not.

No Home Assistant and no I/O here: the coordinator, the lifecycle and the operations all read torrents
through these, so each fact is stated once. `TorrentTracker` keeps qBittorrent's torrent list current from
``sync/maindata`` answers and decides completion per hash from ``progress``/``amount_left``, never from the
state string (it lags and rechecks flip it).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from functools import lru_cache
import heapq
import re
import time
from typing import TYPE_CHECKING, Any, Final

from .const import DOMAIN, MAX_DOWNLOAD_ENTITIES
from .release import parse_release

if TYPE_CHECKING:
    from collections.abc import Collection, Iterable, Mapping

# Tag on every torrent we add, so people (and the coordinator) can tell them apart in qBittorrent.
TORRENT_TAG: Final = DOMAIN
# What a download record's "safety" says when the torrent was someone else's already: left as it is.
SAFETY_EXISTING: Final = "already_in_qbittorrent"

# Only these torrent fields are kept: less memory and less merging for libraries of thousands of torrents.
# Deltas carry changed fields only, so filtering them keeps the kept fields exact.
TRACKED_FIELDS: Final = frozenset(
    {
        "added_on",
        "amount_left",
        "availability",
        "category",
        "content_path",
        "dlspeed",
        "eta",
        "has_tracker_error",
        "name",
        "num_complete",
        "num_seeds",
        "progress",
        "private",
        "save_path",
        "seen_complete",
        "size",
        "state",
        "tags",
        "total_size",
    }
)
PAUSED_STATES: Final = frozenset({"pausedDL", "pausedUP", "stoppedDL", "stoppedUP"})  # 4.x and 5.x names
ERROR_STATES: Final = frozenset({"error", "missingFiles"})
CHECKING_STATES: Final = frozenset({"checkingDL", "checkingUP", "checkingResumeData"})
ETA_INFINITE: Final = 8_640_000  # qBittorrent's "no estimate"
# Fields whose change means a torrent moved on (size: its metadata arrived).
PROGRESS_FIELDS: Final = ("amount_left", "progress", "size")
# Incomplete torrents that make no progress by design for now: never stuck.
WAITING_TURN_STATES: Final = frozenset({"queuedDL", "moving", "allocating", *CHECKING_STATES})
# Not running, or waiting for their turn; the paused ones include those held by a stop condition.
WAITING_STATES: Final = WAITING_TURN_STATES | PAUSED_STATES
# A torrent nobody can finish is given up sooner than a slow one: this share of the stalled timeout, at least
# `UNFINISHABLE_MIN_WAIT` seconds (never longer than the timeout itself).
UNFINISHABLE_SHARE: Final = 0.25
UNFINISHABLE_MIN_WAIT: Final = 300.0
# Characters of a download's name on dashboards: device names make entity ids, and cards cut long names off.
MAX_LABEL: Final = 40
_NAME_SEPARATOR = re.compile(r"[\s._-]")


class DownloadState(StrEnum):
    """State of one download, as shown by its enum sensor (qBittorrent's 19 states, grouped)."""

    DOWNLOADING = "downloading"
    METADATA = "metadata"
    STALLED = "stalled"
    QUEUED = "queued"
    CHECKING = "checking"
    PAUSED = "paused"
    MOVING = "moving"
    ERROR = "error"
    COMPLETED = "completed"


_INCOMPLETE_STATES: Final = {
    "metaDL": DownloadState.METADATA,
    "forcedMetaDL": DownloadState.METADATA,
    "stalledDL": DownloadState.STALLED,
    "queuedDL": DownloadState.QUEUED,
}


def numeric(value: Any) -> float:
    """Return a number qBittorrent gave, 0 for anything else (absent, null, a string)."""
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0.0


def is_complete(torrent: Mapping[str, Any]) -> bool:
    """Return True when every wanted byte is there (a magnet still fetching metadata has size 0)."""
    if not has_metadata(torrent):
        return False
    amount_left = torrent.get("amount_left")
    return numeric(torrent.get("progress")) >= 1 or (amount_left is not None and numeric(amount_left) == 0)


def download_state(torrent: Mapping[str, Any], *, complete: bool) -> DownloadState:
    """Map qBittorrent's state string (4.x or 5.x) to a `DownloadState`."""
    state = torrent.get("state")
    if state in ERROR_STATES:
        return DownloadState.ERROR
    if state in CHECKING_STATES:
        return DownloadState.CHECKING
    if state == "moving":
        return DownloadState.MOVING
    if complete:
        return DownloadState.COMPLETED
    if state in PAUSED_STATES:
        return DownloadState.PAUSED
    return _INCOMPLETE_STATES.get(str(state), DownloadState.DOWNLOADING)


def torrent_tags(torrent: Mapping[str, Any]) -> list[str]:
    """Return a torrent's tags (qBittorrent gives them as one comma-separated string)."""
    return [tag.strip() for tag in str(torrent.get("tags") or "").split(",") if tag.strip()]


def is_tagged_ours(torrent: Mapping[str, Any]) -> bool:
    """Return whether a torrent carries Agent Media's tag (every torrent we add does)."""
    return TORRENT_TAG in torrent_tags(torrent)


def is_ours(torrent: Mapping[str, Any], record: Mapping[str, Any] | None) -> bool:
    """Return whether Agent Media added this torrent: tagged at our add, not someone's asked for again.

    A record alone proves nothing: a torrent qBittorrent already had is recorded too (for its completion
    news), and stays its owner's.
    """
    return is_tagged_ours(torrent) and (record or {}).get("safety") != SAFETY_EXISTING


def has_metadata(torrent: Mapping[str, Any]) -> bool:
    """Return whether qBittorrent knows what a torrent holds (a magnet without metadata has size 0)."""
    return numeric(torrent.get("size")) > 0


def unfinishable(torrent: Mapping[str, Any]) -> bool:
    """Return whether nobody can finish a torrent, as the stalled-download cleaners judge it.

    Its file list is known, yet no peer has ever had every piece (`seen_complete` 0 on 4.x, -1 on 5.x) or its
    tracker fails, and no seed is connected or known to the tracker while the pieces in the swarm add up to
    less than one copy (`availability` < 1).
    """
    if not has_metadata(torrent) or is_complete(torrent):
        return False
    never_seen_complete = numeric(torrent.get("seen_complete")) <= 0
    no_seed = numeric(torrent.get("num_seeds")) <= 0 and numeric(torrent.get("num_complete")) <= 0
    return (
        (never_seen_complete or torrent.get("has_tracker_error") is True)
        and no_seed
        and numeric(torrent.get("availability")) < 1
    )


def unfinishable_wait(timeout: float) -> float:
    """Return how long a torrent nobody can finish may go without progress, for a stalled `timeout`."""
    return min(timeout, max(timeout * UNFINISHABLE_SHARE, UNFINISHABLE_MIN_WAIT))


def _short(text: str) -> str:
    """Return text of at most `MAX_LABEL` characters, cut at a word boundary when it must be cut."""
    text = " ".join(text.split())
    if len(text) <= MAX_LABEL:
        return text
    head = text[: MAX_LABEL - 1]
    boundaries = [found.start() for found in _NAME_SEPARATOR.finditer(head)]
    if boundaries and boundaries[-1] > MAX_LABEL // 2:
        head = head[: boundaries[-1]]
    return head.rstrip(" ._-") + "…"


def _episode_suffix(name: str) -> str:
    """Return " S01E02", " S01E01-E03", " S01" or " S01-S03" from a release name, "" when it names none."""
    release = parse_release(name)
    if not release.seasons:
        return ""
    first, last = release.seasons[0], release.seasons[-1]
    if release.episodes and first == last:
        episodes = release.episodes
        more = f"-E{episodes[-1]:02d}" if len(episodes) > 1 else ""
        return f" S{first:02d}E{episodes[0]:02d}{more}"
    return f" S{first:02d}" if first == last else f" S{first:02d}-S{last:02d}"


@lru_cache(maxsize=2 * MAX_DOWNLOAD_ENTITIES)  # worked out again only when a name or its media changes
def _label(name: str, title: str | None, year: int | None, media_type: str | None) -> str:
    if not title:
        return _short(name)
    if media_type == "tv":
        return _short(title) + _episode_suffix(name)
    return f"{_short(title)} ({year})" if year else _short(title)


def download_label(name: str, media: Mapping[str, Any] | None) -> str:
    """Return what people recognise a download by: "Big Buck Bunny (2008)", "Pioneer One S01E02".

    That is TMDB's title, with the year of a film or the episode a show's release name gives; without media,
    the release name, clipped.
    """
    media = media or {}
    year = media.get("year")
    return _label(
        name,
        str(media["title"]) if media.get("title") else None,
        year if isinstance(year, int) else None,
        str(media.get("media_type") or "") or None,
    )


@dataclass(frozen=True, slots=True)
class DownloadIdentity:
    """What people recognise a download by, when Agent Media knows its film or show."""

    label: str
    poster_path: str | None  # TMDB's


@dataclass(frozen=True, slots=True, kw_only=True)
class DownloadView:
    """What the entities of one download show."""

    info_hash: str
    name: str
    label: str  # device name: the media's name when known, else the torrent's name, short
    poster_path: str | None  # TMDB's poster of the download's media
    state: DownloadState
    progress: float  # percent
    eta: int | None  # seconds; None when qBittorrent has no estimate
    size: int | None  # bytes of the wanted files; None until a magnet's metadata arrives
    download_speed: int  # bytes per second


@dataclass(frozen=True, slots=True, kw_only=True)
class DownloadsData:
    """What the entities show after each poll (comparable, so an unchanged poll writes no state)."""

    download_speed: int  # bytes per second, all torrents
    upload_speed: int
    torrents: int
    active_downloads: int  # incomplete, neither paused nor errored (includes stalled and queued)
    queued_downloads: int
    stalled_downloads: int
    downloads: Mapping[str, DownloadView] = field(default_factory=dict)  # those with their own entities


def _toggle(members: set[str], info_hash: str, present: bool) -> None:
    if present:
        members.add(info_hash)
    else:
        members.discard(info_hash)


class TorrentTracker:
    """qBittorrent's torrent list kept current from ``sync/maindata`` answers, and completion per hash.

    Pure Python (no Home Assistant), so the benchmark measures exactly what the coordinator does per poll.
    A hash is *complete*, *incomplete* or undecided; completion is reported on incomplete → complete only,
    or for a hash first seen complete that the caller says it was waiting for.
    """

    def __init__(self, incomplete: Iterable[str] = ()) -> None:
        """Start empty; `incomplete` are hashes known incomplete before a restart."""
        self.rid = 0
        self.torrents: dict[str, dict[str, Any]] = {}
        self.server_state: dict[str, Any] = {}
        self.complete: set[str] = set()
        self.incomplete: set[str] = set(incomplete)
        self.incomplete_changed = False
        self.active: set[str] = set()
        self.queued: set[str] = set()
        self.stalled: set[str] = set()
        # When each incomplete torrent last gained data (or its metadata), on the monotonic clock.
        self.progressed_at: dict[str, float] = {}
        self._generation = 0  # bumped by every answer that changes a torrent
        self._candidates: tuple[tuple[int, frozenset[str], int], set[str]] | None = None
        self.identities: dict[str, DownloadIdentity] = {}  # set by the coordinator, for the shown downloads

    def apply(
        self, maindata: Mapping[str, Any], *, expected: Collection[str] = (), now: float | None = None
    ) -> list[str]:
        """Merge one ``sync/maindata`` answer; return the hashes that completed with it.

        `now` is the monotonic time of the answer (the clock of `stuck`). Raises ValueError when the answer
        does not have the documented shape.
        """
        now = time.monotonic() if now is None else now
        changes = maindata.get("torrents") or {}
        removed = maindata.get("torrents_removed") or []
        server_state = maindata.get("server_state") or {}
        if (
            not isinstance(changes, dict)
            or not isinstance(removed, list)
            or not isinstance(server_state, dict)
            or not all(isinstance(delta, dict) for delta in changes.values())
        ):
            raise ValueError("unexpected sync/maindata shape")  # checked before anything changes
        snapshot = bool(maindata.get("full_update"))
        if snapshot:
            gone: Iterable[str] = self.torrents.keys() - changes.keys()
            self.server_state = {}
        else:
            gone = removed
        for info_hash in list(gone):
            self._forget(info_hash)
        self.server_state.update(server_state)
        if changes or gone:
            self._generation += 1

        completed: list[str] = []
        for info_hash, delta in changes.items():
            fields = {key: value for key, value in delta.items() if key in TRACKED_FIELDS}
            previous = self.torrents.get(info_hash)
            # A delta lists changed fields only; a snapshot repeats them all, so compare its values.
            progressed = previous is None or any(
                key in fields and (not snapshot or fields[key] != previous.get(key))
                for key in PROGRESS_FIELDS
            )
            # Starting again (after a pause, its turn in the queue, a check or a move) restarts the clock:
            # the time spent waiting was not time without progress.
            progressed |= (
                previous is not None
                and previous.get("state") in WAITING_STATES
                and fields.get("state", previous.get("state")) not in WAITING_STATES
            )
            if snapshot or previous is None:
                torrent = self.torrents[info_hash] = fields
            else:
                torrent = previous
                torrent.update(fields)
            if self._observe(info_hash, torrent, settled=not snapshot, expected=expected):
                completed.append(info_hash)
            self._clock_progress(info_hash, progressed=progressed, now=now)
        if snapshot and not self.incomplete <= self.torrents.keys():
            # Incomplete hashes remembered from before a restart that qBittorrent no longer has.
            self.incomplete &= self.torrents.keys()
            self.incomplete_changed = True
        self.rid = int(maindata.get("rid", 0))
        return completed

    def _observe(
        self, info_hash: str, torrent: Mapping[str, Any], *, settled: bool, expected: Collection[str]
    ) -> bool:
        """Update what is known of one torrent; True when it has just completed."""
        complete = is_complete(torrent)
        state = torrent.get("state")
        completed = False
        if complete and info_hash not in self.complete:
            was_incomplete = info_hash in self.incomplete
            self.incomplete.discard(info_hash)
            self.incomplete_changed |= was_incomplete
            self.complete.add(info_hash)
            completed = was_incomplete or info_hash in expected
        elif not complete and info_hash not in self.incomplete:
            if info_hash in self.complete:
                # A recheck or a move briefly lowers progress; only a real loss of data makes it incomplete.
                becomes_incomplete = state not in CHECKING_STATES and state != "moving"
            else:
                # Seen for the first time. In a snapshot a checking torrent may be an old, complete one whose
                # resume data is being read (qBittorrent just started): decide once the check is over.
                becomes_incomplete = settled or state not in CHECKING_STATES
            if becomes_incomplete:
                self.complete.discard(info_hash)
                self.incomplete.add(info_hash)
                self.incomplete_changed = True

        in_progress = (
            info_hash not in self.complete and state not in PAUSED_STATES and state not in ERROR_STATES
        )
        _toggle(self.active, info_hash, in_progress)
        _toggle(self.queued, info_hash, in_progress and state == "queuedDL")
        _toggle(self.stalled, info_hash, in_progress and state == "stalledDL")
        return completed

    def _clock_progress(self, info_hash: str, *, progressed: bool, now: float) -> None:
        """Restart a torrent's no-progress clock when it gains data, gets its metadata or is first seen."""
        if info_hash in self.complete:
            self.progressed_at.pop(info_hash, None)
        elif progressed or info_hash not in self.progressed_at:
            self.progressed_at[info_hash] = now

    def stuck(self, timeout: float, now: float | None = None) -> set[str]:
        """Return the torrents in progress that gained nothing for `timeout` seconds (queued ones wait).

        One that nobody can finish (`unfinishable`) is stuck sooner, after `unfinishable_wait(timeout)`.
        """
        now = time.monotonic() if now is None else now
        sooner = unfinishable_wait(timeout)
        stuck = set()
        for info_hash in self.active:
            idle = now - self.progressed_at.get(info_hash, now)
            if idle < sooner:
                continue
            torrent = self.torrents[info_hash]
            if torrent.get("state") not in WAITING_TURN_STATES and (idle >= timeout or unfinishable(torrent)):
                stuck.add(info_hash)
        return stuck

    def moving(self, stuck: Collection[str]) -> bool:
        """Whether a torrent downloads or is checked, and is not `stuck`: the fast polling is for those only.

        Queued ones wait for another to finish or stop, which the polling sees first.
        """
        return bool(self.active - self.queued - set(stuck))

    def finishing_in(self, stuck: Collection[str]) -> float | None:
        """Seconds until the first torrent in progress is due to finish, or None when none has an estimate.

        qBittorrent's ETA averages the speed since the start, so it runs long after a slow start: the data
        left at the present speed counts too, whichever is sooner.
        """
        soonest: float | None = None
        for info_hash in self.active - self.queued - set(stuck):
            torrent = self.torrents[info_hash]
            estimates = (
                [float(eta)] if isinstance(eta := torrent.get("eta"), int) and 0 <= eta < ETA_INFINITE else []
            )
            if (speed := numeric(torrent.get("dlspeed"))) > 0 and has_metadata(torrent):
                estimates.append(numeric(torrent.get("amount_left")) / speed)
            if estimates and (soonest is None or min(estimates) < soonest):
                soonest = min(estimates)
        return soonest

    def _forget(self, info_hash: str) -> None:
        self.torrents.pop(info_hash, None)
        self.progressed_at.pop(info_hash, None)
        self.complete.discard(info_hash)
        if info_hash in self.incomplete:
            self.incomplete.discard(info_hash)
            self.incomplete_changed = True
        self.active.discard(info_hash)
        self.queued.discard(info_hash)
        self.stalled.discard(info_hash)

    def download_candidates(self, agent_hashes: Collection[str], limit: int) -> set[str]:
        """Return the downloads that deserve entities: the agent's unfinished ones, then the newest active.

        Remembered between polls that change nothing (choosing among thousands of active torrents costs ms).
        """
        key = (self._generation, frozenset(agent_hashes), limit)
        if self._candidates is not None and self._candidates[0] == key:
            return set(self._candidates[1])
        agents = {h for h in agent_hashes if h in self.torrents and h not in self.complete}
        others = self.active - agents

        def newest(candidates: set[str], count: int) -> set[str]:
            if len(candidates) <= count:
                return candidates
            return set(heapq.nlargest(max(count, 0), candidates, key=self._added_on))

        agents = newest(agents, limit)
        chosen = agents | newest(others, limit - len(agents))
        self._candidates = (key, chosen)
        return set(chosen)

    def _added_on(self, info_hash: str) -> float:
        return numeric(self.torrents[info_hash].get("added_on"))

    def view(self, info_hash: str) -> DownloadView:
        """Return what the entities of one download show."""
        torrent = self.torrents[info_hash]
        complete = info_hash in self.complete
        eta = torrent.get("eta")
        size = int(numeric(torrent.get("size")))
        name = str(torrent.get("name") or info_hash)
        identity = self.identities.get(info_hash)
        return DownloadView(
            info_hash=info_hash,
            name=name,
            label=identity.label if identity is not None else download_label(name, None),
            poster_path=identity.poster_path if identity is not None else None,
            state=download_state(torrent, complete=complete),
            progress=100.0 if complete else round(numeric(torrent.get("progress")) * 100, 2),
            eta=0 if complete else (int(eta) if isinstance(eta, int) and 0 <= eta < ETA_INFINITE else None),
            size=size if size > 0 else None,
            download_speed=int(numeric(torrent.get("dlspeed"))),
        )

    def data(self, downloads: Iterable[str]) -> DownloadsData:
        """Return the aggregate figures and the views of `downloads` (hashes qBittorrent has)."""
        return DownloadsData(
            download_speed=int(numeric(self.server_state.get("dl_info_speed"))),
            upload_speed=int(numeric(self.server_state.get("up_info_speed"))),
            torrents=len(self.torrents),
            active_downloads=len(self.active),
            queued_downloads=len(self.queued),
            stalled_downloads=len(self.stalled),
            downloads={h: self.view(h) for h in sorted(downloads) if h in self.torrents},
        )
