"""'Play it': a finished, organised film in the media browser (TMDB name, poster) and played by voice.

Real parts: the download completes in qBittorrent, the lifecycle organises it into the library folder, Home
Assistant's media_source browses and resolves it, its file view serves the bytes, and Home Assistant's demo
media player class (a real `MediaPlayerEntity`, on a test platform) receives `play_media` with the
media-source id.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest
from pytest_homeassistant_custom_component.common import (
    MockConfigEntry,
    MockModule,
    MockPlatform,
    mock_integration,
    mock_platform,
)

from custom_components.agent_media.agent.tool_base import ToolContext
from custom_components.agent_media.agent.tools import ToolRegistry
from custom_components.agent_media.const import CONF_LOCAL_SENTENCES, CONF_ORGANIZE_LIBRARY, DOMAIN
from custom_components.agent_media.requester import SYSTEM
from homeassistant.components import media_source
from homeassistant.components.demo.media_player import DemoYoutubePlayer
from homeassistant.core import Context
from homeassistant.exceptions import Unauthorized
from homeassistant.setup import async_setup_component

from .helpers import async_add_download, wait_until
from .rig.tmdb_server import poster_path_of
from .rig.torrents import make_local_torrent
from .test_conversation import speech
from .test_household import ask

if TYPE_CHECKING:
    from pathlib import Path

    from pytest_homeassistant_custom_component.common import MockUser
    from pytest_homeassistant_custom_component.typing import ClientSessionGenerator

    from homeassistant.core import HomeAssistant
    from homeassistant.helpers.entity_platform import AddEntitiesCallback
    from homeassistant.helpers.typing import ConfigType, DiscoveryInfoType

    from .rig.qbittorrent import QBittorrentInstance

pytestmark = pytest.mark.usefixtures("core_setup")

SINTEL = {
    "title": "Sintel",
    "year": 2010,
    "imdb_id": "tt1727587",
    "tmdb_id": 45745,
    "media_type": "movie",
    "poster_path": poster_path_of("Sintel"),
}
PLAYERS = "test_players"
FILM = "Sintel (2010).mkv"  # inside its title folder, "Sintel (2010)"


async def finish_into_the_library(
    hass: HomeAssistant,
    entry_data: dict[str, Any],
    options: dict[str, Any],
    qbittorrent: QBittorrentInstance,
    tmp_path: Path,
) -> MockConfigEntry:
    """Set up an entry that organises into tmp_path/library/movies; finish Sintel; return once it is told."""
    assert await async_setup_component(hass, "media_source", {})
    movies = tmp_path / "library" / "movies"
    movies.mkdir(parents=True)
    hass.config.allowlist_external_dirs = {str(tmp_path / "library")}
    entry = MockConfigEntry(
        domain=DOMAIN,
        title="Agent Media",
        data=entry_data,
        options={**options, CONF_LOCAL_SENTENCES: True, CONF_ORGANIZE_LIBRARY: True},
    )
    entry.add_to_hass(hass)
    assert await hass.config_entries.async_setup(entry.entry_id)
    await hass.async_block_till_done()
    entry.runtime_data.memory.household.set_folder("movie", str(movies))
    local = make_local_torrent(
        qbittorrent.downloads_dir, "Sintel.2010.720p", files={"Sintel.2010.720p.mkv": 256 * 1024}
    )
    await async_add_download(
        hass, entry, torrent_file=local.torrent_bytes, save_path=str(qbittorrent.downloads_dir), media=SINTEL
    )

    async def told() -> bool:
        await entry.runtime_data.coordinator.async_refresh()
        await hass.async_block_till_done(wait_background_tasks=True)
        return bool(entry.runtime_data.memory.journal.unread_events())

    await wait_until(told, what="Sintel ready and told")
    return entry


async def media_players(hass: HomeAssistant) -> None:
    """Two media players, "Living Room" and "Bedroom": Home Assistant's demo player, on a test platform.

    (The demo integration whole does not load in every test environment: its camera needs turbojpeg.)
    """

    async def add_players(
        hass: HomeAssistant,
        config: ConfigType,
        async_add_entities: AddEntitiesCallback,
        discovery_info: DiscoveryInfoType | None = None,
    ) -> None:
        async_add_entities(
            [
                DemoYoutubePlayer("Living Room", "bBgGH4Pdg-M", "Big Buck Bunny", 596),
                DemoYoutubePlayer("Bedroom", "eRsGyueVLvQ", "Sintel", 888),
            ]
        )

    mock_integration(hass, MockModule(PLAYERS))
    mock_platform(hass, f"{PLAYERS}.media_player", MockPlatform(async_setup_platform=add_players))
    assert await async_setup_component(hass, "media_player", {"media_player": {"platform": PLAYERS}})
    await hass.async_block_till_done()


@pytest.fixture
async def library_entry(
    hass: HomeAssistant,
    entry_data: dict[str, Any],
    entry_options: dict[str, Any],
    qbittorrent: QBittorrentInstance,
    tmp_path: Path,
) -> MockConfigEntry:
    """An entry with Sintel finished and organised into its library; Home Assistant's demo media players."""
    await media_players(hass)
    return await finish_into_the_library(hass, entry_data, entry_options, qbittorrent, tmp_path)


