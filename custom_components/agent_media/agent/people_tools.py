"""The tools that serve each person: be told when a title is ready, play it.

Thin adapters of the entry's operations (operations/subscriptions.py, operations/playing.py), like every tool
(tool_base.py).
"""

from __future__ import annotations

from typing import Any, Final

import voluptuous as vol

from .. import compat
from .tool_base import MAX_TEXT, AgentMediaTool, ToolContext, ok


class TellWhenReady(AgentMediaTool):
    """Tell the person when a title is ready to watch."""

    name = "tell_when_ready"
    title = "Tell me when it is ready"
    annotations = compat.tool_annotations(read_only=False, idempotent=True, open_world=True)
    description = "Tell the user when a title is ready (none: the latest)."
    parameters = vol.Schema({vol.Optional("title"): vol.All(str, vol.Length(min=1, max=MAX_TEXT))})

    async def async_run(self, args: dict[str, Any], context: ToolContext) -> dict[str, Any]:
        """Subscribe the caller; they are told on their satellite or notify target, and at their next turn."""
        subscribed = await context.operations.subscriptions.async_subscribe(
            context.request, title=args.get("title")
        )
        return ok(title=subscribed.label, already=not subscribed.new)


class PlayMedia(AgentMediaTool):
    """Play a title of the library on a media player."""

    name = "play_media"
    title = "Play a film or episode"
    annotations = compat.tool_annotations(read_only=False, idempotent=False, open_world=False)
    description = "Play a downloaded title (none: the latest)."
    parameters = vol.Schema(
        {
            vol.Optional("title"): vol.All(str, vol.Length(min=1, max=MAX_TEXT)),
            vol.Required("player"): vol.All(str, vol.Length(min=1, max=MAX_TEXT)),
        }
    )

    async def async_run(self, args: dict[str, Any], context: ToolContext) -> dict[str, Any]:
        """Play it, if the caller may control that player."""
        played = await context.operations.playing.async_play(
            context.request, player=args["player"], title=args.get("title")
        )
        return ok(title=played.label, player=played.entity_id)


PEOPLE_TOOL_CLASSES: Final[tuple[type[AgentMediaTool], ...]] = (TellWhenReady, PlayMedia)
