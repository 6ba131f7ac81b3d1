"""Actions (services) of Agent Media: search, download, folders, downloads, the wanted list, memory.

Registered once in `async_setup`, so automations validate even while no entry is loaded. Every action works
with no language model configured or reachable. The schema checks shapes; the handlers resolve who calls and
hand over to the entry's operations (operations/), which check meaning and permissions before anything
changes. Their errors become, in one place (`_answered`), the translated exception errors.py maps each code
to (`Unauthorized` for a refusal).
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
import re
from typing import TYPE_CHECKING, Any, Final, cast

import voluptuous as vol

from homeassistant.config_entries import ConfigEntryState
from homeassistant.core import HomeAssistant, ServiceCall, ServiceResponse, SupportsResponse, callback
from homeassistant.exceptions import ServiceValidationError
from homeassistant.helpers import config_validation as cv
from homeassistant.util import dt as dt_util

from .const import (
    CONF_MAX_SIZE_GB,
    CONF_PREFERRED_CODEC,
    CONF_PREFERRED_LANGUAGES,
    CONF_PREFERRED_RESOLUTION,
    DOMAIN,
    NO_PREFERENCE,
)
from .errors import ErrorCode, OperationError
from .memory import CLEAR_SCOPES
from .operations import HOUSEHOLD, SOURCE_SERVICE, Operations, Request, strict_index
from .requester import Requester, async_resolve_requester, person_requester_key
from .torrents import ETA_INFINITE, PAUSED_STATES, download_state, is_complete, is_ours, torrent_tags
from .untrusted import MAX_NAME, MAX_PATH, clip

if TYPE_CHECKING:
    from .data import AgentMediaConfigEntry
    from .memory import DownloadRecord

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
ATTR_TITLE: Final = "title"
ATTR_YEAR: Final = "year"
ATTR_SEASON: Final = "season"
ATTR_EPISODE: Final = "episode"
ATTR_TARGET: Final = "target"
ATTR_SUBSCRIBER: Final = "subscriber"
ATTR_MEDIA_CONTENT_ID: Final = "media_content_id"
ATTR_ENTITY_ID: Final = "entity_id"
ATTR_FOLLOWER: Final = "follower"
ATTR_PERSON: Final = "person"
ATTR_HOUSEHOLD: Final = "household"
ATTR_RESOLUTION: Final = "resolution"
ATTR_CODEC: Final = "codec"
ATTR_MAX_SIZE_GB: Final = "max_size_gb"
ATTR_LANGUAGES: Final = "languages"

SERVICE_SEARCH: Final = "search"
SERVICE_DOWNLOAD: Final = "download"
SERVICE_SET_FOLDER: Final = "set_folder"
SERVICE_LIST_DOWNLOADS: Final = "list_downloads"
SERVICE_PAUSE: Final = "pause"
SERVICE_RESUME: Final = "resume"
SERVICE_REMOVE: Final = "remove"
SERVICE_CLEAR_MEMORY: Final = "clear_memory"
SERVICE_WANT: Final = "want"
SERVICE_LIST_WANTED: Final = "list_wanted"
SERVICE_FORGET_WANTED: Final = "forget_wanted"
SERVICE_FOLLOW_SHOW: Final = "follow_show"
SERVICE_UNFOLLOW_SHOW: Final = "unfollow_show"
SERVICE_CHECK_WANTED: Final = "check_wanted"
SERVICE_SUBSCRIBE: Final = "subscribe"
SERVICE_UNSUBSCRIBE: Final = "unsubscribe"
SERVICE_LIST_SUBSCRIPTIONS: Final = "list_subscriptions"
SERVICE_PLAY: Final = "play"
SERVICE_PREFERENCES: Final = "preferences"

# What the search action shows of a result. Never its link: an indexer's API key may be in it (download by
# index instead).
SEARCH_RESULT_FIELDS: Final = (
    "index",
    "title",
    "size",
    "seeders",
    "peers",
    "info_hash",
    "tracker",
    "source",
    "reason",
)
MEDIA_TYPES: Final = ("movie", "tv")
DEFAULT_SEARCH_LIMIT: Final = 10
MAX_SEARCH_LIMIT: Final = 50

_ENTRY_ID: Final[dict[vol.Marker, Any]] = {vol.Optional(ATTR_CONFIG_ENTRY_ID): cv.string}
_NON_EMPTY = vol.All(cv.string, vol.Strip, vol.Length(min=1))


def _index(value: Any) -> int:
    try:
        return strict_index(value)
    except ValueError as err:
        raise vol.Invalid(str(err)) from err


_INDEX: Final = vol.All(vol.Any(int, float, str), _index)

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
            vol.Exclusive(ATTR_INDEX, "source"): _INDEX,
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
_NUMBER: Final = vol.All(vol.Any(int, float, str), _index)  # a season or episode: a whole number from 1
_YEAR: Final = vol.All(vol.Coerce(int), vol.Range(min=1870, max=2200))
WANT_SCHEMA: Final = vol.Schema(
    {
        **_ENTRY_ID,
        vol.Required(ATTR_TITLE): _NON_EMPTY,
        vol.Optional(ATTR_YEAR): _YEAR,
        vol.Optional(ATTR_MEDIA_TYPE): vol.In(MEDIA_TYPES),
        vol.Optional(ATTR_SEASON): _NUMBER,
        vol.Optional(ATTR_EPISODE): _NUMBER,
        vol.Optional(ATTR_FOLDER): _NON_EMPTY,
    }
)
TITLE_SCHEMA: Final = vol.Schema({**_ENTRY_ID, vol.Required(ATTR_TITLE): _NON_EMPTY})
FOLLOW_SHOW_SCHEMA: Final = TITLE_SCHEMA.extend(
    {
        vol.Optional(ATTR_YEAR): _YEAR,
        vol.Optional(ATTR_SEASON): _NUMBER,
        vol.Optional(ATTR_FOLDER): _NON_EMPTY,
    }
)
ENTRY_SCHEMA: Final = vol.Schema(_ENTRY_ID)
SUBSCRIBE_SCHEMA: Final = vol.Schema(
    {
        **_ENTRY_ID,
        vol.Exclusive(ATTR_TITLE, "what"): _NON_EMPTY,
        vol.Exclusive(ATTR_HASH, "what"): _NON_EMPTY,
        vol.Optional(ATTR_TARGET): cv.entity_id,
    }
)
PLAY_SCHEMA: Final = vol.Schema(
    {
        **_ENTRY_ID,
        vol.Exclusive(ATTR_TITLE, "what"): _NON_EMPTY,
        vol.Exclusive(ATTR_MEDIA_CONTENT_ID, "what"): _NON_EMPTY,
        vol.Required(ATTR_ENTITY_ID): cv.entity_id,
    }
)
UNSUBSCRIBE_SCHEMA: Final = TITLE_SCHEMA.extend({vol.Optional(ATTR_SUBSCRIBER): _NON_EMPTY})
UNFOLLOW_SHOW_SCHEMA: Final = TITLE_SCHEMA.extend({vol.Optional(ATTR_FOLLOWER): _NON_EMPTY})
# Values are checked by the operation, as the set_preference tool's are ("any" drops one; 0 GB: no cap).
PREFERENCES_SCHEMA: Final = vol.Schema(
    {
        **_ENTRY_ID,
        vol.Exclusive(ATTR_PERSON, "whose"): cv.entity_domain("person"),
        vol.Exclusive(ATTR_HOUSEHOLD, "whose"): cv.boolean,
        vol.Optional(ATTR_RESOLUTION): _NON_EMPTY,
        vol.Optional(ATTR_CODEC): _NON_EMPTY,
        vol.Optional(ATTR_MAX_SIZE_GB): vol.Coerce(float),
        vol.Optional(ATTR_LANGUAGES): vol.All(cv.string, vol.Strip, vol.Length(max=100)),
    }
)
_PREFERENCE_FIELDS: Final = {  # the action's field of each stored preference
    CONF_PREFERRED_RESOLUTION: ATTR_RESOLUTION,
    CONF_PREFERRED_CODEC: ATTR_CODEC,
    CONF_MAX_SIZE_GB: ATTR_MAX_SIZE_GB,
    CONF_PREFERRED_LANGUAGES: ATTR_LANGUAGES,
}
CLEAR_MEMORY_SCHEMA: Final = vol.Schema(
    {**_ENTRY_ID, vol.Optional(ATTR_SCOPE, default="all"): vol.In(CLEAR_SCOPES)}
)


def _validation_error(key: str, **placeholders: Any) -> ServiceValidationError:
    return ServiceValidationError(
        translation_domain=DOMAIN,
        translation_key=key,
        translation_placeholders={name: str(value) for name, value in placeholders.items()},
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


async def _async_prepare(call: ServiceCall) -> tuple[Operations, Requester]:
    """Return the operations of the action's entry and who calls (resolved once)."""
    entry = async_get_entry(call.hass, call.data.get(ATTR_CONFIG_ENTRY_ID))
    return entry.runtime_data.operations, await async_resolve_requester(call.hass, call.context)


