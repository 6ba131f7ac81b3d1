"""The tool loop: one user turn, at most `max_tool_iterations` calls to the model, always a spoken answer.

The model's stream goes through Home Assistant's ChatLog (`async_add_delta_content_stream`), which records the
turn and runs the tool calls through our API instance. Tool calls come natively or, for models without tool
support, as the original JSON form `{"action": {"name": ..., "args": {...}}}` in the reply text; both become
the same tool calls. Every failure ends in a short explanation in the user's language, never an exception.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
import json
from typing import TYPE_CHECKING, Any, Final

from homeassistant.components.conversation import (
    AssistantContent,
    AssistantContentDeltaDict,
    SystemContent,
    ToolResultContent,
    UserContent,
)
from homeassistant.helpers import llm
from homeassistant.util import dt as dt_util

from .. import compat
from ..clients.errors import (
    AgentMediaClientError,
    InvalidAuthError,
    InvalidResponseError,
    RateLimitedError,
    RequestRejectedError,
    ResponseTooLargeError,
)
from ..const import (
    CONF_MAX_HISTORY_MESSAGES,
    CONF_MAX_TOOL_ITERATIONS,
    CONF_TEMPERATURE,
    CONF_TURN_TIMEOUT,
    DEFAULT_MAX_HISTORY_MESSAGES,
    DEFAULT_MAX_TOOL_ITERATIONS,
    DEFAULT_TEMPERATURE,
    DEFAULT_TURN_TIMEOUT,
    DOMAIN,
    LOGGER,
)
from ..errors import async_render
from ..requester import async_resolve_requester
from ..satellite_flow import satellite_people
from ..sentences import async_load_sentences
from ..untrusted import clip, delimit_known
from .history import MAX_PERSON_MESSAGE, SentHistories, Turn, person_message, request_messages
from .local import tool_answer
from .prompt import (
    build_memory_view,
    build_system_prompt,
    dumps,
    json_action_prompt,
    outside_texts,
    turn_sections,
)
from .tool_base import INVALID_JSON_ARGUMENTS, ToolContext
from .tools import AgentMediaAPI, ToolRegistry

if TYPE_CHECKING:
    from collections.abc import AsyncIterator
    from datetime import datetime

    from openai.types.chat import ChatCompletionChunk
    from openai.types.chat.chat_completion_chunk import ChoiceDelta

    from homeassistant.components.conversation import ChatLog, ConversationInput
    from homeassistant.core import HomeAssistant

    from ..clients.llm import LLMClient
    from ..data import AgentMediaConfigEntry
    from ..memory import AgentMediaMemory
    from ..requester import Permission, Requester
    from .local import LocalCommands
    from .settings import AgentSettings

# Translation keys (strings.json → exceptions) of the spoken explanations.
LLM_INVALID_AUTH: Final = "agent_llm_invalid_auth"
LLM_RATE_LIMITED: Final = "agent_llm_rate_limited"
LLM_CANNOT_CONNECT: Final = "agent_llm_cannot_connect"
LLM_REJECTED: Final = "agent_llm_rejected"
LLM_BAD_OUTPUT: Final = "agent_llm_bad_output"
LLM_TOO_LONG: Final = "agent_llm_too_long"
TOO_MANY_STEPS: Final = "agent_too_many_steps"
EMPTY_ANSWER: Final = "agent_empty_answer"
UNEXPECTED_ERROR: Final = "agent_unexpected_error"
TURN_TIMEOUT: Final = "agent_turn_timeout"
TURN_TIMEOUT_IN_TOOL: Final = "agent_turn_timeout_in_tool"

# How servers say that the model cannot take tools (Ollama: "... does not support tools").
_NO_TOOLS_HINTS: Final = ("does not support tools", "tools is not supported", "tool use is not supported")
# A reply that may be a JSON action is held back from the stream until it is complete.
_JSON_START: Final = ("{", "`")
# Earlier answers remembered in the form the model gets them (their outside text delimited), by their text.
MAX_ANSWER_FORMS: Final = 200


@dataclass(slots=True)
class TurnResult:
    """What the agent says, and whether it explains a failure instead of answering."""

    speech: str
    failed: bool = False


@dataclass(slots=True)
class _TurnProgress:
    """What the turn is doing, so a deadline can say where it stopped."""

    tool: str | None = None


@dataclass(slots=True)
class _PendingCall:
    id: str = ""
    name: str = ""
    arguments: str = ""


class ReplyParser:
    """Collects one streamed completion: text to speak, tool calls (native or JSON actions), reasoning."""

    def __init__(self) -> None:
        """Start empty."""
        self.reasoning = ""  # DeepSeek thinking mode: sent back with this turn's tool calls
        self._calls: dict[int, _PendingCall] = {}
        self._held: str | None = None  # text that may be a JSON action, held back until the end

    def feed(self, delta: ChoiceDelta) -> str:
        """Take one delta; return the text that can be streamed now."""
        if thinking := getattr(delta, "reasoning_content", None):
            self.reasoning += str(thinking)
        for call in delta.tool_calls or ():
            pending = self._calls.setdefault(call.index, _PendingCall())
            pending.id = call.id or pending.id
            if call.function is not None:
                pending.name += call.function.name or ""
                pending.arguments += call.function.arguments or ""
        text = delta.content or ""
        if self._held is not None:
            self._held += text
            return ""
        if (cut := _json_start(text)) < 0:
            return text
        self._held = text[cut:]
        return text[:cut]

    def finish(self) -> tuple[str, list[llm.ToolInput]]:
        """Return the held-back text (if it was no action) and every tool call, in order."""
        tool_calls = [
            _tool_input(pending.name, _decode_arguments(pending.arguments), pending.id)
            for _index, pending in sorted(self._calls.items())
            if pending.name
        ]
        if self._held is None:
            return "", tool_calls
        if (action := parse_json_action(self._held)) is None:
            return self._held, tool_calls
        name, args, rest = action
        if not isinstance(args, dict):
            args = {INVALID_JSON_ARGUMENTS: dumps(args)[:500]}
        return rest, [*tool_calls, _tool_input(name, args, "")]


def _decode_arguments(raw: str) -> dict[str, Any]:
    """Decode a call's arguments; weak models send nothing, or JSON inside a string."""
    if not raw.strip():
        return {}
    try:
        value: Any = json.loads(raw)
        if isinstance(value, str):
            value = json.loads(value)
    except json.JSONDecodeError:
        value = None
    return value if isinstance(value, dict) else {INVALID_JSON_ARGUMENTS: raw[:500]}


