"""Turn Jellyfin's TV naming tests into a labelled file for bench/parse.py: episode file names, first sight.

Run: python bench/jellyfin_cases.py JELLYFIN_CHECKOUT OUT.json [--without OTHER.json ...]
JELLYFIN_CHECKOUT is a checkout of Jellyfin (github.com/jellyfin/jellyfin, GPL-2.0), a media server that
names episode files; tests/Jellyfin.Naming.Tests/TV/*.cs hold xUnit theories whose `[InlineData(...)]` rows
give a path and the season, episode, end episode or show Jellyfin must read from it. The C# is read as text,
never compiled or run: a row's literals (strings, verbatim strings, numbers, null) are tied by position to the
parameters of the `public void` method the rows stand above (a parameter's default fills a short row), and
each method's parameters have roles written down below from reading its asserts. Rows commented out
("TODO") are skipped; so are the folder tests (SeasonPathParserTests, SeriesPathParserTest,
SeriesResolverTests: whether a folder is a season's or a collection's, not what a file name holds) and rows
that assert only success.

The parser reads names, not paths: each row's name is its path's last component, extension kept as
bench/tvnamer_cases.py keeps it. A name's labels gather every row that names it; a name whose rows disagree is
left out and reported. Labels, only what the file name alone holds:
- title: the show a row asserts, when the name (past any leading "[group]") starts with its words; not for a
  show with a year or country ("Foo (2019)": the other corpora keep those out of the title), nor for "".
- seasons: an asserted season the name itself states (S01E02, S01x02, s01.e02, S3 E9, 1x02, "Season 3");
  none for an asserted null season of an undated name stating none (the anime names, as tvnamer's and
  SickGear's tests label theirs). Left unscored: a season Jellyfin takes from a folder ("Season 2/02.avi").
- episodes: the asserted episode, when it is a number of the name, through the asserted end episode (a range
  counts every episode, as tvnamer's "[02x01-03]" does); no end, or a null one, is that episode alone. A row
  asserting only an end (MultiEpisodeTests) takes its start from the name's S01E02 or 1x02 code; one without
  such a code is left out. Left unscored: an air date's episodes ("oov:date", as bench/tvnamer_cases.py
  does; no season label either), a start and end whose listed episodes do not fill the range ("02x03x04x15":
  Jellyfin keeps only the ends), and a name whose season Jellyfin reads from a bare number ("4-12 - Title",
  "anything_102": its own convention, not written in the name).
Names left with no scored label are dropped; `--without` drops every name another corpus already holds. The
output stays outside the repository.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from vocabulary import extractor_arguments, write_corpus

if TYPE_CHECKING:
    from pathlib import Path

# Each theory's parameters, by the role its asserts give them (read from the test bodies).
ROLES: dict[str, dict[str, str]] = {
    # AbsoluteEpisodeNumberTests, EpisodeNumberTests, EpisodeNumberWithoutSeasonTests: the (first) episode
    "GetEpisodeNumberFromFileTest": {"path": "path", "episodeNumber": "episode", "expected": "episode"},
    # DailyEpisodeTests: a null season and episode, the air date, the show (case ignored)
    "Test": {"path": "path", "seriesName": "title", "year": "date"},
    # EpisodePathParserTest: show, season and episode
    "ParseEpisodesCorrectly": {"path": "path", "name": "title", "season": "season", "episode": "episode"},
    # MultiEpisodeTests: the end episode, null for a single episode
    "TestGetEndingEpisodeNumberFromFile": {"filename": "path", "endingEpisodeNumber": "end"},
    # SeasonNumberTests: the season the resolver finds, from the file or its folder
    "GetSeasonNumberFromEpisodeFileTest": {"path": "path", "expected": "season"},
    # SimpleEpisodeTests: all of them, the end null unless given
    "TestSimple": {
        "path": "path",
        "seriesName": "title",
        "seasonNumber": "season",
        "episodeNumber": "episode",
        "episodeEndNumber": "end",
    },
}
_LITERAL_RE = re.compile(r'@"(?:[^"]|"")*"|"(?:[^"\\]|\\.)*"|-?\d+|[\w.]+|[,)]')
_METHOD_RE = re.compile(r"public void (\w+)\(([^)]*)\)")
# A season the name states: S01E02, S01x02, S01xE02, s01.e02, S3 E9; 1x02, 2009x02 (not 1920x1080); Season 3.
_SEASON_RE = re.compile(
    r"(?i)(?<![a-z0-9])s(\d{1,4})(?=[ ._]?x?e\d|x\d)"
    r"|(?<![a-z0-9])(\d{1,4})x(?=e?\d{1,3}(?!\d))"
    r"|\bseason[ ._]?(\d{1,4})"
)
# The first episode of such a code, for rows that assert only the end.
_EPISODE_CODE_RE = re.compile(r"(?i)(?<![a-z0-9])(?:s\d{1,4}[ ._]?x?e?|\d{1,4}xe?)(\d{1,3})(?!\d)")
_EXTENSION_RE = re.compile(r"\.[a-z][a-z0-9]{1,3}$", re.IGNORECASE)
_LEADING_GROUPS_RE = re.compile(r"^(?:\s*\[[^\]]*\])+\s*")
_SHOW_QUALIFIER_RE = re.compile(r"\([^)]*\)$|\b(?:19|20)\d\d$")


def _literal(word: str) -> Any:
    """A C# literal's value; any other expression ("SeriesStatus.Ended") as written, for rows not read."""
    if word.startswith('@"'):
        return word[2:-1].replace('""', '"')
    if word.startswith('"'):
        return re.sub(r"\\(.)", r"\1", word[1:-1])
    if re.fullmatch(r"-?\d+", word):
        return int(word)
    return {"null": None, "true": True, "false": False}.get(word, word)


