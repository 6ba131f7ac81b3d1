"""TorrentTracker: merging sync/maindata answers and deciding completion, on qBittorrent-shaped answers.

The shapes follow qbittorrent.md §1.4 and §5.9 (observed on 4.5.2): a snapshot carries every field, a delta
only what changed, removals come as ``torrents_removed``, and ``server_state`` carries changed keys only. The
flows against the real qbittorrent-nox are in test_coordinator_qbittorrent.py.
"""

from __future__ import annotations

from typing import Any

import pytest

from custom_components.agent_media.news import completion_payload
from custom_components.agent_media.torrents import (
    DownloadState,
    TorrentTracker,
    download_state,
    is_complete,
    unfinishable,
    unfinishable_wait,
)

HASH_A = "0123456789abcdef0123456789abcdef01234567"
HASH_B = "89abcdef0123456789abcdef0123456789abcdef"
HASH_C = "fedcba9876543210fedcba9876543210fedcba98"


def torrent(**fields: Any) -> dict[str, Any]:
    """A torrent as a snapshot lists it (a subset of the 4.5.2 fields plus ones we ignore)."""
    return {
        "name": "Sintel.2010.mkv",
        "state": "downloading",
        "progress": 0.25,
        "amount_left": 3 * 1024,
        "size": 4 * 1024,
        "total_size": 4 * 1024,
        "dlspeed": 2048,
        "eta": 60,
        "save_path": "/media/films",
        "content_path": "/media/films/Sintel.2010.mkv",
        "category": "films",
        "added_on": 1_700_000_000,
        "num_seeds": 3,
        "tracker": "",
        **fields,
    }


def seeding(**fields: Any) -> dict[str, Any]:
    return torrent(state="stalledUP", progress=1, amount_left=0, dlspeed=0, eta=8_640_000, **fields)


def snapshot(rid: int, torrents: dict[str, dict[str, Any]], **server_state: Any) -> dict[str, Any]:
    return {
        "rid": rid,
        "full_update": True,
        "torrents": torrents,
        "categories": {},
        "tags": [],
        "trackers": {},
        "server_state": {
            "dl_info_speed": 0,
            "up_info_speed": 0,
            "connection_status": "connected",
            **server_state,
        },
    }


def test_deltas_merge_into_the_snapshot() -> None:
    tracker = TorrentTracker()
    assert tracker.apply(snapshot(1, {HASH_A: torrent(), HASH_B: seeding(name="Nosferatu.1922.mkv")})) == []
    assert tracker.rid == 1
    assert "tracker" not in tracker.torrents[HASH_A]  # fields we do not use are not kept

    tracker.apply({"rid": 2, "torrents": {HASH_A: {"progress": 0.5, "dlspeed": 4096}}})
    assert tracker.rid == 2
    assert tracker.torrents[HASH_A]["progress"] == 0.5
    assert tracker.torrents[HASH_A]["name"] == "Sintel.2010.mkv"  # untouched fields stay
    view = tracker.view(HASH_A)
    assert view.progress == 50.0
    assert view.download_speed == 4096
    assert view.state is DownloadState.DOWNLOADING

    tracker.apply({"rid": 3})  # an idle poll
    assert tracker.rid == 3
    assert set(tracker.torrents) == {HASH_A, HASH_B}


def test_server_state_is_updated_key_by_key() -> None:
    tracker = TorrentTracker()
    tracker.apply(snapshot(1, {}, dl_info_speed=1000, up_info_speed=50))
    tracker.apply({"rid": 2, "server_state": {"dl_info_speed": 2500}})
    data = tracker.data(())
    assert (data.download_speed, data.upload_speed) == (2500, 50)
    assert tracker.server_state["connection_status"] == "connected"


def test_removed_torrents_are_forgotten() -> None:
    tracker = TorrentTracker()
    tracker.apply(snapshot(1, {HASH_A: torrent(), HASH_B: torrent(added_on=1_700_000_100)}))
    assert tracker.active == {HASH_A, HASH_B}
    tracker.apply({"rid": 2, "torrents_removed": [HASH_A]})
    assert set(tracker.torrents) == {HASH_B}
    assert tracker.active == {HASH_B}
    assert tracker.incomplete == {HASH_B}


