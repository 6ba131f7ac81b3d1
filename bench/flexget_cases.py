"""Turn Flexget's series- and film-parser tests into a labelled file for bench/parse.py: read at first sight.

Run: python bench/flexget_cases.py FLEXGET_CHECKOUT OUT.json [--without OTHER.json ...]
FLEXGET_CHECKOUT is a checkout of Flexget (github.com/Flexget/Flexget, MIT), which fetches series and films by
name; tests/test_seriesparser.py and tests/test_movieparser.py call `parse(data=NAME, name=SHOW)` (or
`parse_valid` / `parse_invalid`) and assert on the result. The modules are read as syntax (`ast`), never
imported or run; a call inside a `for` over a literal list is read once per item.
Labels, each only from an assert that follows the call:
- title: the show given, when the test says the name is valid for it (`s.valid`, `parse_valid`, or a value it
  asserts, which Flexget only reads once the show matched) and the name, past any leading "[group]", starts
  with the show's words followed by a word with a digit or "season"/"episode"/"ep" (Flexget also accepts a
  show that is only the start of the title: "Test" in "Test.Foobar.S01E02"). None for a name the test
  refuses, with `alternate_names`, for a show named with a country or year ("(US)", "Foo 2009": the other
  corpora keep those out of the title), or before a part ("Test.Part3": the bench reads guessit's part into
  the title). A film's title is its asserted `name`.
- seasons and episodes: `season`, `episode` (and `episodes`, a count, for a range), an "S01E02" identifier;
  a sequence id (anime numbering) is the episode with no season, as bench/sickgear_cases.py counts absolute
  numbers; an asserted season pack has no episode.
- resolution and source: the words of an asserted `quality.name`, in the vocabulary; an absent one is "none"
  only when the name holds no word the vocabulary knows for that field.
- year: a film's asserted `year`.
Left unscored: a date identifier's episodes ("oov:date", as bench/tvnamer_cases.py does; no season label), a
part Flexget reads as an episode ("Pt.VI", "oov:part": the vocabulary has no parts), and the season 1 Flexget
assumes for a name that gives none (tests saying "assume season 1"). Left out: custom `id_regexps` ids, names
built at run time (f-strings), the test of which of two years and two sources in one name Flexget prefers,
and names with no label. `--without` drops every name another corpus already holds. The output stays outside
the repository.
"""

from __future__ import annotations

import ast
import re
from typing import TYPE_CHECKING, Any

from vocabulary import (
    RESOLUTION_WORDS,
    SOURCE_WORDS,
    YEAR_LIKE_RE,
    extractor_arguments,
    numbers,
    source_of,
    write_corpus,
)

if TYPE_CHECKING:
    from pathlib import Path

# Tests of which of a name's conflicting values Flexget prefers: no truth of the name to label.
_PREFERENCES = frozenset({"test_multiple_property_values"})  # two years, two sources in one name
_PARSE_CALLS = frozenset({"parse", "parse_valid", "parse_invalid"})
# Words that may follow the show's for the show to be the whole title, besides a word with a digit.
_TITLE_END_WORDS = frozenset({"season", "episode", "ep"})
_RESOLUTION_RE = re.compile(r"\d{3,4}[pi]|\d{3,4}x\d{3,4}")
_SHOW_QUALIFIER_RE = re.compile(r"\([^)]*\)$|\b(?:19|20)\d\d$")
_PART_RE = re.compile(r"(?:part|pt)\d*")
_LEADING_GROUPS_RE = re.compile(r"^(?:\s*\[[^\]]*\])+\s*")
_DATE_ID_RE = re.compile(r"\d{4}-\d\d-\d\d")
_PART_IN_NAME_RE = re.compile(r"(?i)\b(?:pt|part)\W?(?:\d|[ivx]+\b|one\b)")


def _words(text: str) -> list[str]:
    """A name's or show's words, folded as bench/parse.py folds titles."""
    text = text.casefold().replace("&", " and ").replace("'", "")
    return re.sub(r"[\W_]+", " ", text).split()


def show_is_title(show: str, name: str, *, dated: bool) -> bool:
    """Whether the show's words are the whole title at the name's start, not just its first words.

    A year after them may be the show's own ("Foo 2009"), unless it starts the date that numbers the episode.
    """
    if _SHOW_QUALIFIER_RE.search(show):
        return False  # "The Show (US)", "Foo 2009": the corpora keep a country or year out of the title
    shown, words = _words(show), _words(_LEADING_GROUPS_RE.sub("", name))
    if words[: len(shown)] != shown or len(words) == len(shown):
        return False
    following = words[len(shown)]
    if _PART_RE.fullmatch(following):
        return False  # the bench reads guessit's part into the title ("Test Part 3")
    if YEAR_LIKE_RE.fullmatch(following):
        return dated
    return any(char.isdigit() for char in following) or following in _TITLE_END_WORDS


