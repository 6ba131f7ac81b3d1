"""The schema of a stored record, derived from its declaration in `records.py`, so its shape is stated once.

A record (TypedDict) becomes a voluptuous schema that keeps its declared keys and drops any other: required
keys required, `NotRequired` ones optional. Within it, `str` is text of at most `MAX_TEXT` characters, `int`
a whole number (not a bool), `X | None` also None, a `Literal` one of its values, `list[X]` a list of X,
`dict[str, Any]` any JSON object, and `Annotated[X, validator]` whatever that validator accepts.

Derived rather than written beside the declaration, so the two cannot drift: a field added to a record is
checked on load with no second edit, and a type this does not know fails at import (TypeError), never
accepted unchecked.
"""

from __future__ import annotations

from types import NoneType, UnionType
from typing import (
    Annotated,
    Any,
    Final,
    Literal,
    NotRequired,
    Required,
    Union,
    get_args,
    get_origin,
    get_type_hints,
    is_typeddict,
)

import voluptuous as vol

MAX_TEXT: Final = 4096  # characters of stored text without a bound of its own
_TEXT: Final = vol.All(str, vol.Length(max=MAX_TEXT))


def whole_number(value: Any) -> int:
    """Accept an int that is not a bool (JSON's true is no count)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise vol.Invalid("not a whole number")
    return int(value)


_PLAIN: Final[dict[type, Any]] = {str: _TEXT, int: whole_number, bool: bool}


def schema_of(declared: Any) -> Any:
    """Return the validator of a declared type (a TypedDict's is a `vol.Schema`). TypeError: not supported."""
    if is_typeddict(declared):
        return _record_schema(declared)
    if isinstance(declared, type) and declared in _PLAIN:
        return _PLAIN[declared]
    origin, args = get_origin(declared), get_args(declared)
    if origin is Annotated:
        schema = declared.__metadata__[0]
    elif origin in (Union, UnionType):
        options = [schema_of(arg) for arg in args if arg is not NoneType]
        schema = options[0] if len(options) == 1 else vol.Any(*options)
        if NoneType in args:
            schema = vol.Any(None, schema)
    elif origin is Literal:
        schema = vol.In(args)
    elif origin is list:
        schema = [schema_of(args[0])]
    elif origin is dict and args == (str, Any):
        schema = dict
    else:
        raise TypeError(f"no stored schema for {declared!r}")
    return schema


def _record_schema(record: type) -> vol.Schema:
    required: frozenset[str] = record.__required_keys__  # type: ignore[attr-defined]
    fields = {}
    for key, declared in get_type_hints(record, include_extras=True).items():
        field = declared
        if get_origin(field) in (NotRequired, Required):
            field = get_args(field)[0]
        marker = vol.Required(key) if key in required else vol.Optional(key)
        fields[marker] = schema_of(field)
    return vol.Schema(fields, extra=vol.REMOVE_EXTRA)
