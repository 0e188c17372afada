"""Issue 10 §8: a tiny δ can never switch the lifetime cap off, and no accountant returns 0
for a computation it cannot do."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from planner_app.core.dp.accounting import compose, zcdp
from planner_app.core.dp.measure import epsilon_from_rho, rho_for
from planner_app.core.kinds.shared_dp import measurements_for
from planner_app.core.model import MIN_DELTA
from planner_app.core.planfile import plan_from_dict
from planner_app.core.records.ledger import Ledger, lifetime_total
from planner_app.core.support.errors import InputError
from tests.conftest import plan_dict, run_in_process, write_json


def _zcdp_bound(rho: float, delta: float) -> float:
    """The textbook conversion ρ + 2·sqrt(ρ·log(1/δ)) (Bun and Steinke 2016), an upper
    bound on the optimal conversion and independent of the code under test."""
    return rho + 2 * math.sqrt(rho * -math.log(delta))


@pytest.mark.parametrize("delta", [1e-5, 1e-100, 1e-300, 1e-310, 5e-324])
def test_epsilon_from_rho_never_falls_to_zero(delta: float) -> None:
    eps = epsilon_from_rho(0.5, delta)
    assert 0 < eps <= _zcdp_bound(0.5, delta) * (1 + 1e-12)
    # a smaller δ never makes ε smaller
    assert eps >= epsilon_from_rho(0.5, max(delta, 1e-5) * 10) - 1e-12


def test_nan_inputs_fail_closed() -> None:
    assert epsilon_from_rho(math.nan, 1e-5) == math.inf
    assert epsilon_from_rho(0.5, math.nan) == math.inf


def test_rho_for_never_spins_on_a_tiny_delta() -> None:
    # 5e-324 used to loop forever (ε from ρ was 0 for every ρ)
    assert rho_for(3.0, 5e-324) == 0.0
    assert rho_for(3.0, 1e-5) > 0


@pytest.mark.parametrize("where", ["budget", "query"])
@pytest.mark.parametrize("delta", [1e-310, 1e-320, 5e-324, MIN_DELTA / 2])
def test_plans_refuse_a_delta_no_accountant_handles(where: str, delta: float) -> None:
    if where == "budget":
        doc = plan_dict(budget={"epsilon": 1.0, "delta": delta})
    else:
        doc = plan_dict(budget={"epsilon": 1.0, "delta": 1e-5},
                        queries=[{"id": "n", "kind": "count", "epsilon": 1.0,
                                  "mechanism": "gaussian", "delta": delta}])
    with pytest.raises(InputError, match="too small"):
        plan_from_dict(doc)


def test_ledger_refuses_a_denormal_cap(tmp_path: Path) -> None:
    ledger = Ledger(tmp_path / "l.sqlite3")
    with pytest.raises(InputError, match="too small"):
        ledger.set_cap("d", 4.0, 1e-310)


def test_lifetime_with_a_tiny_cap_delta_is_never_below_the_releases() -> None:
    """An old ledger may hold a denormal cap: the lifetime total must still count every
    release (it used to read 0 and let releases through)."""
    plan = plan_from_dict(plan_dict(budget={"epsilon": 3.35, "delta": 1e-6},
                                    queries=[{"id": "n", "kind": "count", "epsilon": 3.35,
                                              "mechanism": "gaussian", "delta": 1e-6}]))
    ms = measurements_for(plan.queries[0], plan)
    total = compose(ms, 1e-6)
    assert total.epsilon > 0
    for cap_delta in (1e-310, 5e-324):
        life = lifetime_total([], ms, total, cap_delta)
        assert life.epsilon >= min(total.epsilon, zcdp(ms, 1e-6).epsilon) - 1e-9
        assert life.epsilon > 3


def test_cli_set_cap_refuses_a_denormal_delta(tmp_path: Path) -> None:

    done = run_in_process(["ledger", "set-cap", "d", "--epsilon", "4", "--delta", "1e-310"],
                          tmp_path / "home")
    assert done.returncode == 2, done.stderr
    assert "--delta" in done.stderr and "too small" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_check_on_a_5e_324_plan_ends_with_exit_2(tmp_path: Path) -> None:

    plan = write_json(tmp_path / "p.json", plan_dict(budget={"epsilon": 1.0, "delta": 5e-324}))
    done = run_in_process(["check", str(plan)], tmp_path / "home")
    assert done.returncode == 2 and "budget.delta" in done.stderr


def test_ledger_refuses_a_blank_dataset_name(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="must not be blank"):
        Ledger(tmp_path / "l.sqlite3").set_cap("  ", 4.0, 1e-5)
