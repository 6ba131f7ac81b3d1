"""An indexer's API key, in every .torrent link it gives, reaches nothing but the download itself.

Real rig: the Torznab stand-in gives .torrent links only (the key in each, no hash, no magnet), the model is
the scripted LLM server, the downloads go to qbittorrent-nox. Where the key must not be: the actions' answers,
events, entity states, our log lines, diagnostics, the Store, and anything sent to the model.
"""

from __future__ import annotations

import json
import logging
from typing import TYPE_CHECKING, Any

import pytest
from pytest_homeassistant_custom_component.components.diagnostics import get_diagnostics_for_config_entry

from custom_components.agent_media.const import DOMAIN, LOGGER
from custom_components.agent_media.links import LINK_ID_LENGTH, ResultLinks
from custom_components.agent_media.memory import storage_key
from homeassistant.const import EVENT_HOMEASSISTANT_FINAL_WRITE, MATCH_ALL
from homeassistant.core import Event, callback
from homeassistant.exceptions import ServiceValidationError

from .helpers import wait_for_torrent
from .test_conversation import converse, tool_results
from .test_search_sources import add_indexer
from .test_torrent_links import REMUX, release_named, search

if TYPE_CHECKING:
    from pytest_homeassistant_custom_component.common import MockConfigEntry
    from pytest_homeassistant_custom_component.typing import ClientSessionGenerator

    from homeassistant.core import HomeAssistant

    from .rig.llm_server import ScriptedLLMServer
    from .rig.qbittorrent import QBittorrentInstance
    from .rig.torznab_server import TorznabServer

pytestmark = pytest.mark.usefixtures("core_setup")  # the conversation dependency needs core

QUERY = "Big Buck Bunny 2008 2160p REMUX"


async def flush(hass: HomeAssistant) -> None:
    """Write the memory's pending save now, as Home Assistant does when it stops."""
    hass.bus.async_fire(EVENT_HOMEASSISTANT_FINAL_WRITE)
    await hass.async_block_till_done()


async def test_an_indexers_key_reaches_only_the_download(
    hass: HomeAssistant,
    hass_client: ClientSessionGenerator,
    hass_storage: dict[str, Any],
    setup_integration: MockConfigEntry,
    torznab_server: TorznabServer,
    llm_server: ScriptedLLMServer,
    qbittorrent: QBittorrentInstance,
    caplog: pytest.LogCaptureFixture,
) -> None:
    entry = setup_integration
    torznab_server.torrent_links_only = True
    await add_indexer(hass, entry, torznab_server)
    key = torznab_server.api_key
    caplog.set_level(logging.DEBUG, logger=LOGGER.name)
    events: list[Event] = []

    @callback
    def record(event: Event) -> None:
        events.append(event)

    hass.bus.async_listen(MATCH_ALL, record)

    # The model searches, then adds by number, as a person asks it to.
    llm_server.queue_tool_calls([("find_torrents", {"media_title": QUERY})])
    llm_server.queue_text("I found a few.")
    first = await converse(hass, entry, f"Find torrents for {QUERY}")
    (found,) = tool_results(llm_server.requests[-1])
    (index,) = [torrent["index"] for torrent in found["torrents"] if torrent["title"] == REMUX]
    llm_server.queue_tool_calls([("add_torrent_by_index", {"index": index})])
    llm_server.queue_text("Added.")
    await converse(hass, entry, f"Download number {index}", first.conversation_id)

    torrent = torznab_server.torrent_for(release_named(torznab_server, REMUX))
    await wait_for_torrent(hass, qbittorrent, torrent.info_hash)  # the link was used, from memory
    assert [download["jackett_apikey"] for download in torznab_server.downloads] == [key]
    answered = await hass.services.async_call(
        DOMAIN, "search", {"query": QUERY}, blocking=True, return_response=True
    )
    assert any(result["title"] == REMUX for result in answered["results"])
    diagnostics = await get_diagnostics_for_config_entry(hass, hass_client, entry)
    await flush(hass)
    stored = hass_storage[storage_key(entry.entry_id)]

    places = {
        "the search action's answer": answered,
        "the model's requests": llm_server.requests,
        "events": [{"type": event.event_type, "data": event.data} for event in events],
        "states": [state.as_dict() for state in hass.states.async_all()],
        "our log lines": [record.getMessage() for record in caplog.records if record.name == LOGGER.name],
        "diagnostics": diagnostics,
        "the Store": stored,
    }
    leaks = [place for place, content in places.items() if key in json.dumps(content, default=str)]
    assert leaks == []
    assert "/dl/" not in json.dumps(stored)  # not even the link without its key


async def test_after_a_restart_a_result_without_hash_must_be_searched_again(
    hass: HomeAssistant,
    setup_integration: MockConfigEntry,
    torznab_server: TorznabServer,
    qbittorrent: QBittorrentInstance,
) -> None:
    """The links lived in memory only: a result with a hash is added by its magnet, one without is not."""
    entry = setup_integration
    torznab_server.torrent_links_only = True
    await add_indexer(hass, entry, torznab_server)
    results = await search(hass, "Big Buck Bunny 2008")
    (remux,) = [result for result in results if result["title"] == REMUX]
    with_hash = next(result for result in results if result["source"] == "knaben" and result["info_hash"])

    assert await hass.config_entries.async_reload(entry.entry_id)
    await hass.async_block_till_done()

    with pytest.raises(ServiceValidationError) as refused:
        await hass.services.async_call(
            DOMAIN, "download", {"index": remux["index"]}, blocking=True, return_response=True
        )
    assert refused.value.translation_key == "result_without_link"
    assert "search again" in str(refused.value)
    assert torznab_server.downloads == []
    added = await hass.services.async_call(
        DOMAIN, "download", {"index": with_hash["index"]}, blocking=True, return_response=True
    )
    assert added["hash"] == with_hash["info_hash"]
    await wait_for_torrent(hass, qbittorrent, with_hash["info_hash"])


def test_links_are_kept_by_an_id_that_gives_nothing_away() -> None:
    links = ResultLinks(max_links=3)
    keyed = [f"http://127.0.0.1:9117/dl/all/?jackett_apikey=0123abcd&path={n}" for n in range(4)]

    ids = [links.remember(link) for link in keyed]

    assert all(len(link_id) == LINK_ID_LENGTH and "0123abcd" not in link_id for link_id in ids)
    assert links.remember(keyed[3]) == ids[3]  # the same link, the same id
    assert links.get(ids[0]) is None  # the least recently used went first
    assert [links.get(link_id) for link_id in ids[1:]] == keyed[1:]
    assert ResultLinks().remember(keyed[1]) != ids[1]  # another run, another key
    assert links.get(None) is None
