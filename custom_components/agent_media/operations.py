"""The operations every surface calls: search, add, folders, preferences, download control, memory.

Tools (agent/tools.py), actions (services.py), the OpenAI-compatible endpoint and other agents' LLM APIs (both
through the tools) only adapt these to their callers. Validation, permissions and error codes live here: an
operation either does all it was asked, or raises `OperationError` having changed nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
import math
import os
from pathlib import Path, PurePosixPath
import re
from typing import TYPE_CHECKING, Any, Final

from yarl import URL

from homeassistant.util import dt as dt_util

from .clients.bittorrent import build_magnet, info_hash_from_magnet, magnet_name, normalize_info_hash
from .clients.errors import AgentMediaClientError
from .const import (
    CODEC_CHOICES,
    CONF_ALLOW_NON_ADMIN_SETTINGS,
    CONF_MAX_SIZE_GB,
    CONF_PREFERRED_CODEC,
    CONF_PREFERRED_LANGUAGES,
    CONF_PREFERRED_RESOLUTION,
    DEFAULT_ALLOW_NON_ADMIN_SETTINGS,
    DEFAULT_PREFERRED_RESOLUTION,
    NO_PREFERENCE,
    RESOLUTION_CHOICES,
)
from .downloads import (
    SOURCE_CONVERSATION,
    SOURCE_SERVICE,
    DangerousTorrentError,
    async_add_download,
)
from .errors import ErrorCode, OperationError, from_client_error, from_failure
from .memory import (
    CLEAR_SCOPES,
    HOUSEHOLD_SCOPES,
    MAX_FOLDERS,
    MAX_FOLLOWED,
    MAX_PENDING_OPTIONS,
    MAX_SEARCH_RESULTS,
    MAX_WANTED,
    title_key,
)
from .ranking import (
    TITLE_SIMILARITY_THRESHOLD,
    RankedRelease,
    RankingPreferences,
    normalize_resolution,
    normalize_title,
    parse_release,
    rank_releases,
    title_similarity,
)
from .requester import Permission
from .torrents import is_ours
from .untrusted import MAX_PATH, MAX_PATH_COMPONENT, MAX_TITLE, UnstorableValueError, check_storable, clip

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from datetime import date

    from homeassistant.core import HomeAssistant

    from .clients.knaben import TorrentResult
    from .clients.qbittorrent import AddedTorrent
    from .clients.tmdb import MediaMatch, SeasonSummary
    from .data import AgentMediaConfigEntry
    from .links import ResultLinks
    from .memory import WantedTitle
    from .ranking import Rejection
    from .requester import Requester

DOWNLOAD_FOLDER: Final = "download"
FOLDER_NAME: Final = re.compile(r"^[a-z][a-z0-9_]{0,31}$")
MAX_LISTED_ENTRIES: Final = 50
MAX_QUERIES: Final = 3
CLOSE_SCORE_MARGIN: Final = 6.0  # fine-score points; about a 3x difference in seeders
DIFFERENT_SIZE_RATIO: Final = 1.5
_TITLE_PUNCTUATION = re.compile(r"[^\w\s&']+")
_CODEC_NAMES: Final = {"hevc": "x265", "avc": "x264"}
PERMISSION_DENIED: Final = "permission_denied"


def _is_http_url(link: str) -> bool:
    try:
        parsed = URL(link)
    except ValueError:
        return False
    return parsed.scheme in ("http", "https") and bool(parsed.host) and len(link) <= MAX_PATH


def strict_index(value: Any) -> int:
    """Return a 1-based index given as a whole number (2, 2.0 or "2"); refuse 2.7, True and the like."""
    if isinstance(value, bool):
        raise ValueError("an index is a whole number, not true or false")  # noqa: TRY004 - voluptuous wants ValueError
    if isinstance(value, int):
        number = value
    elif isinstance(value, float) and math.isfinite(value) and value.is_integer():
        number = int(value)
    elif isinstance(value, str) and value.strip().isdigit():
        number = int(value.strip())
    else:
        raise ValueError("an index is a whole number such as 1 or 2")
    if number < 1:
        raise ValueError("an index starts at 1")
    return number


def human_size(size: Any) -> str:
    """Return a byte count as a short spoken size ("8.8 GB")."""
    if not isinstance(size, int | float) or isinstance(size, bool) or size <= 0:
        return "unknown size"
    for unit, factor in (("TB", 1e12), ("GB", 1e9), ("MB", 1e6)):
        if size >= factor:
            return f"{size / factor:.1f} {unit}"
    return f"{size / 1e3:.0f} kB"


@dataclass(frozen=True, slots=True)
class TorrentSearch:
    """A search as kept in the requester's working state: results numbered from 1, best first."""

    query: str
    results: Sequence[Mapping[str, Any]]
    rejected: int
    media: Mapping[str, Any] | None
    unavailable: str | None = None  # sources that failed, in a few words ("Jackett: timed out")


