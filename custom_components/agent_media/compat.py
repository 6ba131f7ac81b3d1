"""Every difference between the Home Assistant versions we support (2025.4 up to the newest), in one place.

Code elsewhere calls these helpers instead of testing versions or attributes itself.
"""

from __future__ import annotations

import dataclasses
import importlib
from typing import TYPE_CHECKING, Any, cast

from homeassistant.components.conversation import ConversationInput, UserContent
from homeassistant.components.conversation.chat_log import current_chat_log
from homeassistant.const import Platform
from homeassistant.helpers import device_registry as dr, llm

if TYPE_CHECKING:
    from collections.abc import Callable

    import voluptuous as vol

    from homeassistant.components.conversation import ChatLog, ToolResultContent
    from homeassistant.core import Context

# Schema → OpenAPI: probatio on HA ≥ 2026.9 (voluptuous_openapi is no longer installed there), else
# voluptuous_openapi. Both take (schema, custom_serializer=...).
try:
    _to_openapi: Callable[..., Any] = importlib.import_module("probatio").to_openapi
except (ImportError, AttributeError):
    _to_openapi = importlib.import_module("voluptuous_openapi").convert


def schema_to_openapi(
    schema: vol.Schema, custom_serializer: Callable[[Any], Any] | None = None
) -> dict[str, Any]:
    """Convert a tool's voluptuous schema to the OpenAPI object the model sees."""
    converted: dict[str, Any] = _to_openapi(schema, custom_serializer=custom_serializer)
    return converted


def selector_serializer(schema: Any) -> Any:
    """Serialize HA's selectors for `schema_to_openapi` (`llm.selector_serializer`; private on HA 2025.4)."""
    private = "_selector_serializer"  # absent on newer versions
    serialize: Callable[[Any], Any] = getattr(llm, "selector_serializer", None) or getattr(llm, private)
    return serialize(schema)


def tool_result(payload: dict[str, Any], *, error: bool = False) -> Any:
    """Wrap a tool's JSON result as HA expects it: `llm.ToolResult` on HA ≥ 2026.10, the plain dict before."""
    result_class = getattr(llm, "ToolResult", None)
    if result_class is None:
        return payload
    return result_class(data=payload, error=error)


def tool_annotations(*, read_only: bool, idempotent: bool, open_world: bool) -> Any:
    """Return how a tool behaves as `llm.ToolAnnotations` (HA ≥ 2026.10, read by its MCP server), else None.

    None of our tools destroys anything: the model has no delete or cancel tool.
    """
    annotations_class = getattr(llm, "ToolAnnotations", None)
    if annotations_class is None:
        return None
    return annotations_class(
        read_only=read_only, destructive=False, idempotent=idempotent, open_world=open_world
    )


def tool_result_data(content: ToolResultContent) -> Any:
    """Return a tool's JSON: `content.result.data` on HA ≥ 2026.10, `content.tool_result` before."""
    result = getattr(content, "result", None)
    if result is not None and hasattr(result, "data"):
        return result.data
    return content.tool_result


def build_llm_context(
    *,
    platform: str,
    context: Context | None,
    language: str | None,
    device_id: str | None,
    user_prompt: str | None = None,
    assistant: str = "conversation",
    agent_id: str | None = None,
) -> llm.LLMContext:
    """Build an LLMContext with only the fields this HA version has (user_prompt went away in 2025.7)."""
    values: dict[str, Any] = {
        "platform": platform,
        "context": context,
        "user_prompt": user_prompt,
        "language": language,
        "assistant": assistant,
        "device_id": device_id,
        "agent_id": agent_id,
    }
    names = {field.name for field in dataclasses.fields(llm.LLMContext)}
    return llm.LLMContext(**{name: value for name, value in values.items() if name in names})


def user_words(llm_context: llm.LLMContext) -> str | None:
    """Return what the person said in this turn, to check a settings change against.

    The context's user_prompt (HA < 2025.7), else the last user message of the chat log the tool runs in;
    None outside any conversation (Home Assistant's MCP server, a script): no words to check.
    """
    if isinstance(prompt := getattr(llm_context, "user_prompt", None), str):
        return prompt
    chat_log = current_chat_log.get()
    if chat_log is None:
        return None
    for content in reversed(chat_log.content):
        if isinstance(content, UserContent):
            return content.content
    return None


