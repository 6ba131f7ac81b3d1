"""The conversation agent: one entity per config entry, for Assist pipelines and `conversation.process`."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from custom_components.agent_media import compat
from custom_components.agent_media.agent.agent import MediaAgent
from custom_components.agent_media.agent.prompt import INSTRUCTIONS
from custom_components.agent_media.const import CONF_PROMPT, DOMAIN
from custom_components.agent_media.entity import service_device_info
from homeassistant.components import conversation
from homeassistant.const import MATCH_ALL
from homeassistant.helpers import intent

if TYPE_CHECKING:
    from custom_components.agent_media.data import AgentMediaConfigEntry
    from homeassistant.core import HomeAssistant
    from homeassistant.helpers.entity_platform import AddEntitiesCallback

PARALLEL_UPDATES = 0


async def async_setup_entry(
    hass: HomeAssistant,
    entry: AgentMediaConfigEntry,
    async_add_entities: AddEntitiesCallback,
) -> None:
    """Add the entry's conversation agent."""
    async_add_entities([AgentMediaConversationEntity(hass, entry)])


class AgentMediaConversationEntity(conversation.ConversationEntity):
    """Finds films and shows, downloads them, and tells when they are done."""

    _attr_has_entity_name = True
    _attr_name = None  # the device's name: the entry's title
    # Pipelines on HA ≥ 2025.7 start speaking while the text streams in; older versions ignore the flag.
    _attr_supports_streaming = True

    def __init__(self, hass: HomeAssistant, entry: AgentMediaConfigEntry) -> None:
        """Bind the agent to its entry."""
        self.entry = entry
        self.agent = MediaAgent(hass, entry)
        self._attr_unique_id = entry.entry_id
        # The entry's device, shared with the download entities.
        self._attr_device_info = service_device_info(entry, model=entry.runtime_data.llm.model)

    @property
    def supported_languages(self) -> list[str] | Literal["*"]:
        """Every language: the model answers in the user's."""
        return MATCH_ALL

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
