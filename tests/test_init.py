"""Setup states of a config entry: loaded, retry, auth failed, unloaded."""

from __future__ import annotations

import socket
from typing import TYPE_CHECKING, Any

import pytest
from pytest_homeassistant_custom_component.common import MockConfigEntry

from custom_components.agent_media.const import CONF_QBITTORRENT_PASSWORD, CONF_QBITTORRENT_URL, DOMAIN
from homeassistant.config_entries import SOURCE_REAUTH, ConfigEntryState

if TYPE_CHECKING:
    from homeassistant.core import HomeAssistant


@pytest.fixture(autouse=True)
def _core(core_setup: None) -> None:
    """Every test here sets up entries, which need Home Assistant's core integration."""


async def test_entry_loads_and_unloads(hass: HomeAssistant, setup_integration: MockConfigEntry) -> None:
    entry = setup_integration
    assert entry.state is ConfigEntryState.LOADED
    assert entry.runtime_data.qbittorrent is not None

    assert await hass.config_entries.async_unload(entry.entry_id)
    await hass.async_block_till_done()
    assert entry.state is ConfigEntryState.NOT_LOADED


async def test_unreachable_qbittorrent_retries(
    hass: HomeAssistant, entry_data: dict[str, Any], entry_options: dict[str, Any]
) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    entry = MockConfigEntry(
        domain=DOMAIN,
        data=entry_data | {CONF_QBITTORRENT_URL: f"http://127.0.0.1:{port}"},
        options=entry_options,
    )
    entry.add_to_hass(hass)
    await hass.config_entries.async_setup(entry.entry_id)
    await hass.async_block_till_done()
    assert entry.state is ConfigEntryState.SETUP_RETRY


async def test_stopped_qbittorrent_retries_then_loads(
    hass: HomeAssistant, qbittorrent: Any, config_entry: MockConfigEntry
) -> None:
    await qbittorrent.stop()
    await hass.config_entries.async_setup(config_entry.entry_id)
    await hass.async_block_till_done()
    assert config_entry.state is ConfigEntryState.SETUP_RETRY

    await qbittorrent.start()
    await hass.config_entries.async_reload(config_entry.entry_id)
    await hass.async_block_till_done()
    assert config_entry.state is ConfigEntryState.LOADED


async def test_wrong_password_starts_reauth(
    hass: HomeAssistant, entry_data: dict[str, Any], entry_options: dict[str, Any]
) -> None:
    entry = MockConfigEntry(
        domain=DOMAIN, data=entry_data | {CONF_QBITTORRENT_PASSWORD: "wrong"}, options=entry_options
    )
    entry.add_to_hass(hass)
    await hass.config_entries.async_setup(entry.entry_id)
    await hass.async_block_till_done()
    assert entry.state is ConfigEntryState.SETUP_ERROR
    flows = hass.config_entries.flow.async_progress_by_handler(DOMAIN)
    assert [flow["context"]["source"] for flow in flows] == [SOURCE_REAUTH]
