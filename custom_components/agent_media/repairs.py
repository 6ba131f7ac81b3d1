"""Repair flows: an agent still set to Agent Media's former LLM API is set to Assist (`stale_api.py`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from homeassistant.components.repairs import ConfirmRepairFlow, RepairsFlow

from .stale_api import async_choose_assist

if TYPE_CHECKING:
    from homeassistant.core import HomeAssistant
    from homeassistant.data_entry_flow import FlowResult


class ChooseAssistFlow(ConfirmRepairFlow):
    """Confirm, then set the agent to Assist in place of Agent Media's API."""

    def __init__(self, entry_id: str, subentry_id: str | None) -> None:
        """Remember which agent the issue is about."""
        self.entry_id = entry_id
        self.subentry_id = subentry_id

    async def async_step_confirm(self, user_input: dict[str, str] | None = None) -> FlowResult:
        """Show the issue's text; on confirmation, change the agent's option."""
        if user_input is not None:
            async_choose_assist(self.hass, self.entry_id, self.subentry_id)
        return await super().async_step_confirm(user_input)


async def async_create_fix_flow(
    hass: HomeAssistant,  # noqa: ARG001 - Home Assistant's signature
    issue_id: str,  # noqa: ARG001
    data: dict[str, Any] | None,
) -> RepairsFlow:
    """Return the flow that fixes a stale-API issue (the only fixable issue Agent Media raises)."""
    data = data or {}
    return ChooseAssistFlow(str(data.get("entry_id", "")), str(data.get("subentry_id") or "") or None)