def _request(requester: Requester, call: ServiceCall) -> Request:
    """Return the request an action makes: from the service, into the folder it names (if any)."""
    return Request(requester=requester, source=SOURCE_SERVICE, folder=call.data.get(ATTR_FOLDER))


# --- search, folders, download -----------------------------------------------------------------------------


async def _async_search(call: ServiceCall) -> ServiceResponse:
    """Search like the agent's find_torrents: the same ranking, numbers and working state."""
    operations, requester = await _async_prepare(call)
    try:
        search = await operations.finding.async_search(
            _request(requester, call), call.data[ATTR_QUERY], media_type=call.data.get(ATTR_MEDIA_TYPE)
        )
    except OperationError as err:
        if err.code is ErrorCode.NOT_FOUND:
            return {"results": []}  # nothing usable found; the last search stays as it was
        raise
    return {
        "results": [
            {key: result[key] for key in SEARCH_RESULT_FIELDS if key in result}
            for result in search.results[: call.data[ATTR_LIMIT]]
        ]
    }


async def _async_set_folder(call: ServiceCall) -> ServiceResponse:
    """Configure a folder with the operations' checks and permission."""
    operations, requester = await _async_prepare(call)
    folder, path = await operations.settings.async_set_folder(
        requester, call.data[ATTR_FOLDER], call.data[ATTR_PATH]
    )
    return {"folder": folder, "path": path}