def _arguments(text: str) -> list[Any]:
    """The literals of one `[InlineData(...)]` row, from just after its opening parenthesis."""
    values: list[Any] = []
    for word in _LITERAL_RE.findall(text):
        if word == ")":
            return values
        if word != ",":
            values.append(_literal(word))
    raise ValueError(f"unterminated row: {text!r}")


def _parameters(signature: str) -> list[tuple[str, Any]]:
    """Each parameter's name and default (None when it has none: every row then gives it)."""
    found = []
    for parameter in filter(str.strip, signature.split(",")):
        declaration, _, default = parameter.partition("=")
        found.append((declaration.split()[-1], _literal(default.strip()) if default else None))
    return found


def rows(text: str) -> list[tuple[str, dict[str, Any]]]:
    """Each uncommented `[InlineData(...)]` row of a test file: its method's name, its arguments by name."""
    found: list[tuple[str, dict[str, Any]]] = []
    pending: list[list[Any]] = []
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("[InlineData("):
            pending.append(_arguments(stripped.removeprefix("[InlineData(")))
        elif method := _METHOD_RE.search(line):
            parameters = _parameters(method[2])
            for values in pending:
                padded = values + [default for _, default in parameters[len(values) :]]
                names = [name for name, _ in parameters]
                found.append((method[1], dict(zip(names, padded, strict=True))))
            pending = []
    return found


def _words(text: str) -> list[str]:
    return re.sub(r"[\W_]+", " ", text.casefold().replace("&", " and ").replace("'", "")).split()


def facts(checkout: Path) -> dict[str, dict[str, set[Any]]]:
    """What the rows assert about each file name, by role: every value any row gives."""
    found: dict[str, dict[str, set[Any]]] = {}
    for path in sorted((checkout / "tests" / "Jellyfin.Naming.Tests" / "TV").glob("*.cs")):
        for method, arguments in rows(path.read_text(encoding="utf-8")):
            roles = ROLES.get(method, {})
            if "path" not in roles.values():
                continue
            by_role = {roles[name]: value for name, value in arguments.items() if name in roles}
            name = re.split(r"[/\\]", by_role.pop("path"))[-1]
            asserted = found.setdefault(name, {})
            for role, value in by_role.items():
                asserted.setdefault(role, set()).add(value if role != "date" else True)
    return found


def stated_seasons(name: str) -> set[int]:
    return {int(next(group for group in match.groups() if group)) for match in _SEASON_RE.finditer(name)}


def _episodes(name: str, asserted: dict[str, Any], seasons: set[int]) -> list[int] | str | None:
    """The episodes label, "oov:…" when unscored, None when the rows give none."""
    if asserted.get("date"):
        return "oov:date"
    numbers = {int(digits) for digits in re.findall(r"\d+", _EXTENSION_RE.sub("", name))}  # not .mp4's 4
    season = asserted.get("season")
    if season is not None and season in numbers and not seasons:
        return "oov:season from a bare number"
    start = asserted.get("episode")
    if start is None and "end" in asserted and (code := _EPISODE_CODE_RE.search(name)):
        start = int(code[1])
    if start is None or start not in numbers:
        return None
    end = asserted.get("end") or start
    between = set(range(start + 1, end))
    if end not in numbers or (between & numbers and not between <= numbers):
        return "oov:listed episodes, not a range"
    return list(range(start, end + 1))


def labels(name: str, asserted: dict[str, Any]) -> dict[str, Any]:
    """A name's labels from the values its rows assert (one value per role)."""
    expected: dict[str, Any] = {}
    show = asserted.get("title")
    shown, unprefixed = _words(show or ""), _words(_LEADING_GROUPS_RE.sub("", name))
    if shown and not _SHOW_QUALIFIER_RE.search(show or "") and unprefixed[: len(shown)] == shown:
        expected["title"] = show
    seasons = stated_seasons(name)
    if asserted.get("season") is not None and seasons == {asserted["season"]}:
        expected["seasons"] = [asserted["season"]]
    elif "season" in asserted and asserted["season"] is None and not seasons and not asserted.get("date"):
        expected["seasons"] = []
    if (episodes := _episodes(name, asserted, seasons)) is not None:
        expected["episodes"] = episodes
    return expected


def _distinct(role: str, values: set[Any]) -> set[Any]:
    """The values as told apart: a show's names by their words (Jellyfin compares them ignoring case)."""
    return {" ".join(_words(value)) for value in values} if role == "title" else values


def _scored(expected: dict[str, Any]) -> bool:
    return any(not (isinstance(value, str) and value.startswith("oov:")) for value in expected.values())


def main() -> None:
    checkout, out, elsewhere = extractor_arguments()
    cases = []
    for name, asserted in facts(checkout).items():
        if conflicts := {role: found for role, found in asserted.items() if len(_distinct(role, found)) > 1}:
            print(f"left out, its rows disagree: {name!r} {conflicts}")
            continue
        expected = labels(name, {role: next(iter(values)) for role, values in asserted.items()})
        if not _scored(expected):
            print(f"no label: {name!r} {asserted}")
        elif name in elsewhere:
            print(f"held by another corpus: {name!r}")
        else:
            cases.append({"corpus": "jellyfin", "name": name, "expected": expected})
    write_corpus(out, cases)


if __name__ == "__main__":
    main()
