"""The tools the model can call, their registry, and the one place tool calls are validated and run.

Every result is a JSON object: `{"status": "ok", ...}` or `{"status": "error", "error": <code>,
"message": ...}`. A tool never raises: unknown tools, bad arguments, refused permissions and failing services
all come back to the model as error results it can explain.
"""

from __future__ import annotations

from abc import abstractmethod
from dataclasses import dataclass
import os
from pathlib import Path, PurePosixPath
import re
from typing import TYPE_CHECKING, Any, ClassVar, Final

import voluptuous as vol

from custom_components.agent_media import compat
from custom_components.agent_media.clients.errors import (
    AgentMediaClientError,
    InvalidAuthError,
    InvalidResponseError,
    RateLimitedError,
    RequestRejectedError,
)
from custom_components.agent_media.const import (
    CONF_ALLOW_NON_ADMIN_SETTINGS,
    CONF_PREFERRED_RESOLUTION,
    DEFAULT_ALLOW_NON_ADMIN_SETTINGS,
    DEFAULT_PREFERRED_RESOLUTION,
    DOMAIN,
    LOGGER,
)
from custom_components.agent_media.downloads import SOURCE_CONVERSATION, async_add_download
from custom_components.agent_media.memory import MAX_SEARCH_RESULTS
from custom_components.agent_media.ranking import (
    RankingPreferences,
    normalize_title,
    parse_release,
    rank_releases,
)
from homeassistant.components.conversation import (
    ConversationTraceEventType,
    async_conversation_trace_append,
)
from homeassistant.helpers import llm

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

    from custom_components.agent_media.clients.qbittorrent import AddedTorrent
    from custom_components.agent_media.data import AgentMediaConfigEntry
    from homeassistant.core import HomeAssistant

# Error codes (contract: DESIGN.md).
NOT_FOUND: Final = "not_found"
BAD_ARGS: Final = "bad_args"
UNKNOWN_TOOL: Final = "unknown_tool"
PATH_NOT_FOUND: Final = "path_not_found"
NOT_A_DIRECTORY: Final = "not_a_directory"
NOT_READABLE: Final = "not_readable"
INVALID_PATH: Final = "invalid_path"
NOT_ALLOWED: Final = "not_allowed"
CANNOT_CONNECT: Final = "cannot_connect"
RATE_LIMITED: Final = "rate_limited"
INVALID_AUTH: Final = "invalid_auth"
BAD_RESPONSE: Final = "bad_response"
REJECTED: Final = "rejected"
INTERNAL_ERROR: Final = "internal_error"

# Set by the stream parser when a native call's arguments were not JSON, so validation reports it.
INVALID_JSON_ARGUMENTS: Final = "__invalid_json_arguments__"

MEDIA_ENTITY: Final = "media"
RESULTS_SHOWN: Final = 10  # results returned to the model per search; all (≤ 50) stay in memory
MAX_LISTED_ENTRIES: Final = 50
MAX_TEXT: Final = 200
FOLDER_NAME = re.compile(r"^[a-z][a-z0-9_]{0,31}$")
_RESOLUTION_IN_QUERY = re.compile(r"(?<![a-z0-9])(2160p|1080p|720p|480p|4k|uhd)(?![a-z0-9])", re.IGNORECASE)


def ok(**fields: Any) -> dict[str, Any]:
    """Return a successful tool result."""
    return {"status": "ok", **fields}


def error(code: str, message: str, **fields: Any) -> dict[str, Any]:
    """Return a failed tool result the model can explain."""
    return {"status": "error", "error": code, "message": message, **fields}


class ToolError(Exception):
    """Raised inside a tool to return an error result."""

    def __init__(self, code: str, message: str) -> None:
        """Keep the result's error code and message."""
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolContext:
    """Who calls a tool, from which conversation."""

    hass: HomeAssistant
    entry: AgentMediaConfigEntry
    conversation_id: str | None
    user_id: str | None
    language: str | None = None


