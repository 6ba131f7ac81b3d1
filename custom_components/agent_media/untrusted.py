"""Text from outside (torrent and file names, TMDB data, HTTP bodies, people's words) as data, never code.

Everything that crosses into memory, the model or a log goes through here: clipped to a known length, made
storable (valid UTF-8, no control characters), and, for the model, wrapped in a delimited data block whose
content is JSON-escaped, so a release named "IGNORE PREVIOUS INSTRUCTIONS" stays a string in a list.
"""

from __future__ import annotations

import json
import math
import re
from typing import TYPE_CHECKING, Any, Final

from .const import MAX_TITLE_LENGTH

if TYPE_CHECKING:
    from collections.abc import Iterable

# Lengths (characters) that outside text is clipped to before it is kept or shown to the model.
MAX_TITLE: Final = 200
MAX_NAME: Final = MAX_TITLE_LENGTH  # torrent and file names, as the clients clip them
MAX_PATH: Final = 4096  # bytes, as the kernel's PATH_MAX
MAX_PATH_COMPONENT: Final = 255  # bytes, as NAME_MAX
MAX_MESSAGE: Final = 2000
MAX_DETAIL: Final = 300

_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
# An image path as TMDB gives it ("/kqjL17yufvn9OVLyXYpvtyrFfak.jpg"): one short file name of safe characters,
# so it can only ever name a picture under the image base, never another host or a parent folder.
_IMAGE_PATH = re.compile(r"/[A-Za-z0-9][A-Za-z0-9_-]{0,63}\.(?:jpg|png|webp)")
DATA_BLOCK_START: Final = "<data>"
DATA_BLOCK_END: Final = "</data>"
_DATA_BLOCK = re.compile(re.escape(DATA_BLOCK_START) + r".*?" + re.escape(DATA_BLOCK_END), re.DOTALL)
MIN_KNOWN_TEXT: Final = 3  # shorter names ("Up") are ordinary words more often than titles
MIN_QUOTED_PREFIX: Final = 12  # a name quoted clipped counts from this many of its first characters
_YEAR = re.compile(r"\s*\(\d{4}\)$")  # "Sintel (2010)" is the person's "Sintel" with its year


class UnstorableValueError(ValueError):
    """A value that cannot be kept: not JSON, not valid UTF-8, or holding control characters."""


def clip(text: Any, limit: int) -> str:
    """Return text on one line, at most `limit` characters, storable."""
    value = " ".join(storable_text(str(text)).split())
    return value if len(value) <= limit else value[: limit - 1] + "…"


def image_path(value: Any) -> str | None:
    """Return an image path from outside ("/abc123.jpg") when it has the safe shape, else None."""
    return value if isinstance(value, str) and _IMAGE_PATH.fullmatch(value) else None


def storable_text(text: str) -> str:
    """Return text that encodes as UTF-8, without control characters (outside text: repaired, not refused)."""
    if _is_utf8(text) and not _CONTROL.search(text):
        return text
    repaired = text.encode("utf-8", "replace").decode("utf-8")
    return _CONTROL.sub(" ", repaired)


def _is_utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _check_text(value: str, max_text: int) -> None:
    if not _is_utf8(value):
        raise UnstorableValueError("text must be valid UTF-8")
    if _CONTROL.search(value):
        raise UnstorableValueError("text must not hold control characters")
    if len(value) > max_text:
        raise UnstorableValueError(f"text must be at most {max_text} characters")


def check_storable(value: Any, *, max_text: int = MAX_PATH) -> None:
    """Raise UnstorableValueError unless the value is JSON-safe: refused, never mangled."""
    if value is None or isinstance(value, bool | int):
        return
    if isinstance(value, float):
        if not math.isfinite(value):
            raise UnstorableValueError("numbers must be finite")
        return
    if isinstance(value, str):
        _check_text(value, max_text)
        return
    if isinstance(value, list | tuple):
        for item in value:
            check_storable(item, max_text=max_text)
        return
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str):
                raise UnstorableValueError("keys must be text")
            check_storable(key, max_text=max_text)
            check_storable(item, max_text=max_text)
        return
    raise UnstorableValueError(f"{type(value).__name__} values cannot be kept")


