"""The links of search results, kept in RAM only; everything else refers to a result by number and link id.

A result's link may carry a secret: a Torznab indexer's API key in Jackett's and Prowlarr's .torrent links, a
private tracker's passkey in a magnet's trackers. So the Store, the actions' answers, events, logs,
diagnostics and the model only ever see a result's number and its ``link_id`` (a keyed digest that gives
nothing of the link away); the link stays here until it is needed to add the result. After a restart a kept
result with an info hash is added by a magnet built from that hash; one without must be searched again.
"""

from __future__ import annotations

from collections import OrderedDict
import hashlib
import hmac
import secrets
from typing import Final

LINK_ID_LENGTH: Final = 16  # hex digits
# Links held at most: a full search (50 results) for each of the 20 requesters with working state.
MAX_LINKS: Final = 1000


class ResultLinks:
    """Links of search results by link id, the least recently used forgotten first. Never stored."""

    def __init__(self, max_links: int = MAX_LINKS) -> None:
        """Start empty, with a key of this run's own: ids are not the same after a restart, nor guessable."""
        self._key = secrets.token_bytes(32)
        self._max_links = max_links
        self._links: OrderedDict[str, str] = OrderedDict()

    def remember(self, link: str) -> str:
        """Keep a link; return its id (the same link always gets the same id in one run)."""
        digest = hmac.new(self._key, link.encode(), hashlib.sha256).hexdigest()[:LINK_ID_LENGTH]
        self._links[digest] = link
        self._links.move_to_end(digest)
        while len(self._links) > self._max_links:
            self._links.popitem(last=False)
        return digest

    def get(self, link_id: object) -> str | None:
        """Return the link kept under an id, or None (unknown, forgotten, or before a restart)."""
        if not isinstance(link_id, str) or (link := self._links.get(link_id)) is None:
            return None
        self._links.move_to_end(link_id)
        return link
