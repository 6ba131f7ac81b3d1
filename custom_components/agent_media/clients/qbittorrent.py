"""qBittorrent client: qbittorrent-api in the executor, behind one lock, with bounded waits.

qbittorrent-api is synchronous and not thread-safe (a re-login swaps its HTTP session), so every call runs in
the executor one at a time per instance. Each call is also bounded by ``asyncio.timeout``: an executor job
cannot be cancelled, so after a time-out the library client is dropped and a fresh one is built for the next
call, and the stuck job finishes on its own when the requests time-out fires. Every answer is read within
`MAX_QBITTORRENT_ANSWER_BYTES` (decompressed), at the edge of the library: a requests response hook reads
the body before requests would, and refuses it past the cap.

It works with qbittorrent-api from 2024.2.59 (the version Home Assistant 2025.4's own qBittorrent
integration pins, so the one installed wherever that integration is set up) to the newest. The library
versions that predate qBittorrent 5 differ in a few ways, all bridged in the "Library versions" section.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass
from functools import partial
import inspect
import json
import time
from typing import TYPE_CHECKING, Any, Final, Literal

import qbittorrentapi

from ..const import LOGGER, MAX_QBITTORRENT_ANSWER_BYTES, QBITTORRENT_TIMEOUT
from ._http import too_large_error
from .bittorrent import (
    InvalidTorrentError,
    TorrentFile,
    info_hash_from_magnet,
    magnet_name,
    read_torrent_file,
)
from .errors import (
    AgentMediaClientError,
    BannedError,
    CannotConnectError,
    InvalidAuthError,
    InvalidResponseError,
    RequestRejectedError,
)

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

SERVICE: Final = "qbittorrent"

_ADD_OK: Final = "Ok."
DUPLICATE_LOOKUPS: Final = 10
DUPLICATE_LOOKUP_PAUSE: Final = 0.1  # seconds; runs in the executor
# qBittorrent 5.2+ can lose a magnet it accepted (see `_ensure_magnet_listed`): it lists a torrent it added
# within milliseconds, so one not listed after this long was lost, and is added again after each pause (taking
# a slow add for a lost one costs an extra look and an add that qBittorrent refuses as a duplicate).
ADD_LISTING_WAIT: Final = 1.0  # seconds; runs in the executor
ADD_LISTING_FIRST_POLL: Final = 0.002  # seconds; the second look, doubling after
ADD_LISTING_POLL: Final = 0.2  # seconds between looks, at most
ADD_AGAIN_PAUSES: Final = (0.2, 1.0)  # seconds, after asking for the metadata again
_READ_CHUNK: Final = 64 * 1024


@dataclass(frozen=True, slots=True)
class AddedTorrent:
    """A torrent that qBittorrent has accepted (or already had)."""

    info_hash: str  # lower-case 40-hex v1 infohash (qBittorrent's torrent id)
    name: str


def normalize_url(url: str) -> str:
    """Return the Web UI URL with a scheme and without a trailing slash.

    qbittorrent-api only skips its slow http/https probing when the URL carries a scheme.
    """
    url = url.strip().rstrip("/")
    if "://" not in url:
        url = f"http://{url}"
    return url


def _add_succeeded(result: Any) -> bool:
    """Read ``torrents_add``'s result: "Ok."/"Fails." up to qBittorrent 5.1, a counts dict from 5.2.

    Library versions before qBittorrent 5.2 hand that dict over as its JSON text.
    """
    if isinstance(result, str):
        if result.lstrip().startswith("{"):
            try:
                result = json.loads(result)
            except ValueError:
                return False
        else:
            return result.strip() == _ADD_OK
    if isinstance(result, dict):
        return bool(result.get("success_count") or result.get("pending_count"))
    return False


class _AnswerTooLargeError(qbittorrentapi.APIError):
    """qBittorrent's answer passed the cap (a library error, so the library raises it on, untried again)."""

    def __init__(self, max_bytes: int) -> None:
        super().__init__(f"answered with more than {max_bytes} bytes")
        self.max_bytes = max_bytes


