"""The budget meter (walk 2, finding 19): its text stays readable over its fill, and it turns
red when the lifetime cap cannot cover the release (it stayed blue)."""

from __future__ import annotations

from PySide6.QtGui import QColor

from planner_app.core.records.ledger import Ledger
from planner_app.gui.widgets.meter import OVER_STYLE


def _contrast(a: QColor, b: QColor) -> float:
    """The WCAG contrast ratio of two colours."""
    def lum(c: QColor) -> float:
        def channel(v: float) -> float:
            return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4
        return 0.2126 * channel(c.redF()) + 0.7152 * channel(c.greenF()) + \
            0.0722 * channel(c.blueF())
    hi, lo = sorted((lum(a), lum(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def test_the_meter_is_red_when_the_lifetime_cap_cannot_cover_the_release(demo) -> None:  # type: ignore[no-untyped-def]
    session = demo.session
    assert demo.meter.bar.styleSheet() != OVER_STYLE
    total = session.total().epsilon
    Ledger(session.home.ledger_path).set_cap("demo-survey", total / 2, 1e-5)
    session.refresh_lifetime()
    demo.meter.refresh()
    assert not demo.meter.over  # within this release's own budget
    assert demo.meter.bar.styleSheet() == OVER_STYLE  # red: this release cannot go ahead
    assert "lifetime cap" in demo.meter.text.text()


def test_the_meter_text_is_readable_on_its_fill_and_off_it(demo) -> None:  # type: ignore[no-untyped-def]
    bar = demo.meter.bar
    bar.resize(220, bar.sizeHint().height())
    image = bar.grab().toImage()
    assert 0 < bar.value() < bar.maximum()
    y = image.height() // 2
    fill = image.pixelColor(4, y)  # the left end: filled
    empty = image.pixelColor(image.width() - 4, y)  # the right end: not yet
    text = QColor("black")
    assert _contrast(text, fill) >= 4.5, fill.name()
    assert _contrast(text, empty) >= 4.5, empty.name()
