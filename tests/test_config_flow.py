"""Config flow: every step against real services, each error then recovery, reauth, reconfigure, options."""

from __future__ import annotations

from http import HTTPStatus
import json
from pathlib import Path
import socket
from typing import TYPE_CHECKING, Any
from unittest.mock import patch

import pytest
from pytest_homeassistant_custom_component.common import MockConfigEntry

from custom_components.agent_media import compat, config_flow
from custom_components.agent_media.agent_flow import ConversationAgentFlow
from custom_components.agent_media.config_flow import AgentMediaConfigFlow, TorznabIndexerFlow
from custom_components.agent_media.const import (
    CONF_INDEXER_API_KEY,
    CONF_INDEXER_TIMEOUT,
    CONF_INDEXER_URL,
    CONF_KNABEN_URL,
    CONF_LLM_API_KEY,
    CONF_LLM_BASE_URL,
    CONF_LLM_MODEL,
    CONF_LOCAL_SENTENCES,
    CONF_QBITTORRENT_API_KEY,
    CONF_QBITTORRENT_PASSWORD,
    CONF_QBITTORRENT_URL,
    CONF_QBITTORRENT_USERNAME,
    CONF_QBITTORRENT_VERIFY_SSL,
    CONF_TMDB_API_KEY,
    CONF_TMDB_URL,
    DEFAULT_SCAN_INTERVAL,
    DOMAIN,
    LLM_PROVIDER_MODELS,
    LLM_PROVIDER_URLS,
    SUBENTRY_AI_TASK,
    SUBENTRY_CONVERSATION,
    SUBENTRY_INDEXER,
    SUBENTRY_SATELLITE,
)
from custom_components.agent_media.satellite_flow import SatellitePersonFlow
from homeassistant import config_entries
from homeassistant.config_entries import ConfigEntryState
from homeassistant.const import CONF_NAME
from homeassistant.data_entry_flow import FlowResultType, section
from homeassistant.setup import async_setup_component

from .rig.torznab_server import TorznabServer

if TYPE_CHECKING:
    from pytest_homeassistant_custom_component.typing import ClientSessionGenerator

    from homeassistant.core import HomeAssistant


pytestmark = pytest.mark.usefixtures("core_setup")  # the conversation dependency needs core

DATA_KEYS = {
    CONF_LLM_BASE_URL,
    CONF_LLM_API_KEY,
    CONF_LLM_MODEL,
    CONF_QBITTORRENT_URL,
    CONF_QBITTORRENT_USERNAME,
    CONF_QBITTORRENT_PASSWORD,
    CONF_QBITTORRENT_VERIFY_SSL,
    CONF_TMDB_API_KEY,
}


def closed_port_url() -> str:
    """Return a loopback URL on which nothing listens."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"


def llm_input(llm_server: Any, **overrides: Any) -> dict[str, Any]:
    return {
        "provider": "custom",
        CONF_LLM_BASE_URL: llm_server.base_url,
        CONF_LLM_API_KEY: llm_server.api_key,
        CONF_LLM_MODEL: llm_server.model,
    } | overrides


def qbittorrent_input(qbittorrent: Any, **overrides: Any) -> dict[str, Any]:
    return {
        CONF_QBITTORRENT_URL: qbittorrent.url,
        CONF_QBITTORRENT_USERNAME: qbittorrent.username,
        CONF_QBITTORRENT_PASSWORD: qbittorrent.password,
        CONF_QBITTORRENT_VERIFY_SSL: True,
    } | overrides


def tmdb_input(tmdb_server: Any, knaben_server: Any, **overrides: Any) -> dict[str, Any]:
    return {
        CONF_TMDB_API_KEY: tmdb_server.api_key,
        CONF_TMDB_URL: tmdb_server.base_url,
        CONF_KNABEN_URL: knaben_server.base_url,
    } | overrides


async def start_flow(hass: HomeAssistant) -> dict[str, Any]:
    return await hass.config_entries.flow.async_init(DOMAIN, context={"source": config_entries.SOURCE_USER})


async def test_full_flow_creates_entry_with_contract_keys(
    hass: HomeAssistant, llm_server: Any, qbittorrent: Any, tmdb_server: Any, knaben_server: Any
) -> None:
    result = await start_flow(hass)
    assert result["type"] is FlowResultType.FORM
    assert result["step_id"] == "user"

    result = await hass.config_entries.flow.async_configure(result["flow_id"], llm_input(llm_server))
    assert result["type"] is FlowResultType.FORM
    assert result["step_id"] == "qbittorrent"

    result = await hass.config_entries.flow.async_configure(result["flow_id"], qbittorrent_input(qbittorrent))
    assert result["step_id"] == "tmdb"

    result = await hass.config_entries.flow.async_configure(
        result["flow_id"], tmdb_input(tmdb_server, knaben_server)
    )
    assert result["type"] is FlowResultType.CREATE_ENTRY
    assert set(result["data"]) == DATA_KEYS
    assert result["data"][CONF_LLM_MODEL] == llm_server.model
    assert result["data"][CONF_QBITTORRENT_URL] == qbittorrent.url
    assert result["options"] == {
        CONF_TMDB_URL: tmdb_server.base_url,
        CONF_KNABEN_URL: knaben_server.base_url,
    }
    assert result["title"] == "Agent Media"


async def test_flow_without_a_model_creates_an_entry_that_loads(
    hass: HomeAssistant, qbittorrent: Any, tmdb_server: Any, knaben_server: Any
) -> None:
    assert await async_setup_component(hass, "homeassistant", {})
    result = await start_flow(hass)
    result = await hass.config_entries.flow.async_configure(result["flow_id"], {"provider": "none"})
    assert result["step_id"] == "qbittorrent"  # no model asked for, nothing contacted
    result = await hass.config_entries.flow.async_configure(result["flow_id"], qbittorrent_input(qbittorrent))
    result = await hass.config_entries.flow.async_configure(
        result["flow_id"], tmdb_input(tmdb_server, knaben_server)
    )
    assert result["type"] is FlowResultType.CREATE_ENTRY
    assert set(result["data"]) == DATA_KEYS - {CONF_LLM_BASE_URL, CONF_LLM_API_KEY, CONF_LLM_MODEL}
    await hass.async_block_till_done()
    entry = result["result"]
    assert entry.state is config_entries.ConfigEntryState.LOADED
    assert entry.runtime_data.llm is None


@pytest.mark.parametrize(
    ("overrides", "field", "error"),
    [
        ({CONF_LLM_API_KEY: "sk-wrong"}, CONF_LLM_API_KEY, "invalid_auth"),
        ({CONF_LLM_BASE_URL: "ftp://example"}, CONF_LLM_BASE_URL, "invalid_url"),
        ({CONF_LLM_BASE_URL: ""}, CONF_LLM_BASE_URL, "url_required"),
        ({CONF_LLM_MODEL: ""}, CONF_LLM_MODEL, "model_required"),
    ],
)
async def test_llm_step_errors_recover(
    hass: HomeAssistant, llm_server: Any, overrides: dict[str, Any], field: str, error: str
) -> None:
    result = await start_flow(hass)
    result = await hass.config_entries.flow.async_configure(
        result["flow_id"], llm_input(llm_server, **overrides)
    )
    assert result["type"] is FlowResultType.FORM
    assert result["errors"] == {field: error}

    result = await hass.config_entries.flow.async_configure(result["flow_id"], llm_input(llm_server))
    assert result["step_id"] == "qbittorrent"


async def test_llm_unreachable_then_recovers(hass: HomeAssistant, llm_server: Any) -> None:
    result = await start_flow(hass)
    result = await hass.config_entries.flow.async_configure(
        result["flow_id"], llm_input(llm_server, **{CONF_LLM_BASE_URL: f"{closed_port_url()}/v1"})
    )
    assert result["errors"] == {CONF_LLM_BASE_URL: "cannot_connect"}
    result = await hass.config_entries.flow.async_configure(result["flow_id"], llm_input(llm_server))
    assert result["step_id"] == "qbittorrent"


async def test_provider_preset_fills_url_and_model(hass: HomeAssistant, llm_server: Any) -> None:
    """With the Ollama preset and empty fields, the preset's URL and model are used."""
    llm_server.serve_models = False  # so the check asks the preset's URL for one token, naming the model
    with patch.dict(LLM_PROVIDER_URLS, {"ollama": llm_server.base_url}):
        llm_server.queue_text("Hi")
        result = await start_flow(hass)
        result = await hass.config_entries.flow.async_configure(
            result["flow_id"], {"provider": "ollama", CONF_LLM_API_KEY: llm_server.api_key}
        )
    assert result["step_id"] == "qbittorrent"
    assert [request["model"] for request in llm_server.requests] == [LLM_PROVIDER_MODELS["ollama"]]


