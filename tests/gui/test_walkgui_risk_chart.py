"""The risk chart's legend stays readable (walk 2, finding 19: at ε = 5.67 the lowest-belief
curve ran through the legend and cut its words, "lowest belief afte")."""

from __future__ import annotations

import numpy as np

from planner_app.gui.widgets.canvases import RiskChart

BLUE = np.array([0x24, 0x71, 0xA3])  # the lowest-belief curve


def test_no_curve_is_drawn_over_the_legend_words(qtbot) -> None:  # type: ignore[no-untyped-def]
    chart = RiskChart()
    qtbot.addWidget(chart)
    chart.resize(420, 320)
    chart.show_bounds(5.67, 0.5)
    chart.draw()  # the full picture: background, then the curves (the draw event)
    pixels = np.asarray(chart.buffer_rgba())[:, :, :3].astype(int)
    box = chart.axes.get_legend().get_window_extent()
    height = pixels.shape[0]
    # the right third of the legend: its words, right of the line samples
    x0, x1 = int(box.x0 + (box.x1 - box.x0) * 2 / 3), int(box.x1) - 2
    y0, y1 = height - int(box.y1) + 2, height - int(box.y0) - 2  # image rows run down
    words = pixels[y0:y1, x0:x1]
    assert words.size
    blue = (np.abs(words - BLUE).sum(axis=2) < 40).sum()
    assert blue == 0, f"{blue} pixels of the curve over the legend's words"
