"""The five flows (docs/architecture.md), end to end through `conversation.async_converse`.

Each flow runs with the scripted LLM answering in native tool calls and in the original JSON-action form, the
recorded-shape TMDB and Knaben servers, and a real qbittorrent-nox.
"""

from __future__ import annotations

import itertools
import json
from typing import TYPE_CHECKING, Any

from aiohttp import web
import pytest
from pytest_homeassistant_custom_component.common import async_capture_events

from custom_components.agent_media.agent.history import clip_turns, message_tokens
from custom_components.agent_media.agent.prompt import build_system_prompt, estimate_tokens
from custom_components.agent_media.const import DOMAIN, EVENT_DOWNLOAD_ADDED, SUBENTRY_CONVERSATION
from homeassistant.components import conversation
from homeassistant.core import Context
from homeassistant.helpers import chat_session, entity_registry as er, intent

from .helpers import last_results, torrents_in_qbittorrent, wait_until
from .rig.knaben_server import movie_hits, synthetic_hash
from .rig.torrents import make_local_torrent

if TYPE_CHECKING:
    from pathlib import Path

    from pytest_homeassistant_custom_component.common import MockConfigEntry

    from homeassistant.auth.models import User
    from homeassistant.core import HomeAssistant

    from .rig.knaben_server import KnabenServer
    from .rig.llm_server import ScriptedLLMServer
    from .rig.qbittorrent import QBittorrentInstance

FORMS = ["native", "json"]


pytestmark = pytest.mark.usefixtures("core_setup")  # the conversation dependency needs core


def agent_id(hass: HomeAssistant, entry: MockConfigEntry) -> str:
    """Return the entity id of the entry's first conversation agent (the one an entry migrates to)."""
    first = next(sub for sub in entry.subentries.values() if sub.subentry_type == SUBENTRY_CONVERSATION)
    entity_id = er.async_get(hass).async_get_entity_id("conversation", DOMAIN, first.subentry_id)
    assert entity_id is not None
    return entity_id


async def converse(
    hass: HomeAssistant,
    entry: MockConfigEntry,
    text: str,
    conversation_id: str | None = None,
    *,
    user: User | None = None,
    language: str = "en",
) -> conversation.ConversationResult:
    """Send one message to the agent, as Assist does."""
    return await conversation.async_converse(
        hass,
        text,
        conversation_id,
        Context(user_id=user.id if user else None),
        language=language,
        agent_id=agent_id(hass, entry),
    )


def speech(result: conversation.ConversationResult) -> str:
    """Return what the agent said."""
    return str(result.response.speech["plain"]["speech"])


def queue_call(llm_server: ScriptedLLMServer, form: str, name: str, args: dict[str, Any]) -> None:
    """Queue one tool call in the given form."""
    if form == "native":
        llm_server.queue_tool_calls([(name, args)])
    else:
        llm_server.queue_json_action(name, args)


def tool_results(request: dict[str, Any]) -> list[dict[str, Any]]:
    """Return the tool results of the request's turn (earlier turns' go again before its user message)."""
    results = []
    messages = request["messages"]
    latest = max(n for n, message in enumerate(messages) if message["role"] == "user")
    for message in messages[latest:]:
        # Native results are a data block; without native tools, a system message of marked data:
        # "[Tool result of x: …] <data>…</data>".
        if message["role"] == "tool" or (
            message["role"] == "system" and str(message["content"]).startswith("[Tool result of ")
        ):
            block = message["content"].split("<data>", 1)[1].rsplit("</data>", 1)[0]
            results.append(json.loads(block))
    return results


def system_prompt(request: dict[str, Any]) -> str:
    """Return the system prompt of one request."""
    assert request["messages"][0]["role"] == "system"
    return str(request["messages"][0]["content"])


def turn_context(request: dict[str, Any]) -> str:
    """Return the context block of one request: the end of its latest user message, delimited."""
    latest = next(message for message in reversed(request["messages"]) if message["role"] == "user")
    _words, block = str(latest["content"]).rsplit("\n\n<context>\n", 1)
    assert block.endswith("\n</context>")
    assert "<context>" not in block
    return block.removesuffix("\n</context>")


# --- flow 1: search then pick -------------------------------------------------------------------------------


