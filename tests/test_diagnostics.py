"""Diagnostics through Home Assistant's diagnostics component: useful, and without any secret."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from pytest_homeassistant_custom_component.components.diagnostics import get_diagnostics_for_config_entry

from custom_components.agent_media.const import (
    CONF_LLM_API_KEY,
    CONF_QBITTORRENT_API_KEY,
    CONF_QBITTORRENT_PASSWORD,
    CONF_QBITTORRENT_USERNAME,
    CONF_TMDB_API_KEY,
    DEFAULT_KNABEN_URL,
)
from custom_components.agent_media.diagnostics import redact_url
from homeassistant.components.diagnostics import REDACTED

if TYPE_CHECKING:
    from pytest_homeassistant_custom_component.common import MockConfigEntry
    from pytest_homeassistant_custom_component.typing import ClientSessionGenerator

    from homeassistant.core import HomeAssistant

PRIVATE_PATH = "/srv/private-household-films"
PRIVATE_QUERY = "Night of the Living Dead 1968"


async def test_diagnostics_hold_no_secret(
    hass: HomeAssistant,
    hass_client: ClientSessionGenerator,
    setup_integration: MockConfigEntry,
    entry_data: dict[str, Any],
) -> None:
    entry = setup_integration
    memory = entry.runtime_data.memory
    memory.household.set_folder("movie", PRIVATE_PATH)
    memory.working.store_search(
        "system", PRIVATE_QUERY, [{"title": "Night.of.the.Living.Dead.1968.1080p"}], None
    )
    memory.journal.add_error("add_torrent_by_index", "not_found", f"nothing at {PRIVATE_PATH}")
    memory.journal.add_event("download_completed", {"name": "Night.of.the.Living.Dead.1968.1080p"})

    diagnostics = await get_diagnostics_for_config_entry(hass, hass_client, entry)
    dump = json.dumps(diagnostics)

    for secret_key in (
        CONF_LLM_API_KEY,
        CONF_QBITTORRENT_PASSWORD,
        CONF_QBITTORRENT_USERNAME,
        CONF_TMDB_API_KEY,
    ):
        assert entry_data[secret_key] not in dump, secret_key
        assert diagnostics["entry"]["data"][secret_key] == REDACTED
    assert "127.0.0.1" not in dump  # every rig URL points there: hosts are redacted
    assert PRIVATE_PATH not in dump
    assert "Living" not in dump  # neither the search nor the event's torrent name

    # Still useful: the shape of the setup and the memory, as counts.
    assert diagnostics["entry"]["state"] == "loaded"
    assert diagnostics["entry"]["data"]["qbittorrent_url"].startswith("http://redacted:")
    assert diagnostics["llm_model"] == entry_data["llm_model"]
    assert diagnostics["memory"]["folders"] == ["movie"]
    assert diagnostics["memory"]["searches"] == 1
    assert diagnostics["memory"]["errors"] == {"not_found": 1}
    assert diagnostics["memory"]["events"] == {"download_completed": 1}
    assert diagnostics["memory"]["unread_events"] == 1
    assert diagnostics["downloads"]["last_update_success"] is True
    assert diagnostics["downloads"]["torrents"] == 0


async def test_diagnostics_of_an_unloaded_entry(
    hass: HomeAssistant, hass_client: ClientSessionGenerator, setup_integration: MockConfigEntry
) -> None:
    entry = setup_integration
    assert await hass.config_entries.async_unload(entry.entry_id)
    await hass.async_block_till_done()

    # An entry that logs in with qBittorrent 5.2's API key instead of the password.
    api_key = "qbt_" + "s3cr3t" * 5
    hass.config_entries.async_update_entry(
        entry, data={**entry.data, CONF_QBITTORRENT_PASSWORD: "", CONF_QBITTORRENT_API_KEY: api_key}
    )

    diagnostics = await get_diagnostics_for_config_entry(hass, hass_client, entry)

    assert diagnostics["entry"]["state"] == "not_loaded"
    assert "memory" not in diagnostics
    assert "127.0.0.1" not in json.dumps(diagnostics)
    assert api_key not in json.dumps(diagnostics)
    assert diagnostics["entry"]["data"][CONF_QBITTORRENT_API_KEY] == REDACTED


def test_redact_url() -> None:
    assert redact_url("http://admin:hunter2@nas.home.lan:8080/qbt?token=abc") == "http://redacted:8080/qbt"
    assert redact_url("https://192.168.1.20/v1") == "https://redacted/v1"
    assert redact_url(DEFAULT_KNABEN_URL) == DEFAULT_KNABEN_URL  # the public default says which service
    assert redact_url("https://api.knaben.org/v1?key=abc") == "https://redacted/v1"
    assert redact_url("not a url") == REDACTED
    assert redact_url(None) is None
