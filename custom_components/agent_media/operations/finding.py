"""Finding operations: identify a film or show on TMDB, search the sources, rank and number the releases.

A search is kept as the requester's last one (its links in RAM only, `links.py`), so "the 2nd one" means
its second result later.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
import re
from typing import TYPE_CHECKING, Any, Final

from yarl import URL

from ..clients.bittorrent import build_magnet, info_hash_from_magnet
from ..errors import ErrorCode, OperationError, client_errors, from_failure
from ..memory import MAX_SEARCH_RESULTS
from ..ranking import (
    TITLE_SIMILARITY_THRESHOLD,
    RankedRelease,
    normalize_title,
    parse_release,
    rank_releases,
    title_similarity,
)
from ..untrusted import MAX_PATH, MAX_TITLE, clip
from .base import OperationsPart

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from ..clients.knaben import TorrentResult
    from ..clients.tmdb import MediaMatch
    from ..links import ResultLinks
    from ..ranking import Rejection
    from .base import Collaborators, Request
    from .settings import Settings

MAX_QUERIES: Final = 3
_TITLE_PUNCTUATION = re.compile(r"[^\w\s&']+")


@dataclass(frozen=True, slots=True)
class TorrentSearch:
    """A search as kept in the requester's working state: results numbered from 1, best first."""

    query: str
    results: Sequence[Mapping[str, Any]]
    rejected: int
    media: Mapping[str, Any] | None
    unavailable: str | None = None  # sources that failed, in a few words ("Jackett: timed out")


def _is_http_url(link: str) -> bool:
    try:
        parsed = URL(link)
    except ValueError:
        return False
    return parsed.scheme in ("http", "https") and bool(parsed.host) and len(link) <= MAX_PATH


def _rankable(found: list[TorrentResult]) -> list[dict[str, Any]]:
    return [result.as_dict() | {"download_link": result.download_link} for result in found]


def _numbered(ranked: list[RankedRelease], links: ResultLinks) -> list[dict[str, Any]]:
    """Return the results to keep: each link left in RAM (`links`), the result holding only its id."""
    return [
        {
            "title": release.result["title"],
            "size": release.result["size"],
            "seeders": release.result["seeders"],
            "peers": release.result["peers"],
            "info_hash": release.result["info_hash"],
            "link_id": _kept_link_id(release.result["download_link"], links),
            "tracker": release.result["tracker"],
            "source": release.result.get("source"),
            "reason": release.reason,
        }
        for release in ranked[:MAX_SEARCH_RESULTS]
    ]


def _kept_link_id(link: str | None, links: ResultLinks) -> str | None:
    """Keep a result's usable link in RAM and return its id; None for none (never echoed in an error)."""
    if not link:
        return None
    try:
        return links.remember(checked_link(link))
    except OperationError:
        return None


def checked_link(link: str) -> str:
    """Return a magnet or http(s) link to a .torrent, stripped; raise bad_args for anything else."""
    link = link.strip()
    if link.lower().startswith("magnet:"):
        if info_hash_from_magnet(link) is None:
            raise OperationError(ErrorCode.BAD_ARGS, "invalid_magnet", magnet=link)
    elif not _is_http_url(link):
        raise OperationError(ErrorCode.BAD_ARGS, "invalid_url", url=link)
    return link


def none_usable(found: int, query: str, rejected: list[Any]) -> OperationError:
    """Return the not_found error for releases found yet every one rejected, with the main reasons."""
    reasons = "; ".join(sorted({rejection.reason for rejection in rejected})[:3])
    return OperationError(ErrorCode.NOT_FOUND, "none_usable", found=found, query=query, reasons=reasons)