@pytest.mark.parametrize("form", FORMS)
async def test_flow_1_search_then_pick(
    hass: HomeAssistant,
    setup_integration: MockConfigEntry,
    llm_server: ScriptedLLMServer,
    knaben_server: KnabenServer,
    qbittorrent: QBittorrentInstance,
    form: str,
) -> None:
    entry = setup_integration
    memory = entry.runtime_data.memory
    added_events = async_capture_events(hass, EVENT_DOWNLOAD_ADDED)

    # Knaben matches every word: the model searches broadly; ranking puts the wanted resolution first.
    queue_call(llm_server, form, "find_torrents", {"media_title": "Sintel 2010"})
    llm_server.queue_text("I found 3 releases of Sintel. The best is the 1080p BluRay.")
    result = await converse(hass, entry, "Find torrents for Sintel 1080p")
    assert speech(result) == "I found 3 releases of Sintel. The best is the 1080p BluRay."
    assert result.response.response_type is intent.IntentResponseType.ACTION_DONE

    found = tool_results(llm_server.requests[1])
    assert found[0]["status"] == "ok"
    assert [torrent["index"] for torrent in found[0]["torrents"]] == list(range(1, found[0]["total"] + 1))
    # The CAM, the release flagged by the virus scan and the dead one are ranked out; 1080p comes first.
    titles = [torrent["title"] for torrent in found[0]["torrents"]]
    assert "1080p" in titles[0]
    assert not any("CAM" in title or "FREE" in title for title in titles)
    stored = last_results(memory)
    assert [item["title"] for item in stored] == titles

    # Voice starts a new conversation for every request: the latest results are still there.
    queue_call(llm_server, form, "add_torrent_by_index", {"index": 2})
    llm_server.queue_text("Downloading the second one.")
    second = await converse(hass, entry, "Download the 2nd one")
    assert second.conversation_id != result.conversation_id
    assert speech(second) == "Downloading the second one."
    # The prompt showed the numbered results.
    assert f'[2,"{stored[1]["title"]}"' in turn_context(llm_server.requests[2])  # row 2 of the last search

    added = tool_results(llm_server.requests[3])[0]
    assert added["status"] == "ok"
    wanted_hash = stored[1]["info_hash"]
    assert added["hash"] == wanted_hash
    assert wanted_hash in await torrents_in_qbittorrent(hass, qbittorrent)
    assert memory.downloads.records()[wanted_hash]["source"] == "conversation"
    assert [event.data["hash"] for event in added_events] == [wanted_hash]
    assert added_events[0].data["source"] == "conversation"
    assert llm_server.pending == 0


# --- flow 2: folder configuration ---------------------------------------------------------------------------


@pytest.mark.parametrize("form", FORMS)
async def test_flow_2_set_download_folder(
    hass: HomeAssistant,
    setup_integration: MockConfigEntry,
    llm_server: ScriptedLLMServer,
    hass_admin_user: User,
    tmp_path: Path,
    form: str,
) -> None:
    entry = setup_integration
    media = tmp_path / "media"
    downloads = media / "downloads"
    downloads.mkdir(parents=True)
    hass.config.allowlist_external_dirs = {str(media)}

    queue_call(
        llm_server, form, "set_path_for_folder", {"folder_name": "download", "path_value": str(downloads)}
    )
    llm_server.queue_text(f"Downloads now go to {downloads}.")
    result = await converse(hass, entry, f"Set the download folder to {downloads}", user=hass_admin_user)
    assert speech(result) == f"Downloads now go to {downloads}."
    assert tool_results(llm_server.requests[1]) == [
        {"status": "ok", "folder_name": "download", "path": str(downloads)}
    ]
    assert entry.runtime_data.memory.household.folder("download") == str(downloads)
    # The next turn's prompt shows the folder.
    llm_server.queue_text("Your download folder is set.")
    await converse(hass, entry, "Which folders are set?", user=hass_admin_user)
    assert f'"download":"{downloads}"' in turn_context(llm_server.requests[2])


# --- flow 3: multi-tool -------------------------------------------------------------------------------------


