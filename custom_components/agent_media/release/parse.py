"""Release-name parsing: what a torrent's name says about itself.

Pure Python (standard library only, no Home Assistant, no I/O). A compact set of regular expressions rather
than a third-party parser: measured by bench/parse.py (figures per corpus in the README), it reads names from
corpora other than parsett's own about as well as parsett or better, in a fifth of its time, without parsett's
pins (`regex<2026`, arrow).

How it reads a name: each kind of marker (resolution, episode numbering, source, codec, …) is looked for in
turn; what a finder takes is masked so later finders do not read it again ("1280x720" is never an episode,
"E-AC3-S78" never a season). The title is the text before the first marker; the year is the last year
before that marker, so "Blade Runner 2049 2017" keeps its 2049 (see _title_span). The masking is scan.py's
Scan; the seasons and episodes are read by episodes.py.
"""

from __future__ import annotations

from dataclasses import dataclass
import datetime as dt
import re
from typing import Final

from ..safety import dangerous_name_extension
from .dates import date_year_of
from .episodes import CHECKSUM_RE, bare_episode, episode_before_season, is_year, seasons_and_episodes
from .extensions import strip_extensions
from .languages import LANGUAGE_WORDS, audio_languages, take_spoken, trailing_language_tag
from .scan import STRONG, WEAK, WORD_END, Scan, fold, hinted, may_match, token

# Names come from search results: a longer one is junk, and clipping bounds the regular expressions' work.
MAX_NAME_LENGTH: Final = 400
# The resolution tiers the ranking knows, best first; other SD sizes (576p, 360p) count as 480p.
RESOLUTIONS: Final = ("2160p", "1080p", "720p", "480p")
TRASH_SOURCES: Final = frozenset({"cam", "telesync", "telecine", "screener"})

# Audio codecs are often glued to their channels ("DDP5.1"), so only a letter ends them.
_NO_LETTER: Final = r"(?![a-z])"


# --- Prefixes ---------------------------------------------------------------------------------------------

# Leading site tags and bracketed groups: "[YTS.MX] ", "www.example.org - ", "[SubsPlease] ", "【Site】",
# "{WWW.EXAMPLE.TV} ", and a site written with spaces or commas before a dash: "www example org - ".
_PREFIX_RE: Final = re.compile(
    r"^(?:\[([^\]]*)\]|【([^】]*)】|\{[^}]*\}|(?:www\.)[^\s]+?\.[a-z]{2,6}(?=[\s._-])|"
    r"www[ ,][^\[\]()]{1,40}? - |[a-z0-9-]+\.(?:com|org|net|to)(?=\s))"
    r"[\s._-]*",
    re.IGNORECASE,
)

# --- Resolution -------------------------------------------------------------------------------------------

_RESOLUTION_PATTERNS: Final = (
    re.compile(r"(?<![0-9])([1-9]\d{2,3})[x*×]([1-9]\d{2,3})(?![0-9])", re.IGNORECASE),  # noqa: RUF001 - letters of other scripts, on purpose
    # A source glued before ("BD1080p", "Bluray720p", "TC1080P") or after ("720pHDTV", "1080pBluRay") is left
    # for the source finders; "720HD" is a resolution too; 8K ("4320p") counts as the best tier.
    re.compile(
        r"(?:(?<![a-z0-9])(?:hd|m)?|(?<=bd|tc)|(?<=ray))(4320|2160|1440|1080|720|576|540|480|360|240)"
        r"(?:0?[pi](?:\d{2})?|hd)(?!(?!u?hd|blu|web|bd|dvd)[a-z])",
        re.IGNORECASE,
    ),
    hinted(re.compile(r"(?<![a-z0-9])(1080|720)[ .](?=hi10p)", re.IGNORECASE), ("1080", "720")),
    token(r"(4k|uhd|ultra[ .-]?hd)(?![ .-]?rip)", hints=("4k", "uhd", "ultra")),
    token(r"(full[ .-]?hd|fhd)", hints=("full", "fhd")),
    # Spanish sites glue the lines to a Blu-ray's or a MicroHD's letters without a "p": "BD1080", "M720" (only
    # the lines are taken: the letters are the source's).
    hinted(
        re.compile(r"(?:bd|m)(2160|1080|720)(?![0-9a-z])", re.IGNORECASE),
        ("bd2160", "bd1080", "bd720", "m2160", "m1080", "m720"),
    ),
    # "HD720", "HD1080": the lines after an HD tag without a "p" (SickGear's anime names).
    hinted(re.compile(r"(?<![a-z0-9])hd(1080|720)(?![0-9a-z])", re.IGNORECASE), ("hd1080", "hd720")),
)

# --- Dates, years and packs -------------------------------------------------------------------------------

