"""The OpenAI-compatible endpoint through Home Assistant's real HTTP server, answered by the agent."""

from __future__ import annotations

import asyncio
import contextlib
from http import HTTPStatus
import json
from typing import TYPE_CHECKING, Any

from custom_components.agent_media.http import API_PATH
from homeassistant.helpers import entity_registry as er

from .helpers import wait_until

if TYPE_CHECKING:
    from aiohttp import ClientResponse
    from pytest_homeassistant_custom_component.common import MockConfigEntry
    from pytest_homeassistant_custom_component.typing import ClientSessionGenerator

    from homeassistant.core import HomeAssistant

    from .rig.llm_server import ScriptedLLMServer

COMPLETIONS = f"{API_PATH}/chat/completions"
MODELS = f"{API_PATH}/models"


def agent_entity_id(hass: HomeAssistant, entry: MockConfigEntry) -> str:
    entities = er.async_entries_for_config_entry(er.async_get(hass), entry.entry_id)
    return next(entity.entity_id for entity in entities if entity.domain == "conversation")


def user(text: str) -> dict[str, str]:
    return {"role": "user", "content": text}


async def sse_events(response: ClientResponse) -> list[str]:
    """The ``data:`` payloads of a server-sent event stream, in order."""
    assert response.status == HTTPStatus.OK
    assert response.headers["Content-Type"].startswith("text/event-stream")
    body = await response.text()
    return [
        line.removeprefix("data: ")
        for block in body.split("\n\n")
        for line in block.splitlines()
        if line.startswith("data: ")
    ]


def streamed_text(events: list[str]) -> tuple[str, list[dict[str, Any]]]:
    assert events[-1] == "[DONE]"
    chunks = [json.loads(event) for event in events[:-1]]
    assert all(chunk["object"] == "chat.completion.chunk" for chunk in chunks)
    assert chunks[0]["choices"][0]["delta"]["role"] == "assistant"
    assert chunks[-1]["choices"][0]["finish_reason"] == "stop"
    text = "".join(chunk["choices"][0]["delta"].get("content") or "" for chunk in chunks)
    return text, chunks


async def test_a_token_is_required(
    hass: HomeAssistant,
    setup_integration: MockConfigEntry,
    hass_client_no_auth: ClientSessionGenerator,
    llm_server: ScriptedLLMServer,
) -> None:
    client = await hass_client_no_auth()

    assert (await client.get(MODELS)).status == HTTPStatus.UNAUTHORIZED
    response = await client.post(COMPLETIONS, json={"messages": [user("Find Sintel")]})
    assert response.status == HTTPStatus.UNAUTHORIZED
    response = await client.post(
        COMPLETIONS, json={"messages": [user("Find Sintel")]}, headers={"Authorization": "Bearer not-a-token"}
    )
    assert response.status == HTTPStatus.UNAUTHORIZED
    assert llm_server.requests == []


async def test_models_lists_the_agent(
    hass: HomeAssistant, setup_integration: MockConfigEntry, hass_client: ClientSessionGenerator
) -> None:
    client = await hass_client()
    response = await client.get(MODELS)

    assert response.status == HTTPStatus.OK
    body = await response.json()
    assert body["object"] == "list"
    assert [(model["id"], model["name"]) for model in body["data"]] == [
        (agent_entity_id(hass, setup_integration), setup_integration.title)
    ]


async def test_completion_goes_through_the_agent_and_its_memory(
    hass: HomeAssistant,
    setup_integration: MockConfigEntry,
    hass_client: ClientSessionGenerator,
    llm_server: ScriptedLLMServer,
) -> None:
    entry = setup_integration
    llm_server.queue_tool_calls([("find_torrents", {"media_title": "Sintel 2010"})])
    llm_server.queue_text("I found several releases of Sintel; the best is 1080p.")
    client = await hass_client()
    model = agent_entity_id(hass, entry)

    response = await client.post(
        COMPLETIONS,
        json={"model": model, "messages": [{"role": "system", "content": "Be brief."}, user("Find Sintel")]},
    )

    assert response.status == HTTPStatus.OK
    body = await response.json()
    assert body["object"] == "chat.completion"
    assert body["model"] == model
    assert body["choices"][0]["message"] == {
        "role": "assistant",
        "content": "I found several releases of Sintel; the best is 1080p.",
    }
    assert body["choices"][0]["finish_reason"] == "stop"
    conversation_id = body["conversation_id"]
    # The agent's tool ran and remembered the search for this conversation; the turn is in memory.
    memory = entry.runtime_data.memory
    assert "Sintel" in only_search(memory)["results"][0]["title"]
    assert memory.conversations.messages(conversation_id)[-2:] == [
        {"role": "user", "content": "Find Sintel"},
        {"role": "assistant", "content": "I found several releases of Sintel; the best is 1080p."},
    ]

    # The chat's next request (the client resends the whole chat) continues the same conversation.
    llm_server.queue_text("Result 1 is the 1080p BluRay.")
    response = await client.post(
        COMPLETIONS,
        json={
            "model": model,
            "messages": [
                user("Find Sintel"),
                {"role": "assistant", "content": "I found several releases of Sintel; the best is 1080p."},
                user("Which one is first?"),
            ],
        },
    )
    body = await response.json()
    assert body["conversation_id"] == conversation_id
    assert body["choices"][0]["message"]["content"] == "Result 1 is the 1080p BluRay."
    sent = [message.get("content") for message in llm_server.requests[-1]["messages"]]
    assert any(str(content).startswith("Find Sintel\n\n<context>\n") for content in sent[:-1])  # as sent
    assert sent[-1].startswith("Which one is first?\n\n<context>\n")  # the words, then the turn's context


