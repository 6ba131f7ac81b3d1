"""Magnet links and .torrent files, read locally: info hashes, names and file lists (bencode).

No service is asked: these helpers serve the clients, the downloads and the safety check alike.
"""

from __future__ import annotations

import base64
import hashlib
import re
from typing import Any
from urllib.parse import parse_qs, quote, urlsplit

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


class _BencodeError(ValueError):
    """The data is not valid bencode."""


def _bdecode(data: bytes, pos: int) -> tuple[Any, int]:
    """Decode one bencoded value at ``pos``; return it and the position after it."""
    if pos >= len(data):
        raise _BencodeError("truncated")
    lead = data[pos : pos + 1]
    if lead == b"i":
        end = data.index(b"e", pos)
        return int(data[pos + 1 : end]), end + 1
    if lead == b"l":
        items: list[Any] = []
        pos += 1
        while data[pos : pos + 1] != b"e":
            item, pos = _bdecode(data, pos)
            items.append(item)
        return items, pos + 1
    if lead == b"d":
        mapping: dict[bytes, Any] = {}
        pos += 1
        while data[pos : pos + 1] != b"e":
            key, pos = _bdecode(data, pos)
            if not isinstance(key, bytes):
                raise _BencodeError("dictionary key is not a string")
            mapping[key], pos = _bdecode(data, pos)
        return mapping, pos + 1
    if lead.isdigit():
        colon = data.index(b":", pos)
        start = colon + 1
        end = start + int(data[pos:colon])
        if end > len(data):
            raise _BencodeError("truncated string")
        return data[start:end], end
    raise _BencodeError(f"unexpected byte {lead!r} at {pos}")


def torrent_file_identity(data: bytes) -> tuple[str, str]:
    """Return (torrent id, name) of .torrent data, computed locally from its ``info`` dictionary.

    The id is the SHA-1 of the bencoded ``info`` dictionary; for a v2-only torrent (no ``pieces``) it is the
    SHA-256 truncated to 40 hex digits, like qBittorrent's torrent id. Raises ValueError on invalid data.
    """
    try:
        if data[:1] != b"d":
            raise _BencodeError("not a dictionary")
        pos = 1
        info_span: tuple[int, int] | None = None
        info: Any = None
        while data[pos : pos + 1] != b"e":
            key, pos = _bdecode(data, pos)
            start = pos
            value, pos = _bdecode(data, pos)
            if key == b"info":
                info_span, info = (start, pos), value
    except (IndexError, RecursionError) as err:
        raise _BencodeError(str(err) or type(err).__name__) from err
    if info_span is None or not isinstance(info, dict):
        raise _BencodeError("no info dictionary")
    raw_info = data[info_span[0] : info_span[1]]
    if b"pieces" in info:
        info_hash = hashlib.sha1(raw_info, usedforsecurity=False).hexdigest()
    else:
        info_hash = hashlib.sha256(raw_info).hexdigest()[:40]
    raw_name = info.get(b"name.utf-8") or info.get(b"name")
    name = raw_name.decode("utf-8", "replace") if isinstance(raw_name, bytes) else info_hash
    return info_hash, name


def torrent_file_names(data: bytes) -> list[str]:
    """Return the paths of the files a .torrent holds (v1 layout, else v2), as qBittorrent lists them.

    Raises ValueError on invalid data.
    """
    try:
        decoded, _end = _bdecode(data, 0)
    except (IndexError, RecursionError) as err:
        raise _BencodeError(str(err) or type(err).__name__) from err
    info = decoded.get(b"info") if isinstance(decoded, dict) else None
    if not isinstance(info, dict):
        raise _BencodeError("no info dictionary")
    name = _text(info.get(b"name.utf-8") or info.get(b"name") or b"")
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
