"""Agent Media's tools through Home Assistant's MCP server (`mcp_server`, HA ≥ 2026.8), over HTTP.

An MCP client speaks JSON-RPC to `/api/mcp/assist` with a Home Assistant token: it lists the Assist API's
tools, ours among them, and calls them. The caller's user is the requester, so the permission table applies.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import pytest

from homeassistant.setup import async_setup_component

from .helpers import torrents_in_qbittorrent

if TYPE_CHECKING:
    from pytest_homeassistant_custom_component.common import MockConfigEntry
    from pytest_homeassistant_custom_component.typing import ClientSessionGenerator

    from homeassistant.core import HomeAssistant

    from .rig.qbittorrent import QBittorrentInstance

pytestmark = pytest.mark.llm_tool_platform(True)

ENDPOINT = "/api/mcp/assist"


class MCPClient:
    """A minimal stateless MCP client over Home Assistant's streamable HTTP endpoint."""

    def __init__(self, client: Any) -> None:
        self.client = client
        self.next_id = 0

    async def request(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        self.next_id += 1
        response = await self.client.post(
            ENDPOINT,
            json={"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params or {}},
            headers={"Accept": "application/json, text/event-stream"},
        )
        assert response.status == 200, await response.text()
        body: dict[str, Any] = await response.json()
        assert body["id"] == self.next_id
        assert "error" not in body, body
        result: dict[str, Any] = body["result"]
        return result

    async def tools(self) -> dict[str, dict[str, Any]]:
        return {tool["name"]: tool for tool in (await self.request("tools/list"))["tools"]}

    async def call(self, name: str, arguments: dict[str, Any]) -> tuple[bool, dict[str, Any]]:
        """Call a tool; return whether it is an error and its JSON."""
        result = await self.request("tools/call", {"name": name, "arguments": arguments})
        payload: dict[str, Any] = json.loads(result["content"][0]["text"])
        return bool(result.get("isError")), payload


@pytest.fixture
async def mcp_server(hass: HomeAssistant, setup_integration: MockConfigEntry) -> None:
    """Home Assistant's MCP server, which serves every LLM API over HTTP."""
    assert await async_setup_component(hass, "mcp_server", {})
    await hass.async_block_till_done()


@pytest.mark.usefixtures("mcp_server")
async def test_an_mcp_client_lists_and_downloads(
    hass: HomeAssistant,
    setup_integration: MockConfigEntry,
    hass_client: ClientSessionGenerator,
    qbittorrent: QBittorrentInstance,
) -> None:
    client = MCPClient(await hass_client())
    tools = await client.tools()

    download = tools["agent_media__download_media"]
    assert download["title"] == "Download a film or show"
    assert download["annotations"]["readOnlyHint"] is False
    assert download["annotations"]["destructiveHint"] is False
    assert tools["agent_media__find_torrents"]["annotations"]["readOnlyHint"] is True
    assert "media_title" in download["inputSchema"]["properties"]

    failed, found = await client.call("agent_media__find_torrents", {"media_title": "Sintel 2010"})
    assert not failed
    assert "Sintel" in found["torrents"][0]["title"]
    failed, added = await client.call("agent_media__add_torrent_by_index", {"index": 1})
    assert not failed
    assert added["hash"] in await torrents_in_qbittorrent(hass, qbittorrent)
    assert added["hash"] in setup_integration.runtime_data.memory.downloads.records()


@pytest.mark.usefixtures("mcp_server")
async def test_a_non_admin_gets_what_the_permission_table_allows(
    hass: HomeAssistant,
    setup_integration: MockConfigEntry,
    hass_client: ClientSessionGenerator,
    hass_read_only_access_token: str,
    qbittorrent: QBittorrentInstance,
) -> None:
    client = MCPClient(await hass_client(hass_read_only_access_token))

    failed, refused = await client.call(
        "agent_media__set_path_for_folder", {"folder_name": "download", "path_value": "/media"}
    )
    assert failed
    assert refused["error"] == "not_allowed"
    assert setup_integration.runtime_data.memory.household.folders() == {}

    failed, found = await client.call("agent_media__find_torrents", {"media_title": "Big Buck Bunny"})
    assert not failed
    assert found["torrents"]
    failed, added = await client.call("agent_media__add_torrent_by_index", {"index": 1})
    assert not failed
    assert list(await torrents_in_qbittorrent(hass, qbittorrent)) == [added["hash"]]