def human_size(size: Any) -> str:
    """Return a byte count as a short spoken size ("8.8 GB")."""
    if not isinstance(size, int | float) or size <= 0:
        return "unknown size"
    for unit, factor in (("TB", 1e12), ("GB", 1e9), ("MB", 1e6)):
        if size >= factor:
            return f"{size / factor:.1f} {unit}"
    return f"{size / 1e3:.0f} kB"


def normalize_tool_name(name: str) -> str:
    """Repair tool names as weak models write them (`functions.find_torrents`, `: find_torrents`, quotes)."""
    cleaned = name.strip().strip("\"'`:; ").rsplit(".", 1)[-1]
    return cleaned.removeprefix(f"{DOMAIN}__")


def _describe_invalid(err: vol.Invalid) -> str:
    errors = err.errors if isinstance(err, vol.MultipleInvalid) else [err]
    parts = []
    for item in errors:
        where = ".".join(str(step) for step in item.path)
        parts.append(f"{where}: {item.msg}" if where else item.msg)
    return "; ".join(parts)[:MAX_TEXT]


def client_error_result(err: AgentMediaClientError) -> dict[str, Any]:
    """Map a service failure to an error result."""
    if isinstance(err, InvalidAuthError):
        code = INVALID_AUTH
    elif isinstance(err, RateLimitedError):
        code = RATE_LIMITED
    elif isinstance(err, InvalidResponseError):
        code = BAD_RESPONSE
    elif isinstance(err, RequestRejectedError):
        code = REJECTED
    else:
        code = CANNOT_CONNECT
    return error(code, f"{err.service}: {err.detail}"[:MAX_TEXT], service=err.service)


class AgentMediaTool(llm.Tool):
    """A tool of the agent; also usable by other Home Assistant agents through an `llm.API`."""

    name: str
    description: str
    parameters: vol.Schema
    # Tools that change settings are refused to non-administrators unless the entry's option allows them.
    changes_settings: ClassVar[bool] = False
    integration = DOMAIN  # read by HA ≥ 2026.10; ignored before

    def __init__(self, entry: AgentMediaConfigEntry) -> None:
        """Bind the tool to its config entry."""
        self.entry = entry

    @abstractmethod
    async def async_run(self, args: dict[str, Any], context: ToolContext) -> dict[str, Any]:
        """Run with validated arguments; return a result or raise ToolError / a client error."""

    async def async_call(
        self, hass: HomeAssistant, tool_input: llm.ToolInput, llm_context: llm.LLMContext
    ) -> Any:
        """Run for another Home Assistant agent (HA's own tool interface)."""
        context = ToolContext(
            hass=hass,
            entry=self.entry,
            conversation_id=None,
            user_id=llm_context.context.user_id if llm_context.context else None,
            language=llm_context.language,
        )
        payload = await async_run_tool({self.name: self}, self.name, tool_input.tool_args, context)
        return compat.tool_result(payload, error=payload["status"] == "error")


async def async_may_change_settings(context: ToolContext) -> bool:
    """Return whether the conversation's user may change settings (administrators, or anyone if allowed)."""
    if context.entry.options.get(CONF_ALLOW_NON_ADMIN_SETTINGS, DEFAULT_ALLOW_NON_ADMIN_SETTINGS):
        return True
    if context.user_id is None:
        return False  # no known user (a satellite, an automation): not proven to be an administrator
    user = await context.hass.auth.async_get_user(context.user_id)
    return user is not None and user.is_admin


async def async_run_tool(
    tools: dict[str, AgentMediaTool], name: str, raw_args: Any, context: ToolContext
) -> dict[str, Any]:
    """Validate and run one tool call; never raises. Failures are remembered as recent errors."""
    tool_name = normalize_tool_name(name)
    result = await _async_run_checked(tools, tool_name, raw_args, context)
    if result["status"] == "error":
        context.entry.runtime_data.memory.add_error(
            tool_name or name[:40], result["error"], result["message"]
        )
    return result


