"""Who owns a conversation, and which list "the 2nd one" means.

An administrator and a read-only user share one entry with the real rig. Whatever the read-only user does,
the administrator's conversation stays theirs while Home Assistant still holds its chat log, and nothing of it
reaches the model in another person's turn, through Assist or the OpenAI-compatible endpoint. A number picks
from the conversation's own list when it has one, else from the person's latest.
"""

from __future__ import annotations

from datetime import timedelta
from http import HTTPStatus
from typing import TYPE_CHECKING, Any

import pytest

from custom_components.agent_media.memory import (
    MAX_CONVERSATIONS,
    MAX_EARLIER_LISTS,
    OWNER_KEPT_FOR,
    AgentMediaMemory,
)
from homeassistant.util import dt as dt_util

from .helpers import torrents_in_qbittorrent
from .rig.knaben_server import default_hits
from .test_conversation import queue_call, tool_results, turn_context
from .test_household import ask
from .test_http import COMPLETIONS, sse_events, streamed_text, user

if TYPE_CHECKING:
    from freezegun.api import FrozenDateTimeFactory
    from pytest_homeassistant_custom_component.common import MockConfigEntry, MockUser
    from pytest_homeassistant_custom_component.typing import ClientSessionGenerator

    from homeassistant.core import HomeAssistant

    from .rig.knaben_server import KnabenServer
    from .rig.llm_server import ScriptedLLMServer
    from .rig.qbittorrent import QBittorrentInstance

pytestmark = pytest.mark.usefixtures("core_setup")  # the conversation dependency needs core

SECRET = "Nosferatu"  # the administrator's words, which must never reach the model in another's turn


def mentions(request: dict[str, Any], text: str) -> bool:
    """Return whether any message of a request to the model holds `text` (system prompt included)."""
    return any(text in str(message.get("content")) for message in request["messages"])


async def test_a_crowd_of_conversations_never_hands_over_an_administrators(
    hass: HomeAssistant,
    setup_integration: MockConfigEntry,
    llm_server: ScriptedLLMServer,
    hass_client: ClientSessionGenerator,
    hass_admin_user: MockUser,
    hass_read_only_user: MockUser,
    hass_read_only_access_token: str,
) -> None:
    entry = setup_integration
    llm_server.queue_text("Noted.")
    admins = await ask(hass, entry, f"My secret plan is {SECRET}", user_id=hass_admin_user.id)

    # The read-only user opens more conversations than a requester may keep.
    for number in range(MAX_CONVERSATIONS + 2):
        llm_server.queue_text(f"Hello {number}.")
        await ask(hass, entry, f"Tell me something, number {number}", user_id=hass_read_only_user.id)

    # Then sends the administrator's conversation id through Assist...
    llm_server.queue_text("Hello.")
    other = await ask(
        hass,
        entry,
        "What was my secret plan?",
        user_id=hass_read_only_user.id,
        conversation_id=admins.conversation_id,
    )
    assert other.conversation_id != admins.conversation_id
    assert not mentions(llm_server.requests[-1], SECRET)

    # ...and through the endpoint, whole and streamed.
    reader = await hass_client(hass_read_only_access_token)
    llm_server.queue_text("Hello again.")
    response = await reader.post(
        COMPLETIONS,
        json={"conversation_id": admins.conversation_id, "messages": [user("Remind me of my plan")]},
    )
    assert response.status == HTTPStatus.OK
    assert (await response.json())["conversation_id"] != admins.conversation_id
    assert not mentions(llm_server.requests[-1], SECRET)
    llm_server.queue_text("Hello once more.")
    response = await reader.post(
        COMPLETIONS,
        json={
            "conversation_id": admins.conversation_id,
            "messages": [user("Remind me of my plan")],
            "stream": True,
        },
    )
    text, chunks = streamed_text(await sse_events(response))
    assert text == "Hello once more."
    assert chunks[-1]["conversation_id"] != admins.conversation_id
    assert not mentions(llm_server.requests[-1], SECRET)

    # The administrator goes on with theirs.
    llm_server.queue_text(f"Your plan is {SECRET}.")
    again = await ask(
        hass, entry, "And my plan?", user_id=hass_admin_user.id, conversation_id=admins.conversation_id
    )
    assert again.conversation_id == admins.conversation_id
    assert mentions(llm_server.requests[-1], f"My secret plan is {SECRET}")


