"""A dataset's lifetime after an AIM release (issue 25's follow-up): AIM's rounds are one
``zcdp`` measurement, which the PLD accountant cannot compose, and a discovery of keys is a
thresholded measurement, which zCDP cannot compose. A dataset whose history holds them is
still composed (by whatever accountant can compose it all, else by adding each measurement's
own (ε, δ) up), a plain PLD plan released after them is checked and charged against a valid
lifetime total, and a plan's own refusal of an accountant stays.

The expected totals are worked out here from the measurements' own (ε, δ) and ρ, not by the
accountant under test."""

from __future__ import annotations

import json
import math
import shutil
import zipfile
from pathlib import Path
from typing import Any

import pytest

from planner_app.core.data.tables import load_table
from planner_app.core.dp.accounting import (
    AIM_PLD_REFUSAL,
    ZCDP_THRESHOLD,
    Total,
    accountant_refusal,
    compose,
    valid_totals,
    within,
)
from planner_app.core.dp.measure import Measurement, epsilon_from_rho, measurement_to_dict
from planner_app.core.kinds.shared_dp import measurements_for
from planner_app.core.model import Plan
from planner_app.core.planfile import plan_from_dict
from planner_app.core.records.headroom import spent_note
from planner_app.core.records.ledger import DEFAULT_CAP, Ledger
from planner_app.core.records.ledger_state import ReleaseRecord, lifetime_total
from planner_app.core.release.home_check import check_in_home, release_in_home
from planner_app.core.support.errors import InputError
from planner_app.core.support.home import AppHome, app_home
from tests.conftest import DEMO_TABLE, plan_dict, with_reasons
from tests.core.test_synthetic_aim import aim_plan

DATASET = "demo-survey"
UNIT = {"kind": "person", "id_column": "person_id", "max_rows": 3}


def small_aim() -> Plan:
    """An AIM table of two columns at the demo plan's δ = 1e-5 (the default cap's δ)."""
    doc = aim_plan(rows=50, epsilon=1.0, delta=1e-6,
                   columns=[{"column": "region", "categories": ["North", "South", "East",
                                                                "West"]},
                            {"column": "smoker", "categories": ["yes", "no"]}])
    return plan_from_dict(doc)


def counts_pld() -> Plan:
    """A plain plan of two counts, composed by the PLD accountant (no AIM table in it)."""
    return plan_from_dict(with_reasons(plan_dict(
        dataset={"name": DATASET}, privacy_unit=UNIT,
        budget={"epsilon": 1.0, "delta": 1e-6, "accountant": "pld"},
        queries=[{"id": "n", "label": "People", "kind": "count", "epsilon": 0.5},
                 {"id": "smokers", "label": "Smokers", "kind": "count", "epsilon": 0.5,
                  "where": [{"column": "smoker", "op": "==", "value": "yes"}]}])))


def keys_discovery() -> Plan:
    """A discovery of the employment keys: a thresholded Laplace measurement (ε, δ)."""
    return plan_from_dict(with_reasons(plan_dict(
        dataset={"name": DATASET}, privacy_unit=UNIT,
        budget={"epsilon": 1.0, "delta": 1e-6},
        queries=[{"id": "jobs", "kind": "discover_keys", "mechanism": "laplace_threshold",
                  "column": "employment", "epsilon": 1.0, "delta": 1e-6, "max_keys": 1}])))


def measured(plan: Plan) -> list[Measurement]:
    return [m for q in plan.queries for m in measurements_for(q, plan)]


def own_total(plan: Plan) -> Total:
    return compose(measured(plan), plan.budget.delta, plan.budget.accountant)


def record(plan: Plan, n: int) -> ReleaseRecord:
    """The ledger's row of a release of ``plan``, as the charge writes it (its total and its
    measurements' dicts)."""
    t = own_total(plan)
    return ReleaseRecord(f"r{n}", DATASET, f"2026-11-27T00:0{n}:00Z", "survey.csv", "0" * 64,
                         "0" * 64, t.epsilon, t.delta, t.rho, t.accountant, "completed", None,
                         [measurement_to_dict(m) for m in measured(plan)])


