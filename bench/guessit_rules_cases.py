"""Turn guessit's rule-level tests into a labelled file for bench/parse.py: development material.

Run: python bench/guessit_rules_cases.py GUESSIT_RULES_DIR OUT.json
GUESSIT_RULES_DIR is the `test/rules` folder of guessit 4.4.0 (LGPL-3.0; e.g. site-packages/guessit/test/rules
of the bench's environment); PyYAML reads it (in the bench's environment only: `pip install pyyaml`). The
whole-name tests (movies.yml, episodes.yml, various.yml one level up) are the shared corpus already; these are
the tests of one rule each (episodes.yml, date.yml, source.yml, other.yml, ...), often a fragment of a name.

The files are read as data, never run. A test is a name, or a chain of names sharing the next answer; a name
starting with "-" must NOT give that answer and is left out, a "+" only asks guessit for a whole-name match.
A test asserts only the keys it lists, so only those are labelled: "season" alone labels no episodes. Keys
starting with "-" (must not be) are not labelled either. Trash is labelled where the test asserts the source
or guessit's "other": true for a camera, telesync, telecine, workprint, screener, R5 or line audio. A name
tested twice (with and without guessit options such as `-t episode`) keeps the labels of the test without
options where both label a field. Values go through bench/vocabulary.py; unknown ones become "oov:…". The
output stays outside the repository, like the other corpora.

This corpus is for development: the parser may be tuned on all of it (it has no held-out use).
"""

from __future__ import annotations

from pathlib import Path
import re
import sys
from typing import Any

from vocabulary import (
    GUESSIT_CODECS,
    GUESSIT_HDR,
    GUESSIT_SOURCES,
    SOURCE_CLASSES,
    TRASH_SOURCES,
    codec_of,
    languages_of,
    numbers,
    resolution_tier,
    write_corpus,
)
import yaml

TRASH_OTHERS = frozenset({"Screener", "Region 5", "Line Audio"})
# guessit's marks before a name or a key: "-" negates, "+" asks for a whole-name match.
_MARKS_RE = re.compile(r"([ +-]+)")


def listed(value: Any) -> list[Any]:
    if value is None:
        return []
    return list(value) if isinstance(value, list) else [value]


def tests(path: Path) -> list[tuple[str, dict[str, Any]]]:
    """Return (name, asserted keys) of every test in a rule file, chains resolved, in file order.

    Read pair by pair: a name can be tested twice in one file (with other options), which a dict would lose.
    """
    loader = yaml.SafeLoader(path.read_text(encoding="utf-8"))
    try:
        root = loader.get_single_node()
        pairs = [
            (str(loader.construct_object(key, deep=True)), loader.construct_object(value, deep=True))
            for key, value in root.value
        ]
    finally:
        loader.dispose()
    resolved: list[tuple[str, dict[str, Any]]] = []
    following: dict[str, Any] = {}
    for name, asserted in reversed(pairs):
        if asserted is not None:
            following = asserted
        resolved.append((name, following))
    return resolved[::-1]


def labels(asserted: dict[str, Any]) -> dict[str, Any]:  # noqa: C901 - one mapping per key
    """Map the keys a test asserts to the vocabulary's fields."""
    found: dict[str, Any] = {}
    if "title" in asserted:
        title = str(asserted["title"])
        if "part" in asserted and asserted.get("type") != "episode":
            title += f" Part {asserted['part']}"  # guessit splits "Part Two" off a film's title
        found["title"] = title
    if "year" in asserted:
        found["year"] = asserted["year"] if isinstance(asserted["year"], int) else f"oov:{asserted['year']}"
    if "date" in asserted and "year" not in asserted:
        found["year"] = "oov:a date"  # a date's year is no release year; not scored
    if "screen_size" in asserted:
        found["resolution"] = resolution_tier(asserted["screen_size"])
    if "video_codec" in asserted:
        found["codec"] = codec_of(
            GUESSIT_CODECS.get(str(asserted["video_codec"]), str(asserted["video_codec"]))
        )
    if "season" in asserted:
        found["seasons"] = numbers(asserted["season"])
    if "episode" in asserted:
        found["episodes"] = numbers(asserted["episode"])
    if "language" in asserted:
        found["languages"] = languages_of(asserted["language"])  # a name ("French") or a code ("pt")
    if "other" in asserted:
        found["hdr"] = sorted(
            {GUESSIT_HDR[other] for other in listed(asserted["other"]) if other in GUESSIT_HDR}
        )
    return found | source_labels(asserted)


def source_labels(asserted: dict[str, Any]) -> dict[str, Any]:
    """Source and trash, where a test asserts guessit's source or its "other" (which holds "Screener")."""
    if "source" not in asserted and "other" not in asserted:
        return {}
    others = {str(other) for other in listed(asserted.get("other"))}
    found: dict[str, Any] = {}
    source = GUESSIT_SOURCES.get(str(asserted.get("source")), f"oov:{asserted.get('source')}")
    if "source" not in asserted:
        source = None
    elif source == "web-dl" and "Rip" in others:
        source = "webrip"
    elif source == "bluray" and "Remux" in others:
        source = "remux"
    if "Screener" in others:
        source = "screener"
    if source is not None:
        found["source"] = source
        found["source_class"] = source if source.startswith("oov:") else SOURCE_CLASSES[source]
    found["trash"] = source in TRASH_SOURCES or bool(others & TRASH_OTHERS)
    return found


def main() -> None:
    rules, out = Path(sys.argv[1]), Path(sys.argv[2])
    cases: dict[str, dict[str, Any]] = {}
    sources: dict[str, str] = {}
    for path in sorted(rules.glob("*.yml")):
        with_options: list[tuple[str, dict[str, Any]]] = []
        for key, asserted in tests(path):
            marks = _MARKS_RE.match(key)
            if marks and "-" in marks.group(1):
                continue
            name = key[marks.end(1) :] if marks else key
            asserted_keys = {k: v for k, v in (asserted or {}).items() if not _MARKS_RE.match(str(k))}
            if "options" in asserted_keys:
                with_options.append((name, asserted_keys))
                continue
            cases.setdefault(name, {}).update(labels(asserted_keys))
            sources.setdefault(name, path.name)
        for name, asserted_keys in with_options:
            cases[name] = labels(asserted_keys) | cases.get(name, {})
            sources.setdefault(name, path.name)
    labelled = [
        {"corpus": "guessit-rules", "src": sources[name], "name": name, "expected": expected}
        for name, expected in cases.items()
        if expected
    ]
    write_corpus(out, labelled)


if __name__ == "__main__":
    main()
