"""A release name set right before it is read: file extensions off, a slug's hyphens as spaces.

Pure Python (standard library only). parse.py reads the name these return.
"""

from __future__ import annotations

import re
from typing import Final

from ..safety import MEDIA_EXTENSIONS

# Containers, subtitles and side files a name may end in; they say nothing about the release. ".ts" is
# left to _TS_EXTENSION_RE.
_FILE_EXTENSIONS: Final = (MEDIA_EXTENSIONS - {"ts"}) | frozenset(
    {"nfo", "srt", "sub", "idx", "ass", "ssa", "vob", "flv", "ogm", "ogv", "rmvb", "divx", "3gp"}
)
_EXTENSION_RE: Final = re.compile(r"\.([a-z0-9]{2,7})$", re.IGNORECASE)
# A lower-case ".ts" is a transport stream file; an upper-case "TS" is a telesync tag.
_TS_EXTENSION_RE: Final = re.compile(r"\.ts$")


def strip_extensions(text: str) -> str:
    """Drop the container, subtitle or side-file extensions a name ends in ("Title.mkv", "Title.en.srt")."""
    while True:
        if match := _TS_EXTENSION_RE.search(text):
            text = text[: match.start()]
            continue
        match = _EXTENSION_RE.search(text)
        if match is None or match.group(1).lower() not in _FILE_EXTENSIONS:
            return text
        text = text[: match.start()]


_SLUG_MIN_HYPHENS: Final = 2
# A hyphen of a slug that separates words, not one of a range: "4-6", "S12-S15", "E03-04".
_SLUG_HYPHEN_RE: Final = re.compile(
    r"-(?!(?<=\d-)\d)(?!(?<=[se]\d-)[se]?\d)(?!(?<=[se]\d\d-)[se]?\d)", re.IGNORECASE
)

_SEASON_CODE_RE: Final = re.compile(r"s\d{1,2}(?:e\d|$)", re.IGNORECASE)


def words_of_slug(text: str) -> str:
    """Split a name whose words hyphens join: "Title-S04-720p-HDTV-Grp" as "Title S04 720p HDTV-Grp".

    Its last hyphen may still lead the group, and one between numbers still joins a range ("Season-4-6",
    "S12-S15", "S01E03-04"). A name with spaces or underscores, or one dots separate
    ("Title.2010.WEB-DL.x264-Grp"), keeps its hyphens.
    """
    hyphens = text.count("-")
    if hyphens < _SLUG_MIN_HYPHENS or " " in text or "_" in text or text.count(".") >= hyphens:
        return text
    head, _, group = text.rpartition("-")
    if _SEASON_CODE_RE.match(group):  # "Title-S03": no group follows
        return _SLUG_HYPHEN_RE.sub(" ", text)
    return f"{_SLUG_HYPHEN_RE.sub(' ', head)}-{group}"
