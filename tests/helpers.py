"""Helpers the tests share: waiting on a condition, what qBittorrent lists, what Agent Media remembers."""

from __future__ import annotations

import asyncio
from datetime import timedelta
from functools import partial
import inspect
import time
from typing import TYPE_CHECKING, Any

import pytest
from pytest_homeassistant_custom_component.common import MockConfigEntry, async_fire_time_changed

from custom_components.agent_media.clients.bittorrent import info_hash_from_magnet, magnet_name
from custom_components.agent_media.const import DOMAIN
from custom_components.agent_media.coordinator import IDLE_SCAN_INTERVAL
from custom_components.agent_media.requester import SYSTEM_KEY
from homeassistant.util import dt as dt_util

from .rig.torrents import make_local_torrent

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable
    from pathlib import Path

    from custom_components.agent_media.clients.qbittorrent import AddedTorrent
    from custom_components.agent_media.data import AgentMediaConfigEntry
    from custom_components.agent_media.memory import AgentMediaMemory
    from homeassistant.core import HomeAssistant

    from .rig.qbittorrent import QBittorrentInstance
    from .rig.torrents import LocalTorrent

# A bound for things outside the test's control (qBittorrent, a coordinator refresh) on a busy 2-core machine.
# It only ends a wait that would otherwise hang; it is never asserted as a timing.
WAIT_TIMEOUT = 60.0


async def async_set_up_entry(
    hass: HomeAssistant, data: dict[str, Any], options: dict[str, Any]
) -> MockConfigEntry:
    """Add an Agent Media entry with these data and options, and set it up."""
    entry = MockConfigEntry(domain=DOMAIN, title="Agent Media", data=data, options=options)
    entry.add_to_hass(hass)
    assert await hass.config_entries.async_setup(entry.entry_id)
    await hass.async_block_till_done()
    return entry


async def poll(hass: HomeAssistant, seconds: float = IDLE_SCAN_INTERVAL + 1) -> None:
    """Move time forward (past the coordinator's longest poll interval by default) and let what is due run.

    What is under way finishes first: moving the clock runs every loop timer due before the new time, the
    ``asyncio.timeout`` of a qBittorrent request in flight too, which would fail that request at once.
    """
    await hass.async_block_till_done(wait_background_tasks=True)
    async_fire_time_changed(hass, dt_util.utcnow() + timedelta(seconds=seconds))
    await hass.async_block_till_done(wait_background_tasks=True)


async def refresh_until[T](
    hass: HomeAssistant,
    entry: AgentMediaConfigEntry,
    check: Callable[[], T],
    accept: Callable[[T], object] = bool,
    *,
    what: str,
) -> T:
    """Ask the coordinator to poll qBittorrent until ``accept(check())`` holds; return that value.

    For what a poll must bring: a poll moved by the clock can fall on a refresh already under way and do
    nothing, and what a poll starts (completion, news) may need the next one on a busy machine.
    """

    async def after_a_refresh() -> T:
        await entry.runtime_data.coordinator.async_refresh()
        await hass.async_block_till_done(wait_background_tasks=True)
        return check()

    return await wait_until(after_a_refresh, accept, what=what)


async def wait_until[T](
    check: Callable[[], Awaitable[T] | T],
    accept: Callable[[T], object] = bool,
    *,
    what: str,
    timeout: float = WAIT_TIMEOUT,
    interval: float = 0.1,
) -> T:
    """Call ``check`` (sync or async) until ``accept`` holds for its value; return that value.

    After ``timeout`` seconds the test fails, naming ``what`` and the last value seen.
    """
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if inspect.isawaitable(value):
            value = await value
        if accept(value):
            return value
        if time.monotonic() > deadline:
            pytest.fail(f"gave up after {timeout:.0f} s waiting for {what}; last value: {value!r}")
        await asyncio.sleep(interval)


async def torrents_in_qbittorrent(
    hass: HomeAssistant, qbittorrent: QBittorrentInstance, info_hash: str | None = None
) -> dict[str, dict[str, Any]]:
    """What qBittorrent itself lists (all torrents, or the one with ``info_hash``), by hash."""
    found = await hass.async_add_executor_job(
        lambda: qbittorrent.api().torrents_info(torrent_hashes=info_hash)
    )
    return {torrent["hash"]: dict(torrent) for torrent in found}


