"""Torrents made from local data, so that qBittorrent completes them offline in about a second.

A dependency-free bencoder builds a v1 .torrent for a payload written to disk; added with
``save_path=directory`` qBittorrent finds the data, checks it and reaches progress 1 without any peer.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
import hashlib
import random
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pathlib import Path

PIECE_LENGTH = 16 * 1024


def bencode(value: Any) -> bytes:
    """Bencode ints, strings/bytes, lists and dicts (keys sorted as raw bytes)."""
    if isinstance(value, bool):
        raise TypeError("bencode has no booleans")
    if isinstance(value, int):
        return b"i%de" % value
    if isinstance(value, str):
        value = value.encode()
    if isinstance(value, bytes):
        return b"%d:%s" % (len(value), value)
    if isinstance(value, list | tuple):
        return b"l" + b"".join(bencode(item) for item in value) + b"e"
    if isinstance(value, Mapping):
        items = sorted((key.encode() if isinstance(key, str) else key, item) for key, item in value.items())
        return b"d" + b"".join(bencode(key) + bencode(item) for key, item in items) + b"e"
    raise TypeError(f"cannot bencode {type(value).__name__}")


@dataclass(frozen=True, slots=True)
class LocalTorrent:
    """A .torrent and the payload it describes, already on disk."""

    info_hash: str  # lower-case 40-hex v1 infohash
    torrent_bytes: bytes
    name: str
    data_path: Path  # the file, or the folder of a multi-file torrent

    @property
    def magnet(self) -> str:
        """A magnet for the same torrent (qBittorrent cannot complete it offline: no metadata source)."""
        return f"magnet:?xt=urn:btih:{self.info_hash}&dn={self.name}"


def _payload(seed: str, size: int) -> bytes:
    # Deterministic bytes per file, so a rebuilt torrent has the same hash.
    return random.Random(seed).randbytes(size)  # noqa: S311 - test data, not security


def make_local_torrent(
    directory: Path, name: str, *, size: int = 256 * 1024, files: dict[str, int] | None = None
) -> LocalTorrent:
    """Write the payload under ``directory`` and return its v1 torrent.

    Without ``files``: one file ``directory/name`` of ``size`` bytes. With ``files`` (relative path →
    size): a folder ``directory/name/`` holding them, in that order.
    """
    if "/" in name or not name:
        raise ValueError("name must be a plain file or folder name")
    directory.mkdir(parents=True, exist_ok=True)
    stream = bytearray()
    info: dict[str, Any] = {"name": name, "piece length": PIECE_LENGTH}
    if files is None:
        if size <= 0:
            raise ValueError("size must be positive")
        data = _payload(name, size)
        (directory / name).write_bytes(data)
        stream += data
        info["length"] = size
    else:
        entries = []
        for relative, file_size in files.items():
            path = directory / name / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            data = _payload(f"{name}/{relative}", file_size)
            path.write_bytes(data)
            stream += data
            entries.append({"length": file_size, "path": relative.split("/")})
        info["files"] = entries
    info["pieces"] = b"".join(
        hashlib.sha1(stream[offset : offset + PIECE_LENGTH], usedforsecurity=False).digest()
        for offset in range(0, len(stream), PIECE_LENGTH)
    )
    info_hash = hashlib.sha1(bencode(info), usedforsecurity=False).hexdigest()
    torrent = bencode({"info": info, "created by": "agent-media tests", "creation date": 1_700_000_000})
    return LocalTorrent(info_hash=info_hash, torrent_bytes=torrent, name=name, data_path=directory / name)
