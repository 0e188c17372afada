"""Issue 22 part 3: "left" of a dataset's lifetime cap is said in the accounting the cap uses.
A release composed with the dataset's earlier releases adds less than its own ε; the sentence
says what it adds and why, and its "left after" is what the real charge leaves."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from planner_app.core.data.tables import load_table
from planner_app.core.dp.accounting import compose
from planner_app.core.kinds.shared_dp import measurements_for
from planner_app.core.model import Plan
from planner_app.core.planfile import load_plan
from planner_app.core.planning.editing import set_query_epsilon
from planner_app.core.planning.plan_edits import set_budget
from planner_app.core.planning.readiness import lifetime_rule
from planner_app.core.records.headroom import headroom, headroom_sentence, spent_note
from planner_app.core.records.ledger import Ledger
from planner_app.core.release.publish import publish
from planner_app.core.support.home import AppHome, app_home
from planner_app.core.support.resources import demo_plan_path
from tests.conftest import DEMO_TABLE

CAP = 10.0


def scaled(factor: float) -> Plan:
    """The demo plan with every statistic's ε times ``factor``."""
    plan = load_plan(demo_plan_path())
    for q in plan.queries:
        plan = set_query_epsilon(plan, q.id, q.epsilon * factor)
    return set_budget(plan, epsilon=20.0)


def numbers(text: str) -> list[float]:
    return [float(x) for x in re.findall(r"ε = ([0-9.]+)", text)]


@pytest.fixture
def released(tmp_path: Path) -> tuple[AppHome, Plan, Any]:
    """A dataset with one real release of the demo plan at 1.5 times its ε, cap ε = 10."""
    home = app_home(tmp_path / "home").ensure()
    plan = scaled(1.5)
    Ledger(home.ledger_path).set_cap(plan.dataset.name, CAP, 1e-5)
    table = load_table(DEMO_TABLE)
    publish(plan, table, tmp_path / "first.zip", home)
    return home, plan, table


def test_a_release_larger_than_left_says_why_it_fits(released, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    home, plan, table = released
    state = Ledger(home.ledger_path).state(plan.dataset.name)
    ms = [m for q in plan.queries for m in measurements_for(q, plan)]
    total = compose(ms, plan.budget.delta, plan.budget.accountant)
    left = CAP - state.spent.epsilon
    assert total.epsilon > left  # the user's case: a release of more than what is "left"
    rule = lifetime_rule(plan, total, ms, state)
    assert not rule.failed
    # the real charge: what it leaves is the independent answer
    result = publish(plan, table, tmp_path / "second.zip", home)
    truly_left = CAP - result.ledger.spent.epsilon
    truly_adds = result.ledger.spent.epsilon - state.spent.epsilon
    assert truly_adds < total.epsilon
    said = rule.message
    assert f"ε = {left:.4g} left" in said
    assert f"ε = {total.epsilon:.4g} on its own" in said
    assert f"adds only ε = {truly_adds:.4g}" in said
    assert f"about {truly_left:.4g} is left after it" in said
    assert "composed together" in said
    # the sentence adds up: left − what it adds = left after
    assert left - truly_adds == pytest.approx(truly_left, abs=1e-9)


def test_the_first_release_says_left_minus_its_epsilon(tmp_path: Path) -> None:
    home = app_home(tmp_path / "home").ensure()
    plan = scaled(1.0)
    state = Ledger(home.ledger_path).state(plan.dataset.name)
    ms = [m for q in plan.queries for m in measurements_for(q, plan)]
    total = compose(ms, plan.budget.delta, plan.budget.accountant)
    room = headroom(state, ms, total)
    said = headroom_sentence(room)
    assert said.endswith(f"about {state.cap.epsilon - total.epsilon:.4g} after this release")
    assert "adds only" not in said


def test_ledger_show_says_the_spent_total_is_composed(released, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    home, plan, table = released
    assert spent_note(Ledger(home.ledger_path).state(plan.dataset.name)) is None  # one release
    publish(plan, table, tmp_path / "second.zip", home)
    state = Ledger(home.ledger_path).state(plan.dataset.name)
    added = sum(r.epsilon for r in state.releases)
    note = spent_note(state)
    assert note is not None and f"add up to {added:.4g}" in note
    assert f"spend ε = {state.spent.epsilon:.4g}" in note
    assert state.spent.epsilon < added
