"""The films and shows organised into the library, by title key: what the media source shows, with posters.

Owned by the lifecycle (a title is added once its files are in the library folder) and read by the playing
operations and the media source. Stored only while it holds something.
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Final

from ..untrusted import MAX_TITLE, clip
from .records import clean_media, now, trim_oldest

if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

    from .records import LibraryTitle
    from .store import MemoryStore

MAX_LIBRARY_TITLES: Final = 1000


class LibrarySection:
    """The organised titles."""

    def __init__(self, store: MemoryStore) -> None:
        """Read and write the library section of `store`."""
        self._store = store

    @property
    def _data(self) -> dict[str, LibraryTitle]:
        return self._store.data.setdefault("library", {})

    def titles(self) -> dict[str, LibraryTitle]:
        """Return every organised title by its key."""
        return copy.deepcopy(self._data)

    def add(self, key: str, media: Mapping[str, Any], folder: str) -> None:
        """Remember a title whose files are now in its library folder (again: its entry is refreshed)."""
        if (cleaned := clean_media(media)) is None:
            return
        self._data[key] = {"media": cleaned, "folder": clip(folder, MAX_TITLE), "updated": now()}
        trim_oldest(self._data, MAX_LIBRARY_TITLES, "updated")
        self._store.schedule_save()
