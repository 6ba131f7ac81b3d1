"""HTTP plumbing shared by the clients that speak HTTP themselves (Knaben, TMDB, Torznab, .torrent links).

Bodies are read with a byte cap, 429 and 5xx answers are retried a bounded number of times within the
caller's deadline (honouring Retry-After), answers can be kept in a small time-limited cache, and every
failure is mapped to our errors.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
import json
import math
import time
from typing import TYPE_CHECKING, Any

import aiohttp

from ..const import (
    MAX_RESPONSE_BYTES,
    RETRY_ATTEMPTS,
    RETRY_FIRST_DELAY,
    RETRY_MAX_TOTAL_WAIT,
    SEARCH_CACHE_SIZE,
    SEARCH_CACHE_TTL,
)
from .errors import (
    CannotConnectError,
    InvalidAuthError,
    InvalidResponseError,
    RateLimitedError,
    RequestRejectedError,
    ResponseTooLargeError,
    TimedOutError,
)

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable, Hashable

_HTTP_UNAUTHORIZED = 401
_HTTP_FORBIDDEN = 403
_HTTP_TOO_MANY_REQUESTS = 429
_HTTP_SERVER_ERROR = 500
_HTTP_CLIENT_ERROR = 400
_RETRIED_STATUSES = frozenset({429, 500, 502, 503, 504})
REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
_READ_CHUNK = 64 * 1024
_MIN_ATTEMPT_TIME = 0.5  # seconds an attempt needs at least; no retry when less is left before the deadline


@dataclass(frozen=True, slots=True, kw_only=True)
class RetryPolicy:
    """How often and how long to wait before asking a busy service again."""

    attempts: int = RETRY_ATTEMPTS
    first_delay: float = RETRY_FIRST_DELAY
    max_total_wait: float = RETRY_MAX_TOTAL_WAIT
    sleep: Callable[[float], Awaitable[None]] = field(default=asyncio.sleep, compare=False)

    def delay(self, attempt: int, retry_after: float | None) -> float:
        """Seconds to wait after failed attempt ``attempt`` (from 1): doubling, or what the service asked."""
        doubling: float = self.first_delay * 2 ** (attempt - 1)
        return max(doubling, retry_after or 0.0)


DEFAULT_RETRY = RetryPolicy()
NO_RETRY = RetryPolicy(attempts=1)


@dataclass(frozen=True, slots=True)
class HttpAnswer:
    """An HTTP answer read within the byte cap."""

    status: int
    content_type: str
    body: bytes
    retry_after: float | None
    location: str | None = None  # where a redirect points, when redirects are not followed


class TTLCache[K: Hashable, V]:
    """A small cache whose entries expire: the least recently used goes first when it is full."""

    def __init__(
        self,
        *,
        ttl: float = SEARCH_CACHE_TTL,
        max_entries: int = SEARCH_CACHE_SIZE,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        """Keep at most ``max_entries`` values, each for ``ttl`` seconds of ``clock``."""
        self._ttl = ttl
        self._max_entries = max_entries
        self._clock = clock
        self._entries: OrderedDict[K, tuple[float, V]] = OrderedDict()

    def get(self, key: K) -> V | None:
        """Return the value kept under ``key``, or None when there is none or it expired."""
        if (entry := self._entries.get(key)) is None:
            return None
        expires, value = entry
        if self._clock() >= expires:
            del self._entries[key]
            return None
        self._entries.move_to_end(key)
        return value

    def put(self, key: K, value: V) -> None:
        """Keep ``value`` under ``key``; a ttl of 0 keeps nothing."""
        if self._ttl <= 0 or self._max_entries <= 0:
            return
        self._entries[key] = (self._clock() + self._ttl, value)
        self._entries.move_to_end(key)
        while len(self._entries) > self._max_entries:
            self._entries.popitem(last=False)


def clip(value: Any, max_length: int) -> str | None:
    """Return outside text stripped and cut to ``max_length`` characters; None when empty or not text."""
    if not isinstance(value, str) or not (text := value.strip()):
        return None
    return text if len(text) <= max_length else text[: max_length - 1].rstrip() + "…"


def as_int(value: Any) -> int:
    """Return a count from outside (a number, or a numeric string), 0 when it is not one."""
    if isinstance(value, bool):
        return 0
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return int(value) if math.isfinite(value) else 0
    if isinstance(value, str):
        try:
            return as_int(float(value))
        except ValueError:
            return 0
    return 0


def deadline_in(seconds: float) -> float:
    """Return the event-loop time ``seconds`` from now, the deadline a call's requests share."""
    return asyncio.get_running_loop().time() + seconds


def parse_retry_after(value: str | None, *, now: datetime | None = None) -> float | None:
    """Return the seconds a Retry-After header asks for (seconds or an HTTP date); None if unreadable."""
    if not value or not (text := value.strip()):
        return None
    if text.isdigit():
        return float(text)
    try:
        when = parsedate_to_datetime(text)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max((when - (now or datetime.now(UTC))).total_seconds(), 0.0)


def too_large_error(service: str, max_bytes: int) -> ResponseTooLargeError:
    """Return the error of an answer past ``max_bytes`` ("answered with more than 2 MB")."""
    size = f"{max_bytes / 1024 / 1024:g} MB" if max_bytes >= 1024 * 1024 else f"{max_bytes / 1024:g} KB"
    return ResponseTooLargeError(service, f"answered with more than {size}")


