"""Knaben client: torrent search across public trackers (POST JSON, no key)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final
from urllib.parse import quote

from custom_components.agent_media.const import DEFAULT_KNABEN_URL, SEARCH_TIMEOUT

from ._http import async_request_json
from .errors import InvalidResponseError
from .qbittorrent import info_hash_from_magnet, normalize_info_hash

if TYPE_CHECKING:
    import aiohttp

SERVICE: Final = "knaben"
MAX_PAGE_SIZE: Final = 300  # Knaben's documented maximum
CATEGORIES: Final[dict[str, list[int]]] = {"movie": [3000000], "tv": [2000000]}


@dataclass(frozen=True, slots=True)
class TorrentResult:
    """One release found on Knaben."""

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
        }

    @property
    def download_link(self) -> str | None:
        """The magnet, else a magnet built from the hash, else the .torrent URL."""
        if self.magnet:
            return self.magnet
        if self.info_hash:
            return build_magnet(self.info_hash, self.title)
        return self.torrent_url


def build_magnet(info_hash: str, name: str | None = None) -> str:
    """Return a tracker-less magnet link for a hash (peers come from DHT and PeX)."""
    magnet = f"magnet:?xt=urn:btih:{info_hash.lower()}"
    return f"{magnet}&dn={quote(name, safe='')}" if name else magnet


def _int(value: Any) -> int:
    if isinstance(value, bool):
        return 0
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return int(value)
    if isinstance(value, str):
        try:
            return int(float(value))
        except ValueError:
            return 0
    return 0


def _text(value: Any) -> str | None:
    return (value.strip() or None) if isinstance(value, str) else None


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
    if not isinstance(hit, dict) or not (title := _text(hit.get("title"))):
        return None
    raw_hash = _text(hit.get("hash"))
    info_hash = normalize_info_hash(raw_hash) if raw_hash else None
    magnet = _text(hit.get("magnetUrl"))
    torrent_url = _text(hit.get("link"))
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
        size=max(_int(hit.get("bytes")), 0),
        seeders=max(_int(hit.get("seeders")), 0),
        peers=max(_int(hit.get("peers")), 0),
        tracker=_text(hit.get("tracker")),
        category_ids=_category_ids(hit.get("categoryId")),
        virus_score=_virus_score(hit.get("virusDetection")),
        published=_text(hit.get("date")),
    )


class KnabenClient:
    """Async Knaben API client on an injected aiohttp session."""

    def __init__(
        self,
        session: aiohttp.ClientSession,
        *,
        base_url: str = DEFAULT_KNABEN_URL,
        timeout: float = SEARCH_TIMEOUT,
    ) -> None:
        """Keep the session and where to reach Knaben."""
        self._session = session
        self._url = base_url.strip()
        self._timeout = timeout

    async def async_search(
        self, query: str, *, media_type: str | None = None, limit: int = 50
    ) -> list[TorrentResult]:
        """Search releases whose title has every word of ``query``, most seeders first; drops dead ones."""
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
        payload = await async_request_json(
            self._session,
            "POST",
            self._url,
            service=SERVICE,
            time_limit=self._timeout,
            has_credentials=False,
            headers={"Accept": "application/json"},
            json_body=body,
        )
        hits = payload.get("hits")
        if not isinstance(hits, list):
            raise InvalidResponseError(SERVICE, "answer without a hits list")
        results = [result for hit in hits if (result := parse_hit(hit)) is not None and result.seeders > 0]
        return results[:size]
