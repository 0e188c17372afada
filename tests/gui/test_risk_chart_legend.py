"""The risk chart puts its legend's pixels back at each slider step instead of laying its
words out again: the picture is the very one a chart drawn from nothing at that ε shows."""

from __future__ import annotations

import numpy as np
from pytestqt.qtbot import QtBot

from planner_app.gui.widgets.canvases import RiskChart


def _pixels(chart: RiskChart) -> np.ndarray:
    return np.asarray(chart.buffer_rgba()).copy()


def test_a_chart_moved_through_many_epsilons_looks_like_one_drawn_at_the_last(
        qtbot: QtBot) -> None:
    moved = RiskChart()
    qtbot.addWidget(moved)
    moved.draw()  # the background, then the moving parts
    # large ε: the lowest-belief curve runs through the legend's corner
    for eps in (0.1, 5.0, 0.7, 9.0, 2.5):
        moved.show_bounds(eps, 0.3)
    fresh = RiskChart()
    qtbot.addWidget(fresh)
    fresh.show_bounds(2.5, 0.3)
    fresh.draw()
    assert moved._legend_pixels is not None  # the steps did take the cached path
    assert np.array_equal(_pixels(moved), _pixels(fresh))


def test_the_legend_is_drawn_and_not_empty(qtbot: QtBot) -> None:
    """The cached path still shows the legend: its box differs from the plain background."""
    chart = RiskChart()
    qtbot.addWidget(chart)
    chart.draw()
    chart.show_bounds(9.0, 0.3)
    box = chart.legend.get_window_extent()
    pixels = _pixels(chart)
    height = pixels.shape[0]
    inside = pixels[int(height - box.y1) + 2:int(height - box.y0) - 2,
                    int(box.x0) + 2:int(box.x1) - 2, :3]
    assert inside.size and (inside < 100).any()  # dark words on the white frame


def test_the_note_sits_on_a_box_of_its_own(qtbot: QtBot) -> None:
    """At ε = 7 the prior's guide line ran straight through the note's words ("from 30% to
    between ..."): inside the note's box, the guide's grey no longer shows."""
    chart = RiskChart()
    qtbot.addWidget(chart)
    chart.draw()
    chart.show_bounds(7.0, 0.3)
    note = chart.note.get_window_extent()
    guide_x = int(round(chart.axes.transData.transform((0.3, 0.5))[0]))
    assert note.x0 < guide_x < note.x1  # the guide does cross the note's words
    pixels = _pixels(chart)
    height = pixels.shape[0]
    top, bottom = int(height - note.y1) + 3, int(height - note.y0) - 3
    column = pixels[top:bottom, guide_x - 1:guide_x + 2, :3]
    grey = (np.abs(column.astype(int) - 153) <= 12).all(axis=-1)  # the guide is 0.6 grey
    assert grey.sum() <= 3  # (a few antialiased glyph edges); 19 before the box
