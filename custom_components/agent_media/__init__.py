"""Agent Media: a conversation agent that finds films and shows and downloads them with qBittorrent."""

from __future__ import annotations

from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from homeassistant.config_entries import ConfigSubentry
from homeassistant.const import Platform
from homeassistant.exceptions import ConfigEntryAuthFailed, ConfigEntryError, ConfigEntryNotReady
from homeassistant.helpers import config_validation as cv, entity_registry as er, issue_registry as ir
from homeassistant.helpers.aiohttp_client import async_get_clientsession
from homeassistant.helpers.httpx_client import get_async_client

from . import compat
from .agent_flow import default_agent
from .clients.errors import CannotConnectError, InvalidAuthError
from .clients.knaben import KnabenClient
from .clients.llm import LLMClient
from .clients.qbittorrent import QBittorrentClient
from .clients.sources import SearchSources
from .clients.tmdb import TMDBClient
from .clients.torznab import TorznabClient
from .const import (
    CONF_ANNOUNCE_COMPLETIONS,
    CONF_ANNOUNCE_TARGET,
    CONF_INDEXER_API_KEY,
    CONF_INDEXER_TIMEOUT,
    CONF_INDEXER_URL,
    CONF_KNABEN_URL,
    CONF_LIBRARY_REFRESH,
    CONF_LLM_API_KEY,
    CONF_LLM_BASE_URL,
    CONF_LLM_MODEL,
    CONF_MAX_HISTORY_MESSAGES,
    CONF_ORGANIZE_LIBRARY,
    CONF_QBITTORRENT_API_KEY,
    CONF_QBITTORRENT_PASSWORD,
    CONF_QBITTORRENT_URL,
    CONF_QBITTORRENT_USERNAME,
    CONF_QBITTORRENT_VERIFY_SSL,
    CONF_TMDB_API_KEY,
    CONF_TMDB_URL,
    DEFAULT_ANNOUNCE_COMPLETIONS,
    DEFAULT_INDEXER_TIMEOUT,
    DEFAULT_KNABEN_URL,
    DEFAULT_MAX_HISTORY_MESSAGES,
    DEFAULT_ORGANIZE_LIBRARY,
    DEFAULT_TMDB_URL,
    DOMAIN,
    SUBENTRY_AI_TASK,
    SUBENTRY_INDEXER,
)
from .coordinator import DownloadsCoordinator
from .data import AgentMediaConfigEntry, AgentMediaData
from .http import async_register_http_views
from .lifecycle import DownloadLifecycle
from .links import ResultLinks
from .llm_api import async_register_llm_apis
from .memory import AgentMediaMemory, NewerStoreError
from .operations import Collaborators, OperationOptions, Operations
from .services import async_setup_services
from .stale_api import async_check_agents
from .wanted import WantedScheduler

if TYPE_CHECKING:
    from collections.abc import Coroutine

    from homeassistant.core import HomeAssistant
    from homeassistant.helpers.typing import ConfigType

CONFIG_SCHEMA = cv.config_entry_only_config_schema(DOMAIN)
PLATFORMS: list[Platform] = [Platform.CONVERSATION, Platform.EVENT, Platform.IMAGE, Platform.SENSOR]


async def async_setup(hass: HomeAssistant, config: ConfigType) -> bool:  # noqa: ARG001 - HA's signature
    """Register the actions and the OpenAI-compatible endpoint, once for every entry."""
    async_setup_services(hass)
    async_register_http_views(hass)
    return True


def platforms_for(entry: AgentMediaConfigEntry) -> list[Platform]:
    """Return the entry's platforms: AI Task too where HA has it and the entry has an AI task.

    Only then: Home Assistant's ai_task component loads its camera component, which an entry without AI tasks
    has no use for.
    """
    if any(sub.subentry_type == SUBENTRY_AI_TASK for sub in entry.subentries.values()):
        return [*PLATFORMS, *compat.ai_task_platforms()]
    return PLATFORMS


