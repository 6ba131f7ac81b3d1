"""Release parsing and ranking on realistic synthetic names of public-domain and Creative Commons titles.

"Pebble Garden" is a made-up Creative Commons show; every hash is synthetic.
"""

from __future__ import annotations

from dataclasses import FrozenInstanceError, asdict
import hashlib
from typing import Any

import pytest

from custom_components.agent_media.ranking import (
    ParsedRelease,
    RankingPreferences,
    normalize_title,
    parse_release,
    rank_releases,
    title_similarity,
)
from custom_components.agent_media.safety import dangerous_name_extension

GB = 1_000_000_000
MB = 1_000_000
NOTLD = "Night of the Living Dead"

# (release name, the fields it must parse to; fields not listed are checked by other rows)
PARSE_TABLE: list[tuple[str, dict[str, Any]]] = [
    (
        "Night.of.the.Living.Dead.1968.1080p.BluRay.x264.FLAC.1.0-GROUP",
        {"title": NOTLD, "year": 1968, "resolution": "1080p", "source": "bluray", "codec": "avc", "hdr": (),
         "audio": ("FLAC", "1.0"), "languages": (), "seasons": (), "episodes": (), "complete": False,
         "group": "GROUP", "trash": False},
    ),
    (
        "Night of the Living Dead (1968) 720p WEBRip x264 AAC",
        {"title": NOTLD, "year": 1968, "resolution": "720p", "source": "webrip", "codec": "avc",
         "audio": ("AAC",), "group": None},
    ),
    (
        "Night.of.the.Living.Dead.1968.2160p.WEB-DL.DV.HDR10.HEVC.DDP5.1.Atmos-FLUX",
        {"title": NOTLD, "resolution": "2160p", "source": "web-dl", "codec": "hevc", "hdr": ("DV", "HDR10"),
         "audio": ("Atmos", "DD+", "5.1"), "group": "FLUX", "trash": False},
    ),
    (
        "Night.of.the.Living.Dead.1968.2160p.UHD.BluRay.REMUX.DV.HDR10.HEVC.TrueHD.7.1.Atmos-FRAMESTOR",
        {"resolution": "2160p", "source": "remux", "hdr": ("DV", "HDR10"),
         "audio": ("TrueHD", "Atmos", "7.1"), "group": "FRAMESTOR"},
    ),
    (
        "Night.of.the.Living.Dead.1968.HDCAM.x264-NoGrp",
        {"title": NOTLD, "year": 1968, "resolution": None, "source": "cam", "trash": True},
    ),
    (
        "Night.of.the.Living.Dead.1968.HDTS.720p.x264.AAC-TSGRP",
        {"source": "telesync", "resolution": "720p", "trash": True, "group": "TSGRP"},
    ),
    ("Night.of.the.Living.Dead.1968.TELESYNC.x264", {"source": "telesync", "trash": True}),
    ("Night.of.the.Living.Dead.1968.HDTC.x264-GRP", {"source": "telecine", "trash": True}),
    ("Night.of.the.Living.Dead.1968.DVDSCR.XviD-GRP", {"source": "screener", "codec": "xvid", "trash": True}),
    ("Night.of.the.Living.Dead.1968.WORKPRINT.x264", {"source": None, "trash": True}),
    (
        "Night.of.the.Living.Dead.1968.1080p.WEB-DL.x265.mkv.exe",
        {"title": NOTLD, "resolution": "1080p", "source": "web-dl", "codec": "hevc", "trash": True},
    ),
    (
        "Nosferatu.1922.RESTORED.1080p.BluRay.x264.FLAC.2.0",
        {"title": "Nosferatu", "year": 1922, "audio": ("FLAC", "2.0"), "group": None},
    ),
    (
        "The.General.1926.720p.BluRay.x264.DTS-HD.MA.2.0-GRP[rarbg]",
        {"title": "The General", "year": 1926, "audio": ("DTS-HD MA", "2.0"), "group": "GRP"},
    ),
    (
        "The.General.1926.GERMAN.DL.1080p.BluRay.x264-GRP",
        {"title": "The General", "languages": ("de",), "group": "GRP"},
    ),
    (
        "Sintel.2010.4K.WEB-DL.HDR10+.AV1.Opus.5.1-OPEN",
        {"title": "Sintel", "year": 2010, "resolution": "2160p", "codec": "av1", "hdr": ("HDR10+",),
         "audio": ("Opus", "5.1"), "group": "OPEN"},
    ),
    (
        "Elephants.Dream.2006.3840x2160.WEB.h265-X",
        {"title": "Elephants Dream", "resolution": "2160p", "source": "web-dl", "codec": "hevc",
         "group": "X"},
    ),
    (
        "Elephants.Dream.2006.1080p.WEBRip.DTS-X.7.1.x264",
        {"audio": ("DTS-X", "7.1"), "source": "webrip"},
    ),
    (
        "Elephants.Dream.2006.576p.DVDRip.AC3.XviD",
        {"resolution": "480p", "source": "dvd", "audio": ("DD",), "codec": "xvid"},
    ),
    (
        "[YTS.MX] Tears of Steel (2012) [1080p] [BluRay] [5.1]",
        {"title": "Tears of Steel", "year": 2012, "resolution": "1080p", "source": "bluray", "group": None},
    ),
    (
        "www.example.org - Tears.of.Steel.2012.720p.HDTV.x264",
        {"title": "Tears of Steel", "year": 2012, "source": "hdtv"},
    ),
    (
        "Big.Buck.Bunny.2008.MULTi.1080p.BluRay.x264-FRENCH",
        {"title": "Big Buck Bunny", "languages": ("multi", "fr"), "group": None},
    ),
    (
        "Big.Buck.Bunny.2008.iTA.720p.WEBRip.x264-ITAGRP",
        {"languages": ("it",), "group": "ITAGRP"},
    ),
    (
        "Big Buck Bunny 2008 1080p BluRay x264 Dual-Audio English Japanese",
        {"languages": ("dual", "en", "ja")},
    ),
    (
        "Pebble.Garden.S01E02.1080p.WEB-DL.DDP5.1.H.264-CCGRP",
        {"title": "Pebble Garden", "year": None, "seasons": (1,), "episodes": (2,), "codec": "avc",
         "audio": ("DD+", "5.1"), "complete": False},
    ),
    (
        "Pebble.Garden.S01.1080p.WEB-DL.x265-CCGRP",
        {"title": "Pebble Garden", "seasons": (1,), "episodes": ()},
    ),
    (
        "Pebble Garden Season 1-3 Complete 720p HDTV x264",
        {"title": "Pebble Garden", "seasons": (1, 2, 3), "episodes": (), "complete": True},
    ),
    (
        "Pebble.Garden.S01-S03.COMPLETE.1080p.BluRay.x264",
        {"title": "Pebble Garden", "seasons": (1, 2, 3), "complete": True},
    ),
    ("Pebble.Garden.S02E01E02.720p.HDTV.x264-CC", {"seasons": (2,), "episodes": (1, 2)}),
    ("Pebble.Garden.S02E01-E04.720p.HDTV.x264-CC", {"seasons": (2,), "episodes": (1, 2, 3, 4)}),
    ("Pebble.Garden.1x05.480p.DVDRip.XviD", {"title": "Pebble Garden", "seasons": (1,), "episodes": (5,)}),
    ("Pebble.Garden.2019.S03E07.1080p.WEB-DL", {"title": "Pebble Garden", "year": 2019, "seasons": (3,)}),
    (
        "[SubsPlease] Pebble Garden - 12v2 (1080p) [ABCDEF12].mkv",
        {"title": "Pebble Garden", "episodes": (12,), "seasons": (), "group": "SubsPlease",
         "resolution": "1080p"},
    ),
    # Years inside titles, and a title word that is also a source.
    ("Sintel.2049.2010.1080p.BluRay.x264", {"title": "Sintel 2049", "year": 2010}),
    ("1968.2012.1080p.WEB-DL", {"title": "1968", "year": 2012}),
    ("Charlottes.Web.2006.1080p", {"title": "Charlottes Web", "source": None}),
    # No year and no resolution: the source ends the title.
    ("Sintel HDTS x264", {"title": "Sintel", "source": "telesync", "trash": True}),
]  # fmt: skip


