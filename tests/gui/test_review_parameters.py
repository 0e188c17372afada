"""Issue 22 §4: the officer's review window shows every public parameter the plan has, from
the core's one describer, and for every statistic how missing values are handled and which
rows are left out; a synthetic table's columns, domains, δ, rows and method are not "—"."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from planner_app.core.planfile import load_plan
from planner_app.core.support.resources import demo_plan_path

SYNTH: dict[str, Any] = {
    "id": "synth", "label": "Synthetic survey", "kind": "synthetic", "method": "mst",
    "columns": [{"column": "region", "categories": ["North", "South", "East", "West"]},
                {"column": "age", "bins": [16, 25, 35, 45, 55, 65, 75, 100]},
                {"column": "smoker", "categories": ["yes", "no"]}],
    "epsilon": 2.0, "delta": 1e-6, "rows": 500,
    "justification": {"categories": "official regions and the form's answers",
                      "bounds": "standard reporting age bands"}}


def _own(q, name):
    """A kind's own field of a statistic (None when its kind has no such field)."""
    return getattr(q.params, name, None)


def every_kind_plan(tmp_path: Path) -> Path:
    """The demo plan (count, sum, mean, variance, histogram by categories and by bins,
    quantile, a group-by, randomized response, a Gaussian count) and a synthetic table."""
    doc = json.loads(demo_plan_path().read_text(encoding="utf-8"))
    doc["queries"].append(SYNTH)
    doc["budget"] = {"epsilon": 8.0, "delta": 1e-5}
    path = tmp_path / "every-kind.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def _cells(dialog: Any, row: int) -> dict[str, str]:
    table = dialog.statistics
    return {table.horizontalHeaderItem(c).text(): table.item(row, c).text()
            for c in range(table.columnCount())}


def test_every_kind_shows_its_parameters_and_a_missing_values_line(  # type: ignore[no-untyped-def]
        window, qtbot, tmp_path: Path) -> None:
    path = every_kind_plan(tmp_path)
    plan = load_plan(path)
    kinds = {q.kind for q in plan.queries}
    assert kinds == {"count", "sum", "mean", "variance", "histogram", "quantile",
                     "randomized_response", "synthetic"}
    assert any(q.group_by is not None for q in plan.queries)
    dialog = window.launchers.review_plan_file(path)
    qtbot.addWidget(dialog)
    assert dialog.statistics.rowCount() == len(plan.queries)
    for row, q in enumerate(plan.queries):
        cells = _cells(dialog, row)
        params, missing = cells["Public parameters"], cells["Missing values"]
        assert "—" not in params, (q.id, cells)
        if q.column is not None or _own(q, "columns"):  # a count of rows reads no column
            assert "—" not in cells["Column"], (q.id, cells)
        # every parameter the plan has, read from the plan itself (not from the describer)
        if _own(q, "lower") is not None:
            assert f"{_own(q, 'lower'):g} to {_own(q, 'upper'):g}" in params, q.id
        for value in _own(q, "categories") or ():
            assert str(value) in params, q.id
        if _own(q, "bins") is not None:
            assert ", ".join(f"{b:g}" for b in _own(q, "bins")) in params, q.id
        if q.group_by is not None:
            assert q.group_by.column in params
            assert all(str(k) in params for k in q.group_by.keys)
        for c in q.where:
            assert c.column in params and str(c.value) in params, q.id
        if _own(q, "yes") is not None:
            assert all(str(v) in params for v in (*_own(q, "yes"), *(_own(q, "no") or ())))
        if _own(q, "quantile") is not None:
            assert f"{_own(q, 'quantile'):g}" in params
        if q.delta:
            assert f"δ: {q.delta:g}" in params, q.id
        # the missing-values line: the column it reads and what the person unit leaves out
        assert missing.endswith("."), q.id
        if q.column is not None:
            assert q.column in missing, q.id
        if q.missing.policy == "impute":
            assert f"read as {q.missing.value:g}" in missing, q.id
        elif q.column is not None:
            assert "left out" in missing or "not counted" in missing, q.id
        if _own(q, "lower") is not None:
            assert "clamped" in missing, q.id
        assert "at most 3 rows of each person" in missing, q.id
    synth = _cells(dialog, len(plan.queries) - 1)
    assert synth["Column"] == "region, age, smoker"
    params = synth["Public parameters"]
    for text in ("North, South, East, West", "16, 25, 35, 45, 55, 65, 75, 100", "yes, no",
                 "δ: 1e-06", "Rows: 500", "Method: MST"):
        assert text in params, (text, params)
    assert "left out of every count" in synth["Missing values"]
