"""Benchmark: the cost of one steady-state poll of qBittorrent, incremental sync vs a full listing each time.

Starts a real qbittorrent-nox (the test rig's, on loopback), fills it with magnets of synthetic hashes (no
peers: they stay fetching metadata), then polls at the coordinator's busy interval, each way in turn:

- incremental: what the downloads coordinator does — ``sync/maindata`` with the previous ``rid`` on its own
  session (`QBittorrentClient`), merged by `TorrentTracker`, entity data built;
- full: what Home Assistant core's qbittorrent integration does — ``sync_maindata()`` (rid 0) every poll,
  through qbittorrent-api's default (attribute-dictionary) responses.

Per steady-state poll it reports bytes received (on the wire, gzip-compressed by qBittorrent, and the decoded
JSON), CPU milliseconds in this process (HTTP, JSON, merging; per poll) and in qbittorrent-nox (building the
answer: its CPU over a phase of polls minus its CPU over an idle phase as long, divided by the polls; /proc
counts in 10 ms ticks, hence the averaging), and wall time.

    python bench/downloads.py                    # 1,000 and 5,000 torrents, 10 polls each, 5 s apart
    python bench/downloads.py --sizes 200 --polls 3 --interval 1
    python bench/downloads.py --stalled 50        # polls and qBittorrent CPU per hour, before and after
    python bench/downloads.py --completion 5      # how soon a completion is told, and the polls at rest

With `--completion N`, a real Home Assistant (the test harness's, in this process) runs Agent Media's
coordinator against the rig's qbittorrent-nox, and a second one seeds, its upload limited (`--rate`) so that
each of N downloads (`--size`) takes some seconds. Each is added through Agent Media (its safety check
included); reported: the seconds from qBittorrent's own `completion_on` (whole seconds, so up to 1 s more)
to the `agent_media_download_completed` event, the polls during each download, and the polls of
`sync/maindata` over `--rest` seconds with nothing in progress.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
from dataclasses import dataclass, field
import hashlib
import json
import os
from pathlib import Path
import statistics
import sys
import tempfile
import time
from typing import TYPE_CHECKING, Any

from pytest_homeassistant_custom_component.common import MockConfigEntry, async_test_home_assistant
import qbittorrentapi
import requests

from homeassistant import loader
from homeassistant.setup import async_setup_component

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from custom_components.agent_media.clients.qbittorrent import QBittorrentClient
from custom_components.agent_media.const import (
    CONF_KNABEN_URL,
    CONF_QBITTORRENT_PASSWORD,
    CONF_QBITTORRENT_URL,
    CONF_QBITTORRENT_USERNAME,
    CONF_TMDB_API_KEY,
    CONF_TMDB_URL,
    DEFAULT_SCAN_INTERVAL,
    DOMAIN,
    EVENT_DOWNLOAD_COMPLETED,
    IDLE_SCAN_INTERVAL,
    MAX_DOWNLOAD_ENTITIES,
)
from custom_components.agent_media.coordinator import START_WINDOW
from custom_components.agent_media.torrents import TorrentTracker
from tests.rig.qbittorrent import QBittorrentInstance, close_instance, start_instance
from tests.rig.torrents import make_local_torrent

if TYPE_CHECKING:
    from homeassistant.core import Event

ADD_BATCH = 250
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


@dataclass
class Received:
    """Bytes of the responses received while counting."""

    wire: int = 0
    decoded: int = 0


RECEIVED = Received()
_original_send = requests.Session.send


def _counting_send(
    self: requests.Session, request: requests.PreparedRequest, **kwargs: Any
) -> requests.Response:
    response = _original_send(self, request, **kwargs)
    body = response.content
    RECEIVED.decoded += len(body)
    RECEIVED.wire += int(response.headers.get("Content-Length", len(body)))
    return response


requests.Session.send = _counting_send  # type: ignore[method-assign]


def server_cpu_ms(pid: int) -> float:
    """User + system CPU of a process so far, in ms (10 ms resolution: averaged over many polls)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * 1000 / CLOCK_TICKS


