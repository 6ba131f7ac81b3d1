"""'Tell me too': each subscriber is told once, on their own target and at their own next turn.

Two users (each with a notify target) and a voice satellite subscribe to the same title before its download
finishes in a real qBittorrent; the satellite's announce and the notify entities are Home Assistant services
registered by the test (the outer edge: no satellite or phone here).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest
from pytest_homeassistant_custom_component.common import MockConfigEntry, async_mock_service

from custom_components.agent_media.agent.tool_base import ToolContext
from custom_components.agent_media.agent.tools import ToolRegistry
from custom_components.agent_media.const import DOMAIN, EVENT_DOWNLOAD_COMPLETED
from custom_components.agent_media.requester import SYSTEM
from homeassistant.core import Context
from homeassistant.exceptions import Unauthorized

from .helpers import async_add_download, is_done, wait_for_torrent, wait_until
from .rig.torrents import make_local_torrent
from .test_announce import satellite
from .test_conversation import speech
from .test_coordinator_qbittorrent import BIG_BUCK_BUNNY
from .test_household import ask

if TYPE_CHECKING:
    from pathlib import Path

    from pytest_homeassistant_custom_component.common import MockUser

    from homeassistant.core import Event, HomeAssistant, ServiceCall

    from .rig.qbittorrent import QBittorrentInstance

pytestmark = pytest.mark.usefixtures("core_setup")


async def subscribe(hass: HomeAssistant, data: dict[str, Any], user_id: str | None) -> Any:
    return await hass.services.async_call(
        DOMAIN, "subscribe", data, blocking=True, context=Context(user_id=user_id), return_response=True
    )


async def listed(hass: HomeAssistant, user_id: str | None) -> list[dict[str, Any]]:
    response = await hass.services.async_call(
        DOMAIN,
        "list_subscriptions",
        {},
        blocking=True,
        context=Context(user_id=user_id),
        return_response=True,
    )
    assert response is not None
    return list(response["subscriptions"])


@pytest.fixture
def entry(local_entry: MockConfigEntry) -> MockConfigEntry:
    """The entry these tests share: conftest's, answering the common sentences locally."""
    return local_entry


async def finish(
    hass: HomeAssistant,
    entry: MockConfigEntry,
    qbittorrent: QBittorrentInstance,
    tmp_path: Path,
    name: str = "Big.Buck.Bunny.2008.1080p.mkv",
    media: dict[str, Any] = BIG_BUCK_BUNNY,
    requester_key: str = "system",
) -> None:
    torrent = make_local_torrent(tmp_path / "downloads", name)
    await async_add_download(
        hass,
        entry,
        torrent_file=torrent.torrent_bytes,
        save_path=str(tmp_path / "downloads"),
        media=media,
        requester_key=requester_key,
    )
    await wait_for_torrent(hass, qbittorrent, torrent.info_hash, is_done)

    async def completed() -> bool:
        await entry.runtime_data.coordinator.async_refresh()
        await hass.async_block_till_done(wait_background_tasks=True)
        return not entry.runtime_data.memory.downloads.records()

    await wait_until(completed, what="the completion to be seen")


async def test_two_users_and_a_satellite_are_each_told_once_on_their_own_target(
    hass: HomeAssistant,
    entry: MockConfigEntry,
    qbittorrent: QBittorrentInstance,
    tmp_path: Path,
    hass_admin_user: MockUser,
    hass_read_only_user: MockUser,
) -> None:
    announced: list[ServiceCall] = async_mock_service(hass, "assist_satellite", "announce")
    notified: list[ServiceCall] = async_mock_service(hass, "notify", "send_message")
    completions: list[Event] = []
    hass.bus.async_listen(EVENT_DOWNLOAD_COMPLETED, completions.append)
    device_id = satellite(hass, features=1)
    alice, bob = hass_admin_user.id, hass_read_only_user.id

    mine = await subscribe(hass, {"title": "Big Buck Bunny", "target": "notify.alice_phone"}, alice)
    assert mine == {"title": "Big Buck Bunny (2008)", "key": "movie:10378", "subscriber": f"user:{alice}"}
    said = await ask(hass, entry, "tell me when Big Buck Bunny is ready", device_id=device_id)
    assert speech(said) == "I'll tell you when Big Buck Bunny (2008) is ready."
    await subscribe(hass, {"target": "notify.bob_phone"}, bob)  # "me too": the title subscribed to last

    # Who waits for what: a person sees their own, an administrator everyone's.
    assert await listed(hass, bob) == [
        {"key": "movie:10378", "title": "Big Buck Bunny (2008)", "subscribers": [f"user:{bob}"]}
    ]
    assert (await listed(hass, alice))[0]["subscribers"] == [
        f"user:{alice}",
        f"device:{device_id}",
        f"user:{bob}",
    ]

    await finish(hass, entry, qbittorrent, tmp_path)
    assert [call.data for call in announced] == [
        {"entity_id": "assist_satellite.kitchen", "message": "Big Buck Bunny has finished downloading"}
    ]
    assert sorted(call.data["entity_id"] for call in notified) == ["notify.alice_phone", "notify.bob_phone"]
    assert [event.data["subscribers"] for event in completions] == [
        [f"user:{alice}", f"device:{device_id}", f"user:{bob}"]
    ]
    assert await listed(hass, alice) == []  # each is told once: the subscriptions are gone

    # At their next turn each hears it once, though someone else heard it first.
    first = await ask(hass, entry, "what's downloading", user_id=alice)
    assert speech(first).startswith("Here's what's new: Big Buck Bunny has finished downloading.")
    again = await ask(hass, entry, "what's downloading", user_id=alice)
    assert "Big Buck Bunny" not in speech(again)
    theirs = await ask(hass, entry, "what's downloading", user_id=bob)
    assert speech(theirs).startswith("Here's what's new: Big Buck Bunny has finished downloading.")
    assert len(announced) == 1
    assert len(notified) == 2


