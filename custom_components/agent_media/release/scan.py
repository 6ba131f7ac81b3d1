"""The scan a release name is read with: each finder takes what it matches, so later finders skip it.

Pure Python (standard library only). parse.py describes how a name is read; episodes.py reads part of it.
"""

from __future__ import annotations

import re
from typing import Final

# What a taken span becomes in `Scan.masked`.
MASK: Final = "\x00"
_L: Final = r"(?<![a-z0-9])"
# The default end of a token: no letter or digit follows.
WORD_END: Final = r"(?![a-z0-9])"
# Typeset names write ranges with an en or em dash ("Season 1\u20133"), Japanese ones with a wave dash or a
# full-width tilde ("01\uff5e12"): the finders read a hyphen or a tilde there.
_DASHES: Final = str.maketrans({"\u2013": "-", "\u2014": "-", "\u301c": "~", "\uff5e": "~"})


# Per pattern, substrings one of which every match holds (case-folded): a name holding none of them is not
# searched. Most names name one codec and one source and carry no tags, so most patterns need not run. Keyed
# by the pattern's id, since a pattern's hash digests all its compiled code at each lookup; the pattern is
# kept beside its hints, so its id is never another's.
_HINTS: Final[dict[int, tuple[re.Pattern[str], tuple[str, ...]]]] = {}


def hinted(pattern: re.Pattern[str], hints: tuple[str, ...]) -> re.Pattern[str]:
    """Give a pattern the substrings (see `fold`) one of which every match of it holds."""
    _HINTS[id(pattern)] = (pattern, hints)
    return pattern


def fold(text: str) -> str:
    """Case-fold a text as hints are looked for in it; a dotless i matches "i" when case is ignored."""
    return text.casefold().replace("\u0131", "i")


def may_match(pattern: re.Pattern[str], folded: str) -> bool:
    """Whether a text (see `fold`) holds one of the pattern's hints (or the pattern has none)."""
    entry = _HINTS.get(id(pattern))
    return entry is None or any(hint in folded for hint in entry[1])


def token(
    pattern: str, *, right: str = WORD_END, flags: int = re.IGNORECASE, hints: tuple[str, ...] = ()
) -> re.Pattern[str]:
    """Compile a pattern that starts after no letter or digit and ends where `right` says (see `hinted`)."""
    compiled = re.compile(f"{_L}(?:{pattern}){right}", flags)
    return hinted(compiled, hints) if hints else compiled


STRONG: Final = 2  # ends the title wherever it is
WEAK: Final = 1  # ends the title only when nothing strong does ("Web" of "Charlotte's Web")


class Scan:
    """A name being read: finders take spans from `masked`; `ends` records where markers start."""

    __slots__ = ("ends", "folded", "masked", "text")

    def __init__(self, text: str) -> None:
        """Start reading `text` with nothing taken."""
        self.text = text
        self.masked = text if text.isascii() else text.translate(_DASHES)
        self.folded = fold(self.masked)
        self.ends: list[tuple[int, int]] = []  # (start, strength)

    def take(self, match: re.Match[str], strength: int = STRONG, group: int = 0) -> None:
        """Mask a match (or one of its groups); a marker of some strength (0: none) starts where it does."""
        start, end = match.span(group)
        self.masked = self.masked[:start] + MASK * (end - start) + self.masked[end:]
        if strength:
            self.ends.append((start, strength))

    def may_match(self, pattern: re.Pattern[str]) -> bool:
        """Whether the name holds one of the pattern's hints (or it has none)."""
        return may_match(pattern, self.folded)

    def first(self, pattern: re.Pattern[str], strength: int = STRONG, group: int = 0) -> re.Match[str] | None:
        """Take (the group of) the first match of what is left and return the match, if any."""
        if not self.may_match(pattern):
            return None
        match = pattern.search(self.masked)
        if match is not None:
            self.take(match, strength, group)
        return match

    def every(self, pattern: re.Pattern[str], strength: int = STRONG) -> list[re.Match[str]]:
        """Take and return every match of what is left."""
        if not self.may_match(pattern):
            return []
        matches = list(pattern.finditer(self.masked))
        for match in matches:
            self.take(match, strength)
        return matches

    def first_marker(self) -> int:
        """Where the first strong marker starts, else the first weak one, else the end of the name."""
        strong = [start for start, strength in self.ends if strength == STRONG]
        return min(strong or [start for start, _ in self.ends] or [len(self.text)])
