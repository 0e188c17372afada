"""Sensitivities: the textbook values, exactness against brute force, and a property test
that no pair of neighbouring tables moves an aggregate further than the sensitivity."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planner_app.core.dp.mechanisms import SeededRandomSource
from planner_app.core.kinds.shared_dp import components_for, grid_for, sensitivity_for
from planner_app.core.planfile import plan_from_dict
from tests.conftest import plan_dict
from tests.oracle.pandas_engine import PandasEngine


def make_plan(query: dict[str, Any], relation: str = "add-remove", k: int = 1):
    unit = {"kind": "row"} if k == 1 else {"kind": "person", "id_column": "pid", "max_rows": k}
    return plan_from_dict(plan_dict(queries=[query], neighbouring=relation, privacy_unit=unit))


def sens(query: dict[str, Any], relation: str = "add-remove", k: int = 1) -> float:
    plan = make_plan(query, relation, k)
    return sensitivity_for(plan.queries[0], plan.privacy_unit, plan.neighbouring).l1_value


COUNT = {"id": "c", "kind": "count", "epsilon": 1}
FILTERED = {**COUNT, "where": [{"column": "g", "op": "==", "value": "a"}]}
SUM = {"id": "s", "kind": "sum", "column": "x", "lower": 0, "upper": 50, "epsilon": 1,
       "missing": {"impute": 0}}
SIGNED = {**SUM, "lower": -20, "upper": 50}
QUANT = {"id": "q", "kind": "quantile", "column": "x", "lower": 0, "upper": 50, "quantile": 0.5,
         "epsilon": 1}
GROUPED_QUANT = {**QUANT, "group_by": {"column": "g", "keys": ["a", "b"]}}
HIST = {"id": "h", "kind": "histogram", "column": "g", "categories": ["a", "b", "c"],
        "epsilon": 1}


@pytest.mark.parametrize("query,relation,k,expected", [
    (COUNT, "add-remove", 1, 1),
    (COUNT, "replace-one", 1, 0),  # the count of all rows is public under replace-one
    (FILTERED, "replace-one", 1, 1),
    (COUNT, "add-remove", 8, 8),
    (SUM, "add-remove", 1, 50),  # max(|L|, |U|)
    (SUM, "replace-one", 1, 50),  # U - L
    (SIGNED, "add-remove", 1, 50),
    (SIGNED, "replace-one", 1, 70),
    (SUM, "add-remove", 8, 400),  # the example: [0, 50], 8 rows per person
    (HIST, "add-remove", 1, 1),
    (HIST, "replace-one", 1, 2),
    (HIST, "add-remove", 3, 3),
    (HIST, "replace-one", 3, 6),
    (QUANT, "add-remove", 1, 1),
    (QUANT, "replace-one", 1, 1),
    (QUANT, "add-remove", 4, 4),
    (GROUPED_QUANT, "add-remove", 1, 1),  # one row touches one group
    (GROUPED_QUANT, "replace-one", 1, 2),  # a replaced row may leave one group for another
    (GROUPED_QUANT, "replace-one", 3, 6),
])
def test_textbook_values(query: dict[str, Any], relation: str, k: int, expected: float) -> None:
    assert sens(query, relation, k) == expected


def test_only_one_cell_changes_for_a_single_row_under_add_remove() -> None:
    grouped = {**SUM, "group_by": {"column": "g", "keys": ["a", "b"]}}
    for k, relation, single in ((1, "add-remove", True), (3, "add-remove", False),
                                (1, "replace-one", False)):
        plan = make_plan(grouped, relation, k)
        comp = components_for(plan.queries[0], plan.privacy_unit, plan.neighbouring)[0]
        assert comp.single_cell is single, (k, relation)


def test_derivation_reads_like_a_sentence() -> None:
    plan = make_plan(SUM, "add-remove", 8)
    text = sensitivity_for(plan.queries[0], plan.privacy_unit, plan.neighbouring).derivation
    assert "sum of x clamped to [0, 50]" in text
    assert "at most 8 rows per person" in text
    assert "add-remove" in text and text.endswith("sensitivity 400")


def test_mean_centres_its_sum_and_variance_has_three_parts() -> None:
    mean = {"id": "m", "kind": "mean", "column": "x", "lower": 10, "upper": 30, "epsilon": 1,
            "grid_step": 1}
    plan = make_plan(mean)
    parts = {c.name: c for c in components_for(plan.queries[0], plan.privacy_unit,
                                               plan.neighbouring)}
    assert parts["sum"].l1_value == 10  # (U - L) / 2 after centring on 20
    assert parts["count"].l1 == 1
    var = make_plan({**mean, "kind": "variance"})
    names = [c.name for c in components_for(var.queries[0], var.privacy_unit, var.neighbouring)]
    assert names == ["count", "sum", "sumsq"]


def test_default_grid_depends_on_bounds_only() -> None:
    plan = make_plan({**SUM, "upper": 200000})
    grid = grid_for(plan.queries[0])
    assert grid.step == 2.0  # 2^(floor(log2 200000) - 16)
    assert (grid.lo, grid.hi) == (0, 100000)


# ----------------------------------------------------------------------------- brute force


def brute_force(values: list[int], k: int, filtered: bool, cells: int, relation: str,
                norm: int = 1) -> int:
    """Largest change of a cell vector from one person's 1..k rows, by enumeration."""
    row_options: list[tuple[int, int] | None] = [(c, v) for c in range(cells) for v in values]
    if filtered:
        row_options.append(None)
    contributions = set()
    for j in range(1, k + 1):
        for rows in itertools.combinations_with_replacement(range(len(row_options)), j):
            vec = [0] * cells
            for r in rows:
                option = row_options[r]
                if option is not None:
                    vec[option[0]] += option[1]
            contributions.add(tuple(vec))
    vecs = [np.array(c) for c in contributions]

    def size(v: np.ndarray) -> int:
        return int(np.abs(v).sum()) if norm == 1 else int((v * v).sum())

    if relation == "add-remove":
        return max(size(v) for v in vecs)
    return max(size(a - b) for a in vecs for b in vecs)


