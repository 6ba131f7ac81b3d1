"""A TMDB v3 look-alike on loopback, serving public-domain and Creative-Commons titles."""

from __future__ import annotations

import base64
import hashlib
import json
import re
import struct
from typing import TYPE_CHECKING, Any
import zlib

from aiohttp import web

from ._server import LoopbackServer, json_response

if TYPE_CHECKING:
    from datetime import date

# (tmdb id, title, original title, release date, imdb id, popularity)
MOVIES: list[tuple[int, str, str, str, str, float]] = [
    (10378, "Big Buck Bunny", "Big Buck Bunny", "2008-04-10", "tt1254207", 12.4),
    (45745, "Sintel", "Sintel", "2010-09-27", "tt1727587", 9.8),
    (10331, "Night of the Living Dead", "Night of the Living Dead", "1968-10-04", "tt0063350", 21.7),
    (133701, "Tears of Steel", "Tears of Steel", "2012-09-26", "tt2285752", 7.1),
    (653, "Nosferatu", "Nosferatu, eine Symphonie des Grauens", "1922-02-16", "tt0013442", 15.3),
    (961, "The General", "The General", "1926-12-31", "tt0017925", 11.2),
    (9761, "Elephants Dream", "Elephants Dream", "2006-03-24", "tt0807840", 6.5),
]
# Titles in other languages: (media type, tmdb id, language, title).
TRANSLATIONS: list[tuple[str, int, str, str]] = [
    ("movie", 10331, "fr", "La Nuit des morts-vivants"),
    ("movie", 10331, "de", "Die Nacht der lebenden Toten"),
    ("movie", 653, "fr", "Nosferatu le vampire"),
]
# A Creative-Commons web series (ids here are synthetic).
SHOWS: list[tuple[int, str, str, str, str, float]] = [
    (900001, "Pioneer One", "Pioneer One", "2010-06-16", "tt9000001", 3.2),
]

NOT_FOUND = {
    "status_code": 34,
    "status_message": "The resource you requested could not be found.",
    "success": False,
}
INVALID_KEY = {
    "status_code": 7,
    "status_message": "Invalid API key: You must be granted a valid key.",
    "success": False,
}
RATE_LIMITED = {
    "status_code": 25,
    "status_message": "Your request count is over the allowed limit.",
    "success": False,
}
SERVER_ERROR = {
    "status_code": 11,
    "status_message": "Internal error: Something went wrong.",
    "success": False,
}


def _words(text: str) -> set[str]:
    return set(re.findall(r"\w+", text.casefold()))


def poster_path_of(title: str) -> str:
    """The (synthetic) poster path the catalogue gives a title: "/big-buck-bunny.png"."""
    return "/" + "-".join(re.findall(r"[a-z0-9]+", title.casefold())) + ".png"


def poster_bytes(path: str) -> bytes:
    """A tiny valid PNG (2 x 3 pixels) in a colour of its own per path: drawn here, nobody's artwork."""
    red, green, blue = hashlib.sha1(path.encode(), usedforsecurity=False).digest()[:3]
    row = b"\x00" + bytes((red, green, blue)) * 2  # filter byte, then two RGB pixels

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", 2, 3, 8, 2, 0, 0, 0)  # width, height, 8-bit RGB
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(row * 3))
        + chunk(b"IEND", b"")
    )