async def test_the_film_is_browsed_with_its_name_and_poster_and_served(
    hass: HomeAssistant,
    library_entry: MockConfigEntry,
    tmp_path: Path,
    hass_client: ClientSessionGenerator,
    hass_client_no_auth: ClientSessionGenerator,
) -> None:
    root = await media_source.async_browse_media(hass, f"media-source://{DOMAIN}")
    assert root.title == "Agent Media"
    assert [child.title for child in root.children or []] == ["Sintel (2010)"]
    film = (root.children or [])[0]
    assert film.thumbnail is not None
    assert film.thumbnail.endswith(f"/t/p/w342{poster_path_of('Sintel')}")

    opened = await media_source.async_browse_media(hass, film.media_content_id)
    videos = opened.children or []
    assert [(video.title, video.can_play) for video in videos] == [("Sintel (2010).mkv", True)]
    assert (
        videos[0].media_content_id == f"media-source://{DOMAIN}/{library_entry.entry_id}/movie:45745/{FILM}"
    )

    resolved = await media_source.async_resolve_media(hass, videos[0].media_content_id, None)
    assert resolved.mime_type in ("video/x-matroska", "video/matroska")  # Python 3.14 names it anew
    client = await hass_client()
    served = await client.get(resolved.url)
    assert served.status == 200
    assert await served.read() == (tmp_path / "library" / "movies" / "Sintel (2010)" / FILM).read_bytes()
    # Nothing but the library's videos: not another file, nor a link leading out of the title's folder.
    folder = tmp_path / "library" / "movies" / "Sintel (2010)"
    (folder / "notes.txt").write_text("not a video")
    (tmp_path / "secret.mkv").write_bytes(b"not in the library")
    (folder / "escape.mkv").symlink_to(tmp_path / "secret.mkv")
    base = f"/api/agent_media/library/{library_entry.entry_id}/movie:45745"
    assert (await client.get(f"{base}/notes.txt")).status == 404
    assert (await client.get(f"{base}/escape.mkv")).status == 404
    stranger = await hass_client_no_auth()
    assert (await stranger.get(f"{base}/Sintel%20(2010).mkv")).status == 401  # no token, no signature


async def test_played_by_voice_on_the_living_room_tv_and_refused_to_who_cannot_control_it(
    hass: HomeAssistant,
    library_entry: MockConfigEntry,
    hass_admin_user: MockUser,
    hass_read_only_user: MockUser,
) -> None:
    refused = await ask(
        hass, library_entry, "play Sintel on the living room TV", user_id=hass_read_only_user.id
    )
    assert speech(refused) == "You're not allowed to do that."
    await hass.async_block_till_done()
    assert hass.states.get("media_player.living_room").attributes.get("media_content_id") != (
        f"media-source://{DOMAIN}/{library_entry.entry_id}/movie:45745/{FILM}"
    )

    played = await ask(hass, library_entry, "play Sintel on the living room TV", user_id=hass_admin_user.id)
    assert speech(played) == "Playing Sintel (2010) on Living Room."
    await hass.async_block_till_done()  # the demo player writes its state from the executor
    state = hass.states.get("media_player.living_room")
    assert (
        state.attributes["media_content_id"]
        == f"media-source://{DOMAIN}/{library_entry.entry_id}/movie:45745/{FILM}"
    )

    # "Play it": what was organised last; by the action, in the caller's context.
    with pytest.raises(Unauthorized):
        await hass.services.async_call(
            DOMAIN,
            "play",
            {"entity_id": "media_player.bedroom"},
            blocking=True,
            context=Context(user_id=hass_read_only_user.id),
            return_response=True,
        )
    response = await hass.services.async_call(
        DOMAIN, "play", {"entity_id": "media_player.bedroom"}, blocking=True, return_response=True
    )
    assert response == {
        "title": "Sintel (2010)",
        "entity_id": "media_player.bedroom",
        "media_content_id": f"media-source://{DOMAIN}/{library_entry.entry_id}/movie:45745/{FILM}",
    }


async def test_the_library_survives_a_restart(hass: HomeAssistant, library_entry: MockConfigEntry) -> None:
    assert await hass.config_entries.async_reload(library_entry.entry_id)
    await hass.async_block_till_done()
    root = await media_source.async_browse_media(hass, f"media-source://{DOMAIN}")
    assert [child.title for child in root.children or []] == ["Sintel (2010)"]


async def test_the_model_plays_through_its_tool(hass: HomeAssistant, library_entry: MockConfigEntry) -> None:
    registry = ToolRegistry(library_entry)
    assert "play_media" in {spec["function"]["name"] for spec in registry.specs()}
    context = ToolContext(hass=hass, entry=library_entry, requester=SYSTEM)
    result = await registry.async_run("play_media", {"title": "Sintel", "player": "Bedroom"}, context)
    assert result == {"status": "ok", "title": "Sintel (2010)", "player": "media_player.bedroom"}
    unknown = await registry.async_run("play_media", {"title": "Sintel", "player": "garage"}, context)
    assert (unknown["status"], unknown["error"]) == ("error", "not_found")
