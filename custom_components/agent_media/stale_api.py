"""Agents still set to Agent Media's own LLM API where it is no longer registered (HA ≥ 2026.8).

There the tools come with Assist (`llm.py`) and `llm_api.py` registers nothing, so an agent whose "Control
Home Assistant" option still lists `agent_media-<entry id>` (or HA 2025.4's `agent_media-<entry id>-assist`)
fails with "API not found". At setup, each such agent (a config entry's options or a config subentry's data,
of any integration) gets a repair issue; its fix (`repairs.py`) puts Assist in place of our ids, nothing else.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from homeassistant.const import CONF_LLM_HASS_API
from homeassistant.core import HomeAssistant, callback
from homeassistant.helpers import issue_registry as ir, llm

from . import compat
from .const import DOMAIN

if TYPE_CHECKING:
    from homeassistant.config_entries import ConfigEntry

ISSUE_PREFIX: Final = "stale_llm_api_"
STALE_LLM_API: Final = "stale_llm_api"  # the issue's translation key
_OUR_API_PREFIX: Final = f"{DOMAIN}-"  # llm_api.api_id / combined_api_id


def _is_ours(api_id: Any) -> bool:
    return isinstance(api_id, str) and api_id.startswith(_OUR_API_PREFIX)


def lists_our_api(choice: Any) -> bool:
    """Return whether an `llm_hass_api` option (one id or a list) names one of Agent Media's own APIs."""
    return any(_is_ours(api_id) for api_id in (choice if isinstance(choice, list) else [choice]))


def with_assist(choice: Any) -> Any:
    """Return the option with Assist in place of Agent Media's APIs, each API once, in the same form."""
    if not isinstance(choice, list):
        return llm.LLM_API_ASSIST if _is_ours(choice) else choice
    chosen: list[Any] = []
    for api_id in choice:
        replaced = llm.LLM_API_ASSIST if _is_ours(api_id) else api_id
        if replaced not in chosen:
            chosen.append(replaced)
    return chosen


def issue_id(entry_id: str, subentry_id: str | None) -> str:
    """Return the repair issue's id for an agent: a config entry, or one of its subentries."""
    return f"{ISSUE_PREFIX}{entry_id}" + (f"_{subentry_id}" if subentry_id else "")


def _stale_agents(entry: ConfigEntry) -> list[tuple[str | None, str]]:
    """Return the entry's agents set to our API: (subentry id, None for the entry itself; agent's name).

    A subentry's agent is named with its entry ("Ollama Films (Ollama)"); an entry's by its title alone.
    """
    found: list[tuple[str | None, str]] = []
    if lists_our_api(entry.options.get(CONF_LLM_HASS_API)):
        found.append((None, entry.title))
    found.extend(
        (subentry.subentry_id, f"{subentry.title} ({entry.title})")
        for subentry in entry.subentries.values()
        if lists_our_api(subentry.data.get(CONF_LLM_HASS_API))
    )
    return found


@callback
def async_check_agents(hass: HomeAssistant) -> None:
    """Raise a repair issue for each agent set to an API of ours that is not registered; drop the others."""
    registry = ir.async_get(hass)
    current: set[str] = set()
    if compat.llm_tool_platform():  # before, `llm_api.py` registers our APIs: nothing is stale
        for entry in hass.config_entries.async_entries():
            for subentry_id, agent in _stale_agents(entry):
                issue = issue_id(entry.entry_id, subentry_id)
                current.add(issue)
                ir.async_create_issue(
                    hass,
                    DOMAIN,
                    issue,
                    is_fixable=True,
                    is_persistent=False,
                    severity=ir.IssueSeverity.ERROR,
                    translation_key=STALE_LLM_API,
                    translation_placeholders={"agent": agent},
                    data={"entry_id": entry.entry_id, "subentry_id": subentry_id or ""},
                )
    for domain, issue in list(registry.issues):
        if domain == DOMAIN and issue.startswith(ISSUE_PREFIX) and issue not in current:
            ir.async_delete_issue(hass, DOMAIN, issue)


@callback
def async_choose_assist(hass: HomeAssistant, entry_id: str, subentry_id: str | None) -> None:
    """Put Assist in place of our APIs in that agent's option (its integration reloads, as for any change)."""
    if (entry := hass.config_entries.async_get_entry(entry_id)) is not None:
        if subentry_id is None:
            if lists_our_api(choice := entry.options.get(CONF_LLM_HASS_API)):
                options = {**entry.options, CONF_LLM_HASS_API: with_assist(choice)}
                hass.config_entries.async_update_entry(entry, options=options)
        elif (subentry := entry.subentries.get(subentry_id)) is not None and lists_our_api(
            choice := subentry.data.get(CONF_LLM_HASS_API)
        ):
            data = {**subentry.data, CONF_LLM_HASS_API: with_assist(choice)}
            hass.config_entries.async_update_subentry(entry, subentry, data=data)
    ir.async_delete_issue(hass, DOMAIN, issue_id(entry_id, subentry_id))
