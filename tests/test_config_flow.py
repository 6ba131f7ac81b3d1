"""Config flow: every step against real services, each error then recovery, reauth, reconfigure, options."""

from __future__ import annotations

import socket
from typing import TYPE_CHECKING, Any
from unittest.mock import patch

import pytest
from pytest_homeassistant_custom_component.common import MockConfigEntry

from custom_components.agent_media.config_flow import AgentMediaConfigFlow, TorznabIndexerFlow
from custom_components.agent_media.const import (
    CONF_INDEXER_API_KEY,
    CONF_INDEXER_TIMEOUT,
    CONF_INDEXER_URL,
    CONF_KNABEN_URL,
    CONF_LLM_API_KEY,
    CONF_LLM_BASE_URL,
    CONF_LLM_MODEL,
    CONF_QBITTORRENT_PASSWORD,
    CONF_QBITTORRENT_URL,
    CONF_QBITTORRENT_USERNAME,
    CONF_QBITTORRENT_VERIFY_SSL,
    CONF_TMDB_API_KEY,
    CONF_TMDB_URL,
    DOMAIN,
    LLM_PROVIDER_MODELS,
    LLM_PROVIDER_URLS,
    SUBENTRY_INDEXER,
)
from homeassistant import config_entries
from homeassistant.const import CONF_NAME
from homeassistant.data_entry_flow import FlowResultType

from .rig.torznab_server import TorznabServer

if TYPE_CHECKING:
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


async def test_options_flow(hass: HomeAssistant, setup_integration: MockConfigEntry) -> None:
    entry = setup_integration
    result = await hass.config_entries.options.async_init(entry.entry_id)
    assert result["type"] is FlowResultType.FORM
    options = {
        "prompt": "Answer like a cinema usher.",
        "temperature": 0.5,
        "max_tool_iterations": 4,
        "max_history_messages": 6,
        "scan_interval": 3,
        "preferred_resolution": "2160p",
        "allow_non_admin_settings": True,
        CONF_TMDB_URL: entry.options[CONF_TMDB_URL],
        CONF_KNABEN_URL: "ftp://mirror.example",
    }
    result = await hass.config_entries.options.async_configure(result["flow_id"], options)
    assert result["errors"] == {CONF_KNABEN_URL: "invalid_url"}
    options[CONF_KNABEN_URL] = entry.options[CONF_KNABEN_URL]
    result = await hass.config_entries.options.async_configure(result["flow_id"], options)
    assert result["type"] is FlowResultType.CREATE_ENTRY
    await hass.async_block_till_done()
    assert entry.options["max_tool_iterations"] == 4
    assert entry.options["preferred_resolution"] == "2160p"
    assert entry.options["prompt"] == "Answer like a cinema usher."


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
    assert AgentMediaConfigFlow.async_get_supported_subentry_types(bare_entry) == {
        SUBENTRY_INDEXER: TorznabIndexerFlow
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
    assert len(setup_integration.subentries) == 1
