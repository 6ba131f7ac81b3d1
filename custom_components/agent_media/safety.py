"""Which files of a torrent make it unsafe to download.

Pure Python (no Home Assistant, no I/O). A film or a show never needs a program, a script or a shortcut;
fakes dress them up as media ("Movie.2010.1080p.mkv.exe", "Movie.mkv.lnk", a right-to-left override that
shows "exe.mkv" backwards). Sonarr's lists (FileExtensions.cs) plus the usual Windows script hosts.
Names are read as Windows writes them: it drops the dots and spaces that end a path component, and so does
qBittorrent there, so "Setup.exe." and "Update.exe   " land on disk as programs.

`judge_contents` reads the rest of a file list as the stalled-download cleaners do: only archives (or parts of
split ones), no video for a film or an episode, password-protected archives, or a main video far too small for
the title's running time and resolution refuse a torrent; samples, descriptions and extras are skipped.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from pathlib import PurePosixPath
import re
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from collections.abc import Iterable

DANGEROUS_FILE_EXTENSIONS: Final = frozenset(
    {
        # programs and installers
        "exe", "com", "scr", "pif", "msi", "msp", "msix", "appx", "dll", "cpl", "jar", "apk", "app", "dmg",
        # scripts
        "bat", "cmd", "ps1", "psm1", "vbs", "vbe", "js", "jse", "wsf", "wsh", "hta", "sh", "reg", "py",
        # shortcuts and Windows tricks
        "lnk", "url", "scf", "inf", "msc", "gadget", "application",
        # archives used to hide the above
        "zipx",
    }
)  # fmt: skip
# Extensions a fake puts before the real one ("Movie.mkv.exe"); a release name is read through them.
MEDIA_EXTENSIONS: Final = frozenset(
    {"mkv", "mp4", "avi", "m4v", "wmv", "mov", "mpg", "mpeg", "webm", "m2ts", "ts", "iso", "torrent"}
)
# Dangerous extensions that are also web domains: a name ending in "-Site.com" names a site, not a file.
_ALSO_DOMAINS: Final = frozenset({"com", "app", "sh", "py"})
_NAME_EXTENSION_RE: Final = re.compile(r"\.([a-z0-9]{2,11})$", re.IGNORECASE)
# Unicode controls that reverse how a name is displayed ("Movie\u202ekvm.exe" shows as "Movie.exe.mkv").
_BIDI_CONTROLS: Final = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f")
MAX_LISTED: Final = 5
_WINDOWS_DROPPED: Final = ". "


def _windows_name(name: str) -> str:
    """Return a path component as Windows stores it: without its trailing dots and spaces."""
    return name.rstrip(_WINDOWS_DROPPED)


def dangerous_file_reason(path: str) -> str | None:
    """Return why one file of a torrent is dangerous ("executable .exe"), or None when it is not."""
    components = [_windows_name(part) for part in path.replace("\\", "/").split("/")]
    name = next((part for part in reversed(components) if part), "")
    if _BIDI_CONTROLS.intersection(name):
        return "name hides its real extension"
    suffixes = [suffix.lower().lstrip(".") for suffix in PurePosixPath(name).suffixes]
    if suffixes and suffixes[-1] in DANGEROUS_FILE_EXTENSIONS:
        return f".{suffixes[-1]} file"
    return None


def dangerous_name_extension(name: str) -> str | None:
    """Return the dangerous extension a release name ends in ("exe" for "…1080p.mkv.exe"), if any."""
    name = _windows_name(name.strip())
    while match := _NAME_EXTENSION_RE.search(name):
        extension, rest = match.group(1).lower(), name[: match.start()]
        if extension in DANGEROUS_FILE_EXTENSIONS:
            if extension not in _ALSO_DOMAINS:
                return extension
            before = _NAME_EXTENSION_RE.search(rest)
            return extension if before and before.group(1).lower() in MEDIA_EXTENSIONS else None
        if extension not in MEDIA_EXTENSIONS:
            return None
        name = rest
    return None


def dangerous_files(paths: Iterable[str]) -> list[str]:
    """Return the paths that are dangerous, in their order."""
    return [path for path in paths if dangerous_file_reason(path) is not None]


def describe_dangerous(paths: list[str]) -> str:
    """Return a short list of dangerous files for a message ("Movie.mkv.exe, setup.bat and 3 more")."""
    shown = [PurePosixPath(path).name for path in paths[:MAX_LISTED]]
    text = ", ".join(shown)
    if len(paths) > MAX_LISTED:
        text += f" and {len(paths) - MAX_LISTED} more"
    return text


# --- What a torrent holds, judged before it downloads ------------------------------------------------------
# What the *arr cleaners catch (split-archive fakes, no video, a tiny "film", password-protected archives),
# read from the file list qBittorrent gives before any data. Samples, .nfo files and extras are skipped (file
# priority 0), not refused: a real release carries them.

VIDEO_EXTENSIONS: Final = frozenset(
    {"mkv", "mp4", "avi", "m4v", "wmv", "mov", "mpg", "mpeg", "webm", "m2ts", "mts", "ts", "vob", "iso",
     "divx", "flv", "ogv", "3gp", "rmvb"}
)  # fmt: skip
ARCHIVE_EXTENSIONS: Final = frozenset(
    {"rar", "7z", "zip", "tar", "gz", "tgz", "bz2", "xz", "cab", "arj", "ace"}
)
# Parts of a split archive: .r00, .001, .z01, .7z.001, .part01.rar.
_SPLIT_ARCHIVE_RE: Final = re.compile(r"\.(?:r\d{2}|\d{3}|z\d{2}|part\d{1,3}\.rar)$", re.IGNORECASE)
# Files that only describe a release: skipped, never a reason to refuse (nor to keep) one.
_DESCRIPTION_EXTENSIONS: Final = frozenset(
    {"nfo", "txt", "sfv", "md5", "jpg", "jpeg", "png", "gif", "bmp", "html"}
)
_SAMPLE_RE: Final = re.compile(r"(?:^|[\W_])(?:sample|trailer)(?:$|[\W_])", re.IGNORECASE)
# Folders of extras a film's release brings along (a show's specials are its own episodes: not these).
_EXTRAS_FOLDERS: Final = frozenset(
    {"extras", "extra", "featurettes", "featurette", "bonus", "behind the scenes", "deleted scenes",
     "trailers", "sample", "samples", "screens", "screenshots", "proof", "covers"}
)  # fmt: skip
# A file telling the archive's password, in the languages these fakes use.
_PASSWORD_RE: Final = re.compile(
    r"(?:^|[\W_])(?:password|passwort|passwd|pass|contrase[nñ]a|mot[\W_]*de[\W_]*passe|senha|haslo|hasło)"
    r"(?:$|[\W_])",
    re.IGNORECASE,
)
# The least a main video plausibly weighs, per resolution: kilobits per second of its running time. A quarter
# or less of what the smallest honest encodes (x265 at that resolution) use: only fakes fall below.
_MIN_KBITS_PER_SECOND: Final = {2160: 1_500, 1080: 500, 720: 300}
_MIN_KBITS_PER_SECOND_OTHER: Final = 120


class ContentsRefusal(StrEnum):
    """Why a torrent's contents are refused (the value ends its translation key: `refused_<value>`)."""

    ONLY_ARCHIVES = "only_archives"
    NO_VIDEO = "no_video"
    PASSWORD_PROTECTED = "password_protected"  # noqa: S105 - a reason, not a password
    VIDEO_TOO_SMALL = "video_too_small"


