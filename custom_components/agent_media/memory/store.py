"""The memory on disk: one versioned Store per entry, checked when loaded, migrated from version 1.

Loading validates every record against the schema derived from its declaration: a damaged one is dropped with
a warning, the rest kept. A Store written by a newer version is refused (`NewerStoreError`) and never written.
Changes are written with `async_delay_save`, so a burst of turns costs one write. A write that fails (a full
or read-only disk) raises a repair issue, cleared by the next write that succeeds; a caller that answers only
once its change is kept (`async_save_now`) gets `MemoryNotSavedError`.
"""

from __future__ import annotations

from collections.abc import Mapping
import copy
from typing import TYPE_CHECKING, Any, Final

import voluptuous as vol

from homeassistant.core import HomeAssistant, callback
from homeassistant.exceptions import HomeAssistantError
from homeassistant.helpers import issue_registry as ir
from homeassistant.helpers.storage import Store
from homeassistant.util import dt as dt_util
from homeassistant.util.file import WriteError

from ..const import DOMAIN, LOGGER, STORAGE_MINOR_VERSION, STORAGE_VERSION, storage_key
from ..requester import SYSTEM_KEY
from ..untrusted import MAX_DETAIL, check_storable, clip
from .records import (
    MAX_INCOMPLETE,
    MAX_LANGUAGE,
    BlockedRelease,
    Conversation,
    DownloadRecord,
    FollowedShow,
    JournalError,
    JournalEvent,
    LatestCompleted,
    LibraryTitle,
    PreferenceValue,
    StoredMemory,
    Subscription,
    WantedTitle,
    WorkingState,
    empty_memory,
)
from .schema import schema_of

if TYPE_CHECKING:
    from collections.abc import Callable

SAVE_DELAY: Final = 10.0  # seconds; coalesces the writes of a conversation into one
MEMORY_NOT_SAVED: Final = "memory_not_saved"  # the repair issue and the error of a failed write

_FOLDER: Final = vol.Schema(schema_of(str))
_PREFERENCE: Final = vol.Schema(schema_of(PreferenceValue))
_CONVERSATION: Final = vol.Schema(schema_of(Conversation))
_WORKING: Final = vol.Schema(schema_of(WorkingState))
_DOWNLOAD: Final = vol.Schema(schema_of(DownloadRecord))
_LATEST_COMPLETED: Final = vol.Schema(schema_of(LatestCompleted))
_ERROR: Final = vol.Schema(schema_of(JournalError))
_EVENT: Final = vol.Schema(schema_of(JournalEvent))
_WANTED: Final = vol.Schema(schema_of(WantedTitle))
_FOLLOWED: Final = vol.Schema(schema_of(FollowedShow))
_BLOCKED: Final = vol.Schema(schema_of(list[BlockedRelease]))
_SUBSCRIPTION: Final = vol.Schema(schema_of(Subscription))
_UNTOLD: Final = vol.Schema(schema_of(list[str]))
_LIBRARY_TITLE: Final = vol.Schema(schema_of(LibraryTitle))


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


# --- loading: validation and migration ----------------------------------------------------------------------


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


def _part(data: Mapping[str, Any], key: str) -> dict[str, Any]:
    value = data.get(key)
    return value if isinstance(value, dict) else {}


