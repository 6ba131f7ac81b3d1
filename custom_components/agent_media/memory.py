"""The entry's memory: typed sections with one owner each, on one versioned Store per config entry.

- `household` (operations): folders, release preferences, the language last spoken.
- `conversations` (the agent): per conversation id, the requester that opened it, its last messages and the
  media looked up last; besides, in memory only, the owner of every conversation Home Assistant may still
  hold a chat log of. Another requester sending that id gets a conversation of its own.
- `working` (operations): per requester, the lists "the 2nd one" picks from (a search, a pending question with
  numbered options), each of the conversation it was made in, and a pending confirmation — so "the 2nd one"
  means the asker's own list, never another person's.
- `downloads` (downloads.py adds, the downloads coordinator completes): what Agent Media added, with the media
  identity of the result actually added, and the hashes last seen incomplete.
- `journal`: recent errors and background news with a read flag.
- `wanted` (operations and the wanted scheduler): titles wanted until an acceptable release appears, each
  with its next check; followed shows with what was fetched of them; releases blocklisted per title.

Loading validates every record: a damaged one is dropped with a warning, the rest kept. A Store written by a
newer version is refused (`NewerStoreError`) and never written. Writing accepts only JSON-safe, valid UTF-8
values (`UnstorableValueError` otherwise), so one bad string can never stop every later save. Every list and
map is bounded; changes are written with `async_delay_save`, so a burst of turns costs one write. A write
that fails (a full or read-only disk) raises a repair issue, cleared by the next write that succeeds; a caller
that answers only once its change is kept (`async_save_now`) gets `MemoryNotSavedError`.
"""

from __future__ import annotations

import copy
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, Final

import voluptuous as vol

from homeassistant.core import HomeAssistant, callback
from homeassistant.exceptions import HomeAssistantError
from homeassistant.helpers import issue_registry as ir
from homeassistant.helpers.chat_session import CONVERSATION_TIMEOUT
from homeassistant.helpers.storage import Store
from homeassistant.util import dt as dt_util
from homeassistant.util.file import WriteError
from homeassistant.util.ulid import ulid_now

from .const import (
    DEFAULT_MAX_HISTORY_MESSAGES,
    DOMAIN,
    LOGGER,
    STORAGE_MINOR_VERSION,
    STORAGE_VERSION,
    WANTED_FIRST_RETRY_HOURS,
    WANTED_HOURLY_RETRIES,
    WANTED_MAX_RETRY_DAYS,
    storage_key,
)
from .links import LINK_ID_LENGTH
from .ranking import normalize_title
from .requester import SYSTEM_KEY
from .untrusted import (
    MAX_DETAIL,
    MAX_MESSAGE,
    MAX_NAME,
    MAX_TITLE,
    check_storable,
    clip,
    image_path,
    storable_copy,
    storable_text,
)

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping

SAVE_DELAY: Final = 10.0  # seconds; coalesces the writes of a conversation into one
MEMORY_NOT_SAVED: Final = "memory_not_saved"  # the repair issue and the error of a failed write
# Seconds; short, since a lost write of the incomplete downloads could announce a completion twice.
DOWNLOADS_SAVE_DELAY: Final = 2.0
MAX_FOLDERS: Final = 32
MAX_PREFERENCES: Final = 32
MAX_CONVERSATIONS: Final = 20  # per requester, so one requester never pushes out another's
MAX_CONVERSATION_RECORDS: Final = 100  # in all
MAX_REQUESTERS: Final = 20
MAX_EARLIER_LISTS: Final = 4  # lists of other conversations kept per requester, besides the latest
# Home Assistant drops a chat log idle for CONVERSATION_TIMEOUT, looking every CONVERSATION_TIMEOUT (+1 s):
# up to twice that after its last turn. Owners are kept longer than any chat log can live.
OWNER_KEPT_FOR: Final = 3 * CONVERSATION_TIMEOUT
MAX_SEARCH_RESULTS: Final = 50
MAX_ACTIVE_DOWNLOADS: Final = 100
MAX_INCOMPLETE: Final = 5000
MAX_ERRORS: Final = 10
MAX_EVENTS: Final = 50
MAX_PENDING_OPTIONS: Final = 5
MAX_LANGUAGE: Final = 20  # characters of a language tag
MAX_WANTED: Final = 100
MAX_FOLLOWED: Final = 50
MAX_FETCHED: Final = 500  # episodes and season packs remembered per followed show
MAX_BLOCKED_TITLES: Final = 200
MAX_BLOCKED_PER_TITLE: Final = 20
PENDING_QUESTION_TTL: Final = timedelta(minutes=30)  # an unanswered question is stale after this
CONFIRMATION_TTL: Final = timedelta(minutes=5)

# Scopes of clear_memory. "mine" scopes touch only the caller's own state unless the caller may clear others'.
CLEAR_SCOPES: Final = ("all", "conversation", "search", "errors", "events")
HOUSEHOLD_SCOPES: Final = frozenset({"all", "errors", "events"})


class NewerStoreError(HomeAssistantError):
    """The stored memory was written by a newer Agent Media; it is left untouched."""


class MemoryNotSavedError(HomeAssistantError):
    """The memory could not be written: what changed is kept until Home Assistant restarts, then lost."""

    def __init__(self, error: str) -> None:
        """Say why, translated (a repair issue says it too)."""
        super().__init__(
            translation_domain=DOMAIN,
            translation_key=MEMORY_NOT_SAVED,
            translation_placeholders={"error": error},
        )


# --- record schemas (what a valid record looks like on load) ------------------------------------------------

_TEXT = vol.All(str, vol.Length(max=4096))
_OPT_TEXT = vol.Any(None, _TEXT)


