"""Turn Kodi's file-name tests into a labelled file for bench/parse.py: episodes and films, first sight.

Run: python bench/kodi_cases.py KODI_TESTS_FOLDER OUT.json [--without OTHER.json ...]
KODI_TESTS_FOLDER holds test files of Kodi (github.com/xbmc/xbmc, GPL-2.0-or-later), a media centre that
reads episode numbers and film titles from file names; they are read at bench time only, as text (never
compiled, run or copied into this repository), saved there under these names:
- TestVideoInfoScanner.cpp (xbmc/video/test/): the `TestData[]` rows, a file name with the season and the
  episodes Kodi's scanner must read (and a second season with its episodes for a name with two; season -1
  for an expected failure).
- TestEpisodeUtils.cpp (xbmc/test/, the same tests where they live now): the `TestData[]` rows, a file name
  with the (season, episode) pairs read with episode ranges on, Kodi's default, and with them off; the
  pairs with ranges on are read.
- TestUtil.cpp (xbmc/test/), or the excerpt of it holding its CleanString test (TestUtil-CleanString.cpp):
  the `values[]` rows, a film file name with the title and year CleanString must find ("" for no year).
Each array is read as C++ brace literals; a row's trailing comment is kept, for Kodi marks there the rows
whose ranges it cannot read ("invalid", "backwards", "too large", "cannot determine").

Labels, only what the file name alone holds:
- seasons: the seasons of the asserted pairs, where the name states them (S02E03, S2E3, S02.E03, S02xE03,
  2x03). Left unscored: Kodi's season 1 for a name stating none ("foo.Ep03.mkv", "foo.E03-05.mkv": Kodi's
  assumption, not in the name), and a season read from a bare number ("foo.203.mkv": Kodi's convention;
  its episode too, as bench/jellyfin_cases.py leaves Jellyfin's "anything_102").
- episodes: the episodes of the asserted pairs, a range counting every episode as Kodi does with ranges on.
  Left unscored: a name with two seasons (the vocabulary's flat lists of seasons and episodes cannot say
  which episode is whose, and one number may stand for two episodes; its seasons stay scored), a part
  Kodi reads as the episode ("foo.Part.III.mkv", "foo.pt_IV.mkv": the other corpora read a part, which
  the vocabulary has no field for), and a name the two files read differently: Kodi's older rows read
  "E03-05" and "S05E03-05" as ranges and "S05E01-E03-E05" as three episodes, its newer ones the reverse.
- Unscored altogether: the rows of expected failures (season -1, or a comment saying the range is invalid,
  backwards, too large or undeterminable).
- title and year (CleanString rows): the asserted title, except one holding a parenthesised part ("Some
  (Director Cut)": Kodi's comment says it cannot tell a cut from a translated title, and the other corpora
  read a cut apart); the asserted year, none for "" only in a name holding no year-like number (no 19xx or
  20xx anywhere). The title Kodi gives a special ("foo.special.mp4" -> "foo") is an episode's, not read.
A name's labels gather every row that names it. Names left with no scored label are dropped; `--without`
drops every name another corpus already holds. The output stays outside the repository.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from vocabulary import YEAR_LIKE_RE, extractor_arguments, write_corpus

if TYPE_CHECKING:
    from pathlib import Path

_TOKEN_RE = re.compile(r'"(?:[^"\\]|\\.)*"|-?\d+|\w+|[{},]')
_COMMENT_RE = re.compile(r"(?<!:)//(.*)$")
_FAILURE_RE = re.compile(r"invalid|backwards|too large|cannot determine")
# A season the name states: S02E03, S2E3, S02.E03, S02_E03, S02xE03 (also after an episode: E100S05); 2x03.
_SEASON_RE = re.compile(r"(?i)(?<![a-z])s(\d{1,2})(?=[ ._]?x?e\d)|(?<![a-z0-9])(\d{1,2})x(?=\d)")
_EPISODE_WORD_RE = re.compile(r"(?i)(?<![a-z])(?:e|ep)[ ._]?\d")
_PART_RE = re.compile(r"(?i)(?<![a-z])(?:part|pt)[ ._]?(?:[ivx]+|\d+)(?![a-z])")
_DISAGREE = "oov:Kodi's versions disagree"


def _literal(token: str) -> Any:
    if token.startswith('"'):
        return re.sub(r"\\(.)", r"\1", token[1:-1])
    if re.fullmatch(r"-?\d+", token):
        return int(token)
    return {"true": True, "false": False}.get(token, token)


def _value(tokens: list[tuple[str, int]], at: int) -> tuple[Any, int, int]:
    """The brace literal starting at tokens[at]: its value, the index past it, and the line it ends on."""
    word, line = tokens[at]
    if word != "{":
        return _literal(word), at + 1, line
    items: list[Any] = []
    at += 1
    while tokens[at][0] != "}":
        if tokens[at][0] == ",":
            at += 1
            continue
        item, at, _ = _value(tokens, at)
        items.append(item)
    return items, at + 1, tokens[at][1]


def array_rows(text: str, array: str) -> list[tuple[list[Any], str]]:
    """The rows of the C++ array `array[] = {...}`, each with the comment trailing its last line."""
    start = text.index("{", text.index(f" {array}[] = "))
    tokens: list[tuple[str, int]] = []
    comments: dict[int, str] = {}
    for number, line in enumerate(text[start:].splitlines()):
        code = line
        if comment := _COMMENT_RE.search(line):
            comments[number] = comment[1].strip()
            code = line[: comment.start()]
        tokens += [(token, number) for token in _TOKEN_RE.findall(code)]
    found = []
    at = 1  # past the array's opening brace: each row is one brace literal
    while tokens[at][0] != "}":
        if tokens[at][0] == ",":
            at += 1
            continue
        row, at, last_line = _value(tokens, at)
        found.append((row, comments.get(last_line, "")))
    return found


def scanner_pairs(row: list[Any], comment: str) -> list[tuple[int, int]] | None:
    """TestVideoInfoScanner's row as (season, episode) pairs; None for an expected failure."""
    season, *episodes = row[1:]  # a failure's row stops at its season
    if season == -1 or _FAILURE_RE.search(comment):
        return None
    pairs = [(season, episode) for episode in episodes[0]]
    if len(episodes) > 1 and episodes[1] != -1:
        pairs += [(episodes[1], episode) for episode in episodes[2]]
    return pairs


