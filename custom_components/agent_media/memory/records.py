"""What the memory keeps: the shape of every stored record, declared once.

Records are stored as JSON and read everywhere with ["key"] and .get, so each is a TypedDict (a plain dict at
run time). The schema that checks a record when the Store is loaded is derived from the same declaration
(`schema.py`): a required key is required there, a `NotRequired` one optional, `X | None` accepts None, and a
field `Annotated` with a validator is checked by that validator alone (a length other than the default, or a
value repaired rather than refused). The functions that build a record live with the section that owns it;
the media identity, which every section keeps, is built here (`clean_media`), with what the sections share.
"""

# No `from __future__ import annotations` here: the TypedDicts' annotations are read at run time, to derive
# their schemas, and `NotRequired` is only seen in annotations that are evaluated.

from collections.abc import Mapping
from typing import Annotated, Any, Final, Literal, NotRequired, TypedDict

import voluptuous as vol

from homeassistant.util import dt as dt_util

from ..untrusted import MAX_TITLE, clip, image_path

# Bounds that loading checks too (the others are kept by the sections that add).
MAX_LANGUAGE: Final = 20  # characters of a language tag
MAX_INCOMPLETE: Final = 5000  # hashes last seen incomplete

# An ISO 8601 moment, as `dt_util.utcnow().isoformat()` writes it.
Timestamp = Annotated[str, vol.All(str, vol.Length(max=40))]
# A TMDB image path: one of the wrong shape becomes None (outside data), without dropping its record.
PosterPath = Annotated[str | None, image_path]
# What was added of a followed show: an episode ("s01e02") or a season pack ("s01").
ShowItem = Annotated[str, vol.All(str, vol.Length(max=20))]
# A release preference (preferred_resolution "2160p", max_size_gb 12.5, preferred_languages ["fr"], …).
PreferenceValue = Annotated[str | int | float | bool | list[str], vol.Any(str, int, float, bool, [str])]


class Media(TypedDict):
    """A film or show as identified on TMDB (`clean_media` makes one from outside data)."""

    title: str
    year: NotRequired[int | None]
    imdb_id: NotRequired[str | None]
    tmdb_id: NotRequired[int | None]
    media_type: NotRequired[Literal["movie", "tv"] | None]
    original_title: NotRequired[str | None]
    poster_path: NotRequired[PosterPath]


class SearchResult(TypedDict):
    """A numbered release of a search, or an option of a question (`clean_result`)."""

    index: int
    title: str
    size: NotRequired[int | None]
    seeders: NotRequired[int | None]
    peers: NotRequired[int | None]
    info_hash: NotRequired[str | None]
    link_id: NotRequired[str | None]  # its link is held in RAM (links.py); an old Store's links are dropped
    tracker: NotRequired[str | None]
    source: NotRequired[str | None]
    reason: NotRequired[str | None]


class Search(TypedDict):
    """A search's numbered results, which "the 2nd one" picks from."""

    query: str
    results: list[SearchResult]
    media: NotRequired[Media | None]
    at: Timestamp


class PendingQuestion(TypedDict):
    """A question put to a requester with numbered options, until answered or stale."""

    question: str
    options: list[SearchResult]
    media: NotRequired[Media | None]
    at: Timestamp


class Confirmation(TypedDict):
    """A change waiting for the requester's spoken yes: the tool and its arguments."""

    tool: str
    args: dict[str, Any]
    at: Timestamp


class EarlierList(TypedDict):
    """The list of a conversation other than the requester's latest."""

    conversation_id: str
    search: NotRequired[Search | None]
    question: NotRequired[PendingQuestion | None]


class WorkingState(TypedDict):
    """A requester's lists and pending confirmation."""

    # The latest list and the conversation it was made in ("" or absent: none, e.g. an action).
    conversation_id: NotRequired[str | None]
    search: NotRequired[Search | None]
    question: NotRequired[PendingQuestion | None]
    earlier: NotRequired[list[EarlierList]]
    confirmation: NotRequired[Confirmation | None]
    updated: Timestamp


