"""How the PDF report lays a block out, and what one release's two builds of it share.

A release builds its report twice: before the charge from placeholder values (the rehearsal,
publish.preflight_bundle), then from the noised record. Each block (a statistic, an answer)
is kept on one page by trying it first on a scratch document (``keep_together``): its height
on a fresh page decides whether it starts a new one.

The rehearsal is a *trial* build (``ReportLayout.trial``): every block is laid out once, on
the scratch document, and nowhere else; the scratch document, which then holds every text,
table and chart of the report in the report's fonts, is written out (``write_trial``: the
fonts subset, the images embedded). So whatever in the report can fail without the noise
(a text, a font, a table row too high, a kind of chart) fails there, before the charge, and
its work is not done a second time. It leaves the real build what the values cannot change:

- ``heights``: the height of every block made of text alone, keyed by its text. The height of
  such a block on a fresh page is a function of its steps (texts, sizes, the width) and of
  the page and fonts, so the real build draws it without trying it again.
- ``bounds``: the height the rehearsal found for each block, by the block's name (a
  statistic, an answer), placeholder values and all. The real build draws such a block
  straight onto the page when that height fits the room left, then checks what it drew:
  on the same page and ending above the page break, exactly where a fresh layout (try, then
  draw) would have put it. If not (``LayoutMiss``), the whole PDF is laid out again the
  fresh way. So the bytes never depend on the rehearsal (tests/core/test_report_layout.py
  builds with and without it, and with heights made to miss, and compares).
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


#: a block drawn from the rehearsal's height must end at least this far (mm) above the page
#: break: a fresh layout adds the height found on the scratch page to the row where the block
#: starts, whose sum may round differently from the row where it ended
_EDGE = 1e-6


class LayoutMiss(Exception):
    """A block drawn from the rehearsal's height did not end where a fresh layout puts it:
    the report is laid out again without those heights (``report.report_pdf``)."""


class ReportLayout:
    """The scratch document ``keep_together`` tries blocks on, the heights it found for text
    blocks (``None``: taller than a page) and for each named block (``bounds``), and what was
    done (counted, for tests: ``tried`` on the scratch document, ``drawn`` on a report's own,
    of which ``direct`` without a try; ``misses``: a report laid out again). One per release:
    the rehearsal makes it in ``trial`` mode, the real build reuses it; a report built alone
    makes its own."""

    def __init__(self) -> None:
        self._scratch: Any = None  # made when first needed (its fonts read then)
        self.heights: dict[tuple[Any, ...], float | None] = {}
        self.bounds: dict[tuple[Any, ...], float | None] = {}
        self.trial = False
        self.tried = 0
        self.drawn = 0
        self.direct = 0
        self.misses = 0
        self.documents = 0  # documents made (each reads the report's fonts)

    @property
    def scratch(self) -> Any:
        if self._scratch is None:
            self._scratch = self.document()
        return self._scratch

    def document(self) -> Any:
        """A new report document (``new_document``), counted."""
        self.documents += 1
        return new_document()

    def write_trial(self) -> bytes:
        """Write the trial's document (the scratch one) out, and leave the real build a new
        scratch document should it need one (a written document takes no more pages)."""
        data = bytes(self.scratch.output())
        self._scratch = None
        self.trial = False
        return data

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
                  key: tuple[Any, ...] | None = None,
                  name: tuple[Any, ...] | None = None) -> None:
    """Draw a block (``draw(out)``) on the current page, or on a new one when it does not fit
    there but fits a page of its own; a block taller than a page starts where it is and
    flows on (so no page is left half empty for it). The block is tried on a fresh page of
    the layout's scratch document (fpdf's own dry run, offset_rendering, deep-copies the
    whole document so far, every time, which made a report of N statistics cost N²: 150
    statistics took minutes). ``key``: everything the block draws, for a block whose height
    the layout may remember (text blocks: ``text_block``). ``name``: the block's place in
    the report (a statistic's id, a question), under which a trial build leaves its height
    in ``bounds`` (the module's docstring). In a trial build the block is only tried."""
    if layout.trial:
        height = layout.height(pdf, draw, key)
        if name is not None:
            layout.bounds[name] = height
        return
    if name is not None and (key is None or key not in layout.heights):
        guess = layout.bounds.get(name)
        # a block the rehearsal found shorter than the room left; else it is tried (the
        # real values may fit where the placeholders did not)
        if guess is not None and not pdf.will_page_break(guess):
            _draw_from_guess(pdf, draw, layout, name)
            return
    height = layout.height(pdf, draw, key)
    if height is not None and height <= pdf.page_break_trigger - pdf.t_margin \
            and pdf.will_page_break(height):
        pdf.add_page()
    draw(pdf)
    layout.drawn += 1


def _draw_from_guess(pdf: Any, draw: Callable[[Any], None], layout: ReportLayout,
                     name: tuple[Any, ...]) -> None:
    """Draw a block straight onto the page (the rehearsal's height fits the room left),
    then check that a fresh layout would have put it here too: the block ended on this page,
    above the break (its height from the top margin of a scratch page may round differently
    from the row it ended at here: _EDGE); ``LayoutMiss`` when not."""
    page = pdf.page
    draw(pdf)
    layout.drawn += 1
    layout.direct += 1
    if pdf.page != page or pdf.y > pdf.page_break_trigger - _EDGE:
        raise LayoutMiss(name)


def keep_text_together(pdf: Any, steps: Sequence[TextStep], width: float,
                       layout: ReportLayout, name: tuple[Any, ...] | None = None) -> None:
    """``keep_together`` for a block of headings and paragraphs: its height is remembered
    under its steps and width, which are all it depends on."""
    keep_together(pdf, lambda out: draw_text(out, steps, width), layout,
                  key=("text", width, tuple(steps)), name=name)
