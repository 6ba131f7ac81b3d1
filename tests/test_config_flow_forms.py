"""Every form of every kind of entry the config flow makes, walked as the frontend walks them.

One test per kind of entry (a model from a custom server, a model from a provider preset, no model): it makes
the entry through Home Assistant's HTTP API, then opens and submits every other form that entry offers —
reconfigure, reauth, the options in all their sections, an indexer subentry and its reconfigure — checking
that each form serialises, that each field and section has its text in strings.json, and that each
submission succeeds.
"""

from __future__ import annotations

from http import HTTPStatus
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any
from unittest.mock import patch

import pytest

from custom_components.agent_media import config_flow
from custom_components.agent_media.const import (
    CONF_LLM_API_KEY,
    CONF_LLM_BASE_URL,
    CONF_LLM_MODEL,
    CONF_QBITTORRENT_API_KEY,
    CONF_QBITTORRENT_PASSWORD,
    DOMAIN,
    LLM_PROVIDER_MODELS,
    LLM_PROVIDER_URLS,
    SUBENTRY_CONVERSATION,
    SUBENTRY_INDEXER,
)
from homeassistant.config_entries import ConfigEntryState
from homeassistant.setup import async_setup_component

from .helpers import wait_until

if TYPE_CHECKING:
    from aiohttp import ClientResponse, ClientSession
    from pytest_homeassistant_custom_component.typing import ClientSessionGenerator

    from homeassistant.config_entries import ConfigEntry
    from homeassistant.core import HomeAssistant

    from .rig.knaben_server import KnabenServer
    from .rig.llm_server import ScriptedLLMServer
    from .rig.qbittorrent import QBittorrentInstance
    from .rig.tmdb_server import TMDBServer
    from .rig.torznab_server import TorznabServer

pytestmark = pytest.mark.usefixtures("core_setup")

STRINGS: dict[str, Any] = json.loads(
    (Path(config_flow.__file__).parent / "strings.json").read_text(encoding="utf-8")
)
CONFIG_TEXTS: dict[str, Any] = STRINGS["config"]
OPTIONS_TEXTS: dict[str, Any] = STRINGS["options"]
LLM_KEYS = {CONF_LLM_BASE_URL, CONF_LLM_API_KEY, CONF_LLM_MODEL}
FLOWS = "/api/config/config_entries/flow"
OPTIONS_FLOWS = "/api/config/config_entries/options/flow"
SUBENTRY_FLOWS = "/api/config/config_entries/subentries/flow"


class FormWalker:
    """Opens and submits flows through the HTTP API, checking each form as it comes."""

    def __init__(self, client: ClientSession) -> None:
        self.client = client

    async def start(self, flows: str, body: dict[str, Any]) -> dict[str, Any]:
        return await self._json(await self.client.post(flows, json=body))

    async def show(self, flows: str, flow_id: str) -> dict[str, Any]:
        return await self._json(await self.client.get(f"{flows}/{flow_id}"))

    async def submit(self, flows: str, form: dict[str, Any], /, **typed: Any) -> dict[str, Any]:
        """Send the form as shown (defaults and suggested values), with `typed` fields filled in."""
        sent = shown(form) | typed
        return await self._json(await self.client.post(f"{flows}/{form['flow_id']}", json=sent))

    @staticmethod
    async def _json(response: ClientResponse) -> dict[str, Any]:
        assert response.status == HTTPStatus.OK, await response.text()
        return dict(await response.json())


def shown(form: dict[str, Any]) -> dict[str, Any]:
    """What the frontend sends for a form left as shown: each field's default, else its suggested value."""

    def values(schema: list[dict[str, Any]]) -> dict[str, Any]:
        sent: dict[str, Any] = {}
        for field in schema:
            if field.get("type") == "expandable":
                sent[field["name"]] = values(field["schema"])
            elif "default" in field:
                sent[field["name"]] = field["default"]
            elif (suggested := (field.get("description") or {}).get("suggested_value")) is not None:
                sent[field["name"]] = suggested
        return sent

    return values(form["data_schema"])


