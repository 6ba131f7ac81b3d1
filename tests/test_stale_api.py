"""Agents still set to Agent Media's former LLM API after an upgrade to HA ≥ 2026.8: a fixable repair issue.

The agents are other integrations' config entries as Home Assistant stores them: an OpenAI-like entry with the
option on the entry (the older layout) and an Ollama-like entry with conversation subentries (the newer one).
On versions where Agent Media still registers its API (before 2026.8) nothing is stale and no issue is raised.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest
from pytest_homeassistant_custom_component.common import MockConfigEntry

from custom_components.agent_media import compat
from custom_components.agent_media.const import DOMAIN
from custom_components.agent_media.llm_api import api_id, combined_api_id
from custom_components.agent_media.stale_api import ISSUE_PREFIX, issue_id
from homeassistant.components.repairs import repairs_flow_manager
from homeassistant.config_entries import ConfigSubentryData
from homeassistant.const import CONF_LLM_HASS_API
from homeassistant.core import Context
from homeassistant.data_entry_flow import FlowResultType
from homeassistant.helpers import issue_registry as ir, llm
from homeassistant.setup import async_setup_component

if TYPE_CHECKING:
    from homeassistant.core import HomeAssistant

pytestmark = pytest.mark.usefixtures("core_setup")


def other_agents(hass: HomeAssistant, ours: MockConfigEntry) -> tuple[MockConfigEntry, MockConfigEntry]:
    """Add an OpenAI-like agent (option on the entry) and an Ollama-like one (subentries) set to our API."""
    openai = MockConfigEntry(
        domain="openai_conversation",
        title="OpenAI Conversation",
        data={"api_key": "not-used"},
        options={CONF_LLM_HASS_API: [llm.LLM_API_ASSIST, api_id(ours.entry_id)], "prompt": "Be brief."},
    )
    ollama = MockConfigEntry(
        domain="ollama",
        title="Ollama",
        data={"url": "http://127.0.0.1:1"},
        subentries_data=[
            ConfigSubentryData(
                data={CONF_LLM_HASS_API: [combined_api_id(ours.entry_id)], "model": "llama3"},
                subentry_type="conversation",
                title="Ollama Films",
                unique_id=None,
            ),
            ConfigSubentryData(
                data={CONF_LLM_HASS_API: [llm.LLM_API_ASSIST], "model": "llama3"},
                subentry_type="conversation",
                title="Ollama Lights",
                unique_id=None,
            ),
        ],
    )
    openai.add_to_hass(hass)
    ollama.add_to_hass(hass)
    return openai, ollama


def subentry(entry: MockConfigEntry, title: str) -> Any:
    (found,) = (sub for sub in entry.subentries.values() if sub.title == title)
    return found


def our_issues(hass: HomeAssistant) -> dict[str, ir.IssueEntry]:
    return {
        issue: entry
        for (domain, issue), entry in ir.async_get(hass).issues.items()
        if domain == DOMAIN and issue.startswith(ISSUE_PREFIX)
    }


@pytest.mark.llm_tool_platform(True)
async def test_agents_set_to_our_former_api_are_repaired_to_assist(
    hass: HomeAssistant, config_entry: MockConfigEntry
) -> None:
    openai, ollama = other_agents(hass, config_entry)
    films = subentry(ollama, "Ollama Films")
    assert await hass.config_entries.async_setup(config_entry.entry_id)
    await hass.async_block_till_done()

    issues = our_issues(hass)
    assert set(issues) == {issue_id(openai.entry_id, None), issue_id(ollama.entry_id, films.subentry_id)}
    issue = issues[issue_id(ollama.entry_id, films.subentry_id)]
    assert issue.is_fixable
    assert issue.severity is ir.IssueSeverity.ERROR
    assert issue.translation_key == "stale_llm_api"
    assert issue.translation_placeholders == {"agent": "Ollama Films (Ollama)"}
    # An entry that is itself the agent is named once, not "OpenAI (OpenAI)".
    assert issues[issue_id(openai.entry_id, None)].translation_placeholders == {"agent": openai.title}

    # The fix puts Assist in place of our API and keeps the rest of the agent's settings.
    assert await async_setup_component(hass, "repairs", {})
    manager = repairs_flow_manager(hass)
    assert manager is not None
    for repaired in issues:
        result = await manager.async_init(DOMAIN, data={"issue_id": repaired})
        assert result["type"] is FlowResultType.FORM
        assert result["step_id"] == "confirm"
        result = await manager.async_configure(result["flow_id"], {})
        assert result["type"] is FlowResultType.CREATE_ENTRY
    await hass.async_block_till_done()

    assert dict(openai.options) == {CONF_LLM_HASS_API: [llm.LLM_API_ASSIST], "prompt": "Be brief."}
    assert dict(subentry(ollama, "Ollama Films").data) == {
        CONF_LLM_HASS_API: [llm.LLM_API_ASSIST],
        "model": "llama3",
    }
    assert dict(subentry(ollama, "Ollama Lights").data) == {
        CONF_LLM_HASS_API: [llm.LLM_API_ASSIST],
        "model": "llama3",
    }
    assert our_issues(hass) == {}
    # Every agent's choice exists now: Assist, which carries our tools.
    await llm.async_get_api(
        hass,
        llm.LLM_API_ASSIST,
        compat.build_llm_context(platform="ollama", context=Context(), language="en", device_id=None),
    )

    # An agent changed by hand meanwhile loses its issue at the next setup.
    hass.config_entries.async_update_entry(openai, options={CONF_LLM_HASS_API: [api_id("gone")]})
    assert await hass.config_entries.async_reload(config_entry.entry_id)
    await hass.async_block_till_done()
    assert set(our_issues(hass)) == {issue_id(openai.entry_id, None)}
    hass.config_entries.async_update_entry(openai, options={CONF_LLM_HASS_API: llm.LLM_API_ASSIST})
    assert await hass.config_entries.async_reload(config_entry.entry_id)
    await hass.async_block_till_done()
    assert our_issues(hass) == {}


@pytest.mark.llm_tool_platform(False)
async def test_no_issue_while_our_api_is_registered(
    hass: HomeAssistant, config_entry: MockConfigEntry
) -> None:
    other_agents(hass, config_entry)
    assert await hass.config_entries.async_setup(config_entry.entry_id)
    await hass.async_block_till_done()

    context = compat.build_llm_context(platform="ollama", context=Context(), language="en", device_id=None)
    instance = await llm.async_get_api(hass, api_id(config_entry.entry_id), context)
    assert any(tool.name == "find_torrents" for tool in instance.tools)
    assert our_issues(hass) == {}
