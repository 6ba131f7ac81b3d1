"""Turn parsett's own test data into a labelled file for bench/parse.py.

Run: python bench/ptt_cases.py PTT_TESTS_DIR OUT.json
PTT_TESTS_DIR is the `tests` folder of a checkout of parsett (github.com/dreulavelle/PTT, MIT). The tests
are pytest tables; each file labels one field (test_season.py the seasons, …), test_main.py and
test_sports.py whole results. They are read with `ast`, never imported or run. Values are mapped to
parse_release's vocabulary by bench/vocabulary.py; values outside it become "oov:…" (not scored). The output
stays outside the repository: the names are real release names.
"""

from __future__ import annotations

import ast
from pathlib import Path
import re
import sys
from typing import Any

from vocabulary import SOURCE_CLASSES, codec_of, resolution_tier, source_of, write_corpus

# One field per file: the parametrize argument that holds it.
SINGLE_FIELD_FILES = {
    "test_season.py": ("expected_seasons", "seasons"),
    "test_episodes.py": ("expected_episode", "episodes"),
    "test_resolution.py": ("expected_resolution", "resolution"),
    "test_codec.py": ("expected_codec", "codec"),
    "test_quality.py": ("expected_quality", "quality"),
    "test_hdr.py": ("expected_hdr", "hdr"),
    "test_language.py": ("expected_languages", "languages"),
    "test_year.py": ("expected_year", "year"),
    "test_title.py": ("expected_title", "title"),
    "test_trash.py": ("expected_trash", "trash"),
    "test_collection.py": ("expected_title", "title"),
}
WHOLE_RESULT_FILES = ("test_main.py", "test_sports.py")
# parsett's "languages" are every language a name mentions, subtitles included ("SWESUB", "Greek Subs",
# "Subs/Thai.srt", "VOSTFR"); the vocabulary's are the audio's. Where a name speaks of subtitles, its label
# mixes the two, which cannot be told apart: it is not scored, for any parser (guessit reads subtitles apart).
SUBTITLES_RE = re.compile(
    r"\.(?:srt|ass|ssa|sub|idx|vtt|sup|smi)$|(?<![a-z])(?:[a-z]{0,5}subs?|subtit[a-z]*|subbed|sdh|"
    r"legendas?|legendado|leg|vost[a-z]*)(?![a-z])|字幕",
    re.IGNORECASE,
)


class _Ranges(ast.NodeTransformer):
    """Write `list(range(a, b))`, which some tables use, as the literal list it stands for."""

    def visit_Call(self, node: ast.Call) -> ast.AST:
        inner = node.args[0] if node.args else None
        if (
            isinstance(node.func, ast.Name)
            and node.func.id == "list"
            and isinstance(inner, ast.Call)
            and isinstance(inner.func, ast.Name)
            and inner.func.id == "range"
        ):
            bounds = [ast.literal_eval(argument) for argument in inner.args]
            return ast.List(elts=[ast.Constant(number) for number in range(*bounds)], ctx=ast.Load())
        return node


def tables(path: Path) -> list[tuple[list[str], list[tuple[Any, ...]]]]:
    """Return each parametrize table of a test file: argument names and rows (first function only)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.FunctionDef):
            continue
        for decorator in node.decorator_list:
            if (
                isinstance(decorator, ast.Call)
                and isinstance(decorator.func, ast.Attribute)
                and decorator.func.attr == "parametrize"
            ):
                names = [name.strip() for name in ast.literal_eval(decorator.args[0]).split(",")]
                rows = ast.literal_eval(_Ranges().visit(decorator.args[1]))
                found.append((names, [row if isinstance(row, tuple) else (row,) for row in rows]))
    return found


def vocabulary(field: str, value: Any) -> dict[str, Any]:  # noqa: PLR0911 - one case per field
    """Map one parsett label to the vocabulary's fields."""
    if field == "quality":
        source = source_of("remux" if value == "BluRay REMUX" else value)
        if source and source.startswith("oov:"):
            return {"source": source, "source_class": source}
        return {"source": source, "source_class": SOURCE_CLASSES.get(source or "")}
    if field == "resolution":
        return {"resolution": resolution_tier(value)}
    if field == "codec":
        return {"codec": codec_of(value)}
    if field == "languages":
        # parsett writes "la" for Latin-American Spanish.
        return {"languages": sorted({"es" if code == "la" else code for code in value})}
    if field == "hdr":
        return {"hdr": sorted({"HDR" if kind.startswith("HDR") else kind for kind in value if kind != "SDR"})}
    return {field: value}


def whole_result(result: dict[str, Any]) -> dict[str, Any]:
    expected: dict[str, Any] = {"title": result.get("title", "")}
    for field in ("year", "resolution", "codec", "quality"):
        expected |= vocabulary(field, result.get(field))
    for field in ("hdr", "seasons", "episodes", "languages"):
        expected |= vocabulary(field, result.get(field, []))
    expected["trash"] = bool(result.get("trash"))
    return expected


def main() -> None:
    tests, out = Path(sys.argv[1]), Path(sys.argv[2])
    cases: dict[str, dict[str, Any]] = {}
    for file, (argument, field) in SINGLE_FIELD_FILES.items():
        names, rows = tables(tests / file)[0]
        for row in rows:
            values = dict(zip(names, row, strict=True))
            value = values[argument]
            if file == "test_year.py" and not values["expect_year_presence"]:
                value = None
            if file == "test_collection.py" and value is None:
                continue
            cases.setdefault(values["release_name"], {}).update(vocabulary(field, value))
    for file in WHOLE_RESULT_FILES:
        for names, rows in tables(tests / file):
            for row in rows:
                values = dict(zip(names, row, strict=True))
                expected = whole_result(values[names[1]])
                cases.setdefault(values["release_name"], {}).update(expected)
    for name, expected in cases.items():
        if "languages" in expected and SUBTITLES_RE.search(name):
            expected["languages"] = "oov:subtitles named"
    labelled = [{"corpus": "parsett", "name": name, "expected": cases[name]} for name in cases]
    write_corpus(out, labelled)


if __name__ == "__main__":
    main()
