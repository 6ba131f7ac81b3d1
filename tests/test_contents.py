"""What a torrent holds, judged before a byte downloads: fakes refused, extras skipped (issue 21, item 3).

Real .torrent files (multi-file, built by the rig) added to a real qbittorrent-nox; magnets whose metadata a
second qbittorrent-nox (the seeder) serves on loopback. On qBittorrent 5.2+ a magnet's files are read with
``torrents/fetchMetadata`` before it is added; older ones add it stopped and check it then.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Any

import pytest

from custom_components.agent_media.const import DOMAIN
from custom_components.agent_media.errors import RefusedContentsError
from custom_components.agent_media.operations.adding import SAFETY_CHECKED, SAFETY_WAITING
from custom_components.agent_media.safety import (
    ContentsRefusal,
    TorrentEntry,
    judge_contents,
    least_video_bytes,
)
from custom_components.agent_media.torrents import TorrentTracker
from homeassistant.exceptions import ServiceValidationError

from .helpers import (
    async_add_download,
    introduce,
    lose_to_metadata_fetch,
    seed,
    torrents_in_qbittorrent,
    wait_for_torrent,
    wait_until,
)
from .rig.torrents import make_local_torrent, make_release_torrent
from .test_services import TorrentFileServer, file_server

if TYPE_CHECKING:
    from pathlib import Path

    from pytest_homeassistant_custom_component.common import MockConfigEntry

    from homeassistant.core import HomeAssistant

    from .rig.qbittorrent import QBittorrentInstance
    from .rig.tmdb_server import TMDBServer

__all__ = ["file_server"]

GB = 1_000_000_000
NOTLD_TMDB_ID = 10331  # the TMDB stand-in's ids
SINTEL_TMDB_ID = 45745
FILM: dict[str, Any] = {"title": "Night of the Living Dead", "year": 1968, "media_type": "movie"}


def _entries(files: dict[str, int]) -> list[TorrentEntry]:
    return [TorrentEntry(index, path, size) for index, (path, size) in enumerate(files.items())]


@pytest.mark.parametrize(
    ("files", "media_type", "refusal"),
    [
        # Split archives and lone archives, with or without a note beside them.
        (
            {"Film/Film.part01.rar": GB, "Film/Film.part02.rar": GB, "Film/Film.nfo": 900},
            None,
            "only_archives",
        ),
        ({"Film/film.r00": GB, "Film/film.r01": GB, "Film/film.sfv": 90}, "movie", "only_archives"),
        ({"Film.2160p.7z": 4 * GB}, None, "only_archives"),
        ({"Film/Film.7z.001": GB, "Film/Film.7z.002": GB}, "movie", "only_archives"),
        ({"Film.zip": GB}, "movie", "only_archives"),
        # A password beside the archives: whatever else they hold, they cannot be opened.
        ({"Film/Film.rar": GB, "Film/Password.txt": 20}, None, "password_protected"),
        (
            {"Film/Film.mkv": GB, "Film/Subs.rar": 10_000, "Film/passwort.url.txt": 20},
            "movie",
            "password_protected",
        ),
        ({"Film/Film.zip": GB, "Film/Contraseña.txt": 20}, None, "password_protected"),
        # A film or an episode with no video at all.
        ({"Film/Film.mp3": 90_000_000, "Film/cover.jpg": 80_000}, "movie", "no_video"),
        ({"Show.S01E02/Sample/sample.mkv": 9_000_000, "Show.S01E02/Show.nfo": 900}, "tv", "no_video"),
    ],
)
def test_fakes_are_refused_by_their_file_list(
    files: dict[str, int], media_type: str | None, refusal: str
) -> None:
    judgement = judge_contents(_entries(files), media_type=media_type)
    assert judgement.refusal == ContentsRefusal(refusal)
    assert judgement.skipped == ()


def test_a_real_release_keeps_its_video_and_subtitles_and_skips_the_rest() -> None:
    files = {
        "Film/Film.1080p.mkv": 2 * GB,
        "Film/Sample/film-sample.mkv": 40_000_000,
        "Film/Film.nfo": 4_000,
        "Film/Extras/Making Of.mkv": 300_000_000,
        "Film/Subs/English.srt": 60_000,
        "Film/Screens/shot1.png": 300_000,
        "Film/Film.sample.mp4": 30_000_000,
    }
    judgement = judge_contents(_entries(files), media_type="movie", runtime_minutes=96, resolution=1080)
    assert judgement.refusal is None
    kept = [path for index, path in enumerate(files) if index not in judgement.skipped]
    assert kept == ["Film/Film.1080p.mkv", "Film/Subs/English.srt"]


def test_a_video_far_too_small_for_the_running_time_is_refused_only_when_it_is_known() -> None:
    tiny = _entries({"Film.1080p/Film.1080p.mkv": 40_000_000, "Film.1080p/Film.nfo": 900})
    judgement = judge_contents(tiny, media_type="movie", runtime_minutes=96, resolution=1080)
    assert judgement.refusal is ContentsRefusal.VIDEO_TOO_SMALL
    assert "40000000" in judgement.detail
    # Without a running time nothing is guessed; a low resolution needs less.
    assert judge_contents(tiny, media_type="movie").refusal is None
    assert judge_contents(tiny, media_type="movie", runtime_minutes=20, resolution=480).refusal is None
    # The floor: a quarter or less of the smallest honest encodes (96 min of 1080p: 360 MB).
    assert least_video_bytes(96, 1080) == 360_000_000
    assert least_video_bytes(96, 2160) > least_video_bytes(96, 1080) > least_video_bytes(96, 720)


def test_nothing_is_skipped_when_every_file_would_be() -> None:
    """A torrent with no file wanted would wait for ever: its files are all kept (or it is refused)."""
    only_extras = _entries({"Notes/readme.txt": 900, "Notes/cover.jpg": 80_000})
    assert judge_contents(only_extras).skipped == ()
    assert judge_contents(only_extras, media_type="movie").refusal is ContentsRefusal.NO_VIDEO


def test_a_torrent_whose_wanted_files_are_all_skipped_is_never_complete() -> None:
    """qBittorrent reports progress 1 and a wanted size of 0 when every file is skipped."""
    tracker = TorrentTracker()
    skipped_all = {"progress": 1, "amount_left": 0, "size": 0, "total_size": 5 * GB, "state": "stalledUP"}
    completed = tracker.apply({"rid": 1, "full_update": True, "torrents": {"a" * 40: skipped_all}})
    assert completed == []
    assert "a" * 40 not in tracker.complete


@pytest.mark.parametrize(
    ("files", "refusal"),
    [
        ({"NOTLD.1968.part1.rar": 40_000, "NOTLD.1968.part2.rar": 40_000}, ContentsRefusal.ONLY_ARCHIVES),
        ({"NOTLD.1968.rar": 60_000, "PASSWORD.txt": 30}, ContentsRefusal.PASSWORD_PROTECTED),
        ({"NOTLD.1968.mp3": 60_000, "cover.jpg": 3_000}, ContentsRefusal.NO_VIDEO),
    ],
)  # fmt: skip
async def test_a_fake_torrent_file_is_refused_and_removed(
    hass: HomeAssistant,
    setup_integration: MockConfigEntry,
    qbittorrent: QBittorrentInstance,
    files: dict[str, int],
    refusal: ContentsRefusal,
) -> None:
    entry = setup_integration
    fake = make_local_torrent(qbittorrent.downloads_dir, "Night.of.the.Living.Dead.1968.1080p", files=files)

    with pytest.raises(RefusedContentsError) as refused:
        await async_add_download(hass, entry, torrent_file=fake.torrent_bytes, media=FILM)

    assert refused.value.refusal is refusal
    assert fake.info_hash not in await torrents_in_qbittorrent(hass, qbittorrent)
    assert fake.info_hash not in entry.runtime_data.memory.downloads.records()
    assert all((fake.data_path / path).exists() for path in files)  # not ours to delete


async def test_the_download_action_says_why_in_words(
    hass: HomeAssistant,
    setup_integration: MockConfigEntry,
    qbittorrent: QBittorrentInstance,
    file_server: TorrentFileServer,
) -> None:
    fake = make_local_torrent(
        qbittorrent.downloads_dir,
        "Sintel.2010.1080p",
        files={"Sintel.2010.r00": 30_000, "Sintel.2010.r01": 30_000},
    )
    file_server.files["sintel.torrent"] = fake.torrent_bytes

    with pytest.raises(ServiceValidationError) as refused:
        await hass.services.async_call(
            DOMAIN,
            "download",
            {"url": file_server.url("sintel.torrent")},
            blocking=True,
            return_response=True,
        )

    assert refused.value.translation_key == "refused_only_archives"
    assert "only archives" in str(refused.value)
    assert "Sintel.2010.r00" in str(refused.value)
    assert fake.info_hash not in await torrents_in_qbittorrent(hass, qbittorrent)


async def test_a_release_far_too_small_for_its_running_time_is_refused(
    hass: HomeAssistant,
    setup_integration: MockConfigEntry,
    qbittorrent: QBittorrentInstance,
    tmdb_server: TMDBServer,
) -> None:
    """TMDB gives the running time (96 min): an 8 MB "1080p" film is a fake; without it nothing is guessed."""
    name = "Night.of.the.Living.Dead.1968.1080p.BluRay.x264"
    layout = {f"{name}.mkv": 8_000_000, f"{name}.nfo": 4_000}
    tiny = make_release_torrent(name, 8_000_000, files=layout, private=False)
    film = {**FILM, "tmdb_id": NOTLD_TMDB_ID}
    tmdb_server.set_runtime("movie", NOTLD_TMDB_ID, 96)

    with pytest.raises(RefusedContentsError) as refused:
        await async_add_download(hass, setup_integration, torrent_file=tiny.torrent_bytes, media=film)

    assert refused.value.refusal is ContentsRefusal.VIDEO_TOO_SMALL
    assert tiny.info_hash not in await torrents_in_qbittorrent(hass, qbittorrent)
    assert tmdb_server.requests[-1]["path"] == f"/3/movie/{NOTLD_TMDB_ID}"

    # A film TMDB gives no running time for: its size is not judged.
    other = make_release_torrent("Sintel.2010.1080p.BluRay", 8_000_000, files={"Sintel.mkv": 8_000_000})
    sintel = {"title": "Sintel", "year": 2010, "media_type": "movie", "tmdb_id": SINTEL_TMDB_ID}
    added = await async_add_download(hass, setup_integration, torrent_file=other.torrent_bytes, media=sintel)
    assert added.info_hash == other.info_hash


async def test_samples_and_extras_are_skipped_and_the_rest_downloads(
    hass: HomeAssistant, setup_integration: MockConfigEntry, qbittorrent: QBittorrentInstance
) -> None:
    entry = setup_integration
    files = {
        "Sintel.2010.720p.mkv": 96 * 1024,
        "Sample/sintel-sample.mkv": 16 * 1024,
        "Sintel.2010.720p.nfo": 2_000,
        "Extras/Making.Of.mkv": 32 * 1024,
        "Subs/English.srt": 3_000,
    }
    release = make_local_torrent(qbittorrent.downloads_dir, "Sintel.2010.720p", files=files)

    await async_add_download(
        hass, entry, torrent_file=release.torrent_bytes, save_path=str(qbittorrent.downloads_dir), media=FILM
    )

    assert entry.runtime_data.memory.downloads.records()[release.info_hash]["safety"] == SAFETY_CHECKED
    listed = await hass.async_add_executor_job(
        lambda: qbittorrent.api().torrents_files(torrent_hash=release.info_hash)
    )
    priorities = {item["name"].split("/", 1)[1]: item["priority"] for item in listed}
    assert priorities == {
        "Sintel.2010.720p.mkv": 1,
        "Sample/sintel-sample.mkv": 0,
        "Sintel.2010.720p.nfo": 0,
        "Extras/Making.Of.mkv": 0,
        "Subs/English.srt": 1,
    }
    await wait_for_torrent(hass, qbittorrent, release.info_hash, lambda t: t["progress"] == 1)


async def test_a_fake_magnet_is_refused_when_its_metadata_comes(
    hass: HomeAssistant,
    setup_integration: MockConfigEntry,
    qbittorrent: QBittorrentInstance,
    seeder: QBittorrentInstance,
    tmp_path: Path,
) -> None:
    """Its metadata comes from the seeder after the answer: removed, and told as news at the next turn."""
    entry = setup_integration
    fake = await seed(hass, seeder, tmp_path, "Pioneer.One.S01E01.720p.7z", size=64 * 1024)
    tv = {"title": "Pioneer One", "year": 2010, "media_type": "tv"}

    await async_add_download(hass, entry, magnet=fake.magnet, media=tv)
    await introduce(hass, qbittorrent, seeder, fake.info_hash)

    journal = entry.runtime_data.memory.journal
    news = await wait_until(
        lambda: [event for event in journal.unread_events() if event["type"] == "download_refused_fake"],
        what="the refusal's news",
    )
    assert news[0]["data"]["reason"] == "only_archives"
    assert fake.info_hash not in await torrents_in_qbittorrent(hass, qbittorrent)
    assert fake.info_hash not in entry.runtime_data.memory.downloads.records()


async def test_on_qbittorrent_5_2_a_magnet_is_judged_before_it_is_added(
    hass: HomeAssistant,
    setup_integration: MockConfigEntry,
    qbittorrent: QBittorrentInstance,
    seeder: QBittorrentInstance,
    tmp_path: Path,
) -> None:
    """torrents/fetchMetadata gives the files without adding: the fake never enters the torrent list.

    Before 5.2 qBittorrent cannot tell a magnet's files before it is added: the magnet is added stopped, and
    is checked when its metadata comes (test_a_fake_magnet_is_refused_when_its_metadata_comes).
    """
    fake = await seed(hass, seeder, tmp_path, "Pioneer.One.S01E02.720p.rar", size=64 * 1024)
    magnet = f"{fake.magnet}&x.pe=127.0.0.1:{seeder.bt_port}"
    client = setup_integration.runtime_data.operations.collaborators.qbittorrent
    if qbittorrent.version < (5, 2):
        assert await client.async_fetch_metadata(magnet) is None
        await async_add_download(hass, setup_integration, magnet=fake.magnet)  # no peer: no metadata
        assert fake.info_hash in await torrents_in_qbittorrent(hass, qbittorrent)
        record = setup_integration.runtime_data.memory.downloads.get(fake.info_hash)
        assert record is not None
        assert record["safety"] == SAFETY_WAITING
        return
    # qBittorrent fetches the metadata in the background once asked (per Web UI session: Agent Media's own,
    # as the first look of an earlier add of the same magnet would).
    files = await wait_until(lambda: client.async_fetch_metadata(magnet), what="the metadata fetched")
    assert [item["name"] for item in files] == [fake.name]
    rid = (await hass.async_add_executor_job(lambda: qbittorrent.api().sync_maindata()))["rid"]

    with pytest.raises(RefusedContentsError) as refused:
        await async_add_download(hass, setup_integration, magnet=magnet)

    assert refused.value.refusal is ContentsRefusal.ONLY_ARCHIVES
    changes = await hass.async_add_executor_job(lambda: qbittorrent.api().sync_maindata(rid=rid))
    assert not changes.get("torrents")
    assert not changes.get("torrents_removed")


async def test_no_magnet_is_lost_to_qbittorrents_metadata_fetch(
    hass: HomeAssistant,
    setup_integration: MockConfigEntry,
    qbittorrent: QBittorrentInstance,
    seeder: QBittorrentInstance,
    tmp_path: Path,
) -> None:
    """Every magnet Agent Media adds is listed, whatever qBittorrent 5.2+'s metadata fetch of it is doing.

    qBittorrent 5.2+ loses an add that comes as its own fetch of the magnet's metadata begins, and every later
    add of that magnet (see lose_to_metadata_fetch). Agent Media adds such lost magnets, magnets whose fetch
    another Web UI session has under way, and one whose file list its own fetch has just brought.
    """
    entry = setup_integration
    fetched = await seed(hass, seeder, tmp_path, "Big.Buck.Bunny.2008.720p.mkv", size=64 * 1024)
    parts = [
        make_local_torrent(tmp_path / "nowhere", f"Pioneer.One.S01E0{number}.720p.mkv", size=16 * 1024)
        for number in range(1, 5)
    ]  # no peer has them: their fetches stay under way
    lost, under_way = [part.magnet for part in parts[:2]], [part.magnet for part in parts[2:]]
    for magnet in lost:
        await lose_to_metadata_fetch(hass, qbittorrent, magnet)
    fetched_magnet = f"{fetched.magnet}&x.pe=127.0.0.1:{seeder.bt_port}"
    if qbittorrent.version >= (5, 2):  # before, no metadata is fetched without adding: plain adds
        api = await hass.async_add_executor_job(qbittorrent.rig_api)
        for magnet in under_way:
            await hass.async_add_executor_job(partial(api.post, "torrents/fetchMetadata", source=magnet))
        client = entry.runtime_data.operations.collaborators.qbittorrent
        await wait_until(partial(client.async_fetch_metadata, fetched_magnet), what="the metadata fetched")

    for magnet in [*lost, *under_way, fetched_magnet]:
        await async_add_download(hass, entry, magnet=magnet)

    listed = await torrents_in_qbittorrent(hass, qbittorrent)
    assert [torrent.info_hash in listed for torrent in [*parts, fetched]] == [True] * 5
    if qbittorrent.version >= (5, 2):  # a file list fetched before the add is checked in the turn
        assert entry.runtime_data.memory.downloads.records()[fetched.info_hash]["safety"] == SAFETY_CHECKED