@pytest.mark.parametrize("form", FORMS)
async def test_flow_3_download_in_4k(
    hass: HomeAssistant,
    setup_integration: MockConfigEntry,
    llm_server: ScriptedLLMServer,
    qbittorrent: QBittorrentInstance,
    form: str,
) -> None:
    entry = setup_integration
    memory = entry.runtime_data.memory
    queue_call(llm_server, form, "find_media_imdb_id", {"media_title": "Sintel"})
    queue_call(llm_server, form, "find_torrents", {"media_title": "Sintel 2010 2160p"})
    queue_call(llm_server, form, "add_torrent_by_index", {"index": 1})
    llm_server.queue_text("Sintel (2010) in 4K is downloading.")

    result = await converse(hass, entry, "Download Sintel in 4K")
    assert speech(result) == "Sintel (2010) in 4K is downloading."

    identified = tool_results(llm_server.requests[1])[0]
    assert identified == {
        "status": "ok",
        "title": "Sintel",
        "year": 2010,
        "imdb_id": "tt1727587",
        "tmdb_id": 45745,
        "media_type": "movie",
        "poster_path": "/sintel.png",
    }
    found = tool_results(llm_server.requests[2])[1]
    assert "2160p" in found["torrents"][0]["title"]
    added = tool_results(llm_server.requests[3])[2]
    assert added["status"] == "ok"
    expected_hash = synthetic_hash("Sintel 2010 2160p")
    assert added["hash"] == expected_hash
    assert expected_hash in await torrents_in_qbittorrent(hass, qbittorrent)
    record = memory.downloads.records()[expected_hash]
    assert record["media"]["imdb_id"] == "tt1727587"
    assert record["conversation_id"] == result.conversation_id


# --- flow 4: errors -----------------------------------------------------------------------------------------


def _six_sintel_releases() -> list[dict[str, Any]]:
    usable = [hit for hit in movie_hits("Sintel", 2010) if hit["seeders"] and "CAM" not in hit["title"]]
    usable = [
        hit
        for hit in usable
        if not (isinstance(hit["virusDetection"], float) and hit["virusDetection"] > 0.5)
    ]
    extra = []
    for group in ("ALPHA", "BETA", "GAMMA"):
        hit = dict(usable[1])
        hit["title"] = f"Sintel.2010.1080p.BluRay.x264-{group}"
        hit["hash"] = synthetic_hash(f"Sintel 2010 {group}")
        hit["magnetUrl"] = None
        extra.append(hit)
    return usable + extra


@pytest.mark.parametrize("form", FORMS)
async def test_flow_4_index_errors_then_success(
    hass: HomeAssistant,
    setup_integration: MockConfigEntry,
    llm_server: ScriptedLLMServer,
    knaben_server: KnabenServer,
    qbittorrent: QBittorrentInstance,
    form: str,
) -> None:
    entry = setup_integration
    memory = entry.runtime_data.memory

    # No search yet.
    queue_call(llm_server, form, "add_torrent_by_index", {"index": 5})
    llm_server.queue_text("There are no search results yet. What should I look for?")
    result = await converse(hass, entry, "Download the 5th torrent")
    assert speech(result) == "There are no search results yet. What should I look for?"
    assert result.continue_conversation
    error = tool_results(llm_server.requests[1])[0]
    assert error["status"] == "error"
    assert error["error"] == "not_found"
    assert memory.journal.recent_errors()[-1]["error"] == "not_found"

    # Only 3 usable results.
    queue_call(llm_server, form, "find_torrents", {"media_title": "Sintel"})
    queue_call(llm_server, form, "add_torrent_by_index", {"index": 5})
    llm_server.queue_text("There are only 3 results.")
    await converse(hass, entry, "Find Sintel and download the 5th one")
    too_far = tool_results(llm_server.requests[4])[1]
    assert too_far == {
        "status": "error",
        "error": "not_found",
        "message": "There is no result 5: the last search found 3.",
    }
    # The remembered error is in the next prompt.
    llm_server.queue_text("Sorry about that.")
    await converse(hass, entry, "What went wrong?")
    assert "add_torrent_by_index → not_found" in turn_context(llm_server.requests[5])

    # After a search with more results, the same request works.
    knaben_server.set_hits(_six_sintel_releases())
    queue_call(llm_server, form, "find_torrents", {"media_title": "Sintel 2010"})
    llm_server.queue_text("I found 6 releases.")
    await converse(hass, entry, "Search Sintel 2010")
    queue_call(llm_server, form, "add_torrent_by_index", {"index": 5})
    llm_server.queue_text("Downloading the 5th one.")
    await converse(hass, entry, "Download the 5th torrent")
    added = tool_results(llm_server.requests[9])[0]
    assert added["status"] == "ok"
    assert added["hash"] == last_results(memory)[4]["info_hash"]
    assert added["hash"] in await torrents_in_qbittorrent(hass, qbittorrent)


