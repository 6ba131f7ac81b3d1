"""One conversation agent's own settings, from its config subentry (type `conversation`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..const import (
    CONF_AGENT_LANGUAGE,
    CONF_AGENT_MODEL,
    CONF_AGENT_PROFILE,
    CONF_AGENT_PROMPT,
    PROFILE_HOUSEHOLD,
)

if TYPE_CHECKING:
    from homeassistant.config_entries import ConfigSubentry


@dataclass(frozen=True, slots=True, kw_only=True)
class AgentSettings:
    """Name, model, prompt, language and permission profile of one agent (None: the entry's, the person's)."""

    subentry_id: str
    name: str
    model: str | None = None
    prompt: str | None = None
    language: str | None = None
    profile: str = PROFILE_HOUSEHOLD

    @classmethod
    def from_subentry(cls, subentry: ConfigSubentry) -> AgentSettings:
        """Read a conversation subentry; empty values mean no override."""
        data = subentry.data
        return cls(
            subentry_id=subentry.subentry_id,
            name=subentry.title,
            model=(data.get(CONF_AGENT_MODEL) or "").strip() or None,
            prompt=(data.get(CONF_AGENT_PROMPT) or "").strip() or None,
            language=data.get(CONF_AGENT_LANGUAGE) or None,
            profile=data.get(CONF_AGENT_PROFILE, PROFILE_HOUSEHOLD),
        )
