"""The common commands heard without a model: hassil templates per language, read into typed slots.

hassil is the sentence-template matcher Home Assistant's own conversation agent uses, so it is always
installed alongside Home Assistant. A sentence is matched against every template of its language; among
the readings found, those with the fewest wildcards, the most literal text and the least wildcard text are
the best. One best reading is the match; several different ones are ambiguous and give None, as does no
reading at all: the sentence then goes to the model.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
import re
from typing import TYPE_CHECKING, Any, Final, cast

from hassil.intents import Intents, TextSlotList
from hassil.recognize import recognize_all
from unicode_rbnf import FormatPurpose, RbnfEngine

from homeassistant.util.yaml import load_yaml

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping
    from pathlib import Path

    from hassil.intents import SlotList
    from hassil.recognize import RecognizeResult

# Longer sentences go to the model: no command is this long, and matching time grows with the length.
MAX_SENTENCE_CHARS: Final = 200
MAX_SLOT_CHARS: Final = 200
# Ordinals are spelled out up to the most results a search keeps ("the fiftieth").
MAX_ORDINAL: Final = 50

_WILDCARD_SLOTS: Final = frozenset({"title", "name", "path", "player"})
_INT_SLOTS: Final = frozenset({"index", "season", "episode", "year"})
# List names that fill another slot: {ordinal} is an index, {folder_content} ("movies") a folder.
_SLOT_OF_LIST: Final = {"ordinal": "index", "folder_content": "folder"}
_TYPOGRAPHIC: Final = str.maketrans(
    {"\u2019": "'", "\u2018": "'", "\u02bc": "'", "\u201a": "'"}
    | dict.fromkeys(("\u201c", "\u201d", "\u201e", "\u00ab", "\u00bb", "\u2039", "\u203a"), '"')
)  # typographic apostrophes and quotes (phones type them) to the ASCII ones the templates use
_TRIMMED: Final = "\"'` ,-"  # quotes, and what is left of a compound: "den Sintel-Download" → "Sintel-"
_EPISODE_CODE = re.compile(r"\s+s(\d{1,2})\s?e(\d{1,3})$", re.IGNORECASE)
_HAS_WORD = re.compile(r"\w")


class LocalIntent(StrEnum):
    """What a locally matched sentence asks for."""

    SEARCH_TORRENTS = "search_torrents"
    DOWNLOAD_INDEX = "download_index"
    DOWNLOAD_MEDIA = "download_media"
    SET_FOLDER = "set_folder"
    WHATS_NEW = "whats_new"
    LIST_DOWNLOADS = "list_downloads"
    PAUSE = "pause"
    RESUME = "resume"
    CANCEL = "cancel"
    ANSWER_OPTION = "answer_option"
    HELP = "help"
    WANT = "want"
    LIST_WANTED = "list_wanted"
    FORGET_WANTED = "forget_wanted"
    FOLLOW_SHOW = "follow_show"
    UNFOLLOW_SHOW = "unfollow_show"
    SUBSCRIBE = "subscribe"
    UNSUBSCRIBE = "unsubscribe"
    PLAY_MEDIA = "play_media"


@dataclass(frozen=True, slots=True)
class LocalMatch:
    """A sentence understood without the model.

    Slots, only those the sentence gave: `index`, `season`, `episode`, `year` (int); `title`, `name`,
    `path` (text as said; a path is absolute), `player` (a media player's name as said); `quality` ("2160p",
    "1080p", "720p"); `folder` ("download", "movie", "tv_show", "torrent"); `media_type` ("movie", "tv");
    `all` (True).
    """

    intent: LocalIntent
    slots: dict[str, Any]


@dataclass(frozen=True, slots=True)
class LanguageCommands:
    """One language's parsed templates and what hassil does not do for us."""

    intents: Intents
    ordinals: Mapping[str, int]  # every spoken or written form, casefolded
    ordinal_forms: re.Pattern[str]
    leading_words: re.Pattern[str]
    trailing_words: re.Pattern[str]
    not_names: frozenset[str]  # casefolded
    path_separator: re.Pattern[str] | None

    def slot_lists(self, text: str) -> dict[str, SlotList]:
        """Return the lists built here for `text`: only the ordinals it holds.

        hassil 2 tries every value of a list in turn; hundreds of ordinal forms made a sentence cost ms.
        """
        found = {form.casefold() for form in self.ordinal_forms.findall(text)}
        return {
            "ordinal": TextSlotList.from_tuples(
                ((form, self.ordinals[form]) for form in found), allow_template=False, name="ordinal"
            )
        }


