"""Posters for the demo's TMDB stand-in, drawn here with the standard library: nobody's artwork.

Each is a 342 x 513 PNG (TMDB's w342 size): a colour of its own per title, a frame, the title's initials in
large letters, the title and year below, and "DEMO POSTER" on top, so it is plainly a stand-in.
"""

from __future__ import annotations

import hashlib
import re
import struct
import zlib

WIDTH = 342
HEIGHT = 513
# A 5 x 7 bitmap font: the letters, digits and signs film titles use here.
_GLYPHS = {
    "A": ".###.#...##...#######...##...##...#",
    "B": "####.#...##...#####.#...##...#####.",
    "C": ".###.#...##....#....#....#...#.###.",
    "D": "####.#...##...##...##...##...#####.",
    "E": "######....#....####.#....#....#####",
    "F": "######....#....####.#....#....#....",
    "G": ".###.#...##....#.####...##...#.####",
    "H": "#...##...##...#######...##...##...#",
    "I": ".###...#....#....#....#....#...###.",
    "J": "..###...#....#....#....##...#.###..",
    "K": "#...##..#.#.#..##...#.#..#..#.#...#",
    "L": "#....#....#....#....#....#....#####",
    "M": "#...###.###.#.##...##...##...##...#",
    "N": "#...###..##.#.##..###...##...##...#",
    "O": ".###.#...##...##...##...##...#.###.",
    "P": "####.#...##...#####.#....#....#....",
    "Q": ".###.#...##...##...##.#.##..#..##.#",
    "R": "####.#...##...#####.#.#..#..#.#...#",
    "S": ".####.....#.....###.....#....#####.",
    "T": "#####..#....#....#....#....#....#..",
    "U": "#...##...##...##...##...##...#.###.",
    "V": "#...##...##...##...##...#.#.#...#..",
    "W": "#...##...##...##.#.##.#.###.###...#",
    "X": "#...##...#.#.#...#...#.#.#...##...#",
    "Y": "#...##...#.#.#...#....#....#....#..",
    "Z": "#####....#...#...#...#...#....#####",
    "0": ".###.#...##..###.#.###..##...#.###.",
    "1": "..#...##....#....#....#....#...###.",
    "2": ".###.#...#....#...#...#...#...#####",
    "3": "####.....#....#.###.....#....#####.",
    "4": "...#...##..#.#.#..#.#####...#....#.",
    "5": "######....####.....#....##...#.###.",
    "6": "..##..#...#....####.#...##...#.###.",
    "7": "#####....#...#...#...#....#....#...",
    "8": ".###.#...##...#.###.#...##...#.###.",
    "9": ".###.#...##...#.####....#...#..##..",
    " ": "." * 35,
    "-": "..........#####....................",
    ":": ".......##..##.......##..##.........",
    ".": "..............................##..##".ljust(35, ".")[:35],
    "'": "..#....#...#.......................",
    "(": "...#...#...#....#....#.....#.....#.",
    ")": ".#.....#.....#....#....#...#...#...",
}
_SMALL_WORDS = frozenset({"of", "the", "a", "an", "and", "in", "on", "eine", "des", "der", "die", "la", "le"})

type Colour = tuple[int, int, int]


def initials(title: str) -> str:
    """Return a title's initials as a poster shows them: "BBB", "NLD", "S" for a one-word title."""
    words = [word for word in re.findall(r"[A-Za-z0-9]+", title) if word.lower() not in _SMALL_WORDS]
    return "".join(word[0] for word in words[:3]).upper() or "?"


class _Canvas:
    """RGB rows, drawn in filled rectangles (all a poster needs)."""

    def __init__(self, top: Colour, bottom: Colour) -> None:
        self.rows = []
        for y in range(HEIGHT):
            mix = y / (HEIGHT - 1)
            colour = tuple(round(a + (b - a) * mix) for a, b in zip(top, bottom, strict=True))
            self.rows.append(bytearray(bytes(colour) * WIDTH))

    def rectangle(self, x: int, y: int, width: int, height: int, colour: Colour) -> None:
        x, width = max(0, x), min(width, WIDTH - max(0, x))
        if width <= 0:
            return
        span = bytes(colour) * width
        for row in self.rows[max(0, y) : min(HEIGHT, y + height)]:
            row[x * 3 : (x + width) * 3] = span

    def text(self, text: str, y: int, scale: int, colour: Colour) -> None:
        """Draw one line, centred, each glyph pixel a `scale`-sized square."""
        advance = 6 * scale
        x = (WIDTH - advance * len(text) + scale) // 2
        for char in text:
            glyph = _GLYPHS.get(char.upper(), _GLYPHS[" "])
            for index, bit in enumerate(glyph):
                if bit == "#":
                    row, column = divmod(index, 5)
                    self.rectangle(x + column * scale, y + row * scale, scale, scale, colour)
            x += advance

    def png(self) -> bytes:
        def chunk(kind: bytes, data: bytes) -> bytes:
            return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

        raw = b"".join(b"\x00" + bytes(row) for row in self.rows)  # filter "none" before each row
        header = struct.pack(">IIBBBBB", WIDTH, HEIGHT, 8, 2, 0, 0, 0)  # 8-bit RGB
        return (
            b"\x89PNG\r\n\x1a\n"
            + chunk(b"IHDR", header)
            + chunk(b"IDAT", zlib.compress(raw, 9))
            + chunk(b"IEND", b"")
        )


def _wrapped(title: str, width: int) -> list[str]:
    lines: list[str] = []
    for word in title.upper().split():
        if lines and len(lines[-1]) + 1 + len(word) <= width:
            lines[-1] += " " + word
        else:
            lines.append(word[:width])
    return lines[:4]


def poster_png(title: str, year: int | None = None) -> bytes:
    """Draw the demo poster of a title."""
    digest = hashlib.sha1(title.encode(), usedforsecurity=False).digest()
    hue = tuple(40 + value % 100 for value in digest[:3])
    top = (hue[0], hue[1], hue[2])
    bottom = (hue[0] // 4, hue[1] // 4, hue[2] // 4)
    light: Colour = (240, 236, 224)
    canvas = _Canvas(top, bottom)
    for inset, colour in ((10, light), (14, top)):  # a frame: a light line, then the background again
        canvas.rectangle(inset, inset, WIDTH - 2 * inset, HEIGHT - 2 * inset, colour)
    canvas.rectangle(18, 18, WIDTH - 36, HEIGHT - 36, top)
    canvas.text("DEMO POSTER", 34, 2, light)
    letters = initials(title)
    canvas.text(letters, 110, 18 if len(letters) < 3 else 14, light)  # noqa: PLR2004
    y = 290
    for line in _wrapped(title, 12):
        canvas.text(line, y, 4, light)
        y += 40
    if year is not None:
        canvas.text(str(year), HEIGHT - 70, 3, light)
    return canvas.png()
