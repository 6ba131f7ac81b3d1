"""Turn Jellyfin's film naming tests into a labelled file for bench/parse.py: film file names, first sight.

Run: python bench/jellyfin_film_cases.py JELLYFIN_CHECKOUT OUT.json [--without OTHER.json ...]
JELLYFIN_CHECKOUT is a checkout of Jellyfin (github.com/jellyfin/jellyfin, GPL-2.0), a media server that
names film files (its TV tests are bench/jellyfin_cases.py's). The C# of tests/Jellyfin.Naming.Tests/Video
is read as text, never compiled or run, nor copied into this repository. Read, where a test states the name
(Jellyfin's "clean" title) or the year it must find in one file name:
- CleanDateTimeTests: `[InlineData(path, name, year)]` rows, read as bench/jellyfin_cases.py reads the TV
  rows (commented-out rows skipped); the test takes the path's file name first.
- CleanStringTests: the rows of the test that cleaning succeeds (a name, no year); the rows asserting that a
  name needs no cleaning state no title and are not read.
- VideoResolverTests: the `new VideoFileInfo(path: ..., name: ..., year: ...)` entries (a missing year is
  asserted null), and the `[Fact]`s of Format3DTests and StubTests that assert the name of one resolved file.
Not read: the stacking, multi-version, list-resolver and extras tests (they group files, read "part1" or a
folder's name, and state no single file name's title or year), and the 3D and stub tests' other facts.

The parser reads names, not paths: each row's name is its path's last component, extension kept. Labels,
only what the file name alone holds:
- title: the asserted name, except two rules. A name the test leaves unchanged is no title: CleanDateTime
  returns its input whole, extension and all, when it finds no year ("American.Psycho.mkv"). A name holding
  a date (2013.12.09, 2013-12-09, 20131209, 2026年01月10日): Jellyfin keeps the date in its clean name,
  where the other corpora read a date apart, so such a name's title and year are left unscored
  ("oov:a date", as bench/rls_cases.py does). And one rule for what Jellyfin keeps: a name ending in a
  dash and a number ("300 - 2 (2006)" -> "300 - 2"; CleanDateTime cuts only at the year) leaves its title
  unscored ("oov:a number after a dash"), for the other corpora, and Jellyfin's own CleanString
  ("[HorribleSubs] Made in Abyss - 13" -> "Made in Abyss"), read such a number apart as an episode. No
  other word Jellyfin keeps or drops leaves a title out: it drops a leading "[group]", an episode number
  and a trailing "-trailer", as the other corpora do, and the words its clean list knows ("HDC", "UltraHD").
- year: the asserted year; none where the test asserts no year, only for a name holding no year-like number
  at all (no 19xx or 20xx anywhere in it). The tests that assert only a name give no year label.
A name's labels gather every row that names it; a name whose labels disagree is left out and reported.
Names left with no scored label are dropped; `--without` drops every name another corpus already holds. The
output stays outside the repository.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from jellyfin_cases import rows
from vocabulary import YEAR_LIKE_RE, extractor_arguments, write_corpus

if TYPE_CHECKING:
    from pathlib import Path

# Each theory's parameters by role, from its asserts.
ROLES: dict[str, dict[str, str]] = {
    "CleanDateTimeTest": {"input": "path", "expectedName": "title", "expectedYear": "year"},
    "CleanStringTest_NeedsCleaning_Success": {"input": "path", "expectedName": "title"},
}
_FILE_INFO_RE = re.compile(r"new VideoFileInfo\((.*?)\)\);", re.DOTALL)
_NAMED_ARGUMENT_RE = re.compile(r'(\w+):\s*("(?:[^"\\]|\\.)*"|[^,\s]+)')
_RESOLVED_NAME_RE = re.compile(
    r'ResolveFile\("((?:[^"\\]|\\.)*)",[^;]*;'  # the path resolved, then its name asserted
    r'(?:\s*Assert[^;]*;)*?\s*Assert\.Equal\("((?:[^"\\]|\\.)*)", result\?\.Name\)'
)
_DATE_RE = re.compile(r"(?<!\d)(?:\d{4}([.-])\d\d\1\d\d|\d{8})(?!\d)|\d{4}年\d{1,2}月\d{1,2}日")
_DASHED_NUMBER_RE = re.compile(r"\s-\s*\d+$")


def _name(path: str) -> str:
    return re.split(r"[/\\]", path)[-1]


def _value(literal: str) -> Any:
    if literal.startswith('"'):
        return re.sub(r"\\(.)", r"\1", literal[1:-1])
    return None if literal == "null" else int(literal)


def _file_infos(text: str) -> list[dict[str, Any]]:
    """VideoResolverTests' expected results: the file's name and year (null when the entry gives none)."""
    found = []
    for entry in _FILE_INFO_RE.findall(text):
        arguments = dict(_NAMED_ARGUMENT_RE.findall(entry))
        if "path" in arguments and "name" in arguments:
            found.append(
                {
                    "path": _value(arguments["path"]),
                    "title": _value(arguments["name"]),
                    "year": _value(arguments.get("year", "null")),
                }
            )
    return found


def asserted_rows(checkout: Path) -> list[tuple[str, dict[str, Any]]]:
    """Each row's file name and what it asserts of it ("title", "year"; a role absent is not asserted)."""
    found: list[tuple[str, dict[str, Any]]] = []
    for path in sorted((checkout / "tests" / "Jellyfin.Naming.Tests" / "Video").glob("*.cs")):
        text = path.read_text(encoding="utf-8")
        asserted = [
            {roles[key]: value for key, value in arguments.items() if key in roles}
            for method, arguments in rows(text)
            if (roles := ROLES.get(method))
        ]
        asserted += _file_infos(text)
        asserted += [{"path": path, "title": name} for path, name in _RESOLVED_NAME_RE.findall(text)]
        found += [(_name(row.pop("path")), row) for row in asserted if row.get("path")]
    return found


