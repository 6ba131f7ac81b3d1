"""Accuracy per field of release-name parsing on labelled names: ours, parsett's and guessit's; and speed.

Plain Python, no Home Assistant: the parser and the ranking's title check are loaded from their files. Its own
small environment (bench-only, not the integration's or the tests' requirements) holds the parsers compared:
    python3 -m venv /tmp/parse-bench && /tmp/parse-bench/bin/pip install -r bench/parse-requirements.txt
    /tmp/parse-bench/bin/python bench/parse.py CORPUS.json [MORE.json ...] [--half development|held-out]
Without parsett or guessit installed, the bench reports ours alone.

A corpus is {"cases": [{"name": ..., "expected": {field: value, ...}}, ...]} in the vocabulary of
parse_release (see FIELDS); a field absent from "expected" is not labelled, a value "oov:..." is outside the
vocabulary and not scored. bench/ptt_cases.py, bench/goptt_cases.py, bench/ptn_cases.py,
bench/sonarr_cases.py, bench/radarr_cases.py, bench/medusa_cases.py, bench/anitopy_cases.py,
bench/tvnamer_cases.py, bench/sickgear_cases.py, bench/flexget_cases.py, bench/jellyfin_cases.py,
bench/jellyfin_film_cases.py, bench/kodi_cases.py, bench/rls_cases.py, bench/srp_cases.py,
bench/srpphp_cases.py and bench/videofilename_cases.py write such files from parsett's, go-ptt's, PTN's,
Sonarr's, Radarr's, Medusa's, anitopy's, tvnamer's, SickGear's, Flexget's, Jellyfin's (episodes and films),
Kodi's, rls's, the two scene-release-parsers' (pr0pz's JavaScript, thcolin's PHP) and video-filename-parser's
(a TypeScript port of Sonarr's and Radarr's) own tests; the shared corpus comes from
guessit's whole-name tests, and bench/guessit_rules_cases.py writes one from guessit's rule-level tests
(test/rules/*.yml), which is development material only: the parser is tuned on all of it, so its halves
mean nothing. bench/corpora.py runs them all, each later one --without the earlier ones. Each corpus is
reported on its own; several given together are also reported pooled, each labelled name counted once (one
figure per field over many small corpora). Every parser's answer and every label go through
bench/vocabulary.py, so that "1080i", "576p" or "BRRip" count the same whoever writes them.

--half splits each corpus in two fixed halves by a hash of the name: the parser is developed on one
("development", the only one whose misses --misses prints) and measured on the other ("held-out").
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import json
from pathlib import Path
import re
import statistics
import sys
import time
import types
from typing import TYPE_CHECKING, Any
import unicodedata

from vocabulary import (
    GUESSIT_CODECS,
    GUESSIT_HDR,
    GUESSIT_SOURCES,
    HDR_KINDS,
    SOURCE_CLASSES,
    TRASH_SOURCES,
    codec_of,
    resolution_tier,
    source_of,
)

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

_ROOT = Path(__file__).resolve().parent.parent


def _integration_module(name: str) -> types.ModuleType:
    """Import a pure-Python module of the integration without its package (which needs Home Assistant)."""
    for package in ("custom_components", "custom_components.agent_media"):
        if package not in sys.modules:
            module = types.ModuleType(package)
            module.__path__ = [str(_ROOT.joinpath(*package.split(".")))]
            sys.modules[package] = module
    return importlib.import_module(f"custom_components.agent_media.{name}")


_ranking = _integration_module("ranking")
parse_release = _ranking.parse_release
title_similarity = _ranking.title_similarity
TITLE_SIMILARITY_THRESHOLD = _ranking.TITLE_SIMILARITY_THRESHOLD

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


def ours(name: str) -> dict[str, Any]:
    parsed = parse_release(name)
    return {
        "title": parsed.title,
        "year": parsed.year,
        "resolution": resolution_tier(parsed.resolution),
        "source": parsed.source,
        "source_class": SOURCE_CLASSES.get(parsed.source or ""),
        "codec": parsed.codec,
        "hdr": sorted({HDR_KINDS[kind] for kind in parsed.hdr}),
        "seasons": list(parsed.seasons),
        "episodes": list(parsed.episodes),
        "languages": sorted(code for code in parsed.languages if code not in {"multi", "dual"}),
        "trash": parsed.trash,
    }


def _known(value: str | None) -> str | None:
    return None if value is None or value.startswith("oov:") else value


def parsett_reader() -> Callable[[str], dict[str, Any]] | None:
    try:
        from PTT import parse_title  # noqa: PLC0415 - optional, for comparison only
    except ImportError:
        return None

    def read(name: str) -> dict[str, Any]:
        parsed = parse_title(name)
        quality = parsed.get("quality") or ""
        source = _known(source_of(re.sub(r"(?i)^bluray remux$", "remux", quality)))
        return {
            "title": parsed.get("title") or "",
            "year": parsed.get("year"),
            "resolution": _known(resolution_tier(parsed.get("resolution"))),
            "source": source,
            "source_class": SOURCE_CLASSES.get(source or ""),
            "codec": _known(codec_of(parsed.get("codec"))),
            "hdr": sorted({HDR_KINDS[kind] for kind in parsed.get("hdr", ()) if kind in HDR_KINDS}),
            "seasons": list(parsed.get("seasons", ())),
            "episodes": list(parsed.get("episodes", ())),
            "languages": sorted({"es" if code == "la" else code for code in parsed.get("languages", ())}),
            "trash": bool(parsed.get("trash")) or source in TRASH_SOURCES,
        }

    return read


def _listed(value: Any) -> list[Any]:
    if value is None:
        return []
    return list(value) if isinstance(value, list) else [value]


def _alpha2(language: Any) -> str | None:
    try:
        return str(language.alpha2)
    except Exception:  # noqa: BLE001 - babelfish raises for languages without a two-letter code
        return None


def guessit_reader() -> Callable[[str], dict[str, Any]] | None:
    try:
        from guessit import guessit  # noqa: PLC0415 - optional, for comparison only
    except ImportError:
        return None

    def read(name: str) -> dict[str, Any]:
        parsed = guessit(name)
        other = set(_listed(parsed.get("other")))
        source = GUESSIT_SOURCES.get(str(parsed.get("source") or ""))
        if source == "web-dl" and "Rip" in other:
            source = "webrip"
        elif source == "bluray" and "Remux" in other:
            source = "remux"
        elif "Screener" in other:
            source = "screener"
        title = str(parsed.get("title") or "")
        if parsed.get("part") and parsed.get("type") == "movie":
            title += f" Part {parsed['part']}"  # guessit splits "Part Two" off the title
        years = [year for year in _listed(parsed.get("year")) if isinstance(year, int)]
        codes = {_alpha2(language) for language in _listed(parsed.get("language"))}
        return {
            "title": title,
            "year": years[0] if years else None,
            "resolution": _known(resolution_tier(parsed.get("screen_size"))),
            "source": source,
            "source_class": SOURCE_CLASSES.get(source or ""),
            "codec": GUESSIT_CODECS.get(str(parsed.get("video_codec") or "")),
            "hdr": sorted({GUESSIT_HDR[kind] for kind in other if kind in GUESSIT_HDR}),
            "seasons": sorted({int(number) for number in _listed(parsed.get("season"))}),
            "episodes": sorted({int(number) for number in _listed(parsed.get("episode"))}),
            "languages": sorted(code for code in codes if code),
            "trash": source in TRASH_SOURCES or bool(other & {"Screener", "Workprint", "Line Audio"}),
        }

    return read


def fold(title: str) -> str:
    """Fold a title the way the labels are written: lower case, no accents, "&" as "and", no punctuation."""
    text = "".join(char for char in unicodedata.normalize("NFKD", title) if not unicodedata.combining(char))
    text = text.casefold().replace("&", " and ").replace("'", "").replace("\u2019", "")
    return " ".join(re.sub(r"[\W_]+", " ", text).split())


def correct(field: str, got: dict[str, Any], expected: Any, *, contain: bool = False) -> bool:
    if field == "title":
        return fold(got["title"]) == fold(expected)
    if field == "title~":
        return title_similarity(expected, got["title"]) >= TITLE_SIMILARITY_THRESHOLD
    if field == "languages" and contain:
        return set(expected) <= set(got[field])
    if field in {"hdr", "languages", "seasons", "episodes"}:
        return sorted(got[field]) == sorted(expected)
    return bool(got[field] == expected)


def labelled(case: dict[str, Any], field: str) -> tuple[bool, Any]:
    expected = case["expected"].get("title" if field == "title~" else field, ...)
    if expected is ... or (isinstance(expected, str) and expected.startswith("oov:")):
        return False, None
    if field == "hdr":
        expected = sorted({HDR_KINDS.get(kind, kind) for kind in expected})
    if field == "resolution":
        expected = resolution_tier(expected)
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
            if correct(field, got, expected, contain=bool(case["expected"].get(f"{field}_contain"))):
                right += 1
            else:
                shown = got["title"] if field == "title~" else got[field]
                missed.append(f"{case['name']!r}: got {shown!r}, labelled {expected!r}")
        table[field] = (total, right, missed)
    return table


def timed_by_turns(
    readers: dict[str, Callable[[str], dict[str, Any]]], names: list[str], runs: int
) -> dict[str, tuple[float, float]]:
    """Return each parser's median wall and CPU time (ms) of reading every name, the parsers taking turns.

    Taking turns within each run spreads the shared machine's changing load over every parser alike, so the
    ratios between them are steadier than their times.
    """
    wall: dict[str, list[float]] = {label: [] for label in readers}
    cpu: dict[str, list[float]] = {label: [] for label in readers}
    for _ in range(runs):
        for label, reader in readers.items():
            start, start_cpu = time.perf_counter(), time.process_time()
            for name in names:
                reader(name)
            wall[label].append((time.perf_counter() - start) * 1000)
            cpu[label].append((time.process_time() - start_cpu) * 1000)
    return {label: (statistics.median(wall[label]), statistics.median(cpu[label])) for label in readers}


def print_rates(
    readers: dict[str, Callable[[str], dict[str, Any]]],
    tables: Mapping[str, Mapping[str, tuple[int, int] | tuple[int, int, list[str]]]],
) -> None:
    """Print each field's labelled count and every parser's share of it read right."""
    print(f"{'field':<13}{'labelled':>9}" + "".join(f"{label:>9}" for label in readers))
    for field in FIELDS:
        total = tables["ours"].get(field, (0, 0))[0]
        if total:
            rates = "".join(f"{100 * tables[label][field][1] / total:>8.1f}%" for label in readers)
            print(f"{field:<13}{total:>9}{rates}")


def half_of(name: str) -> str:
    """The fixed half a name belongs to: the same on every machine and in every run."""
    return "development" if hashlib.sha256(name.encode()).digest()[0] % 2 == 0 else "held-out"


def main() -> None:  # noqa: C901 - one loop over corpora and parsers
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("files", nargs="+", type=Path)
    parser.add_argument(
        "--runs", type=int, default=3, help="timing runs (the parsers take turns), the median is reported"
    )
    parser.add_argument("--half", choices=("development", "held-out"), help="score one half of each corpus")
    parser.add_argument(
        "--misses", choices=FIELDS, help="print our misses on a field (not with --half held-out)"
    )
    parser.add_argument("--no-guessit", action="store_true", help="leave guessit out (it is slow)")
    args = parser.parse_args()
    readers: dict[str, Callable[[str], dict[str, Any]]] = {"ours": ours}
    for label, make in (("parsett", parsett_reader), ("guessit", guessit_reader)):
        if label == "guessit" and args.no_guessit:
            continue
        if (reader := make()) is not None:
            readers[label] = reader
        else:
            print(f"{label} is not importable: not compared")
    print(f"Python {sys.version.split()[0]}; parsers: {', '.join(readers)}")
    # Every labelled name of every corpus counted once, so that many small corpora give one figure per field.
    pooled: dict[str, dict[str, tuple[int, int]]] = {label: {} for label in readers}
    pooled_names = 0
    for path in args.files:
        cases = json.loads(path.read_text(encoding="utf-8"))["cases"]
        if args.half:
            cases = [case for case in cases if half_of(case["name"]) == args.half]
        names = [case["name"] for case in cases]
        tables = {label: score(cases, reader) for label, reader in readers.items()}
        print(f"\n{path.name}{f' ({args.half} half)' if args.half else ''}: {len(cases)} names")
        print_rates(readers, tables)
        pooled_names += len(cases)
        for label, table in tables.items():
            for field, (total, right, _) in table.items():
                counted, hits = pooled[label].get(field, (0, 0))
                pooled[label][field] = (counted + total, hits + right)
        timings = timed_by_turns(readers, names, args.runs)
        print(
            f"µs/name, median of {args.runs} runs taking turns, wall (CPU): "
            + ", ".join(
                f"{label} {wall * 1000 / len(names):.0f} ({cpu * 1000 / len(names):.0f})"
                for label, (wall, cpu) in timings.items()
            )
        )
        ours_cpu = timings["ours"][1]
        ratios = [f"{label} {cpu / ours_cpu:.1f}" for label, (_, cpu) in timings.items() if label != "ours"]
        if ratios:
            print("CPU time, times ours: " + ", ".join(ratios))
        if args.misses and args.half != "held-out":
            print(f"\nour misses on {args.misses}:")
            for case_miss in tables["ours"][args.misses][2]:
                print("  " + case_miss)
    if len(args.files) > 1:
        print(
            f"\nall {len(args.files)} corpora together{f' ({args.half} halves)' if args.half else ''}: "
            f"{pooled_names} names"
        )
        print_rates(readers, pooled)


if __name__ == "__main__":
    main()