# A film of the 1880s or 1890s has its year in brackets: "Roundhay Garden Scene (1888)". A year a month
# follows starts an air date ("2010.10.25", read by dates.py); "Title.2017.24-25" is a year and two episodes.
_YEAR_RE: Final = hinted(
    re.compile(
        r"(?<![a-z0-9])[(\[]?((?:19|20)\d{2}|(?<=[(\[])18[89]\d(?=[)\]]))[)\]]?(?![a-z0-9]|[.-](?:0[1-9]|1[0-2])[.-])",
        re.IGNORECASE,
    ),
    ("19", "20", "18"),
)
_YEAR_RANGE_RE: Final = re.compile(r"(?<![0-9])((?:19|20)\d{2}) ?- ?((?:19|20)\d{2}|\d{2})(?![0-9])")
_COMPLETE_RE: Final = token(
    r"complete|completa|completo|integrale?|intégrale|l'?int[ée]grale|coffret|collection|all[ ._]seasons",
    hints=("complet", "integral", "intégral", "coffret", "collection", "all"),
)
# Words around a pack's marker that belong to neither the title nor anything else.
_PACK_WORDS_RE: Final = re.compile(
    r"(?:[ ._-]+(?:the[ ._])?(?:complete|full|integrale|intégrale|l'?int[ée]grale|coffret|all)"
    r"(?:[ ._-]+(?:series|miniseries|mini[ ._-]series|tv[ ._-]series|seasons?|collection|box[ ._-]?set|"
    r"pack))*)+$"
    # A country tag is in capitals or in a lower-case name, and never ends "The Last of Us".
    r"|(?-i:[ ._-]+(?:US|UK|AU|NZ|CA)|(?<![ ._]of)(?<![ ._]and)(?<![ ._]but)[ ._-]+(?:us|uk|au|nz|ca))$"
    r"|[ ._-]+(?:ep|episode)$",
    re.IGNORECASE,
)

# --- Source, codec, HDR, audio ----------------------------------------------------------------------------

