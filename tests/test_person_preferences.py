"""Each person's own preferences: "I prefer French audio" from one person changes that person's picks only.

Two users set different audio languages through the model's tool (their own words ground it); the same search
of the Knaben stand-in then ranks a different release first for each, and the household's stay as they were.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from custom_components.agent_media.agent.tool_base import ToolContext
from custom_components.agent_media.agent.tools import ToolRegistry
from custom_components.agent_media.operations import SOURCE_SERVICE, Request
from custom_components.agent_media.requester import SYSTEM, Requester, RequesterKind

from .rig.knaben_server import _hit

if TYPE_CHECKING:
    from pytest_homeassistant_custom_component.common import MockConfigEntry, MockUser

    from homeassistant.core import HomeAssistant

    from .rig.knaben_server import KnabenServer

pytestmark = pytest.mark.usefixtures("core_setup")

RELEASES = (
    "Sintel.2010.1080p.BluRay.x264.FRENCH-PDGROUP",
    "Sintel.2010.1080p.BluRay.x264.iTALiAN-PDGROUP",
    "Sintel.2010.1080p.BluRay.x264.GERMAN-PDGROUP",
)


def person(user: MockUser) -> Requester:
    return Requester(kind=RequesterKind.USER, user_id=user.id, is_admin=user.is_admin)


async def best_release(entry: MockConfigEntry, requester: Requester) -> str:
    search = await entry.runtime_data.operations.finding.async_search(
        Request(requester=requester, source=SOURCE_SERVICE), "Sintel 2010"
    )
    return str(search.results[0]["title"])


async def test_two_people_with_different_audio_languages_get_different_releases(
    hass: HomeAssistant,
    setup_integration: MockConfigEntry,
    knaben_server: KnabenServer,
    hass_admin_user: MockUser,
    hass_read_only_user: MockUser,
) -> None:
    entry = setup_integration
    knaben_server.set_hits(
        [
            _hit(name, label=name, size=8_000_000_000, seeders=100 + 10 * n, peers=5)
            for n, name in enumerate(RELEASES)
        ]
    )
    registry = ToolRegistry(entry)
    for user, words, language in (
        (hass_admin_user, "I prefer French audio", "French"),
        (hass_read_only_user, "I prefer Italian audio", "Italian"),
    ):
        context = ToolContext(hass=hass, entry=entry, requester=person(user), user_text=words)
        result = await registry.async_run("set_preference", {"languages": language}, context)
        assert result["status"] == "ok", result

    assert "FRENCH" in await best_release(entry, person(hass_admin_user))
    assert "iTALiAN" in await best_release(entry, person(hass_read_only_user))
    # The household's preferences did not change: the system (and a satellite) rank as before.
    assert entry.runtime_data.memory.household.preferences() == {}
    assert await best_release(entry, SYSTEM) == RELEASES[2]  # the most seeders
    assert entry.runtime_data.memory.household.person_preferences(f"user:{hass_read_only_user.id}") == {
        "preferred_languages": ["Italian"]
    }
