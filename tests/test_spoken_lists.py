"""Spoken lists never cut an entry: releases said as people say them, plurals, and a length budget."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import pytest

from custom_components.agent_media.agent.local import added_answer
from custom_components.agent_media.sentences import (
    LocalSentences,
    SpokenList,
    spoken_quality,
    spoken_release,
)
from custom_components.agent_media.sentences.matcher import MAX_SLOT_CHARS
from homeassistant.components import conversation
from homeassistant.core import Context

from .rig.knaben_server import _hit
from .test_conversation import agent_id, speech

if TYPE_CHECKING:
    from pytest_homeassistant_custom_component.common import MockConfigEntry

    from homeassistant.core import HomeAssistant

    from .rig.knaben_server import KnabenServer
    from .rig.qbittorrent import QBittorrentInstance

pytestmark = pytest.mark.usefixtures("core_setup")

# "Find torrents for Sintel" in each language, and how one listed release must read whole in it.
SEARCHES = {
    "en": ("Find torrents for Sintel", r"\d: Sintel, \d{3,4}p [\w-]+, [\d.]+ [kMGT]B, \d+ seeders?"),
    "fr": ("Cherche des torrents pour Sintel", r"\d : Sintel, \d{3,4}p [\w-]+, [\d.]+ [kMGT]B, \d+ sources?"),
    "de": ("Suche Torrents für Sintel", r"\d: Sintel, \d{3,4}p [\w-]+, [\d.]+ [kMGT]B, \d+ Seeder"),
    "es": ("Busca torrents de Sintel", r"\d: Sintel, \d{3,4}p [\w-]+, [\d.]+ [kMGT]B, \d+ semillas?"),
}
QUESTION = {
    "en": "Which one should I download?",
    "fr": "Lequel dois-je télécharger ?",
    "de": "Welchen soll ich herunterladen?",
    "es": "¿Cuál descargo?",
}


async def say(hass: HomeAssistant, entry: MockConfigEntry, text: str, language: str) -> str:
    result = await conversation.async_converse(
        hass, text, None, Context(), language=language, agent_id=agent_id(hass, entry)
    )
    return speech(result)


def listed_entries(answer: str, language: str) -> list[str]:
    """The entries of a results answer, between its opening words and its question."""
    listed = answer.split(": ", 1)[1] if language != "fr" else answer.split(" : ", 1)[1]
    assert listed.endswith(QUESTION[language]), answer
    return listed.removesuffix(QUESTION[language]).removesuffix(" ").removesuffix(".").split("; ")


@pytest.mark.parametrize("language", list(SEARCHES))
async def test_the_results_list_says_every_entry_whole(
    hass: HomeAssistant, local_entry: MockConfigEntry, qbittorrent: QBittorrentInstance, language: str
) -> None:
    text, entry_pattern = SEARCHES[language]
    answer = await say(hass, local_entry, text, language)
    entries = listed_entries(answer, language)
    assert len(entries) == 3, answer
    for entry in entries:
        assert re.fullmatch(entry_pattern, entry), (entry, answer)
    assert "PDGROUP" not in answer  # said as people say it, not as the file is named
    # The 2160p release, cut to "24.6" before, is said whole.
    assert any(
        entry.endswith(
            (
                "Sintel, 2160p Blu-ray, 24.6 GB, 120 seeders",
                "2160p Blu-ray, 24.6 GB, 120 sources",
                "Sintel, 2160p Blu-ray, 24.6 GB, 120 Seeder",
                "Sintel, 2160p Blu-ray, 24.6 GB, 120 semillas",
            )
        )
        for entry in entries
    ), answer


async def test_long_release_names_are_said_short_with_their_details(
    hass: HomeAssistant,
    local_entry: MockConfigEntry,
    qbittorrent: QBittorrentInstance,
    knaben_server: KnabenServer,
) -> None:
    words = " ".join(["Sintel", *(f"Director's Extended Cut Part {n}" for n in range(1, 6))])
    long_names = [
        _hit(
            f"{words} 2010 {quality} BluRay x264-GRP",
            label=f"long {quality}",
            size=8e9,
            seeders=10 + n,
            peers=1,
        )
        for n, quality in enumerate(("2160p", "1080p", "720p"))
    ]
    knaben_server.set_hits(long_names)
    answer = await say(hass, local_entry, "Find torrents for Sintel", "en")
    entries = listed_entries(answer, "en")
    assert len(entries) == 3, answer
    for entry in entries:
        # Each entry keeps its details: the title cut at a word, the quality, size and seeders all there.
        assert re.fullmatch(r"\d: [^,]+(…)?, \d{3,4}p Blu-ray, [\d.]+ GB, \d+ seeders?", entry), entry


def test_plural_forms_in_every_language(sentences: LocalSentences) -> None:
    said = {
        language: [sentences.count(language, "seeders", n) for n in (0, 1, 2)]
        for language in ("en", "fr", "de", "es")
    }
    assert said == {
        "en": ["0 seeders", "1 seeder", "2 seeders"],
        "fr": ["0 source", "1 source", "2 sources"],
        "de": ["0 Seeder", "1 Seeder", "2 Seeder"],
        "es": ["0 semillas", "1 semilla", "2 semillas"],
    }
    assert sentences.count("en", "seeders", None) == "0 seeders"  # an unknown count is said as none


def test_every_language_has_every_count() -> None:
    loaded = LocalSentences.load()
    english = loaded.answers["en"].counts
    for language, answers in loaded.answers.items():
        assert set(answers.counts) == set(english), language
        for forms in answers.counts.values():
            assert set(forms) == {"one", "other"}, language
            assert all("{count}" in form for form in forms.values()), language


@pytest.mark.parametrize(
    ("name", "said"),
    [
        ("Sintel.2010.2160p.UHD.BluRay.x265.10bit.HDR.DTS-HD.MA.5.1-PDGROUP", "Sintel, 2160p Blu-ray"),
        ("Sintel (2010) 720p WEBRip x264 AAC", "Sintel, 720p WEBRip"),
        ("Pioneer.One.S01E02.720p.HDTV.x264-GRP", "Pioneer One S01E02, 720p HDTV"),
        ("Pioneer One Season 1 Complete 1080p WEB-DL", "Pioneer One S01, 1080p WEB-DL"),
        ("Night.of.the.Living.Dead.1968.REMUX.1080p", "Night of the Living Dead, 1080p Blu-ray remux"),
        ("Nosferatu.1922", "Nosferatu"),
    ],
)
def test_a_release_is_said_as_people_say_it(name: str, said: str) -> None:
    assert spoken_release(name) == said


def test_quality_alone() -> None:
    assert spoken_quality("Sintel.2010.1080p.BluRay.x264.AAC-PDGROUP") == "1080p Blu-ray"
    assert not spoken_quality("Sintel")


def test_a_long_title_is_cut_at_a_word() -> None:
    said = spoken_release("The " + "Very " * 30 + "Long Film 1080p WEB-DL")
    title, quality = said.rsplit(", ", 1)
    assert quality == "1080p WEB-DL"
    assert title.endswith("Very…")
    assert len(title) <= 61


def test_join_keeps_whole_entries_within_the_budget(sentences: LocalSentences) -> None:
    entries = [f"{n}: " + "x" * 150 for n in range(1, 6)]
    joined = sentences.join("en", entries, separator="; ")
    assert isinstance(joined, SpokenList)
    assert joined.split("; ") == entries[:2]
    # One entry alone is always said, however long.
    assert sentences.join("en", ["y" * 900]) == "y" * 900
    # A list is taken whole by an answer; plain outside text is still clipped.
    assert len(sentences.response("en", "news", events=sentences.join("en", entries[:2]))) > MAX_SLOT_CHARS
    assert sentences.response("en", "paused", name="z" * 900) == f"Paused {'z' * MAX_SLOT_CHARS}."


@pytest.fixture(scope="module")
def sentences() -> LocalSentences:
    return LocalSentences.load()


def test_what_was_added_is_said_with_its_quality_and_plural(sentences: LocalSentences) -> None:
    sintel = {"title": "Sintel", "year": 2010}
    name = "Sintel.2010.2160p.UHD.BluRay.x265.10bit.HDR.DTS-HD.MA.5.1-PDGROUP"
    assert added_answer(sentences, "en", sintel, name, 1) == "Added Sintel (2010), 2160p Blu-ray, 1 seeder."
    assert added_answer(sentences, "fr", sintel, name, 0) == "Sintel (2010) ajouté, 2160p Blu-ray, 0 source."
    assert added_answer(sentences, "de", sintel, name) == "Sintel (2010) hinzugefügt, 2160p Blu-ray."
    # No film known: the release as people say it; no quality known: the film alone.
    assert (
        added_answer(sentences, "es", None, "Sintel (2010) 720p WEBRip x264 AAC")
        == "Añadido Sintel, 720p WEBRip."
    )
    assert added_answer(sentences, "en", sintel, "sintel-sample.mkv", 5) == "Added Sintel (2010)."
