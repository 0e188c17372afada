"""An AIM synthetic table's release: its adaptive rounds, drawn once after the charge
(dp/synthetic_aim.py has the method and its accounting; Private-PGM's script
mechanisms/aim.py, ``AIM.run``, is what this follows).

The one-way marginals get exact discrete Gaussian noise; then, round by round, the exact
exponential mechanism chooses a marginal of the workload's downward closure (a candidate
scores w·(‖x − x̂‖₁ − sqrt(2/π)·σ·cells): its true counts x against the current model's
estimate x̂, less the noise's expected error, as in the script's ``worst_approximated``),
the chosen marginal is measured with exact discrete Gaussian noise, and the model is fitted
again (Private-PGM; post-processing of the noised marginals, so the annealing decision is
too). Candidates whose model would pass the size limit (the script's ``filter_candidates``:
its junction tree's size at most 80 MB times the share of ρ spent, a function of the chosen
cliques alone) are left out.

What it returns is the payload of ``release.synthetic.measure_synthetic`` with
``"method": "aim"``, its marginals ``round:t`` after the one-way ones, ``selected`` the
columns of each round's marginal and ``rounds`` each round's ε, σ² and ρ (public: the
selection is a DP output). ``measure_table`` is the one entry point for both methods.
"""

from __future__ import annotations

import math
import warnings
from fractions import Fraction
from itertools import combinations
from typing import Any

import numpy as np

from ..dp.accuracy import measurement_half_width
from ..dp.measure import Measurement
from ..dp.mechanisms import RandomSource
from ..dp.synthetic import SCORE_UNITS
from ..dp.synthetic_aim import (
    MAX_MODEL_MB,
    RoundParameters,
    RoundSchedule,
    aim_budget,
    candidates,
    exponential_select_exact,
    workload,
)
from ..kinds.params import synth_columns_of, synth_rows_of, synth_workload_of
from ..kinds.results import Aggregate
from ..model import Query
from .synthetic import (
    CLAMPED_NOTE,
    SEED_BOUND,
    SYNTH_NOTE,
    _import_mbi,
    _noised,
    _published,
    domain_texts,
    marginal_cells,
    measure_synthetic,
    noised_rows,
    round_measurement,
    round_of,
    rows_from,
    synthesis_versions,
)

#: mirror-descent iterations of each round's fit (warm-started from the round before); the
#: final fit of the synthesis takes release.synthetic.ESTIMATION_ITERS
ROUND_ITERS = 200


def true_marginal(aggregate: Aggregate, clique: tuple[int, ...], names: list[str]
                  ) -> np.ndarray:
    """The true counts of a clique of columns (row-major in the columns' order)."""
    if len(clique) == 1:
        return np.asarray(aggregate.parts[f"oneway:{names[clique[0]]}"], dtype=np.int64)
    name = ("pair:" if len(clique) == 2 else "triple:") + ":".join(map(str, clique))
    return np.asarray(aggregate.parts[name], dtype=np.int64)


def measure_table(query: Query, aggregate: Aggregate, ms: list[Measurement],
                  source: RandomSource, confidence: float, clamp_counts: bool = False
                  ) -> tuple[list[tuple[str, Any, int, int, str]], dict[str, Any]]:
    """A synthetic table's noise, drawn once, by its method (MST or AIM)."""
    if query.mechanism == "aim":
        return measure_aim(query, aggregate, ms, source, confidence, clamp_counts)
    return measure_synthetic(query, aggregate, ms, source, confidence, clamp_counts)