def qbittorrent_client_for(entry: AgentMediaConfigEntry) -> QBittorrentClient:
    """Build a qBittorrent client from an entry (each consumer gets its own session)."""
    return QBittorrentClient(
        entry.data[CONF_QBITTORRENT_URL],
        entry.data[CONF_QBITTORRENT_USERNAME],
        entry.data.get(CONF_QBITTORRENT_PASSWORD, ""),
        verify_ssl=entry.data.get(CONF_QBITTORRENT_VERIFY_SSL, True),
        api_key=entry.data.get(CONF_QBITTORRENT_API_KEY),
    )


async def async_setup_entry(hass: HomeAssistant, entry: AgentMediaConfigEntry) -> bool:
    """Set up Agent Media from a config entry."""
    qbittorrent = qbittorrent_client_for(entry)
    try:
        await qbittorrent.async_login()
    except InvalidAuthError as err:
        raise ConfigEntryAuthFailed(
            translation_domain=DOMAIN,
            translation_key="qbittorrent_invalid_auth",
            translation_placeholders={"detail": err.detail},
        ) from err
    except CannotConnectError as err:
        raise ConfigEntryNotReady(
            translation_domain=DOMAIN,
            translation_key="qbittorrent_cannot_connect",
            translation_placeholders={"detail": err.detail},
        ) from err
    entry.async_on_unload(qbittorrent.async_close)

    memory = AgentMediaMemory(
        hass,
        entry.entry_id,
        max_history_messages=entry.options.get(CONF_MAX_HISTORY_MESSAGES, DEFAULT_MAX_HISTORY_MESSAGES),
    )
    try:
        await memory.async_load()
    except NewerStoreError as err:
        # Left untouched for the newer release that wrote it; the repair issue says what to do.
        ir.async_create_issue(
            hass,
            DOMAIN,
            f"memory_newer_version_{entry.entry_id}",
            is_fixable=False,
            severity=ir.IssueSeverity.ERROR,
            translation_key="memory_newer_version",
            translation_placeholders={"title": entry.title},
        )
        raise ConfigEntryError(translation_domain=DOMAIN, translation_key="memory_newer_version") from err
    ir.async_delete_issue(hass, DOMAIN, f"memory_newer_version_{entry.entry_id}")
    entry.async_on_unload(memory.async_flush)  # a reload must read what this instance still holds

    session = async_get_clientsession(hass)
    llm: LLMClient | None = None
    if entry.data.get(CONF_LLM_BASE_URL) and entry.data.get(CONF_LLM_MODEL):  # else: local commands only
        llm = await LLMClient.async_create(
            get_async_client(hass),
            base_url=entry.data[CONF_LLM_BASE_URL],
            api_key=entry.data.get(CONF_LLM_API_KEY, ""),
            model=entry.data[CONF_LLM_MODEL],
        )
    # The downloads coordinator syncs incrementally on a qBittorrent session of its own (rids are per SID).
    coordinator = DownloadsCoordinator(hass, entry, qbittorrent_client_for(entry), memory)
    entry.async_on_unload(coordinator.client.async_close)
    await coordinator.async_config_entry_first_refresh()

    knaben = KnabenClient(session, base_url=entry.options.get(CONF_KNABEN_URL, DEFAULT_KNABEN_URL))
    indexers = [
        TorznabClient(
            session,
            subentry.data[CONF_INDEXER_URL],
            subentry.data[CONF_INDEXER_API_KEY],
            name=subentry.title,
            timeout=subentry.data.get(CONF_INDEXER_TIMEOUT, DEFAULT_INDEXER_TIMEOUT),
        )
        for subentry in entry.subentries.values()
        if subentry.subentry_type == SUBENTRY_INDEXER
    ]
    tmdb = TMDBClient(
        session, entry.data[CONF_TMDB_API_KEY], base_url=entry.options.get(CONF_TMDB_URL, DEFAULT_TMDB_URL)
    )
    sources = SearchSources(knaben, indexers)

    def start_background(target: Coroutine[Any, Any, Any], name: str) -> None:
        entry.async_create_background_task(hass, target, name)  # cancelled when the entry unloads

    # The scheduler acquires through the operations, and the check_wanted action asks the scheduler.
    async def async_check_wanted() -> list[str]:
        return await wanted.async_check()

    operations = Operations(
        Collaborators(
            hass=hass,
            entry_id=entry.entry_id,
            memory=memory,
            qbittorrent=qbittorrent,
            tmdb=tmdb,
            sources=sources,
            links=ResultLinks(),
            options=OperationOptions.from_options(entry.options),
            run_in_background=start_background,
            check_wanted=async_check_wanted,
        )
    )
    wanted = WantedScheduler(
        hass,
        entry_id=entry.entry_id,
        memory=memory,
        tmdb=tmdb,
        operations=operations,
        start_background=start_background,
    )
    lifecycle = DownloadLifecycle(
        hass,
        entry_id=entry.entry_id,
        coordinator=coordinator,
        memory=memory,
        qbittorrent=qbittorrent,
        operations=operations,
        start_background=start_background,
        organize_library=entry.options.get(CONF_ORGANIZE_LIBRARY, DEFAULT_ORGANIZE_LIBRARY),
        announce_completions=entry.options.get(CONF_ANNOUNCE_COMPLETIONS, DEFAULT_ANNOUNCE_COMPLETIONS),
        announce_target=entry.options.get(CONF_ANNOUNCE_TARGET) or None,
        library_refresh=entry.options.get(CONF_LIBRARY_REFRESH) or None,
    )
    entry.runtime_data = AgentMediaData(
        llm=llm,
        qbittorrent=qbittorrent,
        tmdb=tmdb,
        sources=sources,
        memory=memory,
        coordinator=coordinator,
        wanted=wanted,
        operations=operations,
        platforms=platforms_for(entry),
    )
    entry.async_on_unload(async_register_llm_apis(hass, entry))
    async_check_agents(hass)  # agents still set to our former API, where it is no longer registered
    operations.adder.resume_safety_checks()
    wanted.async_start()
    entry.async_on_unload(wanted.async_stop)
    await hass.config_entries.async_forward_entry_setups(entry, entry.runtime_data.platforms)
    # Once the entities listen: a completion found by the first poll reaches them, the bus and the journal.
    lifecycle.async_start()
    entry.async_on_unload(lifecycle.async_stop)
    entry.async_on_unload(entry.add_update_listener(_async_reload_on_update))
    return True  # HA 2025.4 requires a bool here


