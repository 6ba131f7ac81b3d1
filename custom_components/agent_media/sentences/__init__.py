"""The common commands, understood and answered without a model, in English, French, German and Spanish.

`async_load_sentences(hass)` parses the templates once (in the executor) and caches them for every entry;
`LocalSentences.match` reads a sentence into a `LocalMatch` (None when it is not a common command or is
ambiguous: the model gets it), `LocalSentences.response` says the answer in the person's language.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, cast

from homeassistant.util.hass_dict import HassKey
from homeassistant.util.yaml import load_yaml

from ..const import DOMAIN
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
    from collections.abc import Iterable

    from homeassistant.core import HomeAssistant

__all__ = [
    "DEFAULT_LANGUAGE",
    "LocalIntent",
    "LocalMatch",
    "LocalSentences",
    "async_load_sentences",
]

DEFAULT_LANGUAGE: Final = "en"
_HERE: Final = Path(__file__).parent
_DATA_SENTENCES: HassKey[asyncio.Future[LocalSentences]] = HassKey(f"{DOMAIN}_sentences")


@dataclass(frozen=True, slots=True)
class LanguageAnswers:
    """One language's answer sentences."""

    answers: dict[str, str]
    folders: dict[str, str]
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

    def join(self, language: str, items: Iterable[str]) -> str:
        """Join items for speech: "a, b and c"."""
        listed = [str(item)[:MAX_SLOT_CHARS] for item in items]
        if len(listed) < 2:  # noqa: PLR2004
            return "".join(listed)
        return ", ".join(listed[:-1]) + self.answers[self.language_of(language)].list_and + listed[-1]


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
    return LanguageAnswers(answers=spec["answers"], folders=spec["folders"], list_and=spec["list_and"])


def _clipped(placeholders: dict[str, Any]) -> dict[str, Any]:
    return {
        key: value[:MAX_SLOT_CHARS] if isinstance(value, str) else value
        for key, value in placeholders.items()
    }
