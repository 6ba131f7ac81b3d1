"""Turn video-filename-parser's tests into a labelled file for bench/parse.py: films and episodes.

Run: python bench/videofilename_cases.py CHECKOUT OUT.json [--without OTHER.json ...]
CHECKOUT is a checkout of video-filename-parser (github.com/scttcper/video-filename-parser, MIT), a
TypeScript port of Sonarr's and Radarr's parsers; its test/*.spec.ts hold vitest tables, `const NAME:
Array<[...]> = [...]`, whose rows give a release name and what one function must read from it. The tables
are read as TypeScript literals (strings, numbers, enum members such as `Source.WEBDL`, arrays, objects,
`new Date(...)`), never run. Each table's role, from the asserts under it, is written down in TABLES:
title.spec (title, year), filenameParse.spec (whatever each object gives: title, year, resolution, sources,
languages, seasons, episodeNumbers, airDate), resolution.spec, source.spec, language.spec, the
quality.spec tables asserting a source, resolution and modifier, and season.spec's tables (the show's
title, seasons, episodes). Not read: tables of codecs, audio, groups, editions, revisions and the quality
tables assumed from a file's extension or a source ("DVDRip" as 480p).

Labels, mapped through bench/vocabulary.py, only what the name itself holds:
- title: the asserted title (a show's for an episode); not where the row carries a comment doubting it
  ("Not sure what to do about this case"), nor for a show whose asserted title ends with a year, a season
  or a country ("Dragon Ball Kai (2014)", "Bakuman S3", "The Office US") or holds brackets: the other
  corpora keep those out of the title, as bench/jellyfin_cases.py does.
- year: the asserted year; none where asserted null, only for a name holding no year-like number at all
  (no 19xx or 20xx anywhere, not even a group's "1920"). A date's year is left unscored ("oov:a date").
- resolution: the asserted one, only where the name writes exactly that tier (as bench/rls_cases.py does:
  Sonarr reads "960p" as 720p, assumes 480p for a DVD); none only where the name writes none.
- source: the asserted one when it is a single one (several are outside the vocabulary); a BluRay is a
  remux where the test asserts the REMUX modifier, unscored where the name says REMUX and no test does,
  and a full disc (BRDISK) or raw HD capture (RAWHD) is unscored; WORKPRINT is outside the vocabulary.
  Only where the name writes source words of one source of the vocabulary (a REMUX beside its BluRay
  counts once), and it is the asserted source: Sonarr assumes WEB-DL for a bare "720p" and reads
  streaming services ("NF", "APTV"), neither a word the name writes; a test's grouping may differ from
  the name's word; and which of two written sources wins ("WEBRip.WEB-DL") is the test's precedence.
  None where asserted empty and the name holds no source word.
- languages: the asserted languages, without English where the name writes no English word (Radarr
  assumes English for a name without a language, and adds it to a MULTi); none where that leaves nothing
  and the name holds no language word of the vocabulary. Unscored: a language the vocabulary does not
  know (Nordic, Cantonese, Brazilian), and every name that speaks of subtitles (bench/ptt_cases.py's
  SUBTITLES_RE: "SUBFRENCH", "NL.SUBS").
- seasons and episodes (season.spec, filenameParse's TV rows): as asserted; a season pack's episodes are
  none, a date's episodes "oov:date" and its seasons unscored. Unscored: an anime special's or recap's
  number ("- 01 - OVA", "10.5"), and an absolute episode number beside an SxxEyy code ("One Piece S10E14
  214": the test's 214 is not the code's 14; the season stays scored); an absolute number alone has no
  season (none), unless the name writes one ("Bakuman S3 - 12": the test reads S3 into the title and 12
  as absolute, the name also says season 3's episode 12; seasons and episodes unscored).
A name's labels gather every row that names it; a field two rows label differently is unscored. Names
left with no scored label are dropped; `--without` drops every name another corpus already holds (the port
keeps some of Sonarr's and Radarr's own test names). The output stays outside the repository.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from ptt_cases import SUBTITLES_RE
from vocabulary import (
    LANGUAGE_WORDS,
    SOURCE_WORDS,
    YEAR_LIKE_RE,
    extractor_arguments,
    languages_of,
    resolution_tier,
    source_words,
    whole_words,
    write_corpus,
    written_resolutions,
)

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

_TOKEN_RE = re.compile(
    r"(?P<comment>//[^\n]*|/\*.*?\*/)|(?P<string>'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\")"
    r"|(?P<number>-?\d+(?:\.\d+)?)|(?P<word>[A-Za-z_$][\w$.]*)|(?P<mark>[\[\]{}(),:])",
    re.DOTALL,
)
_TABLE_RE = re.compile(r"^const (\w+)\s*:[^=]*=\s*(?=\[)", re.MULTILINE)
_SOURCES = {
    "BLURAY": "bluray", "WEBDL": "web-dl", "WEBRIP": "webrip", "DVD": "dvd", "CAM": "cam",
    "SCREENER": "screener", "PPV": "hdtv", "TELESYNC": "telesync", "TELECINE": "telecine", "TV": "hdtv",
}  # fmt: skip
_ENGLISH_WORDS = frozenset({"english", "eng", "en"})
_SEASON_CODE_RE = re.compile(r"(?i)(?<![a-z0-9])s\d{1,4}[ ._-]?e\d|(?<![a-z0-9])\d{1,2}x\d{2}(?!\d)")
_DATE = "new Date"
# What a show's title may end with that the other corpora keep out of it: a year, a season, a country.
_SHOW_QUALIFIER_RE = re.compile(r"[(\[]|(?<![a-z0-9])(?:(?:19|20)\d\d|s\d{1,2}|us|uk)$", re.IGNORECASE)
_SEASON_WORD_RE = re.compile(r"(?i)(?<![a-z0-9])s\d{1,2}(?![0-9])")


class _Reader:
    """A reader of TypeScript literals; `doubted` is set when a comment stands inside the value read."""

    def __init__(self, text: str, at: int) -> None:
        self.tokens = [(match.lastgroup or "", match.group()) for match in _TOKEN_RE.finditer(text, at)]
        self.at = 0
        self.doubted = False

    def _next(self) -> tuple[str, str]:
        while self.tokens[self.at][0] == "comment":
            self.doubted = True
            self.at += 1
        token = self.tokens[self.at]
        self.at += 1
        return token

    def _peek(self) -> str:
        while self.tokens[self.at][0] == "comment":
            self.doubted = True
            self.at += 1
        return self.tokens[self.at][1]

    def value(self) -> Any:
        kind, text = self._next()
        if text in {"[", "{"}:
            return self._items("]") if text == "[" else dict(self._pairs())
        if kind == "string":
            return re.sub(r"\\(.)", r"\1", text[1:-1])
        if kind == "number":
            return float(text) if "." in text else int(text)
        if text == "new":
            self._next()  # Date
            self._items(")", opened=False)
            return _DATE
        return {"null": None, "undefined": None, "true": True, "false": False}.get(text, text)

    def _items(self, closing: str, *, opened: bool = True) -> list[Any]:
        if not opened:
            self._next()  # the opening parenthesis
        items = []
        while self._peek() != closing:
            if self._peek() == ",":
                self._next()
                continue
            items.append(self.value())
        self._next()
        return items

    def _pairs(self) -> list[tuple[str, Any]]:
        pairs = []
        while self._peek() != "}":
            if self._peek() == ",":
                self._next()
                continue
            _, key = self._next()
            self._next()  # the colon
            pairs.append((key.strip("'\""), self.value()))
        self._next()
        return pairs

    def rows(self) -> list[tuple[list[Any], bool]]:
        """The rows of the table the reader stands at, each with whether a comment stands inside it."""
        self._next()  # the table's opening bracket
        found = []
        while self._peek() != "]":
            if self._peek() == ",":
                self._next()
                continue
            self.doubted = False
            row = self.value()
            found.append((row, self.doubted))
        return found


def tables(text: str) -> dict[str, list[tuple[list[Any], bool]]]:
    """Every `const NAME: Array<...> = [...]` table of a spec file, by name (commented-out ones are not)."""
    return {match[1]: _Reader(text, match.end()).rows() for match in _TABLE_RE.finditer(text)}


def _enum(value: Any) -> str:
    return str(value).rsplit(".", 1)[-1]


def _quality(source: str, resolution: str, modifier: str | None = None) -> Callable[..., dict[str, Any]]:
    """A quality table's role: every row asserts the same source, resolution and modifier."""

    def read(_row: list[Any]) -> dict[str, Any]:
        return {"sources": [source], "resolution": resolution, "modifier": modifier}

    return read


