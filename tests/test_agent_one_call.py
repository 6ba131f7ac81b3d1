"""One model call when the tools' results already are the answer; a request within its budget; tool hints.

The local sentences are on here (their answers speak the person's language), and every sentence below is one
they do not match, so it goes to the model: the scripted LLM server counts the requests.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import pytest

from custom_components.agent_media.agent.tools import TOOL_CLASSES
from custom_components.agent_media.requester import SYSTEM_KEY
from homeassistant.helpers import llm

from .test_conversation import (
    converse,
    speech,
    system_prompt,
    tool_results,
    torrents_in_qbittorrent,
    turn_context,
)

if TYPE_CHECKING:
    from pytest_homeassistant_custom_component.common import MockConfigEntry

    from homeassistant.core import HomeAssistant

    from .rig.llm_server import ScriptedLLMServer
    from .rig.qbittorrent import QBittorrentInstance

# The budget of issue 12, in characters (tokens = characters / 4, as bench/agent.py counts them); issue 23
# added the tools tell_when_ready and play_media (490 characters of specs, in every request: both budgets).
PROMPT_AND_TOOLS_CHARS = 4_500
WHOLE_REQUEST_CHARS = 6_500


@pytest.fixture
def entry(local_entry: MockConfigEntry) -> MockConfigEntry:
    """Conftest's entry with the local sentences on."""
    return local_entry


def offered_tools(request: dict[str, Any]) -> set[str]:
    return {tool["function"]["name"] for tool in request.get("tools", [])}


@pytest.mark.parametrize(
    ("language", "text", "start", "end"),
    [
        ("en", "Could you fetch Sintel for me in 4K please", "Added Sintel (2010), 2160p ", " seeders."),
        (
            "fr",
            "Tu pourrais me trouver Sintel en 4K s'il te plaît",
            "Sintel (2010) ajouté, 2160p ",
            " sources.",
        ),
    ],
)
async def test_a_download_ends_the_turn_in_one_model_call(
    hass: HomeAssistant,
    entry: MockConfigEntry,
    llm_server: ScriptedLLMServer,
    qbittorrent: QBittorrentInstance,
    language: str,
    text: str,
    start: str,
    end: str,
) -> None:
    llm_server.queue_tool_calls([("download_media", {"media_title": "Sintel", "quality": "2160p"})])

    result = await converse(hass, entry, text, language=language)

    answer = speech(result)
    assert answer.startswith(start)
    assert answer.endswith(end)
    assert len(llm_server.requests) == 1
    assert len(await torrents_in_qbittorrent(hass, qbittorrent)) == 1
    # Remembered as the turn, so the next request's history holds it.
    turns = entry.runtime_data.memory.conversations.messages(result.conversation_id)
    assert turns[-2:] == [{"role": "user", "content": text}, {"role": "assistant", "content": answer}]
    llm_server.queue_text("You're welcome.")
    await converse(hass, entry, "Thanks a lot for that", result.conversation_id, language=language)
    history = llm_server.requests[1]["messages"]
    assert {"role": "assistant", "content": answer} in history


async def test_a_setting_saved_by_the_model_is_said_locally(
    hass: HomeAssistant, entry: MockConfigEntry, llm_server: ScriptedLLMServer
) -> None:
    llm_server.queue_tool_calls([("set_preference", {"codec": "x265"})])
    result = await converse(hass, entry, "Mes films, je les veux toujours en x265", language="fr")
    assert speech(result) == "C'est noté : je m'y tiendrai pour chaque téléchargement."
    assert len(llm_server.requests) == 1
    assert entry.runtime_data.memory.household.preferences()["preferred_codec"] == "x265"


async def test_a_question_goes_back_to_the_model(
    hass: HomeAssistant, entry: MockConfigEntry, llm_server: ScriptedLLMServer
) -> None:
    # Nosferatu's only 480p release has no seeders: download_media asks instead of adding.
    llm_server.queue_tool_calls([("download_media", {"media_title": "Nosferatu", "quality": "480p"})])
    llm_server.queue_text("There is no good 480p release. Would 720p or 1080p do?")

    result = await converse(hass, entry, "Could you fetch Nosferatu for me in 480p please")

    assert speech(result) == "There is no good 480p release. Would 720p or 1080p do?"
    assert len(llm_server.requests) == 2
    assert tool_results(llm_server.requests[1])[0]["decision"] == "ask"


