"""QBittorrentClient against a real qbittorrent-nox on loopback (4.5.2 on the host, 5.x in the sid root)."""

from __future__ import annotations

import base64
import socket
from typing import TYPE_CHECKING, Any

import pytest

from custom_components.agent_media.clients.bittorrent import info_hash_from_magnet, read_torrent_file
from custom_components.agent_media.clients.errors import (
    BannedError,
    CannotConnectError,
    InvalidAuthError,
    RequestRejectedError,
)
from custom_components.agent_media.clients.qbittorrent import (
    AddedTorrent,
    QBittorrentClient,
    _add_succeeded,
    normalize_url,
)

from .helpers import lose_to_metadata_fetch, wait_until
from .rig.knaben_server import synthetic_hash
from .rig.torrents import bencode, make_local_torrent

if TYPE_CHECKING:
    from collections.abc import AsyncIterator
    from pathlib import Path

    from homeassistant.core import HomeAssistant

    from .rig.qbittorrent import QBittorrentInstance


@pytest.fixture
async def client(qbittorrent: QBittorrentInstance) -> AsyncIterator[QBittorrentClient]:
    """A logged-in client of the test's qBittorrent, closed afterwards."""
    qbt = QBittorrentClient(qbittorrent.url, qbittorrent.username, qbittorrent.password)
    await qbt.async_login()
    yield qbt
    await qbt.async_close()


async def torrent_info(client: QBittorrentClient, info_hash: str) -> dict[str, Any]:
    """The torrent as the client under test lists it; empty while it is not listed."""
    found = await client.async_torrents([info_hash])
    return found[0] if found else {}


def is_stopped(state: str) -> bool:
    """pausedDL/pausedUP on 4.x, stoppedDL/stoppedUP on 5.x."""
    return state.startswith(("paused", "stopped"))


# --- login and connection errors ------------------------------------------------------------------


async def test_login_returns_the_version(hass: HomeAssistant, qbittorrent: QBittorrentInstance) -> None:
    qbt = QBittorrentClient(qbittorrent.url, qbittorrent.username, qbittorrent.password)
    version = await qbt.async_login()
    assert version.startswith("v")
    assert tuple(int(part) for part in version[1:].split(".")[:3]) == qbittorrent.version
    await qbt.async_close()


async def test_wrong_password_is_invalid_auth(hass: HomeAssistant, qbittorrent: QBittorrentInstance) -> None:
    qbt = QBittorrentClient(qbittorrent.url, qbittorrent.username, "not-the-password")
    with pytest.raises(InvalidAuthError) as caught:
        await qbt.async_login()
    assert not isinstance(caught.value, BannedError)
    assert caught.value.service == "qbittorrent"
    assert "not-the-password" not in str(caught.value)
    await qbt.async_close()


async def test_an_api_key_logs_in_without_a_password(
    hass: HomeAssistant, qbittorrent: QBittorrentInstance
) -> None:
    """qBittorrent 5.2+: a Bearer key, no login, no session; a wrong key is refused, never a ban.

    Before 5.2 qBittorrent knows no keys: any key is a wrong login there, never a ban either.
    """
    if qbittorrent.version < (5, 2):
        for _attempt in range(3):
            with pytest.raises(InvalidAuthError) as refused:
                await QBittorrentClient(qbittorrent.url, "", "", api_key="qbt_" + "x" * 28).async_login()
            assert not isinstance(refused.value, BannedError)
        return
    api_key = await hass.async_add_executor_job(qbittorrent.rotate_api_key)
    qbt = QBittorrentClient(qbittorrent.url, "", "", api_key=api_key)
    version = await qbt.async_login()
    assert tuple(int(part) for part in version[1:].split(".")[:3]) == qbittorrent.version
    torrent = make_local_torrent(qbittorrent.downloads_dir, "Sintel.2010.mkv", size=32 * 1024)
    added = await qbt.async_add_torrent_file(torrent.torrent_bytes, save_path=str(qbittorrent.downloads_dir))
    listed = await wait_until(lambda: qbt.async_torrents([added.info_hash]), what="the added torrent")
    assert [item["hash"] for item in listed] == [torrent.info_hash]
    await qbt.async_close()

    for _attempt in range(3):  # refused each time as a wrong key, never as a ban
        wrong = QBittorrentClient(qbittorrent.url, "", "", api_key="qbt_" + "x" * 28)
        with pytest.raises(InvalidAuthError) as caught:
            await wrong.async_login()
        assert not isinstance(caught.value, BannedError)
        assert "qbt_xxx" not in str(caught.value)
    assert await QBittorrentClient(qbittorrent.url, "", "", api_key=api_key).async_login() == version


