"""The wizard's "Released" chart lays itself out again when its canvas changes size (a
longer caption, a smaller window): the rotated cell labels stay inside the figure."""

from __future__ import annotations

from planner_app.core.planning.preview import release_chart
from planner_app.gui.dialogs.release_wizard import ResultsPage


def _rows() -> list[dict]:  # type: ignore[type-arg]
    return [{"group": "region × age", "cell": f"North | [{a}, {a + 10})", "value": 100 + a,
             "low": 80 + a, "high": 120 + a, "confidence": 0.95} for a in range(16, 96, 5)]


def test_the_released_chart_refits_when_its_canvas_shrinks(qtbot) -> None:  # type: ignore[no-untyped-def]
    page = ResultsPage(None)  # type: ignore[arg-type]
    qtbot.addWidget(page)
    page._charts = [("s", release_chart({"id": "s", "kind": "synthetic"}, _rows()))]
    page.resize(900, 900)
    page.show()
    qtbot.wait(20)
    page._draw_choice(0)
    page.resize(900, 420)  # the canvas loses height after the chart was drawn
    qtbot.wait(50)
    page.canvas.draw()
    renderer = page.canvas.get_renderer()
    ax = page.figure.axes[0]
    lowest = min(t.get_window_extent(renderer).y0 for t in ax.get_xticklabels())
    assert lowest >= 0, lowest
