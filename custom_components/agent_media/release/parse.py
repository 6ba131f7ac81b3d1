"""Release-name parsing: what a torrent's name says about itself.

Pure Python (standard library only, no Home Assistant, no I/O). A compact set of regular expressions rather
than a third-party parser: measured by bench/parse.py (figures per corpus in the README), it reads names from
corpora other than parsett's own about as well as parsett or better, in a fifth of its time, without parsett's
pins (`regex<2026`, arrow).

How it reads a name: each kind of marker (resolution, episode numbering, source, codec, …) is looked for in
turn; what a finder takes is masked so later finders do not read it again ("1280x720" is never an episode,
"E-AC3-S78" never a season). The title is the text before the first marker; the year is the last year
before that marker, so "Blade Runner 2049 2017" keeps its 2049 (see _title_span).
"""

from __future__ import annotations

from dataclasses import dataclass
import datetime as dt
import re
from typing import Final

from ..safety import MEDIA_EXTENSIONS, dangerous_name_extension

# Names come from search results: a longer one is junk, and clipping bounds the regular expressions' work.
MAX_NAME_LENGTH: Final = 400
# The resolution tiers the ranking knows, best first; other SD sizes (576p, 360p) count as 480p.
RESOLUTIONS: Final = ("2160p", "1080p", "720p", "480p")
TRASH_SOURCES: Final = frozenset({"cam", "telesync", "telecine", "screener"})

_MASK: Final = "\x00"
_L: Final = r"(?<![a-z0-9])"
_R: Final = r"(?![a-z0-9])"
# Audio codecs are often glued to their channels ("DDP5.1"), so only a letter ends them.
_NO_LETTER: Final = r"(?![a-z])"


def _token(pattern: str, *, right: str = _R, flags: int = re.IGNORECASE) -> re.Pattern[str]:
    return re.compile(f"{_L}(?:{pattern}){right}", flags)


# --- Extensions and prefixes ------------------------------------------------------------------------------

# Containers, subtitles and side files a name may end in; they say nothing about the release. ".ts" is
# left to _TS_EXTENSION_RE.
_FILE_EXTENSIONS: Final = (MEDIA_EXTENSIONS - {"ts"}) | frozenset(
    {"nfo", "srt", "sub", "idx", "ass", "ssa", "vob", "flv", "ogm", "ogv", "rmvb", "divx", "3gp"}
)
_EXTENSION_RE: Final = re.compile(r"\.([a-z0-9]{2,7})$", re.IGNORECASE)
# A lower-case ".ts" is a transport stream file; an upper-case "TS" is a telesync tag.
_TS_EXTENSION_RE: Final = re.compile(r"\.ts$")
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
    # A source glued before ("BD1080p", "Bluray720p", "TC1080P") is left for the source finders.
    re.compile(
        r"(?:(?<![a-z0-9])(?:hd|m)?|(?<=bd|tc)|(?<=ray))(2160|1440|1080|720|576|540|480|360|240)0?[pi](?:\d{2})?"
        r"(?![a-z])",
        re.IGNORECASE,
    ),
    re.compile(r"(?<![a-z0-9])(1080|720)[ .](?=hi10p)", re.IGNORECASE),
    _token(r"(4k|uhd|ultra[ .-]?hd)(?![ .-]?rip)"),
    _token(r"(full[ .-]?hd|fhd)"),
)

# --- Seasons and episodes ---------------------------------------------------------------------------------

# Continuations of a first episode: "E01E02", "E01-E04", "E01-04", "E01+02", "1x02-03-04", "5x44x45".
_MORE_EPISODES: Final = (
    r"(?P<more>(?:(?:[ ._]?[-+&]?[ ._]?e|[ ._](?:à|a|to)[ ._]e|-\d{1,2}[x×]|-[x×]?|\+|[x×])"  # noqa: RUF001 - letters of other scripts, on purpose
    r"\d{1,3}(?![\dpi]|[a-z]{2}))*)"
)
_SXXEYY_RE: Final = re.compile(
    r"(?<![a-z0-9])[st](?P<season>\d{1,3}|(?:19|20)\d{2})(?![\d])[ ._-]{0,3}(?:x?e|ep|episode)[ ._]?"
    rf"(?P<episode>\d{{1,4}})(?![\d])(?:v\d)?{_MORE_EPISODES}",
    re.IGNORECASE,
)
_CROSS_RE: Final = re.compile(
    r"(?<![a-z0-9])(?P<season>\d{1,2}|(?:19|20)\d{2})(?:[x×]| [x×] )(?P<episode>\d{1,3})(?![\dpi])"  # noqa: RUF001 - letters of other scripts, on purpose
    rf"{_MORE_EPISODES}(?![a-z0-9])",
    re.IGNORECASE,
)
# "S2-07", "S1 - 01": a one-digit season and an episode after a dash.
_SEASON_DASH_EPISODE_RE: Final = re.compile(
    r"(?<![a-z0-9-])s(?P<season>\d)[ ]?-[ ]?(?P<episode>\d{2,3})(?![\dpi])", re.IGNORECASE
)
# "Title - 6.01 - Episode", "[5.134]", "Episode 1.22": a season and an episode around a dot, set apart by a
# dash, brackets or an episode word (so that "DD 5.1" and "Title 2.0" stay what they are).
_DOTTED_EPISODE_RE: Final = re.compile(
    r"(?:(?<=\[)|(?<= - )|(?<=episode )|(?<=episode\.))(?P<season>\d{1,2})\.(?P<episode>\d{2,3})(?=\]| - )",
    re.IGNORECASE,
)
_SEASON_WORDS: Final = (
    r"seasons?|saisons?|temporadas?|temp|tem|stagione|stagioni|staffeln?|seizoen|sezon[uy]?l?|s[äa]song|s[æa]son|"
    r"sesong|kausi|évad|evad|сезон[а-я]?|сезоны|сезону"  # noqa: RUF001 - letters of other scripts, on purpose
)
_ROMAN: Final = {"i": 1, "ii": 2, "iii": 3, "iv": 4, "v": 5, "vi": 6, "vii": 7, "viii": 8, "ix": 9, "x": 10,
                 "xi": 11, "xii": 12, "xiii": 13, "xiv": 14, "xv": 15}  # fmt: skip
_NUMBER_WORDS: Final = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
                        "eight": 8, "nine": 9, "ten": 10, "un": 1, "deux": 2, "trois": 3, "quatre": 4,
                        "cinq": 5, "sept": 7, "huit": 8, "neuf": 9, "dix": 10}  # fmt: skip