class _Call:
    """One parse of a name and what the asserts after it say about the result."""

    def __init__(self, name: str, show: str | None, options: set[str], *, valid: bool | None) -> None:
        self.name, self.show, self.options, self.valid = name, show, options, valid
        self.asserted: dict[str, Any] = {}

    def assert_value(self, attribute: str, value: Any) -> None:
        self.asserted[attribute] = value
        if self.valid is None:
            self.valid = True  # Flexget reads a value only once the show matched


def _call(node: ast.expr, bound: dict[str, Any]) -> _Call | None:
    """A literal `parse(...)`, `parse_valid(...)` or `parse_invalid(...)` call (names from `bound`)."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in _PARSE_CALLS):
        return None
    kind = node.func.id
    order = ("data", "name") if kind == "parse" else ("name", "data")
    given: dict[str, ast.expr] = dict(zip(order, node.args, strict=False))
    given |= {keyword.arg: keyword.value for keyword in node.keywords if keyword.arg}
    values: dict[str, Any] = {}
    for key in ("data", "name"):
        if key not in given:
            continue
        value = given[key]
        if isinstance(value, ast.Name) and value.id in bound:
            values[key] = bound[value.id]
        elif isinstance(value, ast.Constant) and isinstance(value.value, str):
            values[key] = value.value
        else:
            return None  # built at run time
    if "data" not in values:
        return None
    valid = {"parse_valid": True, "parse_invalid": False}.get(kind)
    options = set(given) - {"data", "name"}
    return _Call(values["data"], values.get("name"), options, valid=valid)


def _attribute_path(node: ast.expr) -> tuple[str, str] | None:
    """`s.season` -> ("s", "season"); `s.quality.name` -> ("s", "quality.name")."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name) and parts:
        return node.id, ".".join(reversed(parts))
    return None


def _read_assert(test: ast.expr, current: dict[str, _Call]) -> None:
    """Record one assert on a parse result bound to a variable."""
    negated = isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not)
    subject = test.operand if isinstance(test, ast.UnaryOp) else test
    if isinstance(subject, ast.Compare):
        if not (isinstance(subject.ops[0], ast.Eq) and isinstance(subject.comparators[0], ast.Constant)):
            return  # `!=`, `isinstance`, `.lower()`: nothing to label
        path = _attribute_path(subject.left)
        if path and path[0] in current:
            current[path[0]].assert_value(path[1], subject.comparators[0].value)
        return
    path = _attribute_path(subject)
    if path and path[0] in current:
        call = current[path[0]]
        if path[1] == "valid":
            call.valid = not negated
        elif not negated and path[1] in {"season_pack", "proper"}:
            call.assert_value(path[1], value=True)


def _loop_values(loop: ast.For, lists: dict[str, list[Any]]) -> list[Any]:
    """The items a `for` runs over: a literal list or a name bound to one; none for one built at run time."""
    if isinstance(loop.iter, ast.Name):
        return lists.get(loop.iter.id, [])
    return ast.literal_eval(loop.iter) if isinstance(loop.iter, ast.List) else []


def _statements(
    body: list[ast.stmt], bound: dict[str, Any], current: dict[str, _Call], calls: list[_Call]
) -> None:
    lists = {
        target.id: ast.literal_eval(statement.value)
        for statement in body
        if isinstance(statement, ast.Assign) and isinstance(statement.value, ast.List)
        for target in statement.targets
        if isinstance(target, ast.Name)
    }
    for statement in body:
        if isinstance(statement, ast.For) and isinstance(statement.target, ast.Name):
            for value in _loop_values(statement, lists):
                _statements(statement.body, bound | {statement.target.id: value}, current, calls)
        elif isinstance(statement, ast.Assign) and (call := _call(statement.value, bound)):
            target = statement.targets[0]
            if isinstance(target, ast.Name):
                current[target.id] = call
                calls.append(call)
        elif isinstance(statement, ast.Expr) and (call := _call(statement.value, bound)):
            calls.append(call)
        elif isinstance(statement, ast.Assert):
            test = statement.test
            if isinstance(test, ast.Attribute) and (call := _call(test.value, bound)):
                call.asserted[test.attr] = True  # `assert parse_valid(...).season_pack`
                calls.append(call)
            else:
                _read_assert(test, current)


