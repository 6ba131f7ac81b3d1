"""The stand-ins send bodies as the worst real servers do: in pieces, with pauses, whatever the service."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import aiohttp

from .rig._server import FIRST_PIECE_BYTES
from .rig.torrents import make_release_torrent

if TYPE_CHECKING:
    from .rig.knaben_server import KnabenServer


async def reads_of(method: str, url: str, **request: Any) -> tuple[int | None, list[bytes]]:
    """Send one request; return the declared length and each read the client got, in order."""
    async with aiohttp.ClientSession() as session, session.request(method, url, **request) as response:
        reads = []
        while piece := await response.content.readany():
            reads.append(piece)
        return response.content_length, reads


async def test_a_torrent_file_comes_in_many_reads(knaben_server: KnabenServer) -> None:
    torrent = make_release_torrent("Sintel.2010.2160p.REMUX", 40_000_000_000)
    link = knaben_server.serve_torrent(torrent.info_hash, torrent.torrent_bytes)

    declared, reads = await reads_of("GET", link)

    assert declared == len(torrent.torrent_bytes)
    assert b"".join(reads) == torrent.torrent_bytes
    assert len(reads) > 1  # a client that keeps its first read gets a cut file
    assert len(reads[0]) <= FIRST_PIECE_BYTES


async def test_json_answers_come_in_pieces_too(knaben_server: KnabenServer) -> None:
    declared, reads = await reads_of("POST", knaben_server.base_url, json={"query": "Sintel"})
    assert len(reads) > 1
    assert declared == len(b"".join(reads))
