"""Download sensors: aggregate figures on the service device, and a few sensors per download in progress.

The wanted sensors (wanted titles, followed shows) sit on the service device too; they follow the memory's
wanted section, not the downloads coordinator.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from homeassistant.components.sensor import (
    SensorDeviceClass,
    SensorEntity,
    SensorEntityDescription,
    SensorStateClass,
)
from homeassistant.const import PERCENTAGE, UnitOfDataRate, UnitOfInformation, UnitOfTime
from homeassistant.core import HomeAssistant, callback
from homeassistant.helpers import device_registry as dr

from .compat import async_get_entry_device
from .const import DOMAIN
from .entity import (
    AgentMediaEntity,
    DownloadEntity,
    async_register_service_device,
    async_remove_download_devices,
    download_device_id,
    service_device_info,
)
from .operations import media_label
from .torrents import DownloadsData, DownloadState, DownloadView
from .untrusted import MAX_TITLE, clip

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    from homeassistant.helpers.entity_platform import AddConfigEntryEntitiesCallback
    from homeassistant.helpers.typing import StateType

    from .coordinator import DownloadsCoordinator
    from .data import AgentMediaConfigEntry
    from .memory import WantedSection

PARALLEL_UPDATES = 0
MEGABYTE: Final = 1_000_000  # bytes, as Home Assistant converts them
GIGABYTE: Final = 1_000_000_000


@dataclass(frozen=True, kw_only=True)
class DownloadsSensorEntityDescription(SensorEntityDescription):
    """An aggregate sensor, computed from the coordinator's data."""

    value_fn: Callable[[DownloadsData], StateType]


@dataclass(frozen=True, kw_only=True)
class DownloadSensorEntityDescription(SensorEntityDescription):
    """A sensor of one download; `display_fn` picks its suggested unit and precision when it is made."""

    value_fn: Callable[[DownloadView], StateType]
    display_fn: Callable[[DownloadView], tuple[str, int]] | None = None
    made_when: Callable[[DownloadView], bool] = lambda _download: True  # the sensor waits for this


def size_display(download: DownloadView) -> tuple[str, int]:
    """Return the unit and precision a download's size reads best in: "524 kB", "700.0 MB", "8.25 GB".

    Home Assistant fixes a sensor's suggested unit when it registers the sensor, and stock cards show the
    state as it is, so the unit is chosen from the size known then: the size sensor is made once the size is
    known (a .torrent's at once, a magnet's when its metadata arrives).
    """
    size = download.size
    if size is not None and size < MEGABYTE:
        return UnitOfInformation.KILOBYTES, 0
    if size is not None and size < GIGABYTE:
        return UnitOfInformation.MEGABYTES, 1
    return UnitOfInformation.GIGABYTES, 2


AGGREGATE_SENSORS: tuple[DownloadsSensorEntityDescription, ...] = (
    DownloadsSensorEntityDescription(
        key="active_downloads",
        translation_key="active_downloads",
        state_class=SensorStateClass.MEASUREMENT,
        value_fn=lambda data: data.active_downloads,
    ),
    DownloadsSensorEntityDescription(
        key="queued_downloads",
        translation_key="queued_downloads",
        state_class=SensorStateClass.MEASUREMENT,
        value_fn=lambda data: data.queued_downloads,
    ),
    DownloadsSensorEntityDescription(
        key="stalled_downloads",
        translation_key="stalled_downloads",
        state_class=SensorStateClass.MEASUREMENT,
        value_fn=lambda data: data.stalled_downloads,
    ),
    DownloadsSensorEntityDescription(
        key="download_speed",
        translation_key="download_speed",
        device_class=SensorDeviceClass.DATA_RATE,
        state_class=SensorStateClass.MEASUREMENT,
        native_unit_of_measurement=UnitOfDataRate.BYTES_PER_SECOND,
        suggested_unit_of_measurement=UnitOfDataRate.MEGABYTES_PER_SECOND,
        suggested_display_precision=2,
        value_fn=lambda data: data.download_speed,
    ),
    DownloadsSensorEntityDescription(
        key="upload_speed",
        translation_key="upload_speed",
        device_class=SensorDeviceClass.DATA_RATE,
        state_class=SensorStateClass.MEASUREMENT,
        native_unit_of_measurement=UnitOfDataRate.BYTES_PER_SECOND,
        suggested_unit_of_measurement=UnitOfDataRate.MEGABYTES_PER_SECOND,
        suggested_display_precision=2,
        value_fn=lambda data: data.upload_speed,
    ),
)

