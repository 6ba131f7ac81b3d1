"""The demo of `scripts/develop --demo`, its first ten minutes without a browser.

The demo's own pieces (scripts/demo_services.py) run here against the rig's real qBittorrents: the seeder as a
fresh qBittorrent is set up (its default queue), the TMDB and Knaben stand-ins on their ports, the entry and
the assistant the demo writes. The assistant's agent is asked over the websocket (conversation/process, as the
frontend does), and the download must complete, named after its film, with a poster a person can look at.
browser/test_first_ten_minutes.py runs the same through Assist itself, in Chromium.
"""

from __future__ import annotations

import argparse
from datetime import timedelta
from http import HTTPStatus
import importlib.util
from pathlib import Path
import struct
import sys
from typing import TYPE_CHECKING, Any
import zlib

from aiohttp import ClientSession
import pytest
from pytest_homeassistant_custom_component.common import MockConfigEntry, async_fire_time_changed

from custom_components.agent_media.const import DOMAIN, IDLE_SCAN_INTERVAL
from homeassistant.helpers import entity_registry as er
from homeassistant.setup import async_setup_component
from homeassistant.util import dt as dt_util

from .helpers import is_done, wait_for_torrent, wait_until
from .rig.knaben_server import KnabenServer
from .rig.tmdb_server import MOVIES, SHOWS, poster_path_of
from .test_download_names import downloads_device, poster_entity_id

if TYPE_CHECKING:
    from collections.abc import AsyncIterator
    import types

    from aiohttp import web
    from pytest_homeassistant_custom_component.typing import (
        ClientSessionGenerator,
        WebSocketGenerator,
    )

    from homeassistant.core import HomeAssistant

    from .rig.qbittorrent import QBittorrentInstance

pytestmark = pytest.mark.usefixtures("core_setup")

SCRIPTS = Path(__file__).parent.parent / "scripts"
SAMPLE_SIZE = 256 * 1024  # the demo's are 2 MiB; the same code, smaller files
# A fresh qBittorrent's queue, as the demo's seeder has on its first start.
QBITTORRENT_DEFAULT_QUEUE = {
    "queueing_enabled": True,
    "max_active_downloads": 3,
    "max_active_uploads": 3,
    "max_active_torrents": 5,
}


def load_script(name: str) -> types.ModuleType:
    """Import scripts/<name>.py as the develop script runs it (its neighbours importable by name)."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, SCRIPTS / f"{name}.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


load_script("demo_posters")
demo = load_script("demo_services")


def png_size_and_colours(data: bytes) -> tuple[int, int, int]:
    """Return a PNG's width, height and how many colours its first rows hold (8-bit RGB, filter 0)."""
    assert data.startswith(b"\x89PNG\r\n\x1a\n")
    width, height, depth, colour_type = struct.unpack(">IIBB", data[16:26])
    assert (depth, colour_type) == (8, 2)
    chunks, position = b"", 8
    while position < len(data):
        (length,) = struct.unpack(">I", data[position : position + 4])
        if data[position + 4 : position + 8] == b"IDAT":
            chunks += data[position + 8 : position + 8 + length]
        position += 12 + length
    raw = zlib.decompress(chunks)
    stride = 1 + width * 3
    pixels = {
        raw[row * stride + 1 + x * 3 : row * stride + 4 + x * 3] for row in range(200) for x in range(width)
    }
    return width, height, len(pixels)


@pytest.fixture
async def demo_seeder(
    hass: HomeAssistant, seeder: QBittorrentInstance, tmp_path: Path
) -> list[dict[str, Any]]:
    """The seeder with qBittorrent's default queue, given the demo's releases as the demo does."""
    client = seeder.api()
    await hass.async_add_executor_job(client.app_set_preferences, QBITTORRENT_DEFAULT_QUEUE)
    demo.SAMPLE_SIZE = SAMPLE_SIZE
    return await hass.async_add_executor_job(
        demo.seeded_hits, tmp_path / "seed", client, f"127.0.0.1:{seeder.bt_port}"
    )


async def test_the_seeder_seeds_every_release(
    hass: HomeAssistant, seeder: QBittorrentInstance, demo_seeder: list[dict[str, Any]]
) -> None:
    client = seeder.api()

    def states() -> dict[str, str]:
        return {torrent["hash"]: torrent["state"] for torrent in client.torrents_info()}

    settled = await wait_until(
        lambda: hass.async_add_executor_job(states),
        lambda found: (
            len(found) == len(demo_seeder)
            and not any(state.startswith(("checking", "moving", "allocating")) for state in found.values())
        ),
        what="every release listed and checked",
    )
    assert set(settled.values()) <= {"stalledUP", "uploading", "forcedUP"}, settled