@dataclass
class Samples:
    """Per-poll measurements of one way of polling."""

    wire: list[int] = field(default_factory=list)
    decoded: list[int] = field(default_factory=list)
    client_cpu_ms: list[float] = field(default_factory=list)
    wall_ms: list[float] = field(default_factory=list)
    changed: list[int] = field(default_factory=list)
    server_cpu_ms: float = 0.0  # per poll, idle baseline removed

    def summary(self) -> dict[str, float]:
        return {
            "wire_bytes": statistics.mean(self.wire),
            "json_bytes": statistics.mean(self.decoded),
            "client_cpu_ms": statistics.mean(self.client_cpu_ms),
            "server_cpu_ms": self.server_cpu_ms,
            "wall_ms": statistics.mean(self.wall_ms),
            "torrents_in_answer": statistics.mean(self.changed),
        }


async def measure(samples: Samples, poll: Any) -> None:
    """Run one poll and record what it cost on this side."""
    RECEIVED.wire = RECEIVED.decoded = 0
    cpu_before = time.process_time()
    wall_before = time.perf_counter()
    changed = await poll()
    samples.wall_ms.append((time.perf_counter() - wall_before) * 1000)
    samples.client_cpu_ms.append((time.process_time() - cpu_before) * 1000)
    samples.wire.append(RECEIVED.wire)
    samples.decoded.append(RECEIVED.decoded)
    samples.changed.append(changed)


async def phase(pid: int, polls: int, interval: float, poll: Any = None) -> tuple[Samples, float]:
    """Poll `polls` times, `interval` apart (or just wait); return the samples and qBittorrent's CPU."""
    samples = Samples()
    server_before = server_cpu_ms(pid)
    for _ in range(polls):
        started = time.monotonic()
        if poll is not None:
            await measure(samples, poll)
        await asyncio.sleep(max(0.0, interval - (time.monotonic() - started)))
    return samples, server_cpu_ms(pid) - server_before


def synthetic_magnet(index: int) -> str:
    info_hash = hashlib.sha1(f"agent-media-bench-{index}".encode(), usedforsecurity=False).hexdigest()
    return f"magnet:?xt=urn:btih:{info_hash}&dn=bench-{index:05d}"


def fill(api: qbittorrentapi.Client, start: int, stop: int) -> None:
    """Add magnets start..stop-1 and wait until qBittorrent lists them all."""
    for first in range(start, stop, ADD_BATCH):
        batch = [synthetic_magnet(i) for i in range(first, min(first + ADD_BATCH, stop))]
        api.torrents_add(urls="\n".join(batch))
    deadline = time.monotonic() + 300
    while len(api.torrents_info()) < stop:
        if time.monotonic() > deadline:
            raise SystemExit(f"qBittorrent did not list {stop} torrents in time")
        time.sleep(0.5)


async def bench_size(
    instance: QBittorrentInstance, pid: int, count: int, polls: int, interval: float
) -> dict[str, dict[str, float]]:
    loop = asyncio.get_running_loop()
    incremental_client = QBittorrentClient(instance.url, instance.username, instance.password)
    tracker = TorrentTracker()

    async def incremental_poll() -> int:
        maindata = await incremental_client.async_sync_maindata(tracker.rid)
        tracker.apply(maindata)
        tracker.data(tracker.download_candidates((), MAX_DOWNLOAD_ENTITIES))
        return len(maindata.get("torrents") or {})

    # Home Assistant core: qbittorrent-api defaults (attribute dictionaries), rid 0 on every poll.
    core_client = qbittorrentapi.Client(
        host=instance.url,
        username=instance.username,
        password=instance.password,
        FORCE_SCHEME_FROM_HOST=True,
        REQUESTS_ARGS={"timeout": 60},
    )
    await loop.run_in_executor(None, core_client.auth_log_in)

    async def full_poll() -> int:
        maindata = await loop.run_in_executor(None, core_client.sync_maindata)
        return len(maindata.get("torrents") or {})

    # The first incremental poll is a full snapshot: not steady state.
    await incremental_poll()
    _, idle_cpu = await phase(pid, polls, interval)
    incremental, incremental_cpu = await phase(pid, polls, interval, incremental_poll)
    full, full_cpu = await phase(pid, polls, interval, full_poll)
    incremental.server_cpu_ms = max(incremental_cpu - idle_cpu, 0.0) / polls
    full.server_cpu_ms = max(full_cpu - idle_cpu, 0.0) / polls
    await incremental_client.async_close()
    await loop.run_in_executor(None, core_client.auth_log_out)
    assert len(tracker.torrents) == count, (len(tracker.torrents), count)
    return {"incremental": incremental.summary(), "full": full.summary()}