async def _async_run_checked(  # noqa: PLR0911 - one early return per kind of refusal
    tools: dict[str, AgentMediaTool], name: str, raw_args: Any, context: ToolContext
) -> dict[str, Any]:
    tool = tools.get(name)
    if tool is None:
        return error(UNKNOWN_TOOL, f"There is no tool {name!r}.", tool=name, tools=sorted(tools))
    if isinstance(raw_args, dict) and INVALID_JSON_ARGUMENTS in raw_args:
        return error(BAD_ARGS, "The arguments must be a JSON object.")
    try:
        args: dict[str, Any] = tool.parameters(raw_args if raw_args is not None else {})
    except vol.Invalid as err:
        return error(BAD_ARGS, _describe_invalid(err))
    if tool.changes_settings and not await async_may_change_settings(context):
        return error(NOT_ALLOWED, "Only a Home Assistant administrator can change this setting.")
    try:
        return await tool.async_run(args, context)
    except ToolError as err:
        return error(err.code, err.message)
    except AgentMediaClientError as err:
        return client_error_result(err)
    except Exception:  # noqa: BLE001 - a tool must answer whatever happened; the model explains it
        LOGGER.exception("Tool %s failed", name)
        return error(INTERNAL_ERROR, "Something went wrong inside Agent Media.")


def trace_tool_call(name: str, args: Any) -> None:
    """Add the call to the conversation's debug trace, as Home Assistant's own API instances do."""
    async_conversation_trace_append(
        ConversationTraceEventType.TOOL_CALL, {"tool_name": name, "tool_args": args}
    )


# --- the six tools ------------------------------------------------------------------------------------------


def _last_media(memory_entity: dict[str, Any] | None) -> dict[str, Any] | None:
    return memory_entity if memory_entity and memory_entity.get("title") else None


class FindMediaImdbId(AgentMediaTool):
    """TMDB: identify a film or show."""

    name = "find_media_imdb_id"
    description = (
        "Identify a film or TV show on TMDB: returns its exact title, year, IMDb id and type. "
        "Use before searching torrents for something the user names."
    )
    parameters = vol.Schema(
        {
            vol.Required("media_title", description="Title as the user said it, e.g. 'Sintel'"): vol.All(
                str, vol.Length(min=1, max=MAX_TEXT)
            ),
            vol.Optional("year", description="Release year, if the user gave one"): vol.All(
                vol.Coerce(int), vol.Range(min=1870, max=2100)
            ),
            vol.Optional("media_type", description="movie or tv"): vol.In(["movie", "tv"]),
        }
    )

    async def async_run(self, args: dict[str, Any], context: ToolContext) -> dict[str, Any]:
        """Look the title up and remember it as the conversation's media."""
        title = args["media_title"].strip()
        match = await self.entry.runtime_data.tmdb.async_identify(
            title, year=args.get("year"), media_type=args.get("media_type")
        )
        if match is None:
            raise ToolError(NOT_FOUND, f"Nothing called {title!r} was found on TMDB.")
        media = match.as_dict()
        self.entry.runtime_data.memory.set_entity(context.conversation_id, MEDIA_ENTITY, media)
        return ok(**media)


class FindTorrents(AgentMediaTool):
    """Knaben: search releases, rank them, number them and remember them."""

    name = "find_torrents"
    description = (
        "Search torrents. The query is free text: title, year and quality, e.g. 'Sintel 2010 2160p'. "
        "Returns releases numbered from 1, best first; the numbers stay valid for later requests."
    )
    parameters = vol.Schema(
        {
            vol.Required("media_title", description="Search text: title, year, quality"): vol.All(
                str, vol.Length(min=1, max=MAX_TEXT)
            ),
        }
    )

    async def async_run(self, args: dict[str, Any], context: ToolContext) -> dict[str, Any]:
        """Search, rank, store and return the numbered list."""
        search = await async_search_torrents(
            self.entry, args["media_title"], conversation_id=context.conversation_id
        )
        return ok(
            query=search.query,
            total=len(search.results),
            rejected=search.rejected,
            torrents=[_spoken_result(result["index"], result) for result in search.results[:RESULTS_SHOWN]],
        )