async def test_calls_without_valid_login_are_invalid_auth(
    hass: HomeAssistant, qbittorrent: QBittorrentInstance
) -> None:
    qbt = QBittorrentClient(qbittorrent.url, "someone-else", qbittorrent.password)
    with pytest.raises(InvalidAuthError):
        await qbt.async_torrents()


async def test_banned_after_failed_logins(hass: HomeAssistant, qbittorrent: QBittorrentInstance) -> None:
    # This instance bans after one failure; the right password is then refused as well.
    await qbittorrent.stop()
    config = qbittorrent.profile_dir / "qBittorrent" / "config" / "qBittorrent.conf"
    text = config.read_text()
    text = text.replace("MaxAuthenticationFailCount=1000", "MaxAuthenticationFailCount=1")
    text = text.replace("BanDuration=1\n", "BanDuration=3600\n")
    config.write_text(text)
    await qbittorrent.start()

    with pytest.raises(InvalidAuthError):
        await QBittorrentClient(qbittorrent.url, qbittorrent.username, "wrong").async_login()
    with pytest.raises(BannedError):
        await QBittorrentClient(qbittorrent.url, qbittorrent.username, qbittorrent.password).async_login()


async def test_nothing_listening_is_cannot_connect(hass: HomeAssistant, socket_enabled: None) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # closed again before the client connects
    qbt = QBittorrentClient(f"http://127.0.0.1:{port}", "agent", "secret", timeout=2)
    with pytest.raises(CannotConnectError) as caught:
        await qbt.async_login()
    assert caught.value.service == "qbittorrent"


async def test_silent_server_is_cannot_connect(hass: HomeAssistant, socket_enabled: None) -> None:
    # Accepts TCP connections (the kernel's backlog) but never answers a byte.
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(16)
        qbt = QBittorrentClient(f"http://127.0.0.1:{silent.getsockname()[1]}", "agent", "secret", timeout=0.5)
        with pytest.raises(CannotConnectError) as caught:
            await qbt.async_login()
        assert caught.value.detail == "timed out"
        # The stuck call does not block the next one: that one times out on its own too.
        with pytest.raises(CannotConnectError):
            await qbt.async_torrents()


async def test_http_server_that_is_not_qbittorrent(hass: HomeAssistant, tmdb_server: Any) -> None:
    # Any other web server: /api/v2/auth/login is a 404 there.
    qbt = QBittorrentClient(tmdb_server.root_url, "agent", "secret")
    with pytest.raises(CannotConnectError):
        await qbt.async_login()


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("127.0.0.1:8080", "http://127.0.0.1:8080"),
        ("  http://127.0.0.1:8080/ ", "http://127.0.0.1:8080"),
        ("https://nas.local/qbittorrent/", "https://nas.local/qbittorrent"),
        ("localhost:8080/qbt", "http://localhost:8080/qbt"),
    ],
)
def test_normalize_url(given: str, expected: str) -> None:
    assert normalize_url(given) == expected


