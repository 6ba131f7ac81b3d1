"""Fixtures shared by every test: custom integrations on, and the real-service rig (tests/rig).

The rig fixtures request ``socket_enabled``: the harness blocks sockets by default and allows only
127.0.0.1 once they are enabled.
"""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

import pytest
from pytest_homeassistant_custom_component.common import MockConfigEntry
from pytest_homeassistant_custom_component.syrupy import HomeAssistantSnapshotExtension

from custom_components.agent_media import compat
from custom_components.agent_media.const import (
    CONF_KNABEN_URL,
    CONF_LLM_API_KEY,
    CONF_LLM_BASE_URL,
    CONF_LLM_MODEL,
    CONF_LOCAL_SENTENCES,
    CONF_QBITTORRENT_PASSWORD,
    CONF_QBITTORRENT_URL,
    CONF_QBITTORRENT_USERNAME,
    CONF_QBITTORRENT_VERIFY_SSL,
    CONF_TMDB_API_KEY,
    CONF_TMDB_URL,
    DOMAIN,
)
from homeassistant.config_entries import ConfigEntryState
from homeassistant.setup import async_setup_component

from .helpers import async_set_up_entry
from .rig.knaben_server import KnabenServer
from .rig.llm_server import ScriptedLLMServer
from .rig.qbittorrent import (
    DEFAULT_SETUP,
    PASSWORD,
    USERNAME,
    QBittorrentInstance,
    QBittorrentSetup,
    close_instance,
    start_instance,
)
from .rig.tmdb_server import TMDBServer
from .rig.torznab_server import TorznabServer

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Iterator
    from pathlib import Path

    from syrupy.assertion import SnapshotAssertion

    from homeassistant.core import HomeAssistant


