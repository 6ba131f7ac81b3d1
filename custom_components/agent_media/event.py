"""Download event entity: mirrors ``agent_media_download_added`` and ``agent_media_download_completed``."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from homeassistant.components.event import EventEntity, EventEntityDescription
from homeassistant.core import Event, HomeAssistant, callback

from .const import EVENT_DOWNLOAD_ADDED, EVENT_DOWNLOAD_COMPLETED
from .entity import AgentMediaEntity

if TYPE_CHECKING:
    from collections.abc import Mapping

    from homeassistant.helpers.entity_platform import AddConfigEntryEntitiesCallback

    from .coordinator import DownloadsCoordinator
    from .data import AgentMediaConfigEntry

PARALLEL_UPDATES = 0

EVENT_TYPE_ADDED: Final = "added"
EVENT_TYPE_COMPLETED: Final = "completed"
# Bus event → event type of the entity.
BUS_EVENT_TYPES: Final = {
    EVENT_DOWNLOAD_ADDED: EVENT_TYPE_ADDED,
    EVENT_DOWNLOAD_COMPLETED: EVENT_TYPE_COMPLETED,
}

DOWNLOADS_EVENT = EventEntityDescription(
    key="downloads",
    translation_key="downloads",
    event_types=[EVENT_TYPE_ADDED, EVENT_TYPE_COMPLETED],
)


async def async_setup_entry(
    _hass: HomeAssistant,
    entry: AgentMediaConfigEntry,
    async_add_entities: AddConfigEntryEntitiesCallback,
) -> None:
    """Add the entry's download event entity."""
    async_add_entities([DownloadsEventEntity(entry.runtime_data.downloads)])


class DownloadsEventEntity(AgentMediaEntity, EventEntity):
    """Fires ``added`` and ``completed`` with the bus event's data (hash, name, paths, media)."""

    def __init__(self, coordinator: DownloadsCoordinator) -> None:
        """Set up the entity on the service device."""
        super().__init__(coordinator, DOWNLOADS_EVENT.key)
        self.entity_description = DOWNLOADS_EVENT

    async def async_added_to_hass(self) -> None:
        """Listen for this entry's download events on the bus."""
        await super().async_added_to_hass()
        for bus_event in BUS_EVENT_TYPES:
            self.async_on_remove(
                self.hass.bus.async_listen(
                    bus_event, self._async_handle_event, event_filter=self._is_this_entry
                )
            )
        # Completions found while Home Assistant started were held back until now.
        self.coordinator.release_deferred_events()

    @callback
    def _is_this_entry(self, event_data: Mapping[str, Any]) -> bool:
        return bool(event_data.get("entry_id") == self.coordinator.config_entry.entry_id)

    @callback
    def _async_handle_event(self, event: Event[Mapping[str, Any]]) -> None:
        attributes = {key: value for key, value in event.data.items() if key != "entry_id"}
        self._trigger_event(BUS_EVENT_TYPES[str(event.event_type)], attributes)
        self.async_write_ha_state()
