"""An ε too small to say anything is refused for every mechanism before any charge (issue 22
§6): the Gaussian's noise stops depending on ε below the Laplace scale limit (δ alone sets a
± of tens of millions for a count), and a subnormal ε split between a mean's parts rounds
to 0 (it was a ZeroDivisionError)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from planner_app.core.data.tables import load_table
from planner_app.core.dp.measure import MAX_SCALE_BITS
from planner_app.core.planfile import plan_from_dict
from planner_app.core.planning.check import check_plan
from planner_app.core.release.publish import publish
from planner_app.core.support.errors import InputError
from planner_app.core.support.home import app_home


def plan_with(**query: Any) -> Any:
    q = {"id": "q", "epsilon": 1e-300, **query}
    if q.get("mechanism") == "gaussian":
        q.setdefault("delta", 1e-7)
    return plan_from_dict({"format": "planner-app/plan@1", "dataset": {"name": "t"},
                           "privacy_unit": {"kind": "row"},
                           "budget": {"epsilon": 2, "delta": 1e-6}, "queries": [q]})


BOUNDED = {"column": "x", "lower": 0, "upper": 10}


@pytest.mark.parametrize("query", [
    {"kind": "count", "mechanism": "gaussian"},
    {"kind": "sum", "mechanism": "gaussian", **BOUNDED},
    {"kind": "mean", "mechanism": "gaussian", **BOUNDED},
    {"kind": "variance", "mechanism": "gaussian", **BOUNDED},
    {"kind": "histogram", "mechanism": "gaussian", "column": "g", "categories": ["a", "b"]},
], ids=lambda q: q["kind"])
def test_a_gaussian_statistic_at_epsilon_1e_300_is_refused(query: dict[str, Any]) -> None:
    with pytest.raises(InputError) as caught:
        check_plan(plan_with(**query))
    assert str(caught.value).startswith("plan: queries[q].epsilon: ε = 1e-300 is too small for "
                                        "this statistic to say anything: its noise would be "
                                        "set by δ alone")


def test_the_floor_is_the_laplace_scale_limit() -> None:
    floor = 1 / 2.0**MAX_SCALE_BITS  # a count: sensitivity 1
    with pytest.raises(InputError, match=r"raise ε to at least 3\.6e-15"):
        check_plan(plan_with(kind="count", mechanism="gaussian", epsilon=floor / 2))
    kept = check_plan(plan_with(kind="count", mechanism="gaussian", epsilon=floor * 4))
    assert kept.queries[0].accuracy.half_width is not None  # wide, but it is released
    with pytest.raises(InputError, match="noise scale is too large"):  # the same limit
        check_plan(plan_with(kind="count", epsilon=floor / 2))


@pytest.mark.parametrize("kind", ["mean", "variance"])
@pytest.mark.parametrize("mechanism", ["laplace", "gaussian"])
def test_a_subnormal_epsilon_split_between_parts_is_refused(kind: str, mechanism: str) -> None:
    with pytest.raises(InputError, match=r"queries\[q\]\.epsilon: ε = 4\.94066e-324 is too "
                                         "small for this statistic to say anything"):
        check_plan(plan_with(kind=kind, mechanism=mechanism, epsilon=5e-324, **BOUNDED))


def test_the_release_is_refused_before_the_charge(tmp_path: Path) -> None:
    table = tmp_path / "t.csv"
    table.write_text("x,g\n1,a\n5,b\n")
    home = app_home(tmp_path / "home")
    with pytest.raises(InputError, match="too small for this statistic to say anything"):
        publish(plan_with(kind="sum", mechanism="gaussian", **BOUNDED), load_table(table),
                tmp_path / "b.zip", home)
    assert not (tmp_path / "b.zip").exists() and not home.ledger_path.exists()
