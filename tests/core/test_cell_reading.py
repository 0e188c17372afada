"""How one cell is read never depends on the other rows of its column.

pandas infers a CSV column's type from the whole column: one added row holding ``oops`` turns
a column of numbers into text, ``maybe`` turns a true/false column into text, and ``XX`` turns
a column of ``01``/``02`` (read as the numbers 1 and 2) into text. If matching (``where``
== / in, categories, group keys, yes/no values) or numeric reading depended on that inferred
type, every OTHER row would read differently and a true count would change by a whole column
between two neighbouring tables -- far beyond the sensitivity. Here two hand-written CSV tables
differ in one added row of non-numbers, and every true cell may differ by at most what that
one row contributes; the first table's counts are also checked against counts computed here
from the rows themselves.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest

from planner_app.core.data.tables import load_table, numeric_values
from planner_app.core.dp.mechanisms import SeededRandomSource
from planner_app.core.model import canonical_key
from planner_app.core.planfile import plan_from_dict
from tests.conftest import with_reasons
from tests.oracle.pandas_engine import PandasEngine

N = 120
HEADER = "id,w,f,region,x,year,p\n"


def _row(i: int) -> dict[str, Any]:
    return {"id": i, "w": 1.0 if i % 2 else 2.0, "f": bool(i % 3),
            "region": "01" if i % 4 else "02", "x": i % 50,
            "year": 2025.0 if i % 5 else 2024.0, "p": 0.1 if i % 2 else 2.675}


def _line(r: dict[str, Any]) -> str:
    return f"{r['id']},{r['w']},{r['f']},{r['region']},{r['x']},{r['year']},{r['p']}\n"


ROWS = [_row(i) for i in range(N)]
BASE = HEADER + "".join(_line(r) for r in ROWS)
ODD = f"{N},oops,maybe,XX,oops,oops,oops\n"  # one added row: not a number anywhere

QUERIES: list[dict[str, Any]] = [
    {"id": "w_eq", "kind": "count", "where": [{"column": "w", "op": "==", "value": 1}]},
    {"id": "w_eq_text", "kind": "count", "where": [{"column": "w", "op": "==", "value": "1.0"}]},
    {"id": "w_in", "kind": "count", "where": [{"column": "w", "op": "in", "value": [2]}]},
    {"id": "w_hist", "kind": "histogram", "column": "w", "categories": [1, 2]},
    {"id": "f_eq", "kind": "count", "where": [{"column": "f", "op": "==", "value": True}]},
    {"id": "f_groups", "kind": "count", "group_by": {"column": "f", "keys": [True, False]}},
    {"id": "f_rr", "kind": "randomized_response", "column": "f", "yes": [True], "no": [False]},
    {"id": "region_groups", "kind": "count",
     "group_by": {"column": "region", "keys": ["01", "02"]}},
    {"id": "region_in", "kind": "count", "where": [{"column": "region", "op": "in",
                                                    "value": ["01"]}]},
    {"id": "year_hist", "kind": "histogram", "column": "year", "categories": [2024, 2025]},
    {"id": "year_eq", "kind": "count", "where": [{"column": "year", "op": "==", "value": 2025}]},
    {"id": "p_eq", "kind": "count", "where": [{"column": "p", "op": "==", "value": 0.1}]},
    {"id": "x_sum", "kind": "sum", "column": "x", "lower": 0, "upper": 100},
    {"id": "x_mean", "kind": "mean", "column": "x", "lower": 0, "upper": 100,
     "where": [{"column": "x", "op": ">", "value": 10}]},
    {"id": "x_big", "kind": "count", "where": [{"column": "x", "op": ">=", "value": 25}]},
]


def _aggregates(tmp_path: Path, name: str, text: str) -> dict[str, dict[str, np.ndarray]]:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    doc = {"format": "planner-app/plan@1", "dataset": {"name": "mixed"},
           "privacy_unit": {"kind": "row"}, "neighbouring": "add-remove",
           "budget": {"epsilon": 10, "delta": 0},
           "queries": [{**q, "epsilon": 0.5} for q in QUERIES]}
    plan = plan_from_dict(with_reasons(doc), "plan.json")
    engine = PandasEngine(plan, load_table(path).frame, SeededRandomSource(1))
    out = {}
    for q in plan.queries:
        agg = engine.aggregate(q)
        parts = dict(agg.parts)
        if agg.answers is not None:
            parts["yes"] = np.array([int(np.sum(agg.answers))])
            parts["answers"] = np.array([len(agg.answers)])
        out[q.id] = parts
    return out


def _count(pred) -> int:  # type: ignore[no-untyped-def]
    return sum(1 for r in ROWS if pred(r))


def test_one_added_text_row_changes_no_other_cell(tmp_path: Path) -> None:
    a = _aggregates(tmp_path, "a.csv", BASE)
    b = _aggregates(tmp_path, "b.csv", BASE + ODD)
    # the counts of the first table, computed from the rows here
    expected = {
        "w_eq": [_count(lambda r: r["w"] == 1)],
        "w_eq_text": [_count(lambda r: r["w"] == 1)],
        "w_in": [_count(lambda r: r["w"] == 2)],
        "w_hist": [_count(lambda r: r["w"] == 1), _count(lambda r: r["w"] == 2)],
        "f_eq": [_count(lambda r: r["f"])],
        "f_groups": [_count(lambda r: r["f"]), _count(lambda r: not r["f"])],
        "region_groups": [_count(lambda r: r["region"] == "01"),
                          _count(lambda r: r["region"] == "02")],
        "region_in": [_count(lambda r: r["region"] == "01")],
        "year_hist": [_count(lambda r: r["year"] == 2024), _count(lambda r: r["year"] == 2025)],
        "year_eq": [_count(lambda r: r["year"] == 2025)],
        "p_eq": [_count(lambda r: r["p"] == 0.1)],
        "x_big": [_count(lambda r: r["x"] >= 25)],
    }
    for qid, cells in expected.items():
        part = "cells" if "hist" in qid else "count"
        assert a[qid][part].tolist() == cells, qid
    assert a["f_rr"]["yes"].tolist() == [_count(lambda r: r["f"])]
    assert a["x_mean"]["count"].tolist() == [_count(lambda r: r["x"] > 10)]
    for qid in a:
        assert a[qid].keys() == b[qid].keys(), qid
        for part, values in a[qid].items():
            diff = np.abs(b[qid][part].astype(np.int64) - values.astype(np.int64))
            # the added row holds no declared value and no number: it may add 1 to a row
            # count (none here), to the answers read, and nothing to any matched cell or sum
            limit = 1 if part == "answers" else 0
            assert diff.max() <= limit, (qid, part, values.tolist(), b[qid][part].tolist())


@pytest.mark.parametrize("cell, same_as", [
    ("2025.0", 2025), ("2025", 2025.0), (" 2025 ", np.int64(2025)), ("01", 1), ("1e3", 1000),
    ("True", True), ("TRUE", np.bool_(True)), ("false", False), ("0.1", np.float64(0.1)),
    ("x", "x "),
])
def test_key_of_text_is_key_of_what_pandas_would_read(cell: str, same_as: Any) -> None:
    assert canonical_key(cell) == canonical_key(same_as)


def test_numbers_read_the_same_in_a_column_of_text() -> None:
    import pandas as pd
    numbers = pd.Series([2025.0, 1.0, 0.1, 2.675, True])
    as_text = pd.Series(["2025.0", "1", "0.1", "2.675", "True", "oops"])
    values, bad = numeric_values(as_text)
    expected, _ = numeric_values(numbers.astype("float64"))
    assert values[:5].tolist() == expected.tolist()
    assert bad.tolist() == [False] * 5 + [True]