def _read_within(max_bytes: int, response: Any, *_args: Any, **_kwargs: Any) -> Any:
    """Read an answer's body, decompressed, refusing it past ``max_bytes`` (a requests response hook).

    Requests calls response hooks with its ``Response`` (untyped here: requests ships no type hints) before
    it reads the body; the body read here is the one it then keeps.
    """
    declared = response.headers.get("Content-Length", "")
    if declared.isdigit() and int(declared) > max_bytes:
        response.close()
        raise _AnswerTooLargeError(max_bytes)
    body = bytearray()
    for piece in response.iter_content(_READ_CHUNK):
        body += piece
        if len(body) > max_bytes:
            response.close()
            raise _AnswerTooLargeError(max_bytes)
    response._content = bytes(body)  # noqa: SLF001 - where requests keeps a body it has read
    return response


def _map_error(  # noqa: C901, PLR0911 - one flat branch per error type, in precedence order
    err: Exception, *, during_login: bool = False
) -> AgentMediaClientError:
    """Turn a qbittorrent-api (or time-out) error into ours.

    Auth errors come first: the library makes them subclasses of its connection error.
    """
    if isinstance(err, TimeoutError):
        return CannotConnectError(SERVICE, "timed out")
    if isinstance(err, _AnswerTooLargeError):
        return too_large_error(SERVICE, err.max_bytes)
    if isinstance(err, qbittorrentapi.LoginFailed):
        return InvalidAuthError(SERVICE, "wrong username or password")
    if isinstance(err, qbittorrentapi.Forbidden403Error):
        if during_login or "ban" in str(err).lower():
            return BannedError(SERVICE, "this address is banned after too many failed logins")
        return InvalidAuthError(SERVICE, "access denied")
    if isinstance(err, qbittorrentapi.Unauthorized401Error):
        return InvalidAuthError(SERVICE, "unauthorized (check the URL host and the credentials)")
    if isinstance(err, qbittorrentapi.UnsupportedMediaType415Error):
        return RequestRejectedError(SERVICE, "not a valid torrent file")
    if isinstance(err, qbittorrentapi.NotFound404Error) and during_login:
        return CannotConnectError(SERVICE, "no qBittorrent Web UI at this URL")
    if isinstance(err, qbittorrentapi.HTTP4XXError):
        return RequestRejectedError(SERVICE, f"request refused (HTTP {err.http_status_code})")
    if isinstance(err, qbittorrentapi.HTTP5XXError):
        return CannotConnectError(SERVICE, f"server error (HTTP {err.http_status_code})")
    if isinstance(err, qbittorrentapi.APIConnectionError):
        return CannotConnectError(SERVICE, "cannot connect")
    if isinstance(err, ValueError):
        return InvalidResponseError(SERVICE, "unexpected answer")
    return CannotConnectError(SERVICE, type(err).__name__)


def _metadata_files(answer: Any) -> list[dict[str, Any]] | None:
    """Read ``torrents/fetchMetadata``'s answer into ``torrents/files`` entries; None while it has no info."""
    data = json.loads(answer) if isinstance(answer, str | bytes) else answer
    info = data.get("info") if isinstance(data, dict) else None
    if not isinstance(info, dict):
        return None
    files = info.get("files")
    if not isinstance(files, list):  # one file: the torrent's name
        files = [{"path": info.get("name"), "length": info.get("length")}]
    return [
        {"index": index, "name": str(item.get("path") or ""), "size": item.get("length")}
        for index, item in enumerate(files)
        if isinstance(item, dict)
    ]


# --- Library versions -----------------------------------------------------------------------------
# qbittorrent-api 2024.3 and older (2024.2.59 included) has no torrents_stop/torrents_start and no `stopped`
# add flag, the names qBittorrent 5.0 (Web API 2.11) gave pause/resume/paused, and no HTTPADAPTER_ARGS. Before
# 2026.5.1 its login wants the body "Ok.", while qBittorrent 5.2 answers a good login with an empty HTTP 204.

_LIBRARY_KNOWS_STOP: Final = hasattr(qbittorrentapi.Client, "torrents_stop")
_LIBRARY_TAKES_ADAPTER_ARGS: Final = "HTTPADAPTER_ARGS" in inspect.signature(qbittorrentapi.Client).parameters
# qbittorrent-api 2026.6+ takes qBittorrent 5.2's API key itself; older ones send it as an extra header.
_LIBRARY_TAKES_API_KEY: Final = "api_key" in inspect.signature(qbittorrentapi.Client).parameters
_STOP_RENAMED_IN_API: Final = (2, 11)
_FETCH_METADATA_API: Final = (2, 11, 9)  # qBittorrent 5.2: a file list without adding the torrent
_SESSION_COOKIE_PREFIX: Final = "QBT_SID_"  # qBittorrent 5.2+; older ones call it SID


