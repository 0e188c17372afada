"""The release rules (core/planning/readiness.py): each rule on its own, the one budget
comparison, the lifetime rule against the ledger's own charge, and `check`'s report of them."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from planner_app.cli import main
from planner_app.core.dp.accounting import Total, within
from planner_app.core.planfile import load_plan, plan_from_dict
from planner_app.core.planning.check import all_measurements, check_plan
from planner_app.core.planning.readiness import (
    FAIL,
    PASS,
    NotReady,
    missing_reasons,
    readiness,
    require_ready,
)
from planner_app.core.records.ledger import BudgetExceeded, Ledger, LedgerError
from planner_app.core.records.review import ApprovalRequired, review
from planner_app.core.support.errors import InputError
from planner_app.core.support.home import app_home
from tests.conftest import DEMO_PLAN, plan_dict, write_json


def _query(**fields):  # type: ignore[no-untyped-def]
    return plan_from_dict(plan_dict(budget={"epsilon": 10.0, "delta": 0.0},
                                    queries=[{"id": "q", "epsilon": 1, **fields}])).queries[0]


BOUNDED = {"column": "x", "lower": 0, "upper": 10}


@pytest.mark.parametrize("fields,needs", [
    ({"kind": "count"}, []),
    ({"kind": "sum", **BOUNDED}, ["bounds"]),
    ({"kind": "mean", **BOUNDED}, ["bounds"]),
    ({"kind": "variance", **BOUNDED}, ["bounds"]),
    ({"kind": "quantile", **BOUNDED, "quantile": 0.5}, ["bounds"]),
    ({"kind": "histogram", "column": "x", "bins": [0, 5, 10]}, ["bounds"]),
    ({"kind": "histogram", "column": "g", "categories": ["a", "b"]}, ["categories"]),
    ({"kind": "count", "group_by": {"column": "g", "keys": ["a"]}}, ["keys"]),
    ({"kind": "mean", **BOUNDED, "group_by": {"column": "g", "keys": ["a"]}},
     ["bounds", "keys"]),
    ({"kind": "randomized_response", "column": "y"}, []),
])
def test_every_public_parameter_needs_its_own_reason(fields, needs) -> None:  # type: ignore[no-untyped-def]
    assert [key for key, _ in missing_reasons(_query(**fields))] == needs
    given = {key: "the form's limits" for key in needs}
    assert missing_reasons(_query(**fields, justification=given)) == []
    # a reason under another key does not count (the statistic pane accepted any reason)
    if needs:
        other = {"epsilon": "policy"}
        assert [k for k, _ in missing_reasons(_query(**fields, justification=other))] == needs


@pytest.mark.parametrize("text", ["", "   ", "TODO: where the bounds come from", "todo",
                                  "TBD", "???"])
def test_a_blank_or_placeholder_reason_is_no_reason(text: str) -> None:
    q = _query(kind="sum", **BOUNDED, justification={"bounds": text})
    assert [k for k, _ in missing_reasons(q)] == ["bounds"]


def test_a_reason_that_merely_mentions_todo_later_counts() -> None:
    q = _query(kind="sum", **BOUNDED, justification={"bounds": "The form's range; nothing "
                                                               "TODO"})
    assert missing_reasons(q) == []


def test_within_is_the_one_budget_comparison_and_fails_closed() -> None:
    assert within(Total(1.0, 1e-6, "pld"), 1.0, 1e-6)
    assert within(Total(1.0 + 1e-12, 0.0, "basic"), 1.0, 0.0)  # floating-point slack only
    assert not within(Total(1.001, 0.0, "basic"), 1.0, 0.0)
    assert not within(Total(0.5, 2e-6, "basic"), 1.0, 1e-6)
    assert not within(Total(0.5, 1e-9, "basic"), 1.0, 0.0)  # any δ over a pure-ε budget
    assert not within(Total(math.nan, 0.0, "basic"), 1.0, 0.0)
    assert not within(Total(0.5, math.nan, "basic"), 1.0, 1e-6)


def test_the_ledger_refuses_a_total_it_cannot_compare(tmp_path: Path) -> None:
    """A NaN total slipped through the charge's `>` comparisons (fail open); now refused."""
    plan = load_plan(DEMO_PLAN)
    ms = all_measurements(check_plan(plan).queries)
    ledger = Ledger(tmp_path / "ledger.sqlite3")
    with pytest.raises(BudgetExceeded, match=r"^dataset 'd' has ε = 10 .*would bring the total "
                       r"to ε = nan, .*Nothing was charged or written\.$"):
        ledger.charge(release_id="r", dataset="d", file_name="f", file_sha256="0" * 64,
                      plan_sha256="0" * 64, total=Total(math.nan, 1e-6, "basic"),
                      measurements=ms)
    assert ledger.state("d").releases == []