async def test_a_person_drops_only_their_own_and_an_administrator_anyones(
    hass: HomeAssistant,
    entry: MockConfigEntry,
    hass_admin_user: MockUser,
    hass_read_only_user: MockUser,
) -> None:
    alice, bob = hass_admin_user.id, hass_read_only_user.id
    await subscribe(hass, {"title": "Sintel"}, alice)
    await subscribe(hass, {"title": "Sintel"}, bob)
    with pytest.raises(Unauthorized):
        await hass.services.async_call(
            DOMAIN,
            "unsubscribe",
            {"title": "Sintel", "subscriber": f"user:{alice}"},
            blocking=True,
            context=Context(user_id=bob),
        )
    said = await ask(hass, entry, "stop telling me about Sintel", user_id=bob)
    assert speech(said) == "I won't tell you about Sintel (2010)."
    assert (await listed(hass, alice))[0]["subscribers"] == [f"user:{alice}"]
    await subscribe(hass, {"title": "Sintel"}, bob)
    await hass.services.async_call(
        DOMAIN,
        "unsubscribe",
        {"title": "Sintel", "subscriber": "all"},
        blocking=True,
        context=Context(user_id=alice),
    )
    assert await listed(hass, alice) == []


async def test_subscriptions_survive_a_restart_and_an_empty_section_is_not_stored(
    hass: HomeAssistant, entry: MockConfigEntry, hass_read_only_user: MockUser
) -> None:
    memory = entry.runtime_data.memory
    await memory.async_save_now()
    assert "subscriptions" not in memory._store._data_to_save()

    await subscribe(hass, {"title": "Pioneer One"}, hass_read_only_user.id)
    assert await hass.config_entries.async_reload(entry.entry_id)
    await hass.async_block_till_done()
    assert await listed(hass, hass_read_only_user.id) == [
        {"key": "tv:900001", "title": "Pioneer One (2010)", "subscribers": [f"user:{hass_read_only_user.id}"]}
    ]


async def test_a_subscription_needs_a_notify_entity_as_its_target(
    hass: HomeAssistant, entry: MockConfigEntry
) -> None:
    with pytest.raises(Exception, match="is not a notify entity"):
        await subscribe(hass, {"title": "Sintel", "target": "light.kitchen"}, None)
    assert await listed(hass, None) == []


async def test_the_model_subscribes_through_its_tool(hass: HomeAssistant, entry: MockConfigEntry) -> None:
    context = ToolContext(hass=hass, entry=entry, requester=SYSTEM)
    result = await ToolRegistry(entry).async_run("tell_when_ready", {"title": "Sintel"}, context)
    assert result == {"status": "ok", "title": "Sintel (2010)", "already": False}
    again = await ToolRegistry(entry).async_run("tell_when_ready", {}, context)  # "me too", from the same one
    assert again == {"status": "ok", "title": "Sintel (2010)", "already": True}


PIONEER_ONE = {"title": "Pioneer One", "year": 2010, "tmdb_id": 900001, "media_type": "tv"}


async def test_a_followed_shows_episode_is_told_to_its_followers_only_once_across_restarts(
    hass: HomeAssistant,
    entry: MockConfigEntry,
    qbittorrent: QBittorrentInstance,
    tmp_path: Path,
    hass_admin_user: MockUser,
    hass_read_only_user: MockUser,
) -> None:
    announced: list[ServiceCall] = async_mock_service(hass, "assist_satellite", "announce")
    completions: list[Event] = []
    hass.bus.async_listen(EVENT_DOWNLOAD_COMPLETED, completions.append)
    device_id = satellite(hass, features=1)
    follower, other = hass_admin_user.id, hass_read_only_user.id
    wanted = entry.runtime_data.memory.wanted
    for key in (f"user:{follower}", f"device:{device_id}"):  # two follow it: both are kept
        wanted.follow("tv:900001", PIONEER_ONE, from_season=1, save_path=None, requester_key=key)
    assert wanted.followers("tv:900001") == [f"user:{follower}", f"device:{device_id}"]

    await finish(
        hass, entry, qbittorrent, tmp_path, "Pioneer.One.S01E03.720p.mkv", PIONEER_ONE, f"user:{follower}"
    )
    assert [
        (event.data["subscribers"], event.data["season"], event.data["episode"]) for event in completions
    ] == [([f"user:{follower}", f"device:{device_id}"], 1, 3)]
    assert [call.data["message"] for call in announced] == [
        "Pioneer One, season 1 episode 3 has finished downloading"
    ]
    # Not the household's news: someone else hears nothing of it.
    assert speech(await ask(hass, entry, "what's new", user_id=other)) == "Nothing new."

    await entry.runtime_data.memory.async_save_now()
    assert await hass.config_entries.async_reload(entry.entry_id)
    await hass.async_block_till_done()
    first = await ask(hass, entry, "what's new", user_id=follower)
    assert speech(first) == "Here's what's new: Pioneer One, season 1 episode 3 has finished downloading."
    assert speech(await ask(hass, entry, "what's new", user_id=follower)) == "Nothing new."
    assert speech(await ask(hass, entry, "what's new", user_id=other)) == "Nothing new."