@dataclass(frozen=True, slots=True)
class TorrentEntry:
    """One file of a torrent as qBittorrent lists it: its index, path inside the torrent, and size."""

    index: int
    path: str
    size: int


@dataclass(frozen=True, slots=True)
class ContentsJudgement:
    """What to do with a torrent's files: refuse it (and why), or download it without the `skipped` ones."""

    refusal: ContentsRefusal | None = None
    detail: str = ""  # the files, or the sizes, that decided it (outside text: clipped by the caller)
    skipped: tuple[int, ...] = ()  # indexes of the files to leave out (priority 0)


def _extension(path: str) -> str:
    return PurePosixPath(path.replace("\\", "/")).suffix.lower().lstrip(".")


def is_video(path: str) -> bool:
    """Return whether a torrent's file is a video (by its extension)."""
    return _extension(path) in VIDEO_EXTENSIONS


def is_archive(path: str) -> bool:
    """Return whether a torrent's file is an archive or a part of a split one."""
    return _extension(path) in ARCHIVE_EXTENSIONS or _SPLIT_ARCHIVE_RE.search(path) is not None


def _is_extra(path: str) -> bool:
    """Return whether a file is a sample, a description or an extra: skipped rather than downloaded."""
    parts = path.replace("\\", "/").split("/")
    if any(part.strip().casefold() in _EXTRAS_FOLDERS for part in parts[:-1]):
        return True
    name = parts[-1]
    return _extension(name) in _DESCRIPTION_EXTENSIONS or (
        is_video(name) and _SAMPLE_RE.search(name) is not None
    )


