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
# Typeset names write ranges with an en or em dash ("Season 1\u20133"): the finders read a hyphen there.
_DASHES: Final = str.maketrans({"\u2013": "-", "\u2014": "-"})


def token(pattern: str, *, right: str = WORD_END, flags: int = re.IGNORECASE) -> re.Pattern[str]:
    """Compile a pattern that starts after no letter or digit and ends where `right` says."""
    return re.compile(f"{_L}(?:{pattern}){right}", flags)


STRONG: Final = 2  # ends the title wherever it is
WEAK: Final = 1  # ends the title only when nothing strong does ("Web" of "Charlotte's Web")


class Scan:
    """A name being read: finders take spans from `masked`; `ends` records where markers start."""

    __slots__ = ("ends", "masked", "text")

    def __init__(self, text: str) -> None:
        """Start reading `text` with nothing taken."""
        self.text = text
        self.masked = text if text.isascii() else text.translate(_DASHES)
        self.ends: list[tuple[int, int]] = []  # (start, strength)

    def take(self, match: re.Match[str], strength: int = STRONG) -> None:
        """Mask a match; a marker of some strength (0: none) starts where it does."""
        start, end = match.span()
        self.masked = self.masked[:start] + MASK * (end - start) + self.masked[end:]
        if strength:
            self.ends.append((start, strength))

    def first(self, pattern: re.Pattern[str], strength: int = STRONG) -> re.Match[str] | None:
        """Take and return the first match of what is left, if any."""
        match = pattern.search(self.masked)
        if match is not None:
            self.take(match, strength)
        return match

    def every(self, pattern: re.Pattern[str], strength: int = STRONG) -> list[re.Match[str]]:
        """Take and return every match of what is left."""
        matches = list(pattern.finditer(self.masked))
        for match in matches:
            self.take(match, strength)
        return matches

    def first_marker(self) -> int:
        """Where the first strong marker starts, else the first weak one, else the end of the name."""
        strong = [start for start, strength in self.ends if strength == STRONG]
        return min(strong or [start for start, _ in self.ends] or [len(self.text)])