@pytest.mark.parametrize(("name", "expected"), PARSE_TABLE, ids=[name for name, _ in PARSE_TABLE])
def test_parse_release(name: str, expected: dict[str, Any]) -> None:
    parsed = asdict(parse_release(name))
    assert {field: parsed[field] for field in expected} == expected


def test_parsed_release_is_frozen() -> None:
    parsed = parse_release("Sintel.2010.1080p.BluRay.x264-OPEN")
    assert isinstance(parsed, ParsedRelease)
    with pytest.raises(FrozenInstanceError):
        parsed.title = "other"  # type: ignore[misc]


@pytest.mark.parametrize(
    ("name", "extension"),
    [
        ("Night.of.the.Living.Dead.1968.1080p.WEB-DL.x265.mkv.exe", "exe"),
        ("Sintel.2010.1080p.mkv.lnk", "lnk"),
        ("Sintel.2010.1080p.BluRay.scr", "scr"),
        ("Sintel.2010.1080p.BluRay.x264.mkv", None),
        ("Sintel.2010.1080p.BluRay.x264-OPEN", None),
    ],
)
def test_dangerous_extension(name: str, extension: str | None) -> None:
    assert dangerous_name_extension(name) == extension


@pytest.mark.parametrize(
    ("wanted", "candidate"),
    [
        ("Sintel: Part Two", "Sintel Part 2"),
        ("Sintel: Part Two", "Sintel II"),
        ("Big Buck Bunny & Friends", "Big.Buck.Bunny.and.Friends"),
        ("Night of the Living Dead", "NIGHT OF THE LIVING DEAD"),
        ("The General", "General"),
        ("Tears of Steel", "Téars of Steel"),
        ("Elephants Dream", "Elephant's Dream"),
    ],
)
def test_titles_that_match(wanted: str, candidate: str) -> None:
    assert title_similarity(wanted, candidate) >= 0.85


