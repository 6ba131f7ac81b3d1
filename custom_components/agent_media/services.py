"""Actions (services) of Agent Media: search, download, folders, downloads, memory.

Registered once in `async_setup`, so automations validate even while no entry is loaded. Every action works
with no language model configured or reachable: they use the search services, qBittorrent and the memory
directly, through the same functions as the agent's tools. The schema checks shapes; the handlers check
meaning and raise a translated `ServiceValidationError` before anything changes, or a translated
`HomeAssistantError` when an outside service fails.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any, Final, cast

import voluptuous as vol
from yarl import URL

from homeassistant.config_entries import ConfigEntryState
from homeassistant.core import HomeAssistant, ServiceCall, ServiceResponse, SupportsResponse, callback
from homeassistant.exceptions import HomeAssistantError, ServiceValidationError, Unauthorized
from homeassistant.helpers import config_validation as cv
from homeassistant.util import dt as dt_util

from .agent.tools import (
    BAD_ARGS,
    INVALID_PATH,
    NOT_A_DIRECTORY,
    NOT_ALLOWED,
    NOT_READABLE,
    PATH_NOT_FOUND,
    ToolContext,
    ToolError,
    async_add_search_result,
    async_may_change_settings,
    async_search_torrents,
    async_set_folder,
    check_folder_path,
)
from .clients.errors import (
    AgentMediaClientError,
    CannotConnectError,
    InvalidAuthError,
    InvalidResponseError,
    RequestRejectedError,
)
from .clients.qbittorrent import info_hash_from_magnet, normalize_info_hash
from .const import DOMAIN
from .coordinator import ETA_INFINITE, PAUSED_STATES, download_state, is_complete
from .downloads import SOURCE_SERVICE, TORRENT_TAG, UnknownFolderError, async_add_download
from .memory import CLEAR_SCOPES, MAX_FOLDERS

if TYPE_CHECKING:
    from .data import AgentMediaConfigEntry

ATTR_CONFIG_ENTRY_ID: Final = "config_entry_id"
ATTR_QUERY: Final = "query"
ATTR_MEDIA_TYPE: Final = "media_type"
ATTR_LIMIT: Final = "limit"
ATTR_INDEX: Final = "index"
ATTR_MAGNET: Final = "magnet"
ATTR_URL: Final = "url"
ATTR_FOLDER: Final = "folder"
ATTR_PATH: Final = "path"
ATTR_HASH: Final = "hash"
ATTR_DELETE_FILES: Final = "delete_files"
ATTR_SCOPE: Final = "scope"

SERVICE_SEARCH: Final = "search"
SERVICE_DOWNLOAD: Final = "download"
SERVICE_SET_FOLDER: Final = "set_folder"
SERVICE_LIST_DOWNLOADS: Final = "list_downloads"
SERVICE_PAUSE: Final = "pause"
SERVICE_RESUME: Final = "resume"
SERVICE_REMOVE: Final = "remove"
SERVICE_CLEAR_MEMORY: Final = "clear_memory"

MEDIA_TYPES: Final = ("movie", "tv")
DEFAULT_SEARCH_LIMIT: Final = 10
MAX_SEARCH_LIMIT: Final = 50

_ENTRY_ID: Final[dict[vol.Marker, Any]] = {vol.Optional(ATTR_CONFIG_ENTRY_ID): cv.string}
_NON_EMPTY = vol.All(cv.string, vol.Strip, vol.Length(min=1))

SEARCH_SCHEMA: Final = vol.Schema(
    {
        **_ENTRY_ID,
        vol.Required(ATTR_QUERY): _NON_EMPTY,
        vol.Optional(ATTR_MEDIA_TYPE): vol.In(MEDIA_TYPES),
        vol.Optional(ATTR_LIMIT, default=DEFAULT_SEARCH_LIMIT): vol.All(
            vol.Coerce(int), vol.Range(min=1, max=MAX_SEARCH_LIMIT)
        ),
    }
)
DOWNLOAD_SCHEMA: Final = vol.All(
    vol.Schema(
        {
            **_ENTRY_ID,
            vol.Exclusive(ATTR_INDEX, "source"): vol.All(vol.Coerce(int), vol.Range(min=1)),
            vol.Exclusive(ATTR_MAGNET, "source"): _NON_EMPTY,
            vol.Exclusive(ATTR_URL, "source"): _NON_EMPTY,
            vol.Optional(ATTR_FOLDER): _NON_EMPTY,
        }
    ),
    cv.has_at_least_one_key(ATTR_INDEX, ATTR_MAGNET, ATTR_URL),
)
SET_FOLDER_SCHEMA: Final = vol.Schema(
    {**_ENTRY_ID, vol.Required(ATTR_FOLDER): _NON_EMPTY, vol.Required(ATTR_PATH): _NON_EMPTY}
)
LIST_DOWNLOADS_SCHEMA: Final = vol.Schema(_ENTRY_ID)
TORRENT_SCHEMA: Final = vol.Schema({**_ENTRY_ID, vol.Required(ATTR_HASH): _NON_EMPTY})
REMOVE_SCHEMA: Final = TORRENT_SCHEMA.extend({vol.Optional(ATTR_DELETE_FILES, default=False): cv.boolean})
CLEAR_MEMORY_SCHEMA: Final = vol.Schema(
    {**_ENTRY_ID, vol.Optional(ATTR_SCOPE, default="all"): vol.In(CLEAR_SCOPES)}
)


def _validation_error(key: str, **placeholders: Any) -> ServiceValidationError:
    return ServiceValidationError(
        translation_domain=DOMAIN,
        translation_key=key,
        translation_placeholders={name: str(value) for name, value in placeholders.items()},
    )


def client_error(err: AgentMediaClientError) -> HomeAssistantError:
    """Translate an outside service's failure for the caller of an action."""
    if isinstance(err, RequestRejectedError):
        key = "request_rejected"
    elif isinstance(err, InvalidAuthError):
        key = "service_invalid_auth"
    elif isinstance(err, CannotConnectError):
        key = "service_cannot_connect"
    elif isinstance(err, InvalidResponseError):
        key = "service_invalid_response"
    else:
        key = "service_failed"
    return HomeAssistantError(
        translation_domain=DOMAIN,
        translation_key=key,
        translation_placeholders={"service": err.service, "detail": err.detail},
    )


