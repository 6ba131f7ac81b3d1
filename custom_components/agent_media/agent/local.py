"""The common commands answered without a model: a locally matched sentence, run through the operations.

`LocalCommands.async_answer` returns the spoken answer, or None when the sentence is not one of the common
commands (or needs what only the model does): then the model gets it, as before.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from ..errors import OperationError
from ..news import NEWS, news_kind, sentence_key
from ..operations import SOURCE_CONVERSATION, MediaQuestion, Operations, Request, human_size, media_label
from ..release import parse_release
from ..sentences import LocalIntent, LocalMatch, LocalSentences, spoken_quality, spoken_release
from ..torrents import DownloadState, download_state, is_complete
from ..untrusted import MAX_TITLE, clip
from .tool_base import normalize_tool_name
from .tools import AddTorrentByIndex, DownloadMedia, SetPathForFolder, SetPreference

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from homeassistant.core import HomeAssistant

    from ..data import AgentMediaConfigEntry
    from ..requester import Requester

RESULTS_SPOKEN: Final = 3  # a voice answer lists a few, the rest stay numbered in memory
DOWNLOADS_SPOKEN: Final = 5
NEWS_SPOKEN: Final = 5
_DOWNLOAD_ITEMS: Final = {
    DownloadState.PAUSED: "download_item_paused",
    DownloadState.STALLED: "download_item_stalled",
}
# News told before the answer of whatever is asked next, not only when asked what's new.
_TOLD_FIRST: Final = frozenset(kind.value for kind, telling in NEWS.items() if telling.told_first)
WANTED_SPOKEN: Final = 5
_SUBSCRIPTION_INTENTS: Final = frozenset({LocalIntent.SUBSCRIBE, LocalIntent.UNSUBSCRIBE})
# Refusals said with the answer of the same name.
_SAID_AS_IS: Final = frozenset(
    {
        "not_wanted",
        "not_following",
        "not_subscribed",
        "nothing_to_subscribe",
        "not_in_library",
        "no_such_player",
    }
)
_WANTED_INTENTS: Final = frozenset(
    {
        LocalIntent.WANT,
        LocalIntent.LIST_WANTED,
        LocalIntent.FORGET_WANTED,
        LocalIntent.FOLLOW_SHOW,
        LocalIntent.UNFOLLOW_SHOW,
    }
)
_WAITING_OR_PLAYING: Final = _WANTED_INTENTS | _SUBSCRIPTION_INTENTS | {LocalIntent.PLAY_MEDIA}


class LocalCommands:
    """Answers the matched common commands of one entry in the person's language."""

    def __init__(self, hass: HomeAssistant, entry: AgentMediaConfigEntry, sentences: LocalSentences) -> None:
        """Bind to the entry's operations and the loaded sentences."""
        self.hass = hass
        self.entry = entry
        self.sentences = sentences

    def match(
        self, text: str, language: str, requester: Requester, conversation_id: str | None
    ) -> LocalMatch | None:
        """Return the command the sentence asks for; a bare answer counts only while a question waits."""
        waiting = self.entry.runtime_data.memory.working.question(requester.key, conversation_id) is not None
        return self.sentences.match(text, language, expecting_answer=waiting)

    async def async_answer(
        self, found: LocalMatch, language: str, requester: Requester, conversation_id: str | None
    ) -> str:
        """Run the command and say how it went (failures included, in words)."""
        answer = await self._async_answer(found, language, requester, conversation_id)
        if found.intent is not LocalIntent.WHATS_NEW and (
            news := self._news(language, requester.person_key, only=_TOLD_FIRST)
        ):
            return f"{news} {answer}"
        return answer

    async def _async_answer(  # noqa: PLR0911 - one answer per kind of refusal
        self, found: LocalMatch, language: str, requester: Requester, conversation_id: str | None
    ) -> str:
        say = self.sentences.response
        request = Request(
            requester=requester,
            source=SOURCE_CONVERSATION,
            conversation_id=conversation_id,
            language=language,
        )
        try:
            return await self._async_run(self.entry.runtime_data.operations, found, request, language)
        except OperationError as err:
            if err.translation_key == "no_search_results":
                return say(language, "no_search")
            if err.translation_key == "unknown_index":
                return say(language, "index_out_of_range", **err.placeholders)
            if err.translation_key == "media_not_found":
                return say(language, "media_not_found", **err.placeholders)
            if err.translation_key == "folder_not_allowed":
                return self.sentences.error(
                    language, "folder_not_allowed", path=err.placeholders.get("path", "")
                )
            if err.translation_key in (
                "not_wanted",
                "not_following",
                "not_subscribed",
                "nothing_to_subscribe",
            ):
                return say(language, err.translation_key, **err.placeholders)
            if err.translation_key in ("no_torrents_found", "none_usable"):
                return say(language, "no_results", query=err.placeholders.get("query", ""))
            return self.sentences.error(language, err.code.value, **err.placeholders)

    async def _async_run(  # noqa: PLR0911 - one answer per command
        self, operations: Operations, found: LocalMatch, request: Request, language: str
    ) -> str:
        slots, intent, say = found.slots, found.intent, self.sentences.response
        requester, conversation_id = request.requester, request.conversation_id
        if intent is LocalIntent.HELP:
            return say(language, "help")
        if intent is LocalIntent.SEARCH_TORRENTS:
            query = " ".join(
                str(part) for part in (slots["title"], slots.get("year"), slots.get("quality")) if part
            )
            search = await operations.finding.async_search(request, query)
            return self._results(language, search.query, search.results)
        if intent in (LocalIntent.DOWNLOAD_INDEX, LocalIntent.ANSWER_OPTION):
            index = slots.get("index") or self._option_of_quality(
                requester, conversation_id, slots.get("quality")
            )
            if index is None:
                return say(language, "not_understood")
            added = await operations.acquiring.async_add_result(request, index)
            return added_answer(self.sentences, language, added.media, added.name)
        if intent is LocalIntent.DOWNLOAD_MEDIA:
            return await self._async_download_media(operations, slots, request, language)
        if intent is LocalIntent.SET_FOLDER:
            folder, path = await operations.settings.async_set_folder(
                requester, slots["folder"], slots["path"]
            )
            return say(
                language, "folder_set", folder=self.sentences.folder_label(language, folder), path=path
            )
        if intent is LocalIntent.WHATS_NEW:
            return self._news(language, requester.person_key) or say(language, "nothing_new")
        if intent is LocalIntent.LIST_DOWNLOADS:
            return self._downloads(language, await operations.control.async_list_torrents(requester))
        if intent in _WAITING_OR_PLAYING:
            return await self._async_waiting_or_playing(operations, found, request, language)
        return await self._async_control(operations, found, language, requester)

    async def _async_download_media(
        self, operations: Operations, slots: dict[str, Any], request: Request, language: str
    ) -> str:
        outcome = await operations.acquiring.async_download_media(
            request,
            slots["title"],
            year=slots.get("year"),
            media_type=slots.get("media_type"),
            quality=slots.get("quality"),
            season=slots.get("season"),
            episode=slots.get("episode"),
        )
        if isinstance(outcome, MediaQuestion):
            return self._results(language, media_label(outcome.media), outcome.options)
        return added_answer(
            self.sentences, language, outcome.media, outcome.added.name, outcome.release.get("seeders")
        )

    async def _async_wanted(  # noqa: PLR0911 - one answer per command
        self, operations: Operations, found: LocalMatch, request: Request, language: str
    ) -> str:
        """Want, list, forget; follow and unfollow a show."""
        slots, intent, say = found.slots, found.intent, self.sentences.response
        requester, wanted_list = request.requester, operations.wanted
        title = str(slots.get("title", ""))
        if intent is LocalIntent.WANT:
            outcome = await wanted_list.async_want(
                request, title, year=slots.get("year"), season=slots.get("season")
            )
            if outcome.added is not None:
                return added_answer(self.sentences, language, outcome.added.media, outcome.added.name)
            return say(language, "wanted", title=outcome.label)
        if intent is LocalIntent.LIST_WANTED:
            titles, shows = wanted_list.list_wanted(requester)
            names = [item["title"] for item in titles + shows][:WANTED_SPOKEN]
            if not names:
                return say(language, "nothing_wanted")
            return say(language, "wanted_list", titles=self.sentences.join(language, names))
        if intent is LocalIntent.FORGET_WANTED:
            forgotten = wanted_list.forget_wanted(requester, title)
            return say(language, "forgotten", title=self.sentences.join(language, forgotten))
        if intent is LocalIntent.FOLLOW_SHOW:
            media, _season = await wanted_list.async_follow_show(request, title)
            return say(language, "following", title=media_label(media))
        stopped = wanted_list.unfollow_show(requester, title)
        return say(language, "unfollowed", title=self.sentences.join(language, stopped))

    async def _async_waiting_or_playing(
        self, operations: Operations, found: LocalMatch, request: Request, language: str
    ) -> str:
        """Answer what people wait for (wanted titles, followed shows, news of a title), or play a title."""
        if found.intent in _SUBSCRIPTION_INTENTS:
            return await self._async_subscription(operations, found, request, language)
        if found.intent is LocalIntent.PLAY_MEDIA:
            played = await operations.playing.async_play(
                request, player=str(found.slots["player"]), title=found.slots.get("title")
            )
            state = self.hass.states.get(played.entity_id)
            player = clip(state.name if state is not None else played.entity_id, MAX_TITLE)
            return self.sentences.response(language, "playing", title=played.label, player=player)
        return await self._async_wanted(operations, found, request, language)

    async def _async_subscription(
        self, operations: Operations, found: LocalMatch, request: Request, language: str
    ) -> str:
        """Be told when a title is ready ("me too": no title), or no longer."""
        title, say = found.slots.get("title"), self.sentences.response
        if found.intent is LocalIntent.SUBSCRIBE:
            subscribed = await operations.subscriptions.async_subscribe(request, title=title)
            return say(language, "subscribed", title=subscribed.label)
        dropped = operations.subscriptions.unsubscribe(request.requester, str(title))
        return say(language, "unsubscribed", title=self.sentences.join(language, dropped))

    def _option_of_quality(
        self, requester: Requester, conversation_id: str | None, quality: str | None
    ) -> int | None:
        """Return the number of the pending question's first option at that quality ("the 4K one")."""
        question = self.entry.runtime_data.memory.working.question(requester.key, conversation_id)
        if quality is None or question is None:
            return None
        for option in question["options"]:
            if parse_release(str(option.get("title", ""))).resolution == quality:
                return int(option["index"])
        return None

    def _results(self, language: str, query: str, results: Sequence[Mapping[str, Any]]) -> str:
        items = [
            self.sentences.response(
                language,
                "result_item",
                index=result["index"],
                release=spoken_release(str(result.get("title", "?"))),
                size=human_size(result.get("size")),
                seeders=self.sentences.count(language, "seeders", result.get("seeders")),
            )
            for result in results[:RESULTS_SPOKEN]
        ]
        results_said = self.sentences.join(language, items, separator="; ")
        return self.sentences.response(language, "results", query=query, results=results_said)

    def _news(self, language: str, requester_key: str, *, only: frozenset[str] | None = None) -> str | None:
        """Say the unread news (of the kinds in `only`, if given) and mark it read; None if there is none.

        What the requester subscribed to is told whatever its kind, even once someone else heard it.
        """
        memory = self.entry.runtime_data.memory
        theirs = set(memory.subscriptions.untold(requester_key))
        events = [
            event
            for event in memory.news_for(requester_key)
            if only is None or event.get("type") in only or event["id"] in theirs
        ]
        if not events:
            return None
        items = []
        for event in events[:NEWS_SPOKEN]:
            data = event.get("data") or {}
            kind = news_kind(event.get("type"))
            key = sentence_key(kind, data)
            what = self.sentences.news_name(language, data)
            release = clip(data.get("name") or what, MAX_TITLE)
            items.append(self.sentences.response(language, key, name=what, title=what, release=release))
        memory.mark_told(requester_key, (event["id"] for event in events))
        return self.sentences.response(language, "news", events=self.sentences.join(language, items))

    def _downloads(self, language: str, torrents: list[dict[str, Any]]) -> str:
        items = []
        for torrent in torrents:
            complete = is_complete(torrent)
            if complete:
                continue
            state = download_state(torrent, complete=complete)
            items.append(
                self.sentences.response(
                    language,
                    _DOWNLOAD_ITEMS.get(state, "download_item"),
                    name=self._name_of(torrent),
                    progress=round(float(torrent.get("progress") or 0) * 100),
                )
            )
        if not items:
            return self.sentences.response(language, "no_downloads")
        return self.sentences.response(
            language, "downloads", downloads=self.sentences.join(language, items[:DOWNLOADS_SPOKEN])
        )

    def _name_of(self, torrent: dict[str, Any]) -> str:
        record: Mapping[str, Any] | None = self.entry.runtime_data.memory.downloads.get(
            str(torrent.get("hash", ""))
        )
        media = (record or {}).get("media")
        return clip(media_label(media) if media else torrent.get("name", "?"), MAX_TITLE)

    async def _async_control(
        self, operations: Operations, found: LocalMatch, language: str, requester: Requester
    ) -> str:
        """Pause, resume or cancel the download the person named (or all of them)."""
        action = {LocalIntent.PAUSE: "pause", LocalIntent.RESUME: "resume"}.get(found.intent, "remove")
        control = operations.control
        torrents = [
            torrent for torrent in await control.async_list_torrents(requester) if not is_complete(torrent)
        ]
        say = self.sentences.response
        if found.slots.get("all") and action != "remove":
            for torrent in torrents:
                await control.async_control(requester, action, str(torrent["hash"]))
            return say(language, "paused_all" if action == "pause" else "resumed_all")
        name = str(found.slots.get("name", ""))
        named = _words(name)
        matching = [torrent for torrent in torrents if named and named <= _words(self._name_of(torrent))]
        if not matching:
            return say(language, "no_such_download", name=clip(name, MAX_TITLE))
        if len(matching) > 1:
            names = self.sentences.join(language, [self._name_of(torrent) for torrent in matching[:4]])
            return say(language, "several_match", name=clip(name, MAX_TITLE), names=names)
        torrent = matching[0]
        await control.async_control(requester, action, str(torrent["hash"]))
        answer = {"pause": "paused", "resume": "resumed", "remove": "cancelled"}[action]
        return say(language, answer, name=self._name_of(torrent))