def measure_aim(query: Query, aggregate: Aggregate, ms: list[Measurement],
                source: RandomSource, confidence: float, clamp_counts: bool = False
                ) -> tuple[list[tuple[str, Any, int, int, str]], dict[str, Any]]:
    """AIM's noise, drawn once: the released cells (marginal, cell, value, half-width, note)
    and the payload saved with the record."""
    mbi = _import_mbi()
    cols = list(synth_columns_of(query))
    names = [c.column for c in cols]
    sizes = [c.size for c in cols]
    by_name = {m.component.name: m for m in ms}
    rounds_m = by_name["rounds"]
    budget = aim_budget(query, cols, rounds_m.component.l1, rounds_m.component.l2_sq)
    pairs, triples = synth_workload_of(query)
    weights = candidates(len(cols), workload(cols, pairs, triples))
    sensitivity = max(weights.values(), default=1) * budget.l1 * SCORE_UNITS
    domain = mbi.Domain(names, sizes)

    marginals: list[dict[str, Any]] = []
    raw: list[np.ndarray] = []
    noisy_one: list[np.ndarray] = []
    found: list[Any] = []  # mbi's measurements
    for c in cols:
        m = by_name[f"oneway:{c.column}"]
        noisy = _noised(np.asarray(aggregate.parts[f"oneway:{c.column}"]), m, source)
        noisy_one.append(noisy)
        raw.append(noisy)
        marginals.append({"name": m.component.name, "columns": [c.column],
                          "sigma_sq_steps": str(m.sigma_sq),
                          "values": _published(noisy, clamp_counts)})
        found.append(_measurement(mbi, marginals[-1]))
    totals = [int(v.sum()) for v in noisy_one]
    scale = max(1.0, sum(totals) / max(1, len(totals)))
    model = _fit(mbi, domain, found, scale, None)
    schedule = RoundSchedule(budget)
    records: list[dict[str, Any]] = []
    selected: list[list[str]] = []
    measured: list[tuple[int, ...]] = [(k,) for k in range(len(cols))]
    t = 0
    while (step := schedule.next()) is not None:
        t += 1
        spent = schedule.used + (budget.rho - budget.rounds_budget)
        limit = MAX_MODEL_MB * float(spent / budget.rho)
        allowed = _small_candidates(mbi, domain, weights, measured, limit, names)
        pick = _select(source, aggregate, model, allowed, weights, step, sensitivity, names)
        clique_names = tuple(names[k] for k in pick)
        true = true_marginal(aggregate, pick, names)
        m = round_measurement(query.id, t, budget.l1, budget.l2_sq, true.size, step.sigma_sq)
        noisy = _noised(true, m, source)
        raw.append(noisy)
        mg: dict[str, Any] = {"name": f"round:{t}", "columns": list(clique_names),
              "sigma_sq_steps": str(step.sigma_sq), "values": _published(noisy, clamp_counts)}
        marginals.append(mg)
        selected.append(list(clique_names))
        records.append({"round": t, "columns": list(clique_names),
                        "epsilon": str(step.epsilon), "sigma_sq_steps": str(step.sigma_sq),
                        "rho": str(step.rho)})
        measured.append(pick)
        before = _estimate(model, clique_names)
        found.append(_measurement(mbi, mg))
        model = _fit(mbi, domain, found, scale, model)
        after = _estimate(model, clique_names)
        # the script's annealing: the model barely moved on what was just measured
        if float(np.abs(after - before).sum()) <= \
                math.sqrt(float(step.sigma_sq)) * math.sqrt(2 / math.pi) * true.size:
            schedule.anneal()
    planned = synth_rows_of(query)
    rows = planned if planned is not None else noised_rows(query, totals)
    seed = source.randbelow(SEED_BOUND)
    payload = {"method": "aim", "columns": names,
               "domains": [domain_texts(c) for c in cols], "marginals": marginals,
               "one_way_totals": totals, "selected": selected, "rounds": records,
               "rows": int(rows), "rows_from": rows_from(query), "seed": int(seed),
               "versions": synthesis_versions()}
    cells: list[tuple[str, Any, int, int, str]] = []
    for mg, drawn in zip(marginals, raw, strict=True):
        m = by_name.get(mg["name"]) or round_measurement(
            query.id, int(mg["name"].split(":")[1]), budget.l1, budget.l2_sq,
            len(mg["values"]), _frac(mg["sigma_sq_steps"]))
        hw = measurement_half_width(m, confidence)
        label, keys = marginal_cells(query, mg["columns"], round_of(mg["name"]))
        for key, value, was in zip(keys, mg["values"], drawn.tolist(), strict=True):
            cells.append((label, key, int(value), hw,
                          CLAMPED_NOTE if was < 0 and clamp_counts else SYNTH_NOTE))
    return cells, payload


