"""Facts about one qBittorrent torrent, as pure functions: whose it is.

No Home Assistant and no I/O here: the coordinator, the lifecycle and the operations all read torrents
through these, so each fact is stated once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from .const import DOMAIN

if TYPE_CHECKING:
    from collections.abc import Mapping

# Tag on every torrent we add, so people (and the coordinator) can tell them apart in qBittorrent.
TORRENT_TAG: Final = DOMAIN
# What a download record's "safety" says when the torrent was someone else's already: left as it is.
SAFETY_EXISTING: Final = "already_in_qbittorrent"


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
