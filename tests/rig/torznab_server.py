"""A Torznab look-alike on loopback, answering as Jackett does: caps, search, tvsearch and movie, in XML.

The catalogue holds public-domain and Creative-Commons titles with synthetic hashes. Some releases share a
hash with the Knaben look-alike's (with other seeder counts), so merging can be tested; one has only a
.torrent link carrying the API key, as Jackett's proxied links do. A bad API key is answered as Jackett
answers it: HTTP 200 with ``<error code="100" …/>``.

With ``torrent_links_only`` set it answers as most private trackers behind Jackett or Prowlarr do: every
item has only its .torrent link (with the API key in it), no info hash and no magnet. The links serve a
real-sized .torrent of each release (`make_release_torrent`), so adding one works end to end; with
``links_redirect_to_magnets`` also set, the links redirect to the release's magnet instead.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
import hashlib
import re
from typing import Any
from urllib.parse import quote
from xml.etree import ElementTree as ET

from aiohttp import web

from ._server import LoopbackServer
from .knaben_server import synthetic_hash
from .tmdb_server import MOVIES, SHOWS
from .torrents import ReleaseTorrent, make_release_torrent

TORZNAB_NS = "http://torznab.com/schemas/2015/feed"
ATOM_NS = "http://www.w3.org/2005/Atom"
ET.register_namespace("torznab", TORZNAB_NS)
ET.register_namespace("atom", ATOM_NS)
RSS_TYPE = "application/rss+xml"
IMDB_DIGITS = {title: imdb_id[2:] for _, title, _, _, imdb_id, _ in [*MOVIES, *SHOWS]}
SEASON_PACK = re.compile(r"\bS\d{2}(?!E\d)", re.IGNORECASE)
PACK_EPISODES = 8
CATEGORY_NAMES = {
    2000: "Movies",
    2040: "Movies/HD",
    2045: "Movies/UHD",
    5000: "TV",
    5040: "TV/HD",
    5045: "TV/UHD",
}


@dataclass
class Release:
    """One release in the look-alike's catalogue."""

    title: str
    info_hash: str
    size: int
    seeders: int
    leechers: int
    category: int
    imdb: str | None = None  # digits, as Jackett's "imdb" attribute
    magnet: bool = True  # else only a .torrent link (the info hash still given as an attribute)
    published: str = "Fri, 16 Apr 2021 10:21:00 +0000"
    extra: dict[str, str] = field(default_factory=dict)  # more torznab attributes