async def test_url_without_scheme_works(hass: HomeAssistant, qbittorrent: QBittorrentInstance) -> None:
    qbt = QBittorrentClient(f"127.0.0.1:{qbittorrent.port}/", qbittorrent.username, qbittorrent.password)
    assert qbt.url == qbittorrent.url
    assert (await qbt.async_login()).startswith("v")
    assert await qbt.async_torrents() == []
    await qbt.async_close()


async def test_survives_a_qbittorrent_restart(
    hass: HomeAssistant, qbittorrent: QBittorrentInstance, client: QBittorrentClient
) -> None:
    added = await client.async_add_magnet(f"magnet:?xt=urn:btih:{synthetic_hash('restart')}&dn=Sintel")
    # qBittorrent takes a magnet in after answering; stopped before that, it would rightly forget it.
    await wait_until(lambda: torrent_info(client, added.info_hash), what="the magnet before the restart")
    await qbittorrent.stop()
    with pytest.raises(CannotConnectError):
        await client.async_torrents()
    await qbittorrent.start()
    # Same client: the old session is gone, the library logs in again by itself.
    info = await wait_until(
        lambda: torrent_info(client, added.info_hash),
        bool,
        what="the torrent after restart",
    )
    assert info["hash"] == added.info_hash


# --- adding ---------------------------------------------------------------------------------------


def test_info_hash_from_magnet_forms() -> None:
    hex_hash = synthetic_hash("forms")
    base32_hash = base64.b32encode(bytes.fromhex(hex_hash)).decode()
    assert info_hash_from_magnet(f"magnet:?xt=urn:btih:{hex_hash.upper()}") == hex_hash
    assert info_hash_from_magnet(f"magnet:?dn=x&xt=urn:btih:{base32_hash}") == hex_hash
    assert info_hash_from_magnet(f"magnet:?xt=urn:btih:{base32_hash.lower()}") == hex_hash
    v2 = "ab" * 32
    assert info_hash_from_magnet(f"magnet:?xt=urn:btmh:1220{v2}") == v2[:40]
    hybrid = f"magnet:?xt=urn:btmh:1220{v2}&xt=urn:btih:{hex_hash}"
    assert info_hash_from_magnet(hybrid) == hex_hash  # qBittorrent names hybrids by the v1 hash
    assert info_hash_from_magnet("magnet:?xt=urn:btih:1234") is None
    assert info_hash_from_magnet("https://example.org/x.torrent") is None
    assert info_hash_from_magnet("magnet:?dn=no-hash") is None


@pytest.mark.parametrize(
    ("result", "succeeded"),
    [
        ("Ok.", True),
        ("Fails.", False),
        ({"success_count": 1, "failure_count": 0, "pending_count": 0}, True),
        ({"success_count": 0, "failure_count": 0, "pending_count": 1}, True),
        ({"success_count": 0, "failure_count": 1, "pending_count": 0}, False),
        # qBittorrent 5.2's answer as the JSON text an older qbittorrent-api passes on.
        ('{"success_count":1,"failure_count":0,"pending_count":0,"added_torrent_ids":[]}', True),
        ('{"success_count":0,"failure_count":1,"pending_count":0,"added_torrent_ids":[]}', False),
        ("{not json", False),
        (None, False),
    ],
)
def test_add_result_forms(result: Any, succeeded: bool) -> None:
    assert _add_succeeded(result) is succeeded


async def test_add_magnet_hex(
    hass: HomeAssistant, qbittorrent: QBittorrentInstance, client: QBittorrentClient
) -> None:
    info_hash = synthetic_hash("big buck bunny magnet")
    added = await client.async_add_magnet(
        f"magnet:?xt=urn:btih:{info_hash.upper()}&dn=Big+Buck+Bunny+2008",
        save_path=str(qbittorrent.downloads_dir / "films"),
        category="agent_media",
        tags=["agent", "films"],
    )
    assert added == AddedTorrent(info_hash=info_hash, name="Big Buck Bunny 2008")
    info = await wait_until(lambda: torrent_info(client, info_hash), bool, what="the magnet to be listed")
    assert info["name"] == "Big Buck Bunny 2008"
    assert info["category"] == "agent_media"
    assert set(info["tags"].split(", ")) == {"agent", "films"}
    assert info["save_path"].rstrip("/") == str(qbittorrent.downloads_dir / "films")
    assert info["progress"] == 0  # no peers offline: it waits for metadata


