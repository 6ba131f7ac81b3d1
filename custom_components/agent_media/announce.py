"""Tell a finished download where it was asked: on the satellite that asked, else on a chosen notify target.

Opt-in (option `announce_completions`). A satellite that cannot announce, a missing target or a failing
service is skipped with a log line; the news is told at the next turn in any case.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from homeassistant.core import HomeAssistant, callback
from homeassistant.exceptions import HomeAssistantError
from homeassistant.helpers import entity_registry as er

from .const import (
    CONF_ANNOUNCE_COMPLETIONS,
    CONF_ANNOUNCE_TARGET,
    DEFAULT_ANNOUNCE_COMPLETIONS,
    DOMAIN,
    LOGGER,
)
from .sentences import async_load_sentences
from .untrusted import MAX_TITLE, clip

if TYPE_CHECKING:
    from .data import AgentMediaConfigEntry

SATELLITE_DOMAIN: Final = "assist_satellite"
SATELLITE_ANNOUNCE: Final = "announce"
SATELLITE_CAN_ANNOUNCE: Final = 1  # AssistSatelliteEntityFeature.ANNOUNCE
NOTIFY_DOMAIN: Final = "notify"
NOTIFY_SEND: Final = "send_message"  # notify entities (HA 2024.8+)
DEVICE_PREFIX: Final = "device:"


@callback
def async_tell_where_asked(
    hass: HomeAssistant, entry: AgentMediaConfigEntry, payload: dict[str, Any], requester_key: str | None
) -> None:
    """Announce a completed download, if the option is on (in the background: the poll goes on)."""
    if not entry.options.get(CONF_ANNOUNCE_COMPLETIONS, DEFAULT_ANNOUNCE_COMPLETIONS):
        return
    entry.async_create_background_task(
        hass, _async_tell(hass, entry, payload, requester_key), f"{DOMAIN} announce {payload.get('hash')}"
    )


async def _async_tell(
    hass: HomeAssistant, entry: AgentMediaConfigEntry, payload: dict[str, Any], requester_key: str | None
) -> None:
    sentences = await async_load_sentences(hass)
    language = entry.runtime_data.memory.household.language() or hass.config.language
    what = payload.get("title") or payload.get("name") or "?"
    message = sentences.response(language, "event_completed", name=clip(what, MAX_TITLE))
    service: tuple[str, str, dict[str, Any]] | None = None
    if (
        requester_key
        and requester_key.startswith(DEVICE_PREFIX)
        and (satellite := _announcing_satellite(hass, requester_key.removeprefix(DEVICE_PREFIX)))
    ):
        service = (SATELLITE_DOMAIN, SATELLITE_ANNOUNCE, {"entity_id": satellite, "message": message})
    if service is None and (target := entry.options.get(CONF_ANNOUNCE_TARGET)):
        service = (NOTIFY_DOMAIN, NOTIFY_SEND, {"entity_id": target, "message": message})
    if service is None:
        LOGGER.debug("No satellite nor notify target to announce %s on", what)
        return
    domain, name, data = service
    if not hass.services.has_service(domain, name):
        LOGGER.debug("Cannot announce %s: %s.%s is not available", what, domain, name)
        return
    try:
        await hass.services.async_call(domain, name, data, blocking=True)
    except HomeAssistantError as err:
        LOGGER.warning("Could not announce %s on %s: %s", what, data["entity_id"], err)


def _announcing_satellite(hass: HomeAssistant, device_id: str) -> str | None:
    """Return the device's assist satellite entity, if it can announce."""
    for entity in er.async_entries_for_device(er.async_get(hass), device_id):
        if entity.domain != SATELLITE_DOMAIN or (state := hass.states.get(entity.entity_id)) is None:
            continue
        if int(state.attributes.get("supported_features") or 0) & SATELLITE_CAN_ANNOUNCE:
            return entity.entity_id
    return None
