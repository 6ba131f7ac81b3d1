"""The one way to add a download to qBittorrent (`DownloadAdder`), under the acquiring operations.

Adding a download (to a save path already checked, or qBittorrent's default) adds the torrent without letting
it download, checks its file list, records it in memory as an active download, fires
`agent_media_download_added` for people's automations and sends `SIGNAL_DOWNLOAD_ADDED` inside the entry.

A .torrent link is read whole (until the end, refused past `MAX_TORRENT_FILE_BYTES` while it streams),
then decoded once in the executor within the limits of `read_torrent_file`; that one reading serves the
safety check, the duplicate check and the add. The link may hold an indexer's API key: it is never logged
nor put in an error.

Safety before download: on qBittorrent 5.2+ a magnet's file list is asked for first
(`torrents/fetchMetadata`, one look) and a bad one is refused without being added. Otherwise a .torrent is
added paused, so qBittorrent lists its files a moment later (looked at quickly, then less often, for at most
`FILE_LIST_WAIT`). A magnet is added with qBittorrent's stop condition "metadata received": it fetches the
file list and stops before any data (a paused magnet would never fetch it). The turn does not wait for a
magnet's metadata: unless qBittorrent already has its file list, the download is recorded as waiting and a
background task finishes the check when the list arrives, so the answer comes at once. (qBittorrent 5.2+ can
lose an add that comes just after its metadata fetch began; the client confirms the magnet is listed and adds
it again if not: `QBittorrentClient.async_add_magnet`.) A torrent holding programs, scripts or shortcuts is
removed and refused (`DangerousTorrentError` in the turn; from the background, news told at the next turn),
so is one that is not what it claims (`safety.judge_contents`: `RefusedContentsError`, news
`download_refused_fake`); a clean one has its samples, descriptions and extras set to priority 0 (never all
its files), then is started. Until then (and if Home Assistant restarts meanwhile) the torrent stays stopped
(paused, or by its stop condition), so nothing unchecked ever downloads.
"""

from __future__ import annotations

import asyncio
from http import HTTPStatus
import time
from typing import TYPE_CHECKING, Any, Final

from yarl import URL

from homeassistant.core import callback
from homeassistant.helpers.aiohttp_client import async_get_clientsession
from homeassistant.helpers.dispatcher import async_dispatcher_send

from ..clients._http import REDIRECT_STATUSES, async_fetch, deadline_in
from ..clients.bittorrent import (
    MAX_TORRENT_FILE_BYTES,
    InvalidTorrentError,
    TorrentFile,
    info_hash_from_magnet,
    magnet_name,
    read_torrent_file,
)
from ..clients.errors import AgentMediaClientError, CannotConnectError, RequestRejectedError
from ..clients.qbittorrent import AddedTorrent
from ..const import DOMAIN, EVENT_DOWNLOAD_ADDED, LOGGER, SEARCH_TIMEOUT, SIGNAL_DOWNLOAD_ADDED
from ..errors import SAFETY_SERVICE, DangerousTorrentError, RefusedContentsError
from ..memory import download_record
from ..news import NewsKind, added_payload, async_fire_download_event, async_tell
from ..release import parse_release
from ..safety import TorrentEntry, dangerous_files, judge_contents
from ..torrents import SAFETY_EXISTING, TORRENT_TAG, is_tagged_ours, numeric
from ..untrusted import MAX_NAME, clip
from .base import SOURCE_CONVERSATION, SOURCE_SERVICE, OperationsPart

if TYPE_CHECKING:
    from collections.abc import Mapping

    from homeassistant.core import HomeAssistant

    from ..clients.qbittorrent import QBittorrentClient

TORRENT_URL_SERVICE: Final = "torrent link"
MAX_TORRENT_LINK_REDIRECTS: Final = 5

