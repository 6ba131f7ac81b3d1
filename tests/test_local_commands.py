"""The common commands answered without a model call, through the real agent, operations and rig."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest
from pytest_homeassistant_custom_component.common import MockConfigEntry

from custom_components.agent_media.const import (
    CONF_LLM_API_KEY,
    CONF_LLM_BASE_URL,
    CONF_LLM_MODEL,
    DOMAIN,
)
from homeassistant.components import conversation
from homeassistant.config_entries import ConfigEntryState
from homeassistant.core import Context

from .helpers import last_results, torrents_in_qbittorrent
from .rig.knaben_server import movie_hits
from .test_conversation import agent_id, speech
from .test_household import SATELLITE, ask

if TYPE_CHECKING:
    from pathlib import Path

    from homeassistant.core import HomeAssistant

    from .rig.knaben_server import KnabenServer
    from .rig.llm_server import ScriptedLLMServer
    from .rig.qbittorrent import QBittorrentInstance

pytestmark = pytest.mark.usefixtures("core_setup")  # the conversation dependency needs core


async def test_search_then_pick_without_the_model(
    hass: HomeAssistant,
    local_entry: MockConfigEntry,
    llm_server: ScriptedLLMServer,
    qbittorrent: QBittorrentInstance,
) -> None:
    found = await ask(hass, local_entry, "Find torrents for Sintel", device_id=SATELLITE)
    answer = speech(found)
    assert answer.startswith("Here are the torrents for Sintel: 1: ")
    assert answer.endswith("Which one should I download?")
    assert found.continue_conversation  # a satellite keeps listening for the answer
    results = last_results(local_entry.runtime_data.memory, f"device:{SATELLITE}")
    assert len(results) > 1

    added = await ask(hass, local_entry, "Download the 2nd one", device_id=SATELLITE)
    assert speech(added).startswith("Added ")
    assert results[1]["info_hash"] in await torrents_in_qbittorrent(hass, qbittorrent)
    assert llm_server.requests == []  # no model call at all


async def test_answers_in_the_persons_language(
    hass: HomeAssistant, local_entry: MockConfigEntry, llm_server: ScriptedLLMServer
) -> None:
    result = await conversation_in(hass, local_entry, "Quoi de neuf ?", "fr")
    assert speech(result) == "Rien de nouveau."
    local_entry.runtime_data.memory.journal.add_event("download_completed", {"name": "Nosferatu.1922.1080p"})
    result = await conversation_in(hass, local_entry, "Was gibt's Neues?", "de")
    assert "Nosferatu.1922.1080p" in speech(result)
    # Told once.
    result = await conversation_in(hass, local_entry, "¿Qué hay de nuevo?", "es")
    assert "Nosferatu" not in speech(result)
    assert llm_server.requests == []


async def test_set_folder_by_voice_locally(
    hass: HomeAssistant, local_entry: MockConfigEntry, tmp_path: Path, llm_server: ScriptedLLMServer
) -> None:
    media = tmp_path / "media"
    (media / "downloads").mkdir(parents=True)
    hass.config.allowlist_external_dirs = {str(media)}
    result = await ask(
        hass, local_entry, f"Set the download folder to {media}/downloads", device_id=SATELLITE
    )
    assert speech(result) == f"Done: the download folder is now {media}/downloads."
    assert local_entry.runtime_data.memory.household.folder("download") == str(media / "downloads")
    refused = await ask(hass, local_entry, "Set the movies folder to /etc", device_id=SATELLITE)
    assert "/etc" in speech(refused)
    assert local_entry.runtime_data.memory.household.folder("movie") is None
    assert llm_server.requests == []


async def test_what_is_not_a_common_command_goes_to_the_model(
    hass: HomeAssistant, local_entry: MockConfigEntry, llm_server: ScriptedLLMServer
) -> None:
    llm_server.queue_text("Sintel is a short film by the Blender Institute.")
    result = await ask(hass, local_entry, "Tell me about the making of Sintel")
    assert speech(result) == "Sintel is a short film by the Blender Institute."
    assert len(llm_server.requests) == 1


async def test_common_commands_work_with_the_model_down(
    hass: HomeAssistant, core_setup: None, entry_data: dict[str, Any], local_options: dict[str, Any]
) -> None:
    data = {**entry_data, CONF_LLM_BASE_URL: "http://127.0.0.1:9/v1"}  # nothing listens there
    entry = MockConfigEntry(domain=DOMAIN, title="Agent Media", data=data, options=local_options)
    entry.add_to_hass(hass)
    assert await hass.config_entries.async_setup(entry.entry_id)
    result = await ask(hass, entry, "What's downloading?")
    assert speech(result) == "Nothing is downloading."


async def test_an_entry_without_a_model_loads_and_says_what_it_can_do(
    hass: HomeAssistant,
    core_setup: None,
    entry_data: dict[str, Any],
    entry_options: dict[str, Any],
    qbittorrent: QBittorrentInstance,
) -> None:
    data = {key: value for key, value in entry_data.items() if key not in (CONF_LLM_BASE_URL, CONF_LLM_MODEL,
                                                                             CONF_LLM_API_KEY)}  # fmt: skip
    # Even with the option off: without a model, the common commands are all there is.
    entry = MockConfigEntry(domain=DOMAIN, title="Agent Media", data=data, options=entry_options)
    entry.add_to_hass(hass)
    assert await hass.config_entries.async_setup(entry.entry_id)
    assert entry.state is ConfigEntryState.LOADED
    found = await ask(hass, entry, "Find torrents for Night of the Living Dead")
    assert "Night" in speech(found)
    other = await ask(hass, entry, "Tell me a joke")
    assert speech(other).startswith(
        "Without a language model, I only understand a few commands. You can say:"
    )


async def test_pause_resume_and_cancel_by_name(
    hass: HomeAssistant,
    local_entry: MockConfigEntry,
    qbittorrent: QBittorrentInstance,
    llm_server: ScriptedLLMServer,
) -> None:
    await ask(hass, local_entry, "Find torrents for Elephants Dream")
    await ask(hass, local_entry, "Download the first one")
    (info_hash,) = (await torrents_in_qbittorrent(hass, qbittorrent)).keys()
    assert speech(await ask(hass, local_entry, "Pause Elephants Dream")).startswith("Paused ")
    assert speech(await ask(hass, local_entry, "Resume Elephants Dream")).startswith("Resumed ")
    assert speech(await ask(hass, local_entry, "Pause Sintel")) == "There is no download called Sintel."
    assert speech(await ask(hass, local_entry, "Cancel Elephants Dream")).startswith("Cancelled ")
    assert info_hash not in await torrents_in_qbittorrent(hass, qbittorrent)
    assert llm_server.requests == []


async def conversation_in(hass: HomeAssistant, entry: MockConfigEntry, text: str, language: str) -> Any:
    """Say something in a given language, as the system (no user, no device)."""
    return await conversation.async_converse(
        hass, text, None, Context(), language=language, agent_id=agent_id(hass, entry)
    )


async def test_the_4k_one_answers_the_pending_question(
    hass: HomeAssistant,
    local_entry: MockConfigEntry,
    qbittorrent: QBittorrentInstance,
    llm_server: ScriptedLLMServer,
    knaben_server: KnabenServer,
) -> None:
    knaben_server.set_hits([hit for hit in movie_hits("Sintel", 2010) if "720p" not in hit["title"]])
    # Nothing at 720p: the agent asks which of the others, and keeps the satellite listening.
    asked = await ask(hass, local_entry, "Download Sintel in 720p", device_id=SATELLITE)
    assert speech(asked).endswith("?")
    assert asked.continue_conversation
    question = local_entry.runtime_data.memory.working.question(f"device:{SATELLITE}")
    assert question is not None
    uhd = next(option for option in question["options"] if "2160p" in option["title"])
    added = await ask(hass, local_entry, "The 4K one", device_id=SATELLITE)
    assert speech(added).startswith("Added ")
    assert uhd["info_hash"] in await torrents_in_qbittorrent(hass, qbittorrent)
    assert llm_server.requests == []


async def test_a_refusal_found_after_the_answer_is_told_first_at_the_next_turn(
    hass: HomeAssistant, local_entry: MockConfigEntry, llm_server: ScriptedLLMServer
) -> None:
    """A magnet is answered at once and checked when its file list comes: a refusal then is told next turn."""
    local_entry.runtime_data.memory.journal.add_event(
        "download_refused",
        {"name": "Night.of.the.Living.Dead.1968", "hash": "0" * 40, "dangerous_files": ["setup.bat"]},
    )
    answer = speech(await ask(hass, local_entry, "Find torrents for Sintel"))
    refused = "Night.of.the.Living.Dead.1968 was refused and removed: it held programs or scripts."
    assert answer.startswith(f"Here's what's new: {refused}")
    assert "Here are the torrents for Sintel" in answer
    assert llm_server.requests == []
