"""OpChanges: what differs between two plans (core/planning/changes.py)."""

from __future__ import annotations

from dataclasses import replace

from planner_app.core.model import PrivacyUnit
from planner_app.core.planfile import load_plan
from planner_app.core.planning.changes import OpChanges, plan_changes
from planner_app.core.planning.editing import remove_query, set_query_epsilon
from planner_app.core.planning.plan_edits import (
    preset_for,
    set_budget,
    set_dataset,
    set_reason,
    set_relation,
)
from planner_app.core.support.resources import demo_plan_path


def test_plan_changes_name_what_differs() -> None:
    plan = load_plan(demo_plan_path())
    assert not plan_changes(plan, plan)
    one = plan_changes(plan, set_query_epsilon(plan, "responses", 0.9))
    assert one.statistics == {"responses"} and not one.statistic_list and not one.budget
    assert one.touches("responses") and not one.touches("hours_mean")
    gone = plan_changes(plan, remove_query(plan, "smokers"))
    assert gone.statistics == {"smokers"} and gone.statistic_list
    budget = plan_changes(plan, set_budget(plan, epsilon=7.0))
    assert budget.budget and not budget.statistics and budget.totals
    unit = plan_changes(plan, replace(plan, privacy_unit=PrivacyUnit()))
    assert unit.unit and unit.touches("hours_mean")
    assert plan_changes(plan, set_relation(plan, "replace-one")).unit
    assert plan_changes(plan, set_dataset(plan, expected_rows=1234)).dataset
    reason = plan_changes(plan, set_reason(plan, "  agreed with the ethics board "))
    assert reason.review and not reason.plan_replaced and not reason.statistics
    assert set_reason(set_reason(plan, "x"), "  ").justification is None
    assert plan_changes(None, plan).plan_replaced
    both = OpChanges(held=True) | OpChanges(budget=True)
    assert both.held and both.budget and not both.statistics


def test_budget_edits_keep_a_refused_delta_and_presets_name_their_budget() -> None:
    plan = load_plan(demo_plan_path())
    assert set_budget(plan, delta=2.0).budget.delta == plan.budget.delta
    assert set_budget(plan, epsilon=plan.budget.epsilon) is plan
    from planner_app.core.planning.editing import HARM_PRESETS

    for p in HARM_PRESETS:
        assert preset_for(set_budget(plan, p.epsilon, p.delta).budget) is p
    assert preset_for(set_budget(plan, 1.5, 1e-6).budget) is None


def test_a_prior_reads_as_it_was_chosen() -> None:
    from planner_app.core.dp.risk import explain, prior_percent

    for k in range(1, 100):  # k/100 is not exact in binary: 0.71 is 0.70999…
        assert prior_percent(k / 100) == f"{k}%"
        assert explain(1.0, prior=k / 100).sentence.startswith(f"An attacker who was {k}% sure")
    assert prior_percent(0.005) == "0.5%" and prior_percent(0.5) == "50%"


def test_a_budget_edit_keeps_the_delta_the_accountant_needs() -> None:
    """With the PLD (or zCDP) accountant, δ = 0 cannot compose: the edit keeps the plan's δ
    (the app's meter silently fell back to basic composition while check refused)."""
    from dataclasses import replace

    from planner_app.core.dp.accounting import compose
    from planner_app.core.kinds.shared_dp import measurements_for
    from planner_app.core.planfile import load_plan
    from planner_app.core.planning.plan_edits import set_budget
    from planner_app.core.support.resources import demo_plan_path

    plan = load_plan(demo_plan_path())
    plan = replace(plan, budget=replace(plan.budget, accountant="pld"))
    assert plan.budget.delta > 0
    edited = set_budget(plan, 2.0, 0.0)
    assert edited.budget.epsilon == 2.0 and edited.budget.delta == plan.budget.delta
    ms = [m for q in edited.queries for m in measurements_for(q, edited)]
    assert compose(ms, edited.budget.delta, "pld").accountant == "pld"
    basic = replace(plan, budget=replace(plan.budget, accountant="basic"))
    assert set_budget(basic, None, 0.0).budget.delta == 0.0  # basic composes with δ = 0