@dataclass(frozen=True, slots=True)
class TorrentSearch:
    """A search as stored in memory: the results numbered from 1, best first."""

    query: str
    results: list[dict[str, Any]]
    rejected: int


async def async_search_torrents(
    entry: AgentMediaConfigEntry, query: str, *, conversation_id: str | None, media_type: str | None = None
) -> TorrentSearch:
    """Search Knaben, rank the releases and remember them (the agent's find_torrents, and the search action).

    The media looked up last in the conversation (find_media_imdb_id) guides the ranking when the query
    names it. Raises ToolError(not_found) when nothing usable is found (memory then keeps the last search).
    """
    query = " ".join(query.split())
    data = entry.runtime_data
    media = _last_media(data.memory.get_entity(conversation_id, MEDIA_ENTITY))
    if media and normalize_title(str(media["title"])) not in normalize_title(query):
        media = None  # the media looked up earlier is not what is searched now
    media_type = media_type or (media or {}).get("media_type")
    parsed_query = parse_release(query)
    found = await data.knaben.async_search(query, media_type=media_type)
    if not found:
        raise ToolError(NOT_FOUND, f"No torrents found for {query!r}.")
    ranked, rejected = rank_releases(
        [result.as_dict() | {"download_link": result.download_link} for result in found],
        title=(media or {}).get("title"),
        year=(media or {}).get("year"),
        media_type=media_type or ("tv" if parsed_query.seasons else "movie"),
        season=parsed_query.seasons[0] if parsed_query.seasons else None,
        episode=parsed_query.episodes[0] if parsed_query.episodes else None,
        preferences=RankingPreferences(resolution=_wanted_resolution(entry, query)),
    )
    if not ranked:
        reasons = "; ".join(sorted({rejection.reason for rejection in rejected})[:3])
        raise ToolError(NOT_FOUND, f"{len(found)} releases found for {query!r}, none usable: {reasons}.")
    results = [
        {
            "index": index,
            "title": release.result["title"],
            "size": release.result["size"],
            "seeders": release.result["seeders"],
            "peers": release.result["peers"],
            "info_hash": release.result["info_hash"],
            "download_link": release.result["download_link"],
            "tracker": release.result["tracker"],
            "reason": release.reason,
        }
        for index, release in enumerate(ranked[:MAX_SEARCH_RESULTS], 1)
    ]
    data.memory.store_search_results(conversation_id, query, results, media=media)
    return TorrentSearch(query=query, results=results, rejected=len(rejected))


def _wanted_resolution(entry: AgentMediaConfigEntry, query: str) -> str:
    if found := _RESOLUTION_IN_QUERY.search(query):
        return found.group(1).lower()
    preference = entry.runtime_data.memory.preferences().get(CONF_PREFERRED_RESOLUTION)
    return str(preference or entry.options.get(CONF_PREFERRED_RESOLUTION, DEFAULT_PREFERRED_RESOLUTION))


def _spoken_result(index: int, result: dict[str, Any]) -> dict[str, Any]:
    return {
        "index": index,
        "title": result["title"],
        "size": human_size(result.get("size")),
        "seeders": result.get("seeders"),
        "note": result.get("reason"),
    }


def _result_by_index(entry: AgentMediaConfigEntry, conversation_id: str | None, index: int) -> dict[str, Any]:
    results = entry.runtime_data.memory.search_results(conversation_id)
    if not results:
        raise ToolError(NOT_FOUND, "There are no search results yet: search for torrents first.")
    if index > len(results):
        count = len(results)
        raise ToolError(
            NOT_FOUND, f"There {'is only 1 result' if count == 1 else f'are only {count} results'}."
        )
    return results[index - 1]


_INDEX_SCHEMA: Final = vol.Schema(
    {
        vol.Required("index", description="Number of the result in the last search, from 1"): vol.All(
            vol.Coerce(int), vol.Range(min=1)
        ),
    }
)


