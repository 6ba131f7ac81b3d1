"""Replacing a download of ours that is dead: no metadata, or no progress, for the stalled timeout.

One nobody can finish (`torrents.unfinishable`) is dead sooner. One from a private tracker is only stopped and
told (news `download_stopped_private`, bus event `agent_media_download_stopped`): deleting it, or leaving it
for another release, could break the tracker's ratio and hit-and-run rules; the person may remove it.

The coordinator notices (`TorrentTracker.stuck`) and the lifecycle hands the hash here. The dead release is
blocklisted for its title, the next acceptable release is looked for and added (same folder, same media
identity, same requester), and only then is the dead torrent removed: when the search services are down
nothing is lost, the lifecycle tries again later. A title is replaced `MAX_REPLACEMENTS` times in a row at
most; with nothing acceptable left, or after that, the title goes on the wanted list. Either way the household
hears of it: a bus event and the news of the next turn.

What was decided is stored on the dead download's record before it is removed, and the record is dropped only
once the removal succeeded: a replacement cut short (Home Assistant stopping, qBittorrent away) is finished
by the lifecycle later, after a restart too. Only a torrent of ours is removed, and its files are deleted
only when no other torrent's content shares them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from .clients.errors import AgentMediaClientError
from .const import LOGGER
from .errors import OperationError
from .memory import replacement_record, title_key
from .news import NewsKind, async_tell
from .operations import SOURCE_SERVICE, AddedDownload, Request
from .release import parse_release
from .requester import SYSTEM
from .torrents import is_ours
from .untrusted import MAX_NAME, clip, storable_copy

if TYPE_CHECKING:
    from collections.abc import Mapping

    from homeassistant.core import HomeAssistant

    from .clients.qbittorrent import QBittorrentClient
    from .memory import AgentMediaMemory
    from .operations import Operations

WANTED_REASON_REPLACED: Final = "replaced"
# The media fields the replaced and failed events carry, when known.
EVENT_MEDIA_KEYS: Final = ("title", "year")
# Dead releases of one title replaced in a row; when the last replacement dies too, the title is wanted.
MAX_REPLACEMENTS: Final = 3


def episode_of(name: str, media: Mapping[str, Any]) -> tuple[int | None, int | None]:
    """Return the season and episode a show's release holds (a season pack: no episode)."""
    if media.get("media_type") != "tv":
        return None, None
    parsed = parse_release(name)
    season = parsed.seasons[0] if len(parsed.seasons) == 1 else None
    episode = parsed.episodes[0] if season is not None and len(parsed.episodes) == 1 else None
    return season, episode


def _event(entry_id: str, info_hash: str, name: str, reason: str, media: Mapping[str, Any]) -> dict[str, Any]:
    payload: dict[str, Any] = {
        "entry_id": entry_id,
        "hash": info_hash,
        "name": clip(name, MAX_NAME),
        "reason": reason,
    }
    payload.update({key: media[key] for key in EVENT_MEDIA_KEYS if media.get(key) is not None})
    result: dict[str, Any] = storable_copy(payload)  # the names come from indexers
    return result