@pytest.mark.parametrize("relation", ["add-remove", "replace-one"])
@pytest.mark.parametrize("k", [1, 2, 3])
@pytest.mark.parametrize("bounds", [(0, 3), (-2, 3), (1, 4), (-4, -1)])
@pytest.mark.parametrize("filtered", [False, True])
@pytest.mark.parametrize("groups", [1, 2])
def test_sum_sensitivity_is_exact(relation: str, k: int, bounds: tuple[int, int], filtered: bool,
                                  groups: int) -> None:
    lo, hi = bounds
    query: dict[str, Any] = {**SUM, "lower": lo, "upper": hi, "grid_step": 1}
    if filtered:
        query["where"] = [{"column": "g", "op": "==", "value": "a"}]
    if groups > 1:
        query["group_by"] = {"column": "g", "keys": ["a", "b"]}
    plan = make_plan(query, relation, k)
    comp = components_for(plan.queries[0], plan.privacy_unit, plan.neighbouring)[0]
    can_be_empty = filtered or groups > 1
    values = list(range(lo, hi + 1))
    assert comp.l1 == brute_force(values, k, can_be_empty, groups, relation, 1)
    assert comp.l2_sq == brute_force(values, k, can_be_empty, groups, relation, 2)


@pytest.mark.parametrize("relation", ["add-remove", "replace-one"])
@pytest.mark.parametrize("k", [1, 2, 3])
@pytest.mark.parametrize("cells", [1, 3])
def test_histogram_sensitivity_is_exact(relation: str, k: int, cells: int) -> None:
    query = {**HIST, "categories": ["a", "b", "c"][:cells]}
    plan = make_plan(query, relation, k)
    comp = components_for(plan.queries[0], plan.privacy_unit, plan.neighbouring)[0]
    # a row may hold an undeclared category and count nowhere
    assert comp.l1 == brute_force([1], k, True, cells, relation, 1)
    assert comp.l2_sq == brute_force([1], k, True, cells, relation, 2)


