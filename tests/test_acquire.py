"""The acquire core: adding a known title's best acceptable release without asking, and the blocklist."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from custom_components.agent_media.memory import title_key
from custom_components.agent_media.operations import (
    NO_RELEASE_BLOCKED,
    NO_RELEASE_NO_ACCEPTABLE,
    NO_RELEASE_NOT_FOUND,
    SOURCE_SERVICE,
    AddedDownload,
    NoRelease,
    Request,
)
from custom_components.agent_media.requester import SYSTEM

from .helpers import wait_for_torrent
from .rig.knaben_server import movie_hits, show_hits, synthetic_hash

if TYPE_CHECKING:
    from pytest_homeassistant_custom_component.common import MockConfigEntry

    from homeassistant.core import HomeAssistant

    from .rig.knaben_server import KnabenServer
    from .rig.qbittorrent import QBittorrentInstance

SINTEL: dict[str, Any] = {
    "title": "Sintel",
    "year": 2010,
    "tmdb_id": 45745,
    "imdb_id": "tt1727587",
    "media_type": "movie",
}
PIONEER: dict[str, Any] = {"title": "Pioneer One", "year": 2010, "tmdb_id": 900001, "media_type": "tv"}
FROM_SYSTEM = Request(requester=SYSTEM, source=SOURCE_SERVICE)


def _sintel(kind: str) -> dict[str, Any]:
    return next(hit for hit in movie_hits("Sintel", 2010) if hit["hash"].lower() == synthetic_hash(kind))


async def test_acquire_adds_the_best_acceptable_release_without_asking(
    hass: HomeAssistant,
    setup_integration: MockConfigEntry,
    knaben_server: KnabenServer,
    qbittorrent: QBittorrentInstance,
) -> None:
    operations = setup_integration.runtime_data.operations
    # Two releases about as good would make download_media ask; acquiring never does.
    knaben_server.set_hits(
        [_sintel("Sintel 2010 1080p"), _sintel("Sintel 2010 720p"), _sintel("Sintel 2010 cam")]
    )
    films = qbittorrent.downloads_dir / "films"
    films.mkdir()
    added = await operations.acquiring.async_acquire(FROM_SYSTEM, SINTEL, save_path=str(films))
    assert isinstance(added, AddedDownload)
    assert added.info_hash == synthetic_hash("Sintel 2010 1080p")
    torrent = await wait_for_torrent(hass, qbittorrent, added.info_hash)
    assert Path(torrent["save_path"]) == films
    record = setup_integration.runtime_data.memory.downloads.get(added.info_hash)
    assert record is not None
    assert record["media"]["tmdb_id"] == SINTEL["tmdb_id"]
    assert (record["source"], record["requester"]) == (SOURCE_SERVICE, SYSTEM.key)
    assert setup_integration.runtime_data.memory.working.question(SYSTEM.key) is None


async def test_acquire_says_why_nothing_was_added(
    hass: HomeAssistant, setup_integration: MockConfigEntry, knaben_server: KnabenServer
) -> None:
    operations = setup_integration.runtime_data.operations
    memory = setup_integration.runtime_data.memory
    knaben_server.set_hits([])
    assert await operations.acquiring.async_acquire(FROM_SYSTEM, SINTEL) == NoRelease(
        NO_RELEASE_NOT_FOUND, "Sintel 2010"
    )
    knaben_server.set_hits([_sintel("Sintel 2010 cam")])
    outcome = await operations.acquiring.async_acquire(FROM_SYSTEM, SINTEL)
    assert isinstance(outcome, NoRelease)
    assert outcome.reason == NO_RELEASE_NO_ACCEPTABLE
    good = _sintel("Sintel 2010 1080p")
    memory.wanted.block(title_key(SINTEL), good["hash"], good["title"])
    knaben_server.set_hits([good, _sintel("Sintel 2010 cam")])
    outcome = await operations.acquiring.async_acquire(FROM_SYSTEM, SINTEL)
    assert isinstance(outcome, NoRelease)
    assert outcome.reason == NO_RELEASE_BLOCKED


async def test_acquire_an_episode_and_a_season_pack(
    hass: HomeAssistant,
    setup_integration: MockConfigEntry,
    knaben_server: KnabenServer,
    qbittorrent: QBittorrentInstance,
) -> None:
    operations = setup_integration.runtime_data.operations
    knaben_server.set_hits(show_hits())
    episode = await operations.acquiring.async_acquire(FROM_SYSTEM, PIONEER, season=1, episode=1)
    assert isinstance(episode, AddedDownload)
    assert episode.info_hash == synthetic_hash("pioneer s01e01 1080p")
    pack = await operations.acquiring.async_acquire(FROM_SYSTEM, PIONEER, season=1)
    assert isinstance(pack, AddedDownload)
    assert pack.info_hash == synthetic_hash("pioneer s01 pack")
    await wait_for_torrent(hass, qbittorrent, pack.info_hash)


async def test_add_wanted_keeps_one_record_per_title(
    hass: HomeAssistant, setup_integration: MockConfigEntry
) -> None:
    operations = setup_integration.runtime_data.operations
    first = operations.wanted.keep_wanted(SYSTEM, SINTEL, reason="replaced")
    again = operations.wanted.keep_wanted(SYSTEM, SINTEL, save_path="/elsewhere", reason="no_acceptable")
    assert again == first
    assert first["reason"] == "replaced"
    assert first["attempts"] == 1
    episode = operations.wanted.keep_wanted(SYSTEM, PIONEER, season=1, episode=2, reason="not_found")
    assert (episode["season"], episode["episode"]) == (1, 2)
    assert list(setup_integration.runtime_data.memory.wanted.titles()) == ["movie:45745", "tv:900001:s01e02"]
