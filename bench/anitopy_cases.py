"""Turn anitopy's test table into a labelled file for bench/parse.py: anime fansub names, never developed on.

Run: python bench/anitopy_cases.py ANITOPY_CHECKOUT OUT.json
ANITOPY_CHECKOUT is a checkout of anitopy (github.com/igorcmoura/anitopy, MPL-2.0), a Python port of
anitomy; tests/fixtures/table.py holds fansub file names and everything anitopy must read from each. The table
is read as a Python literal (ast.literal_eval), never run.

anitopy's test compares the whole answer, so a field absent from an entry is asserted absent: no season, no
episode, no year, no resolution, no source. Its episode pair ("01-04" → ["01", "04"]) is a range when the name
writes the two numbers joined by a dash or a tilde, and is expanded so. Left out: entries tested with options;
languages (anitopy's "vostfr" is a subtitle); the title of an opening, ending, movie or OVA (anitopy keeps the
type in the title: "Toradora ED"). Values go through bench/vocabulary.py. The output stays outside the
repository.
"""

from __future__ import annotations

import ast
from pathlib import Path
import re
import sys
from typing import Any

from vocabulary import TRASH_SOURCES, numbers, resolution_tier, source_of, write_corpus


def table(path: Path) -> list[Any]:
    """Return the value of the module's `table = [...]`, read as a literal."""
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and any(
            isinstance(target, ast.Name) and target.id == "table" for target in node.targets
        ):
            return list(ast.literal_eval(node.value))
    raise ValueError(f"no table in {path}")


def counted(value: Any) -> list[int] | str:
    """A season or episode label; "oov:…" for a number that is none of the vocabulary's ("02.5", a half)."""
    try:
        return numbers(value)
    except ValueError:
        return f"oov:{value}"


def episodes(name: str, value: Any) -> list[int] | str:
    if isinstance(value, list) and len(value) == 2:
        first, last = (str(number) for number in value)
        if re.search(rf"(?<!\d){re.escape(first)}\s*[-~]\s*{re.escape(last)}(?!\d)", name):
            return list(range(int(first), int(last) + 1))
    return counted(value)


def expected(name: str, elements: dict[str, Any]) -> dict[str, Any]:
    source = source_of(elements.get("source"))
    labels: dict[str, Any] = {
        "year": int(elements["anime_year"]) if "anime_year" in elements else None,
        "resolution": resolution_tier(elements.get("video_resolution")),
        "source": source,
        "seasons": counted(elements.get("anime_season")),
        "episodes": episodes(name, elements.get("episode_number")),
    }
    if "anime_type" not in elements and "anime_title" in elements:
        labels["title"] = elements["anime_title"]
    if source is None or not source.startswith("oov:"):
        labels["trash"] = source in TRASH_SOURCES
    return labels


def main() -> None:
    checkout, out = Path(sys.argv[1]), Path(sys.argv[2])
    cases = [
        {"corpus": "anitopy", "name": name, "expected": expected(name, elements)}
        for name, options, elements in table(checkout / "tests" / "fixtures" / "table.py")
        if options is None
    ]
    write_corpus(out, cases)


if __name__ == "__main__":
    main()
