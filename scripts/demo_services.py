"""Local stand-ins for TMDB and Knaben, for `scripts/develop --demo`: Agent Media without keys or internet.

They serve the public-domain films of the test rig (tests/rig). Every release they list is a small local
torrent that the demo's seeding qBittorrent holds; its magnet names that seeder as a peer (``x.pe``), so a
download really runs and completes in the Home Assistant's qBittorrent, over loopback.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import importlib
import json
import logging
import os
from pathlib import Path
import signal
import sys
import time
import types
from typing import Any
from urllib.parse import quote

from aiohttp import web
import qbittorrentapi

REPO = Path(__file__).resolve().parent.parent
SAMPLE_SIZE = 2 * 1024 * 1024  # bytes of each release's sample video
LOGGER = logging.getLogger("agent_media.demo")


def rig_module(name: str) -> types.ModuleType:
    """Import tests/rig/<name>.py without the package's __init__, which needs pytest."""
    if "rig" not in sys.modules:
        package = types.ModuleType("rig")
        package.__path__ = [str(REPO / "tests" / "rig")]
        sys.modules["rig"] = package
    return importlib.import_module(f"rig.{name}")


def seeder_client(url: str, username: str, password: str) -> qbittorrentapi.Client:
    """Log in to the seeding qBittorrent, waiting for it to start."""
    deadline = time.monotonic() + 60
    while True:
        client = qbittorrentapi.Client(
            host=url,
            username=username,
            password=password,
            FORCE_SCHEME_FROM_HOST=True,
            REQUESTS_ARGS={"timeout": 5},
        )
        try:
            client.auth_log_in()
        except qbittorrentapi.APIConnectionError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.5)
        else:
            return client


def seeded_hits(seed_dir: Path, seeder: qbittorrentapi.Client, peer: str) -> list[dict[str, Any]]:
    """Return the rig's Knaben catalogue with each release made a local torrent, seeded by `seeder`."""
    knaben = rig_module("knaben_server")
    torrents = rig_module("torrents")
    hits = knaben.default_hits()
    for hit in hits:
        name = f"{hit['title']}.mkv".replace("/", "-")
        local = torrents.make_local_torrent(seed_dir, name, size=SAMPLE_SIZE)
        seeder.torrents_add(torrent_files=local.torrent_bytes, save_path=str(seed_dir), is_skip_checking=True)
        # The listed size stays the catalogue's, so ranking sees a plausible release; the file is a sample.
        hit["hash"] = local.info_hash
        hit["magnetUrl"] = f"magnet:?xt=urn:btih:{local.info_hash}&dn={quote(name)}&x.pe={peer}"
        hit["link"] = None
    return hits


def write_demo_entry(args: argparse.Namespace, tmdb_api_key: str) -> None:
    """Give a new demo configuration its Agent Media entry, pointed at the stand-ins.

    Written as the oldest config-entry storage format, which Home Assistant migrates on load; an existing
    file (a demo run before) is left as it is. Without DEMO_LLM_* variables the entry has no model and
    answers the common sentences locally.
    """
    storage = args.config / ".storage" / "core.config_entries"
    if storage.exists():
        return
    data = {
        "qbittorrent_url": args.qbittorrent_url,
        "qbittorrent_username": args.qbittorrent_username,
        "qbittorrent_password": args.qbittorrent_password,
        "qbittorrent_verify_ssl": True,
        "tmdb_api_key": tmdb_api_key,
    }
    llm = {key: os.environ.get(f"DEMO_{key.upper()}") for key in ("llm_base_url", "llm_api_key", "llm_model")}
    if llm["llm_base_url"] and llm["llm_model"]:
        data |= {key: value or "" for key, value in llm.items()}
    entry = {
        "entry_id": "agentmediademo00000000000000000",
        "version": 1,
        "domain": "agent_media",
        "title": "Agent Media demo",
        "data": data,
        "options": {
            "tmdb_url": f"http://127.0.0.1:{args.tmdb_port}/3",
            "knaben_url": f"http://127.0.0.1:{args.knaben_port}/v1",
        },
        "source": "user",
    }
    storage.parent.mkdir(parents=True, exist_ok=True)
    payload = {"version": 1, "minor_version": 1, "key": "core.config_entries", "data": {"entries": [entry]}}
    storage.write_text(json.dumps(payload, indent=2), encoding="utf-8")
    LOGGER.info("DEMO entry written to %s", storage)


async def serve(server: Any, port: int) -> web.AppRunner:
    """Run a rig server's app on a fixed loopback port (the entry's options point there)."""
    runner = web.AppRunner(server.app, handle_signals=False, access_log=None)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", port).start()
    return runner


async def main() -> None:
    """Make the torrents, hand them to the seeder, and serve TMDB and Knaben until stopped."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seed-dir", type=Path, required=True, help="where the sample videos are written")
    parser.add_argument("--seeder-url", required=True, help="Web UI of the seeding qBittorrent")
    parser.add_argument("--seeder-username", required=True)
    parser.add_argument("--seeder-password", required=True)
    parser.add_argument("--peer", required=True, help="host:port the seeder takes BitTorrent peers on")
    parser.add_argument("--tmdb-port", type=int, required=True)
    parser.add_argument("--knaben-port", type=int, required=True)
    parser.add_argument("--config", type=Path, required=True, help="the demo's Home Assistant configuration")
    parser.add_argument("--qbittorrent-url", required=True, help="Web UI of Home Assistant's qBittorrent")
    parser.add_argument("--qbittorrent-username", required=True)
    parser.add_argument("--qbittorrent-password", required=True)
    parser.add_argument("--ready-file", type=Path, required=True, help="written once everything listens")
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s: %(message)s")

    seeder = await asyncio.to_thread(
        seeder_client, args.seeder_url, args.seeder_username, args.seeder_password
    )
    hits = await asyncio.to_thread(seeded_hits, args.seed_dir, seeder, args.peer)
    knaben = rig_module("knaben_server").KnabenServer()
    # The catalogue its searches filter and sort (set_hits would answer every search with all of them).
    knaben._hits = hits  # noqa: SLF001
    tmdb = rig_module("tmdb_server").TMDBServer()
    runners = [await serve(tmdb, args.tmdb_port), await serve(knaben, args.knaben_port)]
    write_demo_entry(args, tmdb.api_key)
    LOGGER.info(
        "DEMO stand-ins ready: TMDB http://127.0.0.1:%s/3 (API key %s), Knaben http://127.0.0.1:%s/v1, "
        "%d releases seeded from %s",
        args.tmdb_port,
        tmdb.api_key,
        args.knaben_port,
        len(hits),
        args.seed_dir,
    )
    args.ready_file.write_text("ready\n", encoding="utf-8")
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    await stop.wait()
    for runner in runners:
        with contextlib.suppress(Exception):
            await runner.cleanup()


if __name__ == "__main__":
    asyncio.run(main())
