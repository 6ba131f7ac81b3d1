"""One JSON request on an aiohttp session, with every failure mapped to our errors (TMDB and Knaben)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import aiohttp

from .errors import (
    CannotConnectError,
    InvalidAuthError,
    InvalidResponseError,
    RateLimitedError,
    RequestRejectedError,
)

_HTTP_UNAUTHORIZED = 401
_HTTP_FORBIDDEN = 403
_HTTP_TOO_MANY_REQUESTS = 429
_HTTP_SERVER_ERROR = 500
_HTTP_CLIENT_ERROR = 400


def _raise_for_status(service: str, status: int, retry_after: str | None, *, has_credentials: bool) -> None:
    """Raise the error an HTTP error status means; return for success."""
    if status == _HTTP_TOO_MANY_REQUESTS:
        wait = f", retry after {retry_after} s" if retry_after and retry_after.isdigit() else ""
        raise RateLimitedError(service, f"rate limited (HTTP 429{wait})")
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
    time_limit: float,
    has_credentials: bool = True,
    params: dict[str, str] | None = None,
    headers: dict[str, str] | None = None,
    json_body: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Send one request and return the JSON object it answers with.

    Raises CannotConnectError (unreachable, time-out, 5xx), RateLimitedError (429), InvalidAuthError
    (401/403 when the service takes credentials), RequestRejectedError (other 4xx) or InvalidResponseError
    (not JSON, or JSON that is not an object).
    """
    try:
        async with (
            asyncio.timeout(time_limit),
            session.request(method, url, params=params, headers=headers, json=json_body) as response,
        ):
            status = response.status
            content_type = response.content_type
            retry_after = response.headers.get("Retry-After")
            body = await response.read()
    except TimeoutError as err:
        raise CannotConnectError(service, "timed out") from err
    except aiohttp.ClientError as err:
        raise CannotConnectError(service, "cannot connect") from err

    _raise_for_status(service, status, retry_after, has_credentials=has_credentials)
    if "json" not in content_type and body.lstrip()[:1] not in (b"{", b"["):
        raise InvalidResponseError(service, f"answered with {content_type or 'no content type'}, not JSON")
    try:
        payload = json.loads(body)
    except ValueError as err:
        raise InvalidResponseError(service, "answered with invalid JSON") from err
    if not isinstance(payload, dict):
        raise InvalidResponseError(service, "answered with JSON that is not an object")
    return payload
