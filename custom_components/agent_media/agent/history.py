"""The earlier turns of each conversation, as they were sent to the model, dropped in blocks.

A prompt cache (llama.cpp, Ollama, vLLM, DeepSeek) reuses the part of a request that starts like the previous
one. So the earlier turns go again exactly as they were sent — the person's words with that turn's `<context>`
block, the tool calls and their results, the answer — and a new turn only appends to them. When they outgrow
their budget, the oldest turns go in one block, down to half of it, so the start of the history moves rarely;
the turn after that states the whole memory view again (the context blocks that stated it went with them).

What is kept here is what this agent sent: a chat log Home Assistant made again (it forgets them after 5 idle
minutes), or a turn that failed, starts again from the chat log's words or the conversation's memory.
"""

from __future__ import annotations

from dataclasses import dataclass, field
import json
from typing import TYPE_CHECKING, Any, Final

from homeassistant.components.conversation import AssistantContent, ToolResultContent, UserContent

from .. import compat
from ..untrusted import MAX_MESSAGE, data_block
from .prompt import context_block, dumps, estimate_tokens, tool_result_message, with_context
from .tool_base import INVALID_JSON_ARGUMENTS

if TYPE_CHECKING:
    from collections.abc import Callable
    from datetime import datetime

MAX_CONVERSATIONS: Final = 20  # the histories kept, the least recently used dropped first
# The person's message as the model and the settings check get it: a longer one is clipped, with a note.
MAX_PERSON_MESSAGE: Final = MAX_MESSAGE
# A request at the start of a turn, in estimated tokens: the earlier turns get what the system prompt, the
# tools and the turn's first message leave (besides the `max_history_messages` option).
REQUEST_TOKENS: Final = 1_400
HISTORY_FLOOR: Final = 150  # estimated tokens the earlier turns may take however big the rest is
# On top: the earlier turns' tool calls and results (what "the 2nd one" or "how big is it" refer to), kept as
# they were sent rather than dropped with the turn and said again in the context.
TOOL_HISTORY_TOKENS: Final = 800


Message = dict[str, Any]


def person_message(text: str) -> str:
    """Return the person's message as the model gets it: whole, or clipped past `MAX_PERSON_MESSAGE`."""
    if len(text) <= MAX_PERSON_MESSAGE:
        return text
    return (
        f"{text[:MAX_PERSON_MESSAGE]}… [the message was {len(text):,} characters long; only its first "
        f"{MAX_PERSON_MESSAGE:,} are shown]"
    )


@dataclass(slots=True, kw_only=True)
class Turn:
    """What every request of a model turn sends the same: the system message, the history, the context."""

    start: int  # the person's message in the chat log
    native: bool
    system: dict[str, Any]
    history: list[dict[str, Any]]
    context: str
    sections: dict[str, str]  # the view's parts that the history and this context state
    reasoning: dict[int, str] = field(default_factory=dict)  # id(AssistantContent) → reasoning_content


@dataclass(slots=True)
class SentHistory:
    """One conversation's earlier turns as sent, and what their context blocks state."""

    turns: list[list[Message]] = field(default_factory=list)
    native: bool = True  # sent with native tool calls (the other form cannot go to the same server)
    covered: int = 0  # the chat log's length that these turns stand for
    stated: dict[str, str] = field(default_factory=dict)  # the view's parts the kept context blocks say

    def messages(self) -> list[Message]:
        """Return the turns' messages, in order."""
        return [message for turn in self.turns for message in turn]


def group_turns(messages: list[Message]) -> list[list[Message]]:
    """Split messages into turns, each from a user message on (anything before the first one is left out)."""
    turns: list[list[Message]] = []
    for message in messages:
        if message["role"] == "user":
            turns.append([message])
        elif turns:
            turns[-1].append(message)
    return turns


def message_tokens(message: Message) -> int:
    """Return a message's estimated tokens: its text, its tool calls and any reasoning sent back."""
    cost = estimate_tokens(str(message.get("content") or ""))
    for call in message.get("tool_calls") or ():
        cost += estimate_tokens(call["function"]["name"] + call["function"]["arguments"])
    if reasoning := message.get("reasoning_content"):
        cost += estimate_tokens(str(reasoning))
    return cost