async def test_unexpected_error_is_unknown(hass: HomeAssistant, llm_server: Any) -> None:
    result = await start_flow(hass)
    with patch(
        "custom_components.agent_media.clients.llm.LLMClient.async_validate", side_effect=RuntimeError("boom")
    ):
        result = await hass.config_entries.flow.async_configure(result["flow_id"], llm_input(llm_server))
    assert result["errors"] == {"base": "unknown"}
    result = await hass.config_entries.flow.async_configure(result["flow_id"], llm_input(llm_server))
    assert result["step_id"] == "qbittorrent"


async def _at_qbittorrent_step(hass: HomeAssistant, llm_server: Any) -> str:
    result = await start_flow(hass)
    result = await hass.config_entries.flow.async_configure(result["flow_id"], llm_input(llm_server))
    assert result["step_id"] == "qbittorrent"
    return result["flow_id"]


async def test_qbittorrent_wrong_password_then_recovers(
    hass: HomeAssistant, llm_server: Any, qbittorrent: Any
) -> None:
    flow_id = await _at_qbittorrent_step(hass, llm_server)
    result = await hass.config_entries.flow.async_configure(
        flow_id, qbittorrent_input(qbittorrent, **{CONF_QBITTORRENT_PASSWORD: "not-the-password"})
    )
    assert result["errors"] == {CONF_QBITTORRENT_PASSWORD: "invalid_auth"}
    result = await hass.config_entries.flow.async_configure(flow_id, qbittorrent_input(qbittorrent))
    assert result["step_id"] == "tmdb"


async def test_qbittorrent_needs_a_password_or_an_api_key_not_both(
    hass: HomeAssistant, llm_server: Any, qbittorrent: Any
) -> None:
    flow_id = await _at_qbittorrent_step(hass, llm_server)
    for login in ({CONF_QBITTORRENT_PASSWORD: ""}, {CONF_QBITTORRENT_API_KEY: "qbt_" + "k" * 28}):
        result = await hass.config_entries.flow.async_configure(
            flow_id, qbittorrent_input(qbittorrent, **login)
        )
        assert result["errors"] == {"base": "password_or_api_key"}
    result = await hass.config_entries.flow.async_configure(flow_id, qbittorrent_input(qbittorrent))
    assert result["step_id"] == "tmdb"


async def _start_reauth(hass: HomeAssistant, entry: config_entries.ConfigEntry) -> Any:
    return await hass.config_entries.flow.async_init(
        DOMAIN, context={"source": config_entries.SOURCE_REAUTH, "entry_id": entry.entry_id}, data=entry.data
    )


