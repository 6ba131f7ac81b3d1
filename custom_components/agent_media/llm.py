"""Agent Media's tools offered to the Assist API (Home Assistant's `llm` tool platform, HA ≥ 2026.8).

Every assistant set to Assist (OpenAI, Anthropic, Google, Ollama…) and Home Assistant's MCP server then see
the tools as `agent_media__<tool>`, with no extra API to pick. Each call resolves who asks from the caller's
LLM context and goes through the same operations and permission policy as the Agent Media agent's own calls.
On older versions `llm_api.py` registers the tools as an `llm.API` instead (`compat.llm_tool_platform`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from homeassistant.core import HomeAssistant, callback
from homeassistant.helpers import llm

from . import compat
from .agent.tools import ToolRegistry
from .const import DOMAIN

if TYPE_CHECKING:
    from .agent.tool_base import AgentMediaTool

TOOL_PREFIX: Final = f"{DOMAIN}__"

ASSIST_PROMPT: Final = (
    "The agent_media__ tools find films and TV shows and download them with qBittorrent; use them when the "
    "user asks to find, download, wait for or follow a film or show. To download one by name, call "
    "agent_media__download_media (it picks the best release, or returns a question with numbered options). "
    "To choose yourself: agent_media__find_torrents, then agent_media__add_torrent_by_index with a result's "
    'number (from 1, best first). A result with "status": "error" explains what went wrong: tell the user '
    "briefly."
)


class AssistTool(llm.Tool):
    """One of the agent's tools under its Assist name (`agent_media__find_torrents`)."""

    title: str
    annotations: Any
    integration: str

    def __init__(self, tool: AgentMediaTool) -> None:
        """Wrap the entry's tool; the call runs it unchanged."""
        self.tool = tool
        self.name = f"{TOOL_PREFIX}{tool.name}"
        self.title = tool.title
        self.description = tool.description
        self.parameters = tool.parameters
        self.annotations = tool.annotations
        self.integration = DOMAIN

    async def async_call(
        self, hass: HomeAssistant, tool_input: llm.ToolInput, llm_context: llm.LLMContext
    ) -> Any:
        """Run the tool for the requester the context names."""
        return await self.tool.async_call(hass, tool_input, llm_context)


@callback
def async_get_tools(hass: HomeAssistant, llm_context: llm.LLMContext, api_id: str) -> Any:  # noqa: ARG001
    """Return the tools of the first loaded entry for the Assist API, None for other APIs or no entry.

    Tool names carry no entry, so with several entries Assist gets the first one's (the others keep their
    own conversation agents).
    """
    if api_id != llm.LLM_API_ASSIST:
        return None
    entry = next(iter(hass.config_entries.async_loaded_entries(DOMAIN)), None)
    if entry is None:
        return None
    registry = ToolRegistry(entry)
    return compat.llm_tools([AssistTool(tool) for tool in registry.tools.values()], ASSIST_PROMPT)
