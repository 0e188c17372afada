"""The chart of a released synthetic table (the wizard's "Released", the report): its value
axis says noised count, its cells read within the drawing's label room, and the caption names
the columns in the order drawn."""

from __future__ import annotations

from planner_app.core.planning.charts import _short
from planner_app.core.planning.preview import release_chart

ROWS = [{"group": "region", "cell": "North", "value": 1471, "low": 1389, "high": 1553,
         "confidence": 0.95},
        {"group": "age", "cell": "[75, 100]", "value": 952, "low": 870, "high": 1034,
         "confidence": 0.95},
        {"group": "smoker", "cell": "yes", "value": 884, "low": 802, "high": 966,
         "confidence": 0.95},
        {"group": "region × age", "cell": "North | [16, 25)", "value": 207, "low": 140,
         "high": 274, "confidence": 0.95}]


def test_a_synthetic_tables_released_chart_reads() -> None:
    chart = release_chart({"id": "s", "kind": "synthetic", "column": None}, ROWS)
    assert chart.value_label == "noised count"
    assert "synthetic of" not in chart.value_label
    labels = [m.label for m in chart.marks]
    assert [_short(x) for x in labels] == labels  # nothing cut to "…"
    # each column's counts under the column's name (issue 22); a pair's cells are in the
    # results, not drawn
    assert labels == ["North", "[75,100]", "yes"]
    assert chart.groups == (("region", 0, 0), ("age", 1, 1), ("smoker", 2, 2))
    for group in ("region", "age", "smoker"):
        assert group in chart.caption
    assert "95%" in chart.caption


def test_a_histograms_chart_is_unchanged() -> None:
    rows = [{"cell": "North", "value": 3, "low": 1, "high": 5, "confidence": 0.95}]
    chart = release_chart({"id": "h", "kind": "histogram", "column": "region"}, rows)
    assert chart.value_label == "people or rows" and chart.marks[0].label == "North"
