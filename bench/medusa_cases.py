"""Turn Medusa's guessit tests into a labelled file for bench/parse.py: names the parser was not developed on.

Run: python bench/medusa_cases.py MEDUSA_CHECKOUT OUT.json
MEDUSA_CHECKOUT is a checkout of Medusa (github.com/pymedusa/Medusa, GPL-3.0); tests/test_guessit.yml holds
release names of TV shows and what Medusa's tuned guessit must read from each. PyYAML reads it (in the bench's
environment only). The file is read as data, never run.

Medusa's test compares the whole answer, so a field absent from a test is asserted absent: no season, no
episode, no year, no language. Its guessit puts subtitle languages apart ("VOSTFR" is a French subtitle), so
only `language` labels the languages. Names Medusa tests with options (an anime show type, a known show list)
or marks disabled are left out: their answer depends on what the name does not say. Values go through
bench/guessit_rules_cases.py's mapping and bench/vocabulary.py. The output stays outside the repository.
"""

from __future__ import annotations

from pathlib import Path
import sys
from typing import Any

from guessit_rules_cases import labels, tests
from vocabulary import languages_of, write_corpus


def expected(asserted: dict[str, Any]) -> dict[str, Any]:
    """Labels of a whole-name test: what it lists, and absent for the fields it leaves out."""
    found = labels(asserted)
    found.setdefault("seasons", [])
    found.setdefault("episodes", [])
    found.setdefault("year", None)
    found.setdefault("resolution", None)
    found.setdefault("codec", None)
    found.setdefault("hdr", [])
    found.setdefault("languages", languages_of(asserted.get("language")))
    found.setdefault("trash", False)  # no source and no "other" that marks a capture
    return found


def main() -> None:
    checkout, out = Path(sys.argv[1]), Path(sys.argv[2])
    cases = [
        {"corpus": "medusa", "name": name, "expected": expected(asserted)}
        for name, asserted in tests(checkout / "tests" / "test_guessit.yml")
        if asserted and "options" not in asserted and not asserted.get("disabled")
    ]
    write_corpus(out, cases)


if __name__ == "__main__":
    main()