def _show(row: list[Any], **asserted: Any) -> dict[str, Any]:
    return {"title": row[1], "show": True, **asserted}


def _absolute(row: list[Any]) -> dict[str, Any]:
    _, title, episode, season = row
    return {"title": title, "show": True, "seasons": [season] if season else [], "absolute": episode}


# Each table's row -> what it asserts, by file and table (the asserts under each table say which).
TABLES: dict[str, dict[str, Callable[[list[Any]], dict[str, Any]]]] = {
    "title.spec.ts": {"cases": lambda row: dict(row[1])},
    "filenameParse.spec.ts": {
        "movieCases": lambda row: dict(row[1]),
        "tvCases": lambda row: {"show": True, **row[1]},
        "dailyTvCases": lambda row: {"show": True, **row[1]},
    },
    "resolution.spec.ts": {"cases": lambda row: {"resolution": row[1] if len(row) > 1 else None}},
    "source.spec.ts": {
        "singleCases": lambda row: {"sources": row[1]},
        "multipeSourceCases": lambda row: {"sources": row[1]},
        "precedenceCases": lambda row: {"sources": row[1]},
    },
    "language.spec.ts": {"languageCases": lambda row: {"languages": row[1]}},
    "quality.spec.ts": {
        "webdl480pCases": _quality("WEBDL", "R480P"),
        "webdl720pCases": _quality("WEBDL", "R720P"),
        "webdl1080pCases": _quality("WEBDL", "R1080P"),
        "webrip1080pCases": _quality("WEBRIP", "R1080P"),
        "webdl2160pCases": _quality("WEBDL", "R2160P"),
        "bluray720Cases": _quality("BLURAY", "R720P"),
        "bluray1080Cases": _quality("BLURAY", "R1080P"),
        "bluray576pQuality": _quality("BLURAY", "R576P"),
        "remux1080pQuality": _quality("BLURAY", "R1080P", "REMUX"),
        "remux2160pQuality": _quality("BLURAY", "R2160P", "REMUX"),
        "bluray2160Cases": _quality("BLURAY", "R2160P"),
        "hdtv720pCases": _quality("TV", "R720P"),
        "brdisk1080pCases": _quality("BLURAY", "R1080P", "BRDISK"),
        "rawHdCases": _quality("TV", "R1080P", "RAWHD"),
        "tsCases": _quality("TELESYNC", "R720P"),
        "bdripCases": _quality("BLURAY", "R480P"),
    },
    "season.spec.ts": {
        "fullSeasonRelease": lambda row: _show(row, seasons=[row[2]], episodeNumbers=[]),
        "dayEpisodeCases": lambda row: _show(row, airDate=row[2]),
        "seasonPackCases": lambda row: _show(row, seasons=row[2], episodeNumbers=[]),
        "multiEpisodeCases": lambda row: _show(row, episodeNumbers=row[2]),
        "remainderCases": lambda row: _show(row, seasons=row[2], episodeNumbers=row[3]),
        "partialSeasonPackCases": lambda row: _show(row, seasons=[row[2]]),
        "oddCases": lambda row: _show(row, seasons=[row[2]], episodeNumbers=[row[3]]),
        "animeSpecialCases": _show,
        "animeRecapCases": _show,
        "seasonSubpackCases": lambda row: _show(row, seasons=[row[2]]),
        "seasonExtraCases": lambda row: _show(row, seasons=[row[2]]),
        "absoluteEpisodeRangeCases": lambda row: _show(row, episodeNumbers=row[2]),
        "absoluteEpisodeCases": _absolute,
    },
}


