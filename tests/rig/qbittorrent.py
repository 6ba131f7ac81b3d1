"""A real ``qbittorrent-nox`` on loopback with its own profile (qbittorrent.md §5), set up as people do.

`SETUPS` names the settings people really use (content layout, a separate folder for incomplete files,
queueing with one active download, a stop condition, categories with automatic torrent management); each is
applied through the Web API, as the Web UI's options dialog does, and read back. `QBittorrentInstance.reset`
removes what a test added, so one instance can serve every test of a module.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
from dataclasses import dataclass, field
import functools
import hashlib
import http.cookiejar
import json
import os
from pathlib import Path
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from typing import Any
import urllib.error
import urllib.parse
import urllib.request

import pytest
import qbittorrentapi

USERNAME = "agent"
PASSWORD = "agent-media-test"
START_TIMEOUT = 60.0  # generous: a busy 2-core machine starts it slowly
RESET_QUIET_CHECKS = 2  # empty listings in a row, 50 ms apart, before a reset counts as done
STOP_TIMEOUT = 30.0  # a SIGKILL before it saved its torrents would lose them


START_ATTEMPTS = 5
PORT_TAKEN = "The bound address is already in use"  # qbittorrent-nox's words when its Web UI port is taken


class PortTakenError(Exception):
    """qbittorrent-nox exited because its Web UI port, free when chosen, was taken in the meantime."""

    def __init__(self, port: int, output: str) -> None:
        super().__init__(f"port {port} was taken before qbittorrent-nox could bind it:\n{output}")


def qbittorrent_binary() -> str:
    """Return the path of qbittorrent-nox, failing the test (never skipping) when it is missing."""
    binary = shutil.which("qbittorrent-nox")
    if binary is None:
        pytest.fail(
            "qbittorrent-nox is not on PATH; the tests need the real one "
            "(Debian: apt-get install qbittorrent-nox, or run scripts/setup)",
            pytrace=False,
        )
    return binary


@functools.cache
def qbittorrent_version(binary: str) -> tuple[int, ...]:
    """Return the version of ``qbittorrent-nox --version`` ("qBittorrent v4.5.2") as a tuple."""
    output = subprocess.run(  # noqa: S603 - our own binary, fixed arguments
        [binary, "--version"], capture_output=True, text=True, check=True, timeout=30
    ).stdout
    found = re.search(r"v(\d+)\.(\d+)\.(\d+)", output)
    if found is None:
        pytest.fail(f"cannot read the qbittorrent-nox version from {output!r}", pytrace=False)
    return tuple(int(part) for part in found.groups())


def free_port() -> int:
    """Return a loopback TCP port that is free right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def pbkdf2_password(password: str) -> str:
    """Return the ``WebUI\\Password_PBKDF2`` value for ``password`` (qbittorrent.md §5.4)."""
    salt = os.urandom(16)
    key = hashlib.pbkdf2_hmac("sha512", password.encode(), salt, 100_000, dklen=64)
    return f'"@ByteArray({base64.b64encode(salt).decode()}:{base64.b64encode(key).decode()})"'


def write_config(profile: Path, *, webui_port: int, bt_port: int, downloads: Path) -> None:
    """Write qBittorrent.conf: legal notice accepted, loopback only, no peer discovery, fast refresh."""
    config_dir = profile / "qBittorrent" / "config"
    config_dir.mkdir(parents=True, exist_ok=True)
    (config_dir / "qBittorrent.conf").write_text(
        f"""[LegalNotice]
Accepted=true

[Application]
FileLogger\\Enabled=true
FileLogger\\Path={profile}/logs

[BitTorrent]
Session\\DHTEnabled=false
Session\\PeXEnabled=false
Session\\LSDEnabled=false
Session\\Port={bt_port}
Session\\Interface=lo
Session\\InterfaceName=lo
Session\\InterfaceAddress=127.0.0.1
Session\\AnonymousModeEnabled=true
Session\\QueueingSystemEnabled=false
Session\\DefaultSavePath={downloads}
Session\\TempPathEnabled=false
Session\\AddTrackersEnabled=false
Session\\RefreshInterval=100

[Network]
PortForwardingEnabled=false
Proxy\\OnlyForTorrents=false

[Preferences]
General\\Locale=en
Connection\\ResolvePeerCountries=false
Advanced\\updateCheck=false
WebUI\\Enabled=true
WebUI\\Address=127.0.0.1
WebUI\\Port={webui_port}
WebUI\\UseUPnP=false
WebUI\\LocalHostAuth=true
WebUI\\Username={USERNAME}
WebUI\\Password_PBKDF2={pbkdf2_password(PASSWORD)}
WebUI\\CSRFProtection=true
WebUI\\HostHeaderValidation=true
WebUI\\MaxAuthenticationFailCount=1000
WebUI\\BanDuration=1

[RSS]
AutoDownloader\\EnableProcessing=false
Session\\EnableProcessing=false
""",
        encoding="utf-8",
    )