# No state class on purpose: these entities come and go, long-term statistics would be left orphaned.
DOWNLOAD_SENSORS: tuple[DownloadSensorEntityDescription, ...] = (
    DownloadSensorEntityDescription(
        key="progress",
        translation_key="download_progress",
        native_unit_of_measurement=PERCENTAGE,
        suggested_display_precision=1,
        value_fn=lambda download: download.progress,
    ),
    DownloadSensorEntityDescription(
        key="state",
        translation_key="download_state",
        device_class=SensorDeviceClass.ENUM,
        options=[state.value for state in DownloadState],
        value_fn=lambda download: download.state.value,
    ),
    DownloadSensorEntityDescription(
        key="eta",
        translation_key="download_eta",
        device_class=SensorDeviceClass.DURATION,
        native_unit_of_measurement=UnitOfTime.SECONDS,
        suggested_unit_of_measurement=UnitOfTime.MINUTES,
        suggested_display_precision=0,
        value_fn=lambda download: download.eta,
    ),
    DownloadSensorEntityDescription(
        key="size",
        translation_key="download_size",
        device_class=SensorDeviceClass.DATA_SIZE,
        native_unit_of_measurement=UnitOfInformation.BYTES,
        display_fn=size_display,
        made_when=lambda download: download.size is not None,
        value_fn=lambda download: download.size,
    ),
)


async def async_setup_entry(
    hass: HomeAssistant,
    entry: AgentMediaConfigEntry,
    async_add_entities: AddConfigEntryEntitiesCallback,
) -> None:
    """Add the aggregate sensors, then follow downloads as they come and go."""
    coordinator = entry.runtime_data.coordinator
    async_register_service_device(hass, entry)
    async_add_entities(DownloadsSensor(coordinator, description) for description in AGGREGATE_SENSORS)
    async_add_entities(WantedSensor(entry, description) for description in WANTED_SENSORS)

    shown: dict[str, str] = {}  # hash → device name (label), of downloads that have entities
    made: dict[str, set[str]] = {}  # hash → keys of its sensors made so far

    @callback
    def async_sync_download_entities() -> None:
        downloads = coordinator.data.downloads
        new = [download for info_hash, download in downloads.items() if info_hash not in shown]
        gone = shown.keys() - downloads.keys()
        if gone:
            for info_hash in gone:
                del shown[info_hash]
                made.pop(info_hash, None)
            async_remove_download_devices(hass, entry, keep=set(downloads))
        _async_rename_devices(hass, entry, shown, downloads)
        shown.update((download.info_hash, download.label) for download in new)
        sensors = []
        for info_hash, download in downloads.items():
            keys = made.setdefault(info_hash, set())
            for description in DOWNLOAD_SENSORS:
                if description.key not in keys and description.made_when(download):
                    keys.add(description.key)
                    sensors.append(DownloadSensor(coordinator, download, description))
        if sensors:
            async_add_entities(sensors)

    async_remove_download_devices(hass, entry, keep=set(coordinator.data.downloads))  # left by a restart
    async_sync_download_entities()
    entry.async_on_unload(coordinator.async_add_listener(async_sync_download_entities))


@callback
def _async_rename_devices(
    hass: HomeAssistant,
    entry: AgentMediaConfigEntry,
    shown: dict[str, str],
    downloads: Mapping[str, DownloadView],
) -> None:
    """Follow a download's label (a magnet's name changes once its metadata arrives).

    Only the device name changes: entity ids, once made, stay.
    """
    registry = dr.async_get(hass)
    for info_hash, label in list(shown.items()):
        download = downloads.get(info_hash)
        if download is None or download.label == label:
            continue
        shown[info_hash] = download.label
        identifier = (DOMAIN, download_device_id(entry.entry_id, info_hash))
        if (device := async_get_entry_device(registry, identifier, entry.entry_id)) is not None:
            registry.async_update_device(device.id, name=download.label)


