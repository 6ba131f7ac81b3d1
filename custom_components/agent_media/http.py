"""The original service's OpenAI-compatible endpoint, on Home Assistant's HTTP server.

Chat clients such as Open WebUI point at ``https://<home-assistant>/api/agent_media/v1`` with a Home Assistant
access token as the API key. Each request is answered by the entry's conversation agent through
`conversation.async_converse`, so the same agent, tools, chat log and memory serve Assist and these clients.

Clients send the whole chat every time; the agent keeps its own history, so only the last user message is
passed on. The conversation is named by, in order: a ``conversation_id`` in the body (every answer carries
it), Open WebUI's ``X-OpenWebUI-Chat-Id`` header, or a digest of the user and the chat's first message; a name
that is someone else's becomes one of the user's own, as through Assist (`async_own_conversation_id`).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
from http import HTTPStatus
from typing import TYPE_CHECKING, Any, Final

from aiohttp import web

from homeassistant.components import conversation
from homeassistant.components.http.const import KEY_HASS_USER
from homeassistant.const import CONTENT_TYPE_JSON
from homeassistant.core import Context, HomeAssistant, callback
from homeassistant.helpers import chat_session, entity_registry as er
from homeassistant.helpers.http import KEY_HASS, HomeAssistantView
from homeassistant.helpers.json import json_dumps
from homeassistant.util import dt as dt_util
from homeassistant.util.ulid import ulid_now

from .const import DOMAIN, LOGGER
from .conversation import async_own_conversation_id
from .requester import async_resolve_requester

if TYPE_CHECKING:
    from collections.abc import Callable

    from homeassistant.auth.models import User

    from .data import AgentMediaConfigEntry

API_PATH: Final = f"/api/{DOMAIN}/v1"
OPENWEBUI_CHAT_HEADER: Final = "X-OpenWebUI-Chat-Id"
KEEPALIVE_SECONDS: Final = 15.0  # an SSE comment while tools run, so proxies keep the stream open
MAX_CONVERSATION_ID_LENGTH: Final = 200


@callback
def async_register_http_views(hass: HomeAssistant) -> None:
    """Serve the endpoint (once, from `async_setup`)."""
    hass.http.register_view(ModelsView())
    hass.http.register_view(ChatCompletionsView())


def _error(status: HTTPStatus, message: str, *, error_type: str, code: str | None = None) -> web.Response:
    """Return an error in OpenAI's shape, which chat clients show to the user."""
    body = {"error": {"message": message, "type": error_type, "param": None, "code": code}}
    return web.Response(status=status, text=json_dumps(body), content_type=CONTENT_TYPE_JSON)


@callback
def _agents(hass: HomeAssistant) -> list[tuple[AgentMediaConfigEntry, str]]:
    """Return each loaded entry with the entity id of its conversation agent."""
    registry = er.async_get(hass)
    agents: list[tuple[AgentMediaConfigEntry, str]] = []
    for entry in hass.config_entries.async_loaded_entries(DOMAIN):
        for entity in er.async_entries_for_config_entry(registry, entry.entry_id):
            if entity.domain == conversation.DOMAIN and entity.disabled_by is None:
                agents.append((entry, entity.entity_id))
                break
    return agents


@callback
def _find_agent(hass: HomeAssistant, model: Any) -> tuple[AgentMediaConfigEntry, str] | None:
    """Return the agent a request's ``model`` names (entity id, entry id or title), else the first one.

    Chat clients call their model whatever they like ("gpt-4o", "agent-media"), as the original service
    allowed: a name that is no agent's is served by the first loaded agent. None only when none is loaded.
    """
    agents = _agents(hass)
    for entry, entity_id in agents:
        if model in (entity_id, entry.entry_id, entry.title):
            return entry, entity_id
    return agents[0] if agents else None


