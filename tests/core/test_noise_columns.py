"""The column-wise release of counts, histograms and sums (noise.ReleasedValues) publishes the
very values, intervals and notes of the per-cell loop it replaced, for the same seeded draws:
the reference below is that loop as it was, fed the noise drawn from an identical seeded
source in the same order (one draw of every cell of a part at once)."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest

from planner_app.core.dp.accuracy import DEFAULT_CONFIDENCE, measurement_half_width
from planner_app.core.dp.mechanisms import SeededRandomSource, discrete_gaussian, discrete_laplace
from planner_app.core.kinds.results import Aggregate, QueryRelease, ReleasedValue, ReleasedValues
from planner_app.core.kinds.shared_dp import cell_labels, measurements_for
from planner_app.core.planfile import plan_from_dict
from planner_app.core.release.noise import privatize
from planner_app.core.release.result_columns import result_entries, table_of
from tests.conftest import plan_dict


def _draw(m: Any, size: int, source: SeededRandomSource) -> np.ndarray:
    if m.mechanism == "none":
        return np.zeros(size, dtype=np.int64)
    if m.mechanism == "laplace":
        return discrete_laplace(source, m.scale, size)
    return discrete_gaussian(source, m.sigma_sq, size)


def _reference(query: Any, plan: Any, agg: Aggregate, seed: int, clamp: bool
               ) -> list[dict[str, Any]]:
    """The per-cell loop of noise._release_query before the column-wise form."""
    source = SeededRandomSource(seed)
    ms = measurements_for(query, plan)
    noisy = {m.component.name: agg.parts[m.component.name]
             + _draw(m, agg.parts[m.component.name].size, source) for m in ms}
    m = ms[0]
    hw = measurement_half_width(m, DEFAULT_CONFIDENCE)
    out = []
    if query.kind in ("count", "histogram"):
        for i, v in enumerate(noisy[m.component.name].tolist()):
            note = "released without noise: public under replace-one" \
                if m.mechanism == "none" else ""
            if clamp and v < 0:
                v, note = 0, "clamped at 0 (post-processing)"
            out.append((i, int(v), int(v - hw), int(v + hw), note))
    else:
        step = m.component.step
        for i, v in enumerate(noisy["sum"].tolist()):
            out.append((i, float(v * step), float((v - hw) * step), float((v + hw) * step), ""))
    return [ReleasedValue(query.id, query.title, *agg.cells[i], value, low, high,
                          DEFAULT_CONFIDENCE, m.mechanism, note).to_dict()
            for i, value, low, high, note in out]


QUERIES = [
    ({"id": "h", "kind": "histogram", "column": "g", "categories": list(range(300)),
      "epsilon": 0.3}, {}),
    ({"id": "hg", "kind": "histogram", "column": "g", "categories": ["a", "b", "c"],
      "epsilon": 0.2, "delta": 1e-6, "mechanism": "gaussian",
      "group_by": {"column": "r", "keys": ["x", "y"]}},
     {"budget": {"epsilon": 1.0, "delta": 1e-5}}),
    ({"id": "c", "kind": "count", "epsilon": 0.5}, {}),
    ({"id": "c1", "kind": "count", "epsilon": 0.5}, {"neighbouring": "replace-one"}),
    ({"id": "s", "kind": "sum", "column": "x", "lower": -3, "upper": 50, "epsilon": 0.4,
      "grid_step": 0.25, "group_by": {"column": "r", "keys": list(range(40))}}, {}),
    ({"id": "si", "kind": "sum", "column": "x", "lower": 0, "upper": 1000, "epsilon": 0.4,
      "grid_step": 1, "group_by": {"column": "r", "keys": list(range(40))}}, {}),
]


@pytest.mark.parametrize("clamp", [False, True])
@pytest.mark.parametrize(("query", "extra"), QUERIES, ids=[q["id"] for q, _ in QUERIES])
def test_column_wise_release_equals_the_per_cell_loop(query: dict[str, Any],
                                                      extra: dict[str, Any],
                                                      clamp: bool) -> None:
    plan = plan_from_dict(plan_dict(queries=[query], **extra))
    query_obj = plan.queries[0]
    cells = cell_labels(query_obj)
    rng = np.random.default_rng(7)
    ms = measurements_for(query_obj, plan)
    parts = {m.component.name: rng.integers(0, 3, len(cells)).astype(np.int64) for m in ms}
    agg = Aggregate(query_obj.id, cells, parts=parts)
    for seed in range(5):
        [release] = privatize(plan, {query_obj.id: agg}, source=SeededRandomSource(seed),
                              clamp_counts=clamp)
        assert isinstance(release.values, ReleasedValues)
        got = [v.to_dict() for v in release.values]
        # json text: an int is not a float, -0.0 is not 0.0
        assert json.dumps(got) == json.dumps(_reference(query_obj, plan, agg, seed, clamp))
        assert len(release.values) == len(cells)
        assert release.values[-1].to_dict() == got[-1]
        assert release.values == [ReleasedValue(**row) for row in got]


def test_huge_values_take_the_exact_per_cell_path() -> None:
    plan = plan_from_dict(plan_dict(queries=[{"id": "c", "kind": "count", "epsilon": 1}]))
    q = plan.queries[0]
    big = (1 << 60) + 1  # beyond float64's integers: int64 and float64 forms would differ
    agg = Aggregate("c", cell_labels(q), parts={"count": np.array([big], dtype=np.int64)})
    [release] = privatize(plan, {"c": agg}, source=SeededRandomSource(3))
    assert json.dumps([v.to_dict() for v in release.values]) == \
        json.dumps(_reference(q, plan, agg, 3, False))


def test_a_released_value_is_still_a_frozen_dataclass() -> None:
    v = ReleasedValue("q", "Q", None, "a", 1, 0, 2, 0.95, "laplace")
    assert v == ReleasedValue(query_id="q", label="Q", group=None, cell="a", value=1, low=0,
                              high=2, confidence=0.95, mechanism="laplace", note="")
    assert hash(v) == hash(ReleasedValue(**v.to_dict()))
    with pytest.raises(AttributeError):
        v.value = 3  # type: ignore[misc]


def test_the_record_s_columns_are_the_rows() -> None:
    """release@2's column-wise results (result_columns.table_of) hold exactly the rows'
    values, whether made from a statistic's columns or from its ReleasedValue rows."""
    plan = plan_from_dict(plan_dict(queries=[
        {"id": "h", "kind": "histogram", "column": "g", "categories": list(range(50)),
         "epsilon": 0.2},
        {"id": "m", "kind": "mean", "column": "x", "lower": 0, "upper": 8, "epsilon": 0.3,
         "grid_step": 1},
        {"id": "h2", "kind": "histogram", "column": "g", "categories": ["a", "b"],
         "epsilon": 0.2}], budget={"epsilon": 1.0, "delta": 0.0}))
    rng = np.random.default_rng(3)
    aggs = {}
    for q in plan.queries:
        cells = cell_labels(q)
        aggs[q.id] = Aggregate(q.id, cells, parts={
            m.component.name: rng.integers(1, 9, len(cells)).astype(np.int64)
            for m in measurements_for(q, plan)})
    releases = privatize(plan, aggs, source=SeededRandomSource(11), clamp_counts=True)
    expected = [v.to_dict() for r in releases for v in r.values]  # makes the rows
    fresh = privatize(plan, aggs, source=SeededRandomSource(11), clamp_counts=True)
    assert json.dumps([row for r in fresh for row in table_of(r).rows()]) == \
        json.dumps(expected)  # from the columns
    as_rows = [QueryRelease(r.query_id, list(r.values)) for r in releases]  # from the rows
    assert json.dumps(result_entries(as_rows)) == json.dumps(result_entries(fresh))