# ----------------------------------------------------------------------------- neighbours


def _aggregate(plan, frame: pd.DataFrame) -> dict[str, np.ndarray]:  # type: ignore[no-untyped-def]
    engine = PandasEngine(plan, frame, SeededRandomSource(0))
    return engine.aggregate(plan.queries[0]).parts


rows = st.lists(st.tuples(st.integers(0, 5), st.sampled_from(["a", "b", "z"]),
                          st.one_of(st.none(), st.integers(-30, 80))), min_size=0, max_size=12)


@settings(max_examples=150, deadline=None)
@given(table=rows, other=st.lists(st.tuples(st.sampled_from(["a", "b", "z"]),
                                            st.one_of(st.none(), st.integers(-30, 80))),
                                  min_size=1, max_size=3),
       kind=st.sampled_from(["count", "sum", "mean", "variance", "histogram"]),
       relation=st.sampled_from(["add-remove", "replace-one"]),
       grouped=st.booleans(), filtered=st.booleans())
def test_no_neighbour_moves_further_than_the_sensitivity(table, other, kind, relation, grouped,
                                                         filtered) -> None:  # type: ignore[no-untyped-def]
    k = 3
    query: dict[str, Any] = {"id": "q", "kind": kind, "epsilon": 1}
    if kind in ("sum", "mean", "variance"):
        query.update(column="x", lower=-10, upper=40, grid_step=1)
    if kind == "histogram":
        query.update(column="g", categories=["a", "b"])
    if grouped and kind != "histogram":
        query["group_by"] = {"column": "g", "keys": ["a", "b"]}
    if filtered:
        query["where"] = [{"column": "x", "op": ">=", "value": 0}]
    plan = make_plan(query, relation, k)
    # every person has at most k rows, so contribution bounding keeps them all
    by_person: dict[int, list[tuple[str, Any]]] = {}
    for pid, g, x in table:
        if len(by_person.setdefault(pid, [])) < k:
            by_person[pid].append((g, x))

    def frame(people: dict[int, list[tuple[str, Any]]]) -> pd.DataFrame:
        data = [(pid, g, x) for pid, rs in people.items() for g, x in rs]
        return pd.DataFrame(data or [(99, "z", None)][:0], columns=["pid", "g", "x"]).astype(
            {"pid": "int64", "g": "object", "x": "float64"})

    base = frame(by_person)
    if relation == "add-remove":
        neighbour = dict(by_person)
        neighbour[100] = other
    else:
        if not by_person:
            return
        neighbour = dict(by_person)
        neighbour[next(iter(by_person))] = other
    a, b = _aggregate(plan, base), _aggregate(plan, frame(neighbour))
    comps = {c.name: c for c in components_for(plan.queries[0], plan.privacy_unit,
                                               plan.neighbouring)}
    for name, comp in comps.items():
        diff = a[name] - b[name]
        assert int(np.abs(diff).sum()) <= comp.l1, (name, a[name], b[name])
        assert int((diff * diff).sum()) <= comp.l2_sq


def test_an_imputed_mean_says_its_count_includes_imputed_rows() -> None:
    """Found by the adversarial pass: an imputed mean's count was described as "rows with the
    column present" although imputed rows are counted too."""
    from planner_app.core.kinds.shared_dp import components_for
    from planner_app.core.planfile import plan_from_dict
    from tests.conftest import plan_dict

    plan = plan_from_dict(plan_dict(queries=[{"id": "m", "kind": "mean", "column": "x",
                                              "lower": 0, "upper": 10, "epsilon": 1.0,
                                              "missing": {"impute": 5}}]))
    q = plan.queries[0]
    count = components_for(q, plan.privacy_unit, plan.neighbouring)[0]
    assert "present" not in count.derivation and "imputed" in count.derivation
