"""Which files of a torrent make it unsafe to download.

Pure Python (no Home Assistant, no I/O). A film or a show never needs a program, a script or a shortcut;
fakes dress them up as media ("Movie.2010.1080p.mkv.exe", "Movie.mkv.lnk", a right-to-left override that
shows "exe.mkv" backwards). Sonarr's lists (FileExtensions.cs) plus the usual Windows script hosts.
Names are read as Windows writes them: it drops the dots and spaces that end a path component, and so does
qBittorrent there, so "Setup.exe." and "Update.exe   " land on disk as programs.
"""

from __future__ import annotations

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