@pytest.mark.parametrize(
    ("wanted", "candidate"),
    [
        ("Sintel: Part Two", "Sintel"),
        (NOTLD, "Return of the Living Dead"),
        (NOTLD, "Dawn of the Dead"),
        ("Big Buck Bunny", "Tears of Steel"),
    ],
)
def test_titles_that_differ(wanted: str, candidate: str) -> None:
    assert title_similarity(wanted, candidate) < 0.85


def test_normalize_title() -> None:
    assert normalize_title("Sintel: Part Two") == normalize_title("Sintel.2") == "sintel 2"
    assert normalize_title("The General & Co.") == "general and co"


# ---------------------------------------------------------------------------------------------------------


def hit(title: str, size: float, seeders: int, *, virus_score: float | None = 0.1) -> dict[str, Any]:
    """A search result shaped like TorrentResult.as_dict(), with a synthetic hash."""
    info_hash = hashlib.sha1(title.encode(), usedforsecurity=False).hexdigest()
    return {
        "title": title,
        "info_hash": info_hash,
        "magnet": f"magnet:?xt=urn:btih:{info_hash}",
        "torrent_url": None,
        "size": int(size),
        "seeders": seeders,
        "peers": seeders // 10,
        "tracker": "Example",
        "category_ids": [3001000],
        "virus_score": virus_score,
        "published": "2021-04-16T10:21:00+00:00",
    }


BLURAY_1080 = hit("Night.of.the.Living.Dead.1968.1080p.BluRay.x264.FLAC.1.0-GROUP", 8.8 * GB, 184)
WEBRIP_720 = hit("Night of the Living Dead (1968) 720p WEBRip x264 AAC", 1.13 * GB, 64)
WEBDL_2160 = hit("Night.of.the.Living.Dead.1968.2160p.WEB-DL.DV.HDR10.HEVC.DDP5.1.Atmos-FLUX", 18 * GB, 850)
REMUX_2160 = hit(
    "Night.of.the.Living.Dead.1968.2160p.UHD.BluRay.REMUX.DV.HDR10.HEVC.TrueHD.7.1.Atmos-FRAMESTOR",
    62 * GB,
    120,
)
DV_ONLY_2160 = hit("Night.of.the.Living.Dead.1968.2160p.WEB-DL.DV.HEVC-DVONLY", 18 * GB, 850)
GOOD_MOVIES = [WEBRIP_720, REMUX_2160, BLURAY_1080, WEBDL_2160]

