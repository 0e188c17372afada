"""Issue 22 §4: the released chart of a synthetic table labels each cell with its column.
Before, its axis read "C M N S SA F M Y N A U" (the cells' values, two of them twice, in
the order of their size); now each column's values stand together with the column's name
under them, readable at 1× (nothing overlaps the names)."""

from __future__ import annotations

from typing import Any

from planner_app.core.planning.charts import ChartDrawing
from planner_app.core.planning.preview import release_chart

COLUMNS = {"marital": ["C", "M", "N", "S", "SA"], "sex": ["F", "M"], "smoker": ["Y", "N"],
           "answer": ["A", "U"]}


def _rows() -> list[dict[str, Any]]:
    """A release's rows: every one-way count, then a pair's (the record's order)."""
    rows = [{"group": column, "cell": value, "value": 500 - 7 * i, "low": 480 - 7 * i,
             "high": 520 - 7 * i, "confidence": 0.95}
            for i, (column, values) in enumerate(COLUMNS.items()) for value in values]
    rows += [{"group": "sex × smoker", "cell": f"{a} | {b}", "value": 900, "low": 880,
              "high": 920, "confidence": 0.95} for a in "FM" for b in "YN"]
    return rows


def _draw(chart: Any, width: float = 6.0, height: float = 2.4) -> tuple[Any, Any]:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), dpi=110)  # the report's size, at 1×
    FigureCanvasAgg(fig)
    ChartDrawing(fig).draw(chart)
    fig.canvas.draw()
    return fig, fig.canvas.get_renderer()


def test_each_value_is_drawn_under_its_column() -> None:
    chart = release_chart({"id": "s", "kind": "synthetic", "column": None}, _rows())
    fig, renderer = _draw(chart)
    ax = fig.axes[0]
    ticks = [t for t in ax.get_xticklabels() if t.get_text()]
    assert [t.get_text() for t in ticks] == [v for vs in COLUMNS.values() for v in vs]
    below = ax.child_axes[0] if ax.child_axes else next(a for a in fig.axes[1:])
    names = [t for t in below.get_xticklabels() if t.get_text()]
    assert [t.get_text() for t in names] == list(COLUMNS)
    # each tick label stands under the name of its own column: "M" of marital, "M" of sex
    spans = [(n, ax.get_xticks()[a], ax.get_xticks()[b]) for n, a, b in chart.groups]
    for (name, lo, hi), label in zip(spans, names, strict=True):
        assert label.get_text() == name
        x = label.get_position()[0]
        assert lo <= x <= hi, (name, x, lo, hi)
    at = {int(round(t.get_position()[0])): t.get_text() for t in ticks}
    of = {i: name for name, a, b in chart.groups for i in range(a, b + 1)}
    assert [(of[i], at[i]) for i in sorted(at)] == [(c, v) for c, vs in COLUMNS.items()
                                                    for v in vs]
    # readable at 1×: the names below every value label, apart from each other, in the figure
    boxes = [t.get_window_extent(renderer) for t in ticks]
    name_boxes = [t.get_window_extent(renderer) for t in names]
    assert max(b.y1 for b in name_boxes) < min(b.y0 for b in boxes)
    for left, right in zip(name_boxes, name_boxes[1:], strict=False):
        assert left.x1 < right.x0
    assert min(b.y0 for b in name_boxes) >= 0
    assert min(b.x0 for b in boxes + name_boxes) >= 0
    assert "marital" in chart.caption and "pairs" in chart.caption