class Finding(OperationsPart):
    """Identifying, searching and ranking; the results kept as the requester's last search."""

    def __init__(self, collaborators: Collaborators, settings: Settings) -> None:
        """Bind to the collaborators and the settings (the release preferences rank)."""
        super().__init__(collaborators)
        self.settings = settings

    async def async_identify(
        self, request: Request, title: str, *, year: int | None = None, media_type: str | None = None
    ) -> dict[str, Any]:
        """Identify a film or show on TMDB (its title in the person's language) and remember it."""
        match = await self.async_match(title, year=year, media_type=media_type, language=request.language)
        media = match.as_dict()
        self.memory.conversations.set_media(request.conversation_id, request.requester.key, media)
        return media

    async def async_match(
        self, title: str, *, year: int | None, media_type: str | None, language: str | None = None
    ) -> MediaMatch:
        """Return TMDB's match for a title; not_found when it knows none."""
        title = title.strip()
        with client_errors():
            match = await self.collaborators.tmdb.async_identify(
                title, year=year, media_type=media_type, language=language
            )
        if match is None:
            raise OperationError(ErrorCode.NOT_FOUND, "media_not_found", title=title)
        return match

    async def async_media_of_release(self, name: str) -> dict[str, Any] | None:
        """Return the film or show a release is of, when TMDB knows its title (and year); else None.

        So a download added from a search by name, or by a magnet, is named after its film, with its poster.
        """
        parsed = parse_release(name)
        if not parsed.title:
            return None
        media_type = "tv" if parsed.seasons else "movie"
        try:
            match = await self.async_match(parsed.title, year=parsed.year, media_type=media_type)
        except OperationError:
            return None  # unknown, or TMDB unreachable: the download keeps its release name
        similarity = max(
            title_similarity(parsed.title, title) for title in (match.title, match.original_title)
        )
        return match.as_dict() if similarity >= TITLE_SIMILARITY_THRESHOLD else None

    async def async_search(
        self, request: Request, query: str, *, media_type: str | None = None
    ) -> TorrentSearch:
        """Search, rank and keep the releases as the requester's last search.

        The media looked up last in the conversation guides the ranking, and becomes the search's media
        identity, only when the query names it. Nothing usable found: not_found, and the last search stays.
        """
        query = clip(" ".join(query.split()), MAX_TITLE)
        if not query:
            raise OperationError(ErrorCode.BAD_ARGS, "query_missing")
        media: Mapping[str, Any] | None = self.memory.conversations.media(request.conversation_id)
        if media and normalize_title(str(media["title"])) not in normalize_title(query):
            media = None  # the media looked up earlier is not what is searched now
        media_type = media_type or (media or {}).get("media_type")
        parsed_query = parse_release(query)
        found, unavailable = await self.async_find(
            query, media_type=media_type, imdb_id=(media or {}).get("imdb_id")
        )
        if not found:
            raise OperationError(ErrorCode.NOT_FOUND, "no_torrents_found", query=query)
        # Reading a hundred release names takes tens of milliseconds: off the event loop.
        ranked, rejected = await self.hass.async_add_executor_job(
            partial(
                rank_releases,
                _rankable(found),
                title=(media or {}).get("title"),
                year=(media or {}).get("year"),
                media_type=media_type or ("tv" if parsed_query.seasons else "movie"),
                season=parsed_query.seasons[0] if parsed_query.seasons else None,
                episode=parsed_query.episodes[0] if parsed_query.episodes else None,
                preferences=self.settings.ranking_preferences(
                    resolution=parsed_query.resolution, requester_key=request.requester.person_key
                ),
            )
        )
        if not ranked:
            raise none_usable(len(found), query, rejected)
        results = self.keep_search(request, query, ranked, media)
        return TorrentSearch(
            query=query, results=results, rejected=len(rejected), media=media, unavailable=unavailable
        )

    def keep_search(
        self, request: Request, query: str, ranked: list[RankedRelease], media: Mapping[str, Any] | None
    ) -> Sequence[Mapping[str, Any]]:
        """Keep ranked releases as the requester's last search (links in RAM); return them numbered."""
        return self.memory.working.store_search(
            request.requester.key,
            query,
            _numbered(ranked, self.collaborators.links),
            media,
            request.conversation_id,
        )

    async def async_find(
        self,
        query: str,
        *,
        media_type: str | None,
        imdb_id: str | None = None,
        season: int | None = None,
        episode: int | None = None,
        fresh: bool = False,
    ) -> tuple[list[TorrentResult], str | None]:
        """Search every source at once; return what was found and which sources failed (None: none did).

        Only when every source failed is it an error: the person hears why.
        """
        outcome = await self.collaborators.sources.async_search(
            query, media_type=media_type, imdb_id=imdb_id, season=season, episode=episode, fresh=fresh
        )
        if not outcome.results and outcome.failures and len(outcome.failures) == len(outcome.sources):
            first = outcome.failures[0]
            services = ", ".join(failure.source for failure in outcome.failures)
            raise from_failure(services, first.code, outcome.failure_summary or first.detail)
        return outcome.results, outcome.failure_summary

    async def async_rank_media(
        self,
        media: Mapping[str, Any],
        found: list[TorrentResult],
        *,
        season: int | None,
        episode: int | None,
        resolution: str | None = None,
        requester_key: str | None = None,
    ) -> tuple[list[RankedRelease], list[Rejection]]:
        """Rank the releases found for a known film or show, off the event loop (tens of ms a hundred).

        With the preferences of whoever asked (`requester_key`: a person's own over the household's).
        """
        return await self.hass.async_add_executor_job(
            partial(
                rank_releases,
                _rankable(found),
                title=media.get("title"),
                year=media.get("year"),
                media_type=media.get("media_type") or "movie",
                season=season,
                episode=episode,
                preferences=self.settings.ranking_preferences(
                    resolution=resolution, requester_key=requester_key
                ),
                alternative_titles=tuple(filter(None, (media.get("original_title"),))),
            )
        )

    async def async_search_media(
        self,
        media: Mapping[str, Any],
        *,
        season: int | None,
        episode: int | None,
        spoken_in_english: bool = True,
        fresh: bool = False,
    ) -> tuple[str, list[TorrentResult], str | None]:
        """Search a title with its year (films), then without, then the other title; first hits win.

        Releases carry the English or the original title: a title TMDB gave in another language is for
        speaking, so the original comes first then.
        """
        title, original = str(media["title"]), media.get("original_title")
        names = (title, original) if spoken_in_english else (original, title)
        media_type, year = media.get("media_type"), media.get("year")
        queries: list[str] = []
        for name in dict.fromkeys(name for name in names if name):
            clean = " ".join(_TITLE_PUNCTUATION.sub(" ", name).split())
            # Films carry their year in release names; shows mostly do not.
            if media_type == "movie" and year:
                queries.append(f"{clean} {year}")
            queries.append(clean)
        found: list[TorrentResult] = []
        unavailable: str | None = None
        for query in list(dict.fromkeys(queries))[:MAX_QUERIES]:
            found, unavailable = await self.async_find(
                query,
                media_type=media_type,
                imdb_id=media.get("imdb_id"),
                season=season,
                episode=episode,
                fresh=fresh,
            )
            if found:
                return query, found, unavailable
        return queries[0], found, unavailable

    def search_result(self, request: Request, index: int) -> dict[str, Any]:
        """Return result `index` (from 1) of the search a number means in this conversation."""
        search = self.memory.working.search(request.requester.key, request.conversation_id)
        results = search["results"] if search else []
        if not results:
            raise OperationError(ErrorCode.NOT_FOUND, "no_search_results")
        if index > len(results):
            raise OperationError(ErrorCode.NOT_FOUND, "unknown_index", index=index, count=len(results))
        return dict(results[index - 1])

    def result_link(self, result: Mapping[str, Any], index: int) -> str:
        """Return the link a kept result is added by: from RAM, else a magnet of its info hash."""
        if link := self.collaborators.links.get(result.get("link_id")):
            return link
        if info_hash := result.get("info_hash"):
            return build_magnet(str(info_hash), str(result.get("title") or "") or None)
        raise OperationError(ErrorCode.NOT_FOUND, "result_without_link", index=index)