class Message(TypedDict):
    """One message of a conversation's history."""

    role: Literal["user", "assistant"]
    content: str


class Conversation(TypedDict):
    """A conversation: the requester that opened it, its last messages, the media looked up last."""

    owner: NotRequired[str | None]
    messages: list[Message]
    media: NotRequired[Media | None]
    updated: Timestamp


class Replacement(TypedDict):
    """A dead download on its way out, not removed yet: replaced by `hash` (None: nothing acceptable was)."""

    reason: str
    hash: NotRequired[str | None]
    name: NotRequired[str | None]


class DownloadDetails(TypedDict, total=False):
    """What a download record may hold besides its name and when it was added (`DownloadsSection.update`)."""

    save_path: str | None
    source: str | None
    safety: str | None  # whether its file list was checked (operations/adding.py)
    media: Media | None  # the identity of the result actually added
    requester: str | None
    conversation_id: str | None
    replacements: int  # dead releases of its title this one follows
    replacement: Replacement
    stopped_private: bool  # from a private tracker, dead: stopped and told, never replaced (replacement.py)


class DownloadRecord(DownloadDetails):
    """A download Agent Media added and that is not finished yet (`download_record`)."""

    name: str
    added_at: Timestamp


class LatestCompleted(TypedDict):
    """The latest completed download that had media, shown on dashboards across restarts."""

    title: str
    poster_path: NotRequired[PosterPath]
    completed_at: Timestamp


class JournalError(TypedDict):
    """A failure remembered: what was tried, the error code, the explanation."""

    action: str
    error: str
    message: str
    at: Timestamp


class JournalEvent(TypedDict):
    """Something that happened while nobody was talking; the next turn tells it."""

    id: str
    type: str
    data: dict[str, Any]
    at: Timestamp
    read: bool


class WantedTitle(TypedDict):
    """A title wanted until an acceptable release appears (`wanted_title`)."""

    media: Media
    season: NotRequired[int | None]
    episode: NotRequired[int | None]
    save_path: NotRequired[str | None]
    reason: str
    requester: NotRequired[str | None]
    added_at: Timestamp
    next_check: Timestamp
    attempts: int  # searches that found nothing acceptable; the next check waits longer after each


class FollowedShow(TypedDict):
    """A followed show and what was added of it (`followed_show`)."""

    media: Media
    from_season: NotRequired[int | None]
    save_path: NotRequired[str | None]
    requester: NotRequired[str | None]
    followed_at: Timestamp
    next_check: Timestamp
    fetched: list[ShowItem]
    # The last episode or pack a check searched when it ran out of searches: the next starts after it.
    resume_after: NotRequired[ShowItem | None]
    # Everyone who followed it (requester keys): each episode that arrives is told to them, not the household.
    followers: NotRequired[list[str]]


class BlockedRelease(TypedDict):
    """A release never picked again for its title (it stalled, or was replaced)."""

    hash: NotRequired[str | None]
    name: str
    at: Timestamp


class Subscriber(TypedDict):
    """Someone who asked to be told when a title is ready: their requester key, and where to tell them."""

    requester: str  # "user:<id>", "device:<id>", "system"
    target: NotRequired[str | None]  # a notify entity they named (a satellite is told on itself)
    at: Timestamp


class Subscription(TypedDict):
    """A title people wait to hear about (`SubscriptionsSection.subscribe`)."""

    label: str  # as people say it: "Sintel (2010)"
    media: NotRequired[Media | None]
    subscribers: list[Subscriber]
    updated: Timestamp


class Subscriptions(TypedDict):
    """The subscriptions section (stored only when not empty, so a Store without any keeps its shape)."""

    waiting: dict[str, Subscription]  # by subscription key: a title key ("movie:45745") or "hash:<hash>"
    untold: dict[str, list[str]]  # by requester key: journal events they must still hear at their next turn