async def bench_stalled(
    instance: QBittorrentInstance, pid: int, count: int, window: float, stalled_timeout: float
) -> dict[str, dict[str, float]]:
    """Polls and qBittorrent CPU per hour with `count` magnets that never get metadata, before and after.

    Before: the previous coordinator, which polled at the busy interval while anything was in progress.
    After: the same loop deciding by `TorrentTracker.moving`, measured once the no-progress clock has run
    out (`stalled_timeout`, shortened here; 1800 s by default), so in its steady state.
    """
    client = QBittorrentClient(instance.url, instance.username, instance.password)
    tracker = TorrentTracker()

    async def poll() -> float:
        """One coordinator poll; return the interval until the next one."""
        tracker.apply(await client.async_sync_maindata(tracker.rid))
        tracker.data(tracker.download_candidates((), MAX_DOWNLOAD_ENTITIES))
        return float(DEFAULT_SCAN_INTERVAL if policy(tracker) else IDLE_SCAN_INTERVAL)

    async def run(seconds: float) -> tuple[int, float]:
        """Poll as the policy says for `seconds`; return the polls made and qBittorrent's CPU (ms)."""
        polls, cpu_before, deadline = 0, server_cpu_ms(pid), time.monotonic() + seconds
        while (now := time.monotonic()) < deadline:
            interval = await poll()
            polls += 1
            await asyncio.sleep(min(interval, max(deadline - now, 0.0)))
        return polls, server_cpu_ms(pid) - cpu_before

    def before(tracker: TorrentTracker) -> bool:
        return bool(tracker.active)

    def after(tracker: TorrentTracker) -> bool:
        return tracker.moving(tracker.stuck(stalled_timeout))

    results: dict[str, dict[str, float]] = {}
    _, idle_cpu = await phase(pid, 1, window)  # no polls: what the stalled magnets cost qBittorrent anyway
    results["no polls"] = {"polls_per_hour": 0.0, "qbt_cpu_s_per_hour": idle_cpu * 3600 / window / 1000}
    for label, policy in (("before", before), ("after", after)):
        tracker = TorrentTracker()
        await poll()  # the first answer is a full snapshot; it starts every no-progress clock
        if policy is after:
            await run(stalled_timeout)  # fast polling until the clock runs out
        polls, cpu = await run(window)
        results[label] = {
            "polls_per_hour": polls * 3600 / window,
            "qbt_cpu_s_per_hour": cpu * 3600 / window / 1000,
        }
    await client.async_close()
    assert len(tracker.torrents) == count, (len(tracker.torrents), count)
    return results


def report_stalled(count: int, results: dict[str, dict[str, float]]) -> None:
    print(f"{count} magnets without metadata: {'polls/h':>8} {'qBt CPU s/h':>12}")
    for label, row in results.items():
        print(f"  {label:<10} {row['polls_per_hour']:>28.0f} {row['qbt_cpu_s_per_hour']:>12.2f}")
    before, after = results["before"], results["after"]
    print(
        f"  before/after: {before['polls_per_hour'] / max(after['polls_per_hour'], 1):.0f}x polls, "
        f"{before['qbt_cpu_s_per_hour'] / max(after['qbt_cpu_s_per_hour'], 0.001):.1f}x qBittorrent CPU"
    )


