"""Downloads coordinator: follows qBittorrent through incremental sync and detects completed downloads.

qBittorrent's ``sync/maindata`` answers a request carrying the previous ``rid`` with only what changed, so
a steady-state poll of a library of thousands of seeding torrents moves a few hundred bytes, not megabytes.
The coordinator owns its own `QBittorrentClient` (rids are kept per Web UI session; a second consumer on the
same session would break the chain) and merges the deltas itself into a per-hash state (`TorrentTracker`).

Completion is decided per hash from ``progress``/``amount_left``, never from the state string (it lags and
rechecks flip it). The set of hashes seen incomplete is stored, so a download that finishes while Home
Assistant is stopped is announced once after the restart.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from enum import StrEnum
from functools import lru_cache, partial
import heapq
import re
import time
from typing import TYPE_CHECKING, Any, Final

from homeassistant.core import CALLBACK_TYPE, Event, HassJob, HomeAssistant, callback
from homeassistant.exceptions import ConfigEntryAuthFailed
from homeassistant.helpers.event import async_call_later
from homeassistant.helpers.update_coordinator import DataUpdateCoordinator, UpdateFailed

from .announce import async_tell_where_asked
from .clients.errors import AgentMediaClientError, InvalidAuthError
from .const import (
    CONF_SCAN_INTERVAL,
    CONF_STALLED_TIMEOUT,
    DEFAULT_SCAN_INTERVAL,
    DEFAULT_STALLED_TIMEOUT,
    DOMAIN,
    DOWNLOAD_ENTITY_GRACE,
    EVENT_DOWNLOAD_ADDED,
    EVENT_DOWNLOAD_COMPLETED,
    IDLE_SCAN_INTERVAL,
    LOGGER,
    MAX_DOWNLOAD_ENTITIES,
)
from .library import async_organize_completed, should_organize
from .release import parse_release
from .replacement import async_replace_stalled
from .torrents import is_ours, is_tagged_ours
from .untrusted import MAX_NAME, clip, image_path, storable_copy

if TYPE_CHECKING:
    from .clients.qbittorrent import QBittorrentClient
    from .data import AgentMediaConfigEntry
    from .memory import AgentMediaMemory

BACKGROUND_EVENT_COMPLETED: Final = "download_completed"
# qBittorrent 4.x rebuilds its whole torrent list even to answer with a small delta (bench/downloads.py: about
# 0.3 s of its CPU per poll at 5,000 torrents), so a poll may take at most 1/20 of the interval.
POLL_TIME_SHARE: Final = 20

# Only these torrent fields are kept: less memory and less merging for libraries of thousands of torrents.
# Deltas carry changed fields only, so filtering them keeps the kept fields exact.
TRACKED_FIELDS: Final = frozenset(
    {
        "added_on",
        "amount_left",
        "category",
        "content_path",
        "dlspeed",
        "eta",
        "name",
        "progress",
        "save_path",
        "size",
        "state",
        "tags",
        "total_size",
    }
)
# How long a download of ours just added or started keeps the polling fast without showing progress.
START_WINDOW: Final = 30.0  # seconds
REPLACEMENT_RETRY: Final = 600.0  # seconds before a replacement that could not be done is tried again
REASON_NO_METADATA: Final = "no_metadata"
REASON_NO_PROGRESS: Final = "no_progress"
# An add of ours older than this that is still stopped and unrecorded was cut short (say, by a crash).
INTERRUPTED_ADD_AGE: Final = 60.0  # seconds
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
# Media fields of an agent-recorded download that go into the completion event (docs/architecture.md).
COMPLETION_MEDIA_KEYS: Final = ("title", "year", "imdb_id", "media_type", "poster_path")
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


def _number(value: Any) -> float:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0.0


def is_complete(torrent: Mapping[str, Any]) -> bool:
    """Return True when every wanted byte is there (a magnet still fetching metadata has size 0)."""
    if _number(torrent.get("size")) <= 0:
        return False
    amount_left = torrent.get("amount_left")
    return _number(torrent.get("progress")) >= 1 or (amount_left is not None and _number(amount_left) == 0)


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
        """Return the torrents in progress that gained nothing for `timeout` seconds (queued ones wait)."""
        now = time.monotonic() if now is None else now
        return {
            info_hash
            for info_hash in self.active
            if now - self.progressed_at.get(info_hash, now) >= timeout
            and self.torrents[info_hash].get("state") not in WAITING_TURN_STATES
        }

    def moving(self, stuck: Collection[str]) -> bool:
        """Whether a torrent downloads or is checked, and is not `stuck`: the fast polling is for those only.

        Queued ones wait for another to finish or stop, which the polling sees first.
        """
        return bool(self.active - self.queued - set(stuck))

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
        return _number(self.torrents[info_hash].get("added_on"))

    def view(self, info_hash: str) -> DownloadView:
        """Return what the entities of one download show."""
        torrent = self.torrents[info_hash]
        complete = info_hash in self.complete
        eta = torrent.get("eta")
        size = int(_number(torrent.get("size")))
        name = str(torrent.get("name") or info_hash)
        identity = self.identities.get(info_hash)
        return DownloadView(
            info_hash=info_hash,
            name=name,
            label=identity.label if identity is not None else download_label(name, None),
            poster_path=identity.poster_path if identity is not None else None,
            state=download_state(torrent, complete=complete),
            progress=100.0 if complete else round(_number(torrent.get("progress")) * 100, 2),
            eta=0 if complete else (int(eta) if isinstance(eta, int) and 0 <= eta < ETA_INFINITE else None),
            size=size if size > 0 else None,
            download_speed=int(_number(torrent.get("dlspeed"))),
        )

    def data(self, downloads: Iterable[str]) -> DownloadsData:
        """Return the aggregate figures and the views of `downloads` (hashes qBittorrent has)."""
        return DownloadsData(
            download_speed=int(_number(self.server_state.get("dl_info_speed"))),
            upload_speed=int(_number(self.server_state.get("up_info_speed"))),
            torrents=len(self.torrents),
            active_downloads=len(self.active),
            queued_downloads=len(self.queued),
            stalled_downloads=len(self.stalled),
            downloads={h: self.view(h) for h in sorted(downloads) if h in self.torrents},
        )


def completion_payload(
    entry_id: str, info_hash: str, torrent: Mapping[str, Any], agent_record: Mapping[str, Any] | None
) -> dict[str, Any]:
    """Return the JSON-safe data of ``agent_media_download_completed`` (docs/architecture.md)."""
    agent_record = agent_record or {}
    payload: dict[str, Any] = {
        "entry_id": entry_id,
        "hash": info_hash,
        "name": str(torrent.get("name") or agent_record.get("name") or info_hash),
        "save_path": str(torrent.get("save_path") or agent_record.get("save_path") or ""),
        "content_path": str(torrent.get("content_path") or ""),
        "size": int(_number(torrent.get("size"))),
        "category": str(torrent.get("category") or ""),
    }
    media = agent_record.get("media")
    if isinstance(media, Mapping):
        payload.update({key: media[key] for key in COMPLETION_MEDIA_KEYS if media.get(key) is not None})
    payload["name"] = clip(payload["name"], MAX_NAME)
    result: dict[str, Any] = storable_copy(payload)  # names and paths come from qBittorrent
    return result


@callback
def _keep_polling() -> None:
    """Keep the coordinator polling with every entity disabled: completion events still matter."""


class DownloadsCoordinator(DataUpdateCoordinator[DownloadsData]):
    """Polls qBittorrent incrementally, feeds the download entities and fires completion events."""

    config_entry: AgentMediaConfigEntry

    def __init__(
        self,
        hass: HomeAssistant,
        entry: AgentMediaConfigEntry,
        client: QBittorrentClient,
        memory: AgentMediaMemory,
    ) -> None:
        """Set up the coordinator; `client` must be used by nobody else (its sync rid)."""
        scan_interval = float(entry.options.get(CONF_SCAN_INTERVAL, DEFAULT_SCAN_INTERVAL))
        self._busy_interval = timedelta(seconds=min(max(scan_interval, 1.0), IDLE_SCAN_INTERVAL))
        self._idle_interval = timedelta(seconds=IDLE_SCAN_INTERVAL)
        super().__init__(
            hass,
            LOGGER,
            config_entry=entry,
            name=f"{DOMAIN} downloads",
            update_interval=self._idle_interval,
            always_update=False,
        )
        self.client = client
        self._memory = memory
        self._tracker = TorrentTracker()
        self._agent_hashes: set[str] = set()
        self._shown: set[str] = set()  # downloads with entities
        self._lingering: dict[str, CALLBACK_TYPE] = {}  # shown downloads waiting out the grace period
        # Events found by the first refresh wait until the entities listen (setup forwards the platforms
        # after the first refresh); None once they go straight to the bus.
        self._deferred_events: list[tuple[str, dict[str, Any]]] | None = []
        self._unsubscribe: list[CALLBACK_TYPE] = []
        self._adopted: set[str] = set()  # interrupted adds already handed to a safety check
        # Downloads of ours just added or started: fast polling until qBittorrent shows them moving.
        self._starting: dict[str, float] = {}  # hash → monotonic deadline
        self._stalled_timeout = float(entry.options.get(CONF_STALLED_TIMEOUT, DEFAULT_STALLED_TIMEOUT))
        self._replacing: dict[str, float] = {}  # hash → monotonic time its replacement may be tried again

    async def _async_setup(self) -> None:
        """Read what is known from before a restart and listen for downloads the agent adds."""
        self._tracker = TorrentTracker(self._memory.downloads.incomplete())
        self._unsubscribe.append(
            self.hass.bus.async_listen(
                EVENT_DOWNLOAD_ADDED, self._async_download_added, event_filter=self._is_this_entry
            )
        )
        self._unsubscribe.append(self.async_add_listener(_keep_polling))

    @callback
    def _is_this_entry(self, event_data: Mapping[str, Any]) -> bool:
        return bool(event_data.get("entry_id") == self.config_entry.entry_id)

    async def _async_update_data(self) -> DownloadsData:
        """Fetch the changes since the last poll and merge them."""
        if self.data is not None:
            self.release_deferred_events()
        started = time.monotonic()
        try:
            maindata = await self.client.async_sync_maindata(self._tracker.rid)
        except InvalidAuthError as err:
            self._tracker.rid = 0
            raise ConfigEntryAuthFailed(
                translation_domain=DOMAIN,
                translation_key="downloads_auth_failed",
                translation_placeholders={"detail": err.detail},
            ) from err
        except AgentMediaClientError as err:
            self._tracker.rid = 0
            raise UpdateFailed(
                translation_domain=DOMAIN,
                translation_key="downloads_update_failed",
                translation_placeholders={"detail": err.detail},
            ) from err

        self._agent_hashes = self._memory.downloads.hashes()
        try:
            completed = self._tracker.apply(maindata, expected=self._agent_hashes)
        except ValueError as err:
            self._tracker.rid = 0  # start again from a full snapshot
            raise UpdateFailed(
                translation_domain=DOMAIN,
                translation_key="downloads_update_failed",
                translation_placeholders={"detail": str(err)},
            ) from err
        for info_hash in completed:
            self._async_completed(info_hash)
        # What acts through the entry's runtime data waits for the second poll: setup sets it after the first.
        set_up = self.data is not None
        for info_hash in self._interrupted_adds() if set_up else ():
            self._adopted.add(info_hash)
            name = str(self._tracker.torrents[info_hash].get("name") or info_hash)
            self.config_entry.runtime_data.operations.adder.adopt_interrupted_add(info_hash, name)
        if self._tracker.incomplete_changed:
            self._tracker.incomplete_changed = False
            self._memory.downloads.set_incomplete(self._tracker.incomplete)

        now = time.monotonic()
        # With replacement off, stuck torrents still stop the fast polling, after the default timeout.
        stuck = self._tracker.stuck(self._stalled_timeout or DEFAULT_STALLED_TIMEOUT, now)
        if set_up:
            self._start_replacements(stuck if self._stalled_timeout > 0 else set(), now)
        if self._is_busy(stuck, now):
            self.update_interval = min(
                max(self._busy_interval, timedelta(seconds=(now - started) * POLL_TIME_SHARE)),
                self._idle_interval,
            )
        else:
            self.update_interval = self._idle_interval
        return self._build_data()

    def _is_busy(self, stuck: set[str], now: float) -> bool:
        """Whether to poll fast: something moves, one of ours was just started or is being replaced.

        Stuck ones do not count.
        """
        tracker = self._tracker
        for info_hash, deadline in list(self._starting.items()):
            if deadline <= now or info_hash in tracker.complete:
                del self._starting[info_hash]
        return bool(self._starting) or tracker.moving(stuck) or bool(self._memory.downloads.being_replaced())

    def _start_replacements(self, stuck: set[str], now: float) -> None:
        """Hand each dead download of ours to a replacement, in the background (it searches and adds)."""
        for info_hash, reason in self._stalled_downloads(stuck, now):
            self._replacing[info_hash] = now + REPLACEMENT_RETRY
            self.config_entry.async_create_background_task(
                self.hass,
                async_replace_stalled(self.hass, self.config_entry, info_hash, reason),
                f"{DOMAIN} replace {info_hash}",
            )

    def _stalled_downloads(self, stuck: set[str], now: float) -> list[tuple[str, str]]:
        """Return our recorded downloads stuck for the stalled timeout, with why (no metadata or progress).

        Replacements decided but not finished (their removal failed, or a restart cut them short) come too.
        """
        for info_hash, retry_at in list(self._replacing.items()):
            if retry_at <= now:
                del self._replacing[info_hash]
        unfinished = self._memory.downloads.being_replaced() - self._replacing.keys()
        found = [(info_hash, "") for info_hash in unfinished]  # the reason was stored with the decision
        for info_hash in stuck & self._agent_hashes - self._replacing.keys() - unfinished:
            torrent = self._tracker.torrents[info_hash]
            if not is_ours(torrent, self._memory.downloads.get(info_hash)):
                continue  # someone else's torrent that was asked for again: not ours to replace
            has_metadata = _number(torrent.get("size")) > 0
            found.append((info_hash, REASON_NO_PROGRESS if has_metadata else REASON_NO_METADATA))
        return found

    @callback
    def expect_start(self, info_hash: str) -> None:
        """Poll fast for a while: one of ours was just added or started (qBittorrent shows it a bit later)."""
        self._starting[info_hash] = time.monotonic() + START_WINDOW
        self.update_interval = self._busy_interval

    def _interrupted_adds(self) -> list[str]:
        """Return our torrents (tagged) that sit stopped, incomplete and unrecorded: an add cut short."""
        now = time.time()
        found = []
        for info_hash, torrent in self._tracker.torrents.items():
            # Cheapest tests first: this runs over every torrent at every poll.
            if (
                torrent.get("state") in PAUSED_STATES
                and info_hash not in self._agent_hashes
                and info_hash not in self._adopted
                and not is_complete(torrent)
                and now - _number(torrent.get("added_on")) > INTERRUPTED_ADD_AGE
                and is_tagged_ours(torrent)
            ):
                found.append(info_hash)
        return found

    @callback
    def _async_completed(self, info_hash: str) -> None:
        """Announce a finished download: bus event, event entity, and the agent's background events."""
        agent_record = self._memory.downloads.pop(info_hash)
        self._agent_hashes.discard(info_hash)
        payload = completion_payload(
            self.config_entry.entry_id, info_hash, self._tracker.torrents[info_hash], agent_record
        )
        LOGGER.debug("Download %s (%s) completed", payload["name"], info_hash)
        requester = (agent_record or {}).get("requester")
        if should_organize(self.config_entry, payload):
            # Files first (in the executor), so that the event tells where the media went (library_path).
            self.config_entry.async_create_background_task(
                self.hass,
                self._async_organize_and_announce(payload, requester),
                f"{DOMAIN} organise {info_hash}",
            )
            return
        self._async_announce(payload, requester)

    async def _async_organize_and_announce(self, payload: dict[str, Any], requester: str | None) -> None:
        self._async_announce(await async_organize_completed(self.hass, self.config_entry, payload), requester)

    @callback
    def _async_announce(self, payload: dict[str, Any], requester: str | None = None) -> None:
        async_tell_where_asked(self.hass, self.config_entry, payload, requester)
        self._memory.journal.add_event(BACKGROUND_EVENT_COMPLETED, payload)
        if payload.get("title"):  # known media: ours (the latest_download image shows it, before the event)
            self._memory.downloads.set_latest_completed(
                download_label(payload["name"], payload), payload.get("poster_path")
            )
        if self._deferred_events is None:
            self.hass.bus.async_fire(EVENT_DOWNLOAD_COMPLETED, payload)
        else:
            self._deferred_events.append((EVENT_DOWNLOAD_COMPLETED, payload))

    @callback
    def release_deferred_events(self) -> None:
        """Fire what the first refresh found, once something listens (the event entity, or the next poll)."""
        deferred, self._deferred_events = self._deferred_events, None
        for event_type, payload in deferred or ():
            self.hass.bus.async_fire(event_type, payload)

    async def _async_download_added(self, event: Event[Mapping[str, Any]]) -> None:
        """Poll at once for a download the agent added; announce it if qBittorrent already finished it."""
        info_hash = str(event.data.get("hash", "")).lower()
        self.expect_start(info_hash)
        if info_hash in self._tracker.complete and info_hash in self._memory.downloads.hashes():
            # Seen complete before it was recorded (a torrent of existing data completes on arrival).
            self._async_completed(info_hash)
        await self.async_request_refresh()

    def _build_data(self) -> DownloadsData:
        """Decide which downloads have entities, with a grace period before finished ones go away."""
        wanted = self._tracker.download_candidates(self._agent_hashes, MAX_DOWNLOAD_ENTITIES)
        for info_hash in self._shown - wanted:
            if info_hash not in self._tracker.torrents:
                self._stop_lingering(info_hash)  # removed from qBittorrent: no reason to wait
            elif info_hash not in self._lingering:
                self._lingering[info_hash] = async_call_later(
                    self.hass,
                    DOWNLOAD_ENTITY_GRACE,
                    HassJob(
                        partial(self._async_grace_over, info_hash),
                        f"{DOMAIN} download grace period",
                        cancel_on_shutdown=True,
                    ),
                )
        for info_hash in wanted & self._lingering.keys():
            self._stop_lingering(info_hash)
        self._shown = wanted | (self._lingering.keys() & self._tracker.torrents.keys())
        identities: dict[str, DownloadIdentity] = {}
        for info_hash in self._shown:
            if (media := self._memory.downloads.media(info_hash)) is not None:
                name = str(self._tracker.torrents[info_hash].get("name") or info_hash)
                identities[info_hash] = DownloadIdentity(
                    download_label(name, media), image_path(media.get("poster_path"))
                )
            elif (known := self._tracker.identities.get(info_hash)) is not None:
                identities[info_hash] = known  # completed: its record is gone, the name people know stays
        self._tracker.identities = identities
        return self._tracker.data(self._shown)

    def _stop_lingering(self, info_hash: str) -> None:
        if (cancel := self._lingering.pop(info_hash, None)) is not None:
            cancel()

    @callback
    def _async_grace_over(self, info_hash: str, _now: datetime) -> None:
        """Drop a finished download's entities once its grace period is over."""
        self._lingering.pop(info_hash, None)
        self._shown.discard(info_hash)
        if self.data is not None:
            self.data = self._tracker.data(self._shown)
            self.async_update_listeners()

    async def async_shutdown(self) -> None:
        """Stop polling and timers, fire what is still deferred, and write the state now (for a reload)."""
        await super().async_shutdown()
        while self._unsubscribe:
            self._unsubscribe.pop()()
        for info_hash in list(self._lingering):
            self._stop_lingering(info_hash)
        self.release_deferred_events()
        await self._memory.async_flush()  # what those events and the last poll changed, before a reload
