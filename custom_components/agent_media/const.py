"""Constants for Agent Media."""

from __future__ import annotations

import logging
from typing import Any, Final

from homeassistant.util.signal_type import SignalTypeFormat

from .release import RESOLUTIONS

DOMAIN: Final = "agent_media"
LOGGER = logging.getLogger(__package__)

# Config entry data (contract: see docs/architecture.md).
CONF_LLM_BASE_URL: Final = "llm_base_url"
CONF_LLM_API_KEY: Final = "llm_api_key"
CONF_LLM_MODEL: Final = "llm_model"
CONF_QBITTORRENT_URL: Final = "qbittorrent_url"
CONF_QBITTORRENT_USERNAME: Final = "qbittorrent_username"
CONF_QBITTORRENT_PASSWORD: Final = "qbittorrent_password"
CONF_QBITTORRENT_VERIFY_SSL: Final = "qbittorrent_verify_ssl"
CONF_QBITTORRENT_API_KEY: Final = "qbittorrent_api_key"  # qBittorrent 5.2+, instead of the password
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
CONF_STALLED_TIMEOUT: Final = "stalled_timeout"  # seconds without metadata or progress; 0: never replaced

DEFAULT_KNABEN_URL: Final = "https://api.knaben.org/v1"
DEFAULT_TMDB_URL: Final = "https://api.themoviedb.org/3"
DEFAULT_TMDB_IMAGE_URL: Final = "https://image.tmdb.org/t/p/"  # when /configuration names none
POSTER_SIZE: Final = "w342"  # one of TMDB's poster widths: sharp on a dashboard card, about 30 kB
MAX_POSTER_BYTES: Final = 1024 * 1024
DEFAULT_TEMPERATURE: Final = 0.3
DEFAULT_MAX_TOOL_ITERATIONS: Final = 10
DEFAULT_MAX_HISTORY_MESSAGES: Final = 10
DEFAULT_SCAN_INTERVAL: Final = 5  # seconds, while something downloads
IDLE_SCAN_INTERVAL: Final = 60  # seconds, when nothing downloads
DEFAULT_STALLED_TIMEOUT: Final = 1800
MAX_STALLED_TIMEOUT: Final = 7 * 24 * 3600  # the form's bound: a week
DEFAULT_PREFERRED_RESOLUTION: Final = "1080p"
DEFAULT_ALLOW_NON_ADMIN_SETTINGS: Final = False

# LLM provider presets offered by the config flow.
LLM_PROVIDER_DEEPSEEK: Final = "deepseek"
LLM_PROVIDER_OLLAMA: Final = "ollama"
LLM_PROVIDER_CUSTOM: Final = "custom"
LLM_PROVIDER_NONE: Final = "none"  # no model: the common commands only, answered locally
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
# One streamed completion: text, reasoning and tool calls together (reasoning models think at length), and
# one tool call's arguments (ours take a title, a number or a path).
MAX_LLM_REPLY_CHARS: Final = 256 * 1024
MAX_LLM_TOOL_ARGUMENTS_CHARS: Final = 16 * 1024
CONF_TURN_TIMEOUT: Final = "turn_timeout"
CONF_LOCAL_SENTENCES: Final = "local_sentences"  # the common commands answered without the model
CONF_ANNOUNCE_COMPLETIONS: Final = "announce_completions"  # say a finished download where it was asked
CONF_ANNOUNCE_TARGET: Final = "announce_target"  # a notify entity, when no satellite asked
DEFAULT_ANNOUNCE_COMPLETIONS: Final = False
DEFAULT_LOCAL_SENTENCES: Final = True
DEFAULT_TURN_TIMEOUT: Final = 75  # seconds for a whole turn, tools included; then the person hears why
LLM_MAX_RETRIES: Final = 1
QBITTORRENT_TIMEOUT: Final = 10.0
# Any one answer of qBittorrent's Web API, decompressed: its torrent list runs about 1.5 kB a torrent, so this
# keeps a seedbox of 20,000 torrents working.
MAX_QBITTORRENT_ANSWER_BYTES: Final = 32 * 1024 * 1024
SEARCH_TIMEOUT: Final = 15.0