# --- flow 5: background events ------------------------------------------------------------------------------


class TorrentFileServer:
    """Serves .torrent files on loopback, as indexes without magnet links do."""

    def __init__(self) -> None:
        self.files: dict[str, bytes] = {}
        self.app = web.Application()
        self.app.router.add_get("/{name}", self._get)
        self.runner = web.AppRunner(self.app, access_log=None)
        self.port = 0

    async def _get(self, request: web.Request) -> web.Response:
        data = self.files.get(request.match_info["name"])
        if data is None:
            return web.Response(status=404)
        return web.Response(body=data, content_type="application/x-bittorrent")

    async def start(self) -> None:
        await self.runner.setup()
        site = web.TCPSite(self.runner, "127.0.0.1", 0)
        await site.start()
        self.port = int(self.runner.addresses[0][1])

    def url(self, name: str) -> str:
        return f"http://127.0.0.1:{self.port}/{name}"


@pytest.fixture
async def torrent_files(socket_enabled: None) -> Any:
    server = TorrentFileServer()
    await server.start()
    yield server
    await server.runner.cleanup()


async def _wait_for_unread_events(hass: HomeAssistant, entry: MockConfigEntry) -> list[dict[str, Any]]:
    """Let the real downloads coordinator poll until it has recorded a completion."""
    memory = entry.runtime_data.memory

    async def unread_after_a_refresh() -> list[dict[str, Any]]:
        await entry.runtime_data.coordinator.async_refresh()
        return memory.journal.unread_events()

    return await wait_until(unread_after_a_refresh, what="the completion of the local torrent")


@pytest.mark.parametrize("form", FORMS)
async def test_flow_5_background_event_is_told_once(
    hass: HomeAssistant,
    setup_integration: MockConfigEntry,
    llm_server: ScriptedLLMServer,
    knaben_server: KnabenServer,
    qbittorrent: QBittorrentInstance,
    torrent_files: TorrentFileServer,
    tmp_path: Path,
    form: str,
) -> None:
    entry = setup_integration
    memory = entry.runtime_data.memory
    library = tmp_path / "library"
    local = make_local_torrent(library, "Elephants.Dream.2006.1080p.mkv")
    torrent_files.files["elephants.torrent"] = local.torrent_bytes
    # The agent downloads into the configured folder, where the data already is: it completes offline.
    hass.config.allowlist_external_dirs = {str(tmp_path)}
    memory.household.set_folder("download", str(library))
    knaben_server.set_hits(
        [
            {
                "title": "Elephants.Dream.2006.1080p.BluRay.x264-PDGROUP",
                "hash": None,
                "magnetUrl": None,
                "link": torrent_files.url("elephants.torrent"),
                "bytes": 1_200_000_000,
                "seeders": 25,
                "peers": 2,
                "tracker": "Example Tracker",
                "categoryId": [3001000],
                "virusDetection": 0,
                "date": "2021-04-16T10:21:00+00:00",
            }
        ]
    )
    queue_call(llm_server, form, "find_media_imdb_id", {"media_title": "Elephants Dream", "year": 2006})
    queue_call(llm_server, form, "find_torrents", {"media_title": "Elephants Dream 2006 1080p"})
    queue_call(llm_server, form, "add_torrent_by_index", {"index": 1})
    llm_server.queue_text("Elephants Dream is downloading.")
    await converse(hass, entry, "Download Elephants Dream")
    added = tool_results(llm_server.requests[3])[2]
    assert added["status"] == "ok"
    assert added["hash"] == local.info_hash
    assert added["save_path"] == str(library)

    events = await _wait_for_unread_events(hass, entry)
    assert events[0]["type"] == "download_completed"
    assert events[0]["data"]["hash"] == local.info_hash
    assert local.info_hash not in memory.downloads.records()

    llm_server.queue_text("Elephants Dream has finished downloading.")
    news = await converse(hass, entry, "What's new?")
    assert speech(news) == "Elephants Dream has finished downloading."
    prompt = turn_context(llm_server.requests[4])
    assert '{"news":"finished","what":"Elephants Dream","year":2006' in prompt
    assert memory.journal.unread_events() == []

    llm_server.queue_text("Nothing new.")
    await converse(hass, entry, "What's new?")
    assert "Download finished" not in turn_context(llm_server.requests[5])


