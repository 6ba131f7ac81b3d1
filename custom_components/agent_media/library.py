"""Library organisation: finished films and shows go into the movie and tv_show folders, Plex/Jellyfin named.

"Night of the Living Dead (1968)/Night of the Living Dead (1968).mkv" for a film; "Pioneer One (2010)/Season
02/Pioneer One (2010) - S02E03.mkv" for an episode. Each video is hard-linked (same disk: no extra space, and
qBittorrent keeps seeding the original), else copied; the download itself is never moved or changed. A name
already taken by the same content is reused; by other content, the new file gets " (2)", " (3)", ….
Off by default (option `organize_library`, read by the lifecycle); the file work runs in the executor. The
optional `library_refresh` (a script or button, e.g. a Jellyfin or Plex refresh) runs before the news.

Only the torrent's own files (qBittorrent's file list, joined with its save path) are ever taken, never what
else lies in the folder. The library folder is checked again and resolved at each use, and written through
its real path: a symlink re-pointed since it was set cannot lead the files outside the allowed folders.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
import errno
import filecmp
import os
from pathlib import Path, PurePosixPath
import re
import shutil
from typing import TYPE_CHECKING, Any, Final

from homeassistant.exceptions import HomeAssistantError

from .clients.errors import AgentMediaClientError
from .const import LOGGER, VIDEO_EXTENSIONS
from .operations import real_folder_path
from .ranking import parse_release

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

    from homeassistant.core import HomeAssistant

    from .clients.qbittorrent import QBittorrentClient
    from .memory import AgentMediaMemory

MOVIE_FOLDER: Final = "movie"
TV_FOLDER: Final = "tv_show"
MAX_LISTED_FILES: Final = 50
LIBRARY_REFRESH_TIMEOUT: Final = 120  # seconds a media server's refresh may take before the news is told
MAX_NAME_CHARS: Final = 150
MAX_COLLISIONS: Final = 100
_SAMPLE_RE: Final = re.compile(r"(?<![a-z0-9])(sample|trailer)(?![a-z0-9])", re.IGNORECASE)
_UNSAFE_CHARS: Final = re.compile(r'[\\/:*?"<>|\x00-\x1f]+')


@dataclass(slots=True)
class Organized:
    """Where the media went."""

    library_path: str  # the video for a single file, else the folder holding the videos
    files: list[str] = field(default_factory=list)
    linked: int = 0
    copied: int = 0
    reused: int = 0  # already there with the same content


def safe_name(text: str) -> str:
    """Return a file or folder name safe on every filesystem Plex and Jellyfin run on."""
    cleaned = " ".join(_UNSAFE_CHARS.sub(" ", text.replace(":", " -")).split()).strip(" .")
    return cleaned[:MAX_NAME_CHARS].rstrip(" .") or "Unknown"


def media_folder_name(media: Mapping[str, Any]) -> str:
    """Return "Title (Year)", or the title alone when the year is unknown."""
    title = safe_name(str(media.get("title") or "Unknown"))
    return f"{title} ({media['year']})" if media.get("year") else title


def _videos(download_root: Path, file_names: Iterable[str]) -> list[tuple[Path, str]]:
    """Return (real path, name as listed) of the torrent's own videos, without samples and trailers.

    Only the files qBittorrent lists for the torrent count, whatever else shares its folder: with the
    "don't create subfolder" layout a download's folder is everyone's. A name leading outside the torrent's
    save path (`..`, a symlink put there since) is passed over.
    """
    real_root = download_root.resolve()
    videos = []
    for name in file_names:
        relative = PurePosixPath(name)
        if (
            relative.is_absolute()
            or ".." in relative.parts
            or relative.suffix.lower() not in VIDEO_EXTENSIONS
        ):
            continue
        real = (download_root / relative).resolve()
        if real.is_relative_to(real_root) and real.is_file():
            videos.append((real, name))
    videos.sort(key=lambda video: video[1])
    main = [video for video in videos if not _SAMPLE_RE.search(video[1])]
    return main or videos


def plan(
    download_root: Path, file_names: Iterable[str], media: Mapping[str, Any], library_root: Path
) -> list[tuple[Path, Path]]:
    """Return (source, target) for every video of a download. Blocking (looks at the files)."""
    videos = _videos(download_root, file_names)
    folder = library_root / media_folder_name(media)
    base = folder.name
    if media.get("media_type") != "tv":
        if len(videos) == 1:
            source = videos[0][0]
            return [(source, folder / f"{base}{source.suffix.lower()}")]
        # Several parts (CD1, CD2): Plex and Jellyfin join "Title (Year) - part1", "- part2".
        return [
            (source, folder / f"{base} - part{number}{source.suffix.lower()}")
            for number, (source, _name) in enumerate(videos, 1)
        ]
    moves = []
    for source, name in videos:
        parsed = parse_release(PurePosixPath(name).name)
        if not parsed.seasons and not parsed.episodes:
            parsed = parse_release(name.replace("/", " "))  # the season may be in a folder's name
        season = parsed.seasons[0] if len(parsed.seasons) == 1 else None
        target_folder = folder / f"Season {season:02d}" if season is not None else folder
        if season is not None and parsed.episodes:
            episodes = "-".join(f"E{episode:02d}" for episode in parsed.episodes[:3])
            target = f"{base} - S{season:02d}{episodes}{source.suffix.lower()}"
        else:
            target = safe_name(PurePosixPath(name).name)
        moves.append((source, target_folder / target))
    return moves


def _same_content(source: Path, target: Path) -> bool:
    try:
        if source.samefile(target):
            return True
        return source.stat().st_size == target.stat().st_size and filecmp.cmp(source, target, shallow=False)
    except OSError:
        return False


def place(source: Path, target: Path, library_root: Path) -> tuple[Path, str]:
    """Hard-link (else copy) source to target, or to "name (2).ext"… when target holds something else.

    `library_root` is the library folder's real path: a folder inside it that is a symlink leading out is
    refused (PermissionError), so nothing is ever written outside it. Returns the final path and "linked",
    "copied" or "reused" (the same content is already there).
    """
    _make_folders(target.parent, library_root)
    for number in range(1, MAX_COLLISIONS + 1):
        candidate = target if number == 1 else target.with_name(f"{target.stem} ({number}){target.suffix}")
        if candidate.exists() or candidate.is_symlink():
            if not candidate.is_symlink() and _same_content(source, candidate):
                return candidate, "reused"
            continue
        try:
            os.link(source, candidate)
        except FileExistsError:
            continue  # taken meanwhile: look at it again as the next candidate would
        except OSError as err:
            if err.errno not in (errno.EXDEV, errno.EPERM, errno.EACCES, errno.EMLINK, errno.ENOTSUP):
                raise
            # Another disk, or a filesystem without hard links: copy (seeding keeps the original).
            try:
                with candidate.open("xb") as out, source.open("rb") as data:
                    shutil.copyfileobj(data, out)
            except FileExistsError:
                continue
            shutil.copystat(source, candidate)
            return candidate, "copied"
        return candidate, "linked"
    raise FileExistsError(errno.EEXIST, "too many files with this name", str(target))


def _make_folders(folder: Path, library_root: Path) -> None:
    """Create `folder` under the library root one level at a time, each checked before going into it."""
    library_root.mkdir(parents=True, exist_ok=True)
    current = library_root
    for part in folder.relative_to(library_root).parts:
        current /= part
        current.mkdir(exist_ok=True)
        if not current.resolve().is_relative_to(library_root):
            raise PermissionError(errno.EACCES, "a folder of the library leads outside it", str(current))


def organize(
    download_root: str, file_names: Iterable[str], media: Mapping[str, Any], library_root: str
) -> Organized:
    """Put a finished download's videos into the library. Blocking: run it in the executor.

    `download_root` is the torrent's save path and `file_names` its files as qBittorrent lists them (relative
    to it); `library_root` the library folder's real path, checked by the caller. Raises FileNotFoundError
    when the download holds no video, and OSError when the files cannot be placed.
    """
    root = Path(library_root)
    moves = plan(Path(download_root), file_names, media, root)
    if not moves:
        raise FileNotFoundError(errno.ENOENT, "no video in the download", download_root)
    result = Organized(library_path="")
    for source, target in moves:
        final, how = place(source, target, root)
        result.files.append(str(final))
        setattr(result, how, getattr(result, how) + 1)
    folders = {Path(path).parent for path in result.files}
    result.library_path = result.files[0] if len(result.files) == 1 else str(_common_folder(folders))
    del result.files[MAX_LISTED_FILES:]
    return result


def _common_folder(folders: set[Path]) -> Path:
    return Path(os.path.commonpath([str(folder) for folder in folders]))


def is_organizable(payload: Mapping[str, Any]) -> bool:
    """Return whether a completed download is a film or show of ours, for the library (when that is on)."""
    return payload.get("media_type") in ("movie", "tv") and bool(payload.get("title"))


class LibraryFolderError(Exception):
    """The library folder cannot be used now; its argument says why (folder_not_allowed, …)."""


def _organize_into_folder(
    hass: HomeAssistant,
    download_root: str,
    file_names: list[str],
    media: Mapping[str, Any],
    library_folder: str,
) -> Organized:
    """Check the library folder now, and organise through its real path. Blocking: run it in the executor.

    Raises LibraryFolderError when the folder cannot be used (no longer allowed, gone, …).
    """
    real_root, problem = real_folder_path(hass, library_folder)
    if problem is not None:
        raise LibraryFolderError(problem[1])
    return organize(download_root, file_names, media, real_root)


def _finished_files(files: list[dict[str, Any]]) -> list[str]:
    """Return the names of the torrent's files that were downloaded whole (skipped files are not)."""
    return [
        str(item["name"])
        for item in files
        if isinstance(item.get("name"), str) and item.get("priority") != 0 and item.get("progress") == 1
    ]


