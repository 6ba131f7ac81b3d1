"""Benchmark: reading the .torrent of one add, before and after it was decoded once, off the event loop.

The hostile file is the rig's (`tests/rig/torrents.py`, `make_hostile_torrent`): about 9 MB, under the
10 MiB cap, listing 150,000 files. Beside it: a .torrent of 10,000 files (the most a .torrent may list)
and a release .torrent of 2 MB (a 52 GB remux).

- before: what one add did up to revision 722a071 (its bittorrent.py is read from git): the safety check
  decoded the file twice (its id and name, then its file list), the duplicate check once more, the
  qBittorrent client a fourth time for its id — all on the event loop.
- after: `read_torrent_file` once, in the executor, within its limits (the hostile file is refused at
  10,000 list items).

Per case it prints the median of the runs: CPU time of this process (all threads), wall time, and the
longest stretch the event loop was blocked (a 5 ms ticker measures it).

    /var/cache/agent-media/venv-ha-2025.4/bin/python bench/torrent_decode.py          # 3 runs
    /var/cache/agent-media/venv-ha-2025.4/bin/python bench/torrent_decode.py --runs 5
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
from pathlib import Path
import statistics
import subprocess
import sys
import time
import types
from typing import TYPE_CHECKING, Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from custom_components.agent_media.clients.bittorrent import (
    MAX_TORRENT_FILES,
    InvalidTorrentError,
    read_torrent_file,
)
from tests.rig.torrents import make_hostile_torrent, make_release_torrent

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

ROOT = Path(__file__).resolve().parent.parent
BEFORE_REVISION = "722a071"
TICK = 0.005


def load_before(revision: str) -> types.ModuleType:
    """The bittorrent module as it was at ``revision`` (standard library only, so it loads on its own)."""
    source = subprocess.run(  # noqa: S603 - git, with a revision given on our own command line
        ["git", "show", f"{revision}:custom_components/agent_media/clients/bittorrent.py"],  # noqa: S607
        cwd=ROOT,
        capture_output=True,
        check=True,
        text=True,
    ).stdout
    module = types.ModuleType("bittorrent_before")
    exec(compile(source, "bittorrent_before.py", "exec"), module.__dict__)  # noqa: S102 - our own old code
    return module


async def measure(job: Callable[[], Awaitable[Any]]) -> tuple[float, float, float]:
    """Run ``job`` on a loop with a ticker; return CPU seconds, wall seconds and the longest loop block."""
    loop = asyncio.get_running_loop()
    longest = 0.0
    running = True

    async def ticker() -> None:
        nonlocal longest
        last = loop.time()
        while running:
            await asyncio.sleep(TICK)
            now = loop.time()
            longest = max(longest, now - last - TICK)
            last = now

    ticking = asyncio.create_task(ticker())
    await asyncio.sleep(TICK * 2)
    cpu, wall = time.process_time(), time.perf_counter()
    await job()
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    await asyncio.sleep(TICK * 2)  # let the ticker see the end of a block
    running = False
    await ticking
    return cpu, wall, longest


def before_job(module: types.ModuleType, data: bytes) -> Callable[[], Awaitable[Any]]:
    async def job() -> None:
        module.torrent_file_identity(data)  # safety check: id and name
        module.torrent_file_names(data)  # safety check: file list
        module.torrent_file_identity(data)  # is it already in qBittorrent?
        module.torrent_file_identity(data)  # the client's add

    return job


def after_job(data: bytes) -> Callable[[], Awaitable[Any]]:
    async def job() -> None:
        with contextlib.suppress(InvalidTorrentError):  # the hostile file: refused, as an add refuses it
            await asyncio.get_running_loop().run_in_executor(None, read_torrent_file, data)

    return job


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--before", default=BEFORE_REVISION, help="git revision of the code before")
    args = parser.parse_args()
    before = load_before(args.before)
    most = {f"Extras/Part {n // 1000:02d}/clip {n:05d}.mkv": 1_000_000 for n in range(MAX_TORRENT_FILES)}
    files = {
        "hostile (150,000 files)": make_hostile_torrent(),
        "10,000 files (the most)": make_release_torrent(
            "Pioneer.One.Extras", 10**10, files=most
        ).torrent_bytes,
        "release (52 GB remux)": make_release_torrent(
            "Big.Buck.Bunny.2008.2160p.REMUX", 52 * 10**9
        ).torrent_bytes,
    }
    print(f"median of {args.runs} runs; CPU and wall in seconds, loop block in milliseconds")
    for label, data in files.items():
        for variant, job in (("before", before_job(before, data)), ("after", after_job(data))):
            runs = [asyncio.run(measure(job)) for _ in range(args.runs)]
            cpu, wall, block = (statistics.median(column) for column in zip(*runs, strict=True))
            print(
                f"{label:<24} {len(data) / 1e6:5.2f} MB  {variant:<6}  "
                f"CPU {cpu:6.3f}  wall {wall:6.3f}  longest loop block {block * 1000:7.1f}"
            )


if __name__ == "__main__":
    main()