def turn_tokens(turn: list[Message]) -> tuple[int, int]:
    """Return a turn's estimated tokens: its words (the person's message, the answer), its tool traffic."""
    costs = [message_tokens(message) for message in turn]
    words = costs[0] + (costs[-1] if len(costs) > 1 else 0)
    return words, sum(costs) - words


def clip_turns(
    turns: list[list[Message]], max_messages: int, budget: tuple[int, int], drop_to: int
) -> tuple[list[list[Message]], bool]:
    """Return the turns to send and whether the oldest were dropped.

    All of them while they fit: `max_messages` (a turn counts two, the person's message and the answer) and
    `budget`, estimated tokens for the words (the person's messages with their context blocks, the answers)
    and for the tool calls and results between them. Past any, the oldest go in one block: what is kept is at
    most half of `max_messages`, `drop_to` tokens of words and half of the tool budget, so the next turns
    append again.
    """
    max_turns = max_messages // 2
    max_words, max_tools = budget
    costs = [turn_tokens(turn) for turn in turns]
    words, tools = sum(cost[0] for cost in costs), sum(cost[1] for cost in costs)
    if len(turns) <= max_turns and words <= max_words and tools <= max_tools:
        return turns, False
    start, words, tools, keep = len(turns), 0, 0, (max_turns + 1) // 2
    while start > 0 and len(turns) - start < keep:
        turn_words, turn_tools = costs[start - 1]
        if words + turn_words > drop_to or tools + turn_tools > max_tools // 2:
            break
        start, words, tools = start - 1, words + turn_words, tools + turn_tools
    return turns[start:], True


