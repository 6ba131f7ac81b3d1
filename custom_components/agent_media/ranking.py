"""Release-name parsing and ranking of torrent search results.

Pure Python: no Home Assistant imports and no I/O, so it can run anywhere (inline or in the executor).
The parser is a compact set of regular expressions rather than a third-party package: the candidates
(parsett and friends) pin `regex<2026`, which would fight Home Assistant's own pins sooner or later.

Ranking follows Radarr/Sonarr: hard filters first, each rejection with a one-line reason; then the kind of
match (season pack versus episode for TV), the resolution tier, and a fine score built from source, HDR,
codec, audio, language, log-scaled seeders and closeness to a sensible size.
"""

from __future__ import annotations

from dataclasses import dataclass
from difflib import SequenceMatcher
import math
import re
from typing import TYPE_CHECKING, Any, Final
import unicodedata

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

RESOLUTIONS: Final = ("2160p", "1080p", "720p", "480p")
TRASH_SOURCES: Final = frozenset({"cam", "telesync", "telecine", "screener"})
# When nobody asked: 1080p plays everywhere at a moderate size, then the best of the rest.
_UNASKED_RESOLUTION_ORDER: Final = ("1080p", "2160p", "720p", "480p")
TITLE_SIMILARITY_THRESHOLD: Final = 0.85
VIRUS_SCORE_LIMIT: Final = 0.5

MB: Final = 1_000_000
GB: Final = 1_000_000_000

# --------------------------------------------------------------------------------------------------------
# Parsing
# --------------------------------------------------------------------------------------------------------

# A token is delimited by anything that is not a letter or a digit (dots, spaces, dashes, brackets).
_L: Final = r"(?<![a-z0-9])"
_R: Final = r"(?![a-z0-9])"


def _token(pattern: str, *, right: str = _R) -> re.Pattern[str]:
    return re.compile(f"{_L}(?:{pattern}){right}", re.IGNORECASE)


_VIDEO_EXTENSIONS: Final = frozenset(
    {"mkv", "mp4", "avi", "m4v", "wmv", "mov", "mpg", "mpeg", "webm", "m2ts", "iso", "torrent"}
)
# A release *name* ending in one of these is a fake (e.g. "…mkv.exe"); the file list is checked later too.
_DANGEROUS_EXTENSIONS: Final = frozenset(
    {"exe", "lnk", "scr", "bat", "cmd", "ps1", "vbs", "zipx", "msi", "pif", "jar"}
)
_EXTENSION_RE: Final = re.compile(r"\.([a-z0-9]{2,7})$", re.IGNORECASE)
# Leading site tags and bracketed groups: "[YTS.MX] ", "www.example.org - ", "[SubsPlease] ".
_PREFIX_RE: Final = re.compile(
    r"^(?:\[([^\]]*)\]|【[^】]*】|www\.[^\s]+?\.[a-z]{2,4}(?=[\s._-]))[\s._-]*", re.IGNORECASE
)

_YEAR_RE: Final = re.compile(r"(?<![a-z0-9])[(\[]?((?:19|20)\d{2})[)\]]?(?![a-z0-9])", re.IGNORECASE)
_RESOLUTION_RE: Final = _token(r"(2160|1080|720|576|480)[pi]|(4k|uhd)|(3840|1920|1280)x\d{3,4}")
_SXXEYY_RE: Final = re.compile(
    r"(?<![a-z0-9])s(\d{1,2})[ ._-]?e(\d{1,3})(?!\d)((?:-?e\d{1,3}(?!\d)|-\d{1,3}(?![\dp]))*)", re.IGNORECASE
)
_EPISODE_ITEM_RE: Final = re.compile(r"(-?)e?(\d+)", re.IGNORECASE)
_CROSS_RE: Final = _token(r"(\d{1,2})x(\d{2,3})")
_SEASON_RANGE_RE: Final = re.compile(r"(?<![a-z0-9])s(\d{1,2})[ ._]?-[ ._]?s?(\d{1,2})(?!\d)", re.IGNORECASE)
_SEASON_RE: Final = re.compile(r"(?<![a-z0-9])s(\d{1,2})(?!\d)(?![ ._-]?e\d)", re.IGNORECASE)
_SEASON_WORD_RE: Final = _token(r"seasons?[ ._]?(\d{1,2})(?:[ ._]?(?:-|to|&|and)[ ._]?(\d{1,2}))?")
_EPISODE_WORD_RE: Final = _token(r"(?:episode|ep)[ ._]?(\d{1,3})")
_COMPLETE_RE: Final = _token(r"complete")
_RESOLUTION_NUMBERS: Final = {
    "2160": "2160p", "3840": "2160p", "1080": "1080p", "1920": "1080p", "720": "720p", "1280": "720p",
}  # fmt: skip
# Anime numbering after a leading "[Group]": "[SubsPlease] Title - 12 (1080p)".
_ABSOLUTE_EPISODE_RE: Final = re.compile(r" - (\d{1,4})(?:v\d)?(?=[ \[(]|$)")

