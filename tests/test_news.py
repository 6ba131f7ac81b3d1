"""The registry of news kinds: each is told to the model, said in every language, and has its bus event."""

from __future__ import annotations

from typing import TYPE_CHECKING

from custom_components.agent_media.agent.prompt import build_memory_view
from custom_components.agent_media.const import (
    EVENT_DOWNLOAD_COMPLETED,
    EVENT_DOWNLOAD_FAILED,
    EVENT_DOWNLOAD_REPLACED,
    EVENT_DOWNLOAD_STOPPED,
)
from custom_components.agent_media.memory import AgentMediaMemory
from custom_components.agent_media.news import NEWS, NewsKind
from custom_components.agent_media.sentences import LocalSentences

if TYPE_CHECKING:
    from homeassistant.core import HomeAssistant

LANGUAGES = {"en", "fr", "de", "es"}
# The kinds with no bus event of their own, by design (docs/architecture.md): a refused add is no download,
# and a wanted title that was added is told to automations by agent_media_download_added.
WITHOUT_BUS_EVENT = {NewsKind.REFUSED, NewsKind.REFUSED_FAKE, NewsKind.WANTED_ADDED}
PUBLIC_EVENTS = {
    EVENT_DOWNLOAD_COMPLETED,
    EVENT_DOWNLOAD_REPLACED,
    EVENT_DOWNLOAD_FAILED,
    EVENT_DOWNLOAD_STOPPED,
}


def test_every_kind_has_its_prompt_text_sentence_and_event() -> None:
    assert set(NEWS) == set(NewsKind)
    for kind, telling in NEWS.items():
        assert telling.prompt_text.strip(), kind
        assert telling.prompt_text != kind.value, kind  # words for the model, not the journal's type
        assert telling.sentence_key.startswith("event_"), kind
        if kind in WITHOUT_BUS_EVENT:
            assert telling.bus_event is None, kind
        else:
            assert telling.bus_event in PUBLIC_EVENTS
    bus_events = [telling.bus_event for telling in NEWS.values() if telling.bus_event is not None]
    assert len(bus_events) == len(set(bus_events))  # one kind per bus event


async def test_every_kind_is_said_in_every_language(hass: HomeAssistant) -> None:
    sentences = await hass.async_add_executor_job(LocalSentences.load)
    assert set(sentences.answers) == LANGUAGES
    for language in LANGUAGES:
        for kind, telling in NEWS.items():
            said = sentences.response(
                language, telling.sentence_key, name="Sintel", title="Sintel", release="Sintel.2010.1080p"
            )
            assert "Sintel" in said, (language, kind)


async def test_the_model_is_told_each_kind_in_words(hass: HomeAssistant) -> None:
    for kind, telling in NEWS.items():  # one at a time: the view shows a few news items, then "and N more"
        memory = AgentMediaMemory(hass, f"news_{kind.value}")
        await memory.async_load()
        memory.journal.add_event(kind.value, {"name": f"Pioneer.One.{kind.value}", "title": "Pioneer One"})
        text = build_memory_view(memory, "system", None, "en").text
        assert telling.prompt_text in text, kind
        assert f'"{kind.value}"' not in text, kind  # never the raw journal type (it was, for wanted_added)