async def test_an_api_key_instead_of_the_password(
    hass: HomeAssistant, llm_server: Any, qbittorrent: Any, tmdb_server: Any, knaben_server: Any
) -> None:
    """qBittorrent 5.2+: set up with an API key, then reauth with a new one; a wrong key is not a ban.

    Before 5.2 qBittorrent knows no keys: the form says the key is wrong, and the password still works.
    """
    flow_id = await _at_qbittorrent_step(hass, llm_server)
    key_login = {CONF_QBITTORRENT_PASSWORD: ""}
    if qbittorrent.version < (5, 2):
        a_key = {CONF_QBITTORRENT_API_KEY: "qbt_" + "x" * 28}
        result = await hass.config_entries.flow.async_configure(
            flow_id, qbittorrent_input(qbittorrent, **key_login, **a_key)
        )
        assert result["errors"] == {CONF_QBITTORRENT_API_KEY: "invalid_auth"}
        result = await hass.config_entries.flow.async_configure(flow_id, qbittorrent_input(qbittorrent))
        assert result["step_id"] == "tmdb"
        return
    api_key = await hass.async_add_executor_job(qbittorrent.rotate_api_key)
    result = await hass.config_entries.flow.async_configure(
        flow_id, qbittorrent_input(qbittorrent, **key_login, **{CONF_QBITTORRENT_API_KEY: "qbt_wrong"})
    )
    assert result["errors"] == {CONF_QBITTORRENT_API_KEY: "invalid_auth"}
    result = await hass.config_entries.flow.async_configure(
        flow_id, qbittorrent_input(qbittorrent, **key_login, **{CONF_QBITTORRENT_API_KEY: api_key})
    )
    assert result["step_id"] == "tmdb"
    result = await hass.config_entries.flow.async_configure(flow_id, tmdb_input(tmdb_server, knaben_server))
    assert result["type"] is FlowResultType.CREATE_ENTRY
    entry = result["result"]
    assert entry.data[CONF_QBITTORRENT_API_KEY] == api_key
    assert entry.data[CONF_QBITTORRENT_PASSWORD] == ""
    await hass.async_block_till_done()
    assert entry.state is ConfigEntryState.LOADED

    # The key is rotated in qBittorrent: reauth takes the new one (or a password, which drops the key).
    new_key = await hass.async_add_executor_job(qbittorrent.rotate_api_key)
    result = await _start_reauth(hass, entry)
    result = await hass.config_entries.flow.async_configure(
        result["flow_id"], {CONF_QBITTORRENT_API_KEY: new_key}
    )
    assert result["reason"] == "reauth_successful"
    assert entry.data[CONF_QBITTORRENT_API_KEY] == new_key
    result = await _start_reauth(hass, entry)
    result = await hass.config_entries.flow.async_configure(
        result["flow_id"],
        {CONF_QBITTORRENT_PASSWORD: qbittorrent.password},
    )
    assert result["reason"] == "reauth_successful"
    assert CONF_QBITTORRENT_API_KEY not in entry.data
    await finish_reload(hass, entry)


async def test_qbittorrent_wrong_port_then_recovers(
    hass: HomeAssistant, llm_server: Any, qbittorrent: Any
) -> None:
    flow_id = await _at_qbittorrent_step(hass, llm_server)
    result = await hass.config_entries.flow.async_configure(
        flow_id, qbittorrent_input(qbittorrent, **{CONF_QBITTORRENT_URL: closed_port_url()})
    )
    assert result["errors"] == {CONF_QBITTORRENT_URL: "cannot_connect"}
    result = await hass.config_entries.flow.async_configure(flow_id, qbittorrent_input(qbittorrent))
    assert result["step_id"] == "tmdb"


async def test_qbittorrent_url_without_scheme_is_normalised(
    hass: HomeAssistant, llm_server: Any, qbittorrent: Any, tmdb_server: Any, knaben_server: Any
) -> None:
    flow_id = await _at_qbittorrent_step(hass, llm_server)
    bare = qbittorrent.url.removeprefix("http://") + "/"
    result = await hass.config_entries.flow.async_configure(
        flow_id, qbittorrent_input(qbittorrent, **{CONF_QBITTORRENT_URL: bare})
    )
    assert result["step_id"] == "tmdb"
    result = await hass.config_entries.flow.async_configure(flow_id, tmdb_input(tmdb_server, knaben_server))
    assert result["data"][CONF_QBITTORRENT_URL] == qbittorrent.url


async def test_duplicate_qbittorrent_aborts(
    hass: HomeAssistant, llm_server: Any, qbittorrent: Any, entry_data: dict[str, Any]
) -> None:
    MockConfigEntry(domain=DOMAIN, data=entry_data).add_to_hass(hass)
    flow_id = await _at_qbittorrent_step(hass, llm_server)
    result = await hass.config_entries.flow.async_configure(flow_id, qbittorrent_input(qbittorrent))
    assert result["type"] is FlowResultType.ABORT
    assert result["reason"] == "already_configured"


@pytest.mark.parametrize(
    ("fault", "field", "error"),
    [
        ("401", CONF_TMDB_API_KEY, "invalid_auth"),
        ("html", CONF_TMDB_URL, "invalid_response"),
        ("500", CONF_TMDB_URL, "cannot_connect"),
    ],
)
async def test_tmdb_errors_recover(
    hass: HomeAssistant,
    llm_server: Any,
    qbittorrent: Any,
    tmdb_server: Any,
    knaben_server: Any,
    fault: str,
    field: str,
    error: str,
) -> None:
    flow_id = await _at_qbittorrent_step(hass, llm_server)
    result = await hass.config_entries.flow.async_configure(flow_id, qbittorrent_input(qbittorrent))
    tmdb_server.fail_next(fault)
    result = await hass.config_entries.flow.async_configure(flow_id, tmdb_input(tmdb_server, knaben_server))
    assert result["errors"] == {field: error}
    result = await hass.config_entries.flow.async_configure(flow_id, tmdb_input(tmdb_server, knaben_server))
    assert result["type"] is FlowResultType.CREATE_ENTRY


async def test_tmdb_read_access_token_accepted(
    hass: HomeAssistant, llm_server: Any, qbittorrent: Any, tmdb_server: Any, knaben_server: Any
) -> None:
    flow_id = await _at_qbittorrent_step(hass, llm_server)
    await hass.config_entries.flow.async_configure(flow_id, qbittorrent_input(qbittorrent))
    result = await hass.config_entries.flow.async_configure(
        flow_id, tmdb_input(tmdb_server, knaben_server, **{CONF_TMDB_API_KEY: tmdb_server.read_token})
    )
    assert result["type"] is FlowResultType.CREATE_ENTRY
    assert result["data"][CONF_TMDB_API_KEY] == tmdb_server.read_token


async def test_tmdb_wrong_key_then_recovers(
    hass: HomeAssistant, llm_server: Any, qbittorrent: Any, tmdb_server: Any, knaben_server: Any
) -> None:
    flow_id = await _at_qbittorrent_step(hass, llm_server)
    await hass.config_entries.flow.async_configure(flow_id, qbittorrent_input(qbittorrent))
    result = await hass.config_entries.flow.async_configure(
        flow_id, tmdb_input(tmdb_server, knaben_server, **{CONF_TMDB_API_KEY: "0" * 32})
    )
    assert result["errors"] == {CONF_TMDB_API_KEY: "invalid_auth"}
    result = await hass.config_entries.flow.async_configure(
        flow_id, tmdb_input(tmdb_server, knaben_server, **{CONF_KNABEN_URL: "not a url at all"})
    )
    assert result["errors"] == {CONF_KNABEN_URL: "invalid_url"}
    result = await hass.config_entries.flow.async_configure(flow_id, tmdb_input(tmdb_server, knaben_server))
    assert result["type"] is FlowResultType.CREATE_ENTRY