# Home Assistant bus events (contract).
EVENT_DOWNLOAD_ADDED: Final = "agent_media_download_added"
EVENT_DOWNLOAD_COMPLETED: Final = "agent_media_download_completed"
EVENT_DOWNLOAD_REPLACED: Final = "agent_media_download_replaced"
EVENT_DOWNLOAD_FAILED: Final = "agent_media_download_failed"
EVENT_DOWNLOAD_STOPPED: Final = "agent_media_download_stopped"  # a dead one from a private tracker

# Signals inside one entry (the dispatcher; the bus above is for people's automations only). Format with the
# entry id.
SIGNAL_DOWNLOAD_ADDED: Final = SignalTypeFormat[str]("agent_media_download_added_{}")  # the info hash
SIGNAL_CHECK_WANTED: Final = SignalTypeFormat[()]("agent_media_check_wanted_{}")  # new wanted title or show
# A download event for the entry's entities: the bus event's name and data, the same as fired on the bus.
SIGNAL_DOWNLOAD_EVENT: Final = SignalTypeFormat[str, dict[str, Any]]("agent_media_download_event_{}")

# Storage (contract): one Store per entry.
STORAGE_VERSION: Final = 2  # 2: typed sections (household, conversations, working, downloads, journal)
STORAGE_MINOR_VERSION: Final = 2  # 2: the wanted section (wanted titles, followed shows, blocklist)


def storage_key(entry_id: str) -> str:
    """Return the Store key of a config entry."""
    return f"{DOMAIN}.{entry_id}"


# The wanted list: a title with no acceptable release is searched again after 1 h, 2 h, 4 h, 8 h and 16 h,
# then after 1 day, 2 days, … up to every 7 days (memory.retry_delay). Due titles are looked for every
# WANTED_CHECK_INTERVAL; followed shows at least every FOLLOW_CHECK_INTERVAL, and soon after an air date.
WANTED_FIRST_RETRY_HOURS: Final = 1
WANTED_HOURLY_RETRIES: Final = 5  # 1, 2, 4, 8, 16 hours
WANTED_MAX_RETRY_DAYS: Final = 7
WANTED_CHECK_INTERVAL: Final = 600  # seconds
FOLLOW_CHECK_INTERVAL: Final = 6 * 3600  # seconds
AIRED_GRACE: Final = 3600  # seconds after an air date before its episode is looked for

# Downloads coordinator and its entities.
DOWNLOAD_ENTITY_GRACE: Final = 300  # seconds a finished download keeps its entities
MAX_DOWNLOAD_ENTITIES: Final = 50  # downloads with entities of their own, at most (the agent's come first)

# Release preferences (options; the same keys in long-term memory override them) and library organisation.
CONF_MAX_SIZE_GB: Final = "max_size_gb"  # 0: no limit
CONF_PREFERRED_CODEC: Final = "preferred_codec"  # "any", "x265", "x264", "av1"
CONF_PREFERRED_LANGUAGES: Final = "preferred_languages"  # "French, English" or ["fr", "en"]
CONF_ORGANIZE_LIBRARY: Final = "organize_library"
CONF_LIBRARY_REFRESH: Final = "library_refresh"  # a script or button run before a download is told ready
DEFAULT_MAX_SIZE_GB: Final = 0.0
DEFAULT_PREFERRED_CODEC: Final = "any"
DEFAULT_PREFERRED_LANGUAGES: Final = ""
DEFAULT_ORGANIZE_LIBRARY: Final = False
NO_PREFERENCE: Final = "any"
CODEC_CHOICES: Final = ("any", "x265", "x264", "av1")
RESOLUTION_CHOICES: Final = (NO_PREFERENCE, *RESOLUTIONS)