# Checked in this order: the first hit wins, so REMUX beats BluRay and trash beats everything; a bare "TS"
# yields to a real source ("HDTV … TS" is a transport stream, not a telesync).
_SOURCE_PATTERNS: Final = (
    ("remux", token(r"(?:bd|uhd|br|blu-?ray)?[ .-]?remux", hints=("remux",))),
    # "S-Print", "HDPrint": a camera's copy.
    (
        "cam",
        token(
            r"(?:hd|hq)?[ .-]?cam(?:hd|hq)?(?:[ ._-]?rip|rp)?|hd[ .-]?cam|s[ .-]print|h[dq][ .-]?print",
            hints=("cam", "print"),
        ),
    ),
    (
        "telesync",
        token(
            # "TeleSynch": a common misspelling.
            r"(?:hd|hq)[ .-]?ts(?:rip)?|ts[ .-]?rip|telesynch?(?:[ ._-]?rip)?|"
            r"p(?:re[ .-]?)?dvd(?:[ .-]?rip)?",
            hints=("ts", "telesync", "dvd"),
        ),
    ),
    # "TC1080p": a telecine glued to its resolution (masked by then).
    (
        "telecine",
        token(
            r"(?:hd|hq)[ .-]?tc(?:rip)?|tc[ .-]?rip|telecine(?:[ ._-]?rip)?|tc(?=\x00)",
            right=r"(?![a-z])",
            hints=("tc", "telecine"),
        ),
    ),
    ("screener", token(r"(?:dvd|bd|br|web|hd|blu-?ray)?[ .-]?scr(?:eener)?|dvdscr|bdscr", hints=("scr",))),
    (
        "webrip",
        token(
            r"web[ .-]?rip|web[ .-]?dl[ .-]?rip|hd[ .-]?rip|web[ .-]?cap(?:[ .-]?rip)?|microhd",
            hints=("web", "rip", "microhd"),
        ),
    ),
    (
        "bluray",
        token(
            # "MBluRay": a "mini" Blu-ray encode; "BluRayRip" an encode as "BDRip"; "BD5", "BD9": a Blu-ray's
            # encode sized for a DVD.
            r"m?blu[ .-]?ray(?:[ .-]?rip)?|b[dr][ .-]?rip|bdr|bd(?:5|9|25|50)|bd[ .-]?rm|bdmv|"
            r"(?<=[\[( ._-])bd(?=[\]) .,_-])|"
            r"b[dr](?:rip)?[ .-]?mux|hd[ .-]?dvd(?:[ .-]?rip)?|bd[ .-]?light|bd(?=\x00)|"
            # Whole discs: "UHDBD", "BR-DISK", "BDISO"; a UHD disc's encode: "UHDBDRip", "UHD2BD".
            r"uhd[ .-]?bd(?:[ .-]?rip)?|uhd2bd|br[ .-]?disk|bd[ .-]?iso",
            hints=("blu", "bd", "br", "dvd"),
        ),
    ),
    (
        "web-dl",
        token(
            r"web[ .-]?dl|web[ .-]?hd|webmux|dlmux|web(?![ .-]?(?:rip|dl))|amzn|itunes|"
            # A streaming service's HD or SD tag: "NetflixHD", "DisneyUHD", "HBOMaxHD", "AmazonSD".
            r"(?:netflix|amazon|maxdome|disney|hbomax|hbo|appletv|hulu|paramount)(?:u?hd|sd)",
            hints=("web", "dlmux", "amzn", "itunes", "hd", "sd"),
        ),
    ),
    (
        "hdtv",
        token(
            # Rips named for their broadcast: "PDTVRip", "SDTVRip", "UHDTV", "DSRRip".
            r"(?:[au]?hd|pd|sd)[ .]?tv(?:[ .-]?rip|mux)?|dsr(?:[ .-]?rip|ip)?|"
            r"tv[ .-]?rip|sat[ .-]?rip|dvb[ .-]?rip|dvb|"
            # "DTHRip": a direct-to-home satellite capture.
            r"ppv[ .-]?rip|raw[ .-]?hd|hr[ .-]ws|dth[ .-]?rip|"
            r"(?:netflix)?uhd[ .-]?rip|hdtv",
            hints=("tv", "dsr", "rip", "dvb", "raw", "ws"),
        ),
    ),
    (
        "dvd",
        token(
            # A DVD's "VIDEO_TS" folder is no telesync. Discs counted or numbered: "2xDVD9", "2DVD5", "DVD2";
            # "MDVDR": a multi-language DVD-R.
            r"(?:\dx?|m)?dvd(?:[ .-]?rip|\d|r\d?|[ .-]?mux)?|ntsc|pal(?=[ .]dvd)|xvidvd|video[ ._-]?ts",
            hints=("dvd", "ntsc", "pal", "video"),
        ),
    ),
)
_BARE_TS_RE: Final = token(r"ts|tc", hints=("ts", "tc"))
_TELESYNC_BARE: Final = {"ts": "telesync", "tc": "telecine"}
# Source words that are also title words ("Charlotte's Web"): they end a title only when nothing else does.
_WEAK_SOURCE_WORDS: Final = frozenset({"web", "cam", "dvd", "pal", "ntsc", "dvb", "scr", "ts", "tc"})
# Workprints, R5, line or "clean" audio (a camera's picture with the sound taken apart), leaks, extras.
_OTHER_TRASH_RE: Final = token(
    r"workprint|r5|r6|line(?=[ .]audio)|(?:hq[ .-]?)?clean[ .-]?aud(?:io)?|leaked|deleted[ .-]scenes?",
    hints=("workprint", "r5", "r6", "line", "clean", "leaked", "deleted"),
)
_CODEC_PATTERNS: Final = (
    ("hevc", token(r"[xh][ .-]?265|hevc(?:10)?", right=r"(?![a-z0-9])", hints=("265", "hevc"))),
    ("av1", token(r"av1", hints=("av1",))),
    ("avc", token(r"[xh][ .-]?264|avc(?:hd)?|h264", hints=("264", "avc"))),
    ("xvid", token(r"xvid(?:hd)?|divx", hints=("xvid", "divx"))),
)
_HDR_PATTERNS: Final = (
    ("DV", token(r"dv|dovi|dolby[ ._-]?vision", hints=("dv", "dovi", "dolby"))),
    ("HDR10+", token(r"hdr10(?:\+|[ .-]?plus)", right=r"(?![a-z0-9])", hints=("hdr10",))),
    ("HDR10", token(r"hdr10(?!\+|[ .-]?plus)", hints=("hdr10",))),
    ("HDR", token(r"hdr(?!10(?!\d\d))(?:\d{3,4})?", hints=("hdr",))),  # "HDR1000": a brightness, no HDR10
)
_AUDIO_PATTERNS: Final = (
    ("TrueHD", token(r"true-?hd", right=_NO_LETTER, hints=("true",))),
    ("Atmos", token(r"atmos", right=_NO_LETTER, hints=("atmos",))),
    ("DTS-HD MA", token(r"dts-?hd[ ._-]?ma", right=_NO_LETTER, hints=("dts",))),
    ("DTS-HD", token(r"dts[ .-]?hd(?![ ._-]?ma)", right=_NO_LETTER, hints=("dts",))),
    ("DTS-X", token(r"dts[ ._:-]?x", right=WORD_END, hints=("dts",))),
    # "DTS-ES" (Extended Surround) is no Spanish.
    ("DTS", token(r"dts(?:-es)?(?![ ._:-]?(?:hd|x(?![a-z0-9])))", right=_NO_LETTER, hints=("dts",))),
    ("DD+", token(r"ddp|dd\+|e-?ac-?3|eac3", right=_NO_LETTER, hints=("dd", "ac"))),
    (
        "DD",
        hinted(re.compile(r"(?<![a-z0-9-])(?:dd(?![p+])|ac-?3d?)(?![a-z])", re.IGNORECASE), ("dd", "ac")),
    ),
    ("AAC", token(r"aac", right=_NO_LETTER, hints=("aac",))),
    ("FLAC", token(r"flac", right=_NO_LETTER, hints=("flac",))),
    ("Opus", token(r"opus", right=_NO_LETTER, hints=("opus",))),
    ("MP3", token(r"mp3", hints=("mp3",))),
    ("LPCM", token(r"l?pcm", right=_NO_LETTER, hints=("pcm",))),
)
# "5.1", and after an audio codec (masked by then) "DD51", "AAC2 0". A title word's "2.0" is no layout
# ("Pioneer2.0"), but the X of "DTS-X7.1" is the codec's.
_TITLE_WORD_AUDIO: Final = frozenset({"Opus", "Atmos"})
_CHANNELS_RE: Final = re.compile(
    r"(?<![a-wyz\d])(?<!\d\.)([1-9])\.([0-2])(?:ch)?(?!\d)|(?<=\x00)([1-9]) ?([0-2])(?:ch)?(?!\d)",
    re.IGNORECASE,
)
# Release tags that end a title but carry nothing the ranking reads; title words only in capitals.
_TAGS_RE: Final = token(
    r"proper|repack|rerip|internal|unrated|remastered|legendado|dublad[oa]|hardsub|softsub|fastsub|vostfr|vost|"
    r"subfrench|10[ .-]?bits?|8[ .-]?bits?|hi10p?|nfofix|readnfo|dirfix|ac3d|\d+ ?mbps|\d+(?:\.\d+)? ?gb|"
    # Subtitles named by language ("SWESUB", "ESubs"), pay-per-view, video codecs the vocabulary leaves out.
    r"(?:swe|dan|fin|nor|kor|pl|eng|ita|fre|ger|spa|rus|dk|nl|ro|hun|cz|e)subs?|ppv|vp9|mpeg-?2|vc-?1",
    hints=(
        "proper",
        "repack",
        "rerip",
        "internal",
        "unrated",
        "remastered",
        "legendado",
        "dublad",
        "sub",
        "vost",
        "bit",
        "hi10",
        "nfo",
        "dirfix",
        "ac3d",
        "mbps",
        "gb",
        "ppv",
        "vp9",
        "mpeg",
        "vc",
    ),
)
# A two-part episode aired as one: "Title.Part.1.and.Part.2.HDTV" (a lone "Part 2" is a film's title word).
# It ends the title but numbers no episode: guessit reads parts there, SickGear and tvnamer episodes.
_TWO_PARTS_RE: Final = token(r"part[ ._]?\d{1,2}[ ._]?(?:and|&)[ ._]?part[ ._]?\d{1,2}", hints=("part",))
_CAPITAL_TAGS_RE: Final = token(
    r"LIMITED|UNCUT|UNCENSORED|EXTENDED|RESTORED|THEATRICAL|IMAX|CRITERION|DUBBED|SUBBED|WS|FS|HC|DC|"
    r"FINAL|PREAIR|PREAiR|REAL|RETAIL|HYBRID|DL|STV|CONVERT|HFR|DOKU|SBS|CD\d(?:of\d)?|\d{2,3}fps",
    flags=0,
    hints=(
        "limited",
        "uncut",
        "uncensored",
        "extended",
        "restored",
        "theatrical",
        "imax",
        "criterion",
        "dubbed",
        "subbed",
        "ws",
        "fs",
        "hc",
        "dc",
        "final",
        "preair",
        "real",
        "retail",
        "hybrid",
        "dl",
        "stv",
        "convert",
        "hfr",
        "doku",
        "sbs",
        "cd",
        "fps",
    ),
)