async def async_provide_llm_data(
    chat_log: ChatLog, user_input: ConversationInput, domain: str, prompt: str | None
) -> None:
    """Set the turn's system prompt: `async_provide_llm_data` (HA ≥ 2025.7) or `async_update_llm_data`.

    No Home Assistant LLM API is attached here (None, never []): the agent brings its own tools.
    Raises `conversation.ConverseError` like the methods it wraps.
    """
    if hasattr(chat_log, "async_provide_llm_data"):
        llm_context = getattr(user_input, "as_llm_context")(domain)  # noqa: B009 - absent on HA 2025.4
        await chat_log.async_provide_llm_data(llm_context, None, prompt, user_input.extra_system_prompt)
    else:
        await chat_log.async_update_llm_data(domain, user_input, None, prompt)


# The `llm` integration's `LLMTools` (HA ≥ 2026.8, with its tool platform), else None. Looked up once, as this
# module is imported (outside the event loop): an import inside it is a blocking call Home Assistant reports.
try:
    _LLM_TOOLS: Any = getattr(importlib.import_module("homeassistant.components.llm"), "LLMTools", None)
except ImportError:
    _LLM_TOOLS = None


def llm_tool_platform() -> bool:
    """Return whether integrations offer tools to the Assist API through an `llm.py` platform (HA ≥ 2026.8).

    There Agent Media's tools come with Assist (`llm.py`); before, it registers its own `llm.API`.
    """
    return _LLM_TOOLS is not None


def llm_tools(tools: list[llm.Tool], prompt: str | None) -> Any:
    """Return what an `llm.py` platform's `async_get_tools` answers: tools and a prompt fragment."""
    return _LLM_TOOLS(tools=tools, prompt=prompt)


def ai_task_platforms() -> list[Platform]:
    """Return `[Platform.AI_TASK]` where Home Assistant has AI Task entities (HA ≥ 2025.7), else nothing.

    There `ai_task.py` gives each AI task subentry an entity for `ai_task.generate_data`; before, the entry
    sets up without it and offers no such subentry.
    """
    platform: Platform | None = getattr(Platform, "AI_TASK", None)
    return [] if platform is None else [platform]


def conversation_input(
    *, text: str, context: Context, conversation_id: str | None, language: str, agent_id: str
) -> ConversationInput:
    """Build a ConversationInput with no device: its other fields (`satellite_id`) vary between versions."""
    values: dict[str, Any] = {
        "text": text,
        "context": context,
        "conversation_id": conversation_id,
        "device_id": None,
        "satellite_id": None,
        "language": language,
        "agent_id": agent_id,
    }
    names = {field.name for field in dataclasses.fields(ConversationInput)}
    return ConversationInput(**{name: value for name, value in values.items() if name in names})


def several_llm_apis_per_agent() -> bool:
    """Return whether an agent can use several LLM APIs at once (HA ≥ 2025.5, where `llm.MergedAPI` exists).

    On HA 2025.4 an agent picks one API, so Agent Media also offers Assist and its tools as a single API.
    """
    return hasattr(llm, "MergedAPI")


def async_get_entry_device(
    registry: dr.DeviceRegistry, identifier: tuple[str, str], config_entry_id: str
) -> dr.DeviceEntry | None:
    """Return the entry's device with this identifier.

    Newer HA (2026.10) has `async_get_device_by_identifier` and reports `async_get_device` as deprecated (an
    error in tests); HA 2025.4 has only `async_get_device`.
    """
    by_identifier = getattr(registry, "async_get_device_by_identifier", None)
    if by_identifier is not None:
        return cast("dr.DeviceEntry | None", by_identifier(identifier, config_entry_id))
    return registry.async_get_device(identifiers={identifier})


# --- Device info -----------------------------------------------------------------------------------------
# HA 2026.11 made `DeviceInfo` a dataclass that still reads like a mapping; plain dicts are to be deprecated.
# Before, it is a TypedDict, so calling it builds the dict those versions expect: every device info here is
# built by calling `dr.DeviceInfo`, never as a dict literal.


def with_parent_device(
    registry: dr.DeviceRegistry,
    device_info: dr.DeviceInfo,
    parent_identifier: tuple[str, str],
    config_entry_id: str,
) -> dr.DeviceInfo:
    """Return `device_info` linked to its parent device, which must already be registered.

    Newer HA (2026.10) takes `via_device_id` (the parent's registry id) and reports `via_device` as
    deprecated; HA 2025.4 knows only `via_device` (the parent's identifier).
    """
    fields: dict[str, Any] = dict(device_info)
    if "via_device_id" not in dr.DeviceInfo.__optional_keys__:
        fields["via_device"] = parent_identifier
    elif (parent := async_get_entry_device(registry, parent_identifier, config_entry_id)) is not None:
        fields["via_device_id"] = parent.id
    build: Callable[..., dr.DeviceInfo] = dr.DeviceInfo  # a TypedDict's keys or a dataclass's fields
    return build(**fields)