def test_full_update_replaces_everything() -> None:
    """After a qBittorrent restart (or a stale rid) a snapshot comes back: absent torrents are gone."""
    tracker = TorrentTracker()
    tracker.apply(snapshot(5, {HASH_A: torrent(), HASH_B: seeding()}, dl_info_speed=9000, alltime_dl=1))
    tracker.apply(snapshot(1, {HASH_A: torrent(progress=0.3)}, dl_info_speed=10))
    assert set(tracker.torrents) == {HASH_A}
    assert tracker.complete == set()
    assert tracker.rid == 1
    assert "alltime_dl" not in tracker.server_state


def test_counts_of_active_queued_and_stalled_downloads() -> None:
    tracker = TorrentTracker()
    tracker.apply(
        snapshot(
            1,
            {
                HASH_A: torrent(state="stalledDL", dlspeed=0),
                HASH_B: torrent(state="queuedDL"),
                HASH_C: torrent(state="pausedDL"),
                "1" * 40: torrent(state="stoppedDL"),
                "2" * 40: torrent(state="error"),
                "3" * 40: torrent(state="metaDL", size=0, total_size=-1, progress=0, amount_left=0),
                "4" * 40: seeding(),
            },
        )
    )
    data = tracker.data(())
    assert data.torrents == 7
    assert data.active_downloads == 3  # stalled, queued, and the magnet fetching its metadata
    assert data.queued_downloads == 1
    assert data.stalled_downloads == 1

    tracker.apply({"rid": 2, "torrents": {HASH_A: {"state": "downloading", "dlspeed": 100}}})
    assert tracker.data(()).stalled_downloads == 0


def test_completion_fires_only_on_the_transition() -> None:
    tracker = TorrentTracker()
    assert tracker.apply(snapshot(1, {HASH_A: torrent(), HASH_B: seeding()})) == []
    assert tracker.incomplete == {HASH_A}
    assert tracker.incomplete_changed

    completed = tracker.apply(
        {"rid": 2, "torrents": {HASH_A: {"progress": 1, "amount_left": 0, "state": "downloading"}}}
    )
    assert completed == [HASH_A]  # progress, not the lagging state string, decides
    assert tracker.incomplete == set()
    assert tracker.apply({"rid": 3, "torrents": {HASH_A: {"state": "stalledUP"}}}) == []
    assert tracker.view(HASH_A).state is DownloadState.COMPLETED
    assert tracker.view(HASH_A).eta == 0


def test_a_recheck_does_not_complete_twice() -> None:
    tracker = TorrentTracker()
    tracker.apply(snapshot(1, {HASH_A: torrent()}))
    assert tracker.apply({"rid": 2, "torrents": {HASH_A: {"progress": 1, "amount_left": 0}}}) == [HASH_A]
    tracker.apply(
        {"rid": 3, "torrents": {HASH_A: {"state": "checkingUP", "progress": 0.1, "amount_left": 1}}}
    )
    assert tracker.incomplete == set()
    assert tracker.active == set()
    assert (
        tracker.apply(
            {"rid": 4, "torrents": {HASH_A: {"state": "stalledUP", "progress": 1, "amount_left": 0}}}
        )
        == []
    )


def test_lost_data_downloaded_again_completes_again() -> None:
    tracker = TorrentTracker()
    tracker.apply(snapshot(1, {HASH_A: seeding()}))
    tracker.apply(
        {"rid": 2, "torrents": {HASH_A: {"state": "downloading", "progress": 0.5, "amount_left": 2048}}}
    )
    assert tracker.incomplete == {HASH_A}
    assert tracker.apply({"rid": 3, "torrents": {HASH_A: {"progress": 1, "amount_left": 0}}}) == [HASH_A]


def test_first_seen_complete_fires_only_when_expected() -> None:
    tracker = TorrentTracker()
    assert tracker.apply(snapshot(1, {HASH_A: seeding(), HASH_B: seeding()}), expected={HASH_B}) == [HASH_B]
    # A torrent added with its data (skip_checking) appears complete in a delta: news only when awaited.
    assert tracker.apply({"rid": 2, "torrents": {HASH_C: seeding()}}) == []
    assert tracker.apply({"rid": 3, "torrents": {"4" * 40: seeding()}}, expected={"4" * 40}) == ["4" * 40]


