"""Benchmark: the search sources' bounds and parallelism.

The Knaben and Torznab look-alikes of the test rig run in a child process (their work is not counted here).

Reported:
- a 10 MB Knaben answer sent chunked, without a length: wall time and peak Python memory (tracemalloc) of
  the client refusing it at the 2 MB cap, beside the same answer read with the cap raised to 64 MB (as
  before the cap);
- CPU ms to parse a Torznab answer of 100 and of 1000 items (parse_xml + parse_results), and the longest
  the event loop stalls while the client searches an indexer answering those 1000 items (parsing runs in
  the executor);
- wall time of one SearchSources search over Knaben (answers at once), an indexer answering after 0.4 s
  and one that does not answer (timeout 1 s): bounded by the slowest timeout, not the sum;
- the cost of a search answered from the cache.

    python bench/sources.py               # 5 repetitions of each measurement (medians)
    python bench/sources.py --repeat 10
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
from pathlib import Path
import statistics
import sys
import time
import tracemalloc
from typing import Any

import aiohttp
from aiohttp import web

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from custom_components.agent_media.clients._http import NO_RETRY  # noqa: E402
from custom_components.agent_media.clients.errors import AgentMediaClientError  # noqa: E402
from custom_components.agent_media.clients.knaben import KnabenClient  # noqa: E402
from custom_components.agent_media.clients.sources import SearchSources  # noqa: E402
from custom_components.agent_media.clients.torznab import (  # noqa: E402
    TorznabClient,
    parse_results,
    parse_xml,
)
from tests.rig.knaben_server import KnabenServer, synthetic_hash  # noqa: E402
from tests.rig.torznab_server import Release, TorznabServer  # noqa: E402

BIG = 10 * 1024 * 1024


class DelayedTorznab(TorznabServer):
    """An indexer that answers every search after ``delay`` seconds (caps at once)."""

    def __init__(self, delay: float, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.delay = delay

        @web.middleware
        async def delayed(request: web.Request, handler: Any) -> web.StreamResponse:
            if request.query.get("t") != "caps":
                await self.wait(self.delay)
            response: web.StreamResponse = await handler(request)
            return response

        self.app.middlewares.append(delayed)


class BulkTorznab(TorznabServer):
    """An indexer whose every search answers the same prepared body."""

    def __init__(self, body: bytes, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._body = body

    def _results(self, query: dict[str, str]) -> bytes:  # noqa: ARG002
        return self._body


async def serve() -> None:
    """Run the look-alikes; POST /huge makes Knaben's next answer 10 MB, chunked."""
    knaben = KnabenServer()
    knaben.huge_bytes = BIG
    jackett = DelayedTorznab(0.4, title="Jackett", indexer="all")
    silent = DelayedTorznab(60.0, title="Silent", indexer="silent")
    bulk = BulkTorznab(torznab_answer(1000), title="Bulk", indexer="bulk")
    for server in (knaben, jackett, silent, bulk):
        await server.start()

    async def huge(_request: web.Request) -> web.Response:
        knaben.fail_next("huge_stream")
        return web.json_response({})

    control = web.Application()
    control.router.add_post("/huge", huge)
    runner = web.AppRunner(control, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    urls = {
        "control": f"http://127.0.0.1:{runner.addresses[0][1]}",
        "knaben": knaben.base_url,
        "jackett": jackett.base_url,
        "jackett_key": jackett.api_key,
        "silent": silent.base_url,
        "silent_key": silent.api_key,
        "bulk": bulk.base_url,
        "bulk_key": bulk.api_key,
    }
    print(json.dumps(urls), flush=True)
    await asyncio.Event().wait()


def torznab_answer(items: int) -> bytes:
    """A Torznab search answer of ``items`` releases, as the look-alike writes them."""
    server = TorznabServer()
    releases = [
        Release(
            title=f"Elephants.Dream.2006.{n}.1080p.BluRay.x264-GROUP",
            info_hash=synthetic_hash(f"bench {n}"),
            size=1_000_000_000 + n,
            seeders=n + 1,
            leechers=3,
            category=2040,
            imdb="0807840",
        )
        for n in range(items)
    ]
    server.set_releases(releases)
    server.max_limit = items
    return server._results({"t": "search", "limit": str(items)})  # noqa: SLF001


async def longest_stall(work: Any) -> float:
    """Run ``work`` while a ticker measures the longest gap between its 1 ms sleeps."""
    gaps: list[float] = []
    done = asyncio.Event()

    async def tick() -> None:
        last = time.perf_counter()
        while not done.is_set():
            await asyncio.sleep(0.001)
            now = time.perf_counter()
            gaps.append(now - last)
            last = now

    ticker = asyncio.create_task(tick())
    await work
    done.set()
    await ticker
    return max(gaps)


def median_ms(samples: list[float]) -> str:
    return f"{statistics.median(samples) * 1000:.2f} ms"


async def oversized(
    session: aiohttp.ClientSession, urls: dict[str, str], max_bytes: int
) -> tuple[float, int]:
    """Wall seconds and peak traced bytes of one search whose answer is 10 MB."""
    async with session.post(f"{urls['control']}/huge") as response:
        response.raise_for_status()
    client = KnabenClient(session, base_url=urls["knaben"], retry=NO_RETRY, cache_ttl=0, max_bytes=max_bytes)
    tracemalloc.start()
    started = time.perf_counter()
    with contextlib.suppress(AgentMediaClientError):  # too large; or, read whole, not Knaben's JSON
        await client.async_search("Sintel")
    elapsed = time.perf_counter() - started
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return elapsed, peak


async def run(repeat: int) -> None:
    process = await asyncio.create_subprocess_exec(
        sys.executable, __file__, "--serve", stdout=asyncio.subprocess.PIPE, cwd=str(ROOT)
    )
    assert process.stdout is not None
    urls = json.loads(await process.stdout.readline())
    try:
        async with aiohttp.ClientSession() as session:
            for label, cap in (("2 MB cap", 2 * 1024 * 1024), ("64 MB cap (whole body)", 64 * 1024 * 1024)):
                runs = [await oversized(session, urls, cap) for _ in range(repeat)]
                peak = statistics.median(peak for _, peak in runs) / 1024 / 1024
                print(f"10 MB Knaben answer, {label}: {median_ms([t for t, _ in runs])}, peak {peak:.1f} MB")

            for items in (100, 1000):
                body = torznab_answer(items)
                samples = []
                for _ in range(repeat):
                    started = time.process_time()
                    parse_results(parse_xml(body, "bench"), source="bench", limit=100)
                    samples.append(time.process_time() - started)
                size = f"{len(body) // 1024} KB"
                print(f"Torznab answer of {items} items ({size}): parsed in {median_ms(samples)} CPU")

            bulk = TorznabClient(
                session, urls["bulk"], urls["bulk_key"], name="Bulk", retry=NO_RETRY, cache_ttl=0
            )
            await bulk.async_validate()
            stalls = [await longest_stall(bulk.async_search("Elephants Dream")) for _ in range(repeat)]
            print(
                f"Longest event-loop stall, searching an indexer that answers 1000 items: {median_ms(stalls)}"
            )

            walls = []
            for _ in range(repeat):
                sources = SearchSources(
                    KnabenClient(session, base_url=urls["knaben"], retry=NO_RETRY),
                    [
                        TorznabClient(
                            session, urls["jackett"], urls["jackett_key"], name="Jackett", retry=NO_RETRY
                        ),
                        TorznabClient(
                            session,
                            urls["silent"],
                            urls["silent_key"],
                            name="Silent",
                            timeout=1.0,
                            retry=NO_RETRY,
                        ),
                    ],
                )
                started = time.perf_counter()
                outcome = await sources.async_search("Sintel", media_type="movie", imdb_id="tt1727587")
                walls.append(time.perf_counter() - started)
                assert [failure.code for failure in outcome.failures] == ["timed_out"], outcome.failures
            print(
                "Knaben (at once) + indexer (0.4 s) + silent indexer (timeout 1 s) in parallel: "
                f"{median_ms(walls)}; {len(outcome.results)} results, failures: {outcome.failure_summary}"
            )

            sources = SearchSources(
                KnabenClient(session, base_url=urls["knaben"], retry=NO_RETRY),
                [
                    TorznabClient(
                        session, urls["jackett"], urls["jackett_key"], name="Jackett", retry=NO_RETRY
                    )
                ],
            )
            await sources.async_search("Sintel", media_type="movie", imdb_id="tt1727587")
            cached = []
            for _ in range(repeat):
                started = time.perf_counter()
                await sources.async_search("Sintel", media_type="movie", imdb_id="tt1727587")
                cached.append(time.perf_counter() - started)
            print(f"The same search again within 10 minutes (Knaben + Jackett, cached): {median_ms(cached)}")
    finally:
        process.terminate()
        await process.wait()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeat", type=int, default=5, help="repetitions of each measurement (default 5)")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        asyncio.run(serve())
    else:
        asyncio.run(run(args.repeat))


if __name__ == "__main__":
    main()