async def _http_answers(port: int) -> bool:
    """True once anything answers HTTP on the port (403 counts: it means the Web UI is up)."""
    try:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
    except OSError:
        return False
    try:
        writer.write(f"GET /api/v2/app/webapiVersion HTTP/1.0\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
        await writer.drain()
        status_line = await asyncio.wait_for(reader.readline(), 2)
        return status_line.startswith(b"HTTP/")
    except (OSError, TimeoutError):
        return False
    finally:
        writer.close()
        with contextlib.suppress(OSError):
            await writer.wait_closed()


@dataclass(frozen=True, slots=True, kw_only=True)
class QBittorrentSetup:
    """A qBittorrent set-up people use (Options → Downloads, BitTorrent), applied through the Web API."""

    name: str
    content_layout: str = "Original"  # Original | Subfolder | NoSubfolder
    incomplete_folder: bool = False  # "keep incomplete torrents in" a folder of their own
    max_active_downloads: int | None = None  # queueing on, with this many active downloads
    stop_condition: str = "None"  # None | MetadataReceived | FilesChecked, for torrents added without one
    category: str | None = None  # a category with its own folder, and automatic torrent management

    def preferences(self, downloads: Path) -> dict[str, Any]:
        """Return the ``app/setPreferences`` values of this set-up."""
        preferences: dict[str, Any] = {
            "torrent_content_layout": self.content_layout,
            "temp_path_enabled": self.incomplete_folder,
            "temp_path": str(downloads / "incomplete"),
            "torrent_stop_condition": self.stop_condition,
            "auto_tmm_enabled": self.category is not None,
            "queueing_enabled": self.max_active_downloads is not None,
        }
        if self.max_active_downloads is not None:
            preferences |= {
                "max_active_downloads": self.max_active_downloads,
                "max_active_torrents": self.max_active_downloads + 10,
                "max_active_uploads": 10,
                "dont_count_slow_torrents": False,  # the default: a stalled download keeps its slot
            }
        return preferences


DEFAULT_SETUP = QBittorrentSetup(name="original")
SETUPS: tuple[QBittorrentSetup, ...] = (
    DEFAULT_SETUP,
    QBittorrentSetup(name="subfolder", content_layout="Subfolder"),
    QBittorrentSetup(name="no-subfolder", content_layout="NoSubfolder"),
    QBittorrentSetup(name="incomplete-folder", incomplete_folder=True),
    QBittorrentSetup(name="queue-of-one", max_active_downloads=1),
    QBittorrentSetup(name="stop-at-metadata", stop_condition="MetadataReceived"),
    QBittorrentSetup(name="stop-at-files-checked", stop_condition="FilesChecked"),
    QBittorrentSetup(name="category-auto-tmm", category="Films"),
)
QUEUE_OF_ONE = SETUPS[4]


class RigWebApi:
    """The rig's own few Web API calls (set-ups, clean-up), on the standard library.

    Not qbittorrent-api: the floors run puts a qbittorrent-api on the path that cannot log in to qBittorrent
    5.2 and later, and the rig must work whatever version the code under test gets.
    """

    def __init__(self, url: str, username: str, password: str) -> None:
        self._url = url
        self._credentials = {"username": username, "password": password}
        self._cookies = http.cookiejar.CookieJar()
        self._opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self._cookies))
        self._log_in()

    def _log_in(self) -> None:
        answer = self._send("auth/login", self._credentials)
        if answer.strip() not in ("", "Ok."):
            raise RuntimeError(f"the rig could not log in to qBittorrent: {answer!r}")

    def _send(self, method: str, form: dict[str, str] | None) -> str:
        request = urllib.request.Request(  # noqa: S310 - always the loopback Web UI
            f"{self._url}/api/v2/{method}",
            data=None if form is None else urllib.parse.urlencode(form).encode(),
            headers={"Referer": self._url},
        )
        with self._opener.open(request, timeout=10) as response:
            return str(response.read().decode())

    def _call(self, method: str, form: dict[str, str] | None = None) -> str:
        try:
            return self._send(method, form)
        except urllib.error.HTTPError as err:
            if err.code != 403:
                raise
        self._log_in()  # a restarted qBittorrent forgot the session
        return self._send(method, form)

    def get(self, method: str) -> Any:
        """GET a method and return its JSON answer."""
        return json.loads(self._call(method))

    def post(self, method: str, **form: str) -> None:
        """POST a method with form fields."""
        self._call(method, form)

    def post_together(self, *calls: tuple[str, dict[str, str]]) -> list[int]:
        """POST several methods in one write on one connection (HTTP pipelining); return their statuses.

        qBittorrent handles them one after the other, with nothing of its own in between: what it does when
        the second comes at the very moment the first was answered.
        """
        netloc = urllib.parse.urlsplit(self._url).netloc
        cookie = "; ".join(f"{item.name}={item.value}" for item in self._cookies)
        requests = b""
        for method, form in calls:
            body = urllib.parse.urlencode(form).encode()
            head = (
                f"POST /api/v2/{method} HTTP/1.1\r\nHost: {netloc}\r\nCookie: {cookie}\r\n"
                f"Content-Type: application/x-www-form-urlencoded\r\nContent-Length: {len(body)}\r\n\r\n"
            )
            requests += head.encode() + body
        host, port = netloc.rsplit(":", 1)
        statuses: list[int] = []
        with socket.create_connection((host, int(port)), timeout=10) as connection:
            connection.sendall(requests)
            answers = connection.makefile("rb")
            for _call in calls:
                statuses.append(int(answers.readline().split()[1]))
                length = 0
                while (line := answers.readline().strip()) != b"":
                    name, _, value = line.partition(b":")
                    if name.strip().lower() == b"content-length":
                        length = int(value)
                answers.read(length)
        return statuses