def assert_form(form: dict[str, Any], texts: dict[str, Any]) -> None:
    """A form as the frontend gets it: no errors, and a label for every field and section it shows."""
    assert form["type"] == "form", form
    assert not form["errors"], form["errors"]
    step = texts["step"][form["step_id"]]
    assert step.get("title") or step.get("description")
    for field in form["data_schema"]:
        if field.get("type") == "expandable":
            section = step["sections"][field["name"]]
            assert section["name"], field["name"]
            assert {inner["name"] for inner in field["schema"]} <= set(section.get("data", {})), field["name"]
        else:
            assert step["data"][field["name"]], field["name"]


KINDS = ["custom model", "preset model", "no model"]


async def entry_loaded(entry: ConfigEntry) -> None:
    """Wait for the reload a saved form schedules."""
    await wait_until(lambda: entry.state, lambda state: state is ConfigEntryState.LOADED, what="entry loaded")


@pytest.mark.parametrize("kind", KINDS)
async def test_every_form_of_every_kind_of_entry(
    hass: HomeAssistant,
    hass_client: ClientSessionGenerator,
    kind: str,
    llm_server: ScriptedLLMServer,
    qbittorrent: QBittorrentInstance,
    tmdb_server: TMDBServer,
    knaben_server: KnabenServer,
    torznab_server: TorznabServer,
) -> None:
    # Everything that registers HTTP views is set up before the client starts (the router is then frozen).
    for component in (DOMAIN, "image", "config"):
        assert await async_setup_component(hass, component, {})
    walker = FormWalker(await hass_client())
    model = {"custom model": llm_server.model, "preset model": LLM_PROVIDER_MODELS["ollama"]}.get(kind)

    entry = await walk_user_steps(hass, walker, kind, llm_server, qbittorrent, tmdb_server, knaben_server)
    assert entry.state is ConfigEntryState.LOADED
    assert entry.data.get(CONF_LLM_MODEL) == model
    assert (entry.runtime_data.llm is None) == (model is None)
    data = dict(entry.data)

    # Reconfigure, sent back as shown: nothing changes, the secrets are kept.
    form = await walker.start(FLOWS, {"handler": DOMAIN, "entry_id": entry.entry_id})
    assert form["step_id"] == "reconfigure"
    assert_form(form, CONFIG_TEXTS)
    assert_aborted(await walker.submit(FLOWS, form), "reconfigure_successful")
    await entry_loaded(entry)
    assert dict(entry.data) == data

    # Reauth, as Home Assistant starts it when a password is refused.
    entry.async_start_reauth(hass)
    await hass.async_block_till_done()
    (flow,) = hass.config_entries.flow.async_progress_by_handler(DOMAIN)
    form = await walker.show(FLOWS, flow["flow_id"])
    assert form["step_id"] == "reauth_confirm"
    assert_form(form, CONFIG_TEXTS)
    asked = {CONF_QBITTORRENT_PASSWORD, CONF_QBITTORRENT_API_KEY} | (
        set() if model is None else {CONF_LLM_API_KEY}
    )
    assert {field["name"] for field in form["data_schema"]} == asked
    result = await walker.submit(FLOWS, form, qbittorrent_password=qbittorrent.password)
    assert_aborted(result, "reauth_successful")
    await entry_loaded(entry)
    assert dict(entry.data) == data

    # The options, every section, saved as shown.
    form = await walker.start(OPTIONS_FLOWS, {"handler": entry.entry_id})
    assert_form(form, OPTIONS_TEXTS)
    sections = set(OPTIONS_TEXTS["step"]["init"]["sections"]) - {"folders_unavailable"}
    assert {field["name"] for field in form["data_schema"] if field["type"] == "expandable"} == sections
    result = await walker.submit(OPTIONS_FLOWS, form)
    assert result["type"] == "create_entry", result
    await entry_loaded(entry)

    await walk_indexer_forms(hass, walker, entry, torznab_server)
    await entry_loaded(entry)
    await walk_agent_forms(hass, walker, entry)
    await entry_loaded(entry)
    assert dict(entry.data) == data
    assert (set(entry.data) & LLM_KEYS) == (set() if model is None else LLM_KEYS)


