"""While a person unit's rows per person are not stated, no ± is shown as if each person had
one row (up to k times too good): every statistic's accuracy asks for the rows instead, and
the figure appears, scaled by k, once the owner types them (issue 22, unitflow's left-over)."""

from __future__ import annotations

from typing import Any

import pytest

from planner_app.core.dp.accuracy import NEEDS_PERSON_ROWS, format_half_width
from planner_app.core.kinds.shared_dp import accuracy_for
from planner_app.core.planfile import plan_from_dict


def plan(max_rows: int | None, query: dict[str, Any]) -> Any:
    return plan_from_dict({
        "format": "planner-app/plan@1", "dataset": {"name": "panel", "path": "panel.csv",
                                                    "expected_rows": 4000},
        "privacy_unit": {"kind": "person", "id_column": "nr", "max_rows": max_rows},
        "budget": {"epsilon": 1.0, "delta": 0.0}, "queries": [query]}, draft=True)


COUNT = {"id": "rows", "kind": "count", "epsilon": 1.0}
SUM = {"id": "inc", "kind": "sum", "epsilon": 1.0, "column": "income",
       "lower": 0, "upper": 100}


@pytest.mark.parametrize("query", [COUNT, SUM], ids=["count", "sum"])
def test_no_accuracy_is_shown_before_the_rows_per_person(query: dict[str, Any]) -> None:
    unstated = plan(None, query)
    acc = accuracy_for(unstated.queries[0], unstated)
    assert acc.half_width is None
    assert acc.note == NEEDS_PERSON_ROWS
    assert format_half_width(acc) == "needs rows per person"
    one, eight = (accuracy_for(p.queries[0], p) for p in (plan(1, query), plan(8, query)))
    assert one.half_width is not None and eight.half_width is not None
    # a person's 8 rows move a count or a sum 8 times as far as one row: the noise scales by k
    assert eight.half_width == pytest.approx(8 * one.half_width, rel=0.02)
