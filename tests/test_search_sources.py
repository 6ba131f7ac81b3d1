"""Torznab indexers searched beside Knaben, through the agent's tools and the search action (real rig)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from custom_components.agent_media.agent.tool_base import ToolContext
from custom_components.agent_media.agent.tools import ToolRegistry
from custom_components.agent_media.const import DOMAIN, SUBENTRY_INDEXER
from custom_components.agent_media.requester import SYSTEM
from homeassistant import config_entries
from homeassistant.config_entries import ConfigEntryState
from homeassistant.data_entry_flow import FlowResultType

from .rig.knaben_server import synthetic_hash
from .test_config_flow import indexer_input

if TYPE_CHECKING:
    from pytest_homeassistant_custom_component.common import MockConfigEntry

    from homeassistant.core import HomeAssistant

    from .rig.torznab_server import TorznabServer


async def add_indexer(hass: HomeAssistant, entry: MockConfigEntry, server: TorznabServer) -> None:
    """Add an indexer through its subentry flow, as a person does in the UI; the entry reloads with it."""
    result = await hass.config_entries.subentries.async_init(
        (entry.entry_id, SUBENTRY_INDEXER), context={"source": config_entries.SOURCE_USER}
    )
    result = await hass.config_entries.subentries.async_configure(result["flow_id"], indexer_input(server))
    assert result["type"] is FlowResultType.CREATE_ENTRY
    await hass.async_block_till_done()
    assert entry.state is ConfigEntryState.LOADED


async def find(hass: HomeAssistant, entry: MockConfigEntry, query: str) -> dict[str, Any]:
    context = ToolContext(hass=hass, entry=entry, requester=SYSTEM, conversation_id="sources")
    return await ToolRegistry(entry).async_run("find_torrents", {"media_title": query}, context)


async def test_an_indexer_is_searched_beside_knaben(
    hass: HomeAssistant, setup_integration: MockConfigEntry, torznab_server: TorznabServer
) -> None:
    entry = setup_integration
    await add_indexer(hass, entry, torznab_server)
    response = await hass.services.async_call(
        DOMAIN, "search", {"query": "Big Buck Bunny 2008"}, blocking=True, return_response=True
    )
    results = response["results"]
    sources = {result["source"] for result in results}
    assert sources == {"knaben", "Jackett"}
    # The release both have is listed once, from the source with the most seeders.
    shared = synthetic_hash("Big Buck Bunny 2008 1080p")
    (both,) = [result for result in results if result["info_hash"] == shared]
    assert (both["source"], both["seeders"]) == ("Jackett", 900)
    assert any(request.get("t") == "search" for request in torznab_server.requests)


async def test_a_failing_indexer_is_named_and_the_others_still_answer(
    hass: HomeAssistant, setup_integration: MockConfigEntry, torznab_server: TorznabServer
) -> None:
    entry = setup_integration
    await add_indexer(hass, entry, torznab_server)
    for _attempt in range(3):  # every retry fails too
        torznab_server.answer_next(b"down for maintenance", content_type="text/plain", status=503)
    found = await find(hass, entry, "Sintel 2010")
    assert found["status"] == "ok"
    assert found["torrents"]
    assert "Jackett" in found["unavailable_sources"]
