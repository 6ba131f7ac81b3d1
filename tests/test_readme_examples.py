"""The README's own Assist examples, read from README.md and said to the real agent against the stand-ins.

"## Using it with Assist" quotes them in two places: the bullet list (typed in Assist, with a model) and
the paragraph "**Without a model call.**" (English, then "French:", "German:", "Spanish:"), which promises no
model call. Each sentence must be understood: a common command read locally with a real title (never the whole
phrase as one), any other sentence handed whole to the model, and never "Sorry, I didn't understand that."
In the quotes, "…" stands for a title, "(in 4K)" for words one may add, and "pause / resume / cancel Sintel"
for three sentences.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
import re
from typing import TYPE_CHECKING

import pytest

from custom_components.agent_media.sentences import async_load_sentences
from homeassistant.components import conversation
from homeassistant.core import Context
from homeassistant.util import dt as dt_util

from .test_conversation import agent_id, speech

if TYPE_CHECKING:
    from pytest_homeassistant_custom_component.common import MockConfigEntry

    from homeassistant.core import HomeAssistant

    from .rig.llm_server import ScriptedLLMServer
    from .rig.tmdb_server import TMDBServer

pytestmark = pytest.mark.usefixtures("core_setup")

README = Path(__file__).parents[1] / "README.md"
PLACEHOLDER_TITLE = "Pioneer One"  # what "…" stands for: a show of the TMDB stand-in
KNOWN_TITLES = frozenset({"Night of the Living Dead", "Sintel", "Pioneer One", "Nosferatu"})
LANGUAGE_LABELS = {"French": "fr", "German": "de", "Spanish": "es"}
PIONEER_ID = 900001

# The same sentence in the four languages the local sentences speak.
SEASON_AND_EPISODE = [
    ("en", "Download season 1 episode 2 of Pioneer One"),
    ("fr", "télécharge la saison 1 épisode 2 de Pioneer One"),
    ("de", "lade Staffel 1 Folge 2 von Pioneer One herunter"),
    ("es", "descarga la temporada 1 episodio 2 de Pioneer One"),
]


def _expand(quoted: str) -> list[str]:
    """Return the sentences one quote of the README stands for."""
    sentence = quoted.replace("…", PLACEHOLDER_TITLE)
    if (optional := re.search(r"\s*\(([^)]*)\)", sentence)) is not None:
        without = sentence[: optional.start()] + sentence[optional.end() :]
        with_it = f"{sentence[: optional.start()]} {optional.group(1)}{sentence[optional.end() :]}"
        return [*_expand(without), *_expand(with_it)]
    if (choices := re.fullmatch(r"((?:\w+ / )+\w+) (.+)", sentence)) is not None:
        return [f"{verb} {choices.group(2)}" for verb in choices.group(1).split(" / ")]
    return [sentence]


def readme_examples() -> list[tuple[str, str, bool]]:
    """Return (language, sentence, whether the README promises no model call) in the README's order."""
    text = README.read_text(encoding="utf-8")
    section = text.split("\n## Using it with Assist\n", 1)[1].split("\n## ", 1)[0]
    bullets = [line for line in section.splitlines() if line.startswith("- ")]
    local = section.split("**Without a model call.**", 1)[1].split("When the answer is a question", 1)[0]
    parts = re.split(rf"\b({'|'.join(LANGUAGE_LABELS)}):", local)
    examples = [
        ("en", sentence, False)
        for line in bullets
        for quoted in re.findall(r'"([^"]+)"', line)
        for sentence in _expand(quoted)
    ]
    for label, part in zip(["English", *parts[1::2]], parts[0::2], strict=True):
        language = LANGUAGE_LABELS.get(label, "en")
        examples += [
            (language, sentence, True)
            for quoted in re.findall(r'"([^"]+)"', part)
            for sentence in _expand(quoted)
        ]
    return examples


def test_the_readme_is_read_as_the_test_expects() -> None:
    """A change of the README's layout must not leave this test with nothing to say."""
    examples = readme_examples()
    assert ("en", "Download season 1 episode 2 of Pioneer One", False) in examples
    assert ("en", "find torrents for Sintel in 4K", True) in examples
    assert ("en", "cancel Sintel", True) in examples
    assert {language for language, _sentence, promised in examples if promised} == {"en", "fr", "de", "es"}


@pytest.fixture
def pioneer_one_aired(tmdb_server: TMDBServer) -> None:
    """Pioneer One's first season aired long ago, so following it has episodes to fetch."""
    aired = dt_util.utcnow().date() - timedelta(days=400)
    tmdb_server.set_air_dates(PIONEER_ID, {1: [aired, aired + timedelta(days=7)]})


@pytest.fixture
def local_entry(pioneer_one_aired: None, local_entry: MockConfigEntry) -> MockConfigEntry:
    """The README's entry (conftest's), set up once the air dates are known."""
    return local_entry


async def _say(hass: HomeAssistant, entry: MockConfigEntry, sentence: str, language: str) -> str:
    result = await conversation.async_converse(
        hass, sentence, None, Context(), language=language, agent_id=agent_id(hass, entry)
    )
    return speech(result)


def _said_to_the_model(llm_server: ScriptedLLMServer, sentence: str) -> bool:
    messages = llm_server.requests[-1]["messages"] if llm_server.requests else []
    return any(message["role"] == "user" and sentence in str(message["content"]) for message in messages)


async def test_every_readme_example_is_understood(
    hass: HomeAssistant, local_entry: MockConfigEntry, llm_server: ScriptedLLMServer
) -> None:
    sentences = await async_load_sentences(hass)
    misread: list[str] = []
    for language, sentence, promised_local in readme_examples():
        found = sentences.match(sentence, language)
        model_calls = len(llm_server.requests)
        if found is None:
            llm_server.queue_text("Done.")
        answer = await _say(hass, local_entry, sentence, language)
        if answer == sentences.response(language, "not_understood"):
            misread.append(f"{sentence!r}: not understood")
        elif found is not None:
            named = {found.slots[slot] for slot in ("title", "name") if slot in found.slots}
            if not named <= KNOWN_TITLES:
                misread.append(f"{sentence!r}: read as {found.intent} of {named}")
            if len(llm_server.requests) != model_calls:
                misread.append(f"{sentence!r}: asked the model")
        elif promised_local:
            misread.append(f"{sentence!r}: the README promises no model call, but the model got it")
        elif not _said_to_the_model(llm_server, sentence):
            misread.append(f"{sentence!r}: neither understood locally nor handed to the model")
    assert misread == []


@pytest.mark.parametrize(("language", "sentence"), SEASON_AND_EPISODE)
async def test_season_and_episode_of_a_show_in_every_language(
    hass: HomeAssistant, language: str, sentence: str
) -> None:
    sentences = await async_load_sentences(hass)

    found = sentences.match(sentence, language)

    assert found is not None
    assert (found.intent, found.slots) == (
        "download_media",
        {"title": "Pioneer One", "season": 1, "episode": 2},
    )