# --- streaming ---------------------------------------------------------------------------------------------


async def test_text_streams_and_json_actions_never_leak(
    hass: HomeAssistant, setup_integration: MockConfigEntry, llm_server: ScriptedLLMServer
) -> None:
    deltas: list[dict[str, Any]] = []
    llm_server.queue_json_action("find_media_imdb_id", {"media_title": "Sintel"})
    llm_server.queue_text("Sintel is a 2010 short film by the Blender Foundation.")
    # A pipeline listens to the chat log's deltas like this, and speaks them as they come.
    with (
        chat_session.async_get_chat_session(hass) as session,
        conversation.async_get_chat_log(
            hass, session, chat_log_delta_listener=lambda _log, d: deltas.append(d)
        ),
    ):
        result = await converse(hass, setup_integration, "What is Sintel?", session.conversation_id)
    text = [delta["content"] for delta in deltas if delta.get("content")]
    assert len(text) > 1
    assert "".join(text) == speech(result) == "Sintel is a 2010 short film by the Blender Foundation."
    assert not any("action" in piece for piece in text)


async def test_answers_in_the_users_language(
    hass: HomeAssistant, setup_integration: MockConfigEntry, llm_server: ScriptedLLMServer
) -> None:
    llm_server.queue_text("Sintel est un court métrage de 2010.")
    result = await converse(hass, setup_integration, "Qu'est-ce que Sintel ?", language="fr")
    assert speech(result) == "Sintel est un court métrage de 2010."
    assert result.response.language == "fr"
    assert "User's language: fr." in turn_context(llm_server.requests[0])
    assert setup_integration.runtime_data.memory.household.language() == "fr"
    # Explanations written without the model come from the translations; English when there is no French.
    for _attempt in range(2):
        llm_server.queue_error(503)
    failed = await converse(hass, setup_integration, "Et Tears of Steel ?", language="fr")
    assert speech(failed).startswith("I can't reach the language model right now")


# --- a request a prompt cache keeps ------------------------------------------------------------------------


@pytest.mark.parametrize("form", FORMS)
async def test_each_request_starts_like_the_previous_one(
    hass: HomeAssistant,
    setup_integration: MockConfigEntry,
    llm_server: ScriptedLLMServer,
    knaben_server: KnabenServer,
    qbittorrent: QBittorrentInstance,
    form: str,
) -> None:
    """System prompt, tools and every earlier message stay as they were sent: a prompt cache reuses them."""
    entry = setup_integration
    queue_call(llm_server, form, "find_torrents", {"media_title": "Sintel 2010"})
    llm_server.queue_text("I found 3 releases of Sintel.")
    first = await converse(hass, entry, "Find torrents for Sintel 1080p")
    queue_call(llm_server, form, "add_torrent_by_index", {"index": 2})
    llm_server.queue_text("Downloading the second one.")
    await converse(hass, entry, "Download the 2nd one", first.conversation_id)
    llm_server.queue_text("It is downloading.")
    await converse(hass, entry, "How is it going", first.conversation_id)

    requests = llm_server.requests[-5:]  # without native tools, the first one was refused
    for earlier, later in itertools.pairwise(requests):
        assert json.dumps(later.get("tools")) == json.dumps(earlier.get("tools"))
        # Within a turn and across turns, a request only adds to the one before.
        sent = earlier["messages"]
        assert json.dumps(later["messages"][: len(sent)]) == json.dumps(sent)
    # Home Assistant's clock (to the second) is not in the system prompt; the time is in the context.
    assert "Current time is" not in system_prompt(requests[4])
    assert turn_context(requests[4]).startswith("Now: ")
    # The first context says the whole view; the next ones only what changed since: the search of the
    # first turn in the second (never in the system prompt), the download of the second in the third.
    assert "Today: " in turn_context(requests[0])
    assert '"query":"Sintel 2010"' in turn_context(requests[2])
    assert '"query"' not in system_prompt(requests[2])
    assert "Today: " not in turn_context(requests[2])
    assert "Active downloads (1)" in turn_context(requests[4])
    assert '"query"' not in turn_context(requests[4])
    # Earlier user messages go with the context block they were sent with, the answers as they were said.
    persons = [m["content"] for m in requests[4]["messages"] if m["role"] == "user"]
    assert [person.split("\n\n<context>\n")[0] for person in persons] == [
        "Find torrents for Sintel 1080p",
        "Download the 2nd one",
        "How is it going",
    ]
    answers = [
        m["content"]
        for m in requests[4]["messages"]
        if m["role"] == "assistant" and m["content"] and '"action"' not in m["content"]
    ]
    assert answers == ["I found 3 releases of Sintel.", "Downloading the second one."]


