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


# Fonts a chart falls back to, in this order, for the letters DejaVu Sans lacks (CJK category
# names above all), when one is installed: matplotlib draws each glyph from the first font of
# the list that has it.
CHART_FALLBACKS = ("Noto Sans CJK JP", "Noto Sans CJK SC", "Noto Sans CJK TC",
                   "Noto Sans CJK KR", "Source Han Sans", "Source Han Sans SC",
                   "Droid Sans Fallback", "WenQuanYi Zen Hei", "WenQuanYi Micro Hei",
                   "Noto Sans", "Noto Sans Arabic", "Noto Sans Hebrew",
                   "Noto Sans Devanagari", "Noto Sans Thai")
# their files' names, lower case, without separators: matplotlib's cached font list may predate
# an installed font (or hold only its own fonts), so these are looked for on the system too
_FALLBACK_FILES = ("notosanscjk", "sourcehansans", "droidsansfallback", "wqy",
                   "notosans-regular", "notosansarabic-regular", "notosanshebrew-regular",
                   "notosansdevanagari-regular", "notosansthai-regular")


def _cmap(path: str | Path) -> frozenset[int]:
    """The code points a font file (a .ttc: its first font) has glyphs for; none when it
    does not read."""
    from fontTools.ttLib import TTFont

    try:
        font = TTFont(path, lazy=True, fontNumber=0)
    except Exception:  # an unreadable installed font is a font we do not use
        return frozenset()
    try:
        return frozenset(font.getBestCmap() or ())
    except Exception:
        return frozenset()
    finally:
        font.close()


@functools.lru_cache(maxsize=1)
def chart_fonts() -> tuple[tuple[str, ...], frozenset[int]]:
    """The font families charts draw with (DejaVu Sans, then each installed fallback that adds
    glyphs) and every code point they cover together."""
    from matplotlib import font_manager

    points = set(_drawable())
    families = ["DejaVu Sans"]
    manager = font_manager.fontManager
    known = {entry.fname for entry in manager.ttflist}
    try:
        system = font_manager.findSystemFonts()
    except Exception:  # no font directory, no fc-list: DejaVu Sans alone, marks for the rest
        system = []
    for path in system:
        base = Path(path).name.lower().replace("_", "")
        if path not in known and any(base.startswith(f) for f in _FALLBACK_FILES):
            try:
                manager.addfont(path)
            except Exception:  # a font matplotlib cannot read is one we do not use
                continue
    installed: dict[str, str] = {}
    for entry in manager.ttflist:
        installed.setdefault(entry.name, entry.fname)
    for name in CHART_FALLBACKS:
        if name in installed:
            more = _cmap(installed[name]) - points
            if more:
                families.append(name)
                points |= more
    return tuple(families), frozenset(points)


def chart_text(text: str) -> str:
    """``text`` as a chart draws it: each character no chart font has (``chart_fonts``)
    replaced by U+FFFD (�), as in the PDF, so matplotlib neither drops it silently nor warns
    "Glyph … missing from font(s)"."""
    if text.isascii():
        return text
    points = chart_fonts()[1]
    return "".join(ch if ch.isspace() or ord(ch) in points else MISSING_MARK for ch in text)
