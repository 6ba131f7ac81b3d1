"""Reading the model's replies: native tool-call deltas, the JSON-action form, repaired names and args."""

from __future__ import annotations

from openai.types.chat.chat_completion_chunk import (
    ChoiceDelta,
    ChoiceDeltaToolCall,
    ChoiceDeltaToolCallFunction,
)
import pytest

from custom_components.agent_media.agent.agent import ReplyParser, parse_json_action
from custom_components.agent_media.agent.tool_base import INVALID_JSON_ARGUMENTS, normalize_tool_name


def _call(
    index: int, *, call_id: str | None = None, name: str | None = None, args: str | None = None
) -> ChoiceDelta:
    return ChoiceDelta(
        tool_calls=[
            ChoiceDeltaToolCall(
                index=index, id=call_id, type="function" if call_id else None,
                function=ChoiceDeltaToolCallFunction(name=name, arguments=args),
            )
        ]
    )  # fmt: skip


def test_native_calls_are_assembled_in_order() -> None:
    parser = ReplyParser()
    for delta in (
        _call(0, call_id="call_a", name="find_torrents", args=""),
        _call(1, call_id="call_b", name="get_torrent_by_index", args='{"ind'),
        _call(0, args='{"media_title": '),
        _call(0, args='"Sintel 2010"}'),
        _call(1, args='ex": 2}'),
    ):
        assert parser.feed(delta) == ""
    text, calls = parser.finish()
    assert text == ""
    assert [(call.id, call.tool_name, call.tool_args) for call in calls] == [
        ("call_a", "find_torrents", {"media_title": "Sintel 2010"}),
        ("call_b", "get_torrent_by_index", {"index": 2}),
    ]


def test_broken_and_double_encoded_arguments() -> None:
    parser = ReplyParser()
    parser.feed(_call(0, call_id="c1", name="find_torrents", args='{"media_title": "Sintel"'))
    parser.feed(_call(1, call_id="c2", name="find_torrents", args='"{\\"media_title\\": \\"Sintel\\"}"'))
    parser.feed(_call(2, call_id="c3", name="list_folder", args=""))
    _text, calls = parser.finish()
    assert calls[0].tool_args == {INVALID_JSON_ARGUMENTS: '{"media_title": "Sintel"'}
    assert calls[1].tool_args == {"media_title": "Sintel"}
    assert calls[2].tool_args == {}


def test_text_streams_until_something_may_be_json() -> None:
    parser = ReplyParser()
    assert parser.feed(ChoiceDelta(content="Sintel is ")) == "Sintel is "
    assert parser.feed(ChoiceDelta(content="a film {not")) == "a film "
    assert parser.feed(ChoiceDelta(content=" json}.")) == ""
    text, calls = parser.finish()
    assert (text, calls) == ("{not json}.", [])


def test_json_action_becomes_a_tool_call() -> None:
    parser = ReplyParser()
    parser.feed(ChoiceDelta(content='{"action": {"name": "add_torrent_by_index", '))
    parser.feed(ChoiceDelta(content='"args": {"index": 2}}}'))
    text, calls = parser.finish()
    assert text == ""
    assert [(call.tool_name, call.tool_args) for call in calls] == [("add_torrent_by_index", {"index": 2})]
    assert calls[0].id  # an id is made up, so the result can be matched


def test_reasoning_is_collected() -> None:
    parser = ReplyParser()
    parser.feed(ChoiceDelta.model_validate({"reasoning_content": "The user wants "}))
    parser.feed(ChoiceDelta.model_validate({"reasoning_content": "result 2."}))
    assert parser.reasoning == "The user wants result 2."


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"action": {"name": "find_torrents", "args": {"media_title": "Sintel"}}}',
         ("find_torrents", {"media_title": "Sintel"}, "")),
        ('```json\n{"action": {"name": "list_folder", "args": {"folder_name": "movie"}}}\n```',
         ("list_folder", {"folder_name": "movie"}, "")),
        (('Let me look. {"action": {"name": "find_media_imdb_id", '
         '"arguments": "{\\"media_title\\": \\"Sintel\\"}"}}'),
         ("find_media_imdb_id", {"media_title": "Sintel"}, "Let me look.")),
        ('{"note": 1} {"action": {"name": "get_torrent_by_index"}}',
         ("get_torrent_by_index", {}, '{"note": 1}')),
        ('{"action": {"name": "find_torrents", "args": [1, 2]}}', ("find_torrents", [1, 2], "")),
        ('{"action": "find_torrents"}', None),
        ("{broken", None),
        ("Plain answer.", None),
    ],
)  # fmt: skip
def test_parse_json_action(text: str, expected: tuple[str, object, str] | None) -> None:
    assert parse_json_action(text) == expected


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("find_torrents", "find_torrents"),
        (" functions.find_torrents", "find_torrents"),
        (": find_torrents", "find_torrents"),
        ('"list_folder"', "list_folder"),
        ("agent_media__add_torrent_by_index", "add_torrent_by_index"),
    ],
)
def test_normalize_tool_name(raw: str, expected: str) -> None:
    assert normalize_tool_name(raw) == expected
