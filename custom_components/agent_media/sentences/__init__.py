"""The common commands, understood and answered without a model, in English, French, German and Spanish.

`async_load_sentences(hass)` parses the templates once (in the executor) and caches them for every entry;
`LocalSentences.match` reads a sentence into a `LocalMatch` (None when it is not a common command or is
ambiguous: the model gets it), `LocalSentences.response` says the answer in the person's language.

Answers are never cut in the middle of what they list: each entry is made from clipped parts (a release is
said as people say it, "Sintel, 2160p Blu-ray"), and a list too long to say drops whole entries at its end.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, cast

from homeassistant.util.hass_dict import HassKey
from homeassistant.util.yaml import load_yaml

from ..const import DOMAIN
from ..release import parse_release
from ..untrusted import clip
from .matcher import (
    MAX_SLOT_CHARS,
    LanguageCommands,
    LocalIntent,
    LocalMatch,
    language_files,
    load_language,
    match_sentence,
)

if TYPE_CHECKING:
    import asyncio
    from collections.abc import Iterable, Mapping

    from homeassistant.core import HomeAssistant

    from ..release import ParsedRelease

__all__ = [
    "DEFAULT_LANGUAGE",
    "LocalIntent",
    "LocalMatch",
    "LocalSentences",
    "SpokenList",
    "async_load_sentences",
    "spoken_quality",
    "spoken_release",
]

DEFAULT_LANGUAGE: Final = "en"
_HERE: Final = Path(__file__).parent
_DATA_SENTENCES: HassKey[asyncio.Future[LocalSentences]] = HassKey(f"{DOMAIN}_sentences")
# A list in an answer stays under this many characters by leaving out its last entries (one is always said).
MAX_SPOKEN_LIST: Final = 400
# A title inside a list entry is cut at a word past this length, so every entry keeps its details.
MAX_SPOKEN_TITLE: Final = 60
# How people name a release's source, whatever the language.
SOURCE_WORDS: Final = {
    "remux": "Blu-ray remux",
    "bluray": "Blu-ray",
    "web-dl": "WEB-DL",
    "webrip": "WEBRip",
    "hdtv": "HDTV",
    "dvd": "DVD",
    "cam": "CAM",
    "telesync": "telesync",
    "telecine": "telecine",
    "screener": "screener",
}


class SpokenList(str):
    """A list put in words from entries already clipped: an answer takes it whole, never cut."""

    __slots__ = ()


@dataclass(frozen=True, slots=True)
class LanguageAnswers:
    """One language's answer sentences."""

    answers: dict[str, str]
    folders: dict[str, str]
    counts: dict[str, dict[str, str]]  # noun → its "one" and "other" forms, "{count} seeders"
    plural_one: frozenset[int]  # the counts said with the "one" form: 1, and 0 too in French
    list_and: str


