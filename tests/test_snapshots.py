"""Snapshots (syrupy, as core does) of every entity's registry entry and state, and of the diagnostics.

The snapshots hold on HA 2025.4.4 and on the newest HA: registry fields that only newer versions have are
left out, and so is what changes from run to run (ports, ids, times).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from freezegun import freeze_time
import pytest
from pytest_homeassistant_custom_component.components.diagnostics import get_diagnostics_for_config_entry
from syrupy.filters import props

from custom_components.agent_media.const import (
    EVENT_DOWNLOAD_COMPLETED,
    SIGNAL_DOWNLOAD_EVENT,
)
from homeassistant.helpers import entity_registry as er
from homeassistant.helpers.dispatcher import async_dispatcher_send

from .helpers import poll, wait_for_torrent
from .rig.torrents import make_local_torrent

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from pytest_homeassistant_custom_component.common import MockConfigEntry
    from pytest_homeassistant_custom_component.typing import ClientSessionGenerator
    from syrupy.assertion import SnapshotAssertion

    from homeassistant.core import HomeAssistant, State

    from .rig.qbittorrent import QBittorrentInstance

pytestmark = pytest.mark.usefixtures("core_setup")  # the conversation dependency needs core

# Entity registry fields that newer HA versions added (2025.4.4 has none of them) or hold otherwise
# (aliases: an empty set on 2025.4.4, [None] for "the entity's name" since).
REGISTRY_FIELDS_THAT_DIFFER = (
    "aliases",
    "compat_aliases",
    "object_id_base",
    "original_name_unprefixed",
    "suggested_object_id",
)
FROZEN_AT = "2026-01-02T03:04:05+00:00"
RIG_PORT = re.compile(r"(?<=^http://redacted):\d+")
ACCESS_TOKEN = re.compile(r"(?<=\?token=)[0-9a-f]+")  # an image entity's, drawn at random


async def add_stalled_download(hass: HomeAssistant, qbittorrent: QBittorrentInstance, tmp_path: Path) -> None:
    """Add a local torrent whose data is elsewhere: it stalls at 0 % with no peers, so nothing moves."""
    torrent = make_local_torrent(tmp_path / "payload", "Sintel.2010.mkv", size=512 * 1024)
    incoming = tmp_path / "incoming"
    incoming.mkdir()
    await hass.async_add_executor_job(
        lambda: qbittorrent.api().torrents_add(
            torrent_files={"sintel.torrent": torrent.torrent_bytes}, save_path=str(incoming)
        )
    )
    await wait_for_torrent(hass, qbittorrent, torrent.info_hash, lambda t: t["state"] == "stalledDL")
    await poll(hass)


def state_and_attributes(state: State) -> dict[str, Any]:
    """A state's value and attributes, keyed by plain strings (newer HA keys some by enum members)."""
    return {"state": state.state, "attributes": {str(key): value for key, value in state.attributes.items()}}


def without_access_token(data: Any, path: Any) -> Any:
    """A snapshot matcher for states: an image entity's picture link carries a random token."""
    if isinstance(data, str) and (stable := ACCESS_TOKEN.sub("<token>", data)) != data:
        return stable
    return data


def run_independent(entry: MockConfigEntry) -> Callable[[Any, Any], Any]:
    """A snapshot matcher: the entry's and its subentries' ids and the rig's ports change every run."""

    def stable(data: Any, path: Any) -> Any:
        if not isinstance(data, str):
            return data
        for subentry in entry.subentries.values():
            data = data.replace(subentry.subentry_id, f"<{subentry.subentry_type}_subentry_id>")
        return RIG_PORT.sub(":<port>", data.replace(entry.entry_id, "<entry_id>"))

    return stable


async def test_entities(
    hass: HomeAssistant,
    qbittorrent: QBittorrentInstance,
    setup_integration: MockConfigEntry,
    snapshot: SnapshotAssertion,
    tmp_path: Path,
) -> None:
    """Every entity of the entry (service and download sensors, event, image, agent) and its state."""
    entry = setup_integration
    await add_stalled_download(hass, qbittorrent, tmp_path)
    with freeze_time(FROZEN_AT):  # the event entity's state is the time of its last event
        async_dispatcher_send(
            hass,
            SIGNAL_DOWNLOAD_EVENT.format(entry.entry_id),
            EVENT_DOWNLOAD_COMPLETED,
            {
                "entry_id": entry.entry_id,
                "hash": "0" * 40,
                "name": "Night.of.the.Living.Dead.1968",
                "size": 1,
            },
        )
        await hass.async_block_till_done()

    registry = er.async_get(hass)
    entity_entries = sorted(
        er.async_entries_for_config_entry(registry, entry.entry_id), key=lambda entity: entity.entity_id
    )
    assert {entity.domain for entity in entity_entries} == {"conversation", "event", "image", "sensor"}
    for entity_entry in entity_entries:
        assert entity_entry == snapshot(
            name=f"{entity_entry.entity_id}-entry",
            exclude=props(*REGISTRY_FIELDS_THAT_DIFFER),
            matcher=run_independent(entry),
        )
        assert entity_entry.disabled_by is None
        state = hass.states.get(entity_entry.entity_id)
        assert state is not None, entity_entry.entity_id
        assert state_and_attributes(state) == snapshot(
            name=f"{entity_entry.entity_id}-state", matcher=without_access_token
        )


async def test_diagnostics(
    hass: HomeAssistant,
    hass_client: ClientSessionGenerator,
    setup_integration: MockConfigEntry,
    snapshot: SnapshotAssertion,
) -> None:
    entry = setup_integration
    memory = entry.runtime_data.memory
    memory.household.set_folder("movie", "/srv/films")
    memory.working.store_search("system", "Nosferatu 1922", [{"title": "Nosferatu.1922.1080p"}], None)
    memory.journal.add_error("add_torrent_by_index", "not_found", "nothing at 4")
    memory.journal.add_event("download_completed", {"name": "Nosferatu.1922.1080p"})

    diagnostics = await get_diagnostics_for_config_entry(hass, hass_client, entry)

    assert diagnostics["entry"]["state"] == "loaded"
    assert diagnostics == snapshot(matcher=run_independent(entry))
