"""DeepSeek's thinking mode: the reasoning of a tool-calling reply must be sent back within the turn.

A small stand-in for DeepSeek's streaming endpoint: it reasons before each tool call and, like DeepSeek,
answers HTTP 400 when a later request of the same turn omits that reasoning.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from aiohttp import web
import pytest
from pytest_homeassistant_custom_component.common import MockConfigEntry

from custom_components.agent_media.const import CONF_LLM_BASE_URL, DOMAIN

from .test_conversation import converse, speech

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from homeassistant.core import HomeAssistant

pytestmark = pytest.mark.usefixtures("core_setup")  # the conversation dependency needs core

REASONING = "The user wants Sintel; search first."


class ThinkingServer:
    """Replies: reasoning + a find_torrents call, then a text answer that requires the reasoning back."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.app = web.Application()
        self.app.router.add_post("/v1/chat/completions", self._chat)
        self.runner = web.AppRunner(self.app, access_log=None)
        self.port = 0

    async def start(self) -> None:
        await self.runner.setup()
        site = web.TCPSite(self.runner, "127.0.0.1", 0)
        await site.start()
        self.port = int(self.runner.addresses[0][1])

    async def _chat(self, request: web.Request) -> web.StreamResponse:
        body = await request.json()
        self.requests.append(body)
        calls = [m for m in body["messages"] if m["role"] == "assistant" and m.get("tool_calls")]
        if calls and any(m.get("reasoning_content") != REASONING for m in calls):
            return web.json_response(
                {
                    "error": {
                        "message": (
                            "The reasoning_content in the thinking mode must be passed back to the API."
                        ),
                        "type": "invalid_request_error",
                    }
                },
                status=400,
            )
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream"})
        await response.prepare(request)

        async def send(delta: dict[str, Any], finish: str | None = None) -> None:
            chunk = {
                "id": "chatcmpl-thinking",
                "object": "chat.completion.chunk",
                "created": 0,
                "model": "deepseek-reasoner",
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
            }
            await response.write(f"data: {json.dumps(chunk)}\n\n".encode())

        await send({"role": "assistant", "content": None, "reasoning_content": ""})
        if not calls:
            for piece in ("The user wants Sintel; ", "search first."):
                await send({"reasoning_content": piece})
            await send(
                {
                    "tool_calls": [
                        {
                            "index": 0,
                            "id": "call_think_0",
                            "type": "function",
                            "function": {
                                "name": "find_torrents",
                                "arguments": '{"media_title": "Sintel 2010"}',
                            },
                        }
                    ]
                }
            )
            await send({}, "tool_calls")
        else:
            await send({"reasoning_content": "Results are in."})
            await send({"content": "I found Sintel."})
            await send({}, "stop")
        await response.write(b"data: [DONE]\n\n")
        return response


@pytest.fixture
async def thinking_server(socket_enabled: None) -> AsyncIterator[ThinkingServer]:
    server = ThinkingServer()
    await server.start()
    yield server
    await server.runner.cleanup()


async def test_reasoning_goes_back_with_the_tool_call(
    hass: HomeAssistant,
    entry_data: dict[str, Any],
    entry_options: dict[str, Any],
    thinking_server: ThinkingServer,
) -> None:
    entry = MockConfigEntry(
        domain=DOMAIN,
        title="Agent Media",
        data={**entry_data, CONF_LLM_BASE_URL: f"http://127.0.0.1:{thinking_server.port}/v1"},
        options=entry_options,
    )
    entry.add_to_hass(hass)
    assert await hass.config_entries.async_setup(entry.entry_id)

    result = await converse(hass, entry, "Find Sintel")
    assert speech(result) == "I found Sintel."
    follow_up = thinking_server.requests[1]["messages"]
    assistant = next(message for message in follow_up if message["role"] == "assistant")
    assert assistant["reasoning_content"] == REASONING

    # On the next turn, the previous turn goes again as it was sent: its tool call with its reasoning
    # (DeepSeek wants it back in every later request), its answer without the reasoning that came with it.
    result = await converse(hass, entry, "Find Sintel", result.conversation_id)
    assert speech(result) == "I found Sintel."
    messages = thinking_server.requests[2]["messages"]
    assert [message["role"] for message in messages] == [
        "system",
        "user",
        "assistant",
        "tool",
        "assistant",
        "user",
    ]
    assert messages[2]["reasoning_content"] == REASONING
    assert "reasoning_content" not in messages[4]
    assert messages[: len(follow_up)] == follow_up
    assert await hass.config_entries.async_unload(entry.entry_id)
