"""Turn thcolin's scene-release-parser-php test data into a labelled file for bench/parse.py: first sight.

Run: python bench/srpphp_cases.py SRPPHP_CHECKOUT OUT.json [--without OTHER.json ...]
SRPPHP_CHECKOUT is a checkout of scene-release-parser-php (github.com/thcolin/scene-release-parser-php, MIT),
a PHP parser of scene release names. utils/releases.json is that parser's own output frozen as its regression
tests: utils/populate-tests.php runs the parser on each name of utils/releases.txt and writes what it read
(title, type, year, language, resolution, source, season, episode, and the generated name), and
tests/ReleaseTest.php asserts the parser still reads the same (one hand correction since: two guessed
resolutions). Its labels are thus that parser's reading, as the other corpora are their parsers' tests. Its
"guess" holds what the parser assumes for a field it did not read (this year, "VO", "SD"): no label. The
generated name is asserted too, so an absent field is one the parser found empty. The JSON is read with json;
the parser's word tables are read from src/Release.php as text, never run.
Kept: every name; its types are "movie" and "tvshow" (films, episodes and season packs: 127 and 20 names).
Labels, mapped through bench/vocabulary.py:
- title: the parser's, when the name starts with its words and the word after them is one the parser reads
  (a word of its tables, a year, an Sxx or SxxEyy) and not a language word the name writes again later
  ("La French 2014 FRENCH": the first may be the title's). So "Blue. Valentine" (read as "Blue") and
  "Kiss the blood off my hands - (Norman FOSTER) - 1948" are left unscored.
- year: the parser's; none when it has none and the name holds no 19xx/20xx number outside the title.
- resolution: the parser's (720p, 1080p); none when it has none and the name writes none.
- source: the vocabulary's reading of the name's word from the parser's source class (its WEB-DL stands for
  WEBRip and WebHD too, its HDRip for HD, mHD and HDLIGHT, its CAM for TS): unscored ("oov:…") unless that
  word is one the vocabulary knows and the only one; none when the parser has none and the name holds no
  source word of the vocabulary or of the parser, nor WORKPRINT.
- seasons and episodes: a tvshow's SxxEyy, or Sxx alone for a season pack; a film's none, unless the name
  holds a word of that field ("Star Wars Episode 4 ...": left unscored).
- languages: the parser's one language (FRENCH, GERMAN); its MULTI is none (as bench/rls_cases.py drops MULTi)
  only when the name writes no other language word of the parser or the vocabulary, else unscored (the
  parser writes MULTI for several languages it found: "FR EN", "VFF-STFR"); none when it has none and the
  name holds no language word of the vocabulary or the parser outside the title (every word, split at hyphens
  too).
Left unscored: TRUEFRENCH, which the vocabulary does not know; the languages of a name that speaks of
subtitles (bench/srp_cases.py's speaks_of_subtitles: VOSTFR, SUBFORCED, FANSUB); a year outside 1900-2099.
`--without` drops every name another corpus already holds. The output stays outside the repository: the
names are real release names.
"""

from __future__ import annotations

import json
import re
from typing import Any

from srp_cases import EPISODE_WORD_RE, SEASON_WORD_RE, speaks_of_subtitles
from vocabulary import (
    LANGUAGE_WORDS,
    SOURCE_WORDS,
    YEAR_LIKE_RE,
    extractor_arguments,
    languages_of,
    resolution_tier,
    source_of,
    source_words,
    whole_words,
    write_corpus,
    written_resolutions,
)

_TABLE_RE = re.compile(r"public static \$(\w+)Static = \[(.*?)\n\s*\];", re.DOTALL)
_SOURCE_ENTRY_RE = re.compile(r"self::(\w+)\s*=>\s*\[(.*?)\]", re.DOTALL)
_CONSTANT_RE = re.compile(r"const (\w+)\s*=\s*'([^']*)';")
_QUOTED_RE = re.compile(r"'([^']*)'")
_EPISODE_CODE_RE = re.compile(r"s\d+(?:e\d+)?")
_MORE_EPISODES_RE = re.compile(r"s\d+[._-]?e\d+(?:[._-]?e?\d+)*[._-]?(?:e|-)\d+", re.IGNORECASE)
_WORKPRINT = frozenset({"workprint", "wp"})


