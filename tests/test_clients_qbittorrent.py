"""QBittorrentClient against a real qbittorrent-nox on loopback."""

from __future__ import annotations

from typing import TYPE_CHECKING

from custom_components.agent_media.clients.qbittorrent import QBittorrentClient

if TYPE_CHECKING:
    from homeassistant.core import HomeAssistant

    from .rig.qbittorrent import QBittorrentInstance


async def test_login_returns_version(hass: HomeAssistant, qbittorrent: QBittorrentInstance) -> None:
    client = QBittorrentClient(qbittorrent.url, qbittorrent.username, qbittorrent.password)
    version = await client.async_login()
    assert version.startswith("v")
    assert tuple(int(p) for p in version[1:].split(".")[:2]) == qbittorrent.version[:2]
    await client.async_close()