def _api_version(client: qbittorrentapi.Client) -> tuple[int, ...]:
    """Return the Web API version (cached by the library) as a tuple, e.g. (2, 8, 19)."""
    return tuple(int(part) for part in str(client.app_web_api_version()).split(".") if part.isdigit())


class _LibraryClient(qbittorrentapi.Client):
    """qbittorrent-api's client, with a login that behaves the same on every library version."""

    _logging_in = False
    bearer_only = False  # an API key sent as a header by a library that does not know API keys

    def auth_log_in(self, username: str | None = None, password: str | None = None, **kwargs: Any) -> None:
        """Log in; also used by the library's own re-login when a session expires."""
        if self.bearer_only:
            # No login with an API key (qBittorrent answers auth/login with 403 then): one request checks it.
            if self._logging_in:
                raise qbittorrentapi.Unauthorized401Error("the API key was refused")
            self._logging_in = True
            try:
                self.app_version()
            finally:
                self._logging_in = False
            return
        if self._logging_in:
            # Older libraries answer a 403 to the login itself (a banned address) with another login, forever.
            raise qbittorrentapi.Forbidden403Error("login refused: this address is banned")
        self._logging_in = True
        try:
            super().auth_log_in(username, password, **kwargs)
        except qbittorrentapi.LoginFailed:
            # A library older than 2026.5.1 calls qBittorrent 5.2's empty 204 a failure, yet qBittorrent only
            # sets its session cookie after a good login (a wrong password gets 401 there).
            session = getattr(self, "_http_session", None)
            cookies = session.cookies.keys() if session is not None else []
            if not any(name.startswith(_SESSION_COOKIE_PREFIX) for name in cookies):
                raise
        finally:
            self._logging_in = False


def _library_add_flags(*, paused: bool, skip_checking: bool | None) -> dict[str, Any]:
    """Return the torrents_add arguments that pause and skip checking on qBittorrent 4.x and 5.x alike."""
    if _LIBRARY_KNOWS_STOP:  # it sends paused+stopped and skip_checking+seedMode itself
        return {"is_paused": paused, "is_stopped": paused, "is_skip_checking": skip_checking}
    # An older library sends only the 4.x names; extra keywords go to qBittorrent as form fields.
    return {
        "is_paused": paused,
        "stopped": paused,
        "is_skip_checking": skip_checking,
        "seedMode": skip_checking,
    }


def _stop_or_start(client: qbittorrentapi.Client, hashes: list[str], *, stop: bool) -> None:
    """Stop (4.x: pause) or start (4.x: resume) torrents, with the endpoint this qBittorrent has."""
    if _LIBRARY_KNOWS_STOP:
        if stop:
            client.torrents_stop(torrent_hashes=hashes)
        else:
            client.torrents_start(torrent_hashes=hashes)
        return
    if _api_version(client) >= _STOP_RENAMED_IN_API:
        # The older library knows only the 4.x endpoints, which qBittorrent 5 removed.
        client._post(  # noqa: SLF001 - its generic request, the one way to reach the renamed endpoints
            _name="torrents", _method="stop" if stop else "start", data={"hashes": "|".join(hashes)}
        )
    elif stop:
        client.torrents_pause(torrent_hashes=hashes)
    else:
        client.torrents_resume(torrent_hashes=hashes)


def _request_metadata(client: qbittorrentapi.Client, magnet: str) -> str:
    """Ask ``torrents/fetchMetadata`` (qBittorrent 5.2+) for a magnet's metadata; return its answer's text."""
    answer = client._post(  # noqa: SLF001 - its generic request: older libraries lack the endpoint
        _name="torrents", _method="fetchMetadata", data={"source": magnet.strip()}
    )
    return str(answer.text)


def _wait_until_listed(client: qbittorrentapi.Client, info_hash: str) -> bool:
    """Look for a torrent, soon then less often, for up to `ADD_LISTING_WAIT`; return whether it is listed."""
    deadline = time.monotonic() + ADD_LISTING_WAIT
    delay = ADD_LISTING_FIRST_POLL
    while not client.torrents_info(torrent_hashes=info_hash):
        if time.monotonic() >= deadline:
            return False
        time.sleep(delay)
        delay = min(delay * 2, ADD_LISTING_POLL)
    return True


