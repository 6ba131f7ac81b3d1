"""AI Task entities (HA ≥ 2025.7, `compat.ai_task_platforms`): automations use the agent through `ai_task`.

Each AI task subentry (type `ai_task_data`) is an entity for `ai_task.generate_data` ("pick tonight's family
film and fetch it"). A task is one turn of the conversation agent's own loop (`MediaAgent`), with its tools,
operations and permission policy: the requester is whoever called the action (an automation or script has
no user, so it is trusted, as with Home Assistant's own actions; a person who is no administrator gets what
the permission table allows), further limited by the subentry's profile. With a structure, the model is asked
to end with a JSON object of that form, which becomes the task's data.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Final

from homeassistant.components import ai_task, conversation  # type: ignore[attr-defined,unused-ignore]
from homeassistant.core import Context
from homeassistant.exceptions import HomeAssistantError

from . import compat
from .agent.settings import AgentSettings
from .const import DOMAIN, SUBENTRY_AI_TASK
from .conversation import AgentSubentryEntity, agent_prompt
from .entity import async_register_service_device

if TYPE_CHECKING:
    from homeassistant.core import HomeAssistant
    from homeassistant.helpers.entity_platform import AddConfigEntryEntitiesCallback

    from .data import AgentMediaConfigEntry

PARALLEL_UPDATES = 0

TASK_PROMPT: Final = (
    "This is a task from a Home Assistant automation or script, not a conversation: no one reads your "
    "questions or answers them. Do the task with the tools, deciding yourself where you would ask (when "
    "several results fit, take the best-ranked one unless the task says otherwise), then report briefly what "
    "you did."
)
STRUCTURE_PROMPT: Final = (
    "Your last message must be only a JSON object, with no other text, that follows this JSON schema: "
    "{schema}"
)


async def async_setup_entry(
    hass: HomeAssistant,
    entry: AgentMediaConfigEntry,
    async_add_entities: AddConfigEntryEntitiesCallback,
) -> None:
    """Add an entity for each AI task subentry."""
    async_register_service_device(hass, entry)  # each task's device names it as its parent
    for subentry in entry.subentries.values():
        if subentry.subentry_type == SUBENTRY_AI_TASK:
            async_add_entities(
                [AgentMediaTaskEntity(hass, entry, None, AgentSettings.from_subentry(subentry))],
                config_subentry_id=subentry.subentry_id,
            )


def structured_data(text: str) -> dict[str, Any]:
    """Return the JSON object a structured task's answer is (in a Markdown code block or not)."""
    cleaned = text.strip().removeprefix("```json").removeprefix("```").removesuffix("```").strip()
    try:
        data: Any = json.loads(cleaned)
    except json.JSONDecodeError:
        data = None
    if not isinstance(data, dict):
        raise HomeAssistantError(translation_domain=DOMAIN, translation_key="ai_task_not_json")
    return data


class AgentMediaTaskEntity(AgentSubentryEntity, ai_task.AITaskEntity):
    """Runs `ai_task.generate_data` tasks with the agent's tools (no local commands: always the model)."""

    _attr_supported_features = ai_task.AITaskEntityFeature.GENERATE_DATA

    async def _async_generate_data(
        self, task: ai_task.GenDataTask, chat_log: conversation.ChatLog
    ) -> ai_task.GenDataTaskResult:
        """Run the task as one turn of the agent; its answer (or its JSON object) is the data."""
        # Home Assistant set the caller's context just before, with no await in between (None: a caller in
        # Python that gave none, which Home Assistant's actions treat as the system too).
        context = self._context or Context()
        if self.entry.runtime_data.llm is None:
            raise HomeAssistantError(translation_domain=DOMAIN, translation_key="ai_task_no_model")
        user_input = compat.conversation_input(
            text=task.instructions,
            context=context,
            conversation_id=chat_log.conversation_id,
            language=self.settings.language or self.hass.config.language,
            agent_id=self.entity_id,
        )
        more = [TASK_PROMPT]
        if task.structure is not None:
            schema = compat.schema_to_openapi(task.structure, compat.selector_serializer)
            more.append(STRUCTURE_PROMPT.format(schema=json.dumps(schema, ensure_ascii=False)))
        try:
            await compat.async_provide_llm_data(
                chat_log, user_input, DOMAIN, agent_prompt(self.entry, self.settings, *more)
            )
        except conversation.ConverseError as err:
            raise HomeAssistantError(str(err)) from err
        result = await self.agent.async_respond(user_input, chat_log, self.entity_id)
        if result.failed:
            raise HomeAssistantError(
                translation_domain=DOMAIN,
                translation_key="ai_task_failed",
                translation_placeholders={"detail": result.speech},
            )
        data: Any = result.speech if task.structure is None else structured_data(result.speech)
        return ai_task.GenDataTaskResult(conversation_id=chat_log.conversation_id, data=data)
