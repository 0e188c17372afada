"""Issue 25, item 1 (core25): the Gaussian discovery of keys, ``gaussian_threshold``.

Independent answers: the discrete Gaussian's tail summed term by term from its mass (not the
normal bound the module uses), the normal tail from scipy, the accountants' totals against
the sums and the zCDP conversion they must give, the published keys against the threshold,
and verify on the bundle.
"""

from __future__ import annotations

import csv
import io
import json
import math
import zipfile
from fractions import Fraction
from typing import Any

import pytest
from scipy.stats import norm

from planner_app.core.dp.accounting import compose
from planner_app.core.dp.measure import epsilon_from_rho
from planner_app.core.dp.threshold import gaussian_key_tail, gaussian_threshold_for
from planner_app.core.kinds.discover_keys import selection_of
from planner_app.core.kinds.registry import KINDS
from planner_app.core.kinds.shared_dp import measurements_for
from planner_app.core.planfile import plan_from_dict, plan_to_dict
from planner_app.core.support.errors import InputError
from tests.core.test_discovery_kinds import BOUNDS, KEYS, plan_doc

GAUSS = {**KEYS, "mechanism": "gaussian_threshold"}


def _dg_tail(sigma_sq: float, j: int) -> float:
    """P[Z >= j] of the discrete Gaussian, summed from its mass exp(-z²/2σ²) / Σ."""
    top = int(60 * math.sqrt(sigma_sq)) + 60
    weights = {z: math.exp(-z * z / (2 * sigma_sq)) for z in range(-top, top + 1)}
    return sum(w for z, w in weights.items() if z >= j) / sum(weights.values())


@pytest.mark.parametrize("sigma_sq, m, delta", [(Fraction(4), 1, 1e-6), (Fraction(37), 3, 1e-9),
                                                (Fraction(1, 2), 1, 1e-5)])
def test_the_gaussian_threshold_is_the_smallest_within_its_delta(
        sigma_sq: Fraction, m: int, delta: float) -> None:
    sigma = math.sqrt(float(sigma_sq))
    tau = gaussian_threshold_for(sigma_sq, m, delta)
    # the bound it uses, P[N(0, σ²) >= τ - 2], from scipy: within δ at τ, not at τ - 1
    assert 1 - (1 - norm.sf(tau - 2, scale=sigma)) ** m <= delta
    assert 1 - (1 - norm.sf(tau - 3, scale=sigma)) ** m > delta
    # and the bound holds: the exact discrete tail P[1 + Z >= τ] is at most it
    assert _dg_tail(float(sigma_sq), tau - 1) <= gaussian_key_tail(sigma_sq, tau)


def test_its_measurements_are_the_gaussian_at_half_delta_and_the_threshold() -> None:
    plan = plan_from_dict(plan_doc(GAUSS))
    noise, cut = measurements_for(plan.queries[0], plan)
    assert (noise.mechanism, noise.epsilon, noise.delta) == ("gaussian", 1.0, 5e-7)
    assert (cut.mechanism, cut.epsilon, cut.delta) == ("threshold", 0.0, 5e-7)
    # max_keys 2 under add-remove: two cells moved by 1, L2² = 2
    assert (noise.component.l1, noise.component.l2_sq, cut.component.cells) == (2, 2, 2)
    sel = selection_of([noise, cut])
    assert sel.threshold_delta <= 5e-7
    assert sel.threshold == gaussian_threshold_for(noise.sigma_sq, 2, 5e-7)


def test_the_accountants_add_the_threshold_delta_to_the_gaussian() -> None:
    plan = plan_from_dict(plan_doc(GAUSS, BOUNDS))
    ms = [m for q in plan.queries for m in measurements_for(q, plan)]
    basic = compose(ms, 1e-5, "basic")
    assert basic.epsilon == pytest.approx(2.0) and basic.delta == pytest.approx(1e-6)
    rho = sum(m.rho for m in ms)
    zcdp = compose(ms, 1e-5, "zcdp")  # approximate zCDP: ρ at δ minus the threshold's
    assert zcdp.epsilon == pytest.approx(epsilon_from_rho(rho, 1e-5 - 5e-7))
    assert zcdp.epsilon > epsilon_from_rho(rho, 1e-5)
    pld = compose(ms, 1e-5, "pld")
    assert pld.epsilon <= basic.epsilon
    # a threshold's δ that leaves nothing for ρ fails closed
    assert math.isinf(compose(ms, 4e-7, "zcdp").epsilon)


