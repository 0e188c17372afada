"""Starter plans (core/planning/starters.py): nothing from the data but column names and
types; what only the owner knows is left empty so that check names it."""

from __future__ import annotations

import math

import pytest

from planner_app.core.data.tables import ColumnInfo
from planner_app.core.planfile import plan_from_dict, plan_to_dict
from planner_app.core.planning.starters import (
    STARTER_EPSILON,
    empty_plan,
    looks_like_id,
    starter_from_columns,
)
from planner_app.core.support.errors import InputError

COLUMNS = [ColumnInfo("household_id", "text", 0), ColumnInfo("age", "number", 2),
           ColumnInfo("smokes", "yes/no", 0), ColumnInfo("region", "text", 1)]


def test_an_empty_plan_is_a_valid_plan_once_it_has_a_statistic() -> None:
    plan = empty_plan("survey", "survey.csv")
    assert plan.queries == () and plan.privacy_unit.kind == "row"
    doc = plan_to_dict(plan)
    doc["queries"] = [{"id": "n", "kind": "count", "epsilon": plan.budget.epsilon}]
    again = plan_from_dict(doc)
    assert again.budget == plan.budget and again.dataset == plan.dataset


def test_a_starter_has_one_statistic_per_column_and_the_id_as_the_unit() -> None:
    starter = starter_from_columns("survey", "survey.csv", COLUMNS)
    doc = starter.document
    kinds = {q["id"]: q["kind"] for q in doc["queries"]}
    assert kinds == {"rows": "count", "mean_age": "mean", "share_smokes": "randomized_response",
                     "counts_region": "histogram"}
    assert not any(q.get("column") == "household_id" for q in doc["queries"])
    assert doc["privacy_unit"] == {"kind": "person", "id_column": "household_id",
                                   "max_rows": None}
    assert starter.id_column == "household_id"
    assert starter.to_fill_in == 2  # the mean's bounds and the histogram's categories
    shares = [q["epsilon"] for q in doc["queries"]]
    assert len(set(shares)) == 1 and sum(shares) <= STARTER_EPSILON + 1e-9
    assert math.isclose(sum(shares), STARTER_EPSILON, rel_tol=1e-5)
    assert doc["budget"] == plan_to_dict(empty_plan("survey", "survey.csv"))["budget"]


def test_a_starter_does_not_validate_until_the_owner_fills_it_in() -> None:
    starter = starter_from_columns("survey", "survey.csv", COLUMNS)
    with pytest.raises(InputError) as info:
        plan_from_dict(starter.document, "starter.json")
    assert str(info.value).startswith("starter.json: privacy_unit.max_rows: is required: the "
                                      "most rows one person may have")


def test_without_an_id_column_one_row_is_one_person() -> None:
    starter = starter_from_columns("t", "t.csv", [ColumnInfo("Score (%)", "number", 0)])
    assert starter.document["privacy_unit"] == {"kind": "row"}
    assert starter.id_column is None
    assert [q["id"] for q in starter.document["queries"]] == ["rows", "mean_Score____"]


@pytest.mark.parametrize(("name", "expected"), [
    ("id", True), ("KEY", True), ("person_id", True), ("Person ID", True), ("visit-id", True),
    ("idea", False), ("paid", False), ("region", False)])
def test_what_looks_like_an_id(name: str, expected: bool) -> None:
    assert looks_like_id(name) is expected
