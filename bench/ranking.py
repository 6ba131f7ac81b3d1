"""Speed of release parsing and ranking on synthetic search results.

Run: /var/cache/agent-media/venv-ha-2025.4/bin/python bench/ranking.py  (from the repository root)

Results are realistic synthetic names of public-domain and CC titles (a mix of good releases, CAMs,
fakes, wrong titles and years, TV packs and episodes), shaped like TorrentResult.as_dict(). Prints the
median wall and CPU time of several runs for 100 and 1,000 results: parsing alone and parse + rank.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
import random
import statistics
import sys
import time

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from custom_components.agent_media.ranking import (
    RankingPreferences,
    parse_release,
    rank_releases,
)

TITLES = [
    ("Night of the Living Dead", 1968),
    ("Nosferatu", 1922),
    ("The General", 1926),
    ("Big Buck Bunny", 2008),
    ("Sintel", 2010),
    ("Tears of Steel", 2012),
    ("Elephants Dream", 2006),
    ("Return of the Living Dead", 1985),  # a wrong title for the NOTLD request
]
QUALITIES = [
    ("2160p", "UHD.BluRay.REMUX", "DV.HDR10.HEVC", "TrueHD.7.1.Atmos", 60e9),
    ("2160p", "WEB-DL", "DV.HDR10.HEVC", "DDP5.1.Atmos", 18e9),
    ("2160p", "WEB-DL", "HDR10+.AV1", "Opus.5.1", 12e9),
    ("1080p", "BluRay", "x264", "DTS-HD.MA.5.1", 12e9),
    ("1080p", "BluRay", "x264", "FLAC.1.0", 8.8e9),
    ("1080p", "WEB-DL", "x265", "DDP5.1", 4e9),
    ("1080p", "WEBRip", "x264", "AAC", 2.2e9),
    ("720p", "WEBRip", "x264", "AAC", 1.1e9),
    ("720p", "HDTV", "x264", "AC3", 1.4e9),
    ("480p", "DVDRip", "XviD", "MP3", 0.7e9),
    ("", "HDCAM", "x264", "AAC", 1.4e9),
    ("720p", "HDTS", "x264", "AAC", 1.2e9),
]
EXTRAS = ["", "", "", "MULTi.", "iTA.", "FRENCH.", "RESTORED.", "PROPER."]
GROUPS = ["GROUP", "FLUX", "PDGROUP", "OPEN", "CCGRP", "NoGrp"]


def synthetic_results(count: int, seed: int = 1968) -> list[dict[str, object]]:
    rng = random.Random(seed)
    results: list[dict[str, object]] = []
    for index in range(count):
        title, year = rng.choice(TITLES)
        resolution, source, video, audio, size = rng.choice(QUALITIES)
        dotted = title.replace(" ", ".")
        roll = rng.random()
        if roll < 0.05:
            year += rng.choice((-20, 22))  # a remake
        parts = [dotted, str(year), rng.choice(EXTRAS) + resolution, source, video, audio]
        name = ".".join(part.strip(".") for part in parts if part) + f"-{rng.choice(GROUPS)}"
        if roll > 0.97:
            name += ".mkv.exe"
        elif 0.90 < roll < 0.95:
            name = f"{title} ({year}) [{resolution or '720p'}] [{source}] [5.1] [YTS.MX]"
        info_hash = hashlib.sha1(f"bench {index}".encode(), usedforsecurity=False).hexdigest()
        results.append(
            {
                "title": name,
                "info_hash": info_hash,
                "magnet": f"magnet:?xt=urn:btih:{info_hash}",
                "torrent_url": None,
                "size": int(size * rng.uniform(0.5, 1.5)),
                "seeders": int(10 ** rng.uniform(0, 3.5)),
                "peers": rng.randint(0, 100),
                "tracker": "Example Tracker",
                "category_ids": [3001000],
                "virus_score": rng.choice((0.0, 0.1, 0.2, None, 0.9)),
                "published": "2021-04-16T10:21:00+00:00",
            }
        )
    return results


def measure(function: object, runs: int) -> tuple[float, float]:
    """Return the median wall and CPU time in ms (CPU time is steadier on a shared machine)."""
    assert callable(function)
    wall, cpu = [], []
    for _ in range(runs):
        start, start_cpu = time.perf_counter(), time.process_time()
        function()
        wall.append((time.perf_counter() - start) * 1000)
        cpu.append((time.process_time() - start_cpu) * 1000)
    return statistics.median(wall), statistics.median(cpu)


def main() -> None:
    preferences = RankingPreferences(resolution="2160p", languages=("en",))
    print(f"Python {sys.version.split()[0]}")
    for count in (100, 1000):
        results = synthetic_results(count)
        names = [str(result["title"]) for result in results]
        runs = 30 if count == 100 else 10
        parse_median, parse_cpu = measure(lambda names=names: [parse_release(n) for n in names], runs)
        rank_median, rank_cpu = measure(
            lambda results=results: rank_releases(
                results, title="Night of the Living Dead", year=1968, preferences=preferences
            ),
            runs,
        )
        ranked, rejected = rank_releases(
            results, title="Night of the Living Dead", year=1968, preferences=preferences
        )
        print(
            f"{count:>5} results: parse {parse_median:7.2f} ms (CPU {parse_cpu:.2f}, "
            f"{parse_median * 1000 / count:.0f} µs/title) · parse+rank {rank_median:7.2f} ms "
            f"(CPU {rank_cpu:.2f}) · {len(ranked)} ranked, {len(rejected)} rejected"
        )
    top = rank_releases(
        synthetic_results(100), title="Night of the Living Dead", year=1968, preferences=preferences
    )
    print("top of 100:", top[0][0].reason if top[0] else "nothing ranked")


if __name__ == "__main__":
    main()