async def test_add_magnet_base32_paused(hass: HomeAssistant, client: QBittorrentClient) -> None:
    info_hash = synthetic_hash("sintel base32")
    base32_hash = base64.b32encode(bytes.fromhex(info_hash)).decode()
    added = await client.async_add_magnet(f"magnet:?xt=urn:btih:{base32_hash}&dn=Sintel", paused=True)
    assert added.info_hash == info_hash
    info = await wait_until(
        lambda: torrent_info(client, info_hash),
        lambda t: t and is_stopped(t["state"]),
        what="a stopped magnet",
    )
    assert info["hash"] == info_hash


async def test_add_magnet_without_name_uses_the_hash(hass: HomeAssistant, client: QBittorrentClient) -> None:
    info_hash = synthetic_hash("nameless")
    added = await client.async_add_magnet(f"magnet:?xt=urn:btih:{info_hash}")
    assert added == AddedTorrent(info_hash=info_hash, name=info_hash)


@pytest.mark.parametrize(
    "link",
    ["https://example.org/film.torrent", "magnet:?xt=urn:sha1:abc&dn=x", "not a link", ""],
)
async def test_add_not_a_magnet_is_rejected(
    hass: HomeAssistant, client: QBittorrentClient, link: str
) -> None:
    with pytest.raises(RequestRejectedError):
        await client.async_add_magnet(link)
    assert await client.async_torrents() == []


async def test_add_magnet_twice_is_idempotent(hass: HomeAssistant, client: QBittorrentClient) -> None:
    info_hash = synthetic_hash("twice")
    first = await client.async_add_magnet(f"magnet:?xt=urn:btih:{info_hash}&dn=Tears+of+Steel")
    await wait_until(lambda: torrent_info(client, info_hash), bool, what="the first magnet")
    second = await client.async_add_magnet(f"magnet:?xt=urn:btih:{info_hash.upper()}&dn=Another+name")
    assert second == first  # the torrent already there, under its own name
    assert [t["hash"] for t in await client.async_torrents()] == [info_hash]


async def test_a_magnet_qbittorrent_lost_to_its_metadata_fetch_is_added_again(
    hass: HomeAssistant, qbittorrent: QBittorrentInstance, client: QBittorrentClient
) -> None:
    """qBittorrent 5.2+ loses an add that comes as its metadata fetch of a magnet begins, and every later one.

    The client sees that the magnet it added is not listed, asks for the metadata again (qBittorrent takes
    its fetch back) and adds it once more: the magnet is listed when the add returns. Before 5.2 nothing is
    lost (no fetch to race), and the add finds the magnet there.
    """
    info_hash = synthetic_hash("pioneer one lost")
    magnet = f"magnet:?xt=urn:btih:{info_hash}&dn=Pioneer.One.S01E03.720p"
    await lose_to_metadata_fetch(hass, qbittorrent, magnet)

    added = await client.async_add_magnet(magnet, stop_at_metadata=True)

    assert added.info_hash == info_hash
    assert (await torrent_info(client, info_hash)).get("hash") == info_hash  # listed


