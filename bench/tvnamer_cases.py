"""Turn tvnamer's test file names into a labelled file for bench/parse.py: episode files, never developed on.

Run: python bench/tvnamer_cases.py TVNAMER_CHECKOUT OUT.json
TVNAMER_CHECKOUT is a checkout of tvnamer (github.com/dbr/tvnamer, Unlicense), which renames episode files;
tests/test_files.py lists file names with the show, season and episodes tvnamer must read from each. The
module's `files[...] = [...]` tables are read as literals (`ast`), never run. A season of None is a name
without one (anime, "E11"); an episode that is a date is not scored, nor the title of a name without the
show's. The output stays outside the repository.
"""

from __future__ import annotations

import ast
from pathlib import Path
import sys
from typing import Any

from vocabulary import numbers, write_corpus


class _Dates(ast.NodeTransformer):
    """Write `datetime.date(…)`, an air date standing for an episode, as a label the bench leaves unscored."""

    def visit_Call(self, node: ast.Call) -> ast.AST:
        return ast.copy_location(ast.Constant("oov:date"), node)


def entries(path: Path) -> list[dict[str, Any]]:
    """Every entry of the module's `files[...] = [...]` tables."""
    found: list[dict[str, Any]] = []
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Subscript):
            found.extend(ast.literal_eval(_Dates().visit(node.value)))
    return found


def labels(entry: dict[str, Any]) -> dict[str, Any]:
    expected: dict[str, Any] = {"title": entry["parsedseriesname"]} if entry["parsedseriesname"] else {}
    if "seasonnumber" in entry:
        expected["seasons"] = numbers(entry["seasonnumber"])
    episodes = entry.get("episodenumbers", [])
    expected["episodes"] = "oov:date" if "oov:date" in episodes else numbers(episodes)
    return expected


def main() -> None:
    checkout, out = Path(sys.argv[1]), Path(sys.argv[2])
    cases = {entry["input"]: labels(entry) for entry in entries(checkout / "tests" / "test_files.py")}
    write_corpus(out, [{"corpus": "tvnamer", "name": name, "expected": cases[name]} for name in cases])


if __name__ == "__main__":
    main()
