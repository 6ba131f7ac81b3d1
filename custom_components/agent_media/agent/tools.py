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
    CODEC_CHOICES,
    CONF_ALLOW_NON_ADMIN_SETTINGS,
    CONF_MAX_SIZE_GB,
    CONF_PREFERRED_CODEC,
    CONF_PREFERRED_LANGUAGES,
    CONF_PREFERRED_RESOLUTION,
    DEFAULT_ALLOW_NON_ADMIN_SETTINGS,
    DEFAULT_PREFERRED_RESOLUTION,
    DOMAIN,
    LOGGER,
    NO_PREFERENCE,
    RESOLUTION_CHOICES,
)
from custom_components.agent_media.downloads import (
    SAFETY_WAITING,
    SOURCE_CONVERSATION,
    DangerousTorrentError,
    async_add_download,
)
from custom_components.agent_media.memory import MAX_PENDING_OPTIONS, MAX_SEARCH_RESULTS
from custom_components.agent_media.ranking import (
    RankedRelease,
    RankingPreferences,
    normalize_resolution,
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
    from collections.abc import Callable, Iterable, Mapping

    from custom_components.agent_media.clients.knaben import TorrentResult
    from custom_components.agent_media.clients.qbittorrent import AddedTorrent
    from custom_components.agent_media.clients.tmdb import MediaMatch
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
DANGEROUS_FILES: Final = "dangerous_files"
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


def dangerous_result(err: DangerousTorrentError) -> dict[str, Any]:
    """Return the refusal of a torrent holding programs or scripts (already removed from qBittorrent)."""
    return error(
        DANGEROUS_FILES,
        f"Refused and removed {err.name[:100]}: it holds files a film never needs ({err.detail})."[:400],
        dangerous_files=err.files[:10],
    )


def safety_note(entry: AgentMediaConfigEntry, info_hash: str) -> str:
    """Say whether a new download's file list was checked, or will be once its metadata arrives."""
    record = entry.runtime_data.memory.active_downloads().get(info_hash, {})
    if record.get("safety") == SAFETY_WAITING:
        return "waiting for the file list; it starts once the files are checked"
    return "files checked, downloading"


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
    except DangerousTorrentError as err:
        return dangerous_result(err)
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


# What identifies a film or show, shared by the tools that look one up.
MEDIA_FIELDS: Final = {
    vol.Required("media_title", description="Title as the user said it, e.g. 'Sintel'"): vol.All(
        str, vol.Length(min=1, max=MAX_TEXT)
    ),
    vol.Optional("year", description="Release year, if the user gave one"): vol.All(
        vol.Coerce(int), vol.Range(min=1870, max=2100)
    ),
    vol.Optional("media_type", description="movie or tv"): vol.In(["movie", "tv"]),
}


class FindMediaImdbId(AgentMediaTool):
    """TMDB: identify a film or show."""

    name = "find_media_imdb_id"
    description = (
        "Identify a film or TV show on TMDB: returns its exact title, year, IMDb id and type. "
        "Use before searching torrents for something the user names."
    )
    parameters = vol.Schema(MEDIA_FIELDS)

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
        _rankable(found),
        title=(media or {}).get("title"),
        year=(media or {}).get("year"),
        media_type=media_type or ("tv" if parsed_query.seasons else "movie"),
        season=parsed_query.seasons[0] if parsed_query.seasons else None,
        episode=parsed_query.episodes[0] if parsed_query.episodes else None,
        preferences=ranking_preferences(entry, resolution=_resolution_in(query)),
    )
    if not ranked:
        raise ToolError(NOT_FOUND, _none_usable(len(found), query, rejected))
    results = _numbered(ranked)
    data.memory.store_search_results(conversation_id, query, results, media=media)
    return TorrentSearch(query=query, results=results, rejected=len(rejected))


def _rankable(found: list[TorrentResult]) -> list[dict[str, Any]]:
    return [result.as_dict() | {"download_link": result.download_link} for result in found]


def _none_usable(found: int, query: str, rejected: list[Any]) -> str:
    reasons = "; ".join(sorted({rejection.reason for rejection in rejected})[:3])
    return f"{found} releases found for {query!r}, none usable: {reasons}."


