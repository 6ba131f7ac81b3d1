"""Every input has a size cap: the model's stream, qBittorrent's answers (posters: test_posters.py).

Past a cap the input is refused with a clear error (the agent says it in words), nothing is read further,
and nothing is logged with a traceback.
"""

from __future__ import annotations

import json
import logging
from typing import TYPE_CHECKING

import pytest

from custom_components.agent_media.clients.errors import ResponseTooLargeError
from custom_components.agent_media.clients.qbittorrent import QBittorrentClient
from custom_components.agent_media.const import (
    LOGGER,
    MAX_LLM_REPLY_CHARS,
    MAX_LLM_TOOL_ARGUMENTS_CHARS,
)
from homeassistant.helpers import intent

from .helpers import wait_for_torrent
from .rig.torrents import make_release_torrent
from .test_conversation import converse, speech

if TYPE_CHECKING:
    from pytest_homeassistant_custom_component.common import MockConfigEntry

    from homeassistant.core import HomeAssistant

    from .rig.llm_server import ScriptedLLMServer
    from .rig.qbittorrent import QBittorrentInstance


def no_traceback(caplog: pytest.LogCaptureFixture) -> bool:
    return not [record for record in caplog.records if record.exc_info or record.levelno >= logging.ERROR]


@pytest.mark.usefixtures("core_setup")
async def test_a_model_that_talks_past_the_cap_is_cut_off_in_words(
    hass: HomeAssistant,
    setup_integration: MockConfigEntry,
    llm_server: ScriptedLLMServer,
    caplog: pytest.LogCaptureFixture,
) -> None:
    llm_server.queue_text("Big Buck Bunny is a film. " * (MAX_LLM_REPLY_CHARS // 20))

    result = await converse(hass, setup_integration, "Tell me about Big Buck Bunny")

    assert result.response.response_type is intent.IntentResponseType.ERROR
    assert speech(result) == (
        "The language model's answer ran too long (the answer is longer than 262,144 characters), "
        "so I stopped reading it. Please try again, or ask more simply."
    )
    assert setup_integration.runtime_data.memory.journal.recent_errors()[-1]["error"] == "llm_too_long"
    assert no_traceback(caplog)
    # The turn is over: the next one is answered as usual.
    llm_server.queue_text("Big Buck Bunny is a 2008 short film.")
    follow_up = await converse(hass, setup_integration, "In short?", result.conversation_id)
    assert speech(follow_up) == "Big Buck Bunny is a 2008 short film."


@pytest.mark.usefixtures("core_setup")
async def test_a_tool_call_with_huge_arguments_is_not_run(
    hass: HomeAssistant,
    setup_integration: MockConfigEntry,
    llm_server: ScriptedLLMServer,
    caplog: pytest.LogCaptureFixture,
) -> None:
    huge = json.dumps({"media_title": "Sintel " * (MAX_LLM_TOOL_ARGUMENTS_CHARS // 6)})
    llm_server.queue_tool_calls([("find_torrents", huge)])

    result = await converse(hass, setup_integration, "Find Sintel")

    assert result.response.response_type is intent.IntentResponseType.ERROR
    assert "a tool call's arguments are longer than 16,384 characters" in speech(result)
    assert len(llm_server.requests) == 1  # no tool ran, no second call
    assert no_traceback(caplog)
    assert [record for record in caplog.records if record.name == LOGGER.name][-1].levelno == logging.WARNING


async def test_a_qbittorrent_answer_past_the_cap_is_refused(
    hass: HomeAssistant, qbittorrent: QBittorrentInstance
) -> None:
    """The file list of a torrent of 2,000 files is some 300 kB: refused by a client capped at 64 KiB."""
    layout = {f"Extras/Part {n // 100:02d}/clip {n:04d}.mkv": 1_000_000 for n in range(2000)}
    torrent = make_release_torrent("Pioneer.One.S01.Extras", sum(layout.values()), files=layout)
    capped = QBittorrentClient(
        qbittorrent.url, qbittorrent.username, qbittorrent.password, max_answer_bytes=64 * 1024
    )
    try:
        await capped.async_add_torrent_file(torrent.torrent_bytes, paused=True)
        await wait_for_torrent(hass, qbittorrent, torrent.info_hash)

        with pytest.raises(ResponseTooLargeError) as refused:
            await capped.async_files(torrent.info_hash)

        assert refused.value.detail == "answered with more than 64 KB"
        # Smaller answers are read as ever, on the same client.
        assert [item["hash"] for item in await capped.async_torrents()] == [torrent.info_hash]
    finally:
        await capped.async_close()