# (result, the reason it is rejected for a 1968 "Night of the Living Dead" movie request)
MOVIE_REJECTIONS: list[tuple[dict[str, Any], str]] = [
    (hit("Night.of.the.Living.Dead.1968.HDCAM.x264-NoGrp", 1.4 * GB, 500), "CAM copy (filmed or pre-release"),
    (hit("Night.of.the.Living.Dead.1968.HDTS.720p.x264-TSGRP", 1.4 * GB, 500), "telesync copy"),
    (hit("Night.of.the.Living.Dead.1968.DVDSCR.XviD-GRP", 1.4 * GB, 500), "screener copy"),
    (
        hit("Night.of.the.Living.Dead.1968.1080p.WEB-DL.x265.mkv.exe", 2 * GB, 900),
        "fake: the name ends in .exe",
    ),
    (hit("Night.of.the.Living.Dead.1990.1080p.BluRay.x264-REMAKE", 9 * GB, 300), "year 1990, wanted 1968"),
    (
        hit("Return.of.the.Living.Dead.1985.1080p.BluRay.x264-GRP", 9 * GB, 300),
        'title "Return of the Living Dead" does not match "Night of the Living Dead"',
    ),
    (
        hit("Night.of.the.Living.Dead.S01E01.1080p.WEB-DL.x264-TV", 2 * GB, 200),
        "a TV release (S01E01), wanted a movie",
    ),
    (hit("Night.of.the.Living.Dead.1968.1080p.WEB-DL.x264-FEW", 4 * GB, 2), "only 2 seeders (minimum 3)"),
    (hit("Night.of.the.Living.Dead.1968.1080p.WEB-DL.x264-ONE", 4 * GB, 1), "only 1 seeder (minimum 3)"),
    (hit("Night.of.the.Living.Dead.1968.1080p.WEB-DL.x264-DEAD", 4 * GB, 0), "no seeders (minimum 3)"),
    (
        hit("Night.of.the.Living.Dead.1968.1080p.WEB-DL.x264-VIR", 4 * GB, 200, virus_score=0.8),
        "flagged as a possible virus (score 0.80)",
    ),
    (
        hit("Night.of.the.Living.Dead.1968.1080p.WEB-DL.x264-VIR", 4 * GB, 200, virus_score=0.5),
        "flagged as a possible virus (score 0.50)",
    ),
    (
        hit("Night.of.the.Living.Dead.1968.2160p.WEB-DL.HEVC-TINY", 900 * MB, 300),
        "2160p at 900 MB is too small to be real",
    ),
    (
        hit("Night.of.the.Living.Dead.1968.2160p.BluRay.HEVC-HUGE", 160 * GB, 300),
        "2160p at 160 GB is implausibly large",
    ),
    (
        hit("Night.of.the.Living.Dead.1968.480p.DVDRip.XviD-SMALL", 90 * MB, 300),
        "480p at 90 MB is too small to be real",
    ),
    (hit("Night.of.the.Living.Dead.1968.WEB-DL.x264-NORES", 50 * MB, 300), "a release at 50 MB is too small"),
    (hit("", 4 * GB, 300), "no release name"),
]  # fmt: skip


def rank_movie(
    results: list[dict[str, Any]], preferences: RankingPreferences | None = None, **kwargs: Any
) -> tuple[list[str], dict[str, str]]:
    ranked, rejected = rank_releases(
        results, title=NOTLD, year=1968, preferences=preferences or RankingPreferences(), **kwargs
    )
    assert len(ranked) + len(rejected) == len(results)
    return [release.result["title"] for release in ranked], {r.result["title"]: r.reason for r in rejected}


def test_default_order_prefers_1080p_then_the_best_of_the_rest() -> None:
    order, rejected = rank_movie(GOOD_MOVIES)
    assert rejected == {}
    assert order == [BLURAY_1080["title"], WEBDL_2160["title"], REMUX_2160["title"], WEBRIP_720["title"]]


