"""Audio languages in a release name: "FRENCH", "MULTi", "Eng-Spa", "Audio Latino", "Hindi Dubbed".

Pure Python (standard library only). Part of reading a name (see parse.py): the languages are the audio's,
which is what the ranking asks for; languages named as subtitles ("Sub Eng Esp", "Ger.Eng.Sub", "SWESUB",
"VOSTFR") are not.
"""

from __future__ import annotations

import re
from typing import Final

from .scan import MASK, Scan, hinted, token

LANGUAGE_WORDS: Final = {
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
    "urdu": "ur", "arab": "ar", "sk": "sk", "lt": "lt", "lv": "lv", "hu": "hu", "ro": "ro", "ja": "ja",
    "dk": "da",
    "multi": "multi", "dual": "dual", "dual-audio": "dual",
    # Languages named in their own tongue: "Film Polski", "Versão Portuguesa", "Magyar Szinkron".
    "polski": "pl", "portuguesa": "pt", "magyar": "hu", "svenska": "sv", "norsk": "no", "dansk": "da",
    "suomi": "fi", "nederlands": "nl", "türkçe": "tr", "turkce": "tr",
}  # fmt: skip
# Words that name several audio languages at once.
_LANGUAGE_GROUPS: Final = {"nordic": ("da", "fi", "no", "sv"), "scandinavian": ("da", "no", "sv")}
# Glued dubbing tags: "DUBPL", "PLDUB", "HUNDUB", "RoDubbed"; a Polish voice-over ("lektor"): "LEKPL",
# "Lektor PL", "PL.Lektor".
_DUBBED_RE: Final = hinted(
    re.compile(
        r"(?<![a-z])(?:(?:dub|lek(?:tor)?)[ .-]?(?P<after>[a-z]{2,3})"
        r"|(?P<before>[a-z]{2,3})[ .-]?(?:dub(?:bed)?|lektor))(?![a-z])",
        re.IGNORECASE,
    ),
    ("dub", "lek"),
)
# Two-letter codes that are also words of titles in title case ("De", "It"); other codes count so ("Fr-Eng").
_TITLE_CASE_WORDS: Final = frozenset({"de", "it", "en", "es", "no", "ro", "hu", "ja"})
# Chinese audio named in Chinese: Mandarin (国语, 普通话) or Cantonese (粤语).
_CHINESE_AUDIO_RE: Final = re.compile(r"国语|國語|粤语|粵語|普通话|普通話|国粤")
# Two-letter codes and short words that are also English words or title words only count in capitals.
_CAPITALS_ONLY: Final = frozenset(
    {"en", "fr", "de", "it", "es", "pt", "ru", "nl", "pl", "jp", "cz", "vf", "cat", "tam", "tel", "mal",
     "rom", "dan", "fin", "nor", "por", "spa", "gre", "chi", "jap", "rum", "tur", "sk", "lt", "lv", "hu",
     "ro", "ja", "dk", "arab"}
)  # fmt: skip
# Words are looked up in LANGUAGE_WORDS: one pass over the name instead of a long alternation. Letters glued
# to a digit the finders left are no word ("pt1" is a part, "unm4sk" a title's) unless the digit is the
# word's ("VF2").
_WORD_RE: Final = re.compile(r"(?<![^\W_])[^\W\d_]+(?:-audio|\d)?(?![^\W_])", re.IGNORECASE)
# "sub.FR", "FRENCH.Subs", "VOSTFR", "Legendado PT-BR" (Portuguese for "subtitled"): subtitles, not the audio.
_SUBTITLE_BEFORE_RE: Final = re.compile(
    r"(?:sub(?:s|titles?|bed)?|legendas?|legendad[oa]|vost)[ ._-]*$", re.IGNORECASE
)
_SUBTITLE_AFTER_RE: Final = re.compile(r"^[ ._-]*(?:sub|legend|subtitle|softsub|hardsub)", re.IGNORECASE)