async def finish_reload(hass: HomeAssistant, entry: MockConfigEntry) -> None:
    """Let the reload a successful reauth or reconfigure schedules finish, then unload (no timer lingers)."""
    await hass.async_block_till_done()
    if entry.state is ConfigEntryState.LOADED:
        assert await hass.config_entries.async_unload(entry.entry_id)


async def test_reauth_updates_password(
    hass: HomeAssistant, qbittorrent: Any, llm_server: Any, entry_data: dict[str, Any]
) -> None:
    entry = MockConfigEntry(domain=DOMAIN, data=entry_data | {CONF_QBITTORRENT_PASSWORD: "old-password"})
    entry.add_to_hass(hass)
    result = await entry.start_reauth_flow(hass)
    assert result["step_id"] == "reauth_confirm"

    result = await hass.config_entries.flow.async_configure(
        result["flow_id"], {CONF_QBITTORRENT_PASSWORD: "still-wrong"}
    )
    assert result["errors"] == {CONF_QBITTORRENT_PASSWORD: "invalid_auth"}

    result = await hass.config_entries.flow.async_configure(
        result["flow_id"], {CONF_QBITTORRENT_PASSWORD: qbittorrent.password}
    )
    assert result["type"] is FlowResultType.ABORT
    assert result["reason"] == "reauth_successful"
    assert entry.data[CONF_QBITTORRENT_PASSWORD] == qbittorrent.password
    assert entry.data[CONF_LLM_API_KEY] == entry_data[CONF_LLM_API_KEY]
    await finish_reload(hass, entry)


async def test_reauth_updates_llm_key(
    hass: HomeAssistant, qbittorrent: Any, llm_server: Any, entry_data: dict[str, Any]
) -> None:
    entry = MockConfigEntry(domain=DOMAIN, data=entry_data | {CONF_LLM_API_KEY: "sk-expired"})
    entry.add_to_hass(hass)
    result = await entry.start_reauth_flow(hass)
    result = await hass.config_entries.flow.async_configure(result["flow_id"], {})
    assert result["errors"] == {CONF_LLM_API_KEY: "invalid_auth"}
    result = await hass.config_entries.flow.async_configure(
        result["flow_id"], {CONF_LLM_API_KEY: llm_server.api_key}
    )
    assert result["reason"] == "reauth_successful"
    assert entry.data[CONF_LLM_API_KEY] == llm_server.api_key
    await finish_reload(hass, entry)


async def test_reconfigure_changes_model_and_keeps_secrets(
    hass: HomeAssistant,
    qbittorrent: Any,
    llm_server: Any,
    tmdb_server: Any,
    entry_data: dict[str, Any],
    entry_options: dict[str, Any],
) -> None:
    entry = MockConfigEntry(domain=DOMAIN, data=entry_data, options=entry_options)
    entry.add_to_hass(hass)
    result = await entry.start_reconfigure_flow(hass)
    assert result["step_id"] == "reconfigure"
    form = {key: value for key, value in entry_data.items() if key in DATA_KEYS}
    form |= {CONF_LLM_API_KEY: "", CONF_QBITTORRENT_PASSWORD: "", CONF_TMDB_API_KEY: ""}

    result = await hass.config_entries.flow.async_configure(
        result["flow_id"], form | {CONF_QBITTORRENT_URL: closed_port_url()}
    )
    assert result["errors"] == {CONF_QBITTORRENT_URL: "cannot_connect"}

    result = await hass.config_entries.flow.async_configure(
        result["flow_id"], form | {CONF_LLM_MODEL: "another-model"}
    )
    assert result["type"] is FlowResultType.ABORT
    assert result["reason"] == "reconfigure_successful"
    assert entry.data[CONF_LLM_MODEL] == "another-model"
    assert entry.data[CONF_QBITTORRENT_PASSWORD] == entry_data[CONF_QBITTORRENT_PASSWORD]
    assert entry.data[CONF_TMDB_API_KEY] == entry_data[CONF_TMDB_API_KEY]
    await finish_reload(hass, entry)


LLM_KEYS = {CONF_LLM_BASE_URL, CONF_LLM_API_KEY, CONF_LLM_MODEL}


def without_model(entry_data: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in entry_data.items() if key not in LLM_KEYS}


def reconfigure_input(data: dict[str, Any], **overrides: Any) -> dict[str, Any]:
    """The reconfigure form as sent: the entry's settings, the secrets left empty (kept)."""
    form = {key: value for key, value in data.items() if key in DATA_KEYS}
    return form | {CONF_LLM_API_KEY: "", CONF_QBITTORRENT_PASSWORD: "", CONF_TMDB_API_KEY: ""} | overrides


async def test_reconfigure_gives_a_model_to_an_entry_without_one(
    hass: HomeAssistant,
    llm_server: Any,
    entry_data: dict[str, Any],
    entry_options: dict[str, Any],
) -> None:
    entry = MockConfigEntry(domain=DOMAIN, data=without_model(entry_data), options=entry_options)
    entry.add_to_hass(hass)
    result = await entry.start_reconfigure_flow(hass)
    shown = {str(key): key.description for key in result["data_schema"].schema}
    assert shown[CONF_LLM_BASE_URL] == {"suggested_value": None}  # empty: no model yet
    # Half a model is refused, and what was typed is shown again.
    half = reconfigure_input(without_model(entry_data), **{CONF_LLM_BASE_URL: llm_server.base_url})
    result = await hass.config_entries.flow.async_configure(result["flow_id"], half)
    assert result["errors"] == {CONF_LLM_MODEL: "model_required"}
    shown = {str(key): key.description for key in result["data_schema"].schema}
    assert shown[CONF_LLM_BASE_URL] == {"suggested_value": llm_server.base_url}
    result = await hass.config_entries.flow.async_configure(
        result["flow_id"],
        half | {CONF_LLM_MODEL: llm_server.model, CONF_LLM_API_KEY: llm_server.api_key},
    )
    assert result["reason"] == "reconfigure_successful"
    await hass.async_block_till_done()
    assert {key: entry.data[key] for key in LLM_KEYS} == {
        CONF_LLM_BASE_URL: llm_server.base_url,
        CONF_LLM_API_KEY: llm_server.api_key,
        CONF_LLM_MODEL: llm_server.model,
    }
    assert entry.state is ConfigEntryState.LOADED
    assert entry.runtime_data.llm is not None


