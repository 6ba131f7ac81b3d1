"""AI Task entities: automations use the agent through `ai_task.generate_data` (HA ≥ 2025.7).

Each AI task subentry's entity runs one turn of the conversation agent's loop against the rig's scripted
LLM server and real qBittorrent, with the permission policy of whoever calls the action and the subentry's
profile. On Home Assistant versions without AI Task (2025.4), the entry sets up without that platform or
subentry type.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

import pytest
from pytest_homeassistant_custom_component.common import MockConfigEntry

from custom_components.agent_media.config_flow import AgentMediaConfigFlow
from custom_components.agent_media.const import (
    DOMAIN,
    PROFILE_HOUSEHOLD,
    PROFILE_SEARCH_ONLY,
    SUBENTRY_AI_TASK,
)
from homeassistant.config_entries import SOURCE_USER, ConfigEntryState, ConfigSubentryData
from homeassistant.const import CONF_NAME
from homeassistant.core import Context
from homeassistant.data_entry_flow import FlowResultType
from homeassistant.exceptions import HomeAssistantError
from homeassistant.helpers import entity_registry as er

from .helpers import torrents_in_qbittorrent
from .test_conversation import tool_results

if TYPE_CHECKING:
    from pathlib import Path

    from pytest_homeassistant_custom_component.common import MockUser

    from homeassistant.core import HomeAssistant

    from .rig.llm_server import ScriptedLLMServer
    from .rig.qbittorrent import QBittorrentInstance

WITH_AI_TASK = pytest.mark.ai_task(True)
WITHOUT_AI_TASK = pytest.mark.ai_task(False)


async def add_task(hass: HomeAssistant, entry: MockConfigEntry, name: str, profile: str) -> str:
    """Add an AI task through its subentry flow; return its entity id once the entry has reloaded."""
    result = await hass.config_entries.subentries.async_init(
        (entry.entry_id, SUBENTRY_AI_TASK), context={"source": SOURCE_USER}
    )
    assert result["type"] is FlowResultType.FORM
    result = await hass.config_entries.subentries.async_configure(
        result["flow_id"], {CONF_NAME: name, "profile": profile}
    )
    assert result["type"] is FlowResultType.CREATE_ENTRY
    await hass.async_block_till_done()
    (subentry_id,) = (sub.subentry_id for sub in entry.subentries.values() if sub.title == name)
    entity_id = er.async_get(hass).async_get_entity_id("ai_task", DOMAIN, subentry_id)
    assert entity_id is not None
    return entity_id


async def generate(
    hass: HomeAssistant, entity_id: str, instructions: str, *, context: Context | None = None, **extra: Any
) -> Any:
    """Call `ai_task.generate_data` as an automation does (a context with no user); return the task's data."""
    response = await hass.services.async_call(
        "ai_task",
        "generate_data",
        {"entity_id": entity_id, "task_name": "film night", "instructions": instructions, **extra},
        blocking=True,
        return_response=True,
        context=context or Context(),
    )
    assert response is not None
    return response["data"]


@WITH_AI_TASK
async def test_an_automation_picks_a_film_and_downloads_it(
    hass: HomeAssistant,
    setup_integration: MockConfigEntry,
    llm_server: ScriptedLLMServer,
    qbittorrent: QBittorrentInstance,
) -> None:
    from custom_components.agent_media.ai_task import TASK_PROMPT  # noqa: PLC0415 - HA ≥ 2025.7 only

    entry = setup_integration
    entity_id = await add_task(hass, entry, "Film night", PROFILE_HOUSEHOLD)
    llm_server.queue_tool_calls([("find_media_imdb_id", {"media_title": "Sintel"})])
    llm_server.queue_tool_calls([("download_media", {"media_title": "Sintel", "year": 2010})])
    llm_server.queue_text("Tonight's film is Sintel (2010); it is downloading.")

    data = await generate(hass, entity_id, "Pick tonight's family film, Sintel, and fetch it.")

    assert data == "Tonight's film is Sintel (2010); it is downloading."
    first = llm_server.requests[0]
    assert TASK_PROMPT in first["messages"][0]["content"]
    assert "Pick tonight's family film" in first["messages"][-1]["content"]
    assert {"find_media_imdb_id", "download_media"} <= {tool["function"]["name"] for tool in first["tools"]}
    (downloaded,) = tool_results(llm_server.requests[2])[1:]
    assert downloaded["decision"] == "downloading"
    assert downloaded["hash"] in await torrents_in_qbittorrent(hass, qbittorrent)
    assert downloaded["hash"] in entry.runtime_data.memory.downloads.records()
    state = hass.states.get(entity_id)
    assert state is not None
    assert state.state not in ("unknown", "unavailable")  # the time of the last task


