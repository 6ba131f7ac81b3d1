"""What is ours, what only waits, what may be deleted: against a real qbittorrent-nox set up as people do.

"Ours" is what Agent Media added (tagged at its add); a torrent the household added stays theirs even when
someone asks Agent Media for it again. The no-progress clock restarts whenever a torrent starts again, so a
download that waited its turn is not called dead. Replacement removes only ours, keeps files another torrent
holds, stops after `MAX_REPLACEMENTS` in a row, and finishes after a restart what a restart cut short.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

import pytest
from pytest_homeassistant_custom_component.common import MockConfigEntry, async_capture_events

from custom_components.agent_media.const import (
    CONF_STALLED_TIMEOUT,
    DOMAIN,
    EVENT_DOWNLOAD_ADDED,
    EVENT_DOWNLOAD_COMPLETED,
    EVENT_DOWNLOAD_FAILED,
    EVENT_DOWNLOAD_REPLACED,
    STORAGE_MINOR_VERSION,
    STORAGE_VERSION,
    storage_key,
)
from custom_components.agent_media.operations.adding import SAFETY_CHECKED
from custom_components.agent_media.replacement import MAX_REPLACEMENTS
from custom_components.agent_media.torrents import TORRENT_TAG
from homeassistant.core import Context
from homeassistant.exceptions import Unauthorized

from .helpers import (
    async_add_download,
    introduce,
    is_done,
    seed,
    torrents_in_qbittorrent,
    wait_for_torrent,
    wait_for_torrent_gone,
    wait_until,
)
from .rig.knaben_server import _hit, synthetic_hash
from .rig.qbittorrent import QUEUE_OF_ONE, SETUPS
from .rig.torrents import make_local_torrent
from .test_conversation import speech
from .test_household import SATELLITE, ask

if TYPE_CHECKING:
    from pathlib import Path

    from pytest_homeassistant_custom_component.common import MockUser

    from homeassistant.core import HomeAssistant

    from .rig.knaben_server import KnabenServer
    from .rig.qbittorrent import QBittorrentInstance, QBittorrentSetup

pytestmark = pytest.mark.usefixtures("core_setup")  # the conversation dependency needs core

STALLED_TIMEOUT = 3
SINTEL = {"title": "Sintel", "year": 2010, "imdb_id": "tt1727587", "tmdb_id": 45745, "media_type": "movie"}
SINTEL_FILE = "Sintel.2010.1080p.WEB-DL.x264-GRP.mkv"


@pytest.fixture
def local_options(local_options: dict[str, Any]) -> dict[str, Any]:
    """Conftest's, with dead downloads replaced after a few seconds."""
    return local_options | {CONF_STALLED_TIMEOUT: STALLED_TIMEOUT}


@pytest.fixture
def entry(local_entry: MockConfigEntry) -> MockConfigEntry:
    """Conftest's entry, set up with these options."""
    return local_entry


async def call(hass: HomeAssistant, service: str, data: dict[str, Any], user_id: str) -> Any:
    """Call an action as a Home Assistant user; return its response when it has one."""
    return await hass.services.async_call(
        DOMAIN,
        service,
        data,
        blocking=True,
        context=Context(user_id=user_id),
        return_response=service in ("download", "list_downloads"),
    )


async def start_or_stop(qbittorrent: QBittorrentInstance, info_hash: str, *, stop: bool) -> None:
    """What a person does in qBittorrent's own interface (4.x: pause/resume, 5.x: stop/start)."""
    api = qbittorrent.api()
    if qbittorrent.version < (5,):
        (api.torrents_pause if stop else api.torrents_resume)(torrent_hashes=info_hash)
    else:
        (api.torrents_stop if stop else api.torrents_start)(torrent_hashes=info_hash)


async def test_someone_elses_torrent_asked_for_again_stays_theirs(
    hass: HomeAssistant,
    entry: MockConfigEntry,
    qbittorrent: QBittorrentInstance,
    hass_read_only_user: MockUser,
) -> None:
    """A person's own magnet, asked for again through Agent Media by a non-administrator: still theirs."""
    theirs = synthetic_hash("household night of the living dead")
    magnet = f"magnet:?xt=urn:btih:{theirs}&dn=Night.of.the.Living.Dead.1968"
    await hass.async_add_executor_job(lambda: qbittorrent.api().torrents_add(urls=magnet))
    await wait_for_torrent(hass, qbittorrent, theirs)
    reader = hass_read_only_user.id

    response = await call(hass, "download", {"magnet": magnet}, reader)

    assert response["hash"] == theirs
    with pytest.raises(Unauthorized):
        await call(hass, "remove", {"hash": theirs}, reader)
    with pytest.raises(Unauthorized):
        await call(hass, "pause", {"hash": theirs}, reader)
    torrent = (await torrents_in_qbittorrent(hass, qbittorrent, theirs))[theirs]
    assert TORRENT_TAG not in torrent["tags"]
    listed = await call(hass, "list_downloads", {}, reader)
    [described] = [item for item in listed["downloads"] if item["hash"] == theirs]
    assert described["added_by_agent_media"] is False


