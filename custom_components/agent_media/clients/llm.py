"""LLM client: any OpenAI-compatible Chat Completions server (DeepSeek, Ollama, …) through ``openai``."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator
from functools import partial
from typing import TYPE_CHECKING, Any, Final, cast

import openai

from ..const import (
    LLM_MAX_RETRIES,
    LLM_STREAM_IDLE_TIMEOUT,
    LLM_TIMEOUT,
    MAX_LLM_REPLY_CHARS,
    MAX_LLM_TOOL_ARGUMENTS_CHARS,
)
from .errors import (
    AgentMediaClientError,
    CannotConnectError,
    InvalidAuthError,
    InvalidResponseError,
    RateLimitedError,
    RequestRejectedError,
    ResponseTooLargeError,
)

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    import httpx
    from openai.types.chat import ChatCompletionChunk

SERVICE: Final = "llm"
# Ollama and other local servers accept any key, but the openai package insists on one.
PLACEHOLDER_API_KEY: Final = "no-key"
VALIDATE_TIMEOUT: Final = 10.0  # seconds, for the config flow
_MAX_DETAIL: Final = 200
_HTTP_SERVER_ERROR: Final = 500


def _server_message(err: openai.APIStatusError, api_key: str) -> str:
    """Return the server's own error message, short, with the key masked in case the server echoes it."""
    body = err.body
    message: Any = None
    if isinstance(body, dict):
        inner = body.get("error", body)
        message = inner.get("message") if isinstance(inner, dict) else inner
    if not isinstance(message, str) or not message.strip():
        return ""
    text = message.replace(api_key, "***") if api_key else message
    return text.strip()[:_MAX_DETAIL]


def map_openai_error(err: Exception, api_key: str = "") -> AgentMediaClientError:  # noqa: PLR0911 - flat mapping
    """Map an ``openai`` exception (or a time-out) to our errors; the detail never holds the key."""
    if isinstance(err, openai.AuthenticationError | openai.PermissionDeniedError):
        return InvalidAuthError(SERVICE, f"API key refused (HTTP {err.status_code})")
    if isinstance(err, openai.RateLimitError):
        return RateLimitedError(SERVICE, "rate limited or out of credit (HTTP 429)")
    if isinstance(err, openai.APITimeoutError | TimeoutError):
        return CannotConnectError(SERVICE, "timed out")
    if isinstance(err, openai.APIConnectionError):
        return CannotConnectError(SERVICE, "cannot connect")
    if isinstance(err, openai.APIStatusError):
        message = _server_message(err, api_key)
        detail = f"HTTP {err.status_code}" + (f": {message}" if message else "")
        if err.status_code >= _HTTP_SERVER_ERROR:
            return CannotConnectError(SERVICE, f"server error ({detail})")
        return RequestRejectedError(SERVICE, f"request refused ({detail})")
    if isinstance(err, openai.APIResponseValidationError | ValueError):
        return InvalidResponseError(SERVICE, "unexpected answer")
    if isinstance(err, openai.APIError):  # e.g. an error event in the middle of a stream
        return CannotConnectError(SERVICE, (err.message or "error")[:_MAX_DETAIL])
    return CannotConnectError(SERVICE, type(err).__name__)


def _build_openai_client(
    http_client: httpx.AsyncClient, base_url: str, api_key: str, timeout: float, max_retries: int
) -> openai.AsyncOpenAI:
    """Build the client and load its lazily imported parts (runs in the executor: those imports block)."""
    client = openai.AsyncOpenAI(
        api_key=api_key or PLACEHOLDER_API_KEY,
        base_url=base_url,
        # HA 2025.4 hands out an httpx client, newer HA an httpx2 one; openai accepts both.
        http_client=cast("Any", http_client),
        timeout=timeout,
        max_retries=max_retries,
    )
    _ = client.chat.completions, client.models
    client.platform_headers()  # reads platform details from disk once, then cached
    return client


class _ReplyMeter:
    """Counts what one streamed completion has sent; raises ResponseTooLargeError past the caps."""

    def __init__(self) -> None:
        self.total = 0
        self.arguments: dict[int, int] = {}

    def count(self, chunk: ChatCompletionChunk) -> None:
        for choice in chunk.choices:
            delta = choice.delta
            thinking = getattr(delta, "reasoning_content", None)
            self.total += len(delta.content or "") + (len(thinking) if isinstance(thinking, str) else 0)
            for call in delta.tool_calls or ():
                if call.function is None:
                    continue
                arguments = len(call.function.arguments or "")
                self.total += arguments + len(call.function.name or "")
                self.arguments[call.index] = self.arguments.get(call.index, 0) + arguments
                if self.arguments[call.index] > MAX_LLM_TOOL_ARGUMENTS_CHARS:
                    raise _too_long("a tool call's arguments are", MAX_LLM_TOOL_ARGUMENTS_CHARS)
        if self.total > MAX_LLM_REPLY_CHARS:
            raise _too_long("the answer is", MAX_LLM_REPLY_CHARS)