async def walk_user_steps(
    hass: HomeAssistant,
    walker: FormWalker,
    kind: str,
    llm_server: ScriptedLLMServer,
    qbittorrent: QBittorrentInstance,
    tmdb_server: TMDBServer,
    knaben_server: KnabenServer,
) -> ConfigEntry:
    """The user step (the kind of model), then qBittorrent, then TMDB: the entry made and loaded."""
    form = await walker.start(FLOWS, {"handler": DOMAIN, "show_advanced_options": False})
    assert_form(form, CONFIG_TEXTS)
    llm_choice: dict[str, Any] = {
        "custom model": {
            "provider": "custom",
            CONF_LLM_BASE_URL: llm_server.base_url,
            CONF_LLM_API_KEY: llm_server.api_key,
            CONF_LLM_MODEL: llm_server.model,
        },
        "preset model": {"provider": "ollama", CONF_LLM_API_KEY: llm_server.api_key},
        "no model": {"provider": "none"},
    }[kind]
    with patch.dict(LLM_PROVIDER_URLS, {"ollama": llm_server.base_url}):
        form = await walker.submit(FLOWS, form, **llm_choice)
    assert form["step_id"] == "qbittorrent"
    assert_form(form, CONFIG_TEXTS)
    form = await walker.submit(
        FLOWS,
        form,
        qbittorrent_url=qbittorrent.url,
        qbittorrent_username=qbittorrent.username,
        qbittorrent_password=qbittorrent.password,
    )
    assert form["step_id"] == "tmdb"
    assert_form(form, CONFIG_TEXTS)
    result = await walker.submit(
        FLOWS,
        form,
        tmdb_api_key=tmdb_server.api_key,
        tmdb_url=tmdb_server.base_url,
        knaben_url=knaben_server.base_url,
    )
    assert result["type"] == "create_entry", result
    entry = hass.config_entries.async_get_entry(result["result"]["entry_id"])
    assert entry is not None
    await hass.async_block_till_done()
    return entry


async def walk_indexer_forms(
    hass: HomeAssistant, walker: FormWalker, entry: ConfigEntry, torznab_server: TorznabServer
) -> None:
    """A Torznab indexer, added, then changed with its form sent back as shown."""
    texts = STRINGS["config_subentries"][SUBENTRY_INDEXER]
    form = await walker.start(SUBENTRY_FLOWS, {"handler": [entry.entry_id, SUBENTRY_INDEXER]})
    assert_form(form, texts)
    result = await walker.submit(
        SUBENTRY_FLOWS, form, url=torznab_server.base_url, api_key=torznab_server.api_key, name="Jackett"
    )
    assert result["type"] == "create_entry", result
    await hass.async_block_till_done()
    (subentry,) = (sub for sub in entry.subentries.values() if sub.subentry_type == SUBENTRY_INDEXER)
    form = await walker.start(
        SUBENTRY_FLOWS,
        {"handler": [entry.entry_id, SUBENTRY_INDEXER], "subentry_id": subentry.subentry_id},
    )
    assert form["step_id"] == "reconfigure"
    assert_form(form, texts)
    assert_aborted(await walker.submit(SUBENTRY_FLOWS, form), "reconfigure_successful")
    assert entry.subentries[subentry.subentry_id].data == subentry.data


async def walk_agent_forms(hass: HomeAssistant, walker: FormWalker, entry: ConfigEntry) -> None:
    """A second conversation agent, added, then changed with its form sent back as shown."""
    texts = STRINGS["config_subentries"][SUBENTRY_CONVERSATION]
    form = await walker.start(SUBENTRY_FLOWS, {"handler": [entry.entry_id, SUBENTRY_CONVERSATION]})
    assert_form(form, texts)
    result = await walker.submit(SUBENTRY_FLOWS, form, name="Children", profile="search_only", language="fr")
    assert result["type"] == "create_entry", result
    await hass.async_block_till_done()
    subentries = entry.subentries.values()
    agents = {sub.title: sub for sub in subentries if sub.subentry_type == SUBENTRY_CONVERSATION}
    assert set(agents) == {entry.title, "Children"}  # the entry's first agent, and this one
    form = await walker.start(
        SUBENTRY_FLOWS,
        {"handler": [entry.entry_id, SUBENTRY_CONVERSATION], "subentry_id": agents["Children"].subentry_id},
    )
    assert form["step_id"] == "reconfigure"
    assert_form(form, texts)
    assert_aborted(await walker.submit(SUBENTRY_FLOWS, form), "reconfigure_successful")
    assert entry.subentries[agents["Children"].subentry_id].data == agents["Children"].data


def assert_aborted(result: dict[str, Any], reason: str) -> None:
    assert result["type"] == "abort", result
    assert result["reason"] == reason