def _names(entries: Iterable[TorrentEntry]) -> str:
    return describe_dangerous([entry.path for entry in entries])


def least_video_bytes(runtime_minutes: int, resolution: int | None) -> int:
    """Return the size under which a main video of that running time and resolution is a fake."""
    kbits = next(
        (
            rate
            for height, rate in sorted(_MIN_KBITS_PER_SECOND.items(), reverse=True)
            if (resolution or 0) >= height
        ),
        _MIN_KBITS_PER_SECOND_OTHER,
    )
    return runtime_minutes * 60 * kbits * 1000 // 8


def judge_contents(
    files: Iterable[TorrentEntry],
    *,
    media_type: str | None = None,
    runtime_minutes: int | None = None,
    resolution: int | None = None,
) -> ContentsJudgement:
    """Judge a torrent by its file list: refuse a fake, else name the files to skip.

    `media_type` ("movie" or "tv") is what the torrent was added for, when known: then it must hold a video.
    `runtime_minutes` (a film's, or an episode's) and `resolution` (the release's height) size the main video
    when both the identity and the name tell them. Dangerous files are judged apart (`dangerous_files`).
    """
    entries = list(files)
    archives = [entry for entry in entries if is_archive(entry.path)]
    notes = [entry for entry in entries if not is_archive(entry.path) and not is_video(entry.path)]
    if archives and any(_PASSWORD_RE.search(PurePosixPath(entry.path).stem) for entry in notes):
        return ContentsJudgement(ContentsRefusal.PASSWORD_PROTECTED, _names(archives))
    extras = [entry for entry in entries if _is_extra(entry.path)]
    extra_indexes = {entry.index for entry in extras}
    wanted = [entry for entry in entries if entry.index not in extra_indexes]
    videos = [entry for entry in wanted if is_video(entry.path)]
    if archives and not videos and len(archives) == len(wanted):
        return ContentsJudgement(ContentsRefusal.ONLY_ARCHIVES, _names(archives))
    if not videos and media_type in ("movie", "tv"):
        return ContentsJudgement(ContentsRefusal.NO_VIDEO, _names(entries))
    if videos and runtime_minutes and runtime_minutes > 0:
        main = max(videos, key=lambda entry: entry.size)
        least = least_video_bytes(runtime_minutes, resolution)
        if main.size < least:
            return ContentsJudgement(
                ContentsRefusal.VIDEO_TOO_SMALL, f"{PurePosixPath(main.path).name}: {main.size} bytes"
            )
    # Never skip every file: a torrent with nothing wanted would wait for ever (and never complete).
    skipped = tuple(entry.index for entry in extras) if wanted else ()
    return ContentsJudgement(skipped=skipped)
