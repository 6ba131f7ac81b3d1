"""How the operations name things to people: sizes, films and shows, numbers people give.

Pure functions, shared by every surface (tools, local commands, actions, the prompt and the entities).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Mapping


def strict_index(value: Any) -> int:
    """Return a 1-based index given as a whole number (2, 2.0 or "2"); refuse 2.7, True and the like."""
    if isinstance(value, bool):
        raise ValueError("an index is a whole number, not true or false")  # noqa: TRY004 - voluptuous wants ValueError
    if isinstance(value, int):
        number = value
    elif isinstance(value, float) and math.isfinite(value) and value.is_integer():
        number = int(value)
    elif isinstance(value, str) and value.strip().isdigit():
        number = int(value.strip())
    else:
        raise ValueError("an index is a whole number such as 1 or 2")
    if number < 1:
        raise ValueError("an index starts at 1")
    return number


def human_size(size: Any) -> str:
    """Return a byte count as a short spoken size ("8.8 GB")."""
    if not isinstance(size, int | float) or isinstance(size, bool) or size <= 0:
        return "unknown size"
    for unit, factor in (("TB", 1e12), ("GB", 1e9), ("MB", 1e6)):
        if size >= factor:
            return f"{size / factor:.1f} {unit}"
    return f"{size / 1e3:.0f} kB"


def media_label(media: Mapping[str, Any], season: int | None = None, episode: int | None = None) -> str:
    """Return how a film or show is named to people: "Sintel (2010)", "… S01E02", "… season 1"."""
    label = f"{media['title']} ({media['year']})" if media.get("year") else str(media["title"])
    if season is not None and episode is not None:
        return f"{label} S{season:02d}E{episode:02d}"
    if season is not None:
        return f"{label} season {season}"
    return f"{label} episode {episode}" if episode is not None else label
