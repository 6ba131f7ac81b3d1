"""The common commands matched locally with hassil, and the answers said back, in every language."""

from __future__ import annotations

import asyncio
from pathlib import Path
import random
import string
from typing import TYPE_CHECKING, Any

import pytest

from custom_components.agent_media.sentences import (
    DEFAULT_LANGUAGE,
    LocalIntent,
    LocalMatch,
    LocalSentences,
    async_load_sentences,
)
from custom_components.agent_media.sentences.matcher import (
    MAX_SENTENCE_CHARS,
    MAX_SLOT_CHARS,
    best_readings,
    load_language,
    match_sentence,
)
from homeassistant.util.yaml import load_yaml

if TYPE_CHECKING:
    from homeassistant.core import HomeAssistant

SENTENCES_DIR = Path(__file__).parent.parent / "custom_components" / "agent_media" / "sentences"
CASES_DIR = Path(__file__).parent / "sentences"
LANGUAGES = ("en", "fr", "de", "es")
QUALITIES = {"2160p", "1080p", "720p"}
FOLDERS = {"download", "movie", "tv_show", "torrent"}
# The tool error codes (errors.py) a local turn can meet.
ERROR_CODES = (
    "not_found",
    "bad_args",
    "path_not_found",
    "not_a_directory",
    "not_readable",
    "invalid_path",
    "not_allowed",
    "cannot_connect",
    "rate_limited",
    "invalid_auth",
    "bad_response",
    "rejected",
    "dangerous_files",
    "internal_error",
)


def _cases() -> dict[str, dict[str, Any]]:
    """tests/sentences/<language>.yaml: what people say, and what the lead's operations must receive."""
    cases = {}
    for language in LANGUAGES:
        spec = load_yaml(CASES_DIR / f"{language}.yaml")
        assert isinstance(spec, dict)
        cases[language] = spec
    return cases


CASES = _cases()
COMMANDS = [
    (language, text, LocalIntent(intent), slots)
    for language, spec in CASES.items()
    for intent, examples in spec["commands"].items()
    for text, slots in examples
]
ANSWERS = [(language, text, slots) for language, spec in CASES.items() for text, slots in spec["answers"]]
NOT_COMMANDS = [(language, text) for language, spec in CASES.items() for text in spec["not_commands"]]
AMBIGUOUS = [(language, text) for language, spec in CASES.items() for text in spec["ambiguous"]]


@pytest.fixture(scope="module")
def sentences() -> LocalSentences:
    return LocalSentences.load()


@pytest.mark.parametrize(("language", "text", "intent", "slots"), COMMANDS)
def test_command_is_understood_with_its_slots(
    sentences: LocalSentences, language: str, text: str, intent: LocalIntent, slots: dict[str, Any]
) -> None:
    assert sentences.match(text, language) == LocalMatch(intent=intent, slots=slots)


@pytest.mark.parametrize(("language", "text", "slots"), ANSWERS)
def test_spoken_answer_is_understood_only_while_a_question_waits(
    sentences: LocalSentences, language: str, text: str, slots: dict[str, Any]
) -> None:
    assert sentences.match(text, language, expecting_answer=True) == LocalMatch(
        LocalIntent.ANSWER_OPTION, slots
    )
    assert sentences.match(text, language) is None


@pytest.mark.parametrize(("language", "text"), NOT_COMMANDS)
def test_near_miss_goes_to_the_model(sentences: LocalSentences, language: str, text: str) -> None:
    assert sentences.match(text, language) is None


@pytest.mark.parametrize(("language", "text"), AMBIGUOUS)
def test_ambiguous_sentence_goes_to_the_model(sentences: LocalSentences, language: str, text: str) -> None:
    assert sentences.match(text, language) is None
    readings = best_readings(sentences.commands[language], text)
    assert {reading.intent for reading in readings} == {LocalIntent.PAUSE, LocalIntent.CANCEL}
    assert all(reading.slots == {"name": "Sintel"} for reading in readings)


def test_ambiguity_is_two_equal_readings_not_a_missing_one(tmp_path: Path) -> None:
    """The same words as two intents: None. The template alone in one intent: that intent."""
    (tmp_path / "en.yaml").write_text(
        """
language: en
ordinal_suffixes: ["th"]
leading_words: ["please"]
trailing_words: ["please"]
warm_up: []
not_names: ["it"]
lists:
  name: {wildcard: true}
intents:
  pause:
    data: [{sentences: ["halt {name}", "freeze {name}"]}]
  cancel:
    data: [{sentences: ["halt {name}", "drop {name}"]}]
""",
        encoding="utf-8",
    )
    commands = load_language(tmp_path / "en.yaml")
    assert match_sentence(commands, "halt Sintel") is None
    assert match_sentence(commands, "freeze Sintel") == LocalMatch(LocalIntent.PAUSE, {"name": "Sintel"})
    assert match_sentence(commands, "please drop Sintel please") == LocalMatch(
        LocalIntent.CANCEL, {"name": "Sintel"}
    )