async def async_organize_completed(
    hass: HomeAssistant, memory: AgentMediaMemory, qbittorrent: QBittorrentClient, payload: Mapping[str, Any]
) -> dict[str, Any]:
    """Return the completion payload with `library_path` (and `library_files`), or `library_error`."""
    result = dict(payload)
    folder_name = TV_FOLDER if payload.get("media_type") == "tv" else MOVIE_FOLDER
    library_folder = memory.household.folder(folder_name)
    if library_folder is None:
        result["library_error"] = f"no {folder_name} folder is configured"
        return result
    download_root = str(payload.get("save_path") or "")
    if not download_root:
        result["library_error"] = "qBittorrent gave no save path"
        return result
    try:
        files = await qbittorrent.async_files(str(payload["hash"]))
    except AgentMediaClientError as err:
        result["library_error"] = f"qBittorrent did not list the files: {err.detail}"
        return result
    try:
        organized = await hass.async_add_executor_job(
            _organize_into_folder, hass, download_root, _finished_files(files), payload, library_folder
        )
    except LibraryFolderError as err:
        LOGGER.warning(
            "Did not organise %s: the %s folder cannot be used (%s)", payload.get("name"), folder_name, err
        )
        result["library_error"] = f"the {folder_name} folder cannot be used ({err})"
        return result
    except OSError as err:
        LOGGER.warning("Could not organise %s into %s: %s", payload.get("name"), library_folder, err)
        result["library_error"] = err.strerror or str(err)
        return result
    LOGGER.debug(
        "Organised %s: %s linked, %s copied, %s already there",
        payload.get("name"),
        organized.linked,
        organized.copied,
        organized.reused,
    )
    result["library_path"] = organized.library_path
    result["library_files"] = organized.files
    return result


async def async_refresh_library(hass: HomeAssistant, entity_id: str) -> bool:
    """Run the script or press the button the household named to refresh its media server; True if it ran.

    A script runs to its end (or `LIBRARY_REFRESH_TIMEOUT`); any failure is logged and returns False.
    """
    domain, _, object_id = entity_id.partition(".")
    call = (domain, object_id, {}) if domain == "script" else ("button", "press", {"entity_id": entity_id})
    try:
        async with asyncio.timeout(LIBRARY_REFRESH_TIMEOUT):
            await hass.services.async_call(*call, blocking=True)
    except (HomeAssistantError, TimeoutError) as err:
        LOGGER.warning("The library refresh %s failed: %s", entity_id, err or type(err).__name__)
        return False
    return True
