"""A scripted OpenAI-compatible Chat Completions server: each request gets the next queued reply.

Replies stream as server-sent events when the request asks for ``stream: true`` (text split in several
deltas, tool-call arguments split across chunks, as real servers do), otherwise as one completion.
An empty queue answers HTTP 500, so a test that expected fewer LLM calls notices.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
import json
import time
from typing import Any

from aiohttp import web

from ._server import LoopbackServer, json_response


@dataclass
class ScriptedReply:
    """One queued answer: text, tool calls, or an HTTP error."""

    text: str | None = None
    tool_calls: list[tuple[str, str]] = field(default_factory=list)  # (name, raw JSON arguments)
    status: int = 200
    error_body: Any = None
    keepalive_seconds: float = 0.0  # SSE comments only, for this long, before the reply (a stuck model)


def _split(text: str, parts: int = 3) -> list[str]:
    """Split text into up to ``parts`` non-empty pieces."""
    if not text:
        return [text]
    step = max(1, -(-len(text) // parts))
    return [text[i : i + step] for i in range(0, len(text), step)]


class ScriptedLLMServer(LoopbackServer):
    """``/v1/models`` and ``/v1/chat/completions`` with a Bearer key; ``.requests`` holds the chat bodies."""

    def __init__(self) -> None:
        super().__init__()
        self.api_key = "sk-agent-media-test-key"
        self.model = "scripted-model"
        self.serve_models = True  # False: /v1/models answers 404, like servers without that endpoint
        self.requests: list[dict[str, Any]] = []
        self._queue: list[ScriptedReply] = []
        self._delay = 0.0
        self._counter = 0
        self.app.router.add_get("/v1/models", self._models)
        self.app.router.add_post("/v1/chat/completions", self._chat)

    @property
    def base_url(self) -> str:
        """The API root, ending in ``/v1``."""
        return f"{self.root_url}/v1"

    @property
    def pending(self) -> int:
        """How many queued replies have not been used."""
        return len(self._queue)

    def queue_text(self, text: str) -> None:
        """Queue a plain text answer."""
        self._queue.append(ScriptedReply(text=text))

    def queue_tool_calls(self, calls: list[tuple[str, dict[str, Any] | str]]) -> None:
        """Queue native tool calls; arguments as a dict, or a raw string (to send malformed JSON)."""
        self._queue.append(
            ScriptedReply(
                tool_calls=[
                    (name, args if isinstance(args, str) else json.dumps(args)) for name, args in calls
                ]
            )
        )

    def queue_json_action(self, name: str, args: dict[str, Any]) -> None:
        """Queue the original JSON-action form, ``{"action": {"name": ..., "args": {...}}}``, as text."""
        self.queue_text(json.dumps({"action": {"name": name, "args": args}}))

    def queue_error(self, status: int, body: Any = None) -> None:
        """Queue an HTTP error; ``body`` a dict (JSON) or a string (HTML when it starts with "<")."""
        self._queue.append(ScriptedReply(status=status, error_body=body))

    def queue_keepalives(self, seconds: float, text: str = "Too late.") -> None:
        """Queue a reply that trickles keep-alive comments for ``seconds`` before its text."""
        self._queue.append(ScriptedReply(text=text, keepalive_seconds=seconds))

    def queue_delay(self, seconds: float) -> None:
        """Delay the next reply (of either endpoint) by ``seconds``."""
        self._delay = seconds

    async def _take_delay(self) -> None:
        delay, self._delay = self._delay, 0.0
        if delay:
            await self.wait(delay)

    def _authorized(self, request: web.Request) -> bool:
        return request.headers.get("Authorization") == f"Bearer {self.api_key}"

    @staticmethod
    def _error(status: int, message: str, error_type: str, code: str | None = None) -> web.Response:
        return json_response({"error": {"message": message, "type": error_type, "code": code}}, status=status)

    def _unauthorized(self) -> web.Response:
        return self._error(
            401, "Authentication Fails, Your api key is invalid", "authentication_error", "invalid_api_key"
        )

    async def _models(self, request: web.Request) -> web.StreamResponse:
        await self._take_delay()
        if not self._authorized(request):
            return self._unauthorized()
        if not self.serve_models:
            return web.Response(status=404, text="404 page not found")
        return json_response(
            {
                "object": "list",
                "data": [{"id": self.model, "object": "model", "created": 0, "owned_by": "rig"}],
            }
        )

    async def _chat(self, request: web.Request) -> web.StreamResponse:
        body = await request.json()
        self.requests.append(body)
        await self._take_delay()
        if not self._authorized(request):
            return self._unauthorized()
        if not self._queue:
            return self._error(500, "the scripted LLM server has no reply queued", "server_error")
        reply = self._queue.pop(0)
        if reply.status != 200:
            return self._error_response(reply)
        self._counter += 1
        completion_id = f"chatcmpl-{self._counter}"
        if body.get("stream"):
            include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
            return await self._stream(request, reply, completion_id, include_usage=include_usage)
        return json_response(self._completion(reply, completion_id))

    def _error_response(self, reply: ScriptedReply) -> web.Response:
        body = reply.error_body
        if isinstance(body, str):
            content_type = "text/html" if body.lstrip().startswith("<") else "text/plain"
            return web.Response(status=reply.status, text=body, content_type=content_type)
        if body is None:
            body = {
                "error": {"message": f"scripted error {reply.status}", "type": "scripted_error", "code": None}
            }
        return json_response(body, status=reply.status)

    def _tool_call_id(self, completion_id: str, index: int) -> str:
        return f"call_{completion_id.rsplit('-', 1)[1]}_{index}"

    def _completion(self, reply: ScriptedReply, completion_id: str) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": reply.text}
        if reply.tool_calls:
            message["tool_calls"] = [
                {
                    "id": self._tool_call_id(completion_id, index),
                    "type": "function",
                    "function": {"name": name, "arguments": arguments},
                }
                for index, (name, arguments) in enumerate(reply.tool_calls)
            ]
        return {
            "id": completion_id,
            "object": "chat.completion",
            "created": int(time.time()),
            "model": self.model,
            "choices": [
                {
                    "index": 0,
                    "message": message,
                    "finish_reason": "tool_calls" if reply.tool_calls else "stop",
                }
            ],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
        }

    async def _stream(
        self, request: web.Request, reply: ScriptedReply, completion_id: str, *, include_usage: bool
    ) -> web.StreamResponse:
        response = web.StreamResponse(
            headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache"}
        )
        await response.prepare(request)
        created = int(time.time())

        async def send(delta: dict[str, Any] | None, finish_reason: str | None = None, **extra: Any) -> None:
            chunk: dict[str, Any] = {
                "id": completion_id,
                "object": "chat.completion.chunk",
                "created": created,
                "model": self.model,
                "choices": []
                if delta is None
                else [{"index": 0, "delta": delta, "finish_reason": finish_reason}],
                **extra,
            }
            await response.write(f"data: {json.dumps(chunk)}\n\n".encode())

        await send({"role": "assistant", "content": ""})
        deadline = time.monotonic() + reply.keepalive_seconds
        while time.monotonic() < deadline:  # bounded: the server stops by itself
            try:
                await response.write(b": keep-alive\n\n")
            except ConnectionError:
                return response  # the client gave up, as it should
            await asyncio.sleep(0.2)
        if reply.text:
            for piece in _split(reply.text):
                await send({"content": piece})
        for index, (name, arguments) in enumerate(reply.tool_calls):
            await send(
                {
                    "tool_calls": [
                        {
                            "index": index,
                            "id": self._tool_call_id(completion_id, index),
                            "type": "function",
                            "function": {"name": name, "arguments": ""},
                        }
                    ]
                }
            )
            for piece in _split(arguments, 2):
                await send({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
        await send({}, "tool_calls" if reply.tool_calls else "stop")
        if include_usage:
            await send(None, usage={"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15})
        await response.write(b"data: [DONE]\n\n")
        await response.write_eof()
        return response