# --- Groups and titles ------------------------------------------------------------------------------------

_GROUP_RE: Final = re.compile(r"-[ ]?([a-z0-9][a-z0-9_@]*)[ ]*(?:\[[^\]]*\][ ]*)*$", re.IGNORECASE)
# Words that end a name after a dash but are not release groups ("WEB-DL", "…-GERMAN").
_NOT_GROUPS: Final = frozenset(
    {"dl", "rip", "web", "hd", "sd", "uhd", "hdr", "dv", "x264", "x265", "h264", "h265", "hevc", "avc",
     "aac", "ac3", "dts", "ma", "remux", "bluray", "webrip", "webdl", "proper", "repack", "internal",
     "limited", "complete", "subs", "sub"}
) | frozenset(LANGUAGE_WORDS)  # fmt: skip
# "-12v2" and "-1080p" after a dash are numbering, not groups.
_NUMBERING_RE: Final = re.compile(r"\d+(?:v\d|p|i)?", re.IGNORECASE)
_SEPARATORS_RE: Final = re.compile(r"[._]+")
_TRAILING_JUNK_RE: Final = re.compile(r"[\s\-\u2013(\[{:,~+&#/|]+$")
_LEADING_JUNK_RE: Final = re.compile(r"^[\s\-\u2013)\]}:,~.+&#/|]+")
# Brackets left empty or holding only a country once the markers inside were taken: "(US)", "[]".
_EMPTY_BRACKETS_RE: Final = re.compile(r"[(\[{]\s*(?:[A-Z]{2})?\s*[)\]}]")


@dataclass(frozen=True, slots=True)
class ParsedRelease:
    """What a release name says about itself."""

    title: str
    year: int | None
    resolution: str | None  # one of RESOLUTIONS
    source: str | None  # "remux" | "bluray" | "web-dl" | "webrip" | "hdtv" | "dvd" | a TRASH_SOURCES one
    codec: str | None  # "hevc" | "avc" | "av1" | "xvid"
    hdr: tuple[str, ...]  # subset of "DV", "HDR10+", "HDR10", "HDR", in that order
    audio: tuple[str, ...]  # codecs ("TrueHD", "Atmos", "DD+", …) then the channel layout ("5.1")
    languages: tuple[str, ...]  # ISO 639-1 codes of the audio in order of appearance, plus "multi" / "dual"
    seasons: tuple[int, ...]
    episodes: tuple[int, ...]
    complete: bool
    group: str | None
    trash: bool  # CAM/TS/TC/screener/workprint/R5, or a name ending in an executable extension


# "HDTVx264", "WEB-DLx264": a source glued to its codec.
_GLUED_CODEC_RE: Final = re.compile(r"(?<=tv|dl)(?=[xh]\.?26[45])", re.IGNORECASE)
_M2TS_RE: Final = re.compile(r"\.m2ts$", re.IGNORECASE)