def report(results: dict[int, dict[str, dict[str, float]]]) -> None:
    header = (
        f"{'torrents':>8} {'mode':<12} {'wire B/poll':>12} {'JSON B/poll':>12} {'client CPU ms':>14} "
        f"{'qBt CPU ms':>11} {'wall ms':>8} {'in answer':>10}"
    )
    print(header)
    print("-" * len(header))
    for count, modes in results.items():
        for mode, row in modes.items():
            print(
                f"{count:>8} {mode:<12} {row['wire_bytes']:>12,.0f} {row['json_bytes']:>12,.0f} "
                f"{row['client_cpu_ms']:>14.2f} {row['server_cpu_ms']:>11.1f} {row['wall_ms']:>8.1f} "
                f"{row['torrents_in_answer']:>10.0f}"
            )
        inc, full = modes["incremental"], modes["full"]
        inc_total = inc["client_cpu_ms"] + inc["server_cpu_ms"]
        full_total = full["client_cpu_ms"] + full["server_cpu_ms"]
        print(
            f"{count:>8} {'ratio':<12} {full['wire_bytes'] / max(inc['wire_bytes'], 1):>11.0f}x "
            f"{full['json_bytes'] / max(inc['json_bytes'], 1):>11.0f}x "
            f"{full['client_cpu_ms'] / max(inc['client_cpu_ms'], 0.001):>13.0f}x "
            f"{'':>11} {'':>8}   CPU both sides: {full_total / max(inc_total, 0.001):.0f}x"
        )


async def _until(what: str, seconds: float, check: Any) -> Any:
    """Return `check()` once truthy, looking every 0.1 s for at most `seconds`."""
    deadline = time.monotonic() + seconds
    while not (found := await check()):
        if time.monotonic() > deadline:
            raise SystemExit(f"{what}: not within {seconds:.0f} s")
        await asyncio.sleep(0.1)
    return found


async def bench_completion(base: Path, runs: int, size: int, rate: int, rest: float) -> None:
    """Completions told by Agent Media in a real Home Assistant, against qBittorrent's `completion_on`."""
    ours = await start_instance(base / "ours")
    seeder = await start_instance(base / "seeder")
    try:
        ours_api, seeder_api = ours.api(), seeder.api()
        await asyncio.to_thread(seeder_api.app_set_preferences, {"up_limit": rate, "limit_lan_peers": True})
        print(
            f"qBittorrent {await asyncio.to_thread(ours_api.app_version)}; {runs} downloads of {size:,} bytes"
        )
        polls: list[float] = []
        original = QBittorrentClient.async_sync_maindata

        async def counting(client: QBittorrentClient, rid: int = 0) -> dict[str, Any]:
            polls.append(time.monotonic())
            return await original(client, rid)

        QBittorrentClient.async_sync_maindata = counting  # type: ignore[method-assign]
        told: dict[str, float] = {}
        async with async_test_home_assistant(config_dir=str(base)) as hass:
            hass.data.pop(loader.DATA_CUSTOM_COMPONENTS)
            assert await async_setup_component(hass, "homeassistant", {})
            entry = MockConfigEntry(
                domain=DOMAIN,
                title="Agent Media",
                data={
                    CONF_QBITTORRENT_URL: ours.url,
                    CONF_QBITTORRENT_USERNAME: ours.username,
                    CONF_QBITTORRENT_PASSWORD: ours.password,
                    CONF_TMDB_API_KEY: "not used",
                },
                options={CONF_KNABEN_URL: "http://127.0.0.1:9/v1", CONF_TMDB_URL: "http://127.0.0.1:9/3"},
            )
            entry.add_to_hass(hass)
            assert await hass.config_entries.async_setup(entry.entry_id)
            await hass.async_block_till_done()

            def on_completed(event: Event) -> None:
                told[event.data["hash"]] = time.time()

            hass.bus.async_listen(EVENT_DOWNLOAD_COMPLETED, on_completed)
            delays, download_polls, durations = [], [], []
            for run in range(runs):
                torrent = make_local_torrent(base / "seeded", f"Pioneer.One.S01E{run + 1:02d}.mkv", size=size)
                await asyncio.to_thread(
                    seeder_api.torrents_add,
                    torrent_files={"x.torrent": torrent.torrent_bytes},
                    save_path=str(base / "seeded"),
                )

                async def seeding(info_hash: str = torrent.info_hash) -> bool:
                    found = await asyncio.to_thread(seeder_api.torrents_info, torrent_hashes=info_hash)
                    return bool(found) and found[0]["progress"] == 1 and "checking" not in found[0]["state"]

                await _until("seeding", 60, seeding)
                started, polls_before = time.monotonic(), len(polls)
                await entry.runtime_data.operations.adder.async_add(
                    torrent_file=torrent.torrent_bytes, save_path=str(base / "incoming")
                )
                await asyncio.to_thread(
                    ours_api.torrents_add_peers,
                    torrent_hashes=torrent.info_hash,
                    peers=f"127.0.0.1:{seeder.bt_port}",
                )

                async def completion_told(info_hash: str = torrent.info_hash) -> bool:
                    return info_hash in told

                await _until("the completion told", 300, completion_told)
                info = (await asyncio.to_thread(ours_api.torrents_info, torrent_hashes=torrent.info_hash))[0]
                delays.append(told[torrent.info_hash] - info["completion_on"])
                durations.append(info["completion_on"] - info["added_on"])
                download_polls.append(len(polls) - polls_before)
                print(
                    f"  download {run + 1}: took {durations[-1]} s; "
                    f"told {delays[-1]:.1f} s after completion_on; "
                    f"{download_polls[-1]} polls from the add, at "
                    f"{', '.join(f'{at - started:.1f}' for at in polls[polls_before:])} s"
                )
            await asyncio.sleep(START_WINDOW + DEFAULT_SCAN_INTERVAL)  # past the fast polling of the last add
            resting_from = len(polls)
            await asyncio.sleep(rest)
            at_rest = len(polls) - resting_from
            assert await hass.config_entries.async_unload(entry.entry_id)
            await hass.async_stop()
        print(
            f"told after completion_on: median {statistics.median(delays):.1f} s, max {max(delays):.1f} s; "
            f"polls per download median {statistics.median(download_polls)}; "
            f"polls at rest: {at_rest} in {rest:.0f} s"
        )
    finally:
        for instance in (ours, seeder):
            with contextlib.suppress(Exception):
                await close_instance(instance)