@dataclass(frozen=True, slots=True)
class AddedDownload:
    """A download that was added: what qBittorrent has, where it goes, and whether its files were checked."""

    info_hash: str
    name: str
    save_path: str | None
    safety: str | None
    media: Mapping[str, Any] | None


# Why async_acquire added nothing (stable: callers and the wanted list keep them).
NO_RELEASE_NOT_FOUND: Final = "not_found"  # no source found anything
NO_RELEASE_NO_ACCEPTABLE: Final = "no_acceptable"  # every release rejected: CAM/trash, too large, wrong title
NO_RELEASE_BLOCKED: Final = "blocked"  # only releases blocklisted for this title were left


@dataclass(frozen=True, slots=True)
class NoRelease:
    """async_acquire found nothing acceptable to add: why (one of NO_RELEASE_*), and what it searched."""

    reason: str
    query: str


@dataclass(frozen=True, slots=True)
class Wanted:
    """async_want's outcome: added at once (`added`), or kept on the wanted list (`record`)."""

    label: str
    media: dict[str, Any]
    added: AddedDownload | None = None
    record: Mapping[str, Any] | None = None


def current_season(seasons: list[SeasonSummary], today: date) -> int:
    """Return the season airing now: the last one that began airing, else the first announced, else 1."""
    begun = [season.number for season in seasons if season.air_date is not None and season.air_date <= today]
    if begun:
        return begun[-1]
    return seasons[0].number if seasons else 1


def _named(words: str, media_by_key: Mapping[str, Mapping[str, Any]]) -> list[str]:
    """Return the keys a person's words name: the key itself, or every title holding all the words."""
    if words in media_by_key:
        return [words]
    wanted = set(normalize_title(words).split())
    return [
        key
        for key, media in media_by_key.items()
        if wanted and wanted <= set(normalize_title(str(media.get("title", ""))).split())
    ]


@dataclass(frozen=True, slots=True)
class MediaQuestion:
    """download_media could not pick: the question and its numbered options (kept as the pending question)."""

    question: str
    media: dict[str, Any]
    options: Sequence[Mapping[str, Any]]
    unavailable: str | None = None


@dataclass(frozen=True, slots=True)
class MediaDownload:
    """download_media picked and added the best release."""

    media: dict[str, Any]
    release: Mapping[str, Any]
    why: str
    other_candidates: int
    added: AddedDownload
    unavailable: str | None = None


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


def media_label(media: Mapping[str, Any], season: int | None = None, episode: int | None = None) -> str:
    """Return how a film or show is named to people: "Sintel (2010)", "… S01E02", "… season 1"."""
    label = f"{media['title']} ({media['year']})" if media.get("year") else str(media["title"])
    if season is not None and episode is not None:
        return f"{label} S{season:02d}E{episode:02d}"
    if season is not None:
        return f"{label} season {season}"
    return f"{label} episode {episode}" if episode is not None else label


def _rankable(found: list[TorrentResult]) -> list[dict[str, Any]]:
    return [result.as_dict() | {"download_link": result.download_link} for result in found]


def _numbered(ranked: list[RankedRelease], links: ResultLinks) -> list[dict[str, Any]]:
    """Return the results to keep: each link left in RAM (`links`), the result holding only its id."""
    return [
        {
            "title": release.result["title"],
            "size": release.result["size"],
            "seeders": release.result["seeders"],
            "peers": release.result["peers"],
            "info_hash": release.result["info_hash"],
            "link_id": _kept_link_id(release.result["download_link"], links),
            "tracker": release.result["tracker"],
            "source": release.result.get("source"),
            "reason": release.reason,
        }
        for release in ranked[:MAX_SEARCH_RESULTS]
    ]


def _kept_link_id(link: str | None, links: ResultLinks) -> str | None:
    """Keep a result's usable link in RAM and return its id; None for none (never echoed in an error)."""
    if not link:
        return None
    try:
        return links.remember(_checked_link(link))
    except OperationError:
        return None


def _checked_link(link: str) -> str:
    """Return a magnet or http(s) link to a .torrent, stripped; raise bad_args for anything else."""
    link = link.strip()
    if link.lower().startswith("magnet:"):
        if info_hash_from_magnet(link) is None:
            raise OperationError(ErrorCode.BAD_ARGS, "invalid_magnet", magnet=link)
    elif not _is_http_url(link):
        raise OperationError(ErrorCode.BAD_ARGS, "invalid_url", url=link)
    return link


