"""Speed of the local sentences: loading the templates, and matching one sentence.

Run: /var/cache/agent-media/venv-ha-2025.4/bin/python bench/sentences.py  (from the repository root)
     (newest HA: scripts/common.sh's in_root with /opt/venv-ha-newest/bin/python, cd /src)

Sentences are the test cases in tests/sentences/<language>.yaml: commands, answers to a question, and
near misses, in every language (a few hundred), then a few long adversarial ones. Prints the median of
several runs of the load (each in a fresh interpreter, as Home Assistant loads them once at start-up)
and, per sentence, the median, 95th percentile and worst of the per-sentence medians, in wall time and
CPU time.
"""

from __future__ import annotations

import argparse
from pathlib import Path
import statistics
import subprocess
import sys
import time

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from custom_components.agent_media.sentences import LocalSentences  # noqa: E402
from custom_components.agent_media.sentences.matcher import MAX_SENTENCE_CHARS  # noqa: E402
from homeassistant.util.yaml import load_yaml  # noqa: E402

CASES = REPO / "tests" / "sentences"
# Long sentences made to give hassil many readings (every "in" may end a title), cut at the length limit.
ADVERSARIAL = [
    ("en", "download " + "Sintel in 4K " * 25),
    ("en", "download " + "in " * 100),
    ("en", "find torrents for " + "of " * 100),
    ("en", "download " + "The Expanse season 2 episode 3 " * 10),
    ("de", "lade " + "Sintel in 4K " * 25 + "herunter"),
    ("fr", "télécharge " + "de la saison 2 " * 20),
]


def sentences_to_match() -> list[tuple[str, str, bool]]:
    """(language, text, expecting_answer) for every test case."""
    cases: list[tuple[str, str, bool]] = []
    for path in sorted(CASES.glob("*.yaml")):
        spec = load_yaml(path)
        assert isinstance(spec, dict)
        language = path.stem
        cases += [(language, text, False) for examples in spec["commands"].values() for text, _ in examples]
        cases += [(language, text, True) for text, _ in spec["answers"]]
        cases += [(language, text, False) for text in spec["not_commands"] + spec["ambiguous"]]
    return cases


def load_once() -> None:
    """Print the wall and CPU milliseconds of one load (in this fresh interpreter)."""
    wall, cpu = time.perf_counter(), time.process_time()
    LocalSentences.load()
    print(f"{(time.perf_counter() - wall) * 1000:.2f} {(time.process_time() - cpu) * 1000:.2f}")


def bench_load(runs: int) -> None:
    walls, cpus = [], []
    for _ in range(runs):
        out = subprocess.run(  # noqa: S603 - this interpreter, this file
            [sys.executable, __file__, "--load-once"], check=True, capture_output=True, text=True
        ).stdout.split()
        walls.append(float(out[0]))
        cpus.append(float(out[1]))
    print(
        f"load, all languages ({runs} fresh runs): median {statistics.median(walls):.1f} ms wall, "
        f"{statistics.median(cpus):.1f} ms CPU (best {min(walls):.1f} ms wall)"
    )


def bench_match(runs: int) -> None:
    sentences = LocalSentences.load()
    cases = sentences_to_match()
    per_wall: list[float] = []
    per_cpu: list[float] = []
    matched = 0
    for language, text, expecting in cases:
        walls, cpus = [], []
        for _ in range(runs):
            wall, cpu = time.perf_counter(), time.thread_time()
            match = sentences.match(text, language, expecting_answer=expecting)
            cpus.append(time.thread_time() - cpu)
            walls.append(time.perf_counter() - wall)
        matched += match is not None
        per_wall.append(statistics.median(walls) * 1000)
        per_cpu.append(statistics.median(cpus) * 1000)
    worst_cpu = []
    for language, text in ADVERSARIAL:
        cpus = []
        for _ in range(runs):
            cpu = time.thread_time()
            sentences.match(text[:MAX_SENTENCE_CHARS], language)
            cpus.append(time.thread_time() - cpu)
        worst_cpu.append(statistics.median(cpus) * 1000)
    for label, values in (("wall", per_wall), ("CPU", per_cpu)):
        ranked = sorted(values)
        p95 = ranked[int(len(ranked) * 0.95)]
        print(
            f"match, {len(cases)} sentences ({matched} matched), median of {runs} runs each, {label}: "
            f"median {statistics.median(values):.2f} ms, p95 {p95:.2f} ms, worst {ranked[-1]:.2f} ms"
        )
    print(
        f"match, {len(ADVERSARIAL)} adversarial sentences at the length limit, CPU: "
        f"median {statistics.median(worst_cpu):.2f} ms, worst {max(worst_cpu):.2f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=7, help="runs per sentence, and loads")
    parser.add_argument("--load-once", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.load_once:
        load_once()
        return
    import hassil  # noqa: PLC0415 - only to say which one was measured

    print(f"Python {sys.version.split()[0]}, hassil {_version('hassil')} ({Path(hassil.__file__).parent})")
    bench_load(args.runs)
    bench_match(args.runs)


def _version(package: str) -> str:
    from importlib.metadata import version  # noqa: PLC0415

    return version(package)


if __name__ == "__main__":
    main()
