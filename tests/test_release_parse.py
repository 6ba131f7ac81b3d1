"""Release names the parser used to misread (issue 10), rewritten with public-domain and CC titles.

"Pebble Garden" is a made-up Creative Commons show. Accuracy over many labelled names is measured by
bench/parse.py, not asserted here.
"""

from __future__ import annotations

from dataclasses import asdict
import re
import re._constants as sre  # the parse tree of a pattern, to check its hints
import re._parser as sre_parse
from typing import Any

import pytest

from custom_components.agent_media.release import (
    MAX_NAME_LENGTH,
    RESOLUTIONS,
    normalize_resolution,
    parse_release,
    scan,
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

# Forms issue 21 asked for: names the parser was not developed on read the same way.
GENERAL_CASES: list[tuple[str, dict[str, Any]]] = [
    # Season and episode words in other languages, plurals, and numbers before them.
    ("Pioneer One Temporadas 1 2 3", {"title": "Pioneer One", "seasons": (1, 2, 3), "episodes": ()}),
    ("Pioneer One Staffeln 1-3", {"title": "Pioneer One", "seasons": (1, 2, 3)}),
    ("Pioneer One Stagioni 1-3 ITA", {"title": "Pioneer One", "seasons": (1, 2, 3), "languages": ("it",)}),
    ("Pioneer One 2 Temporada 720p", {"title": "Pioneer One", "seasons": (2,)}),
    ("Pioneer One Stagione 2 Puntata 4", {"seasons": (2,), "episodes": (4,)}),
    ("Pioneer One Temporada 1 Episódio 3", {"seasons": (1,), "episodes": (3,)}),
    ("Pioneer One Capitulos 1 al 10", {"title": "Pioneer One", "episodes": tuple(range(1, 11))}),
    ("Pioneer One Folgen 1-5", {"title": "Pioneer One", "episodes": (1, 2, 3, 4, 5)}),
    ("Pioneer One Saison 2 Épisodes 1 à 5", {"seasons": (2,), "episodes": (1, 2, 3, 4, 5)}),
    ("Pioneer One Seizoen 2 Afl.3", {"seasons": (2,), "episodes": (3,)}),
    ("Pioneer One. Сезон №2. Серия №18", {"seasons": (2,), "episodes": (18,)}),
    ("Pioneer One (08.seriya) 2010 WEB-DLRip", {"episodes": (8,)}),
    ("Pioneer One 3iz6 DVDRip", {"episodes": (3,)}),
    # Season lists, chains, and an episode after a season word.
    ("Pioneer One Season 1, 2, & 3", {"title": "Pioneer One", "seasons": (1, 2, 3)}),
    ("Pioneer.One.S01-S02-S03.720p", {"title": "Pioneer One", "seasons": (1, 2, 3)}),
    ("[CC] Pioneer One Season 2 - 08 [720p]", {"title": "Pioneer One", "seasons": (2,), "episodes": (8,)}),
    ("Pioneer One Season 1 - 3 720p", {"seasons": (1, 2, 3), "episodes": ()}),
    ("Pioneer One S02 03.mkv", {"title": "Pioneer One", "seasons": (2,), "episodes": (3,)}),
    ("Pioneer One S01 720 HDTV", {"seasons": (1,), "episodes": ()}),
    ("Pioneer One 1ª a 8ª Temporada Completa", {"title": "Pioneer One", "seasons": tuple(range(1, 9))}),
    ("Pioneer One 1-3 Seasons 720p", {"title": "Pioneer One", "seasons": (1, 2, 3)}),
    # A season and an episode around a dot, set apart; audio channels stay audio.
    ("Pioneer One - 6.01 - The Signal.mkv", {"title": "Pioneer One", "seasons": (6,), "episodes": (1,)}),
    ("Pioneer One [5.134] The Signal.mp4", {"seasons": (5,), "episodes": (134,)}),
    ("Pioneer One - Episode 1.22 - The Signal.avi", {"seasons": (1,), "episodes": (22,)}),
    ("Sintel 2010 1080p DD 5.1 x264", {"seasons": (), "episodes": (), "audio": ("DD", "5.1")}),
    # Episode ranges: spaced, in words, with the season repeated; a smaller number or a word is no range.
    ("[CCSubs] Pioneer One - 01 ~ 12 [1080p]", {"episodes": tuple(range(1, 13))}),
    ("Pioneer One S01 E01 à E12 FRENCH", {"episodes": tuple(range(1, 13)), "languages": ("fr",)}),
    ("Pioneer One 2x09-2x10 HDTV", {"seasons": (2,), "episodes": (9, 10)}),
    ("Pioneer.One.S01E12-31st.Century.720p", {"episodes": (12,)}),
    ("Pioneer.One.S01E12-3.Acts.720p", {"episodes": (12,)}),
    ("Pioneer.One.S01E01-E04.720p", {"episodes": (1, 2, 3, 4)}),
    # A group's episode after the year; one number for a season and an episode before a resolution.
    ("[CCSubs] Pioneer One (2010) - 35 (720p) [ABCDEF12].mkv", {"title": "Pioneer One", "episodes": (35,)}),
    ("Pioneer.One.113.720p.HDTV.x264", {"title": "Pioneer One", "seasons": (1,), "episodes": (13,)}),
    ("Night.of.the.Living.Dead.2049.720p.HDTV", {"seasons": (), "episodes": ()}),
    # Aliases: the first title in Latin letters.
    ("Sintel AKA Durian 2010 1080p BluRay", {"title": "Sintel", "year": 2010}),
    ("Sintel a.k.a. Durian (2010) 720p", {"title": "Sintel", "year": 2010}),
    ("Синтел / Sintel (2010) BDRip 1080p", {"title": "Sintel", "year": 2010, "source": "bluray"}),
    ("Синтел (Sintel) 2010 BDRip 1080p", {"title": "Sintel"}),
    # Names made only of brackets have their title in one of them; a bracketed source after a group is read.
    ("[CC][动画][Pioneer One][2019][17][AVC]", {"title": "Pioneer One", "year": 2019, "episodes": (17,)}),
    ("【CC字幕组】★01月新番★[Sintel][01][720p]", {"title": "Sintel", "resolution": "720p"}),
    ("[CCSubs][Sintel][01][1080p]", {"title": "Sintel", "episodes": (1,), "group": "CCSubs"}),
    ("[CCSubs] [BD][1080p] Pioneer One 08 [ABCDEF12].mkv", {"title": "Pioneer One", "source": "bluray"}),
    # Leading site tags, edition words, subtitle and codec tags end or leave the title.
    ("{WWW.EXAMPLE.TV} Pioneer One 720p", {"title": "Pioneer One"}),
    ("www example org - Sintel 2010 720p", {"title": "Sintel"}),
    ("Sintel.EXTENDED.2010.1080p", {"title": "Sintel", "year": 2010}),
    ("Sintel - Director's Cut (2010) 720p", {"title": "Sintel"}),
    ("[CCSubs] Pioneer One v2 [BD1080p][ABCDEF12].mkv", {"title": "Pioneer One", "source": "bluray"}),
    ("Sintel.2010.SWESUB.720p", {"title": "Sintel", "languages": ()}),
    ("Sintel.VP9.Opus.webm", {"title": "Sintel"}),
    # Sources glued or spelt out.
    ("Pioneer.One.S01E02.[Bluray720p].mkv", {"source": "bluray", "resolution": "720p"}),
    ("Sintel.2010.TC1080P", {"source": "telecine", "resolution": "1080p", "trash": True}),
    ("Sintel 2010 HDTCRip", {"source": "telecine", "trash": True}),
    ("Sintel 2010 PDVDRip x264", {"trash": True}),
    ("Pioneer.One.S01E05.German.DL.720p.NetflixHD.x264", {"source": "web-dl"}),
    ("Pioneer.One.S01E05.BDLight.x265", {"source": "bluray"}),
    ("Pioneer One - S01E01 - HD TV.mkv", {"source": "hdtv"}),
    ("Pioneer.One.S01E01.ITA.ENG.1080p.AHDTVMux.x264", {"source": "hdtv"}),
    # Audio languages: glued dubbing tags, Chinese audio words, NORDiC; title-case words are not codes.
    ("Pioneer.One.S01E01.DUBPL.HDTV", {"languages": ("pl",)}),
    ("Pioneer.One.S01E01.HDTV.HUNDUB", {"languages": ("hu",)}),
    ("Sintel.2010.国语中字.1080p", {"languages": ("zh",)}),
    ("Sintel.2010.NORDiC.1080p", {"languages": ("da", "fi", "no", "sv")}),
    ("Pioneer.One.S01E01.Le.Testament.De.Nobel.FRENCH.DVDRip", {"languages": ("fr",)}),
    ("Pioneer.One.1x19.ita.720p", {"languages": ("it",)}),
    ("Sintel (2010) [x264 {Fr-Eng}]", {"languages": ("fr", "en")}),
    # Lists of languages: title-case codes count beside another code; a list before or after "Sub" is
    # subtitles, "Multi Subs" only the subtitles; a code glued to "SUBBED" is a subtitle, the one before not.
    ("Sintel (2010) [DVDRip][Ac3][Eng-Spa]", {"languages": ("en", "es")}),
    ("Pioneer.One.S01E01.Ger.Eng.Sub.AAC.1080p.WEB", {"languages": ()}),
    ("Sintel [XviD - Ita Mp3 - Sub Eng Esp Tur]", {"languages": ("it",)}),
    ("Pioneer One S01 Eng Fre Multi Subs 720p", {"languages": ("en", "fr")}),
    ("Sintel.2010.JAPANESE.ENSUBBED.1080p.WEBRip", {"languages": ("ja",)}),
    ("Sintel.2010.DivX(Ingles-Port.BR)-AC3", {"languages": ("en", "pt")}),
    ("Sintel 2010 1080p [Group] Latin + English + Hindi", {"languages": ("es", "en", "hi")}),
    # Audio said in words ends the title; a site's domain and DTS-ES name no language.
    ("Sintel Audio Latino DVDRip", {"title": "Sintel", "languages": ("es",)}),
    ("Night of the Living Dead 1968 Greek Language", {"title": "Night of the Living Dead",
                                                       "languages": ("el",)}),
    ("Sintel.2010.Original.Hindi.Dubbed.1080p", {"title": "Sintel", "languages": ("hi",)}),
    ("Sintel.2010.1080p.BluRay.x264-[YTS.LT]", {"languages": ()}),
    ("Sintel.2010.1080p.BluRay.DTS-ES.6.1", {"languages": ()}),
    # A Cyrillic name naming no language is Russian (Ukrainian with Ukrainian letters); "[Cap.103]" Spanish.
    ("Синтел / Sintel (2010) WEB-DL 1080p", {"title": "Sintel", "languages": ("ru",)}),
    ("Піонер / Pioneer One (S1E1-8) WEB-DL 1080p", {"languages": ("uk",)}),
    ("Pebble Garden - Temporada 1 [HDTV][Cap.103]", {"languages": ("es",)}),
    # Seasons and episodes: a cross glued to the title or written in Cyrillic, "All Seasons (1-8)", British
    # "Series 2" (and its "Part 11"), "1xAll", "2期"; a number before a numbered season word is the title's.
    ("Pebble.Garden1x01.HDTV.XviD", {"title": "Pebble Garden", "seasons": (1,), "episodes": (1,)}),
    ("Пебл / Pebble Garden [06х01-03] HDTVRip", {"seasons": (6,), "episodes": (1, 2, 3)}),  # noqa: RUF001
    ("Pebble Garden All Seasons (1-4) 720p", {"title": "Pebble Garden", "seasons": (1, 2, 3, 4)}),
    ("Pebble Garden 01 - 12 Season 1 Complete [720p]", {"seasons": (1,)}),
    ("Pebble Garden - Series 1 (1970) DivX", {"title": "Pebble Garden", "seasons": (1,), "year": 1970}),
    ("Pebble.Garden.Series.2.Part.11.HDTV", {"title": "Pebble Garden", "seasons": (2,), "episodes": (11,)}),
    # "Series4" glued to its number is still British, not a season code glued to a title.
    ("Pioneer One - Series4 Episode2", {"title": "Pioneer One", "seasons": (4,), "episodes": (2,)}),
    ("Mobile Series 00 S1 [1080p]", {"title": "Mobile Series 00", "seasons": (1,)}),
    ("Pebble.Garden.1xAll", {"title": "Pebble Garden", "seasons": (1,)}),
    ("Pioneer 60 Сезон 5 1080p", {"title": "Pioneer 60", "seasons": (5,)}),
    ("Pebble Garden 2期.mkv", {"title": "Pebble Garden", "seasons": (2,)}),
    # An anime episode after its season, past a year, and before the episode's own title; long runs.
    ("[CCSubs] Pebble Garden S2 (2019) - 11 (720p)", {"seasons": (2,), "episodes": (11,), "year": 2019}),
    ("[CCSubs] Pebble Garden 2nd Season - 12 END [1080p]", {"seasons": (2,), "episodes": (12,)}),
    ("[CCSubs] Pebble Garden 34 - The Episode [ABCDEF12]", {"title": "Pebble Garden", "episodes": (34,)}),
    ("Pebble Garden [TVRip] [Episodes 001-1100]", {"episodes": tuple(range(1, 1101))}),
    ("[CCSubs] Pebble Garden (001-220) [BD]", {"title": "Pebble Garden", "episodes": tuple(range(1, 221))}),
    ("[CCSubs] Pebble Garden 01~12 [1080p]", {"title": "Pebble Garden", "episodes": tuple(range(1, 13))}),
    ("Pebble Garden (1.05) 720p", {"seasons": (1,), "episodes": (5,)}),
    ("Pebble Garden Series 7 S01E02 720p", {"seasons": (1,), "episodes": (2,)}),
    ("[CCSubs] Pebble Garden [05][1080p]", {"title": "Pebble Garden", "episodes": (5,)}),
    ("[CCSubs] Pebble Garden [12 END][1080p]", {"title": "Pebble Garden", "episodes": (12,)}),
    ("[CCSubs] Pebble Garden #05 [1080p]", {"title": "Pebble Garden", "episodes": (5,)}),
    ("Sintel.2010.720p.AC3-GRP[42]", {"episodes": ()}),
    # A dotted next episode ("S03E21.22"), not a dotted title number; "Серии: 5 из 20": the first five.
    ("Pebble.Garden.S03E21.22.VOSTFR.HDTV", {"episodes": (21, 22)}),
    ("Pebble.Garden.S03E05.12.Title.HDTV", {"episodes": (5,)}),
    # Lists and ranges: "01 ao 10", "Ep 1 & 2", "Episodes 1, 2 & 3", "S01 (01-12)", "第1-12話", "全12話".
    ("Pebble Garden Temporada 1 Episódios 01 ao 03", {"seasons": (1,), "episodes": (1, 2, 3)}),
    ("Pebble Garden Ep 1 & 2", {"episodes": (1, 2)}),
    ("Pebble Garden S 01 E 05 720p", {"title": "Pebble Garden", "seasons": (1,), "episodes": (5,)}),
    ("Pebble Garden Episodes 1, 2 & 3", {"episodes": (1, 2, 3)}),
    ("Pebble Garden S01 (01-03) 1080p", {"seasons": (1,), "episodes": (1, 2, 3)}),
    ("Pebble Garden Season 1 (1080p)", {"seasons": (1,), "episodes": ()}),
    ("Pebble Garden 第1-3話", {"title": "Pebble Garden", "episodes": (1, 2, 3)}),
    ("Pebble Garden 全3話", {"title": "Pebble Garden", "episodes": (1, 2, 3)}),
    ("Пебл / Pebble Garden / Сезон: 5 / Серии: 5 из 20", {"seasons": (5,), "episodes": (1, 2, 3, 4, 5)}),
    # A show's run dates it from its first year; a collection of films has no year.
    ("Pebble Garden 1993-2004 [S01-11] [1080p WEB-DL]", {"title": "Pebble Garden", "year": 1993}),
    ("Sintel Collection 2001-2011 720p", {"year": None}),
    # A run of years ends later: "2010 - 01" is a year and an anime's episode.
    ("[Grp] Sintel 2010 - 01 [1080p]", {"title": "Sintel", "year": 2010, "episodes": (1,)}),
    ("(2010) Sintel - The Movie (DvdRip Ita Eng AC3 5.1)", {"title": "Sintel - The Movie", "year": 2010}),
    ("Sintel (2010) (2012 Remaster) 1080p", {"title": "Sintel", "year": 2010}),
    # Clean audio (a camera's picture with the sound taken apart), leaks and deleted scenes are trash.
    ("Sintel 2010 HQ Clean Audio x264", {"trash": True}),
    ("Sintel.2010.Deleted.Scenes.720p", {"trash": True}),
    # Sources: a bare "BD" between separators, Sonarr's "xvidvd", raw HD captures, a Blu-ray's .m2ts stream.
    ("[CCSubs] Pebble Garden - 02 (848x480 XviD BD MP3) [ABCDEF12]", {"source": "bluray"}),
    ("Pebble.Garden.1x13.xvidvd-GRP", {"source": "dvd"}),
    ("Pebble.Garden.S01E01.RawHD.x264", {"source": "hdtv"}),
    ("Pebble Garden.S03E01.The Episode.m2ts", {"source": "bluray", "seasons": (3,), "episodes": (1,)}),
    # A long-running soap's five-digit episodes, alone and as a range.
    ("Pioneer One - S42 E10713 - 2015-07-20.mp4",
     {"title": "Pioneer One", "seasons": (42,), "episodes": (10713,)}),
    ("Pioneer One - S42 Ep10718 - Ep10720", {"seasons": (42,), "episodes": (10718, 10719, 10720)}),
    ("Pioneer.One.S01E01-x264", {"episodes": (1,)}),
    # Dutch: "Se.3 afl.3 en 4" (season 3, episodes 3 and 4); "and" lists episodes in English too.
    ("Pebble Garden Se.3 afl.3 en 4", {"title": "Pebble Garden", "seasons": (3,), "episodes": (3, 4)}),
    ("Pebble Garden Episode 5 and 6 720p", {"episodes": (5, 6)}),
    ("Pebble Garden Se7en 1080p", {"seasons": (), "episodes": ()}),
    # A season and an episode joined by an underscore, in a name written with dots or dashes.
    ("Pebble-Garden-2017-01_13-F.avi", {"year": 2017, "seasons": (1,), "episodes": (13,)}),
    ("Pebble.Garden-02_17.F.avi", {"seasons": (2,), "episodes": (17,)}),
    ("Pebble_Garden_2010_05_12_HDTV", {"seasons": ()}),
    # An anime season's cour between the season and the episode.
    ("[Grp] Pebble Garden - S03 - Part 1 - 13 [BDRip.1080p]", {"seasons": (3,), "episodes": (13,)}),
    # A Chinese raw's batch glued to "TV".
    ("[Grp] Pebble Garden [166-170TV][1080P][BDRip]",
     {"title": "Pebble Garden", "episodes": (166, 167, 168, 169, 170)}),
    # Sonarr's multi-episode forms with the season said again; another season is no range.
    ("Pebble Garden S01E01-S01E03 720p", {"seasons": (1,), "episodes": (1, 2, 3)}),
    ("Pebble Garden S01E01 to S01E03 720p", {"seasons": (1,), "episodes": (1, 2, 3)}),
    ("Pebble Garden S01E10-S02E02 720p", {"seasons": (1, 2), "episodes": (10, 2)}),
    # French "Saisons 1 à 3".
    ("Pebble Garden Saisons 1 à 3 FRENCH", {"title": "Pebble Garden", "seasons": (1, 2, 3)}),
    # Sonarr's source words: AmazonSD, HD-DVD and UHDBD discs, "BR-DISK", "BDISO"; a satellite "DTHRip".
    ("Pebble.Garden.S01E01.AmazonSD.x264", {"source": "web-dl"}),
    ("Pebble.Garden.S01E01.HD-DVD.x264", {"source": "bluray"}),
    ("Pebble.Garden.S01E01.UHDBD.x265", {"source": "bluray"}),
    ("Pebble Garden S01E01 [BR-DISK]", {"source": "bluray"}),
    ("Pebble.Garden.2010.BDISO", {"source": "bluray", "year": 2010}),
    ("Pebble.Garden.S01E01.DTHRip.x264", {"source": "hdtv"}),
    ("Pebble.Garden.S01E01.DVD9", {"source": "dvd"}),
    # An "HD print" is a camera's copy, like an "S-Print"; a title's "Sprint" is no print.
    ("Pebble Garden 2024 HDPrint x264", {"trash": True, "source": "cam"}),
    ("Pebble Garden 2024 HQ Print x264", {"trash": True}),
    ("The Sprint 2024 1080p BluRay", {"title": "The Sprint", "trash": False}),
    # Multi-episode forms: a tilde's range, a comma's or an "and"'s list, a cross after a plus.
    ("Pebble Garden S01E01~E03 720p", {"episodes": (1, 2, 3)}),
    ("Pebble Garden 1x01~1x03", {"seasons": (1,), "episodes": (1, 2, 3)}),
    ("Pebble Garden S02E05,E06", {"episodes": (5, 6)}),
    ("Pebble Garden S02E05 and E06", {"episodes": (5, 6)}),
    ("Pebble Garden 2x05+2x06", {"seasons": (2,), "episodes": (5, 6)}),
    ("Pebble Garden S01E01 - E.Name", {"episodes": (1,)}),
    # A season's batch in brackets, and episodes after a season and a dash, not a range of seasons.
    ("[Grp] Pebble Garden S02 [01-03] [720p]", {"seasons": (2,), "episodes": (1, 2, 3)}),
    ("[Grp] Pebble Garden Season 2 [01-03]", {"seasons": (2,), "episodes": (1, 2, 3)}),
    ("Pebble Garden - S01 - 05-07 [720p]", {"seasons": (1,), "episodes": (5, 6, 7)}),
    ("Pebble Garden S01-03 720p", {"seasons": (1, 2, 3), "episodes": ()}),
    # Season and episode words of more languages: Croatian/Serbian, Czech, Danish, Hungarian, French, Polish,
    # Russian "Выпуск" (a show's issue); a number before a Polish "seria" is the episode's, not the title's.
    ("Pebble Garden Sezona 2 Epizoda 5", {"title": "Pebble Garden", "seasons": (2,), "episodes": (5,)}),
    ("Pebble Garden Sezóna 2 Epizoda 5", {"seasons": (2,), "episodes": (5,)}),
    ("Pebble Garden Sæson 2 Afsnit 5", {"seasons": (2,), "episodes": (5,)}),
    ("Pebble Garden Évad 2 Epizód 5", {"seasons": (2,), "episodes": (5,)}),
    ("Pebble Garden Série 2 Épisodes 1 à 3", {"title": "Pebble Garden", "episodes": (1, 2, 3)}),
    ("Pebble Garden 2 sezon 5 seria", {"title": "Pebble Garden", "seasons": (2,), "episodes": (5,)}),
    ("Pebble Garden Сезон 2 Выпуск 5", {"seasons": (2,), "episodes": (5,)}),
    ("Pioneer 60 Sezon 5 1080p", {"title": "Pioneer 60", "seasons": (5,)}),
    # Typeset ranges with an en or em dash read as with a hyphen; the title keeps its dash.
    ("Pebble Garden Season 1\u20133 720p", {"title": "Pebble Garden", "seasons": (1, 2, 3)}),
    ("Sintel 2010\u20132012 S01-S03", {"title": "Sintel", "year": 2010, "seasons": (1, 2, 3)}),
    ("[Grp] Pebble Garden \u2014 05 [720p]", {"title": "Pebble Garden", "episodes": (5,)}),
    # Japanese ranges: a full-width tilde or a wave dash between episodes.
    ("[Grp] Pebble Garden 01\uff5e03 [1080p]", {"title": "Pebble Garden", "episodes": (1, 2, 3)}),
    ("[Grp] Pebble Garden 第01話\u301c第03話", {"title": "Pebble Garden", "episodes": (1, 2, 3)}),
    # "And" and "to" between seasons in other languages; an ordinal list before the season word.
    ("Pebble Garden Temporadas 1 y 2", {"title": "Pebble Garden", "seasons": (1, 2)}),
    ("Pebble Garden Staffel 1 bis 3 German", {"title": "Pebble Garden", "seasons": (1, 2, 3)}),
    ("Pebble Garden Сезон 1 и 2", {"title": "Pebble Garden", "seasons": (1, 2)}),
    ("Pebble Garden Seasons 1 thru 3", {"seasons": (1, 2, 3)}),
    ("Pebble Garden 1ª e 2ª Temporada", {"title": "Pebble Garden", "seasons": (1, 2)}),
    ("Pebble Garden 1-й и 2-й сезон", {"title": "Pebble Garden", "seasons": (1, 2)}),
    ("Pebble Garden Season 1 E05", {"seasons": (1,), "episodes": (5,)}),
    ("Pebble Garden Season 1 E 05", {"seasons": (1,)}),
    # A range before a Russian episode word, and a range "of" a count: a batch of a season.
    ("Pebble Garden 1-10 серии из 10", {"title": "Pebble Garden", "episodes": tuple(range(1, 11))}),
    ("Pebble Garden [1-4 из 10]", {"title": "Pebble Garden", "episodes": (1, 2, 3, 4)}),
    ("Pebble Garden 5 выпуск", {"title": "Pebble Garden", "episodes": (5,)}),
    # "HD720": the lines after an HD tag, without a "p".
    ("Sintel.HD720.x264", {"title": "Sintel", "resolution": "720p"}),
    ("Sintel HD1080", {"title": "Sintel", "resolution": "1080p"}),
    # Without a group, a zero-padded number right before the tags is an episode; an unpadded one a title's.
    ("Pioneer One 04 vostfr [1080p]", {"title": "Pioneer One", "episodes": (4,)}),
    ("Pioneer One 09 HD720", {"title": "Pioneer One", "episodes": (9,), "resolution": "720p"}),
    ("Apollo 13 1080p", {"title": "Apollo 13", "episodes": ()}),
    ("Locker 007 [1080p]", {"title": "Locker 007", "episodes": ()}),
    # A rising range of three-digit numbers is a batch even at the end of a name (no date is written so); a
    # padded range before a resolution's tag too; "03-20" ending a name may be a date.
    ("Pioneer One 104-105", {"title": "Pioneer One", "episodes": (104, 105)}),
    ("Pioneer One (OVA) 001-002", {"title": "Pioneer One", "episodes": (1, 2)}),
    ("Pioneer One 01-03 1080p", {"title": "Pioneer One", "episodes": (1, 2, 3)}),
    ("Pioneer One 03-20", {"episodes": ()}),
    # A title word's "2.0" is no channel layout; the X of "DTS-X7.1" is the codec's.
    (
        "PIONEER2.0.ANIMATION.PROJECT.S01E02.1080p.WEB-DL.AAC2.0.H.264-Grp",
        {"title": "PIONEER2 0 ANIMATION PROJECT", "audio": ("AAC", "2.0")},
    ),
    ("Sintel.2010.2160p.BluRay.DTS-X7.1.HEVC", {"title": "Sintel", "audio": ("DTS", "7.1")}),
    # An air date with the day before the month after its year: "2010.23.11".
    ("Pioneer.One.2010.23.11.HDTV.x264-Grp", {"title": "Pioneer One", "year": 2010}),
    # A pack in several resolutions counts as its best.
    ("Pioneer One Season 1 [480p.720p.WEB-DL.H264-Grp]", {"title": "Pioneer One", "resolution": "720p"}),
    ("Pioneer One [1080p-720p] [BluRay]", {"title": "Pioneer One", "resolution": "1080p"}),
    # A dotted name writes " - " as ".-.": "S2.-.07" is season 2's episode 7, no range of seasons.
    ("[Grp].Pioneer.One.S2.-.07.[1080p].mkv", {"title": "Pioneer One", "seasons": (2,), "episodes": (7,)}),
    # A leading bracket holding an episode code numbers the episode; it names no group.
    ("[S1.E08] Pioneer One - The Return.srt", {"seasons": (1,), "episodes": (8,), "group": None}),
    # A year leading a film's name is its year when no other follows; a show's or a title's stays a title.
    ("2010.Sintel.720p.BluRay.x264", {"title": "Sintel", "year": 2010}),
    ("2001.A.Space.Odyssey.1968.1080p", {"title": "2001 A Space Odyssey", "year": 1968}),
    ("1923 S02E01 1080p WEB", {"title": "1923", "year": None}),
    # "and" glued between two episodes: a double episode.
    ("Pioneer One - S01E02and03 - The Landing", {"seasons": (1,), "episodes": (2, 3)}),
    ("Pioneer.One.S01E05.Andromeda.720p", {"episodes": (5,)}),
    # A film's number after a dash is no episode.
    ("Sintel Movie - 09 - The Dragon - 1080p", {"episodes": (), "resolution": "1080p"}),
    # A two-part episode ends the title; a lone part is a film's title word.
    ("Pioneer.One.Part.1.and.Part.2.HDTV.x264-Grp", {"title": "Pioneer One"}),
    ("Sintel Part 2 2010 1080p BluRay", {"title": "Sintel Part 2", "year": 2010, "episodes": ()}),
    # A year before an episode word that has its own numbers is the year, not an episode.
    ("Sintel 2010 Серии 1-3 WEB-DL", {"title": "Sintel", "year": 2010, "episodes": (1, 2, 3)}),
    # A cartoon's half episode has a letter: "107a", "1x05b".
    ("Pebble Garden - 107a - The Pebble (720p)", {"title": "Pebble Garden", "episodes": (107,)}),
    ("Pebble.Garden.1x05b.The.Pebble", {"title": "Pebble Garden", "seasons": (1,), "episodes": (5,)}),
    # Portuguese and English ranges after a dash: "215 ao 220", "05 to 08".
    ("Pebble Garden - 215 ao 217 [720p]", {"title": "Pebble Garden", "episodes": (215, 216, 217)}),
    ("Pebble Garden 215 ao 217", {"title": "Pebble Garden", "episodes": (215, 216, 217)}),
    ("Pebble Garden - 12 to 14 [720p]", {"title": "Pebble Garden", "episodes": (12, 13, 14)}),
    ("Pebble Garden 10º Temporada - 215 ao 217", {"seasons": (10,), "episodes": (215, 216, 217)}),
    # The season said again without its "S"; an "Ep" continues an "Ep".
    ("Pebble.Garden.S06E01-06E02.720p", {"seasons": (6,), "episodes": (1, 2)}),
    ("Pebble.Garden.S01.Ep05-Ep06.720p", {"seasons": (1,), "episodes": (5, 6)}),
    # An episode after a season in brackets; British "Series 1-3".
    ("[Grp] Pebble Garden (Season 3) - 02 [1080p]",
     {"title": "Pebble Garden", "seasons": (3,), "episodes": (2,)}),
    ("Pebble Garden Series 1-3 720p", {"title": "Pebble Garden", "seasons": (1, 2, 3)}),
    # A batch's range in brackets when every part of the name is: "[Grp][Title][01-12]".
    ("[Grp][Pebble Garden][01-03][1080P][BDRip]", {"title": "Pebble Garden", "episodes": (1, 2, 3)}),
    ("[Grp][ペブル/Pebble Garden][166-168TV][1080P]", {"episodes": (166, 167, 168)}),
    # The scene's packed double episodes before a TV source; two numbers that do not follow are no pair.
    ("Pebble.Garden.10708.hdtv-grp.mp4", {"title": "Pebble Garden", "seasons": (1,), "episodes": (7, 8)}),
    ("Pebble.Garden.010910.HDTV.x264-GRP", {"seasons": (1,), "episodes": (9, 10)}),
    ("Pebble.Garden.12345.HDTV", {"seasons": (), "episodes": ()}),
    # An episode code glued to its title.
    ("PebbleGardenS01E05.720p", {"title": "PebbleGarden", "seasons": (1,), "episodes": (5,)}),
    # Ordinal seasons: Spanish, Portuguese and French endings, and in words; a list before the season word.
    ("Pebble Garden 2da Temporada Completa", {"title": "Pebble Garden", "seasons": (2,)}),
    ("Pebble Garden 2ème Saison FRENCH", {"title": "Pebble Garden", "seasons": (2,)}),
    ("Pebble Garden The Complete First Season", {"title": "Pebble Garden", "seasons": (1,)}),
    ("Pebble Garden Segunda Temporada", {"title": "Pebble Garden", "seasons": (2,)}),
    ("Pebble Garden 1, 2, 3 сезон", {"title": "Pebble Garden", "seasons": (1, 2, 3)}),
    # Ranges: a tilde or "Ep." again between episode words, Spanish "al", a Spanish code's dash.
    ("Pebble Garden EP01~EP03", {"episodes": (1, 2, 3)}),
    ("Pebble Garden Ep.01 - Ep.03", {"episodes": (1, 2, 3)}),
    ("Pebble Garden S01E01 al E03", {"seasons": (1,), "episodes": (1, 2, 3)}),
    ("Pebble Garden [Cap.101-103]", {"seasons": (1,), "episodes": (1, 2, 3)}),
    # A zero-padded number after a season's is an episode, not another season.
    ("Pebble Garden Season 1 01-03", {"seasons": (1,), "episodes": (1, 2, 3)}),
    ("Pebble Garden Season 1 2 3", {"seasons": (1, 2, 3), "episodes": ()}),
    # One file is one episode: two numbers ending its name are a season and an episode, not a range; an anime
    # group's are a batch, and three numbers are a date.
    ("Pebble Garden 03-20.mkv", {"title": "Pebble Garden", "seasons": (3,), "episodes": (20,)}),
    ("Pebble.Garden.02.09.avi", {"title": "Pebble Garden", "seasons": (2,), "episodes": (9,)}),
    ("[Grp] Pebble Garden 01-02.mkv", {"seasons": (), "episodes": (1, 2)}),
    ("Pebble.Garden.18.09.00.avi", {"seasons": (), "episodes": ()}),
    ("Pebble Garden 03-20", {"seasons": (), "episodes": ()}),
    # Polish "odc." and Czech "díl" number episodes.
    ("Pebble Garden Sezon 1 odc. 5", {"title": "Pebble Garden", "seasons": (1,), "episodes": (5,)}),
    ("Pebble Garden 5. díl", {"title": "Pebble Garden", "episodes": (5,)}),
    # An anime's zero-padded episode right after its season; a volume of discs is no episode.
    ("[Grp] Pebble Garden 2nd Season 05 [1080p]",
     {"title": "Pebble Garden", "seasons": (2,), "episodes": (5,)}),
    ("[Grp] Pebble Garden Vol.2 [BD 1080p]", {"episodes": ()}),
    # East Asian seasons and episodes: a range of seasons, Korean "시즌" (season) and "화" (episode).
    ("Pebble Garden 第1-3季", {"title": "Pebble Garden", "seasons": (1, 2, 3)}),
    ("Pebble Garden 시즌2 5화", {"title": "Pebble Garden", "seasons": (2,), "episodes": (5,)}),
    # A name all in brackets keeps its numbering's: "[Group][Title][01][GB]", after a season too.
    ("[Grp][Pebble Garden][01][GB][1080P]", {"title": "Pebble Garden", "episodes": (1,)}),
    ("[Grp][ペブル][Pebble Garden][第01话][1080P]", {"title": "Pebble Garden", "episodes": (1,)}),
    ("[Grp][Pebble Garden S2][01][1080P]", {"title": "Pebble Garden", "seasons": (2,), "episodes": (1,)}),
    ("[Grp][Pebble Garden 第二季][01][1080P]", {"seasons": (2,), "episodes": (1,)}),
    ("【Grp】Pebble Garden - 01【1080P】", {"title": "Pebble Garden", "episodes": (1,)}),
    # A range between two whole codes, with a tilde or a "to" word; Spanish "y" lists episodes.
    ("Pebble Garden S01E01 ~ S01E03", {"seasons": (1,), "episodes": (1, 2, 3)}),
    ("Pebble Garden [1x01 al 1x03]", {"title": "Pebble Garden", "seasons": (1,), "episodes": (1, 2, 3)}),
    ("Pebble Garden 1x01 y 1x02", {"seasons": (1,), "episodes": (1, 2)}),
    ("Pebble Garden Episodios 1 y 2", {"episodes": (1, 2)}),
    # No range of seasons runs backwards: "S02 - 01" is season 2's first episode.
    ("[Grp] Pebble Garden S02 - 01 [1080p]", {"title": "Pebble Garden", "seasons": (2,), "episodes": (1,)}),
    # The years a season ran are no episodes.
    ("Pioneer One Season 1 (2010-11) 720p WEB-DL", {"year": 2010, "seasons": (1,), "episodes": ()}),
    ("Pioneer One Сезон 1-3 (2010-2012) WEB-DL", {"seasons": (1, 2, 3), "episodes": ()}),
    # Glued episode codes, a chain of dashes running to its last number, a year after a dash (no episode).
    ("Pioneer One E01E02E03 720p", {"title": "Pioneer One", "seasons": (), "episodes": (1, 2, 3)}),
    ("Pioneer One E01-02-04 720p", {"episodes": (1, 2, 3, 4)}),
    ("Pioneer One Episode 5 - 2012 720p", {"episodes": (5,), "year": 2012}),
    # Seasons with a tilde for a dash.
    ("Pioneer.One.Season.1~3.720p", {"title": "Pioneer One", "seasons": (1, 2, 3)}),
    ("Pioneer.One.Season.1.2.3~5.HDTV", {"seasons": (1, 2, 3, 4, 5)}),
    # A DVD's VIDEO_TS folder is a DVD, no telesync.
    ("Sintel.2010.VIDEO_TS", {"title": "Sintel", "source": "dvd", "trash": False}),
    # A camera's, telesync's or telecine's rip, glued or with an underscore.
    ("Sintel_2010_CAM_Rip", {"title": "Sintel", "source": "cam", "trash": True}),
    ("Sintel 2010 TelesyncRip x264", {"source": "telesync", "trash": True}),
    ("Sintel 2010 TeleCineRip x264", {"source": "telecine", "trash": True}),
    # "&" continues a code's episodes; a dotted season and episode after an episode word; a bare tilde range.
    ("Pioneer One S01E05&06 720p", {"seasons": (1,), "episodes": (5, 6)}),
    ("Pioneer One Episode 1.05 720p", {"title": "Pioneer One", "seasons": (1,), "episodes": (5,)}),
    ("Pioneer One Ep.12.720p", {"seasons": (), "episodes": (12,), "resolution": "720p"}),
    ("Pioneer One 01~05 720p", {"title": "Pioneer One", "episodes": (1, 2, 3, 4, 5)}),
    # An episode after the year, without a group; a name that starts with its season and episode.
    ("Pioneer One (2010) - 05 [720p]", {"title": "Pioneer One", "year": 2010, "episodes": (5,)}),
    ("4-13 Pioneer One 720p", {"title": "Pioneer One", "seasons": (4,), "episodes": (13,)}),
    ("4-13.Pioneer.One.720p", {"title": "Pioneer One", "seasons": (4,), "episodes": (13,)}),  # dotted alike
    # A leading bracket with a year or a dotted episode holds no group.
    ("[1968] Night of the Living Dead [DVDRip]", {"title": "Night of the Living Dead", "year": 1968}),
    ("[5.01] Pioneer One.avi", {"title": "Pioneer One", "seasons": (5,), "episodes": (1,)}),
    # A run of years in brackets dates a show by its start, a collection of films by none.
    ("Night of the Living Dead Collection (1968-1990) 1080p", {"year": None, "complete": True}),
    ("Pioneer One S01 1080p (2010-2012)", {"year": 2010, "seasons": (1,)}),
    # A spaced "S01 - 13" is an anime's episode, "S01-13" a range of seasons; a zero-padded range is a batch.
    ("[Grp] Pioneer One S01 - 13 [1080p]", {"title": "Pioneer One", "seasons": (1,), "episodes": (13,)}),
    ("Pioneer One S01-03 1080p", {"seasons": (1, 2, 3), "episodes": ()}),
    ("Pioneer One 01-10 [1080p]", {"title": "Pioneer One", "episodes": tuple(range(1, 11))}),
    # A slash lists seasons after a season word; "thru" runs between two season codes.
    ("Pioneer One Seasons 1/2/3 720p", {"title": "Pioneer One", "seasons": (1, 2, 3)}),
    ("Pioneer One S01 thru S03 720p", {"title": "Pioneer One", "seasons": (1, 2, 3)}),
    # A film's number is no episode; nor is a title's before the bracketed episode.
    ("[Grp] Pebble Garden Movie 2 [1080p]", {"title": "Pebble Garden Movie 2", "episodes": ()}),
    ("[Grp][Pebble Garden 2][05][1080P]", {"title": "Pebble Garden 2", "episodes": (5,)}),
    # A zero-padded number in parentheses is an episode, as one in square brackets is.
    ("Pebble Garden (05) [1080p]", {"title": "Pebble Garden", "episodes": (5,)}),
    # A bracketed episode may be padded inside its brackets.
    ("Pebble Garden [.01.] 720p.mkv", {"title": "Pebble Garden", "episodes": (1,)}),
    ("[Grp] Pebble Garden [ 05 ] [720p]", {"title": "Pebble Garden", "episodes": (5,)}),
    # Russian "Ser.", in its own letters, is short for an episode.
    ("Пионер / Pioneer One Сер. 5 720p", {"episodes": (5,)}),  # noqa: RUF001 - letters of other scripts
    # Of several years alone in brackets, the first; in a path, the file's.
    ("Night of the Living Dead (1968) (1990) 1080p", {"year": 1968}),
    ("Sintel (2000)/Sintel (2010).mkv", {"year": 2010}),
    # HDR, audio and resolution words, each of them once (every pattern with hints is exercised below).
    ("Sintel.2010.1080.Hi10P.BluRay.FLAC-Group", {"resolution": "1080p", "audio": ("FLAC",)}),
    ("Sintel 2010 4K UHD WEB-DL", {"resolution": "2160p", "source": "web-dl"}),
    ("Sintel (2010) Full HD LPCM 2.0", {"resolution": "1080p", "audio": ("LPCM", "2.0")}),
    (
        "Sintel.2010.2160p.WEB-DL.DV.HDR10+.AV1.TrueHD.Atmos.7.1",
        {"codec": "av1", "hdr": ("DV", "HDR10+"), "audio": ("TrueHD", "Atmos", "7.1")},
    ),
    (
        "Big.Buck.Bunny.2008.2160p.UHD.BluRay.DoVi.HDR10.DTS-HD.MA.5.1.x265",
        {"title": "Big Buck Bunny", "codec": "hevc", "hdr": ("DV", "HDR10"), "audio": ("DTS-HD MA", "5.1")},
    ),
    ("Tears.of.Steel.2012.2160p.BluRay.HDR.DTS-HD.5.1", {"hdr": ("HDR",), "audio": ("DTS-HD", "5.1")}),
    ("Tears.of.Steel.2012.1080p.BluRay.DTS-X.7.1.x264", {"codec": "avc", "audio": ("DTS-X", "7.1")}),
    # A display's brightness after HDR is no HDR10.
    ("Cosmos Laundromat 2015 2160p HDR1000", {"title": "Cosmos Laundromat", "hdr": ("HDR",)}),
    # Source words: a misspelt telesync, discs counted, numbered or sized, mini and UHD Blu-ray encodes.
    ("Sintel 2010 TeleSynch 720p", {"title": "Sintel", "source": "telesync", "trash": True}),
    ("Sintel.2010.PAL.2xDVD9", {"title": "Sintel", "source": "dvd"}),
    ("Sintel.2010.2DVD5", {"title": "Sintel", "source": "dvd"}),
    ("Sintel.2010.PAL.MDVDR-Grp", {"title": "Sintel", "source": "dvd"}),
    ("Pioneer.One.S01.DVD2.NLsubs-Grp", {"title": "Pioneer One", "source": "dvd"}),
    ("Pioneer.One.BD9.720p", {"title": "Pioneer One", "source": "bluray"}),
    ("Sintel.2010.1080p.MBluRay.x264-Grp", {"source": "bluray", "resolution": "1080p"}),
    ("Sintel.2010.1080p.UHDBDRip.AV1-Grp", {"source": "bluray", "resolution": "1080p"}),
    ("Sintel.2010.1080p.UHD2BD.x264-Grp", {"source": "bluray", "resolution": "1080p"}),
    # Rips named for their broadcast, a web capture's rip, an HD DVD's rip.
    ("Sintel.2010.PDTVRip.XviD", {"title": "Sintel", "source": "hdtv"}),
    ("Sintel 2010 SDTVRip", {"title": "Sintel", "source": "hdtv"}),
    ("Sintel.2010.2160p.UHDTV.x265", {"source": "hdtv", "resolution": "2160p"}),
    ("Sintel.2010.DSRRip.x264", {"title": "Sintel", "source": "hdtv"}),
    ("Sintel.2010.WEBCapRip", {"title": "Sintel", "source": "webrip"}),
    ("Sintel.2010.HDDVDRip.x264", {"title": "Sintel", "source": "bluray"}),
    # Letters glued to a digit name no language ("pt1": a part), but a tag's own digit is its ("VF2").
    ("Pioneer.One.S02E01.unm4sk-pt1.1080p.WEB-DL", {"title": "Pioneer One", "languages": ()}),
    ("Pioneer.One.S01.720p.VF2.WEB-DL", {"languages": ("fr",)}),
    # Languages after "Legendado" (Portuguese for "subtitled") are the subtitles'.
    ("Pioneer.One.S06E05.1080p.WEBRip.Legendado.PT-BR", {"title": "Pioneer One", "languages": ()}),
    # A country tag is in capitals or in a lower-case name, and never ends a title after "of".
    ("Pebble.Garden.of.Us.S01E08.1080p.WEB.H264-Grp", {"title": "Pebble Garden of Us"}),
    ("pebble.garden.of.us.s01e08.720p", {"title": "pebble garden of us"}),
    ("Pebble.Garden.US.S01E01.720p", {"title": "Pebble Garden"}),
    ("pebble.garden.us.s01e01.720p", {"title": "pebble garden"}),
    # A weak source word in capitals right before a codec is the source; in title case or in a title all in
    # capitals it is the title's.
    ("Tears.of.Steel.Live.WEB.x264-Grp", {"title": "Tears of Steel Live", "source": "web-dl"}),
    ("Tears.of.Steel.Web.x264-Grp", {"title": "Tears of Steel Web", "source": None}),
    ("TEARS OF STEEL WEB x264", {"title": "TEARS OF STEEL WEB", "source": None}),
    # Words in another script before a title in Latin letters: the Latin title, as for aliases.
    ("先锋一号.Pioneer.One.S01E01.720p.WEB-DL", {"title": "Pioneer One"}),
    ("Пионер Pioneer One 2010 720p", {"title": "Pioneer One", "year": 2010}),
    ("Amélie.Sintel.2010.720p", {"title": "Amélie Sintel"}),
    # Latvian by its code, in capitals.
    ("Sintel.2010.LV.WEBRip.XviD-Grp", {"title": "Sintel", "languages": ("lv",)}),
    # A Polish voice-over ("lektor"), glued to its code or not.
    ("Sintel.2010.LEKPL.1080p.XviD-Grp", {"title": "Sintel", "languages": ("pl",)}),
    ("Sintel.2010.pl.Lektor.720p", {"title": "Sintel", "languages": ("pl",)}),
    # A name that starts with its markers: its title ends at a year too, and a language's name before the
    # tags is one.
    ("[BD] Sintel 2010 720p", {"title": "Sintel", "year": 2010}),
    ("[BD] Sintel German 2010 720p", {"title": "Sintel German", "year": 2010}),
    ("[h265 - HEVC] Sintel French 1080p DTS", {"title": "Sintel", "languages": ("fr",)}),
    # A list of languages in title case ending a title is the audio's.
    ("Sintel.Director.Cut.Ita.Eng.VP9.Opus.Grp.webm", {"title": "Sintel", "languages": ("it", "en")}),
    # After a group, a zero-padded number before the title is its episode; without one, or unpadded, it is
    # the title's.
    ("[Grp] 06 Sintel II (720p 8bit AAC).mp4", {"title": "Sintel II", "episodes": (6,)}),
    ("06 Sintel II (720p).mp4", {"title": "06 Sintel II", "episodes": ()}),
    ("[Grp] 300 Sintel (720p)", {"title": "300 Sintel", "episodes": ()}),
    # A year of the 1880s or 1890s in brackets; out of them it is the title's.
    ("Roundhay Garden Scene (1888) [DVD].mp4", {"title": "Roundhay Garden Scene", "year": 1888}),
    ("Roundhay Garden Scene 1888 720p", {"title": "Roundhay Garden Scene 1888", "year": None}),
    # An absolute episode number between dashes or as a range right before the season code is no title
    # word; a title's number stays.
    ("Pebble Garden - 313 - S16E03 720p", {"title": "Pebble Garden", "seasons": (16,), "episodes": (3,)}),
    ("Pebble.Garden.313-315.S16E03-05", {"title": "Pebble Garden", "episodes": (3, 4, 5)}),
    ("Pebble Garden-22 S01E01 720p", {"title": "Pebble Garden-22"}),
    ("Pebble Garden 9-1-1 S01E01", {"title": "Pebble Garden 9-1-1"}),
    # "720HD" is a resolution; 8K counts as the best tier.
    ("Sintel.2010.720HD.BluRay", {"title": "Sintel", "resolution": "720p"}),
    ("Sintel.2010.4320p.WEB-DL", {"title": "Sintel", "resolution": "2160p"}),
    # A bare slash next to another script separates aliases; between Latin letters it is the title's.
    ("[Grp][片名/Sintel/シンテル][01][1080p]", {"title": "Sintel", "episodes": (1,)}),
    ("[Grp][片名/Sintel/Durian][01][1080p]", {"title": "Sintel/Durian", "episodes": (1,)}),
    # An alias cut from a note in brackets ends where the note starts.
    ("Сінтел / Sintel (Режисер / Colin Levy) [2010, BDRip] MVO", {"title": "Sintel", "year": 2010}),
    # A resolution glued to the source after it.
    ("Pioneer.One.S01E01.720pHDTV.x264", {"resolution": "720p", "source": "hdtv", "episodes": (1,)}),
    ("Sintel.2010.1080pBluRay.x264", {"title": "Sintel", "resolution": "1080p", "source": "bluray"}),
    # After a group, a decimal's fraction is no episode.
    ("[Grp] Sintel 1.11 - Durian v2 (1080p BD FLAC).mkv", {"title": "Sintel 1.11 - Durian", "episodes": ()}),
    # A name without a year: a language's name in title case before the tags is the audio, with its "DL";
    # before a year it is the title's.
    ("Sintel.German.720p.BluRay.x264-Grp", {"title": "Sintel", "languages": ("de",)}),
    ("Sintel EXTENDED German DTS 720p BluRay", {"title": "Sintel", "languages": ("de",)}),
    ("Sintel.EXTENDED.German.DTS.720p.BluRay", {"title": "Sintel", "languages": ("de",)}),
    ("Sintel.German.DL.AC3.Dubbed.BluRay.x264", {"title": "Sintel", "languages": ("de",)}),
    ("The.Good.German.2010.720p.BluRay", {"title": "The Good German", "languages": ()}),
    ("Zorba.the.Greek.720p.BluRay", {"title": "Zorba the Greek", "languages": ()}),
    # A title with nothing after it (a search) keeps its language word; a capital tag alone is the title.
    ("Sintel.German", {"title": "Sintel German", "languages": ()}),
    ("CONVERT XViD", {"title": "CONVERT", "codec": "xvid"}),
    # After a group, an episode's version may be upper case or set apart from its number.
    ("[Grp]_Sintel_10_v2_[DVD][h264].mkv", {"title": "Sintel", "episodes": (10,)}),
    ("[Grp]_Sintel_04V2.avi", {"title": "Sintel", "episodes": (4,)}),
    # Brackets of tags may come between a title and its episode after a dash.
    ("Sintel (DVD) - 02 [Grp].mkv", {"title": "Sintel", "source": "dvd", "episodes": (2,)}),
    # A numbered batch: "#1-4" is four episodes.
    ("[Grp] Sintel #1-4 (1080p x264).mp4", {"title": "Sintel", "episodes": (1, 2, 3, 4)}),
    # After a group, a film's number and a number a title names are no episodes.
    ("[Grp]_Sintel_Movie_2_vostfr_HD.avi", {"title": "Sintel Movie 2", "episodes": ()}),
    ("[Grp] Sintel No.6 [720p]", {"title": "Sintel No.6", "episodes": ()}),
    # Without a group, a rising range of two-digit numbers before the tags is a batch; a falling one is not.
    ("Sintel_13-15_[BD_1080p][Grp]", {"title": "Sintel", "episodes": (13, 14, 15)}),
    ("Sintel 24-12 [1080p]", {"title": "Sintel 24-12", "episodes": ()}),
    # A source word that could be a title's is a tag when it opens brackets.
    ("[Grp] Sintel OVA[DVD][1A2B3C4D].mkv", {"title": "Sintel OVA", "source": "dvd"}),
    ("[Grp] Sintel (DVD, R2, Dual Audio)", {"title": "Sintel", "source": "dvd"}),
    # A pack's season codes glued in a row.
    ("Pioneer.One.S01S02S03.720p.HDTV.x264", {"title": "Pioneer One", "seasons": (1, 2, 3)}),
    # A count of audio tracks after a channel layout is no season and episode.
    ("Sintel - 23 (BDRip FLACx2 2.0x3)[Grp].mkv", {"title": "Sintel", "seasons": (), "episodes": (23,)}),
    ("Pioneer.One.1x02.1x03.HDTV", {"seasons": (1,), "episodes": (2, 3)}),
    # A number and a point before an English "Season" are the title's; "Season 4.16" in a spaced name is the
    # season's episode 16, in a dotted one a list of seasons.
    ("Pioneer-1. Season 4.16. (2010).avi", {"title": "Pioneer-1", "seasons": (4,), "episodes": (16,)}),
    ("Pioneer.One.Season.4.16.720p", {"seasons": (4, 16), "episodes": ()}),
    # After a group, a number after a dash right before the season is its episode; a title's number before
    # words is not.
    ("[Grp] Sintel - 05 (S2) [1080p]", {"title": "Sintel", "seasons": (2,), "episodes": (5,)}),
    ("[Grp] Sintel - 100 Days S2 [1080p]", {"title": "Sintel - 100 Days", "seasons": (2,), "episodes": ()}),
    # A season's OVA numbered after a dash is its episode.
    ("Sintel S2 OVA - 02.mkv", {"title": "Sintel", "seasons": (2,), "episodes": (2,)}),
    ("Sintel Season 1 OVA [Grp] OVA - 05.mkv", {"title": "Sintel", "seasons": (1,), "episodes": (5,)}),
    # A Blu-ray's encode named "BluRayRip" as "BDRip" is.
    ("Sintel.2010.BluRayRip.720p", {"title": "Sintel", "source": "bluray"}),
    # Lines glued to a Blu-ray's or a MicroHD's letters without a "p".
    ("Sintel.2010.BD1080.x264", {"title": "Sintel", "resolution": "1080p", "source": "bluray"}),
    ("Sintel.2010.M720.x264", {"title": "Sintel", "resolution": "720p"}),
    # Without a group, a number of two or three digits before a checksum is an episode; one digit, a film's
    # number, or a volume's, is not.
    ("Sintel 63 [1A2B3C4D].mkv", {"title": "Sintel", "episodes": (63,)}),
    ("Sintel 2 [1A2B3C4D].mkv", {"title": "Sintel 2", "episodes": ()}),
    ("Sintel Movie 12 [1A2B3C4D].mkv", {"title": "Sintel Movie 12", "episodes": ()}),
    ("Sintel Vol.12 [1A2B3C4D].mkv", {"episodes": ()}),
    # An air date as an American writes it, or as a daily show's in one number, ends the title.
    ("Pioneer One 10/25/2010 720p HDTV", {"title": "Pioneer One", "year": 2010, "episodes": ()}),
    ("Pioneer.One.20101025.HDTV", {"title": "Pioneer One", "year": 2010, "episodes": ()}),
    ("Pioneer One TT20101025 720p", {"title": "Pioneer One TT20101025", "year": None}),
    # An air date with the month's name ends the title too; a month and a year alone date nothing.
    ("Pioneer.One.25.Oct.2010.HDTV.x264-Grp", {"title": "Pioneer One", "year": 2010}),
    ("Pioneer One 25th October 2010 720p", {"title": "Pioneer One", "year": 2010}),
    ("Pioneer One Oct 25, 2010 720p", {"title": "Pioneer One", "year": 2010}),
    ("Pioneer.One.2010.Oct.25.HDTV", {"title": "Pioneer One", "year": 2010, "episodes": ()}),
    ("Sintel.March.2010.720p", {"title": "Sintel March", "year": 2010}),
    # A letter O typed for a season's zero.
    ("Pioneer One SO2E04.avi", {"title": "Pioneer One", "seasons": (2,), "episodes": (4,)}),
    # A language named in its own tongue; a title's word before the year stays the title's.
    ("Sintel 2010 [1080p.WEB-DL.H264] [Film Polski]", {"title": "Sintel", "languages": ("pl",)}),
    ("Sintel 1 (2010) Versao Portuguesa", {"title": "Sintel 1", "languages": ("pt",)}),
    ("Polski Sintel 2010 720p", {"title": "Polski Sintel", "languages": ()}),
    # A remux is a Blu-ray's unless the name says a TV capture or a DVD was remuxed.
    ("Pioneer.One.HR.WS.PDTV.x264-Grp-Remux.mkv", {"title": "Pioneer One", "source": "hdtv"}),
    ("Sintel.2010.DVD.Remux", {"title": "Sintel", "source": "dvd"}),
    ("Sintel.2010.1080p.BluRay.REMUX.AVC", {"title": "Sintel", "source": "remux"}),
    ("Sintel.2010.1080p.BluRay.REMUX.AVC.DVD.Extras", {"title": "Sintel", "source": "remux"}),
    # A German Blu-ray named by the disc's video format after a dual- or multi-language tag is a remux; one
    # named by its encoder is an encode.
    ("Sintel.2010.German.DL.1080p.BluRay.AVC-Grp", {"title": "Sintel", "source": "remux"}),
    ("Sintel.2010.German.DTS.ML.1080p.BluRay.VC1-Grp", {"title": "Sintel", "source": "remux"}),
    ("Sintel.2010.German.DL.1080p.BluRay.x264-Grp", {"title": "Sintel", "source": "bluray"}),
    ("Sintel.2010.1080p.BluRay.AVC-Grp", {"title": "Sintel", "source": "bluray"}),
    # A year and an episode after a dash are no run of years: a run's two-digit end is written tight and ends
    # within a decade.
    ("Detour 1949 - 21 720p HDTV-Grp", {"title": "Detour", "year": 1949, "episodes": (21,)}),
    ("[Grp] Detour 2010 - 11 [720p]", {"title": "Detour", "year": 2010, "episodes": (11,)}),
    ("Detour 1988-89 Season 1", {"title": "Detour", "year": 1988, "seasons": (1,), "episodes": ()}),
    # After a group, the number of a film's part or chapter is no episode.
    ("[Grp] Metropolis Part 1 1080p BluRay x264-Grp", {"title": "Metropolis Part 1", "episodes": ()}),
    ("[Grp] Metropolis_Chapter_2_(720p)", {"title": "Metropolis Chapter 2", "episodes": ()}),
    ("[Grp] Metropolis_Vol_5_480p_DVDRip", {"title": "Metropolis Vol 5", "episodes": ()}),
    # "Sub" before a language names subtitles: a tag, not the title's.
    ("Detour_Sub_ITA_720p_HDTV", {"title": "Detour", "languages": ()}),
    ("Sintel Part 11 Sub ITA 720p HDTV", {"title": "Sintel Part 11"}),
    # Brazilian "Dublado" (dubbed) is a tag.
    ("Nosferatu_Dublado_1080p", {"title": "Nosferatu"}),
    # A cross for the E of a season code ("S01x264" stays a codec's).
    ("Pioneer One s01x02.mkv", {"title": "Pioneer One", "seasons": (1,), "episodes": (2,)}),
    ("Pioneer.One.S01x264", {"seasons": (1,), "episodes": ()}),
    # A zero-padded number that ends a file's name is its episode; a date's last number is not.
    ("Pioneer One 05.mkv", {"title": "Pioneer One", "episodes": (5,)}),
    ("02.avi", {"episodes": (2,)}),
    ("Pioneer.One.18.09.00.avi", {"episodes": ()}),
    ("Pioneer One 05", {"title": "Pioneer One 05", "episodes": ()}),
    # Episodes joined by "&" with the name's own separators around it.
    ("Sintel.Episodes.14.&.15.[1080p]", {"title": "Sintel", "episodes": (14, 15)}),
    ("Sintel_Episodes_24_&_25_720p", {"title": "Sintel", "episodes": (24, 25)}),
    # After a group, in a name with no spaces, an episode may be glued to the title by a hyphen.
    ("[Grp]_Sintel-03_DVD[1A2B3C4D].mkv", {"title": "Sintel", "episodes": (3,), "source": "dvd"}),
    ("[Grp]Sintel-24(H264)_[1A2B3C4D].mkv", {"title": "Sintel", "episodes": (24,)}),
    ("[Grp] Catch-22 [1080p]", {"title": "Catch-22", "episodes": ()}),
    # A year is followed by a range of episodes, not a month and a day ("2010.10.25" stays a date).
    ("Sintel.2017.24-25.1080p.WEB-DL", {"title": "Sintel", "year": 2017, "episodes": (24, 25)}),
    ("Sintel (1996) 11-12 BDRip", {"title": "Sintel", "year": 1996, "episodes": (11, 12)}),
    ("Sintel.2010.10.25.720p", {"title": "Sintel", "year": 2010, "episodes": ()}),
    # A number ends at a language tag as at any other tag; a language's name in title case does not end it.
    ("Sintel 08-09 iTA ENG 1080p WEBRip", {"title": "Sintel", "episodes": (8, 9), "languages": ("it", "en")}),
    ("Pioneer.One.02.FRENCH.LD.DVDRip.XviD-Grp.avi", {"title": "Pioneer One", "episodes": (2,)}),
    ("[Grp] Sintel 12 ENG 1080p", {"title": "Sintel", "episodes": (12,)}),
    ("Sintel 2 ENG 1080p", {"title": "Sintel 2", "episodes": ()}),
    ("Sintel 05 English 720p", {"title": "Sintel 05", "episodes": ()}),
    # After an edition, a language's name before the year is a tag; alone there it stays the title's.
    ("Sintel.UNCUT.German.2010.DL.1080p.BluRay", {"title": "Sintel", "year": 2010, "languages": ("de",)}),
    ("Sintel.Extended.Cut.French.2010.720p", {"title": "Sintel", "languages": ("fr",)}),
    ("Sintel.German.2010.DL.1080p", {"title": "Sintel German", "languages": ()}),
    # An edition that would leave only an article is the title: "The Final Cut".
    ("The.Final.Cut.2004.1080p.BluRay.x264-Grp", {"title": "The Final Cut", "year": 2004}),
    ("Sintel.Final.Cut.2010.1080p", {"title": "Sintel"}),
]  # fmt: skip


@pytest.mark.parametrize(
    ("name", "expected"), CASES + GENERAL_CASES, ids=[name for name, _ in CASES + GENERAL_CASES]
)
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


NAMES = [name for name, _ in CASES + GENERAL_CASES]
HINTED = [pattern for pattern, _ in scan._HINTS.values()]
_GAP = "\x01"  # stands for text no hint can be read across
_MOST_EXPANSIONS = 200_000


def _expansions(items: Any) -> list[str]:
    """What a parsed pattern can match, folded, with a gap for each part that is not a fixed letter.

    Sound for checking hints: a hint found in an expansion is in every text the same choices match.
    """
    results = [""]
    for op, value in items:
        if op is sre.LITERAL:
            parts = [scan.fold(chr(value))]
        elif op is sre.SUBPATTERN:
            parts = _expansions(value[-1])
        elif op is sre.BRANCH:
            parts = [text for alternative in value[1] for text in _expansions(alternative)]
        elif op in {sre.MAX_REPEAT, sre.MIN_REPEAT, sre.POSSESSIVE_REPEAT}:
            least, most, inner = value
            parts = [text + (_GAP if most > 1 else "") for text in _expansions(inner)] if least else [_GAP]
        elif op is sre.IN and all(kind is sre.LITERAL for kind, _ in value):
            parts = [scan.fold(chr(code)) for _, code in value]
        elif op in {sre.AT, sre.ASSERT, sre.ASSERT_NOT}:
            parts = [""]  # takes no text
        else:
            parts = [_GAP]
        results = [head + part for head in results for part in set(parts)]
        assert len(results) <= _MOST_EXPANSIONS, "too many ways to match to check"
    return results


@pytest.mark.parametrize(("pattern", "hints"), scan._HINTS.values(), ids=[p.pattern[:40] for p in HINTED])
def test_every_match_holds_one_of_its_patterns_hints(
    pattern: re.Pattern[str], hints: tuple[str, ...]
) -> None:
    """A pattern runs only on names holding one of its hints: any text it can match holds one."""
    expansions = _expansions(sre_parse.parse(pattern.pattern, pattern.flags))
    assert [text for text in expansions if not any(hint in text for hint in hints)] == []
    matched = [match.group(0) for name in NAMES for match in pattern.finditer(name)]
    assert matched, "no test name exercises this pattern"
    assert [text for text in matched if not any(hint in scan.fold(text) for hint in hints)] == []


def test_hints_change_no_result(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test name reads the same when every pattern runs on every name."""
    with_hints = [parse_release(name) for name in NAMES]
    monkeypatch.setattr(scan, "_HINTS", {})
    assert [parse_release(name) for name in NAMES] == with_hints