def _none_usable(found: int, query: str, rejected: list[Any]) -> OperationError:
    reasons = "; ".join(sorted({rejection.reason for rejection in rejected})[:3])
    return OperationError(ErrorCode.NOT_FOUND, "none_usable", found=found, query=query, reasons=reasons)


def _close(first: RankedRelease, second: RankedRelease) -> bool:
    """Scores within a few points, yet releases that differ in a way people care about."""
    if first.score - second.score >= CLOSE_SCORE_MARGIN:
        return False
    a, b = first.parsed, second.parsed
    if (a.source, a.codec, a.hdr, a.languages) != (b.source, b.codec, b.hdr, b.languages):
        return True
    sizes = sorted(max(int(release.result.get("size") or 0), 1) for release in (first, second))
    return sizes[1] / sizes[0] >= DIFFERENT_SIZE_RATIO


def _question(
    ranked: list[RankedRelease], *, label: str, asked: str | None, season: int | None, episode: int | None
) -> str | None:
    """Return what to ask when the best release is not clearly what was wanted, else None."""
    best = ranked[0].parsed
    if asked and best.resolution != asked:
        return f"There is no good {asked} release of {label}. Which of these would you like instead?"
    if episode is not None and not best.episodes:
        return f"There is no release of {label} alone, only packs that hold it. Should I download one?"
    if season is not None and episode is None and (best.episodes or len(best.seasons) != 1):
        return f"There is no pack of {label} alone. Which of these would you like?"
    if len(ranked) > 1 and _close(ranked[0], ranked[1]):
        return f"Two releases of {label} are about as good. Which one would you like?"
    return None


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


