"""Download control: list qBittorrent's torrents; pause, resume or remove one; whose a torrent is.

Anyone may control the downloads Agent Media added; others' torrents and deleting files need the permission.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..clients.bittorrent import normalize_info_hash
from ..errors import ErrorCode, OperationError, client_errors
from ..requester import Permission
from ..torrents import is_ours
from .base import OperationsPart

if TYPE_CHECKING:
    from collections.abc import Mapping

    from ..requester import Requester


class TorrentControl(OperationsPart):
    """qBittorrent's torrents, as people may see and control them."""

    async def async_list_torrents(self, requester: Requester) -> list[dict[str, Any]]:
        """Return qBittorrent's torrents, newest first, as raw dicts (the caller describes them)."""
        self.require(requester, Permission.READ)
        with client_errors():
            torrents = await self.collaborators.qbittorrent.async_torrents()
        torrents.sort(key=lambda torrent: torrent.get("added_on") or 0, reverse=True)
        return torrents

    def _is_ours(self, info_hash: str, torrent: Mapping[str, Any]) -> bool:
        """Return whether Agent Media added this torrent (`torrents.is_ours`)."""
        return is_ours(torrent, self.memory.downloads.get(info_hash))

    async def _async_torrent(self, value: str) -> tuple[str, dict[str, Any]]:
        info_hash = normalize_info_hash(value)
        if info_hash is None:
            raise OperationError(ErrorCode.BAD_ARGS, "invalid_hash", hash=value)
        with client_errors():
            present = await self.collaborators.qbittorrent.async_torrents([info_hash])
        if not present:
            raise OperationError(ErrorCode.NOT_FOUND, "unknown_torrent", hash=info_hash)
        return info_hash, present[0]

    async def async_control(
        self, requester: Requester, action: str, value: str, *, delete_files: bool = False
    ) -> str:
        """Pause, resume or remove a torrent; others' torrents and deleting files need the permission."""
        self.require(requester, Permission.ADD)
        info_hash, torrent = await self._async_torrent(value)
        if not self._is_ours(info_hash, torrent):
            self.require(requester, Permission.REMOVE_FOREIGN)
        if delete_files:
            self.require(requester, Permission.DELETE_FILES)
        qbittorrent = self.collaborators.qbittorrent
        with client_errors():
            if action == "pause":
                await qbittorrent.async_pause([info_hash])
            elif action == "resume":
                await qbittorrent.async_resume([info_hash])
            else:
                await qbittorrent.async_remove([info_hash], delete_files=delete_files)
        if action == "remove":
            self.memory.downloads.pop(info_hash)
        return info_hash