def test_the_reading_with_more_literal_words_wins(sentences: LocalSentences) -> None:
    """A title could swallow the rest ("Sintel in 4K"); the reading that reads the quality wins."""
    assert sentences.match("download Sintel in 4K", "en") == LocalMatch(
        LocalIntent.DOWNLOAD_MEDIA, {"title": "Sintel", "quality": "2160p"}
    )
    # "the 2nd one" is no title: the ordinal reading has no wildcard at all.
    assert sentences.match("download the 2nd one", "en") == LocalMatch(
        LocalIntent.DOWNLOAD_INDEX, {"index": 2}
    )
    # "remove X" would cancel a download named "X from my wanted list".
    assert sentences.match("remove Sintel from my wanted list", "en") == LocalMatch(
        LocalIntent.FORGET_WANTED, {"title": "Sintel"}
    )


def test_politeness_is_dropped_only_around_the_command(sentences: LocalSentences) -> None:
    assert sentences.match("Please, could you download Sintel for me, thanks!", "en") == LocalMatch(
        LocalIntent.DOWNLOAD_MEDIA, {"title": "Sintel"}
    )
    # Inside a title the same words stay.
    assert sentences.match("download Please Stand By", "en") == LocalMatch(
        LocalIntent.DOWNLOAD_MEDIA, {"title": "Please Stand By"}
    )
    assert sentences.match("download Ok Computer", "en") == LocalMatch(
        LocalIntent.DOWNLOAD_MEDIA, {"title": "Ok Computer"}
    )


def test_slot_values_have_their_types(sentences: LocalSentences) -> None:
    typed = (int, str, bool)
    for language, text, _, _ in COMMANDS:
        match = sentences.match(text, language)
        assert match is not None
        for slot, value in match.slots.items():
            assert isinstance(value, typed), (text, slot, value)
            if slot in {"index", "season", "episode", "year"}:
                assert type(value) is int, (text, slot, value)
            if slot == "quality":
                assert value in QUALITIES
            if slot == "folder":
                assert value in FOLDERS
            if slot == "path":
                assert value.startswith("/")


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        ("en-GB", "en"),
        ("fr-CA", "fr"),
        ("de_CH", "de"),
        ("es-419", "es"),
        ("FR", "fr"),
        ("it", "en"),
        ("", "en"),
    ],
)
def test_language_codes_map_to_their_base(sentences: LocalSentences, language: str, expected: str) -> None:
    assert sentences.language_of(language) == expected


def test_regional_variant_uses_its_language_and_others_english(sentences: LocalSentences) -> None:
    assert sentences.match("télécharge le deuxième", "fr-CA") == LocalMatch(
        LocalIntent.DOWNLOAD_INDEX, {"index": 2}
    )
    assert sentences.match("download the second one", "it-IT") == LocalMatch(
        LocalIntent.DOWNLOAD_INDEX, {"index": 2}
    )
    assert sentences.match("download the second one", "fr") is None


def test_every_language_has_every_intent(sentences: LocalSentences) -> None:
    assert sentences.languages == set(LANGUAGES) == set(sentences.answers)
    for language in LANGUAGES:
        assert set(sentences.commands[language].intents.intents) == {intent.value for intent in LocalIntent}
    covered = {(language, intent) for language, _, intent, _ in COMMANDS}
    covered |= {(language, LocalIntent.ANSWER_OPTION) for language, _, _ in ANSWERS}
    missing = {(language, intent) for language in LANGUAGES for intent in LocalIntent} - covered
    assert not missing, f"no test sentence for {sorted(missing)}"


def test_warm_up_sentences_match(sentences: LocalSentences) -> None:
    """They exist to fill hassil's caches while loading, which only a match does."""
    for language in LANGUAGES:
        spec = load_yaml(SENTENCES_DIR / "commands" / f"{language}.yaml")
        assert isinstance(spec, dict)
        assert spec["warm_up"]
        for text in spec["warm_up"]:
            assert sentences.match(text, language) is not None, (language, text)