# Checked in this order: the first hit wins, so REMUX beats BluRay and trash beats everything.
_SOURCE_PATTERNS: Final = (
    ("remux", _token(r"(?:bd|uhd)?remux")),
    ("cam", _token(r"(?:hd|hq)?cam(?:rip)?")),
    ("telesync", _token(r"(?:hd)?ts(?:rip)?|telesync|pdvd")),
    ("telecine", _token(r"(?:hd)?tc|telecine")),
    ("screener", _token(r"(?:dvd|bd|web)?scr|screener")),
    ("webrip", _token(r"web-?rip|hdrip")),
    ("web-dl", _token(r"web-?dl|web")),
    ("bluray", _token(r"blu-?ray|bdrip|brrip|bd25|bd50")),
    ("hdtv", _token(r"hdtv|pdtv|sdtv|tvrip")),
    ("dvdrip", _token(r"dvd(?:rip|5|9|r)?")),
)
_OTHER_TRASH_RE: Final = _token(r"workprint|r5")
_CODEC_PATTERNS: Final = (
    ("hevc", _token(r"x265|h\.?265|hevc")),
    ("av1", _token(r"av1")),
    ("avc", _token(r"x264|h\.?264|avc")),
    ("xvid", _token(r"xvid|divx")),
)
_HDR_PATTERNS: Final = (
    ("DV", _token(r"dv|dovi|dolby[ ._-]?vision")),
    ("HDR10+", _token(r"hdr10(?:\+|plus)", right=r"(?![a-z0-9])")),
    ("HDR10", _token(r"hdr10(?!\+)")),
    ("HDR", _token(r"hdr(?!\+)")),
)
# Audio codecs are often glued to their channels ("DDP5.1"), so only a letter ends them.
_NO_LETTER: Final = r"(?![a-z])"
_AUDIO_PATTERNS: Final = (
    ("TrueHD", _token(r"true-?hd", right=_NO_LETTER)),
    ("Atmos", _token(r"atmos")),
    ("DTS-HD MA", _token(r"dts-?hd[ ._-]?ma", right=_NO_LETTER)),
    ("DTS-HD", _token(r"dts-?hd(?![ ._-]?ma)", right=_NO_LETTER)),
    ("DTS-X", _token(r"dts[ ._:-]?x", right=_R)),
    ("DTS", _token(r"dts(?![ ._:-]?(?:hd|x(?![a-z0-9])))", right=_NO_LETTER)),
    ("DD+", _token(r"ddp|dd\+|e-?ac-?3", right=_NO_LETTER)),
    ("DD", re.compile(r"(?<![a-z0-9-])(?:dd(?!\+)|ac-?3)(?![a-z])", re.IGNORECASE)),
    ("AAC", _token(r"aac", right=_NO_LETTER)),
    ("FLAC", _token(r"flac", right=_NO_LETTER)),
    ("Opus", _token(r"opus", right=_NO_LETTER)),
    ("MP3", _token(r"mp3")),
    ("LPCM", _token(r"l?pcm", right=_NO_LETTER)),
)
_CHANNELS_RE: Final = re.compile(r"(?<!\d)(?<!\d\.)([1-9]\.[0-2])(?![\d])")

_LANGUAGE_WORDS: Final = {
    "english": "en", "eng": "en",
    "french": "fr", "truefrench": "fr", "vff": "fr", "vfq": "fr", "vf2": "fr", "vfi": "fr", "fre": "fr",
    "german": "de", "ger": "de", "deutsch": "de",
    "italian": "it", "ita": "it",
    "spanish": "es", "spa": "es", "esp": "es", "castellano": "es", "latino": "es",
    "portuguese": "pt", "por": "pt",
    "russian": "ru", "rus": "ru",
    "japanese": "ja", "jpn": "ja", "jap": "ja",
    "korean": "ko", "kor": "ko",
    "chinese": "zh", "mandarin": "zh", "cantonese": "zh", "chs": "zh", "cht": "zh",
    "hindi": "hi", "hin": "hi",
    "dutch": "nl", "flemish": "nl",
    "polish": "pl", "pol": "pl", "pl": "pl",
    "swedish": "sv", "swe": "sv",
    "danish": "da", "dan": "da",
    "norwegian": "no", "nor": "no",
    "finnish": "fi", "fin": "fi",
    "turkish": "tr", "tur": "tr",
    "arabic": "ar", "ara": "ar",
    "ukrainian": "uk", "ukr": "uk",
    "czech": "cs", "cze": "cs",
    "hungarian": "hu", "hun": "hu",
    "greek": "el",
    "hebrew": "he", "heb": "he",
    "thai": "th",
    "vietnamese": "vi", "vie": "vi",
    "tamil": "ta", "tam": "ta",
    "telugu": "te", "tel": "te",
    "multi": "multi", "dual": "dual", "dual-audio": "dual",
}  # fmt: skip
_LANGUAGE_RE: Final = _token(
    "|".join(re.escape(word) for word in sorted(_LANGUAGE_WORDS, key=len, reverse=True))
)
# Spoken names for reasons ("French audio").
_LANGUAGE_NAMES: Final = {
    "en": "English", "fr": "French", "de": "German", "it": "Italian", "es": "Spanish", "pt": "Portuguese",
    "ru": "Russian", "ja": "Japanese", "ko": "Korean", "zh": "Chinese", "hi": "Hindi", "nl": "Dutch",
    "pl": "Polish", "sv": "Swedish", "da": "Danish", "no": "Norwegian", "fi": "Finnish", "tr": "Turkish",
    "ar": "Arabic", "uk": "Ukrainian", "cs": "Czech", "hu": "Hungarian", "el": "Greek", "he": "Hebrew",
    "th": "Thai", "vi": "Vietnamese", "ta": "Tamil", "te": "Telugu",
}  # fmt: skip

