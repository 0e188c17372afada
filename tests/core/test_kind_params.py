"""A statistic kind's own fields live with the kind (issue 23): the model's Query holds only
what every statistic has, and a kind with a field of its own is read from a plan and written
back without any change to the model or the plan file's reader and writer."""

from __future__ import annotations

import copy
import hashlib
import json
from dataclasses import dataclass, fields
from typing import Any

import pytest

from planner_app.core.kinds.base import StatisticKind
from planner_app.core.kinds.discover_bounds import FoundBoundsParams
from planner_app.core.kinds.discover_keys import KeysParams
from planner_app.core.kinds.params import (
    BoundedParams,
    CellsParams,
    CountParams,
    QuantileParams,
    SynthParams,
    YesNoParams,
    bounds_of,
    cells_of,
    params_of,
    with_params,
)
from planner_app.core.kinds.registry import KINDS, make_query
from planner_app.core.kinds.shared_plan import Stage
from planner_app.core.model import KindParams, Query
from planner_app.core.model.reader import FieldReader
from planner_app.core.planfile import plan_from_dict, plan_to_dict, plan_to_json
from planner_app.core.support.errors import InputError

#: what every statistic has, whatever its kind (written out here, not read from the model)
COMMON = {"id", "kind", "epsilon", "delta", "label", "column", "group_by", "where", "missing",
          "mechanism", "justification", "expected_count", "params"}


def test_query_names_no_field_of_one_kind() -> None:
    assert {f.name for f in fields(Query)} == COMMON
    assert fields(KindParams) == ()  # the model declares the base only, with no field


def test_each_kind_reads_its_fields_into_its_own_typed_params() -> None:
    expected = {"count": CountParams, "sum": BoundedParams, "mean": BoundedParams,
                "variance": BoundedParams, "standard_deviation": BoundedParams,
                "histogram": CellsParams, "quantile": QuantileParams,
                "randomized_response": YesNoParams, "synthetic": SynthParams,
                "discover_keys": KeysParams, "discover_bounds": FoundBoundsParams}
    plan = plan_from_dict(copy.deepcopy(EVERY_FIELD))
    old = {k: v for k, v in expected.items() if not k.startswith("discover_")}
    assert {q.kind: type(q.params) for q in plan.queries} == old
    assert {name: kind.params_type for name, kind in KINDS.items()} == expected
    assert plan.query("hb").params == CellsParams(bins=(0, 10, 20))
    assert plan.query("s").params == BoundedParams(lower=0, upper=64, grid_step=0.5)


def test_accessors_say_none_for_another_family_and_params_of_refuses_it() -> None:
    s = make_query("sum", id="s", epsilon=1.0, column="age", lower=0, upper=100)
    h = make_query("histogram", id="h", epsilon=1.0, column="r", categories=("a", "b"))
    assert bounds_of(s) == (0, 100) and bounds_of(h) is None
    assert cells_of(h) == CellsParams(categories=("a", "b")) and cells_of(s) is None
    with pytest.raises(TypeError):
        params_of(h, BoundedParams)
    assert bounds_of(with_params(s, upper=90)) == (0, 90)


def test_make_query_refuses_a_field_its_kind_does_not_have() -> None:
    with pytest.raises(TypeError):
        make_query("count", id="n", epsilon=1.0, lower=0)
    # an empty form field of another kind (None) is left out
    assert make_query("count", id="n", epsilon=1.0, lower=None).params == CountParams()


@dataclass(frozen=True)
class ToyParams(KindParams):
    toy_limit: int | None = None


class Toy(StatisticKind):
    """A kind defined here only, with a field of its own (``toy_limit``)."""

    name = "toy"
    title = "Toy"
    words = "toy"
    params_type = ToyParams
    own_keys = ("toy_limit",)

    def read_own(self, r: FieldReader, stage: Stage, got: dict[str, Any]) -> None:
        super().read_own(r, stage, got)
        if stage == "trailing":
            got["toy_limit"] = r.integer("toy_limit")

    def fields_to_dict(self, query: Query) -> dict[str, Any]:
        return {"toy_limit": params_of(query, ToyParams).toy_limit}

    def components(self, query: Query, unit: Any, relation: str) -> Any:
        raise NotImplementedError

    def accuracy(self, query: Query, plan: Any, measurements: Any, confidence: float) -> Any:
        raise NotImplementedError

    def aggregate_of(self, query: Query) -> Any:
        raise NotImplementedError

    def release(self, query: Query, aggregate: Any, ms: Any, draw: Any) -> Any:
        raise NotImplementedError

    def released_value_problem(self, query: Query, value: float, low: float | None,
                               high: float | None, half: float | None) -> str | None:
        return None

    def missing_words(self, query: Query) -> list[str]:
        return []

    def form_fields(self) -> frozenset[str]:
        return frozenset()


def _plan(*queries: dict[str, Any]) -> dict[str, Any]:
    return {"format": "planner-app/plan@1", "dataset": {"name": "t"},
            "privacy_unit": {"kind": "row"}, "budget": {"epsilon": 5.0},
            "queries": list(queries)}


@pytest.fixture
def toy(monkeypatch: pytest.MonkeyPatch) -> None:
    """The toy kind in the registry for one test (the registry is the one list of kinds)."""
    assert isinstance(KINDS, dict)
    monkeypatch.setitem(KINDS, "toy", Toy())