async def test_an_error_goes_back_to_the_model(
    hass: HomeAssistant, entry: MockConfigEntry, llm_server: ScriptedLLMServer
) -> None:
    llm_server.queue_tool_calls([("add_torrent_by_index", {"index": 2})])
    llm_server.queue_text("There is no search yet: tell me what to look for.")

    result = await converse(hass, entry, "Could you fetch result number two for me")

    assert speech(result) == "There is no search yet: tell me what to look for."
    assert len(llm_server.requests) == 2
    assert tool_results(llm_server.requests[1])[0]["status"] == "error"


async def test_a_search_and_a_download_in_one_call_go_back_to_the_model(
    hass: HomeAssistant, entry: MockConfigEntry, llm_server: ScriptedLLMServer
) -> None:
    llm_server.queue_tool_calls(
        [
            ("find_torrents", {"media_title": "Nosferatu 1922"}),
            ("download_media", {"media_title": "Sintel", "quality": "2160p"}),
        ]
    )
    llm_server.queue_text("Sintel is downloading; here are releases of Nosferatu.")
    await converse(hass, entry, "Could you fetch Sintel in 4K and look for Nosferatu")
    assert len(llm_server.requests) == 2  # the search still has to be told


async def test_the_request_stays_within_its_budget(
    hass: HomeAssistant, entry: MockConfigEntry, llm_server: ScriptedLLMServer
) -> None:
    memory = entry.runtime_data.memory
    llm_server.queue_text("Ask me for a film.")
    await converse(hass, entry, "What could you do for me today")
    first = llm_server.requests[0]
    # Every tool, even with nothing to pick from and no folder: the same set all conversation.
    assert offered_tools(first) == {cls.name for cls in TOOL_CLASSES}

    results = [
        {"title": f"Sintel.2010.{n:02d}.1080p.BluRay.x264-GROUP", "size": 8_790_000_000, "seeders": 300 - n}
        for n in range(50)
    ]
    memory.working.store_search(SYSTEM_KEY, "Sintel 2010", results, None)
    for n in range(6):  # the prompt names the newest three
        memory.downloads.add(f"{n:040x}", {"name": f"Elephants.Dream.2006.{n}.1080p.BluRay.x264-GROUP"})
    conversation_id = "a-long-conversation"
    for turn in range(200):
        memory.conversations.add_turn(
            conversation_id, SYSTEM_KEY, f"Question {turn}: tell me about Sintel again.", f"Answer {turn}."
        )
    llm_server.queue_text("Here they are.")
    await converse(hass, entry, "What did you find for me", conversation_id)
    request = llm_server.requests[1]
    assert request["tools"] == first["tools"]
    tools = len(json.dumps(request["tools"]))
    assert len(system_prompt(request)) + tools <= PROMPT_AND_TOOLS_CHARS
    assert len(json.dumps(request["messages"])) + tools <= WHOLE_REQUEST_CHARS
    assert "Sintel.2010.00.1080p.BluRay.x264-GROUP" in turn_context(request)


async def test_a_tool_that_cannot_act_yet_says_so_in_words(
    hass: HomeAssistant, entry: MockConfigEntry, llm_server: ScriptedLLMServer
) -> None:
    """Offered all the same (a stable tool set), it answers why it cannot act and what to do."""
    llm_server.queue_tool_calls(
        [("get_torrent_by_index", {"index": 2}), ("list_folder", {"folder_name": "movie"})]
    )
    llm_server.queue_text("Search first; the movies folder isn't set.")
    await converse(hass, entry, "What is result 2, and what is in the movies folder")
    assert {"get_torrent_by_index", "list_folder"} <= offered_tools(llm_server.requests[0])
    picked, listed = tool_results(llm_server.requests[1])
    assert picked["status"] == "error"
    assert picked["message"] == "There are no search results to pick from. Search first."
    assert listed["status"] == "error"
    assert listed["error"] != "unknown_tool"  # it ran: the folder is what is missing
    assert listed["message"]


def test_tools_say_how_they_behave() -> None:
    """HA ≥ 2026.10 reads the hints (its MCP server passes them on); older versions have none."""
    if not hasattr(llm, "ToolAnnotations"):
        assert all(cls.annotations is None for cls in TOOL_CLASSES)
        return
    hints = {cls.name: cls.annotations for cls in TOOL_CLASSES}
    read_only = {name for name, hint in hints.items() if hint.read_only}
    assert read_only == {
        "find_media_imdb_id",
        "find_torrents",
        "get_torrent_by_index",
        "list_folder",
        "list_wanted",
    }
    assert not any(hint.destructive for hint in hints.values())
    assert hints["set_preference"].idempotent
    assert not hints["add_torrent_by_index"].idempotent
    assert not hints["list_folder"].open_world
    assert hints["forget_wanted"].idempotent
