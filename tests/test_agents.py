"""Several conversation agents per entry (config subentries): each its own name, model, prompt, language and
permission profile, on the entry's shared downloads and memory; an entry from before migrates to one agent."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest
from pytest_homeassistant_custom_component.common import MockConfigEntry

from custom_components.agent_media.const import (
    CONF_ALLOW_NON_ADMIN_SETTINGS,
    CONF_PROMPT,
    DOMAIN,
    PROFILE_HOUSEHOLD,
    PROFILE_SEARCH_ONLY,
    SUBENTRY_CONVERSATION,
)
from homeassistant.components import conversation
from homeassistant.config_entries import SOURCE_RECONFIGURE, SOURCE_USER
from homeassistant.const import CONF_NAME
from homeassistant.core import Context
from homeassistant.data_entry_flow import FlowResultType
from homeassistant.helpers import device_registry as dr, entity_registry as er

from .helpers import torrents_in_qbittorrent
from .test_conversation import tool_results

if TYPE_CHECKING:
    from pathlib import Path

    from pytest_homeassistant_custom_component.common import MockUser

    from homeassistant.core import HomeAssistant

    from .rig.llm_server import ScriptedLLMServer
    from .rig.qbittorrent import QBittorrentInstance

pytestmark = pytest.mark.usefixtures("core_setup")


def agents(entry: MockConfigEntry) -> dict[str, Any]:
    """The entry's conversation subentries by title."""
    return {sub.title: sub for sub in entry.subentries.values() if sub.subentry_type == SUBENTRY_CONVERSATION}


def agent_entity(hass: HomeAssistant, subentry_id: str) -> str:
    entity_id = er.async_get(hass).async_get_entity_id("conversation", DOMAIN, subentry_id)
    assert entity_id is not None
    return entity_id


async def say(
    hass: HomeAssistant, entity_id: str, text: str, user: MockUser, language: str = "en"
) -> conversation.ConversationResult:
    return await conversation.async_converse(
        hass, text, None, Context(user_id=user.id), language=language, agent_id=entity_id
    )


async def add_agent(hass: HomeAssistant, entry: MockConfigEntry, **fields: Any) -> str:
    """Add an agent through its subentry flow; return its subentry id once the entry has reloaded."""
    result = await hass.config_entries.subentries.async_init(
        (entry.entry_id, SUBENTRY_CONVERSATION), context={"source": SOURCE_USER}
    )
    assert result["type"] is FlowResultType.FORM
    result = await hass.config_entries.subentries.async_configure(result["flow_id"], fields)
    assert result["type"] is FlowResultType.CREATE_ENTRY
    await hass.async_block_till_done()
    return agents(entry)[fields[CONF_NAME].strip()].subentry_id


async def test_an_entry_from_before_migrates_to_one_agent(
    hass: HomeAssistant,
    entry_data: dict[str, Any],
    entry_options: dict[str, Any],
    llm_server: ScriptedLLMServer,
    hass_admin_user: MockUser,
) -> None:
    """Version 1.1 had one agent per entry: its entity moves to a subentry, keeping its id and settings."""
    entry = MockConfigEntry(
        domain=DOMAIN,
        title="Agent Media",
        data=entry_data,
        options={**entry_options, CONF_PROMPT: "Call me Captain."},
        version=1,
        minor_version=1,
    )
    entry.add_to_hass(hass)
    registry = er.async_get(hass)
    before = registry.async_get_or_create(
        "conversation", DOMAIN, entry.entry_id, config_entry=entry, suggested_object_id="agent_media"
    )
    registry.async_update_entity(before.entity_id, name="Films")  # a person's own name for it stays too

    assert await hass.config_entries.async_setup(entry.entry_id)
    await hass.async_block_till_done()

    assert entry.minor_version == 2
    (agent,) = agents(entry).values()
    assert agent.title == "Agent Media"
    assert dict(agent.data) == {"profile": PROFILE_HOUSEHOLD}  # no overrides: the entry's model and prompt
    after = registry.async_get(before.entity_id)
    assert after is not None
    assert after.unique_id == agent.subentry_id
    assert after.config_subentry_id == agent.subentry_id
    assert after.name == "Films"
    assert hass.states.get(before.entity_id) is not None

    llm_server.queue_text("Aye.")
    result = await say(hass, before.entity_id, "Hello", hass_admin_user)
    assert result.response.speech["plain"]["speech"] == "Aye."
    assert "Call me Captain." in llm_server.requests[0]["messages"][0]["content"]
    assert llm_server.requests[0]["model"] == entry_data["llm_model"]


