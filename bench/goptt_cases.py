"""Turn go-ptt's test tables into a labelled file for bench/parse.py.

Run: python bench/goptt_cases.py GO_PTT_CHECKOUT OUT.json [--without OTHER.json ...]
GO_PTT_CHECKOUT is a checkout of go-ptt (github.com/MunifTanjim/go-ptt, MIT), a Go port of parsett whose tests
carry parsett's and its JavaScript forerunner's conventions with names of their own. Its `*_test.go` tables
(`[]struct{...}{ {...}, ... }`) are read as data by a small reader of Go literals, never compiled or run. A
table labels the fields its struct has (`seasons []int`, `year string`, …); a `Result{...}` row is a whole
answer, so a field it leaves out is asserted empty. `--without` drops every name another corpus already holds
(parsett's own tests, where go-ptt copied them), so the names left are ones no other corpus has. Values are
mapped by bench/vocabulary.py as parsett's are; a year range ("2001-2011", which parsett labels as no year)
is not scored, and go-ptt labels no trash. The output stays outside the repository: the names are real
release names.
"""

from __future__ import annotations

import ast
import re
from typing import Any

from ptt_cases import SUBTITLES_RE, vocabulary
from vocabulary import extractor_arguments, write_corpus

_TOKEN_RE = re.compile(
    r'"(?:[^"\\\n]|\\.)*"|`[^`]*`|-?\d+|[A-Za-z_][A-Za-z0-9_.]*|[{}\[\](),:&]|//[^\n]*|\s+|.', re.DOTALL
)
# A struct's fields of ours, by go-ptt's names; `ttitle` is the release name.
FIELDS = {
    "title": "title",
    "year": "year",
    "resolution": "resolution",
    "quality": "quality",
    "codec": "codec",
    "seasons": "seasons",
    "episodes": "episodes",
    "languages": "languages",
    "hdr": "hdr",
}
# go-ptt's language list also holds markers that are no language.
_NOT_LANGUAGES = frozenset({"multi audio", "dual audio", "multi subs"})


class _Tokens:
    def __init__(self, text: str) -> None:
        self.items = [
            token for token in _TOKEN_RE.findall(text) if not token.isspace() and not token.startswith("//")
        ]
        self.at = 0

    def peek(self, ahead: int = 0) -> str:
        index = self.at + ahead
        return self.items[index] if index < len(self.items) else ""

    def take(self, expected: str | None = None) -> str:
        token = self.peek()
        if expected is not None and token != expected:
            raise ValueError(f"expected {expected!r}, found {token!r}")
        self.at += 1
        return token


_CONSTANTS = {"true": True, "false": False, "nil": None}


def _scalar(word: str) -> Any:
    if word.startswith('"'):
        return ast.literal_eval(word)
    if word.startswith("`"):
        return word[1:-1]
    return int(word)


def _value(tokens: _Tokens) -> Any:
    """Read one Go value: a string, a number, a bool, nil, a slice or struct literal, or intRange(a, b)."""
    word = tokens.peek()
    if word in _CONSTANTS:
        return _CONSTANTS[tokens.take()]
    if word[:1] in {'"', "`"} or re.fullmatch(r"-?\d+", word):
        return _scalar(tokens.take())
    if word == "intRange":
        tokens.take()
        start, end = _composite(tokens, "(", ")")
        return list(range(start, end + 1))
    if word == "[":  # a slice: []int{...}, or a typed nil: []string(nil)
        tokens.take()
        tokens.take("]")
        tokens.take()
        return _composite(tokens, "(", ")")[0] if tokens.peek() == "(" else _composite(tokens)
    return _composite(tokens)  # {...}, Result{...}, &Result{...}


def _composite(tokens: _Tokens, opening: str = "{", closing: str = "}") -> Any:
    """Read `{a, b}` (or `(a, b)`) as a list or `{Key: a, …}` as a dict."""
    if tokens.peek() == "&":
        tokens.take()
    if tokens.peek() != opening:  # a type name before the literal
        tokens.take()
    tokens.take(opening)
    positional: list[Any] = []
    keyed: dict[str, Any] = {}
    while tokens.peek() != closing:
        if tokens.peek(1) == ":" and re.fullmatch(r"[A-Za-z_]\w*", tokens.peek()):
            key = tokens.take()
            tokens.take(":")
            keyed[key] = _value(tokens)
        else:
            positional.append(_value(tokens))
        if tokens.peek() == ",":
            tokens.take()
    tokens.take(closing)
    return keyed or positional


def _struct_fields(body: str) -> list[str]:
    names: list[str] = []
    for line in body.splitlines():
        words = line.split("//")[0].replace(",", " ").split()
        names.extend(words[:-1])
    return names


def tables(text: str) -> list[tuple[list[str], list[Any]]]:
    """Return each table of a test file: its struct's field names and its rows."""
    declared = re.finditer(r"type (\w+) struct \{([^}]*)\}", text)
    named = {match[1]: _struct_fields(match[2]) for match in declared}
    found = []
    for match in re.finditer(r"\[\](?:struct \{([^}]*)\}|(\w+))\{", text):
        fields = _struct_fields(match[1]) if match[1] is not None else named.get(match[2] or "")
        if not fields:
            continue
        tokens = _Tokens(text[match.end() - 1 :])
        found.append((fields, _composite(tokens)))
    return found


def _label(field: str, value: Any) -> dict[str, Any]:
    if field == "year":
        if value and not re.fullmatch(r"\d{4}", value):
            return {"year": "oov:range"}
        return {"year": int(value) if value else None}
    if field == "languages":
        return vocabulary(field, [code.split("-")[0] for code in value or [] if code not in _NOT_LANGUAGES])
    if field in {"seasons", "episodes", "hdr"}:
        return vocabulary(field, value or [])
    return vocabulary(field, value if value != "" else None)


def labels(values: dict[str, Any]) -> dict[str, Any]:
    """Map one row's go-ptt labels to the vocabulary's fields."""
    expected: dict[str, Any] = {}
    for field, value in values.items():
        if (ours := FIELDS.get(field.lower())) is not None:
            expected |= _label(ours, value)
    return expected


def whole_result(result: dict[str, Any]) -> dict[str, Any]:
    """A `Result{...}` row: every field of ours it leaves out is asserted empty."""
    filled = {key.lower(): value for key, value in result.items()}
    return labels({field: filled.get(field, "" if field in {"title", "year"} else None) for field in FIELDS})


def main() -> None:
    checkout, out, elsewhere = extractor_arguments()
    cases: dict[str, dict[str, Any]] = {}
    for path in sorted(checkout.glob("*_test.go")):
        for fields, rows in tables(path.read_text(encoding="utf-8")):
            if "ttitle" not in fields:
                continue
            for row in rows:
                values = row if isinstance(row, dict) else dict(zip(fields, row, strict=True))
                name = values.get("ttitle")
                if not name or name in elsewhere:
                    continue
                if isinstance(values.get("result"), dict):
                    expected = whole_result(values["result"])
                else:
                    expected = labels(values)
                cases.setdefault(name, {}).update(expected)
    for name, expected in cases.items():
        if "languages" in expected and SUBTITLES_RE.search(name):
            expected["languages"] = "oov:subtitles named"
    labelled = [{"corpus": "go-ptt", "name": name, "expected": cases[name]} for name in cases if cases[name]]
    write_corpus(out, labelled)


if __name__ == "__main__":
    main()