@callback
def async_get_entry(hass: HomeAssistant, config_entry_id: str | None) -> AgentMediaConfigEntry:
    """Return the loaded entry an action is for: the one named, else the only one loaded."""
    if config_entry_id is None:
        loaded = hass.config_entries.async_loaded_entries(DOMAIN)
        if not loaded:
            raise _validation_error("no_loaded_entry")
        if len(loaded) > 1:
            raise _validation_error("entry_required")
        return cast("AgentMediaConfigEntry", loaded[0])
    entry = hass.config_entries.async_get_entry(config_entry_id)
    if entry is None or entry.domain != DOMAIN:
        raise _validation_error("entry_not_found", entry_id=config_entry_id)
    if entry.state is not ConfigEntryState.LOADED:
        raise _validation_error("entry_not_loaded", title=entry.title)
    return cast("AgentMediaConfigEntry", entry)


def _entry_for(call: ServiceCall) -> AgentMediaConfigEntry:
    return async_get_entry(call.hass, call.data.get(ATTR_CONFIG_ENTRY_ID))


# --- search ------------------------------------------------------------------------------------------------


async def _async_search(call: ServiceCall) -> ServiceResponse:
    """Search like the agent's find_torrents: the same ranking, numbers and memory."""
    entry = _entry_for(call)
    try:
        search = await async_search_torrents(
            entry, call.data[ATTR_QUERY], conversation_id=None, media_type=call.data.get(ATTR_MEDIA_TYPE)
        )
    except ToolError:
        return {"results": []}  # nothing usable found; the last search stays as it was
    except AgentMediaClientError as err:
        raise client_error(err) from err
    return {"results": [dict(result) for result in search.results[: call.data[ATTR_LIMIT]]]}


# --- folders -----------------------------------------------------------------------------------------------

# The agent's folder checks, as translated errors.
_FOLDER_ERRORS: Final = {
    BAD_ARGS: "invalid_folder_name",
    INVALID_PATH: "path_not_absolute",
    NOT_ALLOWED: "folder_not_allowed",
    PATH_NOT_FOUND: "path_not_found",
    NOT_A_DIRECTORY: "not_a_directory",
    NOT_READABLE: "path_not_readable",
}


def _folder_error(code: str, folder: str, path: str) -> ServiceValidationError:
    return _validation_error(_FOLDER_ERRORS.get(code, "folder_refused"), folder=folder, path=path)


