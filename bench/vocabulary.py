"""One vocabulary for every parser and every corpus in bench/parse.py: labels and answers are mapped here.

The same functions turn a corpus's label and a parser's answer into the vocabulary of parse_release, so no
parser loses a case to a spelling ("1080i", "576p", "BRRip", "Blu-ray", "ENG").
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
import re
from typing import Any

# The tiers the ranking knows; every height maps to one (1080i -> 1080p, 576p/360p -> 480p).
RESOLUTION_WORDS = {
    "4k": "2160p",
    "uhd": "2160p",
    "qhd": "1080p",
    "fhd": "1080p",
    "fullhd": "1080p",
    "hd": "720p",
}
# Coarse classes; a REMUX is a BluRay.
SOURCE_CLASSES = {
    "cam": "trash", "telesync": "trash", "telecine": "trash", "screener": "trash",
    "hdtv": "tv", "dvd": "dvd", "webrip": "web", "web-dl": "web", "bluray": "bluray", "remux": "bluray",
}  # fmt: skip
TRASH_SOURCES = frozenset({"cam", "telesync", "telecine", "screener"})
# A quality word, lower case without separators, -> the vocabulary's source.
SOURCE_WORDS = {
    "bluray": "bluray", "bluraydisc": "bluray", "bdrip": "bluray", "brrip": "bluray", "bd": "bluray",
    "blurayrip": "bluray", "wbbrip": "bluray", "usbd": "bluray", "hddvd": "bluray", "bdremux": "remux",
    "blurayremux": "remux", "remux": "remux", "webdl": "web-dl", "web": "web-dl", "webmux": "web-dl",
    "webdlmux": "web-dl", "webrip": "webrip", "webdlrip": "webrip", "hdrip": "webrip", "hdtv": "hdtv",
    "hdtvrip": "hdtv", "pdtv": "hdtv", "sdtv": "hdtv", "tvrip": "hdtv", "satrip": "hdtv", "ppvrip": "hdtv",
    "ahdtvmux": "hdtv", "ahdtv": "hdtv", "dsr": "hdtv", "dsrip": "hdtv", "uhdrip": "hdtv", "dvd": "dvd",
    "dvdrip": "dvd", "dvdr": "dvd", "cam": "cam", "camrip": "cam", "hdcam": "cam", "ts": "telesync",
    "hdts": "telesync", "telesync": "telesync", "tc": "telecine", "telecine": "telecine", "scr": "screener",
    "screener": "screener", "dvdscr": "screener", "bdscr": "screener",
}  # fmt: skip
CODEC_WORDS = {
    "x264": "avc", "h264": "avc", "avc": "avc", "x265": "hevc", "h265": "hevc", "hevc": "hevc", "av1": "av1",
    "xvid": "xvid", "divx": "xvid",
}  # fmt: skip
LANGUAGE_WORDS = {
    "english": "en", "eng": "en", "en": "en", "french": "fr", "fre": "fr", "fra": "fr", "fr": "fr",
    "german": "de", "ger": "de", "deu": "de", "de": "de", "italian": "it", "ita": "it", "it": "it",
    "spanish": "es", "spa": "es", "esp": "es", "es": "es", "portuguese": "pt", "por": "pt", "pt": "pt",
    "russian": "ru", "rus": "ru", "ru": "ru", "japanese": "ja", "jap": "ja", "jpn": "ja", "jp": "ja",
    "ja": "ja", "chinese": "zh", "chi": "zh", "mandarin": "zh", "zh": "zh", "korean": "ko", "kor": "ko",
    "ko": "ko", "hindi": "hi", "hin": "hi", "hi": "hi", "tamil": "ta", "tam": "ta", "ta": "ta",
    "telugu": "te", "tel": "te", "te": "te", "malayalam": "ml", "mal": "ml", "ml": "ml", "kannada": "kn",
    "kan": "kn", "kn": "kn", "bengali": "bn", "bangla": "bn", "bn": "bn", "marathi": "mr", "mr": "mr",
    "punjabi": "pa", "pa": "pa", "urdu": "ur", "ur": "ur", "polish": "pl", "pol": "pl", "pl": "pl",
    "swedish": "sv", "swe": "sv", "sv": "sv", "danish": "da", "dan": "da", "da": "da",
    "norwegian": "no", "nor": "no", "no": "no", "finnish": "fi", "fin": "fi", "fi": "fi", "dutch": "nl",
    "flemish": "nl", "nl": "nl", "turkish": "tr", "tr": "tr", "greek": "el", "el": "el", "hebrew": "he",
    "he": "he", "hungarian": "hu", "hu": "hu", "czech": "cs", "cs": "cs", "arabic": "ar", "ar": "ar",
    "vietnamese": "vi", "vi": "vi", "thai": "th", "th": "th", "ukrainian": "uk", "uk": "uk",
    "romanian": "ro", "ro": "ro", "bulgarian": "bg", "bg": "bg", "lithuanian": "lt", "lt": "lt",
    "latvian": "lv", "lv": "lv", "icelandic": "is", "is": "is", "persian": "fa", "fa": "fa",
    "catalan": "ca", "ca": "ca", "croatian": "hr", "hr": "hr", "serbian": "sr", "sr": "sr",
    "slovak": "sk", "sk": "sk", "slovenian": "sl", "sl": "sl", "estonian": "et", "et": "et",
    "indonesian": "id", "id": "id", "malay": "ms", "ms": "ms", "la": "es",
}  # fmt: skip
HDR_KINDS = {"HDR10": "HDR", "HDR10+": "HDR", "DV": "DV", "HDR": "HDR"}


def _squash(value: str) -> str:
    return re.sub(r"[\W_]+", "", value).lower()


def resolution_tier(value: Any) -> str | None:
    """Return the tier of a resolution however it is written ("1080i", "1280x720", "576p", "4K"), or None.

    Width and height may be joined by the multiplication sign too, as some names write them.
    """
    if value is None or value == "":
        return None
    text = str(value).lower().replace(" ", "")
    if text in RESOLUTION_WORDS:
        return RESOLUTION_WORDS[text]
    if match := re.fullmatch(r"(\d{3,4})[x\u00d7](\d{3,4})[pi]?", text):
        width, height = int(match.group(1)), int(match.group(2))
        return _tier(max(height, width * 9 // 16))
    if match := re.fullmatch(r"(\d{3,4})[pi]?", text):
        return _tier(int(match.group(1)))
    return f"oov:{value}"


def _tier(lines: int) -> str:
    if lines >= 1600:
        return "2160p"
    if lines >= 900:
        return "1080p"
    if lines >= 700:
        return "720p"
    return "480p"


def source_of(word: Any) -> str | None:
    """Return the vocabulary's source for a quality word ("BRRip", "Web-DL", "HDTS"), "oov:…" if unknown."""
    if not word:
        return None
    return SOURCE_WORDS.get(_squash(str(word)), f"oov:{word}")


