"""Memory across turns, entry reloads and Home Assistant restarts; the prompt stays bounded."""

from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING, Any

import pytest
from pytest_homeassistant_custom_component.common import MockConfigEntry, async_test_home_assistant

from custom_components.agent_media.agent.prompt import build_memory_view
from custom_components.agent_media.const import DOMAIN, storage_key
from custom_components.agent_media.memory import AgentMediaMemory
from homeassistant import loader
from homeassistant.components import conversation
from homeassistant.core import Context
from homeassistant.setup import async_setup_component

from .helpers import last_results
from .test_conversation import converse, queue_call, speech, tool_results, turn_context

if TYPE_CHECKING:
    from freezegun.api import FrozenDateTimeFactory

    from homeassistant.core import HomeAssistant

    from .rig.llm_server import ScriptedLLMServer
    from .rig.qbittorrent import QBittorrentInstance

pytestmark = pytest.mark.usefixtures("core_setup")  # the conversation dependency needs core


async def test_memory_survives_an_entry_reload(
    hass: HomeAssistant,
    setup_integration: MockConfigEntry,
    llm_server: ScriptedLLMServer,
    qbittorrent: QBittorrentInstance,
) -> None:
    entry = setup_integration
    queue_call(llm_server, "native", "find_torrents", {"media_title": "Tears of Steel 2012"})
    llm_server.queue_text("Found Tears of Steel.")
    await converse(hass, entry, "Find Tears of Steel")
    wanted = last_results(entry.runtime_data.memory)[0]["info_hash"]

    assert await hass.config_entries.async_reload(entry.entry_id)
    await hass.async_block_till_done()
    assert last_results(entry.runtime_data.memory)[0]["info_hash"] == wanted

    queue_call(llm_server, "json", "add_torrent_by_index", {"index": 1})
    llm_server.queue_text("Downloading it.")
    result = await converse(hass, entry, "Download the first one")
    assert speech(result) == "Downloading it."
    assert tool_results(llm_server.requests[3])[0]["hash"] == wanted


async def test_memory_survives_a_restart(
    hass: HomeAssistant,
    hass_storage: dict[str, Any],
    entry_data: dict[str, Any],
    entry_options: dict[str, Any],
    llm_server: ScriptedLLMServer,
    qbittorrent: QBittorrentInstance,
) -> None:
    entry = MockConfigEntry(domain=DOMAIN, title="Agent Media", data=entry_data, options=entry_options)
    entry.add_to_hass(hass)
    assert await hass.config_entries.async_setup(entry.entry_id)
    # A conversation id chosen by the caller (not a ULID) is kept by Home Assistant across restarts.
    queue_call(llm_server, "native", "find_media_imdb_id", {"media_title": "Big Buck Bunny"})
    queue_call(llm_server, "native", "find_torrents", {"media_title": "Big Buck Bunny 2008"})
    llm_server.queue_text("Big Buck Bunny has 3 releases.")
    await converse(hass, entry, "Find Big Buck Bunny", "kitchen")
    entry.runtime_data.memory.journal.add_event("download_completed", {"name": "Sintel.2010.1080p"})
    wanted = last_results(entry.runtime_data.memory)[1]["info_hash"]

    # Stopping writes what the delayed save still holds.
    assert storage_key(entry.entry_id) not in hass_storage
    await hass.async_stop()
    assert storage_key(entry.entry_id) in hass_storage

    async with async_test_home_assistant(config_dir=hass.config.config_dir) as restarted:
        restarted.data.pop(loader.DATA_CUSTOM_COMPONENTS)  # allow custom integrations, as the fixture does
        assert await async_setup_component(restarted, "homeassistant", {})
        again = MockConfigEntry(
            domain=DOMAIN,
            title="Agent Media",
            data=entry_data,
            options=entry_options,
            entry_id=entry.entry_id,
        )
        again.add_to_hass(restarted)
        assert await restarted.config_entries.async_setup(again.entry_id)

        queue_call(llm_server, "native", "add_torrent_by_index", {"index": 2})
        llm_server.queue_text("Sintel finished. Big Buck Bunny is downloading.")
        result = await conversation.async_converse(
            restarted,
            "What's new? And download the second one.",
            "kitchen",
            Context(),
            language="en",
            agent_id=f"conversation.{DOMAIN}",
        )
        assert speech(result) == "Sintel finished. Big Buck Bunny is downloading."
        request = llm_server.requests[3]
        prompt = turn_context(request)
        assert '{"news":"finished","what":"Sintel.2010.1080p"}' in prompt
        assert 'Last title looked up: <data>{"title":"Big Buck Bunny","year":2008' in prompt
        # The new chat log is empty, so the conversation's last messages come from memory.
        assert [(m["role"], m["content"]) for m in request["messages"][1:3]] == [
            ("user", "Find Big Buck Bunny"),
            ("assistant", "Big Buck Bunny has 3 releases."),
        ]
        added = tool_results(llm_server.requests[4])[0]
        assert added["hash"] == wanted
        record = again.runtime_data.memory.downloads.records()[wanted]
        assert record["media"]["imdb_id"] == "tt1254207"
        assert again.runtime_data.memory.journal.unread_events() == []
        assert await restarted.config_entries.async_unload(again.entry_id)
        await restarted.async_stop()


