"""What the download lifecycle and the wanted scheduler are given to act with, typed by what they use.

They are built by `__init__.py` with their collaborators passed in, never fetched from the entry's runtime
data: so they import neither `data.py` nor the operations' module for anything but these types.
"""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from .memory import WantedTitle
    from .operations import AddedDownload, NoRelease
    from .requester import Requester

# Runs a coroutine in the background for as long as the entry is loaded (its name is for the logs).
type StartBackground = Callable[[Coroutine[Any, Any, Any], str], object]
# Takes back one of our torrents whose add was cut short (hash, name): records it and checks its files.
type AdoptInterruptedAdd = Callable[[str, str], None]


class AcquiringOperations(Protocol):
    """The operations (operations.MediaOperations) the lifecycle and the wanted scheduler call."""

    async def async_acquire(
        self,
        requester: Requester,
        media: dict[str, Any],
        *,
        season: int | None = None,
        episode: int | None = None,
        save_path: str | None = None,
    ) -> AddedDownload | NoRelease:
        """Search a known title and add its best acceptable release, asking nothing."""

    def add_wanted(
        self,
        requester: Requester,
        media: dict[str, Any],
        *,
        season: int | None = None,
        episode: int | None = None,
        save_path: str | None = None,
        reason: str,
    ) -> WantedTitle:
        """Put a title on the wanted list (once per title); return the stored record."""

    async def async_checked_path(self, path: str) -> str:
        """Return a usable absolute folder path (checked now), or raise why not."""
