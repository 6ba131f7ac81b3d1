"""Magnet links and .torrent files read locally: file lists for the safety check before anything is added."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from custom_components.agent_media.clients.bittorrent import (
    build_magnet,
    info_hash_from_magnet,
    torrent_file_names,
)

from .rig.torrents import bencode, make_local_torrent

if TYPE_CHECKING:
    from pathlib import Path


def test_file_list_of_a_single_and_a_multi_file_torrent(tmp_path: Path) -> None:
    single = make_local_torrent(tmp_path / "one", "Sintel.2010.1080p.mkv")
    assert torrent_file_names(single.torrent_bytes) == ["Sintel.2010.1080p.mkv"]
    multi = make_local_torrent(
        tmp_path / "many", "Nosferatu.1922", files={"Nosferatu.mkv": 10, "Subs/en.srt": 1}
    )
    assert sorted(torrent_file_names(multi.torrent_bytes)) == [
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
    names = torrent_file_names(bencode({b"info": info}))
    assert sorted(names) == ["Big.Buck.Bunny/Big.Buck.Bunny.mkv", "Big.Buck.Bunny/Extras/setup.exe"]


@pytest.mark.parametrize("data", [b"", b"not bencode", b"d4:infoi1ee", b"l" * 5000])
def test_invalid_data_is_a_value_error(data: bytes) -> None:
    with pytest.raises(ValueError):  # noqa: PT011 - the one error the callers catch
        torrent_file_names(data)


def test_magnets_round_trip() -> None:
    magnet = build_magnet("AB" * 20, "Elephants Dream")
    assert info_hash_from_magnet(magnet) == "ab" * 20
    assert "dn=Elephants%20Dream" in magnet
