"""The file extensions a release name may end in, which say nothing about the release.

Pure Python (standard library only). parse.py reads the name strip_extensions returns.
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
