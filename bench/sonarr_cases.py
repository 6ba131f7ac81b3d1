"""Turn Sonarr's parser test fixtures into a labelled file for bench/parse.py.

Run: python bench/sonarr_cases.py SONARR_CHECKOUT OUT.json
SONARR_CHECKOUT is a checkout of Sonarr (github.com/Sonarr/Sonarr, GPL-3.0); the NUnit fixtures in
src/NzbDrone.Core.Test/ParserTests are read as text, never built or run. Kept: single and multi-episode
names (title, season, episodes), full-season packs (title, season), quality (source, and the resolution when
the name writes one: Sonarr's quality otherwise guesses it), and audio languages (that the named ones are
among those read, as Sonarr's test asserts). Sonarr writes a series' year into its
title ("Series Title 2010"); that year becomes the year label. The output stays outside the repository.
"""

from __future__ import annotations

import ast
from pathlib import Path
import re
import sys
from typing import Any

from vocabulary import LANGUAGE_WORDS, TRASH_SOURCES, write_corpus

FIXTURES = Path("src/NzbDrone.Core.Test/ParserTests")
_ATTRIBUTE_RE = re.compile(r"^\s*\[TestCase\((.*)\)\]\s*$")
_METHOD_RE = re.compile(r"public void (\w+)\(")
_VERBATIM_RE = re.compile(r'@"((?:[^"]|"")*)"')
# Methods whose cases number episodes the way a release name does (not absolute, special or daily numbers).
EPISODE_METHODS = {
    "SingleEpisodeParserFixture": {"should_parse_single_episode"},
    "MultiEpisodeParserFixture": {"should_parse_multiple_episodes"},
    "SeasonParserFixture": {"should_parse_full_season_release", "should_parse_multi_season_release"},
}
# Quality methods: should_parse_<source><height>[_remux]_quality.
_QUALITY_METHOD_RE = re.compile(r"should_parse_(webdl|webrip|bluray|hdtv|dvd)(\d{3,4})?p?(_remux)?_quality")
QUALITY_SOURCES = {"webdl": "web-dl", "webrip": "webrip", "bluray": "bluray", "hdtv": "hdtv", "dvd": "dvd"}
# A resolution the name writes itself; without one Sonarr's quality guesses a height.
WRITTEN_RESOLUTION_RE = re.compile(
    r"(?<![a-z0-9])(?:\d{3,4}[pi]|\d{3,4}x\d{3,4}|4k|uhd|2160|1080|720)", re.IGNORECASE
)
# Sonarr's HDTV quality is also its guess for a name without a source: only names that say TV are labelled.
TV_WORD_RE = re.compile(r"(?<![a-z0-9])(?:[hps]d[ .-]?tv|tv|dsr|sat[ .-]?rip|dvb)", re.IGNORECASE)
# Sonarr has no REMUX quality below 1080p: such a remux is labelled a remux, as the vocabulary has one.
REMUX_RE = re.compile(r"(?<![a-z0-9])remux(?![a-z0-9])", re.IGNORECASE)
_LANGUAGE_METHOD_RE = re.compile(r"should_parse_language_([a-z_]+)$")
_TRAILING_YEAR_RE = re.compile(r"^(.*\S)\s+\(?((?:19|20)\d{2})\)?$")


def literal(arguments: str) -> tuple[Any, ...] | None:
    """Read an attribute's C# arguments as Python values; None when one is not a literal (an enum)."""
    text = _VERBATIM_RE.sub(lambda match: repr(match.group(1).replace('""', '"')), arguments)
    text = re.sub(r"new\s*(?:int)?\[\]\s*\{", "[", text).replace("}", "]")
    text = re.sub(r"\btrue\b", "True", re.sub(r"\bfalse\b", "False", text))
    try:
        value = ast.literal_eval(f"({text},)")
    except (ValueError, SyntaxError):
        return None
    return value if isinstance(value, tuple) else None


def cases_by_method(source: str) -> dict[str, list[tuple[Any, ...]]]:
    found: dict[str, list[tuple[Any, ...]]] = {}
    pending: list[tuple[Any, ...]] = []
    for line in source.splitlines():
        if match := _ATTRIBUTE_RE.match(line):
            if (values := literal(match.group(1))) is not None:
                pending.append(values)
        elif match := _METHOD_RE.search(line):
            found.setdefault(match.group(1), []).extend(pending)
            pending = []
    return found


def title_and_year(title: str) -> dict[str, Any]:
    if match := _TRAILING_YEAR_RE.match(title):
        return {"title": match.group(1), "year": int(match.group(2))}
    return {"title": title}


def language_labels(fixture: str) -> dict[str, dict[str, Any]]:
    """Audio languages of a LanguageParserFixture (Sonarr's or Radarr's): should_parse_language_<names>."""
    labels: dict[str, dict[str, Any]] = {}
    for method, rows in cases_by_method(fixture).items():
        if not (match := _LANGUAGE_METHOD_RE.fullmatch(method)):
            continue
        words = match.group(1).split("_")
        if words == ["unknown"]:
            codes: list[str] = []
        elif all(word in LANGUAGE_WORDS for word in words):
            codes = sorted({LANGUAGE_WORDS[word] for word in words})
        else:
            continue
        for values in rows:
            label = labels.setdefault(values[0], {})
            label["languages"] = codes
            if codes:  # the test asserts these are among the languages read, not that they are all
                label["languages_contain"] = True
    return labels


def main() -> None:  # noqa: C901, PLR0912 - one branch per fixture
    checkout, out = Path(sys.argv[1]), Path(sys.argv[2])
    labels: dict[str, dict[str, Any]] = {}
    for fixture, methods in EPISODE_METHODS.items():
        found = cases_by_method((checkout / FIXTURES / f"{fixture}.cs").read_text(encoding="utf-8"))
        for method in methods:
            for values in found.get(method, []):
                name, title = values[0], values[1]
                label = labels.setdefault(name, {})
                if title:
                    label |= title_and_year(title)
                if fixture == "SeasonParserFixture":
                    if method == "should_parse_full_season_release":
                        label |= {"seasons": [values[2]], "episodes": []}
                elif fixture == "MultiEpisodeParserFixture":
                    label |= {"seasons": [values[2]], "episodes": sorted(values[3])}
                else:
                    label |= {"seasons": [values[2]], "episodes": [values[3]]}
    quality = cases_by_method((checkout / FIXTURES / "QualityParserFixture.cs").read_text(encoding="utf-8"))
    for method, rows in quality.items():
        if not (match := _QUALITY_METHOD_RE.fullmatch(method)):
            continue
        source = "remux" if match.group(3) else QUALITY_SOURCES[match.group(1)]
        for values in rows:
            if source == "hdtv" and not TV_WORD_RE.search(values[0]):
                continue
            named = "remux" if source == "bluray" and REMUX_RE.search(values[0]) else source
            label = labels.setdefault(values[0], {})
            label |= {"source": named, "trash": named in TRASH_SOURCES}
            if match.group(2) and WRITTEN_RESOLUTION_RE.search(values[0]):
                height = int(match.group(2))
                label["resolution"] = "480p" if height <= 576 else f"{height}p"
    fixture = (checkout / FIXTURES / "LanguageParserFixture.cs").read_text(encoding="utf-8")
    for name, label in language_labels(fixture).items():
        labels.setdefault(name, {}).update(label)
    cases = [{"corpus": "sonarr", "name": name, "expected": label} for name, label in labels.items()]
    write_corpus(out, cases)


if __name__ == "__main__":
    main()