def test_refusals_have_the_error_of_their_kind() -> None:
    plan = load_plan(DEMO_PLAN)
    report = check_plan(plan)
    ms = all_measurements(report.queries)
    require_ready(readiness(plan, report.total, ms))  # the demo plan is ready
    over = Total(plan.budget.epsilon * 2, 0.0, "basic")
    with pytest.raises(BudgetExceeded, match="exceeds its budget"):
        require_ready(readiness(plan, over, ms))
    with pytest.raises(ApprovalRequired, match="Not reviewed yet"):
        require_ready(readiness(plan, report.total, ms, require_approval=True))
    with pytest.raises(LedgerError, match="^locked$"):  # the ledger's own message, unchanged
        require_ready(readiness(plan, report.total, ms, ledger=LedgerError("locked")))
    with pytest.raises(NotReady) as caught:
        require_ready(readiness(plan, report.total, ms, unit_confirmed=False))
    assert isinstance(caught.value, InputError)  # exit 2
    assert caught.value.where == "privacy_unit"
    assert "unit of privacy" in str(caught.value) and "not confirmed" in str(caught.value)
    approved = review(plan, "Ada", "approved")
    require_ready(readiness(approved, report.total, ms, require_approval=True))


def test_a_missing_reason_is_refused_naming_the_field() -> None:
    doc = json.loads(DEMO_PLAN.read_text())
    next(q for q in doc["queries"] if q["id"] == "satisfaction_by_region")[
        "justification"].pop("keys")
    plan = plan_from_dict(doc)
    report = check_plan(plan)
    with pytest.raises(NotReady) as caught:
        require_ready(readiness(plan, report.total, all_measurements(report.queries)))
    assert caught.value.where == "queries[satisfaction_by_region].justification.keys"
    assert "group keys" in str(caught.value) and "Nothing was charged" in str(caught.value)
    # check reports it as a failed rule (it said nothing about group keys before)
    assert report.readiness is not None and not report.readiness.ready
    rule = report.readiness.get("reasons")
    assert rule is not None and rule.status == FAIL and "group keys" in rule.message


@pytest.mark.parametrize("cap_epsilon,cap_delta,prior", [
    (10.0, 1e-5, 0), (3.0, 1e-5, 0), (3.35, 1e-5, 0), (10.0, 0.0, 0), (7.0, 1e-5, 1),
    (6.5, 1e-5, 1), (9.0, 3e-6, 2), (10.0, 1e-5, 2), (10.0, 2.5e-6, 2),
])
def test_the_lifetime_rule_is_the_charges_own_decision(tmp_path: Path, cap_epsilon: float,
                                                       cap_delta: float, prior: int) -> None:
    """Whatever the history, the checklist's lifetime rule passes exactly when the ledger's
    charge would accept the release (the wizard used to compare a plain sum, without δ)."""
    plan = load_plan(DEMO_PLAN)
    report = check_plan(plan)
    ms = all_measurements(report.queries)
    ledger = Ledger(tmp_path / "ledger.sqlite3")
    for i in range(prior):
        ledger.charge(release_id=f"p{i}", dataset="demo-survey", file_name="f",
                      file_sha256="0" * 64, plan_sha256="0" * 64, total=report.total,
                      measurements=ms)
    ledger.set_cap("demo-survey", cap_epsilon, cap_delta)
    rule = readiness(plan, report.total, ms, ledger=ledger.state("demo-survey")).get("lifetime")
    assert rule is not None
    try:
        ledger.charge(release_id="new", dataset="demo-survey", file_name="f",
                      file_sha256="0" * 64, plan_sha256="0" * 64, total=report.total,
                      measurements=ms)
        accepted = True
    except BudgetExceeded:
        accepted = False
    assert (rule.status == PASS) is accepted, rule.message


def test_check_prints_the_rules_and_honours_the_approval_setting(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from planner_app.core.planning.settings import Settings, save_settings

    doc = json.loads(DEMO_PLAN.read_text())
    next(q for q in doc["queries"] if q["id"] == "age_bands")["justification"] = {}  # bins
    plan = write_json(tmp_path / "p.json", doc)
    home = app_home(tmp_path / "home").ensure()
    assert main(["--home", str(tmp_path / "home"), "check", str(plan)]) == 0
    out = capsys.readouterr().out
    assert "Ready to release: NO" in out
    assert "NO   Give a reason for: Responses by age band (bin edges)." in out
    assert "Approval" not in out
    save_settings(Settings(require_approval=True), home.settings_path)
    assert main(["--home", str(tmp_path / "home"), "check", str(plan), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    rules = {r["rule"]: r for r in data["rules"]}
    assert data["ready"] is False
    assert rules["approval"]["status"] == "fail" and rules["reasons"]["status"] == "fail"
    assert rules["budget"]["status"] == "pass" and rules["lifetime"]["status"] == "pass"
    assert rules["reasons"]["where"] == "queries[age_bands].justification.bounds"
    # the same rule is not also a warning
    assert not any("reason" in w for w in data["warnings"])
