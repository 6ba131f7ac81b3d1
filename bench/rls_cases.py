"""Turn rls's release tests into a labelled file for bench/parse.py: films and episodes, read at first sight.

Run: python bench/rls_cases.py RLS_CHECKOUT_OR_TESTS_YAML OUT.json [--without OTHER.json ...]
The first argument is a checkout of rls (github.com/moistari/rls, MIT), a Go scene-release parser, or its
tests.yaml itself, which maps each release name to rls's whole parse (type, title, year, resolution, source,
series, episode, language, ...). PyYAML reads it (in the bench's environment only). rls's test compares the
whole parse, so a field a test leaves out is asserted empty (0 or "").
Kept: names whose rls `type` is "movie", "episode" or "series" (a season pack); music, games, apps, books and
the untyped are left out, and so are names in rls's own `[[key:value]]` markup (`meta`) and names left
with no label.
Labels, mapped through bench/vocabulary.py:
- title: rls's `title` (for an episode, the show: rls calls the episode's own title `subtitle`).
- year: rls's `year`; none when it has none.
- resolution: rls's, only where the name writes one, and only one tier (rls also reads PAL as 576p, NTSC
  as 480p); none when rls has none and the name writes none.
- source: rls's (BDRiP, WEB-DL, HDTV, ...), a remux where rls's BluRay comes with REMUX in its `other`;
  none when rls has none, the name holds no source word of the vocabulary and rls reads no collection
  (its streaming services among them: an "AmazonHD" name is a web release without a source word).
- seasons and episodes: rls's `series` and `episode`, or every SxxEyy of its `seriesEpisodes` for a name
  with several; none when it has none (a film, an anime's absolute number has no season, a season pack no
  episode).
- languages: rls's `language` words, without DL, MULTi, DUAL, DUBBED and SYNCED, which name no language
  (bench/parse.py leaves multi and dual out of every parser's answer); none when rls has none and the name
  holds no language word of the vocabulary outside rls's title ("[JP.BD]", "The.Office.UK": a code may
  stand for something else there, or name the language rls did not read).
Left unscored: a word the vocabulary does not know ("UHD.BluRay", "35mm", "VFF", "NORDiC": "oov:…"); the
languages of a name that speaks of subtitles (bench/ptt_cases.py's SUBTITLES_RE); a date's episodes and
seasons, and its year ("oov:a date", as bench/tvnamer_cases.py and bench/guessit_rules_cases.py do); a
season or episode range rls keeps the first number of ("S01-S03", "Ep.01-51"); a season or episode 0 written
in the name (rls writes 0 for none too); a year that is a range ("2011-2012"), the season's number
("S1958E13") or the title's own number ("1923.S01E01.1923"); the title of a film whose subtitle is no cut or
edition (rls's title may be only part of the film's: "~Familia Myth~"); a film whose title holds a season
("Der.Denver.Clan.Staffel4": rls read no season) is read as if it had unused words, its seasons and episodes
unscored; and, where rls reports words it left unused, the title (its end is in doubt) and every "none"
(the unused words may be the field). `--without` drops every name another corpus already holds. The
output stays outside the repository: the names are real release names.
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
import yaml

if TYPE_CHECKING:
    from pathlib import Path

KEPT_TYPES = frozenset({"movie", "episode", "series"})
# rls's language words that name no language: dual language, several, a dub, a synced track.
_NOT_LANGUAGES = frozenset({"dl", "multi", "dual", "dubbed", "synced"})
_SEASON_RANGE_RE = re.compile(r"(?<![a-z0-9])s\d{1,4}[\s._-]*s\d{1,4}(?!\d)", re.IGNORECASE)
_EPISODE_RANGE_RE = re.compile(r"(?<![a-z0-9])(?:e|ep|episode)[\s.]*\d+\s*-\s*e?\d+", re.IGNORECASE)
_SEASON_ZERO_RE = re.compile(r"(?<![a-z0-9])(?:s0+(?=e\d|[\W_]|$)|season[\s._]*0+\b)", re.IGNORECASE)
_EPISODE_ZERO_RE = re.compile(r"(?<![a-z0-9])s\d+[\s._-]*e0+(?!\d)", re.IGNORECASE)
_SEASON_WORD_RE = re.compile(r"\b(?:staffel|season|saison|series)[\s._]*\d", re.IGNORECASE)
_SERIES_EPISODE_RE = re.compile(r"S(\d+)E(\d+)")


def _title(result: dict[str, Any], *, unused: bool, film: bool) -> dict[str, Any]:
    if unused:
        return {}
    if film and result.get("subtitle") and not (result.get("cut") or result.get("edition")):
        return {}  # "Familia Myth": the film's title may go on past rls's
    return {"title": str(result["title"])}


def _year(name: str, result: dict[str, Any], *, unused: bool, dated: bool) -> dict[str, Any]:
    year = result.get("year")
    if not year:
        return {} if unused else {"year": None}
    if dated:
        return {"year": "oov:a date"}
    if re.search(rf"(?<!\d)\d{{4}}-{year}(?!\d)|(?<!\d){year}-\d{{4}}(?!\d)", name):
        return {"year": "oov:range"}
    if result.get("series") == year:
        return {"year": "oov:the season's number"}
    if str(result.get("title")) == str(year):
        return {"year": "oov:the title's number"}
    return {"year": int(year)}


def _resolution(name: str, result: dict[str, Any], *, unused: bool) -> dict[str, Any]:
    written = written_resolutions(name)
    if not result.get("resolution"):
        return {} if written or unused else {"resolution": None}
    tier = resolution_tier(result["resolution"])
    if written != {tier}:
        return {}  # guessed from PAL or NTSC, or the name writes several
    return {"resolution": tier}


def _source(name: str, result: dict[str, Any], *, unused: bool) -> dict[str, Any]:
    if not result.get("source"):
        if unused or result.get("collection") or source_words(name) & SOURCE_WORDS.keys():
            return {}
        return {"source": None}
    source = source_of(result["source"])
    if source == "bluray" and "REMUX" in str(result.get("other", "")).upper().split():
        source = "remux"
    return {"source": source}


def _numbers(name: str, result: dict[str, Any], *, unused: bool, dated: bool) -> dict[str, Any]:
    if dated:
        return {"episodes": "oov:date"}
    if pairs := _SERIES_EPISODE_RE.findall(str(result.get("seriesEpisodes", ""))):
        return {
            "seasons": sorted({int(season) for season, _ in pairs}),
            "episodes": sorted({int(episode) for _, episode in pairs}),
        }
    expected: dict[str, Any] = {}
    for field, key, range_re, zero_re in (
        ("seasons", "series", _SEASON_RANGE_RE, _SEASON_ZERO_RE),
        ("episodes", "episode", _EPISODE_RANGE_RE, _EPISODE_ZERO_RE),
    ):
        if range_re.search(name):
            expected[field] = f"oov:{key.replace('series', 'season')} range"
        elif result.get(key):
            expected[field] = [int(result[key])]
        elif not (unused or zero_re.search(name)):
            expected[field] = []
    return expected


def _languages(name: str, result: dict[str, Any], *, unused: bool) -> dict[str, Any]:
    if SUBTITLES_RE.search(name):
        return {"languages": "oov:subtitles named"}
    if not result.get("language"):
        outside_title = whole_words(name) - whole_words(str(result.get("title", "")))
        return {} if unused or outside_title & LANGUAGE_WORDS.keys() else {"languages": []}
    words = [word for word in str(result["language"]).split() if word.lower() not in _NOT_LANGUAGES]
    return {"languages": languages_of(words)}


def labels(name: str, result: dict[str, Any]) -> dict[str, Any]:
    """The vocabulary's labels for one name and rls's whole parse of it."""
    unused = bool(result.get("unused"))
    dated = bool(result.get("month") or result.get("day"))
    film = result["type"] == "movie"
    expected: dict[str, Any] = {}
    if film and _SEASON_WORD_RE.search(str(result.get("title", ""))):
        unused = True  # "Der Denver Clan Staffel4": a season rls read as the title's
        expected |= {"seasons": "oov:season in the title", "episodes": "oov:season in the title"}
    else:
        expected |= _numbers(name, result, unused=unused, dated=dated)
    return (
        _title(result, unused=unused, film=film)
        | _year(name, result, unused=unused, dated=dated)
        | _resolution(name, result, unused=unused)
        | _source(name, result, unused=unused)
        | expected
        | _languages(name, result, unused=unused)
    )


def tests_of(path: Path) -> dict[str, dict[str, Any]]:
    """rls's tests: each release name with its parse, from a checkout or the tests.yaml given."""
    tests_yaml = path / "tests.yaml" if path.is_dir() else path
    tests = yaml.safe_load(tests_yaml.read_text(encoding="utf-8"))
    return {str(name): result or {} for name, result in tests.items()}


def main() -> None:
    checkout, out, elsewhere = extractor_arguments()
    cases = []
    for name, result in tests_of(checkout).items():
        if result.get("type") in KEPT_TYPES and not result.get("meta") and name not in elsewhere:
            expected = labels(name, result)
            if expected:
                cases.append({"corpus": "rls", "name": name, "expected": expected})
    write_corpus(out, cases)


if __name__ == "__main__":
    main()
