"""The kinds of news Agent Media tells, each declared once.

For each: how the model is told it, the sentence it is said with, the public bus event that carries it, and
whether it comes before the answer of any turn.

News is kept in memory's journal until a turn tells it. `async_tell` records it, and for the kinds that have
one fires the bus event (for people's automations: output only) and sends the same event inside the entry
(`SIGNAL_DOWNLOAD_EVENT`), which the event and image entities follow.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Final

from homeassistant.core import HomeAssistant, callback
from homeassistant.helpers.dispatcher import async_dispatcher_send

from .const import (
    EVENT_DOWNLOAD_COMPLETED,
    EVENT_DOWNLOAD_FAILED,
    EVENT_DOWNLOAD_REPLACED,
    EVENT_DOWNLOAD_STOPPED,
    SIGNAL_DOWNLOAD_EVENT,
)
from .release import parse_release
from .torrents import numeric
from .untrusted import MAX_NAME, clip, storable_copy

if TYPE_CHECKING:
    from .memory.journal import JournalSection


class NewsKind(StrEnum):
    """A kind of news; the value is its type in the journal (stored: stable)."""

    COMPLETED = "download_completed"
    REPLACED = "download_replaced"
    FAILED = "download_failed"
    REFUSED = "download_refused"
    REFUSED_FAKE = "download_refused_fake"
    STOPPED_PRIVATE = "download_stopped_private"
    WANTED_ADDED = "wanted_added"


@dataclass(frozen=True, slots=True, kw_only=True)
class NewsTelling:
    """How one kind of news is told."""

    prompt_text: str  # what the model is shown (the prompt's "news" field)
    sentence_key: str  # the answer that says it (sentences/answers/<language>.yaml, `responses`)
    bus_event: str | None  # the public bus event that carries it; None: only told at the next turn
    told_first: bool  # told before the answer of any turn, not only when asked what's new


NEWS: Final[Mapping[NewsKind, NewsTelling]] = {
    NewsKind.COMPLETED: NewsTelling(
        prompt_text="finished",
        sentence_key="event_completed",
        bus_event=EVENT_DOWNLOAD_COMPLETED,
        told_first=False,
    ),
    NewsKind.REPLACED: NewsTelling(
        prompt_text="stalled, replaced by another release",
        sentence_key="event_replaced",
        bus_event=EVENT_DOWNLOAD_REPLACED,
        told_first=True,
    ),
    NewsKind.FAILED: NewsTelling(
        prompt_text="stalled, removed; no acceptable release left, now on the wanted list",
        sentence_key="event_failed",
        bus_event=EVENT_DOWNLOAD_FAILED,
        told_first=True,
    ),
    NewsKind.REFUSED: NewsTelling(
        prompt_text="refused (dangerous files), removed",
        sentence_key="event_refused",
        bus_event=None,  # the add was refused: no download to tell automations about
        told_first=True,  # a magnet's refusal comes after the answer that said it was added
    ),
    NewsKind.REFUSED_FAKE: NewsTelling(
        prompt_text="refused, removed: not what it claimed (its `reason`: only archives, no video, "
        "password-protected archives, or a video far too small for the title)",
        sentence_key="event_refused_fake",
        bus_event=None,  # the add was refused, as for dangerous files
        told_first=True,
    ),
    NewsKind.STOPPED_PRIVATE: NewsTelling(
        prompt_text="dead, from a private tracker: stopped, not deleted nor replaced (its ratio rules); "
        "the person may remove it",
        sentence_key="event_stopped_private",
        bus_event=EVENT_DOWNLOAD_STOPPED,
        told_first=True,
    ),
    NewsKind.WANTED_ADDED: NewsTelling(
        prompt_text="was wanted; a release came out and is now downloading",
        sentence_key="event_released",
        bus_event=None,  # agent_media_download_added already told automations (docs/architecture.md)
        told_first=True,
    ),
}
# The completion's `library_refresh`, when the household named a refresh: did the media server take it?
LIBRARY_REFRESHED: Final = "ok"
LIBRARY_NOT_REFRESHED: Final = "failed"
UNSEEN_SENTENCE: Final = "event_completed_unseen"  # "downloaded; your media server has not picked it up yet"
UNSEEN_PROMPT: Final = "finished, but the media server has not picked it up yet (its refresh failed)"
# Media fields of a recorded download that go into the completion event (docs/architecture.md).
COMPLETION_MEDIA_KEYS: Final = ("title", "year", "imdb_id", "media_type", "poster_path")


def sentence_key(kind: NewsKind | None, data: Mapping[str, Any]) -> str:
    """Return the answer that says this news: a completion the media server missed says so."""
    kind = kind or NewsKind.COMPLETED  # a kind this version does not know is said as a completion
    if kind is NewsKind.COMPLETED and data.get("library_refresh") == LIBRARY_NOT_REFRESHED:
        return UNSEEN_SENTENCE
    return NEWS[kind].sentence_key


def prompt_text(kind: NewsKind, data: Mapping[str, Any]) -> str:
    """Return how the model is told this news."""
    if kind is NewsKind.COMPLETED and data.get("library_refresh") == LIBRARY_NOT_REFRESHED:
        return UNSEEN_PROMPT
    return NEWS[kind].prompt_text


def news_kind(event_type: object) -> NewsKind | None:
    """Return the kind of a journal event's type, None for a type this version does not know."""
    try:
        return NewsKind(str(event_type))
    except ValueError:
        return None


