"""Errors shared by the service clients.

Each client maps its library's or HTTP errors to these, so that the config flow, setup, the coordinator, the
agent's tools and the actions can react the same way whatever the service.
"""

from __future__ import annotations


class AgentMediaClientError(Exception):
    """A call to an outside service failed."""

    def __init__(self, service: str, detail: str) -> None:
        """Keep which service failed and a short, human detail (never a secret)."""
        super().__init__(f"{service}: {detail}")
        self.service = service
        self.detail = detail


class CannotConnectError(AgentMediaClientError):
    """The service is unreachable, timed out, or answered with a server error."""


class InvalidAuthError(AgentMediaClientError):
    """The service refused the credentials."""


class BannedError(InvalidAuthError):
    """The service banned this client after failed logins (qBittorrent)."""


class RateLimitedError(CannotConnectError):
    """The service asked us to slow down (HTTP 429)."""


class InvalidResponseError(AgentMediaClientError):
    """The service answered with something we cannot read (HTML instead of JSON, bad shape)."""


class RequestRejectedError(AgentMediaClientError):
    """The service refused the request itself (bad torrent, duplicate, 4xx other than auth)."""