def codec_of(word: Any) -> str | None:
    if not word:
        return None
    return CODEC_WORDS.get(_squash(str(word)), f"oov:{word}")


def languages_of(words: Any) -> list[str] | str:
    """Return the ISO 639-1 codes of language names or codes, or "oov:…" when one is unknown."""
    if isinstance(words, str):
        words = [words]
    codes = []
    for word in words or ():
        code = LANGUAGE_WORDS.get(_squash(str(word)))
        if code is None:
            return f"oov:{word}"
        codes.append(code)
    return sorted(set(codes))


def numbers(value: Any) -> list[int]:
    """A season or episode label: one number, a list, or nothing."""
    if value is None:
        return []
    return sorted({int(item) for item in value} if isinstance(value, list) else {int(value)})


# guessit's words for sources (refined by "Rip"/"Remux" in its "other"), codecs and HDR, in the vocabulary.
GUESSIT_SOURCES = {
    "Blu-ray": "bluray", "Ultra HD Blu-ray": "bluray", "HD-DVD": "bluray", "Web": "web-dl", "HDTV": "hdtv",
    "Analog HDTV": "hdtv", "Ultra HDTV": "hdtv", "TV": "hdtv", "Digital TV": "hdtv", "Satellite": "hdtv",
    "Pay-per-view": "hdtv", "Video on Demand": "hdtv", "DVD": "dvd", "Camera": "cam", "HD Camera": "cam",
    "Telesync": "telesync", "HD Telesync": "telesync", "Telecine": "telecine", "HD Telecine": "telecine",
    "Workprint": "cam",
}  # fmt: skip
GUESSIT_CODECS = {"H.264": "avc", "H.265": "hevc", "Xvid": "xvid", "DivX": "xvid", "AV1": "av1"}
GUESSIT_HDR = {"HDR10": "HDR", "HDR10+": "HDR", "Dolby Vision": "DV"}


# A number that may be a year, anywhere in a name: a label "no year" needs a name without one.
YEAR_LIKE_RE = re.compile(r"(?:19|20)\d\d")


# A resolution the name writes; not "HD", which is mostly a word of something else ("DTS-HD", "AmazonHD").
WRITTEN_RESOLUTION_RE = re.compile(
    r"(?<![a-z0-9])(\d{3,4}[pi]|\d{3,4}[x\u00d7]\d{3,4}|2160|1080|720|"
    + "|".join(word for word in RESOLUTION_WORDS if word != "hd")
    + r")(?![a-z0-9])",
    re.IGNORECASE,
)


def whole_words(name: str) -> set[str]:
    """The name's words lower case, each whole ("web-dl" as "webdl")."""
    return {re.sub(r"[\W_]+", "", word) for word in re.split(r"[\s.\[\](){}_,+/]+", name.lower())}


def source_words(name: str) -> set[str]:
    """Where a source word may hide: whole words, without digits or a count ("2xDVD9" as "dvd"), and split
    at every non-letter ("web", "dl")."""
    whole = whole_words(name)
    counted = {re.sub(r"^\d+x(?=[a-z])|\d", "", word) for word in whole}
    return whole | counted | set(re.findall(r"[a-z]+", name.lower()))


def written_resolutions(name: str) -> set[str | None]:
    """The tiers of every resolution the name writes."""
    return {resolution_tier(match) for match in WRITTEN_RESOLUTION_RE.findall(name)}


def write_corpus(out: Path, cases: list[dict[str, Any]]) -> None:
    """Write a labelled corpus for bench/parse.py ({"cases": [...]}) and say how many names it holds."""
    out.write_text(json.dumps({"cases": cases}, ensure_ascii=False, indent=0), encoding="utf-8")
    print(f"{len(cases)} names written to {out}")


def extractor_arguments() -> tuple[Path, Path, set[str]]:
    """Read a corpus extractor's command line: the checkout, the output, and the names `--without` drops.

    `--without OTHER.json` (repeatable) names corpora whose names are not counted a second time.
    """
    parser = argparse.ArgumentParser()
    parser.add_argument("checkout", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--without", type=Path, action="append", default=[], help="drop the names it holds")
    args = parser.parse_args()
    elsewhere = {
        case["name"]
        for path in args.without
        for case in json.loads(path.read_text(encoding="utf-8"))["cases"]
    }
    return args.checkout, args.out, elsewhere