class LibraryTitle(TypedDict):
    """A film or show in the library: its identity and its folder (inside the movie or tv_show one)."""

    media: Media
    folder: str  # the title's folder name ("Sintel (2010)"), inside the library folder of its kind
    updated: Timestamp


class Household(TypedDict):
    """The household's settings: folders (name → absolute path), release preferences, last language."""

    folders: dict[str, str]
    preferences: dict[str, PreferenceValue]
    language: str | None
    # Each person's own release preferences over the household's, by requester key (stored when not empty).
    people: NotRequired[dict[str, dict[str, PreferenceValue]]]


class Downloads(TypedDict):
    """The downloads section: records by infohash, the hashes last seen incomplete, the latest completed."""

    records: dict[str, DownloadRecord]
    incomplete: list[str]
    latest_completed: LatestCompleted | None


class Journal(TypedDict):
    """The journal section: recent errors and background news."""

    errors: list[JournalError]
    events: list[JournalEvent]


class Wanted(TypedDict):
    """The wanted section: wanted titles and followed shows by title key, blocklisted releases per title."""

    titles: dict[str, WantedTitle]
    shows: dict[str, FollowedShow]
    blocked: dict[str, list[BlockedRelease]]


class StoredMemory(TypedDict):
    """Everything one entry remembers, as stored (version 2)."""

    household: Household
    conversations: dict[str, Conversation]  # by conversation id
    working: dict[str, WorkingState]  # by requester key
    downloads: Downloads
    journal: Journal
    wanted: Wanted
    subscriptions: NotRequired[Subscriptions]
    library: NotRequired[dict[str, LibraryTitle]]  # by title key; stored only when not empty


def empty_subscriptions() -> Subscriptions:
    """Return a subscriptions section with nothing in it."""
    return {"waiting": {}, "untold": {}}


def empty_memory() -> StoredMemory:
    """Return a memory with nothing in it."""
    return {
        "household": {"folders": {}, "preferences": {}, "language": None},
        "conversations": {},
        "working": {},
        "downloads": {"records": {}, "incomplete": [], "latest_completed": None},
        "journal": {"errors": [], "events": []},
        "wanted": {"titles": {}, "shows": {}, "blocked": {}},
    }


def clean_media(media: Mapping[str, Any] | None) -> Media | None:
    """Return a media identity as kept: its known keys, outside text clipped; None without a title."""
    if not media or not media.get("title"):
        return None
    cleaned: Media = {"title": clip(media["title"], MAX_TITLE)}
    if isinstance(year := media.get("year"), int) and not isinstance(year, bool):
        cleaned["year"] = year
    if isinstance(tmdb_id := media.get("tmdb_id"), int) and not isinstance(tmdb_id, bool):
        cleaned["tmdb_id"] = tmdb_id
    if isinstance(imdb_id := media.get("imdb_id"), str):
        cleaned["imdb_id"] = clip(imdb_id, 20)
    if (media_type := media.get("media_type")) in ("movie", "tv"):
        cleaned["media_type"] = media_type
    if isinstance(original := media.get("original_title"), str) and original != media["title"]:
        cleaned["original_title"] = clip(original, MAX_TITLE)
    if (poster := image_path(media.get("poster_path"))) is not None:
        cleaned["poster_path"] = poster
    return cleaned


# --- shared by the sections ---------------------------------------------------------------------------------


def now() -> str:
    """Return the time now as records keep it."""
    return dt_util.utcnow().isoformat()


def trim_oldest[Record: Mapping[str, Any]](mapping: dict[str, Record], limit: int, field: str) -> None:
    """Drop the entries with the oldest `field` until `limit` remain."""
    if len(mapping) <= limit:
        return
    ordered = sorted(mapping, key=lambda key: str(mapping[key].get(field, "")))
    for key in ordered[: len(mapping) - limit]:
        del mapping[key]
