"""Each person's own: a satellite standing for a person, the `preferences` action, unfollowing one's own.

A satellite in someone's room is set (a `satellite` subentry, through Home Assistant's own subentry flow) to
stand for that person: its search ranks with their audio language, as they would, while another person gets
their own pick of the same film. The `preferences` action reads and sets a person's or the household's, with
the set_preference tool's permissions. Unfollowing a show drops only the asker while someone else follows it.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import pytest
from pytest_homeassistant_custom_component.common import MockConfigEntry, async_mock_service

from custom_components.agent_media.const import (
    CONF_PERSON,
    CONF_SATELLITE_DEVICE,
    DOMAIN,
    EVENT_DOWNLOAD_COMPLETED,
    SUBENTRY_SATELLITE,
)
from custom_components.agent_media.requester import RequesterKind, async_resolve_requester
from custom_components.agent_media.satellite_flow import satellite_people
from homeassistant.config_entries import SOURCE_RECONFIGURE, SOURCE_USER
from homeassistant.core import Context
from homeassistant.data_entry_flow import FlowResultType
from homeassistant.exceptions import ServiceValidationError, Unauthorized
from homeassistant.helpers import device_registry as dr
from homeassistant.setup import async_setup_component

from .rig.knaben_server import _hit
from .test_announce import satellite
from .test_conversation import speech
from .test_household import ask
from .test_subscriptions import finish, subscribe

if TYPE_CHECKING:
    from pathlib import Path

    from pytest_homeassistant_custom_component.common import MockUser

    from homeassistant.core import Event, HomeAssistant, ServiceCall

    from .rig.knaben_server import KnabenServer
    from .rig.llm_server import ScriptedLLMServer
    from .rig.qbittorrent import QBittorrentInstance

pytestmark = pytest.mark.usefixtures("core_setup")

RELEASES = (
    "Sintel.2010.1080p.BluRay.x264.FRENCH-PDGROUP",
    "Sintel.2010.1080p.BluRay.x264.iTALiAN-PDGROUP",
    "Sintel.2010.1080p.BluRay.x264.GERMAN-PDGROUP",  # the most seeders: the household's pick
)


@pytest.fixture
async def people(hass: HomeAssistant, hass_admin_user: MockUser, hass_read_only_user: MockUser) -> None:
    """Alice administers Home Assistant, Bob does not; Carol is a person with no user."""
    assert await async_setup_component(
        hass,
        "person",
        {
            "person": [
                {"id": "alice", "name": "Alice", "user_id": hass_admin_user.id},
                {"id": "bob", "name": "Bob", "user_id": hass_read_only_user.id},
                {"id": "carol", "name": "Carol"},
            ]
        },
    )
    await hass.async_block_till_done()


async def preferences(hass: HomeAssistant, data: dict[str, Any], user_id: str | None) -> Any:
    return await hass.services.async_call(
        DOMAIN, "preferences", data, blocking=True, context=Context(user_id=user_id), return_response=True
    )


async def add_satellite_person(
    hass: HomeAssistant, entry: MockConfigEntry, device_id: str, person: str
) -> Any:
    flow = await hass.config_entries.subentries.async_init(
        (entry.entry_id, SUBENTRY_SATELLITE), context={"source": SOURCE_USER}
    )
    assert flow["type"] is FlowResultType.FORM
    return await hass.config_entries.subentries.async_configure(
        flow["flow_id"], {CONF_SATELLITE_DEVICE: device_id, CONF_PERSON: person}
    )


@pytest.mark.usefixtures("people")
async def test_a_satellite_standing_for_a_person_picks_with_their_audio_language(
    hass: HomeAssistant,
    local_entry: MockConfigEntry,
    knaben_server: KnabenServer,
    hass_admin_user: MockUser,
    hass_read_only_user: MockUser,
) -> None:
    knaben_server.set_hits(
        [
            _hit(name, label=name, size=8_000_000_000, seeders=100 + 10 * n, peers=5)
            for n, name in enumerate(RELEASES)
        ]
    )
    alice, bob = hass_admin_user.id, hass_read_only_user.id
    assert (await preferences(hass, {"languages": "French"}, alice))["own"] == {"languages": ["French"]}
    assert (await preferences(hass, {"languages": "Italian"}, bob))["own"] == {"languages": ["Italian"]}
    device_id = satellite(hass, features=1)
    dr.async_get(hass).async_update_device(device_id, name_by_user="Kitchen")

    async def first_release(**who: Any) -> str:
        await ask(hass, local_entry, "find torrents for Sintel 2010", **who)
        key = f"user:{who['user_id']}" if "user_id" in who else f"device:{who['device_id']}"
        search = local_entry.runtime_data.memory.working.search(key)
        assert search is not None
        return str(search["results"][0]["title"])

    # Not set yet: the satellite is the household's.
    assert await first_release(device_id=device_id) == RELEASES[2]

    created = await add_satellite_person(hass, local_entry, device_id, "person.bob")
    assert created["type"] is FlowResultType.CREATE_ENTRY
    assert created["title"] == "Kitchen → Bob"  # as Home Assistant names them
    await hass.async_block_till_done()
    assert satellite_people(local_entry) == {device_id: "person.bob"}

    # Through the satellite, Bob's Italian audio; Alice, in the app, her French: the same film, two releases.
    assert "iTALiAN" in await first_release(device_id=device_id)
    assert "FRENCH" in await first_release(user_id=alice)

    # Bob's preferences, never his permissions: the satellite keeps its own (a satellite is trusted).
    requester = await async_resolve_requester(
        hass, Context(), device_id, satellite_people=satellite_people(local_entry)
    )
    assert (requester.kind, requester.key, requester.person_key) == (
        RequesterKind.DEVICE,
        f"device:{device_id}",
        f"user:{bob}",
    )
    assert requester.trusted
    assert not requester.is_admin

    # "Tell me when it's ready" on it is Bob's subscription, told on that satellite.
    said = await ask(hass, local_entry, "tell me when Sintel is ready", device_id=device_id)
    assert said.response.speech["plain"]["speech"]
    waiting = local_entry.runtime_data.memory.subscriptions.waiting()
    assert [
        (item["requester"], item["target"])
        for subscription in waiting.values()
        for item in subscription["subscribers"]
    ] == [(f"user:{bob}", f"device:{device_id}")]

    # A second subentry for the same satellite is refused; a person with no user cannot be chosen.
    again = await add_satellite_person(hass, local_entry, device_id, "person.alice")
    assert again["type"] is FlowResultType.ABORT
    assert again["reason"] == "already_configured"
    subentry_id = next(
        iter(sid for sid, sub in local_entry.subentries.items() if sub.subentry_type == SUBENTRY_SATELLITE)
    )
    flow = await hass.config_entries.subentries.async_init(
        (local_entry.entry_id, SUBENTRY_SATELLITE),
        context={"source": SOURCE_RECONFIGURE, "subentry_id": subentry_id},
    )
    refused = await hass.config_entries.subentries.async_configure(
        flow["flow_id"], {CONF_PERSON: "person.carol"}
    )
    assert refused["type"] is FlowResultType.FORM
    assert refused["errors"] == {CONF_PERSON: "person_without_user"}
    changed = await hass.config_entries.subentries.async_configure(
        flow["flow_id"], {CONF_PERSON: "person.alice"}
    )
    assert changed["type"] is FlowResultType.ABORT
    assert changed["reason"] == "reconfigure_successful"
    await hass.async_block_till_done()
    assert "FRENCH" in await first_release(device_id=device_id)

    # Removed: the household's again.
    assert hass.config_entries.async_remove_subentry(local_entry, subentry_id)
    await hass.async_block_till_done()
    assert await first_release(device_id=device_id) == RELEASES[2]


@pytest.mark.usefixtures("people")
async def test_the_preferences_action_lets_a_person_set_their_own_and_an_administrator_anyones(
    hass: HomeAssistant,
    local_entry: MockConfigEntry,
    hass_admin_user: MockUser,
    hass_read_only_user: MockUser,
) -> None:
    alice, bob = hass_admin_user.id, hass_read_only_user.id
    household = local_entry.runtime_data.memory.household

    # A person reads and sets their own; the household's defaults stay in force under them.
    mine = await preferences(hass, {}, bob)
    assert mine["whose"] == f"user:{bob}"
    assert mine["own"] == {}
    set_own = await preferences(hass, {"codec": "hevc", "max_size_gb": 4.5, "languages": "fr, en"}, bob)
    assert set_own["own"] == {"codec": "x265", "max_size_gb": 4.5, "languages": ["fr", "en"]}
    assert set_own["preferences"] == {
        "resolution": mine["preferences"]["resolution"],
        "codec": "x265",
        "max_size_gb": 4.5,
        "languages": ["fr", "en"],
    }
    assert (await preferences(hass, {"person": "person.bob"}, bob))["own"] == set_own["own"]

    # Not another person's, nor the household's.
    for refused in (
        {"person": "person.alice"},
        {"person": "person.alice", "resolution": "720p"},
        {"household": True, "resolution": "720p"},
    ):
        with pytest.raises(Unauthorized):
            await preferences(hass, refused, bob)
    assert household.preferences() == {}
    assert household.person_preferences(f"user:{alice}") == {}
    # Reading the household's is open to all.
    assert (await preferences(hass, {"household": True}, bob))["whose"] == "household"

    # An administrator sets anyone's and the household's; an automation (no user) the household's.
    assert (await preferences(hass, {"person": "person.bob", "resolution": "720p"}, alice))["own"][
        "resolution"
    ] == "720p"
    assert (await preferences(hass, {"household": True, "resolution": "2160p"}, alice))["preferences"][
        "resolution"
    ] == "2160p"
    system = await preferences(hass, {"max_size_gb": 20}, None)
    assert system["whose"] == "household"
    assert system["own"] == {"resolution": "2160p", "max_size_gb": 20.0}
    assert (await preferences(hass, {}, bob))["preferences"][
        "resolution"
    ] == "720p"  # his own over the household's

    # A person with no user has no preferences of their own; a value that is no preference is refused.
    with pytest.raises(ServiceValidationError) as err:
        await preferences(hass, {"person": "person.carol"}, alice)
    assert err.value.translation_key == "person_without_user"
    with pytest.raises(ServiceValidationError) as err:
        await preferences(hass, {"resolution": "super"}, bob)
    assert err.value.translation_key == "preference_invalid"
    assert household.person_preferences(f"user:{bob}")["preferred_resolution"] == "720p"


async def test_unfollowing_drops_only_the_asker_while_someone_else_follows(
    hass: HomeAssistant,
    local_entry: MockConfigEntry,
    knaben_server: KnabenServer,
    hass_admin_user: MockUser,
    hass_read_only_user: MockUser,
) -> None:
    knaben_server.set_hits([])
    alice, bob = hass_admin_user.id, hass_read_only_user.id
    wanted = local_entry.runtime_data.memory.wanted
    for user_id in (bob, alice):
        await hass.services.async_call(
            DOMAIN, "follow_show", {"title": "Pioneer One"}, blocking=True, context=Context(user_id=user_id)
        )
    await hass.async_block_till_done()
    assert wanted.followers("tv:900001") == [f"user:{bob}", f"user:{alice}"]

    async def unfollow(user_id: str, **data: Any) -> Any:
        return await hass.services.async_call(
            DOMAIN,
            "unfollow_show",
            {"title": "Pioneer One", **data},
            blocking=True,
            context=Context(user_id=user_id),
            return_response=True,
        )

    # Bob stops following: Alice still does, the show stays followed (with her preferences now).
    assert await unfollow(bob) == {"unfollowed": ["Pioneer One (2010)"]}
    assert wanted.followers("tv:900001") == [f"user:{alice}"]
    assert wanted.shows()["tv:900001"]["requester"] == f"user:{alice}"
    with pytest.raises(ServiceValidationError) as err:
        await unfollow(bob)
    assert err.value.translation_key == "not_following"
    # Bob may not drop someone else; an administrator may drop everyone.
    with pytest.raises(Unauthorized):
        await unfollow(bob, follower="all")
    await hass.services.async_call(
        DOMAIN, "follow_show", {"title": "Pioneer One"}, blocking=True, context=Context(user_id=bob)
    )
    assert wanted.followers("tv:900001") == [f"user:{alice}", f"user:{bob}"]
    assert await unfollow(alice, follower=f"user:{bob}") == {"unfollowed": ["Pioneer One (2010)"]}
    assert wanted.followers("tv:900001") == [f"user:{alice}"]
    assert await unfollow(alice, follower="all") == {"unfollowed": ["Pioneer One (2010)"]}
    assert wanted.shows() == {}


@pytest.mark.usefixtures("people")
async def test_a_person_subscribed_through_their_satellite_is_told_there_and_once(
    hass: HomeAssistant,
    local_entry: MockConfigEntry,
    qbittorrent: QBittorrentInstance,
    tmp_path: Path,
    hass_admin_user: MockUser,
    hass_read_only_user: MockUser,
) -> None:
    announced: list[ServiceCall] = async_mock_service(hass, "assist_satellite", "announce")
    notified: list[ServiceCall] = async_mock_service(hass, "notify", "send_message")
    alice, bob = hass_admin_user.id, hass_read_only_user.id
    device_id = satellite(hass, features=1)
    assert (await add_satellite_person(hass, local_entry, device_id, "person.bob"))[
        "type"
    ] is FlowResultType.CREATE_ENTRY
    await hass.async_block_till_done()

    said = await ask(hass, local_entry, "tell me when Big Buck Bunny is ready", device_id=device_id)
    assert speech(said) == "I'll tell you when Big Buck Bunny (2008) is ready."
    await subscribe(hass, {"target": "notify.alice_phone"}, alice)  # "me too"
    completions: list[Event] = []
    hass.bus.async_listen(EVENT_DOWNLOAD_COMPLETED, completions.append)
    await finish(hass, local_entry, qbittorrent, tmp_path)
    assert [event.data["subscribers"] for event in completions] == [[f"user:{bob}", f"user:{alice}"]]

    # Bob is told on his satellite, Alice on her phone; each once.
    assert [call.data["entity_id"] for call in announced] == ["assist_satellite.kitchen"]
    assert [call.data["entity_id"] for call in notified] == ["notify.alice_phone"]
    # His next turn on the satellite is his: he hears it there, and then not again in the app.
    first = await ask(hass, local_entry, "what's downloading", user_id=alice)
    assert speech(first).startswith("Here's what's new: Big Buck Bunny has finished downloading.")
    subscriptions = local_entry.runtime_data.memory.subscriptions
    assert len(subscriptions.untold(f"user:{bob}")) == 1
    on_satellite = await ask(hass, local_entry, "what's downloading", device_id=device_id)
    assert speech(on_satellite).startswith("Here's what's new: Big Buck Bunny has finished downloading.")
    assert subscriptions.untold(f"user:{bob}") == []
    in_the_app = await ask(hass, local_entry, "what's downloading", user_id=bob)
    assert "Big Buck Bunny" not in speech(in_the_app)


@pytest.mark.usefixtures("people")
async def test_the_model_on_a_satellite_standing_for_a_person_sees_their_preferences(
    hass: HomeAssistant,
    local_entry: MockConfigEntry,
    llm_server: ScriptedLLMServer,
    hass_read_only_user: MockUser,
) -> None:
    """The turn's context block gives the model the person's preferences, not the household's."""
    assert (await preferences(hass, {"languages": "Italian"}, hass_read_only_user.id))["own"] == {
        "languages": ["Italian"]
    }
    device_id = satellite(hass, features=1)
    dr.async_get(hass).async_update_device(device_id, name_by_user="Kitchen")

    def last_request() -> str:
        return json.dumps(llm_server.requests[-1]["messages"], ensure_ascii=False)

    llm_server.queue_text("Something calm, perhaps.")
    await ask(hass, local_entry, "what should we watch tonight?", device_id=device_id)
    assert "Italian" not in last_request()  # the household's satellite: no language preferred

    created = await add_satellite_person(hass, local_entry, device_id, "person.bob")
    assert created["type"] is FlowResultType.CREATE_ENTRY
    await hass.async_block_till_done()
    llm_server.queue_text("Something calm, perhaps.")
    await ask(hass, local_entry, "what should we watch tonight?", device_id=device_id)
    assert "audio languages Italian" in last_request()
