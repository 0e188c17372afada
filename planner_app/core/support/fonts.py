"""The font the PDF report embeds (DejaVu Sans, shipped with matplotlib), and which
characters it can draw: text the report must show is refused where it cannot be drawn, never
silently left out of the PDF."""

from __future__ import annotations

import functools
from pathlib import Path

REPORT_FONTS = {"": "DejaVuSans.ttf", "B": "DejaVuSans-Bold.ttf"}  # style -> file


def report_font_dir() -> Path:
    """matplotlib's font folder (its own answer: a frozen app keeps it elsewhere)."""
    import matplotlib

    return Path(matplotlib.get_data_path()) / "fonts" / "ttf"


@functools.lru_cache(maxsize=1)
def _drawable() -> frozenset[int]:
    """The code points every style of the report's font has a glyph for."""
    from fontTools.ttLib import TTFont  # type: ignore[import-untyped]

    points: frozenset[int] | None = None
    for file in REPORT_FONTS.values():
        font = TTFont(report_font_dir() / file, lazy=True)
        try:
            cmap = frozenset(font.getBestCmap())
        finally:
            font.close()
        points = cmap if points is None else points & cmap
    return points or frozenset()


def undrawable(text: str) -> list[str]:
    """The characters of ``text`` (each once, in order) the report's font cannot draw;
    printable ASCII needs no look-up."""
    if text.isascii():
        return []
    drawable = _drawable()
    out: list[str] = []
    for ch in text:
        if ch not in out and not ch.isspace() and ord(ch) not in drawable:
            out.append(ch)
    return out


MISSING_MARK = "\ufffd"  # what the report draws for a character its font lacks


def drawable_text(text: str) -> str:
    """``text`` with each character the report's font cannot draw replaced by U+FFFD (�), so
    the PDF shows that something is there instead of silently leaving it out."""
    missing = undrawable(text)
    if not missing:
        return text
    return "".join(MISSING_MARK if ch in missing else ch for ch in text)


@functools.lru_cache(maxsize=1)
def chart_fonts() -> tuple[tuple[str, ...], frozenset[int]]:
    """The font families charts draw with and every code point they cover: the report's own
    font only (DejaVu Sans, shipped with matplotlib), never a font installed on this machine.
    A chart is part of the report, which verify rebuilds byte for byte on the recipient's
    machine: a fallback found among the owner's system fonts would make the same bundle's
    report differ on a machine without it. Letters the font lacks are marked (chart_text), as
    in the PDF's text."""
    return ("DejaVu Sans",), _drawable()


def chart_text(text: str) -> str:
    """``text`` as a chart draws it: each character no chart font has (``chart_fonts``)
    replaced by U+FFFD (�), as in the PDF, so matplotlib neither drops it silently nor warns
    "Glyph … missing from font(s)"."""
    if text.isascii():
        return text
    points = chart_fonts()[1]
    return "".join(ch if ch.isspace() or ord(ch) in points else MISSING_MARK for ch in text)
