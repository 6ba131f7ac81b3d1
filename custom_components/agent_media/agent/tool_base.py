"""What every tool shares: its base class, the context of a call, and the one way a call is run and checked.

The tools themselves are in tools.py (finding and downloading) and people_tools.py (subscriptions, playing).

Every result is a JSON object: `{"status": "ok", ...}` or `{"status": "error", "error": <code>,
"message": ...}`. A tool never raises: unknown tools, bad arguments, refused permissions and failing services
all come back to the model as error results it can explain.

Trust boundary: tool results carry outside text (release and file names, TMDB titles) that the model may be
fooled by. So a tool that changes the household's settings acts only on what the person's own words in this
turn asked for (`grounding.py`); otherwise it keeps the change as a pending confirmation and asks for a spoken
yes, which a later turn's words must give. A caller without the person's words (Home Assistant's MCP server, a
script using the LLM API) never changes settings through a tool: the actions are there for that.
"""

from __future__ import annotations

from abc import abstractmethod
from dataclasses import dataclass, field
import json
from typing import TYPE_CHECKING, Any, ClassVar, Final

import voluptuous as vol

from homeassistant.components.conversation import (
    ConversationTraceEventType,
    async_conversation_trace_append,
)
from homeassistant.helpers import llm

from .. import compat
from ..const import DOMAIN, LOGGER
from ..errors import ErrorCode, OperationError, async_render
from ..operations import SOURCE_CONVERSATION, Request
from ..requester import Permission, async_resolve_requester
from ..satellite_flow import satellite_people
from ..untrusted import clip
from .grounding import is_yes

if TYPE_CHECKING:
    from homeassistant.core import HomeAssistant

    from ..data import AgentMediaConfigEntry
    from ..operations import Operations
    from ..requester import Requester

# Set by the stream parser when a native call's arguments were not JSON, so validation reports it.
INVALID_JSON_ARGUMENTS: Final = "__invalid_json_arguments__"
MAX_TEXT: Final = 200


def ok(**fields: Any) -> dict[str, Any]:
    """Return a successful tool result."""
    return {"status": "ok", **fields}


def error(code: str, message: str, **fields: Any) -> dict[str, Any]:
    """Return a failed tool result the model can explain."""
    return {"status": "error", "error": code, "message": message, **fields}


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolContext:
    """Who calls a tool, from which conversation, and what the person said in this turn."""

    hass: HomeAssistant
    entry: AgentMediaConfigEntry
    requester: Requester
    conversation_id: str | None = None
    language: str | None = None
    user_text: str | None = None  # None: no person's words to check (settings tools refuse)
    # The changes put to the person in this turn: their yes can only come in a later turn.
    asked_this_turn: set[str] = field(default_factory=set)

    @property
    def operations(self) -> Operations:
        """The entry's operations, which every tool adapts."""
        return self.entry.runtime_data.operations

    @property
    def request(self) -> Request:
        """What the operations are told of this call: who, in which conversation and language."""
        return Request(
            requester=self.requester,
            source=SOURCE_CONVERSATION,
            conversation_id=self.conversation_id,
            language=self.language,
        )


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


class AgentMediaTool(llm.Tool):
    """A tool of the agent; also usable by other Home Assistant agents through an `llm.API`."""

    name: str
    title: str  # shown by Home Assistant's tool lists and MCP clients (HA ≥ 2026.10 reads it)
    description: str
    parameters: vol.Schema
    integration = DOMAIN  # read by HA ≥ 2026.10; ignored before
    # How the tool behaves (read-only, idempotent, reaches outside): HA ≥ 2026.10; None before.
    annotations: Any
    # What the policy must allow before anything else; the operation checks it again as it acts.
    permission: ClassVar[Permission] = Permission.READ
    # Settings tools: the person's own words must name the change, or it waits for a spoken yes.
    needs_grounding: ClassVar[bool] = False

    def __init__(self, entry: AgentMediaConfigEntry) -> None:
        """Bind the tool to its config entry."""
        self.entry = entry

    @abstractmethod
    async def async_run(self, args: dict[str, Any], context: ToolContext) -> dict[str, Any]:
        """Run with validated arguments; return a result or raise OperationError."""

    def grounded(self, args: dict[str, Any], user_text: str) -> bool:  # noqa: ARG002 - overridden
        """Return whether the person's words in this turn ask for this change (settings tools override)."""
        return not self.needs_grounding

    async def async_call(
        self, hass: HomeAssistant, tool_input: llm.ToolInput, llm_context: llm.LLMContext
    ) -> Any:
        """Run for another Home Assistant agent (HA's own tool interface)."""
        context = await async_tool_context(hass, self.entry, llm_context)
        payload = await async_run_tool({self.name: self}, self.name, tool_input.tool_args, context)
        return compat.tool_result(payload, error=payload["status"] == "error")