# Words that name a language only beside another language word: "Port.BR", "Latin + English".
_NEIGHBOUR_ONLY: Final = {"br": "pt", "latin": "es", "port": "pt"}
# What joins the words of a list of languages: "Eng-Spa", "ITA.ENG", "Latin + English", "Eng/Rus".
_JOIN_RE: Final = re.compile(r"[ ._,+/&-]{1,3}")
# Audio said in words: "Audio Latino", "Greek Language", "Hindi Dubbed"; these end a title.
_SPOKEN_WORDS: Final = "|".join(
    sorted((word for word in LANGUAGE_WORDS if len(word) > 3 and word.isalpha()), key=len, reverse=True)  # noqa: PLR2004
)
_SPOKEN_RE: Final = token(
    rf"(?:audio|dubbed|dub)[ ._-]+(?P<after>{_SPOKEN_WORDS})"
    rf"|(?P<before>{_SPOKEN_WORDS})[ ._-]+(?:audio|language|dubbed|dub)",
    hints=("audio", "language", "dub"),
)
# A site's domain in brackets: "[YTS.LT]", "[www.Example.fi]"; its last part is no language.
_BRACKETED_DOMAIN_RE: Final = re.compile(
    r"[\[{(](?:www\.)?(?:[a-z0-9]{2,}\.)+(?:[a-z]{2}|com|org|net)[\]})]", re.IGNORECASE
)
# A name in Cyrillic, with no language named, is a Russian release (Ukrainian if it has Ukrainian letters).
_CYRILLIC_RE: Final = re.compile(r"[а-яё]{3}", re.IGNORECASE)  # noqa: RUF001 - letters of other scripts, on purpose
_UKRAINIAN_RE: Final = re.compile(r"[іїєґ]", re.IGNORECASE)
# Spanish sites number episodes "[Cap.101]": a Spanish release when nothing else is named.
_SPANISH_CAP_RE: Final = re.compile(r"\[cap\.?\s?\d{3,4}", re.IGNORECASE)


def language_code(value: str) -> str:
    """Return the ISO 639-1 code for a language's name or code ("French", "fre", "fr" -> "fr")."""
    value = value.strip().lower()
    return LANGUAGE_WORDS.get(value, value[:2] if len(value) > 2 else value)  # noqa: PLR2004


def take_spoken(scan: Scan) -> list[str]:
    """Take and return the audio languages said in words ("Audio Latino", "Greek Language")."""
    return [
        LANGUAGE_WORDS[(match.group("after") or match.group("before")).lower()]
        for match in scan.every(_SPOKEN_RE)
    ]


# Two words of three letters or more ending a title: a list of languages if both are ones ("Sintel Ita Eng").
_LAST_PAIR_RE: Final = re.compile(r"[ ._-]([A-Za-z]{3,})[ ._+-]+([A-Za-z]{3,})$")
# A language word ending a title, with the "DL" (dual language) that may follow it: "Sintel German DL".
_WORD_END_RE: Final = re.compile(r"[a-z]+$")
_LAST_WORD_RE: Final = re.compile(r"[ ._-]([A-Za-z]+)(?:[ ._-]+DL)?$")


def trailing_language_tag(
    text: str, *, before_tags: bool = False, tag_words: frozenset[str] = frozenset()
) -> str:
    """Drop a language tag that ends a title ("Friends MULTi", "Sintel GERMAN DL" -> the title alone).

    `before_tags`: a release tag, not a year, follows the title ("Sintel.German.720p"): there a language's
    name in title case is a tag too, as names without a year write it ("Johnny English 2003" keeps it); so it
    is after one of `tag_words` (lower case), whatever follows.
    """
    match = _LAST_WORD_RE.search(text)
    if match is None or (word := match.group(1)).lower() not in LANGUAGE_WORDS:
        return text  # most titles end in no language word
    if (pair := _LAST_PAIR_RE.search(text)) and pair.group(1).lower() in LANGUAGE_WORDS:
        return _before_subtitle_word(text[: pair.start()])  # "Sintel Ita Eng": a list in any case
    before = text[: match.start()].lower()
    after_tag = bool(tag_words) and _WORD_END_RE.search(before)
    named = (
        (before_tags or (after_tag and after_tag.group(0) in tag_words))
        and len(word) > 4  # noqa: PLR2004
        and not before.endswith("the")
    )
    if named or _is_language_tag(word):
        return _before_subtitle_word(text[: match.start()])
    return text


def _before_subtitle_word(text: str) -> str:
    """Drop the word that makes the language tag after it a subtitles' one: "Sintel" of "Sintel Sub"."""
    if (word := _SUBTITLE_BEFORE_RE.search(text)) and not text[word.start() - 1 : word.start()].isalnum():
        return text[: word.start()]
    return text


def without_language_tags(masked: str) -> str:
    """Mask a masked name's language tags ("ITA", "ENG", "MULTi", "Sub"), for finders that end at tags."""
    return _TAG_WORD_RE.sub(_masked_if_tag, masked)


def _masked_if_tag(word: re.Match[str]) -> str:
    text = word.group(0)
    return MASK * len(text) if text.lower() in _SUBTITLE_WORDS or _is_language_tag(text) else text


_TAG_WORD_RE: Final = re.compile(r"(?<![^\W_])[A-Za-z]{2,6}(?![^\W_])")
_SUBTITLE_WORDS: Final = frozenset({"sub", "subs"})


