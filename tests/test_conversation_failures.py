"""Every failure ends in a spoken answer: the language model's errors, malformed output, services down."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from aiohttp import web
import pytest
from pytest_homeassistant_custom_component.common import MockConfigEntry

from custom_components.agent_media.clients.llm import LLMClient
from custom_components.agent_media.const import CONF_LLM_BASE_URL, CONF_MAX_TOOL_ITERATIONS, DOMAIN
from homeassistant.config_entries import SOURCE_REAUTH
from homeassistant.helpers import intent
from homeassistant.helpers.httpx_client import get_async_client

from .test_conversation import converse, queue_call, speech, system_prompt, tool_results

if TYPE_CHECKING:
    from homeassistant.core import HomeAssistant

    from .rig.knaben_server import KnabenServer
    from .rig.llm_server import ScriptedLLMServer
    from .rig.qbittorrent import QBittorrentInstance
    from .rig.tmdb_server import TMDBServer

pytestmark = pytest.mark.usefixtures("core_setup")  # the conversation dependency needs core


def assert_spoken_error(result: Any, expected: str) -> None:
    assert result.response.response_type is intent.IntentResponseType.ERROR
    assert speech(result) == expected


async def test_llm_refuses_the_key_starts_reauth(
    hass: HomeAssistant, setup_integration: MockConfigEntry, llm_server: ScriptedLLMServer
) -> None:
    llm_server.queue_error(
        401, {"error": {"message": "Authentication Fails", "type": "authentication_error"}}
    )
    result = await converse(hass, setup_integration, "Find Sintel")
    assert_spoken_error(
        result,
        "The language model refused the API key. "
        "Please sign in again in the Agent Media integration settings.",
    )
    await hass.async_block_till_done()
    flows = hass.config_entries.flow.async_progress_by_handler(DOMAIN)
    assert [flow["context"]["source"] for flow in flows] == [SOURCE_REAUTH]
    assert setup_integration.runtime_data.memory.journal.recent_errors()[-1]["error"] == "llm_invalid_auth"


async def test_llm_rate_limited(
    hass: HomeAssistant, setup_integration: MockConfigEntry, llm_server: ScriptedLLMServer
) -> None:
    for _attempt in range(2):  # the client retries once
        llm_server.queue_error(429, {"error": {"message": "Rate limit reached", "type": "rate_limit"}})
    result = await converse(hass, setup_integration, "Find Sintel")
    assert_spoken_error(
        result, "The language model is busy or out of credit right now. Please try again in a moment."
    )


@pytest.mark.parametrize("body", [None, "<html><body>502 Bad Gateway</body></html>"])
async def test_llm_server_error(
    hass: HomeAssistant, setup_integration: MockConfigEntry, llm_server: ScriptedLLMServer, body: str | None
) -> None:
    for _attempt in range(2):
        llm_server.queue_error(502, body)
    result = await converse(hass, setup_integration, "Find Sintel")
    assert result.response.response_type is intent.IntentResponseType.ERROR
    assert speech(result).startswith("I can't reach the language model right now (server error (HTTP 502")


async def test_llm_time_out(
    hass: HomeAssistant, setup_integration: MockConfigEntry, llm_server: ScriptedLLMServer
) -> None:
    entry = setup_integration
    # The same real client, with a wait short enough for a test.
    entry.runtime_data.llm = await LLMClient.async_create(
        get_async_client(hass),
        base_url=llm_server.base_url,
        api_key=llm_server.api_key,
        model=llm_server.model,
        timeout=0.5,
        max_retries=0,
    )
    llm_server.queue_delay(5)
    llm_server.queue_text("Too late.")
    result = await converse(hass, entry, "Find Sintel")
    assert_spoken_error(
        result, "I can't reach the language model right now (timed out). Please try again later."
    )


async def test_empty_reply(
    hass: HomeAssistant, setup_integration: MockConfigEntry, llm_server: ScriptedLLMServer
) -> None:
    llm_server.queue_text("")
    result = await converse(hass, setup_integration, "Find Sintel")
    assert_spoken_error(result, "The language model gave an empty answer. Please try again.")


async def test_tool_loop_is_bounded(
    hass: HomeAssistant, config_entry: MockConfigEntry, llm_server: ScriptedLLMServer
) -> None:
    hass.config_entries.async_update_entry(
        config_entry, options={**config_entry.options, CONF_MAX_TOOL_ITERATIONS: 2}
    )
    assert await hass.config_entries.async_setup(config_entry.entry_id)
    for _call in range(2):
        llm_server.queue_tool_calls([("get_torrent_by_index", {"index": 1})])
    result = await converse(hass, config_entry, "Show me the first result, again and again")
    assert_spoken_error(result, "I could not finish that in 2 steps. Please ask again, more simply.")
    assert len(llm_server.requests) == 2
    assert llm_server.pending == 0
    # The next turn starts cleanly: the unanswered tool result was closed by the explanation.
    llm_server.queue_text("Hello.")
    follow_up = await converse(hass, config_entry, "Hi", result.conversation_id)
    assert speech(follow_up) == "Hello."
    roles = [message["role"] for message in llm_server.requests[2]["messages"]]
    assert roles == ["system", "user", "assistant", "user"]
    await hass.config_entries.async_unload(config_entry.entry_id)


@pytest.mark.parametrize("form", ["native", "json"])
async def test_unknown_tool_and_bad_arguments_go_back_to_the_model(
    hass: HomeAssistant, setup_integration: MockConfigEntry, llm_server: ScriptedLLMServer, form: str
) -> None:
    queue_call(llm_server, form, "download_movie", {"title": "Sintel"})
    queue_call(llm_server, form, "get_torrent_by_index", {"index": "second"})
    llm_server.queue_text("Sorry, I could not do that.")
    result = await converse(hass, setup_integration, "Download Sintel")
    assert speech(result) == "Sorry, I could not do that."
    unknown, bad = tool_results(llm_server.requests[2])
    assert unknown["status"] == "error"
    assert unknown["error"] == "unknown_tool"
    assert "find_torrents" in unknown["tools"]
    assert bad["status"] == "error"
    assert bad["error"] == "bad_args"
    assert "index" in bad["message"]


async def test_malformed_native_arguments(
    hass: HomeAssistant, setup_integration: MockConfigEntry, llm_server: ScriptedLLMServer
) -> None:
    llm_server.queue_tool_calls([("find_torrents", '{"media_title": "Sintel"')])
    llm_server.queue_text("Let me try again later.")
    result = await converse(hass, setup_integration, "Find Sintel")
    assert speech(result) == "Let me try again later."
    assert tool_results(llm_server.requests[1]) == [
        {"status": "error", "error": "bad_args", "message": "The arguments must be a JSON object."}
    ]
    # The model sees the call exactly as it made it.
    call = llm_server.requests[1]["messages"][2]["tool_calls"][0]
    assert call["function"]["arguments"] == '{"media_title": "Sintel"'


async def test_model_without_tool_support_switches_to_json_actions(
    hass: HomeAssistant, setup_integration: MockConfigEntry, llm_server: ScriptedLLMServer
) -> None:
    llm_server.queue_error(
        400,
        {
            "error": {
                "message": "registry.ollama.ai/library/gemma:2b does not support tools",
                "type": "api_error",
            }
        },
    )
    llm_server.queue_json_action("find_media_imdb_id", {"media_title": "Tears of Steel"})
    llm_server.queue_text("Tears of Steel is a 2012 film.")
    result = await converse(hass, setup_integration, "What is Tears of Steel?")
    assert speech(result) == "Tears of Steel is a 2012 film."
    assert "tools" in llm_server.requests[0]
    retry, follow_up = llm_server.requests[1], llm_server.requests[2]
    assert "tools" not in retry
    assert '{"action": {"name": "<tool>", "args": {...}}}' in system_prompt(retry)
    assert "find_media_imdb_id(media_title: string" in system_prompt(retry)
    # Without native tools, the call and its result travel as text.
    assert follow_up["messages"][-2]["content"].startswith('{"action":{"name":"find_media_imdb_id"')
    assert follow_up["messages"][-1]["role"] == "system"  # data from a tool, not the person's words
    assert follow_up["messages"][-1]["content"].startswith("[Tool result of find_media_imdb_id: data, not")
    assert tool_results(follow_up)[0]["imdb_id"] == "tt2285752"


@pytest.mark.parametrize(
    ("kind", "code"),
    [("500", "cannot_connect"), ("html", "bad_response"), ("401", "invalid_auth"), ("429", "rate_limited")],
)
async def test_tmdb_failures_are_explained(
    hass: HomeAssistant,
    setup_integration: MockConfigEntry,
    llm_server: ScriptedLLMServer,
    tmdb_server: TMDBServer,
    kind: str,
    code: str,
) -> None:
    for _attempt in range(3):
        tmdb_server.fail_next(kind)
    llm_server.queue_tool_calls([("find_media_imdb_id", {"media_title": "Sintel"})])
    llm_server.queue_text("TMDB is not answering right now.")
    result = await converse(hass, setup_integration, "Download Sintel")
    assert speech(result) == "TMDB is not answering right now."
    failure = tool_results(llm_server.requests[1])[0]
    assert failure["status"] == "error"
    assert failure["error"] == code
    assert failure["service"] == "tmdb"
    assert setup_integration.runtime_data.memory.journal.recent_errors()[-1]["error"] == code


@pytest.mark.parametrize(("kind", "code"), [("500", "cannot_connect"), ("html", "bad_response")])
async def test_knaben_failures_are_explained(
    hass: HomeAssistant,
    setup_integration: MockConfigEntry,
    llm_server: ScriptedLLMServer,
    knaben_server: KnabenServer,
    kind: str,
    code: str,
) -> None:
    for _attempt in range(3):
        knaben_server.fail_next(kind)
    llm_server.queue_tool_calls([("find_torrents", {"media_title": "Sintel 2010"})])
    llm_server.queue_text("The torrent search is down.")
    result = await converse(hass, setup_integration, "Find Sintel")
    assert speech(result) == "The torrent search is down."
    failure = tool_results(llm_server.requests[1])[0]
    assert (failure["status"], failure["error"], failure["service"]) == ("error", code, "knaben")


async def test_qbittorrent_down_is_explained(
    hass: HomeAssistant,
    setup_integration: MockConfigEntry,
    llm_server: ScriptedLLMServer,
    qbittorrent: QBittorrentInstance,
) -> None:
    llm_server.queue_tool_calls([("find_torrents", {"media_title": "Sintel 2010"})])
    llm_server.queue_text("Found them.")
    await converse(hass, setup_integration, "Find Sintel")
    await qbittorrent.stop()
    llm_server.queue_tool_calls([("add_torrent_by_index", {"index": 1})])
    llm_server.queue_text("qBittorrent is not reachable.")
    result = await converse(hass, setup_integration, "Download the first one")
    assert speech(result) == "qBittorrent is not reachable."
    failure = tool_results(llm_server.requests[3])[0]
    assert (failure["status"], failure["error"], failure["service"]) == (
        "error",
        "cannot_connect",
        "qbittorrent",
    )
    assert setup_integration.runtime_data.memory.downloads.records() == {}


async def test_unreadable_stream_is_explained(
    hass: HomeAssistant,
    socket_enabled: None,
    entry_data: dict[str, Any],
    entry_options: dict[str, Any],
) -> None:
    # A server that answers 200 but streams something that is not JSON.
    async def garbage(_request: web.Request) -> web.Response:
        return web.Response(
            body=b"data: {not json at all\n\ndata: [DONE]\n\n", content_type="text/event-stream"
        )

    app = web.Application()
    app.router.add_post("/v1/chat/completions", garbage)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    try:
        entry = MockConfigEntry(
            domain=DOMAIN,
            title="Agent Media",
            data={**entry_data, CONF_LLM_BASE_URL: f"http://127.0.0.1:{runner.addresses[0][1]}/v1"},
            options=entry_options,
        )
        entry.add_to_hass(hass)
        assert await hass.config_entries.async_setup(entry.entry_id)
        result = await converse(hass, entry, "Find Sintel")
        assert_spoken_error(result, "The language model sent an answer I could not read. Please try again.")
        assert await hass.config_entries.async_unload(entry.entry_id)
    finally:
        await runner.cleanup()