_GROUP_RE: Final = re.compile(r"-[ ]?([a-z0-9][a-z0-9_@]*)[ ]*(?:\[[^\]]*\][ ]*)*$", re.IGNORECASE)
# Words that end a name after a dash but are not release groups ("WEB-DL", "…-GERMAN").
_NOT_GROUPS: Final = frozenset(
    {"dl", "rip", "web", "hd", "sd", "uhd", "hdr", "dv", "x264", "x265", "h264", "h265", "hevc", "avc",
     "aac", "ac3", "dts", "ma", "remux", "bluray", "webrip", "webdl", "proper", "repack", "internal",
     "limited", "complete", "subs", "sub"}
) | frozenset(_LANGUAGE_WORDS)  # fmt: skip
# "-12v2" and "-1080p" after a dash are numbering, not groups.
_NUMBERING_RE: Final = re.compile(r"\d+(?:v\d|p|i)?", re.IGNORECASE)
_SEPARATORS_RE: Final = re.compile(r"[._]+")
_TRAILING_JUNK_RE: Final = re.compile(r"[\s\-\u2013(\[{:,]+$")


@dataclass(frozen=True, slots=True)
class ParsedRelease:
    """What a release name says about itself."""

    title: str
    year: int | None
    resolution: str | None  # "2160p" | "1080p" | "720p" | "480p" (576p and other SD count as 480p)
    source: str | None  # "remux" | "bluray" | "web-dl" | "webrip" | "hdtv" | "dvdrip" | trash sources
    codec: str | None  # "hevc" | "avc" | "av1" | "xvid"
    hdr: tuple[str, ...]  # subset of "DV", "HDR10+", "HDR10", "HDR", in that order
    audio: tuple[str, ...]  # codecs ("TrueHD", "Atmos", "DD+", …) then the channel layout ("5.1")
    languages: tuple[str, ...]  # ISO 639-1 codes in order of appearance, plus "multi" / "dual"
    seasons: tuple[int, ...]
    episodes: tuple[int, ...]
    complete: bool
    group: str | None
    trash: bool  # CAM/TS/TC/screener/workprint/R5, or a name ending in an executable extension


def parse_release(name: str) -> ParsedRelease:
    """Parse a torrent release name."""
    raw = " ".join(name.split())
    raw, fake = _strip_extensions(raw)
    raw, leading_group = _strip_prefixes(raw)
    title_end, year = _find_title_end(raw)
    tail = raw[title_end:]
    seasons, episodes = _seasons_and_episodes(tail)
    if leading_group and not seasons and not episodes:
        absolute = _ABSOLUTE_EPISODE_RE.search(raw, 1)
        if absolute and absolute.start() < title_end:
            title_end, episodes = absolute.start(), (int(absolute.group(1)),)
            tail = raw[title_end:]

    source = next((value for value, pattern in _SOURCE_PATTERNS if pattern.search(tail)), None)
    return ParsedRelease(
        title=_clean_title(raw[:title_end]) or _clean_title(raw),
        year=year,
        resolution=_resolution(tail),
        source=source,
        codec=_codec(tail),
        hdr=tuple(value for value, pattern in _HDR_PATTERNS if pattern.search(tail)),
        audio=_audio(tail),
        languages=tuple(dict.fromkeys(_LANGUAGE_WORDS[m.lower()] for m in _LANGUAGE_RE.findall(tail))),
        seasons=seasons,
        episodes=episodes,
        complete=_COMPLETE_RE.search(tail) is not None,
        group=_group(raw, title_end, leading_group),
        trash=fake or source in TRASH_SOURCES or _OTHER_TRASH_RE.search(tail) is not None,
    )


def has_dangerous_extension(name: str) -> str | None:
    """Return the executable extension a release name ends in ("exe" for "…mkv.exe"), if any."""
    name = name.strip()
    while match := _EXTENSION_RE.search(name):
        extension = match.group(1).lower()
        if extension in _DANGEROUS_EXTENSIONS:
            return extension
        if extension not in _VIDEO_EXTENSIONS:
            return None
        name = name[: match.start()]
    return None


def _strip_extensions(raw: str) -> tuple[str, bool]:
    fake = False
    while match := _EXTENSION_RE.search(raw):
        extension = match.group(1).lower()
        if extension in _DANGEROUS_EXTENSIONS:
            fake = True
        elif extension not in _VIDEO_EXTENSIONS:
            break
        raw = raw[: match.start()]
    return raw, fake