def parse_release(name: str) -> ParsedRelease:
    """Parse a torrent release name."""
    text = " ".join(name[:MAX_NAME_LENGTH].split())
    fake = dangerous_name_extension(text) is not None
    # A Blu-ray's stream file says its source when the name does not: "Title.S03E01.Episode.m2ts".
    disc_stream = _M2TS_RE.search(text) is not None
    file_name = strip_extensions(text)
    is_file = len(file_name) < len(text)
    text = _GLUED_CODEC_RE.sub(".", file_name)
    text, leading_group = _strip_prefixes(text)
    scan = Scan(text)
    scan.every(CHECKSUM_RE)
    resolution = _resolution(scan)
    codec = _first_value(scan, _CODEC_PATTERNS)  # before episodes: "x264" is no "3 x 264"
    date_year = date_year_of(scan)
    seasons, episodes = seasons_and_episodes(scan)
    complete = scan.first(_COMPLETE_RE, 0) is not None
    sources = _source_candidates(scan)
    hdr = tuple(
        value for value, pattern in _HDR_PATTERNS if scan.every(pattern, WEAK if value == "DV" else STRONG)
    )
    audio = _audio(scan)
    spoken = take_spoken(scan)
    scan.every(_TAGS_RE)
    scan.every(_TWO_PARTS_RE)
    scan.every(_CAPITAL_TAGS_RE, WEAK)
    other_trash = scan.first(_OTHER_TRASH_RE) is not None
    # A season named by its year ("S2014E18", "1940x01") dates the release when nothing else does.
    season_year = next((season for season in seasons if is_year(str(season))), None)
    start, end, year, title = _title_span(scan, date_year or season_year, show=bool(seasons or episodes))
    if not seasons and not episodes:
        seasons, episodes, new_start, new_end = bare_episode(
            scan, start, end, leading_group=leading_group, year=year, is_file=is_file
        )
        if (new_start, new_end) != (start, end):
            start, end, title = new_start, new_end, _clean_title(scan.text[new_start:new_end])
    elif leading_group and not episodes:
        episodes, new_end = episode_before_season(scan, start, end)
        if new_end != end:
            end, title = new_end, _clean_title(scan.text[start:new_end])
    source = _source(sources, end) or ("bluray" if disc_stream else None)
    if source == "bluray" and "german" in scan.folded and _GERMAN_REMUX_RE.search(text):
        source = "remux"
    return ParsedRelease(
        title=title,
        year=year,
        resolution=resolution,
        source=source,
        codec=codec,
        hdr=hdr,
        audio=audio,
        languages=audio_languages(scan, end, title, spoken),
        seasons=tuple(seasons),
        episodes=tuple(episodes),
        complete=complete,
        group=_group(text, end, leading_group),
        trash=fake or other_trash or source in TRASH_SOURCES,
    )


# German scene remuxes name the disc's own video format, where encodes name their encoder ("x264"), after a
# dual- or multi-language tag: "Title.2010.German.DL.1080p.BluRay.AVC-Grp".
_GERMAN_REMUX_RE: Final = re.compile(
    r"(?<![A-Za-z])(?i:german)[ ._-](?:[A-Za-z0-9]+[ ._-])?[DM]L[ ._-](?:.*[ ._-])?(?i:avc|vc-?1|mpeg-?2)"
    r"(?![A-Za-z0-9])"
)


