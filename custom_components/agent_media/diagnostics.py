"""Diagnostics: what a bug report needs, without secrets, credentials, hosts or the household's memory."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING, Any, Final

from yarl import URL

from homeassistant.components.diagnostics import REDACTED, async_redact_data
from homeassistant.config_entries import ConfigEntryState

from .const import (
    CONF_KNABEN_URL,
    CONF_LLM_API_KEY,
    CONF_LLM_BASE_URL,
    CONF_QBITTORRENT_API_KEY,
    CONF_QBITTORRENT_PASSWORD,
    CONF_QBITTORRENT_URL,
    CONF_QBITTORRENT_USERNAME,
    CONF_TMDB_API_KEY,
    CONF_TMDB_URL,
    DEFAULT_KNABEN_URL,
    DEFAULT_TMDB_URL,
    LLM_PROVIDER_DEEPSEEK,
    LLM_PROVIDER_URLS,
)

if TYPE_CHECKING:
    from homeassistant.core import HomeAssistant

    from .data import AgentMediaConfigEntry

TO_REDACT: Final = {
    CONF_LLM_API_KEY,
    CONF_QBITTORRENT_API_KEY,
    CONF_QBITTORRENT_PASSWORD,
    CONF_QBITTORRENT_USERNAME,
    CONF_TMDB_API_KEY,
}
URL_KEYS: Final = (CONF_LLM_BASE_URL, CONF_QBITTORRENT_URL, CONF_KNABEN_URL, CONF_TMDB_URL)
# Hosts of the public services offered as defaults say which provider is used and reveal nothing personal.
PUBLIC_HOSTS: Final = frozenset(
    URL(url).host for url in (DEFAULT_KNABEN_URL, DEFAULT_TMDB_URL, LLM_PROVIDER_URLS[LLM_PROVIDER_DEEPSEEK])
)


def redact_url(value: Any) -> Any:
    """Keep a URL's scheme, port and path (they help debugging); drop its host, credentials and query."""
    if not isinstance(value, str):
        return value
    try:
        url = URL(value)
    except ValueError:
        return REDACTED
    if not url.scheme or not url.host:
        return REDACTED
    if url.host in PUBLIC_HOSTS and url.user is None and not url.query_string:
        return value
    return str(url.with_user(None).with_query(None).with_fragment(None).with_host("redacted"))


def _redact_config(config: dict[str, Any]) -> dict[str, Any]:
    redacted: dict[str, Any] = async_redact_data(config, TO_REDACT)
    for key in URL_KEYS:
        if key in redacted:
            redacted[key] = redact_url(redacted[key])
    return redacted


def _memory_summary(memory: dict[str, Any]) -> dict[str, Any]:
    """Reduce the memory to counts: paths, searches, conversations and errors are the household's business."""
    household, journal = memory["household"], memory["journal"]
    events: list[dict[str, Any]] = journal["events"]
    errors: list[dict[str, Any]] = journal["errors"]
    working: dict[str, dict[str, Any]] = memory["working"]
    return {
        "folders": sorted(household["folders"]),  # names such as "movie"; the paths stay private
        "preferences": sorted(household["preferences"]),
        "language": household["language"],
        "conversations": len(memory["conversations"]),
        "requesters": len(working),
        "searches": sum(1 for state in working.values() if state.get("search")),
        "active_downloads": len(memory["downloads"]["records"]),
        "errors": dict(Counter(str(error.get("error")) for error in errors)),
        "events": dict(Counter(str(event.get("type")) for event in events)),
        "unread_events": sum(1 for event in events if not event.get("read")),
    }


async def async_get_config_entry_diagnostics(
    hass: HomeAssistant,  # noqa: ARG001 - the signature Home Assistant calls
    entry: AgentMediaConfigEntry,
) -> dict[str, Any]:
    """Return diagnostics for a config entry."""
    diagnostics: dict[str, Any] = {
        "entry": {
            # The title names the qBittorrent host, so it is left out.
            "version": entry.version,
            "minor_version": entry.minor_version,
            "state": entry.state.value,
            "data": _redact_config(dict(entry.data)),
            "options": _redact_config(dict(entry.options)),
        },
    }
    if entry.state is not ConfigEntryState.LOADED:
        return diagnostics
    runtime = entry.runtime_data
    diagnostics["llm_model"] = runtime.llm.model if runtime.llm is not None else None
    diagnostics["memory"] = _memory_summary(runtime.memory.as_dict())
    coordinator = runtime.coordinator
    downloads = coordinator.data
    diagnostics["downloads"] = {
        "last_update_success": coordinator.last_update_success,
        "update_interval": coordinator.update_interval.total_seconds()
        if coordinator.update_interval
        else None,
        # Counts only: torrent names say what the household downloads.
        "torrents": downloads.torrents if downloads else None,
        "active_downloads": downloads.active_downloads if downloads else None,
        "queued_downloads": downloads.queued_downloads if downloads else None,
        "stalled_downloads": downloads.stalled_downloads if downloads else None,
        "download_entities": len(downloads.downloads) if downloads else None,
    }
    return diagnostics
