"""Turn SickGear's name-parser tests into a labelled file for bench/parse.py: show names, never developed on.

Run: python bench/sickgear_cases.py SICKGEAR_CHECKOUT OUT.json
SICKGEAR_CHECKOUT is a checkout of SickGear (github.com/SickGear/SickGear, GPL-3.0), a Sick Beard descendant;
tests/name_parser_tests.py maps names to the `ParseResult(original_name, series_name, season_number,
episode_numbers, extra_info, release_group, air_date, ab_episode_numbers, …)` its parser must return.
Its `simple_test_cases` and `unicode_test_cases` are read as data (`ast`), never run. Labels: the show's
title, its season (none when None) and its episodes; an anime's absolute numbers are its episodes when it
has no others (the vocabulary has no separate absolute numbering). Left out: a folder-and-file pair
("Show.S02/tpz-sn203"), names the test expects the parser to refuse, and the episodes of an air-dated name.
The output stays outside the repository.
"""

from __future__ import annotations

import ast
from pathlib import Path
import sys
from typing import Any

from vocabulary import numbers, write_corpus

RESULT_FIELDS = (
    "original_name",
    "series_name",
    "season_number",
    "episode_numbers",
    "extra_info",
    "release_group",
    "air_date",
    "ab_episode_numbers",
)


def _result(call: ast.expr) -> dict[str, Any] | None:
    """The fields of a `parser.ParseResult(...)` call that the bench uses; None for a refusal."""
    if not isinstance(call, ast.Call):
        return None
    given = dict(zip(RESULT_FIELDS, call.args, strict=False)) | {
        keyword.arg: keyword.value for keyword in call.keywords if keyword.arg
    }
    return {
        field: ("date" if isinstance(value, ast.Call) else ast.literal_eval(value))
        for field, value in given.items()
        if field in {"series_name", "season_number", "episode_numbers", "air_date", "ab_episode_numbers"}
    }


def labels(result: dict[str, Any]) -> dict[str, Any]:
    expected: dict[str, Any] = {"seasons": numbers(result.get("season_number"))}
    if result.get("series_name"):
        expected["title"] = result["series_name"]
    if result.get("air_date"):
        expected["episodes"] = "oov:air date"
    else:
        expected["episodes"] = numbers(result.get("episode_numbers") or result.get("ab_episode_numbers"))
    return expected


def tables(path: Path) -> dict[str, dict[str, Any]]:
    """Each name of the simple and unicode tables with the result it is tested against."""
    cases: dict[str, dict[str, Any]] = {}
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if not (isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name)):
            continue
        if node.targets[0].id == "simple_test_cases" and isinstance(node.value, ast.Dict):
            pairs = [
                (key, value)
                for section in node.value.values
                if isinstance(section, ast.Dict)
                for key, value in zip(section.keys, section.values, strict=True)
            ]
        elif node.targets[0].id == "unicode_test_cases" and isinstance(node.value, ast.List):
            pairs = [(item.elts[0], item.elts[1]) for item in node.value.elts if isinstance(item, ast.Tuple)]
        else:
            continue
        for key, value in pairs:
            name = ast.literal_eval(key) if key is not None else None
            result = _result(value)
            if isinstance(name, str) and "/" not in name and result is not None:
                cases[name] = labels(result)
    return cases


def main() -> None:
    checkout, out = Path(sys.argv[1]), Path(sys.argv[2])
    cases = tables(checkout / "tests" / "name_parser_tests.py")
    write_corpus(out, [{"corpus": "sickgear", "name": name, "expected": cases[name]} for name in cases])


if __name__ == "__main__":
    main()