# Home Assistant changes that split the tests in two sides, by marker: whether this version has the change.
VERSION_SIDES: dict[str, bool] = {
    "llm_tool_platform": compat.llm_tool_platform(),  # tools with Assist and MCP (2026.8+), or our llm.API
    "ai_task": bool(compat.ai_task_platforms()),  # AI Task entities (2025.7+), or none
}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Deselect the tests of the other side of a Home Assistant change (`VERSION_SIDES`).

    Each side has its own tests (Agent Media's own llm.API before 2026.8, tools with Assist and MCP after; AI
    Task entities or their absence); a test of one side cannot run on the other, and a deselection is not a
    skip of something missing.
    """
    other_side = [
        item
        for item in items
        if any(
            (marker := item.get_closest_marker(name)) is not None and marker.args[0] is not present
            for name, present in VERSION_SIDES.items()
        )
    ]
    if other_side:
        config.hook.pytest_deselected(items=other_side)
        items[:] = [item for item in items if item not in other_side]


@pytest.fixture(autouse=True)
def auto_enable_custom_integrations(enable_custom_integrations: None) -> None:
    """Let Home Assistant load custom_components/agent_media in every test."""


@pytest.fixture
def snapshot(snapshot: SnapshotAssertion) -> SnapshotAssertion:
    """Syrupy with Home Assistant's extension, as core's tests use it (the harness's own fixture is shadowed).

    It writes to tests/snapshots/ and leaves out what changes from run to run (registry ids, state times).
    """
    return snapshot.use_extension(HomeAssistantSnapshotExtension)


type QBittorrentPool = dict[tuple[str, QBittorrentSetup], QBittorrentInstance]


@pytest.fixture(scope="module")
def qbittorrent_pool() -> Iterator[QBittorrentPool]:
    """The qbittorrent-nox instances one test module shares: one per role and set-up, started on first use."""
    pool: QBittorrentPool = {}
    yield pool
    for instance in pool.values():
        # The tests' event loops are gone by now: stop them from a loop of our own, in a thread of its own.
        with ThreadPoolExecutor(1) as executor:
            executor.submit(asyncio.run, close_instance(instance)).result()


@pytest.fixture
def qbittorrent_setup(request: pytest.FixtureRequest) -> QBittorrentSetup:
    """How qBittorrent is set up: `DEFAULT_SETUP`, or what the test parametrizes (rig.qbittorrent.SETUPS)."""
    return getattr(request, "param", DEFAULT_SETUP)


async def _shared_instance(
    pool: QBittorrentPool, role: str, setup: QBittorrentSetup, base: Path
) -> AsyncIterator[QBittorrentInstance]:
    """Lend the pool's instance for `role` and `setup` to one test, and clean what the test left after it.

    One the test could not hand back clean (its password changed, say) is stopped: the next gets a new one.
    """
    key = (role, setup)
    if (instance := pool.get(key)) is None:
        instance = pool[key] = await start_instance(base, setup)
    await instance.start()  # a test before may have stopped it
    try:
        yield instance
    finally:
        try:
            await instance.start()
            await asyncio.to_thread(instance.reset)
        except Exception:  # noqa: BLE001 - whatever went wrong, a fresh instance serves the next test
            del pool[key]
            await close_instance(instance)


@pytest.fixture
async def qbittorrent(
    socket_enabled: None,
    qbittorrent_pool: QBittorrentPool,
    qbittorrent_setup: QBittorrentSetup,
    tmp_path_factory: pytest.TempPathFactory,
) -> AsyncIterator[QBittorrentInstance]:
    """A real qbittorrent-nox on loopback, its own profile, shared by a module's tests, emptied after each."""
    async for instance in _shared_instance(
        qbittorrent_pool, "qbittorrent", qbittorrent_setup, tmp_path_factory.mktemp("qbittorrent")
    ):
        yield instance


@pytest.fixture
async def seeder(
    socket_enabled: None, qbittorrent_pool: QBittorrentPool, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[QBittorrentInstance]:
    """A second qbittorrent-nox on loopback: the one peer that has a torrent's data (see helpers.seed)."""
    async for instance in _shared_instance(
        qbittorrent_pool, "seeder", DEFAULT_SETUP, tmp_path_factory.mktemp("seeder")
    ):
        yield instance


@pytest.fixture
async def llm_server(socket_enabled: None) -> AsyncIterator[ScriptedLLMServer]:
    """A scripted OpenAI-compatible server."""
    async with ScriptedLLMServer() as server:
        yield server


@pytest.fixture
async def tmdb_server(socket_enabled: None) -> AsyncIterator[TMDBServer]:
    """A TMDB v3 look-alike."""
    async with TMDBServer() as server:
        yield server


@pytest.fixture
async def knaben_server(socket_enabled: None) -> AsyncIterator[KnabenServer]:
    """A Knaben API look-alike."""
    async with KnabenServer() as server:
        yield server


@pytest.fixture
async def torznab_server(socket_enabled: None) -> AsyncIterator[TorznabServer]:
    """A Torznab (Jackett) look-alike."""
    async with TorznabServer() as server:
        yield server


@pytest.fixture
def entry_data_without_qbittorrent(
    llm_server: ScriptedLLMServer, tmdb_server: TMDBServer, unused_tcp_port: int
) -> dict[str, Any]:
    """Config-entry data pointing at the rig, but at a loopback port where no qBittorrent listens.

    For tests that only need the entry's data: setting such an entry up ends in a retry.
    """
    return {
        CONF_LLM_BASE_URL: llm_server.base_url,
        CONF_LLM_API_KEY: llm_server.api_key,
        CONF_LLM_MODEL: llm_server.model,
        CONF_QBITTORRENT_URL: f"http://127.0.0.1:{unused_tcp_port}",
        CONF_QBITTORRENT_USERNAME: USERNAME,
        CONF_QBITTORRENT_PASSWORD: PASSWORD,
        CONF_QBITTORRENT_VERIFY_SSL: True,
        CONF_TMDB_API_KEY: tmdb_server.api_key,
    }


@pytest.fixture
def entry_data(
    entry_data_without_qbittorrent: dict[str, Any], qbittorrent: QBittorrentInstance
) -> dict[str, Any]:
    """Config-entry data pointing at the rig, a real qBittorrent included."""
    return entry_data_without_qbittorrent | {
        CONF_QBITTORRENT_URL: qbittorrent.url,
        CONF_QBITTORRENT_USERNAME: qbittorrent.username,
        CONF_QBITTORRENT_PASSWORD: qbittorrent.password,
    }


@pytest.fixture
def entry_options(knaben_server: KnabenServer, tmdb_server: TMDBServer) -> dict[str, Any]:
    """Config-entry options pointing the search services at the rig.

    The local sentences are off, so that every sentence takes the model's tool path these tests script;
    tests of the local sentences turn them on.
    """
    return {
        CONF_KNABEN_URL: knaben_server.base_url,
        CONF_TMDB_URL: tmdb_server.base_url,
        CONF_LOCAL_SENTENCES: False,
    }


@pytest.fixture
def local_options(entry_options: dict[str, Any]) -> dict[str, Any]:
    """The rig's options with the common sentences answered locally, as the README sets an entry up."""
    return entry_options | {CONF_LOCAL_SENTENCES: True}


@pytest.fixture
async def local_entry(
    hass: HomeAssistant, core_setup: None, entry_data: dict[str, Any], local_options: dict[str, Any]
) -> MockConfigEntry:
    """An entry answering the common sentences locally, set up (a module may override `local_options`)."""
    return await async_set_up_entry(hass, entry_data, local_options)


@pytest.fixture
async def core_setup(hass: HomeAssistant) -> None:
    """Set up Home Assistant's core integration, which the conversation component needs (exposed entities)."""
    assert await async_setup_component(hass, "homeassistant", {})


@pytest.fixture
def config_entry(
    hass: HomeAssistant, core_setup: None, entry_data: dict[str, Any], entry_options: dict[str, Any]
) -> MockConfigEntry:
    """An Agent Media entry on the rig, added to hass but not set up."""
    entry = MockConfigEntry(domain=DOMAIN, title="Agent Media", data=entry_data, options=entry_options)
    entry.add_to_hass(hass)
    return entry


@pytest.fixture
async def setup_integration(
    hass: HomeAssistant, config_entry: MockConfigEntry
) -> AsyncIterator[MockConfigEntry]:
    """The entry, set up and loaded; unloaded after the test if it still is."""
    assert await hass.config_entries.async_setup(config_entry.entry_id)
    await hass.async_block_till_done()
    yield config_entry
    if config_entry.state is ConfigEntryState.LOADED:
        assert await hass.config_entries.async_unload(config_entry.entry_id)
        await hass.async_block_till_done()
