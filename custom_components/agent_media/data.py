"""Runtime data of a config entry and the typed config-entry alias."""

from __future__ import annotations

from dataclasses import dataclass

from homeassistant.config_entries import ConfigEntry
from homeassistant.const import Platform

from .clients.llm import LLMClient
from .clients.qbittorrent import QBittorrentClient
from .clients.sources import SearchSources
from .clients.tmdb import TMDBClient
from .coordinator import DownloadsCoordinator
from .memory import AgentMediaMemory
from .operations import Operations
from .wanted import WantedScheduler


@dataclass(kw_only=True)
class AgentMediaData:
    """What a loaded entry holds: one client per outside service, shared by the agent and the actions."""

    llm: LLMClient | None  # None: no model configured, the common commands are answered locally
    qbittorrent: QBittorrentClient
    tmdb: TMDBClient
    sources: SearchSources  # Knaben and the entry's Torznab indexers, searched together
    memory: AgentMediaMemory
    coordinator: DownloadsCoordinator  # watches qBittorrent; the entities show what it found
    wanted: WantedScheduler  # searches the wanted titles and followed shows again when due
    operations: Operations  # what every surface calls; holds the search results' links (RAM only)
    platforms: list[Platform]  # the platforms set up for the entry, to unload the same ones


type AgentMediaConfigEntry = ConfigEntry[AgentMediaData]