class StalledReplacer:
    """Replaces one entry's dead downloads, or puts their titles on the wanted list; tells it either way."""

    def __init__(
        self,
        hass: HomeAssistant,
        *,
        entry_id: str,
        memory: AgentMediaMemory,
        qbittorrent: QBittorrentClient,
        operations: Operations,
    ) -> None:
        """Keep what a replacement uses: the memory, qBittorrent and the operations that add."""
        self.hass = hass
        self.entry_id = entry_id
        self.memory = memory
        self.qbittorrent = qbittorrent
        self.operations = operations

    async def async_replace(self, info_hash: str, reason: str) -> None:
        """Replace one dead download of ours, or put its title on the wanted list; tell it either way.

        Also finishes a replacement decided before (its record says so): the dead one is removed, then told.
        """
        record = self.memory.downloads.get(info_hash)
        if record is None or record.get("stopped_private"):
            return  # finished or removed meanwhile; or private, stopped and told: the person decides
        if "replacement" not in record:
            try:
                private = await self.qbittorrent.async_is_private(info_hash)
            except AgentMediaClientError:
                return  # qBittorrent away: tried again later
            if private:
                await self._async_stop_private(info_hash, record, reason)
                return
            if not await self._async_decide(info_hash, record, reason):
                return
            await self.memory.async_flush()  # what was decided survives a restart before the removal
            record = self.memory.downloads.get(info_hash)
            if record is None:
                return
        await self._async_finish(info_hash, record)

    async def _async_stop_private(self, info_hash: str, record: Mapping[str, Any], reason: str) -> None:
        """Stop a dead download from a private tracker and tell it; never delete it (ratio, hit-and-run)."""
        name = str(record.get("name") or info_hash)
        try:
            await self.qbittorrent.async_pause([info_hash])
        except AgentMediaClientError as err:
            LOGGER.warning("Could not stop the private download %s: %s", clip(name, MAX_NAME), err.detail)
            return  # tried again later
        self.memory.downloads.update(info_hash, stopped_private=True)
        LOGGER.info("Stopped %s: dead, and from a private tracker, so not replaced", clip(name, MAX_NAME))
        payload = _event(self.entry_id, info_hash, name, reason, record.get("media") or {})
        async_tell(self.hass, self.entry_id, self.memory.journal, NewsKind.STOPPED_PRIVATE, payload)

    async def _async_decide(self, info_hash: str, record: Mapping[str, Any], reason: str) -> bool:
        """Add the replacement (or make the title wanted), noted on the dead one's record; False: not now."""
        memory, operations = self.memory, self.operations
        name = str(record.get("name") or info_hash)
        media: dict[str, Any] = dict(record.get("media") or {})
        replacement: AddedDownload | None = None
        if media:
            season, episode = episode_of(name, media)
            memory.wanted.block(title_key(media, season, episode), info_hash, name)
            replacements = int(record.get("replacements") or 0)
            if replacements < MAX_REPLACEMENTS:
                try:
                    outcome = await operations.acquiring.async_acquire(
                        Request(requester=SYSTEM, source=SOURCE_SERVICE),
                        media,
                        season=season,
                        episode=episode,
                        save_path=record.get("save_path"),
                    )
                except OperationError as err:
                    LOGGER.info(
                        "Cannot replace the stalled download %s for now: %s", clip(name, MAX_NAME), err.code
                    )
                    return False  # the services are down: the dead one stays, tried again later
                if isinstance(outcome, AddedDownload):
                    replacement = outcome
                    # The new one is whoever asked for the old one's (where its completion is announced).
                    memory.downloads.update(
                        outcome.info_hash,
                        requester=record.get("requester"),
                        conversation_id=record.get("conversation_id"),
                        replacements=replacements + 1,
                    )
            if replacement is None:
                operations.wanted.keep_wanted(
                    SYSTEM,
                    media,
                    season=season,
                    episode=episode,
                    save_path=record.get("save_path"),
                    reason=WANTED_REASON_REPLACED,
                )
        memory.downloads.update(
            info_hash,
            replacement=replacement_record(
                reason,
                replacement.info_hash if replacement else None,
                replacement.name if replacement else None,
            ),
        )
        return True

    async def _async_finish(self, info_hash: str, record: Mapping[str, Any]) -> None:
        """Remove the dead download, then forget it and tell what replaced it (or that nothing did)."""
        memory = self.memory
        name = str(record.get("name") or info_hash)
        try:
            await async_remove_dead(self.qbittorrent, info_hash, record)
        except AgentMediaClientError as err:
            LOGGER.warning("Could not remove the stalled download %s: %s", clip(name, MAX_NAME), err.detail)
            return  # still recorded, with what was decided: tried again at a later poll
        memory.downloads.pop(info_hash)

        decided: Mapping[str, Any] = record["replacement"]
        media: Mapping[str, Any] = record.get("media") or {}
        reason = str(decided["reason"])
        if decided.get("hash"):
            new_hash = str(decided["hash"])
            payload = _event(self.entry_id, new_hash, str(decided.get("name") or new_hash), reason, media)
            payload["replaced_hash"] = info_hash
            LOGGER.info("Replaced the stalled download %s by %s", clip(name, MAX_NAME), payload["name"])
            async_tell(self.hass, self.entry_id, memory.journal, NewsKind.REPLACED, payload)
            return
        payload = _event(self.entry_id, info_hash, name, reason, media)
        LOGGER.info("No acceptable release left for the stalled download %s", payload["name"])
        async_tell(self.hass, self.entry_id, memory.journal, NewsKind.FAILED, payload)


def _normalized(path: str) -> str:
    """Return a path comparable with another (qBittorrent may run on Windows; case is ignored there)."""
    return path.replace("\\", "/").rstrip("/").casefold()


def _is_within(path: str, others: set[str]) -> bool:
    """Return whether `path` (normalised) is one of `others` or lies inside one of them."""
    while path:
        if path in others:
            return True
        path = path.rpartition("/")[0]
    return False


async def async_remove_dead(
    qbittorrent: QBittorrentClient, info_hash: str, record: Mapping[str, Any] | None
) -> None:
    """Remove a dead download if it is ours; delete its files only when no other torrent's content has them.

    Someone else's torrent is left as it is. A torrent of ours whose files another torrent holds too (the
    same name in the same folder, say a household's finished film) is removed without its files.
    """
    torrents = await qbittorrent.async_torrents()
    torrent = next((item for item in torrents if str(item.get("hash", "")).lower() == info_hash), None)
    if torrent is None:
        return  # removed meanwhile
    name = clip(str(torrent.get("name")), MAX_NAME)
    if not is_ours(torrent, record):
        LOGGER.warning("Left %s in qBittorrent: Agent Media did not add it", name)
        return
    # Where its files are, and where qBittorrent looked for them at the add: with an incomplete-files folder,
    # a file of the same name found in the save folder (someone else's) is moved there and used.
    folders = {str(torrent.get(key)) for key in ("save_path", "download_path") if torrent.get(key)}
    own = [
        _normalized(f"{folder}/{item.get('name')}")
        for item in await qbittorrent.async_files(info_hash)
        for folder in folders
    ]
    others = {
        _normalized(str(item["content_path"]))
        for item in torrents
        if item is not torrent and item.get("content_path")
    }
    shared = any(_is_within(path, others) for path in own)
    if shared:
        LOGGER.warning("Removing %s without its files: another torrent holds them too", name)
    await qbittorrent.async_remove([info_hash], delete_files=not shared)