def _strip_prefixes(raw: str) -> tuple[str, str | None]:
    group: str | None = None
    while (match := _PREFIX_RE.match(raw)) and match.end() < len(raw):
        tag = match.group(1)
        # "[SubsPlease]" names a group, "[YTS.MX]" names a site.
        if group is None and tag and "." not in tag and tag.lower() not in _NOT_GROUPS:
            group = tag.strip()
        raw = raw[match.end() :]
    return raw, group or None


def _find_title_end(raw: str) -> tuple[int, int | None]:
    """Return where the title stops and the year, if the name has one.

    The title ends at the year, an episode marker or the resolution, whichever comes first; of several
    years before that point the last is the release year ("Blade Runner 2049 2017"). A year at the very
    start belongs to the title ("1917"). Only when none of these exist do the weaker markers (source,
    codec, …) end the title, so "Charlotte's Web 2006" keeps its "Web".
    """
    primary = [
        match.start()
        for pattern in (_SXXEYY_RE, _CROSS_RE, _SEASON_RANGE_RE, _SEASON_RE, _SEASON_WORD_RE, _RESOLUTION_RE)
        if (match := _first_after_start(pattern, raw))
    ]
    first_primary = min(primary, default=len(raw))
    years = [match for match in _YEAR_RE.finditer(raw) if match.start() > 0]
    before = [match for match in years if match.start() < first_primary]
    if before:
        return before[-1].start(), int(before[-1].group(1))
    year = int(years[0].group(1)) if years else None
    if primary:
        return first_primary, year
    weak = [
        match.start()
        for pattern in (
            *(pattern for _, pattern in _SOURCE_PATTERNS),
            *(pattern for _, pattern in _CODEC_PATTERNS),
            *(pattern for _, pattern in _HDR_PATTERNS),
            _COMPLETE_RE,
        )
        if (match := _first_after_start(pattern, raw))
    ]
    return min(weak, default=len(raw)), year


def _first_after_start(pattern: re.Pattern[str], raw: str) -> re.Match[str] | None:
    return pattern.search(raw, 1)


def _clean_title(text: str) -> str:
    # Dotted names ("Night.of.the.Living.Dead") use dots as spaces; spaced names keep "Mr." intact.
    text = _SEPARATORS_RE.sub(" ", text) if " " not in text.strip() else text.replace("_", " ")
    return " ".join(_TRAILING_JUNK_RE.sub("", text).split())


def _resolution(tail: str) -> str | None:
    match = _RESOLUTION_RE.search(tail)
    if match is None:
        return None
    if match.group(2):
        return "2160p"
    number = match.group(1) or match.group(3)
    return _RESOLUTION_NUMBERS.get(number, "480p")


def _codec(text: str) -> str | None:
    return next((value for value, pattern in _CODEC_PATTERNS if pattern.search(text)), None)


def _audio(tail: str) -> tuple[str, ...]:
    found = [value for value, pattern in _AUDIO_PATTERNS if pattern.search(tail)]
    if channels := _CHANNELS_RE.search(tail):
        found.append(channels.group(1))
    return tuple(found)


