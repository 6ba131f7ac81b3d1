"""The conversation agent: one entity per config entry, for Assist pipelines and `conversation.process`."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Literal

from homeassistant.components import conversation
from homeassistant.const import MATCH_ALL
from homeassistant.helpers import intent

from . import compat
from .agent.agent import MediaAgent
from .agent.local import LocalCommands
from .agent.prompt import INSTRUCTIONS
from .const import CONF_LOCAL_SENTENCES, CONF_PROMPT, DEFAULT_LOCAL_SENTENCES, DOMAIN
from .entity import service_device_info
from .requester import async_resolve_requester
from .sentences import async_load_sentences

if TYPE_CHECKING:
    from homeassistant.core import HomeAssistant
    from homeassistant.helpers.entity_platform import AddEntitiesCallback

    from .data import AgentMediaConfigEntry

PARALLEL_UPDATES = 0


async def async_setup_entry(
    hass: HomeAssistant,
    entry: AgentMediaConfigEntry,
    async_add_entities: AddEntitiesCallback,
) -> None:
    """Add the entry's conversation agent, with the common commands answered locally unless turned off."""
    local = None
    if entry.runtime_data.llm is None or entry.options.get(CONF_LOCAL_SENTENCES, DEFAULT_LOCAL_SENTENCES):
        local = LocalCommands(hass, entry, await async_load_sentences(hass))
    async_add_entities([AgentMediaConversationEntity(hass, entry, local)])


class AgentMediaConversationEntity(conversation.ConversationEntity):
    """Finds films and shows, downloads them, and tells when they are done."""

    _attr_has_entity_name = True
    _attr_name = None  # the device's name: the entry's title
    # Pipelines on HA ≥ 2025.7 start speaking while the text streams in; older versions ignore the flag.
    _attr_supports_streaming = True

    def __init__(
        self, hass: HomeAssistant, entry: AgentMediaConfigEntry, local: LocalCommands | None
    ) -> None:
        """Bind the agent to its entry."""
        self.entry = entry
        self.agent = MediaAgent(hass, entry, local)
        self._attr_unique_id = entry.entry_id
        # The entry's device, shared with the download entities.
        llm = entry.runtime_data.llm
        self._attr_device_info = service_device_info(entry, model=llm.model if llm is not None else None)

    @property
    def supported_languages(self) -> list[str] | Literal["*"]:
        """Every language: the model answers in the user's."""
        return MATCH_ALL

    async def async_process(
        self, user_input: conversation.ConversationInput
    ) -> conversation.ConversationResult:
        """Process a sentence in a conversation of the asker's own.

        A conversation belongs to the requester that opened it: another one sending its id (a guessed or
        shared id) starts a new conversation instead of reading someone else's history.
        """
        requester = await async_resolve_requester(self.hass, user_input.context, user_input.device_id)
        conversations = self.entry.runtime_data.memory.conversations
        if not conversations.belongs_to(user_input.conversation_id, requester.key):
            user_input = dataclasses.replace(user_input, conversation_id=None)
        return await super().async_process(user_input)

    async def _async_handle_message(
        self, user_input: conversation.ConversationInput, chat_log: conversation.ChatLog
    ) -> conversation.ConversationResult:
        """Answer one message; failures become a spoken explanation, never an exception."""
        prompt = INSTRUCTIONS
        if extra := self.entry.options.get(CONF_PROMPT):
            prompt = f"{prompt}\n{extra}"
        try:
            await compat.async_provide_llm_data(chat_log, user_input, DOMAIN, prompt)
        except conversation.ConverseError as err:
            return err.as_conversation_result()

        result = await self.agent.async_respond(user_input, chat_log, user_input.agent_id)
        response = intent.IntentResponse(language=user_input.language)
        if result.failed:
            response.async_set_error(intent.IntentResponseErrorCode.UNKNOWN, result.speech)
        else:
            response.async_set_speech(result.speech)
        return conversation.ConversationResult(
            response=response,
            conversation_id=chat_log.conversation_id,
            continue_conversation=chat_log.continue_conversation,
        )
