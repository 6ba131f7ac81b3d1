"""A small Chrome DevTools Protocol client: Debian's headless Chromium, driven over its websocket.

No Playwright: its browser downloads are impossible offline, and the protocol itself is enough to open pages,
type, click, read the page (through shadow roots, where Home Assistant's frontend lives) and take screenshots.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import itertools
import json
import re
import shutil
import time
from typing import TYPE_CHECKING, Any, Self

import aiohttp

if TYPE_CHECKING:
    from pathlib import Path

# Finds elements through every shadow root: Home Assistant's frontend is web components all the way down.
DEEP_QUERY = """
window.__deep = (predicate) => {
  const found = [];
  const walk = (node) => {
    if (node.nodeType === 1 && predicate(node)) found.push(node);
    if (node.shadowRoot) walk(node.shadowRoot);
    for (const child of node.children || []) walk(child);
  };
  walk(document.documentElement);
  return found;
};
window.__visible = (node) => {
  const box = node.getBoundingClientRect();
  return box.width > 0 && box.height > 0;
};
// Whether `node` sits inside an element with this tag, across shadow roots.
window.__inside = (node, tag) => {
  for (let n = node; n; n = n.parentElement || n.getRootNode().host) {
    if (n.tagName === tag) return true;
  }
  return false;
};
"""


def chromium_path() -> str | None:
    """Return Debian's Chromium, or None."""
    return shutil.which("chromium") or shutil.which("chromium-browser")


class Browser:
    """One headless Chromium with one page, attached in flat session mode."""

    def __init__(self, executable: str, profile: Path, *, width: int = 1280, height: int = 900) -> None:
        self.executable = executable
        self.profile = profile
        self.size = (width, height)
        self._process: asyncio.subprocess.Process | None = None
        self._http: aiohttp.ClientSession | None = None
        self._socket: aiohttp.ClientWebSocketResponse | None = None
        self._ids = itertools.count(1)
        self._pending: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self._reader: asyncio.Task[None] | None = None
        self._session: str | None = None
        self.exceptions: list[str] = []  # what the page's scripts threw and nobody caught

    async def __aenter__(self) -> Self:
        width, height = self.size
        self._process = await asyncio.create_subprocess_exec(
            self.executable,
            "--headless=new",
            "--no-sandbox",  # as root in a container
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--no-first-run",
            # Nothing leaves the machine: only loopback resolves; Chromium's own background traffic is off.
            "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--remote-debugging-address=127.0.0.1",
            "--remote-debugging-port=0",
            f"--user-data-dir={self.profile}",
            f"--window-size={width},{height}",
            "about:blank",
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.PIPE,
        )
        endpoint = await self._endpoint()
        self._http = aiohttp.ClientSession()
        self._socket = await self._http.ws_connect(endpoint, max_msg_size=0)
        self._reader = asyncio.create_task(self._read())
        targets = await self.send("Target.getTargets")
        page = next(target for target in targets["targetInfos"] if target["type"] == "page")
        attached = await self.send("Target.attachToTarget", {"targetId": page["targetId"], "flatten": True})
        self._session = attached["sessionId"]
        for domain in ("Page.enable", "Runtime.enable"):
            await self.send(domain, session=True)
        await self.send("Page.addScriptToEvaluateOnNewDocument", {"source": DEEP_QUERY}, session=True)
        await self.send(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
            session=True,
        )
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        if self._reader is not None:
            self._reader.cancel()
        if self._socket is not None:
            await self._socket.close()
        if self._http is not None:
            await self._http.close()
        if self._process is not None and self._process.returncode is None:
            self._process.terminate()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._process.wait(), 10)
            if self._process.returncode is None:
                self._process.kill()
                await self._process.wait()

    async def _endpoint(self) -> str:
        assert self._process is not None
        assert self._process.stderr is not None
        while True:
            line = await asyncio.wait_for(self._process.stderr.readline(), 60)
            if not line:
                raise RuntimeError("Chromium exited before opening its DevTools endpoint")
            if match := re.search(rb"DevTools listening on (ws://\S+)", line):
                # Chromium keeps writing to stderr: drain it so it never blocks on a full pipe.
                asyncio.get_running_loop().create_task(self._drain(self._process.stderr))
                return match.group(1).decode()

    @staticmethod
    async def _drain(stream: asyncio.StreamReader) -> None:
        while await stream.readline():
            pass

    async def _read(self) -> None:
        assert self._socket is not None
        async for message in self._socket:
            data = json.loads(message.data)
            if "id" in data and (future := self._pending.pop(data["id"], None)) and not future.done():
                future.set_result(data)
            elif data.get("method") == "Runtime.exceptionThrown":
                self.exceptions.append(json.dumps(data["params"]["exceptionDetails"])[:1000])

    async def send(
        self, method: str, params: dict[str, Any] | None = None, *, session: bool = False
    ) -> dict[str, Any]:
        """Send one command and return its result; a protocol error raises."""
        assert self._socket is not None
        ident = next(self._ids)
        message: dict[str, Any] = {"id": ident, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = self._session
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._pending[ident] = future
        await self._socket.send_str(json.dumps(message))
        reply = await asyncio.wait_for(future, 60)
        if "error" in reply:
            raise RuntimeError(f"{method}: {reply['error']}")
        return dict(reply.get("result", {}))

    async def evaluate(self, expression: str) -> Any:
        """Evaluate JavaScript in the page (awaiting a promise) and return its JSON value."""
        result = await self.send(
            "Runtime.evaluate",
            {"expression": expression, "awaitPromise": True, "returnByValue": True},
            session=True,
        )
        if "exceptionDetails" in result:
            raise RuntimeError(f"page script failed: {json.dumps(result['exceptionDetails'])[:800]}")
        return result["result"].get("value")

    async def navigate(self, url: str) -> None:
        await self.send("Page.navigate", {"url": url}, session=True)
        await self.wait_for("document.readyState === 'complete'", what=f"{url} loaded")

    async def wait_for(self, expression: str, *, what: str, timeout: float = 60.0) -> Any:
        """Evaluate `expression` until it is truthy; return its value (bounded, never a fixed sleep)."""
        deadline = time.monotonic() + timeout
        while True:
            with contextlib.suppress(RuntimeError):  # the page may be between documents
                if value := await self.evaluate(expression):
                    return value
            if time.monotonic() > deadline:
                raise TimeoutError(f"gave up after {timeout:.0f} s waiting for {what}")
            await asyncio.sleep(0.2)

    async def type_text(self, text: str) -> None:
        """Type into the focused element, as a keyboard does."""
        await self.send("Input.insertText", {"text": text}, session=True)

    async def press_enter(self) -> None:
        for kind in ("keyDown", "keyUp"):
            await self.send(
                "Input.dispatchKeyEvent",
                {"type": kind, "key": "Enter", "code": "Enter", "windowsVirtualKeyCode": 13, "text": "\r"},
                session=True,
            )

    async def click(self, x: float, y: float) -> None:
        for kind in ("mousePressed", "mouseReleased"):
            await self.send(
                "Input.dispatchMouseEvent",
                {"type": kind, "x": x, "y": y, "button": "left", "clickCount": 1},
                session=True,
            )

    async def screenshot(self, path: Path) -> None:
        shot = await self.send("Page.captureScreenshot", {"format": "png"}, session=True)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(base64.b64decode(shot["data"]))
