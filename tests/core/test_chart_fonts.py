"""Charts with category labels in letters DejaVu Sans lacks (CJK) print no "Glyph … missing
from font(s)" warning: each such letter is marked with U+FFFD as the PDF marks it
(test_report_names.py), never silently dropped, and never drawn from a font of this machine."""

from __future__ import annotations

import logging
import warnings

import pytest

from planner_app.core.planning.charts import ChartDrawing, render_png
from planner_app.core.planning.preview import Chart, Mark

NO_FONT = "\U0010fffd"  # a private-use code point: no font draws it


def _chart() -> Chart:
    marks = (Mark("東京", 3, 1, 5), Mark("ＡＢＣ", 4, 2, 6), Mark(f"x{NO_FONT}", 1, 0, 2))
    return Chart("bars", marks, "人数 (count)", None, (0, 10), "c", point_label="± 2",
                 groups=(("地域", 0, 2),))


def test_a_chart_with_cjk_labels_warns_nothing(caplog: pytest.LogCaptureFixture,
                                               capfd: pytest.CaptureFixture[str]) -> None:
    caplog.set_level(logging.DEBUG, logger="matplotlib")
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        png = render_png(_chart())
    assert png.startswith(b"\x89PNG")
    assert [str(w.message) for w in seen] == []
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert "missing from font" not in capfd.readouterr().err


def test_the_labels_carry_the_glyphs_or_the_marks() -> None:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.font_manager import FontProperties, findfont
    from matplotlib.ft2font import FT2Font

    fig = Figure()
    FigureCanvasAgg(fig)
    drawing = ChartDrawing(fig)
    drawing.draw(_chart())
    ax = drawing.artists["axes"]
    labels = [t.get_text() for t in ax.get_xticklabels()]
    assert labels[2] == "x\ufffd"  # what no font has is marked, one mark a letter
    for label, text in zip(labels[:2], ["東京", "ＡＢＣ"], strict=True):
        assert label in (text, "\ufffd" * len(text))
        if label == text:  # drawn: some font of the label's own list has each glyph
            families = ax.get_xticklabels()[0].get_fontfamily()
            fonts = [FT2Font(findfont(FontProperties(family=f), fallback_to_default=False))
                     for f in families]
            for ch in text:
                assert any(ord(ch) in f.get_charmap() for f in fonts), ch
    assert ax.get_ylabel() in ("人数 (count)", "\ufffd\ufffd (count)")
    fig.canvas.draw()  # and drawing them prints nothing (above)


def test_a_chart_draws_with_the_reports_own_font_only() -> None:
    """The chart is part of the report that verify rebuilds byte for byte on the recipient's
    machine: a letter DejaVu Sans lacks is marked even where this machine has a font with it
    (Droid Sans Fallback is installed here), so the same bundle rebuilds alike everywhere."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    from planner_app.core.support.fonts import chart_fonts, report_font_dir, undrawable

    assert chart_fonts()[0] == ("DejaVu Sans",)
    assert undrawable("東京") == ["東", "京"]  # the report's font lacks both (independent check)
    assert (report_font_dir() / "DejaVuSans.ttf").exists()
    fig = Figure()
    FigureCanvasAgg(fig)
    drawing = ChartDrawing(fig)
    drawing.draw(_chart())
    labels = [t.get_text() for t in drawing.artists["axes"].get_xticklabels()]
    assert labels[:2] == ["\ufffd\ufffd", "ＡＢＣ" if not undrawable("ＡＢＣ") else "\ufffd" * 3]
