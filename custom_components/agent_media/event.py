"""Download event entity: mirrors ``agent_media_download_added`` and ``agent_media_download_completed``.

It follows the entry's `SIGNAL_DOWNLOAD_EVENT` (sent with the same name and data as the bus event), not the
bus: the bus events are for people's automations.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from homeassistant.components.event import EventEntity, EventEntityDescription
from homeassistant.core import HomeAssistant, callback
from homeassistant.helpers.dispatcher import async_dispatcher_connect

from .const import EVENT_DOWNLOAD_ADDED, EVENT_DOWNLOAD_COMPLETED, SIGNAL_DOWNLOAD_EVENT
from .entity import AgentMediaEntity

if TYPE_CHECKING:
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
    async_add_entities([DownloadsEventEntity(entry.runtime_data.coordinator)])


class DownloadsEventEntity(AgentMediaEntity, EventEntity):
    """Fires ``added`` and ``completed`` with the bus event's data (hash, name, paths, media)."""

    def __init__(self, coordinator: DownloadsCoordinator) -> None:
        """Set up the entity on the service device."""
        super().__init__(coordinator, DOWNLOADS_EVENT.key)
        self.entity_description = DOWNLOADS_EVENT

    async def async_added_to_hass(self) -> None:
        """Follow this entry's download events."""
        await super().async_added_to_hass()
        self.async_on_remove(
            async_dispatcher_connect(
                self.hass,
                SIGNAL_DOWNLOAD_EVENT.format(self.coordinator.config_entry.entry_id),
                self._async_handle_event,
            )
        )

    @callback
    def _async_handle_event(self, bus_event: str, data: dict[str, Any]) -> None:
        if (event_type := BUS_EVENT_TYPES.get(bus_event)) is None:
            return  # replaced, failed: not among this entity's event types
        self._trigger_event(event_type, {key: value for key, value in data.items() if key != "entry_id"})
        self.async_write_ha_state()
