"""The kinds' DP section (issue 23): every kind in the registry answers its components,
measurements and accuracy for a plan of that kind, and the registry-level functions of
kinds/shared_dp.py return the kind's own answers."""

from __future__ import annotations

import math
from typing import Any

import pytest

from planner_app.core.kinds import KINDS, kind_of
from planner_app.core.kinds.shared_dp import (
    accuracy_for,
    cell_count,
    components_for,
    measurements_for,
    possible_range,
    quantile_refusal,
    rr_refusal,
    sensitivity_for,
)
from planner_app.core.model.grid import DEFAULT_GRID_BITS, QUANTILE_GRID_BITS
from planner_app.core.planfile import plan_from_dict
from tests.conftest import plan_dict
from tests.kind_table import ROWS_KINDS

#: one statistic of each kind, with (headline component, its add-remove L1 sensitivity in
#: value units, the cells it releases), worked out by hand from docs/ formulas
EXAMPLES: dict[str, tuple[dict[str, Any], str, float, int]] = {
    "count": ({"kind": "count"}, "count", 1.0, 1),
    "sum": ({"kind": "sum", "column": "x", "lower": 0, "upper": 100}, "sum", 100.0, 1),
    "mean": ({"kind": "mean", "column": "x", "lower": -10, "upper": 10}, "sum", 10.0, 1),
    "variance": ({"kind": "variance", "column": "x", "lower": 0, "upper": 8}, "sum", 4.0, 1),
    "standard_deviation": ({"kind": "standard_deviation", "column": "x", "lower": 0,
                            "upper": 8}, "sum", 4.0, 1),
    "histogram": ({"kind": "histogram", "column": "x", "categories": ["a", "b", "c"]},
                  "cells", 1.0, 3),
    "quantile": ({"kind": "quantile", "column": "x", "lower": 0, "upper": 1, "quantile": 0.5,
                  "mechanism": "exponential"}, "rank", 1.0, 1),
    "randomized_response": ({"kind": "randomized_response", "column": "x",
                             "mechanism": "randomized_response", "yes": ["y"], "no": ["n"]},
                            "answers", 1.0, 1),
    "synthetic": ({"kind": "synthetic", "delta": 1e-6, "columns": [
        {"column": "a", "categories": ["p", "q"]}, {"column": "b", "bins": [0, 1, 2]}]},
        "oneway:a", 1.0, 1),
    # one row a person: a row holds one key, so max_keys is bounded by it
    "discover_keys": ({"kind": "discover_keys", "column": "x", "mechanism": "laplace_threshold",
                       "delta": 1e-6, "max_keys": 3}, "count", 1.0, 1),
    "discover_bounds": ({"kind": "discover_bounds", "column": "x", "lower": 0, "upper": 1},
                        "rank", 1.0, 1),
}


def test_every_kind_has_an_example() -> None:
    assert set(EXAMPLES) == set(KINDS)


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_each_kind_answers_its_dp_section(name: str) -> None:
    fields, headline, l1_value, cells = EXAMPLES[name]
    delta = 1e-5 if name in ("synthetic", "discover_keys") else 0.0
    plan = plan_from_dict(plan_dict(
        dataset={"name": "test", "expected_rows": 10_000},
        budget={"epsilon": 1.0, "delta": delta, **({"accountant": "zcdp"}
                                                   if name == "synthetic" else {})},
        queries=[{"id": "q", "epsilon": 1.0, **fields}]), "plan")
    q = plan.queries[0]
    kind = kind_of(q)
    assert kind is KINDS[name] and kind.name == name

    parts = kind.components(q, plan.privacy_unit, plan.neighbouring)
    assert parts == components_for(q, plan.privacy_unit, plan.neighbouring)
    head = sensitivity_for(q, plan.privacy_unit, plan.neighbouring)
    assert head.name == headline
    assert head.l1_value == pytest.approx(l1_value)
    assert cell_count(q) == cells

    ms = measurements_for(q, plan)
    assert ms == kind.measurements(q, plan)
    assert [m.component for m in ms] == parts
    # the statistic's ε is never exceeded by its measurements (synthetic: by their zCDP ρ)
    if name != "synthetic":
        assert sum(m.epsilon for m in ms) <= q.epsilon * (1 + 1e-12)

    acc = accuracy_for(q, plan)
    assert acc == kind.accuracy(q, plan, ms, 0.95)
    assert acc.half_width is not None and math.isfinite(acc.half_width) and acc.half_width > 0
    assert rr_refusal(q, ms) is None
    assert quantile_refusal(q, None) is None
    span = possible_range(q, acc)
    assert (span is not None) == (name in ("mean", "variance", "standard_deviation",
                                           "randomized_response", "quantile"))


def test_unstated_rows_per_person_give_the_kinds_unit() -> None:
    """Without a person's rows stated, the ± waits for them, in the kind's own unit."""
    plan = plan_from_dict(plan_dict(
        privacy_unit={"kind": "person", "id_column": "pid", "max_rows": None},
        queries=[{"id": "v", "kind": "variance", "column": "x", "lower": 0, "upper": 8,
                  "epsilon": 1.0}]), draft=True)
    acc = accuracy_for(plan.queries[0], plan)
    assert acc.half_width is None and acc.unit == "squared"


#: the unit of each kind's ± before the code moved into the kinds (dp/accuracy.py's table)
UNITS_BEFORE = {"count": "count", "histogram": "count", "synthetic": "count", "sum": "value",
                "mean": "value", "variance": "squared", "standard_deviation": "value",
                "quantile": "rank",
                "randomized_response": "share", "discover_keys": "count",
                "discover_bounds": "rank"}


@pytest.mark.parametrize("name", sorted(KINDS))
def test_dp_attributes_agree_with_the_tables_still_read(name: str) -> None:
    """A kind's accuracy_needs_rows says what the report and the command line read (the
    kinds whose ± is for a stated row count); its accuracy_unit is the old table's."""
    kind = KINDS[name]
    assert kind.accuracy_needs_rows == (name in ROWS_KINDS)
    assert kind.accuracy_unit == UNITS_BEFORE[name]
    assert kind.grid_bits == (QUANTILE_GRID_BITS if name in ("quantile", "discover_bounds")
                              else DEFAULT_GRID_BITS)
