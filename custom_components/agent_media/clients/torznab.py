"""Torznab client: searches a Jackett or Prowlarr indexer (RSS 2.0 with torznab attributes, over GET).

The indexer's capabilities (``t=caps``) decide which search is sent: ``t=movie`` by IMDb id when the film is
known and the indexer takes it, ``t=tvsearch`` with season and episode, else ``t=search`` by text.
XML is parsed with the standard library's expat, refusing any DTD, so no entity can be declared or expanded;
parsing runs in the executor, since a large answer takes tens of milliseconds.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from functools import partial
import itertools
import re
import time
from typing import TYPE_CHECKING, Any, Final
from xml.etree.ElementTree import Element, TreeBuilder
from xml.parsers import expat

from yarl import URL

from ..const import (
    DEFAULT_INDEXER_NAME,
    DEFAULT_INDEXER_TIMEOUT,
    MAX_NAME_LENGTH,
    MAX_RESULTS_PER_SOURCE,
    MAX_TITLE_LENGTH,
    MAX_TORZNAB_ITEMS,
    MAX_TORZNAB_RESPONSE_BYTES,
    SEARCH_CACHE_TTL,
)
from ._http import (
    DEFAULT_RETRY,
    HttpAnswer,
    RetryPolicy,
    TTLCache,
    as_int,
    async_fetch,
    clip,
    deadline_in,
    raise_for_status,
)
from .bittorrent import info_hash_from_magnet, normalize_info_hash
from .errors import (
    CannotConnectError,
    InvalidAuthError,
    InvalidResponseError,
    RateLimitedError,
    RequestRejectedError,
)
from .knaben import TorrentResult, link_or_none

if TYPE_CHECKING:
    from collections.abc import Callable

    import aiohttp

TORZNAB_NS: Final = "http://torznab.com/schemas/2015/feed"
NEWZNAB_NS: Final = "http://www.newznab.com/DTD/2010/feeds/attributes/"
_ATTR_TAGS: Final = frozenset({f"{{{TORZNAB_NS}}}attr", f"{{{NEWZNAB_NS}}}attr"})
CATEGORIES: Final = {"movie": "2000", "tv": "5000"}  # Torznab's standard parent categories
# What a search mode takes when the caps do not say (the specification's defaults).
_DEFAULT_PARAMS: Final = {
    "tv-search": frozenset({"q", "season", "ep"}),
    "movie-search": frozenset({"q"}),
}
_IMDB_ID = re.compile(r"^(?:tt)?(\d{5,10})$")
_ERROR_DETAIL_LENGTH: Final = 120  # Jackett puts whole stack traces in its error descriptions
_DATE_LENGTH: Final = 40
_AUTH_CODES: Final = range(100, 200)  # 100 bad key, 101 account suspended, 102 no privileges
_REQUEST_CODES: Final = range(200, 300)  # 200 missing or 201 bad parameter, 202/203 function unavailable
_LIMIT_CODES: Final = frozenset({429, 500, 501})  # 500/501 request or download limit reached


def normalize_api_url(url: str) -> str:
    """Return an indexer's Torznab endpoint: no query, ending in ``/api`` (Jackett shows ``…/torznab/``)."""
    base = URL(url.strip()).with_query(None).with_fragment(None)
    path = base.path.rstrip("/")
    return str(base.with_path(path if path.endswith("/api") else f"{path}/api"))


@dataclass(frozen=True, slots=True)
class TorznabCapabilities:
    """What an indexer can search: the parameters each search mode takes, None when it is unavailable.

    Plain ``t=search`` by text needs no entry: every Torznab server must answer it.
    """

    server: str | None
    max_limit: int | None
    tv_search: frozenset[str] | None
    movie_search: frozenset[str] | None


class _DtdRefusedError(Exception):
    """The document declares a DTD or entities."""


def _qualified(name: str) -> str:
    """Turn expat's ``uri name`` (namespace_separator " ") into ElementTree's ``{uri}name``."""
    uri, _, local = name.rpartition(" ")
    return f"{{{uri}}}{local}" if uri else local