def _is_language_tag(word: str) -> bool:
    lowered = word.lower()
    if lowered not in LANGUAGE_WORDS:
        return False
    # "FRENCH", "MULTi", "iTA" are tags; "French" or "Dual" in a title is a word; "it", "de" need capitals.
    if lowered in _CAPITALS_ONLY and word == lowered:
        return False
    return not (word[:1].isupper() and word[1:].islower())


def audio_languages(scan: Scan, title_end: int, title: str, spoken: list[str]) -> tuple[str, ...]:
    """Return the audio languages a name names, in order, after those said in words (see take_spoken)."""
    text = scan.text
    masked = scan.masked
    for domain in _BRACKETED_DOMAIN_RE.finditer(masked):
        masked = masked[: domain.start()] + " " * len(domain.group(0)) + masked[domain.end() :]
    words = [
        match
        for match in _WORD_RE.finditer(masked)
        if (lowered := match.group(0).lower()) in LANGUAGE_WORDS
        or lowered in _LANGUAGE_GROUPS
        or lowered in _NEIGHBOUR_ONLY
    ]
    found = list(spoken)
    for run in _runs(text, words):
        last, after = run[-1], text[run[-1].end() :]
        if _SUBTITLE_AFTER_RE.match(after) and (last.group(0).lower() == "multi" or after[:1].isalpha()):
            run = run[:-1]  # noqa: PLW2901 - "Eng Fre Multi Subs", "JAPANESE.ENSUBBED": the audio, then subtitles
        elif _SUBTITLE_BEFORE_RE.search(text[: run[0].start()]) or _SUBTITLE_AFTER_RE.match(after):
            continue  # "Sub Eng Esp Tur", "Ger.Eng.Sub": a list of subtitles
        for match in run:
            if _counts(text, match, title_end, title, listed=len(run) > 1):
                lowered = match.group(0).lower()
                found.extend(
                    _LANGUAGE_GROUPS.get(lowered)
                    or (LANGUAGE_WORDS.get(lowered) or _NEIGHBOUR_ONLY[lowered],)
                )
    dubbed = (
        (m.group("after") or m.group("before")).lower()
        for m in (_DUBBED_RE.finditer(text, title_end) if scan.may_match(_DUBBED_RE) else ())
    )
    found.extend(LANGUAGE_WORDS[word] for word in dubbed if word in LANGUAGE_WORDS)
    wide = not text.isascii()
    if wide and _CHINESE_AUDIO_RE.search(text):
        found.append("zh")
    if not found and wide and _CYRILLIC_RE.search(text):
        found.append("uk" if _UKRAINIAN_RE.search(text) else "ru")
    if not found and _SPANISH_CAP_RE.search(text):
        found.append("es")
    return tuple(dict.fromkeys(found))


def _runs(text: str, words: list[re.Match[str]]) -> list[list[re.Match[str]]]:
    """Group language words into lists: words joined by "-", ".", "+", "/", "," or spaces."""
    runs: list[list[re.Match[str]]] = []
    for match in words:
        if runs and _JOIN_RE.fullmatch(text[runs[-1][-1].end() : match.start()]):
            runs[-1].append(match)
        else:
            runs.append([match])
    return runs


_TITLE_TAIL_RE: Final = re.compile(r"[ ._-]*(?:DL[ ._-]*)?")


def _counts(text: str, match: re.Match[str], title_end: int, title: str, *, listed: bool) -> bool:
    """Whether one language word names the audio: a tag, not a word of the title or a group's name."""
    word = match.group(0)
    lowered = word.lower()
    if lowered in _NEIGHBOUR_ONLY:
        return listed
    # Before the title's end, a word the title kept is the title's ("The French Connection"); a language's
    # name the title dropped as its last word ("Sintel.German.720p": trailing_language_tag) is the audio's.
    if match.start() < title_end and (
        lowered in title.lower().split()
        or not (listed or _is_language_tag(word) or _TITLE_TAIL_RE.fullmatch(text, match.end(), title_end))
    ):
        return False
    if lowered in _CAPITALS_ONLY:
        if not listed and _is_group(text, match):
            return False
        if word == lowered or (lowered in _TITLE_CASE_WORDS and not word.isupper()):
            return listed  # "it", "De" alone are words; "eng.ita", "En-De" are a list
    return True


def _is_group(text: str, match: re.Match[str]) -> bool:
    """Whether a word is the release group at the end of the name ("…x264-EN")."""
    return text[match.start() - 1 : match.start()] == "-" and not text[match.end() :].strip(" ]")