def _numbered(ranked: list[RankedRelease]) -> list[dict[str, Any]]:
    """Return the ranked releases as stored in memory, numbered from 1."""
    return [
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


def _resolution_in(text: str) -> str | None:
    found = _RESOLUTION_IN_QUERY.search(text)
    return found.group(1).lower() if found else None


def ranking_preferences(entry: AgentMediaConfigEntry, *, resolution: str | None = None) -> RankingPreferences:
    """Return the release preferences: long-term memory (set in conversation) over the entry's options.

    `resolution` (asked for in this request) overrides both. "any" (or a size of 0) means no preference.
    """
    stored = entry.runtime_data.memory.preferences()

    def pick(key: str, default: Any = None) -> Any:
        return stored[key] if key in stored else entry.options.get(key, default)

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


def _languages(value: Any) -> tuple[str, ...]:
    items = value.split(",") if isinstance(value, str) else value if isinstance(value, list) else []
    cleaned = (str(item).strip() for item in items)
    return tuple(item for item in cleaned if item and item.lower() != NO_PREFERENCE)


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
        return ok(
            torrent_name=added.name,
            hash=added.info_hash,
            save_path=save_path,
            state=safety_note(self.entry, added.info_hash),
        )


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

    While download_media's question waits for an answer, the number picks one of its options (numbered
    like the search it came from). Records the media looked up last in that conversation, else the one the
    search was for. Raises
    ToolError(not_found) for a missing result or link, and what `async_add_download` raises.
    """
    memory = entry.runtime_data.memory
    pending = memory.pending_question()
    if pending is not None and index <= len(pending["options"]):
        # The answer to download_media's question ("the 2nd one"): its options, for the media it asked about.
        result = pending["options"][index - 1]
        media = _last_media(pending.get("media"))
    else:
        result = _result_by_index(entry, conversation_id, index)
        media = _last_media(memory.get_entity(conversation_id, MEDIA_ENTITY))
        if media is None and (search := memory.search(conversation_id)):
            media = _last_media(search.get("media"))
    link = result.get("download_link")
    if not link:
        raise ToolError(NOT_FOUND, "That result has no magnet link nor torrent file.")
    added = await async_add_download(
        hass, entry, url=link, folder=folder, source=source, media=media, conversation_id=conversation_id
    )
    memory.clear_pending_question()
    return added


_TITLE_PUNCTUATION = re.compile(r"[^\w\s&']+")
CLOSE_SCORE_MARGIN: Final = 6.0  # fine-score points; about a 3x difference in seeders
DIFFERENT_SIZE_RATIO: Final = 1.5
MAX_QUERIES: Final = 3


class DownloadMedia(AgentMediaTool):
    """One call: identify, search, rank and add the best release, or ask when the choice is unclear."""

    name = "download_media"
    description = (
        "Download a film or TV show by name in one step: identifies it on TMDB, searches torrents, ranks "
        "them with the quality asked and the user's preferences, and adds the best. For TV give season "
        "(and episode for one episode). If no release fits well or two are equally good, it returns "
        "decision 'ask' with a question and numbered options instead: ask the user, then call "
        "add_torrent_by_index with the number they choose."
    )
    parameters = vol.Schema(
        {
            **MEDIA_FIELDS,
            vol.Optional("quality", description="Resolution asked for: 2160p (4K), 1080p, 720p"): vol.All(
                str, vol.Length(max=20)
            ),
            vol.Optional("season", description="TV season number"): vol.All(
                vol.Coerce(int), vol.Range(min=0, max=200)
            ),
            vol.Optional("episode", description="TV episode number (with season)"): vol.All(
                vol.Coerce(int), vol.Range(min=1, max=2000)
            ),
        }
    )

    async def async_run(self, args: dict[str, Any], context: ToolContext) -> dict[str, Any]:
        """Identify, search, rank; add the best or put a question with numbered options."""
        data = self.entry.runtime_data
        season, episode = args.get("season"), args.get("episode")
        media_type = args.get("media_type") or ("tv" if season is not None or episode is not None else None)
        title = args["media_title"].strip()
        match = await data.tmdb.async_identify(title, year=args.get("year"), media_type=media_type)
        if match is None:
            raise ToolError(NOT_FOUND, f"Nothing called {title!r} was found on TMDB.")
        media = match.as_dict()
        data.memory.set_entity(context.conversation_id, MEDIA_ENTITY, media)
        if match.media_type != "tv":
            season = episode = None
        asked = normalize_resolution(args["quality"]) if args.get("quality") else None

        query, found = await self._async_search(match)
        ranked, rejected = rank_releases(
            _rankable(found),
            title=match.title,
            year=match.year,
            media_type=match.media_type,
            season=season,
            episode=episode,
            preferences=ranking_preferences(self.entry, resolution=asked),
            alternative_titles=(match.original_title,),
        )
        label = _media_label(media, season, episode)
        if not found:
            raise ToolError(NOT_FOUND, f"No torrents found for {label}.")
        if not ranked:
            raise ToolError(NOT_FOUND, _none_usable(len(found), query, rejected))
        results = _numbered(ranked)
        data.memory.store_search_results(context.conversation_id, query, results, media=media)

        if question := _question(ranked, label=label, asked=asked, season=season, episode=episode):
            options = results[:MAX_PENDING_OPTIONS]
            data.memory.set_pending_question(context.conversation_id, question, options, media=media)
            return ok(
                decision="ask",
                question=question,
                media=media,
                options=[_spoken_result(option["index"], option) for option in options],
            )

        best = ranked[0]
        added = await async_add_download(
            context.hass,
            self.entry,
            url=best.result["download_link"],
            media=media,
            conversation_id=context.conversation_id,
        )
        data.memory.clear_pending_question()
        record = data.memory.active_downloads().get(added.info_hash, {})
        return ok(
            decision="downloading",
            media=media,
            release=best.result["title"],
            why=best.reason,
            size=human_size(best.result.get("size")),
            other_candidates=len(ranked) - 1,
            hash=added.info_hash,
            save_path=record.get("save_path"),
            state=safety_note(self.entry, added.info_hash),
        )

    async def _async_search(self, match: MediaMatch) -> tuple[str, list[TorrentResult]]:
        """Search the title with its year (films), then without, then the original title; first hits win."""
        queries: list[str] = []
        for name in dict.fromkeys((match.title, match.original_title)):
            clean = " ".join(_TITLE_PUNCTUATION.sub(" ", name).split())
            # Films carry their year in release names; shows mostly do not.
            if match.media_type == "movie" and match.year:
                queries.append(f"{clean} {match.year}")
            queries.append(clean)
        found: list[TorrentResult] = []
        for query in list(dict.fromkeys(queries))[:MAX_QUERIES]:
            found = await self.entry.runtime_data.knaben.async_search(query, media_type=match.media_type)
            if found:
                return query, found
        return queries[0], found


def _media_label(media: Mapping[str, Any], season: int | None, episode: int | None) -> str:
    label = f"{media['title']} ({media['year']})" if media.get("year") else str(media["title"])
    if season is not None and episode is not None:
        return f"{label} S{season:02d}E{episode:02d}"
    if season is not None:
        return f"{label} season {season}"
    return f"{label} episode {episode}" if episode is not None else label


def _question(
    ranked: list[RankedRelease], *, label: str, asked: str | None, season: int | None, episode: int | None
) -> str | None:
    """Return what to ask the user when the best release is not clearly what they want, else None."""
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


def _close(first: RankedRelease, second: RankedRelease) -> bool:
    """Scores within a few points, yet releases that differ in a way people care about."""
    if first.score - second.score >= CLOSE_SCORE_MARGIN:
        return False
    a, b = first.parsed, second.parsed
    if (a.source, a.codec, a.hdr, a.languages) != (b.source, b.codec, b.hdr, b.languages):
        return True
    sizes = sorted(max(int(release.result.get("size") or 0), 1) for release in (first, second))
    return sizes[1] / sizes[0] >= DIFFERENT_SIZE_RATIO


class SetPreference(AgentMediaTool):
    """Remember the user's lasting release preferences (long-term memory)."""

    name = "set_preference"
    description = (
        "Remember how the user likes releases, for every later download: resolution, codec, maximum size, "
        "audio languages. Give only what the user stated; 'any' (or max_size_gb 0) removes a preference."
    )
    parameters = vol.Schema(
        {
            vol.Optional("resolution", description="2160p, 1080p, 720p, 480p or any"): vol.All(
                str, vol.Lower, vol.In([*RESOLUTION_CHOICES, "4k"])
            ),
            vol.Optional("codec", description="x265 (HEVC), x264 (AVC), av1 or any"): vol.All(
                str, vol.Lower, vol.In([*CODEC_CHOICES, "hevc", "avc"])
            ),
            vol.Optional("max_size_gb", description="Largest release in GB; 0 for no limit"): vol.All(
                vol.Coerce(float), vol.Range(min=0, max=1000)
            ),
            vol.Optional(
                "languages", description="Audio languages, comma separated, e.g. 'French' or 'fr, en'; any"
            ): vol.All(str, vol.Length(max=100)),
        }
    )
    changes_settings = True  # the household's settings, like the folders (allow_non_admin_settings)

    async def async_run(self, args: dict[str, Any], context: ToolContext) -> dict[str, Any]:  # noqa: ARG002
        """Store what was given; return every preference now in force."""
        if not args:
            raise ToolError(BAD_ARGS, "Give at least one of resolution, codec, max_size_gb or languages.")
        memory = self.entry.runtime_data.memory
        if "resolution" in args:
            resolution = args["resolution"]
            memory.set_preference(
                CONF_PREFERRED_RESOLUTION,
                NO_PREFERENCE if resolution == NO_PREFERENCE else normalize_resolution(resolution),
            )
        if "codec" in args:
            memory.set_preference(CONF_PREFERRED_CODEC, _CODEC_NAMES.get(args["codec"], args["codec"]))
        if "max_size_gb" in args:
            memory.set_preference(CONF_MAX_SIZE_GB, args["max_size_gb"])
        if "languages" in args:
            memory.set_preference(CONF_PREFERRED_LANGUAGES, list(_languages(args["languages"])))
        return ok(preferences=describe_preferences(ranking_preferences(self.entry)))


_CODEC_NAMES: Final = {"hevc": "x265", "avc": "x264"}


def describe_preferences(preferences: RankingPreferences) -> dict[str, Any]:
    """Return the preferences in force, as the model and the prompt show them."""
    return {
        "resolution": preferences.resolution or NO_PREFERENCE,
        "codec": preferences.codec or NO_PREFERENCE,
        "max_size": human_size(preferences.max_size_bytes) if preferences.max_size_bytes else "no limit",
        "languages": list(preferences.languages) or NO_PREFERENCE,
    }


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
    DownloadMedia,
    FindMediaImdbId,
    FindTorrents,
    GetTorrentByIndex,
    AddTorrentByIndex,
    SetPreference,
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
