"""Agent Media's tools in the Assist API (HA ≥ 2026.8, `llm.py`): another assistant uses them unchanged.

The other assistant is scripted here as a minimal OpenAI-compatible agent set to the Assist API: it sends
Assist's tools to the rig's Chat Completions server, runs the tool calls the script answers with through the
Assist API instance, and returns the model's closing text.
"""

from __future__ import annotations

import json
import logging
from typing import TYPE_CHECKING, Any

import pytest

from custom_components.agent_media import compat
from custom_components.agent_media.agent.tools import TOOL_CLASSES
from custom_components.agent_media.llm import ASSIST_PROMPT
from homeassistant.core import Context
from homeassistant.helpers import llm
from homeassistant.helpers.aiohttp_client import async_get_clientsession

from .helpers import torrents_in_qbittorrent

if TYPE_CHECKING:
    from pytest_homeassistant_custom_component.common import MockConfigEntry, MockUser

    from homeassistant.core import HomeAssistant

    from .rig.llm_server import ScriptedLLMServer
    from .rig.qbittorrent import QBittorrentInstance

pytestmark = pytest.mark.llm_tool_platform(True)

PREFIXED = {f"agent_media__{cls.name}" for cls in TOOL_CLASSES}


def _context(user_id: str | None = None) -> llm.LLMContext:
    return compat.build_llm_context(
        platform="other_agent", context=Context(user_id=user_id), language="en", device_id=None
    )


async def _assist_agent(
    hass: HomeAssistant, server: ScriptedLLMServer, text: str, llm_context: llm.LLMContext
) -> tuple[str, list[dict[str, Any]]]:
    """One turn of an OpenAI-compatible agent set to Assist; return its answer and the tool results."""
    instance = await llm.async_get_api(hass, llm.LLM_API_ASSIST, llm_context)
    tools = [
        {
            "type": "function",
            "function": {
                "name": tool.name,
                "description": tool.description,
                "parameters": compat.schema_to_openapi(tool.parameters, instance.custom_serializer),
            },
        }
        for tool in instance.tools
    ]
    messages: list[dict[str, Any]] = [
        {"role": "system", "content": instance.api_prompt},
        {"role": "user", "content": text},
    ]
    results: list[dict[str, Any]] = []
    session = async_get_clientsession(hass)
    for _ in range(5):
        async with session.post(
            f"{server.base_url}/chat/completions",
            json={"model": server.model, "messages": messages, "tools": tools},
            headers={"Authorization": f"Bearer {server.api_key}"},
        ) as response:
            assert response.status == 200
            message = (await response.json())["choices"][0]["message"]
        messages.append(message)
        if not message.get("tool_calls"):
            return message["content"], results
        for call in message["tool_calls"]:
            function = call["function"]
            result = await instance.async_call_tool(
                llm.ToolInput(function["name"], json.loads(function["arguments"]), id=call["id"])
            )
            results.append(result.data)
            messages.append({"role": "tool", "tool_call_id": call["id"], "content": json.dumps(result.data)})
    raise AssertionError("the scripted agent never answered")


async def test_assist_offers_the_tools_with_their_names_and_prompt(
    hass: HomeAssistant, setup_integration: MockConfigEntry, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING)
    instance = await llm.async_get_api(hass, llm.LLM_API_ASSIST, _context())
    ours = {tool.name: tool for tool in instance.tools if tool.name.startswith("agent_media__")}

    assert set(ours) == PREFIXED
    assert all(tool.integration == "agent_media" and tool.title for tool in ours.values())
    assert ours["agent_media__find_torrents"].annotations.read_only
    assert not ours["agent_media__download_media"].annotations.read_only
    assert ASSIST_PROMPT in instance.api_prompt
    # No API of our own to pick any more, and nothing logged about our tools (prefix, integration).
    assert not [api for api in llm.async_get_apis(hass) if api.id.startswith("agent_media")]
    assert not [record for record in caplog.records if "agent_media" in record.getMessage()]

    # Unloaded, the entry offers nothing.
    assert await hass.config_entries.async_unload(setup_integration.entry_id)
    await hass.async_block_till_done()
    instance = await llm.async_get_api(hass, llm.LLM_API_ASSIST, _context())
    assert not [tool for tool in instance.tools if tool.name.startswith("agent_media__")]


async def test_an_assistant_set_to_assist_downloads_a_film(
    hass: HomeAssistant,
    setup_integration: MockConfigEntry,
    llm_server: ScriptedLLMServer,
    qbittorrent: QBittorrentInstance,
) -> None:
    entry = setup_integration
    llm_server.queue_tool_calls([("agent_media__find_media_imdb_id", {"media_title": "Sintel"})])
    llm_server.queue_tool_calls([("agent_media__download_media", {"media_title": "Sintel", "year": 2010})])
    llm_server.queue_text("Sintel is downloading.")

    answer, results = await _assist_agent(hass, llm_server, "Download Sintel", _context())

    assert answer == "Sintel is downloading."
    offered = {tool["function"]["name"] for tool in llm_server.requests[0]["tools"]}
    assert offered >= PREFIXED
    assert ASSIST_PROMPT in llm_server.requests[0]["messages"][0]["content"]
    identified, downloaded = results
    assert identified["status"] == "ok"
    assert identified["year"] == 2010
    assert downloaded["decision"] == "downloading"
    assert downloaded["hash"] in await torrents_in_qbittorrent(hass, qbittorrent)
    assert downloaded["hash"] in entry.runtime_data.memory.downloads.records()


async def test_the_permission_policy_holds_for_other_assistants(
    hass: HomeAssistant,
    setup_integration: MockConfigEntry,
    hass_read_only_user: MockUser,
    qbittorrent: QBittorrentInstance,
) -> None:
    """The requester comes from the assistant's context: a user who is no administrator changes nothing."""
    entry = setup_integration
    instance = await llm.async_get_api(hass, llm.LLM_API_ASSIST, _context(hass_read_only_user.id))
    refused = await instance.async_call_tool(
        llm.ToolInput("agent_media__set_path_for_folder", {"folder_name": "download", "path_value": "/media"})
    )
    assert refused.error
    assert refused.data["error"] == "not_allowed"
    assert entry.runtime_data.memory.household.folders() == {}
    found = await instance.async_call_tool(
        llm.ToolInput("agent_media__find_torrents", {"media_title": "Big Buck Bunny"})
    )
    assert found.data["status"] == "ok"
    assert found.data["torrents"]
    assert await torrents_in_qbittorrent(hass, qbittorrent) == {}