def test_requested_2160p_comes_first_and_fallbacks_say_so() -> None:
    ranked, _ = rank_releases(
        GOOD_MOVIES, title=NOTLD, year=1968, preferences=RankingPreferences(resolution="4K")
    )
    assert [release.result["title"] for release in ranked] == [
        WEBDL_2160["title"],  # the 62 GB remux loses on size and seeders within the 2160p tier
        REMUX_2160["title"],
        BLURAY_1080["title"],
        WEBRIP_720["title"],
    ]
    assert ranked[0].reason == "2160p WEB-DL DV HDR10 HEVC, 850 seeders, 18 GB"
    assert ranked[1].reason == "2160p REMUX DV HDR10 HEVC, 120 seeders, 62 GB"
    assert ranked[2].reason == "1080p BluRay AVC, 184 seeders, 8.8 GB; not the 2160p asked for"
    assert ranked[3].reason == "720p WEBRip AVC, 64 seeders, 1.1 GB; not the 2160p asked for"
    assert ranked[0].score > ranked[1].score > ranked[2].score > ranked[3].score
    assert ranked[0].parsed == parse_release(WEBDL_2160["title"])


def test_requested_720p_falls_back_to_lower_before_higher() -> None:
    sd = hit("Night.of.the.Living.Dead.1968.480p.DVDRip.XviD-SD", 1.2 * GB, 40)
    order, _ = rank_movie([BLURAY_1080, sd, WEBDL_2160], RankingPreferences(resolution="720p"))
    assert order == [sd["title"], BLURAY_1080["title"], WEBDL_2160["title"]]


@pytest.mark.parametrize(("result", "reason"), MOVIE_REJECTIONS, ids=[r for _, r in MOVIE_REJECTIONS])
def test_movie_rejections(result: dict[str, Any], reason: str) -> None:
    order, rejected = rank_movie([result, BLURAY_1080])
    assert order == [BLURAY_1080["title"]]
    assert rejected[result["title"]].startswith(reason)


def test_rejections_keep_the_result_as_given() -> None:
    cam = MOVIE_REJECTIONS[0][0]
    _, rejected = rank_releases([cam], title=NOTLD, year=1968)
    assert rejected[0].result == cam
    assert rejected[0].result is not cam  # a copy: callers may keep it in memory


def test_virus_score_below_limit_or_unknown_passes() -> None:
    low = hit("Night.of.the.Living.Dead.1968.1080p.WEB-DL.x264-LOW", 4 * GB, 200, virus_score=0.49)
    unknown = hit("Night.of.the.Living.Dead.1968.720p.WEB-DL.x264-UNK", 2 * GB, 200, virus_score=None)
    order, rejected = rank_movie([low, unknown])
    assert rejected == {}
    assert order == [low["title"], unknown["title"]]


def test_year_off_by_one_is_accepted_and_missing_year_ranks_lower() -> None:
    off_by_one = hit("Night.of.the.Living.Dead.1969.1080p.BluRay.x264-OFF", 8.8 * GB, 184)
    no_year = hit("Night.of.the.Living.Dead.1080p.BluRay.x264-NOYEAR", 8.8 * GB, 184)
    order, rejected = rank_movie([no_year, off_by_one])
    assert rejected == {}
    assert order == [off_by_one["title"], no_year["title"]]


def test_alternative_titles_match_the_original_title() -> None:
    original = hit("Nosferatu.Eine.Symphonie.des.Grauens.1922.1080p.BluRay.x264-GRP", 7 * GB, 90)
    ranked, rejected = rank_releases([original], title="Nosferatu", year=1922)
    assert ranked == []
    assert rejected[0].reason.startswith('title "Nosferatu Eine Symphonie des Grauens" does not match')
    ranked, _ = rank_releases(
        [original], title="Nosferatu", year=1922, alternative_titles=["Nosferatu, eine Symphonie des Grauens"]
    )
    assert [release.result["title"] for release in ranked] == [original["title"]]