async def test_prompt_stays_bounded(hass: HomeAssistant, setup_integration: MockConfigEntry) -> None:
    memory = setup_integration.runtime_data.memory
    sizes = []
    for turn in range(200):
        memory.conversations.add_turn("c", "system", f"question {turn} " * 20, f"answer {turn} " * 20)
        # Fixed-width numbers, so that equal sizes mean the prompt stopped growing.
        memory.working.store_search(
            "system",
            f"Sintel {turn:03d}",
            [{"title": f"Sintel.2010.{n:02d}.1080p.BluRay.x264-GROUP{turn:03d}", "size": 8_000_000_000,
              "seeders": 10 + n} for n in range(50)],
            None,
        )  # fmt: skip
        memory.downloads.add(f"{turn:040x}", {"name": f"Sintel {turn:03d}"})
        memory.journal.add_event("download_completed", {"name": f"Elephants Dream {turn:03d}"})
        memory.journal.add_error("find_torrents", "cannot_connect", "knaben: cannot connect " * 5)
        memory.household.set_folder(f"folder{turn % 32:02d}", f"/media/folder{turn:03d}")
        if turn in {9, 99, 199}:
            sizes.append(len(build_memory_view(memory, "system", "c", "en").text))
    assert sizes[0] <= sizes[1] == sizes[2]
    assert sizes[2] < 3000


async def test_memory_is_removed_with_the_entry(
    hass: HomeAssistant,
    hass_storage: dict[str, Any],
    setup_integration: MockConfigEntry,
    llm_server: ScriptedLLMServer,
) -> None:
    entry = setup_integration
    queue_call(llm_server, "native", "find_torrents", {"media_title": "Nosferatu 1922"})
    llm_server.queue_text("Found Nosferatu.")
    await converse(hass, entry, "Find Nosferatu")
    assert await hass.config_entries.async_unload(entry.entry_id)
    assert hass_storage[storage_key(entry.entry_id)]["data"]["working"]["system"][
        "search"
    ]  # unloading wrote it

    assert await hass.config_entries.async_remove(entry.entry_id)
    await hass.async_block_till_done()
    assert storage_key(entry.entry_id) not in hass_storage


async def test_old_problems_leave_the_prompt(hass: HomeAssistant, freezer: FrozenDateTimeFactory) -> None:
    memory = AgentMediaMemory(hass, "prompt_entry")
    await memory.async_load()
    memory.journal.add_error("add_torrent_by_index", "not_found", "There are only 3 results.")
    assert (
        "Last problem: add_torrent_by_index → not_found"
        in build_memory_view(memory, "system", None, "en").text
    )
    freezer.tick(timedelta(minutes=16))
    assert "Last problem" not in build_memory_view(memory, "system", None, "en").text
