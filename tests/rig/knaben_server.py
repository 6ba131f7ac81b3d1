"""A Knaben API look-alike on loopback with recorded-shape hits for public-domain and CC titles.

Hashes are synthetic (SHA-1 of a label), never those of real torrents. The hits vary the way the real API
does: hash in upper or lower case, ``magnetUrl`` present or null, ``categoryId`` with one or two ids,
``virusDetection`` as a number, an empty list or null, dates with and without a time zone.
"""

from __future__ import annotations

import copy
import hashlib
import re
from typing import Any
from urllib.parse import quote

from aiohttp import web

from ._server import LoopbackServer, json_response

TITLES: list[tuple[str, int]] = [
    ("Big Buck Bunny", 2008),
    ("Sintel", 2010),
    ("Night of the Living Dead", 1968),
    ("Tears of Steel", 2012),
    ("Nosferatu", 1922),
    ("The General", 1926),
    ("Elephants Dream", 2006),
]
TRACKER_URL = "udp%3A%2F%2Ftracker.example.org%3A1337%2Fannounce"


def synthetic_hash(label: str) -> str:
    """A 40-hex hash derived from a label: stable, and not any real torrent's."""
    return hashlib.sha1(f"agent-media synthetic {label}".encode(), usedforsecurity=False).hexdigest()


def _hit(title: str, *, label: str, size: int, seeders: int, peers: int, **fields: Any) -> dict[str, Any]:
    info_hash = synthetic_hash(label)
    hit = {
        "id": info_hash[:12],
        "title": title,
        "hash": info_hash,
        "magnetUrl": f"magnet:?xt=urn:btih:{info_hash}&dn={quote(title)}&tr={TRACKER_URL}",
        "link": None,
        "details": f"https://tracker.example.org/details/{info_hash[:8]}",
        "bytes": size,
        "seeders": seeders,
        "peers": peers,
        "date": "2021-04-16T10:21:00+00:00",
        "lastSeen": "2026-11-01T08:00:00+00:00",
        "tracker": "Example Tracker",
        "trackerId": "exampletracker",
        "cachedOrigin": "Example Tracker",
        "category": "Movies / HD",
        "categoryId": [3001000],
        "virusDetection": 0.1,
        "score": None,
    }
    hit.update(fields)
    return hit


def movie_hits(title: str, year: int) -> list[dict[str, Any]]:
    """Six releases of one film: 2160p, 1080p, 720p, a CAM, one flagged by the virus scan, one dead."""
    dotted = title.replace(" ", ".")
    key = f"{title} {year}"
    return [
        _hit(
            f"{dotted}.{year}.2160p.UHD.BluRay.x265.10bit.HDR.DTS-HD.MA.5.1-PDGROUP",
            label=f"{key} 2160p",
            size=24_600_000_000,
            seeders=120,
            peers=14,
            category="Movies / UHD",
            categoryId=[3003000],
            virusDetection=0.05,
        )
        | {"hash": synthetic_hash(f"{key} 2160p").upper()},
        _hit(
            f"{dotted}.{year}.1080p.BluRay.x264.AAC-PDGROUP",
            label=f"{key} 1080p",
            size=8_790_000_000,
            seeders=340,
            peers=21,
            magnetUrl=None,
            categoryId=[3000000, 3001000],
            virusDetection=[],
            date="2019-05-14T00:00:00",
        ),
        _hit(
            f"{title} ({year}) 720p WEBRip x264 AAC",
            label=f"{key} 720p",
            size=1_130_000_000,
            seeders=64,
            peers=9,
            link=f"https://tracker.example.org/download/{synthetic_hash(f'{key} 720p')[:8]}.torrent",
            virusDetection=0,
        ),
        _hit(
            f"{dotted}.{year}.CAM.x264-NOGRP",
            label=f"{key} cam",
            size=700_000_000,
            seeders=500,
            peers=80,
            category="Movies",
            categoryId=[3000000],
            virusDetection=None,
        ),
        _hit(
            f"{dotted}.{year}.1080p.WEB-DL.H264-FREE",
            label=f"{key} virus",
            size=2_100_000_000,
            seeders=900,
            peers=3,
            virusDetection=0.93,
        ),
        _hit(
            f"{dotted}.{year}.480p.DVDRip.XviD-OLD",
            label=f"{key} dead",
            size=690_000_000,
            seeders=0,
            peers=0,
            category="Movies / SD",
            categoryId=[3002000],
        ),
    ]