async def test_reconfigure_with_the_model_emptied_leaves_the_entry_without_one(
    hass: HomeAssistant, entry_data: dict[str, Any], entry_options: dict[str, Any]
) -> None:
    entry = MockConfigEntry(domain=DOMAIN, data=entry_data, options=entry_options)
    entry.add_to_hass(hass)
    result = await entry.start_reconfigure_flow(hass)
    # The base URL and the model emptied: the entry keeps no model, and no model server is asked.
    emptied = reconfigure_input(without_model(entry_data))
    with patch("custom_components.agent_media.clients.llm.LLMClient.async_validate") as validate:
        result = await hass.config_entries.flow.async_configure(result["flow_id"], emptied)
    assert result["reason"] == "reconfigure_successful"
    validate.assert_not_called()
    await hass.async_block_till_done()
    assert not set(entry.data) & LLM_KEYS
    assert entry.state is ConfigEntryState.LOADED
    assert entry.runtime_data.llm is None


async def test_reauth_of_an_entry_without_a_model_asks_only_for_qbittorrent(
    hass: HomeAssistant, qbittorrent: Any, entry_data: dict[str, Any]
) -> None:
    data = without_model(entry_data) | {CONF_QBITTORRENT_PASSWORD: "old-password"}
    entry = MockConfigEntry(domain=DOMAIN, data=data)
    entry.add_to_hass(hass)
    result = await entry.start_reauth_flow(hass)
    assert [str(key) for key in result["data_schema"].schema] == [
        CONF_QBITTORRENT_PASSWORD,
        CONF_QBITTORRENT_API_KEY,
    ]
    result = await hass.config_entries.flow.async_configure(
        result["flow_id"], {CONF_QBITTORRENT_PASSWORD: qbittorrent.password}
    )
    assert result["reason"] == "reauth_successful"
    assert entry.data == without_model(entry_data)
    await finish_reload(hass, entry)


# --- options ---------------------------------------------------------------------------------------------

OPTION_SECTIONS = ("agent", "releases", "downloads", "household", "services")


def section_input(options: dict[str, Any], folders: dict[str, str] | None = None) -> dict[str, Any]:
    """Return what the form sends: the given options (and folder paths), each in its section."""
    shown = {name: {} for name in OPTION_SECTIONS}
    for name, fields in shown.items():
        fields.update({key: value for key, value in options.items() if key in OPTION_FIELDS[name]})
    if folders is not None:
        shown["folders"] = folders
    return shown


OPTION_FIELDS = {
    "agent": {
        "prompt",
        "temperature",
        "max_tool_iterations",
        "max_history_messages",
        "turn_timeout",
        CONF_LOCAL_SENTENCES,
    },
    "releases": {"preferred_resolution", "preferred_codec", "max_size_gb", "preferred_languages"},
    "downloads": {"scan_interval", "stalled_timeout", "organize_library", "library_refresh"},
    "household": {"allow_non_admin_settings", "announce_completions", "announce_target"},
    "services": {CONF_TMDB_URL, CONF_KNABEN_URL},
}
FOLDER_FIELDS = {"download", "movie", "tv_show"}


def form_sections(result: Any) -> dict[str, Any]:
    """Return the form's sections by name."""
    return {str(key): value for key, value in result["data_schema"].schema.items()}


def section_fields(form_section: section) -> dict[str, Any]:
    """Return a section's fields by name, with their markers (defaults and suggested values)."""
    return {str(key): key for key in form_section.schema.schema}


def shown_value(marker: Any) -> Any:
    """Return what a field shows: its suggested value, else its default."""
    if marker.description and "suggested_value" in marker.description:
        return marker.description["suggested_value"]
    return marker.default() if callable(marker.default) else None


@pytest.fixture
def media_root(hass: HomeAssistant, tmp_path: Path) -> Path:
    """A folder Home Assistant may use, with downloads/ and films/ in it, and a private folder outside it."""
    root = tmp_path / "media"
    (root / "downloads").mkdir(parents=True)
    (root / "films").mkdir()
    (tmp_path / "private").mkdir()
    hass.config.allowlist_external_dirs = {str(root)}
    return root


async def test_options_form_has_sections_filled_from_the_flat_options(
    hass: HomeAssistant, setup_integration: MockConfigEntry, media_root: Path
) -> None:
    entry = setup_integration
    entry.runtime_data.memory.household.set_folder("download", str(media_root / "downloads"))
    result = await hass.config_entries.options.async_init(entry.entry_id)
    assert result["type"] is FlowResultType.FORM
    sections = form_sections(result)
    assert list(sections) == [*OPTION_SECTIONS, "folders"]
    assert all(isinstance(value, section) for value in sections.values())
    assert [name for name, value in sections.items() if not value.options["collapsed"]] == ["agent"]
    fields = {name: section_fields(value) for name, value in sections.items()}
    assert {name: set(value) for name, value in fields.items()} == OPTION_FIELDS | {"folders": FOLDER_FIELDS}
    services = fields["services"]
    assert shown_value(services[CONF_KNABEN_URL]) == entry.options[CONF_KNABEN_URL]
    assert shown_value(fields["agent"][CONF_LOCAL_SENTENCES]) is False  # the rig's entry turns them off
    assert shown_value(fields["folders"]["download"]) == str(media_root / "downloads")
    assert shown_value(fields["folders"]["movie"]) is None


