"""The tools the model can call: thin adapters of the entry's operations (operations/) to the model.

Every result is a JSON object: `{"status": "ok", ...}` or `{"status": "error", "error": <code>,
"message": ...}`; validation, permissions and the trust rules of settings tools are in tool_base.py.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

import voluptuous as vol

from homeassistant.helpers import llm

from .. import compat
from ..const import CODEC_CHOICES, RESOLUTION_CHOICES
from ..errors import ErrorCode, OperationError
from ..memory import MAX_PENDING_OPTIONS
from ..operations import MediaQuestion, human_size, strict_index
from ..operations.adding import SAFETY_WAITING
from ..requester import Permission
from ..untrusted import MAX_NAME, MAX_TITLE, clip
from .grounding import folder_grounded, preference_grounded
from .people_tools import PEOPLE_TOOL_CLASSES
from .tool_base import (
    MAX_TEXT,
    AgentMediaTool,
    ToolContext,
    async_run_tool,
    async_tool_context,
    ok,
    trace_tool_call,
)

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

    from ..data import AgentMediaConfigEntry
    from ..operations import AddedDownload

RESULTS_SHOWN: Final = 10  # results returned to the model per search; all (≤ 50) stay in memory


def _spoken_result(result: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "index": result["index"],
        "title": clip(result.get("title", "?"), MAX_NAME),
        "size": human_size(result.get("size")),
        "seeders": result.get("seeders"),
        "note": result.get("reason"),
    }


def safety_note(added: AddedDownload) -> str:
    """Say whether a new download's file list was checked, or will be once its metadata arrives."""
    if added.safety == SAFETY_WAITING:
        return "waiting for the file list; it starts once the files are checked"
    return "files checked, downloading"


# --- the tools ---------------------------------------------------------------------------------------------


def _whole_number(value: Any) -> int:
    try:
        return strict_index(value)
    except ValueError as err:
        raise vol.Invalid(str(err)) from err


_INDEX = vol.All(vol.Any(int, float, str), _whole_number)