def normalize_resolution(value: str | None) -> str | None:
    """Return one of RESOLUTIONS for what a person says ("4K", "uhd", "1080"), else None."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        value += "p"
    return _resolution(Scan(value))


def codec_of(value: str) -> str | None:
    """Return the codec a word names ("x265" -> "hevc"), else None."""
    return next((codec for codec, pattern in _CODEC_PATTERNS if pattern.search(value)), None)


def _strip_prefixes(text: str) -> tuple[str, str | None]:
    group: str | None = None
    latin_tags: list[str] = []
    while (match := _PREFIX_RE.match(text)) and match.end() < len(text):
        tag = match.group(1) if match.group(1) is not None else match.group(2)
        if tag is not None and _describes_release(f"[{tag}]"):
            break  # "[BD][1080p] Title": the finders read these
        if group is None and tag is not None and _LEADING_NUMBERS_RE.fullmatch(tag):
            break  # "[2010] Title", "[5.01] Title", "[S1.E08] Title": a year or an episode, not a group
        # "[SubsPlease]" names a group, "[YTS.MX]" names a site.
        if group is None and tag and "." not in tag and tag.lower() not in _NOT_GROUPS:
            group = tag.strip()
        elif tag and _NUMBER_TAG_RE.fullmatch(tag):
            # Numbering keeps its brackets, which tell it from a title's: "[01]", "[166-192TV]", "[第01话]".
            latin_tags.append(f"[{tag}]")
        elif tag and _LATIN_RE.search(tag):
            latin_tags.append(tag)
        text = text[match.end() :]
        # "【Group】★Note★[Sintel][01]": a note in another script before the bracketed title.
        if (lead := _NON_LATIN_LEAD_RE.match(text)) and _LATIN_WORD_TAG_RE.match(text, lead.end()):
            text = text[lead.end() :]
    if latin_tags and text[:1] in "[【":
        # Nothing but brackets: "[Group][片名][Sintel][2010][01][1080p]" has its title in one of them.
        text = " ".join(latin_tags) + " " + text
    return text, group or None


_LEADING_NUMBERS_RE: Final = re.compile(
    r"(?:19|20)\d\d|\d{1,2}\.\d{2,3}|s\d{1,3}[ .]?e\d{1,4}|\d{1,2}x\d{2,3}", re.IGNORECASE
)
_NUMBER_TAG_RE: Final = re.compile(
    r"第?\d{1,4}(?:v\d)?[話话集回]?|\d{1,4} ?[-~] ?\d{1,4}(?:tv)?", re.IGNORECASE
)
_NON_LATIN_LEAD_RE: Final = re.compile(r"^[^\[\]a-z]+(?=\[)", re.IGNORECASE)
_LATIN_WORD_TAG_RE: Final = re.compile(r"\[[^\]]*[a-z]{3}", re.IGNORECASE)


def _describes_release(tag: str) -> bool:
    return any(pattern.search(tag) for pattern in _RESOLUTION_PATTERNS) or any(
        pattern.search(tag) for _, pattern in (*_SOURCE_PATTERNS, *_CODEC_PATTERNS)
    )


def _resolution(scan: Scan) -> str | None:
    for index, pattern in enumerate(_RESOLUTION_PATTERNS):
        match = scan.first(pattern, group=1 if index == 5 else 0)  # noqa: PLR2004 - "BD1080"
        if match is None:
            continue
        if index == 0:  # width x height
            width, height = int(match.group(1)), int(match.group(2))
            return _tier(max(height, width * 9 // 16) if width > height else width)
        if index == 3:  # noqa: PLR2004 - 4K, UHD
            return "2160p"
        if index == 4:  # noqa: PLR2004 - Full HD
            return "1080p"
        if index == 1:  # a pack in several resolutions ("[480p.720p]", "[720p-1080p]") counts as its best
            return _tier(max(int(found.group(1)) for found in (match, *scan.every(pattern))))
        return _tier(int(match.group(1)))
    return None


def _tier(lines: int) -> str:
    if lines >= 1600:  # noqa: PLR2004
        return "2160p"
    if lines >= 900:  # noqa: PLR2004
        return "1080p"
    if lines >= 700:  # noqa: PLR2004
        return "720p"
    return "480p"


def _source_candidates(scan: Scan) -> list[tuple[str, int, bool]]:
    """Return the sources named, best first, each with where it starts and whether it is a title word."""
    candidates: list[tuple[str, int, bool]] = []
    for value, pattern in _SOURCE_PATTERNS:
        if not scan.may_match(pattern):
            continue  # most names name one source: the others' patterns need not run
        for match in pattern.finditer(scan.masked):
            # A word that opens brackets is a tag, not a title's: "Title OVA[DVD]", "Title (DVD, R2)".
            opens_brackets = scan.masked[match.start() - 1 : match.start()] in {"[", "("}
            weak = not opens_brackets and re.sub(r"[ .-]", "", match.group(0)).lower() in _WEAK_SOURCE_WORDS
            scan.take(match, WEAK if weak else STRONG)
            candidates.append((value, match.start(), weak))
    # A bare "TS"/"TC" only says telesync/telecine when no real source is named.
    for match in _BARE_TS_RE.finditer(scan.masked):
        scan.take(match, WEAK)
        candidates.append((_TELESYNC_BARE[match.group(0).lower()], match.start(), True))
    return candidates


def _source(candidates: list[tuple[str, int, bool]], title_end: int) -> str | None:
    # "Web" of "Charlotte's Web" is part of the title, not the source.
    named = [(value, start) for value, start, weak in candidates if not (weak and start < title_end)]
    if named and named[0][0] == "remux":
        # A remux is a Blu-ray's unless the name says before it what else was remuxed: "PDTV.x264-Grp-Remux".
        remuxed = (value for value, start in named if value in _REMUXED_SOURCES and start < named[0][1])
        return next(remuxed, "remux")
    return named[0][0] if named else None


# Sources a name may call remuxed that are no Blu-ray.
_REMUXED_SOURCES: Final = frozenset({"hdtv", "dvd"})


def _first_value(scan: Scan, patterns: tuple[tuple[str, re.Pattern[str]], ...]) -> str | None:
    found: str | None = None
    for value, pattern in patterns:
        if scan.every(pattern) and found is None:
            found = value
    return found


def _audio(scan: Scan) -> tuple[str, ...]:
    found = [
        value
        for value, pattern in _AUDIO_PATTERNS
        if scan.every(pattern, WEAK if value in _TITLE_WORD_AUDIO else STRONG)
    ]
    if channels := scan.first(_CHANNELS_RE, STRONG if found else 0):
        found.append(f"{channels.group(1) or channels.group(3)}.{channels.group(2) or channels.group(4)}")
    return tuple(found)


def _title_span(scan: Scan, date_year: int | None, *, show: bool) -> tuple[int, int, int | None, str]:
    """Return where the title starts and stops, the year if the name has one, and the title.

    The title ends at the first marker; of several years before that point the last is the release year
    ("Blade Runner 2049 2017"). A year at the very start belongs to the title ("1917") unless it is in
    brackets ("(2000) Title"), and so does a year that has not happened yet ("Sintel 2049"). A name that
    starts with a marker ("[BD][1080p] Title") has its title in the first stretch of text between markers.
    """
    latest = dt.datetime.now(tz=dt.UTC).year + 1
    dated = scan.may_match(_YEAR_RE)
    ranges = (
        [match for match in _YEAR_RANGE_RE.finditer(scan.masked) if _is_run(match, latest)] if dated else []
    )
    years = [
        match
        for match in (_YEAR_RE.finditer(scan.masked) if dated else ())
        if (match.start() > 0 or match.group(0)[0] in "([")  # "(2000) Title": a year, not the title
        and int(match.group(1)) <= latest
        and not any(r.start() <= match.start(1) < r.end() for r in ranges)  # "(2001-2010)" too
    ]
    first_marker = _weak_tag_before(scan, scan.first_marker())
    year = date_year
    end = first_marker
    if before := [match for match in years if match.start() < first_marker]:
        # A year in brackets is the release's: "The Insider (1999) 60 Minutes Interview 1996"; one alone in
        # them before one with words: "Title (2010) (2012 Remaster)"; the first of several alone, as guessit
        # and parsett read them: "Title (1968) (1990)" (the later one dates a restoration or an upload).
        bracketed = [match for match in before if match.group(0)[0] in "(["]
        alone = [match for match in bracketed if match.group(0)[-1] in ")]"]
        # In a path, the file's: "Title (2000)/Title (2001).mkv".
        alone = [match for match in alone if match.start() > scan.text.rfind("/")] or alone
        chosen = alone[0] if alone else (bracketed or before)[-1]
        end, year = chosen.start(), int(chosen.group(1))
        scan.take(chosen, 0)
    elif years:
        year = int(years[0].group(1))
        scan.take(years[0], 0)
    elif ranges and ranges[0].start() > 0:
        end = min(end, ranges[0].start())
        if show:  # a show's run, "Title 1993-2004": the year it started; a collection of films has none
            year = year or int(ranges[0].group(1))
    before_tags = end == first_marker < len(scan.text)
    if (
        before_tags
        and _SEASON_CODE_RE.match(scan.text, end)
        and (absolute := _ABSOLUTE_BEFORE_CODE_RE.search(scan.text, 0, end))
    ):
        end = absolute.start()  # "Title - 313 - S16E03": the episode's absolute number is no title word
    if (
        year is None
        and not show
        and (lead := _LEADING_YEAR_RE.match(scan.masked))
        and int(lead.group(1)) <= latest
        and lead.end() < end
        and (title := _clean_title(scan.text[lead.end() : end], before_tags=before_tags))
    ):
        # A film's year may lead its name when no other year follows: "2010.Sintel.720p" ("1917 2019",
        # "2001.A.Space.Odyssey.1968" are titles, and so is a show's "1923 S01E01").
        scan.take(lead, 0)
        return lead.end(), end, int(lead.group(1)), title
    # A title a year ends keeps a language word before it ("Sintel German 2010"): a tag follows the year.
    if title := _clean_title(scan.text[:end], before_tags=before_tags):
        return 0, end, year, title
    for run in re.finditer(r"[^\x00]+", scan.masked):
        later = [start for start, _ in scan.ends if start >= run.end()]
        # The year ends such a title too: "[BD] Sintel 2010 720p".
        dates = [match.start() for match in years if match.start() >= run.end()]
        stop = min([*later, *dates, len(scan.text)])
        before_tags = stop == run.end() < len(scan.text) and stop not in dates
        if title := _clean_title(scan.text[run.start() : stop], before_tags=before_tags):
            return run.start(), stop, year, title
    return 0, len(scan.text), year, _clean_title(scan.text)


_LEADING_YEAR_RE: Final = re.compile(r"((?:19|20)\d{2})[ ._]+(?=[a-z]{2})", re.IGNORECASE)
# An anime episode's absolute number, between dashes or as a range, right before its season code:
# "Title - 313 - S16E03", "Title.313-315.S16E03-05" ("Catch-22 S01E01", "9-1-1 S01E01" are titles).
_ABSOLUTE_BEFORE_CODE_RE: Final = re.compile(
    r"(?:[ ._]-[ ._]\d{2,4}(?:-\d{2,4})?[ ._]-[ ._]|[ ._]\d{2,4}-\d{2,4}[ ._])$"
)
_SEASON_CODE_RE: Final = re.compile(r"s\d{1,3}e\d", re.IGNORECASE)
# A word in capitals and the separators after it.
_CAPITAL_WORD_RE: Final = re.compile(r"[A-Z]{2,9}[ ._-]+")
_LOWER_CASE_RE: Final = re.compile(r"[a-z]")


def _weak_tag_before(scan: Scan, end: int) -> int:
    """Where a weak marker in capitals right before a strong one starts ("Title WEB x264"), else `end`.

    "Charlotte's Web" keeps its "Web"; a title all in capitals, or none before the marker, keeps its words.
    """
    for start, strength in scan.ends:
        if (
            strength == WEAK
            and start < end
            and _CAPITAL_WORD_RE.fullmatch(scan.text, start, end)
            and _LOWER_CASE_RE.search(scan.text, 0, start)
        ):
            return start
    return end


_SHORT_RUN_YEARS: Final = 10


def _is_run(match: re.Match[str], latest: int) -> bool:
    """Whether "1988-89" or "2010-2012" is a run of years: one that ends later, and not after next year.

    A run's end in two digits is written tight and ends within a decade: "[Group] Title 2010 - 01", "Title
    1949 - 21" and "Title 1949-21" are a year and an episode.
    """
    first, last = int(match.group(1)), match.group(2)
    if len(last) == 4:  # noqa: PLR2004
        return first < int(last) <= latest
    end = first // 100 * 100 + int(last)
    if end <= first:  # "1999-00" ends in the next century
        end += 100
    return " " not in match.group(0) and end - first <= _SHORT_RUN_YEARS and end <= latest


def _clean_title(text: str, *, before_tags: bool = False) -> str:
    """Return the title in a name's text before its first marker (`before_tags`: a release tag, no year)."""
    if not text.isascii() and (lead := _FOREIGN_LEAD_RE.match(text)):
        text = text[lead.end() :]  # "超能警探.Pioneer.One": the title in Latin letters, as for aliases
    # Dotted names ("Night.of.the.Living.Dead") use dots as spaces; spaced names keep "Mr." intact.
    text = _SEPARATORS_RE.sub(" ", text) if " " not in text.strip() else text.replace("_", " ")
    if "(" in text or "[" in text or "{" in text:
        text = _EMPTY_BRACKETS_RE.sub(" ", text)
    text = _before_unclosed_bracket(text)  # "Title (Director, 1967)" ends inside the brackets
    if may_match(_ALIAS_SEPARATOR_RE, fold(text)):
        # An alias may hold the start of a note: "Сінтел / Sintel (Режисер / Director)".
        text = _before_unclosed_bracket(_one_title(text))
    previous = None
    # Each tail below is looked for only where the title's last word can end one: most titles end none.
    while previous != text:
        previous = text
        if (last := _last_word(text)) in _EDITION_LAST_WORDS or _VERSION_RE.fullmatch(last):
            edition_gone = _EDITION_RE.sub("", text)
            # "The Final Cut 2004" is a title: an edition leaves more than an article.
            text = text if edition_gone.strip(" ._-").casefold() in _ARTICLES else edition_gone
        if (last := _last_word(text)) in _PACK_LAST_WORDS or last.endswith(("integrale", "intégrale")):
            text = _PACK_WORDS_RE.sub("", text)
        text = _TRAILING_JUNK_RE.sub("", text)
        # After an edition, a language's name is a tag too: "Sintel UNCUT German 2010" ("Sintel German 2010"
        # keeps it).
        before_last = text[: len(text) - len(_last_word(text))].rstrip(" ._-")
        text = trailing_language_tag(
            text, before_tags=before_tags or _last_word(before_last) in _EDITION_LAST_WORDS
        )
        # A trailing aside is an alternative title or a note: "Le Prestige (The Prestige)"; the title in
        # Latin letters when the name's own is in another script: "Сінтел (Sintel)".
        if text[-1:] in ")]" and (aside := _ASIDE_RE.search(text)) and aside.start() > 0:
            inside = aside.group(0).strip(" ._()[]")
            latin_aside = _LATIN_RE.search(inside) and not _LATIN_RE.search(text[: aside.start()])
            text = inside if latin_aside else text[: aside.start()]
    return " ".join(_LEADING_JUNK_RE.sub("", text).split())


