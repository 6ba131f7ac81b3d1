"""Seasons and episodes in a release name: "S01E02", "1x02", "Season 1-3", "第3話", a bare "Title - 12".

Pure Python (standard library only). Part of reading a name (see parse.py): the finders here take what they
read from the Scan, so that later finders do not read "E-AC3-S78" as a season or "1280x720" as an episode.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Final

from .languages import without_language_tags
from .scan import MASK, Scan, hinted, token

# A fansub file's CRC32 in brackets, "[1A2B3C4D]": no part of the title, and a mark of an episode's file.
CHECKSUM_RE: Final = hinted(re.compile(r"[\[(][0-9a-f]{8}[\])]", re.IGNORECASE), ("[", "("))

# Continuations of an episode: "E01E02", "E01-E04", "E01-04", "E01+02", "1x02-03-04", "5x44x45", "E21.22",
# "S01E01-S01E03", "S01E01 to S01E03", "S01E01 ~ S01E12", "1x01 al 1x10", "S01E01-01E02", "E05,E06",
# "E05 and E06", "E01~E05", "1x01~1x05",
# "2x05+2x06", "S01.Ep05-Ep06", "S01E02and03", and a long-running soap's "Ep10718 - Ep10722".
_MORE_EPISODES: Final = (
    r"(?P<more>(?:[ ._]?-[ ._]?ep\d{4,5}(?!\d)"
    r"|(?:(?:-|[ ._]?~[ ._]?|[ ._](?:to|a|al|ao|à)[ ._])s?(?P=season)(?:e|[x×х])"  # noqa: RUF001 - letters of other scripts, on purpose
    r"|[ ._]?[-+&,~]?[ ._]?ep?|and(?:ep?)?"
    r"|[ ._](?:à|a|al|ao|to|and)[ ._]e|[-+~]\d{1,2}[x×х]|[-~][x×х]?|[+&]|[x×х]"  # noqa: RUF001 - letters of other scripts, on purpose
    r"|\.(?=\d\d[ ._-]))\d{1,3}(?![\dpi]|[a-z]{2}))*)"
)
_SXXEYY_RE: Final = re.compile(
    # "S01E02", "S01 E02", "S01.Ep.02", "T02E05", "S 01 E 02"; a long-running soap's "S42 E10713"; glued to a
    # title: "SintelS01E02" (but "Series4 Episode2" is British "Series 4"); a letter O typed for the zero:
    # "SO2E04"; a cross for the E: "S01x02". The letter comes first so that the search skips ahead to it.
    r"[st](?:(?<![a-z0-9].) ?|(?<=[a-z]{3}s)(?<!series))(?P<season>\d{1,3}|(?:19|20)\d{2}|o\d)(?![\d])"
    r"(?:[ ._-]{0,3}(?:x?e|ep|episode)[ ._]?|x(?!26[45]))"
    rf"(?P<episode>\d{{1,5}})(?![\d])(?:v\d)?{_MORE_EPISODES}",
    re.IGNORECASE,
)
_CROSS_RE: Final = hinted(
    re.compile(
        # "1x02", and glued to a title: "Castle1x02"; the cross may be a Cyrillic letter. A cartoon's half
        # episode has a letter: "1x02a". After a channel layout's point it counts audio tracks: "FLAC 2.0x3"
        # ("1x02.1x03" is two episodes).
        r"(?:(?<![a-z0-9])|(?<=[a-z]{3}))(?P<season>\d{1,2}(?<![^0-9][0-9]\.[0-9])|(?:19|20)\d{2})"
        r"(?:[x×х]| [x×х] )(?P<episode>\d{1,3})(?![\dpi])"  # noqa: RUF001 - letters of other scripts, on purpose
        rf"{_MORE_EPISODES}[ab]?(?![a-z0-9])",
        re.IGNORECASE,
    ),
    ("x", "×", "х"),  # noqa: RUF001 - letters of other scripts, on purpose
)
# "S2-07", "S1 - 01": a one-digit season and an episode after a dash.
_SEASON_DASH_EPISODE_RE: Final = hinted(
    re.compile(r"(?<![a-z0-9-])s(?P<season>\d)[ ]?-[ ]?(?P<episode>\d{2,3})(?![\dpi])", re.IGNORECASE), ("-",)
)
# "Title - 6.01 - Episode", "[5.134]", "Episode 1.22", "Ep 1.05": a season and an episode around a dot, set
# apart by a dash or brackets, or after an episode word (so that "DD 5.1" and "Title 2.0" stay what they are).
_DOTTED_EPISODE_RE: Final = hinted(
    re.compile(
        r"(?:(?<=[\[(])|(?<= - )|(?P<word>(?<=episode )|(?<=episode\.)|(?<=ep )|(?<=ep\.)))"
        r"(?P<season>\d{1,2})\.(?P<episode>\d{2,3})(?(word)(?![\dpi.])|(?=[\])]| - ))",
        re.IGNORECASE,
    ),
    (".",),
)
# "Title-02_17.avi": a season and an episode joined by an underscore, in a name not written with underscores.
_UNDERSCORE_EPISODE_RE: Final = re.compile(r"(?<=[ .-])(?P<season>\d{1,2})_(?P<episode>\d{2})(?=[ .-]|$)")
_SEASON_WORDS: Final = (
    r"seasons?|saisons?|temporadas?|temp|tem|stagione|stagioni|staffeln?|seizoen|sezon[uy]?l?|s[äa]song|s[æa]son|"
    # Dutch "Se.3 afl.3": a season only before an episode ("aflevering").
    r"sesong|kausi|évad|evad|sez[oó]na|série|сезон[а-я]?|сезоны|сезону|se(?=[ .]\d{1,2}[ ._]afl)"  # noqa: RUF001 - letters of other scripts, on purpose
)
# What every season word above holds (see scan.hinted).
_SEASON_HINTS: Final = (
    "se", "sai", "tem", "stag", "staf", "sas", "säs", "sæs", "kausi", "évad", "evad", "sér", "сезон"
)  # fmt: skip
# "and" and "to" in the languages that name seasons: "Temporadas 1 y 2", "Staffel 1 bis 3", "Сезон 1 и 2".
_AND_WORDS: Final = r"y|e|et|und|en|и"
_TO_WORDS: Final = r"bis|thru|through|al|ao|по"
_SEASON_RANGE_WORDS: Final = frozenset({"-", "~", "to", "a", "à", "bis", "thru", "through", "al", "ao", "по"})
_ROMAN: Final = {"i": 1, "ii": 2, "iii": 3, "iv": 4, "v": 5, "vi": 6, "vii": 7, "viii": 8, "ix": 9, "x": 10,
                 "xi": 11, "xii": 12, "xiii": 13, "xiv": 14, "xv": 15}  # fmt: skip
_NUMBER_WORDS: Final = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
                        "eight": 8, "nine": 9, "ten": 10, "un": 1, "deux": 2, "trois": 3, "quatre": 4,
                        "cinq": 5, "sept": 7, "huit": 8, "neuf": 9, "dix": 10}  # fmt: skip
_SEASON_NUMBER: Final = rf"(?:\d{{1,2}}|{'|'.join(sorted((*_ROMAN, *_NUMBER_WORDS), key=len, reverse=True))})"
# "Season 1", "Seasons 1-3", "Season 1 to 6", "Season 1, 2 & 3", "Seasons 1/2/3", "Temporada 1 de 5",
# "Saison VII", "Saisons 1 à 3".
_SEASON_WORD_RE: Final = token(
    rf"(?:the[ ._]complete[ ._])?(?:{_SEASON_WORDS})[ ._:№(]{{0,3}}(?P<first>{_SEASON_NUMBER})(?![\d])"
    r"(?P<rest>(?:(?:[ ._]?,?[ ._]?(?:to|&|and|,|\+|a|à)[ ._]?|[ ._]?[-~](?![ ._]0)[ ._]?|/"
    rf"|[ ._](?:{_AND_WORDS}|{_TO_WORDS})[ ._](?!0))"  # "Season 1 E 05" numbers an episode
    r"(?:s|season[ ._]?)?\d{1,2}(?!\d)"
    # A zero-padded number after a season's is an episode: "Season 1 01-12".
    r"|[ ._](?!0)\d{1,2}(?![a-z0-9]))*)"
    r"(?:[ ._]?(?:of|de|di|van|von|din|из)[ ._]?\d{1,2})?",
    right=r"(?![a-z0-9])",
    hints=_SEASON_HINTS,
)
# Spanish, Portuguese and French ordinals: "1ra", "2da", "4to", "8va", "1er", "1ère", "2e", "2ème".
_ORDINAL_ENDINGS: Final = r"ra|da|ta|ma|va|na|ro|do|to|vo|no|er|re|ère|ème|eme|e"
# "2nd Season", "10 th season", "3º Temporada", "1a. Temporada", "2. Staffel", "5-й сезон", "2 сезон"; a
# bare number before an English "Season" is part of the title ("24 Season 1-8"), and so is one with a point,
# an ordinal English does not write ("Pioneer-1. Season 4").
_ORDINAL_SEASON_RE: Final = token(
    r"(?P<first>\d{1,2})(?:(?:[ ]?(?:st|nd|rd|th|º|°|ª|a\.?|\.(?![ ._]?season)|-?й|-?го)"  # noqa: RUF001 - letters of other scripts, on purpose
    rf"|{_ORDINAL_ENDINGS})[ ._]?(?:{_SEASON_WORDS})"
    r"|[ ._](?:сезон[а-я]?|évad|evad|sezon|temporada|stagione|saison|staffel)"  # noqa: RUF001 - letters of other scripts, on purpose
    # "Studio 60 Сезон 5": a season word with its own number after it.
    r"(?![ ._:]*\d{1,2}(?:[ ._]|$)(?!серия|серии|серія|эпизод|episode|seria|odcinek)))",
    right="",
    hints=_SEASON_HINTS,
)
# "1ª a 8ª Temporada", "1-3 Seasons", "(1-8) Staffeln"; a list: "1ª e 2ª Temporada", "1-й и 2-й сезон",
# "1, 2, 3 сезон".
_ORDINAL_SEASON_RANGE_RE: Final = token(
    r"(?P<first>\d{1,2})(?:º|°|ª|st|nd|rd|th|-й)?"
    r"(?P<middle>(?:[ ]?,[ ]?\d{1,2}(?:º|°|ª|st|nd|rd|th|-й)?)*)[ ._]?"
    rf"(?P<separator>-|a|al|to|à|{_TO_WORDS}|{_AND_WORDS}|&|and|,)[ ._]?"
    rf"(?P<last>\d{{1,2}})(?:º|°|ª|st|nd|rd|th|-й)?[ ._)]{{1,2}}(?:{_SEASON_WORDS})",
    right=r"(?![a-z0-9])(?![ ._:]*\d)",
    hints=_SEASON_HINTS,
)
# "The Complete First Season", "Segunda Temporada", "Deuxième Saison".
_ORDINAL_WORDS: Final = {
    word: number
    for number, words in enumerate(
        (
            ("first", "primera", "primeira", "première", "premiere"),
            ("second", "segunda", "deuxième", "deuxieme", "seconde"),
            ("third", "tercera", "terceira", "troisième", "troisieme"),
            ("fourth", "cuarta", "quarta", "quatrième", "quatrieme"),
            ("fifth", "quinta", "cinquième", "cinquieme"),
            ("sixth", "sexta", "sixième", "sixieme"),
            ("seventh", "séptima", "septima", "sétima", "setima", "septième", "septieme"),
            ("eighth", "octava", "oitava", "huitième", "huitieme"),
            ("ninth", "novena", "nona", "neuvième", "neuvieme"),
            ("tenth", "décima", "decima", "dixième", "dixieme"),
        ),
        start=1,
    )
    for word in words
}
_ORDINAL_WORD_SEASON_RE: Final = token(
    rf"(?P<word>{'|'.join(_ORDINAL_WORDS)})[ ._](?:season|temporada|saison|staffel)",
    hints=("season", "temporada", "saison", "staffel"),
)
# Where the number comes first: "24 серия", "09-я серия", "5. rész", "7.Bolum", "5 выпуск", "5. díl"; a
# range of them, as Russian trackers number a batch: "1-10 серии". A word with its own number after it
# numbers that one: "Title 2012 Серии 1-19" is a year and episodes 1 to 19.
_NUMBER_EPISODE_WORD_RE: Final = token(
    r"(?:(?P<first>\d{1,4})[ ]?-[ ]?)?(?P<episode>\d{1,4})(?:-?я|\.)?[ ._]?"
    r"(?:серия|серии|серія|серії|сер|seriya|seria|rész|resz|bölüm|bolum|выпуск|эпизод|díl)",  # noqa: RUF001 - letters of other scripts, on purpose
    right=r"(?![a-zа-яіїё]*[ ._:]*(?!(?:19|20)\d\d(?!\d))\d)",  # noqa: RUF001 - letters of other scripts, on purpose
    hints=("сер", "seri", "rész", "resz", "bölüm", "bolum", "выпуск", "эпизод", "díl"),  # noqa: RUF001 - letters of other scripts, on purpose
)
_SEASON_RANGE_RE: Final = hinted(
    re.compile(
        r"(?<![a-z0-9-])s(?P<first>\d{1,2})"
        r"(?:(?:[ ._]?-{1,2}[ ._]?s?|[ ._]?(?:to|thru|through|&|,|\+)[ ._]?s)\d{1,2}(?!\d)"
        r"(?=[ ._]?(?:-|to|thru|through|&|,|\+)[ ._]?s\d))*"
        r"(?:[ ._]?-{1,2}[ ._]?s?|[ ._]?(?:to|thru|through|&|,|\+)[ ._]?s)(?P<last>\d{1,2})(?!\d)"
        r"(?![ ._-]?e\d)(?!-\d)",  # "S01 - 05-08" is season 1's episodes 5 to 8
        re.IGNORECASE,
    ),
    ("-", "to", "thr", "&", ",", "+"),
)
_SPACED_DASH_RE: Final = re.compile(r"[ ._]-[ ._]")
# British "Series 2": a season; "Series 1-3": three; "Series2" glued to its number as well.
_SERIES_RE: Final = token(
    r"series[ ._]?(?P<season>[1-9]\d?)(?!\d)(?:-(?P<last>[1-9]\d?)(?!\d))?",
    right=r"(?![a-z0-9])",
    hints=("series",),
)
# "1xAll": the whole of season 1.
_SEASON_ALL_RE: Final = token(r"(?P<season>\d{1,2})x(?:all)", hints=("xall",))
# Season codes of a pack may be glued in a row: "Title.S01S02S03".
_SEASON_RE: Final = re.compile(
    r"(?:(?<![a-z0-9-])|(?<=s\d\d))s(\d{1,2}|(?:19|20)\d{2})(?![\d])(?![ ._-]?e\d)", re.IGNORECASE
)
_EPISODE_WORDS: Final = (
    r"episodes?|episodios?|episódios?|épisodes?|episodi|episodul|eps?|cap[ií]tulos?|cap|folgen?|"
    # Polish "odc." and Czech "díl" are short for an episode.
    r"afleveringe?n?|afl|afsnit|epiz[oó]d[ae]?|odcinki?|odcinek|odc|díl|avsnitt|puntat[ae]|rész|resz|серия|серии|серія|серії|"
    # Russian "Ser. 5", in its own letters, is short for its episode word.
    r"эпизод|выпуски?|сер(?=\.)|"  # noqa: RUF001 - letters of other scripts, on purpose
    r"bolum|bölüm|jaksot?|seriya|seria"
)
# "Episode 5", "Ep.05", "Capitulo 5 de 12", "E576", "E02-03", "EP01~EP12", "Ep.01 - Ep.12", "Folge 5 von 12",
# Dutch "afl.3 en 4"; codes glued in a row, "E01E02E03"; a chain of dashes runs to its last number,
# "E01-02-04" (as guessit and parsett read it).
_EPISODE_WORD_RE: Final = token(
    rf"(?:(?:{_EPISODE_WORDS})[ ._#:№-]{{0,3}}|e)(?P<episode>\d{{1,4}})(?:[ ._]?v\d)?"
    # A year after a dash is no episode: "Episode 5 - 2012".
    r"(?:(?:(?:[ ._]?[-~][ ._]?|[ ._](?:à|a|al|ao|to)[ ._])(?:ep?\.?)?"
    r"(?!(?:19|20)\d\d(?!\d))(?P<last>\d{1,4})(?!\d))+"
    r"|(?P<plus>(?:(?:[ ]?[+,][ ]?|[ ._]?&[ ._]?|[ ._](?:and|en|und|et|y|e)[ ._])e?\d{1,3}(?!\d)"
    r"|e\d{1,3}(?!\d))+))?"
    r"(?:[ ._]?(?:of|de|di|van|von|din|из)[ ._]?\d{1,4})?",
    right=r"(?![a-z0-9])",
)
# "Серии: 5 из 20": the first five episodes of twenty.
_EPISODES_SO_FAR_RE: Final = re.compile(
    r"серии:?[ ]?(?P<count>\d{1,4})[ ]?(?:из|of|iz)[ ]?\d{1,4}", re.IGNORECASE
)
# Spanish "[Cap.102]": season 1, episode 2; "[Cap.102_104]", "[Cap.102-104]": episodes 2-4.
_CAP_CODE_RE: Final = hinted(
    re.compile(
        r"\bcap[ .]?(?P<season>\d{1,2})(?P<episode>\d{2})(?:[_-](?:\d{1,2})?(?P<last>\d{2}))?(?!\d)",
        re.IGNORECASE,
    ),
    ("cap",),
)
# Portuguese "215 ao 220": episodes 215 to 220, with or without an episode word.
_AO_RANGE_RE: Final = token(r"(?P<episode>\d{1,4})[ .]?ao[ .]?(?P<last>\d{1,4})", hints=("ao",))
# "14 of 21", "1of4": an episode of a known number; "[1-10 из 20]": the first ten of twenty.
_OF_RE: Final = token(
    r"(?:(?P<first>\d{1,2})[ ]?-[ ]?)?(?P<episode>\d{1,2})[ ._]?(?:of|iz|из)[ ._]?\d{1,2}",
    hints=("of", "iz", "из"),
)
# East Asian numbering: "第3話", "第23集", Korean "5화"; seasons "第二季", "第1-3季", "시즌 2".
_CJK_EPISODE_RE: Final = re.compile(
    r"第([0-9一二三四五六七八九十百]+)(?:[話话集回]?[-~]第?([0-9]+))?[話话集回]"
    r"|(?<![0-9])([0-9]{1,4})(?:[-~]([0-9]{1,4}))?[話话集화회]"
    r"|全([0-9]{1,4})[話话集]"
)
_CJK_SEASON_RE: Final = re.compile(
    r"第([0-9一二三四五六七八九十]+)(?:[-~]([0-9]{1,2}))?[季期]"
    r"|(?:シーズン|시즌) ?([0-9]+)|(?<![0-9])([0-9]{1,2})期"
)
_CJK_DIGITS: Final = {"一": 1, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9}
# Bare numbers, read only when nothing else numbers the episode (see bare_episode).
# "Title - 12", "Title - 12-13", "Title - 12 to 24"; a cartoon's half episode: "Title - 107a". A film's number
# is no episode: "Title Movie - 09".
_DASH_NUMBER_RE: Final = re.compile(
    r"(?<=[ ._])(?<!(?i:movie)[ ._])(?<!(?i:film)[ ._])-[ ._]{1,3}(?P<episode>\d{1,4})(?:v\d{1,2}|[ab])?"
    r"(?:[ ]?[-~][ ]?(?P<last>\d{1,4})|[ ](?:to|al)[ ](?P<last_word>\d{1,4}))?"
    r"(?:v\d{1,2})?(?=[ ._]*(?:$|[\[(【\x00]|-[ ._]|[ ._]))",
)
# Brackets holding only tags (taken already) between a title and its dash episode: "Title (DVD) - 02".
_TAGS_IN_BRACKETS_RE: Final = re.compile(r"(?:[ ._]?[(\[]|(?<=[(\[]))[\x00 ,]*\x00[\x00 ,]*[)\]][ ._](?=-)")
# A volume of discs is no episode: "[Group] Title Vol.2 [BD]", nor is a film's number ("Title Movie 2",
# "Title_Movie_2"), nor a title's before the bracketed episode: "[Group][Title 2][05]", nor a decimal's
# fraction ("Title 1.11"), nor a number a title names ("Symphony No.9"), nor a film's part or chapter
# ("Title Part 2", "[Group] Title Chapter 3").
# A version may be upper case or set apart: "[Group] Title 04V2", "[Group]_Title_10_v2_[DVD]"; a number of two
# digits or more may be glued to the title by a hyphen in a name with no spaces: "[Group]_Title-03_DVD",
# "[Group]Title-24(H264)" ("[Group] Catch-22 [1080p]" is a title).
_BARE_NUMBER: Final = (
    r"(?<![Vv]ol[ ._])(?<![Vv]olume[ ._])(?<![Mm]ovie[ ._])(?<![Ff]ilm[ ._])(?<!\d\.)(?<![Nn]o\.)"
    r"(?<![Pp]art[ ._])(?<![Cc]hapter[ ._])"
    r"(?P<episode>\d{1,4})(?:[ ._]?[vV]\d{1,2})?(?:[ ]?[-~][ ]?(?P<last>\d{1,4}))?"
    r"(?=[ ._]*(?:$|[\[(【\x00])| - )(?![ ._]*\[\d{1,4}(?:v\d)?\])"
)
_BARE_NUMBER_RE: Final = re.compile(rf"(?<=[ ._]){_BARE_NUMBER}")
_SPACELESS_BARE_NUMBER_RE: Final = re.compile(rf"(?:(?<=[ ._])|(?<=[a-z]-)(?=\d{{2}})){_BARE_NUMBER}")
# A zero-padded number that ends a file's name numbers its episode: "Title 05.mkv", "02.avi" (not a date's
# last number: "Title.18.09.00.avi").
_PADDED_FILE_END_RE: Final = re.compile(r"(?:(?<=[ ._])(?<!\d[-._])|^)(?P<episode>0[1-9])(?:v\d)?$")
# A season and an episode that end a file's name: "Title 03-20.mkv", "Title.02.09.avi"; a third number makes
# a date ("Title.18.09.00.avi").
_FILE_SEASON_EPISODE_RE: Final = re.compile(
    r"(?<=[ ._])(?<!\d[-._])(?P<season>\d{1,2})[-._](?P<episode>\d{2})$"
)
# "[05]", "[ 05 ]", "[.05.]", "#05", and a zero-padded number in parentheses, "(05)"; a batch: "#1-4".
_BRACKETED_NUMBER_RE: Final = re.compile(
    r"\[(?P<pad>[ .-]?)(?P<episode>\d{1,4})(?:v\d)?(?: ?end)?(?P=pad)\]"
    r"|(?<=[ ._])#(?P<hash>\d{1,4})(?:-(?P<hash_last>\d{1,4}))?(?!\d)"
    r"|\((?P<paren>0\d{1,3})\)",
    re.IGNORECASE,
)
# "(001-220)", "[01~12]", and a Chinese raw's "[166-192TV]"; a tilde names a range out of brackets too:
# "Title 01~12" (a dash there may be a title's, "Title 1-2").
_BRACKETED_RANGE_RE: Final = re.compile(
    r"(?:(?P<open>[\[(])|(?<=[ ._])(?=\d{1,4} ?~))"
    r"(?P<episode>\d{1,4}) ?[-~] ?(?P<last>\d{1,4})(?:tv)?(?(open)[\])]|(?=[ ._\[(]|$))",
    re.IGNORECASE,
)
# A file named by its season and episode before the episode's title: "4-13 Title.mkv", "4-13.Title.mkv" (a
# zero-padded first number would rather start a range, "01-13 Title").
_LEADING_SEASON_EPISODE_RE: Final = re.compile(
    r"^(?P<season>[1-9]\d?)-(?P<episode>\d{2})(?=[ .][a-z])", re.IGNORECASE
)
# After a group, a zero-padded number and a space are enough: "[Group] 06 Title (720p)".
_LEADING_NUMBER_RE: Final = re.compile(
    r"^(?P<episode>\d{1,4})(?:-(?P<last>\d{1,4}))?(?:v\d)?"
    r"(?:\. |[ ._]-[ ._]|-(?=[a-z])|(?<=^0\d)(?P<space> )(?=[a-z]))",
    re.IGNORECASE,
)
# Without a group, a range of zero-padded numbers before a tag is still a batch: "Title 01-10 [1080p]" (one
# that ends the name may be a date: "Title 03-20"); so is a rising range of two-digit ones:
# "Title_13-15_[BD]". One of three-digit numbers is no date and may end the name: "Title 104-105".
_PADDED_RANGE_RE: Final = re.compile(
    r"(?<=[ ._])(?P<episode>0\d{1,3}|[1-9]\d{1,2}(?=[ ]?[-~][ ]?\d{2,3}(?!\d)))[ ]?[-~][ ]?(?P<last>\d{2,4})"
    r"(?=[ ._]*[\[(【\x00]|(?<=\d{3})$)"
)
# Without a group, a zero-padded number right before the tags numbers an episode too: "Title 04 [1080p]",
# "Title 09 HD720" (a title's own number is rarely padded: "Apollo 13 1080p" stays a film; when it is, it is
# three digits long, "Locker 007 [1080p]").
_PADDED_NUMBER_RE: Final = re.compile(r"(?<=[ ._])(?P<episode>0\d)(?:v\d)?[ ._]*(?=[\[(【\x00])")
# Without a group, a number of two or three digits right before a checksum is an episode too: a checksum
# marks a fansub's file, "Title 63 [1A2B3C4D].mkv", as guessit reads it (a single digit may be a film's
# sequel, "Title 2 [1A2B3C4D].mkv"; a film's or a volume's number is none, "Title Movie 12 [1A2B3C4D]").
_NUMBER_BEFORE_CHECKSUM_RE: Final = re.compile(
    r"(?<=[ ._])(?<!movie[ ._])(?<!film[ ._])(?<!vol[ ._])(?<!volume[ ._])"
    rf"(?P<episode>\d{{2,3}})(?:v\d)?[ ._]*(?={CHECKSUM_RE.pattern})",
    re.IGNORECASE,
)
# "the.100.109.hdtv", "FooBar.0307.PDTV": season and episode in one number before a TV source or codec; the
# scene's packed double episodes too: "Title.10708.hdtv" is season 1's episodes 7 and 8, "Title.010910.hdtv"
# season 1's 9 and 10.
_NUMBER_BEFORE_TV_RE: Final = re.compile(
    r"(?<=[ ._])(?P<number>\d{1,4}|\d{5,6}(?=[ ._]))(?:v\d)?[ ._]+"
    r"(?=(?:(?:480|576|720|1080)[pi][ ._]+(?=hdtv|pdtv|sdtv))?"
    r"(?:hdtv|pdtv|sdtv|dsr|tvrip|hdtvrip|x264|h264|xvid)(?![a-z0-9]))",
    re.IGNORECASE,
)


def seasons_and_episodes(scan: Scan) -> tuple[list[int], list[int]]:
    """Read the seasons and the episodes a name numbers ("S01E02", "Season 1-3", "Episode 5", "第3話")."""
    seasons, episodes = _episode_codes(scan)
    _season_forms(scan, seasons, episodes)
    # Episode words are taken even when a code numbers the episodes ("S01E05 - Ep. 5").
    words = _episode_words(scan)
    if seasons and not episodes and not words:
        # A season's OVA numbered after a dash: "Title S2 OVA - 02" (with no season a bare number reads it).
        words = [int(match.group("episode")) for match in scan.every(_SPECIAL_EPISODE_RE)]
    return sorted(set(seasons)), list(dict.fromkeys(episodes or words))


def _episode_codes(scan: Scan) -> tuple[list[int], list[int]]:
    """Read codes that number a season and its episodes: "S01E02", "1x02", "S2-07", "[5.134]", "[Cap.102]"."""
    seasons: list[int] = []
    episodes: list[int] = []
    forms = (_SXXEYY_RE, _CROSS_RE, _SEASON_DASH_EPISODE_RE, _DOTTED_EPISODE_RE)
    for pattern in (*forms, _UNDERSCORE_EPISODE_RE) if "_" in scan.masked else forms:
        for match in scan.every(pattern):
            seasons.append(int(match.group("season").lower().replace("o", "0")))
            episodes.extend(_episode_list(int(match.group("episode")), match.groupdict().get("more") or ""))
        if episodes:
            return seasons, episodes
    for match in scan.every(_CAP_CODE_RE):
        seasons.append(int(match.group("season")))
        episodes.extend(_episode_range(int(match.group("episode")), match.group("last")))
    return seasons, episodes


def _season_forms(scan: Scan, seasons: list[int], episodes: list[int]) -> None:  # noqa: C901, PLR0912 - one flat list of forms
    """Add the seasons words name ("Season 1-3", "2nd Season", "S01-S03"), and an episode right after one.

    The season forms are always taken, so that a "Temporada 4" next to a "[Cap.408]" leaves the title.
    """
    for match in scan.every(_ORDINAL_SEASON_RANGE_RE):
        first, last = int(match.group("first")), int(match.group("last"))
        middle = [int(number) for number in re.findall(r"\d+", match.group("middle"))]
        is_range = not middle and match.group("separator").lower() in _SEASON_RANGE_WORDS
        seasons.extend(_season_range(first, last) if is_range else [first, *middle, last])
    seasons.extend(
        _ORDINAL_WORDS[match.group("word").lower()] for match in scan.every(_ORDINAL_WORD_SEASON_RE)
    )
    for match in scan.every(_ORDINAL_SEASON_RE):
        seasons.append(int(match.group("first")))
        if not episodes:
            episodes.extend(_episode_after_season(scan, match.end()))  # "2nd Season - 12"
    for match in scan.every(_SEASON_RANGE_RE):
        first, last = int(match.group("first")), int(match.group("last"))
        # An anime's "S01 - 13" (".-." in a dotted name) is an episode; a range is "S01-13".
        spaced = _SPACED_DASH_RE.search(match.group(0)) is not None
        if (last <= first or spaced) and not episodes and "s" not in match.group(0)[1:].lower():
            seasons.append(first)  # "[Group] Title S02 - 01": no range runs backwards, an episode follows
            episodes.append(last)
        else:
            seasons.extend(_season_range(first, last))
    for match in scan.every(_SEASON_WORD_RE):
        seasons.append(_season_number(match.group("first")))
        dotted = _SPACED_SEASON_DOT_EPISODE_RE.search(match.group(0))
        if not episodes and dotted and dotted.group(1) == match.group("rest"):
            episodes.append(int(dotted.group("episode")))  # "Season 4.16" in a spaced name: its episode 16
            continue
        if not episodes:
            episodes.extend(_episode_after_season(scan, match.end()))  # "Season 2 - 08"
        for item in _SEASON_ITEM_RE.finditer(match.group("rest")):
            number, separator = int(item.group(2)), (item.group(1) or "").lower()
            is_range = separator in _SEASON_RANGE_WORDS
            seasons.extend(_season_range(seasons[-1], number) if is_range else [number])
    seasons.extend(int(match.group("season")) for match in scan.every(_SEASON_ALL_RE))
    for match in scan.every(_SEASON_RE):
        seasons.append(int(match.group(1)))
        if not episodes and (after_season := _episode_after_season(scan, match.end())):
            episodes.extend(after_season)  # "Title S2 (2019) - 11"
        elif not episodes and (after := _SEASON_BARE_EPISODE_RE.match(scan.masked, match.end())):
            scan.take(after)  # "Title S02 03": the season's third episode
            episodes.append(int(after.group("episode")))
    # Forms in other scripts are only looked for in names that have some: most names are ASCII.
    for match in scan.every(_CJK_SEASON_RE) if not scan.text.isascii() else ():
        first = _cjk_number(match.group(1) or match.group(3) or match.group(4))
        seasons.extend(_season_range(first, int(match.group(2) or 0)))
        if not episodes:
            episodes.extend(_episode_after_season(scan, match.end()))  # "[Group][Title 第二季][01]"
    # British "Series 2" is a season, unless another form numbers one: "Series 7 S01E02" is a title's.
    if not seasons and (series := scan.first(_SERIES_RE)):
        seasons.extend(_season_range(int(series.group("season")), int(series.group("last") or 0)))
        if not episodes:
            episodes.extend(_episode_after_season(scan, series.end()))


def _episode_words(scan: Scan) -> list[int]:
    """Take the episodes that words number: "Episode 5", "24 серия", "215 ao 220", "3 of 6", "第3話"."""
    episodes: list[int] = []
    wide = not scan.text.isascii()
    for match in scan.every(_EPISODES_SO_FAR_RE) if wide else ():
        episodes.extend(range(1, min(int(match.group("count")), _LONGEST_RANGE) + 1))
    for match in scan.every(_NUMBER_EPISODE_WORD_RE):
        first, last = match.group("first"), match.group("episode")
        episodes.extend(_episode_range(int(first), last) if first else [int(last)])
    for match in scan.every(_EPISODE_WORD_RE):
        plus = [int(number) for number in re.findall(r"\d+", match.group("plus") or "")]
        episodes.extend([*_episode_range(int(match.group("episode")), match.group("last")), *plus])
    for match in scan.every(_AO_RANGE_RE):
        episodes.extend(_episode_range(int(match.group("episode")), match.group("last")))
    for match in scan.every(_OF_RE):
        first, last = match.group("first"), match.group("episode")
        episodes.extend(_episode_range(int(first), last) if first else [int(last)])
    for match in scan.every(_CJK_EPISODE_RE) if wide else ():
        episodes.extend(_cjk_episodes(match))
    return episodes


# A season in brackets may come first: "Title (Season 2) - 05".
_AFTER_SEASON_EPISODE_RE: Final = re.compile(
    r"[)\]]?(?P<year>[ ._]\((?:19|20)\d{2}\))?(?:[ ._]-[ ._]part[ ._]\d{1,2}(?=[ ._]-[ ._]))?"
    r"(?:[ ._]-[ ._]|[ ._]part[ ._]|[ ._][(\[]?(?=\d{1,4} ?[-~] ?\d))"
    r"(?P<episode>\d{1,4})(?:v\d)?(?:(?:[ ]?[-~][ ]?|[ ](?:to|ao|al)[ ])(?P<last>\d{1,4}))?(?![\dpi])[)\]]?",
    re.IGNORECASE,
)


def _episode_after_season(scan: Scan, end: int) -> list[int]:
    """Take and return the episodes numbered right after a season: "S2 - 11", "S2 (2019) - 11", "Part 3".

    An anime's cour may come between: "S3 - Part 1 - 13".
    """
    after = _AFTER_SEASON_EPISODE_RE.match(scan.masked, end)
    if after is None:
        # An anime's zero-padded episode right after its season: "[Group] Title 2nd Season 05 [1080p]".
        if padded := _PADDED_EPISODE_RE.match(scan.masked, end):
            scan.take(padded)
            return [int(padded.group("episode"))]
        return []
    if after.group("year"):  # the year is left to the year finder
        past_year = _AFTER_SEASON_EPISODE_RE.match(scan.masked, after.end("year"))
        if past_year is None:
            return []
        after = past_year
    if is_year(after.group("episode")):
        return []  # "Season 1 (2010-11)": the years the season ran, left to the year finder
    scan.take(after)
    return _episode_range(int(after.group("episode")), after.group("last"))


_PADDED_EPISODE_RE: Final = re.compile(
    r"[ ._](?P<open>[\[(])?(?P<episode>0\d{1,2})(?(open)[\])])(?![\dpi])(?=[ ._\[(]|$)"
)
# "Title S02 03", and in brackets as the whole name is: "[Group][Title S2][03]".
_SEASON_BARE_EPISODE_RE: Final = re.compile(
    r"[ ._](?P<open>\[)?(?!(?:480|576|720)\b)(?P<episode>\d{2,3})(?(open)\])"
    r"(?![\dpi]|[ ._]?(?:of|de)\b)(?=[ ._\[(]|$)"
)
# A season's number and a point in a name spaced with spaces, then a two-digit number: "Season 4.16" numbers
# an episode as "Episode 4.16" does ("Season.4.16" in a dotted name may list seasons).
_SPACED_SEASON_DOT_EPISODE_RE: Final = re.compile(r" \d{1,2}(\.(?P<episode>\d{2}))$")
_SPECIAL_EPISODE_RE: Final = token(
    r"(?:ova|oad|ona)[ ._]?-[ ._]?(?P<episode>\d{1,3})(?:v\d)?",
    right=r"(?![\dpi]|[a-z])",
    hints=("ova", "oad", "ona"),
)
_SEASON_ITEM_RE: Final = re.compile(
    rf"(-|~|to|a|à|&|and|,|/|\+|{_AND_WORDS}|{_TO_WORDS})?[ ._]?(?:s|season[ ._]?)?(\d{{1,2}})", re.IGNORECASE
)
# The most episodes one range names: long anime runs go past a thousand ("001-1100").
_LONGEST_RANGE: Final = 2000
_EPISODE_ITEM_RE: Final = re.compile(r"([-+~]\d{1,2}[x×х]|[^\d]+)(\d{1,5})")  # noqa: RUF001 - letters of other scripts, on purpose
# The season said again in a range: "S01E01-S01E03".
_SEASON_AGAIN_RE: Final = re.compile(r"(?<=[-._ ~])s?\d{1,3}(?=[ex×х])", re.IGNORECASE)  # noqa: RUF001 - letters of other scripts, on purpose
# What joins two episodes into a range: "E01-E04", "E01 à E12", "E01 to E12", "2x09-2x10".
_RANGE_SEPARATOR_RE: Final = re.compile(r"[-~]|(?<![a-z])(?:à|a|al|ao|to)(?![a-z])", re.IGNORECASE)


def _episode_list(first: int, more: str) -> list[int]:
    """Expand "E01" and "-E04" / "E02E03" / "+02" / "-03-04" / "x45x46" / " to E12" into the episodes named.

    A number after a dash that is not larger than the last is no range but a title word ("E13-3 Acts"); one
    after a dot only continues the episodes when it is the next one ("S03E21.22.VOSTFR", not "E05.12.Title").
    """
    episodes = [first]
    for item in _EPISODE_ITEM_RE.finditer(_SEASON_AGAIN_RE.sub("", more)):
        number = int(item.group(2))
        if item.group(1) == "." and number != episodes[-1] + 1:
            break
        if _RANGE_SEPARATOR_RE.search(item.group(1)):
            if number <= episodes[-1]:
                break
            episodes.extend(range(episodes[-1] + 1, min(number, episodes[-1] + _LONGEST_RANGE) + 1))
        else:
            episodes.append(number)
    return episodes


def _episode_range(first: int, last: str | None) -> list[int]:
    if last is None or int(last) <= first:
        return [first]
    return list(range(first, min(int(last), first + _LONGEST_RANGE) + 1))


def _season_range(first: int, last: int) -> list[int]:
    return list(range(first, max(first, min(last, first + 100)) + 1))


def _season_number(word: str) -> int:
    word = word.lower()
    return int(word) if word.isdigit() else _ROMAN.get(word) or _NUMBER_WORDS[word]


def _cjk_episodes(match: re.Match[str]) -> list[int]:
    """Return the episodes of "第3話", "第1-12話", "01-12話" or "全12話" (all twelve)."""
    if match.group(5):
        return _episode_range(1, match.group(5))
    first = match.group(1) or match.group(3)
    return _episode_range(_cjk_number(first), match.group(2) or match.group(4))


def _cjk_number(text: str) -> int:
    if text.isdigit():
        return int(text)
    if "十" not in text:
        return _CJK_DIGITS.get(text, 0)
    tens, _, units = text.partition("十")
    return (_CJK_DIGITS.get(tens, 1) if tens else 1) * 10 + _CJK_DIGITS.get(units, 0)


def episode_before_season(scan: Scan, start: int, end: int) -> tuple[list[int], int]:
    """Read "[Group] Title - 05 (S2)": an anime's episode after a dash, before its season (episodes, end).

    Only right before brackets or the season: "[Group] Title - 100 Days S2" keeps its number.
    """
    match = _DASH_NUMBER_RE.search(scan.masked, start, end + 1)
    if (
        match is None
        or is_year(match.group("episode"))
        or scan.masked[match.end() :].lstrip(" ._")[:1] not in {"(", "[", MASK}
    ):
        return [], end
    scan.take(match)
    last = match.group("last") or match.group("last_word")
    return _episode_range(int(match.group("episode")), last), match.start()


def bare_episode(  # noqa: PLR0911 - one return per form
    scan: Scan, start: int, end: int, *, leading_group: str | None, year: int | None, is_file: bool
) -> tuple[list[int], list[int], int, int]:
    """Read episodes numbered by a bare number when nothing else numbers them: (seasons, episodes, span).

    "Title - 12", "[Group] Title 12 [1080p]", "01 - Title", and "Title.307.HDTV" (season 3, episode 7).
    Each form is narrow on purpose: "Apollo 13 1080p" and "Plan 9 from Outer Space" are films.
    """
    head = scan.masked[:end]
    # A number may end at a language tag as at any other: "Title 05 ITA [720p]", "[Group] Title 12 ENG 1080p".
    tagged = without_language_tags(scan.masked)
    # An episode may follow the year: "[Group] Title (2020) - 35 (720p)", "Title (2020) - 05 [720p]".
    dash_head = tagged[: max(end, scan.first_marker()) if leading_group or year else end]
    match = _DASH_NUMBER_RE.search(dash_head, start)
    if match is None and (tags := _TAGS_IN_BRACKETS_RE.match(scan.masked, end)):
        match = _DASH_NUMBER_RE.match(scan.masked, tags.end())  # "Title (DVD) - 02 [Group]"
    if match and not is_year(match.group("episode")):
        scan.take(match)
        stop = min(match.start(), end)
        last = match.group("last") or match.group("last_word")
        return [], _episode_range(int(match.group("episode")), last), start, stop
    if not leading_group and (match := _LEADING_SEASON_EPISODE_RE.match(head, start)):
        scan.take(match, 0)  # "4-13 Episode Title.mkv": season 4's thirteenth
        return [int(match.group("season"))], [int(match.group("episode"))], match.end(), end
    if (
        year is None
        and (match := _LEADING_NUMBER_RE.match(head, start))
        and not is_year(match.group(1))
        and (leading_group or not match.group("space"))
    ):
        scan.take(match, 0)
        episodes = _episode_range(int(match.group("episode")), match.group("last"))
        # "003. Title - Episode Name": the title stops at the dash.
        dash = scan.text.find(" - ", match.end(), end)
        return [], episodes, match.end(), dash if dash > 0 else end
    if is_file and not leading_group and (numbered := _file_episode(scan, start, end)):
        return numbered
    match = (
        (_BARE_NUMBER_RE if " " in scan.text else _SPACELESS_BARE_NUMBER_RE).search(dash_head, start)
        if leading_group
        else _PADDED_RANGE_RE.search(tagged, start, len(dash_head) + 1)
    )
    if (
        match
        and not is_year(match.group("episode"))
        # an unpadded range must rise to be a batch: "Title 24-12" is no episode 24
        and (
            leading_group
            or match.group("episode")[0] == "0"
            or int(match.group("last")) > int(match.group("episode"))
        )
    ):
        scan.take(match)
        stop = min(match.start(), end)
        return [], _episode_range(int(match.group("episode")), match.group("last")), start, stop
    if not leading_group and (match := _number_before_tags(scan, tagged, start, end)):
        scan.take(match)
        return [], [int(match.group("episode"))], start, min(match.start(), end)
    match = _BRACKETED_NUMBER_RE.search(scan.masked[: scan.first_marker()], start)
    number = match and (match.group("episode") or match.group("hash") or match.group("paren"))
    if match and number and match.start() > start and not is_year(number):
        scan.take(match)  # "[Group] Title [05][1080p]", "Title #05": an episode
        return [], _episode_range(int(number), match.group("hash_last")), start, min(match.start(), end)
    match = _BRACKETED_RANGE_RE.search(scan.masked, start)
    if (
        match
        and not is_year(match.group("episode"))
        and int(match.group("last")) > int(match.group("episode"))
    ):
        scan.take(match)  # "[Group] Title (001-220)", "Title [01-12]": a batch
        return (
            [],
            _episode_range(int(match.group("episode")), match.group("last")),
            start,
            min(match.start(), end),
        )
    return _number_before_tv(scan, start, end)


def _file_episode(scan: Scan, start: int, end: int) -> tuple[list[int], list[int], int, int] | None:
    """Read a file's episode: "Title 03-20.mkv", "Title.02.09.avi" (one, not a range), "Title 05.mkv"."""
    if match := _FILE_SEASON_EPISODE_RE.search(scan.masked, start):
        scan.take(match)
        return [int(match.group("season"))], [int(match.group("episode"))], start, min(match.start(), end)
    if match := _PADDED_FILE_END_RE.search(scan.masked, start):
        scan.take(match)
        return [], [int(match.group("episode"))], start, min(match.start(), end)
    return None


