"""Invented release names where parsett and guessit read a field alike and ours reads it otherwise.

Run: python bench/consensus.py [--names N] [--seed S] [--field FIELD] [--show K]
(the environment of bench/parse.py, with parsett and guessit installed).
No corpus labels these names: they are built from public-domain titles and the ways release names write
episodes, seasons, years and tags, so a rule found here is not tuned on any corpus's names. Where two parsers
written apart agree and ours does not, the name is worth a look; it is not a label (both may be wrong), and a
rule is kept only when its reading is right on its own terms. Prints, per field and per shape of name, how
often the three disagree that way, and up to --show examples of each.
"""

from __future__ import annotations

import argparse
from collections import Counter, defaultdict
import random

from parse import FIELDS, fold, guessit_reader, ours, parsett_reader

TITLES = (
    "Big Buck Bunny",
    "Sintel",
    "Night of the Living Dead",
    "Pioneer One",
    "Elephants Dream",
    "Tears of Steel",
    "Cosmos Laundromat",
    "The Cabinet of Dr Caligari",
    "Nosferatu",
    "His Girl Friday",
    "The General",
    "Metropolis",
    "Plan 9 from Outer Space",
    "Charade",
    "Detour",
    "The Little Shop of Horrors",
)
# (shape, template): {s} season, {e} episode, {e2} the next episode, {s2} a later season.
EPISODES = (
    ("SxxExx", "S{s:02}E{e:02}"),
    ("sxe", "s{s}e{e}"),
    ("NxNN", "{s}x{e:02}"),
    ("Sxx.Exx", "S{s:02}.E{e:02}"),
    ("Sxx Exx", "S{s:02} E{e:02}"),
    ("Season Episode", "Season {s} Episode {e}"),
    ("SxxExxExx", "S{s:02}E{e:02}E{e2:02}"),
    ("SxxExx-Exx", "S{s:02}E{e:02}-E{e2:02}"),
    ("SxxExx-xx", "S{s:02}E{e:02}-{e2:02}"),
    ("NxNN-NN", "{s}x{e:02}-{e2:02}"),
    ("- NN", "- {e:02}"),
    ("Ep NN", "Ep {e:02}"),
    ("Episode NN", "Episode {e}"),
    ("Exx", "E{e:02}"),
    ("Sxx", "S{s:02}"),
    ("Season N", "Season {s}"),
    ("Sxx-Sxx", "S{s:02}-S{s2:02}"),
    ("Season N-N", "Season {s}-{s2}"),
    ("Complete Season", "Complete Season {s}"),
    ("Saison Episode", "Saison {s} Episode {e}"),
    ("Staffel Folge", "Staffel {s} Folge {e}"),
    ("Temporada Capitulo", "Temporada {s} Capitulo {e}"),
    ("TxxExx", "T{s:02}E{e:02}"),
    ("Season N Complete", "Season {s} Complete"),
    ("[NN]", "[{e:02}]"),
    ("Part N", "Part {e}"),
    ("film", ""),
    ("SxxExx - Name", "S{s:02}E{e:02} - The Return"),
    ("[SxxExx]", "[S{s:02}E{e:02}]"),
    ("Sxx Complete", "S{s:02} Complete"),
    ("Season Episodes N-N", "Season {s} Episodes {e}-{e2}"),
    ("Episode N of N", "Episode {e} of 24"),
    ("NofN", "{e}of24"),
    ("Exx-Exx", "E{e:02}-E{e2:02}"),
    ("Episodes N-N", "Episodes {e}-{e2}"),
    ("- NN - Name", "- {e:02} - The Return"),
    ("- NNv2", "- {e:02}v2"),
    ("Vol N", "Vol {e}"),
    ("Chapter N", "Chapter {e}"),
    ("Cap.NNN", "Cap.{s}{e:02}"),
    ("date", "2010.10.{e:02}"),
    ("Sxx EPxx", "S{s:02} EP{e:02}"),
    ("Sx - Ex", "S{s} - E{e}"),
    ("Stagione Episodio", "Stagione {s} Episodio {e}"),
    ("Seizoen Aflevering", "Seizoen {s} Aflevering {e}"),
    ("Sezon Odcinek", "Sezon {s} Odcinek {e}"),
    ("Сезон Серия", "Сезон {s} Серия {e}"),
    ("第N話", "第{e}話"),
    ("EP.NN", "EP.{e:02}"),
    ("SxxExx.Name", "S{s:02}E{e:02} The Return"),
    ("NxNN & NxNN", "{s}x{e:02} & {s}x{e2:02}"),
    ("Season N (Episodes)", "Season {s} (Episode {e})"),
    ("S N E N", "Season {s:02} Ep {e:02}"),
    ("- NN (CRC)", "- {e:02} [1A2B3C4D]"),
    ("EpNN", "Ep{e:02}"),
    ("NN of NN", "{e:02} of 24"),
    ("(NN/NN)", "({e:02}/24)"),
    ("- Episode N - Name", "- Episode {e} - The Return"),
    ("NNN", "{s}{e:02}"),
    ("NxNN Name", "{s}x{e:02} The Return"),
    ("SxEx", "S{s}E{e}"),
    ("sN eN", "s{s} e{e}"),
    ("Season N Ep N", "Season {s} Ep {e}"),
    ("Series N Episode N", "Series {s} Episode {e}"),
    ("- NxNN - Name", "- {s}x{e:02} - The Return"),
    ("[NxNN]", "[{s}x{e:02}]"),
    ("(SxxExx)", "(S{s:02}E{e:02})"),
    ("Sxx Exx-Exx", "S{s:02} E{e:02}-E{e2:02}"),
    ("Exx-xx", "E{e:02}-{e2:02}"),
    ("Episodes N & N", "Episodes {e} & {e2}"),
    ("Ep. N-N", "Ep. {e}-{e2}"),
    ("NN-NN", "{e:02}-{e2:02}"),
    ("- NN END", "- {e:02} END"),
    ("#N", "#{e}"),
    ("Capitulo N", "Capitulo {e}"),
    ("Cap NNN", "Cap {s}{e:02}"),
    ("Folge N", "Folge {e}"),
    ("Odcinek N", "Odcinek {e}"),
    ("- SxxExx - Name", "- S{s:02}E{e:02} - The Return"),
    ("Season N Episode N-N", "Season {s} Episode {e}-{e2}"),
    ("Sxx complete pack", "S{s:02} COMPLETE"),
    ("Seasons N-N", "Seasons {s}-{s2}"),
    ("Season N & N", "Season {s} & {s2}"),
    ("S0N-S0N Complete", "S{s:02}-S{s2:02} Complete"),
)
TAGS = (
    "720p HDTV x264-GRP",
    "1080p WEB-DL DDP5.1 H.264-GRP",
    "1080p BluRay x264-GRP",
    "2160p WEB-DL HDR HEVC-GRP",
    "480p DVDRip XviD-GRP",
    "[1080p]",
    "(720p)",
    "MULTi 1080p WEB x264-GRP",
    "FRENCH 720p HDTV-GRP",
    "German DL 1080p BluRay x264-GRP",
    "iTA ENG 1080p WEBRip x265-GRP",
    "WEBRip AAC2.0",
    "",
    "[1080p][HEVC][1A2B3C4D].mkv",
    "720p HDTVRip.avi",
    "BDRip 1080p Dual Audio",
    "VOSTFR 1080p WEB",
    "Sub ITA 720p HDTV",
    "DVB x264-GRP",
    "(BD 1920x1080 x265 FLAC)",
    "[WEB-DL 1080p AAC]",
    "1080p AMZN WEB-DL DDP5.1 H 264-GRP",
    "HDR10 2160p UHD BluRay REMUX HEVC",
    "PROPER 720p HDTV x264-GRP",
    "ENG 1080p",
    "Castellano 720p",
)
SEPARATORS = (".", " ", "_", "-")
# A film's name: its year and edition in the ways names write them, before the tags.
YEARS = ("{y}", "({y})", "[{y}]", "")
EDITIONS = ("", "", "", "Directors Cut", "Extended", "Remastered", "UNRATED", "3D HSBS", "Criterion", "IMAX")
FILM_TAGS = (
    "HDCAM x264-GRP",
    "TS XviD-GRP",
    "HDRip AC3-GRP",
    "WEB-DLRip",
    "BDRemux 1080p",
    "DVD9",
    "R5 LiNE",
    "TELESYNC",
    "DVDSCR",
    "HC HDRip",
    "1080p BluRay DTS-HD MA 7.1 x264-GRP",
    "2160p UHD BluRay TrueHD Atmos 7.1 HEVC",
    "VFF 1080p BluRay",
    "TRUEFRENCH DVDRip",
    "Latino 720p",
    "Dublado 1080p",
    "Rus Ukr 1080p",
    "720p WEBRip 800MB",
    "1080p 10bit HEVC",
    "HDTV 576p",
    "BRRip 720p",
    "WEB 1080p H264",
)
LANGUAGE_NAMES = ("", "German", "GERMAN", "French", "iTALiAN")
PREFIXES = ("", "", "", "[GRP] ", "www.Example.org - ", "[www.Example.com] ")


