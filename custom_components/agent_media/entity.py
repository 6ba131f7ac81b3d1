"""Base entities: one service device per entry; a child device per conversation agent and per download."""

from __future__ import annotations

from typing import TYPE_CHECKING

from homeassistant.core import HomeAssistant, callback
from homeassistant.helpers import device_registry as dr
from homeassistant.helpers.device_registry import DeviceEntryType, DeviceInfo
from homeassistant.helpers.update_coordinator import CoordinatorEntity

from .compat import with_parent_device
from .const import DOMAIN
from .coordinator import DownloadsCoordinator

if TYPE_CHECKING:
    from .agent.settings import AgentSettings
    from .data import AgentMediaConfigEntry
    from .torrents import DownloadView


def service_device_info(entry: AgentMediaConfigEntry, *, model: str | None = None) -> DeviceInfo:
    """Return the entry's service device (shared by every entity of the entry); `model` names the LLM."""
    device = DeviceInfo(
        identifiers={(DOMAIN, entry.entry_id)},
        entry_type=DeviceEntryType.SERVICE,
        name=entry.title,
        manufacturer="Agent Media",
    )
    if model is not None:  # left out, not None: None would clear the model another entity set
        device["model"] = model
    return device


def agent_device_info(
    hass: HomeAssistant, entry: AgentMediaConfigEntry, settings: AgentSettings, *, model: str | None
) -> DeviceInfo:
    """Return a conversation agent's own device, named after it and linked to the entry's service device."""
    device = DeviceInfo(
        identifiers={(DOMAIN, settings.subentry_id)},
        entry_type=DeviceEntryType.SERVICE,
        name=settings.name,
        manufacturer="Agent Media",
    )
    if model is not None:
        device["model"] = model
    return with_parent_device(dr.async_get(hass), device, (DOMAIN, entry.entry_id), entry.entry_id)


@callback
def async_register_service_device(hass: HomeAssistant, entry: AgentMediaConfigEntry) -> None:
    """Register the service device now, so that download devices can name it as their parent."""
    dr.async_get(hass).async_get_or_create(config_entry_id=entry.entry_id, **service_device_info(entry))


def download_device_id(entry_id: str, info_hash: str) -> str:
    """Return the device identifier of one download."""
    return f"{entry_id}_{info_hash}"


@callback
def async_remove_download_devices(hass: HomeAssistant, entry: AgentMediaConfigEntry, keep: set[str]) -> None:
    """Remove the devices (so the entities) of downloads not in `keep`, including those left by a restart."""
    registry = dr.async_get(hass)
    prefix = f"{entry.entry_id}_"
    for device in dr.async_entries_for_config_entry(registry, entry.entry_id):
        for domain, identifier in device.identifiers:
            if domain == DOMAIN and identifier.startswith(prefix) and identifier[len(prefix) :] not in keep:
                registry.async_remove_device(device.id)  # its entities go with it
                break


class AgentMediaEntity(CoordinatorEntity[DownloadsCoordinator]):
    """An entity of the entry's service device."""

    _attr_has_entity_name = True

    def __init__(self, coordinator: DownloadsCoordinator, key: str) -> None:
        """Attach the entity to the service device."""
        super().__init__(coordinator)
        entry = coordinator.config_entry
        self._attr_unique_id = f"{entry.entry_id}_{key}"
        self._attr_device_info = service_device_info(entry)


class DownloadEntity(CoordinatorEntity[DownloadsCoordinator]):
    """An entity of one download's device, alive while the coordinator shows that download."""

    _attr_has_entity_name = True

    def __init__(self, coordinator: DownloadsCoordinator, download: DownloadView, key: str) -> None:
        """Attach the entity to the download's device, itself attached to the service device."""
        super().__init__(coordinator)
        entry = coordinator.config_entry
        self.info_hash = download.info_hash
        self._attr_unique_id = f"{entry.entry_id}_{download.info_hash}_{key}"
        self._attr_device_info = with_parent_device(
            dr.async_get(coordinator.hass),
            DeviceInfo(
                identifiers={(DOMAIN, download_device_id(entry.entry_id, download.info_hash))},
                entry_type=DeviceEntryType.SERVICE,
                name=download.label,
                manufacturer="qBittorrent",
                configuration_url=coordinator.client.url,
            ),
            (DOMAIN, entry.entry_id),
            entry.entry_id,
        )

    @property
    def download(self) -> DownloadView | None:
        """Return the download's current view, None once the coordinator no longer shows it."""
        return self.coordinator.data.downloads.get(self.info_hash)

    @property
    def available(self) -> bool:
        """Available while qBittorrent answers and the download is shown."""
        return super().available and self.info_hash in self.coordinator.data.downloads