@dataclass(frozen=True, slots=True)
class LocalSentences:
    """Every language's command templates and answers, loaded once."""

    commands: dict[str, LanguageCommands]
    answers: dict[str, LanguageAnswers]

    @classmethod
    def load(cls) -> LocalSentences:
        """Read and parse every language. Blocking: run it in the executor."""
        return cls(
            commands={
                language: load_language(path) for language, path in language_files(_HERE / "commands").items()
            },
            answers={
                language: _load_answers(path) for language, path in language_files(_HERE / "answers").items()
            },
        )

    @property
    def languages(self) -> frozenset[str]:
        """The languages whose commands are understood."""
        return frozenset(self.commands)

    def language_of(self, language: str) -> str:
        """Return the supported language for a code such as "fr-CA" or "de_CH", else English."""
        base = language.replace("_", "-").split("-", 1)[0].casefold()
        return base if base in self.commands else DEFAULT_LANGUAGE

    def match(self, text: str, language: str, *, expecting_answer: bool = False) -> LocalMatch | None:
        """Return the common command `text` asks for, or None (not one, or ambiguous): the model gets it.

        `expecting_answer`: the agent asked a question (which release, film or season), so a bare answer
        ("the second one", "the 4K one", "season two") is understood as `answer_option`; otherwise it is not.
        A language without its own templates is matched with the English ones.
        """
        return match_sentence(
            self.commands[self.language_of(language)], text, expecting_answer=expecting_answer
        )

    def response(self, language: str, key: str, **placeholders: Any) -> str:
        """Return answer `key` in `language` (English for a language without answers), placeholders filled.

        Text values are clipped: they come from outside (torrent names, TMDB titles).
        Raises KeyError for an unknown key or a missing placeholder.
        """
        answers = self.answers[self.language_of(language)]
        return answers.answers[key].format_map(_clipped(placeholders))

    def news_name(self, language: str, data: Mapping[str, Any]) -> str:
        """Return how news names what it is about: its title, an episode as people say it, or the release."""
        what = str(data.get("title") or data.get("name") or "?")
        season, episode = data.get("season"), data.get("episode")
        if data.get("title") and isinstance(season, int) and isinstance(episode, int):
            return self.response(language, "episode_name", title=what, season=season, episode=episode)
        return clip(what, MAX_SPOKEN_TITLE)

    def error(self, language: str, code: str, **placeholders: Any) -> str:
        """Return the answer for a tool error code ("not_found", "path_not_found" takes `path`, …)."""
        answers = self.answers[self.language_of(language)].answers
        key = f"error_{code}" if f"error_{code}" in answers else "error_other"
        return answers[key].format_map(_clipped(placeholders))

    def folder_label(self, language: str, folder: str) -> str:
        """Return how a folder is said: "movie" → "movies folder", a custom name → "<name> folder"."""
        folders = self.answers[self.language_of(language)].folders
        if folder in folders:
            return folders[folder]
        return folders["other"].format_map(_clipped({"folder": folder.replace("_", " ")}))

    def count(self, language: str, noun: str, count: Any) -> str:
        """Return a count with its noun in the right form: "1 seeder", "12 seeders"."""
        answers = self.answers[self.language_of(language)]
        number = count if isinstance(count, int) and not isinstance(count, bool) else 0
        form = "one" if number in answers.plural_one else "other"
        return answers.counts[noun][form].format(count=number)

    def join(self, language: str, items: Iterable[str], *, separator: str | None = None) -> SpokenList:
        """Join entries for speech: "a, b and c" (or each after `separator`: "a; b; c").

        Entries are kept whole: past `MAX_SPOKEN_LIST` characters the last ones are left out instead.
        """
        listed: list[str] = []
        length = 0
        for item in items:
            length += len(item) + len(separator or ", ")
            if listed and length > MAX_SPOKEN_LIST:
                break
            listed.append(item)
        if separator is not None or len(listed) < 2:  # noqa: PLR2004
            return SpokenList((separator or "").join(listed))
        list_and = self.answers[self.language_of(language)].list_and
        return SpokenList(", ".join(listed[:-1]) + list_and + listed[-1])


def spoken_title(text: Any) -> str:
    """Return a title short enough for a spoken list, cut at a word: "Night of the Living Dead"."""
    title = clip(text, MAX_SPOKEN_TITLE * 4)
    if len(title) <= MAX_SPOKEN_TITLE:
        return title
    cut = title[:MAX_SPOKEN_TITLE].rsplit(" ", 1)[0] or title[:MAX_SPOKEN_TITLE]
    return cut.rstrip(" ,;:-") + "…"


def spoken_quality(name: str) -> str:
    """Return a release's quality as people say it ("2160p Blu-ray", "720p"); "" when its name says none."""
    return _quality(parse_release(name))


def spoken_release(name: str) -> str:
    """Return a release name as people say it: "Sintel, 2160p Blu-ray", "Pioneer One S01E02, 720p HDTV"."""
    parsed = parse_release(name)
    title = spoken_title(parsed.title or name)
    if parsed.seasons:
        title += f" S{parsed.seasons[0]:02d}"
        if len(parsed.seasons) > 1:
            title += f"-S{parsed.seasons[-1]:02d}"
        elif parsed.episodes:
            title += f"E{parsed.episodes[0]:02d}"
    quality = _quality(parsed)
    return f"{title}, {quality}" if quality else title


def _quality(parsed: ParsedRelease) -> str:
    return " ".join(part for part in (parsed.resolution, SOURCE_WORDS.get(parsed.source or "")) if part)


async def async_load_sentences(hass: HomeAssistant) -> LocalSentences:
    """Return the local sentences, parsed in the executor on first use and shared by every entry."""
    if (loading := hass.data.get(_DATA_SENTENCES)) is None:
        loading = hass.data[_DATA_SENTENCES] = hass.async_add_executor_job(LocalSentences.load)
    try:
        return await loading
    except Exception:
        hass.data.pop(_DATA_SENTENCES, None)  # a later caller tries again
        raise


def _load_answers(path: Path) -> LanguageAnswers:
    spec = cast("dict[str, Any]", load_yaml(path))
    return LanguageAnswers(
        answers=spec["answers"],
        folders=spec["folders"],
        counts=spec["counts"],
        plural_one=frozenset(spec["plural_one"]),
        list_and=spec["list_and"],
    )


def _clipped(placeholders: dict[str, Any]) -> dict[str, Any]:
    """Clip outside text to a slot's length; a spoken list, made of clipped entries, is taken whole."""
    return {
        key: value[:MAX_SLOT_CHARS] if isinstance(value, str) and not isinstance(value, SpokenList) else value
        for key, value in placeholders.items()
    }