def _frac(text: str) -> Fraction:
    return Fraction(text)


def _measurement(mbi: Any, mg: dict[str, Any]) -> Any:
    sigma = math.sqrt(float(_frac(mg["sigma_sq_steps"])))
    return mbi.LinearMeasurement(np.asarray(mg["values"], dtype=np.float64),
                                 tuple(mg["columns"]), sigma)


def _fit(mbi: Any, domain: Any, found: list[Any], scale: float, warm: Any) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return mbi.estimation.MirrorDescent().estimate(
            domain, list(found), known_total=scale, iters=ROUND_ITERS, warm_start=warm)


def _estimate(model: Any, columns: tuple[str, ...]) -> np.ndarray:
    return np.asarray(model.project(columns).datavector(), dtype=np.float64)


def _small_candidates(mbi: Any, domain: Any, weights: dict[tuple[int, ...], int],
                      measured: list[tuple[int, ...]], limit: float, names: list[str]
                      ) -> list[tuple[int, ...]]:
    """The candidates whose model stays within ``limit`` MB, or that are inside a clique
    already measured (the script's ``filter_candidates``; public: the measured cliques and
    the domain only)."""
    from mbi import junction_tree

    free: set[tuple[int, ...]] = set()
    for cl in measured:
        for size in range(1, len(cl) + 1):
            free.update(combinations(cl, size))
    cliques = [tuple(names[k] for k in cl) for cl in measured]
    out = []
    for cl in weights:
        if cl in free:
            out.append(cl)
            continue
        size = junction_tree.hypothetical_model_size(domain, [*cliques,
                                                              tuple(names[k] for k in cl)])
        if size <= limit:
            out.append(cl)
    return out


def candidate_scores(aggregate: Aggregate, model: Any, allowed: list[tuple[int, ...]],
                     weights: dict[tuple[int, ...], int], sigma_sq: Fraction,
                     names: list[str]) -> list[int]:
    """Each allowed candidate's score, an integer in 2^-10 rows:
    w·(‖x − x̂‖₁ − sqrt(2/π)·σ·cells), x̂ and the bias rounded to 2^-10 first, so a score
    moves by at most w·Δ₁·2^10 between neighbouring tables (the model is fitted to released
    values only; tests/audit/test_synthetic_aim_audit.py checks the bound)."""
    sigma = math.sqrt(float(sigma_sq))
    scores = []
    for cl in allowed:
        x = true_marginal(aggregate, cl, names)
        xhat = np.rint(_estimate(model, tuple(names[k] for k in cl)) * SCORE_UNITS)
        l1 = int(np.abs(x * SCORE_UNITS - xhat.astype(np.int64)).sum(dtype=np.int64))
        bias = round(math.sqrt(2 / math.pi) * sigma * x.size * SCORE_UNITS)
        scores.append(weights[cl] * (l1 - bias))
    return scores


def _select(source: RandomSource, aggregate: Aggregate, model: Any,
            allowed: list[tuple[int, ...]], weights: dict[tuple[int, ...], int],
            step: RoundParameters, sensitivity: int, names: list[str]) -> tuple[int, ...]:
    """The round's marginal, by the exact exponential mechanism over ``candidate_scores``
    at the round's rational ε."""
    scores = candidate_scores(aggregate, model, allowed, weights, step.sigma_sq, names)
    return allowed[exponential_select_exact(source, scores, step.epsilon, sensitivity)]
