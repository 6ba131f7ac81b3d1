"""Settings operations: the household's folders and release preferences, and forgetting what is remembered.

Changing them needs the settings permission; a folder is checked (allowed, exists, a readable directory)
each time it is set and again each time it is used.
"""

from __future__ import annotations

from dataclasses import dataclass
import math
from pathlib import PurePosixPath
import re
from typing import TYPE_CHECKING, Any, Final

from ..const import (
    CODEC_CHOICES,
    CONF_MAX_SIZE_GB,
    CONF_PREFERRED_CODEC,
    CONF_PREFERRED_LANGUAGES,
    CONF_PREFERRED_RESOLUTION,
    DEFAULT_PREFERRED_RESOLUTION,
    NO_PREFERENCE,
    RESOLUTION_CHOICES,
)
from ..errors import ErrorCode, OperationError
from ..memory import CLEAR_SCOPES, HOUSEHOLD_SCOPES, MAX_FOLDERS
from ..ranking import RankingPreferences, normalize_resolution
from ..requester import Permission
from ..untrusted import UnstorableValueError, check_storable
from .base import OperationsPart
from .describe import human_size
from .folders import check_folder_path, list_directory

if TYPE_CHECKING:
    from collections.abc import Mapping

    from ..requester import Requester

DOWNLOAD_FOLDER: Final = "download"
HOUSEHOLD: Final = "household"  # whose preferences: the household's (the defaults under everyone's own)
FOLDER_NAME: Final = re.compile(r"^[a-z][a-z0-9_]{0,31}$")
_CODEC_NAMES: Final = {"hevc": "x265", "avc": "x264"}


def _languages(value: Any) -> tuple[str, ...]:
    items = value.split(",") if isinstance(value, str) else value if isinstance(value, list) else []
    cleaned = (str(item).strip() for item in items)
    return tuple(item for item in cleaned if item and item.lower() != NO_PREFERENCE)


def describe_preferences(preferences: RankingPreferences) -> dict[str, Any]:
    """Return the preferences in force, as the model and the prompt show them."""
    return {
        "resolution": preferences.resolution or NO_PREFERENCE,
        "codec": preferences.codec or NO_PREFERENCE,
        "max_size": human_size(preferences.max_size_bytes) if preferences.max_size_bytes else "no limit",
        "languages": list(preferences.languages) or NO_PREFERENCE,
    }


def _preference_changes(
    resolution: str | None, codec: str | None, max_size_gb: float | None, languages: str | None
) -> dict[str, Any]:
    """Return the preferences to store, each checked; raise bad_args for a value that is no preference."""
    if resolution is None and codec is None and max_size_gb is None and languages is None:
        raise OperationError(ErrorCode.BAD_ARGS, "preference_missing")
    changes: dict[str, Any] = {}
    if resolution is not None:
        resolution = resolution.lower()
        if resolution not in (*RESOLUTION_CHOICES, "4k"):
            raise OperationError(ErrorCode.BAD_ARGS, "preference_invalid", value=resolution)
        changes[CONF_PREFERRED_RESOLUTION] = (
            NO_PREFERENCE if resolution == NO_PREFERENCE else normalize_resolution(resolution)
        )
    if codec is not None:
        codec = _CODEC_NAMES.get(codec.lower(), codec.lower())
        if codec not in CODEC_CHOICES:
            raise OperationError(ErrorCode.BAD_ARGS, "preference_invalid", value=codec)
        changes[CONF_PREFERRED_CODEC] = codec
    if max_size_gb is not None:
        if not math.isfinite(max_size_gb) or not 0 <= max_size_gb <= 1000:  # noqa: PLR2004
            raise OperationError(ErrorCode.BAD_ARGS, "preference_invalid", value=max_size_gb)
        changes[CONF_MAX_SIZE_GB] = max_size_gb
    if languages is not None:
        changes[CONF_PREFERRED_LANGUAGES] = list(_languages(languages))
    return changes


@dataclass(frozen=True, slots=True)
class StoredPreferences:
    """Someone's preferences: whose (a requester key, or `HOUSEHOLD`), those they set, and those in force."""

    whose: str
    own: Mapping[str, Any]
    in_force: RankingPreferences


