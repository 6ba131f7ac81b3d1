"""Turn Radarr's parser test fixtures into a labelled file for bench/parse.py: films, not shows.

Run: python bench/radarr_cases.py RADARR_CHECKOUT OUT.json
RADARR_CHECKOUT is a checkout of Radarr (github.com/Radarr/Radarr, GPL-3.0); its NUnit fixtures in
src/NzbDrone.Core.Test/ParserTests are read as text, never built or run, with bench/sonarr_cases.py's reader
(Radarr forked Sonarr, and some quality names are Sonarr's with "Series" written "Movie"). Kept: film titles,
years (0 means none), quality (source, trash for a camera or telesync, and the resolution when the name writes
one: Radarr's quality otherwise guesses it) and audio languages (that the named ones are among those read, as
Radarr's test asserts). Names in attributes that span lines (alternative titles) are left out. The output
stays outside the repository.
"""

from __future__ import annotations

from pathlib import Path
import re
import sys
from typing import Any

from sonarr_cases import (
    FIXTURES,
    REMUX_RE,
    TV_WORD_RE,
    WRITTEN_RESOLUTION_RE,
    cases_by_method,
    language_labels,
)
from vocabulary import TRASH_SOURCES, write_corpus

# Title methods: the arguments after the name that are its title and year.
TITLE_METHODS = {
    "should_parse_movie_title": ("title",),
    "should_parse_movie_folder_name": ("title",),
    "should_parse_anime_movie_title": ("title", None, "year"),
    "should_parse_anime_movie_title_without_year": ("title",),
    "should_parse_german_movie": ("title", None, "year"),
    "should_parse_movie_year": ("year",),
}
# A test's description, a named argument the literal reader does not take.
_DESCRIPTION_RE = re.compile(r',\s*Description\s*=\s*"(?:[^"\\]|\\.)*"')
# Quality methods: should_parse_<source>[<height>p]_quality, a remux, a camera or a telesync.
_QUALITY_METHOD_RE = re.compile(
    r"should_parse_(webdl|webrip|bluray|hdtv|sdtv|dvdr?|remux|ts|cam)(\d{3,4})?p?(?:_as_bluray720p)?_quality|"
    r"should_parse_(ts|cam)"
)
QUALITY_SOURCES = {
    "webdl": "web-dl", "webrip": "webrip", "bluray": "bluray", "hdtv": "hdtv", "sdtv": "hdtv", "dvd": "dvd",
    "dvdr": "dvd", "remux": "remux", "ts": "telesync", "cam": "cam",
}  # fmt: skip


def fixture_text(path: Path) -> str:
    return _DESCRIPTION_RE.sub("", path.read_text(encoding="utf-8"))


def title_labels(fixture: str) -> dict[str, dict[str, Any]]:
    labels: dict[str, dict[str, Any]] = {}
    for method, rows in cases_by_method(fixture).items():
        for values in rows:
            label = labels.setdefault(values[0], {})
            if method == "should_not_parse_wrong_language_in_title":
                label["languages"] = []  # Radarr's "Unknown": no language
            for field, value in zip(TITLE_METHODS.get(method, ()), values[1:], strict=False):
                if field == "year":
                    label["year"] = value or None
                elif field == "title":
                    label["title"] = value
    return {name: label for name, label in labels.items() if label}


def quality_labels(fixture: str) -> dict[str, dict[str, Any]]:
    labels: dict[str, dict[str, Any]] = {}
    for method, rows in cases_by_method(fixture).items():
        if not (match := _QUALITY_METHOD_RE.fullmatch(method)):
            continue
        source = QUALITY_SOURCES[match.group(1) or match.group(3)]
        for values in rows:
            name = values[0]
            if source == "hdtv" and not TV_WORD_RE.search(name):
                continue  # Radarr's TV quality is also its guess for a name that names no source
            named = "remux" if source == "bluray" and REMUX_RE.search(name) else source
            label = labels.setdefault(name, {})
            label |= {"source": named, "trash": named in TRASH_SOURCES}
            if match.group(2) and WRITTEN_RESOLUTION_RE.search(name):
                height = int(match.group(2))
                label["resolution"] = "480p" if height <= 576 else f"{height}p"
    return labels


def main() -> None:
    checkout, out = Path(sys.argv[1]), Path(sys.argv[2])
    fixtures = checkout / FIXTURES
    labels: dict[str, dict[str, Any]] = {}
    for found in (
        title_labels(fixture_text(fixtures / "ParserFixture.cs")),
        quality_labels(fixture_text(fixtures / "QualityParserFixture.cs")),
        language_labels(fixture_text(fixtures / "LanguageParserFixture.cs")),
    ):
        for name, label in found.items():
            labels.setdefault(name, {}).update(label)
    cases = [{"corpus": "radarr", "name": name, "expected": label} for name, label in labels.items()]
    write_corpus(out, cases)


if __name__ == "__main__":
    main()
