"""The picture before release: its intervals are the planned accuracy, from public parameters
only (issue 11)."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest

from planner_app.core.dp.accuracy import shown_half_width
from planner_app.core.kinds.params import with_params
from planner_app.core.kinds.shared_dp import accuracy_for
from planner_app.core.model import GroupBy
from planner_app.core.planfile import load_plan
from planner_app.core.planning.preview import (
    ILLUSTRATIVE_ROWS,
    MAX_PREVIEW_CELLS,
    preview_for,
    release_chart,
)
from planner_app.core.support.resources import demo_plan_path


@pytest.fixture(scope="module")
def plan():  # type: ignore[no-untyped-def]
    return load_plan(demo_plan_path())


def laplace_half_width_by_summing(scale: float, confidence: float) -> int:
    """Smallest k with P(|X| > k) <= 1 - confidence for P(x) ∝ exp(-|x|/scale), by summing the
    probabilities outright (not accuracy.py's closed form)."""
    weights = [math.exp(-abs(x) / scale) for x in range(-4000, 4001)]
    total = math.fsum(weights)
    k = 0
    while math.fsum(w for x, w in zip(range(-4000, 4001), weights, strict=True)
                    if abs(x) > k) / total > 1 - confidence:
        k += 1
    return k


def test_a_histograms_error_bars_are_the_exact_laplace_half_width(plan) -> None:  # type: ignore[no-untyped-def]
    q = plan.query("region_counts")  # sensitivity 3 (3 rows a person), ε = 0.4: scale 7.5
    chart = preview_for(q, plan)
    expected = laplace_half_width_by_summing(3 / q.epsilon, 0.95)
    assert chart.shape == "bars" and [m.label for m in chart.marks] == list(q.params.categories)
    for m in chart.marks:
        assert m.high - m.centre == expected and m.centre - m.low == expected
    assert chart.half_width == expected
    assert f"± {expected}" in chart.caption and "not your data" in chart.caption


@pytest.mark.parametrize("epsilon", [0.05, 0.4, 2.0])
def test_every_kind_draws_the_accuracy_the_text_shows(plan, epsilon) -> None:  # type: ignore[no-untyped-def]
    for q in plan.queries:
        q = replace(q, epsilon=epsilon)
        acc = accuracy_for(q, plan)
        hw = shown_half_width(acc)
        chart = preview_for(q, plan, acc)
        assert chart.half_width == pytest.approx(hw, rel=1e-12), q.id
        for m in chart.marks:
            low, high = m.centre - hw, m.centre + hw
            if chart.span is not None and q.kind in ("quantile", "randomized_response"):
                low, high = max(low, chart.span[0]), min(high, chart.span[1])
            assert (m.low, m.high) == pytest.approx((low, high), rel=1e-12), q.id
            assert chart.limits[0] <= m.low and m.high <= chart.limits[1], q.id


def test_a_smaller_epsilon_widens_the_interval(plan) -> None:  # type: ignore[no-untyped-def]
    q = plan.query("hours_mean")
    wide = preview_for(replace(q, epsilon=0.05), plan)
    narrow = preview_for(replace(q, epsilon=1.0), plan)
    assert wide.half_width > narrow.half_width
    assert wide.structure() == narrow.structure()  # a view moves its artists, no rebuild
    assert wide.marks[0].centre == 40  # the middle of the declared bounds [0, 80]
    assert wide.span == (0, 80)


def test_many_cells_draw_the_first_ones_with_a_note(plan) -> None:  # type: ignore[no-untyped-def]
    q = with_params(plan.query("region_counts"), categories=tuple(f"c{i}" for i in range(150)))
    chart = preview_for(q, plan)
    assert len(chart.marks) == MAX_PREVIEW_CELLS
    assert [m.label for m in chart.marks] == [f"c{i}" for i in range(MAX_PREVIEW_CELLS)]
    assert f"first {MAX_PREVIEW_CELLS} of 150 cells" in chart.more


def test_without_a_row_count_the_bars_say_they_are_for_scale(plan) -> None:  # type: ignore[no-untyped-def]
    bare = replace(plan, dataset=replace(plan.dataset, expected_rows=None))
    chart = preview_for(bare.query("region_counts"), bare)
    assert all(m.centre == ILLUSTRATIVE_ROWS for m in chart.marks)
    assert f"{ILLUSTRATIVE_ROWS} rows per cell for scale" in chart.caption
    mean = preview_for(bare.query("hours_mean"), bare)  # a mean needs a row count for its ±
    assert mean.half_width is None and all(m.low is None for m in mean.marks)
    assert "no interval yet" in mean.caption


def test_a_group_by_is_drawn_as_bars_per_key(plan) -> None:  # type: ignore[no-untyped-def]
    q = replace(plan.query("income_2025"), group_by=GroupBy("region", ("North", "South")))
    chart = preview_for(q, plan)
    assert chart.shape == "bars" and [m.label for m in chart.marks] == ["North", "South"]


def test_a_release_chart_draws_the_released_values_and_intervals() -> None:
    query = {"kind": "randomized_response", "column": "smoker"}
    rows = [{"value": 0.25, "low": 0.1, "high": 0.4, "confidence": 0.95}]
    chart = release_chart(query, rows)
    assert chart.shape == "line" and chart.span == (0, 100)
    (m,) = chart.marks
    assert (m.centre, m.low, m.high) == pytest.approx((25, 10, 40))
    assert "95% interval" in chart.caption


def test_tick_labels_keep_their_magnitude() -> None:
    from planner_app.core.planning.charts import compact

    assert [compact(v) for v in (0, 950, 2500, 25_000, 380_000_000, -2e9)] == [
        "0", "950", "2500", "25k", "380M", "-2bn"]
