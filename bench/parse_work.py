"""The parser's work in instructions a name: a steady measure where timings move with the machine's load.

Runs the parser of this checkout (or parsett's) over every fifth name of the corpora given, under valgrind's
callgrind (Debian's `valgrind`), once only loading and once parsing; the difference, divided by the names, is
what parsing a name costs. The same command in two checkouts compares two versions of the parser:
    python3 bench/parse_work.py CORPUS.json [MORE.json ...] [--parser ours|parsett]
Plain Python, no Home Assistant (parsett from bench/parse-requirements.txt's environment).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
import re
import subprocess
import sys

_COLLECTED_RE = re.compile(r"Collected : (\d+)")


def _names(files: list[Path]) -> list[str]:
    names = [case["name"] for path in files for case in json.loads(path.read_text(encoding="utf-8"))["cases"]]
    return names[::5]


def _inner(files: list[Path], parser: str, *, parse: bool) -> None:
    """Load the parser and the names, and read them when `parse` is set."""
    if parser == "parsett":
        from PTT import parse_title as read  # noqa: PLC0415 - optional, for comparison only
    else:
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        from parse import parse_release as read  # noqa: PLC0415 - the bench's loader of our parser

    names = _names(files)
    if parse:
        for name in names:
            read(name)


def _instructions(files: list[Path], parser: str, *, parse: bool) -> int:
    command = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable, __file__]
    command += [str(path) for path in files] + ["--parser", parser, "--inner", "run" if parse else "load"]
    result = subprocess.run(command, capture_output=True, text=True, check=True)  # noqa: S603 - our own script
    match = _COLLECTED_RE.search(result.stderr)
    if match is None:
        raise SystemExit(f"callgrind printed no count:\n{result.stderr[-2000:]}")
    return int(match.group(1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("files", nargs="+", type=Path)
    parser.add_argument("--parser", choices=("ours", "parsett"), default="ours")
    parser.add_argument("--inner", choices=("load", "run"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.inner:
        _inner(args.files, args.parser, parse=args.inner == "run")
        return
    count = len(_names(args.files))
    work = _instructions(args.files, args.parser, parse=True) - _instructions(
        args.files, args.parser, parse=False
    )
    print(
        f"{args.parser}: {work / count / 1e6:.3f} million instructions a name ({count} names, Python "
        f"{sys.version.split()[0]})"
    )


if __name__ == "__main__":
    main()