def test_every_options_section_and_field_has_a_text() -> None:
    strings = json.loads((Path(config_flow.__file__).parent / "strings.json").read_text(encoding="utf-8"))
    texts = strings["options"]["step"]["init"]["sections"]
    assert set(texts) == {*OPTION_SECTIONS, "folders", "folders_unavailable"}
    for name, fields in (OPTION_FIELDS | {"folders": FOLDER_FIELDS}).items():
        assert texts[name]["name"]
        assert set(texts[name]["data"]) == fields, name
    assert "{entry_state}" in texts["folders_unavailable"]["description"]
    errors = strings["options"]["error"]
    for key in ("folder_not_allowed", "path_not_found", "not_a_directory", "path_not_absolute"):
        assert "{folder}" in errors[key], key


async def test_options_flow_stores_flat_options(
    hass: HomeAssistant, setup_integration: MockConfigEntry
) -> None:
    entry = setup_integration
    result = await hass.config_entries.options.async_init(entry.entry_id)
    options = {
        "prompt": "Answer like a cinema usher.",
        "temperature": 0.5,
        "max_tool_iterations": 4,
        "max_history_messages": 6,
        "turn_timeout": 90,
        CONF_LOCAL_SENTENCES: True,
        "scan_interval": 3,
        "stalled_timeout": 600,
        "preferred_resolution": "2160p",
        "allow_non_admin_settings": True,
        "announce_completions": True,
        "announce_target": "notify.phone",
        CONF_TMDB_URL: entry.options[CONF_TMDB_URL],
        CONF_KNABEN_URL: "ftp://mirror.example",
    }
    result = await hass.config_entries.options.async_configure(result["flow_id"], section_input(options, {}))
    assert result["type"] is FlowResultType.FORM
    assert result["errors"] == {"services": "invalid_url"}
    assert not form_sections(result)["services"].options["collapsed"]  # the section with the error is open
    # What was typed is shown again, not the stored options.
    assert shown_value(section_fields(form_sections(result)["agent"])["prompt"]) == options["prompt"]
    options[CONF_KNABEN_URL] = entry.options[CONF_KNABEN_URL]
    result = await hass.config_entries.options.async_configure(result["flow_id"], section_input(options, {}))
    assert result["type"] is FlowResultType.CREATE_ENTRY
    await hass.async_block_till_done()
    assert not set(entry.options) & {*OPTION_SECTIONS, "folders"}
    assert entry.options["max_tool_iterations"] == 4
    assert entry.options["turn_timeout"] == 90
    assert entry.options[CONF_LOCAL_SENTENCES] is True
    assert entry.options["scan_interval"] == 3
    assert entry.options["stalled_timeout"] == 600
    assert entry.options["preferred_resolution"] == "2160p"
    assert entry.options["announce_target"] == "notify.phone"
    assert entry.options["prompt"] == "Answer like a cinema usher."
    assert entry.options["preferred_codec"] == "any"  # a field left as shown keeps its default


async def test_options_flow_sets_a_folder(
    hass: HomeAssistant, setup_integration: MockConfigEntry, media_root: Path
) -> None:
    entry = setup_integration
    household = entry.runtime_data.memory.household
    household.set_folder("download", str(media_root / "downloads"))
    result = await hass.config_entries.options.async_init(entry.entry_id)
    films = media_root / "films"
    folders = {"download": str(media_root / "downloads"), "movie": f"  {films}/  "}  # tv_show left empty
    result = await hass.config_entries.options.async_configure(
        result["flow_id"], section_input(dict(entry.options), folders)
    )
    assert result["type"] is FlowResultType.CREATE_ENTRY
    await hass.async_block_till_done()
    assert household.folders() == {"download": str(media_root / "downloads"), "movie": str(films)}
    assert "movie" not in entry.options
    # Saved options reload the entry: the folder was kept in its memory across the reload.
    assert entry.state is ConfigEntryState.LOADED
    assert entry.runtime_data.memory.household is not household
    assert entry.runtime_data.memory.household.folder("movie") == str(films)


@pytest.mark.parametrize(
    ("path", "error"),
    [
        ("private", "folder_not_allowed"),
        ("media/missing", "path_not_found"),
        ("media/notes.txt", "not_a_directory"),
        ("relative/films", "path_not_absolute"),
    ],
)
async def test_options_flow_refused_folder_changes_nothing(
    hass: HomeAssistant, setup_integration: MockConfigEntry, media_root: Path, path: str, error: str
) -> None:
    entry = setup_integration
    (media_root / "notes.txt").write_text("not a folder")
    household = entry.runtime_data.memory.household
    household.set_folder("movie", str(media_root / "films"))
    before = dict(entry.options)
    typed = path if path.startswith("relative") else str(media_root.parent / path)
    result = await hass.config_entries.options.async_init(entry.entry_id)
    options = dict(entry.options) | {"scan_interval": 9}
    result = await hass.config_entries.options.async_configure(
        result["flow_id"], section_input(options, {"movie": typed})
    )
    assert result["type"] is FlowResultType.FORM
    assert result["errors"] == {"folders": error}
    assert result["description_placeholders"]["folder"] == "movie"
    folders_section = form_sections(result)["folders"]
    assert not folders_section.options["collapsed"]
    assert shown_value(section_fields(folders_section)["movie"]) == typed  # what was typed is kept
    assert shown_value(section_fields(form_sections(result)["downloads"])["scan_interval"]) == 9
    assert household.folders() == {"movie": str(media_root / "films")}
    assert dict(entry.options) == before
    # Corrected, the same form saves both.
    result = await hass.config_entries.options.async_configure(
        result["flow_id"], section_input(options, {"movie": str(media_root / "downloads")})
    )
    assert result["type"] is FlowResultType.CREATE_ENTRY
    await hass.async_block_till_done()
    assert entry.runtime_data.memory.household.folder("movie") == str(media_root / "downloads")
    assert entry.options["scan_interval"] == 9


async def test_options_flow_without_a_loaded_entry_leaves_folders_out(
    hass: HomeAssistant, config_entry: MockConfigEntry
) -> None:
    assert config_entry.state is ConfigEntryState.NOT_LOADED
    result = await hass.config_entries.options.async_init(config_entry.entry_id)
    sections = form_sections(result)
    assert list(sections) == [*OPTION_SECTIONS, "folders_unavailable"]
    assert section_fields(sections["folders_unavailable"]) == {}
    assert result["description_placeholders"]["entry_state"] == "not_loaded"
    options = dict(config_entry.options) | {"max_history_messages": 3}
    result = await hass.config_entries.options.async_configure(
        result["flow_id"], section_input(options) | {"folders_unavailable": {}}
    )
    assert result["type"] is FlowResultType.CREATE_ENTRY
    assert config_entry.options["max_history_messages"] == 3
    assert not set(config_entry.options) & {*OPTION_SECTIONS, "folders_unavailable"}