class GetTorrentByIndex(AgentMediaTool):
    """A result of the last search, by its number."""

    name = "get_torrent_by_index"
    description = "Details of one result of the last torrent search, by its number (from 1)."
    parameters = _INDEX_SCHEMA

    async def async_run(self, args: dict[str, Any], context: ToolContext) -> dict[str, Any]:
        """Return the stored result."""
        result = _result_by_index(self.entry, context.conversation_id, args["index"])
        return ok(
            torrent={
                **_spoken_result(args["index"], result),
                "size_bytes": result.get("size"),
                "peers": result.get("peers"),
                "tracker": result.get("tracker"),
                "hash": result.get("info_hash"),
            }
        )


class AddTorrentByIndex(AgentMediaTool):
    """Add a result of the last search to qBittorrent."""

    name = "add_torrent_by_index"
    description = (
        "Download one result of the last torrent search, by its number (from 1): adds it to qBittorrent, "
        "in the configured download folder."
    )
    parameters = _INDEX_SCHEMA

    async def async_run(self, args: dict[str, Any], context: ToolContext) -> dict[str, Any]:
        """Add the release and record it as an active download with the media it is."""
        added = await async_add_search_result(
            context.hass, self.entry, args["index"], conversation_id=context.conversation_id
        )
        save_path = (
            self.entry.runtime_data.memory.active_downloads().get(added.info_hash, {}).get("save_path")
        )
        return ok(torrent_name=added.name, hash=added.info_hash, save_path=save_path)


async def async_add_search_result(
    hass: HomeAssistant,
    entry: AgentMediaConfigEntry,
    index: int,
    *,
    conversation_id: str | None,
    source: str = SOURCE_CONVERSATION,
    folder: str | None = None,
) -> AddedTorrent:
    """Add result `index` (from 1) of the conversation's (else the latest) search to qBittorrent.

    Records the media looked up last in that conversation, else the one the search was for. Raises
    ToolError(not_found) for a missing result or link, and what `async_add_download` raises.
    """
    result = _result_by_index(entry, conversation_id, index)
    link = result.get("download_link")
    if not link:
        raise ToolError(NOT_FOUND, "That result has no magnet link nor torrent file.")
    memory = entry.runtime_data.memory
    media = _last_media(memory.get_entity(conversation_id, MEDIA_ENTITY))
    if media is None and (search := memory.search(conversation_id)):
        media = _last_media(search.get("media"))
    return await async_add_download(
        hass, entry, url=link, folder=folder, source=source, media=media, conversation_id=conversation_id
    )


class SetPathForFolder(AgentMediaTool):
    """Configure a folder (download, movie, tv_show, ...)."""

    name = "set_path_for_folder"
    description = (
        "Set the path of a folder: 'download' is where new downloads go; other names (movie, tv_show, ...) "
        "name library folders. The path must be absolute, exist, and be allowed in Home Assistant."
    )
    parameters = vol.Schema(
        {
            vol.Required("folder_name", description="download, torrent, movie, tv_show, ..."): vol.All(
                str, vol.Length(min=1, max=32)
            ),
            vol.Required("path_value", description="Absolute path, e.g. /media/downloads"): vol.All(
                str, vol.Length(min=1, max=4096)
            ),
        }
    )
    changes_settings = True

    async def async_run(self, args: dict[str, Any], context: ToolContext) -> dict[str, Any]:
        """Check the path and save it in long-term memory (unchanged on failure)."""
        try:
            folder_name, path = await async_set_folder(
                context.hass, self.entry, args["folder_name"], args["path_value"]
            )
        except ValueError as err:  # no room for another folder
            raise ToolError(NOT_ALLOWED, str(err)) from err
        return ok(folder_name=folder_name, path=path)