def validated(data: Any) -> tuple[StoredMemory, list[str]]:
    """Return stored data of the current layout with every damaged record dropped, and where they were."""
    dropped: list[str] = []
    result = empty_memory()
    if not isinstance(data, dict):
        return result, ([] if data is None else ["memory"])
    household = _part(data, "household")
    folders = household.get("folders")
    result["household"]["folders"] = {
        name: path
        for name, path in (folders.items() if isinstance(folders, dict) else ())
        if _valid(_FOLDER, path, f"folders.{str(name)[:40]}", dropped) is not None and isinstance(name, str)
    }
    preferences = household.get("preferences")
    result["household"]["preferences"] = {
        key: value
        for key, value in (preferences.items() if isinstance(preferences, dict) else ())
        if isinstance(key, str) and _valid(_PREFERENCE, value, f"preferences.{key[:40]}", dropped) is not None
    }
    if isinstance(people := household.get("people"), dict):
        result["household"]["people"] = {
            person: {
                key: value
                for key, value in chosen.items()
                if isinstance(key, str)
                and _valid(_PREFERENCE, value, f"people.{key[:40]}", dropped) is not None
            }
            for person, chosen in people.items()
            if isinstance(person, str) and isinstance(chosen, dict)
        }
    language = household.get("language")
    result["household"]["language"] = (
        language if isinstance(language, str) and len(language) <= MAX_LANGUAGE else None
    )
    result["conversations"] = _valid_map(data.get("conversations"), _CONVERSATION, "conversations", dropped)
    result["working"] = _valid_map(data.get("working"), _WORKING, "working", dropped)
    downloads = _part(data, "downloads")
    result["downloads"]["records"] = _valid_map(downloads.get("records"), _DOWNLOAD, "downloads", dropped)
    incomplete = downloads.get("incomplete")
    result["downloads"]["incomplete"] = [
        value for value in (incomplete if isinstance(incomplete, list) else []) if isinstance(value, str)
    ][:MAX_INCOMPLETE]
    if (latest := downloads.get("latest_completed")) is not None:
        result["downloads"]["latest_completed"] = _valid(
            _LATEST_COMPLETED, latest, "downloads.latest_completed", dropped
        )
    journal = _part(data, "journal")
    result["journal"]["errors"] = _valid_list(journal.get("errors"), _ERROR, "errors", dropped)
    result["journal"]["events"] = _valid_list(journal.get("events"), _EVENT, "events", dropped)
    wanted = _part(data, "wanted")  # absent before minor version 2: empty
    result["wanted"]["titles"] = _valid_map(wanted.get("titles"), _WANTED, "wanted", dropped)
    result["wanted"]["shows"] = _valid_map(wanted.get("shows"), _FOLLOWED, "followed", dropped)
    result["wanted"]["blocked"] = _valid_map(wanted.get("blocked"), _BLOCKED, "blocked", dropped)
    if isinstance(subscriptions := data.get("subscriptions"), dict):  # absent: nobody subscribed yet
        result["subscriptions"] = {
            "waiting": _valid_map(subscriptions.get("waiting"), _SUBSCRIPTION, "subscriptions", dropped),
            "untold": _valid_map(subscriptions.get("untold"), _UNTOLD, "untold", dropped),
        }
    if isinstance(library := data.get("library"), dict):  # absent: nothing organised since it was added
        result["library"] = _valid_map(library, _LIBRARY_TITLE, "library", dropped)
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


class _VersionedStore(Store[Mapping[str, Any]]):
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
        self, old_major_version: int, _old_minor_version: int, old_data: Mapping[str, Any]
    ) -> Mapping[str, Any]:
        if old_major_version > STORAGE_VERSION:
            raise NotImplementedError  # written by a newer release: refused, never rewritten
        if old_major_version == 1:
            return migrate_v1(old_data)
        return old_data  # minor versions only add keys; validation fills them in


# --- the data in use, and its writes ------------------------------------------------------------------------


class MemoryStore:
    """One entry's stored memory in use: `data`, changed by the sections, written soon after each change."""

    def __init__(self, hass: HomeAssistant, entry_id: str) -> None:
        """Prepare an empty memory; `async_load` fills it from storage."""
        self._hass = hass
        self._entry_id = entry_id
        self._store = _VersionedStore(hass, storage_key(entry_id), self._written)
        self._write_error: str | None = None  # why the last write failed; None once one succeeds
        self.data: StoredMemory = empty_memory()
        self._save_pending = False
        self._loaded = False

    async def async_load(self) -> None:
        """Read and validate the stored memory (nothing stored yet is an empty memory).

        Raises NewerStoreError when a newer release wrote it; then nothing is ever written back.
        """
        try:
            stored = await self._store.async_load()
        except (NotImplementedError, HomeAssistantError) as err:
            raise NewerStoreError(str(err) or "newer storage version") from err
        self.data, dropped = validated(stored)
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
    def schedule_save(self, delay: float = SAVE_DELAY) -> None:
        """Write soon (coalesced); never before the memory was loaded, so a refused file stays as it is."""
        if not self._loaded:
            return
        self._save_pending = True
        self._store.async_delay_save(self._data_to_save, delay)

    async def async_remove(self) -> None:
        """Delete the stored memory (the entry is being removed)."""
        # Writing a pending save first also cancels its timer, so it cannot bring the file back afterwards.
        await self.async_flush()
        self.data = empty_memory()
        await self._store.async_remove()
        ir.async_delete_issue(self._hass, DOMAIN, f"{MEMORY_NOT_SAVED}_{self._entry_id}")

    @callback
    def _data_to_save(self) -> StoredMemory:
        # The Store serialises in the executor; hand it a copy the event loop will not mutate meanwhile.
        self._save_pending = False
        data = copy.deepcopy(self.data)
        subscriptions = data.get("subscriptions")
        if subscriptions is not None and not subscriptions["waiting"] and not subscriptions["untold"]:
            del data["subscriptions"]  # written only while it holds something: older Stores keep their shape
        if not data.get("library", True):
            del data["library"]
        if not data["household"].get("people", True):
            del data["household"]["people"]
        return data

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