class TMDBServer(LoopbackServer):
    """Answers like api.themoviedb.org/3 for a fixed catalogue; ``.requests`` records each request.

    It is its own image server too: /configuration names ``{root_url}/t/p/`` as the image base, and every
    title of the catalogue has a poster there (`poster_path_of`, `poster_bytes`). As a compromised or
    careless one might, it can name another image base (``image_base_url``), redirect poster requests to
    another server (``images_redirect_to``, a root URL) or serve posters padded to ``poster_size`` bytes.
    """

    def __init__(self) -> None:
        super().__init__()
        self.api_key = hashlib.md5(b"agent-media tmdb v3 key", usedforsecurity=False).hexdigest()
        claims = base64.urlsafe_b64encode(json.dumps({"aud": "agent-media-tests"}).encode()).decode()
        self.read_token = f"eyJhbGciOiJIUzI1NiJ9.{claims.rstrip('=')}.c2lnbmF0dXJl"
        self.requests: list[dict[str, Any]] = []
        self._items: dict[str, list[dict[str, Any]]] = {"movie": [], "tv": []}
        self._imdb_ids: dict[tuple[str, int], str | None] = {}
        self._translations: dict[tuple[str, int], dict[str, str]] = {}
        self._air_dates: dict[int, dict[int, list[date | None]]] = {}  # show → season → episodes' dates
        self._runtimes: dict[tuple[str, int], int] = {}  # minutes; TMDB says 0 / [] when it has none
        self.image_base_url: str | None = None
        self.images_redirect_to: str | None = None
        self.poster_size: int | None = None
        for tmdb_id, title, original, date, imdb_id, popularity in MOVIES:
            self.add_result(
                "movie", tmdb_id, title, date, imdb_id=imdb_id, original=original, popularity=popularity
            )
        for tmdb_id, title, original, date, imdb_id, popularity in SHOWS:
            self.add_result(
                "tv", tmdb_id, title, date, imdb_id=imdb_id, original=original, popularity=popularity
            )
        for media_type, tmdb_id, language, title in TRANSLATIONS:
            self.add_translation(media_type, tmdb_id, language, title)
        self.app.router.add_get("/3/configuration", self._configuration)
        self.app.router.add_get("/3/search/{kind:movie|tv|multi}", self._search)
        self.app.router.add_get("/3/{kind:movie|tv}/{tmdb_id:\\d+}/external_ids", self._external_ids)
        self.app.router.add_get("/3/find/{external_id}", self._find)
        self.app.router.add_get("/3/movie/{tmdb_id:\\d+}", self._movie)
        self.app.router.add_get("/3/tv/{tmdb_id:\\d+}", self._show)
        self.app.router.add_get("/3/tv/{tmdb_id:\\d+}/season/{season:\\d+}", self._season)
        self.app.router.add_get("/t/p/{size}/{file}", self._image)

    @property
    def base_url(self) -> str:
        """The API root, ending in ``/3``."""
        return f"{self.root_url}/3"

    def add_result(
        self,
        media_type: str,
        tmdb_id: int,
        title: str,
        date: str,
        *,
        imdb_id: str | None = None,
        original: str | None = None,
        popularity: float = 1.0,
    ) -> None:
        """Add a (synthetic) film or show to the catalogue; searches list items in the order added."""
        if media_type == "movie":
            item = {"title": title, "original_title": original or title, "release_date": date, "video": False}
        else:
            item = {
                "name": title,
                "original_name": original or title,
                "first_air_date": date,
                "origin_country": [],
            }
        item |= {
            "id": tmdb_id,
            "original_language": "en",
            "overview": "",
            "popularity": popularity,
            "vote_average": 7.0,
            "vote_count": 100,
            "genre_ids": [],
            "adult": False,
            "poster_path": poster_path_of(title),
            "backdrop_path": None,
        }
        self._items[media_type].append(item)
        self._imdb_ids[media_type, tmdb_id] = imdb_id

    def set_runtime(self, media_type: str, tmdb_id: int, minutes: int) -> None:
        """Give a film its running time, or a show its episodes' length (none until set, as TMDB may)."""
        self._runtimes[media_type, tmdb_id] = minutes

    def set_poster_path(self, media_type: str, tmdb_id: int, poster_path: Any) -> None:
        """Give a film or show another ``poster_path`` (any JSON value, as a careless server might)."""
        for item in self._items[media_type]:
            if item["id"] == tmdb_id:
                item["poster_path"] = poster_path

    def add_translation(self, media_type: str, tmdb_id: int, language: str, title: str) -> None:
        """Give a film or show a title in a language ("fr"): searches match it, answers in it show it."""
        self._translations.setdefault((media_type, tmdb_id), {})[language] = title

    def set_air_dates(self, tmdb_id: int, seasons: dict[int, list[date | None]]) -> None:
        """Give a show its seasons: each season's episodes' air dates in order (None: not announced)."""
        self._air_dates[tmdb_id] = {number: list(dates) for number, dates in seasons.items()}

    def _localized(self, media_type: str, item: dict[str, Any], language: str | None) -> dict[str, Any]:
        """The item as TMDB answers in ``language`` ("fr-FR", "fr"): its title translated when known."""
        code = (language or "en").split("-")[0].lower()
        title = self._translations.get((media_type, item["id"]), {}).get(code)
        if title is None:
            return item
        return {**item, ("title" if media_type == "movie" else "name"): title}

    def error_body(self, status: int) -> Any:
        return {401: INVALID_KEY, 429: RATE_LIMITED}.get(status, SERVER_ERROR)

    async def _guard(self, request: web.Request) -> web.StreamResponse | None:
        """Record the request, play a scripted failure, check the credential."""
        self.requests.append(
            {
                "path": request.path,
                "query": dict(request.query),
                "authorization": request.headers.get("Authorization"),
            }
        )
        if (failure := await self.scripted_failure()) is not None:
            return failure
        if request.query.get("api_key") == self.api_key:
            return None
        if request.headers.get("Authorization") == f"Bearer {self.read_token}":
            return None
        return json_response(INVALID_KEY, status=401)

    async def _configuration(self, request: web.Request) -> web.StreamResponse:
        if (refused := await self._guard(request)) is not None:
            return refused
        return json_response(
            {
                "images": {
                    "base_url": self.image_base_url or f"{self.root_url}/t/p/",
                    "secure_base_url": self.image_base_url or f"{self.root_url}/t/p/",
                    "poster_sizes": ["w92", "w154", "w185", "w342", "w500", "w780", "original"],
                },
                "change_keys": [],
            }
        )

    async def _image(self, request: web.Request) -> web.StreamResponse:
        """A poster, as image.tmdb.org serves it (no credential asked)."""
        self.requests.append({"path": request.path, "query": dict(request.query), "authorization": None})
        if (failure := await self.scripted_failure()) is not None:
            return failure
        path = f"/{request.match_info['file']}"
        titles = [item.get("title") or item["name"] for items in self._items.values() for item in items]
        if path not in {poster_path_of(title) for title in titles}:
            return web.Response(status=404, text="Not Found")
        if self.images_redirect_to is not None:
            return web.Response(status=302, headers={"Location": f"{self.images_redirect_to}{request.path}"})
        body = poster_bytes(path)
        if self.poster_size is not None:
            body += bytes(max(self.poster_size - len(body), 0))  # after IEND: still a PNG to any reader
        return web.Response(body=body, content_type="image/png")

    def _matches(
        self, media_type: str, query: str, year: str | None, language: str | None
    ) -> list[dict[str, Any]]:
        """Items whose title, original title or any translation has every word of the query (as TMDB)."""
        wanted = _words(query)
        date_key = "release_date" if media_type == "movie" else "first_air_date"
        found = []
        for item in self._items[media_type]:
            names = [item.get("title") or item["name"], item.get("original_title") or item["original_name"]]
            names += self._translations.get((media_type, item["id"]), {}).values()
            if not wanted or not any(wanted <= _words(name) for name in names):
                continue
            if year and not item[date_key].startswith(year):
                continue
            found.append(self._localized(media_type, item, language))
        return found

    async def _search(self, request: web.Request) -> web.StreamResponse:
        if (refused := await self._guard(request)) is not None:
            return refused
        kind = request.match_info["kind"]
        query = request.query.get("query", "")
        language = request.query.get("language")
        if kind == "movie":
            year = request.query.get("year") or request.query.get("primary_release_year")
            results = self._matches("movie", query, year, language)
        elif kind == "tv":
            year = request.query.get("first_air_date_year") or request.query.get("year")
            results = self._matches("tv", query, year, language)
        else:
            results = [
                {**item, "media_type": media_type}
                for media_type in ("movie", "tv")
                for item in self._matches(media_type, query, None, language)
            ]
            if results:  # real multi-search mixes in people, which a client must skip
                results.append({"id": 7, "media_type": "person", "name": query.title(), "known_for": []})
        return json_response({"page": 1, "results": results, "total_pages": 1, "total_results": len(results)})

    async def _external_ids(self, request: web.Request) -> web.StreamResponse:
        if (refused := await self._guard(request)) is not None:
            return refused
        key = (request.match_info["kind"], int(request.match_info["tmdb_id"]))
        if key not in self._imdb_ids:
            return json_response(NOT_FOUND, status=404)
        return json_response({"id": key[1], "imdb_id": self._imdb_ids[key], "wikidata_id": None})

    async def _find(self, request: web.Request) -> web.StreamResponse:
        if (refused := await self._guard(request)) is not None:
            return refused
        external_id = request.match_info["external_id"]
        found: dict[str, list[dict[str, Any]]] = {"movie": [], "tv": []}
        for (media_type, tmdb_id), imdb_id in self._imdb_ids.items():
            if imdb_id == external_id:
                found[media_type] += [
                    {**item, "media_type": media_type}
                    for item in self._items[media_type]
                    if item["id"] == tmdb_id
                ]
        return json_response(
            {
                "movie_results": found["movie"],
                "person_results": [],
                "tv_results": found["tv"],
                "tv_episode_results": [],
                "tv_season_results": [],
            }
        )

    async def _movie(self, request: web.Request) -> web.StreamResponse:
        if (refused := await self._guard(request)) is not None:
            return refused
        tmdb_id = int(request.match_info["tmdb_id"])
        item = next((item for item in self._items["movie"] if item["id"] == tmdb_id), None)
        if item is None:
            return json_response(NOT_FOUND, status=404)
        return json_response({**item, "runtime": self._runtimes.get(("movie", tmdb_id), 0)})

    async def _show(self, request: web.Request) -> web.StreamResponse:
        if (refused := await self._guard(request)) is not None:
            return refused
        tmdb_id = int(request.match_info["tmdb_id"])
        item = next((item for item in self._items["tv"] if item["id"] == tmdb_id), None)
        if item is None:
            return json_response(NOT_FOUND, status=404)
        seasons = [
            {
                "season_number": number,
                "episode_count": len(dates),
                "air_date": dates[0].isoformat() if dates and dates[0] else None,
                "name": f"Season {number}",
            }
            for number, dates in sorted(self._air_dates.get(tmdb_id, {}).items())
        ]
        specials = {"season_number": 0, "episode_count": 1, "air_date": None, "name": "Specials"}
        runtime = self._runtimes.get(("tv", tmdb_id))
        return json_response(
            {
                **item,
                "seasons": [specials, *seasons],
                "number_of_seasons": len(seasons),
                "episode_run_time": [runtime] if runtime else [],
            }
        )

    async def _season(self, request: web.Request) -> web.StreamResponse:
        if (refused := await self._guard(request)) is not None:
            return refused
        tmdb_id, number = int(request.match_info["tmdb_id"]), int(request.match_info["season"])
        dates = self._air_dates.get(tmdb_id, {}).get(number)
        if dates is None:
            return json_response(NOT_FOUND, status=404)
        episodes = [
            {
                "season_number": number,
                "episode_number": episode,
                "air_date": air_date.isoformat() if air_date else None,
                "name": f"Episode {episode}",
            }
            for episode, air_date in enumerate(dates, 1)
        ]
        return json_response({"season_number": number, "episodes": episodes})