async def async_set_folder(
    hass: HomeAssistant, entry: AgentMediaConfigEntry, folder_name: str, path: str
) -> tuple[str, str]:
    """Check a folder name and path (file checks in the executor) and save them; return them as saved.

    Raises ToolError (bad_args, invalid_path, not_allowed, path_not_found, not_a_directory, not_readable)
    and ValueError when no more folders can be configured. Memory is unchanged on failure.
    """
    folder_name = folder_name.strip().lower().replace(" ", "_").replace("-", "_")
    if not FOLDER_NAME.match(folder_name):
        raise ToolError(BAD_ARGS, "A folder name is a short word such as download, movie or tv_show.")
    path = path.strip()
    if "\x00" in path or not PurePosixPath(path).is_absolute():
        raise ToolError(INVALID_PATH, "The path must be absolute, such as /media/downloads.")
    path, problem = await hass.async_add_executor_job(check_folder_path, hass, path)
    if problem is not None:
        raise ToolError(*problem)
    entry.runtime_data.memory.set_folder(folder_name, path)
    return folder_name, path


def allowed_roots(hass: HomeAssistant) -> list[str]:
    """Folders Home Assistant lets integrations use: allowlist_external_dirs and the media dirs."""
    return sorted({*hass.config.allowlist_external_dirs, *hass.config.media_dirs.values()})


def check_folder_path(hass: HomeAssistant, path: str) -> tuple[str, tuple[str, str] | None]:
    """Return the normalised absolute path and (code, message) when it cannot be used. Blocking (executor).

    Whether the path is allowed is checked first, so nothing is revealed about paths outside the allowed ones.
    """
    path = os.path.normpath(path)
    return path, _folder_problem(hass, path)


def _folder_problem(hass: HomeAssistant, path: str) -> tuple[str, str] | None:
    resolved = Path(path).resolve()
    inside_roots = any(resolved.is_relative_to(Path(root).resolve()) for root in allowed_roots(hass))
    if not inside_roots and not hass.config.is_allowed_path(path):
        return NOT_ALLOWED, (
            f"{path} is outside the folders Home Assistant allows (allowlist_external_dirs or media_dirs)."
        )
    if not resolved.exists():
        return PATH_NOT_FOUND, f"{path} does not exist."
    if not resolved.is_dir():
        return NOT_A_DIRECTORY, f"{path} is not a directory."
    if not os.access(resolved, os.R_OK | os.X_OK):
        return NOT_READABLE, f"{path} cannot be read."
    return None


class ListFolder(AgentMediaTool):
    """List a configured folder (or a folder inside it)."""

    name = "list_folder"
    description = "List what a configured folder contains; 'path' optionally names a sub-folder inside it."
    parameters = vol.Schema(
        {
            vol.Required("folder_name", description="A configured folder: download, movie, ..."): vol.All(
                str, vol.Length(min=1, max=32)
            ),
            vol.Optional(
                "path", default="", description="Relative sub-folder, e.g. 'Sintel (2010)'"
            ): vol.All(str, vol.Length(max=1024)),
        }
    )

    async def async_run(self, args: dict[str, Any], context: ToolContext) -> dict[str, Any]:
        """List entries in the executor; the listing never leaves the configured folder."""
        folder_name = args["folder_name"].strip().lower()
        memory = self.entry.runtime_data.memory
        root = memory.get_folder(folder_name)
        if root is None:
            configured = ", ".join(sorted(memory.folders())) or "none"
            raise ToolError(NOT_FOUND, f"No folder {folder_name!r} is configured (configured: {configured}).")
        sub_path = args["path"].strip()
        parts = PurePosixPath(sub_path).parts
        if "\x00" in sub_path or PurePosixPath(sub_path).is_absolute() or ".." in parts:
            raise ToolError(NOT_ALLOWED, "The path must stay inside the folder: relative, without '..'.")
        listing = await context.hass.async_add_executor_job(list_directory, root, sub_path)
        if isinstance(listing, ToolError):
            raise listing
        entries, total = listing
        return ok(folder_name=folder_name, path=sub_path, entries=entries, total=total)


