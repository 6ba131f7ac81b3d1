"""Every search source at once: Knaben and any number of Torznab indexers, asked in parallel, merged.

One source down or slow does not hold up the others: each has its own deadline, its failure is reported
by name with a short code, and the releases found elsewhere are still returned.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from ..const import DEFAULT_SEARCH_LIMIT, LOGGER, MAX_MERGED_RESULTS
from .errors import AgentMediaClientError
from .knaben import SERVICE as KNABEN

if TYPE_CHECKING:
    from collections.abc import Coroutine, Iterable, Sequence

    from .knaben import KnabenClient, TorrentResult
    from .torznab import TorznabClient

UNEXPECTED: Final = "unexpected"  # the failure code of an error that is not one of the clients' own


@dataclass(frozen=True, slots=True)
class SourceFailure:
    """A source that gave no results, and why: ``code`` as in the clients' errors, ``detail`` in words."""

    source: str
    code: str
    detail: str

    def as_dict(self) -> dict[str, str]:
        """Return a JSON-safe dict."""
        return {"source": self.source, "code": self.code, "detail": self.detail}


@dataclass(frozen=True, slots=True)
class SearchOutcome:
    """What a search across the sources found (merged, de-duplicated) and which sources failed."""

    results: list[TorrentResult]
    failures: list[SourceFailure]
    sources: tuple[str, ...]  # every source asked, in order

    @property
    def failure_summary(self) -> str | None:
        """A few words on what failed, to tell the person ("Jackett: timed out"); None when nothing did."""
        return "; ".join(f"{failure.source}: {failure.detail}" for failure in self.failures) or None

    def as_dict(self) -> dict[str, Any]:
        """Return a JSON-safe dict."""
        return {
            "results": [result.as_dict() for result in self.results],
            "failures": [failure.as_dict() for failure in self.failures],
            "sources": list(self.sources),
        }


def merge_results(
    batches: Iterable[Sequence[TorrentResult]], *, max_results: int = MAX_MERGED_RESULTS
) -> list[TorrentResult]:
    """Merge the sources' results: one per info hash (the most seeders; the earlier source on a tie).

    Results without a hash cannot be compared and are all kept. Most seeders first, at most ``max_results``.
    """
    by_hash: dict[str, TorrentResult] = {}
    unhashed: list[TorrentResult] = []
    for batch in batches:
        for result in batch:
            if result.info_hash is None:
                unhashed.append(result)
            elif (kept := by_hash.get(result.info_hash)) is None or result.seeders > kept.seeders:
                by_hash[result.info_hash] = result
    merged = sorted([*by_hash.values(), *unhashed], key=lambda result: result.seeders, reverse=True)
    return merged[:max_results]


def _failure(source: str, error: BaseException) -> SourceFailure:
    if isinstance(error, AgentMediaClientError):
        return SourceFailure(source, error.code, error.detail)
    # A bug of ours or of a library: the other sources still answer, the traceback goes to the log.
    LOGGER.error("Unexpected error while searching %s", source, exc_info=error)
    return SourceFailure(source, UNEXPECTED, "unexpected error")


class SearchSources:
    """Knaben (optional) and any Torznab indexers, searched together."""

    def __init__(
        self,
        knaben: KnabenClient | None,
        indexers: Sequence[TorznabClient] = (),
        *,
        max_results: int = MAX_MERGED_RESULTS,
    ) -> None:
        """Keep the sources in the order their results win ties."""
        self._knaben = knaben
        self._indexers = tuple(indexers)
        self._max_results = max_results

    @property
    def names(self) -> tuple[str, ...]:
        """The sources' names, in order: ``knaben``, then each indexer's."""
        return ((KNABEN,) if self._knaben else ()) + tuple(indexer.name for indexer in self._indexers)

    async def async_search(
        self,
        query: str,
        *,
        media_type: str | None = None,
        imdb_id: str | None = None,
        season: int | None = None,
        episode: int | None = None,
        limit: int = DEFAULT_SEARCH_LIMIT,
        fresh: bool = False,
    ) -> SearchOutcome:
        """Ask every source at once, each within its own timeout, and merge what they found.

        ``query`` is the text (title, and year for films). Indexers use ``imdb_id`` ("tt…"), ``season`` and
        ``episode`` when they support them; Knaben searches the text alone. Never raises a client error:
        each failure is in ``failures``. ``fresh`` passes over the sources' caches.
        """
        searches: list[Coroutine[Any, Any, list[TorrentResult]]] = []
        if self._knaben:
            searches.append(self._knaben.async_search(query, media_type=media_type, limit=limit, fresh=fresh))
        searches.extend(
            indexer.async_search(
                query,
                media_type=media_type,
                imdb_id=imdb_id,
                season=season,
                episode=episode,
                limit=limit,
                fresh=fresh,
            )
            for indexer in self._indexers
        )
        answers = await asyncio.gather(*searches, return_exceptions=True)
        batches: list[list[TorrentResult]] = []
        failures: list[SourceFailure] = []
        for source, answer in zip(self.names, answers, strict=True):
            if isinstance(answer, BaseException) and not isinstance(answer, Exception):
                raise answer  # cancelled: the caller's deadline passed or Home Assistant is stopping
            if isinstance(answer, Exception):
                failures.append(_failure(source, answer))
            else:
                batches.append(answer)
        return SearchOutcome(
            results=merge_results(batches, max_results=self._max_results),
            failures=failures,
            sources=self.names,
        )
