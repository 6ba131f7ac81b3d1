"""Conversation agents as config subentries: add or change one (name, model, prompt, language, profile).

Every entry has at least one agent: a new entry gets `default_agent` with the entry's title, and an entry from
before agents were subentries migrates to one (`__init__.async_migrate_entry`). A `search_only` agent can
search and ask but never add or change anything, whatever the household's options allow. An AI task (a
subentry of type `ai_task_data`, where Home Assistant has AI Task entities) has the same settings.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import voluptuous as vol

from homeassistant.config_entries import ConfigSubentryData, ConfigSubentryFlow, SubentryFlowResult
from homeassistant.const import CONF_NAME
from homeassistant.helpers.selector import (
    LanguageSelector,
    SelectSelector,
    SelectSelectorConfig,
    SelectSelectorMode,
    TextSelector,
    TextSelectorConfig,
)

from . import compat
from .const import (
    CONF_AGENT_LANGUAGE,
    CONF_AGENT_MODEL,
    CONF_AGENT_PROFILE,
    CONF_AGENT_PROMPT,
    PROFILE_HOUSEHOLD,
    PROFILES,
    SUBENTRY_AI_TASK,
    SUBENTRY_CONVERSATION,
)

if TYPE_CHECKING:
    from collections.abc import Mapping

# What a field left empty stores: nothing, so the entry's model, the person's language, no extra prompt.
_OPTIONAL_FIELDS = (CONF_AGENT_MODEL, CONF_AGENT_PROMPT, CONF_AGENT_LANGUAGE)


def default_agent(title: str) -> ConfigSubentryData:
    """Return the agent a new or migrated entry gets: its title, the entry's model, the household's policy."""
    return ConfigSubentryData(
        data={CONF_AGENT_PROFILE: PROFILE_HOUSEHOLD},
        subentry_type=SUBENTRY_CONVERSATION,
        title=title,
        unique_id=None,
    )


def agent_subentry_flows() -> dict[str, type[ConfigSubentryFlow]]:
    """Return the flows of the agents' subentry types: conversation agents, and AI tasks where HA has them."""
    flows: dict[str, type[ConfigSubentryFlow]] = {SUBENTRY_CONVERSATION: ConversationAgentFlow}
    if compat.ai_task_platforms():
        flows[SUBENTRY_AI_TASK] = ConversationAgentFlow
    return flows


def _agent_schema() -> vol.Schema:
    return vol.Schema(
        {
            vol.Required(CONF_NAME): TextSelector(),
            vol.Optional(CONF_AGENT_MODEL): TextSelector(),
            vol.Optional(CONF_AGENT_PROMPT): TextSelector(TextSelectorConfig(multiline=True)),
            vol.Optional(CONF_AGENT_LANGUAGE): LanguageSelector(),
            vol.Required(CONF_AGENT_PROFILE, default=PROFILE_HOUSEHOLD): SelectSelector(
                SelectSelectorConfig(
                    options=list(PROFILES), mode=SelectSelectorMode.LIST, translation_key="agent_profile"
                )
            ),
        }
    )


def _agent_data(user_input: Mapping[str, Any]) -> dict[str, Any]:
    """Return the subentry's data: the profile, and only the overrides given."""
    data: dict[str, Any] = {CONF_AGENT_PROFILE: user_input[CONF_AGENT_PROFILE]}
    for key in _OPTIONAL_FIELDS:
        if value := str(user_input.get(key) or "").strip():
            data[key] = value
    return data


class ConversationAgentFlow(ConfigSubentryFlow):
    """Add or change one of the entry's conversation agents; the entry reloads to apply it."""

    async def async_step_user(self, user_input: dict[str, Any] | None = None) -> SubentryFlowResult:
        """Ask for the new agent's name, model, prompt, language and profile."""
        if user_input is not None:
            return self.async_create_entry(
                title=user_input[CONF_NAME].strip(), data=_agent_data(user_input), unique_id=None
            )
        return self.async_show_form(step_id="user", data_schema=_agent_schema())

    async def async_step_reconfigure(self, user_input: dict[str, Any] | None = None) -> SubentryFlowResult:
        """Change an agent; its entity and device keep their ids."""
        subentry = self._get_reconfigure_subentry()
        if user_input is not None:
            return self.async_update_and_abort(
                self._get_entry(), subentry, title=user_input[CONF_NAME].strip(), data=_agent_data(user_input)
            )
        current = {CONF_NAME: subentry.title, **subentry.data}
        return self.async_show_form(
            step_id="reconfigure", data_schema=self.add_suggested_values_to_schema(_agent_schema(), current)
        )
