"""Ranking of torrent search results, and the title matching it relies on.

Pure Python: no Home Assistant imports and no I/O, so it can run anywhere (inline or in the executor).
Release names are read by the `release` package; `parse_release` and `normalize_resolution` are
re-exported here for the modules that import them from ranking.

Ranking follows Radarr/Sonarr: hard filters first, each rejection with a one-line reason; then the kind of
match (season pack versus episode for TV), the resolution tier, and a fine score built from source, HDR,
codec, audio, language, log-scaled seeders and closeness to a sensible size.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from difflib import SequenceMatcher
import math
import re
from typing import TYPE_CHECKING, Any, Final
import unicodedata

from .release import (
    RESOLUTIONS,
    ParsedRelease,
    codec_of,
    language_code,
    normalize_resolution,
    parse_release,
)
from .safety import dangerous_name_extension

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

__all__ = [
    "ParsedRelease",
    "RankedRelease",
    "RankingPreferences",
    "Rejection",
    "normalize_resolution",
    "normalize_title",
    "parse_release",
    "rank_releases",
    "title_similarity",
]

# When nobody asked: 1080p plays everywhere at a moderate size, then the best of the rest.
_UNASKED_RESOLUTION_ORDER: Final = ("1080p", "2160p", "720p", "480p")
TITLE_SIMILARITY_THRESHOLD: Final = 0.85
VIRUS_SCORE_LIMIT: Final = 0.5

MB: Final = 1_000_000
GB: Final = 1_000_000_000

# Spoken names for reasons ("French audio").
_LANGUAGE_NAMES: Final = {
    "en": "English", "fr": "French", "de": "German", "it": "Italian", "es": "Spanish", "pt": "Portuguese",
    "ru": "Russian", "ja": "Japanese", "ko": "Korean", "zh": "Chinese", "hi": "Hindi", "nl": "Dutch",
    "pl": "Polish", "sv": "Swedish", "da": "Danish", "no": "Norwegian", "fi": "Finnish", "tr": "Turkish",
    "ar": "Arabic", "uk": "Ukrainian", "cs": "Czech", "hu": "Hungarian", "el": "Greek", "he": "Hebrew",
    "th": "Thai", "vi": "Vietnamese", "ta": "Tamil", "te": "Telugu",
}  # fmt: skip

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

_SOURCE_POINTS: Final = {"bluray": 40, "web-dl": 35, "remux": 30, "webrip": 25, "dvd": 5, "hdtv": 5}
_SOURCE_LABELS: Final = {
    "remux": "REMUX", "bluray": "BluRay", "web-dl": "WEB-DL", "webrip": "WEBRip", "hdtv": "HDTV",
    "dvd": "DVDRip", "cam": "CAM", "telesync": "telesync", "telecine": "telecine", "screener": "screener",
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
        parsed = _title_with_its_year(parse_release(name), context)
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
            codec=codec_of(preferences.codec) if preferences.codec else None,
            languages=frozenset(language_code(language) for language in preferences.languages),
        )


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
    if extension := dangerous_name_extension(name):
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


def _title_with_its_year(parsed: ParsedRelease, context: _Context) -> ParsedRelease:
    """Give a wanted title that starts with a year ("1900 Lanterns") a name's leading year back.

    The parser, knowing no title, reads a year that leads a film's name as the film's year ("2010.Sintel").
    """
    if context.titles and parsed.year is not None and not _title_matches(parsed.title, context):
        joined = f"{parsed.year} {parsed.title}"
        if _title_matches(joined, context):
            return replace(parsed, title=joined, year=None)
    return parsed


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