def invented_names(count: int, seed: int) -> list[tuple[str, str]]:
    """(shape, name) pairs, a show's and a film's in turn, the same for a seed on every machine."""
    pick = random.Random(seed)
    names: dict[str, str] = {}
    while len(names) < count:
        shape, template = pick.choice(EPISODES)
        season, episode = pick.randint(1, 12), pick.randint(1, 24)
        numbers = template.format(s=season, e=episode, e2=episode + 1, s2=season + pick.randint(1, 3))
        year = str(pick.randint(1920, 2024)) if pick.random() < 0.4 else ""
        if year and pick.random() < 0.5:
            year = f"({year})"
        parts = [pick.choice(TITLES), year, numbers, pick.choice(TAGS)]
        separator = pick.choice(SEPARATORS)
        name = " ".join(part for part in parts if part)
        if separator != " ":
            name = name.replace(" ", separator)
        if pick.random() < 0.15:
            name = f"[GRP] {name}"
        names.setdefault(name, shape)
        year_form = pick.choice(YEARS)
        year = year_form.format(y=pick.randint(1920, 2024))
        parts = [pick.choice(TITLES), year, pick.choice(EDITIONS), pick.choice(FILM_TAGS)]
        if pick.random() < 0.25:  # an edition and a language before the year: "Title UNCUT German 2010 DL"
            parts = [parts[0], parts[2], pick.choice(LANGUAGE_NAMES), parts[1], parts[3]]
        name = " ".join(part for part in parts if part)
        if separator != " ":
            name = name.replace(" ", separator)
        names.setdefault(pick.choice(PREFIXES) + name, f"film, year {year_form or 'none'}")
    return [(shape, name) for name, shape in names.items()]


