"""Small helpers the tests share to read what Agent Media remembers."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from custom_components.agent_media.requester import SYSTEM_KEY

if TYPE_CHECKING:
    from custom_components.agent_media.memory import AgentMediaMemory


def last_results(memory: AgentMediaMemory, requester_key: str = SYSTEM_KEY) -> list[dict[str, Any]]:
    """Return the numbered results of a requester's last search (the system's: actions, automations)."""
    search = memory.working.search(requester_key)
    return search["results"] if search else []