def rho_of(m: Measurement) -> float:
    """ρ of one measurement, from its own parameters (independent of Measurement.rho)."""
    if m.mechanism in ("gaussian", "zcdp"):  # Δ₂²/(2σ²); AIM's rounds are written so
        return m.component.l2_sq / (2 * float(m.sigma_sq or 0))
    assert m.mechanism == "laplace" and m.delta == 0  # pure ε: ε²/2
    return m.epsilon ** 2 / 2


def expected_lifetime(plans: list[Plan], cap_delta: float) -> Total:
    """The smallest-ε valid total within the cap's δ, from the candidates every accountant
    that can compose this history gives: each release's own (ε, δ) added up, each
    measurement's own (ε, δ) added up, and, with no thresholded measurement among them,
    their ρ added up and converted at the δ the releases state (at most the cap's)."""
    ms = [m for p in plans for m in measured(p)]
    totals = [own_total(p) for p in plans]
    releases = Total(math.fsum(t.epsilon for t in totals), math.fsum(t.delta for t in totals),
                     "basic")
    each = Total(math.fsum(m.epsilon for m in ms), math.fsum(m.delta for m in ms), "basic")
    candidates = [releases, each]
    target = min(releases.delta, cap_delta)
    if not any(m.mechanism == "laplace" and m.delta > 0 for m in ms):
        candidates.append(Total(epsilon_from_rho(math.fsum(map(rho_of, ms)), target),
                                target, "zcdp"))
    fitting = [t for t in candidates if t.delta <= cap_delta]
    return min(fitting, key=lambda t: t.epsilon)


# ----------------------------------------------------------------------------- the rule alone


def test_the_plans_own_pld_refusal_stays() -> None:
    with pytest.raises(InputError) as e:
        compose(measured(small_aim()), 1e-5, "pld")
    assert str(e.value).endswith(AIM_PLD_REFUSAL)


@pytest.mark.parametrize("cap_delta", [DEFAULT_CAP.delta, 1e-4])
@pytest.mark.parametrize("history", [["aim"], ["aim", "keys"], ["keys", "aim"]])
def test_a_pld_plan_after_aim_composes_with_a_valid_lifetime_total(history: list[str],
                                                                   cap_delta: float) -> None:
    plans = [{"aim": small_aim, "keys": keys_discovery}[h]() for h in history]
    records = [record(p, n) for n, p in enumerate(plans)]
    new = counts_pld()
    after = lifetime_total(records, measured(new), own_total(new), cap_delta)
    want = expected_lifetime([*plans, new], cap_delta)
    assert after.accountant == want.accountant
    assert after.epsilon == pytest.approx(want.epsilon, rel=1e-9)
    assert after.delta == pytest.approx(want.delta, rel=1e-12)
    assert within(after, 10.0, cap_delta)  # room enough: never a refusal


def test_each_accountant_composes_what_it_can_and_a_plan_keeps_its_refusals() -> None:
    aim, keys = measured(small_aim()), measured(keys_discovery())
    assert [t.accountant for t in valid_totals(aim, 1e-5)] == ["basic", "zcdp"]
    assert [t.accountant for t in valid_totals(keys, 1e-5)] == ["basic", "pld"]
    assert [t.accountant for t in valid_totals(aim + keys, 1e-5)] == ["basic"]
    assert accountant_refusal("pld", aim + keys) == AIM_PLD_REFUSAL
    assert accountant_refusal("zcdp", aim + keys) == ZCDP_THRESHOLD
    with pytest.raises(InputError, match="discovery of keys"):
        compose(keys, 1e-5, "zcdp")
    mixed = compose(aim + keys, 2e-6)  # unnamed: added up, each measurement's own (ε, δ)
    assert (mixed.accountant, mixed.epsilon) == (
        "basic", pytest.approx(math.fsum(m.epsilon for m in aim + keys), rel=1e-12))