def test_odd_input_is_no_command_and_raises_nothing(sentences: LocalSentences) -> None:
    rng = random.Random(1968)  # noqa: S311 - reproducible noise, not secrets
    alphabet = string.printable + "éèàçßäöü¿¡\u2019«»—🎬\u200b"
    odd = [
        "",
        " ",
        "?!",
        "...",
        "download " + "a" * MAX_SENTENCE_CHARS,
        "🎬🎬",
        "{title}",
        "<download>",
        "\x00",
    ]
    odd += ["".join(rng.choice(alphabet) for _ in range(rng.randint(1, 60))) for _ in range(300)]
    odd += [f"download {''.join(rng.choice(alphabet) for _ in range(20))}" for _ in range(100)]
    for text in odd:
        for language in LANGUAGES:
            match = sentences.match(text, language)
            if match is not None:  # random text after "download" may be a title: it must then be clean
                assert all(len(str(value)) <= MAX_SLOT_CHARS for value in match.slots.values())
                assert match.slots.get("title", "x").strip() == match.slots.get("title", "x")
    assert sentences.match("download " + "a" * MAX_SENTENCE_CHARS, "en") is None


def _answer_files() -> dict[str, dict[str, Any]]:
    files = {}
    for language in LANGUAGES:
        spec = load_yaml(SENTENCES_DIR / "answers" / f"{language}.yaml")
        assert isinstance(spec, dict)
        files[language] = spec
    return files


def _placeholders(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def test_every_answer_exists_in_every_language_with_the_same_placeholders() -> None:
    files = _answer_files()
    english = files[DEFAULT_LANGUAGE]
    for language, spec in files.items():
        assert spec["language"] == language
        for section in ("answers", "folders"):
            assert set(spec[section]) == set(english[section]), (language, section)
            for key, template in spec[section].items():
                assert template.strip(), (language, key)
                assert _placeholders(template) == _placeholders(english[section][key]), (language, key)


def test_every_error_code_has_an_answer(sentences: LocalSentences) -> None:
    for language in LANGUAGES:
        other = sentences.response(language, "error_other")
        for code in ERROR_CODES:
            said = sentences.error(language, code, path="/media/films")
            assert said != other, (language, code)
        assert sentences.error(language, "some_future_code") == other


def test_response_fills_placeholders_in_the_language(sentences: LocalSentences) -> None:
    def added(language: str) -> str:
        seeders = sentences.count(language, "seeders", 42)
        return sentences.response(language, "added", title="Sintel", quality="1080p Blu-ray", seeders=seeders)

    assert added("en") == "Added Sintel, 1080p Blu-ray, 42 seeders."
    assert added("fr-FR") == "Sintel ajouté, 1080p Blu-ray, 42 sources."
    assert added("de") == "Sintel hinzugefügt, 1080p Blu-ray, 42 Seeder."
    assert added("es") == "Añadido Sintel, 1080p Blu-ray, 42 semillas."
    assert added("it") == "Added Sintel, 1080p Blu-ray, 42 seeders."
    assert sentences.error("en", "path_not_found", path="/nowhere") == "/nowhere doesn't exist."


def test_response_clips_outside_text_and_reports_a_missing_placeholder(sentences: LocalSentences) -> None:
    said = sentences.response("en", "paused", name="x" * 5000)
    assert said == f"Paused {'x' * MAX_SLOT_CHARS}."
    # A torrent name holding braces stays text.
    assert sentences.response("en", "paused", name="{name} {0}") == "Paused {name} {0}."
    with pytest.raises(KeyError):
        sentences.response("en", "paused")
    with pytest.raises(KeyError):
        sentences.response("en", "no_such_answer")


def test_folder_labels_and_lists_for_speech(sentences: LocalSentences) -> None:
    assert sentences.folder_label("en", "movie") == "movies folder"
    assert sentences.folder_label("de", "movie") == "Filmordner"
    assert sentences.folder_label("en", "music_videos") == "music videos folder"
    set_folder = sentences.response(
        "fr", "folder_set", folder=sentences.folder_label("fr", "tv_show"), path="/srv/series"
    )
    assert set_folder == "C'est fait : le dossier des séries est maintenant /srv/series."
    assert (
        sentences.join("en", ["Sintel", "Nosferatu", "Big Buck Bunny"])
        == "Sintel, Nosferatu and Big Buck Bunny"
    )
    assert sentences.join("es", ["Sintel", "Nosferatu"]) == "Sintel y Nosferatu"
    assert sentences.join("de", ["Sintel"]) == "Sintel"
    assert not sentences.join("fr", [])


async def test_loaded_once_in_the_executor_and_shared(hass: HomeAssistant) -> None:
    first, second = await asyncio.gather(async_load_sentences(hass), async_load_sentences(hass))
    assert first is second
    assert await async_load_sentences(hass) is first
    assert first.match("what's new", "en") == LocalMatch(LocalIntent.WHATS_NEW, {})