@dataclass
class QBittorrentInstance:
    """One running qbittorrent-nox; ``stop()``/``start()`` restart it with the same profile and port."""

    profile_dir: Path
    downloads_dir: Path
    port: int
    bt_port: int
    binary: str
    version: tuple[int, ...]
    setup: QBittorrentSetup = DEFAULT_SETUP
    username: str = USERNAME
    password: str = PASSWORD
    _process: subprocess.Popen[bytes] | None = field(default=None, repr=False)
    _api: qbittorrentapi.Client | None = field(default=None, repr=False)
    _rig_api: RigWebApi | None = field(default=None, repr=False)

    @property
    def url(self) -> str:
        """The Web UI URL, with scheme and port."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def log_path(self) -> Path:
        """Where qbittorrent-nox's stdout and stderr go."""
        return self.profile_dir / "stdout.log"

    @property
    def running(self) -> bool:
        """True while the process is alive."""
        return self._alive()

    def _alive(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def api(self) -> qbittorrentapi.Client:
        """Return a logged-in qbittorrent-api client for assertions. Blocking: call it in the executor."""
        if self._api is None:
            client = qbittorrentapi.Client(
                host=self.url,
                username=self.username,
                password=self.password,
                FORCE_SCHEME_FROM_HOST=True,
                REQUESTS_ARGS={"timeout": 10},
                SIMPLE_RESPONSES=True,
            )
            client.auth_log_in()
            self._api = client
        return self._api

    def rig_api(self) -> RigWebApi:
        """Return the rig's own logged-in Web API client. Blocking: call it in the executor."""
        if self._rig_api is None:
            self._rig_api = RigWebApi(self.url, self.username, self.password)
        return self._rig_api

    def rotate_api_key(self) -> str:
        """Create (or replace) qBittorrent 5.2+'s Web API key and return it. Blocking: use the executor."""
        answer = json.loads(self.rig_api()._call("app/rotateAPIKey", {}))
        return str(answer["apiKey"])

    def apply_setup(self) -> None:
        """Set qBittorrent up as `setup` says, and check it took. Blocking: call it in the executor."""
        api = self.rig_api()
        wanted = self.setup.preferences(self.downloads_dir)
        api.post("app/setPreferences", json=json.dumps(wanted))
        if self.setup.category is not None:
            api.post(
                "torrents/createCategory",
                category=self.setup.category,
                savePath=str(self.downloads_dir / self.setup.category),
            )
        actual = api.get("app/preferences")
        differs = {key: actual.get(key) for key, value in wanted.items() if actual.get(key) != value}
        if differs:
            pytest.fail(f"qBittorrent did not take the set-up {self.setup.name}: {differs}", pytrace=False)

    def reset(self) -> None:
        """Remove every torrent and file a test left, and the tags it made. Blocking: use the executor."""
        api = self.rig_api()
        deadline = time.monotonic() + START_TIMEOUT
        quiet_checks = 0
        # qBittorrent 5 adds torrents after torrents/add has answered: an add a failed test left in
        # flight can land after one empty listing, so the list must stay empty for a moment.
        while quiet_checks < RESET_QUIET_CHECKS:
            if hashes := [torrent["hash"] for torrent in api.get("torrents/info")]:
                quiet_checks = 0
                api.post("torrents/delete", hashes="|".join(hashes), deleteFiles="true")
            else:
                quiet_checks += 1
            if time.monotonic() > deadline:
                pytest.fail("qBittorrent kept torrents after they were removed", pytrace=False)
            time.sleep(0.05)
        if tags := api.get("torrents/tags"):
            api.post("torrents/deleteTags", tags=",".join(tags))
        for child in self.downloads_dir.iterdir():
            if child.is_dir() and not child.is_symlink():
                shutil.rmtree(child, ignore_errors=True)
            else:
                child.unlink(missing_ok=True)

    def _log_tail(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")[-2000:]
        except OSError:
            return "(no log)"

    async def start(self) -> None:
        """Start qbittorrent-nox (without -d, so we keep its pid) and wait until the Web UI answers."""
        if self._alive():
            return
        args = [self.binary, f"--profile={self.profile_dir}", f"--webui-port={self.port}"]
        if self.version >= (5,):
            args.append("--confirm-legal-notice")  # unknown to 4.x, which exits on it
        with self.log_path.open("ab") as log:
            self._process = subprocess.Popen(  # noqa: S603 - returns at once
                args, stdin=subprocess.DEVNULL, stdout=log, stderr=log, start_new_session=True
            )
        deadline = time.monotonic() + START_TIMEOUT
        while not await _http_answers(self.port):
            output = await asyncio.to_thread(self._log_tail)
            if PORT_TAKEN in output:  # 4.x exits then, 5.x stays up without its Web UI
                await self.stop()
                raise PortTakenError(self.port, output)
            if not self._alive():
                await self.stop()
                pytest.fail(f"qbittorrent-nox exited at start; its output:\n{output}", pytrace=False)
            if time.monotonic() > deadline:
                await self.stop()
                pytest.fail(
                    f"qbittorrent-nox did not answer on port {self.port} within {START_TIMEOUT} s:\n"
                    f"{self._log_tail()}",
                    pytrace=False,
                )
            await asyncio.sleep(0.05)

    async def stop(self) -> None:
        """Stop it (SIGTERM, then SIGKILL after a while) and reap the process."""
        process, self._process = self._process, None
        if process is None:
            return
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            deadline = time.monotonic() + STOP_TIMEOUT
            while process.poll() is None and time.monotonic() < deadline:
                await asyncio.sleep(0.02)
            if process.poll() is None:
                process.kill()
                while process.poll() is None:
                    await asyncio.sleep(0.02)


async def close_instance(instance: QBittorrentInstance) -> None:
    """Stop qbittorrent-nox and delete its profile."""
    await instance.stop()
    instance._api = None
    instance._rig_api = None
    await asyncio.to_thread(shutil.rmtree, instance.profile_dir, ignore_errors=True)


async def start_instance(base: Path, setup: QBittorrentSetup = DEFAULT_SETUP) -> QBittorrentInstance:
    """Start qbittorrent-nox on free loopback ports, downloading under ``base``, set up as `setup` says.

    `close_instance()` when done.

    The profile gets a short folder of its own: qBittorrent keeps a Unix socket in it, and a socket path
    longer than 108 bytes is cut short, so two long pytest folders could end up naming the same socket.
    """
    binary = qbittorrent_binary()
    profile = Path(tempfile.mkdtemp(prefix="agent-media-qbt-"))
    downloads = base / "qbittorrent-downloads"
    downloads.mkdir(parents=True, exist_ok=True)
    instance = QBittorrentInstance(
        profile_dir=profile,
        downloads_dir=downloads,
        port=free_port(),
        bt_port=free_port(),
        binary=binary,
        version=qbittorrent_version(binary),
        setup=setup,
    )
    for _attempt in range(START_ATTEMPTS):
        # PBKDF2 takes ~0.1 s of CPU: keep it off the event loop.
        await asyncio.to_thread(
            write_config, profile, webui_port=instance.port, bt_port=instance.bt_port, downloads=downloads
        )
        try:
            await instance.start()
        except PortTakenError:
            # Free when chosen, taken since by another process of a busy machine: choose again.
            instance.port, instance.bt_port = free_port(), free_port()
            instance.log_path.unlink(missing_ok=True)  # so the next attempt is judged by its own output
        else:
            await asyncio.to_thread(instance.apply_setup)
            return instance
    pytest.fail(f"qbittorrent-nox found its port taken {START_ATTEMPTS} times:\n{instance._log_tail()}")