def _text_of(content: Any) -> str:
    """Return the text of a message's content: a string, or a list of parts of which the text ones count."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            part["text"]
            for part in content
            if isinstance(part, dict) and part.get("type") == "text" and isinstance(part.get("text"), str)
        )
    return ""


def _user_texts(messages: Any) -> list[str]:
    if not isinstance(messages, list):
        return []
    return [
        _text_of(message.get("content"))
        for message in messages
        if isinstance(message, dict) and message.get("role") == "user"
    ]


def conversation_id_for(request: web.Request, body: dict[str, Any], user: User, first_text: str) -> str:
    """Name the conversation this request continues (see the module's docstring)."""
    explicit = body.get("conversation_id")
    if isinstance(explicit, str) and 0 < len(explicit) <= MAX_CONVERSATION_ID_LENGTH:
        return explicit
    chat_id = request.headers.get(OPENWEBUI_CHAT_HEADER, "")
    if 0 < len(chat_id) <= MAX_CONVERSATION_ID_LENGTH:
        return f"openwebui-{chat_id}"
    return _digest_id(f"{user.id}\n{first_text}")


def _digest_id(seed: str) -> str:
    # Not a ULID, so Home Assistant keeps it as given and the chat's next request finds the same conversation.
    return f"openai-{hashlib.sha256(seed.encode('utf-8', 'replace')).hexdigest()[:32]}"


def _speech(result: conversation.ConversationResult) -> str:
    speech: str = result.response.speech.get("plain", {}).get("speech", "")
    return speech


class ModelsView(HomeAssistantView):
    """``GET /api/agent_media/v1/models``: one model per loaded Agent Media agent."""

    url = f"{API_PATH}/models"
    name = f"api:{DOMAIN}:v1:models"

    async def get(self, request: web.Request) -> web.Response:
        """List the agents."""
        hass = request.app[KEY_HASS]
        models = [
            {
                "id": entity_id,
                "object": "model",
                "created": int(entry.created_at.timestamp()),
                "owned_by": DOMAIN,
                "name": entry.title,
            }
            for entry, entity_id in _agents(hass)
        ]
        return self.json({"object": "list", "data": models})


class ChatCompletionsView(HomeAssistantView):
    """``POST /api/agent_media/v1/chat/completions``: the agent answers, whole or streamed."""

    url = f"{API_PATH}/chat/completions"
    name = f"api:{DOMAIN}:v1:chat:completions"

    async def post(self, request: web.Request) -> web.StreamResponse:
        """Answer the chat's last user message."""
        hass = request.app[KEY_HASS]
        user: User = request[KEY_HASS_USER]
        try:
            body = await request.json()
        except ValueError:
            body = None
        if not isinstance(body, dict):
            return _error(
                HTTPStatus.BAD_REQUEST, "The body must be a JSON object.", error_type="invalid_request_error"
            )
        texts = _user_texts(body.get("messages"))
        if not texts or not texts[-1].strip():
            return _error(
                HTTPStatus.BAD_REQUEST,
                "messages must end with a user message that has text.",
                error_type="invalid_request_error",
                code="invalid_messages",
            )
        if (agent := _find_agent(hass, body.get("model"))) is None:
            return _error(
                HTTPStatus.NOT_FOUND,
                "No Agent Media agent is loaded.",
                error_type="invalid_request_error",
                code="model_not_found",
            )
        entry, entity_id = agent
        context = Context(user_id=user.id)
        requester = await async_resolve_requester(hass, context)
        # Decided (and claimed) before the turn, so a stream listens to the chat log the turn writes to.
        conversation_id = async_own_conversation_id(
            hass, entry.runtime_data.memory, requester.key, conversation_id_for(request, body, user, texts[0])
        )
        turn = _Turn(
            hass,
            entry,
            text=texts[-1],
            conversation_id=conversation_id,
            context=context,
            agent_id=entity_id,
        )
        if body.get("stream") is True:
            return await turn.async_stream(request)
        try:
            # Shielded: a client that hangs up does not cut the agent's turn (and its memory) short.
            result = await asyncio.shield(turn.start())
        except Exception:  # noqa: BLE001 - the client gets an error in OpenAI's shape, never a bare 500
            LOGGER.exception("The agent failed to answer a chat completion")
            return _error(HTTPStatus.INTERNAL_SERVER_ERROR, "The agent failed.", error_type="server_error")
        return self.json(turn.completion(_speech(result), result.conversation_id))


class _Turn:
    """One request: the agent's answer, as a chat completion or a stream of chunks."""

    def __init__(
        self,
        hass: HomeAssistant,
        entry: AgentMediaConfigEntry,
        *,
        text: str,
        conversation_id: str,
        context: Context,
        agent_id: str,
    ) -> None:
        self.hass = hass
        self.entry = entry
        self.text = text
        self.conversation_id = conversation_id
        self.context = context
        self.agent_id = agent_id
        self.completion_id = f"chatcmpl-{ulid_now()}"
        self.created = int(dt_util.utcnow().timestamp())

    def start(
        self, delta_listener: Callable[[conversation.ChatLog, dict[str, Any]], None] | None = None
    ) -> asyncio.Task[conversation.ConversationResult]:
        """Run the agent's turn in a task of its own, which finishes even if the client goes away."""
        return self.entry.async_create_task(
            self.hass, self._async_converse(delta_listener), f"{DOMAIN} chat completion"
        )

    async def _async_converse(
        self, delta_listener: Callable[[conversation.ChatLog, dict[str, Any]], None] | None
    ) -> conversation.ConversationResult:
        if delta_listener is None:
            return await self._async_agent_turn()
        # Opened here with the listener, the session and chat log are the ones the agent's own call reuses
        # (through context variables), so the listener sees every delta of the turn.
        with (
            chat_session.async_get_chat_session(self.hass, self.conversation_id) as session,
            conversation.async_get_chat_log(self.hass, session, chat_log_delta_listener=delta_listener),
        ):
            self.conversation_id = session.conversation_id
            return await self._async_agent_turn()

    async def _async_agent_turn(self) -> conversation.ConversationResult:
        return await conversation.async_converse(
            self.hass,
            self.text,
            self.conversation_id,
            self.context,
            language=self.hass.config.language,
            agent_id=self.agent_id,
        )

    def completion(self, content: str, conversation_id: str | None) -> dict[str, Any]:
        return {
            "id": self.completion_id,
            "object": "chat.completion",
            "created": self.created,
            "model": self.agent_id,
            "conversation_id": conversation_id or self.conversation_id,
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": content},
                    "finish_reason": "stop",
                }
            ],
            "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
        }

    def chunk(self, delta: dict[str, Any], finish_reason: str | None = None) -> bytes:
        data: dict[str, Any] = {
            "id": self.completion_id,
            "object": "chat.completion.chunk",
            "created": self.created,
            "model": self.agent_id,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}],
        }
        if finish_reason is not None:  # known for sure once the turn is over
            data["conversation_id"] = self.conversation_id
        return f"data: {json_dumps(data)}\n\n".encode()

    async def async_stream(self, request: web.Request) -> web.StreamResponse:
        """Stream the agent's text as it is produced, from the chat log's deltas."""
        response = web.StreamResponse(
            headers={
                "Content-Type": "text/event-stream",
                "Cache-Control": "no-cache",
                "X-Accel-Buffering": "no",  # nginx: pass chunks on at once
            }
        )
        await response.prepare(request)
        pieces: asyncio.Queue[str | None] = asyncio.Queue()
        sent = _SentText()

        @callback
        def on_delta(_chat_log: conversation.ChatLog, delta: dict[str, Any]) -> None:
            if delta.get("role") == "assistant":
                sent.new_message()
            if isinstance(content := delta.get("content"), str) and content:
                pieces.put_nowait(content)

        writer = _Writer(response)
        await writer.write(self.chunk({"role": "assistant", "content": ""}))
        task = self.start(on_delta)
        task.add_done_callback(lambda _task: pieces.put_nowait(None))
        while True:
            try:
                async with asyncio.timeout(KEEPALIVE_SECONDS):
                    piece = await pieces.get()
            except TimeoutError:
                await writer.write(b": keep-alive\n\n")
                continue
            if piece is None:
                break
            await writer.write(self.chunk({"content": sent.add(piece)}))
        try:
            result = task.result()
        except Exception:  # noqa: BLE001 - reported in the stream, never a bare 500
            LOGGER.exception("The agent failed to answer a streamed chat completion")
            speech = "The agent failed."
        else:
            speech = _speech(result)
        if remainder := sent.missing(speech):
            await writer.write(self.chunk({"content": remainder}))
        await writer.write(self.chunk({}, "stop"))
        await writer.write(b"data: [DONE]\n\n")
        with contextlib.suppress(ConnectionError):
            await response.write_eof()
        return response


class _SentText:
    """What was streamed so far, per assistant message, so the final answer is sent once and only once."""

    def __init__(self) -> None:
        self.any = False
        self.current = ""
        self._separate = False

    def new_message(self) -> None:
        if self.current:
            self._separate = True
        self.current = ""

    def add(self, piece: str) -> str:
        """Record a piece of text; return it as sent (a new message after text starts on a new paragraph)."""
        self.any = True
        if self._separate:
            self._separate = False
            self.current = piece.lstrip()
            return "\n\n" + self.current
        self.current += piece
        return piece

    def missing(self, speech: str) -> str:
        """Return the final answer unless the stream ended with it (after an error, or a silent agent)."""
        if not speech.strip() or speech.strip() == self.current.strip():
            return ""
        return ("\n\n" if self.any else "") + speech


class _Writer:
    """Writes to the client until it goes away; the agent still finishes its turn so memory stays whole."""

    def __init__(self, response: web.StreamResponse) -> None:
        self._response = response
        self._gone = False

    async def write(self, data: bytes) -> None:
        if self._gone:
            return
        try:
            await self._response.write(data)
        except ConnectionError:
            self._gone = True