async def test_options_form_as_the_frontend_receives_it(
    hass: HomeAssistant, setup_integration: MockConfigEntry, hass_client: ClientSessionGenerator
) -> None:
    """The sections go through Home Assistant's HTTP API and serialise, on every supported version."""
    assert await async_setup_component(hass, "config", {})
    client = await hass_client()
    response = await client.post(
        "/api/config/config_entries/options/flow", json={"handler": setup_integration.entry_id}
    )
    assert response.status == HTTPStatus.OK
    form = await response.json()
    schema = {field["name"]: field for field in form["data_schema"]}
    assert list(schema) == [*OPTION_SECTIONS, "folders"]
    assert {field["type"] for field in schema.values()} == {"expandable"}
    assert schema["releases"]["expanded"] is False
    assert schema["agent"]["expanded"] is True
    folder_names = {field["name"] for field in schema["folders"]["schema"]}
    assert folder_names == FOLDER_FIELDS
    scan = next(field for field in schema["downloads"]["schema"] if field["name"] == "scan_interval")
    assert scan["default"] == setup_integration.options.get("scan_interval", DEFAULT_SCAN_INTERVAL)


# --- Torznab indexers (config subentries) ---------------------------------------------------------------


@pytest.fixture
def bare_entry(hass: HomeAssistant) -> MockConfigEntry:
    """An entry that is not set up: subentry flows need only its existence."""
    entry = MockConfigEntry(domain=DOMAIN, title="Agent Media", data={})
    entry.add_to_hass(hass)
    return entry


def indexer_input(server: TorznabServer, **overrides: Any) -> dict[str, Any]:
    return {
        CONF_INDEXER_URL: server.base_url,
        CONF_INDEXER_API_KEY: server.api_key,
        CONF_INDEXER_TIMEOUT: 10,
    } | overrides


async def _start_indexer_flow(hass: HomeAssistant, entry: MockConfigEntry) -> str:
    result = await hass.config_entries.subentries.async_init(
        (entry.entry_id, SUBENTRY_INDEXER), context={"source": config_entries.SOURCE_USER}
    )
    assert result["type"] is FlowResultType.FORM
    assert result["step_id"] == "user"
    return result["flow_id"]


async def _configure_indexer(hass: HomeAssistant, flow_id: str, user_input: dict[str, Any]) -> Any:
    return await hass.config_entries.subentries.async_configure(flow_id, user_input)


def test_indexers_are_a_subentry_type(bare_entry: MockConfigEntry) -> None:
    # AI tasks share the agents' flow, where Home Assistant has AI Task (test_ai_task.py).
    ai_tasks = {SUBENTRY_AI_TASK: ConversationAgentFlow} if compat.ai_task_platforms() else {}
    assert AgentMediaConfigFlow.async_get_supported_subentry_types(bare_entry) == {
        SUBENTRY_CONVERSATION: ConversationAgentFlow,
        SUBENTRY_INDEXER: TorznabIndexerFlow,
        **ai_tasks,
        SUBENTRY_SATELLITE: SatellitePersonFlow,
    }


async def test_add_indexer(
    hass: HomeAssistant, bare_entry: MockConfigEntry, torznab_server: TorznabServer
) -> None:
    flow_id = await _start_indexer_flow(hass, bare_entry)
    result = await _configure_indexer(
        hass, flow_id, indexer_input(torznab_server, **{CONF_NAME: " My Jackett "})
    )
    assert result["type"] is FlowResultType.CREATE_ENTRY
    (subentry,) = bare_entry.subentries.values()
    assert subentry.subentry_type == SUBENTRY_INDEXER
    assert subentry.title == "My Jackett"
    assert dict(subentry.data) == {
        CONF_INDEXER_URL: torznab_server.base_url + "api",  # the Torznab endpoint itself
        CONF_INDEXER_API_KEY: torznab_server.api_key,
        CONF_INDEXER_TIMEOUT: 10,
    }
    assert subentry.unique_id == subentry.data[CONF_INDEXER_URL]
    assert [request["t"] for request in torznab_server.requests] == ["caps"]


async def test_indexer_without_a_name_takes_the_servers(
    hass: HomeAssistant, bare_entry: MockConfigEntry, torznab_server: TorznabServer
) -> None:
    torznab_server.title = "Prowlarr"
    flow_id = await _start_indexer_flow(hass, bare_entry)
    await _configure_indexer(hass, flow_id, indexer_input(torznab_server))
    assert [subentry.title for subentry in bare_entry.subentries.values()] == ["Prowlarr"]


@pytest.mark.parametrize(
    ("change", "errors"),
    [
        ({CONF_INDEXER_API_KEY: "0" * 32}, {CONF_INDEXER_API_KEY: "invalid_auth"}),
        ({CONF_INDEXER_URL: "not a url"}, {CONF_INDEXER_URL: "invalid_url"}),
        ({CONF_INDEXER_URL: "ftp://jackett/torznab"}, {CONF_INDEXER_URL: "invalid_url"}),
    ],
)
async def test_indexer_input_errors_recover(
    hass: HomeAssistant,
    bare_entry: MockConfigEntry,
    torznab_server: TorznabServer,
    change: dict[str, Any],
    errors: dict[str, str],
) -> None:
    flow_id = await _start_indexer_flow(hass, bare_entry)
    result = await _configure_indexer(hass, flow_id, indexer_input(torznab_server, **change))
    assert result["type"] is FlowResultType.FORM
    assert result["errors"] == errors
    result = await _configure_indexer(hass, result["flow_id"], indexer_input(torznab_server))
    assert result["type"] is FlowResultType.CREATE_ENTRY