@pytest.mark.parametrize("qbittorrent_setup", SETUPS, ids=lambda setup: setup.name, indirect=True)
async def test_a_dead_download_never_takes_the_households_film_with_it(
    hass: HomeAssistant,
    entry: MockConfigEntry,
    qbittorrent: QBittorrentInstance,
    qbittorrent_setup: QBittorrentSetup,
    knaben_server: KnabenServer,
    tmp_path: Path,
) -> None:
    """A dead release of ours with the same file name in the same folder as the household's finished film."""
    failed = async_capture_events(hass, EVENT_DOWNLOAD_FAILED)
    films = qbittorrent.downloads_dir
    household = make_local_torrent(films, SINTEL_FILE, size=512 * 1024)
    await hass.async_add_executor_job(
        lambda: qbittorrent.api().torrents_add(
            torrent_files={"household.torrent": household.torrent_bytes},
            save_path=str(films),
            use_auto_torrent_management=False,
            content_layout="Original",
            stop_condition="None",
        )
    )
    await wait_for_torrent(hass, qbittorrent, household.info_hash, is_done, what="the household's film")
    # Another release of the same name (other bytes), which no peer has; its data is not here.
    dead = make_local_torrent(tmp_path / "elsewhere", SINTEL_FILE, size=640 * 1024)
    knaben_server.set_hits([])  # nothing to replace it with

    await async_add_download(hass, entry, torrent_file=dead.torrent_bytes, media=SINTEL)

    async def poll_until_failed() -> list[Any]:
        await entry.runtime_data.coordinator.async_refresh()
        return failed

    await wait_until(poll_until_failed, what="the dead download given up", interval=0.5)
    await wait_for_torrent_gone(hass, qbittorrent, dead.info_hash)
    if qbittorrent_setup.incomplete_folder:
        # qBittorrent itself moved the same-named file into its incomplete folder when ours started there;
        # what matters here is that removing ours did not delete it.
        assert household.data_path.exists() or (films / "incomplete" / SINTEL_FILE).exists()
    else:
        assert household.data_path.exists()
    torrent = (await torrents_in_qbittorrent(hass, qbittorrent, household.info_hash))[household.info_hash]
    assert torrent["progress"] == 1


@pytest.mark.parametrize("qbittorrent_setup", [QUEUE_OF_ONE], ids=lambda setup: setup.name, indirect=True)
async def test_a_download_that_waited_its_turn_is_not_dead(
    hass: HomeAssistant,
    qbittorrent: QBittorrentInstance,
    seeder: QBittorrentInstance,
    entry: MockConfigEntry,
    tmp_path: Path,
) -> None:
    """Queued behind the household's download longer than the stalled timeout, then started: not replaced."""
    replaced = async_capture_events(hass, EVENT_DOWNLOAD_REPLACED)
    failed = async_capture_events(hass, EVENT_DOWNLOAD_FAILED)
    completed = async_capture_events(hass, EVENT_DOWNLOAD_COMPLETED)
    coordinator = entry.runtime_data.coordinator
    # The household's download holds the one active slot: no peer has it.
    slot = make_local_torrent(tmp_path / "gone", "Nosferatu.1922.mkv")
    await hass.async_add_executor_job(
        lambda: qbittorrent.api().torrents_add(torrent_files={"slot.torrent": slot.torrent_bytes})
    )
    await wait_for_torrent(hass, qbittorrent, slot.info_hash, lambda t: t["state"] == "stalledDL")
    ours = await seed(hass, seeder, tmp_path, SINTEL_FILE)

    await async_add_download(hass, entry, torrent_file=ours.torrent_bytes, media=SINTEL)
    await wait_for_torrent(hass, qbittorrent, ours.info_hash, lambda t: t["state"] == "queuedDL")
    queued_at = time.monotonic()

    async def poll_while_queued() -> float:
        await coordinator.async_refresh()
        return time.monotonic() - queued_at

    # Waiting its turn for longer than the stalled timeout, seen queued all along.
    await wait_until(poll_while_queued, lambda waited: waited > STALLED_TIMEOUT + 1, what="a long wait")
    assert coordinator.data.downloads[ours.info_hash].state == "queued"

    await start_or_stop(qbittorrent, slot.info_hash, stop=True)  # the household pauses theirs

    async def poll_until_started() -> str:
        await coordinator.async_refresh()
        return str(coordinator.data.downloads[ours.info_hash].state)

    await wait_until(poll_until_started, lambda state: state != "queued", what="our download started")
    # Whatever that poll decided has run by now (a replacement would have searched and removed it).
    await hass.async_block_till_done(wait_background_tasks=True)
    assert replaced == failed == []
    assert ours.info_hash in await torrents_in_qbittorrent(hass, qbittorrent)

    await introduce(hass, qbittorrent, seeder, ours.info_hash)
    await wait_for_torrent(hass, qbittorrent, ours.info_hash, is_done, what="downloaded from the seeder")
    await coordinator.async_refresh()
    await hass.async_block_till_done()
    assert [event.data["hash"] for event in completed] == [ours.info_hash]


