"""Library organisation on real files: Plex/Jellyfin names, hard links, collisions; the completion event."""

from __future__ import annotations

from pathlib import Path
import shutil
from typing import TYPE_CHECKING, Any

from pytest_homeassistant_custom_component.common import async_capture_events

from custom_components.agent_media.const import EVENT_DOWNLOAD_COMPLETED
from custom_components.agent_media.library import organize, place, safe_name

from .helpers import async_add_download, wait_until
from .rig.torrents import make_local_torrent

if TYPE_CHECKING:
    from pytest_homeassistant_custom_component.common import MockConfigEntry

    from homeassistant.core import HomeAssistant

    from .rig.qbittorrent import QBittorrentInstance

NOTLD = {"title": "Night of the Living Dead", "year": 1968, "media_type": "movie", "imdb_id": "tt0063350"}
PIONEER = {"title": "Pioneer One", "year": 2010, "media_type": "tv"}


def write(path: Path, data: bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def test_a_single_file_film_is_hard_linked_under_its_plex_name(tmp_path: Path) -> None:
    video = write(tmp_path / "downloads" / "Night.of.the.Living.Dead.1968.720p.WEBRip.MKV", b"film" * 1000)
    library = tmp_path / "movies"

    result = organize(str(video.parent), [video.name], NOTLD, str(library))

    target = library / "Night of the Living Dead (1968)" / "Night of the Living Dead (1968).mkv"
    assert result.library_path == str(target)
    assert result.files == [str(target)]
    assert (result.linked, result.copied, result.reused) == (1, 0, 0)
    assert target.samefile(video)  # a hard link: no second copy, and the download stays for seeding
    assert video.exists()


def test_a_folder_keeps_the_film_and_leaves_samples_and_extras(tmp_path: Path) -> None:
    download = tmp_path / "downloads" / "Nosferatu.1922.1080p.BluRay"
    write(download / "Nosferatu.1922.1080p.BluRay.mp4", b"n" * 5000)
    write(download / "Sample" / "nosferatu-sample.mp4", b"s" * 100)
    write(download / "Nosferatu.nfo", b"info")

    result = organize(
        str(download.parent),
        [
            "Nosferatu.1922.1080p.BluRay/Nosferatu.1922.1080p.BluRay.mp4",
            "Nosferatu.1922.1080p.BluRay/Sample/nosferatu-sample.mp4",
            "Nosferatu.1922.1080p.BluRay/Nosferatu.nfo",
        ],
        {"title": "Nosferatu", "year": 1922, "media_type": "movie"},
        str(tmp_path),
    )

    assert result.files == [str(tmp_path / "Nosferatu (1922)" / "Nosferatu (1922).mp4")]
    assert sorted(path.name for path in (tmp_path / "Nosferatu (1922)").iterdir()) == ["Nosferatu (1922).mp4"]


def test_name_collisions_get_a_number_and_identical_files_are_reused(tmp_path: Path) -> None:
    library = tmp_path / "movies"
    folder = library / "Night of the Living Dead (1968)"
    # Another release already holds the name.
    write(folder / "Night of the Living Dead (1968).mkv", b"another release")
    first = write(tmp_path / "a" / "NOTLD.1968.1080p.mkv", b"the 1080p release")

    placed = organize(str(first.parent), [first.name], NOTLD, str(library))

    second_name = folder / "Night of the Living Dead (1968) (2).mkv"
    assert placed.library_path == str(second_name)
    assert second_name.read_bytes() == b"the 1080p release"
    assert (folder / "Night of the Living Dead (1968).mkv").read_bytes() == b"another release"

    # The same content from elsewhere (a re-download) is not placed twice.
    copy = write(tmp_path / "b" / "NOTLD.1968.1080p.mkv", b"the 1080p release")
    again = organize(str(copy.parent), [copy.name], NOTLD, str(library))
    assert again.library_path == str(second_name)
    assert (again.linked, again.reused) == (0, 1)
    # A third, different file takes the next number.
    third = write(tmp_path / "c" / "NOTLD.1968.720p.mkv", b"the 720p release")
    assert organize(str(third.parent), [third.name], NOTLD, str(library)).library_path == str(
        folder / "Night of the Living Dead (1968) (3).mkv"
    )


def test_a_season_pack_goes_into_season_folders(tmp_path: Path) -> None:
    pack = "Pioneer.One.S01.720p.WEB.x264-VODO"
    names = [f"{pack}/Pioneer.One.S01E0{episode}.720p.WEB.x264-VODO.mkv" for episode in (1, 2, 3)]
    names.append(f"{pack}/Pioneer.One.S01E01.sample.mkv")
    for number, name in enumerate(names, 1):
        write(tmp_path / "downloads" / name, bytes([number]) * 300)

    result = organize(str(tmp_path / "downloads"), names, PIONEER, str(tmp_path / "tv"))

    season = tmp_path / "tv" / "Pioneer One (2010)" / "Season 01"
    assert result.library_path == str(season)
    assert sorted(path.name for path in season.iterdir()) == [
        "Pioneer One (2010) - S01E01.mkv",
        "Pioneer One (2010) - S01E02.mkv",
        "Pioneer One (2010) - S01E03.mkv",
    ]


def test_copy_when_a_hard_link_is_impossible(tmp_path: Path) -> None:
    """A hard link across filesystems fails (EXDEV): /dev/shm is a tmpfs, the test folder is not."""
    source = write(tmp_path / "Elephants.Dream.2006.mkv", b"dream" * 100)
    other_disk = Path("/dev/shm")  # noqa: S108 - a real second filesystem, cleaned up below
    crosses = other_disk.is_dir() and other_disk.stat().st_dev != tmp_path.stat().st_dev
    root = other_disk / f"agent-media-{tmp_path.name}" if crosses else tmp_path / "library"
    target = root / "Elephants Dream (2006)" / "Elephants Dream (2006).mkv"
    try:
        final, how = place(source, target, root.resolve())
        assert final == target
        assert target.read_bytes() == source.read_bytes()
        assert how == ("copied" if crosses else "linked")
        assert target.samefile(source) is not crosses
    finally:
        shutil.rmtree(root, ignore_errors=True)


def test_only_listed_files_inside_the_save_path_are_taken(tmp_path: Path) -> None:
    """A listed name leading out of the save path (".." or a symlink put there since) is passed over."""
    downloads = tmp_path / "downloads"
    write(tmp_path / "elsewhere" / "secret.mkv", b"not in the torrent")
    write(downloads / "Night.of.the.Living.Dead.1968.mkv", b"film" * 100)
    write(downloads / "Unlisted.Film.2001.mkv", b"someone else's")
    (downloads / "link.mkv").symlink_to(tmp_path / "elsewhere" / "secret.mkv")
    names = ["Night.of.the.Living.Dead.1968.mkv", "../elsewhere/secret.mkv", "link.mkv", "/etc/hostname.mkv"]

    result = organize(str(downloads), names, NOTLD, str(tmp_path / "movies"))

    folder = tmp_path / "movies" / "Night of the Living Dead (1968)"
    assert result.files == [str(folder / "Night of the Living Dead (1968).mkv")]
    assert [path.name for path in folder.iterdir()] == ["Night of the Living Dead (1968).mkv"]


def test_safe_names() -> None:
    assert safe_name("Dune: Part Two") == "Dune - Part Two"
    assert safe_name('a/b\\c*?"<>|') == "a b c"
    assert safe_name("...") == "Unknown"


async def test_completion_event_carries_the_library_path(
    hass: HomeAssistant,
    setup_integration: MockConfigEntry,
    qbittorrent: QBittorrentInstance,
    tmp_path: Path,
) -> None:
    entry = setup_integration
    movies = tmp_path / "library" / "movies"
    movies.mkdir(parents=True)
    # An older copy with the same name is already in the library: the new one gets " (2)".
    write(movies / "Night of the Living Dead (1968)" / "Night of the Living Dead (1968).mkv", b"older copy")
    hass.config_entries.async_update_entry(entry, options={**entry.options, "organize_library": True})
    await hass.async_block_till_done()  # the entry reloads with its new options
    hass.config.allowlist_external_dirs = {str(tmp_path / "library")}  # checked again at each use
    entry.runtime_data.memory.household.set_folder("movie", str(movies))
    completed = async_capture_events(hass, EVENT_DOWNLOAD_COMPLETED)
    local = make_local_torrent(
        qbittorrent.downloads_dir,
        "Night.of.the.Living.Dead.1968.720p",
        files={"Night.of.the.Living.Dead.1968.720p.mkv": 300 * 1024, "Sample/sample.mkv": 16 * 1024},
    )

    await async_add_download(
        hass, entry, torrent_file=local.torrent_bytes, save_path=str(qbittorrent.downloads_dir), media=NOTLD
    )

    async def completions_after_a_refresh() -> list[Any]:
        await entry.runtime_data.coordinator.async_refresh()
        await hass.async_block_till_done()
        return completed

    await wait_until(completions_after_a_refresh, what="the completion event")

    assert len(completed) == 1
    payload: dict[str, Any] = completed[0].data
    final = movies / "Night of the Living Dead (1968)" / "Night of the Living Dead (1968) (2).mkv"
    assert "library_error" not in payload
    assert payload["library_path"] == str(final)
    assert final.samefile(local.data_path / "Night.of.the.Living.Dead.1968.720p.mkv")
    assert payload["title"] == "Night of the Living Dead"
    # The agent hears of it with the final path too.
    news = entry.runtime_data.memory.journal.unread_events()
    assert news[-1]["data"]["library_path"] == str(final)
