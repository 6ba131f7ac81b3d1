"""TMDB v3 client: identifies a film or show, finds its IMDb id, and reads a show's seasons and air dates."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import date
import re
import time
from typing import TYPE_CHECKING, Any, Final

from yarl import URL

from ..const import (
    DEFAULT_TMDB_IMAGE_URL,
    DEFAULT_TMDB_URL,
    MAX_POSTER_BYTES,
    MAX_RESPONSE_BYTES,
    MAX_TITLE_LENGTH,
    MAX_TMDB_RESULTS,
    POSTER_SIZE,
    SEARCH_CACHE_TTL,
    SEARCH_TIMEOUT,
)
from ..untrusted import image_path
from ._http import (
    DEFAULT_RETRY,
    NO_RETRY,
    REDIRECT_STATUSES,
    RetryPolicy,
    TTLCache,
    async_fetch,
    async_request_json,
    clip,
    deadline_in,
    raise_for_status,
)
from .errors import AgentMediaClientError, InvalidResponseError, RequestRejectedError

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    import aiohttp

SERVICE: Final = "tmdb"
_MAX_RUNTIME: Final = 1000  # minutes; more is an error in TMDB's data
MEDIA_TYPES: Final = ("movie", "tv")

_V3_KEY = re.compile(r"^[0-9a-fA-F]{32}$")
_NON_WORD = re.compile(r"[\W_]+")
_IMDB_ID = re.compile(r"^tt\d{5,10}$")
_JWT_DOTS: Final = 2  # header.payload.signature
_YEAR_DIGITS: Final = 4
_YEAR_TOLERANCE: Final = 2  # a year off by this much or more scores nothing
# Home Assistant languages ("fr", "pt-BR", "en_US", "zh-Hans") → TMDB's ISO 639-1[-ISO 3166-1] ("pt-BR").
_LANGUAGE = re.compile(r"^([A-Za-z]{2})(?:[-_]([A-Za-z]{2}))?(?:[-_].*)?$")
_NO_IMDB_ID: Final = ""  # cached when TMDB knows no IMDb id
MAX_SEASONS: Final = 100  # seasons read of one show
MAX_EPISODES: Final = 500  # episodes read of one season
_IMAGE_BASE = re.compile(r"https?://[^\s?#]{1,200}/")


@dataclass(frozen=True, slots=True)
class Poster:
    """A poster's bytes, as TMDB's image host served them."""

    content: bytes
    content_type: str  # "image/jpeg", "image/png", …


def _origin(url: str) -> tuple[str, str | None, int | None]:
    parsed = URL(url)
    return parsed.scheme, parsed.host, parsed.port


@dataclass(frozen=True, slots=True)
class MediaMatch:
    """One film or show found on TMDB.

    ``title`` is in the language asked for (TMDB's English when none was, or when it has no translation);
    ``original_title`` is the one release names mostly carry.
    """

    title: str
    year: int | None
    tmdb_id: int
    imdb_id: str | None
    media_type: str  # "movie" | "tv"
    original_title: str
    popularity: float
    poster_path: str | None = None  # "/abc123.jpg", under TMDB's image base; None when it has no poster

    def as_dict(self) -> dict[str, Any]:
        """Return the JSON-safe summary given to the agent and the actions."""
        return {
            "title": self.title,
            "year": self.year,
            "imdb_id": self.imdb_id,
            "tmdb_id": self.tmdb_id,
            "media_type": self.media_type,
            "poster_path": self.poster_path,
        }


@dataclass(frozen=True, slots=True)
class SeasonSummary:
    """One season of a show (specials, season 0, left out): its number, episode count and first air date."""

    number: int
    episode_count: int
    air_date: date | None


@dataclass(frozen=True, slots=True)
class EpisodeAirDate:
    """One episode of a season and the day it airs (None: not known yet)."""

    season: int
    episode: int
    air_date: date | None


def is_read_access_token(api_key: str) -> bool:
    """Tell a v4 read-access token (a JWT, "eyJ…") from a 32-hex v3 key; anything else counts as a v3 key."""
    key = api_key.strip()
    return not _V3_KEY.match(key) and (key.startswith("eyJ") or key.count(".") == _JWT_DOTS)


def tmdb_language(language: str | None) -> str | None:
    """Return a language as TMDB takes it ("fr", "pt-BR"), or None when it is not one."""
    if not language or not (found := _LANGUAGE.match(language.strip())):
        return None
    code, region = found.group(1).lower(), found.group(2)
    return f"{code}-{region.upper()}" if region else code


def _normalize_title(title: str) -> str:
    return _NON_WORD.sub(" ", title.casefold()).strip()


def _year(date: Any) -> int | None:
    if isinstance(date, str) and len(date) >= _YEAR_DIGITS and date[:_YEAR_DIGITS].isdigit():
        return int(date[:_YEAR_DIGITS])
    return None


def _date(value: Any) -> date | None:
    if not isinstance(value, str):
        return None
    try:
        return date.fromisoformat(value[:10])
    except ValueError:
        return None


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _parse_item(item: Any, media_type: str | None) -> MediaMatch | None:
    """Build a match from a search result item; None for people and malformed items."""
    if not isinstance(item, dict):
        return None
    kind = media_type or item.get("media_type")
    tmdb_id = item.get("id")
    if kind not in MEDIA_TYPES or not isinstance(tmdb_id, int) or isinstance(tmdb_id, bool):
        return None
    if kind == "movie":
        title, original, date = item.get("title"), item.get("original_title"), item.get("release_date")
    else:
        title, original, date = item.get("name"), item.get("original_name"), item.get("first_air_date")
    if not (title := clip(title, MAX_TITLE_LENGTH)):
        return None
    popularity = item.get("popularity")
    return MediaMatch(
        title=title,
        year=_year(date),
        tmdb_id=tmdb_id,
        imdb_id=None,
        media_type=kind,
        original_title=clip(original, MAX_TITLE_LENGTH) or title,
        popularity=float(popularity) if isinstance(popularity, int | float) else 0.0,
        poster_path=image_path(item.get("poster_path")),
    )


def _runtime_of(details: Mapping[str, Any]) -> int:
    """Return the minutes a film (`runtime`) or a show's episode (`episode_run_time`) lasts; 0: not said."""
    candidates = [details.get("runtime")]
    if isinstance(episode_run_time := details.get("episode_run_time"), list):
        candidates += episode_run_time
    if isinstance(last := details.get("last_episode_to_air"), dict):
        candidates.append(last.get("runtime"))
    minutes = [value for value in candidates if isinstance(value, int) and 0 < value < _MAX_RUNTIME]
    return minutes[0] if minutes else 0


def _image_base(configuration: dict[str, Any]) -> str:
    """Return the image base /configuration names ("https://image.tmdb.org/t/p/"), else TMDB's usual one."""
    images = configuration.get("images")
    base = images.get("secure_base_url") if isinstance(images, dict) else None
    return base if isinstance(base, str) and _IMAGE_BASE.fullmatch(base) else DEFAULT_TMDB_IMAGE_URL


class TMDBClient:
    """Async TMDB v3 client on an injected aiohttp session.

    Answers of 429 and 5xx are retried as ``retry`` allows within ``timeout`` (each call's deadline); the
    same search, and a title's IMDb id, are answered from memory for ``cache_ttl`` seconds.
    """

    def __init__(
        self,
        session: aiohttp.ClientSession,
        api_key: str,
        *,
        base_url: str = DEFAULT_TMDB_URL,
        timeout: float = SEARCH_TIMEOUT,
        retry: RetryPolicy = DEFAULT_RETRY,
        cache_ttl: float = SEARCH_CACHE_TTL,
        clock: Callable[[], float] = time.monotonic,
        max_bytes: int = MAX_RESPONSE_BYTES,
    ) -> None:
        """Detect how the credential is sent: a v3 key as ``api_key=``, a read-access token as Bearer."""
        self._session = session
        self._base_url = base_url.strip().rstrip("/")
        self._timeout = timeout
        self._retry = retry
        self._max_bytes = max_bytes
        key = api_key.strip()
        self.uses_bearer_token = is_read_access_token(key)
        self._headers = {"Accept": "application/json"}
        self._auth_params: dict[str, str] = {}
        if self.uses_bearer_token:
            self._headers["Authorization"] = f"Bearer {key}"
        else:
            self._auth_params["api_key"] = key
        self._searches: TTLCache[tuple[str, ...], tuple[MediaMatch, ...]] = TTLCache(
            ttl=cache_ttl, clock=clock
        )
        self._imdb_ids: TTLCache[tuple[str, int], str] = TTLCache(ttl=cache_ttl, clock=clock)
        self._runtimes: TTLCache[tuple[str, int], int] = TTLCache(ttl=cache_ttl, clock=clock)  # 0: none
        self._image_base: str | None = None  # asked of /configuration once: it hardly ever changes
        # Where posters may come from: TMDB's image host, or the configured API's own (a mirror serves both).
        self._image_origins = frozenset({_origin(DEFAULT_TMDB_IMAGE_URL), _origin(self._base_url)})

    async def _get(
        self, path: str, params: dict[str, Any] | None = None, *, retry: RetryPolicy | None = None
    ) -> dict[str, Any]:
        query = {**self._auth_params, **{k: str(v) for k, v in (params or {}).items() if v is not None}}
        return await async_request_json(
            self._session,
            "GET",
            f"{self._base_url}/{path}",
            service=SERVICE,
            deadline=deadline_in(self._timeout),
            max_bytes=self._max_bytes,
            retry=self._retry if retry is None else retry,
            params=query,
            headers=self._headers,
        )

    async def async_validate(self) -> None:
        """Check the URL and the credential with a cheap authenticated call."""
        await self._get("configuration")

    async def async_poster_url(self, poster_path: str, size: str = POSTER_SIZE) -> str:
        """Return the URL of a poster (a `MediaMatch.poster_path`): TMDB's image base + size + path.

        While /configuration does not answer, TMDB's usual image base is used, and asked again next time.
        """
        if self._image_base is None:
            try:
                self._image_base = _image_base(await self._get("configuration"))
            except AgentMediaClientError:
                return f"{DEFAULT_TMDB_IMAGE_URL}{size}{poster_path}"
        return f"{self._image_base}{size}{poster_path}"

    async def async_poster(self, poster_path: str, size: str = POSTER_SIZE) -> Poster:
        """Fetch a poster: from TMDB's image host only, without following redirects, at most 1 MiB.

        The host /configuration names must be TMDB's image host or the configured API's own: a changed or
        hostile configuration cannot make Home Assistant fetch from elsewhere. Raises our client errors.
        """
        url = await self.async_poster_url(poster_path, size)
        if _origin(url) not in self._image_origins:
            raise RequestRejectedError(SERVICE, "posters come from TMDB's image host only")
        answer = await async_fetch(
            self._session,
            "GET",
            url,
            service=SERVICE,
            deadline=deadline_in(self._timeout),
            max_bytes=MAX_POSTER_BYTES,
            allow_redirects=False,
        )
        if answer.status in REDIRECT_STATUSES:
            raise RequestRejectedError(SERVICE, f"the poster redirects elsewhere (HTTP {answer.status})")
        raise_for_status(SERVICE, answer, has_credentials=False)
        if not (content_type := answer.content_type).startswith("image/"):
            raise InvalidResponseError(SERVICE, f"answered with {content_type or 'nothing'}, not an image")
        return Poster(content=answer.body, content_type=content_type)

    async def async_search(
        self,
        title: str,
        *,
        year: int | None = None,
        media_type: str | None = None,
        language: str | None = None,
    ) -> list[MediaMatch]:
        """Search films (``movie``), shows (``tv``) or both (None); results in TMDB's order, imdb_id None.

        ``language`` (a Home Assistant language such as "fr" or "pt-BR") is the language of the titles.
        """
        params: dict[str, Any] = {
            "query": title,
            "include_adult": "false",
            "page": 1,
            "language": tmdb_language(language),
        }
        if media_type == "movie":
            path, params = "search/movie", {**params, "year": year}
        elif media_type == "tv":
            path, params = "search/tv", {**params, "first_air_date_year": year}
        else:
            path = "search/multi"
        cache_key = (path, *(f"{k}={v}" for k, v in sorted(params.items()) if v is not None))
        if (cached := self._searches.get(cache_key)) is None:
            results = (await self._get(path, params)).get("results")
            items = results[:MAX_TMDB_RESULTS] if isinstance(results, list) else []
            cached = tuple(m for item in items if (m := _parse_item(item, media_type)) is not None)
            self._searches.put(cache_key, cached)
        matches = list(cached)
        if media_type is None and year is not None:
            # search/multi takes no year: keep what is close to it, unless that leaves nothing.
            near = [m for m in matches if m.year is None or abs(m.year - year) <= 1]
            matches = near or matches
        return matches

    async def async_identify(
        self,
        title: str,
        *,
        year: int | None = None,
        media_type: str | None = None,
        language: str | None = None,
    ) -> MediaMatch | None:
        """Return the best match with its IMDb id, or None when TMDB knows nothing by that title.

        With ``language`` its ``title`` is in that language, to be spoken; ``original_title`` stays as made.
        """
        matches = await self.async_search(title, year=year, media_type=media_type, language=language)
        if not matches:
            return None
        wanted = _normalize_title(title)

        def rank(match: MediaMatch) -> tuple[bool, int, float]:
            same_title = wanted in (_normalize_title(match.title), _normalize_title(match.original_title))
            year_score = (
                0
                if year is None or match.year is None
                else _YEAR_TOLERANCE - min(abs(match.year - year), _YEAR_TOLERANCE)
            )
            return same_title, year_score, match.popularity

        best = max(matches, key=rank)
        return replace(best, imdb_id=await self._async_imdb_id(best.media_type, best.tmdb_id))

    async def _async_imdb_id(self, media_type: str, tmdb_id: int) -> str | None:
        key = (media_type, tmdb_id)
        if (cached := self._imdb_ids.get(key)) is None:
            try:
                ids = await self._get(f"{media_type}/{tmdb_id}/external_ids")
            except RequestRejectedError:
                return None  # TMDB has no external ids for it; the match itself is still right
            imdb_id = ids.get("imdb_id")
            cached = imdb_id if isinstance(imdb_id, str) and _IMDB_ID.match(imdb_id) else _NO_IMDB_ID
            self._imdb_ids.put(key, cached)
        return cached or None

    async def async_runtime(self, media_type: str, tmdb_id: int) -> int | None:
        """Return a film's running time, or a show's usual episode length, in minutes; None when unknown.

        Asked once (no retry: it only sharpens a check) and remembered like the IMDb ids.
        """
        key = (media_type, tmdb_id)
        if (cached := self._runtimes.get(key)) is None:
            try:
                details = await self._get(f"{media_type}/{tmdb_id}", retry=NO_RETRY)
            except RequestRejectedError:
                return None  # TMDB does not know it by that id
            cached = _runtime_of(details)
            self._runtimes.put(key, cached)
        return cached or None

    async def async_seasons(self, tmdb_id: int) -> list[SeasonSummary]:
        """Return a show's seasons in order (tv/{id}); malformed ones are left out."""
        show = await self._get(f"tv/{tmdb_id}")
        raw = show.get("seasons")
        seasons = []
        for item in raw[:MAX_SEASONS] if isinstance(raw, list) else []:
            if not isinstance(item, dict):
                continue
            number, count = _count(item.get("season_number")), _count(item.get("episode_count"))
            if number and count is not None:  # season 0 holds the specials
                seasons.append(SeasonSummary(number, count, _date(item.get("air_date"))))
        return sorted(seasons, key=lambda season: season.number)

    async def async_episodes(self, tmdb_id: int, season: int) -> list[EpisodeAirDate]:
        """Return a season's episodes in order with their air dates (tv/{id}/season/{n})."""
        answer = await self._get(f"tv/{tmdb_id}/season/{season}")
        raw = answer.get("episodes")
        episodes = [
            EpisodeAirDate(season, number, _date(item.get("air_date")))
            for item in (raw[:MAX_EPISODES] if isinstance(raw, list) else [])
            if isinstance(item, dict) and (number := _count(item.get("episode_number")))
        ]
        return sorted(episodes, key=lambda episode: episode.episode)