def _number_before_tags(scan: Scan, tagged: str, start: int, end: int) -> re.Match[str] | None:
    """Without a group, find "Title 04 [1080p]" or "Title 63 [1A2B3C4D].mkv" (see the patterns)."""
    if match := _PADDED_NUMBER_RE.search(tagged, start, end + 1):
        return match
    match = _NUMBER_BEFORE_CHECKSUM_RE.search(scan.text, start)
    if match and match.start() <= end and MASK not in scan.masked[match.start() : match.end("episode")]:
        return match
    return None


def _number_before_tv(scan: Scan, start: int, end: int) -> tuple[list[int], list[int], int, int]:
    """Read "Title.307.HDTV" (season 3, episode 7), "Title.10708.HDTV" (season 1, episodes 7 and 8)."""
    match = next(
        (
            m
            for m in _NUMBER_BEFORE_TV_RE.finditer(scan.text, start)
            if MASK not in scan.masked[m.start() : m.end()]
        ),
        None,
    )
    if match is None or re.fullmatch(r"(?:19|20)\d{2}", match.group("number")):  # "Blade.Runner.2049.HDTV"
        return [], [], start, end
    digits = match.group("number")
    cut = min(match.start(), end)
    if len(digits) > 4:  # noqa: PLR2004 - a season and two episodes
        season, first, second = int(digits[:-4]), int(digits[-4:-2]), int(digits[-2:])
        if second != first + 1:
            return [], [], start, end
        scan.take(match)
        return [season], [first, second], start, cut
    if len(digits) > 2:  # noqa: PLR2004 - one number for a season and an episode
        scan.take(match)
        return [int(digits[:-2])], [int(digits[-2:])], start, cut
    if re.match(r"(?:hdtv|pdtv|sdtv|dsr|tvrip)", scan.text[match.end() :], re.IGNORECASE):
        scan.take(match)
        return [], [int(digits)], start, cut
    return [], [], start, end


def is_year(digits: str) -> bool:
    """Whether a number is a year a release can have (1900 up to next year)."""
    return len(digits) == 4 and 1900 <= int(digits) <= dt.datetime.now(tz=dt.UTC).year + 1  # noqa: PLR2004