def test_remembered_incomplete_torrent_finished_while_away() -> None:
    tracker = TorrentTracker(incomplete=[HASH_A, HASH_C])
    assert tracker.apply(snapshot(1, {HASH_A: seeding(), HASH_B: seeding()})) == [HASH_A]
    assert tracker.incomplete == set()  # HASH_C is gone from qBittorrent
    assert tracker.incomplete_changed


def test_checking_in_a_snapshot_is_undecided_until_checked() -> None:
    """Right after a qBittorrent start every torrent reads its resume data: not yet known incomplete."""
    tracker = TorrentTracker()
    tracker.apply(snapshot(1, {HASH_A: torrent(state="checkingResumeData", progress=0, amount_left=4096)}))
    assert tracker.incomplete == set()
    assert (
        tracker.apply(
            {"rid": 2, "torrents": {HASH_A: {"state": "stalledUP", "progress": 1, "amount_left": 0}}}
        )
        == []
    )

    # A torrent added while we watch is checked before it downloads: that one is incomplete at once.
    tracker.apply({"rid": 3, "torrents": {HASH_B: torrent(state="checkingResumeData", progress=0)}})
    assert tracker.incomplete == {HASH_B}
    assert tracker.apply(
        {"rid": 4, "torrents": {HASH_B: {"state": "stalledUP", "progress": 1, "amount_left": 0}}}
    ) == [HASH_B]


def test_a_magnet_without_metadata_is_not_complete() -> None:
    magnet = torrent(state="metaDL", size=0, total_size=-1, progress=0, amount_left=0, eta=8_640_000)
    assert not is_complete(magnet)
    assert download_state(magnet, complete=False) is DownloadState.METADATA
    tracker = TorrentTracker()
    tracker.apply(snapshot(1, {HASH_A: magnet}))
    view = tracker.view(HASH_A)
    assert (view.size, view.eta, view.progress) == (None, None, 0.0)


@pytest.mark.parametrize(
    ("state", "complete", "expected"),
    [
        ("downloading", False, DownloadState.DOWNLOADING),
        ("forcedDL", False, DownloadState.DOWNLOADING),
        ("stalledDL", False, DownloadState.STALLED),
        ("queuedDL", False, DownloadState.QUEUED),
        ("pausedDL", False, DownloadState.PAUSED),
        ("stoppedDL", False, DownloadState.PAUSED),
        ("checkingDL", False, DownloadState.CHECKING),
        ("checkingResumeData", True, DownloadState.CHECKING),
        ("moving", True, DownloadState.MOVING),
        ("missingFiles", True, DownloadState.ERROR),
        ("stalledUP", True, DownloadState.COMPLETED),
        ("pausedUP", True, DownloadState.COMPLETED),
        ("stoppedUP", True, DownloadState.COMPLETED),
        ("somethingNew", False, DownloadState.DOWNLOADING),
    ],
)
def test_state_mapping(state: str, complete: bool, expected: DownloadState) -> None:
    assert download_state({"state": state}, complete=complete) is expected


def test_invalid_answer_changes_nothing() -> None:
    tracker = TorrentTracker()
    tracker.apply(snapshot(1, {HASH_A: torrent()}))
    with pytest.raises(ValueError, match="shape"):
        tracker.apply({"rid": 2, "torrents_removed": [HASH_A], "torrents": {HASH_B: "garbage"}})
    assert set(tracker.torrents) == {HASH_A}
    assert tracker.rid == 1


def test_download_candidates_put_the_agent_first_then_the_newest() -> None:
    tracker = TorrentTracker()
    tracker.apply(
        snapshot(
            1,
            {
                HASH_A: torrent(added_on=100, state="pausedDL"),  # the agent's, paused
                HASH_B: torrent(added_on=200),
                HASH_C: torrent(added_on=300),
                "1" * 40: torrent(added_on=400),
                "2" * 40: seeding(added_on=500),
            },
        )
    )
    assert tracker.download_candidates({HASH_A, "2" * 40, "9" * 40}, limit=3) == {HASH_A, "1" * 40, HASH_C}
    assert tracker.download_candidates((), limit=10) == {HASH_B, HASH_C, "1" * 40}
    assert tracker.data({HASH_C, "9" * 40}).downloads.keys() == {HASH_C}

    # The choice is remembered between idle polls and made again when torrents change.
    tracker.apply({"rid": 2})
    assert tracker.download_candidates((), limit=2) == {HASH_C, "1" * 40}
    tracker.apply({"rid": 3, "torrents": {"3" * 40: torrent(added_on=600)}})
    assert tracker.download_candidates((), limit=2) == {"3" * 40, "1" * 40}
    tracker.apply({"rid": 4, "torrents": {"3" * 40: {"progress": 1, "amount_left": 0, "state": "stalledUP"}}})
    assert tracker.download_candidates((), limit=2) == {HASH_C, "1" * 40}