async def _async_fetch_once(
    session: aiohttp.ClientSession,
    method: str,
    url: str,
    *,
    service: str,
    deadline: float,
    max_bytes: int,
    params: dict[str, str] | None,
    headers: dict[str, str] | None,
    json_body: dict[str, Any] | None,
    allow_redirects: bool,
) -> HttpAnswer:
    try:
        async with (
            asyncio.timeout_at(deadline),
            session.request(
                method, url, params=params, headers=headers, json=json_body, allow_redirects=allow_redirects
            ) as response,
        ):
            if response.content_length is not None and response.content_length > max_bytes:
                raise too_large_error(service, max_bytes)
            body = bytearray()
            async for chunk in response.content.iter_chunked(_READ_CHUNK):
                body += chunk
                if len(body) > max_bytes:  # no or a false Content-Length: stop reading at the cap
                    raise too_large_error(service, max_bytes)
            return HttpAnswer(
                status=response.status,
                content_type=response.content_type,
                body=bytes(body),
                retry_after=parse_retry_after(response.headers.get("Retry-After")),
                location=response.headers.get("Location"),
            )
    except TimeoutError as err:
        raise TimedOutError(service, "timed out") from err
    except aiohttp.ClientError as err:
        raise CannotConnectError(service, "cannot connect") from err


async def async_fetch(
    session: aiohttp.ClientSession,
    method: str,
    url: str,
    *,
    service: str,
    deadline: float,
    max_bytes: int = MAX_RESPONSE_BYTES,
    retry: RetryPolicy = NO_RETRY,
    params: dict[str, str] | None = None,
    headers: dict[str, str] | None = None,
    json_body: dict[str, Any] | None = None,
    allow_redirects: bool = True,
) -> HttpAnswer:
    """Send a request, again after a pause while the service answers 429 or 5xx; return the last answer.

    A retry happens only when the wait (the policy's doubling delay, or Retry-After when longer) fits both
    the policy's total wait and the deadline. Raises TimedOutError, CannotConnectError or
    ResponseTooLargeError; HTTP statuses are left to the caller (see raise_for_status). Without
    ``allow_redirects`` a redirect is answered as it is (its ``location`` kept), not followed.
    """
    loop = asyncio.get_running_loop()
    waited = 0.0
    attempt = 1
    while True:
        answer = await _async_fetch_once(
            session,
            method,
            url,
            service=service,
            deadline=deadline,
            max_bytes=max_bytes,
            params=params,
            headers=headers,
            json_body=json_body,
            allow_redirects=allow_redirects,
        )
        if answer.status not in _RETRIED_STATUSES or attempt >= retry.attempts:
            return answer
        wait = retry.delay(attempt, answer.retry_after)
        if waited + wait > retry.max_total_wait or loop.time() + wait + _MIN_ATTEMPT_TIME > deadline:
            return answer
        await retry.sleep(wait)
        waited += wait
        attempt += 1


def raise_for_status(service: str, answer: HttpAnswer, *, has_credentials: bool) -> None:
    """Raise the error an HTTP error status means; return for success."""
    status = answer.status
    if status == _HTTP_TOO_MANY_REQUESTS:
        wait = f", retry after {answer.retry_after:g} s" if answer.retry_after is not None else ""
        raise RateLimitedError(service, f"rate limited (HTTP 429{wait})", retry_after=answer.retry_after)
    if status >= _HTTP_SERVER_ERROR:
        raise CannotConnectError(service, f"server error (HTTP {status})")
    if status in (_HTTP_UNAUTHORIZED, _HTTP_FORBIDDEN) and has_credentials:
        raise InvalidAuthError(service, f"credentials refused (HTTP {status})")
    if status >= _HTTP_CLIENT_ERROR:
        raise RequestRejectedError(service, f"request refused (HTTP {status})")


async def async_request_json(
    session: aiohttp.ClientSession,
    method: str,
    url: str,
    *,
    service: str,
    deadline: float,
    has_credentials: bool = True,
    max_bytes: int = MAX_RESPONSE_BYTES,
    retry: RetryPolicy = NO_RETRY,
    params: dict[str, str] | None = None,
    headers: dict[str, str] | None = None,
    json_body: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Send one request (retried as ``retry`` allows) and return the JSON object it answers with.

    Raises CannotConnectError (unreachable, 5xx; TimedOutError past the deadline), RateLimitedError (429),
    InvalidAuthError (401/403 when the service takes credentials), RequestRejectedError (other 4xx) or
    InvalidResponseError (not JSON, JSON that is not an object; ResponseTooLargeError past ``max_bytes``).
    """
    answer = await async_fetch(
        session,
        method,
        url,
        service=service,
        deadline=deadline,
        max_bytes=max_bytes,
        retry=retry,
        params=params,
        headers=headers,
        json_body=json_body,
    )
    raise_for_status(service, answer, has_credentials=has_credentials)
    content_type = answer.content_type
    if "json" not in content_type and answer.body.lstrip()[:1] not in (b"{", b"["):
        raise InvalidResponseError(service, f"answered with {content_type or 'no content type'}, not JSON")
    try:
        payload = json.loads(answer.body)
    except ValueError as err:
        raise InvalidResponseError(service, "answered with invalid JSON") from err
    if not isinstance(payload, dict):
        raise InvalidResponseError(service, "answered with JSON that is not an object")
    return payload
