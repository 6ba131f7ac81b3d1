"""Posters: one per download whose film or show is known, and the latest completed download's.

A poster is fetched when a card first asks for it and kept (in `ImageEntity`'s cache until the picture
changes), so a dashboard never goes to TMDB per view. It is fetched by the TMDB client, not by the image
platform's own fetching (which follows redirects anywhere and reads any size): from TMDB's image host only,
without redirects, at most 1 MiB.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from homeassistant.components.image import Image, ImageEntity, ImageEntityDescription
from homeassistant.core import HomeAssistant, callback
from homeassistant.helpers.dispatcher import async_dispatcher_connect
from homeassistant.util import dt as dt_util

from .clients.errors import AgentMediaClientError
from .const import EVENT_DOWNLOAD_COMPLETED, LOGGER, SIGNAL_DOWNLOAD_EVENT
from .entity import DownloadEntity, async_register_service_device, service_device_info

if TYPE_CHECKING:
    from datetime import datetime

    from homeassistant.helpers.entity_platform import AddConfigEntryEntitiesCallback

    from .clients.tmdb import TMDBClient
    from .coordinator import DownloadsCoordinator
    from .data import AgentMediaConfigEntry
    from .torrents import DownloadView

PARALLEL_UPDATES = 0

POSTER = ImageEntityDescription(key="poster", translation_key="poster")
LATEST_DOWNLOAD = ImageEntityDescription(key="latest_download", translation_key="latest_download")


async def async_setup_entry(
    hass: HomeAssistant,
    entry: AgentMediaConfigEntry,
    async_add_entities: AddConfigEntryEntitiesCallback,
) -> None:
    """Add the latest download's poster, then a poster for each shown download that has one."""
    coordinator = entry.runtime_data.coordinator
    async_register_service_device(hass, entry)  # download devices name it as their parent
    async_add_entities([LatestDownloadImage(hass, entry)])

    shown: set[str] = set()  # downloads with a poster entity

    @callback
    def async_add_posters() -> None:
        downloads = coordinator.data.downloads
        shown.intersection_update(downloads)  # a download that went lost its device, and its poster with it
        new = [
            download
            for info_hash, download in downloads.items()
            if info_hash not in shown and download.poster_path is not None
        ]
        if new:
            shown.update(download.info_hash for download in new)
            async_add_entities(DownloadPosterImage(coordinator, download) for download in new)

    async_add_posters()
    entry.async_on_unload(coordinator.async_add_listener(async_add_posters))


class _PosterImage(ImageEntity):
    """A TMDB poster, fetched by the TMDB client when the picture is first asked for."""

    _poster_path: str | None = None

    def __init__(self, hass: HomeAssistant, tmdb: TMDBClient) -> None:
        """Keep the TMDB client that fetches the poster (the image platform's own fetching is not used)."""
        ImageEntity.__init__(self, hass)
        self._tmdb = tmdb

    @callback
    def _show_poster(self, poster_path: str | None, updated: datetime) -> None:
        """Show another poster: the cached picture is dropped and the state (its time) changes."""
        if poster_path == self._poster_path:
            return
        self._poster_path = poster_path
        self._cached_image = None
        self._attr_image_last_updated = updated

    async def async_image(self) -> bytes | None:
        """Return the poster's bytes (fetched once, then from the cache); None when it cannot be had."""
        if self._cached_image is not None:
            return self._cached_image.content
        if (poster_path := self._poster_path) is None:
            return None
        try:
            poster = await self._tmdb.async_poster(poster_path)
        except AgentMediaClientError as err:
            LOGGER.warning("Poster %s not shown: %s", poster_path, err)
            return None
        if poster_path == self._poster_path:  # still the poster shown
            self._cached_image = Image(content_type=poster.content_type, content=poster.content)
            self._attr_content_type = poster.content_type
        return poster.content


class DownloadPosterImage(DownloadEntity, _PosterImage):
    """The poster of one download's film or show, on that download's device."""

    def __init__(self, coordinator: DownloadsCoordinator, download: DownloadView) -> None:
        """Attach the poster to the download's device."""
        super().__init__(coordinator, download, POSTER.key)
        _PosterImage.__init__(self, coordinator.hass, coordinator.config_entry.runtime_data.tmdb)
        self.entity_description = POSTER
        self._show_poster(download.poster_path, dt_util.utcnow())

    @callback
    def _handle_coordinator_update(self) -> None:
        if (download := self.download) is not None and download.poster_path is not None:
            self._show_poster(download.poster_path, dt_util.utcnow())
        super()._handle_coordinator_update()


class LatestDownloadImage(_PosterImage):
    """The poster of the latest completed download Agent Media knew the film or show of; its title beside it.

    Kept in memory, so it survives a restart; unavailable while there is no such poster.
    """

    _attr_has_entity_name = True

    def __init__(self, hass: HomeAssistant, entry: AgentMediaConfigEntry) -> None:
        """Attach the image to the service device."""
        super().__init__(hass, entry.runtime_data.tmdb)
        self.entity_description = LATEST_DOWNLOAD
        self._entry = entry
        self._attr_unique_id = f"{entry.entry_id}_{LATEST_DOWNLOAD.key}"
        self._attr_device_info = service_device_info(entry)
        self._read_latest()

    async def async_added_to_hass(self) -> None:
        """Follow this entry's completions (memory holds the latest one before the event fires)."""
        await super().async_added_to_hass()
        self.async_on_remove(
            async_dispatcher_connect(
                self.hass, SIGNAL_DOWNLOAD_EVENT.format(self._entry.entry_id), self._async_download_event
            )
        )

    @callback
    def _async_download_event(self, bus_event: str, _data: dict[str, Any]) -> None:
        if bus_event == EVENT_DOWNLOAD_COMPLETED:
            self._read_latest()
            self.async_write_ha_state()

    @callback
    def _read_latest(self) -> None:
        latest = self._entry.runtime_data.memory.downloads.latest_completed()
        if latest is None:
            self._attr_available = False
            return
        completed_at = dt_util.parse_datetime(latest["completed_at"]) or dt_util.utcnow()
        self._show_poster(latest.get("poster_path"), completed_at)
        self._attr_available = self._poster_path is not None
        self._attr_extra_state_attributes = {"title": latest["title"]}