def _year(name: str, asserted: dict[str, Any]) -> dict[str, Any]:
    if asserted.get("airDate") == _DATE:
        return {"year": "oov:a date"}
    if "year" not in asserted:
        return {}
    if asserted["year"]:
        return {"year": int(asserted["year"])}
    return {} if YEAR_LIKE_RE.search(name) else {"year": None}


def _resolution(name: str, asserted: dict[str, Any]) -> dict[str, Any]:
    if "resolution" not in asserted:
        return {}
    written = written_resolutions(name)
    if asserted["resolution"] is None:
        return {} if written else {"resolution": None}
    tier = resolution_tier(_enum(asserted["resolution"]).removeprefix("R").lower())
    return {"resolution": tier} if written == {tier} else {}


def _source(name: str, asserted: dict[str, Any]) -> dict[str, Any]:
    if "sources" not in asserted:
        return {}
    sources = [_enum(source) for source in asserted["sources"]]
    named = {SOURCE_WORDS[word] for word in source_words(name) & SOURCE_WORDS.keys()}
    modifier = asserted.get("modifier")
    if not sources:
        label = "oov:a source word no test asserts" if named else None
    elif len(sources) > 1:
        label = "oov:several sources"
    elif sources[0] not in _SOURCES or modifier in {"BRDISK", "RAWHD"}:
        label = f"oov:{sources[0]} {modifier or ''}".strip()
    else:
        label = _written_source(_SOURCES[sources[0]], modifier, named)
    return {"source": label}


