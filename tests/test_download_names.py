"""A download is named after its film, with its poster, whichever way it was added."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from custom_components.agent_media.const import DOMAIN
from homeassistant.helpers import device_registry as dr, entity_registry as er

from .helpers import last_results, wait_until
from .rig.knaben_server import synthetic_hash
from .test_conversation import speech
from .test_household import SATELLITE, ask
from .test_sensor import download_device

if TYPE_CHECKING:
    from pytest_homeassistant_custom_component.common import MockConfigEntry

    from homeassistant.core import HomeAssistant

    from .rig.qbittorrent import QBittorrentInstance

pytestmark = pytest.mark.usefixtures("core_setup")


async def downloads_device(hass: HomeAssistant, entry: MockConfigEntry, info_hash: str) -> dr.DeviceEntry:
    """The download's device, once a poll has seen the torrent (a magnet's check may still be running).

    Polls by asking the coordinator, not by moving time: firing time far ahead also fires the time-outs of
    the requests in flight, so a loop of such moves fails every poll of a slow (loaded) machine.
    """

    async def polled() -> dr.DeviceEntry | None:
        await entry.runtime_data.coordinator.async_refresh()
        return download_device(hass, entry, info_hash)

    device = await wait_until(polled, what="the download's device")
    assert device is not None
    return device


def poster_entity_id(hass: HomeAssistant, entry: MockConfigEntry, info_hash: str) -> str | None:
    return er.async_get(hass).async_get_entity_id("image", DOMAIN, f"{entry.entry_id}_{info_hash}_poster")


async def test_a_pick_from_a_search_by_name_is_named_after_its_film(
    hass: HomeAssistant, local_entry: MockConfigEntry, qbittorrent: QBittorrentInstance
) -> None:
    await ask(hass, local_entry, "Find torrents for Sintel", device_id=SATELLITE)
    picked = last_results(local_entry.runtime_data.memory, f"device:{SATELLITE}")[1]
    added = await ask(hass, local_entry, "Download the 2nd one", device_id=SATELLITE)
    assert speech(added).startswith("Added Sintel (2010), "), speech(added)
    info_hash = picked["info_hash"]
    record = local_entry.runtime_data.memory.downloads.get(info_hash)
    assert record is not None
    assert record["media"]["tmdb_id"] == 45745
    device = await downloads_device(hass, local_entry, info_hash)
    assert device.name == "Sintel (2010)"
    assert poster_entity_id(hass, local_entry, info_hash) is not None


@pytest.mark.parametrize(
    ("release", "name", "tmdb_id"),
    [
        ("Big.Buck.Bunny.2008.1080p.BluRay.x264-PUBLICDOMAIN", "Big Buck Bunny (2008)", 10378),
        # A film TMDB does not know keeps its release name, clipped, and has no poster.
        ("Our.Holiday.Film.2019.1080p.WEB-DL", "Our.Holiday.Film.2019.1080p.WEB-DL", None),
    ],
)
async def test_a_magnet_is_named_after_its_film_when_tmdb_knows_it(
    hass: HomeAssistant,
    setup_integration: MockConfigEntry,
    qbittorrent: QBittorrentInstance,
    release: str,
    name: str,
    tmdb_id: int | None,
) -> None:
    info_hash = synthetic_hash(release)
    magnet = f"magnet:?xt=urn:btih:{info_hash}&dn={release}"
    await hass.services.async_call(
        DOMAIN, "download", {"magnet": magnet}, blocking=True, return_response=True
    )
    record = setup_integration.runtime_data.memory.downloads.get(info_hash)
    assert record is not None
    assert (record.get("media") or {}).get("tmdb_id") == tmdb_id
    device = await downloads_device(hass, setup_integration, info_hash)
    assert device.name == name
    assert (poster_entity_id(hass, setup_integration, info_hash) is not None) == (tmdb_id is not None)
