"""Posters come from TMDB's image host only, without redirects, at most 1 MiB (real HTTP, real image proxy).

"Elsewhere" is a second loopback server: any request it gets is a request Home Assistant should not have
sent. The TMDB stand-in plays a compromised or careless TMDB: another image base in /configuration, poster
requests redirected, posters of 2 MiB.
"""

from __future__ import annotations

from http import HTTPStatus
import logging
from typing import TYPE_CHECKING

from aiohttp import web
import pytest

from custom_components.agent_media.clients.errors import (
    InvalidResponseError,
    RequestRejectedError,
    ResponseTooLargeError,
)
from custom_components.agent_media.const import MAX_POSTER_BYTES

from .helpers import wait_for_torrent, wait_until
from .rig._server import LoopbackServer
from .rig.tmdb_server import poster_bytes
from .test_clients_tmdb import make_client
from .test_image import BIG_BUCK_BUNNY, POSTER, add_big_buck_bunny, fetch_image

if TYPE_CHECKING:
    from collections.abc import AsyncIterator
    from pathlib import Path

    from pytest_homeassistant_custom_component.common import MockConfigEntry
    from pytest_homeassistant_custom_component.typing import ClientSessionGenerator

    from homeassistant.core import HomeAssistant, State

    from .rig.qbittorrent import QBittorrentInstance
    from .rig.tmdb_server import TMDBServer


class Elsewhere(LoopbackServer):
    """Answers every path with a picture, and records that it was asked."""

    def __init__(self) -> None:
        super().__init__()
        self.requests: list[str] = []
        self.app.router.add_get("/{path:.*}", self._any)

    async def _any(self, request: web.Request) -> web.Response:
        self.requests.append(request.path)
        return web.Response(body=poster_bytes(request.path), content_type="image/png")


@pytest.fixture
async def elsewhere(socket_enabled: None) -> AsyncIterator[Elsewhere]:
    async with Elsewhere() as server:
        yield server


async def test_a_poster_comes_from_the_configured_image_host(
    hass: HomeAssistant, tmdb_server: TMDBServer
) -> None:
    poster = await make_client(hass, tmdb_server).async_poster(POSTER)
    assert (poster.content, poster.content_type) == (poster_bytes(POSTER), "image/png")


async def test_another_image_host_is_refused(
    hass: HomeAssistant, tmdb_server: TMDBServer, elsewhere: Elsewhere
) -> None:
    tmdb_server.image_base_url = f"{elsewhere.root_url}/t/p/"
    with pytest.raises(RequestRejectedError, match="TMDB's image host only"):
        await make_client(hass, tmdb_server).async_poster(POSTER)
    assert elsewhere.requests == []


async def test_a_redirect_is_not_followed(
    hass: HomeAssistant, tmdb_server: TMDBServer, elsewhere: Elsewhere
) -> None:
    tmdb_server.images_redirect_to = elsewhere.root_url
    with pytest.raises(RequestRejectedError, match="redirects elsewhere"):
        await make_client(hass, tmdb_server).async_poster(POSTER)
    assert elsewhere.requests == []


async def test_a_poster_past_the_cap_is_refused(hass: HomeAssistant, tmdb_server: TMDBServer) -> None:
    tmdb_server.poster_size = 2 * MAX_POSTER_BYTES
    with pytest.raises(ResponseTooLargeError):
        await make_client(hass, tmdb_server).async_poster(POSTER)


async def test_a_page_instead_of_a_picture_is_refused(hass: HomeAssistant, tmdb_server: TMDBServer) -> None:
    client = make_client(hass, tmdb_server)
    await client.async_poster(POSTER)  # /configuration read and kept
    tmdb_server.fail_next("html")
    with pytest.raises(InvalidResponseError, match="not an image"):
        await client.async_poster(POSTER)


@pytest.mark.usefixtures("core_setup")
async def test_the_image_proxy_never_reaches_elsewhere(
    hass: HomeAssistant,
    hass_client: ClientSessionGenerator,
    qbittorrent: QBittorrentInstance,
    tmdb_server: TMDBServer,
    elsewhere: Elsewhere,
    setup_integration: MockConfigEntry,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A poster entity whose poster redirects: no picture, a warning, and not one request elsewhere."""
    tmdb_server.images_redirect_to = elsewhere.root_url
    info_hash = await add_big_buck_bunny(
        hass, setup_integration, tmp_path, complete=False, media=BIG_BUCK_BUNNY
    )
    await wait_for_torrent(hass, qbittorrent, info_hash, lambda t: t["state"] == "stalledDL")

    async def poster_entity() -> State | None:
        # Asked of the coordinator: a poll moved by the clock can time out on a loaded machine.
        await setup_integration.runtime_data.coordinator.async_refresh()
        await hass.async_block_till_done()
        return hass.states.get("image.big_buck_bunny_2008_poster")

    await wait_until(poster_entity, what="the poster entity")

    status, _body, _type = await fetch_image(hass_client, "image.big_buck_bunny_2008_poster")

    assert status == HTTPStatus.INTERNAL_SERVER_ERROR
    assert elsewhere.requests == []
    warnings = [record for record in caplog.records if record.levelno == logging.WARNING]
    assert any("redirects elsewhere" in record.getMessage() for record in warnings)
    assert not [record for record in caplog.records if record.exc_info]