def test_completion_payload() -> None:
    record = {
        "name": "Big Buck Bunny",
        "save_path": "/media/films",
        "source": "conversation",
        "media": {
            "title": "Big Buck Bunny",
            "year": 2008,
            "imdb_id": "tt1254207",
            "tmdb_id": 10378,
            "media_type": "movie",
        },
    }
    payload = completion_payload("entry", HASH_A, seeding(name="Big.Buck.Bunny.2008.mkv"), record)
    assert payload == {
        "entry_id": "entry",
        "hash": HASH_A,
        "name": "Big.Buck.Bunny.2008.mkv",
        "save_path": "/media/films",
        "content_path": "/media/films/Sintel.2010.mkv",
        "size": 4096,
        "category": "films",
        "title": "Big Buck Bunny",
        "year": 2008,
        "imdb_id": "tt1254207",
        "media_type": "movie",
    }
    # Unknown media fields are left out rather than sent as null.
    record["media"] = {"title": "Big Buck Bunny", "year": None, "imdb_id": None, "media_type": None}
    assert set(completion_payload("entry", HASH_A, seeding(), record)) == {
        "entry_id",
        "hash",
        "name",
        "save_path",
        "content_path",
        "size",
        "category",
        "title",
    }


def test_no_progress_clock_and_stuck_torrents() -> None:
    """Stuck: `timeout` seconds without data or metadata; queued and paused torrents never are."""
    tracker = TorrentTracker()
    magnet = torrent(state="metaDL", progress=0, amount_left=0, size=0, total_size=-1)
    queued = torrent(state="queuedDL")
    tracker.apply(snapshot(1, {HASH_A: magnet, HASH_B: torrent(), HASH_C: queued}), now=100.0)
    assert tracker.stuck(30, now=129.0) == set()
    assert tracker.moving(tracker.stuck(30, now=129.0))

    # B gains data at 120 s; a snapshot repeating A's unchanged fields is no progress.
    tracker.apply({"rid": 2, "torrents": {HASH_B: {"progress": 0.5, "amount_left": 2048}}}, now=120.0)
    tracker.apply(snapshot(3, {HASH_A: magnet, HASH_B: tracker.torrents[HASH_B], HASH_C: queued}), now=125.0)
    assert tracker.stuck(30, now=131.0) == {HASH_A}
    assert tracker.moving(tracker.stuck(30, now=131.0))
    assert tracker.stuck(30, now=151.0) == {HASH_A, HASH_B}
    assert not tracker.moving(
        tracker.stuck(30, now=151.0)
    )  # the queued one waits its turn: nothing to poll fast for

    # Metadata arriving is progress.
    tracker.apply({"rid": 4, "torrents": {HASH_A: {"size": 4096, "state": "downloading"}}}, now=160.0)
    assert tracker.stuck(30, now=170.0) == {HASH_B}
    # Paused and complete torrents have no clock at all.
    tracker.apply({"rid": 5, "torrents": {HASH_B: {"state": "pausedDL"}, HASH_A: seeding()}}, now=171.0)
    assert tracker.stuck(0, now=500.0) == set()
    assert HASH_A not in tracker.progressed_at


# What qBittorrent says of a torrent with its file list and no data: 4.x says "never seen complete" with 0,
# 5.x with -1; a slow one has a seed, or peers that together hold a whole copy, or was seen complete.
NOBODY_HAS_IT_4 = {"seen_complete": 0, "availability": 0, "num_seeds": 0, "num_complete": 0}
NOBODY_HAS_IT_5 = {"seen_complete": -1, "availability": 0.4, "num_seeds": 0, "num_complete": 0}