async def async_migrate_entry(hass: HomeAssistant, entry: AgentMediaConfigEntry) -> bool:
    """Migrate an entry from an earlier version; False for one from a newer version (not loaded).

    1.1 → 1.2: the entry's single conversation agent becomes a subentry with no overrides (the entry's
    model and prompt option still apply), and its entity moves to it, keeping its entity id.
    """
    if entry.version > 1:
        return False
    if entry.minor_version < 2:  # noqa: PLR2004 - the version being migrated from
        new = default_agent(entry.title)
        agent = ConfigSubentry(
            data=MappingProxyType(dict(new["data"])),
            subentry_type=new["subentry_type"],
            title=new["title"],
            unique_id=new["unique_id"],
        )
        hass.config_entries.async_add_subentry(entry, agent)
        registry = er.async_get(hass)
        if (entity_id := registry.async_get_entity_id("conversation", DOMAIN, entry.entry_id)) is not None:
            registry.async_update_entity(
                entity_id, new_unique_id=agent.subentry_id, config_subentry_id=agent.subentry_id
            )
        hass.config_entries.async_update_entry(entry, minor_version=2)
    return True


async def _async_reload_on_update(hass: HomeAssistant, entry: AgentMediaConfigEntry) -> None:
    """Apply changed options by reloading the entry."""
    hass.config_entries.async_schedule_reload(entry.entry_id)


async def async_unload_entry(hass: HomeAssistant, entry: AgentMediaConfigEntry) -> bool:
    """Unload a config entry."""
    return await hass.config_entries.async_unload_platforms(entry, entry.runtime_data.platforms)


async def async_remove_entry(hass: HomeAssistant, entry: AgentMediaConfigEntry) -> None:
    """Delete the entry's memory when the entry is deleted."""
    await AgentMediaMemory(hass, entry.entry_id).async_remove()