def _too_long(what: str, limit: int) -> ResponseTooLargeError:
    return ResponseTooLargeError(SERVICE, f"{what} longer than {limit:,} characters")


class LLMClient:
    """Streams chat completions (with native tool calls) from one model."""

    model: str

    def __init__(
        self,
        client: openai.AsyncOpenAI,
        *,
        model: str,
        api_key: str,
        idle_timeout: float = LLM_STREAM_IDLE_TIMEOUT,
    ) -> None:
        """Wrap a ready client; use :meth:`async_create` to build one."""
        self._client = client
        self._api_key = api_key
        self._idle_timeout = idle_timeout
        self.model = model

    @classmethod
    async def async_create(
        cls,
        http_client: httpx.AsyncClient,
        *,
        base_url: str,
        api_key: str,
        model: str,
        timeout: float = LLM_TIMEOUT,  # noqa: ASYNC109 - the openai client's own time-out, not this call's
        max_retries: int = LLM_MAX_RETRIES,
        idle_timeout: float = LLM_STREAM_IDLE_TIMEOUT,
    ) -> LLMClient:
        """Build a client on the given (shared) HTTP client; nothing is contacted yet."""
        loop = asyncio.get_running_loop()
        client = await loop.run_in_executor(
            None,
            partial(
                _build_openai_client, http_client, base_url.strip(), api_key.strip(), timeout, max_retries
            ),
        )
        return cls(client, model=model.strip(), api_key=api_key.strip(), idle_timeout=idle_timeout)

    async def async_validate(self) -> None:
        """Check URL and key: list the models, or, where that endpoint is missing, ask for one token.

        Bounded by `VALIDATE_TIMEOUT` without retries: someone is waiting in front of a form.
        """
        client = self._client.with_options(timeout=VALIDATE_TIMEOUT, max_retries=0)
        try:
            await client.models.list()
        except (openai.AuthenticationError, openai.PermissionDeniedError, openai.APIConnectionError) as err:
            raise map_openai_error(err, self._api_key) from err
        except openai.OpenAIError:
            pass  # some compatible servers have no /models; a tiny completion settles it
        else:
            return
        try:
            await client.chat.completions.create(
                model=self.model, messages=[{"role": "user", "content": "Hi"}], max_tokens=1
            )
        except openai.OpenAIError as err:
            raise map_openai_error(err, self._api_key) from err

    async def stream_chat(
        self,
        *,
        messages: list[dict[str, Any]],
        tools: list[dict[str, Any]] | None,
        temperature: float | None,
        extra_body: dict[str, Any] | None = None,
        model: str | None = None,
    ) -> AsyncIterator[ChatCompletionChunk]:
        """Yield the chunks of one streamed completion; failures raise our errors, never ``openai``'s.

        A server that sends nothing usable for `idle_timeout` seconds (keep-alive comments do not count: they
        reset the HTTP client's read time-out, not this one) is given up on. An answer past
        `MAX_LLM_REPLY_CHARS` (text, reasoning and tool calls together), or a tool call whose arguments pass
        `MAX_LLM_TOOL_ARGUMENTS_CHARS`, is cut off with ResponseTooLargeError. `model`: another model of the
        same server (an agent's own), else the client's.
        """
        options: dict[str, Any] = {}
        if tools:
            options["tools"] = tools
        if temperature is not None:
            options["temperature"] = temperature
        if extra_body:
            options["extra_body"] = extra_body
        try:
            stream = await self._client.chat.completions.create(
                model=model or self.model, messages=cast("Any", messages), stream=True, **options
            )
            async with stream:
                chunks = aiter(stream)
                meter = _ReplyMeter()
                try:
                    while True:
                        try:
                            async with asyncio.timeout(self._idle_timeout):
                                chunk = await anext(chunks)
                        except StopAsyncIteration:
                            return
                        meter.count(chunk)
                        yield chunk
                finally:
                    # Close openai's own generators now, not when asyncio collects them after the turn.
                    if isinstance(chunks, AsyncGenerator):
                        await chunks.aclose()
        except TimeoutError as err:
            raise CannotConnectError(SERVICE, f"no answer for {self._idle_timeout:g} s") from err
        except (openai.OpenAIError, ValueError) as err:
            raise map_openai_error(err, self._api_key) from err