def _ensure_magnet_listed(
    client: qbittorrentapi.Client, info_hash: str, magnet: str | None, add_again: Callable[[], object]
) -> None:
    """Make sure qBittorrent 5.2+ lists a magnet it accepted, adding it again if it lost it; else raise.

    qBittorrent answers ``torrents/add`` before it adds, and adding first cancels its own metadata fetch of
    the magnet (``torrents/fetchMetadata``: ours, or anyone's). A fetch begun a moment before, whose
    libtorrent torrent qBittorrent does not hold yet, is only forgotten: that hidden torrent stays in
    libtorrent, which refuses the add as a duplicate, and every later add of the magnet the same way
    (sessionimpl.cpp: cancelDownloadMetadata, addTorrent_impl). Asking for the metadata again makes
    qBittorrent hold that torrent once more; an add that comes once it does removes it first, and is kept.
    Before 5.2 (no such fetch) and for .torrent files, an accepted add is not looked at.
    """
    if magnet is None or _api_version(client) < _FETCH_METADATA_API or _wait_until_listed(client, info_hash):
        return
    for pause in ADD_AGAIN_PAUSES:
        LOGGER.warning("qBittorrent accepted %s but did not add it; adding it again", info_hash)
        _request_metadata(client, magnet)
        time.sleep(pause)  # qBittorrent takes the hidden torrent back when it reads libtorrent's answer
        add_again()
        if _wait_until_listed(client, info_hash):
            return
    raise RequestRejectedError(SERVICE, "qBittorrent accepted the magnet but never listed it")


