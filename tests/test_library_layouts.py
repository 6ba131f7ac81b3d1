"""Library organisation against a real qBittorrent: only the torrent's own files, only inside allowed folders.

qBittorrent's "Don't create subfolder" layout (NoSubfolder) puts a torrent's files straight into its save
path, so its `content_path` is that whole folder, which other people's files share. And a library folder is
a path people set once; a symlink in it may be re-pointed afterwards.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from pytest_homeassistant_custom_component.common import async_capture_events

from custom_components.agent_media.const import CONF_ORGANIZE_LIBRARY, DOMAIN, EVENT_DOWNLOAD_COMPLETED
from custom_components.agent_media.library import place

from .helpers import async_add_download, wait_for_torrent, wait_until
from .rig.torrents import make_local_torrent

if TYPE_CHECKING:
    from pytest_homeassistant_custom_component.common import MockConfigEntry

    from homeassistant.core import Event, HomeAssistant

    from .rig.qbittorrent import QBittorrentInstance

NOTLD = {"title": "Night of the Living Dead", "year": 1968, "media_type": "movie", "imdb_id": "tt0063350"}
FILM_FOLDER = "Night of the Living Dead (1968)"


async def _organising_entry(hass: HomeAssistant, entry: MockConfigEntry) -> MockConfigEntry:
    hass.config_entries.async_update_entry(entry, options={**entry.options, CONF_ORGANIZE_LIBRARY: True})
    await hass.async_block_till_done()  # the entry reloads with its new options
    return entry


async def _completion(
    hass: HomeAssistant, entry: MockConfigEntry, completed: list[Event[dict[str, Any]]]
) -> dict[str, Any]:
    async def completions_after_a_refresh() -> list[Event[dict[str, Any]]]:
        await entry.runtime_data.coordinator.async_refresh()
        await hass.async_block_till_done()
        return completed

    await wait_until(completions_after_a_refresh, what="the completion event")
    assert len(completed) == 1
    return dict(completed[0].data)


def _files_under(folder: Path) -> list[str]:
    return sorted(str(path.relative_to(folder)) for path in folder.rglob("*") if not path.is_dir())


async def test_no_subfolder_layout_takes_only_the_torrents_own_files(
    hass: HomeAssistant,
    setup_integration: MockConfigEntry,
    qbittorrent: QBittorrentInstance,
    tmp_path: Path,
) -> None:
    entry = await _organising_entry(hass, setup_integration)
    await hass.async_add_executor_job(
        lambda: qbittorrent.api().app_set_preferences({"torrent_content_layout": "NoSubfolder"})
    )
    movies = tmp_path / "library" / "movies"
    movies.mkdir(parents=True)
    hass.config.allowlist_external_dirs = {str(tmp_path / "library")}
    await hass.services.async_call(
        DOMAIN, "set_folder", {"folder": "movie", "path": str(movies)}, blocking=True
    )
    # The torrent's files are written where NoSubfolder puts them: straight into the shared folder.
    local = make_local_torrent(
        tmp_path / "made",
        "shared",
        files={"Night.of.the.Living.Dead.1968.720p.mkv": 300 * 1024, "Sample/sample.mkv": 16 * 1024},
    )
    shared = local.data_path
    stranger = shared / "Someone.Elses.Home.Video.2001.mkv"
    stranger.write_bytes(b"not ours" * 4096)
    completed = async_capture_events(hass, EVENT_DOWNLOAD_COMPLETED)

    await async_add_download(
        hass, entry, torrent_file=local.torrent_bytes, save_path=str(shared), media=NOTLD
    )
    torrent = await wait_for_torrent(hass, qbittorrent, local.info_hash, lambda item: item["progress"] == 1)
    assert Path(torrent["content_path"]) == shared  # what made the whole folder look like the download
    payload = await _completion(hass, entry, completed)

    film = movies / FILM_FOLDER / f"{FILM_FOLDER}.mkv"
    assert "library_error" not in payload
    assert payload["library_path"] == str(film)
    assert film.samefile(shared / "Night.of.the.Living.Dead.1968.720p.mkv")
    assert _files_under(movies) == [f"{FILM_FOLDER}/{FILM_FOLDER}.mkv"]  # the stranger's video stays out
    assert stranger.stat().st_nlink == 1


async def test_a_movie_folder_repointed_outside_is_refused_at_use(
    hass: HomeAssistant,
    setup_integration: MockConfigEntry,
    qbittorrent: QBittorrentInstance,
    tmp_path: Path,
) -> None:
    entry = await _organising_entry(hass, setup_integration)
    allowed, outside = tmp_path / "allowed", tmp_path / "outside"
    (allowed / "films").mkdir(parents=True)
    outside.mkdir()
    link = allowed / "movies"
    link.symlink_to(allowed / "films")
    hass.config.allowlist_external_dirs = {str(allowed), str(qbittorrent.downloads_dir)}
    response = await hass.services.async_call(
        DOMAIN, "set_folder", {"folder": "movie", "path": str(link)}, blocking=True, return_response=True
    )
    assert response == {"folder": "movie", "path": str(link)}
    # Re-pointed after it was set: the folder now leads outside the allowed ones.
    link.unlink()
    link.symlink_to(outside)
    completed = async_capture_events(hass, EVENT_DOWNLOAD_COMPLETED)
    local = make_local_torrent(
        qbittorrent.downloads_dir, "Night.of.the.Living.Dead.1968.720p.mkv", size=300 * 1024
    )

    await async_add_download(
        hass, entry, torrent_file=local.torrent_bytes, save_path=str(qbittorrent.downloads_dir), media=NOTLD
    )
    payload = await _completion(hass, entry, completed)

    assert _files_under(outside) == []
    assert "library_path" not in payload
    assert "folder_not_allowed" in payload["library_error"]


async def test_a_repointed_link_is_written_through_to_where_it_leads_when_that_is_allowed(
    hass: HomeAssistant,
    setup_integration: MockConfigEntry,
    qbittorrent: QBittorrentInstance,
    tmp_path: Path,
) -> None:
    """The path reported is the one written, never the link's name inside the allowed folder."""
    entry = await _organising_entry(hass, setup_integration)
    allowed = tmp_path / "allowed"
    (allowed / "films").mkdir(parents=True)
    (allowed / "other films").mkdir()
    link = allowed / "movies"
    link.symlink_to(allowed / "films")
    hass.config.allowlist_external_dirs = {str(allowed), str(qbittorrent.downloads_dir)}
    await hass.services.async_call(
        DOMAIN, "set_folder", {"folder": "movie", "path": str(link)}, blocking=True
    )
    link.unlink()
    link.symlink_to(allowed / "other films")
    completed = async_capture_events(hass, EVENT_DOWNLOAD_COMPLETED)
    local = make_local_torrent(
        qbittorrent.downloads_dir, "Night.of.the.Living.Dead.1968.720p.mkv", size=300 * 1024
    )

    await async_add_download(
        hass, entry, torrent_file=local.torrent_bytes, save_path=str(qbittorrent.downloads_dir), media=NOTLD
    )
    payload = await _completion(hass, entry, completed)

    written = allowed / "other films" / FILM_FOLDER / f"{FILM_FOLDER}.mkv"
    assert payload["library_path"] == str(written)
    assert written.samefile(local.data_path)


def test_a_folder_inside_the_library_that_leads_outside_is_refused(tmp_path: Path) -> None:
    library, outside = tmp_path / "movies", tmp_path / "outside"
    library.mkdir()
    outside.mkdir()
    (library / FILM_FOLDER).symlink_to(outside)
    source = tmp_path / "NOTLD.1968.mkv"
    source.write_bytes(b"film")

    for target in (
        library / FILM_FOLDER / f"{FILM_FOLDER}.mkv",
        library / FILM_FOLDER / "Season 01" / f"{FILM_FOLDER}.mkv",
    ):
        with pytest.raises(PermissionError):
            place(source, target, library.resolve())
    assert list(outside.iterdir()) == []  # not even a folder was made there
