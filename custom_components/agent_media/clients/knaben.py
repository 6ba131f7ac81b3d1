"""Knaben client: torrent search across public trackers (POST JSON, no key)."""

from __future__ import annotations

from dataclasses import dataclass
import json
import time
from typing import TYPE_CHECKING, Any, Final

from ..const import (
    DEFAULT_KNABEN_URL,
    DEFAULT_SEARCH_LIMIT,
    MAX_LINK_LENGTH,
    MAX_NAME_LENGTH,
    MAX_RESPONSE_BYTES,
    MAX_TITLE_LENGTH,
    SEARCH_CACHE_TTL,
    SEARCH_TIMEOUT,
)
from ._http import DEFAULT_RETRY, RetryPolicy, TTLCache, as_int, async_request_json, clip, deadline_in
from .bittorrent import build_magnet, info_hash_from_magnet, normalize_info_hash
from .errors import InvalidResponseError

if TYPE_CHECKING:
    from collections.abc import Callable

    import aiohttp

SERVICE: Final = "knaben"
MAX_PAGE_SIZE: Final = 300  # Knaben's documented maximum, and the most results kept
_DATE_LENGTH: Final = 40
CATEGORIES: Final[dict[str, list[int]]] = {"movie": [3000000], "tv": [2000000]}


@dataclass(frozen=True, slots=True)
class TorrentResult:
    """One release found by a search source (Knaben or a Torznab indexer), text fields clipped."""

    title: str
    info_hash: str | None
    magnet: str | None
    torrent_url: str | None
    size: int
    seeders: int
    peers: int
    tracker: str | None
    category_ids: tuple[int, ...]
    virus_score: float | None
    published: str | None
    source: str = SERVICE  # the search source that found it: "knaben" or an indexer's name

    def as_dict(self) -> dict[str, Any]:
        """Return a JSON-safe dict."""
        return {
            "title": self.title,
            "info_hash": self.info_hash,
            "magnet": self.magnet,
            "torrent_url": self.torrent_url,
            "size": self.size,
            "seeders": self.seeders,
            "peers": self.peers,
            "tracker": self.tracker,
            "category_ids": list(self.category_ids),
            "virus_score": self.virus_score,
            "published": self.published,
            "source": self.source,
        }

    @property
    def download_link(self) -> str | None:
        """The magnet, else a magnet built from the hash, else the .torrent URL."""
        if self.magnet:
            return self.magnet
        if self.info_hash:
            return build_magnet(self.info_hash, self.title)
        return self.torrent_url


def _text(value: Any) -> str | None:
    return (value.strip() or None) if isinstance(value, str) else None


def link_or_none(value: Any) -> str | None:
    """Return a magnet or URL from outside, or None when absent or too long to be a sane link (never cut)."""
    link = _text(value)
    return link if link and len(link) <= MAX_LINK_LENGTH else None


def _virus_score(value: Any) -> float | None:
    """``virusDetection`` comes as a number, a (possibly empty) list of numbers, a string or null."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return None
    if isinstance(value, list):
        scores = [score for item in value if (score := _virus_score(item)) is not None]
        return max(scores) if scores else None
    return None


def _category_ids(value: Any) -> tuple[int, ...]:
    items = value if isinstance(value, list) else [value]
    return tuple(item for item in items if isinstance(item, int) and not isinstance(item, bool))


def parse_hit(hit: Any) -> TorrentResult | None:
    """Build a result from one Knaben hit; None when it has no title or nothing to download."""
    if not isinstance(hit, dict) or not (title := clip(hit.get("title"), MAX_TITLE_LENGTH)):
        return None
    raw_hash = _text(hit.get("hash"))
    info_hash = normalize_info_hash(raw_hash) if raw_hash else None
    magnet = link_or_none(hit.get("magnetUrl"))
    torrent_url = link_or_none(hit.get("link"))
    if torrent_url and torrent_url.lower().startswith("magnet:"):
        magnet, torrent_url = magnet or torrent_url, None
    if magnet and not magnet.lower().startswith("magnet:"):
        magnet = None
    if magnet and info_hash is None:
        info_hash = info_hash_from_magnet(magnet)
    if not (magnet or info_hash or torrent_url):
        return None
    return TorrentResult(
        title=title,
        info_hash=info_hash,
        magnet=magnet,
        torrent_url=torrent_url,
        size=max(as_int(hit.get("bytes")), 0),
        seeders=max(as_int(hit.get("seeders")), 0),
        peers=max(as_int(hit.get("peers")), 0),
        tracker=clip(hit.get("tracker"), MAX_NAME_LENGTH),
        category_ids=_category_ids(hit.get("categoryId")),
        virus_score=_virus_score(hit.get("virusDetection")),
        published=clip(hit.get("date"), _DATE_LENGTH),
    )


class KnabenClient:
    """Async Knaben API client on an injected aiohttp session.

    Answers of 429 and 5xx are retried as ``retry`` allows within ``timeout`` (the whole call's deadline);
    the same search within ``cache_ttl`` seconds is answered from memory.
    """

    def __init__(
        self,
        session: aiohttp.ClientSession,
        *,
        base_url: str = DEFAULT_KNABEN_URL,
        timeout: float = SEARCH_TIMEOUT,
        retry: RetryPolicy = DEFAULT_RETRY,
        cache_ttl: float = SEARCH_CACHE_TTL,
        clock: Callable[[], float] = time.monotonic,
        max_bytes: int = MAX_RESPONSE_BYTES,
    ) -> None:
        """Keep the session, where to reach Knaben and how politely."""
        self._session = session
        self._url = base_url.strip()
        self._timeout = timeout
        self._retry = retry
        self._max_bytes = max_bytes
        self._cache: TTLCache[str, tuple[TorrentResult, ...]] = TTLCache(ttl=cache_ttl, clock=clock)

    async def async_search(
        self,
        query: str,
        *,
        media_type: str | None = None,
        limit: int = DEFAULT_SEARCH_LIMIT,
        fresh: bool = False,
    ) -> list[TorrentResult]:
        """Search releases whose title has every word of ``query``, most seeders first; drops dead ones.

        ``fresh`` asks Knaben even when the answer is cached (the cache keeps the new answer).
        """
        size = min(max(limit, 1), MAX_PAGE_SIZE)
        body: dict[str, Any] = {
            "search_type": "100%",
            "search_field": "title",
            "query": query,
            "order_by": "seeders",
            "order_direction": "desc",
            "from": 0,
            "size": size,
            "hide_unsafe": True,
            "hide_xxx": True,
        }
        if media_type in CATEGORIES:
            body["categories"] = CATEGORIES[media_type]
        cache_key = json.dumps(body, sort_keys=True)
        if not fresh and (cached := self._cache.get(cache_key)) is not None:
            return list(cached)
        payload = await async_request_json(
            self._session,
            "POST",
            self._url,
            service=SERVICE,
            deadline=deadline_in(self._timeout),
            has_credentials=False,
            max_bytes=self._max_bytes,
            retry=self._retry,
            headers={"Accept": "application/json"},
            json_body=body,
        )
        hits = payload.get("hits")
        if not isinstance(hits, list):
            raise InvalidResponseError(SERVICE, "answer without a hits list")
        results: list[TorrentResult] = []
        for hit in hits:
            if (result := parse_hit(hit)) is not None and result.seeders > 0:
                results.append(result)
                if len(results) == size:
                    break
        self._cache.put(cache_key, tuple(results))
        return results
