"""Tell a finished download where it was asked: on the satellite that asked, else on a chosen notify target.

Opt-in (option `announce_completions`, read by the lifecycle, which runs this in the background). A satellite
that cannot announce, a missing target or a failing service is skipped with a log line; the news is told at
the next turn in any case.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from homeassistant.exceptions import HomeAssistantError
from homeassistant.helpers import entity_registry as er

from .const import LOGGER
from .news import NewsKind, sentence_key
from .sentences import async_load_sentences

if TYPE_CHECKING:
    from homeassistant.core import HomeAssistant

SATELLITE_DOMAIN: Final = "assist_satellite"
SATELLITE_ANNOUNCE: Final = "announce"
SATELLITE_CAN_ANNOUNCE: Final = 1  # AssistSatelliteEntityFeature.ANNOUNCE
NOTIFY_DOMAIN: Final = "notify"
NOTIFY_SEND: Final = "send_message"  # notify entities (HA 2024.8+)
DEVICE_PREFIX: Final = "device:"


async def async_announce(
    hass: HomeAssistant,
    payload: dict[str, Any],
    requester_key: str | None,
    *,
    language: str,
    target: str | None,
) -> None:
    """Say a completed download on the satellite that asked for it, else on `target`.

    `target`: a notify entity, or the key ("device:<id>") of the satellite a person subscribed through (one
    standing for them).
    """
    sentences = await async_load_sentences(hass)
    what = sentences.news_name(language, payload)
    message = sentences.response(language, sentence_key(NewsKind.COMPLETED, payload), name=what)
    service: tuple[str, str, dict[str, Any]] | None = None
    # The satellite that asked, or (its key as the target) the satellite a person subscribed through.
    device_key = next((key for key in (requester_key, target) if key and key.startswith(DEVICE_PREFIX)), None)
    if device_key and (satellite := _announcing_satellite(hass, device_key.removeprefix(DEVICE_PREFIX))):
        service = (SATELLITE_DOMAIN, SATELLITE_ANNOUNCE, {"entity_id": satellite, "message": message})
    if service is None and target and not target.startswith(DEVICE_PREFIX):
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
