"""Constants for Agent Media."""

from __future__ import annotations

import logging
from typing import Final

from .release import RESOLUTIONS

DOMAIN: Final = "agent_media"
LOGGER = logging.getLogger(__package__)

# Config entry data (contract: see DESIGN.md).
CONF_LLM_BASE_URL: Final = "llm_base_url"
CONF_LLM_API_KEY: Final = "llm_api_key"
CONF_LLM_MODEL: Final = "llm_model"
CONF_QBITTORRENT_URL: Final = "qbittorrent_url"
CONF_QBITTORRENT_USERNAME: Final = "qbittorrent_username"
CONF_QBITTORRENT_PASSWORD: Final = "qbittorrent_password"
CONF_QBITTORRENT_VERIFY_SSL: Final = "qbittorrent_verify_ssl"
CONF_TMDB_API_KEY: Final = "tmdb_api_key"

# Config entry options (all optional).
CONF_KNABEN_URL: Final = "knaben_url"
CONF_TMDB_URL: Final = "tmdb_url"
CONF_PROMPT: Final = "prompt"
CONF_TEMPERATURE: Final = "temperature"
CONF_MAX_TOOL_ITERATIONS: Final = "max_tool_iterations"
CONF_MAX_HISTORY_MESSAGES: Final = "max_history_messages"
CONF_SCAN_INTERVAL: Final = "scan_interval"
CONF_PREFERRED_RESOLUTION: Final = "preferred_resolution"
CONF_ALLOW_NON_ADMIN_SETTINGS: Final = "allow_non_admin_settings"

DEFAULT_KNABEN_URL: Final = "https://api.knaben.org/v1"
DEFAULT_TMDB_URL: Final = "https://api.themoviedb.org/3"
DEFAULT_TEMPERATURE: Final = 0.3
DEFAULT_MAX_TOOL_ITERATIONS: Final = 10
DEFAULT_MAX_HISTORY_MESSAGES: Final = 10
DEFAULT_SCAN_INTERVAL: Final = 5  # seconds, while something downloads
IDLE_SCAN_INTERVAL: Final = 60  # seconds, when nothing downloads
DEFAULT_PREFERRED_RESOLUTION: Final = "1080p"
DEFAULT_ALLOW_NON_ADMIN_SETTINGS: Final = False

# LLM provider presets offered by the config flow.
LLM_PROVIDER_DEEPSEEK: Final = "deepseek"
LLM_PROVIDER_OLLAMA: Final = "ollama"
LLM_PROVIDER_CUSTOM: Final = "custom"
LLM_PROVIDER_URLS: Final = {
    LLM_PROVIDER_DEEPSEEK: "https://api.deepseek.com/v1",
    LLM_PROVIDER_OLLAMA: "http://localhost:11434/v1",
}
LLM_PROVIDER_MODELS: Final = {
    LLM_PROVIDER_DEEPSEEK: "deepseek-chat",
    LLM_PROVIDER_OLLAMA: "llama3.1",
}

# Timeouts (seconds) for the outside services; voice users wait for these.
LLM_TIMEOUT: Final = 60.0
LLM_STREAM_IDLE_TIMEOUT: Final = 45.0  # seconds without a chunk (keep-alives do not count)
CONF_TURN_TIMEOUT: Final = "turn_timeout"
DEFAULT_TURN_TIMEOUT: Final = 75  # seconds for a whole turn, tools included; then the person hears why
LLM_MAX_RETRIES: Final = 1
QBITTORRENT_TIMEOUT: Final = 10.0
SEARCH_TIMEOUT: Final = 15.0

# Home Assistant bus events (contract).
EVENT_DOWNLOAD_ADDED: Final = "agent_media_download_added"
EVENT_DOWNLOAD_COMPLETED: Final = "agent_media_download_completed"

# Storage (contract): one Store per entry.
STORAGE_VERSION: Final = 2  # 2: typed sections (household, conversations, working, downloads, journal)
STORAGE_MINOR_VERSION: Final = 1


def storage_key(entry_id: str) -> str:
    """Return the Store key of a config entry."""
    return f"{DOMAIN}.{entry_id}"


# Downloads coordinator and its entities.
DOWNLOAD_ENTITY_GRACE: Final = 300  # seconds a finished download keeps its entities
MAX_DOWNLOAD_ENTITIES: Final = 50  # downloads with entities of their own, at most (the agent's come first)

# Release preferences (options; the same keys in long-term memory override them) and library organisation.
CONF_MAX_SIZE_GB: Final = "max_size_gb"  # 0: no limit
CONF_PREFERRED_CODEC: Final = "preferred_codec"  # "any", "x265", "x264", "av1"
CONF_PREFERRED_LANGUAGES: Final = "preferred_languages"  # "French, English" or ["fr", "en"]
CONF_ORGANIZE_LIBRARY: Final = "organize_library"
DEFAULT_MAX_SIZE_GB: Final = 0.0
DEFAULT_PREFERRED_CODEC: Final = "any"
DEFAULT_PREFERRED_LANGUAGES: Final = ""
DEFAULT_ORGANIZE_LIBRARY: Final = False
NO_PREFERENCE: Final = "any"
CODEC_CHOICES: Final = ("any", "x265", "x264", "av1")
RESOLUTION_CHOICES: Final = (NO_PREFERENCE, *RESOLUTIONS)
