"""The downloads Agent Media added (downloads.py adds them, the downloads coordinator completes them).

Each is recorded with the media identity of the result actually added; besides, the hashes the coordinator
last saw incomplete, and the latest completed download that had media.
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any, Final, Unpack

from ..untrusted import MAX_NAME, MAX_TITLE, clip, image_path, storable_copy
from .records import MAX_INCOMPLETE, clean_media, now, trim_oldest

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

    from .records import DownloadDetails, DownloadRecord, Downloads, LatestCompleted, Media, Replacement
    from .store import MemoryStore

MAX_ACTIVE_DOWNLOADS: Final = 100
# Seconds; short, since a lost write of the incomplete downloads could announce a completion twice.
DOWNLOADS_SAVE_DELAY: Final = 2.0


def download_record(
    name: str,
    *,
    save_path: str | None = None,
    source: str | None = None,
    added_at: str | None = None,
    safety: str | None = None,
    media: Mapping[str, Any] | None = None,
    requester: str | None = None,
    conversation_id: str | None = None,
    replacements: int | None = None,
) -> DownloadRecord:
    """Return the record of a download just added (now, unless `added_at`); its outside text made storable."""
    return _cleaned(
        {
            "name": name,
            "save_path": save_path,
            "source": source,
            "added_at": added_at,
            "safety": safety,
            "media": media,
            "requester": requester,
            "conversation_id": conversation_id,
            "replacements": replacements,
        },
        name,
    )


def _cleaned(fields: Mapping[str, Any], fallback_name: str) -> DownloadRecord:
    """Return a download record from its fields in their order: None left out, name and media cleaned."""
    kept = {key: value for key, value in fields.items() if value is not None}
    kept["name"] = clip(kept.get("name") or fallback_name, MAX_NAME)
    kept.setdefault("added_at", now())
    if "media" in kept:
        kept["media"] = clean_media(kept["media"])
    record: DownloadRecord = storable_copy(kept)  # names and paths come from outside
    return record


def replacement_record(reason: str, new_hash: str | None, new_name: str | None) -> Replacement:
    """Return what was decided for a dead download: replaced by `new_hash`, or (None) by nothing."""
    return {"reason": reason, "hash": new_hash, "name": new_name}


class DownloadsSection:
    """The downloads Agent Media added, and the hashes the downloads coordinator last saw incomplete."""

    def __init__(self, store: MemoryStore) -> None:
        """Read and write the downloads section of `store`."""
        self._store = store

    @property
    def _data(self) -> Downloads:
        return self._store.data["downloads"]

    def add(self, info_hash: str, record: Mapping[str, Any]) -> None:
        """Record a download that was added and is not finished yet (its media identity included).

        `record` is one `download_record` made, or the same fields as a mapping: cleaned the same way.
        """
        records = self._data["records"]
        records[info_hash.lower()] = _cleaned(record, info_hash)
        trim_oldest(records, MAX_ACTIVE_DOWNLOADS, "added_at")
        self._store.schedule_save()

    def update(self, info_hash: str, **changes: Unpack[DownloadDetails]) -> None:
        """Change fields of a recorded download (nothing when it is not recorded)."""
        if (record := self._data["records"].get(info_hash.lower())) is not None:
            record.update(storable_copy(changes))
            self._store.schedule_save()

    def hashes(self) -> set[str]:
        """Return the infohashes of the recorded downloads (no copy of the records: polled often)."""
        return set(self._data["records"])

    def being_replaced(self) -> set[str]:
        """Return the dead downloads whose replacement is decided but whose removal is not done yet."""
        return {info_hash for info_hash, record in self._data["records"].items() if "replacement" in record}

    def records(self) -> dict[str, DownloadRecord]:
        """Return the recorded downloads by infohash."""
        return {info_hash: copy.deepcopy(record) for info_hash, record in self._data["records"].items()}

    def media(self, info_hash: str) -> Media | None:
        """Return the media identity of a recorded download, if it has one (cheap: polled often)."""
        record = self._data["records"].get(info_hash)
        media = record.get("media") if record is not None else None
        return media.copy() if media is not None else None

    def latest_completed(self) -> LatestCompleted | None:
        """Return the latest completed download that had media: title, poster_path, completed_at."""
        latest = self._data["latest_completed"]
        return latest.copy() if latest is not None else None

    def set_latest_completed(self, title: str, poster_path: str | None) -> None:
        """Remember a download that just completed, shown on dashboards across restarts."""
        latest: LatestCompleted = {"title": clip(title, MAX_TITLE), "completed_at": now()}
        if (path := image_path(poster_path)) is not None:
            latest["poster_path"] = path
        self._data["latest_completed"] = latest
        self._store.schedule_save()

    def get(self, info_hash: str) -> DownloadRecord | None:
        """Return one recorded download."""
        record = self._data["records"].get(info_hash.lower())
        return copy.deepcopy(record) if record is not None else None

    def pop(self, info_hash: str) -> DownloadRecord | None:
        """Forget a download (finished or removed) and return what was recorded."""
        record = self._data["records"].pop(info_hash.lower(), None)
        if record is not None:
            self._store.schedule_save()
        return record

    def incomplete(self) -> list[str]:
        """Return the hashes the downloads coordinator last saw incomplete."""
        return list(self._data["incomplete"])

    def set_incomplete(self, hashes: Iterable[str]) -> None:
        """Remember the hashes seen incomplete (written soon: they decide which completions fire)."""
        self._data["incomplete"] = sorted(hashes)[:MAX_INCOMPLETE]
        self._store.schedule_save(DOWNLOADS_SAVE_DELAY)
