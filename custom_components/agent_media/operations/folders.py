"""Folder paths: whether Home Assistant lets us use one, and what a folder holds (blocking: the executor).

Whether a path is allowed is checked first, so nothing is revealed about paths outside the allowed ones.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from ..errors import ErrorCode
from ..untrusted import MAX_PATH, MAX_PATH_COMPONENT, clip
from .describe import human_size

if TYPE_CHECKING:
    from homeassistant.core import HomeAssistant

MAX_LISTED_ENTRIES: Final = 50


def allowed_roots(hass: HomeAssistant) -> list[str]:
    """Folders Home Assistant lets integrations use: allowlist_external_dirs and the media dirs."""
    return sorted({*hass.config.allowlist_external_dirs, *hass.config.media_dirs.values()})


def check_folder_path(hass: HomeAssistant, path: str) -> tuple[str, tuple[ErrorCode, str] | None]:
    """Return the normalised path and (code, translation key) when it cannot be used. Blocking (executor).

    Whether the path is allowed is checked first, so nothing is revealed about paths outside the allowed ones.
    Symlinks are resolved every time, so a link re-pointed after a folder was set is caught at its next use.
    """
    path, _real, problem = _inspect_folder(hass, path)
    return path, problem


def real_folder_path(hass: HomeAssistant, path: str) -> tuple[str, tuple[ErrorCode, str] | None]:
    """Return the folder's real path (symlinks resolved now) to write through, or why it cannot be used.

    Blocking (executor). Writing through the path as resolved and checked, not as stored, is what keeps a
    link re-pointed since from leading the writes elsewhere.
    """
    path, real, problem = _inspect_folder(hass, path)
    return (path if real is None else str(real)), problem


def _inspect_folder(hass: HomeAssistant, path: str) -> tuple[str, Path | None, tuple[ErrorCode, str] | None]:
    path = os.path.normpath(path)
    encoded = path.encode("utf-8", "surrogateescape")
    if len(encoded) > MAX_PATH or any(len(part) > MAX_PATH_COMPONENT for part in encoded.split(b"/")):
        return path, None, (ErrorCode.INVALID_PATH, "path_too_long")
    try:
        real = Path(path).resolve()
        return path, real, _folder_problem(hass, real)
    except (OSError, RuntimeError, ValueError):  # RuntimeError: a symlink loop, before Python 3.13
        return path, None, (ErrorCode.NOT_READABLE, "path_not_readable")


def _folder_problem(hass: HomeAssistant, resolved: Path) -> tuple[ErrorCode, str] | None:
    inside_roots = any(resolved.is_relative_to(Path(root).resolve()) for root in allowed_roots(hass))
    if not inside_roots and not hass.config.is_allowed_path(str(resolved)):
        return ErrorCode.NOT_ALLOWED, "folder_not_allowed"
    if not resolved.exists():
        return ErrorCode.PATH_NOT_FOUND, "path_not_found"
    if not resolved.is_dir():
        return ErrorCode.NOT_A_DIRECTORY, "not_a_directory"
    if not os.access(resolved, os.R_OK | os.X_OK):
        return ErrorCode.NOT_READABLE, "path_not_readable"
    return None


def list_directory(root: str, sub_path: str) -> tuple[list[dict[str, Any]], int] | tuple[ErrorCode, str]:
    """List root/sub_path (blocking: run in the executor); symlinks may not lead outside root."""
    try:
        root_path = Path(root).resolve()
        target = (root_path / sub_path).resolve()
        if not target.is_relative_to(root_path):
            return ErrorCode.NOT_ALLOWED, "path_outside_folder"
        if not target.exists():
            return ErrorCode.PATH_NOT_FOUND, "path_not_found"
        if not target.is_dir():
            return ErrorCode.NOT_A_DIRECTORY, "not_a_directory"
        with os.scandir(target) as scan:
            found = sorted(scan, key=lambda item: (not item.is_dir(), item.name.casefold()))
    except (OSError, ValueError):
        return ErrorCode.NOT_READABLE, "path_not_readable"
    entries = []
    for item in found[:MAX_LISTED_ENTRIES]:
        is_dir = item.is_dir()
        # File names are outside text: clipped, never instructions.
        listed: dict[str, Any] = {"name": clip(item.name, 200), "type": "directory" if is_dir else "file"}
        if not is_dir:
            try:
                listed["size"] = human_size(item.stat().st_size)
            except OSError:
                listed["size"] = "unknown size"
        entries.append(listed)
    return entries, len(found)
