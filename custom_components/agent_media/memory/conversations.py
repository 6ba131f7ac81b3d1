"""Conversations (owned by the agent), each bound to the requester that opened it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from homeassistant.helpers.chat_session import CONVERSATION_TIMEOUT
from homeassistant.util import dt as dt_util

from ..untrusted import MAX_MESSAGE, clip
from .records import clean_media, now, trim_oldest

if TYPE_CHECKING:
    from collections.abc import Mapping
    from datetime import datetime

    from .records import Conversation, Media, Message
    from .store import MemoryStore

MAX_CONVERSATIONS: Final = 20  # per requester, so one requester never pushes out another's
MAX_CONVERSATION_RECORDS: Final = 100  # in all
# Home Assistant drops a chat log idle for CONVERSATION_TIMEOUT, looking every CONVERSATION_TIMEOUT (+1 s):
# up to twice that after its last turn. Owners are kept longer than any chat log can live.
OWNER_KEPT_FOR: Final = 3 * CONVERSATION_TIMEOUT


class ConversationsSection:
    """Conversations, each bound to the requester that opened it.

    The stored records (messages, media) are bounded per requester, so nobody's conversations push out
    another's. Who owns a conversation is also kept apart, in memory, for as long as Home Assistant may still
    hold its chat log (`OWNER_KEPT_FOR` after its last turn), however many records come and go meanwhile.
    """

    def __init__(self, store: MemoryStore, max_history_messages: int) -> None:
        """Start with no live owners (Home Assistant holds no chat log of ours after a restart)."""
        self._store = store
        self._max_history_messages = max_history_messages
        self._live_owners: dict[str, tuple[str, datetime]] = {}

    @property
    def _data(self) -> dict[str, Conversation]:
        return self._store.data["conversations"]

    def owner(self, conversation_id: str) -> str | None:
        """Return the requester the conversation belongs to; None when Agent Media knows no owner of it."""
        live = self._live_owners.get(conversation_id)
        if live is not None and dt_util.utcnow() - live[1] <= OWNER_KEPT_FOR:
            return live[0]
        record = self._data.get(conversation_id)
        return record.get("owner") if record else None

    def claim(self, conversation_id: str, requester_key: str) -> None:
        """Mark the conversation as the requester's, in use now (the caller checked it is nobody else's)."""
        moment = dt_util.utcnow()
        for stale in [key for key, (_owner, at) in self._live_owners.items() if moment - at > OWNER_KEPT_FOR]:
            del self._live_owners[stale]
        self._live_owners[conversation_id] = (requester_key, moment)

    def _for_update(self, conversation_id: str, requester_key: str) -> Conversation:
        if (conversation := self._data.get(conversation_id)) is None:
            conversation = self._data[conversation_id] = {
                "owner": requester_key,
                "messages": [],
                "media": None,
                "updated": now(),
            }
        conversation["owner"] = owner = conversation.get("owner") or requester_key
        conversation["updated"] = now()
        own = sorted(
            (key for key, value in self._data.items() if value.get("owner") == owner),
            key=lambda key: self._data[key]["updated"],
        )
        for key in own[:-MAX_CONVERSATIONS]:
            del self._data[key]
        trim_oldest(self._data, MAX_CONVERSATION_RECORDS, "updated")
        return conversation

    def add_turn(self, conversation_id: str, requester_key: str, user_text: str, assistant_text: str) -> None:
        """Remember one exchange, keeping the last `max_history_messages` messages."""
        messages = self._for_update(conversation_id, requester_key)["messages"]
        messages.append({"role": "user", "content": clip(user_text, MAX_MESSAGE)})
        messages.append({"role": "assistant", "content": clip(assistant_text, MAX_MESSAGE)})
        del messages[: max(0, len(messages) - self._max_history_messages)]
        self._store.schedule_save()

    def messages(self, conversation_id: str | None) -> list[Message]:
        """Return the remembered messages of a conversation, oldest first."""
        conversation = self._data.get(conversation_id) if conversation_id else None
        return [message.copy() for message in conversation["messages"]] if conversation else []

    def media(self, conversation_id: str | None) -> Media | None:
        """Return the media looked up last in a conversation."""
        conversation = self._data.get(conversation_id) if conversation_id else None
        media = conversation.get("media") if conversation else None
        return media.copy() if media is not None else None

    def set_media(self, conversation_id: str | None, requester_key: str, media: Mapping[str, Any]) -> None:
        """Remember the media looked up last in a conversation (outside data: cleaned)."""
        if not conversation_id or (cleaned := clean_media(media)) is None:
            return
        if self.media(conversation_id) == cleaned:
            return
        self._for_update(conversation_id, requester_key)["media"] = cleaned
        self._store.schedule_save()

    def clear(self, requester_key: str | None) -> None:
        """Forget the conversations of one requester, or all of them, owners included."""
        if requester_key is None:
            self._data.clear()
            self._live_owners.clear()
            return
        for conversation_id in [
            key for key, value in self._data.items() if value.get("owner") == requester_key
        ]:
            del self._data[conversation_id]
        for conversation_id in [
            key for key, (owner, _at) in self._live_owners.items() if owner == requester_key
        ]:
            del self._live_owners[conversation_id]
