"""Downloads coordinator: watches qBittorrent through incremental sync; it acts on nothing.

qBittorrent's ``sync/maindata`` answers a request carrying the previous ``rid`` with only what changed, so
a steady-state poll of a library of thousands of seeding torrents moves a few hundred bytes, not megabytes.
The coordinator owns its own `QBittorrentClient` (rids are kept per Web UI session; a second consumer on the
same session would break the chain) and merges the deltas into a `TorrentTracker` (torrents.py).

Each poll gives the entities their data (`DownloadsData`) and publishes what changed (`DownloadChanges`:
downloads that completed, recorded downloads that stalled or that qBittorrent no longer has, adds that were
cut short) on the entry's `SIGNAL_DOWNLOADS_CHANGED`; the lifecycle (lifecycle.py) reacts to it. The set of
hashes seen incomplete is stored, so a download that finishes while Home Assistant is stopped is reported
once after the restart.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import partial
import time
from typing import TYPE_CHECKING, Any, Final

from homeassistant.core import CALLBACK_TYPE, HassJob, HomeAssistant, callback
from homeassistant.exceptions import ConfigEntryAuthFailed
from homeassistant.helpers.dispatcher import async_dispatcher_connect, async_dispatcher_send
from homeassistant.helpers.event import async_call_later
from homeassistant.helpers.update_coordinator import DataUpdateCoordinator, UpdateFailed
from homeassistant.util.signal_type import SignalTypeFormat

from .clients.errors import AgentMediaClientError, InvalidAuthError
from .const import (
    CONF_SCAN_INTERVAL,
    CONF_STALLED_TIMEOUT,
    DEFAULT_SCAN_INTERVAL,
    DEFAULT_STALLED_TIMEOUT,
    DOMAIN,
    DOWNLOAD_ENTITY_GRACE,
    IDLE_SCAN_INTERVAL,
    LOGGER,
    MAX_DOWNLOAD_ENTITIES,
    SIGNAL_DOWNLOAD_ADDED,
)
from .torrents import (
    PAUSED_STATES,
    DownloadIdentity,
    DownloadsData,
    TorrentTracker,
    download_label,
    has_metadata,
    is_complete,
    is_ours,
    is_tagged_ours,
    numeric,
    unfinishable,
)
from .untrusted import image_path

if TYPE_CHECKING:
    from collections.abc import Mapping

    from homeassistant.config_entries import ConfigEntry

    from .clients.qbittorrent import QBittorrentClient
    from .memory import AgentMediaMemory

# qBittorrent 4.x rebuilds its whole torrent list even to answer with a small delta (bench/downloads.py: about
# 0.3 s of its CPU per poll at 5,000 torrents), so a poll may take at most 1/20 of the interval.
POLL_TIME_SHARE: Final = 20
# A download due to finish (`TorrentTracker.finishing_in`: estimates that run long while the speed rises) is
# polled for at half that time, again at each poll, but never sooner than this after the last poll.
FINISH_POLL_MIN: Final = 1.0  # seconds
# How long a download of ours just added or started keeps the polling fast without showing progress.
START_WINDOW: Final = 30.0  # seconds
REASON_NO_METADATA: Final = "no_metadata"
REASON_NO_PROGRESS: Final = "no_progress"
REASON_UNFINISHABLE: Final = "unfinishable"  # no peer has ever had every piece, no seed (torrents.py)
# An add of ours older than this that is still stopped and unrecorded was cut short (say, by a crash).
INTERRUPTED_ADD_AGE: Final = 60.0  # seconds
# A recorded download that qBittorrent has not listed for this long was removed there, not through us. Long,
# because after a restart qBittorrent lists its torrents only as it loads them.
RECORD_ABSENCE_LIMIT: Final = 900.0  # seconds


@dataclass(frozen=True, slots=True)
class CompletedTorrent:
    """A torrent that has just completed, with its tracked fields as qBittorrent gave them then."""

    info_hash: str
    torrent: Mapping[str, Any]


@dataclass(frozen=True, slots=True, kw_only=True)
class DownloadChanges:
    """What one poll found to act on (the lifecycle's input)."""

    completed: tuple[CompletedTorrent, ...] = ()
    # Recorded downloads of ours without metadata or progress for the stalled timeout → why (REASON_*); none
    # while the timeout is 0 (replacement off).
    stalled: Mapping[str, str] = field(default_factory=dict)
    # Torrents with our tag that sit stopped, incomplete and unrecorded: an add cut short → their name.
    interrupted_adds: Mapping[str, str] = field(default_factory=dict)
    # Recorded downloads qBittorrent has not listed for `RECORD_ABSENCE_LIMIT`: removed outside Agent Media.
    removed_elsewhere: tuple[str, ...] = ()


# The coordinator's output inside one entry, formatted with the entry id. Declared here, not in const.py,
# because its payload type lives here.
SIGNAL_DOWNLOADS_CHANGED: Final = SignalTypeFormat[DownloadChanges]("agent_media_downloads_changed_{}")


@callback
def _keep_polling() -> None:
    """Keep the coordinator polling with every entity disabled: completions still matter."""


class DownloadsCoordinator(DataUpdateCoordinator[DownloadsData]):
    """Polls qBittorrent incrementally, feeds the download entities and publishes what changed.

    It polls once at setup (the entities' first data); it polls on its schedule once `async_watch` is
    called, by the lifecycle after the platforms are set up, which takes the changes that first poll found.
    So every change set is acted on once, and no completion is told before its entities listen.
    """

    config_entry: ConfigEntry

    def __init__(
        self,
        hass: HomeAssistant,
        entry: ConfigEntry,
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
            update_interval=None,  # until watched
            always_update=False,
        )
        self.client = client
        self._memory = memory
        self._tracker = TorrentTracker()
        self._agent_hashes: set[str] = set()
        self._shown: set[str] = set()  # downloads with entities
        self._lingering: dict[str, CALLBACK_TYPE] = {}  # shown downloads waiting out the grace period
        self._unsubscribe: list[CALLBACK_TYPE] = []
        # Downloads of ours just added or started: fast polling until qBittorrent shows them moving.
        self._starting: dict[str, float] = {}  # hash → monotonic deadline
        self._stalled_timeout = float(entry.options.get(CONF_STALLED_TIMEOUT, DEFAULT_STALLED_TIMEOUT))
        self._interval = self._idle_interval  # the schedule the last poll chose
        self._absent_since: dict[str, float] = {}  # recorded downloads qBittorrent does not list → since when
        self._watched = False
        self._unwatched_changes = DownloadChanges()  # found before anyone watched: the first poll's

    async def _async_setup(self) -> None:
        """Read what is known from before a restart and listen for downloads the agent adds."""
        self._tracker = TorrentTracker(self._memory.downloads.incomplete())
        self._unsubscribe.append(
            async_dispatcher_connect(
                self.hass,
                SIGNAL_DOWNLOAD_ADDED.format(self.config_entry.entry_id),
                self._async_download_added,
            )
        )

    @callback
    def async_watch(self) -> DownloadChanges:
        """Start polling on schedule; return what the polls so far found (handed over once)."""
        self._watched = True
        self.update_interval = self._interval
        self._unsubscribe.append(self.async_add_listener(_keep_polling))
        self._schedule_refresh()
        changes, self._unwatched_changes = self._unwatched_changes, DownloadChanges()
        return changes

    async def _async_update_data(self) -> DownloadsData:
        """Fetch the changes since the last poll, merge them and publish what changed."""
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
        if self._tracker.incomplete_changed:
            self._tracker.incomplete_changed = False
            self._memory.downloads.set_incomplete(self._tracker.incomplete)

        now = time.monotonic()
        # With replacement off, stuck torrents still stop the fast polling, after the default timeout.
        stuck = self._tracker.stuck(self._stalled_timeout or DEFAULT_STALLED_TIMEOUT, now)
        self._publish(
            DownloadChanges(
                completed=tuple(self._completed(info_hash) for info_hash in completed),
                stalled=self._stalled(stuck) if self._stalled_timeout > 0 else {},
                interrupted_adds=self._interrupted_adds(),
                removed_elsewhere=self._removed_elsewhere(now),
            )
        )
        self._agent_hashes = self._memory.downloads.hashes()  # what the lifecycle finished is no longer ours
        if self._is_busy(stuck, now):
            poll_share = timedelta(seconds=(now - started) * POLL_TIME_SHARE)
            self._interval = min(max(self._busy_interval, poll_share), self._idle_interval)
            if (finishing := self._tracker.finishing_in(stuck)) is not None:
                # Tell a completion when it happens, not up to a whole interval later.
                due = timedelta(seconds=max(finishing / 2, FINISH_POLL_MIN))
                self._interval = min(self._interval, max(due, poll_share))
        else:
            self._interval = self._idle_interval
        self.update_interval = self._interval if self._watched else None
        return self._build_data()

    def _publish(self, changes: DownloadChanges) -> None:
        """Hand what changed to the lifecycle (kept for `async_watch` until it watches)."""
        if not self._watched:
            previous = self._unwatched_changes
            self._unwatched_changes = DownloadChanges(
                completed=previous.completed + changes.completed,
                stalled=changes.stalled,
                interrupted_adds=changes.interrupted_adds,
                removed_elsewhere=changes.removed_elsewhere,
            )
        else:  # every poll, even with nothing new: an unfinished replacement is retried at a poll
            async_dispatcher_send(
                self.hass, SIGNAL_DOWNLOADS_CHANGED.format(self.config_entry.entry_id), changes
            )

    def _completed(self, info_hash: str) -> CompletedTorrent:
        return CompletedTorrent(info_hash, dict(self._tracker.torrents[info_hash]))

    def _is_busy(self, stuck: set[str], now: float) -> bool:
        """Whether to poll fast: something moves, one of ours was just started or is being replaced.

        Stuck ones do not count.
        """
        tracker = self._tracker
        for info_hash, deadline in list(self._starting.items()):
            if deadline <= now or info_hash in tracker.complete:
                del self._starting[info_hash]
        return bool(self._starting) or tracker.moving(stuck) or bool(self._memory.downloads.being_replaced())

    def _stalled(self, stuck: set[str]) -> dict[str, str]:
        """Return our recorded downloads among `stuck`, with why: no metadata, unfinishable, no progress."""
        stalled = {}
        for info_hash in stuck & self._agent_hashes:
            torrent = self._tracker.torrents[info_hash]
            if is_ours(torrent, self._memory.downloads.get(info_hash)):  # not someone's asked for again
                stalled[info_hash] = (
                    REASON_NO_METADATA
                    if not has_metadata(torrent)
                    else REASON_UNFINISHABLE
                    if unfinishable(torrent)
                    else REASON_NO_PROGRESS
                )
        return stalled

    def _interrupted_adds(self) -> dict[str, str]:
        """Return our torrents (tagged) that sit stopped, incomplete and unrecorded: an add cut short."""
        now = time.time()
        found = {}
        for info_hash, torrent in self._tracker.torrents.items():
            # Cheapest tests first: this runs over every torrent at every poll.
            if (
                torrent.get("state") in PAUSED_STATES
                and info_hash not in self._agent_hashes
                and not is_complete(torrent)
                and now - numeric(torrent.get("added_on")) > INTERRUPTED_ADD_AGE
                and is_tagged_ours(torrent)
            ):
                found[info_hash] = str(torrent.get("name") or info_hash)
        return found

    def _removed_elsewhere(self, now: float) -> tuple[str, ...]:
        """Return our recorded downloads that qBittorrent has not listed for `RECORD_ABSENCE_LIMIT`.

        Not those being replaced (their torrent is removed before their record) and none while qBittorrent
        lists nothing at all: then it is more likely loading its torrents than emptied.
        """
        listed = self._tracker.torrents
        if not listed:
            return ()
        missing = self._agent_hashes - listed.keys() - self._memory.downloads.being_replaced()
        for info_hash in self._absent_since.keys() - missing:
            del self._absent_since[info_hash]
        return tuple(
            info_hash
            for info_hash in missing
            if now - self._absent_since.setdefault(info_hash, now) >= RECORD_ABSENCE_LIMIT
        )

    @callback
    def expect_start(self, info_hash: str) -> None:
        """Poll fast for a while: one of ours was just added or started (qBittorrent shows it a bit later)."""
        self._starting[info_hash] = time.monotonic() + START_WINDOW
        self._interval = self._busy_interval
        if self._watched:
            self.update_interval = self._interval

    async def _async_download_added(self, info_hash: str) -> None:
        """Poll at once for a download the agent added; report it if qBittorrent already finished it."""
        info_hash = info_hash.lower()
        self.expect_start(info_hash)
        if info_hash in self._tracker.complete and info_hash in self._memory.downloads.hashes():
            # Seen complete before it was recorded (a torrent of existing data completes on arrival).
            self._publish(DownloadChanges(completed=(self._completed(info_hash),)))
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
        """Stop polling and timers, and write the state now (for a reload)."""
        await super().async_shutdown()
        while self._unsubscribe:
            self._unsubscribe.pop()()
        for info_hash in list(self._lingering):
            self._stop_lingering(info_hash)
        await self._memory.async_flush()  # what the last poll changed, before a reload