@WITH_AI_TASK
async def test_a_structured_task_returns_its_object(
    hass: HomeAssistant, setup_integration: MockConfigEntry, llm_server: ScriptedLLMServer
) -> None:
    entity_id = await add_task(hass, setup_integration, "Film facts", PROFILE_HOUSEHOLD)
    structure = {
        "title": {"selector": {"text": {}}, "required": True},
        "year": {"selector": {"number": {}}},
    }
    llm_server.queue_tool_calls([("find_media_imdb_id", {"media_title": "Sintel"})])
    llm_server.queue_text('```json\n{"title": "Sintel", "year": 2010}\n```')

    data = await generate(hass, entity_id, "Which year is Sintel from?", structure=structure)

    assert data == {"title": "Sintel", "year": 2010}
    system = llm_server.requests[0]["messages"][0]["content"]
    assert "JSON schema" in system
    assert '"title"' in system
    assert '"year"' in system

    # An answer that is no JSON object fails the task with an explanation, never odd data.
    llm_server.queue_text("Sintel is from 2010.")
    with pytest.raises(HomeAssistantError, match="JSON object"):
        await generate(hass, entity_id, "Which year is Sintel from?", structure=structure)


@WITH_AI_TASK
async def test_a_search_only_task_searches_but_adds_nothing(
    hass: HomeAssistant,
    setup_integration: MockConfigEntry,
    llm_server: ScriptedLLMServer,
    qbittorrent: QBittorrentInstance,
) -> None:
    """The subentry's profile limits even an automation, which the household's policy trusts."""
    entity_id = await add_task(hass, setup_integration, "Suggestions", PROFILE_SEARCH_ONLY)
    llm_server.queue_tool_calls([("find_torrents", {"media_title": "Sintel"})])
    llm_server.queue_tool_calls(
        [("add_torrent_by_index", {"index": 1}), ("download_media", {"media_title": "Sintel"})]
    )
    llm_server.queue_text("I may not download.")

    data = await generate(hass, entity_id, "Find Sintel and download the best release.")

    assert data == "I may not download."
    offered = {tool["function"]["name"] for tool in llm_server.requests[0]["tools"]}
    assert "find_torrents" in offered
    assert not offered & {"download_media", "add_torrent_by_index", "set_path_for_folder"}
    assert [result["status"] for result in tool_results(llm_server.requests[1])] == ["ok"]
    refusals = tool_results(llm_server.requests[2])[1:]
    assert [refusal["error"] for refusal in refusals] == ["not_allowed"] * 2
    assert await torrents_in_qbittorrent(hass, qbittorrent) == {}


@WITH_AI_TASK
async def test_a_task_run_by_a_person_has_that_persons_permissions(
    hass: HomeAssistant,
    setup_integration: MockConfigEntry,
    llm_server: ScriptedLLMServer,
    hass_read_only_user: MockUser,
    tmp_path: Path,
) -> None:
    """Run from the UI by someone who is no administrator: settings stay as they are, as with the agent."""
    entry = setup_integration
    entity_id = await add_task(hass, entry, "Folders", PROFILE_HOUSEHOLD)
    hass.config.allowlist_external_dirs = {str(tmp_path)}
    llm_server.queue_tool_calls(
        [("set_path_for_folder", {"folder_name": "download", "path_value": str(tmp_path)})]
    )
    llm_server.queue_text("Not allowed.")

    await generate(
        hass,
        entity_id,
        f"Set the download folder to {tmp_path}",
        context=Context(user_id=hass_read_only_user.id),
    )

    assert [result["error"] for result in tool_results(llm_server.requests[1])] == ["not_allowed"]
    assert entry.runtime_data.memory.household.folders() == {}

    # An automation (no user) may, as Home Assistant's own actions.
    llm_server.queue_tool_calls(
        [("set_path_for_folder", {"folder_name": "download", "path_value": str(tmp_path)})]
    )
    llm_server.queue_text("Done.")
    await generate(hass, entity_id, f"Set the download folder to {tmp_path}")
    assert [result["status"] for result in tool_results(llm_server.requests[3])] == ["ok"]
    assert entry.runtime_data.memory.household.folders() != {}


@WITHOUT_AI_TASK
@pytest.mark.usefixtures("core_setup")
async def test_without_ai_task_the_entry_sets_up_with_no_such_entity(
    hass: HomeAssistant,
    entry_data: dict[str, Any],
    entry_options: dict[str, Any],
    caplog: pytest.LogCaptureFixture,
) -> None:
    """HA 2025.4 has no AI Task: no platform, no subentry type to add, no error, even with such a subentry."""
    caplog.set_level(logging.WARNING)
    entry = MockConfigEntry(
        domain=DOMAIN,
        title="Agent Media",
        data=entry_data,
        options=entry_options,
        subentries_data=[
            ConfigSubentryData(
                data={"profile": PROFILE_HOUSEHOLD},
                subentry_type=SUBENTRY_AI_TASK,
                title="Film night",
                unique_id=None,
            )
        ],
    )
    entry.add_to_hass(hass)
    assert SUBENTRY_AI_TASK not in AgentMediaConfigFlow.async_get_supported_subentry_types(entry)

    assert await hass.config_entries.async_setup(entry.entry_id)
    await hass.async_block_till_done()

    assert entry.state is ConfigEntryState.LOADED
    entities = er.async_entries_for_config_entry(er.async_get(hass), entry.entry_id)
    assert [entity.domain for entity in entities if entity.domain == "conversation"] == ["conversation"]
    assert not [entity for entity in entities if entity.domain == "ai_task"]
    assert "ai_task" not in hass.config.components
    assert not [record for record in caplog.records if record.levelno >= logging.ERROR]
