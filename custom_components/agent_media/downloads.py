"""The one way to add a download: used by the agent's tools and by the actions.

Adding a download picks the save path (a configured folder, else qBittorrent's default), adds the torrent,
records it in memory as an active download and fires `agent_media_download_added`.
"""

from __future__ import annotations

import asyncio
from http import HTTPStatus
from pathlib import PurePath
from typing import TYPE_CHECKING, Any, Final

import aiohttp

from homeassistant.helpers.aiohttp_client import async_get_clientsession
from homeassistant.util import dt as dt_util

from .clients.errors import AgentMediaClientError, CannotConnectError, RequestRejectedError
from .const import DOMAIN, EVENT_DOWNLOAD_ADDED, SEARCH_TIMEOUT

if TYPE_CHECKING:
    from homeassistant.core import HomeAssistant

    from .clients.qbittorrent import AddedTorrent, QBittorrentClient
    from .data import AgentMediaConfigEntry

DOWNLOAD_FOLDER: Final = "download"
SOURCE_CONVERSATION: Final = "conversation"
SOURCE_SERVICE: Final = "service"
# Tag on every torrent we add, so people (and the coordinator) can tell them apart in qBittorrent.
TORRENT_TAG: Final = DOMAIN

TORRENT_URL_SERVICE: Final = "torrent link"
MAX_TORRENT_FILE_BYTES: Final = 10 * 1024 * 1024
MEDIA_KEYS: Final = ("title", "year", "imdb_id", "tmdb_id", "media_type")


class UnknownFolderError(ValueError):
    """The download was asked for a folder name that is not configured."""

    def __init__(self, folder: str) -> None:
        """Keep the folder name for the message."""
        super().__init__(f"folder {folder!r} is not configured")
        self.folder = folder


def resolve_save_path(entry: AgentMediaConfigEntry, folder: str | None) -> str | None:
    """Return where a download goes: the named (or the download) folder, else None for qBittorrent's default.

    `folder` is a configured folder name; an absolute path is used as given (the caller validated it).
    """
    memory = entry.runtime_data.memory
    if folder is None:
        return memory.get_folder(DOWNLOAD_FOLDER)
    if (path := memory.get_folder(folder)) is not None:
        return path
    if PurePath(folder).is_absolute():
        return folder
    raise UnknownFolderError(folder)


async def async_fetch_torrent_file(hass: HomeAssistant, url: str) -> bytes:
    """Download a .torrent file (indexes without magnet links give one); bounded in size and time."""
    if not url.lower().startswith(("http://", "https://")):
        raise RequestRejectedError(TORRENT_URL_SERVICE, "not a magnet link nor an http(s) link to a torrent")
    session = async_get_clientsession(hass)
    try:
        async with asyncio.timeout(SEARCH_TIMEOUT), session.get(url) as response:
            if response.status >= HTTPStatus.BAD_REQUEST:
                raise CannotConnectError(TORRENT_URL_SERVICE, f"HTTP {response.status}")
            data = await response.content.read(MAX_TORRENT_FILE_BYTES + 1)
    except (TimeoutError, aiohttp.ClientError) as err:
        raise CannotConnectError(TORRENT_URL_SERVICE, "the torrent file could not be downloaded") from err
    if len(data) > MAX_TORRENT_FILE_BYTES:
        raise RequestRejectedError(TORRENT_URL_SERVICE, "the torrent file is too large")
    return data


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


async def async_add_download(
    hass: HomeAssistant,
    entry: AgentMediaConfigEntry,
    *,
    magnet: str | None = None,
    torrent_file: bytes | None = None,
    url: str | None = None,
    folder: str | None = None,
    source: str = SOURCE_CONVERSATION,
    media: dict[str, Any] | None = None,
    conversation_id: str | None = None,
) -> AddedTorrent:
    """Add a magnet link, a .torrent file's bytes, or an http(s) link to a .torrent, to qBittorrent.

    Raises `UnknownFolderError`, `ValueError` (not exactly one source) and the client errors of
    `clients/errors.py`; nothing is recorded when adding fails.
    """
    if sum(value is not None for value in (magnet, torrent_file, url)) > 1:
        raise ValueError("give only one of magnet, torrent_file and url")
    data = entry.runtime_data
    save_path = resolve_save_path(entry, folder)
    if url is not None and not url.lower().startswith("magnet:"):
        torrent_file = await async_fetch_torrent_file(hass, url)
    link = magnet or url
    if torrent_file is not None:
        added = await data.qbittorrent.async_add_torrent_file(
            torrent_file, save_path=save_path, tags=(TORRENT_TAG,)
        )
    elif link is not None:
        added = await data.qbittorrent.async_add_magnet(link, save_path=save_path, tags=(TORRENT_TAG,))
    else:
        raise ValueError("give a magnet, a torrent_file or a url")
    if save_path is None:
        save_path = await _async_default_save_path(data.qbittorrent, added.info_hash)

    record: dict[str, Any] = {
        "name": added.name,
        "save_path": save_path,
        "source": source,
        "added_at": dt_util.utcnow().isoformat(),
    }
    if media:
        record["media"] = {key: media.get(key) for key in MEDIA_KEYS}
    if conversation_id:
        record["conversation_id"] = conversation_id
    data.memory.add_active_download(added.info_hash, record)

    hass.bus.async_fire(
        EVENT_DOWNLOAD_ADDED,
        {
            "entry_id": entry.entry_id,
            "hash": added.info_hash,
            "name": added.name,
            "save_path": save_path,
            "source": source,
        },
    )
    return added