class SentHistories:
    """The sent history of the most recent conversations."""

    def __init__(self) -> None:
        """Start with none."""
        self._histories: dict[str, SentHistory] = {}

    def usable(self, conversation_id: str, turn_start: int, *, native: bool | None) -> SentHistory | None:
        """Return the conversation's sent history if it stands for the chat log up to `turn_start`.

        `native`: the form this turn sends (None: either, for an answer without the model).
        """
        sent = self._histories.get(conversation_id)
        if sent is None or sent.covered != turn_start or (native is not None and sent.native != native):
            return None
        self._histories[conversation_id] = self._histories.pop(conversation_id)  # the most recent last
        return sent

    def keep(self, conversation_id: str, sent: SentHistory) -> None:
        """Keep `sent` as the conversation's history."""
        self._histories.pop(conversation_id, None)
        self._histories[conversation_id] = sent
        while len(self._histories) > MAX_CONVERSATIONS:
            del self._histories[next(iter(self._histories))]

    def start_turn(
        self,
        conversation_id: str,
        turn_start: int,
        *,
        system: Message,
        tools: list[dict[str, Any]] | None,
        person: str,
        sections: dict[str, str],
        now: datetime,
        max_messages: int,
        earlier: Callable[[], list[Message]],
    ) -> Turn:
        """Lay out what every request of a turn starts with: system prompt, earlier turns, the context.

        For a prompt cache: the system prompt and the tools stay the same all conversation, the earlier turns
        go as they were sent, and what is new comes last: this turn's words and its context block, which says
        only what the history's context blocks do not. `earlier`: the conversation's words when no turns
        were sent from here (a chat log Home Assistant made again, a failed turn).
        """
        native = tools is not None
        sent = self.usable(conversation_id, turn_start, native=native) or SentHistory(
            turns=group_turns(earlier()), native=native, covered=turn_start
        )
        words = person_message(person)
        # The budget left by what starts this turn: the same for every request of the turn. The tools as
        # the chat templates render them (JSON with spaces).
        fixed = estimate_tokens(system["content"]) + (estimate_tokens(json.dumps(tools)) if tools else 0)
        context = context_block(sections, now, sent.stated)
        budget = max(REQUEST_TOKENS - fixed - estimate_tokens(with_context(words, context)), HISTORY_FLOOR)
        whole = context_block(sections, now, {})
        # After a drop, the context says everything again: what is kept leaves room for it.
        drop_to = min(budget // 2, REQUEST_TOKENS - fixed - estimate_tokens(with_context(words, whole)))
        turns, dropped = clip_turns(sent.turns, max_messages, (budget, TOOL_HISTORY_TOKENS), drop_to)
        if dropped:
            sent = SentHistory(turns=turns, native=native, covered=turn_start)
            context = whole
        self.keep(conversation_id, sent)
        return Turn(
            start=turn_start,
            native=native,
            system=system,
            history=sent.messages(),
            context=context,
            sections=sections,
        )

    def remember(self, conversation_id: str, contents: list[Any], answer: str, turn: Turn) -> None:
        """Add a model turn as it was sent, its answer as the model gets it later, to the history.

        `contents`: the chat log's, the whole of it (the turn from `turn.start`).
        """
        if (sent := self.usable(conversation_id, turn.start, native=turn.native)) is None:
            return
        messages = turn_messages(contents[turn.start :], turn.reasoning, turn.context, native=turn.native)
        if messages and messages[-1]["role"] == "assistant" and "tool_calls" not in messages[-1]:
            messages[-1] = {"role": "assistant", "content": answer}
        sent.turns.append(messages)
        sent.covered = len(contents)
        sent.stated = turn.sections

    def remember_words(self, conversation_id: str, start: int, person: str, answer: str) -> None:
        """Add a turn answered without the model: the person's words and the answer, no context, no tools."""
        if (sent := self.usable(conversation_id, start, native=None)) is not None:
            sent.turns.append(
                [
                    {"role": "user", "content": person_message(person)},
                    {"role": "assistant", "content": answer},
                ]
            )
            sent.covered = start + 2

    def forget(self, conversation_id: str) -> None:
        """Forget the conversation's history: its next turn starts again from the chat log."""
        self._histories.pop(conversation_id, None)


def request_messages(contents: list[Any], turn: Turn) -> list[Message]:
    """Return a request of the turn: its start, then its messages so far (`contents`: the chat log's)."""
    messages = turn_messages(contents[turn.start :], turn.reasoning, turn.context, native=turn.native)
    return [turn.system, *turn.history, *messages]


def turn_messages(
    contents: list[Any], reasoning: dict[int, str], context: str, *, native: bool
) -> list[dict[str, Any]]:
    """Return this turn's messages: native tool_calls and tool messages, or JSON actions as text.

    The person's message of this turn carries the turn's context block after their words.
    """
    messages: list[dict[str, Any]] = []
    call_ids: set[str] = set()
    for content in contents:
        if isinstance(content, UserContent):
            messages.append(
                {"role": "user", "content": with_context(person_message(content.content), context)}
            )
        elif isinstance(content, AssistantContent):
            messages.append(_assistant_message(content, reasoning.get(id(content)), native=native))
            call_ids.update(call.id for call in content.tool_calls or ())
        elif isinstance(content, ToolResultContent) and content.tool_call_id in call_ids:
            payload = compat.tool_result_data(content)
            if native:
                messages.append(
                    {"role": "tool", "tool_call_id": content.tool_call_id, "content": data_block(payload)}
                )
            else:
                messages.append(tool_result_message(content.tool_name, payload))
    return messages


def _raw_arguments(args: Any) -> str:
    if isinstance(args, dict) and INVALID_JSON_ARGUMENTS in args:
        return str(args[INVALID_JSON_ARGUMENTS])
    return dumps(args)


def _assistant_message(content: AssistantContent, reasoning: str | None, *, native: bool) -> dict[str, Any]:
    if not content.tool_calls:
        return {"role": "assistant", "content": content.content or ""}
    if not native:
        actions = "\n".join(
            dumps({"action": {"name": call.tool_name, "args": call.tool_args}}) for call in content.tool_calls
        )
        return {
            "role": "assistant",
            "content": f"{content.content}\n{actions}" if content.content else actions,
        }
    message: dict[str, Any] = {
        "role": "assistant",
        "content": content.content,
        "tool_calls": [
            {
                "id": call.id,
                "type": "function",
                "function": {"name": call.tool_name, "arguments": _raw_arguments(call.tool_args)},
            }
            for call in content.tool_calls
        ],
    }
    if reasoning:
        # DeepSeek's thinking mode refuses a tool-calling turn whose reasoning is not sent back.
        message["reasoning_content"] = reasoning
    return message
