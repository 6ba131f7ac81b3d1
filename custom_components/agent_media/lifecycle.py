"""The download lifecycle: what Agent Media does when the coordinator reports a change.

The coordinator (coordinator.py) only watches qBittorrent; after each poll it publishes a `DownloadChanges`
on the entry's `SIGNAL_DOWNLOADS_CHANGED`. The lifecycle reacts:

- a completed download: its record is closed, its files organised into the library when that is on
  (library.py), then the completion is told: announced where it was asked (announce.py), the latest
  completed download kept for its poster, the news journalled, the bus event fired and the same event sent
  to the entry's entities (news.py);
- a recorded download of ours stalled for the stalled timeout: replaced (replacement.py), at most once per
  `REPLACEMENT_RETRY`; a replacement decided but not finished is finished;
- an add of ours cut short: taken back through the safety check (the operations' `adder`, passed in);
- a recorded download removed in qBittorrent itself: its record forgotten, so that it is not spoken of as
  active or checked again at each restart.

It starts once the platforms are set up (`async_start`, which takes the changes the coordinator's first poll
found during setup), so a completion found at a restart reaches the entities, the bus and the journal once.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any, Final

from homeassistant.core import callback
from homeassistant.helpers.dispatcher import async_dispatcher_connect

from .announce import async_announce
from .const import DOMAIN, LOGGER
from .coordinator import SIGNAL_DOWNLOADS_CHANGED
from .library import async_organize_completed, async_refresh_library, is_organizable, media_folder_name
from .memory import completion_keys, title_key
from .news import LIBRARY_NOT_REFRESHED, LIBRARY_REFRESHED, NewsKind, async_tell, completion_payload
from .replacement import StalledReplacer
from .torrents import download_label

if TYPE_CHECKING:
    from collections.abc import Mapping

    from homeassistant.core import CALLBACK_TYPE, HomeAssistant

    from .clients.qbittorrent import QBittorrentClient
    from .coordinator import CompletedTorrent, DownloadChanges, DownloadsCoordinator
    from .memory import AgentMediaMemory
    from .operations import Operations
    from .operations.base import BackgroundRunner

REPLACEMENT_RETRY: Final = 600.0  # seconds before a replacement that could not be done is tried again


class DownloadLifecycle:
    """Reacts to one entry's download changes: completion, stalled downloads, interrupted adds, removals."""

    def __init__(
        self,
        hass: HomeAssistant,
        *,
        entry_id: str,
        coordinator: DownloadsCoordinator,
        memory: AgentMediaMemory,
        qbittorrent: QBittorrentClient,
        operations: Operations,
        start_background: BackgroundRunner,
        organize_library: bool,
        announce_completions: bool,
        announce_target: str | None,
        library_refresh: str | None = None,
    ) -> None:
        """Keep the collaborators and the options the reactions need; `async_start` starts reacting."""
        self.hass = hass
        self.entry_id = entry_id
        self._coordinator = coordinator
        self._memory = memory
        self._qbittorrent = qbittorrent
        self._operations = operations
        self._start_background = start_background
        self._organize_library = organize_library
        self._announce_completions = announce_completions
        self._announce_target = announce_target
        self._library_refresh = library_refresh
        self._replacer = StalledReplacer(
            hass, entry_id=entry_id, memory=memory, qbittorrent=qbittorrent, operations=operations
        )
        self._replacing: dict[str, float] = {}  # hash → monotonic time its replacement may be tried again
        self._adopted: set[str] = set()  # interrupted adds already handed to a safety check
        self._unsubscribe: list[CALLBACK_TYPE] = []

    @callback
    def async_start(self) -> None:
        """React from now on, starting with what the coordinator found while the entry was set up."""
        self._unsubscribe = [
            async_dispatcher_connect(
                self.hass, SIGNAL_DOWNLOADS_CHANGED.format(self.entry_id), self._async_react
            ),
        ]
        self._async_react(self._coordinator.async_watch())

    @callback
    def async_stop(self) -> None:
        """Stop reacting (the entry unloads; its background work is cancelled with it)."""
        while self._unsubscribe:
            self._unsubscribe.pop()()

    @callback
    def _async_react(self, changes: DownloadChanges) -> None:
        for completed in changes.completed:
            self._async_completed(completed)
        self._start_replacements(changes.stalled)
        for info_hash, name in changes.interrupted_adds.items():
            if info_hash not in self._adopted:
                self._adopted.add(info_hash)
                self._operations.adder.adopt_interrupted_add(info_hash, name)
        for info_hash in changes.removed_elsewhere:
            if (record := self._memory.downloads.pop(info_hash)) is not None:
                LOGGER.info("Forgot %s: it was removed from qBittorrent", record["name"])

    # --- completion ----------------------------------------------------------------------------------------

    @callback
    def _async_completed(self, completed: CompletedTorrent) -> None:
        """Close a finished download's record; organise its files if asked, then tell it."""
        info_hash = completed.info_hash
        agent_record = self._memory.downloads.pop(info_hash)
        payload = completion_payload(self.entry_id, info_hash, completed.torrent, agent_record)
        LOGGER.debug("Download %s (%s) completed", payload["name"], info_hash)
        requester = agent_record.get("requester") if agent_record is not None else None
        media = agent_record.get("media") if agent_record is not None else None
        keys = completion_keys(info_hash, media)
        organize = self._organize_library and is_organizable(payload)
        if organize or self._library_refresh:
            # Ready means playable: the files placed first (in the executor, so the event tells library_path),
            # then the media server refreshed, and only then the news.
            self._start_background(
                self._async_make_ready_and_tell(
                    payload, requester, keys, media or payload, organize=organize
                ),
                f"{DOMAIN} make ready {info_hash}",
            )
            return
        self._async_tell_completed(payload, requester, keys)

    async def _async_make_ready_and_tell(
        self,
        payload: dict[str, Any],
        requester: str | None,
        keys: list[str],
        media: Mapping[str, Any],
        *,
        organize: bool,
    ) -> None:
        if organize:
            payload = await async_organize_completed(self.hass, self._memory, self._qbittorrent, payload)
            if payload.get("library_path"):  # in the library now: the media source shows it, "play" finds it
                self._memory.library.add(title_key(media), media, media_folder_name(media))
        if self._library_refresh:
            refreshed = await async_refresh_library(self.hass, self._library_refresh)
            payload["library_refresh"] = LIBRARY_REFRESHED if refreshed else LIBRARY_NOT_REFRESHED
        self._async_tell_completed(payload, requester, keys)

    @callback
    def _async_tell_completed(self, payload: dict[str, Any], requester: str | None, keys: list[str]) -> None:
        """Tell a finished download: to whoever asked for it or subscribed to it, then to the household."""
        subscribers = self._memory.subscriptions.take(keys)
        # A followed show's episode is told to its followers only (each time), not to the household.
        followers = list(dict.fromkeys(key for title in keys for key in self._memory.wanted.followers(title)))
        targets = {subscriber["requester"]: subscriber.get("target") for subscriber in subscribers}
        targets.update((follower, targets.get(follower)) for follower in followers)
        payload["subscribers"] = list(targets)
        # Each is told once, where they are: the requester on the entry's target, each subscriber on theirs.
        told: list[tuple[str | None, str | None]] = []
        if self._announce_completions:
            told.append((requester, self._announce_target))
        told.extend(
            (key, target)
            for key, target in targets.items()
            if not self._announce_completions or key != requester
        )
        language = self._memory.household.language() or self.hass.config.language
        for requester_key, target in told:
            self._start_background(
                async_announce(self.hass, payload, requester_key, language=language, target=target),
                f"{DOMAIN} announce {payload.get('hash')}",
            )
        if payload.get("title"):  # known media: ours (the latest_download image shows it, before the event)
            self._memory.downloads.set_latest_completed(
                download_label(payload["name"], payload), payload.get("poster_path")
            )
        event_id = async_tell(
            self.hass,
            self.entry_id,
            self._memory.journal,
            NewsKind.COMPLETED,
            payload,
            household=not followers,
        )
        self._memory.subscriptions.add_untold(payload["subscribers"], event_id)

    # --- stalled downloads ---------------------------------------------------------------------------------

    def _start_replacements(self, stalled: Mapping[str, str]) -> None:
        """Hand each dead download of ours to a replacement, in the background (it searches and adds).

        Replacements decided but not finished (their removal failed, or a restart cut them short) come too,
        with the reason stored with the decision.
        """
        now = time.monotonic()
        for info_hash, retry_at in list(self._replacing.items()):
            if retry_at <= now:
                del self._replacing[info_hash]
        unfinished = self._memory.downloads.being_replaced() - self._replacing.keys()
        found = dict.fromkeys(unfinished, "")
        found.update(
            (info_hash, reason)
            for info_hash, reason in stalled.items()
            if info_hash not in self._replacing and info_hash not in unfinished
        )
        for info_hash, reason in found.items():
            self._replacing[info_hash] = now + REPLACEMENT_RETRY
            self._start_background(
                self._replacer.async_replace(info_hash, reason), f"{DOMAIN} replace {info_hash}"
            )
