"""How the PDF report lays a block out, and what one release's two builds of it share.

A release builds its report twice: before the charge from placeholder values (the rehearsal,
publish.preflight_bundle), then from the noised record. Each build keeps a block (a
statistic, an answer) on one page by trying it first on a scratch document (``keep_together``).
A ``ReportLayout`` is what the second build takes over from the first: the scratch document
(its fonts read once per release, not once per build) and the height of every block made of
text alone, keyed by that text. The height of such a block on a fresh page is a function of its
steps (texts, sizes, the width) and of the page and fonts, all the same in both builds, so a
height found by the rehearsal is the height the real build would find: the bytes do not
change (tests/core/test_report_layout.py builds with and without the layout and compares).
The statistics' tables are not keyed: the rehearsal lays them out with the widest placeholder
values, so the real values are laid out again.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..support.fonts import REPORT_FONTS, drawable_text, report_font_dir

#: One step of a text block: ("heading" | "para", text, font size in points)
TextStep = tuple[str, str, float]


def new_document() -> Any:
    """An A4 report document with the report's fonts and page breaks: the PDF and its
    scratch copy are made alike, so a block takes the same room on both."""
    from fpdf import FPDF

    class ReportPDF(FPDF):
        def normalize_text(self, text: str) -> str:  # every drawn text passes here
            return str(super().normalize_text(drawable_text(text)))  # none vanishes

    doc = ReportPDF(format="A4")
    fonts = report_font_dir()  # one font, whose characters plans are held to
    for style, file in REPORT_FONTS.items():
        doc.add_font("DejaVu", style, str(fonts / file))
    doc.set_auto_page_break(True, margin=15)
    return doc


def heading(out: Any, text: str, size: float, width: float) -> None:
    out.set_font("DejaVu", "B", size)
    out.multi_cell(width, size * 0.55, text)
    out.ln(1)


def para(out: Any, text: str, size: float, width: float) -> None:
    out.set_font("DejaVu", "", size)
    out.multi_cell(width, size * 0.5, text, align="L")
    out.ln(1.5)


def draw_text(out: Any, steps: Sequence[TextStep], width: float) -> None:
    """A block of headings and paragraphs, in order."""
    for kind, text, size in steps:
        (heading if kind == "heading" else para)(out, text, size, width)


class ReportLayout:
    """The scratch document ``keep_together`` tries blocks on, never written, and the heights
    it found for text blocks (``None``: taller than a page). One per release: the rehearsal
    makes it, the real build reuses it; a report built alone makes its own."""

    def __init__(self) -> None:
        self.scratch = new_document()
        self.heights: dict[tuple[Any, ...], float | None] = {}
        self.tried = 0  # blocks laid out on the scratch document (the rest were known)

    def height(self, pdf: Any, draw: Callable[[Any], None],
               key: tuple[Any, ...] | None = None) -> float | None:
        """The block's height on a fresh page, or None when it does not end on that page."""
        if key is not None and key in self.heights:
            return self.heights[key]
        scratch = self.scratch
        scratch.add_page()
        page = scratch.page
        scratch.set_y(pdf.t_margin)
        draw(scratch)
        self.tried += 1
        height = scratch.y - pdf.t_margin if scratch.page == page else None
        if key is not None:
            self.heights[key] = height
        return height


def keep_together(pdf: Any, draw: Callable[[Any], None], layout: ReportLayout,
                  key: tuple[Any, ...] | None = None) -> None:
    """Draw a block (``draw(out)``) on the current page, or on a new one when it does not fit
    there but fits a page of its own; a block taller than a page starts where it is and
    flows on (so no page is left half empty for it). The block is tried on a fresh page of
    the layout's scratch document (fpdf's own dry run, offset_rendering, deep-copies the
    whole document so far, every time, which made a report of N statistics cost N²: 150
    statistics took minutes). ``key``: everything the block draws, for a block whose height
    the layout may remember (text blocks: ``text_block``)."""
    height = layout.height(pdf, draw, key)
    if height is not None and height <= pdf.page_break_trigger - pdf.t_margin \
            and pdf.will_page_break(height):
        pdf.add_page()
    draw(pdf)


def keep_text_together(pdf: Any, steps: Sequence[TextStep], width: float,
                       layout: ReportLayout) -> None:
    """``keep_together`` for a block of headings and paragraphs: its height is remembered
    under its steps and width, which are all it depends on."""
    keep_together(pdf, lambda out: draw_text(out, steps, width), layout,
                  key=("text", width, tuple(steps)))