async def _async_download(call: ServiceCall) -> ServiceResponse:
    """Add a result of the caller's last search, a magnet or a .torrent link, after checking all of it."""
    operations, requester = await _async_prepare(call)
    data, request = call.data, _request(requester, call)
    if ATTR_INDEX in data:
        added = await operations.acquiring.async_add_result(request, data[ATTR_INDEX])
    else:
        link = data.get(ATTR_MAGNET) or data[ATTR_URL]
        # Each field takes its own kind of link, so a mix-up in an automation is caught.
        if ATTR_MAGNET in data and not link.lower().startswith("magnet:"):
            raise _validation_error("invalid_magnet", magnet=link)
        if ATTR_URL in data and link.lower().startswith("magnet:"):
            raise _validation_error("invalid_url", url=link)
        added = await operations.acquiring.async_add_link(request, link)
    return {"hash": added.info_hash, "name": added.name}


# --- downloads in qBittorrent ------------------------------------------------------------------------------


def _timestamp(value: Any) -> str | None:
    if isinstance(value, int | float) and not isinstance(value, bool) and value > 0:
        return dt_util.utc_from_timestamp(value).isoformat()
    return None


def describe_torrent(torrent: dict[str, Any], record: DownloadRecord | None) -> dict[str, Any]:
    """Return the JSON-safe view of one torrent that `list_downloads` answers with."""
    complete = is_complete(torrent)
    tags = torrent_tags(torrent)
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
        "added_by_agent_media": is_ours(torrent, record),
    }
    if record is not None and isinstance(media := record.get("media"), dict):
        description["media"] = media
    return description


async def _async_list_downloads(call: ServiceCall) -> ServiceResponse:
    operations, requester = await _async_prepare(call)
    torrents = await operations.control.async_list_torrents(requester)
    records = operations.collaborators.memory.downloads.records()
    return {
        "downloads": [
            describe_torrent(torrent, records.get(str(torrent.get("hash", "")).lower()))
            for torrent in torrents
        ]
    }