async def test_streamed_completion(
    hass: HomeAssistant,
    setup_integration: MockConfigEntry,
    hass_client: ClientSessionGenerator,
    llm_server: ScriptedLLMServer,
) -> None:
    llm_server.queue_tool_calls([("find_torrents", {"media_title": "Elephants Dream 2006"})])
    llm_server.queue_text("Elephants Dream is available in 1080p and 720p.")
    client = await hass_client()

    response = await client.post(
        COMPLETIONS,
        json={"messages": [user("Find Elephants Dream")], "stream": True, "conversation_id": "chat-7"},
    )

    text, chunks = streamed_text(await sse_events(response))
    assert text == "Elephants Dream is available in 1080p and 720p."
    content_chunks = [chunk for chunk in chunks if chunk["choices"][0]["delta"].get("content")]
    assert len(content_chunks) > 1  # streamed as the model produced it, not sent whole at the end
    assert chunks[-1]["conversation_id"] == "chat-7"
    assert only_search(setup_integration.runtime_data.memory)["query"] == "Elephants Dream 2006"


async def test_streamed_failure_still_ends_the_stream(
    hass: HomeAssistant,
    setup_integration: MockConfigEntry,
    hass_client: ClientSessionGenerator,
    llm_server: ScriptedLLMServer,
) -> None:
    llm_server.queue_error(401, {"error": {"message": "bad key"}})
    client = await hass_client()

    response = await client.post(COMPLETIONS, json={"messages": [user("Find Nosferatu")], "stream": True})

    text, _chunks = streamed_text(await sse_events(response))
    assert "API key" in text  # the agent's own explanation, in words


def only_search(memory: Any) -> dict[str, Any]:
    """Return the search of the one requester that asked (the access token's user)."""
    (state,) = memory.as_dict()["working"].values()
    search: dict[str, Any] = state["search"]
    return search


async def test_any_model_name_is_served_by_the_loaded_agent(
    hass: HomeAssistant,
    setup_integration: MockConfigEntry,
    hass_client: ClientSessionGenerator,
    llm_server: ScriptedLLMServer,
) -> None:
    # Chat clients name the model as they like; with one entry loaded, it answers whatever the name.
    llm_server.queue_text("Hello from Agent Media.")
    client = await hass_client()
    response = await client.post(COMPLETIONS, json={"model": "gpt-4o", "messages": [user("Hello")]})
    assert response.status == HTTPStatus.OK
    body = await response.json()
    assert body["choices"][0]["message"]["content"] == "Hello from Agent Media."
    assert body["model"] == agent_entity_id(hass, setup_integration)


async def test_bad_requests(
    hass: HomeAssistant, setup_integration: MockConfigEntry, hass_client: ClientSessionGenerator
) -> None:
    client = await hass_client()

    response = await client.post(COMPLETIONS, data=b"not json", headers={"Content-Type": "application/json"})
    assert response.status == HTTPStatus.BAD_REQUEST
    assert (await response.json())["error"]["type"] == "invalid_request_error"

    response = await client.post(COMPLETIONS, json={"messages": [{"role": "system", "content": "hi"}]})
    assert response.status == HTTPStatus.BAD_REQUEST
    assert (await response.json())["error"]["code"] == "invalid_messages"

    assert await hass.config_entries.async_unload(setup_integration.entry_id)
    response = await client.post(COMPLETIONS, json={"model": "gpt-4o", "messages": [user("Find Sintel")]})
    assert response.status == HTTPStatus.NOT_FOUND
    assert (await response.json())["error"]["code"] == "model_not_found"


async def test_the_turn_completes_when_the_client_hangs_up(
    hass: HomeAssistant,
    setup_integration: MockConfigEntry,
    hass_client: ClientSessionGenerator,
    llm_server: ScriptedLLMServer,
) -> None:
    llm_server.queue_delay(0.3)
    llm_server.queue_text("Sintel is on its way.")
    client = await hass_client()
    request = asyncio.ensure_future(
        client.post(
            COMPLETIONS,
            json={"messages": [user("Download Sintel")], "stream": True, "conversation_id": "gone"},
        )
    )
    await wait_until(lambda: llm_server.requests, what="the agent to ask the model", interval=0.01)
    request.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await request

    await hass.async_block_till_done()
    messages = setup_integration.runtime_data.memory.conversations.messages("gone")
    assert messages[-1] == {"role": "assistant", "content": "Sintel is on its way."}
