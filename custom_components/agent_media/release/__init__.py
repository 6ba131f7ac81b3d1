"""Release names: what a torrent's name says about itself (see parse.py)."""

from .languages import language_code
from .parse import (
    MAX_NAME_LENGTH,
    RESOLUTIONS,
    TRASH_SOURCES,
    ParsedRelease,
    codec_of,
    normalize_resolution,
    parse_release,
)

__all__ = [
    "MAX_NAME_LENGTH",
    "RESOLUTIONS",
    "TRASH_SOURCES",
    "ParsedRelease",
    "codec_of",
    "language_code",
    "normalize_resolution",
    "parse_release",
]
