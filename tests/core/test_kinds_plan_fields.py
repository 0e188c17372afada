"""The kinds' plan-fields section (issue 23): every kind in the registry reads its own fields
and writes them back unchanged (the canonical plan JSON, key order included), its attributes
agree with the model's tables that other code still reads, and a field of another kind is
refused by name."""

from __future__ import annotations

import json
from typing import Any

import pytest

from planner_app.core.kinds import KINDS
from planner_app.core.planfile import plan_from_dict, plan_to_dict
from planner_app.core.support.errors import InputError
from tests.conftest import plan_dict
from tests.kind_table import (
    MECHANISMS_BY_KIND,
    NEEDS_BOUNDS,
    NEEDS_COLUMN,
    YES_NO_KINDS,
    kind_takes,
)

#: one statistic of each kind in the plan file's canonical form (the order plan_to_dict
#: writes: id, label, kind, column, the kind's fields, the row selection, missing, mechanism,
#: epsilon, delta, ..., yes/no last), with a field each of them reads
CANONICAL: dict[str, dict[str, Any]] = {
    "count": {"id": "c", "label": "c", "kind": "count", "of": "people",
              "missing": "drop", "mechanism": "laplace", "epsilon": 0.5},
    "sum": {"id": "s", "label": "s", "kind": "sum", "column": "x", "lower": -1.0, "upper": 9.0,
            "group_by": {"column": "g", "keys": ["a", "b"]},
            "missing": {"impute": 2.0}, "mechanism": "gaussian", "epsilon": 0.5,
            "delta": 1e-7, "grid_step": 0.25},
    "mean": {"id": "m", "label": "m", "kind": "mean", "column": "x", "lower": 0.0,
             "upper": 1.0, "where": [{"column": "g", "op": "in", "value": ["a"]}],
             "missing": "drop", "mechanism": "laplace", "epsilon": 0.5, "expected_count": 40.0},
    "variance": {"id": "v", "label": "v", "kind": "variance", "column": "x", "lower": 0.0,
                 "upper": 4.0, "missing": "drop", "mechanism": "laplace", "epsilon": 0.5},
    "standard_deviation": {"id": "sd", "label": "sd", "kind": "standard_deviation",
                           "column": "x", "lower": 0.0, "upper": 4.0, "missing": "drop",
                           "mechanism": "gaussian", "epsilon": 0.5, "delta": 1e-6,
                           "expected_count": 25.0},
    "histogram": {"id": "h", "label": "h", "kind": "histogram", "column": "x",
                  "bins": [0.0, 1.0, 2.5], "missing": {"impute": 1.0}, "mechanism": "laplace",
                  "epsilon": 0.5},
    "quantile": {"id": "q", "label": "q", "kind": "quantile", "column": "x", "lower": 0.0,
                 "upper": 100.0, "quantile": 0.9, "missing": "drop",
                 "mechanism": "exponential", "epsilon": 0.5},
    "randomized_response": {"id": "r", "label": "r", "kind": "randomized_response",
                            "column": "x", "missing": {"impute": "ja"},
                            "mechanism": "randomized_response", "epsilon": 0.5,
                            "yes": ["ja"], "no": ["nein"]},
    "synthetic": {"id": "t", "label": "t", "kind": "synthetic", "method": "mst",
                  "columns": [{"column": "a", "categories": ["p", "q"]}], "rows": 10,
                  "epsilon": 0.5, "delta": 1e-6},
    "discover_keys": {"id": "dk", "label": "dk", "kind": "discover_keys", "column": "x",
                      "missing": "drop", "mechanism": "laplace_threshold", "epsilon": 0.5,
                      "delta": 1e-7, "max_keys": 3, "publish_counts": True},
    "discover_bounds": {"id": "db", "label": "db", "kind": "discover_bounds", "column": "x",
                        "lower": -100.0, "upper": 1000.0,
                        "where": [{"column": "g", "op": "==", "value": "a"}],
                        "missing": "drop", "mechanism": "exponential", "epsilon": 0.5,
                        "quantiles": [0.05, 0.95]},
}


def _plan(query: dict[str, Any]) -> dict[str, Any]:
    return plan_dict(privacy_unit={"kind": "person", "id_column": "pid", "max_rows": 2},
                     budget={"epsilon": 1.0, "delta": 1e-5, "accountant": "zcdp"},
                     queries=[query])


def test_every_kind_has_a_canonical_example() -> None:
    assert set(CANONICAL) == set(KINDS)


@pytest.mark.parametrize("name", sorted(CANONICAL))
def test_each_kind_writes_back_what_it_read(name: str) -> None:
    doc = _plan(CANONICAL[name])
    written = plan_to_dict(plan_from_dict(doc))["queries"][0]
    # the same fields, the same values, in the same order (json text compares order)
    assert json.dumps(written) == json.dumps(CANONICAL[name])


@pytest.mark.parametrize("name", sorted(KINDS))
def test_kind_attributes_agree_with_the_models_tables(name: str) -> None:
    kind = KINDS[name]
    assert kind.mechanisms == MECHANISMS_BY_KIND[name]
    assert kind.needs_column == (name in NEEDS_COLUMN)
    assert kind.bounded == (name in NEEDS_BOUNDS)
    for field in ("group_by", "where"):
        assert kind.takes(field) == kind_takes(name, field)
    assert (name in YES_NO_KINDS) == (name == "randomized_response")


@pytest.mark.parametrize(("name", "field", "value"), [
    ("count", "lower", 0), ("count", "quantile", 0.5), ("sum", "categories", ["a"]),
    ("mean", "of", "people"), ("histogram", "yes", ["y"]), ("variance", "quantile", 0.5),
])
def test_a_field_of_another_kind_is_refused_by_name(name: str, field: str,
                                                    value: object) -> None:
    query = {**CANONICAL[name], field: value}
    if field == "yes":
        query["no"] = ["n"]
    with pytest.raises(InputError) as err:
        plan_from_dict(_plan(query))
    assert err.value.where == f"queries[{query['id']}].{field}"
    assert err.value.problem == f"is not used by kind {name}"
