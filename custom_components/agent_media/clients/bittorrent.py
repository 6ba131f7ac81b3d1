"""Magnet links and .torrent files, read locally: info hashes, names and file lists (bencode).

No service is asked: these helpers serve the clients, the downloads and the safety check alike. A .torrent
is decoded once (`read_torrent_file`, bounded in size, depth and values) and the result passed along.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass
import hashlib
import re
from typing import Any, Final
from urllib.parse import parse_qs, quote, urlsplit

# Limits on a .torrent, checked while it is read: a film or a show needs nothing near them, and past them a
# file made to be slow (a huge file list, deep nesting) would cost seconds of CPU.
MAX_TORRENT_FILE_BYTES: Final = 10 * 1024 * 1024
MAX_TORRENT_FILES: Final = 10_000
MAX_BENCODE_ITEMS: Final = MAX_TORRENT_FILES  # in any one list or dictionary
MAX_BENCODE_VALUES: Final = 500_000  # in the whole file (a hybrid torrent of 10,000 files has about 240,000)
MAX_BENCODE_DEPTH: Final = 64

_HEX_HASH = re.compile(r"^[0-9a-fA-F]{40}$")
_BASE32_HASH = re.compile(r"^[A-Za-z2-7]{32}$")
_V2_MULTIHASH = re.compile(r"^1220([0-9a-fA-F]{64})$")


def normalize_info_hash(value: str) -> str | None:
    """Return a 40-hex lower-case torrent id from a hex or base32 btih, or None when it is neither."""
    value = value.strip()
    if _HEX_HASH.match(value):
        return value.lower()
    if _BASE32_HASH.match(value):
        return base64.b32decode(value.upper()).hex()
    return None


def info_hash_from_magnet(magnet: str) -> str | None:
    """Return the torrent id a magnet link names, or None when it is not a usable magnet.

    Hybrid magnets carry both ``btih`` and ``btmh``; qBittorrent identifies them by the v1 hash. A v2-only
    magnet is identified by the first 40 hex digits of its SHA-256 hash, as qBittorrent does.
    """
    parts = urlsplit(magnet.strip())
    if parts.scheme.lower() != "magnet":
        return None
    exact_topics = parse_qs(parts.query).get("xt", [])
    for topic in exact_topics:
        if topic.lower().startswith("urn:btih:") and (found := normalize_info_hash(topic[9:])):
            return found
    for topic in exact_topics:
        if topic.lower().startswith("urn:btmh:") and (v2 := _V2_MULTIHASH.match(topic[9:])):
            return v2.group(1)[:40].lower()
    return None


def magnet_name(magnet: str) -> str | None:
    """Return the display name (dn) a magnet link carries, if any."""
    names = parse_qs(urlsplit(magnet.strip()).query).get("dn")
    return names[0] if names else None


class InvalidTorrentError(ValueError):
    """The data is no .torrent we read: not bencode, no info dictionary, or past a limit."""


@dataclass(frozen=True, slots=True)
class TorrentFile:
    """A .torrent read once: its bytes, its id, its name and its files, as qBittorrent lists them."""

    data: bytes
    info_hash: str  # qBittorrent's torrent id (lower-case 40-hex)
    name: str
    files: tuple[str, ...]  # "name/dir/file" for a multi-file torrent, "name" for a single file


class _Decoder:
    """Bencode, decoded within the limits: depth, items per list or dictionary, values in all.

    Remembers where the top-level ``info`` dictionary lies, to hash its bytes as they are.
    """

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.values = 0
        self.info_span: tuple[int, int] | None = None

    def value(self, pos: int, depth: int) -> tuple[Any, int]:
        """Decode the value at ``pos``; return it and the position after it."""
        self.values += 1
        if self.values > MAX_BENCODE_VALUES:
            raise InvalidTorrentError(f"the torrent file holds more than {MAX_BENCODE_VALUES:,} values")
        data = self.data
        lead = data[pos]  # IndexError past the end: truncated
        if 0x30 <= lead <= 0x39:  # noqa: PLR2004 - a digit: a string's length
            colon = data.index(b":", pos)
            end = colon + 1 + int(data[pos:colon])
            if end > len(data):
                raise InvalidTorrentError("the torrent file is truncated")
            return data[colon + 1 : end], end
        if lead == 0x69:  # noqa: PLR2004 - "i"
            end = data.index(b"e", pos)
            return int(data[pos + 1 : end]), end + 1
        if depth >= MAX_BENCODE_DEPTH:
            raise InvalidTorrentError(f"the torrent file nests deeper than {MAX_BENCODE_DEPTH} levels")
        if lead == 0x6C:  # noqa: PLR2004 - "l"
            return self._list(pos + 1, depth + 1)
        if lead == 0x64:  # noqa: PLR2004 - "d"
            return self._dict(pos + 1, depth + 1)
        raise InvalidTorrentError(f"the torrent file is malformed (byte {lead:#04x} at {pos})")

    def _list(self, pos: int, depth: int) -> tuple[list[Any], int]:
        items: list[Any] = []
        data = self.data
        while data[pos] != 0x65:  # noqa: PLR2004 - "e"
            if len(items) >= MAX_BENCODE_ITEMS:
                raise InvalidTorrentError(
                    f"the torrent file has a list of more than {MAX_BENCODE_ITEMS:,} items"
                )
            item, pos = self.value(pos, depth)
            items.append(item)
        return items, pos + 1

    def _dict(self, pos: int, depth: int) -> tuple[dict[bytes, Any], int]:
        mapping: dict[bytes, Any] = {}
        data = self.data
        while data[pos] != 0x65:  # noqa: PLR2004 - "e"
            if len(mapping) >= MAX_BENCODE_ITEMS:
                raise InvalidTorrentError(
                    f"the torrent file has a dictionary of more than {MAX_BENCODE_ITEMS:,} keys"
                )
            key, pos = self.value(pos, depth)
            if not isinstance(key, bytes):
                raise InvalidTorrentError("the torrent file is malformed (a key that is no string)")
            start = pos
            mapping[key], pos = self.value(pos, depth)
            if depth == 1 and key == b"info":
                self.info_span = (start, pos)
        return mapping, pos + 1


def read_torrent_file(data: bytes) -> TorrentFile:
    """Decode .torrent data once, within limits: its id, name and file list. Raises InvalidTorrentError.

    The id is the SHA-1 of the bencoded ``info`` dictionary; for a v2-only torrent (no ``pieces``) the
    SHA-256 truncated to 40 hex digits, like qBittorrent's torrent id. Files follow the v1 layout, else v2.
    CPU-bound (about 0.3 s on a shared 2-core machine for 500,000 values, the most allowed): run it in the
    executor.
    """
    if len(data) > MAX_TORRENT_FILE_BYTES:
        raise InvalidTorrentError(
            f"the torrent file is larger than {MAX_TORRENT_FILE_BYTES // 1024 // 1024} MiB"
        )
    if data[:1] != b"d":
        raise InvalidTorrentError("the data is not a torrent file")
    decoder = _Decoder(data)
    try:
        decoded, _end = decoder.value(0, 0)
    except InvalidTorrentError:
        raise
    except (IndexError, ValueError) as err:  # past the end, a missing ":" or "e", a bad number
        raise InvalidTorrentError("the torrent file is truncated or malformed") from err
    info = decoded.get(b"info")
    if decoder.info_span is None or not isinstance(info, dict):
        raise InvalidTorrentError("the torrent file has no info dictionary")
    raw_info = data[decoder.info_span[0] : decoder.info_span[1]]
    if b"pieces" in info:
        info_hash = hashlib.sha1(raw_info, usedforsecurity=False).hexdigest()
    else:
        info_hash = hashlib.sha256(raw_info).hexdigest()[:40]
    raw_name = info.get(b"name.utf-8") or info.get(b"name")
    name = _text(raw_name) if isinstance(raw_name, bytes) and raw_name else info_hash
    files = _file_paths(info, name)
    if len(files) > MAX_TORRENT_FILES:
        raise InvalidTorrentError(f"the torrent file lists more than {MAX_TORRENT_FILES:,} files")
    return TorrentFile(data=data, info_hash=info_hash, name=name, files=tuple(files))


def _file_paths(info: dict[bytes, Any], name: str) -> list[str]:
    """Return the paths of the files an ``info`` dictionary lists (v1 layout, else v2)."""
    if isinstance(files := info.get(b"files"), list):
        paths = []
        for item in files:
            parts = item.get(b"path.utf-8") or item.get(b"path") if isinstance(item, dict) else None
            if isinstance(parts, list):
                paths.append("/".join([name, *(_text(part) for part in parts)]))
        return paths
    if isinstance(tree := info.get(b"file tree"), dict):
        return [f"{name}/{path}" if path else name for path in _v2_paths(tree)]
    return [name]


def _v2_paths(tree: dict[bytes, Any], prefix: str = "") -> list[str]:
    paths: list[str] = []
    for key, value in tree.items():
        if key == b"":  # a file's own entry
            paths.append(prefix.rstrip("/"))
        elif isinstance(value, dict):
            paths.extend(_v2_paths(value, f"{prefix}{_text(key)}/"))
    return paths


def _text(value: Any) -> str:
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


def build_magnet(info_hash: str, name: str | None = None) -> str:
    """Return a tracker-less magnet link for a hash (peers come from DHT and PeX)."""
    magnet = f"magnet:?xt=urn:btih:{info_hash.lower()}"
    return f"{magnet}&dn={quote(name, safe='')}" if name else magnet