def parse_json_action(text: str) -> tuple[str, Any, str] | None:
    """Find the original JSON action in a reply: return (tool name, args, the remaining text) or None."""
    cleaned = text.replace("```json", "").replace("```JSON", "").replace("```", "")
    decoder = json.JSONDecoder()
    position = cleaned.find("{")
    while position >= 0:
        try:
            value, end = decoder.raw_decode(cleaned, position)
        except json.JSONDecodeError:
            position = cleaned.find("{", position + 1)
            continue
        action = value.get("action") if isinstance(value, dict) else None
        if isinstance(action, dict) and isinstance(action.get("name"), str):
            args = action.get("args", action.get("arguments", {}))
            if isinstance(args, str):
                args = _decode_arguments(args)
            rest = (cleaned[:position] + cleaned[end:]).strip()
            return action["name"], args if args is not None else {}, rest
        position = cleaned.find("{", end)
    return None


def _json_start(text: str) -> int:
    """Return where text that may be a JSON action starts, or -1."""
    found = [index for index in (text.find(mark) for mark in _JSON_START) if index >= 0]
    return min(found, default=-1)


def known_now(memory: AgentMediaMemory, requester: Requester, conversation_id: str | None) -> set[str]:
    """Return what an answer may quote: also the news of the person a satellite stands for."""
    known = outside_texts(memory, requester.key, conversation_id)
    return known if requester.person is None else known | outside_texts(memory, requester.person, None)


def _tools_unsupported(err: RequestRejectedError) -> bool:
    detail = err.detail.lower()
    return any(hint in detail for hint in _NO_TOOLS_HINTS)


