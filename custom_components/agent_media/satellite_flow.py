"""Voice satellites standing for a person, as config subentries: pick a satellite, then its person.

A request from a satellite with a subentry is that person's for their preferences (ranking, `download_media`),
wanted titles, followed shows, subscriptions and news; its permissions stay the satellite's own (see
docs/security.md). A satellite with no subentry (or whose person has no user) stays the household's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import voluptuous as vol

from homeassistant.config_entries import ConfigSubentryFlow, SubentryFlowResult
from homeassistant.helpers import device_registry as dr
from homeassistant.helpers.selector import (
    DeviceSelector,
    DeviceSelectorConfig,
    EntityFilterSelectorConfig,
    EntitySelector,
    EntitySelectorConfig,
)

from .const import CONF_PERSON, CONF_SATELLITE_DEVICE, SUBENTRY_SATELLITE
from .requester import person_requester_key

if TYPE_CHECKING:
    from collections.abc import Mapping

    from homeassistant.config_entries import ConfigEntry
    from homeassistant.core import HomeAssistant

SATELLITE_DOMAIN = "assist_satellite"
PERSON_DOMAIN = "person"


def satellite_people(entry: ConfigEntry[Any]) -> dict[str, str]:
    """Return the person entity each satellite (by device id) stands for, from the entry's subentries."""
    return {
        subentry.data[CONF_SATELLITE_DEVICE]: subentry.data[CONF_PERSON]
        for subentry in entry.subentries.values()
        if subentry.subentry_type == SUBENTRY_SATELLITE
    }


def _schema(*, with_device: bool) -> vol.Schema:
    fields: dict[vol.Marker, Any] = {}
    if with_device:
        fields[vol.Required(CONF_SATELLITE_DEVICE)] = DeviceSelector(
            DeviceSelectorConfig(entity=[EntityFilterSelectorConfig(domain=SATELLITE_DOMAIN)])
        )
    fields[vol.Required(CONF_PERSON)] = EntitySelector(EntitySelectorConfig(domain=PERSON_DOMAIN))
    return vol.Schema(fields)


def _title(hass: HomeAssistant, device_id: str, person: str) -> str:
    """Return the subentry's title: the satellite's name and the person's, as Home Assistant shows them."""
    device = dr.async_get(hass).async_get(device_id)
    device_name = (device.name_by_user or device.name) if device is not None else None
    state = hass.states.get(person)
    person_name = state.name if state is not None else person
    return f"{device_name or device_id} → {person_name}"


class SatellitePersonFlow(ConfigSubentryFlow):
    """Let a satellite stand for a person, or change whom; removing the subentry makes it the household's."""

    async def async_step_user(self, user_input: dict[str, Any] | None = None) -> SubentryFlowResult:
        """Ask for the satellite and the person it stands for."""
        errors: dict[str, str] = {}
        if user_input is not None:
            device_id = user_input[CONF_SATELLITE_DEVICE]
            if device_id in satellite_people(self._get_entry()):
                return self.async_abort(reason="already_configured")
            if self._check_person(user_input, errors):
                return self.async_create_entry(
                    title=_title(self.hass, device_id, user_input[CONF_PERSON]),
                    data=_data(user_input),
                    unique_id=device_id,
                )
        return self.async_show_form(
            step_id="user",
            data_schema=self.add_suggested_values_to_schema(_schema(with_device=True), user_input or {}),
            errors=errors,
        )

    async def async_step_reconfigure(self, user_input: dict[str, Any] | None = None) -> SubentryFlowResult:
        """Change the person a satellite stands for."""
        subentry = self._get_reconfigure_subentry()
        errors: dict[str, str] = {}
        if user_input is not None and self._check_person(user_input, errors):
            data = _data({**subentry.data, CONF_PERSON: user_input[CONF_PERSON]})
            return self.async_update_and_abort(
                self._get_entry(),
                subentry,
                title=_title(self.hass, data[CONF_SATELLITE_DEVICE], data[CONF_PERSON]),
                data=data,
            )
        return self.async_show_form(
            step_id="reconfigure",
            data_schema=self.add_suggested_values_to_schema(
                _schema(with_device=False), user_input or dict(subentry.data)
            ),
            errors=errors,
        )

    def _check_person(self, user_input: Mapping[str, Any], errors: dict[str, str]) -> bool:
        """Accept a person only with a Home Assistant user (their preferences are the user's)."""
        if person_requester_key(self.hass, user_input[CONF_PERSON]) is None:
            errors[CONF_PERSON] = "person_without_user"
        return not errors


def _data(user_input: Mapping[str, Any]) -> dict[str, Any]:
    return {CONF_SATELLITE_DEVICE: user_input[CONF_SATELLITE_DEVICE], CONF_PERSON: user_input[CONF_PERSON]}