def parse_xml(body: bytes, service: str) -> Element:
    """Parse an XML document into an element tree, refusing DTDs (so no entity can be declared).

    Raises InvalidResponseError for malformed XML and for any DOCTYPE or entity declaration.
    """
    builder = TreeBuilder()
    parser = expat.ParserCreate(namespace_separator=" ")

    def refuse(*_: Any) -> Any:
        raise _DtdRefusedError

    def start(name: str, attributes: dict[str, str]) -> None:
        builder.start(_qualified(name), {_qualified(key): value for key, value in attributes.items()})

    def end(name: str) -> None:
        builder.end(_qualified(name))

    parser.StartDoctypeDeclHandler = refuse
    parser.EntityDeclHandler = refuse
    parser.ExternalEntityRefHandler = refuse
    parser.StartElementHandler = start
    parser.EndElementHandler = end
    parser.CharacterDataHandler = builder.data
    parser.buffer_text = True
    try:
        parser.Parse(body, True)  # noqa: FBT003 - isfinal, positional only
    except _DtdRefusedError as err:
        raise InvalidResponseError(service, "answered with XML that declares a DTD (refused)") from err
    except expat.ExpatError as err:
        raise InvalidResponseError(service, "answered with malformed XML") from err
    return builder.close()


def raise_for_torznab_error(root: Element, service: str, *, api_key: str = "") -> None:
    """Raise the error a Torznab ``<error code=… description=…/>`` document means; return for any other.

    Jackett's descriptions may quote the request, key included: the key is masked before clipping.
    """
    if root.tag != "error":
        return
    code = as_int(root.get("code"))
    description = root.get("description")
    if api_key and description:
        description = description.replace(api_key, "***")
    detail = clip(description, _ERROR_DETAIL_LENGTH) or "no description"
    if code in _AUTH_CODES:
        raise InvalidAuthError(service, f"credentials refused (Torznab error {code}: {detail})")
    if code in _LIMIT_CODES:
        raise RateLimitedError(service, f"limit reached (Torznab error {code}: {detail})")
    if code in _REQUEST_CODES:
        raise RequestRejectedError(service, f"request refused (Torznab error {code}: {detail})")
    raise CannotConnectError(service, f"indexer failed (Torznab error {code}: {detail})")


def _search_mode(searching: Element | None, tag: str) -> frozenset[str] | None:
    mode = searching.find(tag) if searching is not None else None
    if mode is None or (mode.get("available") or "").strip().lower() != "yes":
        return None
    listed = {param.strip().lower() for param in (mode.get("supportedParams") or "").split(",")}
    return frozenset(listed - {""}) or _DEFAULT_PARAMS[tag]


def parse_caps(root: Element, service: str) -> TorznabCapabilities:
    """Read a ``t=caps`` answer; raises InvalidResponseError when it is not one."""
    if root.tag != "caps":
        raise InvalidResponseError(service, "answered without Torznab capabilities")
    server, limits, searching = root.find("server"), root.find("limits"), root.find("searching")
    max_limit = as_int(limits.get("max")) if limits is not None else 0
    return TorznabCapabilities(
        server=clip(server.get("title"), MAX_NAME_LENGTH) if server is not None else None,
        max_limit=max_limit if max_limit > 0 else None,
        tv_search=_search_mode(searching, "tv-search"),
        movie_search=_search_mode(searching, "movie-search"),
    )


def _episode_tag(season: int | None, episode: int | None) -> str:
    if season is None:
        return ""
    return f"S{season:02d}E{episode:02d}" if episode is not None else f"S{season:02d}"


def search_params(
    caps: TorznabCapabilities,
    query: str,
    *,
    media_type: str | None = None,
    imdb_id: str | None = None,
    season: int | None = None,
    episode: int | None = None,
    limit: int = MAX_RESULTS_PER_SOURCE,
) -> dict[str, str]:
    """Return the query string of the best search the indexer supports (without the API key).

    An IMDb id replaces the text when the mode takes ``imdbid`` (sent without "tt", as Radarr does).
    Without a TV search mode, season and episode go into the text (``S01E02``) as Sonarr does.
    """
    imdb = found.group(1) if imdb_id and (found := _IMDB_ID.match(imdb_id.strip())) else None
    params: dict[str, str]
    if media_type == "movie" and caps.movie_search is not None:
        params = {"t": "movie", "cat": CATEGORIES["movie"]}
        if imdb and "imdbid" in caps.movie_search:
            params["imdbid"] = imdb
        else:
            params["q"] = query
    elif media_type == "tv" and caps.tv_search is not None:
        params = {"t": "tvsearch", "cat": CATEGORIES["tv"]}
        if imdb and "imdbid" in caps.tv_search:
            params["imdbid"] = imdb
        else:
            params["q"] = query
        if season is not None and "season" in caps.tv_search:
            params["season"] = str(season)
            if episode is not None and "ep" in caps.tv_search:
                params["ep"] = str(episode)
    else:
        tag = _episode_tag(season, episode) if media_type == "tv" else ""
        params = {"t": "search", "q": f"{query} {tag}".strip()}
        if media_type in CATEGORIES:
            params["cat"] = CATEGORIES[media_type]
    params["limit"] = str(max(1, min(limit, caps.max_limit or limit)))
    return params