def data_block(payload: Any) -> str:
    """Return outside data for the model: JSON-escaped (no raw markup survives) inside one delimited block."""
    text = json.dumps(payload, ensure_ascii=False, separators=(",", ":"))
    # A name holding "</data>" cannot close the block early: JSON keeps '<' as is, so escape it.
    text = text.replace("<", "\\u003c")
    return f"{DATA_BLOCK_START}{text}{DATA_BLOCK_END}"


def delimit_known(text: str, known: Iterable[str], person_said: str = "") -> str:
    """Return text (an earlier answer) with every outside text it quotes put in a data block.

    A long name counts from its first `MIN_QUOTED_PREFIX` characters on, since an answer may quote it clipped.
    What the person said themselves stays as it is ("Sintel", also as "Sintel (2010)"). Blocks already there
    are kept as they are; a stray block mark elsewhere is defused, so quoted text cannot open or close one.
    """
    names = sorted({name for name in known if len(name) >= MIN_KNOWN_TEXT}, key=len, reverse=True)
    parts: list[str] = []
    position = 0
    for block in [*_DATA_BLOCK.finditer(text), None]:
        outside = text[position : block.start() if block else len(text)]
        parts.append(_delimit_in(outside, names, person_said.casefold()))
        if block is not None:
            parts.append(block.group())
            position = block.end()
    return "".join(parts)


def _quoted_at(text: str, start: int, names: list[str]) -> int:
    """Return where the longest name quoted at `start` ends (0 when none is)."""
    if start > 0 and (text[start - 1].isalnum() or text[start - 1] == "_"):
        return 0
    longest = 0
    for name in names:
        if len(name) < MIN_QUOTED_PREFIX:
            end = start + len(name)
            whole = text.startswith(name, start) and not (end < len(text) and _is_word(text[end]))
            longest = max(longest, len(name) if whole else 0)
            continue
        if not text.startswith(name[:MIN_QUOTED_PREFIX], start):
            continue
        length = MIN_QUOTED_PREFIX
        while length < len(name) and start + length < len(text) and text[start + length] == name[length]:
            length += 1
        longest = max(longest, length)
    return start + longest if longest else 0


def _is_word(char: str) -> bool:
    return char.isalnum() or char == "_"


def _delimit_in(text: str, names: list[str], person_said: str) -> str:
    parts: list[str] = []
    plain_from = index = 0
    heads = sorted({name[:MIN_QUOTED_PREFIX] for name in names}, key=len, reverse=True)
    candidates = re.compile("|".join(re.escape(head) for head in heads)) if heads else None
    while candidates is not None and (found := candidates.search(text, index)) is not None:
        end = _quoted_at(text, found.start(), names)
        quoted = text[found.start() : end].rstrip()
        if end and _YEAR.sub("", quoted).casefold() not in person_said:
            end = found.start() + len(quoted)
            parts += [_defused(text[plain_from : found.start()]), data_block(quoted)]
            plain_from = index = end
        elif end:
            index = end
        else:
            index = found.start() + 1
    return "".join([*parts, _defused(text[plain_from:])])


def _defused(text: str) -> str:
    return text.replace(DATA_BLOCK_START, "(data)").replace(DATA_BLOCK_END, "(/data)")


def storable_copy(value: Any) -> Any:
    """Return outside data made JSON-safe: text repaired, non-finite numbers and unknown types dropped."""
    if isinstance(value, str):
        return storable_text(value)
    if value is None or isinstance(value, bool | int):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, list | tuple):
        return [storable_copy(item) for item in value]
    if isinstance(value, dict):
        return {storable_text(str(key)): storable_copy(item) for key, item in value.items()}
    return None