async def wait_for_torrent(
    hass: HomeAssistant,
    qbittorrent: QBittorrentInstance,
    info_hash: str,
    condition: Callable[[dict[str, Any]], object] = bool,
    *,
    what: str = "the wanted state",
) -> dict[str, Any]:
    """Wait until qBittorrent lists the torrent and ``condition`` holds for it; return the torrent."""

    async def listed() -> dict[str, Any]:
        return (await torrents_in_qbittorrent(hass, qbittorrent, info_hash)).get(info_hash, {})

    return await wait_until(
        listed, lambda torrent: bool(torrent) and condition(torrent), what=f"torrent {info_hash}: {what}"
    )


async def wait_for_torrent_gone(
    hass: HomeAssistant, qbittorrent: QBittorrentInstance, info_hash: str
) -> None:
    """Wait until qBittorrent no longer lists the torrent."""
    await wait_until(
        lambda: torrents_in_qbittorrent(hass, qbittorrent, info_hash),
        lambda found: info_hash not in found,
        what=f"torrent {info_hash} to be removed",
    )


async def async_add_download(
    hass: HomeAssistant,  # the tests call it as they called the module function it replaces
    entry: AgentMediaConfigEntry,
    **kwargs: Any,
) -> AddedTorrent:
    """Add a torrent as Agent Media does: through the entry's one way into qBittorrent."""
    return await entry.runtime_data.operations.adder.async_add(**kwargs)


def last_results(memory: AgentMediaMemory, requester_key: str = SYSTEM_KEY) -> list[dict[str, Any]]:
    """Return the numbered results of a requester's last search (the system's: actions, automations)."""
    search = memory.working.search(requester_key)
    return search["results"] if search else []


def is_done(torrent: dict[str, Any]) -> bool:
    """Whether qBittorrent has every byte of the torrent and is not checking it."""
    return torrent["progress"] == 1 and not str(torrent["state"]).startswith("checking")


async def seed(
    hass: HomeAssistant, seeder: QBittorrentInstance, tmp_path: Path, name: str, *, size: int = 1024 * 1024
) -> LocalTorrent:
    """Make a torrent and let the seeder (a second qbittorrent-nox) share it.

    Force-started: an auto-managed torrent turns away peers until libtorrent's next round starts it, and a
    peer turned away tries again only 15 s, then a minute, later.
    """
    torrent = make_local_torrent(tmp_path / "seeded", name, size=size)
    await hass.async_add_executor_job(
        lambda: seeder.api().torrents_add(
            torrent_files={f"{name}.torrent": torrent.torrent_bytes}, save_path=str(tmp_path / "seeded")
        )
    )
    await wait_for_torrent(hass, seeder, torrent.info_hash, is_done, what="seeding")
    api = await hass.async_add_executor_job(seeder.rig_api)
    await hass.async_add_executor_job(
        partial(api.post, "torrents/setForceStart", hashes=torrent.info_hash, value="true")
    )
    return torrent


async def introduce(
    hass: HomeAssistant, qbittorrent: QBittorrentInstance, seeder: QBittorrentInstance, info_hash: str
) -> None:
    """Tell our qBittorrent where the seeder is (peer discovery is off on the rig: no DHT, no trackers)."""
    await hass.async_add_executor_job(
        lambda: qbittorrent.api().torrents_add_peers(
            torrent_hashes=info_hash, peers=f"127.0.0.1:{seeder.bt_port}"
        )
    )


async def lose_to_metadata_fetch(hass: HomeAssistant, qbittorrent: QBittorrentInstance, magnet: str) -> None:
    """Ask qBittorrent for a magnet's metadata and add the magnet in the same write, as one client could.

    qBittorrent 5.2+ then takes the add before it holds the libtorrent torrent of the fetch it has just begun:
    it forgets the fetch without removing that torrent, libtorrent refuses the add as a duplicate (after
    ``torrents/add`` answered that it was added), and refuses every later add of the magnet the same way.
    Returns once qBittorrent's log says so. Before 5.2 there is no fetch to race: the magnet is added.
    """
    info_hash, name = info_hash_from_magnet(magnet) or "", magnet_name(magnet) or ""
    api = await hass.async_add_executor_job(qbittorrent.rig_api)
    statuses = await hass.async_add_executor_job(
        api.post_together,
        ("torrents/fetchMetadata", {"source": magnet}),
        ("torrents/add", {"urls": magnet, "stopCondition": "MetadataReceived"}),
    )
    assert statuses[1] == 200  # "added", whatever happens next
    if qbittorrent.version < (5, 2):
        await wait_for_torrent(hass, qbittorrent, info_hash, what="the add")
        return
    await wait_until(
        lambda: hass.async_add_executor_job(api.get, "log/main"),
        lambda log: any(
            (name or info_hash) in entry["message"] and "already exists in session" in entry["message"]
            for entry in log
        ),
        what="qBittorrent's log saying that it lost the add",
    )