def test_a_title_that_starts_with_a_year_keeps_it() -> None:
    """The parser reads "1900.Lanterns.1080p" as a film of 1900; the wanted title says the year is its own."""
    dated = hit("1900.Lanterns.1931.1080p.BluRay.x264-GRP", 8 * GB, 100)
    undated = hit("1900.Lanterns.1080p.BluRay.x264-GRP", 8 * GB, 100)
    other = hit("2010.Sintel.1080p.BluRay.x264-GRP", 8 * GB, 100)
    ranked, rejected = rank_releases([undated, dated, other], title="1900 Lanterns", year=1931)
    assert [release.result["title"] for release in ranked] == [dated["title"], undated["title"]]
    assert ranked[1].parsed.title == "1900 Lanterns"
    assert ranked[1].parsed.year is None
    assert [rejection.result["title"] for rejection in rejected] == [other["title"]]


def test_missing_fields_are_tolerated() -> None:
    bare = {"title": "Night.of.the.Living.Dead.1968.1080p.BluRay.x264-BARE", "seeders": "12"}
    ranked, rejected = rank_releases([bare, {"title": None}], title=NOTLD, year=1968)
    assert rejected[0].reason == "no release name"
    assert ranked[0].reason == "1080p BluRay AVC, 12 seeders"  # no size claimed: no size filter, none shown


def test_no_title_or_year_skips_those_filters() -> None:
    ranked, rejected = rank_releases([BLURAY_1080, hit("Sintel.2010.1080p.BluRay.x264-OPEN", 3 * GB, 50)])
    assert rejected == []
    assert len(ranked) == 2


def test_seeders_count_logarithmically_and_break_ties() -> None:
    many = hit("Night.of.the.Living.Dead.1968.1080p.BluRay.x264-MANY", 8 * GB, 2000)
    some = hit("Night.of.the.Living.Dead.1968.1080p.BluRay.x264-SOME", 8 * GB, 200)
    webrip = hit("Night.of.the.Living.Dead.1968.1080p.WEBRip.x264-RIP", 8 * GB, 2500)
    few = hit("Night.of.the.Living.Dead.1968.1080p.BluRay.x264-FEW", 8 * GB, 5)
    # A BluRay with 200 seeders beats a WEBRip with 2,500; with only 5 it does not.
    order, _ = rank_movie([few, webrip, some, many])
    assert order == [many["title"], some["title"], webrip["title"], few["title"]]


def test_dolby_vision_with_hdr10_fallback_beats_dolby_vision_only() -> None:
    order, _ = rank_movie([DV_ONLY_2160, WEBDL_2160], RankingPreferences(resolution="2160p"))
    assert order == [WEBDL_2160["title"], DV_ONLY_2160["title"]]


def test_sdr_2160p_ranks_below_hdr_2160p() -> None:
    sdr = hit("Night.of.the.Living.Dead.1968.2160p.WEB-DL.HEVC-SDR", 18 * GB, 850)
    order, _ = rank_movie([sdr, DV_ONLY_2160], RankingPreferences(resolution="2160p"))
    assert order == [DV_ONLY_2160["title"], sdr["title"]]


def test_codec_preference() -> None:
    avc = hit("Night.of.the.Living.Dead.1968.1080p.BluRay.x264-AVC", 8 * GB, 300)
    hevc = hit("Night.of.the.Living.Dead.1968.1080p.WEBRip.x265-HEVC", 8 * GB, 300)
    assert rank_movie([hevc, avc])[0] == [avc["title"], hevc["title"]]  # BluRay outranks WEBRip
    assert rank_movie([avc, hevc], RankingPreferences(codec="x265"))[0] == [hevc["title"], avc["title"]]