async def test_a_chat_log_agent_media_knows_no_owner_of_is_never_read(
    hass: HomeAssistant,
    setup_integration: MockConfigEntry,
    llm_server: ScriptedLLMServer,
    hass_client: ClientSessionGenerator,
    hass_admin_user: MockUser,
    hass_read_only_user: MockUser,
    hass_read_only_access_token: str,
) -> None:
    entry = setup_integration
    llm_server.queue_text("Noted.")
    admins = await ask(hass, entry, f"My secret plan is {SECRET}", user_id=hass_admin_user.id)
    assert admins.conversation_id is not None
    # Agent Media forgets the conversation (and its owner); Home Assistant still holds its chat log.
    entry.runtime_data.memory.clear("conversation")

    llm_server.queue_text("Hello.")
    other = await ask(
        hass,
        entry,
        "What was my plan?",
        user_id=hass_read_only_user.id,
        conversation_id=admins.conversation_id,
    )
    assert other.conversation_id != admins.conversation_id
    assert not mentions(llm_server.requests[-1], SECRET)
    reader = await hass_client(hass_read_only_access_token)
    llm_server.queue_text("Hello again.")
    response = await reader.post(
        COMPLETIONS, json={"conversation_id": admins.conversation_id, "messages": [user("My plan?")]}
    )
    assert response.status == HTTPStatus.OK
    assert not mentions(llm_server.requests[-1], SECRET)


async def test_an_id_nobody_uses_is_kept_and_becomes_the_askers(
    hass: HomeAssistant,
    setup_integration: MockConfigEntry,
    llm_server: ScriptedLLMServer,
    hass_read_only_user: MockUser,
) -> None:
    entry = setup_integration
    # An automation names its own conversation: the name is kept, so its next call goes on with it.
    llm_server.queue_text("Noted.")
    first = await ask(hass, entry, f"The kitchen plan is {SECRET}", conversation_id="kitchen-chat")
    assert first.conversation_id == "kitchen-chat"
    llm_server.queue_text("Sure.")
    second = await ask(hass, entry, "And then?", conversation_id="kitchen-chat")
    assert second.conversation_id == "kitchen-chat"
    assert mentions(llm_server.requests[-1], f"The kitchen plan is {SECRET}")
    # Someone else using that name gets a conversation of their own, the same one on every retry.
    ids = []
    for _retry in range(2):
        llm_server.queue_text("Hello.")
        result = await ask(
            hass, entry, "What plan?", user_id=hass_read_only_user.id, conversation_id="kitchen-chat"
        )
        assert not mentions(llm_server.requests[-1], SECRET)
        ids.append(result.conversation_id)
    assert ids[0] == ids[1] != "kitchen-chat"


async def test_owners_outlive_the_records_until_no_chat_log_can_remain(
    hass: HomeAssistant, hass_storage: dict[str, Any], freezer: FrozenDateTimeFactory
) -> None:
    memory = AgentMediaMemory(hass, "owners")
    await memory.async_load()
    admin, reader = "user:admin", "user:reader"
    memory.conversations.claim("admins", admin)
    memory.conversations.add_turn("admins", admin, "hello", "hi")
    first_used = dt_util.utcnow()
    for number in range(MAX_CONVERSATIONS + 5):
        memory.conversations.claim(f"reader-{number}", reader)
        memory.conversations.add_turn(f"reader-{number}", reader, "q", "a")
        freezer.tick(timedelta(seconds=1))
    # Records are bounded per requester: the reader's crowd pushes out only the reader's own.
    assert memory.conversations.messages("admins")
    assert not memory.conversations.messages("reader-0")
    assert memory.conversations.messages(f"reader-{MAX_CONVERSATIONS + 4}")
    # An owner whose record went stays known while Home Assistant may hold the chat log...
    assert memory.conversations.owner("reader-0") == reader
    freezer.move_to(first_used + OWNER_KEPT_FOR - timedelta(seconds=1))
    assert memory.conversations.owner("reader-0") == reader
    # ...and no longer than any chat log lives; a recorded one stays known by its record.
    freezer.move_to(first_used + OWNER_KEPT_FOR + timedelta(seconds=1))
    assert memory.conversations.owner("reader-0") is None
    assert memory.conversations.owner("admins") == admin


# --- "the 2nd one" ----------------------------------------------------------------------------------------


async def test_the_2nd_one_means_the_conversations_own_list_by_local_sentences(
    hass: HomeAssistant,
    local_entry: MockConfigEntry,
    llm_server: ScriptedLLMServer,
    knaben_server: KnabenServer,
    qbittorrent: QBittorrentInstance,
    hass_admin_user: MockUser,
) -> None:
    memory = local_entry.runtime_data.memory
    key = f"user:{hass_admin_user.id}"
    knaben_server.set_hits(
        [hit for hit in default_hits() if not ("Sintel" in hit["title"] and "720p" in hit["title"])]
    )
    searched = await ask(hass, local_entry, "Find torrents for Nosferatu", user_id=hass_admin_user.id)
    nosferatu = memory.working.search(key, searched.conversation_id)
    assert nosferatu is not None
    # In another conversation the same person is asked a question (nothing at 720p).
    asked = await ask(hass, local_entry, "Download Sintel in 720p", user_id=hass_admin_user.id)
    question = memory.working.question(key, asked.conversation_id)
    assert question is not None
    assert "Sintel" in question["options"][1]["title"]

    # Back in the first conversation, the number means its own search.
    await ask(
        hass,
        local_entry,
        "Download the 2nd one",
        user_id=hass_admin_user.id,
        conversation_id=searched.conversation_id,
    )
    in_qbittorrent = await torrents_in_qbittorrent(hass, qbittorrent)
    assert nosferatu["results"][1]["info_hash"] in in_qbittorrent
    assert question["options"][1]["info_hash"] not in in_qbittorrent

    # In a new conversation, with no list of its own, it means the person's latest: the question.
    await ask(hass, local_entry, "Download the 1st one", user_id=hass_admin_user.id)
    assert question["options"][0]["info_hash"] in await torrents_in_qbittorrent(hass, qbittorrent)
    assert llm_server.requests == []