class Settings(OperationsPart):
    """Folders, release preferences and clearing memory."""

    def ranking_preferences(
        self, *, resolution: str | None = None, requester_key: str | None = None
    ) -> RankingPreferences:
        """Return the release preferences: a person's own, over the household's (by voice), over the options.

        `resolution` (asked for in this request) overrides all. "any" (or a size of 0) means no preference.
        """
        household = self.memory.household
        layers = (
            household.person_preferences(requester_key) if requester_key else {},
            household.preferences(),
            self.collaborators.options.preferences,
        )

        def pick(key: str, default: Any = None) -> Any:
            return next((layer[key] for layer in layers if key in layer), default)

        chosen = resolution or pick(CONF_PREFERRED_RESOLUTION, DEFAULT_PREFERRED_RESOLUTION)
        try:
            max_size = float(pick(CONF_MAX_SIZE_GB) or 0)
        except (TypeError, ValueError):
            max_size = 0.0
        codec = str(pick(CONF_PREFERRED_CODEC) or NO_PREFERENCE).strip().lower()
        return RankingPreferences(
            resolution=normalize_resolution(str(chosen)) if chosen else None,
            max_size_bytes=int(max_size * 1e9) if max_size > 0 else None,
            codec=None if codec == NO_PREFERENCE else codec,
            languages=_languages(pick(CONF_PREFERRED_LANGUAGES)),
        )

    def whose_preferences(
        self, requester: Requester, whose: str | None = None, *, changing: bool
    ) -> str | None:
        """Return whose preferences a requester reads or changes (a person's key; None: the household's).

        `whose`: None for the requester's own (a person's, also through a satellite standing for them; else
        the household's), `HOUSEHOLD`, or a person's requester key. Anyone reads and changes their own; the
        household's are read by anyone and changed with the settings permission, as are another person's.
        """
        own = requester.person_key if requester.personal else None
        chosen = own if whose is None else None if whose == HOUSEHOLD else whose
        if chosen is not None and chosen == own:
            self.require(requester, Permission.OWN_PREFERENCES)
        elif chosen is None and not changing:
            self.require(requester, Permission.READ)
        else:
            self.require(requester, Permission.CHANGE_SETTINGS)
        return chosen

    def set_preferences(
        self,
        requester: Requester,
        *,
        whose: str | None = None,
        resolution: str | None = None,
        codec: str | None = None,
        max_size_gb: float | None = None,
        languages: str | None = None,
    ) -> dict[str, Any]:
        """Store lasting release preferences; return every preference now in force for whose they are.

        A person's are their own (anyone may set their own); a satellite's or an automation's are the
        household's (the settings permission). See `whose_preferences` for `whose`.
        """
        person_key = self.whose_preferences(requester, whose, changing=True)
        changes = _preference_changes(resolution, codec, max_size_gb, languages)
        household = self.memory.household
        try:
            check_storable(changes, max_text=100)
            for key, value in changes.items():
                if person_key is not None:
                    household.set_person_preference(person_key, key, value)
                else:
                    household.set_preference(key, value)
        except ValueError as err:  # unstorable, or too many
            raise OperationError(ErrorCode.BAD_ARGS, "unstorable_value", detail=str(err)) from err
        return describe_preferences(self.ranking_preferences(requester_key=person_key))

    def preferences(self, requester: Requester, whose: str | None = None) -> StoredPreferences:
        """Return someone's preferences (see `whose_preferences`): those they set, and those in force."""
        person_key = self.whose_preferences(requester, whose, changing=False)
        household = self.memory.household
        own = household.person_preferences(person_key) if person_key is not None else household.preferences()
        in_force = self.ranking_preferences(requester_key=person_key)
        return StoredPreferences(whose=person_key or HOUSEHOLD, own=own, in_force=in_force)

    async def async_set_folder(self, requester: Requester, folder_name: str, path: str) -> tuple[str, str]:
        """Check a folder name and path (file checks in the executor) and save them; return them as saved."""
        folder_name, path = await self.async_check_folder(requester, folder_name, path)
        try:
            self.memory.household.set_folder(folder_name, path)
        except UnstorableValueError as err:
            raise OperationError(ErrorCode.BAD_ARGS, "unstorable_value", detail=str(err)) from err
        except ValueError as err:
            raise OperationError(ErrorCode.NOT_ALLOWED, "too_many_folders", max=MAX_FOLDERS) from err
        return folder_name, path

    async def async_check_folder(self, requester: Requester, folder_name: str, path: str) -> tuple[str, str]:
        """Check a folder change without making it (a form checks every folder before saving any)."""
        self.require(requester, Permission.CHANGE_SETTINGS)
        folder_name = folder_name.strip().lower().replace(" ", "_").replace("-", "_")
        if not FOLDER_NAME.match(folder_name):
            raise OperationError(ErrorCode.BAD_ARGS, "invalid_folder_name", folder=folder_name)
        path = path.strip()
        try:
            check_storable(path, max_text=len(path))  # its length is the path check's to judge
        except UnstorableValueError as err:
            raise OperationError(ErrorCode.BAD_ARGS, "unstorable_value", detail=str(err)) from err
        if not PurePosixPath(path).is_absolute():
            raise OperationError(ErrorCode.INVALID_PATH, "path_not_absolute", path=path)
        return folder_name, await self.async_checked_path(path, folder_name)

    async def async_checked_path(self, path: str, folder_name: str = DOWNLOAD_FOLDER) -> str:
        """Return a usable absolute folder path (checked now, in the executor), or raise why not."""
        path, problem = await self.hass.async_add_executor_job(check_folder_path, self.hass, path)
        if problem is not None:
            code, key = problem
            raise OperationError(code, key, path=path, folder=folder_name)
        return path

    async def async_save_path(self, folder: str | None) -> str | None:
        """Return where a download goes: a configured folder (re-checked now), an absolute path, or None."""
        name = DOWNLOAD_FOLDER if folder is None else folder
        if (path := self.memory.household.folder(name)) is not None:
            return await self.async_checked_path(path, name)
        if folder is None:
            return None  # qBittorrent's default folder
        if PurePosixPath(folder).is_absolute():
            return await self.async_checked_path(folder)
        raise OperationError(ErrorCode.NOT_FOUND, "unknown_folder", folder=folder)

    async def async_list_folder(
        self, requester: Requester, folder_name: str, sub_path: str = ""
    ) -> tuple[str, list[dict[str, Any]], int]:
        """List a configured folder or a folder inside it; the listing never leaves it."""
        self.require(requester, Permission.READ)
        folder_name = folder_name.strip().lower()
        root = self.memory.household.folder(folder_name)
        if root is None:
            configured = ", ".join(sorted(self.memory.household.folders())) or "none"
            raise OperationError(
                ErrorCode.NOT_FOUND, "folder_not_configured", folder=folder_name, configured=configured
            )
        root = await self.async_checked_path(root, folder_name)
        sub_path = sub_path.strip()
        parts = PurePosixPath(sub_path).parts
        if "\x00" in sub_path or PurePosixPath(sub_path).is_absolute() or ".." in parts:
            raise OperationError(ErrorCode.NOT_ALLOWED, "path_outside_folder", path=sub_path)
        listing = await self.hass.async_add_executor_job(list_directory, root, sub_path)
        if isinstance(listing[0], ErrorCode):
            code, key = listing
            raise OperationError(code, str(key), path=sub_path or root)
        entries, total = listing
        return sub_path, entries, int(total)

    def clear_memory(self, requester: Requester, scope: str) -> None:
        """Forget part of the memory: the household's needs the permission; otherwise one's own state."""
        if scope not in CLEAR_SCOPES:
            raise OperationError(ErrorCode.BAD_ARGS, "unknown_scope", scope=scope)
        if scope in HOUSEHOLD_SCOPES:
            self.require(requester, Permission.CLEAR_HOUSEHOLD)
        may_clear_household = requester.may(
            Permission.CLEAR_HOUSEHOLD,
            allow_non_admin_settings=self.collaborators.options.allow_non_admin_settings,
        )
        # Trusted callers clear everyone's conversations and searches; others only their own.
        self.memory.clear(scope, requester_key=None if may_clear_household else requester.key)