def test_max_size_is_a_limit_and_sizes_near_the_target_win() -> None:
    big = hit("Night.of.the.Living.Dead.1968.1080p.BluRay.x264-BIG", 16 * GB, 300)
    mid = hit("Night.of.the.Living.Dead.1968.1080p.BluRay.x264-MID", 8 * GB, 300)
    small = hit("Night.of.the.Living.Dead.1968.1080p.BluRay.x264-SMALL", 5 * GB, 300)
    assert rank_movie([small, big, mid])[0] == [mid["title"], small["title"], big["title"]]
    order, rejected = rank_movie([mid, big, small], RankingPreferences(max_size_bytes=10 * GB))
    assert order == [mid["title"], small["title"]]
    assert rejected == {big["title"]: "16 GB is over the 10 GB limit"}
    order, rejected = rank_movie([mid, big, small], RankingPreferences(max_size_bytes=6 * GB))
    assert order == [small["title"]]
    assert rejected[mid["title"]] == "8.0 GB is over the 6.0 GB limit"


def test_min_seeders_is_configurable() -> None:
    rare = hit("Night.of.the.Living.Dead.1968.1080p.BluRay.x264-RARE", 8 * GB, 1)
    assert rank_movie([rare])[0] == []
    assert rank_movie([rare], RankingPreferences(min_seeders=1))[0] == [rare["title"]]


def test_language_preference() -> None:
    french = hit("Night.of.the.Living.Dead.1968.FRENCH.1080p.BluRay.x264-FR", 8 * GB, 50)
    multi = hit("Night.of.the.Living.Dead.1968.MULTi.1080p.BluRay.x264-MUL", 8 * GB, 50)
    italian = hit("Night.of.the.Living.Dead.1968.iTA.1080p.BluRay.x264-IT", 8 * GB, 900)
    plain = hit("Night.of.the.Living.Dead.1968.1080p.BluRay.x264-EN", 8 * GB, 50)

    ranked, rejected = rank_releases(
        [plain, italian, multi, french],
        title=NOTLD,
        year=1968,
        preferences=RankingPreferences(languages=("French",)),
    )
    assert [release.result["title"] for release in ranked] == [
        french["title"],
        multi["title"],
        plain["title"],
    ]
    assert ranked[0].reason.endswith("; French audio")
    assert ranked[1].reason.endswith("; multi-language")
    assert [(r.result["title"], r.reason) for r in rejected] == [
        (italian["title"], "audio in Italian only, you prefer French")
    ]

    # Without a preference a foreign-only release (probably a dub) drops below the plain one.
    order, rejected_names = rank_movie([italian, plain])
    assert rejected_names == {}
    assert order == [plain["title"], italian["title"]]


def test_ranking_100_results_is_consistent() -> None:
    results = [
        hit(f"Night.of.the.Living.Dead.1968.1080p.BluRay.x264-G{index}", 8 * GB, 10 + index)
        for index in range(100)
    ]
    ranked, rejected = rank_releases(results, title=NOTLD, year=1968)
    assert rejected == []
    assert [release.result["seeders"] for release in ranked] == list(range(109, 9, -1))


# --- TV: a made-up Creative Commons show ------------------------------------------------------------------

SHOW = "Pebble Garden"
S01_PACK = hit("Pebble.Garden.S01.1080p.WEB-DL.x265-CCGRP", 18 * GB, 120)
S01_PACK_720 = hit("Pebble.Garden.S01.720p.HDTV.x264-CCGRP", 6 * GB, 80)
S01E02 = hit("Pebble.Garden.S01E02.1080p.WEB-DL.DDP5.1.H.264-CCGRP", 2 * GB, 300)
S01E03 = hit("Pebble.Garden.S01E03.1080p.WEB-DL.DDP5.1.H.264-CCGRP", 2 * GB, 300)
S02E02 = hit("Pebble.Garden.S02E02.1080p.WEB-DL.DDP5.1.H.264-CCGRP", 2 * GB, 300)
S01_S03 = hit("Pebble.Garden.S01-S03.COMPLETE.1080p.BluRay.x264-CCGRP", 60 * GB, 40)
NO_MARKER = hit("Pebble.Garden.2019.1080p.WEB-DL.x264-CCGRP", 2 * GB, 300)
OLD_YEAR = hit("Pebble.Garden.2001.S01E02.1080p.WEB-DL.x264-OLD", 2 * GB, 300)
TV_RESULTS = [S01E02, S02E02, NO_MARKER, S01_S03, S01_PACK_720, S01E03, S01_PACK, OLD_YEAR]


