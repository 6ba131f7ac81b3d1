"""Error codes of the operations, and the one table from each code to what every surface shows.

An operation raises `OperationError(code, translation_key, placeholders)`. The texts live once, in
strings.json → exceptions: tools return the code with the text in the requester's language, actions raise the
Home Assistant exception the code maps to with the same translation key (`for_action`), the conversation
speaks it. Client failures become operation errors here only: `client_errors()` around every call to an
outside service, `from_failure` for a search whose every source failed.
"""

from __future__ import annotations

from contextlib import contextmanager
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Final

from homeassistant.exceptions import HomeAssistantError, ServiceValidationError, Unauthorized
from homeassistant.helpers.translation import async_get_translations

from .clients.errors import AgentMediaClientError, RequestRejectedError
from .const import DOMAIN
from .safety import ContentsRefusal, describe_dangerous
from .untrusted import MAX_DETAIL, clip

if TYPE_CHECKING:
    from collections.abc import Iterator

    from homeassistant.core import Context, HomeAssistant

# The translation key of a refusal by the permission policy: actions raise Home Assistant's Unauthorized.
PERMISSION_DENIED: Final = "permission_denied"
CANNOT_CONTROL_PLAYER: Final = "cannot_control_player"  # Home Assistant's own entity permission refused
SAFETY_SERVICE: Final = "safety check"


class ErrorCode(StrEnum):
    """Error codes of tool results (contract: docs/architecture.md) and of the operations."""

    NOT_FOUND = "not_found"
    BAD_ARGS = "bad_args"
    UNKNOWN_TOOL = "unknown_tool"
    PATH_NOT_FOUND = "path_not_found"
    NOT_A_DIRECTORY = "not_a_directory"
    NOT_READABLE = "not_readable"
    INVALID_PATH = "invalid_path"
    NOT_ALLOWED = "not_allowed"
    CONFIRMATION_REQUIRED = "confirmation_required"
    CANNOT_CONNECT = "cannot_connect"
    RATE_LIMITED = "rate_limited"
    INVALID_AUTH = "invalid_auth"
    BAD_RESPONSE = "bad_response"
    REJECTED = "rejected"
    DANGEROUS_FILES = "dangerous_files"
    REFUSED_CONTENTS = "refused_contents"
    INTERNAL_ERROR = "internal_error"


# What an action raises for each code: the caller's mistake, a refusal, or a failing service.
_ACTION_ERROR: Final[dict[ErrorCode, type[HomeAssistantError]]] = {
    ErrorCode.CANNOT_CONNECT: HomeAssistantError,
    ErrorCode.RATE_LIMITED: HomeAssistantError,
    ErrorCode.INVALID_AUTH: HomeAssistantError,
    ErrorCode.BAD_RESPONSE: HomeAssistantError,
    ErrorCode.INTERNAL_ERROR: HomeAssistantError,
}

# Client failures, by the clients' own failure codes: the operation's code and translation key of each.
_CLIENT_FAILURES: Final[dict[str, tuple[ErrorCode, str]]] = {
    "invalid_auth": (ErrorCode.INVALID_AUTH, "service_invalid_auth"),
    "banned": (ErrorCode.INVALID_AUTH, "service_invalid_auth"),
    "rate_limited": (ErrorCode.RATE_LIMITED, "service_rate_limited"),
    "bad_response": (ErrorCode.BAD_RESPONSE, "service_invalid_response"),
    "too_large": (ErrorCode.BAD_RESPONSE, "service_invalid_response"),
    "rejected": (ErrorCode.REJECTED, "request_rejected"),
}
_CANNOT_CONNECT: Final = (ErrorCode.CANNOT_CONNECT, "service_cannot_connect")  # and timed out, or unknown


class OperationError(Exception):
    """An operation refused or failed; says why with a code and a translated text."""

    def __init__(self, code: ErrorCode, translation_key: str, **placeholders: Any) -> None:
        """Keep the code, the translation key and its placeholders (outside text clipped)."""
        super().__init__(translation_key)
        self.code = code
        self.translation_key = translation_key
        self.placeholders = {name: clip(value, MAX_DETAIL) for name, value in placeholders.items()}
        self.extra: dict[str, Any] = {}  # fields a tool result carries besides the message

    def for_action(self, context: Context | None = None) -> HomeAssistantError:
        """Return the Home Assistant exception an action raises: Unauthorized for a refusal, else mapped."""
        if self.translation_key == PERMISSION_DENIED:
            return Unauthorized(context=context, permission=self.placeholders.get("permission"))
        if self.translation_key == CANNOT_CONTROL_PLAYER:
            return Unauthorized(
                context=context, entity_id=self.placeholders.get("player"), permission="control"
            )
        error_class = _ACTION_ERROR.get(self.code, ServiceValidationError)
        return error_class(
            translation_domain=DOMAIN,
            translation_key=self.translation_key,
            translation_placeholders=self.placeholders,
        )


class DangerousTorrentError(RequestRejectedError):
    """The torrent holds files no film or show needs (programs, scripts, shortcuts); it was removed."""

    def __init__(self, name: str, files: list[str]) -> None:
        """Keep the torrent's name and its dangerous files."""
        super().__init__(SAFETY_SERVICE, f"{name} holds dangerous files: {describe_dangerous(files)}")
        self.name = name
        self.files = files


class RefusedContentsError(RequestRejectedError):
    """The torrent is not what it claims (only archives, no video, locked archives, a tiny video); removed."""

    def __init__(self, name: str, refusal: ContentsRefusal, detail: str) -> None:
        """Keep the torrent's name, why it was refused and the files or sizes that decided it."""
        super().__init__(SAFETY_SERVICE, f"{name} refused ({refusal.value}): {detail}")
        self.name = name
        self.refusal = refusal
        self.files_detail = detail


@contextmanager
def client_errors() -> Iterator[None]:
    """Turn an outside service's failure inside the block into the operation error that says it."""
    try:
        yield
    except DangerousTorrentError as err:
        error = OperationError(
            ErrorCode.DANGEROUS_FILES, "dangerous_files", name=err.name, files=", ".join(err.files[:5])
        )
        error.extra["dangerous_files"] = [clip(path, 120) for path in err.files[:10]]
        raise error from err
    except RefusedContentsError as err:
        error = OperationError(
            ErrorCode.REFUSED_CONTENTS, f"refused_{err.refusal.value}", name=err.name, files=err.files_detail
        )
        error.extra["reason"] = err.refusal.value
        raise error from err
    except AgentMediaClientError as err:
        raise from_failure(err.service, err.code, err.detail) from err


def from_failure(service: str, failure_code: str, detail: str) -> OperationError:
    """Return the operation error for a service that failed with one of the clients' failure codes."""
    code, key = _CLIENT_FAILURES.get(failure_code, _CANNOT_CONNECT)
    result = OperationError(code, key, service=service, detail=detail)
    result.extra["service"] = service
    return result


async def async_render(
    hass: HomeAssistant, language: str | None, key: str, placeholders: dict[str, str]
) -> str:
    """Return a translated text (strings.json → exceptions), in the given language when available."""
    template = ""
    for candidate in dict.fromkeys((language or "en", (language or "en").split("-")[0], "en")):
        translations = await async_get_translations(hass, candidate, "exceptions", [DOMAIN])
        if template := translations.get(f"component.{DOMAIN}.exceptions.{key}.message", ""):
            break
    if not template:
        return key
    try:
        return template.format(**placeholders)
    except (KeyError, IndexError, ValueError):
        return template