def episode_utils_pairs(row: list[Any], comment: str) -> list[tuple[int, int]] | None:
    """TestEpisodeUtils's row as its (season, episode) pairs with ranges on; None for an expected failure."""
    ranges = row[1]
    if not ranges or _FAILURE_RE.search(comment):
        return None
    return [(season, episode) for season, episode in ranges]


def stated_seasons(name: str) -> set[int]:
    return {int(next(group for group in match.groups() if group)) for match in _SEASON_RE.finditer(name)}


def episode_labels(name: str, pairs: list[tuple[int, int]] | None) -> dict[str, Any]:
    """The seasons and episodes of one row, "oov:…" where unscored."""
    if pairs is None:
        return {"seasons": "oov:an expected failure", "episodes": "oov:an expected failure"}
    if _PART_RE.search(name):
        return {"seasons": "oov:a part", "episodes": "oov:a part"}
    seasons = sorted({season for season, _ in pairs})
    episodes = sorted({episode for _, episode in pairs})
    stated = stated_seasons(name)
    if not stated and not _EPISODE_WORD_RE.search(name):
        return {"seasons": "oov:season from a bare number", "episodes": "oov:season from a bare number"}
    expected: dict[str, Any] = {}
    if not stated:
        expected["seasons"] = "oov:Kodi's default season"
    elif stated == set(seasons):
        expected["seasons"] = seasons
    else:
        raise ValueError(f"{name!r}: Kodi asserts seasons {seasons}, the name states {sorted(stated)}")
    expected["episodes"] = "oov:episodes of several seasons" if len(seasons) > 1 else episodes
    return expected


def film_labels(name: str, row: list[Any]) -> dict[str, Any]:
    """CleanString's row: the title and year."""
    _, _, title, _, year, *_ = row
    expected: dict[str, Any] = {"title": "oov:a parenthesised part" if "(" in title else title}
    if year:
        expected["year"] = int(year)
    elif not YEAR_LIKE_RE.search(name):
        expected["year"] = None
    return expected


def _clean_string_file(folder: Path) -> Path:
    return next(path for path in sorted(folder.glob("TestUtil*.cpp")))


def rows_by_name(folder: Path) -> dict[str, list[dict[str, Any]]]:
    """Each name's labels, one dict per row that names it."""
    found: dict[str, list[dict[str, Any]]] = {}
    for file_name, read_pairs in (
        ("TestVideoInfoScanner.cpp", scanner_pairs),
        ("TestEpisodeUtils.cpp", episode_utils_pairs),
    ):
        for row, comment in array_rows((folder / file_name).read_text(encoding="utf-8"), "TestData"):
            found.setdefault(row[0], []).append(episode_labels(row[0], read_pairs(row, comment)))
    for row, _ in array_rows(_clean_string_file(folder).read_text(encoding="utf-8"), "values"):
        found.setdefault(row[0], []).append(film_labels(row[0], row))
    return found


def merged(labels: list[dict[str, Any]]) -> dict[str, Any]:
    """One name's labels from its rows; a field two rows read differently is unscored."""
    expected: dict[str, Any] = {}
    for row in labels:
        for field, value in row.items():
            expected[field] = value if expected.get(field, value) == value else _DISAGREE
    return expected


def _scored(expected: dict[str, Any]) -> bool:
    return any(not (isinstance(value, str) and value.startswith("oov:")) for value in expected.values())


def main() -> None:
    folder, out, elsewhere = extractor_arguments()
    cases = []
    for name, labels in rows_by_name(folder).items():
        expected = merged(labels)
        if not _scored(expected):
            print(f"no label: {name!r} {expected}")
        elif name in elsewhere:
            print(f"held by another corpus: {name!r}")
        else:
            cases.append({"corpus": "kodi", "name": name, "expected": expected})
    write_corpus(out, cases)


if __name__ == "__main__":
    main()
