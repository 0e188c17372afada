"""What ``verify`` checks of an AIM table's rounds, from the bundle alone (no mbi needed;
verify_synthetic.py checks the rest of the payload as for MST):

* ``rounds`` lists each round's number, columns, ε, σ² and ρ, as exact rationals; the
  marginals after the one-way ones are ``round:1`` … ``round:n``, each with its round's
  columns and σ², and ``selected`` lists the same columns;
* each round's columns are a candidate of the plan's workload (its downward closure);
* each ρ is its ε²/8 + Δ₂²/(2σ²), the rounds keep or anneal their predecessor's ε and σ²
  (the first round the one-way measurement's), and together they spend at most the rounds'
  budget the plan gives (``dp.synthetic_aim.rounds_problem``). The accounting of the plan's
  measurements (the one-way marginals and that budget) recomputes with the rest.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from ..dp.measure import Measurement
from ..dp.synthetic_aim import (
    RoundParameters,
    budget_of,
    candidates,
    rounds_problem,
    workload,
)
from ..kinds.params import synth_columns_of, synth_workload_of
from ..model import Plan, Query
from .synthetic import round_measurement

ROUND_KEYS = frozenset({"round", "columns", "epsilon", "sigma_sq_steps", "rho"})


def _fraction(value: Any) -> Fraction | None:
    if not isinstance(value, str):
        return None
    try:
        out = Fraction(value)
    except (ValueError, ZeroDivisionError):
        return None
    return out if out > 0 else None


def aim_rounds_problem(plan: Plan, q: Query, payload: dict[str, Any]) -> str | None:
    """The first problem of an AIM payload's rounds (None: none)."""
    cols = list(synth_columns_of(q))
    names = [c.column for c in cols]
    rounds = payload.get("rounds")
    if not isinstance(rounds, list) or not all(isinstance(r, dict) and set(r) == ROUND_KEYS
                                               for r in rounds):
        return "its rounds are not AIM's rounds (round, columns, epsilon, sigma_sq_steps, rho)"
    marginals = payload["marginals"]
    if len(marginals) != len(cols) + len(rounds):
        return "its marginals are not the one-way marginals and one a round"
    pairs, triples = synth_workload_of(q)
    allowed = {tuple(names[k] for k in c) for c in candidates(len(cols),
                                                               workload(cols, pairs, triples))}
    parsed = []
    for t, (r, mg) in enumerate(zip(rounds, marginals[len(cols):], strict=True), start=1):
        columns = r["columns"]
        if r["round"] != t or mg.get("name") != f"round:{t}":
            return f"its round {t} is not numbered {t}"
        if not isinstance(columns, list) or tuple(columns) not in allowed:
            return f"round {t}'s columns are not a marginal of the plan's workload"
        if mg.get("columns") != columns or payload["selected"][t - 1:t] != [columns]:
            return f"round {t}'s marginal and selection are not its round's columns"
        eps, sigma_sq, rho = (_fraction(r["epsilon"]), _fraction(r["sigma_sq_steps"]),
                              _fraction(r["rho"]))
        if eps is None or sigma_sq is None or rho is None:
            return f"round {t}'s epsilon, sigma_sq_steps and rho are not positive rationals"
        if mg.get("sigma_sq_steps") != r["sigma_sq_steps"]:
            return f"round {t}'s marginal noise is not its round's"
        parsed.append(RoundParameters(eps, sigma_sq, rho, t == len(rounds)))
    if len(payload["selected"]) != len(rounds):
        return "its selected marginals are not its rounds'"
    problem = rounds_problem(budget_of(q, plan, cols), parsed)
    return f"its rounds: {problem}" if problem else None


def round_measurements(plan: Plan, q: Query, payload: dict[str, Any]
                       ) -> dict[str, Measurement]:
    """Each checked round's measurement by its name (``round:t``), for its interval."""
    budget = budget_of(q, plan, synth_columns_of(q))
    sizes = {c.column: c.size for c in synth_columns_of(q)}
    out = {}
    for r in payload.get("rounds") or []:
        cells = 1
        for c in r["columns"]:
            cells *= sizes[c]
        out[f"round:{r['round']}"] = round_measurement(
            q.id, int(r["round"]), budget.l1, budget.l2_sq, cells,
            Fraction(r["sigma_sq_steps"]))
    return out