async def _async_control(call: ServiceCall, action: str) -> None:
    operations, requester = await _async_prepare(call)
    await operations.control.async_control(
        requester, action, call.data[ATTR_HASH], delete_files=call.data.get(ATTR_DELETE_FILES, False)
    )


async def _async_pause(call: ServiceCall) -> None:
    await _async_control(call, "pause")


async def _async_resume(call: ServiceCall) -> None:
    await _async_control(call, "resume")


async def _async_remove(call: ServiceCall) -> None:
    await _async_control(call, "remove")


# --- the wanted list and followed shows --------------------------------------------------------------------


async def _async_want(call: ServiceCall) -> ServiceResponse:
    """Add a title now when an acceptable release exists, else put it on the wanted list."""
    operations, requester = await _async_prepare(call)
    data = call.data
    outcome = await operations.wanted.async_want(
        _request(requester, call),
        data[ATTR_TITLE],
        year=data.get(ATTR_YEAR),
        media_type=data.get(ATTR_MEDIA_TYPE),
        season=data.get(ATTR_SEASON),
        episode=data.get(ATTR_EPISODE),
    )
    if outcome.added is not None:
        return {
            "title": outcome.label,
            "added": True,
            "hash": outcome.added.info_hash,
            "name": outcome.added.name,
        }
    record = outcome.record or {}
    return {
        "title": outcome.label,
        "added": False,
        "reason": record.get("reason"),
        "next_check": record.get("next_check"),
    }


async def _async_list_wanted(call: ServiceCall) -> ServiceResponse:
    operations, requester = await _async_prepare(call)
    titles, shows = operations.wanted.list_wanted(requester)
    return {"wanted": cast("list[Any]", titles), "followed": cast("list[Any]", shows)}


async def _async_forget_wanted(call: ServiceCall) -> ServiceResponse:
    operations, requester = await _async_prepare(call)
    forgotten = operations.wanted.forget_wanted(requester, call.data[ATTR_TITLE])
    return {"forgotten": cast("list[Any]", forgotten)}


async def _async_follow_show(call: ServiceCall) -> ServiceResponse:
    operations, requester = await _async_prepare(call)
    data = call.data
    media, season = await operations.wanted.async_follow_show(
        _request(requester, call), data[ATTR_TITLE], year=data.get(ATTR_YEAR), season=data.get(ATTR_SEASON)
    )
    return {"title": media["title"], "tmdb_id": media["tmdb_id"], "from_season": season}


async def _async_unfollow_show(call: ServiceCall) -> ServiceResponse:
    operations, requester = await _async_prepare(call)
    stopped = operations.wanted.unfollow_show(
        requester, call.data[ATTR_TITLE], follower=call.data.get(ATTR_FOLLOWER)
    )
    return {"unfollowed": cast("list[Any]", stopped)}


async def _async_check_wanted(call: ServiceCall) -> ServiceResponse:
    """Search every wanted title and followed show now, without waiting for the schedule."""
    operations, requester = await _async_prepare(call)
    added = await operations.wanted.async_check_wanted(requester)
    return {"added": cast("list[Any]", added)}


# --- subscriptions -----------------------------------------------------------------------------------------


async def _async_subscribe(call: ServiceCall) -> ServiceResponse:
    """Be told when a title is ready: a title, a download by hash, or (neither) the latest one ("me too")."""
    operations, requester = await _async_prepare(call)
    data = call.data
    subscribed = await operations.subscriptions.async_subscribe(
        _request(requester, call),
        title=data.get(ATTR_TITLE),
        info_hash=data.get(ATTR_HASH),
        target=data.get(ATTR_TARGET),
    )
    return {"title": subscribed.label, "key": subscribed.key, "subscriber": requester.key}


async def _async_unsubscribe(call: ServiceCall) -> ServiceResponse:
    operations, requester = await _async_prepare(call)
    dropped = operations.subscriptions.unsubscribe(
        requester, call.data[ATTR_TITLE], subscriber=call.data.get(ATTR_SUBSCRIBER)
    )
    return {"unsubscribed": cast("list[Any]", dropped)}