# What the record's "safety" says about the file list.
SAFETY_CHECKED: Final = "checked"
SAFETY_WAITING: Final = "waiting_for_metadata"
FILE_LIST_WAIT: Final = 5.0  # seconds; a .torrent's files are listed as soon as qBittorrent has it
FILE_LIST_FIRST_POLL: Final = 0.01  # seconds; qBittorrent lists a torrent it accepted within milliseconds
FILE_LIST_POLL: Final = 0.2  # seconds between looks, at most (in the turn), and the background's first
METADATA_WATCH: Final = 6 * 3600.0  # seconds the background check waits for metadata, at most
METADATA_WATCH_MAX_POLL: Final = 60.0
# While someone may be waiting for it (the first minutes), a magnet is looked at every 2 s at most: its
# metadata often comes after some seconds, and the download should start then, not a minute later.
METADATA_WATCH_EARLY: Final = 300.0  # seconds
METADATA_WATCH_EARLY_POLL: Final = 2.0  # seconds


def _is_http_link(link: str) -> bool:
    return link.lower().startswith(("http://", "https://"))


async def async_fetch_torrent_link(hass: HomeAssistant, url: str) -> bytes | str:
    """Download what a .torrent link gives: the whole file, or the magnet link it redirects to.

    Indexers (Jackett, Prowlarr) answer some links with a redirect to a magnet; other redirects are followed
    (at most `MAX_TORRENT_LINK_REDIRECTS`). Bounded in size (`MAX_TORRENT_FILE_BYTES`) and in time.
    """
    session = async_get_clientsession(hass)
    deadline = deadline_in(SEARCH_TIMEOUT)
    for _redirect in range(MAX_TORRENT_LINK_REDIRECTS + 1):
        if not _is_http_link(url):
            raise RequestRejectedError(
                TORRENT_URL_SERVICE, "not a magnet link nor an http(s) link to a torrent"
            )
        answer = await async_fetch(
            session,
            "GET",
            url,
            service=TORRENT_URL_SERVICE,
            deadline=deadline,
            max_bytes=MAX_TORRENT_FILE_BYTES,
            allow_redirects=False,
        )
        if answer.status in REDIRECT_STATUSES and answer.location:
            location = answer.location.strip()
            if location.lower().startswith("magnet:"):
                if info_hash_from_magnet(location) is None:
                    raise RequestRejectedError(TORRENT_URL_SERVICE, "redirected to an unusable magnet link")
                return location
            url = str(URL(url).join(URL(location)))
            continue
        if answer.status >= HTTPStatus.BAD_REQUEST:
            raise CannotConnectError(TORRENT_URL_SERVICE, f"HTTP {answer.status}")
        return answer.body
    raise RequestRejectedError(TORRENT_URL_SERVICE, "too many redirects")


async def async_read_torrent(hass: HomeAssistant, data: bytes) -> TorrentFile:
    """Decode a .torrent once, in the executor (a large one takes CPU time); refuse what cannot be read."""
    try:
        return await hass.async_add_executor_job(read_torrent_file, data)
    except InvalidTorrentError as err:
        raise RequestRejectedError(SAFETY_SERVICE, str(err)) from err


async def _async_default_save_path(qbittorrent: QBittorrentClient, info_hash: str) -> str | None:
    """Ask qBittorrent where it put a torrent added without a save path (best effort)."""
    try:
        torrents = await qbittorrent.async_torrents([info_hash])
    except AgentMediaClientError:
        return None
    for torrent in torrents:
        if isinstance(path := torrent.get("save_path"), str) and path:
            return path
    return None


def _refuse_dangerous_file_list(torrent: TorrentFile) -> None:
    """Raise DangerousTorrentError, before anything is added, when the .torrent lists dangerous files."""
    if found := dangerous_files(torrent.files):
        LOGGER.warning(
            "Refused %s before adding it: it holds %s", clip(torrent.name, MAX_NAME), ", ".join(found[:10])
        )
        raise DangerousTorrentError(torrent.name, found)


def _resolution(name: str) -> int | None:
    """Return the height a release name gives ("1080p" → 1080), or None."""
    resolution = parse_release(name).resolution
    digits = (resolution or "").rstrip("p")
    return int(digits) if digits.isdigit() else None