def list_directory(root: str, sub_path: str) -> tuple[list[dict[str, Any]], int] | ToolError:
    """List root/sub_path (blocking: run in the executor); symlinks may not lead outside root."""
    root_path = Path(root).resolve()
    target = (root_path / sub_path).resolve()
    if not target.is_relative_to(root_path):
        return ToolError(NOT_ALLOWED, "The path must stay inside the folder.")
    if not target.exists():
        return ToolError(PATH_NOT_FOUND, f"{sub_path or root} does not exist.")
    if not target.is_dir():
        return ToolError(NOT_A_DIRECTORY, f"{sub_path or root} is not a directory.")
    try:
        with os.scandir(target) as scan:
            found = sorted(scan, key=lambda item: (not item.is_dir(), item.name.casefold()))
    except OSError:
        return ToolError(NOT_READABLE, f"{sub_path or root} cannot be read.")
    entries = []
    for item in found[:MAX_LISTED_ENTRIES]:
        is_dir = item.is_dir()
        entry: dict[str, Any] = {"name": item.name, "type": "directory" if is_dir else "file"}
        if not is_dir:
            try:
                entry["size"] = human_size(item.stat().st_size)
            except OSError:
                entry["size"] = "unknown size"
        entries.append(entry)
    return entries, len(found)


TOOL_CLASSES: Final[tuple[type[AgentMediaTool], ...]] = (
    FindMediaImdbId,
    FindTorrents,
    GetTorrentByIndex,
    AddTorrentByIndex,
    SetPathForFolder,
    ListFolder,
)


class ToolRegistry:
    """The entry's tools by name, with their OpenAI-style specs (converted once)."""

    def __init__(self, entry: AgentMediaConfigEntry) -> None:
        """Instantiate every tool for the entry."""
        self.tools: dict[str, AgentMediaTool] = {cls.name: cls(entry) for cls in TOOL_CLASSES}
        self._specs: list[dict[str, Any]] | None = None

    def specs(self, custom_serializer: Callable[[Any], Any] | None = None) -> list[dict[str, Any]]:
        """Return the tools in the Chat Completions `tools` format."""
        if self._specs is None:
            self._specs = [
                {
                    "type": "function",
                    "function": {
                        "name": tool.name,
                        "description": tool.description,
                        "parameters": compat.schema_to_openapi(tool.parameters, custom_serializer),
                    },
                }
                for tool in self.tools.values()
            ]
        return self._specs

    def names(self) -> Iterable[str]:
        """Return the tool names."""
        return self.tools.keys()

    async def async_run(self, name: str, raw_args: Any, context: ToolContext) -> dict[str, Any]:
        """Validate and run a call (never raises)."""
        trace_tool_call(name, raw_args)
        return await async_run_tool(self.tools, name, raw_args, context)


@dataclass(slots=True, kw_only=True)
class AgentMediaAPI(llm.API):
    """The media tools as a Home Assistant LLM API (the agent's own ChatLog runs its tools through it)."""

    entry: AgentMediaConfigEntry
    registry: ToolRegistry
    conversation_id: str | None = None

    async def async_get_api_instance(self, llm_context: llm.LLMContext) -> llm.APIInstance:
        """Return an instance bound to the caller's context."""
        context = ToolContext(
            hass=self.hass,
            entry=self.entry,
            conversation_id=self.conversation_id,
            user_id=llm_context.context.user_id if llm_context.context else None,
            language=llm_context.language,
        )
        return AgentMediaAPIInstance(
            api=self,
            api_prompt="",
            llm_context=llm_context,
            tools=list(self.registry.tools.values()),
            registry=self.registry,
            tool_context=context,
        )


@dataclass(kw_only=True)
class AgentMediaAPIInstance(llm.APIInstance):
    """Runs tool calls through the registry: our error results instead of HA's exceptions."""

    registry: ToolRegistry
    tool_context: ToolContext

    async def async_call_tool(self, tool_input: llm.ToolInput) -> Any:
        """Run a call; the JSON result is wrapped as this HA version expects."""
        payload = await self.registry.async_run(tool_input.tool_name, tool_input.tool_args, self.tool_context)
        return compat.tool_result(payload, error=payload["status"] == "error")
