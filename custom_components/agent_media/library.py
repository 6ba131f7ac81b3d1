"""Library organisation: finished films and shows go into the movie and tv_show folders, Plex/Jellyfin named.

"Night of the Living Dead (1968)/Night of the Living Dead (1968).mkv" for a film; "Pioneer One (2010)/Season
02/Pioneer One (2010) - S02E03.mkv" for an episode. Each video is hard-linked (same disk: no extra space, and
qBittorrent keeps seeding the original), else copied; the download itself is never moved or changed. A name
already taken by the same content is reused; by other content, the new file gets " (2)", " (3)", ….
Off by default (option `organize_library`); the file work runs in the executor.
"""

from __future__ import annotations

from dataclasses import dataclass, field
import errno
import filecmp
import os
from pathlib import Path
import re
import shutil
from typing import TYPE_CHECKING, Any, Final

from .const import CONF_ORGANIZE_LIBRARY, DEFAULT_ORGANIZE_LIBRARY, LOGGER
from .ranking import parse_release

if TYPE_CHECKING:
    from collections.abc import Mapping

    from homeassistant.core import HomeAssistant

    from .data import AgentMediaConfigEntry

MOVIE_FOLDER: Final = "movie"
TV_FOLDER: Final = "tv_show"
VIDEO_EXTENSIONS: Final = frozenset(
    {".mkv", ".mp4", ".m4v", ".avi", ".mov", ".wmv", ".mpg", ".mpeg", ".ts", ".m2ts", ".webm"}
)
MAX_LISTED_FILES: Final = 50
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


def _videos(content: Path) -> list[Path]:
    """Return the videos of a download, without samples and trailers (unless that is all there is)."""
    if content.is_file():
        return [content] if content.suffix.lower() in VIDEO_EXTENSIONS else []
    videos = sorted(
        path for path in content.rglob("*") if path.is_file() and path.suffix.lower() in VIDEO_EXTENSIONS
    )
    main = [path for path in videos if not _SAMPLE_RE.search(str(path.relative_to(content)))]
    return main or videos


def plan(content: Path, media: Mapping[str, Any], library_root: Path) -> list[tuple[Path, Path]]:
    """Return (source, target) for every video of a download. Blocking (reads the download's folder)."""
    videos = _videos(content)
    folder = library_root / media_folder_name(media)
    base = folder.name
    if media.get("media_type") != "tv":
        if len(videos) == 1:
            return [(videos[0], folder / f"{base}{videos[0].suffix.lower()}")]
        # Several parts (CD1, CD2): Plex and Jellyfin join "Title (Year) - part1", "- part2".
        return [
            (video, folder / f"{base} - part{number}{video.suffix.lower()}")
            for number, video in enumerate(videos, 1)
        ]
    moves = []
    for video in videos:
        parsed = parse_release(video.name)
        if not parsed.seasons and not parsed.episodes:
            parsed = parse_release(str(video.relative_to(content.parent)).replace(os.sep, " "))
        season = parsed.seasons[0] if len(parsed.seasons) == 1 else None
        target_folder = folder / f"Season {season:02d}" if season is not None else folder
        if season is not None and parsed.episodes:
            episodes = "-".join(f"E{episode:02d}" for episode in parsed.episodes[:3])
            name = f"{base} - S{season:02d}{episodes}{video.suffix.lower()}"
        else:
            name = safe_name(video.name)
        moves.append((video, target_folder / name))
    return moves


def _same_content(source: Path, target: Path) -> bool:
    try:
        if source.samefile(target):
            return True
        return source.stat().st_size == target.stat().st_size and filecmp.cmp(source, target, shallow=False)
    except OSError:
        return False


def place(source: Path, target: Path) -> tuple[Path, str]:
    """Hard-link (else copy) source to target, or to "name (2).ext"… when target holds something else.

    Returns the final path and "linked", "copied" or "reused" (the same content is already there).
    """
    target.parent.mkdir(parents=True, exist_ok=True)
    for number in range(1, MAX_COLLISIONS + 1):
        candidate = target if number == 1 else target.with_name(f"{target.stem} ({number}){target.suffix}")
        if candidate.exists():
            if _same_content(source, candidate):
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


def organize(content_path: str, media: Mapping[str, Any], library_root: str) -> Organized:
    """Put a finished download's videos into the library. Blocking: run it in the executor.

    Raises FileNotFoundError when the download holds no video, and OSError when the files cannot be placed.
    """
    content = Path(content_path)
    moves = plan(content, media, Path(library_root))
    if not moves:
        raise FileNotFoundError(errno.ENOENT, "no video in the download", content_path)
    result = Organized(library_path="")
    for source, target in moves:
        final, how = place(source, target)
        result.files.append(str(final))
        setattr(result, how, getattr(result, how) + 1)
    folders = {Path(path).parent for path in result.files}
    result.library_path = result.files[0] if len(result.files) == 1 else str(_common_folder(folders))
    del result.files[MAX_LISTED_FILES:]
    return result


def _common_folder(folders: set[Path]) -> Path:
    return Path(os.path.commonpath([str(folder) for folder in folders]))


def should_organize(entry: AgentMediaConfigEntry, payload: Mapping[str, Any]) -> bool:
    """Return whether a completed download is a film or show of ours to put into the library."""
    if not entry.options.get(CONF_ORGANIZE_LIBRARY, DEFAULT_ORGANIZE_LIBRARY):
        return False
    return payload.get("media_type") in ("movie", "tv") and bool(payload.get("title"))


async def async_organize_completed(
    hass: HomeAssistant, entry: AgentMediaConfigEntry, payload: Mapping[str, Any]
) -> dict[str, Any]:
    """Return the completion payload with `library_path` (and `library_files`), or `library_error`."""
    result = dict(payload)
    folder_name = TV_FOLDER if payload.get("media_type") == "tv" else MOVIE_FOLDER
    library_root = entry.runtime_data.memory.household.folder(folder_name)
    if library_root is None:
        result["library_error"] = f"no {folder_name} folder is configured"
        return result
    content_path = str(payload.get("content_path") or "")
    if not content_path:
        result["library_error"] = "qBittorrent gave no content path"
        return result
    try:
        organized = await hass.async_add_executor_job(organize, content_path, payload, library_root)
    except OSError as err:
        LOGGER.warning("Could not organise %s into %s: %s", content_path, library_root, err)
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