async def _async_set_folder(call: ServiceCall) -> ServiceResponse:
    """Configure a folder with the agent's checks and its rule on who may change settings."""
    entry = _entry_for(call)
    folder, path = call.data[ATTR_FOLDER], call.data[ATTR_PATH]
    user_id = call.context.user_id
    # Automations and scripts (no user) are set up by administrators; people need the agent's permission.
    if user_id is not None and not await async_may_change_settings(
        ToolContext(hass=call.hass, entry=entry, conversation_id=None, user_id=user_id)
    ):
        raise Unauthorized(context=call.context)
    try:
        folder, path = await async_set_folder(call.hass, entry, folder, path)
    except ToolError as err:
        raise _folder_error(err.code, folder, path) from err
    except ValueError as err:
        raise _validation_error("too_many_folders", max=MAX_FOLDERS) from err
    return {"folder": folder, "path": path}


# --- download ----------------------------------------------------------------------------------------------


def _checked_magnet(magnet: str) -> str:
    if info_hash_from_magnet(magnet) is None:
        raise _validation_error("invalid_magnet", magnet=magnet)
    return magnet


def _checked_url(url: str) -> str:
    try:
        parsed = URL(url)
    except ValueError:
        parsed = None
    if parsed is None or parsed.scheme not in ("http", "https") or not parsed.host:
        raise _validation_error("invalid_url", url=url)
    return url


async def _async_checked_folder(hass: HomeAssistant, entry: AgentMediaConfigEntry, folder: str) -> str:
    """Return the folder to hand to `async_add_download`: a configured name, or a usable absolute path."""
    if entry.runtime_data.memory.get_folder(folder) is not None:
        return folder
    if not folder.startswith("/"):
        raise _validation_error("unknown_folder", folder=folder)
    path, problem = await hass.async_add_executor_job(check_folder_path, hass, folder)
    if problem is not None:
        raise _folder_error(problem[0], folder, path)
    return path


def _checked_index(entry: AgentMediaConfigEntry, index: int) -> int:
    count = len(entry.runtime_data.memory.search_results(None))
    if count == 0:
        raise _validation_error("no_search_results")
    if index > count:
        raise _validation_error("unknown_index", index=index, count=count)
    return index


async def _async_download(call: ServiceCall) -> ServiceResponse:
    """Add a result of the last search, a magnet or a .torrent link, after checking all of the input."""
    entry = _entry_for(call)
    hass, data = call.hass, call.data
    folder = data.get(ATTR_FOLDER)
    if folder is not None:
        folder = await _async_checked_folder(hass, entry, folder)
    try:
        if ATTR_INDEX in data:
            added = await async_add_search_result(
                hass,
                entry,
                _checked_index(entry, data[ATTR_INDEX]),
                conversation_id=None,
                source=SOURCE_SERVICE,
                folder=folder,
            )
        elif ATTR_MAGNET in data:
            magnet = _checked_magnet(data[ATTR_MAGNET])
            added = await async_add_download(hass, entry, magnet=magnet, folder=folder, source=SOURCE_SERVICE)
        else:
            url = _checked_url(data[ATTR_URL])
            added = await async_add_download(hass, entry, url=url, folder=folder, source=SOURCE_SERVICE)
    except ToolError as err:  # the chosen result has no link
        raise _validation_error("result_without_link", index=data[ATTR_INDEX]) from err
    except UnknownFolderError as err:
        raise _validation_error("unknown_folder", folder=err.folder) from err
    except RequestRejectedError as err:
        raise _validation_error("torrent_rejected", detail=err.detail) from err
    except AgentMediaClientError as err:
        raise client_error(err) from err
    return {"hash": added.info_hash, "name": added.name}


# --- downloads in qBittorrent ------------------------------------------------------------------------------


def _timestamp(value: Any) -> str | None:
    if isinstance(value, int | float) and not isinstance(value, bool) and value > 0:
        return dt_util.utc_from_timestamp(value).isoformat()
    return None


def describe_torrent(torrent: dict[str, Any], record: dict[str, Any] | None) -> dict[str, Any]:
    """Return the JSON-safe view of one torrent that `list_downloads` answers with."""
    complete = is_complete(torrent)
    tags = [tag.strip() for tag in str(torrent.get("tags") or "").split(",") if tag.strip()]
    eta = torrent.get("eta")
    description: dict[str, Any] = {
        "hash": str(torrent.get("hash", "")).lower(),
        "name": torrent.get("name"),
        "state": download_state(torrent, complete=complete).value,
        "paused": torrent.get("state") in PAUSED_STATES,
        "progress": round(float(torrent.get("progress") or 0), 4),
        "size": torrent.get("size"),
        "download_speed": torrent.get("dlspeed"),
        "upload_speed": torrent.get("upspeed"),
        "eta": eta if isinstance(eta, int) and 0 <= eta < ETA_INFINITE and not complete else None,
        "save_path": torrent.get("save_path"),
        "category": torrent.get("category") or None,
        "tags": tags,
        "added_on": _timestamp(torrent.get("added_on")),
        "completed_on": _timestamp(torrent.get("completion_on")),
        "added_by_agent_media": TORRENT_TAG in tags or record is not None,
    }
    if record is not None and isinstance(media := record.get("media"), dict):
        description["media"] = media
    return description