def _published(value: str | None) -> str | None:
    """RSS dates (RFC 822) as ISO 8601, like Knaben's; None when unreadable."""
    if not (text := clip(value, _DATE_LENGTH)):
        return None
    try:
        return parsedate_to_datetime(text).isoformat()
    except (TypeError, ValueError):
        return None


def _links(*candidates: str | None) -> tuple[str | None, str | None]:
    """Return the first magnet and the first http(s) link among an item's links (sane lengths only)."""
    magnet = torrent_url = None
    for candidate in candidates:
        if not (link := link_or_none(candidate)):
            continue
        if link.lower().startswith("magnet:"):
            magnet = magnet or link
        elif link.lower().startswith(("http://", "https://")):
            torrent_url = torrent_url or link
    return magnet, torrent_url


def parse_item(item: Element, *, source: str) -> TorrentResult | None:
    """Build a result from one RSS ``<item>``; None when it has no title or nothing to download."""
    if not (title := clip(item.findtext("title"), MAX_TITLE_LENGTH)):
        return None
    attributes: dict[str, list[str]] = {}
    for child in item:
        if child.tag in _ATTR_TAGS and (name := child.get("name")) and (value := child.get("value")):
            attributes.setdefault(name.strip().lower(), []).append(value)

    def attribute(name: str) -> str | None:
        return attributes.get(name, [None])[0]

    enclosure = item.find("enclosure")
    magnet, torrent_url = _links(
        attribute("magneturl"),
        enclosure.get("url") if enclosure is not None else None,
        item.findtext("link"),
    )
    info_hash = normalize_info_hash(attribute("infohash") or "")
    if magnet and info_hash is None:
        info_hash = info_hash_from_magnet(magnet)
    if not (magnet or info_hash or torrent_url):
        return None
    seeders = max(as_int(attribute("seeders")), 0)
    leechers = attribute("leechers")
    # Torznab's "peers" counts seeders too; like Knaben's field, ours counts the others.
    peers = as_int(leechers) if leechers is not None else as_int(attribute("peers")) - seeders
    size = as_int(attribute("size")) or as_int(item.findtext("size"))
    if not size and enclosure is not None:
        size = as_int(enclosure.get("length"))
    categories = attributes.get("category") or [category.text or "" for category in item.iterfind("category")]
    return TorrentResult(
        title=title,
        info_hash=info_hash,
        magnet=magnet,
        torrent_url=torrent_url,
        size=max(size, 0),
        seeders=seeders,
        peers=max(peers, 0),
        tracker=clip(item.findtext("jackettindexer") or item.findtext("prowlarrindexer"), MAX_NAME_LENGTH),
        category_ids=tuple(as_int(category) for category in categories if category.strip().isdigit()),
        virus_score=None,
        published=_published(item.findtext("pubDate")),
        source=source,
    )


def parse_results(root: Element, *, source: str, limit: int) -> list[TorrentResult]:
    """Read a search answer: live releases (seeders > 0), most seeders first, at most ``limit``."""
    channel = root.find("channel") if root.tag == "rss" else None
    if channel is None:
        raise InvalidResponseError(source, "answered without an RSS channel")
    items = itertools.islice(channel.iterfind("item"), MAX_TORZNAB_ITEMS)
    results = [result for item in items if (result := parse_item(item, source=source)) and result.seeders > 0]
    results.sort(key=lambda result: result.seeders, reverse=True)
    return results[:limit]


def _is_xml(answer: HttpAnswer) -> bool:
    return "xml" in answer.content_type or answer.body.lstrip().startswith(b"<?xml")


