"""Accuracy per field of release-name parsing against labelled names, ours beside parsett's, and speed.

Run (from the repository root), with one or more labelled files:
    /var/cache/agent-media/venv-ha-2025.4/bin/python bench/parse.py LABELLED.json [MORE.json ...]
Options: --runs N (timing runs, median reported; default 5), --misses FIELD (print our misses on a field).

A labelled file is {"cases": [{"name": ..., "expected": {field: value, ...}}, ...]} in the vocabulary of
parse_release (see FIELDS); a field absent from "expected" is not labelled, a value "oov:…" is outside the
vocabulary and not scored. bench/ptt_cases.py turns parsett's own test data into such a file.
parsett is compared when it is importable (e.g. PYTHONPATH pointing at `pip install --target DIR parsett`).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
import re
import statistics
import sys
import time
from typing import TYPE_CHECKING, Any
import unicodedata

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from custom_components.agent_media.ranking import (
    TITLE_SIMILARITY_THRESHOLD,
    parse_release,
    title_similarity,
)

if TYPE_CHECKING:
    from collections.abc import Callable

FIELDS = (
    "title",
    "title~",  # what the ranking needs: similar enough to the labelled title to pass the title check
    "year",
    "resolution",
    "source",
    "source_class",
    "codec",
    "hdr",
    "seasons",
    "episodes",
    "languages",
    "trash",
)
# The coarse classes of the vocabulary; a REMUX is a BluRay.
SOURCE_CLASSES = {
    "cam": "trash", "telesync": "trash", "telecine": "trash", "screener": "trash",
    "hdtv": "tv", "dvd": "dvd", "webrip": "web", "web-dl": "web", "bluray": "bluray", "remux": "bluray",
}  # fmt: skip
# parsett's "quality" in the same vocabulary (source, class).
PARSETT_QUALITIES = {
    "BluRay": "bluray", "BDRip": "bluray", "BRRip": "bluray", "BluRay REMUX": "remux", "REMUX": "remux",
    "WEB-DL": "web-dl", "WEB": "web-dl", "WEBMux": "web-dl", "WEBRip": "webrip", "WEB-DLRip": "webrip",
    "HDRip": "webrip", "HDTV": "hdtv", "HDTVRip": "hdtv", "PDTV": "hdtv", "TVRip": "hdtv", "SATRip": "hdtv",
    "PPVRip": "hdtv", "UHDRip": "hdtv", "DVD": "dvd", "DVDRip": "dvd", "CAM": "cam", "TeleSync": "telesync",
    "TeleCine": "telecine", "SCR": "screener",
}  # fmt: skip
# Kinds of HDR the vocabulary does not tell apart.
HDR_KINDS = {"HDR10": "HDR", "HDR10+": "HDR", "DV": "DV", "HDR": "HDR"}
RESOLUTIONS = {"4k": "2160p", "uhd": "2160p"}


def ours(name: str) -> dict[str, Any]:
    parsed = parse_release(name)
    return {
        "title": parsed.title,
        "year": parsed.year,
        "resolution": parsed.resolution,
        "source": parsed.source,
        "source_class": SOURCE_CLASSES.get(parsed.source or ""),
        "codec": parsed.codec,
        "hdr": sorted({HDR_KINDS[kind] for kind in parsed.hdr}),
        "seasons": list(parsed.seasons),
        "episodes": list(parsed.episodes),
        "languages": sorted(code for code in parsed.languages if code not in {"multi", "dual"}),
        "trash": parsed.trash,
    }


def parsett_reader() -> Callable[[str], dict[str, Any]] | None:
    try:
        from PTT import parse_title  # noqa: PLC0415 - optional, for comparison only
    except ImportError:
        return None

    def read(name: str) -> dict[str, Any]:
        parsed = parse_title(name)
        source = PARSETT_QUALITIES.get(parsed.get("quality") or "")
        resolution = parsed.get("resolution")
        return {
            "title": parsed.get("title") or "",
            "year": parsed.get("year"),
            "resolution": RESOLUTIONS.get(resolution, resolution),
            "source": source,
            "source_class": SOURCE_CLASSES.get(source or ""),
            "codec": parsed.get("codec"),
            "hdr": sorted({HDR_KINDS[kind] for kind in parsed.get("hdr", ()) if kind in HDR_KINDS}),
            "seasons": list(parsed.get("seasons", ())),
            "episodes": list(parsed.get("episodes", ())),
            "languages": sorted(parsed.get("languages", ())),
            "trash": bool(parsed.get("trash")),
        }

    return read


def fold(title: str) -> str:
    """Fold a title the way the labels are written: lower case, no accents, "&" as "and", no punctuation."""
    text = "".join(char for char in unicodedata.normalize("NFKD", title) if not unicodedata.combining(char))
    text = text.casefold().replace("&", " and ").replace("'", "").replace("\u2019", "")
    return " ".join(re.sub(r"[\W_]+", " ", text).split())


def correct(field: str, got: dict[str, Any], expected: Any) -> bool:
    if field == "title":
        return fold(got["title"]) == fold(expected)
    if field == "title~":
        return title_similarity(expected, got["title"]) >= TITLE_SIMILARITY_THRESHOLD
    if field in {"hdr", "languages", "seasons", "episodes"}:
        return sorted(got[field]) == sorted(expected)
    return bool(got[field] == expected)


def labelled(case: dict[str, Any], field: str) -> tuple[bool, Any]:
    expected = case["expected"].get("title" if field == "title~" else field, ...)
    if expected is ... or (isinstance(expected, str) and expected.startswith("oov:")):
        return False, None
    if field == "hdr":
        expected = sorted({HDR_KINDS.get(kind, kind) for kind in expected})
    return True, expected


def score(
    cases: list[dict[str, Any]], reader: Callable[[str], dict[str, Any]]
) -> dict[str, tuple[int, int, list[str]]]:
    """Return per field: labelled cases, correct ones, and the names missed."""
    results = [reader(case["name"]) for case in cases]
    table: dict[str, tuple[int, int, list[str]]] = {}
    for field in FIELDS:
        total = right = 0
        missed: list[str] = []
        for case, got in zip(cases, results, strict=True):
            is_labelled, expected = labelled(case, field)
            if not is_labelled:
                continue
            total += 1
            if correct(field, got, expected):
                right += 1
            else:
                shown = got["title"] if field == "title~" else got[field]
                missed.append(f"{case['name']!r}: got {shown!r}, labelled {expected!r}")
        table[field] = (total, right, missed)
    return table


def median_ms(reader: Callable[[str], dict[str, Any]], names: list[str], runs: int) -> tuple[float, float]:
    """Return the median wall and CPU time of reading every name (CPU is steadier on a shared machine)."""
    wall, cpu = [], []
    for _ in range(runs):
        start, start_cpu = time.perf_counter(), time.process_time()
        for name in names:
            reader(name)
        wall.append((time.perf_counter() - start) * 1000)
        cpu.append((time.process_time() - start_cpu) * 1000)
    return statistics.median(wall), statistics.median(cpu)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("files", nargs="+", type=Path)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--misses", choices=FIELDS)
    args = parser.parse_args()
    reference = parsett_reader()
    print(f"Python {sys.version.split()[0]}; parsett {'found' if reference else 'not importable'}")
    for path in args.files:
        cases = json.loads(path.read_text(encoding="utf-8"))["cases"]
        names = [case["name"] for case in cases]
        mine = score(cases, ours)
        theirs = score(cases, reference) if reference else None
        print(f"\n{path.name}: {len(cases)} names")
        print(f"{'field':<13}{'labelled':>9}{'ours':>8}" + (f"{'parsett':>9}" if theirs else ""))
        for field in FIELDS:
            total, right, _ = mine[field]
            if not total:
                continue
            line = f"{field:<13}{total:>9}{100 * right / total:>7.1f}%"
            if theirs:
                line += f"{100 * theirs[field][1] / total:>8.1f}%"
            print(line)
        per_name = 1000 / len(names)
        wall, cpu = median_ms(ours, names, args.runs)
        line = f"µs/name, median of {args.runs} runs, wall (CPU): ours {wall * per_name:.0f}"
        line += f" ({cpu * per_name:.0f})"
        if reference:
            wall, cpu = median_ms(reference, names, args.runs)
            line += f", parsett {wall * per_name:.0f} ({cpu * per_name:.0f})"
        print(line)
        if args.misses:
            print(f"\nour misses on {args.misses}:")
            for miss in mine[args.misses][2]:
                print("  " + miss)


if __name__ == "__main__":
    main()
