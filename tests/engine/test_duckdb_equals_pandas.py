"""DuckDB (the default engine) and the pandas path give identical true aggregates: parts,
owner's facts, yes/no answers (as multisets) and quantile buckets, on the same seeded bounding.
The pandas path is the independent answer: it computes each cell in numpy from a loaded frame."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from tests.engine.helpers import both, plan_of, write_csv

FRAME = pd.DataFrame({
    "pid": [1, 1, 1, 1, 2, 2, 3, 4, 5, 6, 6, 6, 7, 8, 8],
    "g": ["a", "a", "b", "a", "b", "zz", "a", None, "b", "a", "1", "1.0", " a ", "b", "a"],
    "x": [10, 20, "junk", 40, 55, -5, None, 7, 3.5, 12, " 8 ", "1e1", "inf", "true", "2.25"],
    "ok": ["yes", "no", "yes", "yes", "no", "maybe", "1", "0", "true", None, "no", "yes",
           "YES", "No", "0"],
    "n": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15],
})

QUERIES: list[dict[str, Any]] = [
    {"id": "c", "kind": "count", "epsilon": 1},
    {"id": "cx", "kind": "count", "column": "x", "epsilon": 1},
    {"id": "cxi", "kind": "count", "column": "x", "epsilon": 1,
     "missing": {"impute": 0}},
    {"id": "cw", "kind": "count", "epsilon": 1,
     "where": [{"column": "g", "op": "in", "value": ["a", "b"]},
               {"column": "x", "op": ">=", "value": 10}]},
    {"id": "cne", "kind": "count", "epsilon": 1,
     "where": [{"column": "g", "op": "!=", "value": "a"}]},
    {"id": "ceq", "kind": "count", "epsilon": 1,
     "where": [{"column": "g", "op": "==", "value": 1}]},
    {"id": "s", "kind": "sum", "column": "x", "lower": 0, "upper": 50, "epsilon": 1,
     "grid_step": 0.5},
    {"id": "si", "kind": "sum", "column": "x", "lower": -10, "upper": 50, "epsilon": 1,
     "missing": {"impute": 3}},
    {"id": "h", "kind": "histogram", "column": "g", "categories": ["a", "b", "c"],
     "epsilon": 1},
    {"id": "hn", "kind": "histogram", "column": "g", "categories": [1, "a"], "epsilon": 1},
    {"id": "hi", "kind": "histogram", "column": "g", "categories": ["a", "b"], "epsilon": 1,
     "missing": {"impute": "b"}},
    {"id": "hb", "kind": "histogram", "column": "x", "bins": [0, 5, 10, 12, 40], "epsilon": 1},
    {"id": "hbi", "kind": "histogram", "column": "n", "bins": [0, 2.5, 7.5, 15],
     "epsilon": 1, "group_by": {"column": "g", "keys": ["a", "b", "none"]}},
    {"id": "m", "kind": "mean", "column": "x", "lower": 0, "upper": 50, "epsilon": 1,
     "grid_step": 1, "group_by": {"column": "g", "keys": ["a", "b"]}},
    {"id": "v", "kind": "variance", "column": "n", "lower": 0, "upper": 16, "epsilon": 1,
     "where": [{"column": "x", "op": "<", "value": 30}]},
    {"id": "q", "kind": "quantile", "column": "n", "lower": 0, "upper": 16, "quantile": 0.5,
     "epsilon": 1, "group_by": {"column": "g", "keys": ["a", "b", "c"]}},
    {"id": "rr", "kind": "randomized_response", "column": "ok", "epsilon": 1,
     "yes": ["yes", "1", "true"], "no": ["no", "0"]},
    {"id": "rri", "kind": "randomized_response", "column": "ok", "epsilon": 1,
     "yes": ["yes", "1", "true"], "no": ["no", "0"],
     "missing": {"impute": "no"}},
]


@pytest.mark.parametrize("unit", [{"kind": "row"},
                                  {"kind": "person", "id_column": "pid", "max_rows": 1},
                                  {"kind": "person", "id_column": "pid", "max_rows": 2}])
@pytest.mark.parametrize("query", QUERIES, ids=[q["id"] for q in QUERIES])
def test_every_query_kind_matches(tmp_path: Path, unit: dict[str, Any],
                                  query: dict[str, Any]) -> None:
    plan = plan_of([query], privacy_unit=unit)
    left, right = both(plan, write_csv(FRAME, tmp_path / "t.csv"))
    assert left == right
