"""Turn pr0pz's scene-release-parser tests into a labelled file for bench/parse.py: read at first sight.

Run: python bench/srp_cases.py SRP_CHECKOUT OUT.json [--without OTHER.json ...]
SRP_CHECKOUT is a checkout of scene-release-parser (github.com/pr0pz/scene-release-parser, MIT per its
package.json), a JavaScript parser of scene release names. test/ReleaseParser.test.js holds `it(...)` cases,
each comparing `ReleaseParser('<name>', '<section>').toString()` with a string of its whole parse
("Title: X / Group: G / Year: 2007 / Source: ... / Season: 1 / Episode: 2 / Type: Movie"); the file is read as
text with regular expressions, never run. A field the string leaves out is one the parser found empty, so a
test asserts the whole parse.
Kept: the types "Movie", "TV" and "Anime" (an anime film or episode), 15, 16 and 5 names; games, apps,
bookware, sports, music, music videos, ebooks, audiobooks and XXX are left out.
Labels, mapped through bench/vocabulary.py:
- title: the parse's "Show" where it splits an episode's title off ("Show: 24 / Title: 9 00 Uhr ..."), else
  its "Title".
- year: "Year"; none when it has none and the name holds no 19xx/20xx number outside the title.
- resolution: "Resolution" (PAL and NTSC are no tier: "oov:…"); none when it has none and the name writes
  none.
- source: "Source"; its "WEB" (which stands for WEB-DL, WEBRip, WEBMux, ...) is read as the vocabulary's
  reading of the web word the name writes, the one srp's WEB pattern matches; a Bluray with the "Remux" flag
  is a remux; none when it has none and the name holds no source word of the vocabulary.
- seasons and episodes: "Season" and "Episode" (a range "01-02" counts every episode in it); none when it
  has none and the name holds no word of that field (S01, 2x14, Season, E04, Ep, Episode).
- languages: the "Language" names without "Multilingual" (DL, ML, MULTi), as bench/rls_cases.py drops MULTi
  and DL; none when it has none and the name holds no language word of the vocabulary outside the title.
Left unscored: a word the vocabulary does not know ("oov:…": the sources UHDBD, RAWRiP, Hulu and Amazon, the
resolutions PAL and NTSC, the language Nordic); the languages of a name that speaks of subtitles
(bench/ptt_cases.py's SUBTITLES_RE, or a word outside the title with "sub" in it: SUBFRENCH, NORDICSUBS,
FANSUBFRENCH, Subbed); an episode 0 (the test says the name needs a dirfix); and the title and seasons of a
name whose title holds a season srp did not read ("Kurokos Basketball 2nd Season ..."). `--without` drops
every name another corpus already holds. The output stays outside the repository: the names are real release
names.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from ptt_cases import SUBTITLES_RE
from vocabulary import (
    LANGUAGE_WORDS,
    SOURCE_WORDS,
    extractor_arguments,
    languages_of,
    resolution_tier,
    source_of,
    source_words,
    whole_words,
    write_corpus,
    written_resolutions,
)

if TYPE_CHECKING:
    from pathlib import Path

KEPT_TYPES = frozenset({"Movie", "TV", "Anime"})
# `ReleaseParser( 'name', 'section' ).toString(), 'Title: ... / Type: ...'`, quotes escaped with a backslash.
_QUOTED = r"'((?:[^'\\]|\\.)*)'"
_CASE_RE = re.compile(rf"ReleaseParser\(\s*{_QUOTED}\s*,\s*{_QUOTED}\s*\)\.toString\(\),\s*{_QUOTED}")
# srp's WEB source pattern (ReleasePatterns.js), to find the web word the name writes.
_WEB_RE = re.compile(
    r"(?<![a-z0-9])web[._-]?(?!single)(?:tv|dl|u?hd|rip|cap|flac|mux)?(?![a-z0-9])", re.IGNORECASE
)
_YEAR_RE = re.compile(r"(?<!\d)(?:19|20)\d\d(?!\d)")
# Words of a season or an episode, for "none" only where a name holds none.
SEASON_WORD_RE = re.compile(r"(?<![a-z])(?:s\d+|\d+x\d+|season|saison|staffel)(?![a-z])", re.IGNORECASE)
EPISODE_WORD_RE = re.compile(
    r"(?<![a-z])(?:s\d+[\s._-]?e\d+|e\d+|eps?[\s._-]?\d+|episode[\s._-]?(?:\d+|[ivx]+)|\d+x\d+)(?![a-z])",
    re.IGNORECASE,
)
_NOT_LANGUAGES = frozenset({"multilingual"})


def parse_string(expected: str) -> dict[str, str]:
    """srp's toString ("Title: X / Year: 2007 / ...") as a mapping of its fields."""
    fields = {}
    for part in expected.split(" / "):
        key, _, value = part.partition(": ")
        fields[key] = value
    return fields