def rank_tv(season: int | None, episode: int | None) -> tuple[list[str], dict[str, str], list[str]]:
    ranked, rejected = rank_releases(
        TV_RESULTS, title=SHOW, year=2019, media_type="tv", season=season, episode=episode
    )
    return (
        [release.result["title"] for release in ranked],
        {r.result["title"]: r.reason for r in rejected},
        [release.reason for release in ranked],
    )


def test_season_request_prefers_season_packs() -> None:
    order, rejected, reasons = rank_tv(1, None)
    assert order == [
        S01_PACK["title"],  # the pack of the season, 1080p
        S01_PACK_720["title"],  # a pack at a lower resolution still beats single episodes
        S01_S03["title"],  # holds the season, but three of them
        S01E02["title"],
        S01E03["title"],
    ]
    assert reasons[0] == "1080p WEB-DL HEVC, 120 seeders, 18 GB; season pack"
    assert reasons[2].endswith("; multi-season pack")
    assert reasons[3].endswith("; single episode")
    assert rejected == {
        S02E02["title"]: "S02E02, wanted season 1",
        NO_MARKER["title"]: "no season or episode in the name",
        OLD_YEAR["title"]: "year 2001, wanted 2019",
    }


def test_episode_request_prefers_the_exact_episode() -> None:
    order, rejected, reasons = rank_tv(1, 2)
    assert order == [S01E02["title"], S01_PACK["title"], S01_PACK_720["title"], S01_S03["title"]]
    assert reasons[0] == "1080p WEB-DL AVC, 300 seeders, 2.0 GB; single episode"
    assert reasons[1].endswith("; season pack holding the episode")
    assert rejected[S01E03["title"]] == "S01E03, wanted S01E02"
    assert rejected[S02E02["title"]] == "S02E02, wanted season 1"


def test_whole_show_request_prefers_the_biggest_pack() -> None:
    order, _, _ = rank_tv(None, None)
    assert order[:3] == [S01_S03["title"], S01_PACK["title"], S01_PACK_720["title"]]


def test_later_years_are_fine_for_a_show() -> None:
    later = hit("Pebble.Garden.2023.S05E01.1080p.WEB-DL.x264-CCGRP", 2 * GB, 50)
    ranked, rejected = rank_releases([later], title=SHOW, year=2019, media_type="tv", season=5, episode=1)
    assert rejected == []
    assert [release.result["title"] for release in ranked] == [later["title"]]


def test_tv_sizes_are_judged_per_episode_and_per_pack() -> None:
    tiny_episode = hit("Pebble.Garden.S01E02.1080p.WEB-DL.x264-TINY", 80 * MB, 50)
    huge_episode = hit("Pebble.Garden.S01E02.1080p.WEB-DL.x264-HUGE", 25 * GB, 50)
    big_pack = hit("Pebble.Garden.S01.1080p.BluRay.REMUX.AVC-PACK", 250 * GB, 50)
    _, rejected = rank_releases(
        [tiny_episode, huge_episode, big_pack], title=SHOW, media_type="tv", season=1, episode=2
    )
    assert [r.reason for r in rejected] == [
        "1080p at 80 MB is too small to be real",
        "1080p at 25 GB is implausibly large",
    ]


def test_anime_absolute_episode() -> None:
    anime = hit("[SubsPlease] Pebble Garden - 12 (1080p) [ABCDEF12].mkv", 1.4 * GB, 700)
    other = hit("[SubsPlease] Pebble Garden - 13 (1080p) [ABCDEF13].mkv", 1.4 * GB, 700)
    ranked, rejected = rank_releases([anime, other], title=SHOW, media_type="tv", episode=12)
    assert [release.result["title"] for release in ranked] == [anime["title"]]
    assert [r.reason for r in rejected] == ["episode 13, wanted episode 12"]


def test_preferences_are_frozen_with_sensible_defaults() -> None:
    preferences = RankingPreferences()
    assert preferences == RankingPreferences(
        resolution=None, max_size_bytes=None, codec=None, languages=(), min_seeders=3
    )
    with pytest.raises(FrozenInstanceError):
        preferences.min_seeders = 1  # type: ignore[misc]