def load_language(path: Path) -> LanguageCommands:
    """Parse one language's command file. Blocking: reads the file and parses every template."""
    spec = cast("dict[str, Any]", load_yaml(path))
    # Keys of ours; the rest is hassil's format. Skip words are stripped here, at the ends only: hassil
    # drops them anywhere, even inside a title ("Apocalypse Now"), and its versions differ on it.
    ordinal_suffixes: list[str] = spec.pop("ordinal_suffixes")
    extra_ordinals: dict[str, int] = spec.pop("extra_ordinals", {})
    separator_words: list[str] = spec.pop("path_separator_words", [])
    leading: list[str] = spec.pop("leading_words")
    trailing: list[str] = spec.pop("trailing_words")
    warm_up: list[str] = spec.pop("warm_up")
    not_names: list[str] = spec.pop("not_names")
    intents = Intents.from_dict(spec)
    ordinals = _ordinals(intents.language, ordinal_suffixes) | {
        form.casefold(): number for form, number in extra_ordinals.items()
    }
    commands = LanguageCommands(
        intents=intents,
        ordinals=ordinals,
        ordinal_forms=re.compile(
            rf"(?<!\w)(?:{'|'.join(map(re.escape, sorted(ordinals, key=len, reverse=True)))})(?!\w)",
            re.IGNORECASE,
        ),
        leading_words=_edge_words(leading, at_start=True),
        trailing_words=_edge_words(trailing, at_start=False),
        not_names=frozenset(word.casefold() for word in not_names),
        path_separator=(
            re.compile(rf"\s*\b(?:{'|'.join(map(re.escape, separator_words))})\b\s*", re.IGNORECASE)
            if separator_words
            else None
        ),
    )
    for sentence in warm_up:
        match_sentence(commands, sentence)
    return commands


def _ordinals(language: str, suffixes: Iterable[str]) -> dict[str, int]:
    """Return the {ordinal} forms: CLDR's spelled-out ordinals in all genders and cases, digits + suffixes."""
    engine = RbnfEngine.for_language(language)
    values: dict[str, int] = {}
    for number in range(1, MAX_ORDINAL + 1):
        spelled = engine.format_number(number, purpose=FormatPurpose.ORDINAL).text_by_ruleset.values()
        for words in spelled:
            values.setdefault(words.casefold(), number)
            values.setdefault(words.casefold().replace("-", " "), number)
        for suffix in suffixes:
            values.setdefault(f"{number}{suffix}".casefold(), number)
    return values


def _edge_words(words: Iterable[str], *, at_start: bool) -> re.Pattern[str]:
    """Return a pattern for any run of these words (and commas) at the start or the end of a sentence."""
    alternatives = "|".join(re.escape(word) for word in sorted(words, key=len, reverse=True))
    run = rf"(?:(?:{alternatives})\b[\s,]*)+" if at_start else rf"(?:[\s,]+(?:{alternatives}))+[\s.!?]*"
    return re.compile(rf"^[\s,¿¡]*{run}" if at_start else rf"{run}$", re.IGNORECASE)


def match_sentence(
    commands: LanguageCommands, text: str, *, expecting_answer: bool = False
) -> LocalMatch | None:
    """Return the one best reading of `text`, or None when there is none or several.

    `expecting_answer`: the agent asked a question, so a bare answer ("the second one") is understood.
    """
    readings = best_readings(commands, text, expecting_answer=expecting_answer)
    return readings[0] if len(readings) == 1 else None


type _Reading = tuple[LocalIntent, tuple[tuple[str, Any], ...]]  # intent and sorted slots: hashable