async def _async_list_subscriptions(call: ServiceCall) -> ServiceResponse:
    operations, requester = await _async_prepare(call)
    return {"subscriptions": cast("list[Any]", operations.subscriptions.list_subscriptions(requester))}


async def _async_play(call: ServiceCall) -> ServiceResponse:
    """Play a title of the library on a media player (none named: the one organised last)."""
    operations, requester = await _async_prepare(call)
    data = call.data
    played = await operations.playing.async_play(
        _request(requester, call),
        player=data[ATTR_ENTITY_ID],
        title=data.get(ATTR_TITLE),
        media_content_id=data.get(ATTR_MEDIA_CONTENT_ID),
    )
    return {"title": played.label, "entity_id": played.entity_id, "media_content_id": played.media_content_id}


# --- preferences -------------------------------------------------------------------------------------------


async def _async_preferences(call: ServiceCall) -> ServiceResponse:
    """Read, and with values set, a person's release preferences (the caller's own) or the household's.

    Answers whose they are, those set at that level (`own`) and those in force (over the household's and
    the options), field by field as the action names them.
    """
    operations, requester = await _async_prepare(call)
    data = call.data
    whose: str | None = None
    if data.get(ATTR_HOUSEHOLD):
        whose = HOUSEHOLD
    elif (person := data.get(ATTR_PERSON)) is not None and (
        whose := person_requester_key(call.hass, person)
    ) is None:
        raise OperationError(ErrorCode.BAD_ARGS, "person_without_user", person=person)
    changes = {field: data[field] for field in _PREFERENCE_FIELDS.values() if field in data}
    if changes:
        operations.settings.set_preferences(requester, whose=whose, **changes)
    stored = operations.settings.preferences(requester, whose)
    in_force, own = stored.in_force, stored.own
    return {
        "whose": stored.whose,
        "own": {field: own[key] for key, field in _PREFERENCE_FIELDS.items() if key in own},
        "preferences": {
            ATTR_RESOLUTION: in_force.resolution or NO_PREFERENCE,
            ATTR_CODEC: in_force.codec or NO_PREFERENCE,
            ATTR_MAX_SIZE_GB: in_force.max_size_bytes / 1e9 if in_force.max_size_bytes else 0,
            ATTR_LANGUAGES: list(in_force.languages),
        },
    }


# --- memory ------------------------------------------------------------------------------------------------


async def _async_clear_memory(call: ServiceCall) -> None:
    operations, requester = await _async_prepare(call)
    operations.settings.clear_memory(requester, call.data[ATTR_SCOPE])


type _Handler = Callable[[ServiceCall], Coroutine[Any, Any, ServiceResponse]]

# Actions whose change the household expects kept: they answer once it is written, or with the error why not.
_KEPT_CHANGES: Final = frozenset(
    {
        SERVICE_SET_FOLDER,
        SERVICE_CLEAR_MEMORY,
        SERVICE_WANT,
        SERVICE_FORGET_WANTED,
        SERVICE_FOLLOW_SHOW,
        SERVICE_UNFOLLOW_SHOW,
        SERVICE_SUBSCRIBE,
        SERVICE_UNSUBSCRIBE,
        SERVICE_PREFERENCES,
    }
)
MAX_RESPONSE_ITEMS: Final = 500  # entries of any list in a response (list_downloads: the newest)
MAX_RESPONSE_KEY: Final = 64
_LONG_TEXT_KEYS: Final = frozenset({"path", "save_path", "download_link"})  # up to MAX_PATH, not MAX_NAME
# Control characters (C0, DEL, C1) and the invisible marks that reorder or hide text: never in a response.
_UNSEEN: Final = re.compile(r"[\x00-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]")


def clean_response(value: Any, key: str | None = None) -> Any:
    """Return an action's response bounded and clean: text on one line, clipped, without control characters.

    Names and titles come from outside (torrents, trackers, TMDB); an automation may speak or show them.
    """
    if isinstance(value, str):
        if key in _LONG_TEXT_KEYS:  # paths and links are kept as they are, spaces included
            return _UNSEEN.sub(" ", value)[:MAX_PATH]
        return clip(_UNSEEN.sub(" ", value), MAX_NAME)
    if isinstance(value, dict):
        return {
            clip(_UNSEEN.sub(" ", str(name)), MAX_RESPONSE_KEY): clean_response(item, str(name))
            for name, item in value.items()
        }
    if isinstance(value, list | tuple):
        return [clean_response(item, key) for item in value[:MAX_RESPONSE_ITEMS]]
    return value