def test_the_pld_of_the_threshold_depends_on_its_delta() -> None:
    """Two Gaussian discoveries alike but for δ: each threshold's δ is composed, not one
    PLD shared between them (the PLD cache's key holds the δ)."""
    small = plan_from_dict(plan_doc(GAUSS))
    large = plan_from_dict(plan_doc({**GAUSS, "delta": 1e-4}, delta=1e-3))
    cut_small = measurements_for(small.queries[0], small)[1]
    cut_large = measurements_for(large.queries[0], large)[1]
    # at δ = 1e-6, (0, 5e-7) needs no ε; (0, 5e-5) cannot be brought within it by any ε
    assert compose([cut_small], 1e-6, "pld").epsilon == 0.0
    assert compose([cut_large], 1e-6, "pld").epsilon > 1.0
    assert compose([cut_small, cut_large], 1e-4, "basic").delta == pytest.approx(5.05e-5)


def test_the_plan_reads_writes_and_the_schema_takes_it() -> None:
    jsonschema = pytest.importorskip("jsonschema")
    from planner_app.core.support.resources import resource_path

    written = plan_to_dict(plan_from_dict(plan_doc(GAUSS)))
    assert written["queries"][0]["mechanism"] == "gaussian_threshold"
    assert plan_to_dict(plan_from_dict(written)) == written
    schema = json.loads(resource_path("plan.schema.json").read_text(encoding="utf-8"))
    jsonschema.validate(written, schema)
    written["queries"][0]["mechanism"] = "gaussian"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(written, schema)
    with pytest.raises(InputError, match=r"queries\[jobs\]\.mechanism"):
        plan_from_dict(plan_doc({**GAUSS, "mechanism": "gaussian"}))


def test_the_form_offers_both_thresholds_by_name() -> None:
    options = KINDS["discover_keys"].form_mechanisms()
    assert [(o.value, o.label) for o in options] == [
        ("laplace_threshold", "Discrete Laplace above a threshold (needs δ)"),
        ("gaussian_threshold", "Discrete Gaussian above a threshold (needs δ)")]


def test_a_gaussian_discovery_releases_and_verifies(tmp_path: Any) -> None:
    from tests.core.test_discovery_kinds import _release

    doc = plan_doc({**GAUSS, "publish_counts": True, "epsilon": 4.0}, BOUNDS)
    out, rows = _release(tmp_path, doc)
    plan = plan_from_dict(doc)
    tau = selection_of(measurements_for(plan.queries[0], plan)).threshold
    keys = [r for r in rows if r["query_id"] == "jobs"]
    assert [r["cell"] for r in keys] == ["a", "b"]  # c: one person, below the threshold
    assert all(float(r["value"]) >= tau for r in keys)
    from planner_app.core.release.verify_release import verify_bundle

    assert verify_bundle(out).valid
    with zipfile.ZipFile(out) as z:
        record = json.loads(z.read("release.json"))
        listed = list(csv.DictReader(io.StringIO(z.read("results.csv").decode())))
    assert {r["mechanism"] for r in listed if r["query_id"] == "jobs"} == {"gaussian_threshold"}
    assert record["total"]["delta"] >= 1e-6 * (1 - 1e-12) or record["total"]["accountant"] != \
        "basic"


def test_a_tiny_epsilon_is_refused_naming_it() -> None:
    with pytest.raises(InputError, match=r"queries\[jobs\]\.epsilon.*too small"):
        measurements_for(*_one(plan_from_dict(plan_doc({**GAUSS, "epsilon": 1e-15}))))


def _one(plan: Any) -> tuple[Any, Any]:
    return plan.queries[0], plan