async def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 5000])
    parser.add_argument("--polls", type=int, default=10)
    parser.add_argument("--interval", type=float, default=DEFAULT_SCAN_INTERVAL)
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    parser.add_argument("--stalled", type=int, metavar="N", help="instead: N magnets that never get metadata")
    parser.add_argument("--window", type=float, default=300.0, help="seconds measured per way (--stalled)")
    parser.add_argument("--stalled-timeout", type=float, default=20.0, help="no-progress clock (--stalled)")
    parser.add_argument("--completion", type=int, metavar="N", help="instead: N downloads, completion told")
    parser.add_argument("--size", type=int, default=8 * 1024 * 1024, help="bytes per download (--completion)")
    parser.add_argument("--rate", type=int, default=1024 * 1024, help="seeder's bytes/s (--completion)")
    parser.add_argument("--rest", type=float, default=300.0, help="seconds at rest counted (--completion)")
    args = parser.parse_args()

    if args.completion:
        with tempfile.TemporaryDirectory(prefix="agent-media-bench-") as base:
            await bench_completion(Path(base), args.completion, args.size, args.rate, args.rest)
        return
    with tempfile.TemporaryDirectory(prefix="agent-media-bench-") as base:
        instance = await start_instance(Path(base))
        try:
            process = instance._process  # noqa: SLF001 - the rig keeps the qbittorrent-nox process there
            assert process is not None
            pid = process.pid
            api = await asyncio.to_thread(instance.api)
            version = await asyncio.to_thread(api.app_version)
            if args.stalled:
                print(f"qBittorrent {version}; {args.window:.0f} s measured per way\n")
                await asyncio.to_thread(fill, api, 0, args.stalled)
                await asyncio.sleep(3)
                stalled = await bench_stalled(instance, pid, args.stalled, args.window, args.stalled_timeout)
                report_stalled(args.stalled, stalled)
                if args.json:
                    args.json.write_text(json.dumps({"qbittorrent": version, "stalled": stalled}, indent=2))
                return
            print(f"qBittorrent {version}; {args.polls} polls per size and way, {args.interval} s apart\n")
            results: dict[int, dict[str, dict[str, float]]] = {}
            added = 0
            for count in sorted(args.sizes):
                await asyncio.to_thread(fill, api, added, count)
                added = count
                await asyncio.sleep(3)  # let the new torrents settle into metaDL
                results[count] = await bench_size(instance, pid, count, args.polls, args.interval)
            report(results)
            if args.json:
                args.json.write_text(json.dumps({"qbittorrent": version, "results": results}, indent=2))
        finally:
            with contextlib.suppress(Exception):
                await close_instance(instance)


if __name__ == "__main__":
    asyncio.run(main())