def best_readings(
    commands: LanguageCommands, text: str, *, expecting_answer: bool = False
) -> list[LocalMatch]:
    """Return the different readings of `text` that are best, equally: none, one, or several (ambiguous).

    No reading either when a best one names nothing usable ("download it", a relative path): a worse reading
    ("es bitte" as the title of "lade es bitte herunter") would be a wrong one.
    """
    if len(text) > MAX_SENTENCE_CHARS:
        return []
    text = _strip_edges(commands, text.translate(_TYPOGRAPHIC))
    if not text:
        return []
    best_score: tuple[int, int, int] | None = None
    best: dict[_Reading | None, None] = {}  # an ordered set; None stands for an unusable reading
    for result in recognize_all(
        text, commands.intents, slot_lists=commands.slot_lists(text), language=commands.intents.language
    ):
        intent = LocalIntent(result.intent.name)
        if intent is LocalIntent.ANSWER_OPTION and not expecting_answer:
            continue
        score = _score(result)
        if best_score is not None and score > best_score:
            continue
        if best_score is None or score < best_score:
            best_score, best = score, {}
        slots = _typed_slots(commands, result)
        best[None if slots is None else (intent, tuple(sorted(slots.items())))] = None
    if None in best:
        return []
    return [LocalMatch(intent=intent, slots=dict(slot_items)) for intent, slot_items in filter(None, best)]


def _strip_edges(commands: LanguageCommands, text: str) -> str:
    """Drop politeness around the command ("please", "can you", "for me") and the final punctuation."""
    text = commands.leading_words.sub("", text.strip())
    text = commands.trailing_words.sub("", text)
    return text.strip()


def _score(result: RecognizeResult) -> tuple[int, int, int]:
    """Lower is better: fewer wildcards, more literal text matched, less text swallowed by wildcards."""
    wildcards = [entity for entity in result.entities_list if entity.is_wildcard]
    return (len(wildcards), -result.text_chunks_matched, sum(len(entity.text) for entity in wildcards))


def _typed_slots(commands: LanguageCommands, result: RecognizeResult) -> dict[str, Any] | None:
    """Return the reading's slots, typed and checked, or None when a value cannot be what it stands for."""
    slots: dict[str, Any] = {}
    for entity in result.entities_list:
        slot = _SLOT_OF_LIST.get(entity.name, entity.name)
        if slot in _WILDCARD_SLOTS:
            value = _clean_text(str(entity.value))
            if value is None or value.casefold() in commands.not_names:
                return None
            slots[slot] = value
        elif slot in _INT_SLOTS:
            slots[slot] = int(entity.value)
        else:
            slots[slot] = entity.value
    if "path" in slots:
        path = _spoken_path(commands, slots["path"])
        if path is None:
            return None
        slots["path"] = path
    if "title" in slots and "season" not in slots:
        _split_episode_code(slots)
    return slots


def _clean_text(text: str) -> str | None:
    """Return a free-text slot without surrounding quotes and spaces, or None when it is no name at all."""
    text = " ".join(text.split()).strip(_TRIMMED)
    if not _HAS_WORD.search(text) or len(text) > MAX_SLOT_CHARS:
        return None
    return text


def _spoken_path(commands: LanguageCommands, text: str) -> str | None:
    """Return an absolute path, also from words ("slash media slash films"), else None."""
    if commands.path_separator is not None and "/" not in text:
        text = commands.path_separator.sub("/", f" {text}")
    return text if text.startswith("/") else None


def _split_episode_code(slots: dict[str, Any]) -> None:
    """Move a trailing "S02E03" from the title into the season and episode slots."""
    if (code := _EPISODE_CODE.search(slots["title"])) is not None:
        slots["title"] = slots["title"][: code.start()]
        slots["season"], slots["episode"] = int(code.group(1)), int(code.group(2))


def language_files(directory: Path) -> Mapping[str, Path]:
    """Return the YAML file of each language in `directory`, by language code."""
    return {path.stem: path for path in sorted(directory.glob("*.yaml"))}
