"""A release whose every statistic is pure ε (δ = 0 each) is pure ε-DP: the composed total is
ε = the sum with δ = 0, whatever the budget's δ (walk 2, finding 7). With a δ the belief bound
holds only "except with a chance of δ", and the ledger would add up a δ that no statistic
spends."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from planner_app.core.data.tables import load_table
from planner_app.core.dp.accounting import compose
from planner_app.core.planfile import plan_from_dict
from planner_app.core.planning.check import check_plan
from planner_app.core.records.ledger import Ledger
from planner_app.core.release.bundle import read_bundle
from planner_app.core.release.publish import publish
from planner_app.core.support.home import AppHome, app_home
from tests.conftest import DEMO_TABLE, plan_dict, with_reasons

# every kind that adds pure noise: discrete Laplace, the exponential mechanism, randomized
# response; the budget has a δ, as a plan made in the app does by default. At 6 rows a person
# the randomized response is 6 answers at ε/6 each, whose composed PLD at δ = 1e-6 states an ε
# just under the sum: the tie the auto accountant used to break towards a δ
PURE = with_reasons(plan_dict(
    dataset={"name": "pure"},
    privacy_unit={"kind": "person", "id_column": "person_id", "max_rows": 6},
    budget={"epsilon": 2.2, "delta": 1e-6},
    queries=[
        {"id": "rows", "kind": "count", "epsilon": 0.3},
        {"id": "hours", "kind": "mean", "column": "hours_per_week", "lower": 0, "upper": 80,
         "epsilon": 0.4},
        {"id": "ages", "kind": "histogram", "column": "age", "bins": [0, 30, 60, 100],
         "epsilon": 0.5},
        {"id": "median_income", "kind": "quantile", "column": "income", "lower": 0,
         "upper": 200000, "quantile": 0.5, "epsilon": 0.5},
        {"id": "smokers", "kind": "randomized_response", "column": "smoker",
         "yes": ["yes"], "no": ["no"], "epsilon": 0.5,
         "justification": {"values": "the form's answers are yes and no"}},
    ]))
SUM = 0.3 + 0.4 + 0.5 + 0.5 + 0.5


@pytest.fixture
def home(tmp_path: Path) -> AppHome:
    return app_home(tmp_path / "home").ensure()


def test_a_plan_of_pure_statistics_composes_to_pure_epsilon_dp() -> None:
    plan = plan_from_dict(PURE)
    report = check_plan(plan)
    assert all(m.delta == 0 for c in report.queries for m in c.measurements)
    assert report.total.delta == 0
    assert report.total.epsilon == pytest.approx(SUM, rel=1e-6)
    assert report.total.accountant == "basic"
    risk = report.to_dict()["risk"]
    assert "except with a chance" not in risk
    assert "if δ were 0" not in risk


def test_a_named_accountant_is_still_used() -> None:
    plan = plan_from_dict(PURE)
    ms = [m for c in check_plan(plan).queries for m in c.measurements]
    assert compose(ms, 1e-6, "pld").delta == 1e-6


def test_pure_releases_stay_pure_in_the_record_the_report_and_the_ledger(
        tmp_path: Path, home: AppHome) -> None:
    plan = plan_from_dict(PURE)
    table = load_table(DEMO_TABLE)
    publish(plan, table, tmp_path / "a.zip", home)
    publish(plan, table, tmp_path / "b.zip", home)
    files = read_bundle(tmp_path / "b.zip")
    record = json.loads(files["release.json"])
    assert record["total"]["delta"] == 0
    assert record["total"]["epsilon"] == pytest.approx(SUM, rel=1e-6)
    html = files["report.html"].decode()
    assert "pure ε-differential privacy" in html
    assert "approximate (ε, δ)" not in html
    assert "except with a chance" not in files["README.txt"].decode()
    # pure + pure stays pure: the lifetime is the plain sum, with no δ
    state = Ledger(home.ledger_path).state("pure")
    assert state.spent.delta == 0
    assert math.isclose(state.spent.epsilon, 2 * report_sum(plan), rel_tol=1e-12)


def report_sum(plan: object) -> float:
    """Σε of the plan's measurements (the ε each actually spends, rounded in its favour)."""
    return math.fsum(m.epsilon for c in check_plan(plan).queries  # type: ignore[arg-type]
                     for m in c.measurements)
