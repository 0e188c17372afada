"""The results chart of a released statistic draws the plan's headline values (issue 27):
its consistent values when the plan made them the headline, else the raw noised ones, and
its caption says which when the statistic has both."""

from __future__ import annotations

from typing import Any

from planner_app.core.release.consistent import (
    HEADLINE_DRAWN_CONSISTENT,
    HEADLINE_DRAWN_RAW,
    headline_chart,
)

QUERY = {"id": "by_g", "kind": "count", "column": None}
ROWS = [{"group": "a", "cell": None, "value": 10, "low": 7, "high": 13, "confidence": 0.95},
        {"group": "b", "cell": None, "value": -2, "low": -5, "high": 1, "confidence": 0.95}]


def _section(headline: str) -> dict[str, Any]:
    return {"headline": headline, "queries": [
        {"query_id": "by_g", "value": [9, 0], "low": [7, 0], "high": [12, 2],
         "empty_cell_bias": 1.0}]}


def test_consistent_headline_draws_the_consistent_values() -> None:
    chart = headline_chart(QUERY, ROWS, None, _section("consistent"))
    assert chart is not None
    assert [(m.centre, m.low, m.high) for m in chart.marks] == [(9, 7, 12), (0, 0, 2)]
    assert chart.caption.endswith(HEADLINE_DRAWN_CONSISTENT)


def test_raw_headline_draws_the_raw_values_and_says_so() -> None:
    chart = headline_chart(QUERY, ROWS, None, _section("raw"))
    assert chart is not None
    assert [m.centre for m in chart.marks] == [10, -2]
    assert chart.caption.endswith(HEADLINE_DRAWN_RAW)


def test_a_statistic_in_no_relation_is_drawn_as_before() -> None:
    other = {**QUERY, "id": "elsewhere"}
    chart = headline_chart(other, ROWS, None, _section("consistent"))
    assert chart is not None and [m.centre for m in chart.marks] == [10, -2]
    assert "headline" not in chart.caption
    assert headline_chart(QUERY, [], None, None) is None
