"""A count of people (distinct ids of the unit; walk 2, finding 6): every engine counts each
household once a cell, after bounding, with filters ("a person counts if any of their rows
passes") and groups; sensitivity 1 a cell; released and verified."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest

from planner_app.core.data.engines import open_engine
from planner_app.core.data.tables import load_table, open_table
from planner_app.core.dp.mechanisms import SeededRandomSource
from planner_app.core.kinds.shared_dp import components_for
from planner_app.core.planfile import plan_from_dict
from planner_app.core.release.publish import publish
from planner_app.core.release.verify_release import verify_bundle
from planner_app.core.support.errors import InputError
from planner_app.core.support.home import app_home
from tests.conftest import plan_dict, with_reasons

REGIONS = ["North", "South", "East", "West"]


def households(path: Path) -> list[dict[str, object]]:
    rng = np.random.default_rng(11)
    rows: list[dict[str, object]] = []
    for h in range(300):
        region = REGIONS[h % 4]
        for m in range(int(rng.integers(1, 7))):
            rows.append({"household_id": f"H{h:04d}", "member_no": m + 1, "region": region,
                         "age": int(rng.integers(0, 90))})
    with path.open("w", newline="") as f:
        writer = csv.DictWriter(f, ["household_id", "member_no", "region", "age"])
        writer.writeheader()
        writer.writerows(rows)
    return rows


PLAN = with_reasons(plan_dict(
    dataset={"name": "hh"},
    privacy_unit={"kind": "person", "id_column": "household_id", "max_rows": 6},
    budget={"epsilon": 3.0, "delta": 0.0},
    queries=[
        {"id": "households", "kind": "count", "of": "people", "epsilon": 1.0},
        {"id": "with_a_child", "kind": "count", "of": "people", "epsilon": 1.0,
         "where": [{"column": "age", "op": "<", "value": 18}]},
        {"id": "by_region", "kind": "count", "of": "people", "epsilon": 1.0,
         "group_by": {"column": "region", "keys": REGIONS}},
    ]))


def test_every_engine_counts_each_person_once_a_cell(tmp_path: Path) -> None:
    path = tmp_path / "hh.csv"
    rows = households(path)
    plan = plan_from_dict(PLAN)
    expected = {
        "households": [len({r["household_id"] for r in rows})],
        "with_a_child": [len({r["household_id"] for r in rows if int(r["age"]) < 18})],
        "by_region": [len({r["household_id"] for r in rows if r["region"] == g})
                      for g in REGIONS],
    }
    assert expected["households"] == [300]
    for name in ("pandas", "duckdb"):
        engine = open_engine(name, plan, open_table(path), SeededRandomSource(0))
        try:
            for q in plan.queries:
                got = engine.aggregate(q).parts["count"].tolist()
                assert got == expected[q.id], (name, q.id)
        finally:
            engine.close()


def test_a_count_of_people_has_sensitivity_one_a_cell() -> None:
    plan = plan_from_dict(PLAN)
    unit = plan.privacy_unit
    (one,) = components_for(plan.query("households"), unit, "add-remove")
    assert (one.l1, one.l2_sq, one.single_cell) == (1, 1, True)
    assert "distinct household_id" in one.derivation
    # by region: a household's rows may lie in up to min(6, 4) regions, 1 each
    (grouped,) = components_for(plan.query("by_region"), unit, "add-remove")
    assert (grouped.l1, grouped.l2_sq) == (4, 4)
    rows_count = plan_from_dict({**PLAN, "queries": [{"id": "n", "kind": "count",
                                                      "epsilon": 1.0}]})
    assert components_for(rows_count.queries[0], unit, "add-remove")[0].l1 == 6


def test_a_count_of_people_needs_an_id_unit() -> None:
    with pytest.raises(InputError, match=r"queries\[households\]\.of"):
        plan_from_dict({**PLAN, "privacy_unit": {"kind": "row"}})
    with pytest.raises(InputError, match="of"):
        plan_from_dict({**PLAN, "queries": [{"id": "m", "kind": "mean", "of": "people",
                                             "column": "age", "lower": 0, "upper": 90,
                                             "epsilon": 1.0}]})


def test_a_count_of_people_is_released_and_verified(tmp_path: Path) -> None:
    path = tmp_path / "hh.csv"
    households(path)
    plan = plan_from_dict(PLAN)
    out = tmp_path / "hh.zip"
    publish(plan, load_table(path), out, app_home(tmp_path / "home").ensure())
    verdict = verify_bundle(out)
    assert verdict.valid, verdict.problems
