"""Acquiring operations: add a result, a link or the best release of a title; add a known title unasked.

Every add goes to a folder checked now, through `DownloadAdder` (adding.py), the one way into qBittorrent.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from ..clients.bittorrent import magnet_name
from ..errors import ErrorCode, OperationError, client_errors
from ..memory import MAX_PENDING_OPTIONS, title_key
from ..ranking import normalize_resolution
from ..requester import Permission
from .base import OperationsPart
from .describe import media_label
from .finding import checked_link, none_usable

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from ..clients.qbittorrent import AddedTorrent
    from ..ranking import RankedRelease
    from .adding import DownloadAdder
    from .base import Collaborators, Request
    from .finding import Finding
    from .settings import Settings

CLOSE_SCORE_MARGIN: Final = 6.0  # fine-score points; about a 3x difference in seeders
DIFFERENT_SIZE_RATIO: Final = 1.5


@dataclass(frozen=True, slots=True)
class AddedDownload:
    """A download that was added: what qBittorrent has, where it goes, and whether its files were checked."""

    info_hash: str
    name: str
    save_path: str | None
    safety: str | None
    media: Mapping[str, Any] | None


# Why async_acquire added nothing (stable: callers and the wanted list keep them).
NO_RELEASE_NOT_FOUND: Final = "not_found"  # no source found anything
NO_RELEASE_NO_ACCEPTABLE: Final = "no_acceptable"  # every release rejected: CAM/trash, too large, wrong title
NO_RELEASE_BLOCKED: Final = "blocked"  # only releases blocklisted for this title were left


@dataclass(frozen=True, slots=True)
class NoRelease:
    """async_acquire found nothing acceptable to add: why (one of NO_RELEASE_*), and what it searched."""

    reason: str
    query: str


@dataclass(frozen=True, slots=True)
class MediaQuestion:
    """download_media could not pick: the question and its numbered options (kept as the pending question)."""

    question: str
    media: dict[str, Any]
    options: Sequence[Mapping[str, Any]]
    unavailable: str | None = None


@dataclass(frozen=True, slots=True)
class MediaDownload:
    """download_media picked and added the best release."""

    media: dict[str, Any]
    release: Mapping[str, Any]
    why: str
    other_candidates: int
    added: AddedDownload
    unavailable: str | None = None


def _close(first: RankedRelease, second: RankedRelease) -> bool:
    """Scores within a few points, yet releases that differ in a way people care about."""
    if first.score - second.score >= CLOSE_SCORE_MARGIN:
        return False
    a, b = first.parsed, second.parsed
    if (a.source, a.codec, a.hdr, a.languages) != (b.source, b.codec, b.hdr, b.languages):
        return True
    sizes = sorted(max(int(release.result.get("size") or 0), 1) for release in (first, second))
    return sizes[1] / sizes[0] >= DIFFERENT_SIZE_RATIO


def _question(
    ranked: list[RankedRelease], *, label: str, asked: str | None, season: int | None, episode: int | None
) -> str | None:
    """Return what to ask when the best release is not clearly what was wanted, else None."""
    best = ranked[0].parsed
    if asked and best.resolution != asked:
        return f"There is no good {asked} release of {label}. Which of these would you like instead?"
    if episode is not None and not best.episodes:
        return f"There is no release of {label} alone, only packs that hold it. Should I download one?"
    if season is not None and episode is None and (best.episodes or len(best.seasons) != 1):
        return f"There is no pack of {label} alone. Which of these would you like?"
    if len(ranked) > 1 and _close(ranked[0], ranked[1]):
        return f"Two releases of {label} are about as good. Which one would you like?"
    return None


class Acquiring(OperationsPart):
    """Adding downloads: a kept result, a link, the best release of a title, a known title unasked."""

    def __init__(
        self, collaborators: Collaborators, *, settings: Settings, finding: Finding, adder: DownloadAdder
    ) -> None:
        """Bind to the collaborators and the parts an add goes through."""
        super().__init__(collaborators)
        self.settings = settings
        self.finding = finding
        self.adder = adder

    async def async_add_result(self, request: Request, index: int) -> AddedDownload:
        """Add result `index` of the pending question (if any) or search a number means in this conversation.

        That is the conversation's own list if it has one, else the requester's latest. The media identity
        is the one the question or search was for: the result actually added decides what the completion
        event, the news and the library folder say.
        """
        self.require(request.requester, Permission.ADD)
        working, key = self.memory.working, request.requester.key
        question: Mapping[str, Any] | None = working.question(key, request.conversation_id)
        if question is not None and index <= len(question["options"]):
            result, media = question["options"][index - 1], question.get("media")
        else:
            result = self.finding.search_result(request, index)
            search: Mapping[str, Any] = working.search(key, request.conversation_id) or {}
            media = search.get("media")
        link = self.finding.result_link(result, index)
        media = media or await self.finding.async_media_of_release(str(result.get("title", "")))
        added = await self.async_add_link(request, link, media=media)
        working.clear_question(key, request.conversation_id)
        return added

    async def async_add_link(
        self, request: Request, link: str, *, media: Mapping[str, Any] | None = None
    ) -> AddedDownload:
        """Add a magnet or an http(s) link to a .torrent to the request's folder, both checked first."""
        self.require(request.requester, Permission.ADD)
        link = checked_link(link)
        if media is None and (name := magnet_name(link)):
            media = await self.finding.async_media_of_release(name)
        save_path = await self.settings.async_save_path(request.folder)
        return await self._async_add_checked(request, link, save_path=save_path, media=media)

    async def _async_add_checked(
        self, request: Request, link: str, *, save_path: str | None, media: Mapping[str, Any] | None
    ) -> AddedDownload:
        """Add a checked link to a checked save path (None: qBittorrent's default folder)."""
        with client_errors():
            added = await self.adder.async_add(
                url=link,
                save_path=save_path,
                source=request.source,
                media=media,
                requester_key=request.requester.key,
                conversation_id=request.conversation_id,
            )
        return self._added(added)

    def _added(self, added: AddedTorrent) -> AddedDownload:
        record: Mapping[str, Any] = self.memory.downloads.get(added.info_hash) or {}
        return AddedDownload(
            info_hash=added.info_hash,
            name=added.name,
            save_path=record.get("save_path"),
            safety=record.get("safety"),
            media=record.get("media"),
        )

    async def async_download_media(
        self,
        request: Request,
        title: str,
        *,
        year: int | None = None,
        media_type: str | None = None,
        quality: str | None = None,
        season: int | None = None,
        episode: int | None = None,
    ) -> MediaDownload | MediaQuestion:
        """Identify, search, rank; add the best release, or keep a question with numbered options."""
        requester_key, conversation_id = request.requester.key, request.conversation_id
        self.require(request.requester, Permission.ADD)
        if media_type is None and (season is not None or episode is not None):
            media_type = "tv"
        match = await self.finding.async_match(
            title, year=year, media_type=media_type, language=request.language
        )
        media = match.as_dict()
        self.memory.conversations.set_media(conversation_id, requester_key, media)
        if match.media_type != "tv":
            season = episode = None
        asked = normalize_resolution(quality) if quality else None
        searched = media | {"original_title": match.original_title}
        query, found, unavailable = await self.finding.async_search_media(
            searched,
            season=season,
            episode=episode,
            spoken_in_english=(request.language or "en").startswith("en"),
        )
        label = media_label(media, season, episode)
        if not found:
            raise OperationError(ErrorCode.NOT_FOUND, "no_torrents_found", query=label)
        ranked, rejected = await self.finding.async_rank_media(
            searched,
            found,
            season=season,
            episode=episode,
            resolution=asked,
            requester_key=request.requester.person_key,
        )
        if not ranked:
            raise none_usable(len(found), query, rejected)
        results = self.finding.keep_search(request, query, ranked, media)
        if question := _question(ranked, label=label, asked=asked, season=season, episode=episode):
            options = results[:MAX_PENDING_OPTIONS]
            self.memory.working.set_question(requester_key, question, options, media, conversation_id)
            return MediaQuestion(question=question, media=media, options=options, unavailable=unavailable)
        added = await self.async_add_link(request, self.finding.result_link(results[0], 1), media=media)
        self.memory.working.clear_question(requester_key, conversation_id)
        return MediaDownload(
            media=media,
            release=results[0],
            why=ranked[0].reason,
            other_candidates=len(ranked) - 1,
            added=added,
            unavailable=unavailable,
        )

    async def async_acquire(
        self,
        request: Request,
        media: dict[str, Any],
        *,
        season: int | None = None,
        episode: int | None = None,
        save_path: str | None = None,
    ) -> AddedDownload | NoRelease:
        """Search a known title and add its best acceptable release, asking nothing.

        Releases blocklisted for the title are passed over. `save_path` was checked by the caller (None:
        qBittorrent's default folder; the request's folder is not read). Nothing acceptable: `NoRelease`; a
        service down: OperationError. The sources are asked afresh, not from their short cache: this runs
        when the answer may have changed.
        """
        self.require(request.requester, Permission.ADD)
        if media.get("media_type") != "tv":
            season = episode = None
        query, found, _unavailable = await self.finding.async_search_media(
            media, season=season, episode=episode, fresh=True
        )
        if not found:
            return NoRelease(reason=NO_RELEASE_NOT_FOUND, query=query)
        # A wanted title or followed show: the preferences of whoever wanted or followed it.
        ranked, _rejected = await self.finding.async_rank_media(
            media, found, season=season, episode=episode, requester_key=request.requester.person_key
        )
        if not ranked:
            return NoRelease(reason=NO_RELEASE_NO_ACCEPTABLE, query=query)
        key = title_key(media, season, episode)
        blocked = self.memory.wanted.is_blocked
        for release in ranked:
            result = release.result
            if blocked(key, result.get("info_hash"), str(result.get("title") or "")):
                continue
            try:
                link = checked_link(str(result.get("download_link") or ""))
            except OperationError:
                continue  # a release without a usable link is no candidate
            return await self._async_add_checked(request, link, save_path=save_path, media=media)
        return NoRelease(reason=NO_RELEASE_BLOCKED, query=query)