def _refuse_or_skip(name: str, files: list[dict[str, Any]], media: Mapping[str, Any] | None) -> list[int]:
    """Raise DangerousTorrentError or RefusedContentsError for a bad file list; else return the files to skip.

    `files` as qBittorrent lists them (`torrents/files`); `media` the identity the torrent was added for.
    """
    if found := dangerous_files(str(item.get("name") or "") for item in files):
        raise DangerousTorrentError(name, found)
    media = media or {}
    runtime = media.get("runtime")
    judgement = judge_contents(
        (
            TorrentEntry(
                int(numeric(item.get("index", position))),
                str(item.get("name") or ""),
                int(numeric(item.get("size"))),
            )
            for position, item in enumerate(files)
        ),
        media_type=str(media.get("media_type") or "") or None,
        runtime_minutes=runtime if isinstance(runtime, int) else None,
        resolution=_resolution(name),
    )
    if judgement.refusal is not None:
        raise RefusedContentsError(name, judgement.refusal, clip(judgement.detail, MAX_NAME * 2))
    return list(judgement.skipped)


async def _async_judge_before_adding(
    qbittorrent: QBittorrentClient, magnet: str, media: Mapping[str, Any] | None
) -> None:
    """Refuse a bad magnet before it is added, when qBittorrent (5.2+) already has its file list.

    One look: qBittorrent then goes on fetching the metadata in the background, and the stopped add that
    follows checks what comes later.
    """
    try:
        files = await qbittorrent.async_fetch_metadata(magnet)
    except RequestRejectedError:
        return  # a magnet it cannot read for metadata; the add says what is wrong
    if files:
        name = magnet_name(magnet) or str(info_hash_from_magnet(magnet))
        try:
            _refuse_or_skip(name, files, media)
        except RequestRejectedError as err:
            LOGGER.warning("Refused %s before adding it: %s", clip(name, MAX_NAME), err.detail)
            raise


async def _async_add_checked(
    qbittorrent: QBittorrentClient,
    link: str | None,
    torrent: TorrentFile | None,
    save_path: str | None,
    media: Mapping[str, Any] | None,
) -> tuple[AddedTorrent, str]:
    """Add without downloading, check the file list when it comes in time, start; return the safety state."""
    existing = await _async_existing(qbittorrent, link, torrent)
    if torrent is None and link is not None and existing is None:
        await _async_judge_before_adding(qbittorrent, link, media)
    if torrent is not None:
        added = await qbittorrent.async_add_torrent_file(
            torrent, save_path=save_path, tags=(TORRENT_TAG,), paused=True
        )
        wait = FILE_LIST_WAIT
    elif link is not None:
        added = await qbittorrent.async_add_magnet(
            link, save_path=save_path, tags=(TORRENT_TAG,), stop_at_metadata=True
        )
        wait = 0.0  # one look: a magnet qBittorrent already has may have its files; else checked later
    else:
        raise ValueError("give a magnet, a torrent_file or a url")
    if existing is not None and not is_tagged_ours(existing):
        return added, SAFETY_EXISTING
    if (files := await _async_wait_for_files(qbittorrent, added.info_hash, wait)) is None:
        return added, SAFETY_WAITING
    await _async_check_and_start(qbittorrent, added, files, media)  # raises on a refusal
    return added, SAFETY_CHECKED


async def _async_existing(
    qbittorrent: QBittorrentClient, link: str | None, torrent: TorrentFile | None
) -> dict[str, Any] | None:
    """Return the torrent when qBittorrent already has it (someone's own is left untouched)."""
    info_hash: str | None = None
    if torrent is not None:
        info_hash = torrent.info_hash
    elif link is not None:
        info_hash = info_hash_from_magnet(link)
    if info_hash is None:
        return None
    present = await qbittorrent.async_torrents([info_hash])
    return present[0] if present else None


async def _async_wait_for_files(
    qbittorrent: QBittorrentClient, info_hash: str, wait: float
) -> list[dict[str, Any]] | None:
    """Poll the file list for up to `wait` seconds, soon then less often; None while it is not there."""
    deadline = time.monotonic() + wait
    delay = FILE_LIST_FIRST_POLL
    while True:
        try:
            if files := await qbittorrent.async_files(info_hash):
                return files
        except RequestRejectedError:
            pass  # not listed yet: qBittorrent adds torrents asynchronously
        if time.monotonic() >= deadline:
            return None
        await asyncio.sleep(delay)
        delay = min(delay * 2, FILE_LIST_POLL)