async def test_a_search_only_agent_can_search_but_adds_and_changes_nothing(
    hass: HomeAssistant,
    config_entry: MockConfigEntry,
    llm_server: ScriptedLLMServer,
    qbittorrent: QBittorrentInstance,
    hass_admin_user: MockUser,
    tmp_path: Path,
) -> None:
    entry = config_entry
    # The household lets anyone change settings: the children's agent still may not.
    hass.config_entries.async_update_entry(
        entry, options={**entry.options, CONF_ALLOW_NON_ADMIN_SETTINGS: True}
    )
    assert await hass.config_entries.async_setup(entry.entry_id)
    await hass.async_block_till_done()
    household = agent_entity(hass, next(iter(agents(entry).values())).subentry_id)
    children_id = await add_agent(
        hass,
        entry,
        **{
            CONF_NAME: " Children ",
            "llm_model": "family-model",
            "prompt": "Only films for children.",
            "language": "fr",
            "profile": PROFILE_SEARCH_ONLY,
        },
    )
    children = agent_entity(hass, children_id)
    assert children != household
    device = dr.async_get(hass).async_get(er.async_get(hass).async_get(children).device_id)
    assert (device.name, device.model) == ("Children", "family-model")

    # An administrator asks the children's agent: a search works; adding or changing settings never does.
    folder = tmp_path / "films"
    folder.mkdir()
    hass.config.allowlist_external_dirs = {str(tmp_path)}
    llm_server.queue_tool_calls([("find_torrents", {"media_title": "Sintel"})])
    llm_server.queue_tool_calls(
        [
            ("add_torrent_by_index", {"index": 1}),
            ("download_media", {"media_title": "Sintel"}),
            ("set_path_for_folder", {"folder_name": "download", "path_value": str(folder)}),
        ]
    )
    llm_server.queue_text("Je ne peux pas.")
    result = await say(
        hass, children, f"Find Sintel, download it and set the download folder to {folder}", hass_admin_user
    )

    assert result.response.language == "fr"  # the agent's language, whatever the person's
    first, second, _ = llm_server.requests
    assert first["model"] == "family-model"
    assert "Only films for children." in first["messages"][0]["content"]
    offered = {tool["function"]["name"] for tool in first["tools"]}
    assert "find_torrents" in offered
    assert not offered & {"download_media", "add_torrent_by_index", "set_path_for_folder", "set_preference"}
    assert [result["status"] for result in tool_results(second)] == ["ok"]
    refusals = tool_results(llm_server.requests[2])[1:]
    assert [refusal["error"] for refusal in refusals] == ["not_allowed"] * 3
    assert await torrents_in_qbittorrent(hass, qbittorrent) == {}
    assert entry.runtime_data.memory.household.folders() == {}

    # The household's agent, same entry, same person: adds the same search's first result.
    llm_server.queue_tool_calls([("find_torrents", {"media_title": "Sintel"})])
    llm_server.queue_tool_calls([("add_torrent_by_index", {"index": 1})])
    llm_server.queue_text("Added.")
    await say(hass, household, "Find Sintel and download the first one", hass_admin_user)
    assert tool_results(llm_server.requests[-1])[-1]["status"] == "ok"
    assert len(await torrents_in_qbittorrent(hass, qbittorrent)) == 1


async def test_changing_an_agent_keeps_its_entity(
    hass: HomeAssistant, setup_integration: MockConfigEntry, llm_server: ScriptedLLMServer
) -> None:
    entry = setup_integration
    (agent,) = agents(entry).values()
    entity_id = agent_entity(hass, agent.subentry_id)
    result = await hass.config_entries.subentries.async_init(
        (entry.entry_id, SUBENTRY_CONVERSATION),
        context={"source": SOURCE_RECONFIGURE, "subentry_id": agent.subentry_id},
    )
    assert result["type"] is FlowResultType.FORM
    result = await hass.config_entries.subentries.async_configure(
        result["flow_id"], {CONF_NAME: "Films", "profile": PROFILE_HOUSEHOLD, "llm_model": "other-model"}
    )
    assert result["type"] is FlowResultType.ABORT
    assert result["reason"] == "reconfigure_successful"
    await hass.async_block_till_done()

    assert agent_entity(hass, agent.subentry_id) == entity_id
    assert dict(entry.subentries[agent.subentry_id].data) == {
        "profile": "household",
        "llm_model": "other-model",
    }
    llm_server.queue_text("Hi.")
    await conversation.async_converse(hass, "Hello", None, Context(), language="en", agent_id=entity_id)
    assert llm_server.requests[-1]["model"] == "other-model"