class MediaOperations:
    """The operations of one loaded entry, for one requester at a time (passed to each call)."""

    def __init__(self, hass: HomeAssistant, entry: AgentMediaConfigEntry) -> None:
        """Bind to the entry's clients and memory."""
        self.hass = hass
        self.entry = entry
        self.data = entry.runtime_data
        self.memory = entry.runtime_data.memory

    # --- permissions ---------------------------------------------------------------------------------------

    def require(self, requester: Requester, permission: Permission) -> None:
        """Raise not_allowed unless the policy lets the requester do this."""
        allow = bool(self.entry.options.get(CONF_ALLOW_NON_ADMIN_SETTINGS, DEFAULT_ALLOW_NON_ADMIN_SETTINGS))
        if not requester.may(permission, allow_non_admin_settings=allow):
            raise OperationError(ErrorCode.NOT_ALLOWED, PERMISSION_DENIED, permission=permission.value)

    # --- preferences ---------------------------------------------------------------------------------------

    def ranking_preferences(self, *, resolution: str | None = None) -> RankingPreferences:
        """Return the release preferences: the household's (set by voice) over the entry's options.

        `resolution` (asked for in this request) overrides both. "any" (or a size of 0) means no preference.
        """
        stored = self.memory.household.preferences()

        def pick(key: str, default: Any = None) -> Any:
            return stored[key] if key in stored else self.entry.options.get(key, default)

        wanted = resolution or pick(CONF_PREFERRED_RESOLUTION, DEFAULT_PREFERRED_RESOLUTION)
        try:
            max_size = float(pick(CONF_MAX_SIZE_GB) or 0)
        except (TypeError, ValueError):
            max_size = 0.0
        codec = str(pick(CONF_PREFERRED_CODEC) or NO_PREFERENCE).strip().lower()
        return RankingPreferences(
            resolution=normalize_resolution(str(wanted)) if wanted else None,
            max_size_bytes=int(max_size * 1e9) if max_size > 0 else None,
            codec=None if codec == NO_PREFERENCE else codec,
            languages=_languages(pick(CONF_PREFERRED_LANGUAGES)),
        )

    def set_preferences(
        self,
        requester: Requester,
        *,
        resolution: str | None = None,
        codec: str | None = None,
        max_size_gb: float | None = None,
        languages: str | None = None,
    ) -> dict[str, Any]:
        """Store the household's lasting release preferences; return every preference now in force."""
        self.require(requester, Permission.CHANGE_SETTINGS)
        changes = _preference_changes(resolution, codec, max_size_gb, languages)
        try:
            check_storable(changes, max_text=100)
            for key, value in changes.items():
                self.memory.household.set_preference(key, value)
        except UnstorableValueError as err:
            raise OperationError(ErrorCode.BAD_ARGS, "unstorable_value", detail=str(err)) from err
        return describe_preferences(self.ranking_preferences())

    # --- folders -------------------------------------------------------------------------------------------

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

    # --- searching -----------------------------------------------------------------------------------------

    async def async_identify(
        self,
        requester: Requester,
        title: str,
        *,
        year: int | None = None,
        media_type: str | None = None,
        language: str | None = None,
        conversation_id: str | None = None,
    ) -> dict[str, Any]:
        """Identify a film or show on TMDB (its title in the person's language) and remember it."""
        match = await self._async_match(title, year=year, media_type=media_type, language=language)
        media = match.as_dict()
        self.memory.conversations.set_media(conversation_id, requester.key, media)
        return media

    async def _async_match(
        self, title: str, *, year: int | None, media_type: str | None, language: str | None = None
    ) -> MediaMatch:
        title = title.strip()
        try:
            match = await self.data.tmdb.async_identify(
                title, year=year, media_type=media_type, language=language
            )
        except AgentMediaClientError as err:
            raise from_client_error(err) from err
        if match is None:
            raise OperationError(ErrorCode.NOT_FOUND, "media_not_found", title=title)
        return match

    async def _async_media_of_release(self, name: str) -> dict[str, Any] | None:
        """Return the film or show a release is of, when TMDB knows its title (and year); else None.

        So a download added from a search by name, or by a magnet, is named after its film, with its poster.
        """
        parsed = parse_release(name)
        if not parsed.title:
            return None
        media_type = "tv" if parsed.seasons else "movie"
        try:
            match = await self._async_match(parsed.title, year=parsed.year, media_type=media_type)
        except OperationError:
            return None  # unknown, or TMDB unreachable: the download keeps its release name
        similarity = max(
            title_similarity(parsed.title, title) for title in (match.title, match.original_title)
        )
        return match.as_dict() if similarity >= TITLE_SIMILARITY_THRESHOLD else None

    async def async_search(
        self,
        requester: Requester,
        query: str,
        *,
        media_type: str | None = None,
        conversation_id: str | None = None,
    ) -> TorrentSearch:
        """Search, rank and keep the releases as the requester's last search.

        The media looked up last in the conversation guides the ranking, and becomes the search's media
        identity, only when the query names it. Nothing usable found: not_found, and the last search stays.
        """
        query = clip(" ".join(query.split()), MAX_TITLE)
        if not query:
            raise OperationError(ErrorCode.BAD_ARGS, "query_missing")
        media: Mapping[str, Any] | None = self.memory.conversations.media(conversation_id)
        if media and normalize_title(str(media["title"])) not in normalize_title(query):
            media = None  # the media looked up earlier is not what is searched now
        media_type = media_type or (media or {}).get("media_type")
        parsed_query = parse_release(query)
        found, unavailable = await self._async_find(
            query, media_type=media_type, imdb_id=(media or {}).get("imdb_id")
        )
        if not found:
            raise OperationError(ErrorCode.NOT_FOUND, "no_torrents_found", query=query)
        # Reading a hundred release names takes tens of milliseconds: off the event loop.
        ranked, rejected = await self.hass.async_add_executor_job(
            partial(
                rank_releases,
                _rankable(found),
                title=(media or {}).get("title"),
                year=(media or {}).get("year"),
                media_type=media_type or ("tv" if parsed_query.seasons else "movie"),
                season=parsed_query.seasons[0] if parsed_query.seasons else None,
                episode=parsed_query.episodes[0] if parsed_query.episodes else None,
                preferences=self.ranking_preferences(resolution=parsed_query.resolution),
            )
        )
        if not ranked:
            raise _none_usable(len(found), query, rejected)
        results = self.memory.working.store_search(
            requester.key, query, _numbered(ranked, self.data.links), media, conversation_id
        )
        return TorrentSearch(
            query=query, results=results, rejected=len(rejected), media=media, unavailable=unavailable
        )

    async def _async_find(
        self,
        query: str,
        *,
        media_type: str | None,
        imdb_id: str | None = None,
        season: int | None = None,
        episode: int | None = None,
        fresh: bool = False,
    ) -> tuple[list[TorrentResult], str | None]:
        """Search every source at once; return what was found and which sources failed (None: none did).

        Only when every source failed is it an error: the person hears why.
        """
        outcome = await self.data.sources.async_search(
            query, media_type=media_type, imdb_id=imdb_id, season=season, episode=episode, fresh=fresh
        )
        if not outcome.results and outcome.failures and len(outcome.failures) == len(outcome.sources):
            first = outcome.failures[0]
            services = ", ".join(failure.source for failure in outcome.failures)
            raise from_failure(services, first.code, outcome.failure_summary or first.detail)
        return outcome.results, outcome.failure_summary

    def search_result(
        self, requester: Requester, index: int, conversation_id: str | None = None
    ) -> dict[str, Any]:
        """Return result `index` (from 1) of the search a number means in this conversation."""
        search = self.memory.working.search(requester.key, conversation_id)
        results = search["results"] if search else []
        if not results:
            raise OperationError(ErrorCode.NOT_FOUND, "no_search_results")
        if index > len(results):
            raise OperationError(ErrorCode.NOT_FOUND, "unknown_index", index=index, count=len(results))
        return dict(results[index - 1])

    # --- adding --------------------------------------------------------------------------------------------

    async def async_add_result(
        self,
        requester: Requester,
        index: int,
        *,
        source: str = SOURCE_CONVERSATION,
        folder: str | None = None,
        conversation_id: str | None = None,
    ) -> AddedDownload:
        """Add result `index` of the pending question (if any) or search a number means in this conversation.

        That is the conversation's own list if it has one, else the requester's latest. The media identity
        is the one the question or search was for: the result actually added decides what the completion
        event, the news and the library folder say.
        """
        self.require(requester, Permission.ADD)
        working = self.memory.working
        question: Mapping[str, Any] | None = working.question(requester.key, conversation_id)
        if question is not None and index <= len(question["options"]):
            result, media = question["options"][index - 1], question.get("media")
        else:
            result = self.search_result(requester, index, conversation_id)
            search: Mapping[str, Any] = working.search(requester.key, conversation_id) or {}
            media = search.get("media")
        link = self._result_link(result, index)
        media = media or await self._async_media_of_release(str(result.get("title", "")))
        added = await self.async_add_link(
            requester, link, folder=folder, source=source, media=media, conversation_id=conversation_id
        )
        working.clear_question(requester.key, conversation_id)
        return added

    def _result_link(self, result: Mapping[str, Any], index: int) -> str:
        """Return the link a kept result is added by: from RAM, else a magnet of its info hash."""
        if link := self.data.links.get(result.get("link_id")):
            return link
        if info_hash := result.get("info_hash"):
            return build_magnet(str(info_hash), str(result.get("title") or "") or None)
        raise OperationError(ErrorCode.NOT_FOUND, "result_without_link", index=index)

    async def async_add_link(
        self,
        requester: Requester,
        link: str,
        *,
        folder: str | None = None,
        source: str = SOURCE_CONVERSATION,
        media: dict[str, Any] | None = None,
        conversation_id: str | None = None,
    ) -> AddedDownload:
        """Add a magnet or an http(s) link to a .torrent, after checking the link and the folder."""
        self.require(requester, Permission.ADD)
        link = _checked_link(link)
        if media is None and (name := magnet_name(link)):
            media = await self._async_media_of_release(name)
        return await self._async_add_checked(
            requester,
            link,
            save_path=await self.async_save_path(folder),
            source=source,
            media=media,
            conversation_id=conversation_id,
        )

    async def _async_add_checked(
        self,
        requester: Requester,
        link: str,
        *,
        save_path: str | None,
        source: str,
        media: dict[str, Any] | None,
        conversation_id: str | None,
    ) -> AddedDownload:
        """Add a checked link to a checked save path (None: qBittorrent's default folder)."""
        try:
            added = await async_add_download(
                self.hass,
                self.entry,
                url=link,
                save_path=save_path,
                source=source,
                media=media,
                requester_key=requester.key,
                conversation_id=conversation_id,
            )
        except DangerousTorrentError as err:
            error = OperationError(
                ErrorCode.DANGEROUS_FILES, "dangerous_files", name=err.name, files=", ".join(err.files[:5])
            )
            error.extra["dangerous_files"] = [clip(path, 120) for path in err.files[:10]]
            raise error from err
        except AgentMediaClientError as err:
            raise from_client_error(err) from err
        return self._added(added)

    def _added(self, added: AddedTorrent) -> AddedDownload:
        record: Mapping[str, Any] = self.memory.downloads.get(added.info_hash) or {}
        return AddedDownload(
            info_hash=added.info_hash,
            name=added.name,
            save_path=record.get("save_path"),
            safety=record.get("safety"),
            media=record.get("media"),
        )

    async def async_download_media(
        self,
        requester: Requester,
        title: str,
        *,
        year: int | None = None,
        media_type: str | None = None,
        quality: str | None = None,
        season: int | None = None,
        episode: int | None = None,
        language: str | None = None,
        conversation_id: str | None = None,
    ) -> MediaDownload | MediaQuestion:
        """Identify, search, rank; add the best release, or keep a question with numbered options."""
        self.require(requester, Permission.ADD)
        if media_type is None and (season is not None or episode is not None):
            media_type = "tv"
        match = await self._async_match(title, year=year, media_type=media_type, language=language)
        media = match.as_dict()
        self.memory.conversations.set_media(conversation_id, requester.key, media)
        if match.media_type != "tv":
            season = episode = None
        asked = normalize_resolution(quality) if quality else None
        searched = media | {"original_title": match.original_title}
        query, found, unavailable = await self._async_search_media(
            searched,
            season=season,
            episode=episode,
            spoken_in_english=(language or "en").startswith("en"),
        )
        label = media_label(media, season, episode)
        if not found:
            raise OperationError(ErrorCode.NOT_FOUND, "no_torrents_found", query=label)
        ranked, rejected = await self._async_rank_media(
            searched, found, season=season, episode=episode, resolution=asked
        )
        if not ranked:
            raise _none_usable(len(found), query, rejected)
        results = self.memory.working.store_search(
            requester.key, query, _numbered(ranked, self.data.links), media, conversation_id
        )
        if question := _question(ranked, label=label, asked=asked, season=season, episode=episode):
            options = results[:MAX_PENDING_OPTIONS]
            self.memory.working.set_question(requester.key, question, options, media, conversation_id)
            return MediaQuestion(question=question, media=media, options=options, unavailable=unavailable)
        added = await self.async_add_link(
            requester, self._result_link(results[0], 1), media=media, conversation_id=conversation_id
        )
        self.memory.working.clear_question(requester.key, conversation_id)
        return MediaDownload(
            media=media,
            release=results[0],
            why=ranked[0].reason,
            other_candidates=len(ranked) - 1,
            added=added,
            unavailable=unavailable,
        )

    async def _async_rank_media(
        self,
        media: Mapping[str, Any],
        found: list[TorrentResult],
        *,
        season: int | None,
        episode: int | None,
        resolution: str | None = None,
    ) -> tuple[list[RankedRelease], list[Rejection]]:
        """Rank the releases found for a known film or show, off the event loop (tens of ms a hundred)."""
        return await self.hass.async_add_executor_job(
            partial(
                rank_releases,
                _rankable(found),
                title=media.get("title"),
                year=media.get("year"),
                media_type=media.get("media_type") or "movie",
                season=season,
                episode=episode,
                preferences=self.ranking_preferences(resolution=resolution),
                alternative_titles=tuple(filter(None, (media.get("original_title"),))),
            )
        )

    async def _async_search_media(
        self,
        media: Mapping[str, Any],
        *,
        season: int | None,
        episode: int | None,
        spoken_in_english: bool = True,
        fresh: bool = False,
    ) -> tuple[str, list[TorrentResult], str | None]:
        """Search a title with its year (films), then without, then the other title; first hits win.

        Releases carry the English or the original title: a title TMDB gave in another language is for
        speaking, so the original comes first then.
        """
        title, original = str(media["title"]), media.get("original_title")
        names = (title, original) if spoken_in_english else (original, title)
        media_type, year = media.get("media_type"), media.get("year")
        queries: list[str] = []
        for name in dict.fromkeys(name for name in names if name):
            clean = " ".join(_TITLE_PUNCTUATION.sub(" ", name).split())
            # Films carry their year in release names; shows mostly do not.
            if media_type == "movie" and year:
                queries.append(f"{clean} {year}")
            queries.append(clean)
        found: list[TorrentResult] = []
        unavailable: str | None = None
        for query in list(dict.fromkeys(queries))[:MAX_QUERIES]:
            found, unavailable = await self._async_find(
                query,
                media_type=media_type,
                imdb_id=media.get("imdb_id"),
                season=season,
                episode=episode,
                fresh=fresh,
            )
            if found:
                return query, found, unavailable
        return queries[0], found, unavailable

    # --- acquiring without asking (the wanted list, followed shows, replacements) ---------------------------

    async def async_acquire(
        self,
        requester: Requester,
        media: dict[str, Any],
        *,
        season: int | None = None,
        episode: int | None = None,
        save_path: str | None = None,
        source: str = SOURCE_SERVICE,
        conversation_id: str | None = None,
    ) -> AddedDownload | NoRelease:
        """Search a known title and add its best acceptable release, asking nothing.

        Releases blocklisted for the title are passed over. `save_path` was checked by the caller (None:
        qBittorrent's default folder). Nothing acceptable: `NoRelease`; a service down: OperationError.
        The sources are asked afresh, not from their short cache: this runs when the answer may have changed.
        """
        self.require(requester, Permission.ADD)
        if media.get("media_type") != "tv":
            season = episode = None
        query, found, _unavailable = await self._async_search_media(
            media, season=season, episode=episode, fresh=True
        )
        if not found:
            return NoRelease(reason=NO_RELEASE_NOT_FOUND, query=query)
        ranked, _rejected = await self._async_rank_media(media, found, season=season, episode=episode)
        if not ranked:
            return NoRelease(reason=NO_RELEASE_NO_ACCEPTABLE, query=query)
        key = title_key(media, season, episode)
        blocked = self.memory.wanted.is_blocked
        for release in ranked:
            result = release.result
            if blocked(key, result.get("info_hash"), str(result.get("title") or "")):
                continue
            try:
                link = _checked_link(str(result.get("download_link") or ""))
            except OperationError:
                continue  # a release without a usable link is no candidate
            return await self._async_add_checked(
                requester,
                link,
                save_path=save_path,
                source=source,
                media=media,
                conversation_id=conversation_id,
            )
        return NoRelease(reason=NO_RELEASE_BLOCKED, query=query)

    def add_wanted(
        self,
        requester: Requester,
        media: dict[str, Any],
        *,
        season: int | None = None,
        episode: int | None = None,
        save_path: str | None = None,
        reason: str,
    ) -> WantedTitle:
        """Put a title on the wanted list (once per title); return the stored record."""
        self.require(requester, Permission.ADD)
        if media.get("media_type") != "tv":
            season = episode = None
        try:
            return self.memory.wanted.want(
                title_key(media, season, episode),
                media,
                season=season,
                episode=episode,
                save_path=save_path,
                reason=reason,
                requester_key=requester.key,
            )
        except ValueError as err:
            raise OperationError(ErrorCode.NOT_ALLOWED, "too_many_wanted", max=MAX_WANTED) from err

    # --- the wanted list and followed shows ----------------------------------------------------------------

    async def async_want(
        self,
        requester: Requester,
        title: str,
        *,
        year: int | None = None,
        media_type: str | None = None,
        season: int | None = None,
        episode: int | None = None,
        folder: str | None = None,
        language: str | None = None,
        source: str = SOURCE_CONVERSATION,
    ) -> Wanted:
        """Identify a title and add it now when an acceptable release exists, else keep it as wanted."""
        self.require(requester, Permission.ADD)
        if media_type is None and (season is not None or episode is not None):
            media_type = "tv"
        match = await self._async_match(title, year=year, media_type=media_type, language=language)
        media = match.as_dict() | {"original_title": match.original_title}
        if match.media_type != "tv":
            season = episode = None
        save_path = await self.async_save_path(folder)
        outcome = await self.async_acquire(
            requester, media, season=season, episode=episode, save_path=save_path, source=source
        )
        label = media_label(media, season, episode)
        if isinstance(outcome, AddedDownload):
            return Wanted(label=label, media=media, added=outcome)
        record = self.add_wanted(
            requester, media, season=season, episode=episode, save_path=save_path, reason=outcome.reason
        )
        return Wanted(label=label, media=media, record=record)

    def list_wanted(self, requester: Requester) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """Return the wanted titles and the followed shows, each described for people and automations."""
        self.require(requester, Permission.READ)
        wanted = self.memory.wanted
        titles = [
            {
                "key": key,
                "title": media_label(record["media"], record.get("season"), record.get("episode")),
                "media_type": record["media"].get("media_type"),
                "reason": record["reason"],
                "searches": record["attempts"],
                "next_check": record["next_check"],
            }
            for key, record in wanted.titles().items()
        ]
        shows = [
            {
                "key": key,
                "title": media_label(record["media"]),
                "from_season": record.get("from_season"),
                "downloaded": len(record["fetched"]),
                "next_check": record["next_check"],
            }
            for key, record in wanted.shows().items()
        ]
        return titles, shows

    def forget_wanted(self, requester: Requester, title: str) -> list[str]:
        """Take off the list every wanted title its key or all its words name; return their names."""
        self.require(requester, Permission.ADD)
        wanted = self.memory.wanted
        keys = _named(title, {key: record["media"] for key, record in wanted.titles().items()})
        if not keys:
            raise OperationError(ErrorCode.NOT_FOUND, "not_wanted", title=title)
        return [
            media_label(record["media"], record.get("season"), record.get("episode"))
            for key in keys
            if (record := wanted.unwant(key)) is not None
        ]

    async def async_follow_show(
        self,
        requester: Requester,
        title: str,
        *,
        year: int | None = None,
        season: int | None = None,
        folder: str | None = None,
        language: str | None = None,
    ) -> tuple[dict[str, Any], int]:
        """Follow a show from a season (the one airing now unless named); return the show and that season.

        Its aired episodes not downloaded yet are then searched in the background (wanted.py).
        """
        self.require(requester, Permission.ADD)
        match = await self._async_match(title, year=year, media_type="tv", language=language)
        media = match.as_dict() | {"original_title": match.original_title}
        save_path = await self.async_save_path(folder)
        if season is None:
            try:
                seasons = await self.data.tmdb.async_seasons(match.tmdb_id)
            except AgentMediaClientError as err:
                raise from_client_error(err) from err
            season = current_season(seasons, dt_util.utcnow().date())
        try:
            self.memory.wanted.follow(
                title_key(media), media, from_season=season, save_path=save_path, requester_key=requester.key
            )
        except ValueError as err:
            raise OperationError(ErrorCode.NOT_ALLOWED, "too_many_followed", max=MAX_FOLLOWED) from err
        self.data.wanted.request_check()
        return media, season

    def unfollow_show(self, requester: Requester, title: str) -> list[str]:
        """Stop following every show its key or all its words name; return their names."""
        self.require(requester, Permission.ADD)
        wanted = self.memory.wanted
        keys = _named(title, {key: record["media"] for key, record in wanted.shows().items()})
        if not keys:
            raise OperationError(ErrorCode.NOT_FOUND, "not_following", title=title)
        return [media_label(record["media"]) for key in keys if (record := wanted.unfollow(key)) is not None]

    async def async_check_wanted(self, requester: Requester) -> list[str]:
        """Search every wanted title and followed show now; return the names of what was added."""
        self.require(requester, Permission.ADD)
        self.memory.wanted.check_all_now()
        return await self.data.wanted.async_check()

    # --- downloads in qBittorrent --------------------------------------------------------------------------

    async def async_list_downloads(self, requester: Requester) -> list[dict[str, Any]]:
        """Return qBittorrent's torrents, newest first, as raw dicts (the caller describes them)."""
        self.require(requester, Permission.READ)
        try:
            torrents = await self.data.qbittorrent.async_torrents()
        except AgentMediaClientError as err:
            raise from_client_error(err) from err
        torrents.sort(key=lambda torrent: torrent.get("added_on") or 0, reverse=True)
        return torrents

    async def _async_torrent(self, value: str) -> tuple[str, dict[str, Any]]:
        info_hash = normalize_info_hash(value)
        if info_hash is None:
            raise OperationError(ErrorCode.BAD_ARGS, "invalid_hash", hash=value)
        try:
            present = await self.data.qbittorrent.async_torrents([info_hash])
        except AgentMediaClientError as err:
            raise from_client_error(err) from err
        if not present:
            raise OperationError(ErrorCode.NOT_FOUND, "unknown_torrent", hash=info_hash)
        return info_hash, present[0]

    def is_ours(self, info_hash: str, torrent: Mapping[str, Any]) -> bool:
        """Return whether Agent Media added this torrent (`downloads.is_ours`)."""
        return is_ours(torrent, self.memory.downloads.get(info_hash))

    async def async_control(
        self, requester: Requester, action: str, value: str, *, delete_files: bool = False
    ) -> str:
        """Pause, resume or remove a torrent; others' torrents and deleting files need the permission."""
        self.require(requester, Permission.ADD)
        info_hash, torrent = await self._async_torrent(value)
        if not self.is_ours(info_hash, torrent):
            self.require(requester, Permission.REMOVE_FOREIGN)
        if delete_files:
            self.require(requester, Permission.DELETE_FILES)
        qbittorrent = self.data.qbittorrent
        try:
            if action == "pause":
                await qbittorrent.async_pause([info_hash])
            elif action == "resume":
                await qbittorrent.async_resume([info_hash])
            else:
                await qbittorrent.async_remove([info_hash], delete_files=delete_files)
        except AgentMediaClientError as err:
            raise from_client_error(err) from err
        if action == "remove":
            self.memory.downloads.pop(info_hash)
        return info_hash

    # --- memory --------------------------------------------------------------------------------------------

    def clear_memory(self, requester: Requester, scope: str) -> None:
        """Forget part of the memory: the household's needs the permission; otherwise one's own state."""
        if scope not in CLEAR_SCOPES:
            raise OperationError(ErrorCode.BAD_ARGS, "unknown_scope", scope=scope)
        allow = bool(self.entry.options.get(CONF_ALLOW_NON_ADMIN_SETTINGS, DEFAULT_ALLOW_NON_ADMIN_SETTINGS))
        may_clear_household = requester.may(Permission.CLEAR_HOUSEHOLD, allow_non_admin_settings=allow)
        if scope in HOUSEHOLD_SCOPES and not may_clear_household:
            raise OperationError(
                ErrorCode.NOT_ALLOWED, PERMISSION_DENIED, permission=Permission.CLEAR_HOUSEHOLD.value
            )
        # Trusted callers clear everyone's conversations and searches; others only their own.
        self.memory.clear(scope, requester_key=None if may_clear_household else requester.key)
