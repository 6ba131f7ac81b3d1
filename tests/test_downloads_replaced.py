"""Dead releases replaced, against a real qbittorrent-nox: a magnet no peer has gives way to a live release.

The dead release is a magnet of a synthetic hash (it stays "fetching metadata" forever); the live one a
.torrent served by the Knaben stand-in whose data is already in qBittorrent's folder, so it completes.
`stalled_timeout` is 2 s here; the no-progress clock is the real one.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

import pytest
from pytest_homeassistant_custom_component.common import MockConfigEntry, async_capture_events

from custom_components.agent_media.const import (
    CONF_STALLED_TIMEOUT,
    EVENT_DOWNLOAD_COMPLETED,
    EVENT_DOWNLOAD_FAILED,
    EVENT_DOWNLOAD_REPLACED,
    EVENT_DOWNLOAD_STOPPED,
)
from custom_components.agent_media.memory import title_key

from .helpers import (
    async_add_download,
    introduce,
    is_done,
    seed,
    torrents_in_qbittorrent,
    wait_for_torrent,
    wait_until,
)
from .rig.knaben_server import _hit, synthetic_hash
from .rig.qbittorrent import SETUPS, free_port
from .rig.torrents import make_release_torrent
from .test_conversation import speech
from .test_downloads_on_time import busy_poll
from .test_household import SATELLITE, ask

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from homeassistant.core import HomeAssistant

    from .rig.knaben_server import KnabenServer
    from .rig.qbittorrent import QBittorrentInstance

pytestmark = pytest.mark.usefixtures("core_setup")  # the conversation dependency needs core

STALLED_TIMEOUT = 2
SINTEL = {"title": "Sintel", "year": 2010, "imdb_id": "tt1727587", "tmdb_id": 45745, "media_type": "movie"}
DEAD_NAME = "Sintel.2010.1080p.BluRay.x264-DEADGRP"
LIVE_NAME = "Sintel.2010.1080p.WEB-DL.x264-LIVEGRP.mkv"


def dead_release() -> dict[str, Any]:
    """The best-looking release, which no peer has."""
    return _hit(DEAD_NAME, label="dead sintel", size=8_000_000_000, seeders=900, peers=40)


@pytest.fixture
def local_options(local_options: dict[str, Any]) -> dict[str, Any]:
    """Conftest's, with dead downloads replaced after a few seconds."""
    return local_options | {CONF_STALLED_TIMEOUT: STALLED_TIMEOUT}


@pytest.fixture
def entry(local_entry: MockConfigEntry) -> MockConfigEntry:
    """Conftest's entry, set up with these options."""
    return local_entry


async def add_dead_download(
    hass: HomeAssistant, entry: MockConfigEntry, qbittorrent: QBittorrentInstance
) -> str:
    """Ask for Sintel by voice: the dead release is the best one, so it is added; return its hash."""
    answer = await ask(hass, entry, "Download Sintel", device_id=SATELLITE)
    assert speech(answer).startswith("Added ")
    dead = synthetic_hash("dead sintel")
    await wait_for_torrent(hass, qbittorrent, dead, lambda torrent: torrent["state"] == "metaDL")
    return dead


async def let_it_stall(hass: HomeAssistant, entry: MockConfigEntry, done: Callable[[], object]) -> None:
    """Let the coordinator poll until `done` holds (the no-progress clock is the real one).

    Not `wait_background_tasks`: the dead magnet's safety check waits for metadata for hours.
    """

    async def poll() -> object:
        await entry.runtime_data.coordinator.async_refresh()
        return done()

    await wait_until(poll, what="the replacement", interval=0.5)
    await hass.async_block_till_done()


@pytest.mark.parametrize("qbittorrent_setup", SETUPS, ids=lambda setup: setup.name, indirect=True)
async def test_a_dead_release_is_replaced_by_a_live_one(
    hass: HomeAssistant,
    qbittorrent: QBittorrentInstance,
    seeder: QBittorrentInstance,
    knaben_server: KnabenServer,
    entry: MockConfigEntry,
    tmp_path: Path,
) -> None:
    replaced = async_capture_events(hass, EVENT_DOWNLOAD_REPLACED)
    completed = async_capture_events(hass, EVENT_DOWNLOAD_COMPLETED)
    live = await seed(hass, seeder, tmp_path, LIVE_NAME)  # one peer has it: it completes
    link = knaben_server.serve_torrent(live.info_hash, live.torrent_bytes)
    knaben_server.set_hits(
        [
            dead_release(),
            # Only a .torrent link (no hash, so no magnet is made of it): the tracker has the file list.
            _hit(
                LIVE_NAME,
                label="live sintel",
                size=2_000_000_000,
                seeders=12,
                peers=2,
                hash=None,
                magnetUrl=None,
                link=link,
            ),
        ]
    )
    dead = await add_dead_download(hass, entry, qbittorrent)
    memory = entry.runtime_data.memory

    await let_it_stall(hass, entry, lambda: replaced)

    assert len(replaced) == 1
    assert replaced[0].data == {
        "entry_id": entry.entry_id,
        "hash": live.info_hash,
        "name": LIVE_NAME,
        "replaced_hash": dead,
        "reason": "no_metadata",
        "title": "Sintel",
        "year": 2010,
    }
    in_qbittorrent = await torrents_in_qbittorrent(hass, qbittorrent)
    assert dead not in in_qbittorrent
    assert in_qbittorrent[live.info_hash]["save_path"].rstrip("/") == str(qbittorrent.downloads_dir)
    record = memory.downloads.get(live.info_hash)
    assert record is not None
    assert record["media"]["title"] == "Sintel"
    assert record["requester"] == f"device:{SATELLITE}"  # still the satellite's download
    assert memory.wanted.is_blocked(title_key(record["media"]), dead, DEAD_NAME)

    await introduce(hass, qbittorrent, seeder, live.info_hash)
    await wait_for_torrent(hass, qbittorrent, live.info_hash, is_done)
    await busy_poll(hass)
    assert [(event.data["hash"], event.data["title"]) for event in completed] == [(live.info_hash, "Sintel")]

    # Told at the next turn, whatever it asks.
    answer = speech(await ask(hass, entry, "What's downloading?", device_id=SATELLITE))
    assert answer.startswith(f"Here's what's new: a stalled download of Sintel was replaced by {LIVE_NAME}")


