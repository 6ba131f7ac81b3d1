"""The finished library as a media source: browse "Agent Media" in Home Assistant's media panel, and play it.

Films and shows appear by their TMDB names with their posters as thumbnails; a film plays, a show opens on its
episodes. Identifiers are "<entry id>/<title key>" (a title) and "<entry id>/<title key>/<file>" (a video in
the title's folder). A video resolves to this integration's file view, which Home Assistant signs for the
player; the view serves only videos of the library, found again through the operations at each request.
"""

from __future__ import annotations

from http import HTTPStatus
import mimetypes
from typing import TYPE_CHECKING, Final
from urllib.parse import quote

from aiohttp import web

from homeassistant.components.media_player.const import MediaClass, MediaType
from homeassistant.components.media_source.error import Unresolvable
from homeassistant.components.media_source.models import (
    BrowseMediaSource,
    MediaSource,
    MediaSourceItem,
    PlayMedia,
)
from homeassistant.config_entries import ConfigEntryState
from homeassistant.helpers.http import KEY_HASS, HomeAssistantView

from .clients.errors import AgentMediaClientError
from .const import DOMAIN
from .errors import OperationError
from .operations import media_label
from .requester import SYSTEM

if TYPE_CHECKING:
    from homeassistant.core import HomeAssistant

    from .data import AgentMediaConfigEntry
    from .memory import LibraryTitle

FILE_URL: Final = "/api/agent_media/library/{entry_id}/{key}/{relative:.+}"
NAME: Final = "Agent Media"


async def async_get_media_source(hass: HomeAssistant) -> MediaSource:
    """Return the media source (Home Assistant's media_source platform), with the file view it resolves to."""
    hass.http.register_view(LibraryFileView())
    return AgentMediaSource(hass)


def _loaded_entry(hass: HomeAssistant, entry_id: str) -> AgentMediaConfigEntry:
    entry = hass.config_entries.async_get_entry(entry_id)
    if entry is None or entry.domain != DOMAIN or entry.state is not ConfigEntryState.LOADED:
        raise Unresolvable(f"Agent Media entry {entry_id[:40]} is not loaded")
    loaded: AgentMediaConfigEntry = entry
    return loaded


def file_url(entry_id: str, key: str, relative: str) -> str:
    """Return the view's path for a video of the library."""
    return f"/api/agent_media/library/{quote(entry_id)}/{quote(key)}/{quote(relative)}"


class AgentMediaSource(MediaSource):
    """The library of every loaded Agent Media entry."""

    name = NAME

    def __init__(self, hass: HomeAssistant) -> None:
        """Serve the media source of the domain."""
        super().__init__(DOMAIN)
        self.hass = hass

    async def async_resolve_media(self, item: MediaSourceItem) -> PlayMedia:
        """Return the signed-for-the-player path of a video."""
        entry_id, _, rest = item.identifier.partition("/")
        key, _, relative = rest.partition("/")
        entry = _loaded_entry(self.hass, entry_id)
        try:
            path = await entry.runtime_data.operations.playing.async_file_path(SYSTEM, key, relative)
        except OperationError as err:
            raise Unresolvable(f"not in the library: {relative[:80]}") from err
        mime_type = mimetypes.guess_type(path.name)[0] or "video/x-matroska"
        return PlayMedia(file_url(entry_id, key, relative), mime_type)

    async def async_browse_media(self, item: MediaSourceItem) -> BrowseMediaSource:
        """Return the titles of the library, or a show's episodes."""
        if not item.identifier:
            return await self._async_root()
        entry_id, _, key = item.identifier.partition("/")
        entry = _loaded_entry(self.hass, entry_id)
        playing = entry.runtime_data.operations.playing
        titles = playing.titles(SYSTEM)
        if (title := titles.get(key)) is None:
            raise Unresolvable(f"not in the library: {key[:80]}")
        try:
            files = await playing.async_files(SYSTEM, key)
        except OperationError as err:
            raise Unresolvable(f"the library folder cannot be read: {key[:80]}") from err
        node = await self._async_title_node(entry, key, title)
        node.children = [
            BrowseMediaSource(
                domain=DOMAIN,
                identifier=f"{entry_id}/{key}/{video.relative}",
                media_class=MediaClass.EPISODE if video.episode is not None else MediaClass.VIDEO,
                media_content_type=MediaType.VIDEO,
                title=media_label(title["media"], video.season, video.episode)
                if video.episode is not None
                else video.relative.rsplit("/", 1)[-1],
                can_play=True,
                can_expand=False,
                thumbnail=node.thumbnail,
            )
            for video in files
        ]
        return node

    async def _async_root(self) -> BrowseMediaSource:
        children = []
        for entry in self.hass.config_entries.async_loaded_entries(DOMAIN):
            loaded: AgentMediaConfigEntry = entry
            titles = loaded.runtime_data.operations.playing.titles(SYSTEM)
            for key, title in sorted(
                titles.items(), key=lambda item: media_label(item[1]["media"]).casefold()
            ):
                children.append(await self._async_title_node(loaded, key, title))
        return BrowseMediaSource(
            domain=DOMAIN,
            identifier="",
            media_class=MediaClass.DIRECTORY,
            media_content_type=MediaType.VIDEO,
            title=NAME,
            can_play=False,
            can_expand=True,
            children=children,
            children_media_class=MediaClass.VIDEO,
        )

    async def _async_title_node(
        self, entry: AgentMediaConfigEntry, key: str, title: LibraryTitle
    ) -> BrowseMediaSource:
        """Return a title to open (a film's videos, a show's episodes), its poster as the thumbnail."""
        media = title["media"]
        thumbnail = None
        if poster_path := media.get("poster_path"):
            try:
                thumbnail = await entry.runtime_data.tmdb.async_poster_url(poster_path)
            except AgentMediaClientError:
                thumbnail = None  # TMDB unreachable: the title is listed without its poster
        is_show = media.get("media_type") == "tv"
        return BrowseMediaSource(
            domain=DOMAIN,
            identifier=f"{entry.entry_id}/{key}",
            media_class=MediaClass.TV_SHOW if is_show else MediaClass.MOVIE,
            media_content_type=MediaType.TVSHOW if is_show else MediaType.MOVIE,
            title=media_label(media),
            can_play=False,
            can_expand=True,
            thumbnail=thumbnail,
        )


class LibraryFileView(HomeAssistantView):
    """Serves the library's videos to players that were given a signed path (Home Assistant's auth)."""

    url = FILE_URL
    name = "api:agent_media:library"
    requires_auth = True

    async def get(self, request: web.Request, entry_id: str, key: str, relative: str) -> web.StreamResponse:
        """Stream one video of the library; 404 for anything else."""
        hass = request.app[KEY_HASS]
        try:
            entry = _loaded_entry(hass, entry_id)
            path = await entry.runtime_data.operations.playing.async_file_path(SYSTEM, key, relative)
        except (Unresolvable, OperationError):
            return web.Response(status=HTTPStatus.NOT_FOUND)
        return web.FileResponse(path)