async def test_the_2nd_one_means_the_conversations_own_list_through_the_model(
    hass: HomeAssistant,
    setup_integration: MockConfigEntry,
    llm_server: ScriptedLLMServer,
    qbittorrent: QBittorrentInstance,
    hass_admin_user: MockUser,
) -> None:
    entry = setup_integration
    memory = entry.runtime_data.memory
    key = f"user:{hass_admin_user.id}"
    queue_call(llm_server, "native", "find_torrents", {"media_title": "Sintel 2010"})
    llm_server.queue_text("Here are the releases of Sintel.")
    searched = await ask(hass, entry, "Look for releases of Sintel", user_id=hass_admin_user.id)
    sintel = memory.working.search(key, searched.conversation_id)
    assert sintel is not None
    queue_call(llm_server, "native", "download_media", {"media_title": "Nosferatu", "quality": "480p"})
    llm_server.queue_text("There is no 480p release. Would you like 720p, 1080p or 4K?")
    asked = await ask(hass, entry, "Get me Nosferatu in 480p", user_id=hass_admin_user.id)
    question = memory.working.question(key, asked.conversation_id)
    assert question is not None

    # Back in the first conversation: the model sees that conversation's search and picks from it.
    queue_call(llm_server, "native", "add_torrent_by_index", {"index": 2})
    llm_server.queue_text("Downloading it.")
    await ask(
        hass,
        entry,
        "I'll take the second of those",
        user_id=hass_admin_user.id,
        conversation_id=searched.conversation_id,
    )
    prompt = turn_context(llm_server.requests[-2])
    assert '"query":"Sintel 2010"' in prompt
    assert "Waiting for the user's answer" not in prompt
    added = tool_results(llm_server.requests[-1])[0]
    assert added["status"] == "ok"
    assert added["hash"] == sintel["results"][1]["info_hash"]

    # A new conversation has no list of its own: the person's latest, the question, is meant.
    queue_call(llm_server, "native", "add_torrent_by_index", {"index": 1})
    llm_server.queue_text("Downloading it.")
    await ask(hass, entry, "The first of your options, please", user_id=hass_admin_user.id)
    assert "Waiting for the user's answer" in turn_context(llm_server.requests[-2])
    added = tool_results(llm_server.requests[-1])[0]
    assert added["status"] == "ok"
    assert added["hash"] == question["options"][0]["info_hash"]
    assert question["options"][0]["info_hash"] in await torrents_in_qbittorrent(hass, qbittorrent)


async def test_each_conversation_keeps_its_list_within_bounds(
    hass: HomeAssistant, hass_storage: dict[str, Any]
) -> None:
    memory = AgentMediaMemory(hass, "lists")
    await memory.async_load()
    person, other = "user:person", "user:other"
    conversations = [f"conversation-{number}" for number in range(MAX_EARLIER_LISTS + 3)]
    for number, conversation_id in enumerate(conversations):
        results = [{"title": f"Release.{number}.{n}"} for n in range(3)]
        memory.working.store_search(person, f"query {number}", results, None, conversation_id)
    memory.working.store_search(other, "theirs", [{"title": "Theirs"}], None, conversations[-1])

    def query(conversation_id: str | None) -> str | None:
        search = memory.working.search(person, conversation_id)
        return search["query"] if search else None

    # The latest list and MAX_EARLIER_LISTS others are kept; older, new ones and actions get the latest.
    kept = conversations[-(MAX_EARLIER_LISTS + 1) :]
    assert [query(conversation_id) for conversation_id in kept] == [
        f"query {conversations.index(conversation_id)}" for conversation_id in kept
    ]
    latest = f"query {len(conversations) - 1}"
    assert query(conversations[0]) == latest
    assert query("a-new-conversation") == latest
    assert query(None) == latest
    # A question asked in one conversation is answered there, and does not touch another's list.
    memory.working.set_question(person, "Which one?", [{"title": "Option.1"}], None, conversations[-2])
    assert memory.working.question(person, conversations[-3]) is None
    assert query(conversations[-3]) == f"query {len(conversations) - 3}"
    assert memory.working.question(person, None) is not None  # now the latest
    memory.working.clear_question(person, conversations[-2])
    assert memory.working.question(person, conversations[-2]) is None
    assert memory.working.search(other, conversations[-1]) is not None
    assert len(memory.as_dict()["working"][person]["earlier"]) == MAX_EARLIER_LISTS