@pytest.mark.parametrize(
    ("swarm", "dead"),
    [
        (NOBODY_HAS_IT_4, True),
        (NOBODY_HAS_IT_5, True),
        ({**NOBODY_HAS_IT_5, "seen_complete": 1_700_000_000, "has_tracker_error": True}, True),
        ({**NOBODY_HAS_IT_5, "seen_complete": 1_700_000_000}, False),  # someone had it: maybe back later
        ({**NOBODY_HAS_IT_4, "num_seeds": 1}, False),
        ({**NOBODY_HAS_IT_4, "num_complete": 3}, False),  # the tracker knows seeds
        ({**NOBODY_HAS_IT_5, "availability": 1.2}, False),  # the peers together hold a whole copy
    ],
)
def test_a_torrent_nobody_can_finish(swarm: dict[str, Any], dead: bool) -> None:
    assert unfinishable(torrent(**swarm)) is dead
    magnet = torrent(state="metaDL", progress=0, amount_left=0, size=0, total_size=-1, **swarm)
    assert not unfinishable(magnet)  # without its file list nothing is known of it


def test_a_torrent_nobody_can_finish_is_replaced_sooner_than_a_slow_one() -> None:
    """A quarter of the stalled timeout, at least 5 minutes, never longer than the timeout."""
    assert (unfinishable_wait(1800), unfinishable_wait(7200), unfinishable_wait(600)) == (450, 1800, 300)
    assert unfinishable_wait(60) == 60
    tracker = TorrentTracker()
    slow = {**NOBODY_HAS_IT_5, "availability": 1.5}
    tracker.apply(snapshot(1, {HASH_A: torrent(**NOBODY_HAS_IT_5), HASH_B: torrent(**slow)}), now=0.0)
    assert tracker.stuck(1800, now=449.0) == set()
    assert tracker.stuck(1800, now=450.0) == {HASH_A}
    assert tracker.stuck(1800, now=1800.0) == {HASH_A, HASH_B}
    # Once a seed shows up it is only slow again.
    tracker.apply({"rid": 2, "torrents": {HASH_A: {"num_seeds": 1}}}, now=460.0)
    assert tracker.stuck(1800, now=500.0) == set()


@pytest.mark.parametrize(
    "waiting", ["queuedDL", "pausedDL", "stoppedDL", "checkingDL", "checkingResumeData", "moving"]
)
def test_the_clock_restarts_when_a_torrent_starts_again(waiting: str) -> None:
    """Waiting (its turn, a pause or a stop condition, a check, a move) is not time without progress."""
    tracker = TorrentTracker()
    tracker.apply(snapshot(1, {HASH_A: torrent(state=waiting, dlspeed=0)}), now=100.0)
    assert tracker.stuck(30, now=1000.0) == set()

    tracker.apply({"rid": 2, "torrents": {HASH_A: {"state": "stalledDL"}}}, now=1000.0)
    assert tracker.stuck(30, now=1001.0) == set()
    assert tracker.stuck(30, now=1030.0) == {HASH_A}

    # The same in a full snapshot (after a qBittorrent restart, say).
    tracker.apply(snapshot(3, {HASH_A: torrent(state=waiting, dlspeed=0)}), now=1040.0)
    tracker.apply(snapshot(4, {HASH_A: torrent(state="stalledDL", dlspeed=0)}), now=2000.0)
    assert tracker.stuck(30, now=2001.0) == set()


def test_the_next_finish_is_the_soonest_estimate_of_a_torrent_in_progress() -> None:
    """The coordinator polls then; queued, paused, stuck or finished ones and "no estimate" do not count."""
    tracker = TorrentTracker()
    tracker.apply(
        snapshot(
            1,
            {
                HASH_A: torrent(eta=40, dlspeed=0),
                HASH_B: torrent(state="queuedDL", eta=3, dlspeed=0),
                HASH_C: torrent(state="pausedDL", eta=2, dlspeed=0),
            },
        ),
        now=100.0,
    )
    assert tracker.finishing_in(stuck=()) == 40
    assert tracker.finishing_in(stuck={HASH_A}) is None

    tracker.apply({"rid": 2, "torrents": {HASH_A: {"eta": 8_640_000}, HASH_B: {"state": "downloading"}}})
    assert tracker.finishing_in(stuck=()) == 3

    # qBittorrent's ETA averages since the start; the data left at today's speed may say sooner.
    tracker.apply({"rid": 3, "torrents": {HASH_B: {"eta": 30, "dlspeed": 1024, "amount_left": 2048}}})
    assert tracker.finishing_in(stuck=()) == 2

    tracker.apply({"rid": 4, "torrents": {HASH_B: seeding()}})
    assert tracker.finishing_in(stuck=()) is None