def _whole(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise vol.Invalid("not a whole number")
    return int(value)


_INT = _whole
_OPT_INT = vol.Any(None, _INT)
_NUMBER = vol.Any(int, float)
_TIME = vol.All(str, vol.Length(max=40))

# A poster path of the wrong shape becomes None (outside data), without dropping the record holding it.
_OPT_IMAGE_PATH = image_path

MEDIA_SCHEMA: Final = vol.Schema(
    {
        vol.Required("title"): _TEXT,
        vol.Optional("year"): _OPT_INT,
        vol.Optional("imdb_id"): _OPT_TEXT,
        vol.Optional("tmdb_id"): _OPT_INT,
        vol.Optional("media_type"): vol.Any(None, "movie", "tv"),
        vol.Optional("original_title"): _OPT_TEXT,
        vol.Optional("poster_path"): _OPT_IMAGE_PATH,
    },
    extra=vol.REMOVE_EXTRA,
)
_OPT_MEDIA = vol.Any(None, MEDIA_SCHEMA)
RESULT_SCHEMA: Final = vol.Schema(
    {
        vol.Required("index"): _INT,
        vol.Required("title"): _TEXT,
        vol.Optional("size"): _OPT_INT,
        vol.Optional("seeders"): _OPT_INT,
        vol.Optional("peers"): _OPT_INT,
        vol.Optional("info_hash"): _OPT_TEXT,
        vol.Optional("link_id"): _OPT_TEXT,  # a link in RAM (links.py); an old Store's links are dropped
        vol.Optional("tracker"): _OPT_TEXT,
        vol.Optional("source"): _OPT_TEXT,
        vol.Optional("reason"): _OPT_TEXT,
    },
    extra=vol.REMOVE_EXTRA,
)
SEARCH_SCHEMA: Final = vol.Schema(
    {
        vol.Required("query"): _TEXT,
        vol.Required("results"): [RESULT_SCHEMA],
        vol.Optional("media"): _OPT_MEDIA,
        vol.Required("at"): _TIME,
    },
    extra=vol.REMOVE_EXTRA,
)
QUESTION_SCHEMA: Final = vol.Schema(
    {
        vol.Required("question"): _TEXT,
        vol.Required("options"): [RESULT_SCHEMA],
        vol.Optional("media"): _OPT_MEDIA,
        vol.Required("at"): _TIME,
    },
    extra=vol.REMOVE_EXTRA,
)
CONFIRMATION_SCHEMA: Final = vol.Schema(
    {vol.Required("tool"): _TEXT, vol.Required("args"): dict, vol.Required("at"): _TIME},
    extra=vol.REMOVE_EXTRA,
)
EARLIER_LIST_SCHEMA: Final = vol.Schema(
    {
        vol.Required("conversation_id"): _TEXT,
        vol.Optional("search"): vol.Any(None, SEARCH_SCHEMA),
        vol.Optional("question"): vol.Any(None, QUESTION_SCHEMA),
    },
    extra=vol.REMOVE_EXTRA,
)
WORKING_SCHEMA: Final = vol.Schema(
    {
        # The latest list and the conversation it was made in ("" or absent: none, e.g. an action).
        vol.Optional("conversation_id"): _OPT_TEXT,
        vol.Optional("search"): vol.Any(None, SEARCH_SCHEMA),
        vol.Optional("question"): vol.Any(None, QUESTION_SCHEMA),
        vol.Optional("earlier"): [EARLIER_LIST_SCHEMA],
        vol.Optional("confirmation"): vol.Any(None, CONFIRMATION_SCHEMA),
        vol.Required("updated"): _TIME,
    },
    extra=vol.REMOVE_EXTRA,
)
MESSAGE_SCHEMA: Final = vol.Schema(
    {vol.Required("role"): vol.In(["user", "assistant"]), vol.Required("content"): _TEXT},
    extra=vol.REMOVE_EXTRA,
)
CONVERSATION_SCHEMA: Final = vol.Schema(
    {
        vol.Optional("owner"): _OPT_TEXT,
        vol.Required("messages"): [MESSAGE_SCHEMA],
        vol.Optional("media"): _OPT_MEDIA,
        vol.Required("updated"): _TIME,
    },
    extra=vol.REMOVE_EXTRA,
)
# A dead download on its way out: replaced by `hash` (None: nothing acceptable was left), not removed yet.
REPLACEMENT_SCHEMA: Final = vol.Schema(
    {vol.Required("reason"): _TEXT, vol.Optional("hash"): _OPT_TEXT, vol.Optional("name"): _OPT_TEXT},
    extra=vol.REMOVE_EXTRA,
)
DOWNLOAD_SCHEMA: Final = vol.Schema(
    {
        vol.Required("name"): _TEXT,
        vol.Optional("save_path"): _OPT_TEXT,
        vol.Optional("source"): _OPT_TEXT,
        vol.Required("added_at"): _TIME,
        vol.Optional("safety"): _OPT_TEXT,
        vol.Optional("media"): _OPT_MEDIA,
        vol.Optional("requester"): _OPT_TEXT,
        vol.Optional("conversation_id"): _OPT_TEXT,
        vol.Optional("replacements"): _INT,  # dead releases of its title this one follows
        vol.Optional("replacement"): REPLACEMENT_SCHEMA,
    },
    extra=vol.REMOVE_EXTRA,
)
LATEST_COMPLETED_SCHEMA: Final = vol.Schema(
    {
        vol.Required("title"): _TEXT,
        vol.Optional("poster_path"): _OPT_IMAGE_PATH,
        vol.Required("completed_at"): _TIME,
    },
    extra=vol.REMOVE_EXTRA,
)
ERROR_SCHEMA: Final = vol.Schema(
    {
        vol.Required("action"): _TEXT,
        vol.Required("error"): _TEXT,
        vol.Required("message"): _TEXT,
        vol.Required("at"): _TIME,
    },
    extra=vol.REMOVE_EXTRA,
)
EVENT_SCHEMA: Final = vol.Schema(
    {
        vol.Required("id"): _TEXT,
        vol.Required("type"): _TEXT,
        vol.Required("data"): dict,
        vol.Required("at"): _TIME,
        vol.Required("read"): bool,
    },
    extra=vol.REMOVE_EXTRA,
)
_PREFERENCE_VALUE = vol.Any(str, _NUMBER, bool, [str])
WANTED_SCHEMA: Final = vol.Schema(
    {
        vol.Required("media"): MEDIA_SCHEMA,
        vol.Optional("season"): _OPT_INT,
        vol.Optional("episode"): _OPT_INT,
        vol.Optional("save_path"): _OPT_TEXT,
        vol.Required("reason"): _TEXT,
        vol.Optional("requester"): _OPT_TEXT,
        vol.Required("added_at"): _TIME,
        vol.Required("next_check"): _TIME,
        vol.Required("attempts"): _INT,
    },
    extra=vol.REMOVE_EXTRA,
)
FOLLOWED_SCHEMA: Final = vol.Schema(
    {
        vol.Required("media"): MEDIA_SCHEMA,
        vol.Optional("from_season"): _OPT_INT,
        vol.Optional("save_path"): _OPT_TEXT,
        vol.Optional("requester"): _OPT_TEXT,
        vol.Required("followed_at"): _TIME,
        vol.Required("next_check"): _TIME,
        vol.Required("fetched"): [vol.All(str, vol.Length(max=20))],
        # The last episode or pack a check searched when it ran out of searches: the next starts after it.
        vol.Optional("resume_after"): vol.Any(None, vol.All(str, vol.Length(max=20))),
    },
    extra=vol.REMOVE_EXTRA,
)
BLOCKED_SCHEMA: Final = vol.Schema(
    [{vol.Optional("hash"): _OPT_TEXT, vol.Required("name"): _TEXT, vol.Required("at"): _TIME}]
)


def _empty_data() -> dict[str, Any]:
    return {
        "household": {"folders": {}, "preferences": {}, "language": None},
        "conversations": {},
        "working": {},
        "downloads": {"records": {}, "incomplete": [], "latest_completed": None},
        "journal": {"errors": [], "events": []},
        "wanted": {"titles": {}, "shows": {}, "blocked": {}},
    }


def _valid(schema: vol.Schema, value: Any, where: str, dropped: list[str]) -> Any:
    """Return the record as the schema cleans it, or None (noted in `dropped`) when it is damaged."""
    try:
        check_storable(value)
        return schema(value)
    except (vol.Invalid, ValueError):
        dropped.append(where)
        return None


def _valid_map(raw: Any, schema: vol.Schema, where: str, dropped: list[str]) -> dict[str, Any]:
    if not isinstance(raw, dict):
        if raw is not None:
            dropped.append(where)
        return {}
    result = {}
    for key, value in raw.items():
        if (
            isinstance(key, str)
            and (record := _valid(schema, value, f"{where}.{key[:40]}", dropped)) is not None
        ):
            result[key] = record
    return result


def _valid_list(raw: Any, schema: vol.Schema, where: str, dropped: list[str]) -> list[Any]:
    if not isinstance(raw, list):
        if raw is not None:
            dropped.append(where)
        return []
    return [
        record
        for position, value in enumerate(raw)
        if (record := _valid(schema, value, f"{where}[{position}]", dropped)) is not None
    ]


def _part(data: dict[str, Any], key: str) -> dict[str, Any]:
    value = data.get(key)
    return value if isinstance(value, dict) else {}


def validated(data: Any) -> tuple[dict[str, Any], list[str]]:
    """Return stored data of the current layout with every damaged record dropped, and where they were."""
    dropped: list[str] = []
    result = _empty_data()
    if not isinstance(data, dict):
        return result, ([] if data is None else ["memory"])
    household = _part(data, "household")
    folders = household.get("folders")
    result["household"]["folders"] = {
        name: path
        for name, path in (folders.items() if isinstance(folders, dict) else ())
        if _valid(vol.Schema(_TEXT), path, f"folders.{str(name)[:40]}", dropped) is not None
        and isinstance(name, str)
    }
    preferences = household.get("preferences")
    result["household"]["preferences"] = {
        key: value
        for key, value in (preferences.items() if isinstance(preferences, dict) else ())
        if isinstance(key, str)
        and _valid(vol.Schema(_PREFERENCE_VALUE), value, f"preferences.{key[:40]}", dropped) is not None
    }
    language = household.get("language")
    result["household"]["language"] = (
        language if isinstance(language, str) and len(language) <= MAX_LANGUAGE else None
    )
    result["conversations"] = _valid_map(
        data.get("conversations"), CONVERSATION_SCHEMA, "conversations", dropped
    )
    result["working"] = _valid_map(data.get("working"), WORKING_SCHEMA, "working", dropped)
    downloads = _part(data, "downloads")
    result["downloads"]["records"] = _valid_map(
        downloads.get("records"), DOWNLOAD_SCHEMA, "downloads", dropped
    )
    incomplete = downloads.get("incomplete")
    result["downloads"]["incomplete"] = [
        value for value in (incomplete if isinstance(incomplete, list) else []) if isinstance(value, str)
    ][:MAX_INCOMPLETE]
    if (latest := downloads.get("latest_completed")) is not None:
        result["downloads"]["latest_completed"] = _valid(
            LATEST_COMPLETED_SCHEMA, latest, "downloads.latest_completed", dropped
        )
    journal = _part(data, "journal")
    result["journal"]["errors"] = _valid_list(journal.get("errors"), ERROR_SCHEMA, "errors", dropped)
    result["journal"]["events"] = _valid_list(journal.get("events"), EVENT_SCHEMA, "events", dropped)
    wanted = _part(data, "wanted")  # absent before minor version 2: empty
    result["wanted"]["titles"] = _valid_map(wanted.get("titles"), WANTED_SCHEMA, "wanted", dropped)
    result["wanted"]["shows"] = _valid_map(wanted.get("shows"), FOLLOWED_SCHEMA, "followed", dropped)
    result["wanted"]["blocked"] = _valid_map(wanted.get("blocked"), BLOCKED_SCHEMA, "blocked", dropped)
    return result, dropped


def migrate_v1(old: Any) -> dict[str, Any]:
    """Return version 1's one untyped dict in the sectioned layout of version 2, keeping what people set."""
    old = old if isinstance(old, dict) else {}
    searches = _part(old, "searches")
    latest = searches.get(old.get("latest_search")) if isinstance(old.get("latest_search"), str) else None
    working: dict[str, Any] = {}
    if latest is not None or old.get("pending_question") is not None:
        # Before requesters existed, actions and automations used the latest search: the system's now.
        working[SYSTEM_KEY] = {
            "search": latest,
            "question": old.get("pending_question"),
            "updated": dt_util.utcnow().isoformat(),
        }
    conversations = {}
    for conversation_id, conversation in (old.get("conversations") or {}).items():
        if isinstance(conversation, dict):
            entities = _part(conversation, "entities")
            conversations[conversation_id] = {
                "owner": None,  # claimed by the first requester that continues it
                "messages": conversation.get("messages", []),
                "media": entities.get("media"),
                "updated": conversation.get("updated") or dt_util.utcnow().isoformat(),
            }
    return {
        "household": {
            "folders": old.get("folders", {}),
            "preferences": old.get("preferences", {}),
            "language": old.get("language"),
        },
        "conversations": conversations,
        "working": working,
        "downloads": {
            "records": old.get("active_downloads", {}),
            "incomplete": old.get("incomplete_downloads", []),
        },
        "journal": {"errors": old.get("errors", []), "events": old.get("events", [])},
    }


class _MemoryStore(Store[dict[str, Any]]):
    """The Store, with the migrations between layouts of the stored data, telling each write's outcome."""

    def __init__(self, hass: HomeAssistant, key: str, on_written: Callable[[Exception | None], None]) -> None:
        """Make the entry's Store: private (paths, what the household watches), written atomically."""
        super().__init__(
            hass, STORAGE_VERSION, key, private=True, atomic_writes=True, minor_version=STORAGE_MINOR_VERSION
        )
        self._on_written = on_written

    async def _async_write_data(self, *args: Any) -> None:
        # The outer edge of every write (its arguments differ between Home Assistant versions). The Store
        # logs a failed write on one line and carries on: the memory is told, so that it can say so.
        try:
            await super()._async_write_data(*args)
        except HomeAssistantError as err:  # WriteError, SerializationError: logged by the Store
            self._on_written(err)
            raise
        except OSError as err:  # its folder could not be made: the Store would let it escape
            self._on_written(err)
            raise WriteError(err) from err
        self._on_written(None)

    async def _async_migrate_func(
        self, old_major_version: int, _old_minor_version: int, old_data: dict[str, Any]
    ) -> dict[str, Any]:
        if old_major_version > STORAGE_VERSION:
            raise NotImplementedError  # written by a newer release: refused, never rewritten
        if old_major_version == 1:
            return migrate_v1(old_data)
        return old_data  # minor versions only add keys; validation fills them in


def _trim_oldest(mapping: dict[str, dict[str, Any]], limit: int, field: str) -> None:
    """Drop the entries with the oldest `field` until `limit` remain."""
    if len(mapping) <= limit:
        return
    ordered = sorted(mapping, key=lambda key: str(mapping[key].get(field, "")))
    for key in ordered[: len(mapping) - limit]:
        del mapping[key]


def _now() -> str:
    return dt_util.utcnow().isoformat()


def _is_fresh(timestamp: Any, ttl: timedelta) -> bool:
    moment = dt_util.parse_datetime(timestamp) if isinstance(timestamp, str) else None
    return moment is not None and dt_util.utcnow() - moment <= ttl


def clean_media(media: dict[str, Any] | None) -> dict[str, Any] | None:
    """Return a media identity as kept: its known keys, outside text clipped; None without a title."""
    if not media or not media.get("title"):
        return None
    cleaned: dict[str, Any] = {"title": clip(media["title"], MAX_TITLE)}
    for key in ("year", "tmdb_id"):
        if isinstance(value := media.get(key), int) and not isinstance(value, bool):
            cleaned[key] = value
    if isinstance(value := media.get("imdb_id"), str):
        cleaned["imdb_id"] = clip(value, 20)
    if media.get("media_type") in ("movie", "tv"):
        cleaned["media_type"] = media["media_type"]
    if isinstance(value := media.get("original_title"), str) and value != media["title"]:
        cleaned["original_title"] = clip(value, MAX_TITLE)
    if (value := image_path(media.get("poster_path"))) is not None:
        cleaned["poster_path"] = value
    return cleaned


def title_key(media: Mapping[str, Any], season: int | None = None, episode: int | None = None) -> str:
    """Return the key of a title on the wanted list and the blocklist: "movie:10378", "tv:1399:s01e02".

    Without a TMDB id the folded title stands in ("movie:big buck bunny").
    """
    kind = media.get("media_type") if media.get("media_type") in ("movie", "tv") else "media"
    tmdb_id = media.get("tmdb_id")
    if isinstance(tmdb_id, int) and not isinstance(tmdb_id, bool):
        key = f"{kind}:{tmdb_id}"
    else:
        key = f"{kind}:{normalize_title(str(media.get('title') or ''))[:MAX_TITLE]}"
    if season is not None:
        key += f":s{season:02d}"
    if episode is not None:
        key += f"{'' if season is not None else ':'}e{episode:02d}"
    return key


def retry_delay(attempts: int) -> timedelta:
    """Return how long a wanted title waits after `attempts` searches found nothing acceptable.

    1 h, doubled up to 16 h, then one more day after each search, up to a search every 7 days.
    """
    if attempts <= WANTED_HOURLY_RETRIES:
        return timedelta(hours=WANTED_FIRST_RETRY_HOURS * 2 ** max(0, attempts - 1))
    return timedelta(days=min(attempts - WANTED_HOURLY_RETRIES, WANTED_MAX_RETRY_DAYS))


def clean_result(result: dict[str, Any], index: int) -> dict[str, Any]:
    """Return a search result as kept, numbered; its outside text clipped and made storable.

    Its link is never kept (it may carry an indexer's API key or a passkey): only the id under which
    `links.ResultLinks` holds it in RAM.
    """
    cleaned: dict[str, Any] = {"index": index, "title": clip(result.get("title", "?"), MAX_NAME)}
    for key in ("size", "seeders", "peers"):
        value = result.get(key)
        cleaned[key] = value if isinstance(value, int) and not isinstance(value, bool) else 0
    for key, limit in (
        ("info_hash", 64),
        ("link_id", LINK_ID_LENGTH),
        ("tracker", 80),
        ("source", 80),
        ("reason", 200),
    ):
        if isinstance(value := result.get(key), str) and value:
            cleaned[key] = storable_text(value)[:limit]
    return cleaned


class AgentMediaMemory:
    """Memory of one config entry. Methods are called from the event loop only."""

    def __init__(
        self, hass: HomeAssistant, entry_id: str, *, max_history_messages: int = DEFAULT_MAX_HISTORY_MESSAGES
    ) -> None:
        """Prepare an empty memory; `async_load` fills it from storage."""
        self._hass = hass
        self._entry_id = entry_id
        self._store = _MemoryStore(hass, storage_key(entry_id), self._written)
        self._write_error: str | None = None  # why the last write failed; None once one succeeds
        self._max_history_messages = max(2, max_history_messages)
        self._data: dict[str, Any] = _empty_data()
        self._save_pending = False
        self._loaded = False
        self.household = HouseholdSection(self)
        self.conversations = ConversationsSection(self)
        self.working = WorkingSection(self)
        self.downloads = DownloadsSection(self)
        self.journal = JournalSection(self)
        self.wanted = WantedSection(self)

    # --- persistence ---------------------------------------------------------------------------------------

    async def async_load(self) -> None:
        """Read and validate the stored memory (nothing stored yet is an empty memory).

        Raises NewerStoreError when a newer release wrote it; then nothing is ever written back.
        """
        try:
            stored = await self._store.async_load()
        except (NotImplementedError, HomeAssistantError) as err:
            raise NewerStoreError(str(err) or "newer storage version") from err
        self._data, dropped = validated(stored)
        if dropped:
            LOGGER.warning(
                "Agent Media dropped %s damaged record(s) from its memory and kept the rest: %s",
                len(dropped),
                ", ".join(dropped[:10]),
            )
        self._loaded = True

    async def async_flush(self) -> None:
        """Write a pending delayed save now (on unload, so a reload reads fresh data)."""
        if self._save_pending:
            await self._store.async_save(self._data_to_save())

    async def async_save_now(self) -> None:
        """Write what is pending now, for a caller that answers only once it is kept.

        Raises MemoryNotSavedError when it could not be written (the repair issue says so too).
        """
        if not self._loaded:
            return
        if self._save_pending or self._write_error is not None:  # after a failure: try again
            await self._store.async_save(self._data_to_save())
        if self._write_error is not None:
            raise MemoryNotSavedError(self._write_error)

    @callback
    def _written(self, error: Exception | None) -> None:
        """Keep a write's outcome: a failure raises a repair issue, the next write that succeeds clears it."""
        issue_id = f"{MEMORY_NOT_SAVED}_{self._entry_id}"
        if error is None:
            if self._write_error is not None:
                self._write_error = None
                ir.async_delete_issue(self._hass, DOMAIN, issue_id)
            return
        self._write_error = clip(str(error) or type(error).__name__, MAX_DETAIL)
        entry = self._hass.config_entries.async_get_entry(self._entry_id)
        ir.async_create_issue(
            self._hass,
            DOMAIN,
            issue_id,
            is_fixable=False,
            severity=ir.IssueSeverity.ERROR,
            translation_key=MEMORY_NOT_SAVED,
            translation_placeholders={
                "title": entry.title if entry is not None else self._entry_id,
                "error": self._write_error,
            },
        )

    async def async_remove(self) -> None:
        """Delete the stored memory (the entry is being removed)."""
        # Writing a pending save first also cancels its timer, so it cannot bring the file back afterwards.
        await self.async_flush()
        self._data = _empty_data()
        await self._store.async_remove()
        ir.async_delete_issue(self._hass, DOMAIN, f"{MEMORY_NOT_SAVED}_{self._entry_id}")

    @callback
    def schedule_save(self, delay: float = SAVE_DELAY) -> None:
        """Write soon (coalesced); never before the memory was loaded, so a refused file stays as it is."""
        if not self._loaded:
            return
        self._save_pending = True
        self._store.async_delay_save(self._data_to_save, delay)

    @callback
    def _data_to_save(self) -> dict[str, Any]:
        # The Store serialises in the executor; hand it a copy the event loop will not mutate meanwhile.
        self._save_pending = False
        return copy.deepcopy(self._data)

    def section(self, name: str) -> Any:
        """Return a section's raw data (for the section classes only)."""
        return self._data[name]

    @property
    def max_history_messages(self) -> int:
        """How many messages of a conversation are kept."""
        return self._max_history_messages

    def as_dict(self) -> dict[str, Any]:
        """Return a copy of everything remembered (diagnostics)."""
        return copy.deepcopy(self._data)

    def clear(self, scope: str, *, requester_key: str | None = None) -> None:
        """Forget part of the memory.

        With `requester_key`, "conversation" and "search" forget only that requester's own, else everyone's.
        "all" forgets everything but the downloads coordinator's bookkeeping (not something anyone told us).
        """
        if scope not in CLEAR_SCOPES:
            raise ValueError(f"unknown memory scope {scope!r}")
        empty = _empty_data()
        if scope == "all":
            empty["downloads"] = self._data["downloads"]
            self._data = empty
            self.wanted.changed()
        elif scope == "conversation":
            self.conversations.clear(requester_key)
        elif scope == "search":
            self.working.clear(requester_key)
        elif scope == "errors":
            self._data["journal"]["errors"] = []
        else:
            self._data["journal"]["events"] = []
        self.schedule_save()


class _Section:
    def __init__(self, memory: AgentMediaMemory) -> None:
        self._memory = memory


class HouseholdSection(_Section):
    """Settings of the household: folders, preferences, language."""

    @property
    def _data(self) -> dict[str, Any]:
        data: dict[str, Any] = self._memory.section("household")
        return data

    def folder(self, name: str) -> str | None:
        """Return the path configured for a folder name, if any."""
        path = self._data["folders"].get(name)
        return path if isinstance(path, str) else None

    def folders(self) -> dict[str, str]:
        """Return every configured folder (name → absolute path)."""
        return dict(self._data["folders"])

    def set_folder(self, name: str, path: str) -> None:
        """Configure a folder; the caller has validated the path. Raises ValueError (full, or unstorable)."""
        check_storable(name)
        check_storable(path)
        folders: dict[str, str] = self._data["folders"]
        if folders.get(name) == path:
            return
        if name not in folders and len(folders) >= MAX_FOLDERS:
            raise ValueError(f"at most {MAX_FOLDERS} folders can be configured")
        folders[name] = path
        self._memory.schedule_save()

    def preferences(self) -> dict[str, Any]:
        """Return the stored preferences."""
        return dict(self._data["preferences"])

    def set_preference(self, key: str, value: Any) -> None:
        """Store a preference (JSON-safe value); None removes it. Raises ValueError (full, or unstorable)."""
        preferences: dict[str, Any] = self._data["preferences"]
        if value is None:
            if preferences.pop(key, None) is not None:
                self._memory.schedule_save()
            return
        check_storable(key)
        check_storable(value, max_text=200)
        if preferences.get(key) == value:
            return
        if key not in preferences and len(preferences) >= MAX_PREFERENCES:
            raise ValueError(f"at most {MAX_PREFERENCES} preferences can be stored")
        preferences[key] = value
        self._memory.schedule_save()

    def language(self) -> str | None:
        """Return the language the household last spoke."""
        language: str | None = self._data["language"]
        return language

    def set_language(self, language: str | None) -> None:
        """Remember the language (written only when it changes)."""
        if language and language != self._data["language"] and len(language) <= MAX_LANGUAGE:
            self._data["language"] = storable_text(language)
            self._memory.schedule_save()


class ConversationsSection(_Section):
    """Conversations, each bound to the requester that opened it.

    The stored records (messages, media) are bounded per requester, so nobody's conversations push out
    another's. Who owns a conversation is also kept apart, in memory, for as long as Home Assistant may still
    hold its chat log (`OWNER_KEPT_FOR` after its last turn), however many records come and go meanwhile.
    """

    def __init__(self, memory: AgentMediaMemory) -> None:
        """Start with no live owners (Home Assistant holds no chat log of ours after a restart)."""
        super().__init__(memory)
        self._live_owners: dict[str, tuple[str, datetime]] = {}

    @property
    def _data(self) -> dict[str, dict[str, Any]]:
        data: dict[str, dict[str, Any]] = self._memory.section("conversations")
        return data

    def owner(self, conversation_id: str) -> str | None:
        """Return the requester the conversation belongs to; None when Agent Media knows no owner of it."""
        live = self._live_owners.get(conversation_id)
        if live is not None and dt_util.utcnow() - live[1] <= OWNER_KEPT_FOR:
            return live[0]
        record = self._data.get(conversation_id)
        owner = record.get("owner") if record else None
        return owner if isinstance(owner, str) else None

    def claim(self, conversation_id: str, requester_key: str) -> None:
        """Mark the conversation as the requester's, in use now (the caller checked it is nobody else's)."""
        now = dt_util.utcnow()
        for stale in [key for key, (_owner, at) in self._live_owners.items() if now - at > OWNER_KEPT_FOR]:
            del self._live_owners[stale]
        self._live_owners[conversation_id] = (requester_key, now)

    def _for_update(self, conversation_id: str, requester_key: str) -> dict[str, Any]:
        if (conversation := self._data.get(conversation_id)) is None:
            conversation = self._data[conversation_id] = {
                "owner": requester_key,
                "messages": [],
                "media": None,
            }
        conversation["owner"] = owner = conversation.get("owner") or requester_key
        conversation["updated"] = _now()
        own = sorted(
            (key for key, value in self._data.items() if value.get("owner") == owner),
            key=lambda key: str(self._data[key].get("updated", "")),
        )
        for key in own[:-MAX_CONVERSATIONS]:
            del self._data[key]
        _trim_oldest(self._data, MAX_CONVERSATION_RECORDS, "updated")
        return conversation

    def add_turn(self, conversation_id: str, requester_key: str, user_text: str, assistant_text: str) -> None:
        """Remember one exchange, keeping the last `max_history_messages` messages."""
        conversation = self._for_update(conversation_id, requester_key)
        messages: list[dict[str, str]] = conversation["messages"]
        messages.append({"role": "user", "content": clip(user_text, MAX_MESSAGE)})
        messages.append({"role": "assistant", "content": clip(assistant_text, MAX_MESSAGE)})
        del messages[: max(0, len(messages) - self._memory.max_history_messages)]
        self._memory.schedule_save()

    def messages(self, conversation_id: str | None) -> list[dict[str, str]]:
        """Return the remembered messages of a conversation, oldest first."""
        conversation = self._data.get(conversation_id) if conversation_id else None
        return [dict(message) for message in conversation["messages"]] if conversation else []

    def media(self, conversation_id: str | None) -> dict[str, Any] | None:
        """Return the media looked up last in a conversation."""
        conversation = self._data.get(conversation_id) if conversation_id else None
        media = conversation.get("media") if conversation else None
        return dict(media) if isinstance(media, dict) else None

    def set_media(self, conversation_id: str | None, requester_key: str, media: dict[str, Any]) -> None:
        """Remember the media looked up last in a conversation."""
        if not conversation_id or (cleaned := clean_media(media)) is None:
            return
        if self.media(conversation_id) == cleaned:
            return
        self._for_update(conversation_id, requester_key)["media"] = cleaned
        self._memory.schedule_save()

    def clear(self, requester_key: str | None) -> None:
        """Forget the conversations of one requester, or all of them, owners included."""
        if requester_key is None:
            self._data.clear()
            self._live_owners.clear()
            return
        for conversation_id in [
            key for key, value in self._data.items() if value.get("owner") == requester_key
        ]:
            del self._data[conversation_id]
        for conversation_id in [
            key for key, (owner, _at) in self._live_owners.items() if owner == requester_key
        ]:
            del self._live_owners[conversation_id]


def _holds_list(state: Mapping[str, Any]) -> bool:
    """Return whether a requester's state or earlier list has something to pick a number from."""
    question = state.get("question")
    return bool(state.get("search")) or (
        isinstance(question, dict) and _is_fresh(question.get("at"), PENDING_QUESTION_TTL)
    )


class WorkingSection(_Section):
    """Per requester: the lists "the 2nd one" picks from, and a pending confirmation.

    A list (a search, and a question asked about it) belongs to the conversation it was made in. The latest
    one sits at the top of the requester's state, the lists of a few other conversations under `earlier`. In
    a conversation with a list of its own, a number means that list; anywhere else (a new conversation, an
    action) the requester's latest.
    """

    @property
    def _data(self) -> dict[str, dict[str, Any]]:
        data: dict[str, dict[str, Any]] = self._memory.section("working")
        return data

    def _for_update(self, requester_key: str) -> dict[str, Any]:
        state = self._data.setdefault(requester_key, {})
        state["updated"] = _now()
        _trim_oldest(self._data, MAX_REQUESTERS, "updated")
        return state

    def _latest_for_update(self, requester_key: str, conversation_id: str | None) -> dict[str, Any]:
        """Make the conversation's list the requester's latest; the previous latest goes under `earlier`."""
        state = self._for_update(requester_key)
        key = conversation_id or ""
        if (state.get("conversation_id") or "") == key:
            return state
        earlier: list[dict[str, Any]] = state.get("earlier") or []
        own = next((item for item in earlier if item["conversation_id"] == key), {})
        kept = [item for item in earlier if item["conversation_id"] != key]
        if _holds_list(state):
            kept.insert(
                0,
                {
                    "conversation_id": state.get("conversation_id") or "",
                    "search": state.get("search"),
                    "question": state.get("question"),
                },
            )
        state["earlier"] = kept[:MAX_EARLIER_LISTS]
        state["conversation_id"] = key
        state["search"] = own.get("search")
        state["question"] = own.get("question")
        return state

    def _list(self, requester_key: str, conversation_id: str | None) -> dict[str, Any]:
        """Return the list a number means in this conversation: its own if it has one, else the latest."""
        state = self._data.get(requester_key, {})
        if conversation_id and (state.get("conversation_id") or "") != conversation_id:
            earlier: list[dict[str, Any]] = state.get("earlier") or []
            for item in earlier:
                if item["conversation_id"] == conversation_id and _holds_list(item):
                    return item
        return state

    def store_search(
        self,
        requester_key: str,
        query: str,
        results: list[dict[str, Any]],
        media: dict[str, Any] | None,
        conversation_id: str | None = None,
    ) -> list[dict[str, Any]]:
        """Keep a search's results, numbered from 1 (a new search supersedes its conversation's question)."""
        numbered = [
            clean_result(result, index) for index, result in enumerate(results[:MAX_SEARCH_RESULTS], 1)
        ]
        state = self._latest_for_update(requester_key, conversation_id)
        state["search"] = {
            "query": clip(query, MAX_TITLE),
            "results": numbered,
            "media": clean_media(media),
            "at": _now(),
        }
        state["question"] = None
        self._memory.schedule_save()
        return numbered

    def search(self, requester_key: str, conversation_id: str | None = None) -> dict[str, Any] | None:
        """Return the search (query, results, media, at) a number means in this conversation (None: any)."""
        search = self._list(requester_key, conversation_id).get("search")
        return copy.deepcopy(search) if isinstance(search, dict) else None

    def set_question(
        self,
        requester_key: str,
        question: str,
        options: list[dict[str, Any]],
        media: dict[str, Any] | None,
        conversation_id: str | None = None,
    ) -> None:
        """Remember a question put to the requester with numbered options, until answered or stale."""
        state = self._latest_for_update(requester_key, conversation_id)
        state["question"] = {
            "question": clip(question, 400),
            "options": [
                clean_result(option, option.get("index", index))
                for index, option in enumerate(options[:MAX_PENDING_OPTIONS], 1)
            ],
            "media": clean_media(media),
            "at": _now(),
        }
        self._memory.schedule_save()

    def question(self, requester_key: str, conversation_id: str | None = None) -> dict[str, Any] | None:
        """Return the unanswered question a number answers in this conversation, unless it is stale."""
        question = self._list(requester_key, conversation_id).get("question")
        if not isinstance(question, dict) or not _is_fresh(question.get("at"), PENDING_QUESTION_TTL):
            return None
        return copy.deepcopy(question)

    def clear_question(self, requester_key: str, conversation_id: str | None = None) -> None:
        """Forget the question answered in this conversation (or the requester moved on)."""
        if (listed := self._list(requester_key, conversation_id)).get("question") is not None:
            listed["question"] = None
            self._memory.schedule_save()

    def set_confirmation(self, requester_key: str, tool: str, args: dict[str, Any]) -> None:
        """Remember a change that waits for the requester's spoken yes."""
        check_storable(args)
        self._for_update(requester_key)["confirmation"] = {"tool": tool, "args": args, "at": _now()}
        self._memory.schedule_save()

    def pop_confirmation(self, requester_key: str) -> dict[str, Any] | None:
        """Return and forget the change waiting for a yes, unless it is stale."""
        state = self._data.get(requester_key)
        confirmation = state.pop("confirmation", None) if state else None
        if confirmation is not None:
            self._memory.schedule_save()
        if not isinstance(confirmation, dict) or not _is_fresh(confirmation.get("at"), CONFIRMATION_TTL):
            return None
        return confirmation

    def clear(self, requester_key: str | None) -> None:
        """Forget one requester's searches and questions, or everyone's."""
        if requester_key is None:
            self._data.clear()
        else:
            self._data.pop(requester_key, None)


class DownloadsSection(_Section):
    """The downloads Agent Media added, and the hashes the downloads coordinator last saw incomplete."""

    @property
    def _data(self) -> dict[str, Any]:
        data: dict[str, Any] = self._memory.section("downloads")
        return data

    def add(self, info_hash: str, record: dict[str, Any]) -> None:
        """Record a download that was added and is not finished yet (its media identity included)."""
        kept = {key: value for key, value in record.items() if value is not None}
        kept["name"] = clip(kept.get("name") or info_hash, MAX_NAME)
        kept.setdefault("added_at", _now())
        if "media" in kept:
            kept["media"] = clean_media(kept["media"])
        kept = storable_copy(kept)  # names and paths come from outside
        records: dict[str, dict[str, Any]] = self._data["records"]
        records[info_hash.lower()] = kept
        _trim_oldest(records, MAX_ACTIVE_DOWNLOADS, "added_at")
        self._memory.schedule_save()

    def update(self, info_hash: str, **changes: Any) -> None:
        """Change fields of a recorded download (nothing when it is not recorded)."""
        if (record := self._data["records"].get(info_hash.lower())) is not None:
            record.update(storable_copy(changes))
            self._memory.schedule_save()

    def hashes(self) -> set[str]:
        """Return the infohashes of the recorded downloads (no copy of the records: polled often)."""
        return set(self._data["records"])

    def being_replaced(self) -> set[str]:
        """Return the dead downloads whose replacement is decided but whose removal is not done yet."""
        return {info_hash for info_hash, record in self._data["records"].items() if "replacement" in record}

    def records(self) -> dict[str, dict[str, Any]]:
        """Return the recorded downloads by infohash."""
        return {info_hash: copy.deepcopy(record) for info_hash, record in self._data["records"].items()}

    def media(self, info_hash: str) -> dict[str, Any] | None:
        """Return the media identity of a recorded download, if it has one (cheap: polled often)."""
        record = self._data["records"].get(info_hash)
        media = record.get("media") if record is not None else None
        return dict(media) if isinstance(media, dict) else None

    def latest_completed(self) -> dict[str, Any] | None:
        """Return the latest completed download that had media: title, poster_path, completed_at."""
        latest = self._data["latest_completed"]
        return dict(latest) if isinstance(latest, dict) else None

    def set_latest_completed(self, title: str, poster_path: str | None) -> None:
        """Remember a download that just completed, shown on dashboards across restarts."""
        latest: dict[str, Any] = {"title": clip(title, MAX_TITLE), "completed_at": _now()}
        if (path := image_path(poster_path)) is not None:
            latest["poster_path"] = path
        self._data["latest_completed"] = latest
        self._memory.schedule_save()

    def get(self, info_hash: str) -> dict[str, Any] | None:
        """Return one recorded download."""
        record = self._data["records"].get(info_hash.lower())
        return copy.deepcopy(record) if record is not None else None

    def pop(self, info_hash: str) -> dict[str, Any] | None:
        """Forget a download (finished or removed) and return what was recorded."""
        record: dict[str, Any] | None = self._data["records"].pop(info_hash.lower(), None)
        if record is not None:
            self._memory.schedule_save()
        return record

    def incomplete(self) -> list[str]:
        """Return the hashes the downloads coordinator last saw incomplete."""
        return list(self._data["incomplete"])

    def set_incomplete(self, hashes: Iterable[str]) -> None:
        """Remember the hashes seen incomplete (written soon: they decide which completions fire)."""
        self._data["incomplete"] = sorted(hashes)[:MAX_INCOMPLETE]
        self._memory.schedule_save(DOWNLOADS_SAVE_DELAY)


class JournalSection(_Section):
    """Recent errors, and news told at the next turn."""

    @property
    def _data(self) -> dict[str, list[dict[str, Any]]]:
        data: dict[str, list[dict[str, Any]]] = self._memory.section("journal")
        return data

    def add_event(self, event_type: str, data: dict[str, Any]) -> None:
        """Record something that happened while nobody was talking; the next turn tells it."""
        events = self._data["events"]
        events.append(
            {"id": ulid_now(), "type": event_type, "data": storable_copy(data), "at": _now(), "read": False}
        )
        # Over the cap, forget read events first, then the oldest unread ones.
        while len(events) > MAX_EVENTS:
            oldest_read = next((event for event in events if event["read"]), None)
            events.remove(oldest_read if oldest_read is not None else events[0])
        self._memory.schedule_save()

    def unread_events(self) -> list[dict[str, Any]]:
        """Return the events not told yet, oldest first."""
        return [copy.deepcopy(event) for event in self._data["events"] if not event["read"]]

    def mark_read(self, event_ids: Iterable[str] | None = None) -> None:
        """Mark events as told: the given ones, or all of them."""
        wanted = None if event_ids is None else set(event_ids)
        changed = False
        for event in self._data["events"]:
            if not event["read"] and (wanted is None or event["id"] in wanted):
                event["read"] = True
                changed = True
        if changed:
            self._memory.schedule_save()

    def add_error(self, action: str, error: str, message: str) -> None:
        """Remember a failure (what was tried, the error code, the explanation)."""
        errors = self._data["errors"]
        errors.append(
            {
                "action": clip(action, 40),
                "error": clip(error, 40),
                "message": clip(message, 300),
                "at": _now(),
            }
        )
        del errors[: max(0, len(errors) - MAX_ERRORS)]
        self._memory.schedule_save()

    def recent_errors(self) -> list[dict[str, Any]]:
        """Return the remembered failures, oldest first."""
        return [dict(error) for error in self._data["errors"]]


class WantedSection(_Section):
    """Titles wanted until an acceptable release appears, followed shows, and blocklisted releases.

    Listeners (the wanted sensors) hear every change of the wanted titles and followed shows.
    """

    def __init__(self, memory: AgentMediaMemory) -> None:
        """Start with no listeners."""
        super().__init__(memory)
        self._listeners: list[Callable[[], None]] = []

    @property
    def _data(self) -> dict[str, dict[str, Any]]:
        data: dict[str, dict[str, Any]] = self._memory.section("wanted")
        return data

    @callback
    def add_listener(self, listener: Callable[[], None]) -> Callable[[], None]:
        """Call `listener` after each change of the wanted titles or followed shows; return its remover."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener)

    def changed(self) -> None:
        """Save soon and tell the listeners (also after the whole memory was cleared)."""
        self._memory.schedule_save()
        for listener in list(self._listeners):
            listener()

    # --- wanted titles -------------------------------------------------------------------------------------

    def want(
        self,
        key: str,
        media: dict[str, Any],
        *,
        season: int | None,
        episode: int | None,
        save_path: str | None,
        reason: str,
        requester_key: str | None,
    ) -> dict[str, Any]:
        """Put a title on the list (searched again after the first delay); one already there stays as it is.

        Raises ValueError when the list is full.
        """
        titles = self._data["titles"]
        if (record := titles.get(key)) is not None:
            return copy.deepcopy(record)
        if len(titles) >= MAX_WANTED:
            raise ValueError(f"at most {MAX_WANTED} titles can be wanted")
        now = dt_util.utcnow()
        record = storable_copy(
            {
                "media": clean_media(media),
                "season": season,
                "episode": episode,
                "save_path": save_path,
                "reason": clip(reason, 40),
                "requester": requester_key,
                "added_at": now.isoformat(),
                "next_check": (now + retry_delay(1)).isoformat(),
                "attempts": 1,  # whoever wants it has just searched
            }
        )
        titles[key] = record
        self.changed()
        return copy.deepcopy(record)

    def titles(self) -> dict[str, dict[str, Any]]:
        """Return the wanted titles by key, oldest first."""
        return {key: copy.deepcopy(record) for key, record in self._data["titles"].items()}

    def due_titles(self) -> list[str]:
        """Return the keys of the wanted titles whose next check has come."""
        now = dt_util.utcnow()
        return [key for key, record in self._data["titles"].items() if _is_due(record["next_check"], now)]

    def searched(self, key: str) -> None:
        """Note one more search that found nothing acceptable: the next waits longer (see retry_delay)."""
        if (record := self._data["titles"].get(key)) is not None:
            record["attempts"] += 1
            record["next_check"] = (dt_util.utcnow() + retry_delay(record["attempts"])).isoformat()
            self._memory.schedule_save()

    def check_all_now(self) -> None:
        """Make every wanted title and followed show due (a search asked for now)."""
        now = _now()
        for section in ("titles", "shows"):
            for record in self._data[section].values():
                record["next_check"] = now
        self._memory.schedule_save()

    def unwant(self, key: str) -> dict[str, Any] | None:
        """Take a title off the list (added, or forgotten); return its record."""
        record: dict[str, Any] | None = self._data["titles"].pop(key, None)
        if record is not None:
            self.changed()
        return record

    # --- followed shows ------------------------------------------------------------------------------------

    def follow(
        self,
        key: str,
        media: dict[str, Any],
        *,
        from_season: int | None,
        save_path: str | None,
        requester_key: str | None,
    ) -> dict[str, Any]:
        """Follow a show (checked at once); following it again keeps what was fetched. ValueError: full."""
        shows = self._data["shows"]
        if key not in shows and len(shows) >= MAX_FOLLOWED:
            raise ValueError(f"at most {MAX_FOLLOWED} shows can be followed")
        now = _now()
        previous = shows.get(key) or {}
        shows[key] = record = storable_copy(
            {
                "media": clean_media(media),
                "from_season": from_season,
                "save_path": save_path,
                "requester": requester_key,
                "followed_at": previous.get("followed_at", now),
                "next_check": now,
                "fetched": previous.get("fetched", []),
            }
        )
        self.changed()
        return copy.deepcopy(record)

    def shows(self) -> dict[str, dict[str, Any]]:
        """Return the followed shows by key."""
        return {key: copy.deepcopy(record) for key, record in self._data["shows"].items()}

    def due_shows(self) -> list[str]:
        """Return the keys of the followed shows whose next check has come."""
        now = dt_util.utcnow()
        return [key for key, record in self._data["shows"].items() if _is_due(record["next_check"], now)]

    def fetched(self, key: str, item: str) -> None:
        """Remember that an episode ("s01e02") or a season pack ("s01") of a followed show was added."""
        if (record := self._data["shows"].get(key)) is not None and item not in record["fetched"]:
            record["fetched"].append(item)
            del record["fetched"][: max(0, len(record["fetched"]) - MAX_FETCHED)]
            self._memory.schedule_save()

    def next_show_check(self, key: str, when: datetime | None, resume_after: str | None) -> None:
        """Set when a followed show is checked next (None: it stays due) and where that check starts."""
        if (record := self._data["shows"].get(key)) is not None:
            if when is not None:
                record["next_check"] = when.isoformat()
            record["resume_after"] = resume_after
            self._memory.schedule_save()

    def unfollow(self, key: str) -> dict[str, Any] | None:
        """Stop following a show; return its record."""
        record: dict[str, Any] | None = self._data["shows"].pop(key, None)
        if record is not None:
            self.changed()
        return record

    # --- blocklist -----------------------------------------------------------------------------------------

    def block(self, key: str, info_hash: str | None, name: str) -> None:
        """Never pick this release for this title again (it stalled, or was replaced)."""
        blocked: dict[str, list[dict[str, Any]]] = self._data["blocked"]
        releases = blocked.setdefault(key, [])
        releases.append(
            {
                "hash": info_hash.lower() if info_hash else None,
                "name": clip(name, MAX_NAME),
                "at": _now(),
            }
        )
        del releases[: max(0, len(releases) - MAX_BLOCKED_PER_TITLE)]
        if len(blocked) > MAX_BLOCKED_TITLES:
            oldest = min(blocked, key=lambda title: blocked[title][-1]["at"])
            del blocked[oldest]
        self._memory.schedule_save()

    def is_blocked(self, key: str, info_hash: str | None, name: str) -> bool:
        """Return whether a release is blocklisted for this title: by its hash, or its case-folded name."""
        releases = self._data["blocked"].get(key, [])
        folded = clip(name, MAX_NAME).casefold()
        wanted_hash = info_hash.lower() if info_hash else None
        return any(
            (wanted_hash is not None and release.get("hash") == wanted_hash)
            or release["name"].casefold() == folded
            for release in releases
        )


def _is_due(next_check: str, now: datetime) -> bool:
    moment = dt_util.parse_datetime(next_check)
    return moment is None or moment <= now