# ----------------------------------------------------------------------------- real releases


@pytest.fixture(scope="module")
def aim_home(tmp_path_factory: pytest.TempPathFactory) -> AppHome:
    """A home whose ledger holds one real AIM release of the demo survey (default cap)."""
    pytest.importorskip("mbi")
    folder = tmp_path_factory.mktemp("aim-home")
    home = app_home(folder / "home").ensure()
    assert home.data_dir.parent == folder / "home"
    release_in_home(small_aim(), load_table(DEMO_TABLE), folder / "aim.zip", home)
    return home


def copied(home: AppHome, tmp_path: Path) -> AppHome:
    """A copy of ``home`` (its ledger and audit log): each test releases into its own."""
    shutil.copytree(home.data_dir.parent, tmp_path / "home")
    return app_home(tmp_path / "home")


def lifetime_in(bundle: Path) -> dict[str, Any]:
    with zipfile.ZipFile(bundle) as z:
        return dict(json.loads(z.read("release.json"))["ledger"]["spent"])


@pytest.mark.synth  # a real AIM release (JAX): CI's second stage
def test_check_and_release_of_a_pld_plan_after_an_aim_release(aim_home: AppHome,
                                                              tmp_path: Path) -> None:
    home = copied(aim_home, tmp_path)
    table = load_table(DEMO_TABLE)
    plan = counts_pld()
    want = expected_lifetime([small_aim(), plan], DEFAULT_CAP.delta)
    report = check_in_home(plan, table, home)
    assert report.readiness is not None
    rule = next(r for r in report.readiness.results if r.rule == "lifetime")
    assert rule.passed, rule.message
    assert f"about {10 - want.epsilon:.4g} is left after it" in rule.message
    # it adds more than its own ε (the history is counted another way with it): said so,
    # never "adds only … which costs less"
    assert "costs less" not in rule.message
    assert "the releases' δ added up (1.1e-05) would pass the cap's δ = 1e-05" in rule.message
    result = release_in_home(plan, table, tmp_path / "counts.zip", home)
    spent = Ledger(home.ledger_path).state(DATASET).spent
    assert spent.epsilon == pytest.approx(want.epsilon, rel=1e-9)
    assert spent.delta == pytest.approx(want.delta, rel=1e-12)
    assert lifetime_in(result.bundle_path)["epsilon"] == pytest.approx(want.epsilon, rel=1e-9)
    note = spent_note(Ledger(home.ledger_path).state(DATASET))  # ledger show: why not the sum
    assert note is not None and "past the cap's δ = 1e-05" in note
    assert f"spend ε = {want.epsilon:.4g}" in note


@pytest.mark.synth  # a real AIM release (JAX): CI's second stage
def test_a_discovery_of_keys_and_a_pld_plan_after_an_aim_release(aim_home: AppHome,
                                                                 tmp_path: Path) -> None:
    home = copied(aim_home, tmp_path)
    table = load_table(DEMO_TABLE)
    release_in_home(keys_discovery(), table, tmp_path / "keys.zip", home)
    plan = counts_pld()
    result = release_in_home(plan, table, tmp_path / "counts.zip", home)
    want = expected_lifetime([small_aim(), keys_discovery(), plan], DEFAULT_CAP.delta)
    assert want.accountant == "basic"  # neither zCDP nor PLD composes this history
    spent = Ledger(home.ledger_path).state(DATASET).spent
    assert (spent.accountant, spent.delta) == ("basic", pytest.approx(want.delta, rel=1e-12))
    assert spent.epsilon == pytest.approx(want.epsilon, rel=1e-9)
    assert lifetime_in(result.bundle_path)["epsilon"] == pytest.approx(want.epsilon, rel=1e-9)
