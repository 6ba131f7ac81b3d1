"""Who is asking, resolved once per request, and the one permission policy every surface applies.

A requester is a Home Assistant user (administrator or not), a device with no user (a voice satellite), or
the system (automations, scripts, anything with no user and no device). Like Home Assistant's own service
checks, a context without a user is trusted: it was set up by an administrator. The requester also keys the
working state (last search, pending question), so "the 2nd one" on a satellite means that satellite's search.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING, Final

from .const import PROFILE_SEARCH_ONLY

ATTR_USER_ID: Final = "user_id"  # a person entity's attribute: the Home Assistant user linked to it

if TYPE_CHECKING:
    from collections.abc import Mapping

    from homeassistant.core import Context, HomeAssistant


class RequesterKind(StrEnum):
    """What kind of caller a requester is."""

    USER = "user"
    DEVICE = "device"
    SYSTEM = "system"


class Permission(StrEnum):
    """What an operation needs (see docs/security.md for the table)."""

    READ = "read"  # search, identify, list downloads and folders
    OWN_PREFERENCES = "own_preferences"  # a person's own release preferences, over the household's
    ADD = "add"  # add a download, pause / resume / remove our own without deleting files
    CHANGE_SETTINGS = "change_settings"  # folders, preferences
    DELETE_FILES = "delete_files"
    REMOVE_FOREIGN = "remove_foreign"  # pause, resume or remove torrents Agent Media did not add
    CLEAR_HOUSEHOLD = "clear_household"  # forget settings, news, errors, other people's state


# Permissions anyone has; the rest need an administrator, a context without a user, or the entry's option.
OPEN_PERMISSIONS: Final = frozenset({Permission.READ, Permission.OWN_PREFERENCES, Permission.ADD})
SYSTEM_KEY: Final = "system"
EVERYONE: Final = "all"  # whose subscriptions or followed shows an action drops: everyone's


@dataclass(frozen=True, slots=True, kw_only=True)
class Requester:
    """Who asks: the user (if any), the device (if any), and whether they administer Home Assistant."""

    kind: RequesterKind
    user_id: str | None = None
    device_id: str | None = None
    is_admin: bool = False
    # What the agent asked through allows at most (its permission profile); None: no limit of its own.
    limited_to: frozenset[Permission] | None = None
    # The person a satellite stands for (their requester key, from the entry's satellite subentries): their
    # preferences, wanted titles, followed shows, subscriptions and news, never their permissions.
    person: str | None = None

    @property
    def key(self) -> str:
        """The stable key of this requester's working state and conversations."""
        if self.kind is RequesterKind.USER:
            return f"user:{self.user_id}"
        if self.kind is RequesterKind.DEVICE:
            return f"device:{self.device_id}"
        return SYSTEM_KEY

    @property
    def person_key(self) -> str:
        """The key of whose preferences, wanted titles, followed shows, subscriptions and news these are."""
        return self.person or self.key

    @property
    def personal(self) -> bool:
        """Whether a person asks (themselves, or through a satellite standing for them), not the household."""
        return self.kind is RequesterKind.USER or self.person is not None

    @property
    def trusted(self) -> bool:
        """Administrators and contexts without a user (satellites, automations) may change the household."""
        return self.kind is not RequesterKind.USER or self.is_admin

    def may(self, permission: Permission, *, allow_non_admin_settings: bool = False) -> bool:
        """Apply the policy: open permissions for all, the others for trusted requesters or when allowed.

        An agent's profile limits that further, whoever asks and whatever the household's options say.
        """
        if self.limited_to is not None and permission not in self.limited_to:
            return False
        return permission in OPEN_PERMISSIONS or self.trusted or allow_non_admin_settings

    def through_profile(self, profile: str) -> Requester:
        """Return this requester as an agent with that permission profile sees them."""
        limit = PROFILE_LIMITS.get(profile)
        return self if limit is None else dataclasses.replace(self, limited_to=limit)


SYSTEM: Final = Requester(kind=RequesterKind.SYSTEM)

# The permission profiles of conversation agents that limit the policy (`household`: no limit of its own).
PROFILE_LIMITS: Final[dict[str, frozenset[Permission]]] = {PROFILE_SEARCH_ONLY: frozenset({Permission.READ})}


def requester_from_key(key: str | None) -> Requester:
    """Return the requester a stored key names (work done later on its behalf); the system when none.

    Whether a user administers Home Assistant is not stored: such work needs only the open permissions.
    """
    kind, _, ident = (key or "").partition(":")
    if kind == RequesterKind.USER and ident:
        return Requester(kind=RequesterKind.USER, user_id=ident)
    if kind == RequesterKind.DEVICE and ident:
        return Requester(kind=RequesterKind.DEVICE, device_id=ident)
    return SYSTEM


def person_requester_key(hass: HomeAssistant, person_entity_id: str) -> str | None:
    """Return the requester key of a Home Assistant person (their user's), or None without a user."""
    state = hass.states.get(person_entity_id)
    user_id = state.attributes.get(ATTR_USER_ID) if state is not None else None
    return f"{RequesterKind.USER}:{user_id}" if isinstance(user_id, str) and user_id else None


async def async_resolve_requester(
    hass: HomeAssistant,
    context: Context | None,
    device_id: str | None = None,
    *,
    satellite_people: Mapping[str, str] | None = None,
) -> Requester:
    """Resolve who asks from a Home Assistant context and the device the request came from.

    `satellite_people`: the person entity each satellite (device id) stands for. A satellite standing for a
    person whose entity is gone or has no user stays the household's.
    """
    user_id = context.user_id if context is not None else None
    if user_id is not None:
        user = await hass.auth.async_get_user(user_id)
        if user is None or not user.system_generated:
            # An unknown user id (a deleted user) is a stranger, never the system.
            is_admin = user is not None and user.is_admin
            return Requester(kind=RequesterKind.USER, user_id=user_id, device_id=device_id, is_admin=is_admin)
        # A system-generated user (Supervisor, cloud) acts for Home Assistant itself.
    if device_id:
        person_entity = (satellite_people or {}).get(device_id)
        person = person_requester_key(hass, person_entity) if person_entity else None
        return Requester(kind=RequesterKind.DEVICE, device_id=device_id, person=person)
    return SYSTEM
