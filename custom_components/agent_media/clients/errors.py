"""Errors shared by the service clients.

Each client maps its library's or HTTP errors to these, so that the config flow, setup, the coordinator, the
agent's tools and the actions can react the same way whatever the service.
"""

from __future__ import annotations

from typing import ClassVar


class AgentMediaClientError(Exception):
    """A call to an outside service failed."""

    code: ClassVar[str] = "failed"  # a short, stable name of the failure, for tool results and outcomes

    def __init__(self, service: str, detail: str) -> None:
        """Keep which service failed and a short, human detail (never a secret)."""
        super().__init__(f"{service}: {detail}")
        self.service = service
        self.detail = detail


class CannotConnectError(AgentMediaClientError):
    """The service is unreachable, timed out, or answered with a server error."""

    code = "cannot_connect"


class TimedOutError(CannotConnectError):
    """The service did not answer within the caller's time limit."""

    code = "timed_out"


class InvalidAuthError(AgentMediaClientError):
    """The service refused the credentials."""

    code = "invalid_auth"


class BannedError(InvalidAuthError):
    """The service banned this client after failed logins (qBittorrent)."""

    code = "banned"


class RateLimitedError(CannotConnectError):
    """The service asked us to slow down (HTTP 429)."""

    code = "rate_limited"

    def __init__(self, service: str, detail: str, *, retry_after: float | None = None) -> None:
        """Also keep how many seconds the service asked us to wait, when it said."""
        super().__init__(service, detail)
        self.retry_after = retry_after


class InvalidResponseError(AgentMediaClientError):
    """The service answered with something we cannot read (HTML instead of JSON, bad shape)."""

    code = "bad_response"  # the agent tools' word for it


class ResponseTooLargeError(InvalidResponseError):
    """The service's answer is larger than we are willing to read."""

    code = "too_large"


class RequestRejectedError(AgentMediaClientError):
    """The service refused the request itself (bad torrent, duplicate, 4xx other than auth)."""

    code = "rejected"
