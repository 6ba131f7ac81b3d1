"""The agent's tools as Home Assistant LLM APIs, so Home Assistant's own agents can use them (HA < 2026.8).

From HA 2026.8 the tools come with the Assist API instead (`llm.py`), and no API is registered here. Before,
each loaded entry registers an API named after the entry; OpenAI, Ollama, Anthropic, Google and other agents
list it in their "Control Home Assistant" option. From HA 2025.5 an agent may pick several APIs, so users
pick this one beside Assist. HA 2025.4 allows a single choice, so there a second API, "Assist + <entry>",
offers Assist's tools and the media tools together.

The tools are the agent's own (`agent/tools.py`): same validation, same memory, same error results.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from homeassistant.core import CALLBACK_TYPE, HomeAssistant, callback
from homeassistant.exceptions import HomeAssistantError
from homeassistant.helpers import llm

from . import compat
from .agent.tools import AgentMediaAPI, ToolRegistry
from .const import DOMAIN

if TYPE_CHECKING:
    from .data import AgentMediaConfigEntry

API_PROMPT: Final = (
    "The Agent Media tools find films and TV shows and download them with qBittorrent. To download something "
    "by name: find_media_imdb_id, then find_torrents with the title, year and any quality asked (4K means "
    "2160p), then add_torrent_by_index with the best result (results are numbered from 1, best first; "
    '"the second one" means result 2 of the last search). A result with "status": "error" explains what '
    "went wrong: tell the user briefly."
)


def api_id(entry_id: str) -> str:
    """Return the id of an entry's media-tools API."""
    return f"{DOMAIN}-{entry_id}"


def combined_api_id(entry_id: str) -> str:
    """Return the id of an entry's "Assist + media tools" API (HA 2025.4 only)."""
    return f"{DOMAIN}-{entry_id}-assist"


@dataclass(slots=True, kw_only=True)
class MediaToolsAPI(AgentMediaAPI):
    """The agent's tool set, with a prompt that tells another agent how to chain the tools."""

    async def async_get_api_instance(self, llm_context: llm.LLMContext) -> llm.APIInstance:
        """Return the agent's API instance with this API's prompt."""
        instance = await AgentMediaAPI.async_get_api_instance(self, llm_context)
        instance.api_prompt = API_PROMPT
        return instance


@dataclass(slots=True, kw_only=True)
class AssistWithMediaToolsAPI(llm.API):
    """Assist's tools and the media tools in one API, for HA versions where an agent picks only one."""

    media: MediaToolsAPI

    async def async_get_api_instance(self, llm_context: llm.LLMContext) -> llm.APIInstance:
        """Combine an Assist instance and a media-tools instance for this context."""
        assist = await llm.async_get_api(self.hass, llm.LLM_API_ASSIST, llm_context)
        media = await self.media.async_get_api_instance(llm_context)
        return CombinedAPIInstance(
            api=self,
            api_prompt=f"{assist.api_prompt}\n{media.api_prompt}",
            llm_context=llm_context,
            tools=[*assist.tools, *media.tools],
            custom_serializer=assist.custom_serializer,
            parts=(media, assist),
        )


@dataclass(kw_only=True)
class CombinedAPIInstance(llm.APIInstance):
    """Sends each tool call to the instance that owns the tool."""

    parts: tuple[llm.APIInstance, ...]

    async def async_call_tool(self, tool_input: llm.ToolInput) -> Any:
        """Run the call on the part that has a tool of that name."""
        for part in self.parts:
            if any(tool.name == tool_input.tool_name for tool in part.tools):
                return await part.async_call_tool(tool_input)
        raise HomeAssistantError(f'Tool "{tool_input.tool_name}" not found')


@callback
def async_register_llm_apis(hass: HomeAssistant, entry: AgentMediaConfigEntry) -> CALLBACK_TYPE:
    """Register the entry's APIs; return the callback that unregisters them (for `entry.async_on_unload`).

    Where the `llm` tool platform exists, the tools come with Assist: nothing to register.
    """
    unregister: list[CALLBACK_TYPE] = []
    if compat.llm_tool_platform():
        return _async_unregister_all(unregister)
    media = MediaToolsAPI(
        hass=hass, id=api_id(entry.entry_id), name=entry.title, entry=entry, registry=ToolRegistry(entry)
    )
    unregister.append(llm.async_register_api(hass, media))
    if not compat.several_llm_apis_per_agent():
        combined = AssistWithMediaToolsAPI(
            hass=hass, id=combined_api_id(entry.entry_id), name=f"Assist + {entry.title}", media=media
        )
        unregister.append(llm.async_register_api(hass, combined))
    return _async_unregister_all(unregister)


def _async_unregister_all(unregister: list[CALLBACK_TYPE]) -> CALLBACK_TYPE:
    @callback
    def async_unregister() -> None:
        for unregister_api in unregister:
            unregister_api()

    return async_unregister
