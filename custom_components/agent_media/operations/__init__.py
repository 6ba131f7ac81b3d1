"""The operations every surface calls, by concern, behind one object the entry holds (`Operations`).

Tools (agent/tools.py), the local commands (agent/local.py), actions (services.py), the OpenAI-compatible
endpoint and other agents' LLM APIs (both through the tools) only adapt these to their callers. Validation,
permissions and error codes live here: an operation either does all it was asked, or raises
`OperationError` having changed nothing.

Its parts, one concern each (docs/architecture.md): `finding`, `acquiring`, `adder`, `control`, `settings`,
`wanted`, `subscriptions`, `playing`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .acquiring import (
    NO_RELEASE_BLOCKED,
    NO_RELEASE_NO_ACCEPTABLE,
    NO_RELEASE_NOT_FOUND,
    Acquiring,
    AddedDownload,
    MediaDownload,
    MediaQuestion,
    NoRelease,
)
from .adding import DownloadAdder
from .base import SOURCE_CONVERSATION, SOURCE_SERVICE, Collaborators, OperationOptions, Request, require
from .control import TorrentControl
from .describe import human_size, media_label, strict_index
from .finding import Finding, TorrentSearch
from .folders import real_folder_path
from .playing import MEDIA_SOURCE_PREFIX, LibraryFile, Played, Playing, media_source_id
from .settings import DOWNLOAD_FOLDER, HOUSEHOLD, Settings, StoredPreferences
from .subscriptions import Subscribed, SubscriptionOperations
from .wanted import WantedOperations, WantOutcome

if TYPE_CHECKING:
    from ..requester import Permission, Requester

__all__ = [
    "DOWNLOAD_FOLDER",
    "HOUSEHOLD",
    "MEDIA_SOURCE_PREFIX",
    "NO_RELEASE_BLOCKED",
    "NO_RELEASE_NOT_FOUND",
    "NO_RELEASE_NO_ACCEPTABLE",
    "SOURCE_CONVERSATION",
    "SOURCE_SERVICE",
    "AddedDownload",
    "Collaborators",
    "LibraryFile",
    "MediaDownload",
    "MediaQuestion",
    "NoRelease",
    "OperationOptions",
    "Operations",
    "Played",
    "Request",
    "StoredPreferences",
    "Subscribed",
    "TorrentSearch",
    "WantOutcome",
    "human_size",
    "media_label",
    "media_source_id",
    "real_folder_path",
    "strict_index",
]


class Operations:
    """The operations of one loaded entry, built once at set-up; the requester comes with each call."""

    def __init__(self, collaborators: Collaborators) -> None:
        """Build each part on the same collaborators."""
        self.collaborators = collaborators
        self.settings = Settings(collaborators)
        self.adder = DownloadAdder(collaborators)
        self.finding = Finding(collaborators, self.settings)
        self.acquiring = Acquiring(
            collaborators, settings=self.settings, finding=self.finding, adder=self.adder
        )
        self.control = TorrentControl(collaborators)
        self.wanted = WantedOperations(
            collaborators, settings=self.settings, finding=self.finding, acquiring=self.acquiring
        )
        self.subscriptions = SubscriptionOperations(collaborators, finding=self.finding)
        self.playing = Playing(collaborators)

    def require(self, requester: Requester, permission: Permission) -> None:
        """Raise not_allowed unless the policy lets the requester do this (surfaces check before acting)."""
        require(self.collaborators.options, requester, permission)