class DownloadsSensor(AgentMediaEntity, SensorEntity):
    """An aggregate figure of the downloads."""

    entity_description: DownloadsSensorEntityDescription

    def __init__(
        self, coordinator: DownloadsCoordinator, description: DownloadsSensorEntityDescription
    ) -> None:
        """Set up the sensor from its description."""
        super().__init__(coordinator, description.key)
        self.entity_description = description

    @property
    def native_value(self) -> StateType:
        """Return the figure."""
        return self.entity_description.value_fn(self.coordinator.data)


class DownloadSensor(DownloadEntity, SensorEntity):
    """A figure of one download."""

    entity_description: DownloadSensorEntityDescription

    def __init__(
        self,
        coordinator: DownloadsCoordinator,
        download: DownloadView,
        description: DownloadSensorEntityDescription,
    ) -> None:
        """Set up the sensor of one download from its description."""
        super().__init__(coordinator, download, description.key)
        self.entity_description = description
        if description.display_fn is not None:
            unit, precision = description.display_fn(download)
            self._attr_suggested_unit_of_measurement = unit
            self._attr_suggested_display_precision = precision

    @property
    def native_value(self) -> StateType:
        """Return the figure, None once the download is gone."""
        download = self.download
        return None if download is None else self.entity_description.value_fn(download)


# --- the wanted list ---------------------------------------------------------------------------------------

MAX_LISTED_TITLES: Final = 20  # titles in a wanted sensor's attributes


@dataclass(frozen=True, kw_only=True)
class WantedSensorEntityDescription(SensorEntityDescription):
    """A count of the wanted section, and the titles counted."""

    titles_fn: Callable[[WantedSection], list[str]]


def _wanted_titles(wanted: WantedSection) -> list[str]:
    return [
        media_label(record["media"], record.get("season"), record.get("episode"))
        for record in wanted.titles().values()
    ]


def _followed_shows(wanted: WantedSection) -> list[str]:
    return [media_label(record["media"]) for record in wanted.shows().values()]


WANTED_SENSORS: tuple[WantedSensorEntityDescription, ...] = (
    WantedSensorEntityDescription(
        key="wanted_titles",
        translation_key="wanted_titles",
        state_class=SensorStateClass.MEASUREMENT,
        titles_fn=_wanted_titles,
    ),
    WantedSensorEntityDescription(
        key="followed_shows",
        translation_key="followed_shows",
        state_class=SensorStateClass.MEASUREMENT,
        titles_fn=_followed_shows,
    ),
)


class WantedSensor(SensorEntity):
    """How many titles are wanted (or shows followed); their names as an attribute, clipped and capped."""

    entity_description: WantedSensorEntityDescription
    _attr_has_entity_name = True
    _attr_should_poll = False
    _unrecorded_attributes = frozenset({"titles"})

    def __init__(self, entry: AgentMediaConfigEntry, description: WantedSensorEntityDescription) -> None:
        """Attach the sensor to the service device."""
        self.entity_description = description
        self._wanted = entry.runtime_data.memory.wanted
        self._attr_unique_id = f"{entry.entry_id}_{description.key}"
        self._attr_device_info = service_device_info(entry)
        self._titles: list[str] = []

    async def async_added_to_hass(self) -> None:
        """Follow every change of the wanted list."""
        self._refresh()
        self.async_on_remove(self._wanted.add_listener(self._on_change))

    @callback
    def _on_change(self) -> None:
        self._refresh()
        self.async_write_ha_state()

    def _refresh(self) -> None:
        self._titles = self.entity_description.titles_fn(self._wanted)
        self._attr_native_value = len(self._titles)
        self._attr_extra_state_attributes = {
            "titles": [clip(title, MAX_TITLE) for title in self._titles[:MAX_LISTED_TITLES]]
        }