async def test_add_local_torrent_completes(
    hass: HomeAssistant, client: QBittorrentClient, tmp_path: Path
) -> None:
    data_dir = tmp_path / "data"
    local = make_local_torrent(data_dir, "Elephants.Dream.2006.sample.mkv", size=300 * 1024 + 7)
    added = await client.async_add_torrent_file(
        local.torrent_bytes, save_path=str(data_dir), category="films", tags=["local"]
    )
    assert added == AddedTorrent(info_hash=local.info_hash, name=local.name)
    info = await wait_until(
        lambda: torrent_info(client, local.info_hash),
        lambda t: t and t["progress"] == 1 and t["amount_left"] == 0,
        what="the local torrent to complete",
    )
    assert info["content_path"] == str(local.data_path)
    assert info["category"] == "films"
    files = await client.async_files(local.info_hash)
    assert [(f["name"], f["size"]) for f in files] == [(local.name, 300 * 1024 + 7)]


async def test_add_multi_file_torrent_skip_checking(
    hass: HomeAssistant, client: QBittorrentClient, tmp_path: Path
) -> None:
    layout = {"Sintel.2010.mkv": 200 * 1024, "Subs/Sintel.en.srt": 3 * 1024, "Subs/Sintel.nl.srt": 2 * 1024}
    local = make_local_torrent(tmp_path, "Sintel.2010.720p", files=layout)
    added = await client.async_add_torrent_file(
        local.torrent_bytes, save_path=str(tmp_path), skip_checking=True
    )
    assert added.info_hash == local.info_hash
    await wait_until(
        lambda: torrent_info(client, local.info_hash),
        lambda t: t and t["progress"] == 1,
        what="the skip-checked torrent to be complete",
    )
    files = await client.async_files(added.info_hash)
    assert sorted(f["name"] for f in files) == sorted(f"Sintel.2010.720p/{path}" for path in layout)


async def test_add_torrent_file_twice_is_idempotent(
    hass: HomeAssistant, client: QBittorrentClient, tmp_path: Path
) -> None:
    local = make_local_torrent(tmp_path, "Nosferatu.1922.mkv")
    first = await client.async_add_torrent_file(local.torrent_bytes, save_path=str(tmp_path))
    second = await client.async_add_torrent_file(local.torrent_bytes, save_path=str(tmp_path))
    assert first == second == AddedTorrent(info_hash=local.info_hash, name=local.name)
    # qBittorrent 5 lists an added torrent a moment after torrents/add has answered.
    listed = await wait_until(client.async_torrents, what="the torrent to be listed")
    assert [t["hash"] for t in listed] == [local.info_hash]


async def test_torrent_file_identity_matches_the_builder(tmp_path: Path) -> None:
    local = make_local_torrent(tmp_path, "The.General.1926.mkv", size=40_000)
    torrent = read_torrent_file(local.torrent_bytes)
    assert (torrent.info_hash, torrent.name, torrent.files) == (local.info_hash, local.name, (local.name,))


@pytest.mark.parametrize(
    "data",
    [b"", b"this is not bencode", b"d4:infoi1ee", b"l4:infoe", b"d4:info", b"d4:infod4:name9:truncated"],
)
async def test_garbage_torrent_file_is_rejected(
    hass: HomeAssistant, client: QBittorrentClient, data: bytes
) -> None:
    with pytest.raises(RequestRejectedError):
        await client.async_add_torrent_file(data)


async def test_invalid_torrent_refused_by_qbittorrent(hass: HomeAssistant, client: QBittorrentClient) -> None:
    # Well-formed bencode with an info dictionary, but no pieces or files: qBittorrent answers 415.
    data = bencode({"info": {"name": "Night.of.the.Living.Dead.1968.mkv", "piece length": 16384}})
    with pytest.raises(RequestRejectedError) as caught:
        await client.async_add_torrent_file(data)
    assert "torrent" in caught.value.detail
    assert await client.async_torrents() == []


# --- listing, pause, resume, remove -----------------------------------------------------------------


