"""Write every corpus bench/parse.py measures, from checkouts of the projects whose tests they are.

Run: python bench/corpora.py SOURCES OUT_DIR [--without RELEASE_NAMES.json]
SOURCES holds one checkout per project under the folder names of CORPORA below (SOURCES/ptn is a checkout of
github.com/platelminto/parse-torrent-title, SOURCES/kodi the folder of Kodi's test files that
bench/kodi_cases.py describes); guessit's rule-level tests come from the guessit package installed beside this
Python (bench/parse-requirements.txt). Each corpus is written by its bench/*_cases.py script, in the order
they were added; from Flexget's on, each is written without the names of every corpus before it and of the
files given with --without (the shared corpus of guessit's whole-name tests, for the README's figures), so
that no name counts twice when they are pooled. Nothing is written into this repository.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path
import subprocess
import sys

_BENCH = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Corpus:
    """One corpus: its file's name, the script that writes it, where its project's tests are."""

    name: str
    script: str
    source: str  # under SOURCES; "" for the installed guessit package's rule-level tests
    # Written without these corpora's names; None: without every corpus before it and those of --without.
    without: tuple[str, ...] | None = None


CORPORA = (
    Corpus("ptt", "ptt_cases.py", "ptt/tests", without=()),
    Corpus("ptn", "ptn_cases.py", "ptn", without=()),
    Corpus("sonarr", "sonarr_cases.py", "sonarr", without=()),
    Corpus("radarr", "radarr_cases.py", "radarr", without=()),
    Corpus("goptt", "goptt_cases.py", "goptt", without=("ptt",)),
    Corpus("medusa", "medusa_cases.py", "medusa", without=()),
    Corpus("anitopy", "anitopy_cases.py", "anitopy", without=()),
    Corpus("tvnamer", "tvnamer_cases.py", "tvnamer", without=()),
    Corpus("sickgear", "sickgear_cases.py", "sickgear", without=()),
    Corpus("guessit-rules", "guessit_rules_cases.py", "", without=()),
    Corpus("flexget", "flexget_cases.py", "flexget"),
    Corpus("rls", "rls_cases.py", "rls"),
    Corpus("jellyfin", "jellyfin_cases.py", "jellyfin"),
    Corpus("srp", "srp_cases.py", "srp"),
    Corpus("srpphp", "srpphp_cases.py", "srpphp"),
    Corpus("jellyfin-films", "jellyfin_film_cases.py", "jellyfin"),
    Corpus("kodi", "kodi_cases.py", "kodi"),
    Corpus("videofilename", "videofilename_cases.py", "videofilename"),
)


def _guessit_rules() -> Path:
    import guessit  # noqa: PLC0415  # bench-only, and only this corpus needs it

    return Path(guessit.__file__).parent / "test" / "rules"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("sources", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--without", type=Path, action="append", default=[], help="a corpus no name repeats")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    for corpus in CORPORA:
        out = args.out / f"{corpus.name}.json"
        source = args.sources / corpus.source if corpus.source else _guessit_rules()
        dropped = (
            [*args.without, *written]
            if corpus.without is None
            else [args.out / f"{name}.json" for name in corpus.without]
        )
        command = [sys.executable, str(_BENCH / corpus.script), str(source), str(out)]
        for path in dropped:
            command += ["--without", str(path)]
        subprocess.run(command, check=True)  # noqa: S603 - this bench's own scripts
        written.append(out)


if __name__ == "__main__":
    main()
