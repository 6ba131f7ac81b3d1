"""Replacing a download of ours that is dead: no metadata, or no progress, for the stalled timeout.

The coordinator notices (`TorrentTracker.stuck`) and hands the hash here. The dead release is blocklisted for
its title, the next acceptable release is looked for and added (same folder, same media identity, same
requester), and only then is the dead torrent removed with its incomplete data: when the search services are
down nothing is lost, the coordinator tries again later. With nothing acceptable left, the title goes on the
wanted list. Either way the household hears of it: a bus event and the news of the next turn.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from .clients.errors import AgentMediaClientError
from .const import EVENT_DOWNLOAD_FAILED, EVENT_DOWNLOAD_REPLACED, LOGGER
from .errors import OperationError
from .memory import title_key
from .operations import AddedDownload, MediaOperations
from .release import parse_release
from .requester import SYSTEM
from .untrusted import MAX_NAME, clip, storable_copy

if TYPE_CHECKING:
    from collections.abc import Mapping

    from homeassistant.core import HomeAssistant

    from .data import AgentMediaConfigEntry

BACKGROUND_EVENT_REPLACED: Final = "download_replaced"
BACKGROUND_EVENT_FAILED: Final = "download_failed"
WANTED_REASON_REPLACED: Final = "replaced"
# The media fields the replaced and failed events carry, when known.
EVENT_MEDIA_KEYS: Final = ("title", "year")


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


async def async_replace_stalled(
    hass: HomeAssistant, entry: AgentMediaConfigEntry, info_hash: str, reason: str
) -> None:
    """Replace one dead download of ours, or put its title on the wanted list; tell it either way."""
    data = entry.runtime_data
    memory = data.memory
    record = memory.downloads.get(info_hash)
    if record is None:
        return  # finished or removed meanwhile
    name = str(record.get("name") or info_hash)
    media: dict[str, Any] = dict(record.get("media") or {})
    operations = MediaOperations(hass, entry)
    replacement: AddedDownload | None = None
    if media:
        season, episode = episode_of(name, media)
        key = title_key(media, season, episode)
        memory.wanted.block(key, info_hash, name)
        try:
            outcome = await operations.async_acquire(
                SYSTEM, media, season=season, episode=episode, save_path=record.get("save_path")
            )
        except OperationError as err:
            LOGGER.info("Cannot replace the stalled download %s for now: %s", clip(name, MAX_NAME), err.code)
            return  # the services are down: the dead one stays, the coordinator tries again later
        if isinstance(outcome, AddedDownload):
            replacement = outcome
            # The new one belongs to whoever asked for the old one (where its completion is announced).
            memory.downloads.update(
                outcome.info_hash,
                requester=record.get("requester"),
                conversation_id=record.get("conversation_id"),
            )
        else:
            operations.add_wanted(
                SYSTEM,
                media,
                season=season,
                episode=episode,
                save_path=record.get("save_path"),
                reason=WANTED_REASON_REPLACED,
            )

    memory.downloads.pop(info_hash)
    try:
        await data.qbittorrent.async_remove([info_hash], delete_files=True)  # incomplete data only
    except AgentMediaClientError as err:
        LOGGER.warning("Could not remove the stalled download %s: %s", clip(name, MAX_NAME), err.detail)

    if replacement is not None:
        payload = _event(entry.entry_id, replacement.info_hash, replacement.name, reason, media)
        payload["replaced_hash"] = info_hash
        LOGGER.info("Replaced the stalled download %s by %s", clip(name, MAX_NAME), payload["name"])
        memory.journal.add_event(BACKGROUND_EVENT_REPLACED, payload)
        hass.bus.async_fire(EVENT_DOWNLOAD_REPLACED, payload)
        return
    payload = _event(entry.entry_id, info_hash, name, reason, media)
    LOGGER.info("No acceptable release left for the stalled download %s", payload["name"])
    memory.journal.add_event(BACKGROUND_EVENT_FAILED, payload)
    hass.bus.async_fire(EVENT_DOWNLOAD_FAILED, payload)
