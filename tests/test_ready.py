"""Ready means playable: a finished download is told once its files are in the library and, when the household
named one, once its media server's refresh ran; a refresh that fails is told plainly.

The refresh is a real Home Assistant script (one that works, one whose action does not exist).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest
from pytest_homeassistant_custom_component.common import async_mock_service

from custom_components.agent_media.const import (
    CONF_ANNOUNCE_TARGET,
    CONF_LIBRARY_REFRESH,
    EVENT_DOWNLOAD_COMPLETED,
)
from homeassistant.core import callback
from homeassistant.setup import async_setup_component

from .test_conversation import speech
from .test_household import ask
from .test_media_library import finish_into_the_library

if TYPE_CHECKING:
    from pathlib import Path

    from homeassistant.core import Event, HomeAssistant, ServiceCall

    from .rig.qbittorrent import QBittorrentInstance

pytestmark = pytest.mark.usefixtures("core_setup")

SCRIPTS = {
    "refresh_media_server": {"sequence": [{"event": "media_server_refreshed"}]},
    "broken_refresh": {"sequence": [{"action": "jellyfin_stand_in.refresh_library"}]},
}


@pytest.fixture
async def order(hass: HomeAssistant) -> list[Event]:
    """The refresh's own event and the completion, in the order they came."""
    assert await async_setup_component(hass, "script", {"script": SCRIPTS})
    seen: list[Event] = []

    @callback
    def keep(event: Event) -> None:
        seen.append(event)

    hass.bus.async_listen("media_server_refreshed", keep)
    hass.bus.async_listen(EVENT_DOWNLOAD_COMPLETED, keep)
    return seen


async def test_told_after_the_files_are_placed_and_the_media_server_refreshed(
    hass: HomeAssistant,
    entry_data: dict[str, Any],
    entry_options: dict[str, Any],
    qbittorrent: QBittorrentInstance,
    tmp_path: Path,
    order: list[Event],
) -> None:
    notified: list[ServiceCall] = async_mock_service(hass, "notify", "send_message")
    options = {
        **entry_options,
        CONF_LIBRARY_REFRESH: "script.refresh_media_server",
        "announce_completions": True,
        CONF_ANNOUNCE_TARGET: "notify.phone",
    }
    entry = await finish_into_the_library(hass, entry_data, options, qbittorrent, tmp_path)
    assert [event.event_type for event in order] == ["media_server_refreshed", EVENT_DOWNLOAD_COMPLETED]
    completed = order[1].data
    assert completed["library_path"].endswith("Sintel (2010)/Sintel (2010).mkv")
    assert completed["library_refresh"] == "ok"
    assert [call.data["message"] for call in notified] == ["Sintel has finished downloading"]
    said = await ask(hass, entry, "what's new")
    assert speech(said) == "Here's what's new: Sintel has finished downloading."


async def test_a_failed_refresh_is_told_plainly(
    hass: HomeAssistant,
    entry_data: dict[str, Any],
    entry_options: dict[str, Any],
    qbittorrent: QBittorrentInstance,
    tmp_path: Path,
    order: list[Event],
) -> None:
    options = {**entry_options, CONF_LIBRARY_REFRESH: "script.broken_refresh"}
    entry = await finish_into_the_library(hass, entry_data, options, qbittorrent, tmp_path)
    assert [event.data["library_refresh"] for event in order] == ["failed"]
    said = await ask(hass, entry, "what's new")
    assert speech(said) == (
        "Here's what's new: Sintel has downloaded; your media server has not picked it up yet."
    )