def _written_source(source: str, modifier: str | None, named: set[str]) -> str:
    """The asserted source where the name writes it, "oov:…" otherwise."""
    if modifier == "REMUX":
        source = "remux"
    elif source == "bluray" and "remux" in named:
        return "oov:a remux no test asserts"
    if not named:
        return "oov:no source word"  # Sonarr's WEB-DL for a bare 720p, or a streaming service's
    if len(named - {"bluray"} if "remux" in named else named) > 1:
        return "oov:the name writes several sources"  # the test's precedence, not the name's
    return source if source in named else "oov:the name writes another source"


def _languages(name: str, asserted: dict[str, Any]) -> dict[str, Any]:
    if "languages" not in asserted:
        return {}
    if SUBTITLES_RE.search(name):
        return {"languages": "oov:subtitles named"}
    words = whole_words(name)
    kept = [_enum(language) for language in asserted["languages"]]
    if not words & _ENGLISH_WORDS:
        kept = [language for language in kept if language != "English"]
    if not kept:
        return {} if words & LANGUAGE_WORDS.keys() else {"languages": []}
    return {"languages": languages_of(kept)}


def _numbers(name: str, asserted: dict[str, Any]) -> dict[str, Any]:
    if asserted.get("airDate") == _DATE:
        return {"episodes": "oov:date"}
    expected: dict[str, Any] = {}
    if "seasons" in asserted:
        expected["seasons"] = sorted(asserted["seasons"])
    if "absolute" in asserted:
        if not asserted["seasons"] and _SEASON_WORD_RE.search(name):
            return {"seasons": "oov:a season beside an absolute number", "episodes": "oov:an absolute number"}
        coded = _SEASON_CODE_RE.search(name)
        expected["episodes"] = "oov:absolute beside SxxEyy" if coded else [asserted["absolute"]]
    elif "episodeNumbers" in asserted:
        expected["episodes"] = sorted(asserted["episodeNumbers"])
    return expected


def labels(name: str, asserted: dict[str, Any], *, doubted: bool) -> dict[str, Any]:
    """One row's labels for its name."""
    title = {}
    if asserted.get("title") and not doubted:
        qualified = asserted.get("show") and _SHOW_QUALIFIER_RE.search(asserted["title"])
        title["title"] = "oov:a qualified show title" if qualified else asserted["title"]
    return (
        title
        | _year(name, asserted)
        | _resolution(name, asserted)
        | _source(name, asserted)
        | _numbers(name, asserted)
        | _languages(name, asserted)
    )


def rows_by_name(checkout: Path) -> dict[str, list[dict[str, Any]]]:
    found: dict[str, list[dict[str, Any]]] = {}
    for file_name, roles in TABLES.items():
        read = tables((checkout / "test" / file_name).read_text(encoding="utf-8"))
        for table, role in roles.items():
            for row, doubted in read[table]:
                name = row[0]
                found.setdefault(name, []).append(labels(name, role(row), doubted=doubted))
    return found


def merged(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """One name's labels from its rows; a field two rows label differently is unscored."""
    expected: dict[str, Any] = {}
    for row in rows:
        for field, value in row.items():
            same = expected.get(field, value) == value
            expected[field] = value if same else "oov:rows disagree"
    return expected


def _scored(expected: dict[str, Any]) -> bool:
    return any(not (isinstance(value, str) and value.startswith("oov:")) for value in expected.values())


def main() -> None:
    checkout, out, elsewhere = extractor_arguments()
    cases = []
    held = 0
    for name, rows in rows_by_name(checkout).items():
        expected = merged(rows)
        if not _scored(expected):
            print(f"no label: {name!r} {expected}")
        elif name in elsewhere:
            held += 1
        else:
            cases.append({"corpus": "videofilename", "name": name, "expected": expected})
    print(f"{held} names held by another corpus")
    write_corpus(out, cases)


if __name__ == "__main__":
    main()