def test_the_history_drops_its_oldest_turns_in_one_block() -> None:
    """Within its budget the history only grows; past it, the oldest turns go at once, down to half."""

    def turns(count: int) -> list[list[dict[str, Any]]]:
        return [
            [
                {"role": "user", "content": f"Question {turn} about Sintel?"},
                {"role": "assistant", "content": f"Answer {turn}: Sintel is a 2010 short film by Blender."},
            ]
            for turn in range(count)
        ]

    # At most 10 messages (5 turns): past them, the oldest go down to 3 turns, then the history grows again.
    history: list[list[dict[str, Any]]] = []
    starts, drops = [], 0
    for turn in turns(15):
        history, dropped = clip_turns(history, 10, (10_000, 0), 10_000)
        drops += dropped
        starts.append(history[0][0]["content"] if history else None)
        assert len(history) <= 5
        history.append(turn)
    assert drops == 3
    assert starts[5:] == [
        "Question 0 about Sintel?",
        *["Question 3 about Sintel?"] * 3,
        *["Question 6 about Sintel?"] * 3,
        *["Question 9 about Sintel?"] * 3,
    ]
    # Past the budget of words, what is kept fits `drop_to`.
    cost = sum(estimate_tokens(message["content"]) for message in turns(1)[0])
    kept, dropped = clip_turns(turns(6), 100, (5 * cost, 0), 2 * cost)
    assert dropped
    assert [turn[0]["content"] for turn in kept] == ["Question 4 about Sintel?", "Question 5 about Sintel?"]
    assert clip_turns(turns(5), 100, (5 * cost, 0), 2 * cost) == (turns(5), False)
    # A turn bigger than `drop_to` goes too; no history option: no history.
    assert clip_turns(turns(6), 100, (5 * cost, 0), cost - 1) == ([], True)
    assert clip_turns(turns(3), 0, (1_000, 0), 1_000) == ([], True)
    assert clip_turns([], 0, (1_000, 0), 1_000) == ([], False)
    # Tool calls and results between the words have a budget of their own; past it, half of it is kept.
    call = {
        "role": "assistant",
        "content": None,
        "tool_calls": [{"function": {"name": "n", "arguments": "{}"}}],
    }
    result = {"role": "tool", "tool_call_id": "1", "content": "x" * 400}
    tool_turns = [[turn[0], call, result, turn[1]] for turn in turns(4)]
    tools = sum(message_tokens(message) for message in (call, result))
    assert clip_turns(tool_turns, 100, (10_000, 4 * tools), 10_000) == (tool_turns, False)
    kept, dropped = clip_turns(tool_turns, 100, (10_000, 3 * tools), 10_000)
    assert dropped
    assert kept == tool_turns[-1:]


@pytest.mark.parametrize(
    "base",
    [
        # HA 2025.4: the clock comes first; newer versions put it after the instructions.
        "Current time is 09:12:43. Today's date is 2026-12-03.\nYou are Agent Media.\nBe brief.",
        "You are Agent Media.\nCurrent time is 09:12:43. Today's date is 2026-12-03.\n\nBe brief.",
    ],
)
def test_the_system_prompt_goes_without_home_assistants_clock(base: str) -> None:
    prompt = build_system_prompt(base, None)
    assert "Current time" not in prompt
    assert "09:12" not in prompt
    assert prompt.startswith("You are Agent Media.\n")
    assert prompt.endswith("Be brief.")