async def _async_check_and_start(
    qbittorrent: QBittorrentClient,
    added: AddedTorrent,
    files: list[dict[str, Any]],
    media: Mapping[str, Any] | None,
) -> None:
    """Remove a refused torrent (raising DangerousTorrentError or RefusedContentsError), else start it.

    Its samples, descriptions and extras are left out (file priority 0) before it starts.
    """
    try:
        skipped = _refuse_or_skip(added.name, files, media)
    except RequestRejectedError as err:
        # Nothing was downloaded (paused, or stopped at metadata): the files on disk, if any, are not ours.
        await qbittorrent.async_remove([added.info_hash], delete_files=False)
        LOGGER.warning("Refused %s (%s): %s", clip(added.name, MAX_NAME), added.info_hash, err.detail)
        raise
    await qbittorrent.async_set_file_priority(added.info_hash, skipped, 0)
    await qbittorrent.async_resume([added.info_hash])


class DownloadAdder(OperationsPart):
    """Adds torrents to qBittorrent, checked before they download, and records them as ours."""

    async def async_add(
        self,
        *,
        magnet: str | None = None,
        torrent_file: bytes | None = None,
        url: str | None = None,
        save_path: str | None = None,
        source: str = SOURCE_CONVERSATION,
        media: Mapping[str, Any] | None = None,
        requester_key: str | None = None,
        conversation_id: str | None = None,
    ) -> AddedTorrent:
        """Add a magnet link, a .torrent file's bytes, or an http(s) link to a .torrent, to qBittorrent.

        `save_path` was checked by the caller (None: qBittorrent's default folder). Raises `ValueError` (not
        exactly one source), `DangerousTorrentError` (a `RequestRejectedError`: the torrent held dangerous
        files and was removed) and the client errors of `clients/errors.py`; nothing is recorded when adding
        fails. Someone else's torrent that qBittorrent already had is left as it is (not checked, not
        started); one of ours (an add interrupted, say, by a qBittorrent crash) is checked and started as if
        new. The record's "safety" tells whether the file list was checked.
        """
        if sum(value is not None for value in (magnet, torrent_file, url)) > 1:
            raise ValueError("give only one of magnet, torrent_file and url")
        hass, qbittorrent = self.hass, self.collaborators.qbittorrent
        if url is not None and not url.lower().startswith("magnet:"):
            fetched = await async_fetch_torrent_link(hass, url)
            if isinstance(fetched, str):
                magnet, url = fetched, None
            else:
                torrent_file = fetched
        torrent = await async_read_torrent(hass, torrent_file) if torrent_file is not None else None
        if torrent is not None:
            _refuse_dangerous_file_list(torrent)  # a .torrent lists its files: no need to add it first
        checked_as = await self._async_with_runtime(media)
        added, safety = await _async_add_checked(qbittorrent, magnet or url, torrent, save_path, checked_as)
        if save_path is None:
            save_path = await _async_default_save_path(qbittorrent, added.info_hash)

        record = download_record(
            added.name,
            save_path=save_path,
            source=source,
            safety=safety,
            media=media,  # the identity of the result actually added, for the event, news and library
            requester=requester_key,
            conversation_id=conversation_id,
        )
        self.memory.downloads.add(added.info_hash, record)

        entry_id = self.collaborators.entry_id
        async_fire_download_event(
            hass, entry_id, EVENT_DOWNLOAD_ADDED, added_payload(entry_id, added.info_hash, record)
        )
        async_dispatcher_send(hass, SIGNAL_DOWNLOAD_ADDED.format(entry_id), added.info_hash)
        if safety == SAFETY_WAITING:
            self._start_safety_check(added)
        return added

    async def _async_with_runtime(self, media: Mapping[str, Any] | None) -> Mapping[str, Any] | None:
        """Return the media with its running time from TMDB, for the contents check (best effort)."""
        if not media or not isinstance(tmdb_id := media.get("tmdb_id"), int):
            return media
        media_type = media.get("media_type")
        if media_type not in ("movie", "tv"):
            return media
        try:
            runtime = await self.collaborators.tmdb.async_runtime(str(media_type), tmdb_id)
        except AgentMediaClientError:
            return media  # TMDB away: the video's size is not judged
        return {**media, "runtime": runtime} if runtime else media

    @callback
    def adopt_interrupted_add(self, info_hash: str, name: str) -> None:
        """Take back one of our torrents whose add was cut short: record it, check its files, start it."""
        LOGGER.info("Checking %s, an add that was interrupted, before starting it", clip(name, MAX_NAME))
        self.memory.downloads.add(
            info_hash, download_record(name, source=SOURCE_SERVICE, safety=SAFETY_WAITING)
        )
        self._start_safety_check(AddedTorrent(info_hash=info_hash, name=name))

    @callback
    def resume_safety_checks(self) -> None:
        """Carry on the checks a restart interrupted: those torrents are stopped, waiting for metadata."""
        for info_hash, record in self.memory.downloads.records().items():
            if record.get("safety") == SAFETY_WAITING:
                name = str(record.get("name") or info_hash)
                self._start_safety_check(AddedTorrent(info_hash=info_hash, name=name))

    @callback
    def _start_safety_check(self, added: AddedTorrent) -> None:
        self.collaborators.run_in_background(
            self.async_finish_safety_check(added), f"{DOMAIN} safety check {added.info_hash}"
        )

    async def async_finish_safety_check(self, added: AddedTorrent) -> None:
        """Wait in the background for a magnet's metadata, then start it or refuse it (told at the next turn).

        Polls less and less often (every 2 s at most in the first minutes), and gives up after
        `METADATA_WATCH`: the torrent then stays stopped by its stop condition. Ends early when the download
        is no longer recorded (removed or finished meanwhile). Started, it is announced inside the entry like
        a new download, so its progress is followed at once.
        """
        memory, qbittorrent = self.memory, self.collaborators.qbittorrent
        started = time.monotonic()
        deadline = started + METADATA_WATCH
        delay = FILE_LIST_POLL
        while time.monotonic() < deadline:
            await asyncio.sleep(delay)
            early = time.monotonic() - started < METADATA_WATCH_EARLY
            delay = min(delay * 2, METADATA_WATCH_EARLY_POLL if early else METADATA_WATCH_MAX_POLL)
            if (record := memory.downloads.get(added.info_hash)) is None:
                return
            try:
                files = await qbittorrent.async_files(added.info_hash)
                if not files:
                    continue
                media = await self._async_with_runtime(record.get("media"))
                await _async_check_and_start(qbittorrent, added, files, media)
            except DangerousTorrentError as err:
                memory.downloads.pop(added.info_hash)
                async_tell(
                    self.hass,
                    self.collaborators.entry_id,
                    memory.journal,
                    NewsKind.REFUSED,
                    {
                        "hash": added.info_hash,
                        "name": clip(added.name, MAX_NAME),
                        "dangerous_files": [clip(path, 120) for path in err.files[:10]],
                    },
                )
                return
            except RefusedContentsError as err:
                memory.downloads.pop(added.info_hash)
                async_tell(
                    self.hass,
                    self.collaborators.entry_id,
                    memory.journal,
                    NewsKind.REFUSED_FAKE,
                    {
                        "hash": added.info_hash,
                        "name": clip(added.name, MAX_NAME),
                        "reason": err.refusal.value,
                    },
                )
                return
            except RequestRejectedError:
                return  # removed from qBittorrent meanwhile: the lifecycle forgets its record
            except AgentMediaClientError:
                continue  # qBittorrent unreachable for now
            memory.downloads.update(added.info_hash, safety=SAFETY_CHECKED)
            async_dispatcher_send(
                self.hass, SIGNAL_DOWNLOAD_ADDED.format(self.collaborators.entry_id), added.info_hash
            )
            return
        LOGGER.info("No metadata for %s after %s s; it stays stopped", added.name, METADATA_WATCH)