def _real_number(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise vol.Invalid("expected a number")
    return float(value)


_WHOLE = _INDEX

# What identifies a film or show, shared by the tools that look one up.
MEDIA_FIELDS: Final = {
    vol.Required("media_title"): vol.All(str, vol.Length(min=1, max=MAX_TEXT)),
    vol.Optional("year"): vol.All(_WHOLE, vol.Range(min=1870, max=2100)),
    vol.Optional("media_type"): vol.In(["movie", "tv"]),
}


class FindMediaImdbId(AgentMediaTool):
    """TMDB: identify a film or show."""

    name = "find_media_imdb_id"
    title = "Identify a film or show"
    annotations = compat.tool_annotations(read_only=True, idempotent=True, open_world=True)
    description = "Identify a film or show on TMDB."
    parameters = vol.Schema(MEDIA_FIELDS)

    async def async_run(self, args: dict[str, Any], context: ToolContext) -> dict[str, Any]:
        """Look the title up and remember it as the conversation's media."""
        media = await context.operations.finding.async_identify(
            context.request, args["media_title"], year=args.get("year"), media_type=args.get("media_type")
        )
        return ok(**media)


class FindTorrents(AgentMediaTool):
    """Search releases, rank them, number them and remember them."""

    name = "find_torrents"
    title = "Search releases"
    annotations = compat.tool_annotations(read_only=True, idempotent=True, open_world=True)
    description = "Releases to pick, best first; e.g. Sintel 2010 2160p."
    parameters = vol.Schema({vol.Required("media_title"): vol.All(str, vol.Length(min=1, max=MAX_TEXT))})

    async def async_run(self, args: dict[str, Any], context: ToolContext) -> dict[str, Any]:
        """Search, rank, store and return the numbered list."""
        search = await context.operations.finding.async_search(context.request, args["media_title"])
        return ok(
            query=search.query,
            total=len(search.results),
            rejected=search.rejected,
            torrents=[_spoken_result(result) for result in search.results[:RESULTS_SHOWN]],
            **({"unavailable_sources": search.unavailable} if search.unavailable else {}),
        )


_INDEX_SCHEMA: Final = vol.Schema({vol.Required("index"): _INDEX})


class GetTorrentByIndex(AgentMediaTool):
    """A result of the last search, by its number."""

    name = "get_torrent_by_index"
    title = "Show a search result"
    annotations = compat.tool_annotations(read_only=True, idempotent=True, open_world=False)
    description = "A numbered result's details."
    parameters = _INDEX_SCHEMA

    async def async_run(self, args: dict[str, Any], context: ToolContext) -> dict[str, Any]:
        """Return the stored result."""
        result = context.operations.finding.search_result(context.request, args["index"])
        return ok(
            torrent={
                **_spoken_result(result),
                "size_bytes": result.get("size"),
                "peers": result.get("peers"),
                "tracker": result.get("tracker"),
                "source": result.get("source"),
                "hash": result.get("info_hash"),
            }
        )


class AddTorrentByIndex(AgentMediaTool):
    """Add a result of the last search (or an option of the pending question) to qBittorrent."""

    name = "add_torrent_by_index"
    title = "Download a search result"
    annotations = compat.tool_annotations(read_only=False, idempotent=False, open_world=True)
    description = "Download a number: the pending question's option, else the last search's."
    permission = Permission.ADD
    parameters = _INDEX_SCHEMA

    async def async_run(self, args: dict[str, Any], context: ToolContext) -> dict[str, Any]:
        """Add the release and record it with the media it is."""
        added = await context.operations.acquiring.async_add_result(context.request, args["index"])
        return ok(
            torrent_name=added.name,
            media=added.media,
            hash=added.info_hash,
            save_path=added.save_path,
            state=safety_note(added),
        )


class DownloadMedia(AgentMediaTool):
    """One call: identify, search, rank and add the best release, or ask when the choice is unclear."""

    name = "download_media"
    title = "Download a film or show"
    annotations = compat.tool_annotations(read_only=False, idempotent=False, open_world=True)
    description = (
        "Add the best release (quality e.g. 2160p; wait: until out); decision ask: ask the user, then "
        "add_torrent_by_index."
    )
    permission = Permission.ADD
    parameters = vol.Schema(
        {
            **MEDIA_FIELDS,
            vol.Optional("quality"): vol.All(str, vol.Length(max=20)),
            vol.Optional("season"): vol.All(_WHOLE, vol.Range(min=0, max=200)),
            vol.Optional("episode"): vol.All(_WHOLE, vol.Range(min=1, max=2000)),
            vol.Optional("wait"): bool,
        }
    )

    async def async_run(self, args: dict[str, Any], context: ToolContext) -> dict[str, Any]:
        """Identify, search, rank; add the best or put a question with numbered options.

        `wait` keeps the title as wanted when nothing acceptable is out; for a whole show, follows it.
        """
        if args.get("wait"):
            whole_show = args.get("media_type") == "tv" and not args.get("season") and not args.get("episode")
            return await (_async_follow if whole_show else _async_want)(args, context)
        outcome = await context.operations.acquiring.async_download_media(
            context.request,
            args["media_title"],
            year=args.get("year"),
            media_type=args.get("media_type"),
            quality=args.get("quality"),
            season=args.get("season"),
            episode=args.get("episode"),
        )
        unavailable = {"unavailable_sources": outcome.unavailable} if outcome.unavailable else {}
        if isinstance(outcome, MediaQuestion):
            return ok(
                decision="ask",
                question=outcome.question,
                media=outcome.media,
                options=[_spoken_result(option) for option in outcome.options[:MAX_PENDING_OPTIONS]],
                **unavailable,
            )
        return ok(
            decision="downloading",
            media=outcome.media,
            release=clip(outcome.release["title"], MAX_NAME),
            why=outcome.why,
            size=human_size(outcome.release.get("size")),
            seeders=outcome.release.get("seeders"),
            other_candidates=outcome.other_candidates,
            hash=outcome.added.info_hash,
            save_path=outcome.added.save_path,
            state=safety_note(outcome.added),
            **unavailable,
        )


async def _async_want(args: dict[str, Any], context: ToolContext) -> dict[str, Any]:
    """Add the title now when possible, else keep it on the wanted list."""
    outcome = await context.operations.wanted.async_want(
        context.request,
        args["media_title"],
        year=args.get("year"),
        media_type=args.get("media_type"),
        season=args.get("season") or None,
        episode=args.get("episode"),
    )
    if outcome.added is not None:
        return ok(decision="downloading", media=outcome.media, release=clip(outcome.added.name, MAX_NAME))
    return ok(decision="wanted", title=outcome.label, reason=(outcome.record or {}).get("reason"))


async def _async_follow(args: dict[str, Any], context: ToolContext) -> dict[str, Any]:
    """Follow a show from the season named, else the one airing now."""
    media, season = await context.operations.wanted.async_follow_show(
        context.request, args["media_title"], year=args.get("year"), season=args.get("season") or None
    )
    return ok(decision="following", media=media, from_season=season)


# Other names a model may give a preference: accepted, not listed in the schema it reads.
_PREFERENCE_ALIASES: Final = {"4k": "2160p", "hevc": "x265", "avc": "x264"}


def _alias(value: str) -> str:
    return _PREFERENCE_ALIASES.get(value, value)


def _one_of(choices: Iterable[str]) -> Any:
    """Check a value against its choices, which the model's schema leaves out (a wrong value names them)."""
    allowed = list(choices)

    def check(value: str) -> str:
        if value not in allowed:
            raise vol.Invalid(f"expected one of {', '.join(allowed)}")
        return value

    return check


class SetPreference(AgentMediaTool):
    """Remember the household's lasting release preferences."""

    name = "set_preference"
    title = "Set a release preference"
    annotations = compat.tool_annotations(read_only=False, idempotent=True, open_world=False)
    description = "Save a lasting release taste, e.g. 1080p, x265, 10 GB, audio fr,en; any or 0: none."
    parameters = vol.Schema(
        {
            vol.Optional("resolution"): vol.All(str, vol.Lower, _alias, _one_of(RESOLUTION_CHOICES)),
            vol.Optional("codec"): vol.All(str, vol.Lower, _alias, _one_of(CODEC_CHOICES)),
            vol.Optional("max_size_gb"): vol.All(_real_number, vol.Range(min=0, max=1000)),
            vol.Optional("languages"): vol.All(str, vol.Length(max=100)),
        }
    )
    permission = Permission.OWN_PREFERENCES  # the operation asks more for the household's
    needs_grounding = True

    def grounded(self, args: dict[str, Any], user_text: str) -> bool:
        """Every value given must be in the person's words ("4K", "x265", "10 GB", "French")."""
        return preference_grounded(args, user_text)

    async def async_run(self, args: dict[str, Any], context: ToolContext) -> dict[str, Any]:
        """Store what was given; return every preference now in force."""
        preferences = context.operations.settings.set_preferences(
            context.requester,
            resolution=args.get("resolution"),
            codec=args.get("codec"),
            max_size_gb=args.get("max_size_gb"),
            languages=args.get("languages"),
        )
        return ok(preferences=preferences)


class SetPathForFolder(AgentMediaTool):
    """Configure a folder (download, movie, tv_show, ...)."""

    name = "set_path_for_folder"
    title = "Set a folder"
    annotations = compat.tool_annotations(read_only=False, idempotent=True, open_world=False)
    description = "Set a folder (e.g. download, movie, tv_show) to an absolute path."
    parameters = vol.Schema(
        {
            vol.Required("folder_name"): vol.All(str, vol.Length(min=1, max=32)),
            vol.Required("path_value"): vol.All(str, vol.Length(min=1, max=4096)),
        }
    )
    permission = Permission.CHANGE_SETTINGS
    needs_grounding = True

    def grounded(self, args: dict[str, Any], user_text: str) -> bool:
        """Check that the person named the folder and said the path (or its last part, as voice gives it)."""
        return folder_grounded(str(args["folder_name"]), str(args["path_value"]), user_text)

    async def async_run(self, args: dict[str, Any], context: ToolContext) -> dict[str, Any]:
        """Check the path and save it (unchanged on failure)."""
        folder_name, path = await context.operations.settings.async_set_folder(
            context.requester, args["folder_name"], args["path_value"]
        )
        return ok(folder_name=folder_name, path=path)


class ListFolder(AgentMediaTool):
    """List a configured folder (or a folder inside it)."""

    name = "list_folder"
    title = "List a folder"
    annotations = compat.tool_annotations(read_only=True, idempotent=True, open_world=False)
    description = "List a folder or a path in it."
    parameters = vol.Schema(
        {
            vol.Required("folder_name"): vol.All(str, vol.Length(min=1, max=32)),
            vol.Optional("path", default=""): vol.All(str, vol.Length(max=1024)),
        }
    )

    async def async_run(self, args: dict[str, Any], context: ToolContext) -> dict[str, Any]:
        """List entries in the executor; the listing never leaves the configured folder."""
        folder_name = args["folder_name"].strip().lower()
        sub_path, entries, total = await context.operations.settings.async_list_folder(
            context.requester, folder_name, args["path"]
        )
        return ok(folder_name=folder_name, path=clip(sub_path, MAX_TITLE), entries=entries, total=total)


class ListWanted(AgentMediaTool):
    """The wanted titles and the followed shows."""

    name = "list_wanted"
    title = "List wanted titles"
    annotations = compat.tool_annotations(read_only=True, idempotent=True, open_world=False)
    description = "Titles waited for, shows followed."
    parameters = vol.Schema({})

    async def async_run(self, args: dict[str, Any], context: ToolContext) -> dict[str, Any]:  # noqa: ARG002
        """Return both lists, named for people."""
        titles, shows = context.operations.wanted.list_wanted(context.requester)
        return ok(
            wanted=[{"title": item["title"], "reason": item["reason"]} for item in titles],
            followed=[item["title"] for item in shows],
        )


class ForgetWanted(AgentMediaTool):
    """Stop waiting for a title, or stop following a show."""

    name = "forget_wanted"
    title = "Forget a wanted title"
    annotations = compat.tool_annotations(read_only=False, idempotent=True, open_world=False)
    description = "Unwant a title or unfollow a show."
    permission = Permission.ADD
    parameters = vol.Schema({vol.Required("title"): vol.All(str, vol.Length(min=1, max=MAX_TEXT))})

    async def async_run(self, args: dict[str, Any], context: ToolContext) -> dict[str, Any]:
        """Forget the wanted titles and unfollow the shows the words name; not_found when none."""
        wanted = context.operations.wanted
        forgotten: list[str] = []
        for forget in (wanted.forget_wanted, wanted.unfollow_show):
            try:
                forgotten += forget(context.requester, args["title"])
            except OperationError as err:
                if err.code is not ErrorCode.NOT_FOUND:
                    raise
        if not forgotten:
            raise OperationError(ErrorCode.NOT_FOUND, "not_wanted", title=args["title"])
        return ok(forgotten=forgotten)


TOOL_CLASSES: Final[tuple[type[AgentMediaTool], ...]] = (
    DownloadMedia,
    FindMediaImdbId,
    FindTorrents,
    GetTorrentByIndex,
    AddTorrentByIndex,
    SetPreference,
    SetPathForFolder,
    ListFolder,
    ListWanted,
    ForgetWanted,
    *PEOPLE_TOOL_CLASSES,
)


# Validation the model need not read: voluptuous checks every call anyway (extra keys included).
_UNSPOKEN_KEYS: Final = frozenset(
    {"minLength", "maxLength", "minimum", "maximum", "default", "format", "additionalProperties"}
)


def model_schema(schema: Any) -> Any:
    """Return an OpenAPI schema as the model needs it: no bounds, a whole number shown as an integer."""
    if isinstance(schema, list):
        return [model_schema(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    if "anyOf" in schema and {"type": "integer"} in schema["anyOf"]:
        schema = {**{key: value for key, value in schema.items() if key != "anyOf"}, "type": "integer"}
    compact: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "properties":  # argument names, never schema keywords
            compact[key] = {name: model_schema(item) for name, item in value.items()}
        elif key not in _UNSPOKEN_KEYS:
            compact[key] = value if key in ("enum", "required") else model_schema(value)
    if "enum" in compact:  # the values say their type
        compact.pop("type", None)
    # No required argument, or only the first (the subject, which no call goes without): nothing to say.
    if "required" in compact and compact["required"] in ([], list(compact.get("properties", {}))[:1]):
        del compact["required"]
    return compact


class ToolRegistry:
    """The entry's tools by name, with their OpenAI-style specs (converted once)."""

    def __init__(self, entry: AgentMediaConfigEntry) -> None:
        """Instantiate every tool for the entry."""
        self.entry = entry
        self.tools: dict[str, AgentMediaTool] = {cls.name: cls(entry) for cls in TOOL_CLASSES}
        self._specs: dict[str, dict[str, Any]] = {}

    def specs(self, limited_to: frozenset[Permission] | None = None) -> list[dict[str, Any]]:
        """Return every tool an agent may use in the Chat Completions `tools` format (each converted once).

        Always the same set, in the same order, so the request starts the same way all conversation (a prompt
        cache reuses it): a tool that cannot act yet (a pick with no search, a folder listing with no folder)
        answers so in words. An agent's profile (`limited_to`) leaves out what it may not do; a call to a tool
        left out still runs (`async_run` knows every tool) and meets the policy.
        """
        return [self._spec(tool) for tool in self.usable(limited_to)]

    def usable(self, limited_to: frozenset[Permission] | None = None) -> list[AgentMediaTool]:
        """Return the tools an agent's profile allows (`limited_to`; None: every tool), in their order."""
        return [tool for tool in self.tools.values() if limited_to is None or tool.permission in limited_to]

    def _spec(self, tool: AgentMediaTool) -> dict[str, Any]:
        if (spec := self._specs.get(tool.name)) is None:
            spec = self._specs[tool.name] = {
                "type": "function",
                "function": {
                    "name": tool.name,
                    "description": tool.description,
                    "parameters": model_schema(compat.schema_to_openapi(tool.parameters)),
                },
            }
        return spec

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
    tool_context: ToolContext | None = None  # the agent's own turn resolves it once, beforehand

    async def async_get_api_instance(self, llm_context: llm.LLMContext) -> llm.APIInstance:
        """Return an instance bound to the caller's context."""
        context = self.tool_context or await async_tool_context(
            self.hass, self.entry, llm_context, self.conversation_id
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