@callback
def async_tell(
    hass: HomeAssistant,
    entry_id: str,
    journal: JournalSection,
    kind: NewsKind,
    payload: dict[str, Any],
    *,
    household: bool = True,
) -> str:
    """Record news for the next turn; fire its bus event, if it has one, and send it to the entities.

    `household`: False for news only some people hear (their `subscriptions.untold` lists it): the household's
    turns do not tell it. Return the journal event's id.
    """
    event_id = journal.add_event(kind.value, payload, read=not household)
    if (bus_event := NEWS[kind].bus_event) is not None:
        async_fire_download_event(hass, entry_id, bus_event, payload)
    return event_id


@callback
def async_fire_download_event(
    hass: HomeAssistant, entry_id: str, event: str, payload: dict[str, Any]
) -> None:
    """Fire a public download event for automations, and the same event to the entry's entities."""
    hass.bus.async_fire(event, payload)
    async_dispatcher_send(hass, SIGNAL_DOWNLOAD_EVENT.format(entry_id), event, payload)


def completion_payload(
    entry_id: str, info_hash: str, torrent: Mapping[str, Any], agent_record: Mapping[str, Any] | None
) -> dict[str, Any]:
    """Return the JSON-safe data of ``agent_media_download_completed`` (docs/architecture.md)."""
    agent_record = agent_record or {}
    payload: dict[str, Any] = {
        "entry_id": entry_id,
        "hash": info_hash,
        "name": str(torrent.get("name") or agent_record.get("name") or info_hash),
        "save_path": str(torrent.get("save_path") or agent_record.get("save_path") or ""),
        "content_path": str(torrent.get("content_path") or ""),
        "size": int(numeric(torrent.get("size"))),
        "category": str(torrent.get("category") or ""),
    }
    media = agent_record.get("media")
    if isinstance(media, Mapping):
        payload.update({key: media[key] for key in COMPLETION_MEDIA_KEYS if media.get(key) is not None})
    if payload.get("media_type") == "tv":  # an episode is named as people say it: "…, season 1 episode 3"
        parsed = parse_release(payload["name"])
        if len(parsed.seasons) == 1 and len(parsed.episodes) == 1:
            payload["season"], payload["episode"] = parsed.seasons[0], parsed.episodes[0]
    payload["name"] = clip(payload["name"], MAX_NAME)
    result: dict[str, Any] = storable_copy(payload)  # names and paths come from qBittorrent
    return result


def added_payload(entry_id: str, info_hash: str, record: Mapping[str, Any]) -> dict[str, Any]:
    """Return the data of ``agent_media_download_added`` from the download's record (written at the add)."""
    return {
        "entry_id": entry_id,
        "hash": info_hash,
        "name": record.get("name"),
        "save_path": record.get("save_path"),
        "source": record.get("source"),
    }
