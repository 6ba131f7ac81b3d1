"""The household's settings (owned by the operations): folders, release preferences, the language spoken."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from ..untrusted import check_storable, storable_text
from .records import MAX_LANGUAGE

if TYPE_CHECKING:
    from .records import Household, PreferenceValue
    from .store import MemoryStore

MAX_FOLDERS: Final = 32
MAX_PREFERENCES: Final = 32
MAX_PEOPLE: Final = 50  # people with preferences of their own


class HouseholdSection:
    """Settings of the household: folders, preferences, language."""

    def __init__(self, store: MemoryStore) -> None:
        """Read and write the household section of `store`."""
        self._store = store

    @property
    def _data(self) -> Household:
        return self._store.data["household"]

    def folder(self, name: str) -> str | None:
        """Return the path configured for a folder name, if any."""
        return self._data["folders"].get(name)

    def folders(self) -> dict[str, str]:
        """Return every configured folder (name → absolute path)."""
        return dict(self._data["folders"])

    def set_folder(self, name: str, path: str) -> None:
        """Configure a folder; the caller has validated the path. Raises ValueError (full, or unstorable)."""
        check_storable(name)
        check_storable(path)
        folders = self._data["folders"]
        if folders.get(name) == path:
            return
        if name not in folders and len(folders) >= MAX_FOLDERS:
            raise ValueError(f"at most {MAX_FOLDERS} folders can be configured")
        folders[name] = path
        self._store.schedule_save()

    def preferences(self) -> dict[str, PreferenceValue]:
        """Return the stored preferences."""
        return dict(self._data["preferences"])

    def set_preference(self, key: str, value: Any) -> None:
        """Store a preference (JSON-safe value); None removes it. Raises ValueError (full, or unstorable)."""
        preferences = self._data["preferences"]
        if value is None:
            if preferences.pop(key, None) is not None:
                self._store.schedule_save()
            return
        check_storable(key)
        check_storable(value, max_text=200)
        if preferences.get(key) == value:
            return
        if key not in preferences and len(preferences) >= MAX_PREFERENCES:
            raise ValueError(f"at most {MAX_PREFERENCES} preferences can be stored")
        preferences[key] = value
        self._store.schedule_save()

    def person_preferences(self, requester_key: str) -> dict[str, PreferenceValue]:
        """Return a person's own preferences (over the household's)."""
        return dict(self._data.get("people", {}).get(requester_key, {}))

    def set_person_preference(self, requester_key: str, key: str, value: Any) -> None:
        """Store one of a person's own preferences. Raises ValueError (too many people, or unstorable)."""
        check_storable(key)
        check_storable(value, max_text=200)
        people = self._data.setdefault("people", {})
        if requester_key not in people and len(people) >= MAX_PEOPLE:
            raise ValueError(f"at most {MAX_PEOPLE} people's preferences can be stored")
        chosen = people.setdefault(requester_key, {})
        if key not in chosen and len(chosen) >= MAX_PREFERENCES:
            raise ValueError(f"at most {MAX_PREFERENCES} preferences can be stored")
        chosen[key] = value
        self._store.schedule_save()

    def language(self) -> str | None:
        """Return the language the household last spoke."""
        return self._data["language"]

    def set_language(self, language: str | None) -> None:
        """Remember the language (written only when it changes)."""
        if language and language != self._data["language"] and len(language) <= MAX_LANGUAGE:
            self._data["language"] = storable_text(language)
            self._store.schedule_save()