async def test_only_dead_releases_make_the_title_wanted_after_a_few_replacements(
    hass: HomeAssistant,
    qbittorrent: QBittorrentInstance,
    knaben_server: KnabenServer,
    entry: MockConfigEntry,
) -> None:
    added = async_capture_events(hass, EVENT_DOWNLOAD_ADDED)
    replaced = async_capture_events(hass, EVENT_DOWNLOAD_REPLACED)
    failed = async_capture_events(hass, EVENT_DOWNLOAD_FAILED)
    groups = ["AAA", "BBB", "CCC", "DDD", "EEE", "FFF", "GGG", "HHH"]
    knaben_server.set_hits(
        [
            _hit(
                f"Sintel.2010.1080p.BluRay.x264-{group}",
                label=f"dead {group}",
                size=8_000_000_000,
                seeders=90 - n,
                peers=4,
            )
            for n, group in enumerate(groups)
        ]
    )
    answer = await ask(hass, entry, "Download Sintel", device_id=SATELLITE)
    assert speech(answer).startswith("Added ")

    async def poll_until_failed() -> list[Any]:
        await entry.runtime_data.coordinator.async_refresh()
        return failed

    await wait_until(poll_until_failed, what="the title given up", interval=0.5)
    await hass.async_block_till_done()

    assert len(added) == 1 + MAX_REPLACEMENTS
    assert len(replaced) == MAX_REPLACEMENTS
    assert len(failed) == 1
    assert failed[0].data["title"] == "Sintel"
    for event in added:
        await wait_for_torrent_gone(hass, qbittorrent, event.data["hash"])
    memory = entry.runtime_data.memory
    assert memory.downloads.records() == {}
    assert [record["media"]["title"] for record in memory.wanted.titles().values()] == ["Sintel"]


async def test_a_replacement_cut_short_by_a_restart_is_finished_after_setup(
    hass: HomeAssistant,
    qbittorrent: QBittorrentInstance,
    config_entry: MockConfigEntry,
    hass_storage: dict[str, Any],
) -> None:
    """Home Assistant stopped after the new release was added and before the dead one was removed."""
    replaced = async_capture_events(hass, EVENT_DOWNLOAD_REPLACED)
    dead = synthetic_hash("dead sintel before the restart")
    new = synthetic_hash("new sintel before the restart")
    for info_hash, name in ((dead, "Sintel.2010.1080p.BluRay-DEAD"), (new, "Sintel.2010.1080p.WEB-NEW")):
        await hass.async_add_executor_job(
            lambda info_hash=info_hash, name=name: qbittorrent.api().torrents_add(
                urls=f"magnet:?xt=urn:btih:{info_hash}&dn={name}", tags=TORRENT_TAG
            )
        )
        await wait_for_torrent(hass, qbittorrent, info_hash)
    key = storage_key(config_entry.entry_id)
    hass_storage[key] = {
        "version": STORAGE_VERSION,
        "minor_version": STORAGE_MINOR_VERSION,
        "key": key,
        "data": {
            "downloads": {
                "records": {
                    dead: {
                        "name": "Sintel.2010.1080p.BluRay-DEAD",
                        "added_at": "2026-11-30T05:00:00+00:00",
                        "safety": SAFETY_CHECKED,
                        "media": SINTEL,
                        "replacement": {
                            "reason": "no_metadata",
                            "hash": new,
                            "name": "Sintel.2010.1080p.WEB-NEW",
                        },
                    },
                    new: {
                        "name": "Sintel.2010.1080p.WEB-NEW",
                        "added_at": "2026-11-30T05:30:00+00:00",
                        "safety": SAFETY_CHECKED,
                        "media": SINTEL,
                        "replacements": 1,
                    },
                },
                "incomplete": [dead, new],
            }
        },
    }

    assert await hass.config_entries.async_setup(config_entry.entry_id)
    await hass.async_block_till_done()
    memory = config_entry.runtime_data.memory

    async def poll_until_replaced() -> list[Any]:
        await config_entry.runtime_data.coordinator.async_refresh()
        return replaced

    await wait_until(poll_until_replaced, what="the replacement finished", interval=0.5)
    await wait_for_torrent_gone(hass, qbittorrent, dead)
    assert [(event.data["hash"], event.data["replaced_hash"]) for event in replaced] == [(new, dead)]
    assert memory.downloads.get(dead) is None
    assert memory.downloads.get(new) is not None
    assert new in await torrents_in_qbittorrent(hass, qbittorrent)
    assert await hass.config_entries.async_unload(config_entry.entry_id)
