"""Release names the parser used to misread (issue 10), rewritten with public-domain and CC titles.

"Pebble Garden" is a made-up Creative Commons show. Accuracy over many labelled names is measured by
bench/parse.py, not asserted here.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

import pytest

from custom_components.agent_media.release import (
    MAX_NAME_LENGTH,
    RESOLUTIONS,
    normalize_resolution,
    parse_release,
)

# (release name, the fields it must parse to)
CASES: list[tuple[str, dict[str, Any]]] = [
    # An audio tag that looks like a season: a film, not a show.
    (
        "Nosferatu (1922) [1080p] [WEB-DL] [x264] [E-AC3-S78]",
        {"title": "Nosferatu", "year": 1922, "resolution": "1080p", "source": "web-dl", "codec": "avc",
         "seasons": (), "episodes": (), "trash": False},
    ),
    # A transport-stream file of a TV capture is no telesync; an upper-case TS tag still is.
    ("Tears.of.Steel.2012.720p.HDTV.x264.ts", {"source": "hdtv", "trash": False}),
    ("Tears.of.Steel.2012.HDTV.TS.x264", {"source": "hdtv", "trash": False}),
    ("Tears.of.Steel.2012.TS.x264", {"source": "telesync", "trash": True}),
    # Pack words leave the title.
    (
        "Pebble.Garden.COMPLETE.S01-S07.720p.BluRay.x264",
        {"title": "Pebble Garden", "seasons": (1, 2, 3, 4, 5, 6, 7), "complete": True},
    ),
    ("Pebble.Garden.The.Complete.Series.1080p.WEB-DL", {"title": "Pebble Garden", "complete": True}),
    # Anime numbering and a season glued to its episode by a dash.
    (
        "[SubsPlease] Pebble Garden - 1071 (1080p) [ABCDEF12].mkv",
        {"title": "Pebble Garden", "episodes": (1071,), "seasons": (), "group": "SubsPlease"},
    ),
    ("[CCSubs] Pebble Garden 12 [720p]", {"title": "Pebble Garden", "episodes": (12,)}),
    ("[CCSubs] 03 - Pebble Garden [BD][720p][AAC].mp4", {"title": "Pebble Garden", "episodes": (3,)}),
    ("[CCSubs] Pebble Garden - 16-20 [720p]", {"title": "Pebble Garden", "episodes": (16, 17, 18, 19, 20)}),
    ("Pebble Garden S2-07 1080p WEB-DL", {"title": "Pebble Garden", "seasons": (2,), "episodes": (7,)}),
    ("[CCSubs] Pebble Garden - S2 - 01 [1080p].mkv", {"seasons": (2,), "episodes": (1,)}),
    # Spaces for dots.
    (
        "Sintel 2010 1080p WEB DL H 264 AAC2 0",
        {"title": "Sintel", "source": "web-dl", "codec": "avc", "audio": ("AAC", "2.0")},
    ),
    # CAMHD, HDTC and screeners are trash; BDremux is a remux.
    ("Sintel.2010.CAMHD.x264", {"title": "Sintel", "source": "cam", "trash": True}),
    ("Sintel.2010.HDTC.x264", {"source": "telecine", "trash": True}),
    ("Sintel.2010.BLURAY.SCR.XviD", {"source": "screener", "trash": True}),
    ("Sintel 2010 HD DVDScr XviD", {"source": "screener", "trash": True}),
    ("Sintel.2010.BDremux.1080p", {"source": "remux", "trash": False}),
    # Several episodes in one release.
    ("Pebble.Garden.S01E01+02.FRENCH.DVDRip.x264", {"episodes": (1, 2), "languages": ("fr",)}),
    ("Pebble.Garden.E01+02.720p.WEB-DL", {"episodes": (1, 2)}),
    ("Pebble Garden [06x01-08] 2017 HDTVRip", {"seasons": (6,), "episodes": (1, 2, 3, 4, 5, 6, 7, 8)}),
    ("Pebble.Garden.1x02x03x04.HDTV.XviD", {"seasons": (1,), "episodes": (2, 3, 4)}),
    ("Pebble.Garden.S01.E02.E03.720p", {"seasons": (1,), "episodes": (2, 3)}),
    # Seasons and episodes in words, in several languages.
    ("Pebble Garden Temporada 2 Capitulo 5", {"title": "Pebble Garden", "seasons": (2,), "episodes": (5,)}),
    ("Pebble.Garden.Staffel.2.Folge.5.German.1080p", {"episodes": (5,), "languages": ("de",)}),
    ("Pebble Garden Saison VII FRENCH BDRip", {"title": "Pebble Garden", "seasons": (7,)}),
    ("Pebble Garden 2 сезон 24 серия", {"seasons": (2,), "episodes": (24,)}),
    ("Pebble Garden Season 1, 2 & 3 720p", {"title": "Pebble Garden", "seasons": (1, 2, 3)}),
    ("Pebble.Garden.-.Temporada.1.720p.HDTV.x264[Cap.102_104]", {"seasons": (1,), "episodes": (2, 3, 4)}),
    ("Pebble.Garden.307.PDTV-CC", {"title": "Pebble Garden", "seasons": (3,), "episodes": (7,)}),
    ("Pebble.Garden.S2014E18.720p.HDTV", {"seasons": (2014,), "episodes": (18,), "year": 2014}),
    # Numbers that belong to film titles stay there.
    ("Plan.9.from.Outer.Space.1959.720p.BluRay.x264", {"title": "Plan 9 from Outer Space", "episodes": ()}),
    ("Sintel 2 1080p BluRay x264", {"title": "Sintel 2", "seasons": (), "episodes": ()}),
    ("Night.of.the.Living.Dead.1968.720p.HDTV.x264", {"seasons": (), "episodes": (), "source": "hdtv"}),
    # Asides, countries and language tags after a title.
    ("Nosferatu (Eine Symphonie des Grauens) 1922 1080p", {"title": "Nosferatu", "year": 1922}),
    ("The.General.US.1x03.HDTV", {"title": "The General", "seasons": (1,)}),
    ("Elephants.Dream.MULTi.1080p.BluRay", {"title": "Elephants Dream", "languages": ("multi",)}),
    ("The.General.1926.1080p.BluRay.x264-EN", {"languages": ()}),  # a group, not English audio
    ("Sintel.2010.ENG.720p.WEB-DL.sub.FR", {"languages": ("en",)}),
    ("The Italian Straw Hat 1928 1080p BluRay", {"title": "The Italian Straw Hat", "languages": ()}),
    # A source glued to its codec.
    ("Pebble.Garden.S01E02.HDTVx264-CC", {"source": "hdtv", "codec": "avc", "episodes": (2,)}),
    # A year in brackets is the release's; a year to come is part of the title.
    ("Sintel (2010) Making Of 2011", {"title": "Sintel", "year": 2010}),
    ("Sintel.2999.1080p.WEB-DL", {"title": "Sintel 2999", "year": None}),
    ("Big Buck Bunny (Blender, 2008) [Vhs.Rip]", {"title": "Big Buck Bunny", "year": 2008}),
]  # fmt: skip


@pytest.mark.parametrize(("name", "expected"), CASES, ids=[name for name, _ in CASES])
def test_parse(name: str, expected: dict[str, Any]) -> None:
    parsed = asdict(parse_release(name))
    assert {field: parsed[field] for field in expected} == expected


def test_overlong_names_are_clipped() -> None:
    name = "Sintel.2010.1080p.WEB-DL." + "x" * 100_000
    parsed = parse_release(name)
    assert parsed.resolution == "1080p"
    assert len(parsed.title) <= MAX_NAME_LENGTH


@pytest.mark.parametrize("name", ["", " ", "....", "[]", "()", "-", "2010", "x264", "第話"])
def test_odd_names_give_a_result(name: str) -> None:
    parsed = parse_release(name)
    assert parsed.resolution is None or parsed.resolution in RESOLUTIONS
    assert isinstance(parsed.title, str)


@pytest.mark.parametrize(
    ("said", "resolution"),
    [("4K", "2160p"), ("uhd", "2160p"), ("1080", "1080p"), ("720p", "720p"), ("576p", "480p"), ("big", None)],
)
def test_normalize_resolution(said: str, resolution: str | None) -> None:
    assert normalize_resolution(said) == resolution
