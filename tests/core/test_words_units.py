"""One unit per statistic, useless statistics flagged, quantile accuracy in words, and a
quantile plan the sampler cannot finish refused before the charge."""

from __future__ import annotations

import json
import math

import pytest

from planner_app.core.dp.accuracy import format_half_width, quantile_words
from planner_app.core.kinds.params import with_params
from planner_app.core.kinds.shared_dp import accuracy_for, quantile_refusal, useless_warning
from planner_app.core.planfile import plan_from_dict
from planner_app.core.planning.check import check_plan
from planner_app.core.planning.editing import solve_goal
from planner_app.core.support.resources import demo_plan_path


def demo(**epsilons: float):  # type: ignore[no-untyped-def]
    d = json.loads(demo_plan_path().read_text(encoding="utf-8"))
    for q in d["queries"]:
        if q["id"] in epsilons:
            q["epsilon"] = epsilons[q["id"]]
    d["budget"]["epsilon"] = 50
    return plan_from_dict(d)


def hoeffding_points(plan, eps: float) -> float:  # type: ignore[no-untyped-def]
    """The randomized-response ± in percentage points, from the formula (docs/engine.md):
    Hoeffding's bound at α/2 on the published share, divided by the truth probability
    tanh(0.9·ε/(2k)) (a tenth of ε noises the number of answers; a person's k answers share
    the rest), plus the noised count's error at α/2 (discrete Laplace, scale k/(ε/10)) over
    the public row count."""
    q = plan.query("smokers")
    n = plan.dataset.expected_rows
    k = plan.privacy_unit.rows_per_unit
    t = math.tanh(0.9 * eps / k / 2)
    scale = k / (eps / 10)
    m = 0  # smallest m with P(|X| > m) <= 0.025, from the discrete Laplace tail
    while 2 * math.exp(-(m + 1) / scale) / (1 + math.exp(-1 / scale)) > 0.025:
        m += 1
    share = math.sqrt(math.log(2 / 0.025) / (2 * n)) / t + m / n
    return 100 * share if q else math.inf


def test_a_share_target_in_points_is_read_in_points() -> None:
    plan = demo()
    result = solve_goal(plan, {"smokers": 10.0})  # "± 10 points", as the table shows it
    eps = result.epsilons["smokers"]
    assert hoeffding_points(plan, eps) <= 10 * (1 + 1e-6)
    assert hoeffding_points(plan, eps * 0.99) > 10  # and not much more ε than needed
    new = result.apply(plan)
    assert format_half_width(accuracy_for(new.query("smokers"), new)).endswith(" points")


def test_quantile_accuracy_in_percentiles() -> None:
    plan = demo()
    q = plan.query("income_median")
    acc = accuracy_for(q, plan)
    text = quantile_words(acc, 0.5)
    # independent: the exponential mechanism's rank bound (2Δ/ε)(ln G + ln 1/α) + 1, over n
    from planner_app.core.kinds.shared_dp import grid_for
    g = grid_for(q).points
    delta = plan.privacy_unit.rows_per_unit
    ranks = 2 * delta / q.epsilon * (math.log(g) + math.log(20)) + 1
    pct = 100 * ranks / plan.dataset.expected_rows
    lo, hi = math.floor(50 - pct), math.ceil(50 + pct)
    assert f"between the {lo}th and {hi}th percentile of the data" in text
    assert text.startswith("With 95% chance the released median")
    assert "rank" not in format_half_width(acc)
    # a target in percentiles is read in percentiles
    eps = solve_goal(plan, {"income_median": 2.0}).epsilons["income_median"]
    need = 2 * delta / eps * (math.log(g) + math.log(20)) + 1
    assert 100 * need / plan.dataset.expected_rows <= 2.0 + 1e-9


@pytest.mark.parametrize("qid,eps,useless", [
    ("smokers", 0.02, True), ("smokers", 2.0, False),
    ("age_variance", 0.01, True), ("age_variance", 1.0, False),
    ("income_median", 0.01, True), ("income_median", 0.4, False),
    ("hours_mean", 0.001, True), ("hours_mean", 0.4, False),
])
def test_useless_statistics_are_flagged(qid: str, eps: float, useless: bool) -> None:
    plan = demo(**{qid: eps})
    q = plan.query(qid)
    acc = accuracy_for(q, plan)
    # independent: the ± against half the possible range of the statistic
    span = {"smokers": 1.0, "age_variance": (100 - 16) ** 2 / 4, "income_median":
            plan.dataset.expected_rows, "hours_mean": 80.0}[qid]
    assert (acc.half_width >= span / 2) == useless
    assert (useless_warning(q, acc) is not None) == useless
    warned = [w for w in check_plan(plan).warnings if w.startswith(f"{qid}:")
              and "says almost nothing" in w]
    assert bool(warned) == useless


def test_a_quantile_on_a_too_fine_grid_is_refused_before_the_charge(tmp_path) -> None:  # type: ignore[no-untyped-def]
    plan = demo()
    q = with_params(plan.query("income_median"), grid_step=2.0**-20)  # 2^37.6 grid points
    assert quantile_refusal(q, None) is not None
    assert quantile_refusal(q, 1000) is None  # few rows: the runs stay few
    assert quantile_refusal(q, 10_000_000) is not None
    assert quantile_refusal(plan.query("income_median"), 10_000_000) is None  # 4,097 points


def test_a_filtered_or_grouped_quantile_claims_no_percentiles_from_the_tables_rows() -> None:
    """Found by the adversarial pass: a filtered median was described in percentiles of the
    whole table's row count (even a filter keeping no row at all)."""
    d = json.loads(demo_plan_path().read_text(encoding="utf-8"))
    median = next(q for q in d["queries"] if q["kind"] == "quantile")
    filtered = {**median, "id": "filtered", "where": [{"column": "age", "op": ">=",
                                                       "value": 99}]}
    grouped = {**median, "id": "grouped", "group_by": {"column": "region", "keys": [
        "North", "South", "East", "West"]}, "justification": {
            **median.get("justification", {}), "keys": "the four official regions"}}
    stated = {**filtered, "id": "stated", "expected_count": 400}
    d["queries"] = [median, filtered, grouped, stated]
    d["budget"]["epsilon"] = 50
    plan = plan_from_dict(d)
    words = {q.id: quantile_words(accuracy_for(q, plan), 0.5) for q in plan.queries}
    def claims_percentiles(text: str) -> bool:
        return "lies between the" in text and "percentile of the data" in text

    assert claims_percentiles(words[median["id"]])  # no filter, no group: the table's rows
    assert not claims_percentiles(words["filtered"])
    assert "rows of the true median" in words["filtered"]
    assert not claims_percentiles(words["grouped"])
    assert claims_percentiles(words["stated"])  # its own public count
