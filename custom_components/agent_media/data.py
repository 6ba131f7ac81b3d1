"""Runtime data of a config entry and the typed config-entry alias."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from homeassistant.config_entries import ConfigEntry

from .clients.llm import LLMClient
from .clients.qbittorrent import QBittorrentClient
from .clients.sources import SearchSources
from .clients.tmdb import TMDBClient
from .coordinator import DownloadsCoordinator
from .links import ResultLinks
from .memory import AgentMediaMemory


class WantedChecks(Protocol):
    """The wanted scheduler (wanted.py) as the operations call it."""

    def request_check(self) -> None:
        """Check what is due soon, in the background."""

    async def async_check(self) -> list[str]:
        """Search what is due now; return the names of what was added."""


@dataclass(kw_only=True)
class AgentMediaData:
    """What a loaded entry holds: one client per outside service, shared by the agent and the actions."""

    llm: LLMClient | None  # None: no model configured, the common commands are answered locally
    qbittorrent: QBittorrentClient
    tmdb: TMDBClient
    sources: SearchSources  # Knaben and the entry's Torznab indexers, searched together
    memory: AgentMediaMemory
    downloads: DownloadsCoordinator
    links: ResultLinks = field(default_factory=ResultLinks)  # search results' links, in RAM only
    # Searches the wanted titles and followed shows again when due; set once the operations it uses exist.
    wanted: WantedChecks = field(init=False)


type AgentMediaConfigEntry = ConfigEntry[AgentMediaData]
