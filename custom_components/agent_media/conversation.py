"""The conversation agents: one entity per conversation subentry, for Assist and `conversation.process`.

Each agent has its own device (named after it, linked to the entry's service device), model, prompt, language
and permission profile (`agent/settings.py`); they share the entry's clients, memory and downloads.
"""

from __future__ import annotations

import dataclasses
import hashlib
from typing import TYPE_CHECKING, Literal

from homeassistant.components import conversation
from homeassistant.const import MATCH_ALL
from homeassistant.core import callback
from homeassistant.helpers import chat_session, intent
from homeassistant.helpers.entity import Entity

from . import compat
from .agent.agent import MediaAgent
from .agent.local import LocalCommands
from .agent.prompt import INSTRUCTIONS
from .agent.settings import AgentSettings
from .const import CONF_LOCAL_SENTENCES, CONF_PROMPT, DEFAULT_LOCAL_SENTENCES, DOMAIN, SUBENTRY_CONVERSATION
from .entity import agent_device_info, async_register_service_device
from .requester import async_resolve_requester
from .sentences import async_load_sentences

if TYPE_CHECKING:
    from homeassistant.core import HomeAssistant
    from homeassistant.helpers.entity_platform import AddConfigEntryEntitiesCallback

    from .data import AgentMediaConfigEntry
    from .memory import AgentMediaMemory

PARALLEL_UPDATES = 0


def agent_prompt(entry: AgentMediaConfigEntry, settings: AgentSettings, *more: str) -> str:
    """Return an agent's system prompt: the instructions, the entry's prompt option, the agent's, `more`."""
    parts = [INSTRUCTIONS, entry.options.get(CONF_PROMPT), settings.prompt, *more]
    return "\n".join(part for part in parts if part)


@callback
def async_own_conversation_id(
    hass: HomeAssistant, memory: AgentMediaMemory, requester_key: str, conversation_id: str
) -> str:
    """Return the id under which the requester goes on with `conversation_id`, marked as theirs.

    Their own conversation keeps its id, and so does an id no one uses yet. Any other id (someone else's, or
    one Home Assistant holds a chat log under that Agent Media knows no owner of) becomes a new conversation
    of the requester's own, the same for every retry; the history held under the id sent is never read.
    """
    owner = memory.conversations.owner(conversation_id)
    held = conversation_id in (hass.data.get(chat_session.DATA_CHAT_SESSION) or {})
    if owner != requester_key and (owner is not None or held):
        digest = hashlib.sha256(f"{requester_key}\n{conversation_id}".encode("utf-8", "replace")).hexdigest()
        conversation_id = f"{DOMAIN}-{digest[:32]}"  # not a ULID: Home Assistant keeps it as given
    memory.conversations.claim(conversation_id, requester_key)
    return conversation_id


async def async_setup_entry(
    hass: HomeAssistant,
    entry: AgentMediaConfigEntry,
    async_add_entities: AddConfigEntryEntitiesCallback,
) -> None:
    """Add the entry's conversation agents, with the common commands answered locally unless turned off."""
    local = None
    if entry.runtime_data.llm is None or entry.options.get(CONF_LOCAL_SENTENCES, DEFAULT_LOCAL_SENTENCES):
        local = LocalCommands(hass, entry, await async_load_sentences(hass))
    async_register_service_device(hass, entry)  # each agent's device names it as its parent
    for subentry in entry.subentries.values():
        if subentry.subentry_type == SUBENTRY_CONVERSATION:
            settings = AgentSettings.from_subentry(subentry)
            async_add_entities(
                [AgentMediaConversationEntity(hass, entry, local, settings)],
                config_subentry_id=subentry.subentry_id,
            )


class AgentSubentryEntity(Entity):
    """An entity of one agent subentry (a conversation agent, an AI task): its settings, loop and device."""

    _attr_has_entity_name = True
    _attr_name = None  # the device's name: the agent's

    def __init__(
        self,
        hass: HomeAssistant,
        entry: AgentMediaConfigEntry,
        local: LocalCommands | None,
        settings: AgentSettings,
    ) -> None:
        """Bind the agent to its entry and its subentry's settings."""
        self.entry = entry
        self.settings = settings
        self.agent = MediaAgent(hass, entry, local, settings)
        self._attr_unique_id = settings.subentry_id
        llm = entry.runtime_data.llm
        model = settings.model or (llm.model if llm is not None else None)
        self._attr_device_info = agent_device_info(hass, entry, settings, model=model)


class AgentMediaConversationEntity(AgentSubentryEntity, conversation.ConversationEntity):
    """Finds films and shows, downloads them, and tells when they are done."""

    # Pipelines on HA ≥ 2025.7 start speaking while the text streams in; older versions ignore the flag.
    _attr_supports_streaming = True

    @property
    def supported_languages(self) -> list[str] | Literal["*"]:
        """Every language: the model answers in the user's."""
        return MATCH_ALL

    async def async_process(
        self, user_input: conversation.ConversationInput
    ) -> conversation.ConversationResult:
        """Process a sentence in a conversation of the asker's own (see `async_own_conversation_id`)."""
        requester = await async_resolve_requester(self.hass, user_input.context, user_input.device_id)
        if (language := self.settings.language) is not None and language != user_input.language:
            user_input = dataclasses.replace(user_input, language=language)  # this agent speaks its own
        memory = self.entry.runtime_data.memory
        if (asked := user_input.conversation_id) is not None:  # None: Home Assistant opens a new one
            conversation_id = async_own_conversation_id(self.hass, memory, requester.key, asked)
            if conversation_id != asked:
                user_input = dataclasses.replace(user_input, conversation_id=conversation_id)
        result = await super().async_process(user_input)
        if result.conversation_id:  # a new one is known only now; the chat log lives on from this turn
            memory.conversations.claim(result.conversation_id, requester.key)
        return result

    async def _async_handle_message(
        self, user_input: conversation.ConversationInput, chat_log: conversation.ChatLog
    ) -> conversation.ConversationResult:
        """Answer one message; failures become a spoken explanation, never an exception."""
        try:
            await compat.async_provide_llm_data(
                chat_log, user_input, DOMAIN, agent_prompt(self.entry, self.settings)
            )
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