def _answered(service: str, handler: _Handler) -> _Handler:
    """Wrap an action: its errors translated, its change kept where the household expects it, then cleaned."""

    async def answer(call: ServiceCall) -> ServiceResponse:
        try:
            response = await handler(call)
        except OperationError as err:
            raise err.for_action(call.context) from err
        if service in _KEPT_CHANGES:
            entry = async_get_entry(call.hass, call.data.get(ATTR_CONFIG_ENTRY_ID))
            await entry.runtime_data.memory.async_save_now()  # MemoryNotSavedError: translated
        return None if response is None else cast("ServiceResponse", clean_response(response))

    return answer


_SERVICES: Final[tuple[tuple[str, _Handler, vol.Schema | vol.All, SupportsResponse], ...]] = (
    (SERVICE_SEARCH, _async_search, SEARCH_SCHEMA, SupportsResponse.OPTIONAL),
    (SERVICE_DOWNLOAD, _async_download, DOWNLOAD_SCHEMA, SupportsResponse.OPTIONAL),
    (SERVICE_SET_FOLDER, _async_set_folder, SET_FOLDER_SCHEMA, SupportsResponse.OPTIONAL),
    (SERVICE_LIST_DOWNLOADS, _async_list_downloads, LIST_DOWNLOADS_SCHEMA, SupportsResponse.ONLY),
    (SERVICE_PAUSE, _async_pause, TORRENT_SCHEMA, SupportsResponse.NONE),
    (SERVICE_RESUME, _async_resume, TORRENT_SCHEMA, SupportsResponse.NONE),
    (SERVICE_REMOVE, _async_remove, REMOVE_SCHEMA, SupportsResponse.NONE),
    (SERVICE_CLEAR_MEMORY, _async_clear_memory, CLEAR_MEMORY_SCHEMA, SupportsResponse.NONE),
    (SERVICE_WANT, _async_want, WANT_SCHEMA, SupportsResponse.OPTIONAL),
    (SERVICE_LIST_WANTED, _async_list_wanted, ENTRY_SCHEMA, SupportsResponse.ONLY),
    (SERVICE_FORGET_WANTED, _async_forget_wanted, TITLE_SCHEMA, SupportsResponse.OPTIONAL),
    (SERVICE_FOLLOW_SHOW, _async_follow_show, FOLLOW_SHOW_SCHEMA, SupportsResponse.OPTIONAL),
    (SERVICE_UNFOLLOW_SHOW, _async_unfollow_show, UNFOLLOW_SHOW_SCHEMA, SupportsResponse.OPTIONAL),
    (SERVICE_CHECK_WANTED, _async_check_wanted, ENTRY_SCHEMA, SupportsResponse.OPTIONAL),
    (SERVICE_SUBSCRIBE, _async_subscribe, SUBSCRIBE_SCHEMA, SupportsResponse.OPTIONAL),
    (SERVICE_UNSUBSCRIBE, _async_unsubscribe, UNSUBSCRIBE_SCHEMA, SupportsResponse.OPTIONAL),
    (SERVICE_LIST_SUBSCRIPTIONS, _async_list_subscriptions, ENTRY_SCHEMA, SupportsResponse.ONLY),
    (SERVICE_PLAY, _async_play, PLAY_SCHEMA, SupportsResponse.OPTIONAL),
    (SERVICE_PREFERENCES, _async_preferences, PREFERENCES_SCHEMA, SupportsResponse.OPTIONAL),
)


@callback
def async_setup_services(hass: HomeAssistant) -> None:
    """Register the actions (once, from `async_setup`)."""
    for service, handler, schema, supports_response in _SERVICES:
        hass.services.async_register(
            DOMAIN, service, _answered(service, handler), schema=schema, supports_response=supports_response
        )