def _folded(title: str) -> str:
    """A title as Jellyfin's asserts compare it (case ignored), punctuation aside."""
    return " ".join(re.sub(r"[\W_]+", " ", title.casefold()).split())


def labels(name: str, asserted: dict[str, Any]) -> dict[str, Any]:
    """One row's labels for its file name."""
    if _DATE_RE.search(name):
        return {"title": "oov:a date", "year": "oov:a date"}
    expected: dict[str, Any] = {}
    title = asserted.get("title")
    if title and _DASHED_NUMBER_RE.search(title):
        expected["title"] = "oov:a number after a dash"
    elif title and title.casefold() != name.casefold():
        expected["title"] = title
    if "year" in asserted:
        if asserted["year"] is not None:
            expected["year"] = asserted["year"]
        elif not YEAR_LIKE_RE.search(name):
            expected["year"] = None
    return expected


def _scored(expected: dict[str, Any]) -> bool:
    return any(not (isinstance(value, str) and value.startswith("oov:")) for value in expected.values())


def main() -> None:
    checkout, out, elsewhere = extractor_arguments()
    gathered: dict[str, dict[str, dict[Any, Any]]] = {}
    for name, asserted in asserted_rows(checkout):
        gathered.setdefault(name, {})
        for field, value in labels(name, asserted).items():
            told_apart = _folded(value) if field == "title" and value else value
            gathered[name].setdefault(field, {})[told_apart] = value
    cases = []
    for name, by_field in gathered.items():
        if conflicts := {field: list(values) for field, values in by_field.items() if len(values) > 1}:
            print(f"left out, its rows disagree: {name!r} {conflicts}")
            continue
        expected = {field: next(iter(values.values())) for field, values in by_field.items()}
        if not _scored(expected):
            print(f"no label: {name!r} {expected}")
        elif name in elsewhere:
            print(f"held by another corpus: {name!r}")
        else:
            cases.append({"corpus": "jellyfin-films", "name": name, "expected": expected})
    write_corpus(out, cases)


if __name__ == "__main__":
    main()