@pytest.mark.parametrize(("fault", "error"), [("html", "invalid_response"), ("500", "cannot_connect")])
async def test_indexer_service_errors_recover(
    hass: HomeAssistant, bare_entry: MockConfigEntry, torznab_server: TorznabServer, fault: str, error: str
) -> None:
    flow_id = await _start_indexer_flow(hass, bare_entry)
    torznab_server.fail_next(fault)  # no retry in the form: it reports what the indexer answers now
    result = await _configure_indexer(hass, flow_id, indexer_input(torznab_server))
    assert result["errors"] == {CONF_INDEXER_URL: error}
    result = await _configure_indexer(hass, flow_id, indexer_input(torznab_server))
    assert result["type"] is FlowResultType.CREATE_ENTRY


async def test_unreachable_indexer(
    hass: HomeAssistant, bare_entry: MockConfigEntry, torznab_server: TorznabServer
) -> None:
    flow_id = await _start_indexer_flow(hass, bare_entry)
    unreachable = closed_port_url()
    result = await _configure_indexer(hass, flow_id, indexer_input(torznab_server, url=unreachable))
    assert result["errors"] == {CONF_INDEXER_URL: "cannot_connect"}
    # The form comes back with what was typed, except the API key.
    shown = {str(key): key.description for key in result["data_schema"].schema}
    assert shown[CONF_INDEXER_URL] == {"suggested_value": unreachable}
    assert not (shown[CONF_INDEXER_API_KEY] or {}).get("suggested_value")


async def test_same_indexer_twice_aborts(
    hass: HomeAssistant, bare_entry: MockConfigEntry, torznab_server: TorznabServer
) -> None:
    await _configure_indexer(hass, await _start_indexer_flow(hass, bare_entry), indexer_input(torznab_server))
    flow_id = await _start_indexer_flow(hass, bare_entry)
    # The same endpoint written another way (with /api) is the same indexer.
    result = await _configure_indexer(
        hass, flow_id, indexer_input(torznab_server, url=torznab_server.base_url + "api")
    )
    assert result["type"] is FlowResultType.ABORT
    assert result["reason"] == "already_configured"
    assert len(bare_entry.subentries) == 1


async def test_reconfigure_indexer_keeps_the_key(
    hass: HomeAssistant, bare_entry: MockConfigEntry, torznab_server: TorznabServer
) -> None:
    await _configure_indexer(hass, await _start_indexer_flow(hass, bare_entry), indexer_input(torznab_server))
    (subentry,) = bare_entry.subentries.values()
    result = await hass.config_entries.subentries.async_init(
        (bare_entry.entry_id, SUBENTRY_INDEXER),
        context={"source": config_entries.SOURCE_RECONFIGURE, "subentry_id": subentry.subentry_id},
    )
    assert result["step_id"] == "reconfigure"
    shown = {str(key): key.description for key in result["data_schema"].schema}
    assert shown[CONF_NAME] == {"suggested_value": "Jackett"}
    assert shown[CONF_INDEXER_URL] == {"suggested_value": subentry.data[CONF_INDEXER_URL]}
    assert not (shown[CONF_INDEXER_API_KEY] or {}).get("suggested_value")  # the secret is not shown

    result = await _configure_indexer(
        hass,
        result["flow_id"],
        {CONF_NAME: "Jackett at home", CONF_INDEXER_URL: torznab_server.base_url, CONF_INDEXER_TIMEOUT: 30},
    )
    assert result["type"] is FlowResultType.ABORT
    assert result["reason"] == "reconfigure_successful"
    (changed,) = bare_entry.subentries.values()
    assert changed.title == "Jackett at home"
    assert changed.data[CONF_INDEXER_API_KEY] == torznab_server.api_key
    assert changed.data[CONF_INDEXER_TIMEOUT] == 30
    assert torznab_server.requests[-1] == {"t": "caps", "apikey": torznab_server.api_key}


async def test_reconfigure_indexer_checks_a_new_key(
    hass: HomeAssistant, bare_entry: MockConfigEntry, torznab_server: TorznabServer
) -> None:
    await _configure_indexer(hass, await _start_indexer_flow(hass, bare_entry), indexer_input(torznab_server))
    (subentry,) = bare_entry.subentries.values()
    result = await hass.config_entries.subentries.async_init(
        (bare_entry.entry_id, SUBENTRY_INDEXER),
        context={"source": config_entries.SOURCE_RECONFIGURE, "subentry_id": subentry.subentry_id},
    )
    result = await _configure_indexer(
        hass, result["flow_id"], indexer_input(torznab_server, api_key="f" * 32)
    )
    assert result["errors"] == {CONF_INDEXER_API_KEY: "invalid_auth"}
    assert bare_entry.subentries[subentry.subentry_id].data[CONF_INDEXER_API_KEY] == torznab_server.api_key


async def test_reconfigure_onto_another_indexer_aborts(
    hass: HomeAssistant, bare_entry: MockConfigEntry, torznab_server: TorznabServer
) -> None:
    async with TorznabServer(title="Prowlarr", indexer="2") as second:
        for server in (torznab_server, second):
            await _configure_indexer(hass, await _start_indexer_flow(hass, bare_entry), indexer_input(server))
        first = next(sub for sub in bare_entry.subentries.values() if sub.title == "Jackett")
        result = await hass.config_entries.subentries.async_init(
            (bare_entry.entry_id, SUBENTRY_INDEXER),
            context={"source": config_entries.SOURCE_RECONFIGURE, "subentry_id": first.subentry_id},
        )
        result = await _configure_indexer(hass, result["flow_id"], indexer_input(second))
    assert result["type"] is FlowResultType.ABORT
    assert result["reason"] == "already_configured"
    assert bare_entry.subentries[first.subentry_id].data[CONF_INDEXER_URL].startswith(torznab_server.base_url)


async def test_adding_an_indexer_reloads_a_loaded_entry(
    hass: HomeAssistant, setup_integration: MockConfigEntry, torznab_server: TorznabServer
) -> None:
    before = setup_integration.runtime_data
    flow_id = await _start_indexer_flow(hass, setup_integration)
    result = await _configure_indexer(hass, flow_id, indexer_input(torznab_server))
    assert result["type"] is FlowResultType.CREATE_ENTRY
    await hass.async_block_till_done()
    assert setup_integration.state is config_entries.ConfigEntryState.LOADED
    assert setup_integration.runtime_data is not before  # set up again, with the indexer
    subentries = setup_integration.subentries.values()
    assert [sub.subentry_type for sub in subentries].count(SUBENTRY_INDEXER) == 1