def agreed(field: str, first: dict[str, object], second: dict[str, object]) -> bool:
    if field == "title":
        return fold(str(first["title"])) == fold(str(second["title"]))
    return first[field] == second[field]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--names", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--field", choices=[f for f in FIELDS if f != "title~"])
    parser.add_argument("--show", type=int, default=3)
    args = parser.parse_args()
    parsett, guessit = parsett_reader(), guessit_reader()
    if parsett is None or guessit is None:
        raise SystemExit("needs parsett and guessit (bench/parse-requirements.txt)")
    fields = [args.field] if args.field else ["title", "year", "resolution", "source", "seasons", "episodes"]
    names = invented_names(args.names, args.seed)
    disagreements: dict[str, Counter[str]] = defaultdict(Counter)
    examples: dict[tuple[str, str], list[str]] = defaultdict(list)
    for shape, name in names:
        mine, theirs, other = ours(name), parsett(name), guessit(name)
        for field in fields:
            if agreed(field, theirs, other) and not agreed(field, mine, theirs):
                disagreements[field][shape] += 1
                if len(examples[field, shape]) < args.show:
                    examples[field, shape].append(f"{name!r}: ours {mine[field]!r}, both {theirs[field]!r}")
    print(f"{len(names)} invented names (seed {args.seed})")
    for field in fields:
        print(f"\n{field}: {sum(disagreements[field].values())} where parsett and guessit agree and ours not")
        for shape, count in disagreements[field].most_common():
            print(f"  {shape}: {count}")
            for example in examples[field, shape]:
                print(f"    {example}")


if __name__ == "__main__":
    main()
