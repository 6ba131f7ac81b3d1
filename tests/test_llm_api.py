"""Another Home Assistant agent using the registered Agent Media LLM API (tools, memory, qBittorrent)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from custom_components.agent_media import compat
from custom_components.agent_media.llm_api import API_PROMPT, api_id, combined_api_id
from homeassistant.components import conversation
from homeassistant.components.conversation.chat_log import current_chat_log
from homeassistant.core import Context
from homeassistant.exceptions import HomeAssistantError
from homeassistant.helpers import llm

from .helpers import last_results, torrents_in_qbittorrent

if TYPE_CHECKING:
    from pytest_homeassistant_custom_component.common import MockConfigEntry, MockUser

    from homeassistant.core import HomeAssistant

    from .rig.qbittorrent import QBittorrentInstance

MEDIA_TOOLS = {
    "download_media",
    "set_preference",
    "find_media_imdb_id",
    "find_torrents",
    "get_torrent_by_index",
    "add_torrent_by_index",
    "set_path_for_folder",
    "list_folder",
    "list_wanted",
    "tell_when_ready",
    "play_media",
    "forget_wanted",
}


# The entry's own llm.API, registered where the `llm` tool platform is missing (HA < 2026.8).
OWN_API = pytest.mark.llm_tool_platform(
    False
)  # HA ≥ 2026.8 registers no llm.API of ours: tools come with Assist


def _llm_context(hass: HomeAssistant) -> llm.LLMContext:
    return compat.build_llm_context(platform="other_agent", context=Context(), language="en", device_id=None)


def _data(result: Any) -> dict[str, Any]:
    """The JSON of a tool result: `ToolResult.data` on HA ≥ 2026.10, the dict itself before."""
    data: dict[str, Any] = getattr(result, "data", result)
    return data


async def test_apis_are_registered_per_entry(hass: HomeAssistant, setup_integration: MockConfigEntry) -> None:
    entry = setup_integration
    apis = {api.id: api.name for api in llm.async_get_apis(hass)}
    if compat.llm_tool_platform():  # HA ≥ 2026.8: the tools come with Assist (test_llm_platform.py)
        assert not [api for api in apis if api.startswith("agent_media")]
        return

    assert apis[api_id(entry.entry_id)] == entry.title
    # HA 2025.4 lets an agent pick one API only: there Assist and the media tools also come as one.
    assert (combined_api_id(entry.entry_id) in apis) is (not hasattr(llm, "MergedAPI"))

    assert await hass.config_entries.async_unload(entry.entry_id)
    await hass.async_block_till_done()
    remaining = {api.id for api in llm.async_get_apis(hass)}
    assert api_id(entry.entry_id) not in remaining
    assert combined_api_id(entry.entry_id) not in remaining


@OWN_API
async def test_another_agent_searches_and_downloads(
    hass: HomeAssistant, setup_integration: MockConfigEntry, qbittorrent: QBittorrentInstance
) -> None:
    entry = setup_integration
    instance = await llm.async_get_api(hass, api_id(entry.entry_id), _llm_context(hass))
    assert {tool.name for tool in instance.tools} == MEDIA_TOOLS
    assert instance.api_prompt == API_PROMPT

    found = _data(
        await instance.async_call_tool(llm.ToolInput("find_torrents", {"media_title": "Sintel 2010 1080p"}))
    )
    assert found["status"] == "ok"
    assert found["torrents"][0]["index"] == 1
    assert "Sintel" in found["torrents"][0]["title"]
    stored = last_results(entry.runtime_data.memory)
    assert [result["title"] for result in stored][: len(found["torrents"])] == [
        torrent["title"] for torrent in found["torrents"]
    ]

    added = _data(await instance.async_call_tool(llm.ToolInput("add_torrent_by_index", {"index": 1})))
    assert added["status"] == "ok"
    assert added["hash"] == stored[0]["info_hash"]
    assert added["hash"] in await torrents_in_qbittorrent(hass, qbittorrent)
    assert added["hash"] in entry.runtime_data.memory.downloads.records()


@OWN_API
async def test_tool_errors_come_back_as_results(
    hass: HomeAssistant,
    setup_integration: MockConfigEntry,
    qbittorrent: QBittorrentInstance,
    hass_read_only_user: MockUser,
) -> None:
    entry = setup_integration
    instance = await llm.async_get_api(hass, api_id(entry.entry_id), _llm_context(hass))

    no_search = _data(await instance.async_call_tool(llm.ToolInput("add_torrent_by_index", {"index": 5})))
    assert no_search["status"] == "error"
    assert no_search["error"] == "not_found"

    bad_args = _data(await instance.async_call_tool(llm.ToolInput("find_torrents", {"media_title": 7})))
    assert bad_args["status"] == "error"
    assert bad_args["error"] == "bad_args"

    # Inside another agent's conversation, a settings change the person's words did not ask for waits for
    # their yes, and nothing is saved (the words come from that agent's chat log).
    chat_log = conversation.ChatLog(hass, "other-agent-chat")
    chat_log.content.append(conversation.UserContent(content="What is on tonight?"))
    token = current_chat_log.set(chat_log)
    try:
        in_chat = await llm.async_get_api(hass, api_id(entry.entry_id), _llm_context(hass))
        unasked = _data(
            await in_chat.async_call_tool(
                llm.ToolInput("set_path_for_folder", {"folder_name": "download", "path_value": "/media"})
            )
        )
    finally:
        current_chat_log.reset(token)
    assert unasked["error"] == "confirmation_required"
    assert entry.runtime_data.memory.household.folders() == {}
    # From a user who is no administrator, it is refused outright.
    read_only = compat.build_llm_context(
        platform="other_agent",
        context=Context(user_id=hass_read_only_user.id),
        language="en",
        device_id=None,
        user_prompt="Set the download folder to /media",
    )
    instance = await llm.async_get_api(hass, api_id(entry.entry_id), read_only)
    refused = _data(
        await instance.async_call_tool(
            llm.ToolInput("set_path_for_folder", {"folder_name": "download", "path_value": "/media"})
        )
    )
    assert refused["error"] == "not_allowed"
    assert entry.runtime_data.memory.household.folders() == {}
    assert await torrents_in_qbittorrent(hass, qbittorrent) == {}


@OWN_API
async def test_assist_and_media_tools_together(
    hass: HomeAssistant, setup_integration: MockConfigEntry
) -> None:
    """What a user picks to get both: two APIs from HA 2025.5, the combined API on HA 2025.4."""
    entry = setup_integration
    if compat.several_llm_apis_per_agent():
        chosen: str | list[str] = [llm.LLM_API_ASSIST, api_id(entry.entry_id)]
    else:
        chosen = combined_api_id(entry.entry_id)
    instance = await llm.async_get_api(hass, chosen, _llm_context(hass))
    assist = await llm.async_get_api(hass, llm.LLM_API_ASSIST, _llm_context(hass))
    names = [tool.name for tool in instance.tools]

    def named(tool_name: str) -> str:
        """The tool's name in the combined set (HA 2026 prefixes each API's tools with its name)."""
        return next(name for name in names if name == tool_name or name.endswith(f"__{tool_name}"))

    assert len(names) == len(set(names)) == len(assist.tools) + len(MEDIA_TOOLS)
    assert {named(tool.name) for tool in assist.tools} | {named(tool) for tool in MEDIA_TOOLS} == set(names)
    assert API_PROMPT in instance.api_prompt
    assert assist.api_prompt in instance.api_prompt

    found = _data(
        await instance.async_call_tool(
            llm.ToolInput(named("find_torrents"), {"media_title": "Tears of Steel"})
        )
    )
    assert found["status"] == "ok"
    assert "Tears" in last_results(entry.runtime_data.memory)[0]["title"]
    with pytest.raises(HomeAssistantError, match="not found"):
        await instance.async_call_tool(llm.ToolInput("no_such_tool", {}))