async def async_tool_context(
    hass: HomeAssistant,
    entry: AgentMediaConfigEntry,
    llm_context: llm.LLMContext,
    conversation_id: str | None = None,
) -> ToolContext:
    """Resolve who calls, once, from Home Assistant's LLM context."""
    return ToolContext(
        hass=hass,
        entry=entry,
        requester=await async_resolve_requester(
            hass, llm_context.context, llm_context.device_id, satellite_people=satellite_people(entry)
        ),
        conversation_id=conversation_id,
        language=llm_context.language,
        user_text=compat.user_words(llm_context),
    )


async def async_run_tool(
    tools: dict[str, AgentMediaTool], name: str, raw_args: Any, context: ToolContext
) -> dict[str, Any]:
    """Validate and run one tool call; never raises. Failures are remembered as recent errors."""
    tool_name = normalize_tool_name(name)
    result = await _async_run_checked(tools, tool_name, raw_args, context)
    if result["status"] == "error":
        context.entry.runtime_data.memory.journal.add_error(
            tool_name or name[:40], result["error"], result["message"]
        )
    return result


async def _async_run_checked(  # noqa: PLR0911 - one early return per kind of refusal
    tools: dict[str, AgentMediaTool], name: str, raw_args: Any, context: ToolContext
) -> dict[str, Any]:
    tool = tools.get(name)
    if tool is None:
        return error(ErrorCode.UNKNOWN_TOOL, f"There is no tool {clip(name, 60)!r}.", tools=sorted(tools))
    if isinstance(raw_args, dict) and INVALID_JSON_ARGUMENTS in raw_args:
        return error(ErrorCode.BAD_ARGS, "The arguments must be a JSON object.")
    try:
        args: dict[str, Any] = tool.parameters(raw_args if raw_args is not None else {})
    except vol.Invalid as err:
        return error(ErrorCode.BAD_ARGS, _describe_invalid(err))
    try:
        context.operations.require(context.requester, tool.permission)
        if tool.needs_grounding and (refusal := _unasked_change(tool, args, context)) is not None:
            return refusal
        return await tool.async_run(args, context)
    except OperationError as err:
        message = await async_render(context.hass, context.language, err.translation_key, err.placeholders)
        return error(err.code, message, **err.extra)
    except Exception:  # noqa: BLE001 - a tool must answer whatever happened; the model explains it
        LOGGER.exception("Tool %s failed", name)
        return error(ErrorCode.INTERNAL_ERROR, "Something went wrong inside Agent Media.")


def _unasked_change(
    tool: AgentMediaTool, args: dict[str, Any], context: ToolContext
) -> dict[str, Any] | None:
    """Return why a settings change waits (unasked, or no person's words to check), or None to make it."""
    if context.user_text is None:
        return error(
            ErrorCode.NOT_ALLOWED,
            "Settings change only when a person asks in a conversation with Agent Media, or through the "
            "agent_media.set_folder action and the integration's options. Tell the user so.",
        )
    if _confirmed(tool, args, context, context.user_text):
        return None
    return _ask_confirmation(tool, args, context)


def _change_key(tool: AgentMediaTool, args: dict[str, Any]) -> str:
    return json.dumps([tool.name, args], sort_keys=True)


def _confirmed(tool: AgentMediaTool, args: dict[str, Any], context: ToolContext, user_text: str) -> bool:
    """Return whether the person asked for this change: in their words, or by a yes to the same change.

    The yes must answer a change put to them in an earlier turn: a model that asks and answers itself in one
    turn (the person said "OK, find Sintel") gets no yes.
    """
    working = context.entry.runtime_data.memory.working
    pending = working.pop_confirmation(context.requester.key)
    if (
        pending is not None
        and pending["tool"] == tool.name
        and pending["args"] == args
        and _change_key(tool, args) not in context.asked_this_turn
        and is_yes(user_text)
    ):
        return True
    return tool.grounded(args, user_text)


def _ask_confirmation(tool: AgentMediaTool, args: dict[str, Any], context: ToolContext) -> dict[str, Any]:
    context.entry.runtime_data.memory.working.set_confirmation(context.requester.key, tool.name, args)
    context.asked_this_turn.add(_change_key(tool, args))
    return error(
        ErrorCode.CONFIRMATION_REQUIRED,
        "The user's own words did not ask for this change. Ask them to confirm it in one short question "
        "(say what would change); call the tool again with the same arguments only after they say yes.",
        change={"tool": tool.name, "args": args},
    )


def trace_tool_call(name: str, args: Any) -> None:
    """Add the call to the conversation's debug trace, as Home Assistant's own API instances do."""
    async_conversation_trace_append(
        ConversationTraceEventType.TOOL_CALL, {"tool_name": name, "tool_args": args}
    )