_SEASON_NUMBER: Final = rf"(?:\d{{1,2}}|{'|'.join(sorted((*_ROMAN, *_NUMBER_WORDS), key=len, reverse=True))})"
# "Season 1", "Seasons 1-3", "Season 1 to 6", "Season 1, 2 & 3", "Temporada 1 de 5", "Saison VII".
_SEASON_WORD_RE: Final = _token(
    rf"(?:the[ ._]complete[ ._])?(?:{_SEASON_WORDS})[ ._:№]{{0,3}}(?P<first>{_SEASON_NUMBER})(?![\d])"
    r"(?P<rest>(?:(?:[ ._]?,?[ ._]?(?:to|&|and|,|\+|a)[ ._]?|[ ._]?-(?![ ._]0)[ ._]?)"
    r"(?:s|season[ ._]?)?\d{1,2}(?!\d)"
    r"|[ ._]\d{1,2}(?![a-z0-9]))*)"
    r"(?:[ ._]?(?:of|de|di|van|von|din|из)[ ._]?\d{1,2})?",
    right=r"(?![a-z0-9])",
)
# "2nd Season", "10 th season", "3º Temporada", "1a. Temporada", "2. Staffel", "5-й сезон", "2 сезон"; a
# bare number before an English "Season" is part of the title ("24 Season 1-8").
_ORDINAL_SEASON_RE: Final = _token(
    rf"(?P<first>\d{{1,2}})(?:[ ]?(?:st|nd|rd|th|º|°|ª|a\.?|\.|-?й|-?го)[ ._]?(?:{_SEASON_WORDS})"  # noqa: RUF001 - letters of other scripts, on purpose
    r"|[ ._](?:сезон[а-я]?|évad|evad|sezon|temporada|stagione|saison|staffel))",  # noqa: RUF001 - letters of other scripts, on purpose
    right="",
)
# "1ª a 8ª Temporada", "1-3 Seasons", "(1-8) Staffeln".
_ORDINAL_SEASON_RANGE_RE: Final = _token(
    r"(?P<first>\d{1,2})(?:º|°|ª|st|nd|rd|th)?[ ._]?(?:-|a|al|to|à)[ ._]?"
    rf"(?P<last>\d{{1,2}})(?:º|°|ª|st|nd|rd|th)?[ ._)]{{1,2}}(?:{_SEASON_WORDS})",
    right=r"(?![a-z0-9])",
)
# Where the number comes first: "24 серия", "09-я серия", "5. rész", "7.Bolum".
_NUMBER_EPISODE_WORD_RE: Final = _token(
    r"(?P<episode>\d{1,4})(?:-?я|\.)?[ ._]?"
    r"(?:серия|серии|серія|серії|сер|seriya|seria|rész|resz|bölüm|bolum)",  # noqa: RUF001 - letters of other scripts, on purpose
    right="",
)
_SEASON_RANGE_RE: Final = re.compile(
    r"(?<![a-z0-9-])s(?P<first>\d{1,2})"
    r"(?:(?:[ ._]?-{1,2}[ ._]?s?|[ ._]?(?:to|&|,|\+)[ ._]?s)\d{1,2}(?!\d)(?=[ ._]?(?:-|to|&|,|\+)[ ._]?s\d))*"
    r"(?:[ ._]?-{1,2}[ ._]?s?|[ ._]?(?:to|&|,|\+)[ ._]?s)(?P<last>\d{1,2})(?!\d)"
    r"(?![ ._-]?e\d)",
    re.IGNORECASE,
)
_SEASON_RE: Final = re.compile(
    r"(?<![a-z0-9-])s(\d{1,2}|(?:19|20)\d{2})(?![\d])(?![ ._-]?e\d)", re.IGNORECASE
)
_EPISODE_WORDS: Final = (
    r"episodes?|episodios?|episódios?|épisodes?|episodi|episodul|eps?|cap[ií]tulos?|cap|folgen?|"
    r"afleveringe?n?|afl|odcinki?|odcinek|avsnitt|puntat[ae]|rész|resz|серия|серии|серія|серії|эпизод|"
    r"bolum|bölüm|jaksot?|seriya|seria"
)
# "Episode 5", "Ep.05", "Capitulo 5 de 12", "E576", "E02-03", "Folge 5 von 12".
_EPISODE_WORD_RE: Final = _token(
    rf"(?:(?:{_EPISODE_WORDS})[ ._#:№-]{{0,3}}|e)(?P<episode>\d{{1,4}})(?:[ ._]?v\d)?"
    r"(?:(?:[ ._]?-[ ._]?|[ ._](?:à|a|al|to)[ ._])(?:ep?)?(?P<last>\d{1,4})"
    r"|[+&]e?(?P<plus>\d{1,3}))?"
    r"(?:[ ._]?(?:of|de|di|van|von|din|из)[ ._]?\d{1,4})?",
    right=r"(?![a-z0-9])",
)
# Spanish "[Cap.102]": season 1, episode 2; "[Cap.102_104]": episodes 2-4.
_CAP_CODE_RE: Final = re.compile(
    r"\bcap[ .]?(?P<season>\d{1,2})(?P<episode>\d{2})(?:_(?:\d{1,2})?(?P<last>\d{2}))?(?!\d)", re.IGNORECASE
)
# "14 of 21", "1of4": an episode of a known number.
_OF_RE: Final = _token(r"(?P<episode>\d{1,2})[ ._]?(?:of|iz|из)[ ._]?\d{1,2}")
# East Asian numbering: "第3話", "第23集", "第二季".
_CJK_EPISODE_RE: Final = re.compile(r"第([0-9一二三四五六七八九十百]+)[話话集回]")
_CJK_SEASON_RE: Final = re.compile(r"第([0-9一二三四五六七八九十]+)季|シーズン([0-9]+)")
_CJK_DIGITS: Final = {"一": 1, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
# Bare numbers, read only when nothing else numbers the episode (see _bare_episode).
_DASH_NUMBER_RE: Final = re.compile(
    r"(?<=[ ._])-[ ._]{1,3}(?P<episode>\d{1,4})(?:v\d{1,2})?(?:[ ]?[-~][ ]?(?P<last>\d{1,4}))?"
    r"(?:v\d{1,2})?(?=[ ._]*(?:$|[\[(\x00]|-[ ._]|[ ._]))",
)
_BARE_NUMBER_RE: Final = re.compile(
    r"(?<=[ ._])(?P<episode>\d{1,4})(?:v\d{1,2})?(?:-(?P<last>\d{1,4}))?(?=[ ._]*(?:$|[\[(\x00]))"
)
_LEADING_NUMBER_RE: Final = re.compile(
    r"^(?P<episode>\d{1,4})(?:-(?P<last>\d{1,4}))?(?:v\d)?(?:\. |[ ._]-[ ._]|-(?=[a-z]))", re.IGNORECASE
)
# "the.100.109.hdtv", "FooBar.0307.PDTV": season and episode in one number before a TV source or codec.
_NUMBER_BEFORE_TV_RE: Final = re.compile(
    r"(?<=[ ._])(?P<number>\d{1,4})(?:v\d)?[ ._]+(?=(?:(?:480|576|720|1080)[pi][ ._]+(?=hdtv|pdtv|sdtv))?"
    r"(?:hdtv|pdtv|sdtv|dsr|tvrip|hdtvrip|x264|h264|xvid)(?![a-z0-9]))",
    re.IGNORECASE,
)
_DATE_RE: Final = re.compile(
    r"(?<![0-9])(?:(?P<year>(?:19|20)\d{2})[ .-](?:0[1-9]|1[0-2])[ .-](?:[0-2]\d|3[01])"
    r"|(?:[0-3]\d)[ .-](?:[0-3]\d)[ .-](?P<year2>(?:19|20)\d{2}))(?![0-9])"
)
_YEAR_RE: Final = re.compile(
    r"(?<![a-z0-9])[(\[]?((?:19|20)\d{2})[)\]]?(?![a-z0-9]|[.-]\d{2}[.-])", re.IGNORECASE
)
_YEAR_RANGE_RE: Final = re.compile(r"(?<![0-9])((?:19|20)\d{2}) ?- ?(?:(?:19|20)\d{2}|\d{2})(?![0-9])")
_COMPLETE_RE: Final = _token(
    r"complete|completa|completo|integrale?|intégrale|l'?int[ée]grale|coffret|collection|all[ ._]seasons"
)
# Words around a pack's marker that belong to neither the title nor anything else.
_PACK_WORDS_RE: Final = re.compile(
    r"(?:[ ._-]+(?:the[ ._])?(?:complete|full|integrale|intégrale|l'?int[ée]grale|coffret|all)"
    r"(?:[ ._-]+(?:series|miniseries|mini[ ._-]series|tv[ ._-]series|seasons?|collection|box[ ._-]?set|"
    r"pack))*)+$"
    r"|[ ._-]+(?:US|UK|AU|NZ|CA)$|[ ._-]+(?:ep|episode)$",
    re.IGNORECASE,
)

# --- Source, codec, HDR, audio ----------------------------------------------------------------------------

# Checked in this order: the first hit wins, so REMUX beats BluRay and trash beats everything; a bare "TS"
# yields to a real source ("HDTV … TS" is a transport stream, not a telesync).
_SOURCE_PATTERNS: Final = (
    ("remux", _token(r"(?:bd|uhd|br|blu-?ray)?[ .-]?remux")),
    ("cam", _token(r"(?:hd|hq)?[ .-]?cam(?:hd|hq)?(?:[ .-]?rip|rp)?|hd[ .-]?cam|s[ .-]print")),
    ("telesync", _token(r"(?:hd|hq)[ .-]?ts(?:rip)?|ts[ .-]?rip|telesync|p(?:re[ .-]?)?dvd(?:[ .-]?rip)?")),
    # "TC1080p": a telecine glued to its resolution (masked by then).
    ("telecine", _token(r"(?:hd|hq)[ .-]?tc(?:rip)?|tc[ .-]?rip|telecine|tc(?=\x00)", right=r"(?![a-z])")),
    ("screener", _token(r"(?:dvd|bd|br|web|hd|blu-?ray)?[ .-]?scr(?:eener)?|dvdscr|bdscr")),
    ("webrip", _token(r"web[ .-]?rip|web[ .-]?dl[ .-]?rip|hd[ .-]?rip|web[ .-]?cap|microhd")),
    (
        "bluray",
        _token(
            r"blu[ .-]?ray|b[dr][ .-]?rip|bdr|bd25|bd50|bd[ .-]?rm|bdmv|(?<=[\[(])bd(?=[\]) .,_-])|"
            r"b[dr](?:rip)?[ .-]?mux|hddvd|bd[ .-]?light|bd(?=\x00)"
        ),
    ),
    (
        "web-dl",
        _token(
            r"web[ .-]?dl|web[ .-]?hd|webmux|dlmux|web(?![ .-]?(?:rip|dl))|amzn|itunes|"
            # A streaming service's HD tag: "NetflixHD", "DisneyUHD", "HBOMaxHD".
            r"(?:netflix|amazon|maxdome|disney|hbomax|hbo|appletv|hulu|paramount)u?hd"
        ),
    ),
    (
        "hdtv",
        _token(
            r"a?hd[ .]?tv(?:rip|mux)?|pdtv|sdtv|dsr(?:ip)?|tv[ .-]?rip|sat[ .-]?rip|dvb[ .-]?rip|dvb|"
            r"ppv[ .-]?rip|"
            r"(?:netflix)?uhd[ .-]?rip|hdtv"
        ),
    ),
    ("dvd", _token(r"dvd(?:[ .-]?rip|5|9|r\d?|[ .-]?mux)?|ntsc|pal(?=[ .]dvd)")),
)
_BARE_TS_RE: Final = _token(r"ts|tc")
_TELESYNC_BARE: Final = {"ts": "telesync", "tc": "telecine"}
# Source words that are also title words ("Charlotte's Web"): they end a title only when nothing else does.
_WEAK_SOURCE_WORDS: Final = frozenset({"web", "cam", "dvd", "pal", "ntsc", "dvb", "scr", "ts", "tc"})
_OTHER_TRASH_RE: Final = _token(r"workprint|r5|r6|line(?=[ .]audio)")
_CODEC_PATTERNS: Final = (
    ("hevc", _token(r"[xh][ .-]?265|hevc(?:10)?", right=r"(?![a-z0-9])")),
    ("av1", _token(r"av1")),
    ("avc", _token(r"[xh][ .-]?264|avc(?:hd)?|h264")),
    ("xvid", _token(r"xvid(?:hd)?|divx")),
)
_HDR_PATTERNS: Final = (
    ("DV", _token(r"dv|dovi|dolby[ ._-]?vision")),
    ("HDR10+", _token(r"hdr10(?:\+|[ .-]?plus)", right=r"(?![a-z0-9])")),
    ("HDR10", _token(r"hdr10(?!\+|[ .-]?plus)")),
    ("HDR", _token(r"hdr(?!10)(?:\d{3,4})?")),
)
_AUDIO_PATTERNS: Final = (
    ("TrueHD", _token(r"true-?hd", right=_NO_LETTER)),
    ("Atmos", _token(r"atmos", right=_NO_LETTER)),
    ("DTS-HD MA", _token(r"dts-?hd[ ._-]?ma", right=_NO_LETTER)),
    ("DTS-HD", _token(r"dts[ .-]?hd(?![ ._-]?ma)", right=_NO_LETTER)),
    ("DTS-X", _token(r"dts[ ._:-]?x", right=_R)),
    ("DTS", _token(r"dts(?![ ._:-]?(?:hd|x(?![a-z0-9])))", right=_NO_LETTER)),
    ("DD+", _token(r"ddp|dd\+|e-?ac-?3|eac3", right=_NO_LETTER)),
    ("DD", re.compile(r"(?<![a-z0-9-])(?:dd(?![p+])|ac-?3d?)(?![a-z])", re.IGNORECASE)),
    ("AAC", _token(r"aac", right=_NO_LETTER)),
    ("FLAC", _token(r"flac", right=_NO_LETTER)),
    ("Opus", _token(r"opus", right=_NO_LETTER)),
    ("MP3", _token(r"mp3")),
    ("LPCM", _token(r"l?pcm", right=_NO_LETTER)),
)
# "5.1", and after an audio codec (masked by then) "DD51", "AAC2 0".
_TITLE_WORD_AUDIO: Final = frozenset({"Opus", "Atmos"})
_CHANNELS_RE: Final = re.compile(
    r"(?<!\d)(?<!\d\.)([1-9])\.([0-2])(?:ch)?(?!\d)|(?<=\x00)([1-9]) ?([0-2])(?:ch)?(?!\d)", re.IGNORECASE
)
# Release tags that end a title but carry nothing the ranking reads; title words only in capitals.
_TAGS_RE: Final = _token(
    r"proper|repack|rerip|internal|unrated|remastered|dublado|legendado|hardsub|softsub|fastsub|vostfr|vost|"
    r"subfrench|10[ .-]?bits?|8[ .-]?bits?|hi10p?|nfofix|readnfo|dirfix|ac3d|\d+ ?mbps|\d+(?:\.\d+)? ?gb|"
    # Subtitles named by language ("SWESUB", "ESubs"), pay-per-view, video codecs the vocabulary leaves out.
    r"(?:swe|dan|fin|nor|kor|pl|eng|ita|fre|ger|spa|rus|dk|nl|ro|hun|cz|e)subs?|ppv|vp9|mpeg-?2|vc-?1"
)
_CAPITAL_TAGS_RE: Final = _token(
    r"LIMITED|UNCUT|UNCENSORED|EXTENDED|RESTORED|THEATRICAL|IMAX|CRITERION|DUBBED|SUBBED|WS|FS|HC|DC|"
    r"FINAL|PREAIR|PREAiR|REAL|RETAIL|HYBRID|DL|STV|CONVERT|HFR|DOKU|SBS|CD\d(?:of\d)?|\d{2,3}fps",
    flags=0,
)

# --- Languages --------------------------------------------------------------------------------------------

_LANGUAGE_WORDS: Final = {
    "english": "en", "eng": "en", "en": "en", "ingles": "en", "inglés": "en",
    "french": "fr", "truefrench": "fr", "vff": "fr", "vfq": "fr", "vf2": "fr", "vfi": "fr", "vf": "fr",
    "fre": "fr", "fra": "fr", "francais": "fr", "français": "fr", "fr": "fr",
    "german": "de", "ger": "de", "deu": "de", "deutsch": "de", "de": "de",
    "italian": "it", "ita": "it", "italiano": "it", "it": "it",
    "spanish": "es", "spa": "es", "esp": "es", "castellano": "es", "latino": "es", "español": "es",
    "espanol": "es", "es": "es",
    "portuguese": "pt", "por": "pt", "portugues": "pt", "português": "pt", "pt": "pt",
    "russian": "ru", "rus": "ru", "ru": "ru",
    "japanese": "ja", "jpn": "ja", "jap": "ja", "jp": "ja",
    "korean": "ko", "kor": "ko",
    "chinese": "zh", "mandarin": "zh", "cantonese": "zh", "chs": "zh", "cht": "zh", "chi": "zh",
    "hindi": "hi", "hin": "hi",
    "dutch": "nl", "dut": "nl", "flemish": "nl", "nl": "nl",
    "polish": "pl", "pol": "pl", "pl": "pl",
    "swedish": "sv", "swe": "sv",
    "danish": "da", "dan": "da",
    "norwegian": "no", "nor": "no",
    "finnish": "fi", "fin": "fi",
    "turkish": "tr", "tur": "tr",
    "arabic": "ar", "ara": "ar",
    "ukrainian": "uk", "ukr": "uk",
    "czech": "cs", "cze": "cs", "cz": "cs",
    "hungarian": "hu", "hun": "hu",
    "greek": "el", "gre": "el",
    "hebrew": "he", "heb": "he",
    "thai": "th",
    "vietnamese": "vi", "vie": "vi",
    "tamil": "ta", "tam": "ta",
    "telugu": "te", "tel": "te",
    "malayalam": "ml", "mal": "ml",
    "kannada": "kn", "bengali": "bn", "marathi": "mr", "punjabi": "pa",
    "romanian": "ro", "rum": "ro", "rom": "ro",
    "catalan": "ca", "catala": "ca", "català": "ca", "cat": "ca",
    "croatian": "hr", "serbian": "sr", "slovak": "sk", "slovenian": "sl", "bulgarian": "bg",
    "lithuanian": "lt", "latvian": "lv", "estonian": "et", "persian": "fa", "farsi": "fa",
    "indonesian": "id", "malay": "ms", "icelandic": "is",
    "urdu": "ur", "arab": "ar", "sk": "sk", "lt": "lt", "hu": "hu", "ro": "ro", "ja": "ja", "dk": "da",
    "multi": "multi", "dual": "dual", "dual-audio": "dual",
}  # fmt: skip
# Words that name several audio languages at once.
_LANGUAGE_GROUPS: Final = {"nordic": ("da", "fi", "no", "sv"), "scandinavian": ("da", "no", "sv")}
# Glued dubbing tags: "DUBPL", "PLDUB", "HUNDUB", "RoDubbed".
_DUBBED_RE: Final = re.compile(
    r"(?<![a-z])(?:dub[ .-]?(?P<after>[a-z]{2,3})|(?P<before>[a-z]{2,3})[ .-]?dub(?:bed)?)(?![a-z])",
    re.IGNORECASE,
)
# Two-letter codes that are also words of titles in title case ("De", "It"); other codes count so ("Fr-Eng").
_TITLE_CASE_WORDS: Final = frozenset({"de", "it", "en", "es", "no", "ro", "hu", "ja"})
# Chinese audio named in Chinese: Mandarin (国语, 普通话) or Cantonese (粤语).
_CHINESE_AUDIO_RE: Final = re.compile(r"国语|國語|粤语|粵語|普通话|普通話|国粤")
# Two-letter codes and short words that are also English words or title words only count in capitals.
_CAPITALS_ONLY: Final = frozenset(
    {"en", "fr", "de", "it", "es", "pt", "ru", "nl", "pl", "jp", "cz", "vf", "cat", "tam", "tel", "mal",
     "rom", "dan", "fin", "nor", "por", "spa", "gre", "chi", "jap", "rum", "tur", "sk", "lt", "hu", "ro",
     "ja", "dk", "arab"}
)  # fmt: skip
# Words are looked up in _LANGUAGE_WORDS: one pass over the name instead of a long alternation.
_WORD_RE: Final = re.compile(r"[^\W\d_]+(?:-audio)?", re.IGNORECASE)
# "sub.FR", "FRENCH.Subs", "VOSTFR": subtitles, not the audio.
_SUBTITLE_BEFORE_RE: Final = re.compile(r"(?:sub(?:s|titles?|bed)?|legendas?|vost)[ ._-]*$", re.IGNORECASE)
_SUBTITLE_AFTER_RE: Final = re.compile(r"^[ ._-]*(?:sub|legend|subtitle|softsub|hardsub)", re.IGNORECASE)

# --- Groups and titles ------------------------------------------------------------------------------------

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
_TRAILING_JUNK_RE: Final = re.compile(r"[\s\-\u2013(\[{:,~+&#/|]+$")
_LEADING_JUNK_RE: Final = re.compile(r"^[\s\-\u2013)\]}:,~.+&#/|]+")
# Brackets left empty or holding only a country once the markers inside were taken: "(US)", "[]".
_EMPTY_BRACKETS_RE: Final = re.compile(r"[(\[{]\s*(?:[A-Z]{2})?\s*[)\]}]")
_MASKED_RE: Final = re.compile(f"{_MASK}+")


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
_STRONG: Final = 2  # ends the title wherever it is
_WEAK: Final = 1  # ends the title only when nothing strong does ("Web" of "Charlotte's Web")
_CRC_RE: Final = re.compile(r"[\[(][0-9a-f]{8}[\])]", re.IGNORECASE)


class _Scan:
    """A name being read: finders take spans from `masked`; `ends` records where markers start."""

    __slots__ = ("ends", "masked", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self.masked = text
        self.ends: list[tuple[int, int]] = []  # (start, strength)

    def take(self, match: re.Match[str], strength: int = _STRONG) -> None:
        start, end = match.span()
        self.masked = self.masked[:start] + _MASK * (end - start) + self.masked[end:]
        if strength:
            self.ends.append((start, strength))

    def first(self, pattern: re.Pattern[str], strength: int = _STRONG) -> re.Match[str] | None:
        match = pattern.search(self.masked)
        if match is not None:
            self.take(match, strength)
        return match

    def every(self, pattern: re.Pattern[str], strength: int = _STRONG) -> list[re.Match[str]]:
        matches = list(pattern.finditer(self.masked))
        for match in matches:
            self.take(match, strength)
        return matches

    def first_marker(self) -> int:
        strong = [start for start, strength in self.ends if strength == _STRONG]
        return min(strong or [start for start, _ in self.ends] or [len(self.text)])


def parse_release(name: str) -> ParsedRelease:
    """Parse a torrent release name."""
    text = " ".join(name[:MAX_NAME_LENGTH].split())
    fake = dangerous_name_extension(text) is not None
    text = _GLUED_CODEC_RE.sub(".", _strip_extensions(text))
    text, leading_group = _strip_prefixes(text)
    scan = _Scan(text)
    scan.every(_CRC_RE)
    resolution = _resolution(scan)
    codec = _first_value(scan, _CODEC_PATTERNS)  # before episodes: "x264" is no "3 x 264"
    date_year = _date(scan)
    seasons, episodes = _seasons_and_episodes(scan)
    complete = scan.first(_COMPLETE_RE, 0) is not None
    sources = _source_candidates(scan)
    hdr = tuple(
        value for value, pattern in _HDR_PATTERNS if scan.every(pattern, _WEAK if value == "DV" else _STRONG)
    )
    audio = _audio(scan)
    scan.every(_TAGS_RE)
    scan.every(_CAPITAL_TAGS_RE, _WEAK)
    other_trash = scan.first(_OTHER_TRASH_RE) is not None
    # A season named by its year ("S2014E18", "1940x01") dates the release when nothing else does.
    season_year = next((season for season in seasons if _is_year(str(season))), None)
    start, end, year = _title_span(scan, date_year or season_year)
    if not seasons and not episodes:
        seasons, episodes, start, end = _bare_episode(
            scan, start, end, leading_group=leading_group, year=year
        )
    title = _clean_title(scan.text[start:end])
    source = _source(sources, end)
    return ParsedRelease(
        title=title,
        year=year,
        resolution=resolution,
        source=source,
        codec=codec,
        hdr=hdr,
        audio=audio,
        languages=_languages(scan, end, title),
        seasons=tuple(seasons),
        episodes=tuple(episodes),
        complete=complete,
        group=_group(text, end, leading_group),
        trash=fake or other_trash or source in TRASH_SOURCES,
    )


def normalize_resolution(value: str | None) -> str | None:
    """Return one of RESOLUTIONS for what a person says ("4K", "uhd", "1080"), else None."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        value += "p"
    return _resolution(_Scan(value))


def codec_of(value: str) -> str | None:
    """Return the codec a word names ("x265" -> "hevc"), else None."""
    return next((codec for codec, pattern in _CODEC_PATTERNS if pattern.search(value)), None)


def language_code(value: str) -> str:
    """Return the ISO 639-1 code for a language's name or code ("French", "fre", "fr" -> "fr")."""
    value = value.strip().lower()
    return _LANGUAGE_WORDS.get(value, value[:2] if len(value) > 2 else value)  # noqa: PLR2004


def _strip_extensions(text: str) -> str:
    while True:
        if match := _TS_EXTENSION_RE.search(text):
            text = text[: match.start()]
            continue
        match = _EXTENSION_RE.search(text)
        if match is None or match.group(1).lower() not in _FILE_EXTENSIONS:
            return text
        text = text[: match.start()]


def _strip_prefixes(text: str) -> tuple[str, str | None]:
    group: str | None = None
    latin_tags: list[str] = []
    while (match := _PREFIX_RE.match(text)) and match.end() < len(text):
        tag = match.group(1) if match.group(1) is not None else match.group(2)
        if tag is not None and _describes_release(f"[{tag}]"):
            break  # "[BD][1080p] Title": the finders read these
        # "[SubsPlease]" names a group, "[YTS.MX]" names a site.
        if group is None and tag and "." not in tag and tag.lower() not in _NOT_GROUPS:
            group = tag.strip()
        elif tag and (_LATIN_RE.search(tag) or tag.strip().isdigit()):
            latin_tags.append(tag)
        text = text[match.end() :]
        # "【Group】★Note★[Sintel][01]": a note in another script before the bracketed title.
        if (lead := _NON_LATIN_LEAD_RE.match(text)) and _LATIN_WORD_TAG_RE.match(text, lead.end()):
            text = text[lead.end() :]
    if latin_tags and text[:1] in "[【":
        # Nothing but brackets: "[Group][片名][Sintel][2010][01][1080p]" has its title in one of them.
        text = " ".join(latin_tags) + " " + text
    return text, group or None


_NON_LATIN_LEAD_RE: Final = re.compile(r"^[^\[\]a-z]+(?=\[)", re.IGNORECASE)
_LATIN_WORD_TAG_RE: Final = re.compile(r"\[[^\]]*[a-z]{3}", re.IGNORECASE)


def _describes_release(tag: str) -> bool:
    return any(pattern.search(tag) for pattern in _RESOLUTION_PATTERNS) or any(
        pattern.search(tag) for _, pattern in (*_SOURCE_PATTERNS, *_CODEC_PATTERNS)
    )


def _resolution(scan: _Scan) -> str | None:
    for index, pattern in enumerate(_RESOLUTION_PATTERNS):
        match = scan.first(pattern)
        if match is None:
            continue
        if index == 0:  # width x height
            width, height = int(match.group(1)), int(match.group(2))
            return _tier(max(height, width * 9 // 16) if width > height else width)
        if index == 3:  # noqa: PLR2004 - 4K, UHD
            return "2160p"
        if index == 4:  # noqa: PLR2004 - Full HD
            return "1080p"
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


def _date(scan: _Scan) -> int | None:
    match = scan.first(_DATE_RE)
    if match is None:
        return None
    return int(match.group("year") or match.group("year2"))


def _seasons_and_episodes(scan: _Scan) -> tuple[list[int], list[int]]:  # noqa: C901, PLR0912 - one flat list of forms
    seasons: list[int] = []
    episodes: list[int] = []
    for pattern in (_SXXEYY_RE, _CROSS_RE, _SEASON_DASH_EPISODE_RE, _DOTTED_EPISODE_RE):
        for match in scan.every(pattern):
            seasons.append(int(match.group("season")))
            episodes.extend(_episode_list(int(match.group("episode")), match.groupdict().get("more") or ""))
        if episodes:
            break
    if not episodes:
        for match in scan.every(_CAP_CODE_RE):
            seasons.append(int(match.group("season")))
            episodes.extend(_episode_range(int(match.group("episode")), match.group("last")))
    # The season forms are always taken, so that a "Temporada 4" next to a "[Cap.408]" leaves the title.
    for match in scan.every(_ORDINAL_SEASON_RANGE_RE):
        seasons.extend(_season_range(int(match.group("first")), int(match.group("last"))))
    seasons.extend(int(match.group("first")) for match in scan.every(_ORDINAL_SEASON_RE))
    for match in scan.every(_SEASON_RANGE_RE):
        seasons.extend(_season_range(int(match.group("first")), int(match.group("last"))))
    for match in scan.every(_SEASON_WORD_RE):
        seasons.append(_season_number(match.group("first")))
        if not episodes and (after := _AFTER_SEASON_EPISODE_RE.match(scan.masked, match.end())):
            scan.take(after)  # "Season 2 - 08": the season's eighth episode
            episodes.extend(_episode_range(int(after.group("episode")), after.group("last")))
        for item in _SEASON_ITEM_RE.finditer(match.group("rest")):
            number, separator = int(item.group(2)), (item.group(1) or "").lower()
            is_range = separator in {"-", "to", "a"}
            seasons.extend(_season_range(seasons[-1], number) if is_range else [number])
    for match in scan.every(_SEASON_RE):
        seasons.append(int(match.group(1)))
        if not episodes and (after := _SEASON_BARE_EPISODE_RE.match(scan.masked, match.end())):
            scan.take(after)  # "Title S02 03": the season's third episode
            episodes.append(int(after.group("episode")))
    seasons.extend(_cjk_number(match.group(1) or match.group(2)) for match in scan.every(_CJK_SEASON_RE))
    numbered = bool(episodes)
    for match in scan.every(_NUMBER_EPISODE_WORD_RE):
        episodes.extend(() if numbered else [int(match.group("episode"))])
    for match in scan.every(_EPISODE_WORD_RE):
        plus = [int(match.group("plus"))] if match.group("plus") else []
        episodes.extend(
            () if numbered else [*_episode_range(int(match.group("episode")), match.group("last")), *plus]
        )
    for match in scan.every(_OF_RE):
        episodes.extend(() if numbered else [int(match.group("episode"))])
    for match in scan.every(_CJK_EPISODE_RE):
        episodes.extend(() if numbered else [_cjk_number(match.group(1))])
    return sorted(set(seasons)), list(dict.fromkeys(episodes))


_AFTER_SEASON_EPISODE_RE: Final = re.compile(
    r"[ ._]-[ ._](?P<episode>\d{1,4})(?:v\d)?(?:[ ]?[-~][ ]?(?P<last>\d{1,4}))?(?![\dpi])", re.IGNORECASE
)
_SEASON_BARE_EPISODE_RE: Final = re.compile(
    r"[ ._](?!(?:480|576|720)\b)(?P<episode>\d{2,3})(?![\dpi]|[ ._]?(?:of|de)\b)(?=[ ._\[(]|$)"
)
_SEASON_ITEM_RE: Final = re.compile(r"(-|to|a|&|and|,|\+)?[ ._]?(?:s|season[ ._]?)?(\d{1,2})", re.IGNORECASE)
_EPISODE_ITEM_RE: Final = re.compile(r"(-\d{1,2}[x×]|[^\d]+)(\d{1,3})")  # noqa: RUF001 - letters of other scripts, on purpose
# What joins two episodes into a range: "E01-E04", "E01 à E12", "E01 to E12", "2x09-2x10".
_RANGE_SEPARATOR_RE: Final = re.compile(r"-|(?<![a-z])(?:à|a|to)(?![a-z])", re.IGNORECASE)


def _episode_list(first: int, more: str) -> list[int]:
    """Expand "E01" and "-E04" / "E02E03" / "+02" / "-03-04" / "x45x46" / " to E12" into the episodes named.

    A number after a dash that is not larger than the last is no range but a title word ("E13-3 Acts").
    """
    episodes = [first]
    for item in _EPISODE_ITEM_RE.finditer(more):
        number = int(item.group(2))
        if _RANGE_SEPARATOR_RE.search(item.group(1)):
            if number <= episodes[-1]:
                break
            episodes.extend(range(episodes[-1] + 1, min(number, episodes[-1] + 200) + 1))
        else:
            episodes.append(number)
    return episodes


def _episode_range(first: int, last: str | None) -> list[int]:
    if last is None or int(last) <= first:
        return [first]
    return list(range(first, min(int(last), first + 200) + 1))


def _season_range(first: int, last: int) -> list[int]:
    return list(range(first, max(first, min(last, first + 100)) + 1))


def _season_number(word: str) -> int:
    word = word.lower()
    return int(word) if word.isdigit() else _ROMAN.get(word) or _NUMBER_WORDS[word]


def _cjk_number(text: str) -> int:
    if text.isdigit():
        return int(text)
    if "十" not in text:
        return _CJK_DIGITS.get(text, 0)
    tens, _, units = text.partition("十")
    return (_CJK_DIGITS.get(tens, 1) if tens else 1) * 10 + _CJK_DIGITS.get(units, 0)


def _source_candidates(scan: _Scan) -> list[tuple[str, int, bool]]:
    """Return the sources named, best first, each with where it starts and whether it is a title word."""
    candidates: list[tuple[str, int, bool]] = []
    for value, pattern in _SOURCE_PATTERNS:
        for match in pattern.finditer(scan.masked):
            weak = re.sub(r"[ .-]", "", match.group(0)).lower() in _WEAK_SOURCE_WORDS
            scan.take(match, _WEAK if weak else _STRONG)
            candidates.append((value, match.start(), weak))
    # A bare "TS"/"TC" only says telesync/telecine when no real source is named.
    for match in _BARE_TS_RE.finditer(scan.masked):
        scan.take(match, _WEAK)
        candidates.append((_TELESYNC_BARE[match.group(0).lower()], match.start(), True))
    return candidates


def _source(candidates: list[tuple[str, int, bool]], title_end: int) -> str | None:
    # "Web" of "Charlotte's Web" is part of the title, not the source.
    return next((value for value, start, weak in candidates if not (weak and start < title_end)), None)


def _first_value(scan: _Scan, patterns: tuple[tuple[str, re.Pattern[str]], ...]) -> str | None:
    found: str | None = None
    for value, pattern in patterns:
        if scan.every(pattern) and found is None:
            found = value
    return found


def _audio(scan: _Scan) -> tuple[str, ...]:
    found = [
        value
        for value, pattern in _AUDIO_PATTERNS
        if scan.every(pattern, _WEAK if value in _TITLE_WORD_AUDIO else _STRONG)
    ]
    if channels := scan.first(_CHANNELS_RE, _STRONG if found else 0):
        found.append(f"{channels.group(1) or channels.group(3)}.{channels.group(2) or channels.group(4)}")
    return tuple(found)


def _title_span(scan: _Scan, date_year: int | None) -> tuple[int, int, int | None]:
    """Return where the title starts and stops, and the year if the name has one.

    The title ends at the first marker; of several years before that point the last is the release year
    ("Blade Runner 2049 2017"). A year at the very start belongs to the title ("1917"), and so does a year
    that has not happened yet ("Sintel 2049"). A name that starts with a marker ("[BD][1080p] Title") has
    its title in the first stretch of text between markers.
    """
    latest = dt.datetime.now(tz=dt.UTC).year + 1
    ranges = list(_YEAR_RANGE_RE.finditer(scan.masked))
    years = [
        match
        for match in _YEAR_RE.finditer(scan.masked)
        if match.start() > 0
        and int(match.group(1)) <= latest
        and not any(r.start() <= match.start() < r.end() for r in ranges)
    ]
    first_marker = scan.first_marker()
    year = date_year
    end = first_marker
    if before := [match for match in years if match.start() < first_marker]:
        # A year in brackets is the release's: "The Insider (1999) 60 Minutes Interview 1996".
        chosen = next((match for match in reversed(before) if match.group(0)[0] in "(["), before[-1])
        end, year = chosen.start(), int(chosen.group(1))
        scan.take(chosen, 0)
    elif years:
        year = int(years[0].group(1))
        scan.take(years[0], 0)
    elif ranges and 0 < ranges[0].start() < first_marker:
        end = ranges[0].start()
    if _clean_title(scan.text[:end]):
        return 0, end, year
    for run in re.finditer(r"[^\x00]+", scan.masked):
        later = [start for start, _ in scan.ends if start >= run.end()]
        stop = min([*later, len(scan.text)])
        if _clean_title(scan.text[run.start() : stop]):
            return run.start(), stop, year
    return 0, len(scan.text), year


def _bare_episode(
    scan: _Scan, start: int, end: int, *, leading_group: str | None, year: int | None
) -> tuple[list[int], list[int], int, int]:
    """Read episodes numbered by a bare number when nothing else numbers them: (seasons, episodes, span).

    "Title - 12", "[Group] Title 12 [1080p]", "01 - Title", and "Title.307.HDTV" (season 3, episode 7).
    Each form is narrow on purpose: "Apollo 13 1080p" and "Plan 9 from Outer Space" are films.
    """
    head = scan.masked[:end]
    # A group's episode may follow the year: "[Group] Title (2020) - 35 (720p)".
    dash_head = scan.masked[: max(end, scan.first_marker())] if leading_group else head
    if (match := _DASH_NUMBER_RE.search(dash_head, start)) and not _is_year(match.group("episode")):
        scan.take(match)
        stop = min(match.start(), end)
        return [], _episode_range(int(match.group("episode")), match.group("last")), start, stop
    if year is None and (match := _LEADING_NUMBER_RE.match(head, start)) and not _is_year(match.group(1)):
        scan.take(match, 0)
        episodes = _episode_range(int(match.group("episode")), match.group("last"))
        # "003. Title - Episode Name": the title stops at the dash.
        dash = scan.text.find(" - ", match.end(), end)
        return [], episodes, match.end(), dash if dash > 0 else end
    match = _BARE_NUMBER_RE.search(dash_head, start) if leading_group else None
    if match and not _is_year(match.group("episode")):
        scan.take(match)
        stop = min(match.start(), end)
        return [], _episode_range(int(match.group("episode")), match.group("last")), start, stop
    match = next(
        (
            m
            for m in _NUMBER_BEFORE_TV_RE.finditer(scan.text, start)
            if _MASK not in scan.masked[m.start() : m.end()]
        ),
        None,
    )
    if match and not re.fullmatch(r"(?:19|20)\d{2}", match.group("number")):  # "Blade.Runner.2049.HDTV"
        digits = match.group("number")
        cut = min(match.start(), end)
        if len(digits) > 2:  # noqa: PLR2004 - one number for a season and an episode
            scan.take(match)
            return [int(digits[:-2])], [int(digits[-2:])], start, cut
        if re.match(r"(?:hdtv|pdtv|sdtv|dsr|tvrip)", scan.text[match.end() :], re.IGNORECASE):
            scan.take(match)
            return [], [int(digits)], start, cut
    return [], [], start, end


def _is_year(digits: str) -> bool:
    return len(digits) == 4 and 1900 <= int(digits) <= dt.datetime.now(tz=dt.UTC).year + 1  # noqa: PLR2004


def _clean_title(text: str) -> str:
    # Dotted names ("Night.of.the.Living.Dead") use dots as spaces; spaced names keep "Mr." intact.
    text = _SEPARATORS_RE.sub(" ", text) if " " not in text.strip() else text.replace("_", " ")
    text = _EMPTY_BRACKETS_RE.sub(" ", text)
    if (opened := max(text.rfind("("), text.rfind("["))) > 0 and not re.search(r"[)\]]", text[opened:]):
        text = text[:opened]  # "Title (Director, 1967)" ends inside the brackets
    text = _one_title(text)
    previous = None
    while previous != text:
        previous = text
        text = _PACK_WORDS_RE.sub("", _EDITION_RE.sub("", text))
        text = _trailing_language_tag(_TRAILING_JUNK_RE.sub("", text))
        # A trailing aside is an alternative title or a note: "Le Prestige (The Prestige)"; the title in
        # Latin letters when the name's own is in another script: "Сінтел (Sintel)".
        if (aside := _ASIDE_RE.search(text)) and aside.start() > 0:
            inside = aside.group(0).strip(" ._()[]")
            latin_aside = _LATIN_RE.search(inside) and not _LATIN_RE.search(text[: aside.start()])
            text = inside if latin_aside else text[: aside.start()]
    return " ".join(_LEADING_JUNK_RE.sub("", text).split())


def _one_title(text: str) -> str:
    """Of a title and its aliases ("Sintel AKA Durian", "Сінтел / Sintel"), keep the first in Latin script."""
    parts = [part for part in _ALIAS_SEPARATOR_RE.split(text) if part.strip()]
    if len(parts) < 2:  # noqa: PLR2004
        return text
    return next((part for part in parts if _LATIN_RE.search(part)), parts[0])


# "AKA", "a.k.a." and a slash between spaces separate a title from its aliases.
_ALIAS_SEPARATOR_RE: Final = re.compile(r"[ ._]+(?:aka|a\.k\.a\.?)[ ._]+|\s+/\s+", re.IGNORECASE)
_LATIN_RE: Final = re.compile(r"[a-z]", re.IGNORECASE)
# Edition words and a version that end a title: "Sintel EXTENDED", "Sintel - International Cut", "Sintel v2".
_EDITION_RE: Final = re.compile(
    r"[ ._-]+(?:custom|extended|imax|edition|hq|uncut|unrated|remastered|integral|theatrical|v\d|"
    r"(?:director'?s?|international|extended|theatrical|final)[ ._]cut|"
    r"(?:special|collector'?s|ultimate|anniversary)[ ._]edition)$",
    re.IGNORECASE,
)


_ASIDE_RE: Final = re.compile(r"[ ._]*[(\[][^()\[\]]*[)\]]$")
_LAST_WORD_RE: Final = re.compile(r"[ ._-]([A-Za-z]+)$")


def _trailing_language_tag(text: str) -> str:
    """Drop a language tag that ends a title ("Friends MULTi", "Immersion.French" -> the title alone)."""
    match = _LAST_WORD_RE.search(text)
    if match is None:
        return text
    word = match.group(1)
    dotted_name = " " not in text and len(word) > 4 and not text[: match.start()].lower().endswith("the")  # noqa: PLR2004
    if _is_language_tag(word) or (dotted_name and word.lower() in _LANGUAGE_WORDS):
        return text[: match.start()]
    return text


def _is_language_tag(word: str) -> bool:
    lowered = word.lower()
    if lowered not in _LANGUAGE_WORDS:
        return False
    # "FRENCH", "MULTi", "iTA" are tags; "French" or "Dual" in a title is a word; "it", "de" need capitals.
    if lowered in _CAPITALS_ONLY and word == lowered:
        return False
    return not (word[:1].isupper() and word[1:].islower())


def _languages(scan: _Scan, title_end: int, title: str) -> tuple[str, ...]:
    found: list[str] = []
    text = scan.text
    title_words = set(title.lower().split())
    for match in _WORD_RE.finditer(scan.masked):
        word = match.group(0)
        lowered = word.lower()
        if lowered not in _LANGUAGE_WORDS and lowered not in _LANGUAGE_GROUPS:
            continue
        if match.start() < title_end and (lowered in title_words or not _is_language_tag(word)):
            continue
        if lowered in _CAPITALS_ONLY and (
            word == lowered or (lowered in _TITLE_CASE_WORDS and not word.isupper()) or _is_group(text, match)
        ):
            continue
        if _SUBTITLE_BEFORE_RE.search(text[: match.start()]) or _SUBTITLE_AFTER_RE.match(text[match.end() :]):
            continue
        found.extend(_LANGUAGE_GROUPS.get(lowered) or (_LANGUAGE_WORDS[lowered],))
    dubbed = ((m.group("after") or m.group("before")).lower() for m in _DUBBED_RE.finditer(text, title_end))
    found.extend(_LANGUAGE_WORDS[word] for word in dubbed if word in _LANGUAGE_WORDS)
    if _CHINESE_AUDIO_RE.search(text):
        found.append("zh")
    return tuple(dict.fromkeys(found))


def _is_group(text: str, match: re.Match[str]) -> bool:
    """Whether a word is the release group at the end of the name ("…x264-EN")."""
    return text[match.start() - 1 : match.start()] == "-" and not text[match.end() :].strip(" ]")


def _group(text: str, title_end: int, leading_group: str | None) -> str | None:
    match = _GROUP_RE.search(text)
    if match and match.start() >= title_end and title_end < len(text):
        group = match.group(1)
        if group.lower() not in _NOT_GROUPS and not _NUMBERING_RE.fullmatch(group):
            return group
    return leading_group