async def test_torrents_filters_by_hash(hass: HomeAssistant, client: QBittorrentClient) -> None:
    first = await client.async_add_magnet(f"magnet:?xt=urn:btih:{synthetic_hash('one')}&dn=One")
    second = await client.async_add_magnet(f"magnet:?xt=urn:btih:{synthetic_hash('two')}&dn=Two")
    await wait_until(client.async_torrents, lambda ts: len(ts) == 2, what="both magnets")
    assert [t["hash"] for t in await client.async_torrents([second.info_hash.upper()])] == [second.info_hash]
    assert {t["hash"] for t in await client.async_torrents()} == {first.info_hash, second.info_hash}
    assert await client.async_torrents([]) == []
    assert await client.async_torrents([synthetic_hash("absent")]) == []
    assert await client.async_files(first.info_hash) == []  # no metadata yet


async def test_pause_resume_remove(hass: HomeAssistant, client: QBittorrentClient, tmp_path: Path) -> None:
    local = make_local_torrent(tmp_path, "Tears.of.Steel.2012.mkv")
    added = await client.async_add_torrent_file(local.torrent_bytes, save_path=str(tmp_path))
    await wait_until(
        lambda: torrent_info(client, added.info_hash),
        lambda t: t and t["progress"] == 1,
        what="completion",
    )
    await client.async_pause([added.info_hash])
    await wait_until(
        lambda: torrent_info(client, added.info_hash),
        lambda t: t and is_stopped(t["state"]),
        what="the paused state",
    )
    await client.async_resume([added.info_hash])
    await wait_until(
        lambda: torrent_info(client, added.info_hash),
        lambda t: t and not is_stopped(t["state"]),
        what="the resumed state",
    )
    await client.async_remove([added.info_hash])
    await wait_until(client.async_torrents, lambda ts: ts == [], what="removal")
    assert local.data_path.exists()  # the data stays unless asked


async def test_remove_with_files(hass: HomeAssistant, client: QBittorrentClient, tmp_path: Path) -> None:
    local = make_local_torrent(tmp_path, "Big.Buck.Bunny.2008.mkv")
    added = await client.async_add_torrent_file(local.torrent_bytes, save_path=str(tmp_path))
    await wait_until(
        lambda: torrent_info(client, added.info_hash),
        lambda t: t and t["progress"] == 1,
        what="completion",
    )
    await client.async_remove([added.info_hash], delete_files=True)
    await wait_until(client.async_torrents, lambda ts: ts == [], what="removal")

    async def data_exists() -> bool:
        return await hass.async_add_executor_job(local.data_path.exists)

    await wait_until(data_exists, lambda exists: not exists, what="the data to be deleted")


# --- incremental sync -----------------------------------------------------------------------------


async def test_sync_maindata_deltas(hass: HomeAssistant, client: QBittorrentClient) -> None:
    full = await client.async_sync_maindata()
    assert full["full_update"] is True
    assert full.get("torrents", {}) == {}  # 5.x leaves the key out when there are none
    assert "server_state" in full
    rid = full["rid"]

    info_hash = synthetic_hash("sync")
    await client.async_add_magnet(f"magnet:?xt=urn:btih:{info_hash}&dn=Nosferatu+1922")
    seen: dict[str, Any] = {}

    async def next_delta() -> dict[str, Any]:
        nonlocal rid
        delta = await client.async_sync_maindata(rid)
        assert not delta.get("full_update"), "the delta chain broke"
        rid = delta["rid"]
        seen.update(delta.get("torrents", {}))
        return delta

    await wait_until(next_delta, lambda _delta: info_hash in seen, what="the new torrent in a delta")
    assert seen[info_hash]["name"] == "Nosferatu 1922"  # a torrent new to the stream carries all fields
    assert "progress" in seen[info_hash]

    await client.async_remove([info_hash])
    removed = await wait_until(
        next_delta,
        lambda delta: info_hash in delta.get("torrents_removed", []),
        what="the removal in a delta",
    )
    assert info_hash not in removed.get("torrents", {})

    stale = await client.async_sync_maindata(rid + 1000)
    assert stale["full_update"] is True  # an unknown rid gets a full snapshot