async def _async_list_downloads(call: ServiceCall) -> ServiceResponse:
    entry = _entry_for(call)
    data = entry.runtime_data
    try:
        torrents = await data.qbittorrent.async_torrents()
    except AgentMediaClientError as err:
        raise client_error(err) from err
    records = data.memory.active_downloads()
    torrents.sort(key=lambda torrent: torrent.get("added_on") or 0, reverse=True)
    return {
        "downloads": [
            describe_torrent(torrent, records.get(str(torrent.get("hash", "")).lower()))
            for torrent in torrents
        ]
    }


async def _async_existing_hash(entry: AgentMediaConfigEntry, value: str) -> str:
    """Return the torrent's hash when qBittorrent has it (qBittorrent silently ignores unknown hashes)."""
    info_hash = normalize_info_hash(value)
    if info_hash is None:
        raise _validation_error("invalid_hash", hash=value)
    try:
        present = await entry.runtime_data.qbittorrent.async_torrents([info_hash])
    except AgentMediaClientError as err:
        raise client_error(err) from err
    if not present:
        raise _validation_error("unknown_torrent", hash=info_hash)
    return info_hash


async def _async_pause(call: ServiceCall) -> None:
    entry = _entry_for(call)
    info_hash = await _async_existing_hash(entry, call.data[ATTR_HASH])
    try:
        await entry.runtime_data.qbittorrent.async_pause([info_hash])
    except AgentMediaClientError as err:
        raise client_error(err) from err


async def _async_resume(call: ServiceCall) -> None:
    entry = _entry_for(call)
    info_hash = await _async_existing_hash(entry, call.data[ATTR_HASH])
    try:
        await entry.runtime_data.qbittorrent.async_resume([info_hash])
    except AgentMediaClientError as err:
        raise client_error(err) from err


async def _async_remove(call: ServiceCall) -> None:
    entry = _entry_for(call)
    info_hash = await _async_existing_hash(entry, call.data[ATTR_HASH])
    try:
        await entry.runtime_data.qbittorrent.async_remove(
            [info_hash], delete_files=call.data[ATTR_DELETE_FILES]
        )
    except AgentMediaClientError as err:
        raise client_error(err) from err
    entry.runtime_data.memory.pop_active_download(info_hash)


# --- memory ------------------------------------------------------------------------------------------------


async def _async_clear_memory(call: ServiceCall) -> None:
    entry = _entry_for(call)
    entry.runtime_data.memory.clear(call.data[ATTR_SCOPE])


type _Handler = Callable[[ServiceCall], Coroutine[Any, Any, ServiceResponse]]

_SERVICES: Final[tuple[tuple[str, _Handler, vol.Schema | vol.All, SupportsResponse], ...]] = (
    (SERVICE_SEARCH, _async_search, SEARCH_SCHEMA, SupportsResponse.OPTIONAL),
    (SERVICE_DOWNLOAD, _async_download, DOWNLOAD_SCHEMA, SupportsResponse.OPTIONAL),
    (SERVICE_SET_FOLDER, _async_set_folder, SET_FOLDER_SCHEMA, SupportsResponse.OPTIONAL),
    (SERVICE_LIST_DOWNLOADS, _async_list_downloads, LIST_DOWNLOADS_SCHEMA, SupportsResponse.ONLY),
    (SERVICE_PAUSE, _async_pause, TORRENT_SCHEMA, SupportsResponse.NONE),
    (SERVICE_RESUME, _async_resume, TORRENT_SCHEMA, SupportsResponse.NONE),
    (SERVICE_REMOVE, _async_remove, REMOVE_SCHEMA, SupportsResponse.NONE),
    (SERVICE_CLEAR_MEMORY, _async_clear_memory, CLEAR_MEMORY_SCHEMA, SupportsResponse.NONE),
)


@callback
def async_setup_services(hass: HomeAssistant) -> None:
    """Register the actions (once, from `async_setup`)."""
    for service, handler, schema, supports_response in _SERVICES:
        hass.services.async_register(
            DOMAIN, service, handler, schema=schema, supports_response=supports_response
        )
