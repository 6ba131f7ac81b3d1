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
from typing import Any, Final

from .prompt import estimate_tokens

MAX_CONVERSATIONS: Final = 20  # the histories kept, the least recently used dropped first

Message = dict[str, Any]


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

    def forget(self, conversation_id: str) -> None:
        """Forget the conversation's history: its next turn starts again from the chat log."""
        self._histories.pop(conversation_id, None)