def added_answer(
    sentences: LocalSentences,
    language: str,
    media: Mapping[str, Any] | None,
    name: str,
    seeders: Any = None,
) -> str:
    """Say what was added: the film or show, the release's quality and seeders (when known).

    A release of no known film is said as people say it ("Sintel, 720p WEBRip"), not as its file is named.
    """
    quality = spoken_quality(name)
    if not media or not quality:
        said = media_label(media) if media else spoken_release(name)
        return sentences.response(language, "added_name", name=said)
    if seeders is None:
        return sentences.response(language, "added_media", title=media_label(media), quality=quality)
    return sentences.response(
        language,
        "added",
        title=media_label(media),
        quality=quality,
        seeders=sentences.count(language, "seeders", seeders),
    )


def tool_answer(sentences: LocalSentences, language: str, tool_name: str, payload: Any) -> str | None:
    """Return what to say for a tool result that already is the answer (a download added, a setting saved).

    None for every other result: errors, questions, searches and look-ups, which the model puts in words.
    """
    if not isinstance(payload, dict) or payload.get("status") != "ok":
        return None
    tool = normalize_tool_name(tool_name)
    if tool == DownloadMedia.name and payload.get("decision") == "downloading":
        return added_answer(
            sentences, language, payload.get("media"), str(payload.get("release", "")), payload.get("seeders")
        )
    if tool == AddTorrentByIndex.name:
        return added_answer(sentences, language, payload.get("media"), str(payload.get("torrent_name", "")))
    if tool == SetPathForFolder.name:
        folder = sentences.folder_label(language, str(payload.get("folder_name", "")))
        return sentences.response(language, "folder_set", folder=folder, path=payload.get("path", ""))
    if tool == SetPreference.name:
        return sentences.response(language, "preference_set")
    return None


def _words(text: str) -> set[str]:
    return {word for word in "".join(c if c.isalnum() else " " for c in text.casefold()).split() if word}