class MediaAgent:
    """Runs turns for one config entry."""

    def __init__(
        self,
        hass: HomeAssistant,
        entry: AgentMediaConfigEntry,
        local: LocalCommands | None = None,
        settings: AgentSettings | None = None,
    ) -> None:
        """Prepare the tools; `native_tools` turns off when the server refuses tools.

        `local`: the common commands answered without the model (None: every sentence goes to the model).
        `settings`: the agent's own model and permission profile (None: the entry's model, no limit).
        """
        self.hass = hass
        self.entry = entry
        self.settings = settings
        self.registry = ToolRegistry(entry)
        self.local = local
        self.native_tools = True
        # Earlier answers as the model gets them, the outside text they quote in data blocks (`_answered`).
        self._answer_forms: dict[str, str] = {}
        self._sent = SentHistories()  # each conversation's earlier turns as they were sent

    async def async_respond(
        self, user_input: ConversationInput, chat_log: ChatLog, agent_id: str
    ) -> TurnResult:
        """Answer one user turn; never raises."""
        try:
            return await self._async_respond(user_input, chat_log, agent_id)
        except Exception:  # noqa: BLE001 - the agent answers in words whatever happens
            LOGGER.exception("Agent Media failed to answer %r", clip(user_input.text, 200))
            return await self._async_fail(user_input, chat_log, agent_id, UNEXPECTED_ERROR)

    async def _async_respond(
        self, user_input: ConversationInput, chat_log: ChatLog, agent_id: str
    ) -> TurnResult:
        requester = await async_resolve_requester(
            self.hass, user_input.context, user_input.device_id, satellite_people=satellite_people(self.entry)
        )
        if self.settings is not None:
            requester = requester.through_profile(self.settings.profile)
        deadline = float(self.entry.options.get(CONF_TURN_TIMEOUT, DEFAULT_TURN_TIMEOUT))
        progress = _TurnProgress()
        # What the answer may quote, read before the turn changes it (news told is marked read).
        known = known_now(self.entry.runtime_data.memory, requester, chat_log.conversation_id)
        try:
            async with asyncio.timeout(deadline):
                if (
                    local := await self._async_answer_locally(
                        user_input, chat_log, agent_id, requester, known
                    )
                ) is not None:
                    return local
                if (llm := self.entry.runtime_data.llm) is None:
                    return await self._async_without_model(user_input, chat_log, agent_id, requester)
                return await self._async_run_turn(
                    user_input,
                    chat_log,
                    agent_id,
                    requester=requester,
                    progress=progress,
                    llm=llm,
                    known=known,
                )
        except TimeoutError:
            LOGGER.warning(
                "Agent Media's turn took longer than %s s (%s)", deadline, progress.tool or "model"
            )
            if progress.tool:
                placeholders = {"seconds": f"{deadline:g}", "tool": progress.tool}
                return await self._async_fail(
                    user_input, chat_log, agent_id, TURN_TIMEOUT_IN_TOOL, placeholders
                )
            return await self._async_fail(
                user_input, chat_log, agent_id, TURN_TIMEOUT, {"seconds": f"{deadline:g}"}
            )

    async def _async_run_turn(
        self,
        user_input: ConversationInput,
        chat_log: ChatLog,
        agent_id: str,
        *,
        requester: Requester,
        progress: _TurnProgress,
        llm: LLMClient,
        known: set[str],
    ) -> TurnResult:
        entry = self.entry
        memory = entry.runtime_data.memory
        conversation_id = chat_log.conversation_id
        memory.household.set_language(user_input.language)
        turn_start = len(chat_log.content) - 1  # the user's message of this turn
        words = user_input.text[:MAX_PERSON_MESSAGE]  # what the settings check reads: no more than the model

        llm_context = compat.build_llm_context(
            platform=DOMAIN,
            context=user_input.context,
            language=user_input.language,
            device_id=user_input.device_id,
            user_prompt=words,
            agent_id=agent_id,
        )
        api = AgentMediaAPI(
            hass=self.hass,
            id=f"{DOMAIN}-{entry.entry_id}",
            name=entry.title,
            entry=entry,
            registry=self.registry,
            conversation_id=conversation_id,
            tool_context=ToolContext(
                hass=self.hass,
                entry=entry,
                requester=requester,
                conversation_id=conversation_id,
                language=user_input.language,
                user_text=words,
            ),
        )
        chat_log.llm_api = await api.async_get_api_instance(llm_context)
        view = build_memory_view(
            memory, requester.key, conversation_id, user_input.language, person_key=requester.person_key
        )
        now = dt_util.now()
        sections = turn_sections(view, now)
        max_calls = int(entry.options.get(CONF_MAX_TOOL_ITERATIONS, DEFAULT_MAX_TOOL_ITERATIONS))
        turn: Turn | None = None

        for _call in range(max_calls):
            parser = ReplyParser()
            native = self.native_tools
            if turn is None or turn.native != native:  # once per turn: every call sends the same start
                turn = self._start_turn(
                    chat_log,
                    turn_start,
                    sections,
                    now,
                    native=native,
                    known=known,
                    limited_to=requester.limited_to,
                )
            reasoning = turn.reasoning
            stream = llm.stream_chat(
                messages=request_messages(chat_log.content, turn),
                tools=self.registry.specs(requester.limited_to) if native else None,
                temperature=entry.options.get(CONF_TEMPERATURE, DEFAULT_TEMPERATURE),
                model=self.settings.model if self.settings is not None else None,
            )
            try:
                await self._async_add_reply(
                    chat_log, agent_id, stream, parser=parser, progress=progress, reasoning=reasoning
                )
            except RequestRejectedError as err:
                if native and _tools_unsupported(err):
                    LOGGER.info("%s does not take tools; using JSON actions", llm.model)
                    self.native_tools = False
                    continue
                return await self._async_llm_failure(user_input, chat_log, agent_id, err)
            except AgentMediaClientError as err:
                return await self._async_llm_failure(user_input, chat_log, agent_id, err)
            if not chat_log.unresponded_tool_results:
                break
            if (speech := _answer_from_results(self.local, chat_log, user_input.language)) is not None:
                # The tools' results already are the answer: said without a second model call.
                return self._said(user_input, chat_log, agent_id, requester, speech, known=known, turn=turn)
        else:
            return await self._async_fail(
                user_input, chat_log, agent_id, TOO_MANY_STEPS, {"max": str(max_calls)}
            )

        last = chat_log.content[-1]
        speech = last.content.strip() if isinstance(last, AssistantContent) and last.content else ""
        if not speech:
            return await self._async_fail(user_input, chat_log, agent_id, EMPTY_ANSWER)
        answer = self._answered(
            speech, user_input.text, known | known_now(memory, requester, conversation_id)
        )
        memory.conversations.add_turn(conversation_id, requester.key, user_input.text, answer)
        memory.mark_told(requester.person_key, view.shown_event_ids)
        if turn is not None:
            self._sent.remember(conversation_id, chat_log.content, answer, turn)
        return TurnResult(speech)

    async def _async_answer_locally(
        self,
        user_input: ConversationInput,
        chat_log: ChatLog,
        agent_id: str,
        requester: Requester,
        known: set[str],
    ) -> TurnResult | None:
        """Answer a common command without the model; None when the sentence is not one."""
        if self.local is None or len(user_input.text) > MAX_PERSON_MESSAGE:
            return None
        found = self.local.match(user_input.text, user_input.language, requester, chat_log.conversation_id)
        if found is None:
            return None
        speech = await self.local.async_answer(
            found, user_input.language, requester, chat_log.conversation_id
        )
        return self._said(user_input, chat_log, agent_id, requester, speech, known=known)

    async def _async_without_model(
        self, user_input: ConversationInput, chat_log: ChatLog, agent_id: str, requester: Requester
    ) -> TurnResult:
        """Say what can be done without a model (the entry has none)."""
        sentences = self.local.sentences if self.local is not None else await async_load_sentences(self.hass)
        language = user_input.language
        speech = f"{sentences.response(language, 'model_less')} {sentences.response(language, 'help')}"
        return self._said(user_input, chat_log, agent_id, requester, speech, known=set())

    def _said(
        self,
        user_input: ConversationInput,
        chat_log: ChatLog,
        agent_id: str,
        requester: Requester,
        speech: str,
        *,
        known: set[str],
        turn: Turn | None = None,
    ) -> TurnResult:
        """Record an answer given without another model call, in the chat log and the conversation's memory.

        `turn`: the model turn whose tools' results are the answer (None: answered without the model).
        """
        start = len(chat_log.content) - 1  # the person's message, when answered without the model
        chat_log.async_add_assistant_content_without_tools(
            AssistantContent(agent_id=agent_id, content=speech)
        )
        memory = self.entry.runtime_data.memory
        memory.household.set_language(user_input.language)
        conversation_id = chat_log.conversation_id
        answer = self._answered(
            speech, user_input.text, known | known_now(memory, requester, conversation_id)
        )
        memory.conversations.add_turn(conversation_id, requester.key, user_input.text, answer)
        if turn is not None:
            self._sent.remember(conversation_id, chat_log.content, answer, turn)
        else:
            self._sent.remember_words(conversation_id, start, user_input.text, answer)
        return TurnResult(speech)

    def _answered(self, speech: str, user_text: str, known: set[str]) -> str:
        """Return an answer as the model gets it later, with the outside text it quotes in data blocks.

        Remembered by its text, for the chat log (which keeps the plain answer the person heard); also what
        the conversation's memory keeps. What the person said themselves ("Sintel") stays as it is.
        """
        form = delimit_known(speech, known, user_text)
        # Kept even when unchanged: an earlier answer re-sent in another form would break the prompt cache.
        self._answer_forms[speech] = form
        while len(self._answer_forms) > MAX_ANSWER_FORMS:
            del self._answer_forms[next(iter(self._answer_forms))]
        return form

    async def _async_add_reply(
        self,
        chat_log: ChatLog,
        agent_id: str,
        stream: AsyncIterator[ChatCompletionChunk],
        *,
        parser: ReplyParser,
        progress: _TurnProgress,
        reasoning: dict[int, str],
    ) -> None:
        """Stream one model reply into the chat log, which runs its tool calls."""
        async for content in chat_log.async_add_delta_content_stream(
            agent_id, self._deltas(stream, parser, progress)
        ):
            if isinstance(content, AssistantContent) and content.tool_calls and parser.reasoning:
                reasoning[id(content)] = parser.reasoning
            if isinstance(content, ToolResultContent):
                progress.tool = None  # the tools of that call have answered

    # --- talking to the model ----------------------------------------------------------------------------

    def _start_turn(
        self,
        chat_log: ChatLog,
        turn_start: int,
        sections: dict[str, str],
        now: datetime,
        *,
        native: bool,
        known: set[str],
        limited_to: frozenset[Permission] | None,
    ) -> Turn:
        """Lay out the turn's requests (`SentHistories.start_turn`); outside text only in data blocks.

        The memory view's, the tool results', and those put around what earlier answers quote.
        """
        base = chat_log.content[0].content if isinstance(chat_log.content[0], SystemContent) else ""
        tools = self.registry.usable(limited_to)
        json_help = None if native else json_action_prompt(tools, self.registry.specs(limited_to))
        person = next((c.content for c in chat_log.content[turn_start:] if isinstance(c, UserContent)), "")
        return self._sent.start_turn(
            chat_log.conversation_id,
            turn_start,
            system={"role": "system", "content": build_system_prompt(base, json_help)},
            tools=self.registry.specs(limited_to) if native else None,
            person=person,
            sections=sections,
            now=now,
            max_messages=int(self.entry.options.get(CONF_MAX_HISTORY_MESSAGES, DEFAULT_MAX_HISTORY_MESSAGES)),
            earlier=lambda: self._history(chat_log, turn_start, known),
        )

    def _history(self, chat_log: ChatLog, turn_start: int, known: set[str]) -> list[dict[str, Any]]:
        """Earlier turns as user/assistant text (tool traffic dropped), when none were sent from here.

        A new chat log (Home Assistant forgets them after 5 idle minutes) falls back to what memory kept of
        this conversation. Answers go in the form that delimits the outside text they quote.
        """
        history: list[dict[str, Any]] = []
        for content in chat_log.content[1:turn_start]:
            if isinstance(content, UserContent):
                history.append({"role": "user", "content": content.content})
            elif isinstance(content, AssistantContent) and content.content:
                history.append({"role": "assistant", "content": content.content})
        if not history:
            history = [
                dict(message)
                for message in self.entry.runtime_data.memory.conversations.messages(chat_log.conversation_id)
            ]
        person = ""
        for message in history:
            if message["role"] == "user":
                person = message["content"]
                message["content"] = person_message(person)
            else:
                message["content"] = self._answer_forms.get(message["content"]) or self._answered(
                    message["content"], person, known
                )
        return history

    async def _deltas(
        self, chunks: AsyncIterator[ChatCompletionChunk], parser: ReplyParser, progress: _TurnProgress
    ) -> AsyncIterator[AssistantContentDeltaDict]:
        """Turn one streamed completion into ChatLog deltas: text as it comes, tool calls at the end."""
        yield {"role": "assistant"}
        async for chunk in chunks:
            if chunk.choices and (text := parser.feed(chunk.choices[0].delta)):
                yield {"content": text}
        rest, tool_calls = parser.finish()
        if rest:
            yield {"content": rest}
        if tool_calls:
            progress.tool = ", ".join(call.tool_name for call in tool_calls)[:80]
            yield {"tool_calls": tool_calls}

    # --- failures ------------------------------------------------------------------------------------------

    async def _async_llm_failure(
        self, user_input: ConversationInput, chat_log: ChatLog, agent_id: str, err: AgentMediaClientError
    ) -> TurnResult:
        LOGGER.warning("Language model call failed: %s", err)
        if isinstance(err, InvalidAuthError):
            self.entry.async_start_reauth(self.hass)
            key = LLM_INVALID_AUTH
        elif isinstance(err, RateLimitedError):
            key = LLM_RATE_LIMITED
        elif isinstance(err, ResponseTooLargeError):
            key = LLM_TOO_LONG
        elif isinstance(err, InvalidResponseError):
            key = LLM_BAD_OUTPUT
        elif isinstance(err, RequestRejectedError):
            key = LLM_REJECTED
        else:
            key = LLM_CANNOT_CONNECT
        return await self._async_fail(user_input, chat_log, agent_id, key, {"detail": err.detail})

    async def _async_fail(
        self,
        user_input: ConversationInput,
        chat_log: ChatLog,
        agent_id: str,
        key: str,
        placeholders: dict[str, str] | None = None,
    ) -> TurnResult:
        """Explain a failure in the user's language; keep the chat log consistent and remember the error."""
        speech = await async_render(self.hass, user_input.language, key, placeholders or {})
        self.entry.runtime_data.memory.journal.add_error("conversation", key.removeprefix("agent_"), speech)
        self._sent.forget(chat_log.conversation_id)  # the next turn starts again from the chat log
        # A server's error text and a model's tool names are outside text: delimited when re-sent.
        outside = {value for name, value in (placeholders or {}).items() if name in ("detail", "tool")}
        self._answered(speech, "", outside)
        if chat_log.content and not (
            isinstance(chat_log.content[-1], AssistantContent) and not chat_log.content[-1].tool_calls
        ):
            chat_log.async_add_assistant_content_without_tools(
                AssistantContent(agent_id=agent_id, content=speech)
            )
        return TurnResult(speech, failed=True)


def _answer_from_results(local: LocalCommands | None, chat_log: ChatLog, language: str) -> str | None:
    """Return the answer when every tool result of the last model call is a success that answers.

    Only with the local sentences on (their answers speak the person's language); None otherwise, and for
    questions, searches to present and errors, which the model must put in words.
    """
    if local is None:
        return None
    answers: list[str] = []
    for content in reversed(chat_log.content):
        if not isinstance(content, ToolResultContent):
            break
        answer = tool_answer(local.sentences, language, content.tool_name, compat.tool_result_data(content))
        if answer is None:
            return None
        answers.append(answer)
    return " ".join(reversed(answers)) or None


def _tool_input(name: str, args: Any, call_id: str) -> llm.ToolInput:
    if call_id:
        return llm.ToolInput(tool_name=name, tool_args=args, id=call_id)
    return llm.ToolInput(tool_name=name, tool_args=args)