def _before_unclosed_bracket(text: str) -> str:
    if (opened := max(text.rfind("("), text.rfind("["))) > 0 and not re.search(r"[)\]]", text[opened:]):
        return text[:opened]
    return text


def _last_word(text: str) -> str:
    """Return the last word of a title, case-folded: what follows its last space, dot, underscore or dash."""
    return text[max(text.rfind(" "), text.rfind("."), text.rfind("_"), text.rfind("-")) + 1 :].casefold()


def _one_title(text: str) -> str:
    """Of a title and its aliases ("Sintel AKA Durian", "Сінтел / Sintel"), keep the first in Latin script."""
    parts = [part for part in _ALIAS_SEPARATOR_RE.split(text) if part.strip()]
    if len(parts) < 2:  # noqa: PLR2004
        return text
    return next((part for part in parts if _LATIN_RE.search(part)), parts[0])


# "AKA", "a.k.a." and a slash between spaces separate a title from its aliases; so does a bare slash next to
# a letter of another script: "片名/Sintel" ("AC/DC", "Fate/Zero" are titles).
_ALIAS_SEPARATOR_RE: Final = hinted(
    re.compile(
        r"[ ._]+(?:aka|a\.k\.a\.?)[ ._]+|\s+/\s+|(?<=[^\x00-\u024f])/|/(?=[^\x00-\u024f])",
        re.IGNORECASE,
    ),
    ("aka", "a.k.a", "/"),
)
_LATIN_RE: Final = re.compile(r"[a-z]", re.IGNORECASE)
# Words in another script before a title in Latin letters (of three letters or more).
_FOREIGN_LEAD_RE: Final = re.compile(
    r"(?:[^\s.A-Za-z0-9\u00c0-\u024f\u1e00-\u1eff]+[\s.]+)+(?=[A-Za-z\u00c0-\u024f]{3})"
)
# Edition words and a version that end a title: "Sintel EXTENDED", "Sintel - International Cut", "Sintel v2".
_EDITION_RE: Final = re.compile(
    r"[ ._-]+(?:custom|extended|imax|edition|hq|uncut|unrated|remastered|integral|theatrical|v\d|"
    r"(?:director'?s?|international|extended|theatrical|final)[ ._]cut|"
    r"(?:special|collector'?s|ultimate|anniversary)[ ._]edition)$",
    re.IGNORECASE,
)
# The last words _EDITION_RE and _PACK_WORDS_RE can end on.
_EDITION_LAST_WORDS: Final = frozenset(
    {
        "custom",
        "extended",
        "imax",
        "edition",
        "hq",
        "uncut",
        "unrated",
        "remastered",
        "integral",
        "theatrical",
        "cut",
    }
)
_VERSION_RE: Final = re.compile(r"v\d")
_ARTICLES: Final = frozenset({"the", "a", "an", "le", "la", "les", "der", "die", "das", "el", "il", "lo"})
_PACK_LAST_WORDS: Final = frozenset(
    {"complete", "full", "coffret", "all", "series", "miniseries", "season", "seasons", "collection", "set",
     "boxset", "pack", "us", "uk", "au", "nz", "ca", "ep", "episode"}
)  # fmt: skip


_ASIDE_RE: Final = re.compile(r"[ ._]*[(\[][^()\[\]]*[)\]]$")


def _group(text: str, title_end: int, leading_group: str | None) -> str | None:
    match = _GROUP_RE.search(text)
    if match and match.start() >= title_end and title_end < len(text):
        group = match.group(1)
        if group.lower() not in _NOT_GROUPS and not _NUMBERING_RE.fullmatch(group):
            return group
    return leading_group