def _unescaped(text: str) -> str:
    return re.sub(r"\\(.)", r"\1", text)


def tests_of(path: Path) -> dict[str, dict[str, str]]:
    """Every release name of the test file with its parse's fields."""
    text = (path / "test" / "ReleaseParser.test.js").read_text(encoding="utf-8")
    return {
        _unescaped(name): parse_string(_unescaped(expected)) for name, _, expected in _CASE_RE.findall(text)
    }


def _numbers(value: str) -> list[int]:
    """ "4" -> [4]; a range "01-02" or "5-8" -> every episode in it."""
    first, _, last = value.partition("-")
    return list(range(int(first), int(last or first) + 1))


def _source(name: str, parsed: dict[str, str]) -> dict[str, Any]:
    word = parsed.get("Source")
    if not word:
        return {} if source_words(name) & SOURCE_WORDS.keys() else {"source": None}
    if word == "WEB":
        read = {source_of(match) for match in _WEB_RE.findall(name)}
        return {"source": read.pop() if len(read) == 1 else f"oov:{word}"}
    source = source_of(word)
    if source == "bluray" and "Remux" in parsed.get("Flags", "").split(", "):
        source = "remux"
    return {"source": source}


def _seasons_and_episodes(name: str, parsed: dict[str, str]) -> dict[str, Any]:
    expected: dict[str, Any] = {}
    if "Season" in parsed:
        expected["seasons"] = _numbers(parsed["Season"])
    elif not SEASON_WORD_RE.search(name):
        expected["seasons"] = []
    if parsed.get("Episode") == "0":
        expected["episodes"] = "oov:episode 0, a name needing a dirfix"
    elif "Episode" in parsed:
        expected["episodes"] = _numbers(parsed["Episode"])
    elif not EPISODE_WORD_RE.search(name):
        expected["episodes"] = []
    return expected


def speaks_of_subtitles(name: str, title: str) -> bool:
    """Whether the name names subtitles: SUBTITLES_RE, or a word outside the title with "sub" in it, which
    scene names glue to a language ("SUBFRENCH", "NORDICSUBS", "FANSUBFRENCH")."""
    outside_title = whole_words(name) - whole_words(title)
    return bool(SUBTITLES_RE.search(name)) or any("sub" in word for word in outside_title)


def _languages(name: str, parsed: dict[str, str], title: str) -> dict[str, Any]:
    if speaks_of_subtitles(name, title):
        return {"languages": "oov:subtitles named"}
    if "Language" not in parsed:
        outside_title = whole_words(name) - whole_words(title)
        return {} if outside_title & LANGUAGE_WORDS.keys() else {"languages": []}
    words = [word for word in parsed["Language"].split(", ") if word.lower() not in _NOT_LANGUAGES]
    return {"languages": languages_of(words)}


def labels(name: str, parsed: dict[str, str]) -> dict[str, Any]:
    """The vocabulary's labels for one name and srp's whole parse of it."""
    title = parsed.get("Show", parsed.get("Title", ""))
    expected: dict[str, Any] = {"title": title} if title else {}
    if "Year" in parsed:
        expected["year"] = int(parsed["Year"])
    elif not any(_YEAR_RE.fullmatch(word) for word in whole_words(name) - whole_words(title)):
        expected["year"] = None
    if "Resolution" in parsed:
        expected["resolution"] = resolution_tier(parsed["Resolution"])
    elif not written_resolutions(name):
        expected["resolution"] = None
    expected |= _source(name, parsed) | _seasons_and_episodes(name, parsed) | _languages(name, parsed, title)
    if "Season" not in parsed and SEASON_WORD_RE.search(title):
        expected |= {"title": "oov:season in the title", "seasons": "oov:season in the title"}
    return expected


def main() -> None:
    checkout, out, elsewhere = extractor_arguments()
    cases = [
        {"corpus": "srp", "name": name, "expected": labels(name, parsed)}
        for name, parsed in tests_of(checkout).items()
        if parsed.get("Type") in KEPT_TYPES and name not in elsewhere
    ]
    write_corpus(out, cases)


if __name__ == "__main__":
    main()