class TorznabClient:
    """Async client of one Torznab endpoint (a Jackett or Prowlarr indexer, or an aggregate of them).

    ``name`` names the indexer in errors and in its results' ``source``. Each call (caps and search
    together) must finish within ``timeout``; 429 and 5xx are retried as ``retry`` allows; the same search
    within ``cache_ttl`` seconds is answered from memory. The API key travels in the query string, as
    Jackett requires: never log the URLs.
    """

    def __init__(
        self,
        session: aiohttp.ClientSession,
        url: str,
        api_key: str,
        *,
        name: str = DEFAULT_INDEXER_NAME,
        timeout: float = DEFAULT_INDEXER_TIMEOUT,
        retry: RetryPolicy = DEFAULT_RETRY,
        cache_ttl: float = SEARCH_CACHE_TTL,
        clock: Callable[[], float] = time.monotonic,
        max_bytes: int = MAX_TORZNAB_RESPONSE_BYTES,
    ) -> None:
        """Keep the session, the endpoint (normalised to ``…/api``) and how politely to ask it."""
        self._session = session
        self._url = normalize_api_url(url)
        self._api_key = api_key.strip()
        self.name = clip(name, MAX_NAME_LENGTH) or DEFAULT_INDEXER_NAME
        self._timeout = timeout
        self._retry = retry
        self._max_bytes = max_bytes
        self._caps: TorznabCapabilities | None = None
        self._cache: TTLCache[tuple[tuple[str, str], ...], tuple[TorrentResult, ...]] = TTLCache(
            ttl=cache_ttl, clock=clock
        )

    async def _async_get_xml(self, params: dict[str, str], deadline: float) -> Element:
        answer = await async_fetch(
            self._session,
            "GET",
            self._url,
            service=self.name,
            deadline=deadline,
            max_bytes=self._max_bytes,
            retry=self._retry,
            params={**params, "apikey": self._api_key},
            headers={"Accept": "application/rss+xml, application/xml;q=0.9, */*;q=0.1"},
        )
        is_xml = _is_xml(answer)
        if not is_xml or answer.status == 429 or answer.status >= 500:  # noqa: PLR2004
            raise_for_status(self.name, answer, has_credentials=True)
        if not is_xml:
            raise InvalidResponseError(
                self.name, f"answered with {answer.content_type or 'nothing'}, not XML"
            )
        root = await asyncio.get_running_loop().run_in_executor(None, parse_xml, answer.body, self.name)
        # Jackett answers a bad key with HTTP 200 and an error document: the document says more.
        raise_for_torznab_error(root, self.name, api_key=self._api_key)
        raise_for_status(self.name, answer, has_credentials=True)
        return root

    async def async_caps(self, *, deadline: float | None = None) -> TorznabCapabilities:
        """Return the indexer's capabilities, asked once per client."""
        if self._caps is None:
            deadline = deadline_in(self._timeout) if deadline is None else deadline
            root = await self._async_get_xml({"t": "caps"}, deadline)
            self._caps = parse_caps(root, self.name)
        return self._caps

    async def async_validate(self) -> TorznabCapabilities:
        """Ask for the capabilities afresh: checks the URL, that it speaks Torznab, and the API key."""
        self._caps = None
        return await self.async_caps()

    async def async_search(
        self,
        query: str,
        *,
        media_type: str | None = None,
        imdb_id: str | None = None,
        season: int | None = None,
        episode: int | None = None,
        limit: int = MAX_RESULTS_PER_SOURCE,
        fresh: bool = False,
    ) -> list[TorrentResult]:
        """Search with the best mode the indexer supports; live releases, most seeders first.

        ``fresh`` asks the indexer even when the answer is cached (the cache keeps the new answer).
        """
        deadline = deadline_in(self._timeout)
        caps = await self.async_caps(deadline=deadline)
        limit = max(1, min(limit, MAX_RESULTS_PER_SOURCE))
        params = search_params(
            caps, query, media_type=media_type, imdb_id=imdb_id, season=season, episode=episode, limit=limit
        )
        cache_key = tuple(sorted(params.items()))
        if not fresh and (cached := self._cache.get(cache_key)) is not None:
            return list(cached)
        root = await self._async_get_xml(params, deadline)
        read = partial(parse_results, root, source=self.name, limit=limit)
        results = await asyncio.get_running_loop().run_in_executor(None, read)
        self._cache.put(cache_key, tuple(results))
        return results
