"""Magnet links and .torrent files read locally: file lists for the safety check before anything is added."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from custom_components.agent_media.clients.bittorrent import (
    MAX_BENCODE_ITEMS,
    MAX_TORRENT_FILE_BYTES,
    InvalidTorrentError,
    build_magnet,
    info_hash_from_magnet,
    read_torrent_file,
)

from .rig.torrents import bencode, make_local_torrent, make_release_torrent

if TYPE_CHECKING:
    from pathlib import Path


def test_file_list_of_a_single_and_a_multi_file_torrent(tmp_path: Path) -> None:
    single = make_local_torrent(tmp_path / "one", "Sintel.2010.1080p.mkv")
    assert read_torrent_file(single.torrent_bytes).files == ("Sintel.2010.1080p.mkv",)
    multi = make_local_torrent(
        tmp_path / "many", "Nosferatu.1922", files={"Nosferatu.mkv": 10, "Subs/en.srt": 1}
    )
    assert sorted(read_torrent_file(multi.torrent_bytes).files) == [
        "Nosferatu.1922/Nosferatu.mkv",
        "Nosferatu.1922/Subs/en.srt",
    ]


def test_file_list_of_a_v2_torrent() -> None:
    leaf = {b"": {b"length": 5, b"pieces root": b"r" * 32}}
    info = {
        b"name": b"Big.Buck.Bunny",
        b"meta version": 2,
        b"piece length": 16384,
        b"file tree": {b"Big.Buck.Bunny.mkv": leaf, b"Extras": {b"setup.exe": leaf}},
    }
    names = read_torrent_file(bencode({b"info": info})).files
    assert sorted(names) == ["Big.Buck.Bunny/Big.Buck.Bunny.mkv", "Big.Buck.Bunny/Extras/setup.exe"]


@pytest.mark.parametrize(
    "data", [b"", b"not bencode", b"d4:infoi1ee", b"l" * 5000, b"d4:infod4:name9:truncated", b"d4:info"]
)
def test_invalid_data_is_refused(data: bytes) -> None:
    with pytest.raises(InvalidTorrentError):
        read_torrent_file(data)


def test_a_release_torrent_is_read_once_whole() -> None:
    """Over 1 MB (a piece hash per 512 KiB of a 52 GB remux), with a sample, an .nfo and subtitles."""
    release = make_release_torrent("Big.Buck.Bunny.2008.2160p.REMUX", 52_000_000_000)
    assert len(release.torrent_bytes) > 1_000_000

    torrent = read_torrent_file(release.torrent_bytes)

    assert (torrent.info_hash, torrent.name) == (release.info_hash, release.name)
    assert sorted(torrent.files) == sorted(f"{release.name}/{path}" for path in release.files)
    assert torrent.data is release.torrent_bytes


def _with_info(**extra: object) -> bytes:
    info = {"name": "Sintel.2010.mkv", "piece length": 16384, "pieces": b"p" * 20, "length": 1} | extra
    return bencode({"info": info})


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b"d4:info" + b"l" * 100 + b"e" * 100 + b"e", "deeper than 64"),
        (_with_info(extra=list(range(MAX_BENCODE_ITEMS + 1))), "list of more than 10,000 items"),
        (_with_info(extra={f"k{n}": 0 for n in range(MAX_BENCODE_ITEMS + 1)}), "more than 10,000 keys"),
        (_with_info(extra=[[0] * 9_000] * 56), "more than 500,000 values"),
        (b"d4:info" + b" " * MAX_TORRENT_FILE_BYTES + b"e", "larger than 10 MiB"),
    ],
)
def test_limits_refuse_data_made_to_be_slow(data: bytes, reason: str) -> None:
    with pytest.raises(InvalidTorrentError, match=reason):
        read_torrent_file(data)


def test_a_v2_tree_of_too_many_files_is_refused() -> None:
    """No list or dictionary past its limit, yet 10,100 files in 101 folders."""
    leaf = {b"": {b"length": 5, b"pieces root": b"r" * 32}}
    folder = {f"{n}.mkv".encode(): leaf for n in range(100)}
    tree = {f"Part {part:03d}".encode(): folder for part in range(101)}
    info = {b"name": b"Pioneer.One", b"meta version": 2, b"piece length": 16384, b"file tree": tree}
    with pytest.raises(InvalidTorrentError, match="lists more than 10,000 files"):
        read_torrent_file(bencode({b"info": info}))


def test_magnets_round_trip() -> None:
    magnet = build_magnet("AB" * 20, "Elephants Dream")
    assert info_hash_from_magnet(magnet) == "ab" * 20
    assert "dn=Elephants%20Dream" in magnet