def _seasons_and_episodes(tail: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    seasons: set[int] = set()
    episodes: list[int] = []
    for match in _SXXEYY_RE.finditer(tail):
        seasons.add(int(match.group(1)))
        episodes.append(int(match.group(2)))
        for item in _EPISODE_ITEM_RE.finditer(match.group(3)):
            number = int(item.group(2))
            if item.group(1) and episodes and number > episodes[-1]:
                episodes.extend(range(episodes[-1] + 1, min(number, episodes[-1] + 200) + 1))
            else:
                episodes.append(number)
    for match in _CROSS_RE.finditer(tail):
        seasons.add(int(match.group(1)))
        episodes.append(int(match.group(2)))
    if not seasons:
        for match in (*_SEASON_RANGE_RE.finditer(tail), *_SEASON_WORD_RE.finditer(tail)):
            first = int(match.group(1))
            last = int(match.group(2)) if match.group(2) else first
            seasons.update(range(first, max(first, min(last, first + 100)) + 1))
        seasons.update(int(match.group(1)) for match in _SEASON_RE.finditer(tail))
    if not episodes:
        episodes.extend(int(match.group(1)) for match in _EPISODE_WORD_RE.finditer(tail))
    return tuple(sorted(seasons)), tuple(dict.fromkeys(episodes))


def _group(raw: str, title_end: int, leading_group: str | None) -> str | None:
    match = _GROUP_RE.search(raw)
    if match and match.start() >= title_end and title_end < len(raw):
        group = match.group(1)
        if group.lower() not in _NOT_GROUPS and not _NUMBERING_RE.fullmatch(group):
            return group
    return leading_group


# --------------------------------------------------------------------------------------------------------
# Title matching
# --------------------------------------------------------------------------------------------------------

_NUMBER_WORDS: Final = {
    "one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6", "seven": "7", "eight": "8",
    "nine": "9", "ten": "10", "eleven": "11", "twelve": "12",
    "i": "1", "ii": "2", "iii": "3", "iv": "4", "v": "5", "vi": "6", "vii": "7", "viii": "8", "ix": "9",
    "x": "10", "xi": "11", "xii": "12",
}  # fmt: skip
_NON_ALNUM_RE: Final = re.compile(r"[^a-z0-9]+")
_NUMBERED_PART_RE: Final = re.compile(r"\b(?:part|chapter|vol|volume) (?=\d)")


def normalize_title(text: str) -> str:
    """Fold a title for comparison: "Dune: Part Two" and "Dune.2" both become "dune 2"."""
    text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower()
    text = text.replace("&", " and ").replace("'", "").replace("\u2019", "")
    words = [_NUMBER_WORDS.get(word, word) for word in _NON_ALNUM_RE.sub(" ", text).split()]
    if len(words) > 1 and words[0] == "the":
        words = words[1:]
    return _NUMBERED_PART_RE.sub("", " ".join(words))


def _numbers(title: str) -> list[str]:
    return [word for word in title.split() if word.isdigit()]


def title_similarity(wanted: str, candidate: str) -> float:
    """Return 0..1: how alike two titles are once normalised (spaces ignored as well).

    Titles whose numbers differ score 0: "Sintel 2" is a sequel of "Sintel", not a spelling of it.
    """
    return _similarity(normalize_title(wanted), normalize_title(candidate))


def _similarity(left: str, right: str) -> float:
    if left == right:
        return 1.0
    if _numbers(left) != _numbers(right):
        return 0.0
    best = 0.0
    for first, second in ((left, right), (left.replace(" ", ""), right.replace(" ", ""))):
        matcher = SequenceMatcher(None, first, second, autojunk=False)
        # quick_ratio() is a cheap upper bound; most wrong titles stop there.
        if matcher.quick_ratio() > best:
            best = max(best, matcher.ratio())
    return best


# --------------------------------------------------------------------------------------------------------
# Ranking
# --------------------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RankingPreferences:
    """What the user prefers (options and long-term memory)."""

    resolution: str | None = None  # "2160p", "1080p", "720p", "480p"; "4k" and "uhd" are understood
    max_size_bytes: int | None = None
    codec: str | None = None  # "hevc"/"x265"/"h265", "avc"/"x264", "av1"
    languages: tuple[str, ...] = ()  # ISO 639-1 codes or English names: ("fr",) or ("French",)
    min_seeders: int = 3


@dataclass(frozen=True, slots=True)
class RankedRelease:
    """A search result that passed the filters, with its score and a one-line reason."""

    result: dict[str, Any]
    parsed: ParsedRelease
    score: float
    reason: str


@dataclass(frozen=True, slots=True)
class Rejection:
    """A search result that was filtered out, and why."""

    result: dict[str, Any]
    reason: str


# Plausible sizes of one movie, by resolution (min, max). Sizes outside are fakes or mislabelled.
_MOVIE_SIZES: Final[dict[str | None, tuple[int, int]]] = {
    "2160p": (1500 * MB, 150 * GB),
    "1080p": (500 * MB, 100 * GB),
    "720p": (300 * MB, 40 * GB),
    "480p": (100 * MB, 15 * GB),
    None: (100 * MB, 150 * GB),
}
_EPISODE_SIZES: Final[dict[str | None, tuple[int, int]]] = {
    "2160p": (300 * MB, 40 * GB),
    "1080p": (100 * MB, 20 * GB),
    "720p": (100 * MB, 10 * GB),
    "480p": (100 * MB, 4 * GB),
    None: (100 * MB, 40 * GB),
}
_EPISODES_PER_SEASON: Final = 30  # generous upper bound for pack sizes
_SEASONS_IN_COMPLETE: Final = 10
# What a good encode usually weighs; the size score prefers releases near it.
_MOVIE_TYPICAL: Final[dict[str | None, int]] = {
    "2160p": 20 * GB, "1080p": 8 * GB, "720p": 4 * GB, "480p": 1500 * MB, None: 4 * GB,
}  # fmt: skip
_EPISODE_TYPICAL: Final[dict[str | None, int]] = {
    "2160p": 6 * GB, "1080p": 2 * GB, "720p": 1 * GB, "480p": 400 * MB, None: 1 * GB,
}  # fmt: skip
_TYPICAL_PACK_EPISODES: Final = 10

_SOURCE_POINTS: Final = {"bluray": 40, "web-dl": 35, "remux": 30, "webrip": 25, "dvdrip": 5, "hdtv": 5}
_SOURCE_LABELS: Final = {
    "remux": "REMUX", "bluray": "BluRay", "web-dl": "WEB-DL", "webrip": "WEBRip", "hdtv": "HDTV",
    "dvdrip": "DVDRip", "cam": "CAM", "telesync": "telesync", "telecine": "telecine", "screener": "screener",
}  # fmt: skip
_CODEC_LABELS: Final = {"hevc": "HEVC", "avc": "AVC", "av1": "AV1", "xvid": "XviD"}
_AUDIO_POINTS: Final = {"DTS-X": 10, "DTS-HD MA": 8, "TrueHD": 8, "DD+": 5, "DTS-HD": 5, "DTS": 3, "DD": 3,
                        "FLAC": 3, "LPCM": 3, "AAC": 1, "Opus": 1}  # fmt: skip
_SURROUND_CHANNELS: Final = 5.1

# Weights: the kind of match outranks resolution, which outranks everything in the fine score (< 1000).
_MATCH_WEIGHT: Final = 10_000
_TIER_WEIGHT: Final = 1_000


def rank_releases(
    results: Sequence[Mapping[str, Any]],
    *,
    title: str | None = None,
    year: int | None = None,
    media_type: str = "movie",
    season: int | None = None,
    episode: int | None = None,
    preferences: RankingPreferences = RankingPreferences(),
    alternative_titles: Sequence[str] = (),
) -> tuple[list[RankedRelease], list[Rejection]]:
    """Filter and order search results, best first.

    `title`/`year` are TMDB's; `alternative_titles` (e.g. TMDB's original title) also count as a match.
    Results are dicts shaped like `TorrentResult.as_dict()`.
    """
    context = _Context.build(
        title=title,
        alternative_titles=alternative_titles,
        year=year,
        media_type=media_type,
        season=season,
        episode=episode,
        preferences=preferences,
    )
    ranked: list[RankedRelease] = []
    rejected: list[Rejection] = []
    for item in results:
        result = dict(item)
        name = str(result.get("title") or "")
        parsed = parse_release(name)
        reason = _rejection_reason(result, name, parsed, context)
        if reason is not None:
            rejected.append(Rejection(result=result, reason=reason))
            continue
        score, notes = _score(result, parsed, context)
        ranked.append(
            RankedRelease(result=result, parsed=parsed, score=score, reason=_describe(result, parsed, notes))
        )
    ranked.sort(key=lambda release: (-release.score, -_int(release.result.get("seeders"))))
    return ranked, rejected


@dataclass(frozen=True, slots=True)
class _Context:
    titles: tuple[str, ...]
    normalized_titles: tuple[str, ...]
    title_matches: dict[str, bool]  # normalised release title -> verdict; releases repeat titles
    year: int | None
    is_tv: bool
    season: int | None
    episode: int | None
    preferences: RankingPreferences
    resolution_order: tuple[str, ...]
    asked_resolution: str | None
    codec: str | None
    languages: frozenset[str]

    @classmethod
    def build(
        cls,
        *,
        title: str | None,
        alternative_titles: Sequence[str],
        year: int | None,
        media_type: str,
        season: int | None,
        episode: int | None,
        preferences: RankingPreferences,
    ) -> _Context:
        asked = normalize_resolution(preferences.resolution)
        order: tuple[str, ...]
        if asked is None:
            order = _UNASKED_RESOLUTION_ORDER
        else:
            # What was asked, then lower ones (smaller, play everywhere), then higher ones.
            index = RESOLUTIONS.index(asked)
            order = (asked, *RESOLUTIONS[index + 1 :], *reversed(RESOLUTIONS[:index]))
        titles = tuple(text for text in (title, *alternative_titles) if text)
        return cls(
            titles=titles,
            normalized_titles=tuple(normalize_title(text) for text in titles),
            title_matches={},
            year=year,
            is_tv=media_type == "tv",
            season=season,
            episode=episode,
            preferences=preferences,
            resolution_order=order,
            asked_resolution=asked,
            codec=_codec(preferences.codec) if preferences.codec else None,
            languages=frozenset(_normalize_language(language) for language in preferences.languages),
        )


def normalize_resolution(value: str | None) -> str | None:
    """Return "2160p", "1080p", "720p" or "480p" for what a person says ("4K", "uhd", "1080"), else None."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        value += "p"
    return _resolution(value)


def _normalize_language(value: str) -> str:
    value = value.strip().lower()
    return _LANGUAGE_WORDS.get(value, value[:2] if len(value) > 2 else value)  # noqa: PLR2004


def _int(value: Any) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return 0


def _float(value: Any) -> float | None:
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def _rejection_reason(  # noqa: C901, PLR0911 - one flat list of filters reads best
    result: Mapping[str, Any], name: str, parsed: ParsedRelease, context: _Context
) -> str | None:
    if not name.strip():
        return "no release name"
    if extension := has_dangerous_extension(name):
        return f"fake: the name ends in .{extension}"
    virus_score = _float(result.get("virus_score"))
    if virus_score is not None and virus_score >= VIRUS_SCORE_LIMIT:
        return f"flagged as a possible virus (score {virus_score:.2f})"
    if parsed.trash:
        label = _SOURCE_LABELS.get(parsed.source or "", "workprint or R5")
        return f"{label} copy (filmed or pre-release, poor quality)"
    if context.titles and not _title_matches(parsed.title, context):
        return f'title "{parsed.title}" does not match "{context.titles[0]}"'
    if reason := _year_mismatch(parsed, context):
        return reason
    if reason := _episode_mismatch(parsed, context):
        return reason
    seeders = _int(result.get("seeders"))
    if seeders < context.preferences.min_seeders:
        count = f"only {_count(seeders, 'seeder')}" if seeders > 0 else "no seeders"
        return f"{count} (minimum {context.preferences.min_seeders})"
    size = _int(result.get("size"))
    if size > 0:
        if reason := _size_mismatch(size, parsed, context):
            return reason
        limit = context.preferences.max_size_bytes
        if limit and size > limit:
            return f"{_size(size)} is over the {_size(limit)} limit"
    return _language_mismatch(parsed, context)


def _title_matches(candidate: str, context: _Context) -> bool:
    normalized = normalize_title(candidate)
    matches = context.title_matches.get(normalized)
    if matches is None:
        similarity = max(_similarity(wanted, normalized) for wanted in context.normalized_titles)
        matches = similarity >= TITLE_SIMILARITY_THRESHOLD
        context.title_matches[normalized] = matches
    return matches


def _year_mismatch(parsed: ParsedRelease, context: _Context) -> str | None:
    if context.year is None or parsed.year is None:
        return None
    # A show's releases carry later years (a season's airing); only a year before the show began is wrong.
    too_far = parsed.year < context.year - 1 if context.is_tv else abs(parsed.year - context.year) > 1
    return f"year {parsed.year}, wanted {context.year}" if too_far else None


def _episode_mismatch(parsed: ParsedRelease, context: _Context) -> str | None:
    if not context.is_tv:
        is_tv = parsed.seasons or parsed.episodes
        return f"a TV release ({_episode_code(parsed)}), wanted a movie" if is_tv else None
    if not parsed.seasons and not parsed.episodes and not parsed.complete:
        return "no season or episode in the name"
    if context.season is not None and parsed.seasons and context.season not in parsed.seasons:
        return f"{_episode_code(parsed)}, wanted season {context.season}"
    if context.season is not None and not parsed.seasons and parsed.episodes:
        return f"episode {parsed.episodes[0]} without a season, wanted season {context.season}"
    if context.episode is not None and parsed.episodes and context.episode not in parsed.episodes:
        wanted = (
            f"S{context.season:02d}E{context.episode:02d}"
            if context.season is not None
            else f"episode {context.episode}"
        )
        return f"{_episode_code(parsed)}, wanted {wanted}"
    return None


def _size_mismatch(size: int, parsed: ParsedRelease, context: _Context) -> str | None:
    if context.is_tv:
        low, high = _EPISODE_SIZES[parsed.resolution]
        if not parsed.episodes:  # a pack
            seasons = len(parsed.seasons) or _SEASONS_IN_COMPLETE
            high *= _EPISODES_PER_SEASON * seasons
        elif len(parsed.episodes) > 1:
            high *= len(parsed.episodes)
    else:
        low, high = _MOVIE_SIZES[parsed.resolution]
    label = parsed.resolution or "a release"
    if size < low:
        return f"{label} at {_size(size)} is too small to be real"
    if size > high:
        return f"{label} at {_size(size)} is implausibly large"
    return None


def _language_mismatch(parsed: ParsedRelease, context: _Context) -> str | None:
    spoken = [language for language in parsed.languages if language not in {"multi", "dual"}]
    if not context.languages or not spoken or len(spoken) != len(parsed.languages):
        return None
    if context.languages.isdisjoint(spoken):
        preferred = _language_list(sorted(context.languages))
        return f"audio in {_language_list(spoken)} only, you prefer {preferred}"
    return None


def _score(result: Mapping[str, Any], parsed: ParsedRelease, context: _Context) -> tuple[float, list[str]]:
    notes: list[str] = []
    match_rank = 0
    if context.is_tv:
        match_rank, note = _tv_match(parsed, context)
        notes.append(note)

    if parsed.resolution in context.resolution_order:
        tier = len(RESOLUTIONS) - context.resolution_order.index(parsed.resolution)
    else:
        tier = 0
    if context.asked_resolution and parsed.resolution != context.asked_resolution:
        notes.append(f"not the {context.asked_resolution} asked for")

    fine = float(_SOURCE_POINTS.get(parsed.source or "", 0))
    fine += _hdr_points(parsed)
    fine += _codec_points(parsed, context)
    fine += _audio_points(parsed)
    language_points, language_note = _language_points(parsed, context)
    fine += language_points
    if language_note:
        notes.append(language_note)
    if context.year is not None and parsed.year is None and not context.is_tv:
        fine -= 5  # could be a remake
    fine += 12 * math.log10(1 + _int(result.get("seeders")))
    size = _int(result.get("size"))
    if size > 0:
        fine -= min(40.0, 8 * abs(math.log(size / _preferred_size(parsed, context))))
    return match_rank * _MATCH_WEIGHT + tier * _TIER_WEIGHT + fine, notes


def _tv_match(parsed: ParsedRelease, context: _Context) -> tuple[int, str]:
    """Return how well a TV release fits the request (2 best) and a note for the reason."""
    single_season_pack = len(parsed.seasons) == 1 and not parsed.episodes
    multi_season = len(parsed.seasons) > 1 or (parsed.complete and not parsed.seasons)
    if multi_season:
        kind = "complete series" if not parsed.seasons else "multi-season pack"
    elif single_season_pack:
        kind = "season pack"
    else:
        kind = "single episode" if len(parsed.episodes) == 1 else "several episodes"
    if context.episode is not None:
        rank = 2 if parsed.episodes else (1 if single_season_pack else 0)
        return rank, kind if parsed.episodes else f"{kind} holding the episode"
    if context.season is not None:
        rank = 2 if single_season_pack else (1 if multi_season else 0)
        return rank, kind
    return (2 if multi_season else (1 if single_season_pack else 0)), kind


def _hdr_points(parsed: ParsedRelease) -> int:
    hdr = set(parsed.hdr)
    if "DV" in hdr and hdr - {"DV"}:
        return 20  # Dolby Vision with an HDR10 fallback plays everywhere
    if "HDR10+" in hdr:
        return 18
    if "HDR10" in hdr:
        return 15
    if "HDR" in hdr:
        return 12
    if "DV" in hdr:
        return 5  # DV only: players without DV show wrong colours
    return -10 if parsed.resolution == "2160p" else 0


def _codec_points(parsed: ParsedRelease, context: _Context) -> int:
    if parsed.codec is None:
        return 0
    if context.codec is not None:
        return 15 if parsed.codec == context.codec else -5
    if parsed.codec == "avc" and parsed.resolution == "2160p":
        return -5
    return {"hevc": 5, "av1": 3, "avc": 0, "xvid": -5}[parsed.codec]


def _audio_points(parsed: ParsedRelease) -> int:
    audio = set(parsed.audio)
    points = max((_AUDIO_POINTS.get(value, 0) for value in audio), default=0)
    if "Atmos" in audio:
        points = max(points, 10 if "TrueHD" in audio else 7)
    channels = [float(value) for value in audio if value[0].isdigit()]
    if channels and channels[0] >= _SURROUND_CHANNELS:
        points += 3
    return points


def _language_points(parsed: ParsedRelease, context: _Context) -> tuple[int, str | None]:
    spoken = [language for language in parsed.languages if language not in {"multi", "dual"}]
    if context.languages:
        if matching := [language for language in spoken if language in context.languages]:
            return 60, f"{_language_list(matching)} audio"  # a wish, worth more than seeders
        if len(spoken) != len(parsed.languages):
            return 40, "multi-language"
        return 0, None
    if spoken and "en" not in spoken and len(spoken) == len(parsed.languages):
        return -15, f"{_language_list(spoken)} audio"  # probably a dub
    return 0, None


def _preferred_size(parsed: ParsedRelease, context: _Context) -> float:
    if not context.is_tv:
        typical = _MOVIE_TYPICAL[parsed.resolution]
    elif parsed.episodes:
        typical = _EPISODE_TYPICAL[parsed.resolution] * len(parsed.episodes)
    else:
        seasons = len(parsed.seasons) or _SEASONS_IN_COMPLETE
        typical = _EPISODE_TYPICAL[parsed.resolution] * _TYPICAL_PACK_EPISODES * seasons
    limit = context.preferences.max_size_bytes
    return float(min(typical, limit) if limit else typical)


def _describe(result: Mapping[str, Any], parsed: ParsedRelease, notes: list[str]) -> str:
    quality = " ".join(
        part
        for part in (
            parsed.resolution,
            _SOURCE_LABELS.get(parsed.source or ""),
            *parsed.hdr,
            _CODEC_LABELS.get(parsed.codec or ""),
        )
        if part
    )
    parts = [quality or "unknown quality", _count(_int(result.get("seeders")), "seeder")]
    if (size := _int(result.get("size"))) > 0:
        parts.append(_size(size))
    line = ", ".join(parts)
    return f"{line}; {', '.join(notes)}" if notes else line


def _episode_code(parsed: ParsedRelease) -> str:
    if parsed.seasons and parsed.episodes:
        return f"S{parsed.seasons[0]:02d}E{parsed.episodes[0]:02d}"
    if parsed.seasons:
        return (
            f"season {parsed.seasons[0]}"
            if len(parsed.seasons) == 1
            else (f"seasons {parsed.seasons[0]}-{parsed.seasons[-1]}")
        )
    return f"episode {parsed.episodes[0]}" if parsed.episodes else "complete series"


def _language_list(codes: Sequence[str]) -> str:
    return "/".join(_LANGUAGE_NAMES.get(code, code) for code in codes)


def _count(number: int, noun: str) -> str:
    return f"{number:,} {noun}" if number == 1 else f"{number:,} {noun}s"


def _size(size: int) -> str:
    if size >= 10 * GB:
        return f"{size / GB:.0f} GB"
    if size >= GB:
        return f"{size / GB:.1f} GB"
    return f"{size / MB:.0f} MB"