def _release(title: str, label: str, size: int, seeders: int, category: int, **fields: Any) -> Release:
    return Release(
        title=title,
        info_hash=synthetic_hash(label),
        size=size,
        seeders=seeders,
        leechers=max(seeders // 10, 1),
        category=category,
        **fields,
    )


def default_releases() -> list[Release]:
    """The catalogue: films with their IMDb ids, Pioneer One episodes and a pack, one dead release."""
    bunny, sintel, night = (
        IMDB_DIGITS[name] for name in ("Big Buck Bunny", "Sintel", "Night of the Living Dead")
    )
    return [
        # The same hash as the Knaben look-alike's 1080p Big Buck Bunny, with more seeders here.
        _release(
            "Big.Buck.Bunny.2008.1080p.BluRay.x264.AAC-PDGROUP",
            "Big Buck Bunny 2008 1080p",
            8_790_000_000,
            900,
            2040,
            imdb=bunny,
        ),
        # Only here: a .torrent link through the indexer (it carries the API key), no magnet.
        _release(
            "Big.Buck.Bunny.2008.2160p.UHD.BluRay.REMUX.HDR.HEVC-PRIVATE",
            "torznab bunny 2160p remux",
            52_000_000_000,
            45,
            2045,
            imdb=bunny,
            magnet=False,
            extra={"downloadvolumefactor": "0", "uploadvolumefactor": "1"},
        ),
        # The same hash as the Knaben look-alike's 720p Sintel, with fewer seeders here.
        _release(
            "Sintel (2010) 720p WEBRip x264 AAC",
            "Sintel 2010 720p",
            1_130_000_000,
            10,
            2040,
            imdb=sintel,
        ),
        _release(
            "Sintel.2010.1080p.WEB-DL.DD5.1.H264-OPEN",
            "torznab sintel 1080p",
            3_400_000_000,
            75,
            2040,
            imdb=sintel,
        ),
        _release(
            "Night.of.the.Living.Dead.1968.REMASTERED.1080p.BluRay.x264-CLASSIC",
            "torznab night 1080p",
            9_200_000_000,
            130,
            2040,
            imdb=night,
        ),
        _release("Pioneer.One.S01E01.1080p.WEB.x264-VODO", "pioneer s01e01 1080p", 1_400_000_000, 60, 5040),
        _release(
            "Pioneer.One.S01E02.720p.WEB.x264-VODO", "torznab pioneer s01e02 720p", 700_000_000, 30, 5040
        ),
        _release(
            "Pioneer.One.S01.COMPLETE.1080p.WEB.x264-VODO",
            "torznab pioneer s01 pack",
            5_900_000_000,
            80,
            5040,
        ),
        _release(
            "Sintel.2010.480p.DVDRip.XviD-OLD", "torznab sintel dead", 700_000_000, 0, 2040, imdb=sintel
        ),
    ]


def _words(text: str) -> set[str]:
    return set(re.findall(r"[a-z0-9]+", text.casefold()))


def _xml(root: ET.Element) -> bytes:
    return b'<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="utf-8")


def error_document(code: int, description: str) -> bytes:
    """A Torznab error document, as Jackett sends it."""
    return _xml(ET.Element("error", {"code": str(code), "description": description}))


class TorznabServer(LoopbackServer):
    """Answers like a Jackett indexer's Torznab API; ``.requests`` records each query string.

    ``movie_params`` and ``tv_params`` are what the caps announce for movie and TV search (None: not
    available); a search that uses a parameter the caps do not announce gets Jackett's error 203.
    """

    def __init__(self, *, title: str = "Jackett", indexer: str = "all") -> None:
        super().__init__()
        self.title = title
        self.indexer = indexer
        self.api_key = hashlib.md5(
            f"agent-media torznab {indexer}".encode(), usedforsecurity=False
        ).hexdigest()
        self.movie_params: str | None = "q,imdbid,tmdbid"
        self.tv_params: str | None = "q,season,ep,imdbid,tvdbid"
        self.max_limit = 100
        self.torrent_links_only = False
        self.links_redirect_to_magnets = False  # as Jackett does for trackers that only give magnets
        self.requests: list[dict[str, str]] = []
        self.downloads: list[dict[str, str]] = []  # the query strings of .torrent downloads
        self._releases = default_releases()
        self._answers: list[tuple[int, bytes, str]] = []
        self._torrents: dict[str, ReleaseTorrent] = {}
        self.app.router.add_get(f"/api/v2.0/indexers/{indexer}/results/torznab/api", self._api)
        self.app.router.add_get(f"/dl/{indexer}/", self._download)

    @property
    def base_url(self) -> str:
        """The Torznab URL as Jackett shows it, ``…/torznab/`` (clients append ``api``)."""
        return f"{self.root_url}/api/v2.0/indexers/{self.indexer}/results/torznab/"

    @property
    def releases(self) -> list[Release]:
        """A copy of the catalogue."""
        return copy.deepcopy(self._releases)

    def set_releases(self, releases: list[Release]) -> None:
        """Search this catalogue from now on."""
        self._releases = copy.deepcopy(releases)

    def answer_next(self, body: bytes, *, content_type: str = RSS_TYPE, status: int = 200) -> None:
        """Answer the next request with exactly this body (after the API key check); calls queue up."""
        self._answers.append((status, body, content_type))

    def fail_next_with_error(self, code: int, description: str, *, status: int = 200) -> None:
        """Answer the next request with a Torznab error document."""
        self.answer_next(error_document(code, description), content_type="application/xml", status=status)

    def link_for(self, release: Release) -> str:
        """The proxied .torrent link of a release, with the API key in it as Jackett's are."""
        query = f"jackett_apikey={self.api_key}&path={release.info_hash}&file={quote(release.title)}"
        return f"{self.root_url}/dl/{self.indexer}/?{query}"

    def torrent_for(self, release: Release) -> ReleaseTorrent:
        """The .torrent a release's link serves (made once): its files, a sample, an .nfo, subtitles."""
        if release.info_hash not in self._torrents:
            episodes = PACK_EPISODES if SEASON_PACK.search(release.title) else 0
            self._torrents[release.info_hash] = make_release_torrent(
                release.title, release.size, episodes=episodes
            )
        return self._torrents[release.info_hash]

    async def _download(self, request: web.Request) -> web.StreamResponse:
        """A release's .torrent, as Jackett proxies it from the tracker (the API key checked)."""
        query = dict(request.query)
        self.downloads.append(query)
        if (failure := await self.scripted_failure()) is not None:
            return failure
        if query.get("jackett_apikey") != self.api_key:
            return web.Response(status=401, text="Unauthorized")
        release = next((item for item in self._releases if item.info_hash == query.get("path")), None)
        if release is None:
            return web.Response(status=404, text="Not Found")
        if self.links_redirect_to_magnets:
            magnet = f"magnet:?xt=urn:btih:{release.info_hash}&dn={quote(release.title)}"
            return web.Response(status=302, headers={"Location": magnet})
        torrent = self.torrent_for(release)
        filename = quote(f"{release.title}.torrent")
        return web.Response(
            body=torrent.torrent_bytes,
            content_type="application/x-bittorrent",
            headers={"Content-Disposition": f"attachment; filename*=UTF-8''{filename}"},
        )

    async def _api(self, request: web.Request) -> web.StreamResponse:
        query = dict(request.query)
        self.requests.append(query)
        if (failure := await self.scripted_failure()) is not None:
            return failure
        if query.get("apikey") != self.api_key:
            return _answer(error_document(100, "Invalid API Key"), "application/xml")
        if self._answers:
            status, body, content_type = self._answers.pop(0)
            return _answer(body, content_type, status)
        function = query.get("t")
        if function == "caps":
            return _answer(self._caps())
        if (refusal := self._refusal(function, query)) is not None:
            return _answer(error_document(*refusal), "application/xml", 400)
        return _answer(self._results(query))

    def _refusal(self, function: str | None, query: dict[str, str]) -> tuple[int, str] | None:
        """Jackett's error for a function or parameter the caps do not announce, else None."""
        if function not in ("search", "tvsearch", "movie"):
            return 202, f"No such function ({function})"
        announced = {"search": "q", "tvsearch": self.tv_params, "movie": self.movie_params}[function]
        if announced is None:
            return 203, f"Function not available: {function}"
        if unsupported := set(query) - {"t", "apikey", "cat", "limit", "offset"} - set(announced.split(",")):
            return 203, f"Function not available: {', '.join(sorted(unsupported))} with t={function}"
        return None

    def _caps(self) -> bytes:
        caps = ET.Element("caps")
        ET.SubElement(caps, "server", {"title": self.title})
        ET.SubElement(caps, "limits", {"default": str(self.max_limit), "max": str(self.max_limit)})
        searching = ET.SubElement(caps, "searching")
        for tag, params in (
            ("search", "q"),
            ("tv-search", self.tv_params),
            ("movie-search", self.movie_params),
            ("music-search", None),
        ):
            ET.SubElement(
                searching, tag, {"available": "yes" if params else "no", "supportedParams": params or "q"}
            )
        categories = ET.SubElement(caps, "categories")
        for parent in (2000, 5000):
            category = ET.SubElement(
                categories, "category", {"id": str(parent), "name": CATEGORY_NAMES[parent]}
            )
            for sub in (parent + 40, parent + 45):
                ET.SubElement(category, "subcat", {"id": str(sub), "name": CATEGORY_NAMES[sub]})
        return _xml(caps)

    def _matching(self, query: dict[str, str]) -> list[Release]:
        found = self._releases
        if words := _words(query.get("q", "")):
            found = [release for release in found if words <= _words(release.title)]
        if imdb := query.get("imdbid"):
            found = [release for release in found if release.imdb == imdb.removeprefix("tt")]
        if season := query.get("season"):
            tag = f"s{int(season):02d}" + (f"e{int(ep):02d}" if (ep := query.get("ep")) else "")
            found = [
                release for release in found if any(word.startswith(tag) for word in _words(release.title))
            ]
        if cats := query.get("cat"):
            wanted = {int(cat) for cat in cats.split(",")}
            found = [
                release for release in found if {release.category, release.category // 1000 * 1000} & wanted
            ]
        start = int(query.get("offset", 0))
        return found[start : start + min(int(query.get("limit", self.max_limit)), self.max_limit)]

    def _results(self, query: dict[str, str]) -> bytes:
        rss = ET.Element("rss", {"version": "2.0"})
        channel = ET.SubElement(rss, "channel")
        ET.SubElement(channel, f"{{{ATOM_NS}}}link", {"href": self.base_url + "api", "rel": "self"})
        ET.SubElement(channel, "title").text = self.title
        ET.SubElement(channel, "description").text = "A Torznab look-alike"
        for release in self._matching(query):
            channel.append(self._item(release))
        return _xml(rss)

    def _item(self, release: Release) -> ET.Element:
        links_only = self.torrent_links_only
        magnet = f"magnet:?xt=urn:btih:{release.info_hash}&dn={quote(release.title)}"
        link = self.link_for(release) if links_only or not release.magnet else magnet
        item = ET.Element("item")
        for tag, text in (
            ("title", release.title),
            ("guid", f"https://tracker.example.org/details/{release.info_hash[:8]}"),
            ("jackettindexer", "Example Tracker"),
            ("type", "public"),
            ("pubDate", release.published),
            ("size", str(release.size)),
            ("description", ""),
            ("link", link),
            ("category", str(release.category)),
        ):
            ET.SubElement(item, tag).text = text
        item.find("jackettindexer").set("id", "exampletracker")  # type: ignore[union-attr]
        ET.SubElement(
            item, "enclosure", {"url": link, "length": str(release.size), "type": "application/x-bittorrent"}
        )
        attributes = {
            "category": str(release.category),
            "imdb": release.imdb,
            "imdbid": f"tt{release.imdb}" if release.imdb else None,
            "seeders": str(release.seeders),
            "peers": str(release.seeders + release.leechers),
            "infohash": None if links_only else release.info_hash,
            "magneturl": magnet if release.magnet and not links_only else None,
            "downloadvolumefactor": "1",
            "uploadvolumefactor": "1",
        } | release.extra
        for name, value in attributes.items():
            if value is not None:
                ET.SubElement(item, f"{{{TORZNAB_NS}}}attr", {"name": name, "value": value})
        return item


def _answer(body: bytes, content_type: str = RSS_TYPE, status: int = 200) -> web.Response:
    return web.Response(body=body, status=status, content_type=content_type, charset="utf-8")