def show_hits() -> list[dict[str, Any]]:
    """Releases of the Creative-Commons series Pioneer One (2010)."""
    tv = {"category": "TV / HD", "categoryId": [2000000, 2001000]}
    return [
        _hit(
            "Pioneer.One.S01E01.1080p.WEB.x264-VODO",
            label="pioneer s01e01 1080p",
            size=1_400_000_000,
            seeders=210,
            peers=12,
            **tv,
        ),
        _hit(
            "Pioneer.One.S01E01.720p.HDTV.x264-VODO",
            label="pioneer s01e01 720p",
            size=700_000_000,
            seeders=95,
            peers=4,
            **tv,
        ),
        _hit(
            "Pioneer.One.S01.COMPLETE.720p.WEB.x264-VODO",
            label="pioneer s01 pack",
            size=4_200_000_000,
            seeders=150,
            peers=7,
            **tv,
        ),
        _hit(
            "Pioneer.One.S01E02.480p.WEB.XviD-VODO",
            label="pioneer s01e02 480p",
            size=350_000_000,
            seeders=0,
            peers=0,
            **tv,
        ),
    ]


def default_hits() -> list[dict[str, Any]]:
    """The whole catalogue."""
    return [hit for title, year in TITLES for hit in movie_hits(title, year)] + show_hits()


def _words(text: str) -> set[str]:
    return set(re.findall(r"[a-z0-9]+", text.casefold()))


def _in_categories(hit: dict[str, Any], categories: list[int]) -> bool:
    ids = hit.get("categoryId") or []
    return any(cat in categories or cat // 1_000_000 * 1_000_000 in categories for cat in ids)


class KnabenServer(LoopbackServer):
    """Answers like api.knaben.org/v1; ``.requests`` records the JSON bodies."""

    def __init__(self) -> None:
        super().__init__()
        self.requests: list[dict[str, Any]] = []
        self._hits = default_hits()
        self._override: list[Any] | None = None
        self._torrent_files: dict[str, bytes] = {}
        self.app.router.add_post("/v1", self._search)
        self.app.router.add_get("/torrents/{file}", self._torrent_file)

    @property
    def base_url(self) -> str:
        """The endpoint, ``…/v1``."""
        return f"{self.root_url}/v1"

    @property
    def hits(self) -> list[dict[str, Any]]:
        """A copy of the catalogue searches run over."""
        return copy.deepcopy(self._hits)

    def set_hits(self, hits: list[Any]) -> None:
        """From now on answer every search with exactly these hits (no filtering, no sorting).

        Items need not be well-formed: tests of the parser pass odd shapes on purpose.
        """
        self._override = copy.deepcopy(hits)

    def serve_torrent(self, info_hash: str, torrent_bytes: bytes) -> str:
        """Serve a .torrent (as trackers do for releases without a magnet); return its loopback link."""
        self._torrent_files[f"{info_hash}.torrent"] = torrent_bytes
        return f"{self.root_url}/torrents/{info_hash}.torrent"

    async def _torrent_file(self, request: web.Request) -> web.StreamResponse:
        body = self._torrent_files.get(request.match_info["file"])
        if body is None:
            return web.Response(status=404)
        return web.Response(body=body, content_type="application/x-bittorrent")

    def error_body(self, status: int) -> Any:
        return {"error": "Knaben rate limit exceeded" if status == 429 else f"HTTP {status}"}

    async def _search(self, request: web.Request) -> web.StreamResponse:
        try:
            body = await request.json()
        except ValueError:
            body = None
        self.requests.append(body)
        if (failure := await self.scripted_failure()) is not None:
            return failure
        if not isinstance(body, dict):
            return json_response({"error": "expected a JSON object"}, status=400)
        start = int(body.get("from", 0))
        size = min(int(body.get("size", 150)), 300)
        if self._override is not None:
            hits = self._override
        else:
            wanted = _words(str(body.get("query", "")))
            hits = [hit for hit in self._hits if wanted <= _words(hit["title"])]
            if categories := body.get("categories"):
                hits = [hit for hit in hits if _in_categories(hit, categories)]
            if body.get("order_by") == "seeders":
                hits.sort(key=lambda hit: hit["seeders"], reverse=body.get("order_direction") != "asc")
        return json_response(
            {
                "max_score": None,
                "total": {"relation": "eq", "value": len(hits)},
                "hits": hits[start : start + size],
            }
        )