# Conversation agents: config subentries, each with its name (the subentry's title), model, prompt, language
# and permission profile. An entry from before (config entry version 1.1) migrates to one, with no overrides.
SUBENTRY_CONVERSATION: Final = "conversation"
CONF_AGENT_MODEL: Final = "llm_model"  # empty: the entry's model
CONF_AGENT_PROMPT: Final = "prompt"  # added after the entry's own prompt option
CONF_AGENT_LANGUAGE: Final = "language"  # empty: the person's language
CONF_AGENT_PROFILE: Final = "profile"
PROFILE_HOUSEHOLD: Final = "household"  # the household's policy, as the entry's options set it
PROFILE_SEARCH_ONLY: Final = "search_only"  # search, identify and ask; never add or change anything
PROFILES: Final = (PROFILE_HOUSEHOLD, PROFILE_SEARCH_ONLY)
DEFAULT_AGENT_NAME: Final = "Agent Media"
# AI tasks (HA ≥ 2025.7): config subentries with an agent's settings, each an entity for
# `ai_task.generate_data`. The type is the one Home Assistant's own LLM integrations use.
SUBENTRY_AI_TASK: Final = "ai_task_data"

# Voice satellites standing for a person: config subentries, one per satellite device, naming a person
# entity. A request from that satellite uses the person's preferences, wanted titles, followed shows,
# subscriptions and news, with the satellite's own permissions. One with no subentry stays the household's.
SUBENTRY_SATELLITE: Final = "satellite"
CONF_SATELLITE_DEVICE: Final = "device_id"
CONF_PERSON: Final = "person"

# Search sources: Torznab indexers (Jackett, Prowlarr…) as config subentries next to Knaben.
SUBENTRY_INDEXER: Final = "indexer"
CONF_INDEXER_URL: Final = "url"
CONF_INDEXER_API_KEY: Final = "api_key"
CONF_INDEXER_TIMEOUT: Final = "timeout"  # seconds; the subentry's title is the indexer's name
DEFAULT_INDEXER_NAME: Final = "Jackett"
DEFAULT_INDEXER_TIMEOUT: Final = 15
INDEXER_TIMEOUT_RANGE: Final = (3, 60)

# Politeness towards the search services: bounded retries on 429/5xx, and a short cache of answers.
RETRY_ATTEMPTS: Final = 3
RETRY_FIRST_DELAY: Final = 0.5  # seconds, doubled at each attempt unless Retry-After asks for more
RETRY_MAX_TOTAL_WAIT: Final = 5.0  # seconds spent waiting between the attempts of one call, at most
SEARCH_CACHE_TTL: Final = 600.0  # seconds: the same search within 10 minutes is answered from memory
SEARCH_CACHE_SIZE: Final = 32  # searches remembered per service

# Bounds on outside data: a huge answer is refused, never passed on to the model or the Store.
MAX_RESPONSE_BYTES: Final = 2 * 1024 * 1024  # a JSON answer from Knaben or TMDB
MAX_TORZNAB_RESPONSE_BYTES: Final = 4 * 1024 * 1024  # Torznab XML is wordier
MAX_TORZNAB_ITEMS: Final = 1000  # items read from one Torznab answer, before keeping the best
DEFAULT_SEARCH_LIMIT: Final = 50  # releases asked of each source
MAX_RESULTS_PER_SOURCE: Final = 100  # releases kept from one Torznab search
MAX_MERGED_RESULTS: Final = 300  # releases kept from all sources together
MAX_TMDB_RESULTS: Final = 20  # one TMDB page
MAX_TITLE_LENGTH: Final = 300  # release names, film and show titles
MAX_NAME_LENGTH: Final = 100  # tracker and indexer names
MAX_LINK_LENGTH: Final = 4096  # magnets and .torrent URLs; longer ones are dropped, never cut

# Files that are videos (the library organises and plays only these).
VIDEO_EXTENSIONS: Final = frozenset(
    {".mkv", ".mp4", ".m4v", ".avi", ".mov", ".wmv", ".mpg", ".mpeg", ".ts", ".m2ts", ".webm"}
)
