"""Local stand-ins for TMDB and Knaben, for `scripts/develop --demo`: Agent Media without keys or internet.

They serve the public-domain films of the test rig (tests/rig). Every release they list is a small local
torrent that the demo's seeding qBittorrent holds (queueing off, so it seeds them all at once); its magnet
names that seeder as a peer (``x.pe``), so a download really runs and completes in Home Assistant's
qBittorrent, over loopback. The TMDB stand-in serves drawn posters (`demo_posters`) on its own port.

On a demo's first start it also writes the Agent Media entry and an assistant ("Agent Media demo", the
preferred one) whose conversation agent is Agent Media, so Assist answers "Find torrents for Sintel" at once.
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
from demo_posters import poster_png
import qbittorrentapi

REPO = Path(__file__).resolve().parent.parent
SAMPLE_SIZE = 2 * 1024 * 1024  # bytes of each release's sample video
LOGGER = logging.getLogger("agent_media.demo")
DEMO_ENTRY_ID = "agentmediademo00000000000000000"
DEMO_ENTRY_TITLE = "Agent Media demo"
# The entry's conversation entity takes its device's name, the entry's title.
DEMO_AGENT = "conversation.agent_media_demo"
DEMO_PIPELINE_ID = "agentmediademopipeline00000000"


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
    # qBittorrent's default queue seeds only a few torrents at a time; the demo needs every release seeded.
    seeder.app_set_preferences({"queueing_enabled": False})
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


def demo_entry(args: argparse.Namespace, tmdb_api_key: str) -> dict[str, Any]:
    """Return the demo's Agent Media entry, pointed at the stand-ins, as Home Assistant stores entries.

    Without DEMO_LLM_* variables the entry has no model and answers the common sentences locally.
    """
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
    return {
        "entry_id": DEMO_ENTRY_ID,
        "version": 1,
        "domain": "agent_media",
        "title": DEMO_ENTRY_TITLE,
        "data": data,
        "options": {
            "tmdb_url": f"http://127.0.0.1:{args.tmdb_port}/3",
            "knaben_url": f"http://127.0.0.1:{args.knaben_port}/v1",
        },
        "source": "user",
    }


def demo_pipelines() -> dict[str, Any]:
    """Return the demo's assistants as assist_pipeline stores them (1.2): Agent Media's, preferred.

    So the Assist dialog talks to Agent Media without a visit to the voice settings.
    """
    pipeline = {
        "conversation_engine": DEMO_AGENT,
        "conversation_language": "en",
        "id": DEMO_PIPELINE_ID,
        "language": "en",
        "name": DEMO_ENTRY_TITLE,
        "stt_engine": None,
        "stt_language": None,
        "tts_engine": None,
        "tts_language": None,
        "tts_voice": None,
        "wake_word_entity": None,
        "wake_word_id": None,
        "prefer_local_intents": False,
    }
    return {"items": [pipeline], "preferred_item": DEMO_PIPELINE_ID}


def write_demo_storage(args: argparse.Namespace, tmdb_api_key: str) -> None:
    """Give a new demo configuration its Agent Media entry and its assistant, before Home Assistant starts.

    Written in the storage formats of Home Assistant 2025.4 (the entries in the oldest, which it migrates on
    load); a configuration that already has entries (a demo run before) is left as it is.
    """
    storage = args.config / ".storage"
    if (storage / "core.config_entries").exists():
        return
    storage.mkdir(parents=True, exist_ok=True)
    for key, minor_version, data in (
        ("assist_pipeline.pipelines", 2, demo_pipelines()),
        ("core.config_entries", 1, {"entries": [demo_entry(args, tmdb_api_key)]}),
    ):
        payload = {"version": 1, "minor_version": minor_version, "key": key, "data": data}
        (storage / key).write_text(json.dumps(payload, indent=2), encoding="utf-8")
    LOGGER.info("DEMO entry and assistant written to %s", storage)


class DemoTMDB(rig_module("tmdb_server").TMDBServer):  # type: ignore[misc]
    """The rig's TMDB stand-in, with posters a person can look at instead of the tests' tiny ones."""

    def __init__(self) -> None:
        """Serve the rig's catalogue; posters are drawn on first request and kept."""
        super().__init__()
        self._posters: dict[str, bytes] = {}

    async def _image(self, request: web.Request) -> web.StreamResponse:
        """Serve the drawn poster of the catalogue's title with that poster path; 404 for any other."""
        poster_path_of = rig_module("tmdb_server").poster_path_of
        path = f"/{request.match_info['file']}"
        if path not in self._posters:
            for item in (item for items in self._items.values() for item in items):
                title = item.get("title") or item["name"]
                if poster_path_of(title) == path:
                    date = item.get("release_date") or item.get("first_air_date") or ""
                    self._posters[path] = poster_png(title, int(date[:4]) if date[:4].isdigit() else None)
        if path not in self._posters:
            return web.Response(status=404, text="Not Found")
        return web.Response(body=self._posters[path], content_type="image/png")


async def serve(server: Any, port: int) -> web.AppRunner:
    """Run a rig server's app on a fixed loopback port (the entry's options point there)."""
    runner = web.AppRunner(server.app, handle_signals=False, access_log=None)
    await runner.setup()
    await web.TCPSite(runner, "127.0.0.1", port).start()
    server.port = port  # the server names itself by it (TMDB's image base)
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
    tmdb = DemoTMDB()
    runners = [await serve(tmdb, args.tmdb_port), await serve(knaben, args.knaben_port)]
    write_demo_storage(args, tmdb.api_key)
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