class Tables:
    """The parser's word tables, read from src/Release.php: every word, the language words, the sources."""

    def __init__(self, source: str) -> None:
        constants = dict(_CONSTANT_RE.findall(source))
        tables = dict(_TABLE_RE.findall(source))
        self.words = {word.lower() for body in tables.values() for word in _QUOTED_RE.findall(body)}
        self.languages = {word.lower() for word in _QUOTED_RE.findall(tables["language"])}
        self.sources = {
            constants[constant]: _QUOTED_RE.findall(body)
            for constant, body in _SOURCE_ENTRY_RE.findall(tables["source"])
        }
        # Its source words as bench/rls_cases.py's source_words writes a name's ("dvd-r" as "dvdr").
        self.source_words = {
            re.sub(r"[\W_]+", "", word.lower()) for words in self.sources.values() for word in words
        }


def words_of(text: str) -> list[str]:
    """A name's or title's words in order, lower case, apostrophes dropped."""
    return re.sub(r"[\W_]+", " ", text.casefold().replace("'", "")).split()


def _title(name: str, title: str, tables: Tables) -> dict[str, Any]:
    words, shown = words_of(name), words_of(title)
    if not shown or words[: len(shown)] != shown or len(words) == len(shown):
        return {}
    following, later = words[len(shown)], words[len(shown) + 1 :]
    read = (
        following in tables.words
        or YEAR_LIKE_RE.fullmatch(following)
        or _EPISODE_CODE_RE.fullmatch(following)
    )
    if not read or (following in tables.languages and following in later):
        return {}
    return {"title": title}


def _source(name: str, element: dict[str, Any], tables: Tables) -> dict[str, Any]:
    cleaned = re.sub(r"\s+", ".", re.sub(r"[\[\](),;:!]", " ", name))
    if not (kind := element.get("source")):
        named = source_words(name) & (SOURCE_WORDS.keys() | tables.source_words)
        return {} if named or whole_words(name) & _WORKPRINT else {"source": None}
    read = set()
    for pattern in tables.sources[kind]:
        if match := re.search(rf"[.|\-]({re.escape(pattern)})(?:[.|\- ]|$)", cleaned, re.IGNORECASE):
            read.add(source_of(match[1]))
    return {"source": read.pop() if len(read) == 1 else f"oov:{kind}"}


def _numbers(name: str, element: dict[str, Any]) -> dict[str, Any]:
    if element["type"] == "tvshow":
        if _MORE_EPISODES_RE.search(name):
            return {"seasons": [element["season"]], "episodes": "oov:several episodes"}
        episode = element.get("episode")
        return {"seasons": [element["season"]], "episodes": [episode] if episode else []}
    expected: dict[str, Any] = {}
    if not SEASON_WORD_RE.search(name):
        expected["seasons"] = []
    if not EPISODE_WORD_RE.search(name):
        expected["episodes"] = []
    return expected


def _languages(name: str, element: dict[str, Any], title: str, tables: Tables) -> dict[str, Any]:
    if speaks_of_subtitles(name, title):
        return {"languages": "oov:subtitles named"}
    # Every word, split at hyphens too: "VFF-STFR", "(VFQ-VOA)".
    outside_title = set(words_of(name)) - set(words_of(title))
    named = outside_title & (LANGUAGE_WORDS.keys() | tables.languages)
    language = element.get("language")
    if not language:
        return {} if named else {"languages": []}
    if language == "MULTI":
        return {"languages": [] if named <= {"multi"} else "oov:MULTI of named languages"}
    return {"languages": languages_of(language)}


def labels(name: str, element: dict[str, Any], tables: Tables) -> dict[str, Any]:
    """The vocabulary's labels for one name and the parser's reading of it."""
    title = str(element["title"])
    expected = _title(name, title, tables)
    year = element.get("year")
    if year and 1900 <= int(year) <= 2099:
        expected["year"] = int(year)
    elif not year and not any(YEAR_LIKE_RE.fullmatch(w) for w in whole_words(name) - whole_words(title)):
        expected["year"] = None
    if element.get("resolution"):
        expected["resolution"] = resolution_tier(element["resolution"])
    elif not written_resolutions(name):
        expected["resolution"] = None
    return (
        expected
        | _source(name, element, tables)
        | _numbers(name, element)
        | _languages(name, element, title, tables)
    )


def main() -> None:
    checkout, out, elsewhere = extractor_arguments()
    tables = Tables((checkout / "src" / "Release.php").read_text(encoding="utf-8"))
    elements = json.loads((checkout / "utils" / "releases.json").read_text(encoding="utf-8"))
    cases = [
        {"corpus": "srpphp", "name": name, "expected": labels(name, element, tables)}
        for name, element in elements.items()
        if element["type"] in {"movie", "tvshow"} and name not in elsewhere
    ]
    write_corpus(out, cases)


if __name__ == "__main__":
    main()