def test_a_new_kind_with_a_field_of_its_own_is_read_and_written_back(toy: None) -> None:
    doc = _plan({"id": "t", "kind": "toy", "column": "x", "epsilon": 1.0, "toy_limit": 7})
    plan = plan_from_dict(doc)
    q = plan.query("t")
    assert q.params == ToyParams(toy_limit=7)
    written = plan_to_dict(plan)["queries"][0]
    assert written == {"id": "t", "label": "t", "kind": "toy", "column": "x",
                       "missing": "drop", "mechanism": "laplace", "epsilon": 1.0,
                       "toy_limit": 7}
    again = plan_from_dict(json.loads(plan_to_json(plan)))
    assert again.query("t").params == ToyParams(toy_limit=7)
    assert plan_to_json(again) == plan_to_json(plan)


def test_a_new_kinds_field_is_refused_for_other_kinds_and_theirs_for_it(toy: None) -> None:
    count = {"id": "n", "kind": "count", "epsilon": 1.0, "toy_limit": 3}
    with pytest.raises(InputError) as err:
        plan_from_dict(_plan(count))
    assert str(err.value).endswith("queries[n].toy_limit: is not used by kind count")
    toy_with_bounds = {"id": "t", "kind": "toy", "column": "x", "epsilon": 1.0,
                       "toy_limit": 7, "lower": 0}
    with pytest.raises(InputError) as err:
        plan_from_dict(_plan(toy_with_bounds))
    assert str(err.value).endswith("queries[t].lower: is not used by kind toy")
    with pytest.raises(InputError) as err:
        plan_from_dict(_plan({"id": "t", "kind": "toy", "column": "x", "epsilon": 1.0,
                              "toy_limit": "many"}))
    assert "queries[t].toy_limit: must be a whole number" in str(err.value)


def test_a_new_kinds_field_is_refused_for_a_kind_that_reads_its_whole_query(
        toy: None) -> None:
    """The synthetic table reads its fields its own way (``read_query``); a field of another
    kind that its reader does not know of is refused too, never silently dropped."""
    synthetic = {"id": "syn", "kind": "synthetic", "epsilon": 1.0, "delta": 1e-6,
                 "columns": [{"column": "r", "categories": ["a", "b"]}], "toy_limit": 3}
    with pytest.raises(InputError) as err:
        plan_from_dict(_plan(synthetic))
    assert str(err.value).endswith("queries[syn].toy_limit: is not used by kind synthetic")


def test_a_counts_of_on_a_synthetic_table_is_refused() -> None:
    synthetic = {"id": "syn", "kind": "synthetic", "epsilon": 1.0, "delta": 1e-6,
                 "columns": [{"column": "r", "categories": ["a", "b"]}], "of": "people"}
    with pytest.raises(InputError) as err:
        plan_from_dict(_plan(synthetic))
    assert str(err.value).endswith("queries[syn].of: is not used by kind synthetic")


def test_without_the_new_kind_its_field_is_unknown() -> None:
    with pytest.raises(InputError) as err:
        plan_from_dict(_plan({"id": "n", "kind": "count", "epsilon": 1.0, "toy_limit": 3}))
    assert "queries[0].toy_limit: unknown field" in str(err.value)


#: a plan with every kind and every kind's own field, as a user might write it
EVERY_FIELD = {
    "format": "planner-app/plan@1", "dataset": {"name": "survey", "expected_rows": 500},
    "privacy_unit": {"kind": "person", "id_column": "pid", "max_rows": 2},
    "budget": {"epsilon": 20.0, "delta": 1e-5},
    "queries": [
        {"kind": "count", "id": "n", "epsilon": 0.5},
        {"id": "people", "kind": "count", "of": "people", "epsilon": 0.5, "column": "age"},
        {"id": "s", "kind": "sum", "column": "x", "upper": 64, "lower": 0, "grid_step": 0.5,
         "epsilon": 1, "expected_count": 100, "missing": {"impute": 3},
         "where": [{"column": "r", "op": "in", "value": ["a"]}],
         "group_by": {"column": "r", "keys": ["a", "b"]}, "mechanism": "gaussian",
         "delta": 1e-6, "justification": {"bounds": "a policy"}},
        {"id": "m", "kind": "mean", "column": "age", "lower": 0, "upper": 100, "epsilon": 1},
        {"id": "v", "kind": "variance", "column": "age", "lower": 0, "upper": 100,
         "epsilon": 1},
        {"id": "sd", "kind": "standard_deviation", "column": "age", "lower": 0,
         "upper": 100, "epsilon": 1},
        {"id": "hc", "kind": "histogram", "column": "r", "categories": ["a", "b"],
         "epsilon": 1},
        {"id": "hb", "kind": "histogram", "column": "age", "bins": [0, 10, 20], "epsilon": 1,
         "missing": {"impute": 5}},
        {"id": "q", "kind": "quantile", "column": "age", "quantile": 0.9, "lower": 0,
         "upper": 100, "epsilon": 1},
        {"id": "rr", "kind": "randomized_response", "column": "sex", "no": ["M"],
         "yes": ["F"], "epsilon": 1, "missing": {"impute": "F"}, "expected_count": 10},
        {"id": "syn", "kind": "synthetic", "epsilon": 1.0, "delta": 1e-6, "method": "mst",
         "rows": 50, "columns": [{"column": "r", "categories": ["N", "S"]},
                                 {"column": "age", "bins": [0, 18, 65, 120]}]},
    ],
}


def test_the_plan_file_is_written_as_before_the_params_split() -> None:
    """The plan's canonical JSON of every kind's fields, byte for byte: the SHA-256 is the
    one the code before issue 23's params split wrote (commit c7060eb)."""
    text = plan_to_json(plan_from_dict(copy.deepcopy(EVERY_FIELD)))
    assert hashlib.sha256(text.encode("utf-8")).hexdigest() == EVERY_FIELD_SHA256
    assert plan_to_json(plan_from_dict(json.loads(text))) == text


EVERY_FIELD_SHA256 = "eace46a7bf5cdd7a8dde522bb8c07f9c098c8eca4711b7d6905f29603ea51add"