@pytest.fixture
async def tmdb(socket_enabled: None, unused_tcp_port: int) -> AsyncIterator[Any]:
    """The demo's TMDB stand-in, served on a port of its own as the demo does."""
    server = demo.DemoTMDB()
    runner: web.AppRunner = await demo.serve(server, unused_tcp_port)
    yield server
    await runner.cleanup()


async def test_the_tmdb_stand_in_serves_real_posters_on_its_own_port(tmdb: Any) -> None:
    async with ClientSession() as session:
        async with session.get(
            f"{tmdb.base_url}/configuration", params={"api_key": tmdb.api_key}
        ) as response:
            configuration = await response.json()
        base = configuration["images"]["secure_base_url"]
        assert base == f"http://127.0.0.1:{tmdb.port}/t/p/"
        assert tmdb.port != 0
        for _, title, *_ in MOVIES + SHOWS:
            async with session.get(f"{base}w342{poster_path_of(title)}") as response:
                assert response.status == HTTPStatus.OK
                assert response.content_type == "image/png"
                width, height, colours = png_size_and_colours(await response.read())
            assert (width, height) == (342, 513), title
            assert colours > 2, title  # a picture: background, frame, letters
        async with session.get(f"{base}w342/not-in-the-catalogue.png") as response:
            assert response.status == HTTPStatus.NOT_FOUND


async def ask(client: Any, agent: str, text: str, conversation_id: str | None) -> tuple[str, str]:
    """Send a typed sentence to an agent over the websocket; return the answer and the conversation."""
    await client.send_json_auto_id(
        {"type": "conversation/process", "text": text, "agent_id": agent, "conversation_id": conversation_id}
    )
    reply = await client.receive_json()
    assert reply["success"], reply
    result = reply["result"]
    return result["response"]["speech"]["plain"]["speech"], result["conversation_id"]


async def test_the_first_ten_minutes(
    hass: HomeAssistant,
    hass_ws_client: WebSocketGenerator,
    hass_client: ClientSessionGenerator,
    qbittorrent: QBittorrentInstance,
    demo_seeder: list[dict[str, Any]],
    tmdb: Any,
    unused_tcp_port_factory: Any,
    tmp_path: Path,
) -> None:
    knaben = KnabenServer()
    knaben._hits = demo_seeder  # the catalogue its searches filter, as the demo sets it
    knaben_runner = await demo.serve(knaben, unused_tcp_port_factory())
    try:
        args = argparse.Namespace(
            config=tmp_path,
            qbittorrent_url=qbittorrent.url,
            qbittorrent_username=qbittorrent.username,
            qbittorrent_password=qbittorrent.password,
            tmdb_port=tmdb.port,
            knaben_port=knaben.port,
        )
        stored = demo.demo_entry(args, tmdb.api_key)
        entry = MockConfigEntry(
            domain=DOMAIN,
            entry_id=stored["entry_id"],
            title=stored["title"],
            data=stored["data"],
            options=stored["options"],
        )
        entry.add_to_hass(hass)
        assert await hass.config_entries.async_setup(entry.entry_id)
        assert await async_setup_component(hass, "image", {})
        await hass.async_block_till_done()
        # The demo's preferred assistant talks to this entry's agent.
        pipelines = demo.demo_pipelines()
        (assistant,) = pipelines["items"]
        assert pipelines["preferred_item"] == assistant["id"]
        agent = assistant["conversation_engine"]
        (first,) = entry.subentries  # the agent the demo's entry (written as version 1.1) migrates to
        assert agent == er.async_get(hass).async_get_entity_id("conversation", DOMAIN, first)
        assert not assistant["prefer_local_intents"]

        client = await hass_ws_client(hass)
        found, conversation_id = await ask(client, agent, "Find torrents for Sintel", None)
        assert found.startswith("Here are the torrents for Sintel: 1: Sintel, "), found
        added, _ = await ask(client, agent, "Download the 2nd one", conversation_id)
        assert added.startswith("Added Sintel (2010), "), added

        (info_hash,) = entry.runtime_data.memory.downloads.hashes()
        device = await downloads_device(hass, entry, info_hash)
        assert device.name == "Sintel (2010)"
        poster = poster_entity_id(hass, entry, info_hash)
        assert poster is not None
        http = await hass_client()
        response = await http.get(f"/api/image_proxy/{poster}")
        assert response.status == HTTPStatus.OK
        assert png_size_and_colours(await response.read())[:2] == (342, 513)

        await wait_for_torrent(hass, qbittorrent, info_hash, is_done, what="the download complete")

        async def news() -> str:
            async_fire_time_changed(hass, dt_util.utcnow() + timedelta(seconds=IDLE_SCAN_INTERVAL + 1))
            await hass.async_block_till_done()
            return (await ask(client, agent, "What's new?", None))[0]

        told = await wait_until(news, lambda said: said != "Nothing new.", what="the news")
        assert told == "Here's what's new: Sintel has finished downloading.", told
    finally:
        await knaben_runner.cleanup()
