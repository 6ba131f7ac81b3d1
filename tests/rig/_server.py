"""Shared plumbing of the loopback HTTP servers: start on a free port, scripted failures, clean shutdown.

Every answer with a body is sent as the worst real server sends it: in small pieces with short pauses
between them (the first piece smaller than one network packet), so a client that keeps only its first read
gets a cut body. Answers a handler streams itself (server-sent events, chunked "huge_stream") go as written.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from typing import TYPE_CHECKING, Any, Self

from aiohttp import web

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Awaitable, Callable

FAILURE_KINDS = frozenset(
    {"html", "500", "503", "401", "403", "429", "slow", "bad_shape", "huge", "huge_stream"}
)
HTML_PAGE = (
    "<!DOCTYPE html><html><head><title>Maintenance</title></head><body>Down for maintenance</body></html>"
)
FIRST_PIECE_BYTES = 1000  # less than one Ethernet frame: the headers and a sliver of the body come alone
PIECE_BYTES = 16 * 1024  # then a TLS record's worth at a time
PIECE_PAUSE = 0.002  # seconds between pieces: each one reaches the client as a read of its own


class LoopbackServer:
    """An aiohttp.web app on 127.0.0.1, port chosen by the system, in the test's event loop."""

    def __init__(self) -> None:
        self.app = web.Application(middlewares=[self._trickle])
        self.port = 0
        self.slow_seconds = 60.0  # "slow" answers after this long, or at shutdown, whichever comes first
        self.retry_after: str | None = "1"  # the Retry-After header of scripted 429 and 503 answers
        self.huge_bytes = (
            10 * 1024 * 1024
        )  # the size of "huge" answers (declared) and "huge_stream" (chunked)
        self._failures: list[str] = []
        self._runner: web.AppRunner | None = None
        self._closing = asyncio.Event()

    @property
    def root_url(self) -> str:
        """``http://127.0.0.1:PORT``."""
        return f"http://127.0.0.1:{self.port}"

    async def start(self) -> None:
        """Listen on a free loopback port."""
        runner = web.AppRunner(self.app, handle_signals=False, access_log=None)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        self._runner = runner
        self.port = int(runner.addresses[0][1])

    async def close(self) -> None:
        """Release whatever handler is still waiting, then stop listening."""
        self._closing.set()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> Self:
        """Start listening; closed when the block ends."""
        await self.start()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        """Stop listening."""
        await self.close()

    @web.middleware
    async def _trickle(
        self, request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
    ) -> web.StreamResponse:
        """Send a handler's whole body in pieces, with its Content-Length, pausing between them."""
        response = await handler(request)
        if response.prepared or not isinstance(response, web.Response):
            return response
        body = response.body
        if not isinstance(body, bytes) or not body:
            return response  # an async iterable body is already streamed, chunked
        trickled = web.StreamResponse(
            status=response.status, reason=response.reason, headers=response.headers
        )
        trickled.content_length = len(body)
        await trickled.prepare(request)
        pieces = [body[:FIRST_PIECE_BYTES]] + [
            body[start : start + PIECE_BYTES] for start in range(FIRST_PIECE_BYTES, len(body), PIECE_BYTES)
        ]
        try:
            for number, piece in enumerate(pieces):
                if number:
                    # A pause on the real clock: a test that freezes time freezes the loop's timers too, and
                    # an asyncio.sleep here would then never end.
                    await asyncio.to_thread(time.sleep, PIECE_PAUSE)
                await trickled.write(piece)
            await trickled.write_eof()
        except ConnectionResetError:
            pass  # the client stopped reading (a size cap, a time-out): as a real server, stop sending
        return trickled

    async def wait(self, seconds: float) -> None:
        """Sleep ``seconds``, cut short when the server shuts down."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._closing.wait(), seconds)

    def fail_next(self, kind: str, times: int = 1) -> None:
        """Make the next ``times`` requests fail (calls queue up).

        Kinds: html, 500, 503, 401, 403, 429, slow, bad_shape, huge (a body of ``huge_bytes`` with its
        Content-Length) or huge_stream (the same, chunked, with no length).
        """
        if kind not in FAILURE_KINDS:
            raise ValueError(f"unknown failure kind {kind!r}; use one of {sorted(FAILURE_KINDS)}")
        self._failures.extend([kind] * times)

    async def scripted_failure(self) -> web.StreamResponse | None:
        """Return the failure response queued for this request, or None to answer normally."""
        if not self._failures:
            return None
        kind = self._failures.pop(0)
        if kind == "slow":
            await self.wait(self.slow_seconds)
            return None
        if kind.isdigit():
            status = int(kind)
            headers = {"Retry-After": self.retry_after} if status in (429, 503) and self.retry_after else None
            return json_response(self.error_body(status), status=status, headers=headers)
        bodies = {
            "html": lambda: web.Response(text=HTML_PAGE, content_type="text/html"),
            "bad_shape": lambda: json_response(["not", "an", "object"]),
            "huge": lambda: web.Response(body=_padding(self.huge_bytes), content_type="application/json"),
            "huge_stream": lambda: web.Response(
                body=_chunks(self.huge_bytes), content_type="application/json"
            ),
        }
        return bodies[kind]()

    def error_body(self, status: int) -> Any:
        """The JSON body of a scripted error; services override it with their own shape."""
        return {"error": f"scripted HTTP {status}"}


class RecordedSleep:
    """Stands in for asyncio.sleep in a client's retry policy: records each wait, returns at once."""

    def __init__(self) -> None:
        self.waits: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.waits.append(seconds)


def _padding(size: int) -> bytes:
    """A JSON-looking body of ``size`` bytes."""
    return b'{"padding": "' + b"x" * max(size - 16, 0) + b'"}'


async def _chunks(size: int) -> AsyncIterator[bytes]:
    """``size`` bytes in 64 KiB chunks: aiohttp sends an async iterable chunked, with no Content-Length."""
    chunk = b"x" * 65536
    for _ in range(size // len(chunk) + 1):
        yield chunk


def json_response(payload: Any, *, status: int = 200, headers: dict[str, str] | None = None) -> web.Response:
    """A JSON response with the content type real services send."""
    return web.Response(
        text=json.dumps(payload), status=status, content_type="application/json", headers=headers
    )
