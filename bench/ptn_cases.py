"""Turn PTN's own test data into a labelled file for bench/parse.py.

Run: python bench/ptn_cases.py PTN_CHECKOUT OUT.json
PTN_CHECKOUT is a checkout of parse-torrent-title (github.com/platelminto/parse-torrent-title, MIT); its
tests/files/input.json holds the names and output_raw.json what PTN must read from each. PTN's test asserts
every key it reads, so a field absent from a result is labelled absent (no year, no season, …). Values are
mapped by bench/vocabulary.py; the output stays outside the repository (the names are real releases).
"""

from __future__ import annotations

import json
from pathlib import Path
import sys
from typing import Any

from vocabulary import (
    TRASH_SOURCES,
    codec_of,
    languages_of,
    numbers,
    resolution_tier,
    source_of,
    write_corpus,
)


def expected(result: dict[str, Any]) -> dict[str, Any]:
    source = source_of(result.get("quality"))
    if result.get("remux") and source == "bluray":
        source = "remux"  # PTN flags a remux beside its quality; the vocabulary has it as a source
    labels: dict[str, Any] = {
        "title": result["title"],
        "year": result.get("year"),
        "resolution": resolution_tier(result.get("resolution")),
        "source": source,
        "codec": codec_of(result.get("codec")),
        "seasons": numbers(result.get("season")),
        "episodes": numbers(result.get("episode")),
        "languages": languages_of(result.get("language")),
    }
    if source is not None and not source.startswith("oov:"):
        labels["trash"] = source in TRASH_SOURCES
    return labels


def main() -> None:
    checkout, out = Path(sys.argv[1]), Path(sys.argv[2])
    files = checkout / "tests" / "files"
    names = json.loads((files / "input.json").read_text(encoding="utf-8"))
    results = json.loads((files / "output_raw.json").read_text(encoding="utf-8"))
    cases = [
        {"corpus": "ptn", "name": name, "expected": expected(result)}
        for name, result in zip(names, results, strict=True)
    ]
    write_corpus(out, cases)


if __name__ == "__main__":
    main()