class QBittorrentClient:
    """Async facade over qbittorrent-api for one qBittorrent Web UI."""

    def __init__(
        self,
        url: str,
        username: str,
        password: str,
        *,
        verify_ssl: bool = True,
        api_key: str | None = None,
        timeout: float = QBITTORRENT_TIMEOUT,
        max_answer_bytes: int = MAX_QBITTORRENT_ANSWER_BYTES,
    ) -> None:
        """Remember the connection settings; nothing is contacted until the first call.

        With `api_key` (qBittorrent 5.2+) every request carries it (``Authorization: Bearer``): no login, no
        session, and no ban after wrong passwords; the username and password are then not used.
        """
        self.url = normalize_url(url)
        self._username = username
        self._password = password
        self._api_key = api_key or None
        self._verify_ssl = verify_ssl
        self._timeout = timeout
        self._max_answer_bytes = max_answer_bytes
        self._lock = asyncio.Lock()
        self._client: qbittorrentapi.Client | None = None

    def _library_client(self) -> qbittorrentapi.Client:
        """Return the library client, building it on first use (cheap: no I/O until a request)."""
        if self._client is None:
            # No adapter retries where the library lets us say so: each attempt can take the whole timeout.
            adapter_args: dict[str, Any] = (
                {"HTTPADAPTER_ARGS": {"max_retries": 0}} if _LIBRARY_TAKES_ADAPTER_ARGS else {}
            )
            credentials: dict[str, Any] = {"username": self._username, "password": self._password}
            if self._api_key is not None:
                credentials = (
                    {"api_key": self._api_key}
                    if _LIBRARY_TAKES_API_KEY
                    else {"EXTRA_HEADERS": {"Authorization": f"Bearer {self._api_key}"}}
                )
            client = _LibraryClient(
                host=self.url,
                **credentials,
                VERIFY_WEBUI_CERTIFICATE=self._verify_ssl,
                FORCE_SCHEME_FROM_HOST=True,
                REQUESTS_ARGS={
                    "timeout": self._timeout,
                    "hooks": {"response": [partial(_read_within, self._max_answer_bytes)]},
                },
                SIMPLE_RESPONSES=True,
                DISABLE_LOGGING_DEBUG_OUTPUT=True,
                **adapter_args,
            )
            client.bearer_only = self._api_key is not None and not _LIBRARY_TAKES_API_KEY
            self._client = client
        return self._client

    async def _run[T](self, job: Callable[[qbittorrentapi.Client], T], *, during_login: bool = False) -> T:
        """Run ``job`` in the executor, one at a time, and map every failure to our errors."""
        loop = asyncio.get_running_loop()
        async with self._lock:
            # Picked here, not in the worker: a job abandoned after a time-out keeps its own client.
            client = self._library_client()
            try:
                async with asyncio.timeout(self._timeout):
                    return await loop.run_in_executor(None, job, client)
            except TimeoutError as err:
                # The stuck job keeps its client; the next call must not share it.
                self._client = None
                raise _map_error(err) from err
            except (qbittorrentapi.APIError, ValueError) as err:
                raise _map_error(err, during_login=during_login) from err

    async def async_login(self) -> str:
        """Log in and return the qBittorrent version (e.g. "v4.5.2")."""

        def login(client: qbittorrentapi.Client) -> str:
            client.auth_log_in()
            return str(client.app_version())

        return await self._run(login, during_login=True)

    async def async_add_magnet(
        self,
        magnet: str,
        *,
        save_path: str | None = None,
        category: str | None = None,
        tags: Sequence[str] = (),
        paused: bool = False,
        stop_at_metadata: bool = False,
    ) -> AddedTorrent:
        """Add a magnet link; returns without waiting for its metadata. Already present → that torrent.

        A paused magnet never fetches its metadata; `stop_at_metadata` instead lets it run until the file
        list is known and stops it before any data (qBittorrent's stop condition, 4.5+). On qBittorrent 5.2+
        it returns once the magnet is listed (within milliseconds), added again if qBittorrent lost it to its
        own metadata fetch (`_ensure_magnet_listed`).
        """
        info_hash = info_hash_from_magnet(magnet)
        if info_hash is None:
            raise RequestRejectedError(SERVICE, "not a magnet link with a BitTorrent info hash")
        added = AddedTorrent(info_hash=info_hash, name=magnet_name(magnet) or info_hash)
        return await self._add(
            added,
            {"urls": magnet.strip()},
            save_path=save_path,
            category=category,
            tags=tags,
            paused=paused,
            stop_condition="MetadataReceived" if stop_at_metadata else None,
        )

    async def async_add_torrent_file(
        self,
        torrent: TorrentFile | bytes,
        *,
        save_path: str | None = None,
        category: str | None = None,
        tags: Sequence[str] = (),
        paused: bool = False,
        skip_checking: bool = False,
    ) -> AddedTorrent:
        """Add a .torrent: as read by `read_torrent_file` (not decoded again), or its bytes.

        Already present → that torrent.
        """
        if isinstance(torrent, bytes):
            try:
                torrent = await asyncio.get_running_loop().run_in_executor(None, read_torrent_file, torrent)
            except InvalidTorrentError as err:
                raise RequestRejectedError(SERVICE, "not a valid torrent file") from err
        return await self._add(
            AddedTorrent(info_hash=torrent.info_hash, name=torrent.name),
            {"torrent_files": {f"{torrent.info_hash}.torrent": torrent.data}},
            save_path=save_path,
            category=category,
            tags=tags,
            paused=paused,
            skip_checking=skip_checking or None,
        )

    async def _add(
        self,
        added: AddedTorrent,
        source: dict[str, Any],
        *,
        save_path: str | None,
        category: str | None,
        tags: Sequence[str],
        paused: bool,
        skip_checking: bool | None = None,
        stop_condition: Literal["MetadataReceived"] | None = None,
    ) -> AddedTorrent:
        def existing(client: qbittorrentapi.Client) -> AddedTorrent | None:
            found = client.torrents_info(torrent_hashes=added.info_hash)
            if found:
                return AddedTorrent(info_hash=added.info_hash, name=str(found[0].get("name") or added.name))
            return None

        def send(client: qbittorrentapi.Client) -> bool:
            try:
                result = client.torrents_add(
                    save_path=save_path,
                    category=category,
                    tags=list(tags) or None,
                    stop_condition=stop_condition,
                    **_library_add_flags(paused=paused, skip_checking=skip_checking),
                    **source,
                )
            except qbittorrentapi.Conflict409Error:  # 5.2+: nothing added, e.g. a duplicate
                result = None
            return _add_succeeded(result)

        def add(client: qbittorrentapi.Client) -> AddedTorrent:
            if present := existing(client):
                return present
            if send(client):
                _ensure_magnet_listed(client, added.info_hash, source.get("urls"), partial(send, client))
                return added
            # A refusal is often a duplicate that qBittorrent does not list yet: it lists new torrents a
            # moment after accepting them (an add just before, or someone else's).
            for _attempt in range(DUPLICATE_LOOKUPS):
                if present := existing(client):
                    return present
                time.sleep(DUPLICATE_LOOKUP_PAUSE)
            raise RequestRejectedError(SERVICE, "qBittorrent refused the torrent")

        return await self._run(add)

    async def async_torrents(self, hashes: Sequence[str] | None = None) -> list[dict[str, Any]]:
        """Return torrents (all, or those with the given hashes) as plain dicts."""
        if hashes is not None and not hashes:
            return []
        wanted = [h.lower() for h in hashes] if hashes is not None else None
        result = await self._run(lambda client: client.torrents_info(torrent_hashes=wanted))
        return [dict(item) for item in result]

    async def async_files(self, info_hash: str) -> list[dict[str, Any]]:
        """Return the files of one torrent (empty until a magnet's metadata has arrived)."""
        result = await self._run(lambda client: client.torrents_files(torrent_hash=info_hash.lower()))
        return [dict(item) for item in result]

    async def async_is_private(self, info_hash: str) -> bool | None:
        """Return whether a torrent is from a private tracker; None when qBittorrent does not list it."""

        def private(client: qbittorrentapi.Client) -> bool | None:
            found = client.torrents_info(torrent_hashes=info_hash.lower())
            if not found:
                return None
            if isinstance(flag := found[0].get("private"), bool):  # qBittorrent 5.2+
                return flag
            return bool(client.torrents_properties(torrent_hash=info_hash.lower()).get("is_private"))

        return await self._run(private)

    async def async_set_file_priority(self, info_hash: str, indexes: Sequence[int], priority: int) -> None:
        """Set the priority of some files of a torrent (0: not downloaded)."""
        if not indexes:
            return
        wanted = list(indexes)
        await self._run(
            lambda client: client.torrents_file_priority(
                torrent_hash=info_hash.lower(), file_ids=wanted, priority=priority
            )
        )

    async def async_fetch_metadata(self, magnet: str) -> list[dict[str, Any]] | None:
        """Return a magnet's files, as ``torrents/files`` lists them, without adding it (qBittorrent 5.2+).

        None when this qBittorrent cannot tell (older than 5.2), or does not have the metadata yet (it then
        goes on fetching it in the background; `async_add_magnet` copes with an add that comes meanwhile).
        """

        def fetch(client: qbittorrentapi.Client) -> list[dict[str, Any]] | None:
            if _api_version(client) < _FETCH_METADATA_API:
                return None
            return _metadata_files(_request_metadata(client, magnet))

        return await self._run(fetch)

    async def async_sync_maindata(self, rid: int = 0) -> dict[str, Any]:
        """Return ``sync/maindata``: a full snapshot for rid 0 or an unknown rid, else the changes since."""
        result = await self._run(lambda client: client.sync_maindata(rid=rid))
        if not isinstance(result, dict):
            raise InvalidResponseError(SERVICE, "unexpected sync answer")
        return dict(result)

    async def async_pause(self, hashes: Sequence[str]) -> None:
        """Pause (qBittorrent 5: stop) torrents."""
        wanted = [h.lower() for h in hashes]
        await self._run(lambda client: _stop_or_start(client, wanted, stop=True))

    async def async_resume(self, hashes: Sequence[str]) -> None:
        """Resume (qBittorrent 5: start) torrents."""
        wanted = [h.lower() for h in hashes]
        await self._run(lambda client: _stop_or_start(client, wanted, stop=False))

    async def async_remove(self, hashes: Sequence[str], *, delete_files: bool = False) -> None:
        """Remove torrents, and their data when asked."""
        wanted = [h.lower() for h in hashes]
        await self._run(
            lambda client: client.torrents_delete(delete_files=delete_files, torrent_hashes=wanted)
        )

    async def async_close(self) -> None:
        """Log out, best effort; never raises."""
        if self._client is None:
            return

        def logout(client: qbittorrentapi.Client) -> None:
            client.auth_log_out()

        with contextlib.suppress(AgentMediaClientError):
            await self._run(logout)
        self._client = None
