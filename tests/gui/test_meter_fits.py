"""The budget meter's over-budget words are never cut off, and never hold the window wider
than a 1920-pixel screen at 200% (960 logical pixels)."""

from __future__ import annotations

import pytest

from tests.gui.conftest import SHOTS
from tests.gui.layout_check import clipped_texts
from tests.gui.walk import settle


@pytest.mark.parametrize("width", [1280, 960])
def test_the_over_budget_words_fit(demo, width: int) -> None:  # type: ignore[no-untyped-def]
    demo.resize(width, 820)
    demo.session.set_budget(epsilon=1.0)
    settle()
    assert demo.meter.over and "Over budget" in demo.meter.text.text()
    # the meter's words wrap: they never hold the window wider than a 960-pixel screen
    assert demo.meter.minimumSizeHint().width() <= 960 // 2
    assert clipped_texts(demo.meter) == []
    SHOTS.mkdir(parents=True, exist_ok=True)
    demo.meter.grab().save(str(SHOTS / f"meter-over-budget-{width}.png"))


def test_the_rows_per_person_say_row_or_rows(window) -> None:  # type: ignore[no-untyped-def]
    pane = window.data_pane
    for rows, unit in ((1, "row"), (3, "rows")):
        pane.max_rows.setValue(rows)  # typed, then Enter
        pane.max_rows.editingFinished.emit()
        assert (pane.max_rows.text(), pane.max_rows_unit.text()) == (str(rows), unit)
