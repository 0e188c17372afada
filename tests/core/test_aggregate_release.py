"""Aggregation equals an independent pandas computation; noise is added once, on the grid,
with post-processing that users expect."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
import pytest

from planner_app.core.dp.mechanisms import SeededRandomSource
from planner_app.core.planfile import plan_from_dict
from planner_app.core.release.noise import privatize, release_with_engine
from planner_app.core.support.errors import InputError
from tests.conftest import plan_dict
from tests.oracle.pandas_engine import PandasEngine

FRAME = pd.DataFrame({
    "pid": [1, 1, 1, 1, 2, 2, 3, 4, 5, 6],
    "g": ["a", "a", "b", "a", "b", "zz", "a", None, "b", "a"],
    "x": [10, 20, "junk", 40, 55, -5, None, 7, 3.5, 12],
    "ok": ["yes", "no", "yes", "yes", "no", "maybe", "1", "0", "true", None],
})


def plan_of(queries: list[dict[str, Any]], **extra: Any):  # type: ignore[no-untyped-def]
    return plan_from_dict(plan_dict(queries=queries, **extra))


def test_parts_match_an_independent_computation() -> None:
    plan = plan_of([
        {"id": "c", "kind": "count", "epsilon": 1},
        {"id": "cw", "kind": "count", "epsilon": 1,
         "where": [{"column": "g", "op": "in", "value": ["a", "b"]},
                   {"column": "x", "op": ">=", "value": 10}]},
        {"id": "s", "kind": "sum", "column": "x", "lower": 0, "upper": 50, "epsilon": 1,
         "grid_step": 0.5},
        {"id": "h", "kind": "histogram", "column": "g", "categories": ["a", "b", "c"],
         "epsilon": 1},
        {"id": "m", "kind": "mean", "column": "x", "lower": 0, "upper": 50, "epsilon": 1,
         "grid_step": 1, "group_by": {"column": "g", "keys": ["a", "b"]}},
    ])
    engine = PandasEngine(plan, FRAME, SeededRandomSource(0))
    x = pd.to_numeric(FRAME["x"], errors="coerce")
    assert engine.aggregate(plan.query("c")).parts["count"].tolist() == [10]
    expected_cw = int((FRAME["g"].isin(["a", "b"]) & (x >= 10)).sum())
    assert engine.aggregate(plan.query("cw")).parts["count"].tolist() == [expected_cw]
    s = engine.aggregate(plan.query("s"))
    expected_sum = (np.round(x.dropna().clip(0, 50) / 0.5)).sum()
    assert s.parts["sum"].tolist() == [int(expected_sum)]
    assert s.facts.missing_dropped == 2
    h = engine.aggregate(plan.query("h"))
    assert h.parts["cells"].tolist() == [5, 3, 0]  # the empty category "c" is present
    assert h.cells == [(None, "a"), (None, "b"), (None, "c")]
    assert h.facts.outside_declared == 1 and h.facts.missing_dropped == 1
    m = engine.aggregate(plan.query("m"))
    for i, key in enumerate(["a", "b"]):
        vals = x[(FRAME["g"] == key) & x.notna()].clip(0, 50).round()
        assert m.parts["count"][i] == len(vals)
        assert m.parts["sum"][i] == int((vals - 25).sum())  # centred on the midpoint


def test_person_rows_are_bounded_at_random() -> None:
    plan = plan_of([{"id": "c", "kind": "count", "epsilon": 1}],
                   privacy_unit={"kind": "person", "id_column": "pid", "max_rows": 2})
    kept = set()
    for seed in range(30):
        engine = PandasEngine(plan, FRAME, SeededRandomSource(seed))
        assert engine.rows_dropped_by_bound == 2
        assert engine.aggregate(plan.queries[0]).parts["count"].tolist() == [8]
        assert engine.frame.groupby("pid").size().max() <= 2
        kept.add(tuple(sorted(engine.frame[engine.frame["pid"] == 1]["x"].astype(str))))
    assert len(kept) > 1  # which rows stay is random


def test_missing_column_is_an_input_error() -> None:
    plan = plan_of([{"id": "s", "kind": "sum", "column": "wage", "lower": 0, "upper": 5,
                     "epsilon": 1}])
    with pytest.raises(InputError, match=r"queries\[s\].column: no column 'wage'"):
        PandasEngine(plan, FRAME, SeededRandomSource(0), "t.csv")


def test_released_values_sit_on_the_grid_and_in_bounds() -> None:
    plan = plan_of([
        {"id": "s", "kind": "sum", "column": "x", "lower": 0, "upper": 50, "epsilon": 0.5},
        {"id": "m", "kind": "mean", "column": "x", "lower": 0, "upper": 50, "epsilon": 0.05},
        {"id": "v", "kind": "variance", "column": "x", "lower": 0, "upper": 50,
         "epsilon": 0.05},
        {"id": "q", "kind": "quantile", "column": "x", "lower": 0, "upper": 50,
         "quantile": 0.5, "epsilon": 0.5},
    ])
    # the documented default grid (docs/plan-format.md, grid_step): 2^(floor(log2(U - L)) - 16),
    # - 12 for quantiles; a variance lies on the grid of the step's square
    bits = math.floor(math.log2(50 - 0))
    steps = {"s": 2.0 ** (bits - 16), "m": 2.0 ** (bits - 16), "q": 2.0 ** (bits - 12),
             "v": 2.0 ** (2 * (bits - 16))}
    for seed in range(20):
        out = release_with_engine(plan, PandasEngine(plan, FRAME, SeededRandomSource(seed)),
                                  source=SeededRandomSource(seed + 100))
        values = {r.query_id: r.values[0] for r in out}
        for qid, step in steps.items():
            v = values[qid].value
            assert v / step == round(v / step), (qid, v, step)  # a multiple of its own step
        assert 0 <= values["m"].value <= 50 and values["m"].low <= values["m"].value
        assert values["m"].value <= values["m"].high <= 50
        assert 0 <= values["v"].value <= 625
        assert 0 <= values["q"].value <= 50


def test_counts_are_unbiased_and_intervals_cover() -> None:
    plan = plan_of([{"id": "h", "kind": "histogram", "column": "g",
                     "categories": ["a", "b", "c"], "epsilon": 0.5}])
    engine = PandasEngine(plan, FRAME, SeededRandomSource(0))
    agg = {"h": engine.aggregate(plan.queries[0])}
    truth = np.array([5, 3, 0])
    draws, covered = [], 0
    for seed in range(400):
        out = privatize(plan, agg, source=SeededRandomSource(seed))[0].values
        vals = np.array([v.value for v in out])
        draws.append(vals)
        covered += sum(v.low <= t <= v.high for v, t in zip(out, truth, strict=True))
        assert all(isinstance(v.value, int) for v in out)
    mean = np.mean(draws, axis=0)
    assert np.all(np.abs(mean - truth) < 0.6)
    assert covered / (400 * 3) >= 0.93


def test_clamp_counts_is_recorded() -> None:
    plan = plan_of([{"id": "h", "kind": "histogram", "column": "g", "categories": ["c"],
                     "epsilon": 0.1}])
    agg = {"h": PandasEngine(plan, FRAME, SeededRandomSource(0)).aggregate(plan.queries[0])}
    notes = set()
    for seed in range(30):
        v = privatize(plan, agg, source=SeededRandomSource(seed), clamp_counts=True)[0].values[0]
        assert v.value >= 0
        notes.add(v.note)
    assert "clamped at 0 (post-processing)" in notes


def test_randomized_response_debiases() -> None:
    n = 20_000
    frame = pd.DataFrame({"ok": ["yes"] * (n // 4) + ["no"] * (3 * n // 4)})
    plan = plan_of([{"id": "r", "kind": "randomized_response", "column": "ok",
                     "epsilon": math.log(3)}])
    out = release_with_engine(plan, PandasEngine(plan, frame, SeededRandomSource(0)),
                              source=SeededRandomSource(1))[0]
    v = out.values[0]
    assert abs(v.value - 0.25) < 0.03 and v.low <= 0.25 <= v.high
    # the file's length is the number of answers plus discrete Laplace noise of scale
    # 1/(ε/10) ≈ 9.1: beyond ±300 has chance below 1e-14
    assert out.noised_answers is not None and abs(out.noised_answers.size - n) < 300
    # the noised column is not the true one
    assert 0.3 < out.noised_answers.mean() < 0.45  # 0.25*0.75 + 0.75*0.25 = 0.375


def test_replace_one_count_of_all_rows_is_exact_and_labelled() -> None:
    plan = plan_of([{"id": "c", "kind": "count", "epsilon": 1}], neighbouring="replace-one")
    out = release_with_engine(plan, PandasEngine(plan, FRAME, SeededRandomSource(0)))[0]
    assert out.values[0].value == 10 and "without noise" in out.values[0].note


def test_rows_without_a_person_id_are_refused_without_counting_them() -> None:
    plan = plan_of([{"id": "c", "kind": "count", "epsilon": 1}],
                   privacy_unit={"kind": "person", "id_column": "g", "max_rows": 2})
    with pytest.raises(InputError) as info:
        PandasEngine(plan, FRAME, SeededRandomSource(0), "t.csv")
    message = str(info.value)
    assert message == "t.csv: column 'g': some rows have no person id; every row needs one"
    assert not any(ch.isdigit() for ch in message)