def calls_of(path: Path) -> list[tuple[str, _Call]]:
    """Every parse call of the module's test methods, with its method's docstring."""
    found: list[tuple[str, _Call]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
            if node.name in _PREFERENCES:
                continue
            calls: list[_Call] = []
            _statements(node.body, {}, {}, calls)
            found.extend((ast.get_docstring(node) or "", call) for call in calls)
    return found


def _quality(quality: str, name: str) -> dict[str, Any]:
    """Resolution and source from Flexget's quality name ("720p webdl h264 dd5.1")."""
    words = quality.lower().split()
    name_words = {re.sub(r"[\W_]+", "", word) for word in re.split(r"[\s._\-\[\](),:/]+", name.lower())}
    expected: dict[str, Any] = {}
    resolutions = [word for word in words if _RESOLUTION_RE.fullmatch(word)]
    if resolutions:
        expected["resolution"] = resolutions[0]
    elif not any(_RESOLUTION_RE.fullmatch(word) or word in RESOLUTION_WORDS for word in name_words):
        expected["resolution"] = None
    sources = [source_of(word) for word in words if word in SOURCE_WORDS]
    if sources:
        expected["source"] = sources[0]
    elif not name_words & SOURCE_WORDS.keys():
        expected["source"] = None
    return expected


def _numbers(asserted: dict[str, Any], *, assumes_season_one: bool, film: bool) -> dict[str, Any]:
    """Seasons and episodes from the asserted season, episode, identifier, id and id type."""
    if film:
        return {}
    expected: dict[str, Any] = {}
    identifier = asserted.get("identifier", asserted.get("id"))
    dated = isinstance(identifier, str) and _DATE_ID_RE.fullmatch(identifier)
    if dated or asserted.get("id_type") == "date":
        return {"episodes": "oov:date"}
    if isinstance(identifier, str) and (match := re.fullmatch(r"S(\d+)E(\d+)", identifier)):
        expected |= {"seasons": numbers(match[1]), "episodes": numbers(match[2])}
    elif isinstance(identifier, int) and "season" not in asserted:
        expected |= {"seasons": [], "episodes": numbers(identifier)}  # a sequence id, anime numbering
    if "season" in asserted:
        expected["seasons"] = numbers(asserted["season"])
    if assumes_season_one and expected.get("seasons") == [1]:
        del expected["seasons"]
    if "episode" in asserted:
        first = int(asserted["episode"])
        expected["episodes"] = list(range(first, first + int(asserted.get("episodes", 1))))
    if asserted.get("season_pack"):
        expected["episodes"] = []
    return expected


def labels(docstring: str, call: _Call, *, film: bool) -> dict[str, Any]:
    """The vocabulary's labels for one parse call and its asserts."""
    asserted = call.asserted
    if "id_regexps" in call.options:
        return {}
    expected: dict[str, Any] = {}
    numbered = _numbers(asserted, assumes_season_one="assume season 1" in docstring, film=film)
    dated = numbered.get("episodes") == "oov:date"
    if (
        call.valid
        and call.show
        and "alternate_names" not in call.options
        and show_is_title(call.show, call.name, dated=dated)
    ):
        expected["title"] = call.show
    if isinstance(asserted.get("name"), str):
        expected["title"] = asserted["name"]
    if film and isinstance(asserted.get("year"), int):
        expected["year"] = asserted["year"]
    if isinstance(asserted.get("quality.name"), str):
        expected |= _quality(asserted["quality.name"], call.name)
    if call.valid is not False:
        expected |= numbered
    if isinstance(expected.get("episodes"), list) and _PART_IN_NAME_RE.search(call.name):
        expected["episodes"] = "oov:part"
    return expected


def main() -> None:
    checkout, out, elsewhere = extractor_arguments()
    cases: dict[str, dict[str, Any]] = {}
    for module, film in (("test_seriesparser.py", False), ("test_movieparser.py", True)):
        for docstring, call in calls_of(checkout / "tests" / module):
            if call.name not in elsewhere:
                cases.setdefault(call.name, {}).update(labels(docstring, call, film=film))
    labelled = [{"corpus": "flexget", "name": name, "expected": cases[name]} for name in cases if cases[name]]
    write_corpus(out, labelled)


if __name__ == "__main__":
    main()
