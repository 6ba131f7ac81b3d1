"""What every operation shares: the request it serves, its collaborators, and the permission check.

The collaborators are passed in once, when the entry is set up (`__init__.async_setup_entry`); operations
never reach for the entry's runtime data, so nothing below them imports the surfaces or the set-up.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Coroutine, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Final

from ..const import (
    CONF_ALLOW_NON_ADMIN_SETTINGS,
    CONF_MAX_SIZE_GB,
    CONF_PREFERRED_CODEC,
    CONF_PREFERRED_LANGUAGES,
    CONF_PREFERRED_RESOLUTION,
    DEFAULT_ALLOW_NON_ADMIN_SETTINGS,
)
from ..errors import PERMISSION_DENIED, ErrorCode, OperationError

if TYPE_CHECKING:
    from homeassistant.core import HomeAssistant

    from ..clients.qbittorrent import QBittorrentClient
    from ..clients.sources import SearchSources
    from ..clients.tmdb import TMDBClient
    from ..links import ResultLinks
    from ..memory import AgentMediaMemory
    from ..requester import Permission, Requester

# Where a request comes from (the `source` of `agent_media_download_added`: a contract).
SOURCE_CONVERSATION: Final = "conversation"
SOURCE_SERVICE: Final = "service"

# The options that are release preferences: the household's, set by voice, override them.
PREFERENCE_OPTIONS: Final = (
    CONF_PREFERRED_RESOLUTION,
    CONF_PREFERRED_CODEC,
    CONF_MAX_SIZE_GB,
    CONF_PREFERRED_LANGUAGES,
)


@dataclass(frozen=True, slots=True, kw_only=True)
class Request:
    """Who asks, from where, and into which folder: what every surface hands to the operations.

    The requester carries the device (a voice satellite) when there is one. `folder` names a configured
    folder or gives an absolute path (None: the download folder, else qBittorrent's default). What is asked
    for (a query, a title, an index, a hash) is each operation's own argument.
    """

    requester: Requester
    source: str  # SOURCE_CONVERSATION or SOURCE_SERVICE
    conversation_id: str | None = None
    language: str | None = None  # the person's language, for TMDB titles
    folder: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class OperationOptions:
    """The entry's option values the operations read (an options change reloads the entry)."""

    allow_non_admin_settings: bool = DEFAULT_ALLOW_NON_ADMIN_SETTINGS
    preferences: Mapping[str, Any] = MappingProxyType({})  # the PREFERENCE_OPTIONS that are set

    @classmethod
    def from_options(cls, options: Mapping[str, Any]) -> OperationOptions:
        """Read them from a config entry's options."""
        return cls(
            allow_non_admin_settings=bool(
                options.get(CONF_ALLOW_NON_ADMIN_SETTINGS, DEFAULT_ALLOW_NON_ADMIN_SETTINGS)
            ),
            preferences=MappingProxyType({key: options[key] for key in PREFERENCE_OPTIONS if key in options}),
        )


# Runs a coroutine in the background for as long as the entry is loaded (its name is for the logs).
type BackgroundRunner = Callable[[Coroutine[Any, Any, Any], str], object]


@dataclass(frozen=True, slots=True, kw_only=True)
class Collaborators:
    """What the operations work with, given once for the entry's lifetime."""

    hass: HomeAssistant
    entry_id: str  # scopes the dispatcher signals and names the entry in the bus events
    memory: AgentMediaMemory
    qbittorrent: QBittorrentClient
    tmdb: TMDBClient
    sources: SearchSources
    links: ResultLinks
    options: OperationOptions
    # Runs a task for as long as the entry is loaded (`ConfigEntry.async_create_background_task`).
    run_in_background: BackgroundRunner
    # Searches every due wanted title and followed show now; returns the names of what was added.
    check_wanted: Callable[[], Awaitable[list[str]]]


def require(options: OperationOptions, requester: Requester, permission: Permission) -> None:
    """Raise not_allowed unless the policy lets the requester do this."""
    if not requester.may(permission, allow_non_admin_settings=options.allow_non_admin_settings):
        raise OperationError(ErrorCode.NOT_ALLOWED, PERMISSION_DENIED, permission=permission.value)


class OperationsPart:
    """One concern of the operations, bound to the entry's collaborators."""

    def __init__(self, collaborators: Collaborators) -> None:
        """Keep the collaborators, and the two every part uses."""
        self.collaborators = collaborators
        self.hass = collaborators.hass
        self.memory = collaborators.memory

    def require(self, requester: Requester, permission: Permission) -> None:
        """Raise not_allowed unless the policy lets the requester do this."""
        require(self.collaborators.options, requester, permission)