async def test_nothing_acceptable_left_puts_the_title_on_the_wanted_list(
    hass: HomeAssistant,
    qbittorrent: QBittorrentInstance,
    knaben_server: KnabenServer,
    entry: MockConfigEntry,
) -> None:
    failed = async_capture_events(hass, EVENT_DOWNLOAD_FAILED)
    replaced = async_capture_events(hass, EVENT_DOWNLOAD_REPLACED)
    knaben_server.set_hits([dead_release()])
    dead = await add_dead_download(hass, entry, qbittorrent)

    await let_it_stall(hass, entry, lambda: failed)

    assert replaced == []
    assert [event.data for event in failed] == [
        {
            "entry_id": entry.entry_id,
            "hash": dead,
            "name": DEAD_NAME,
            "reason": "no_metadata",
            "title": "Sintel",
            "year": 2010,
        }
    ]
    assert dead not in await torrents_in_qbittorrent(hass, qbittorrent)
    memory = entry.runtime_data.memory
    assert memory.downloads.get(dead) is None
    assert [record["media"]["title"] for record in memory.wanted.titles().values()] == ["Sintel"]
    answer = speech(await ask(hass, entry, "What's new?"))
    assert "no acceptable release of Sintel is left" in answer


async def test_search_services_down_keeps_the_dead_download_for_later(
    hass: HomeAssistant,
    qbittorrent: QBittorrentInstance,
    knaben_server: KnabenServer,
    entry: MockConfigEntry,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Nothing is removed while no replacement can be looked for; nothing is said yet either."""
    failed = async_capture_events(hass, EVENT_DOWNLOAD_FAILED)
    dead = dead_release()
    # Added without a search first (as an automation would), so no search answer is cached.
    await async_add_download(hass, entry, magnet=dead["magnetUrl"], media=SINTEL)
    knaben_server.fail_next("503", times=100)
    caplog.set_level(logging.INFO, logger="custom_components.agent_media")

    await let_it_stall(hass, entry, lambda: "Cannot replace the stalled download" in caplog.text)

    assert failed == []
    assert dead["hash"] in await torrents_in_qbittorrent(hass, qbittorrent)
    assert entry.runtime_data.memory.downloads.get(dead["hash"]) is not None
    assert entry.runtime_data.memory.journal.unread_events() == []


async def test_a_dead_download_from_a_private_tracker_is_stopped_never_deleted(
    hass: HomeAssistant,
    qbittorrent: QBittorrentInstance,
    knaben_server: KnabenServer,
    entry: MockConfigEntry,
) -> None:
    """Its tracker (on loopback, closed) fails and no peer has it: stopped and told, not replaced."""
    stopped = async_capture_events(hass, EVENT_DOWNLOAD_STOPPED)
    replaced = async_capture_events(hass, EVENT_DOWNLOAD_REPLACED)
    failed = async_capture_events(hass, EVENT_DOWNLOAD_FAILED)
    knaben_server.set_hits([])  # were it replaced, nothing would be found: the title would go wanted
    private = make_release_torrent(
        "Sintel.2010.1080p.BluRay.x264-PRIVGRP",
        2_000_000_000,
        announce=f"http://127.0.0.1:{free_port()}/announce/0123456789abcdef",
    )
    await async_add_download(
        hass,
        entry,
        torrent_file=private.torrent_bytes,
        media=SINTEL,
        save_path=str(qbittorrent.downloads_dir),
    )

    await let_it_stall(hass, entry, lambda: stopped)

    assert stopped[0].data["hash"] == private.info_hash
    assert stopped[0].data["reason"] in ("unfinishable", "no_progress")
    assert stopped[0].data["title"] == "Sintel"
    torrent = (await torrents_in_qbittorrent(hass, qbittorrent))[private.info_hash]
    assert torrent["state"] in ("pausedDL", "stoppedDL")
    record = entry.runtime_data.memory.downloads.get(private.info_hash)
    assert record is not None
    assert record["stopped_private"] is True
    assert "replacement" not in record
    news = [event["type"] for event in entry.runtime_data.memory.journal.unread_events()]
    assert "download_stopped_private" in news
    # More polls change nothing: never replaced, never deleted, told once.
    for _poll in range(3):
        await entry.runtime_data.coordinator.async_refresh()
    await hass.async_block_till_done()
    assert private.info_hash in await torrents_in_qbittorrent(hass, qbittorrent)
    assert (len(stopped), replaced, failed) == (1, [], [])
    assert entry.runtime_data.memory.wanted.titles() == {}
