"""Torrents for the rig: made from local data, or of real releases' size and layout without any data.

A dependency-free bencoder builds v1 .torrent files.

- `make_local_torrent`: the payload is written to disk; added with ``save_path=directory`` qBittorrent
  finds the data, checks it and reaches progress 1 without any peer.
- `make_release_torrent`: what a tracker serves for a film or a season pack: the video (or episodes), a
  sample, an .nfo and subtitles, with pieces small enough that the .torrent weighs over 1 MB, as many do.
  No data exists, so qBittorrent lists its files at once and it never completes.
- `make_hostile_torrent`: under the 10 MiB cap, but listing so many files that reading it takes seconds.
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
MIN_RELEASE_PIECES = 55_000  # 20 bytes each: a release .torrent of at least 1.1 MB
SUBTITLE_LANGUAGES = ("English", "French", "German", "Spanish", "Italian", "Dutch", "Portuguese", "Polish")


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


@dataclass(frozen=True, slots=True)
class ReleaseTorrent:
    """A release's .torrent (no data anywhere): what an indexer's download link serves."""

    info_hash: str
    torrent_bytes: bytes
    name: str
    files: dict[str, int]  # path under the torrent's folder → size


def release_files(name: str, size: int, *, episodes: int = 0) -> dict[str, int]:
    """A release's usual layout: the video (or ``episodes`` episodes), a sample, an .nfo, subtitles."""
    extras = {f"{name}.nfo": 4_417, f"Sample/{name}.sample.mkv": min(60_000_000, size // 20)}
    extras |= {
        f"Subs/{number}_{language}.srt": 61_000 + number
        for number, language in enumerate(SUBTITLE_LANGUAGES, 2)
    }
    video = size - sum(extras.values())
    if episodes:
        videos = {f"{name}.E{episode:02d}.mkv": video // episodes for episode in range(1, episodes + 1)}
    else:
        videos = {f"{name}.mkv": video}
    return videos | extras


def make_release_torrent(
    name: str,
    size: int,
    *,
    files: dict[str, int] | None = None,
    episodes: int = 0,
    private: bool = True,
    announce: str | None = None,
) -> ReleaseTorrent:
    """Return a release's .torrent: ``files`` (default `release_files`) under a folder named ``name``.

    Pieces are as small as a power of two allows while the torrent keeps at least `MIN_RELEASE_PIECES` of
    them (so over 1 MB). Piece hashes are random: nothing can complete it. Private, with a tracker URL
    holding a passkey, like a private tracker's (`announce`, for one qBittorrent will really contact: keep it
    on loopback).
    """
    layout = files if files is not None else release_files(name, size, episodes=episodes)
    total = sum(layout.values())
    piece_length = PIECE_LENGTH
    while total // (piece_length * 2) >= MIN_RELEASE_PIECES:
        piece_length *= 2
    pieces = -(-total // piece_length)
    info: dict[str, Any] = {
        "name": name,
        "piece length": piece_length,
        "pieces": random.Random(name).randbytes(20 * pieces),  # noqa: S311 - test data
        "files": [{"length": length, "path": path.split("/")} for path, length in layout.items()],
    }
    if private:
        info["private"] = 1
    info_hash = hashlib.sha1(bencode(info), usedforsecurity=False).hexdigest()
    passkey = hashlib.md5(name.encode(), usedforsecurity=False).hexdigest()
    torrent = bencode(
        {
            "announce": announce or f"https://tracker.example.org/announce/{passkey}",
            "created by": "mktorrent 1.1",
            "creation date": 1_618_568_460,
            "info": info,
        }
    )
    return ReleaseTorrent(info_hash=info_hash, torrent_bytes=torrent, name=name, files=layout)


def make_hostile_torrent(name: str = "Big.Buck.Bunny.2008.1080p", files: int = 150_000) -> bytes:
    """A .torrent of about 9 MB (under the 10 MiB cap) whose file list has ``files`` entries."""
    layout = {f"Extras/Part {number // 1000:03d}/clip {number:06d}.mkv": 1024 for number in range(files)}
    return make_release_torrent(name, sum(layout.values()), files=layout, private=False).torrent_bytes
