"""The privacy side of AIM (McKenna, Mullins, Sheldon, Miklau 2022, "AIM: An Adaptive and
Iterative Mechanism for Differentially Private Synthetic Data"), as Private-PGM's script
writes it (github.com/ryan112358/private-pgm, mechanisms/aim.py, ``AIM.run``), on this app's
exact samplers and in exact rational arithmetic.

The table's (ε, δ) becomes ρ = rho_for(ε, δ) (zCDP). With d columns and T = 16·d rounds
(the script's default ``rounds``):

1. every one-way marginal is measured with discrete Gaussian noise at σ² = Δ₂²·T/(2·0.9·ρ)
   (the script's ``sigma = sqrt(rounds / (2·0.9·rho))``), rounded up;
2. the rest of ρ (the *rounds' budget*, a public number) is spent by adaptive rounds. A
   round has a selection ε_t (the exponential mechanism, ε_t²/8-zCDP, bounded range) and a
   measurement σ_t² (a discrete Gaussian, Δ₂²/(2σ_t²)-zCDP); it costs
   ρ_t = ε_t²/8 + Δ₂²/(2σ_t²). The first round's ε and σ² are the one-way measurement's
   (ε = sqrt(8·0.1·ρ/T), rounded down); when the model's estimate of the marginal just
   measured barely moved (its L1 change at most sqrt(2/π)·σ·cells: post-processing of
   released values), σ is halved and ε doubled (annealing, ρ_t four times larger); when the
   budget left is less than twice the next round's cost, the last round spends exactly what
   is left (0.9 to its measurement, 0.1 to its selection) and the rounds stop.

Every ρ_t and every sum here is a ``Fraction``: the rounds never spend more than the rounds'
budget (``round_plan`` asserts it; verify re-adds the recorded ρ_t). The rounds' budget
is spent by a sequence of measurements whose parameters are chosen from earlier outputs, so
it composes as a zCDP privacy filter (fully adaptive composition: Whitehouse, Ramdas,
Rogers, Wu 2023, "Fully-Adaptive Composition in Differential Privacy"; the AIM paper's own
argument, its Theorem 1): its measurement is recorded as one ``zcdp`` measurement of that ρ,
composed by the zCDP accountant only (no PLD describes an adaptive sequence).

The workload is the plan's pairs (default all pairs of columns) and its triples; the
candidates are its downward closure (the one-way marginals, the workload's pairs and
triples and the pairs inside the triples), each with the script's weight
w(c) = Σ_W |c ∩ W| (``compile_workload``).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from ..model import Plan, Query, SynthColumn
from ..support.errors import InputError
from .measure import Measurement, epsilon_from_rho, rho_for, round_up_fraction
from .sampler_params import RandomSource
from .sensitivity import Component
from .synthetic_sensitivity import marginal_sensitivity

#: T = ROUNDS_PER_COLUMN·d rounds (the script's default ``rounds = 16 * len(domain)``)
ROUNDS_PER_COLUMN = 16
#: the share of a round's ρ given to its measurement (the rest to its selection)
MEASURE_SHARE = Fraction(9, 10)
#: the model's size limit in MB at the end of the budget (the script's max_model_size)
MAX_MODEL_MB = 80
#: ε's bits below the point: ε_t is a multiple of 2^-EPS_BITS, rounded down
EPS_BITS = 40
ROUNDS_NAME = "rounds"


def exact_rho(query: Query) -> Fraction:
    """The table's ρ as an exact rational (the float rho_for gives, exactly)."""
    rho = rho_for(query.epsilon, query.delta)
    if rho <= 0:
        raise InputError("plan", f"queries[{query.id}].epsilon",
                         "epsilon and delta are too small for a synthetic table")
    return Fraction(rho)


def epsilon_at_most(rho: Fraction) -> Fraction:
    """The largest multiple of 2^-EPS_BITS whose ε²/8 is at most ``rho`` (an exponential
    mechanism's ε within a zCDP share)."""
    scaled = rho * 8 * (1 << (2 * EPS_BITS))
    return Fraction(math.isqrt(scaled.numerator // scaled.denominator), 1 << EPS_BITS)


def sigma_sq_within(l2_sq: int, rho: Fraction) -> Fraction:
    """The smallest σ² (rounded up to a rational the sampler takes) whose Gaussian costs at
    most ``rho``: Δ₂²/(2ρ)."""
    return round_up_fraction(Fraction(l2_sq) / (2 * rho))


def gaussian_rho(l2_sq: int, sigma_sq: Fraction) -> Fraction:
    return Fraction(l2_sq) / (2 * sigma_sq)


def round_rho(epsilon: Fraction, sigma_sq: Fraction, l2_sq: int) -> Fraction:
    """A round's exact zCDP cost: its selection's ε²/8 plus its Gaussian's Δ₂²/(2σ²)."""
    return epsilon * epsilon / 8 + gaussian_rho(l2_sq, sigma_sq)


@dataclass(frozen=True)
class AimBudget:
    """An AIM table's public split of its ρ."""

    rho: Fraction  # the table's
    rounds: int  # T
    one_way_sigma_sq: Fraction  # each one-way marginal's σ² (the first round's too)
    first_epsilon: Fraction  # the first round's selection ε
    rounds_budget: Fraction  # what the rounds may spend, at most
    l1: int
    l2_sq: int


def aim_budget(query: Query, columns: Sequence[SynthColumn], l1: int, l2_sq: int) -> AimBudget:
    """The split of an AIM table's ρ, from public parameters only."""
    d = len(columns)
    rho = exact_rho(query)
    rounds = ROUNDS_PER_COLUMN * d
    per_round = rho / rounds
    sigma_sq = sigma_sq_within(l2_sq, MEASURE_SHARE * per_round)
    epsilon = epsilon_at_most((1 - MEASURE_SHARE) * per_round)
    rest = rho - d * gaussian_rho(l2_sq, sigma_sq)
    # the rounds' budget as a Gaussian's σ² (how the record writes a ρ), rounded up: the
    # recorded ρ is at most what is left, and it is the cap the rounds keep to
    cap_sigma_sq = sigma_sq_within(l2_sq, rest)
    return AimBudget(rho, rounds, sigma_sq, epsilon, gaussian_rho(l2_sq, cap_sigma_sq), l1,
                     l2_sq)


@dataclass(frozen=True)
class RoundParameters:
    epsilon: Fraction  # the selection's ε
    sigma_sq: Fraction  # the measurement's σ² (in rows²)
    rho: Fraction  # ε²/8 + Δ₂²/(2σ²)
    last: bool


class RoundSchedule:
    """AIM's rounds, one at a time: ``next()`` gives the next round's parameters (None once
    the budget is spent), ``anneal()`` halves σ and doubles ε for the rounds after. Exact:
    the rounds' ρ never add up past ``budget.rounds_budget``."""

    def __init__(self, budget: AimBudget) -> None:
        self.budget = budget
        self.epsilon = budget.first_epsilon
        self.sigma_sq = budget.one_way_sigma_sq
        self.used = Fraction(0)
        self.done = False

    @property
    def remaining(self) -> Fraction:
        return self.budget.rounds_budget - self.used

    def next(self) -> RoundParameters | None:
        if self.done:
            return None
        l2_sq = self.budget.l2_sq
        cost = round_rho(self.epsilon, self.sigma_sq, l2_sq)
        last = self.remaining < 2 * cost
        if last:  # the script's "use up whatever remaining budget there is"
            left = self.remaining
            self.sigma_sq = sigma_sq_within(l2_sq, MEASURE_SHARE * left)
            self.epsilon = epsilon_at_most((1 - MEASURE_SHARE) * left)
            cost = round_rho(self.epsilon, self.sigma_sq, l2_sq)
            self.done = True
        if self.epsilon <= 0 or cost <= 0:  # nothing left to spend
            self.done = True
            return None
        self.used += cost
        assert self.used <= self.budget.rounds_budget, "AIM's rounds would pass their budget"
        return RoundParameters(self.epsilon, self.sigma_sq, cost, last)

    def anneal(self) -> None:
        self.sigma_sq = self.sigma_sq / 4
        self.epsilon = self.epsilon * 2


def rounds_problem(budget: AimBudget, rounds: Sequence[RoundParameters]) -> str | None:
    """Why a record's rounds cannot be AIM's under this budget (None: they can): each
    round's ρ is its ε²/8 + Δ₂²/(2σ²), they add up to at most the rounds' budget, the first
    round has the one-way measurement's ε and σ² unless it is the last, each later round
    keeps or anneals its predecessor's (σ² a quarter, ε doubled) unless it is the last, and
    only the last is marked last."""
    total = Fraction(0)
    previous: RoundParameters | None = None
    for t, r in enumerate(rounds, start=1):
        if r.rho != round_rho(r.epsilon, r.sigma_sq, budget.l2_sq):
            return f"round {t}'s ρ is not its ε²/8 + Δ₂²/(2σ²)"
        total += r.rho
        if r.last != (t == len(rounds)):
            return f"round {t} is marked last but rounds follow it, or the last is not"
        if r.last:
            continue
        if previous is None:
            if (r.epsilon, r.sigma_sq) != (budget.first_epsilon, budget.one_way_sigma_sq):
                return "the first round's ε and σ² are not the one-way measurement's"
        elif (r.epsilon, r.sigma_sq) not in ((previous.epsilon, previous.sigma_sq),
                                            (previous.epsilon * 2, previous.sigma_sq / 4)):
            return f"round {t}'s ε and σ² neither keep nor anneal round {t - 1}'s"
        previous = r
    if total > budget.rounds_budget:
        return (f"its rounds spend ρ = {float(total):.6g}, more than their budget "
                f"{float(budget.rounds_budget):.6g}")
    return None


# ----------------------------------------------------------------------------- the workload


Clique = tuple[int, ...]


def workload(columns: Sequence[SynthColumn], pairs: Sequence[Sequence[str]] | None,
             triples: Sequence[Sequence[str]]) -> list[Clique]:
    """The workload as column indices: the declared pairs (None: every pair), then the
    declared triples, each sorted."""
    index = {c.column: k for k, c in enumerate(columns)}
    out: list[Clique]
    if pairs is None:
        out = list(itertools.combinations(range(len(columns)), 2))
    else:
        out = [tuple(sorted(index[c] for c in p)) for p in pairs]
    out += [tuple(sorted(index[c] for c in t)) for t in triples]
    return out


def candidates(d: int, work: Sequence[Clique]) -> dict[Clique, int]:
    """The downward closure of the workload with each clique's weight Σ_W |c ∩ W| (the
    script's ``compile_workload``, every workload weight 1), in a fixed order (size, then
    the columns' order). Every one-way marginal is a candidate."""
    closure: set[Clique] = {(k,) for k in range(d)}
    for w in work:
        for size in range(1, len(w) + 1):
            closure.update(itertools.combinations(w, size))
    return {c: sum(len(set(c) & set(w)) for w in work)
            for c in sorted(closure, key=lambda c: (len(c), c))}


# ----------------------------------------------------------------------------- measurements


def aim_measurements(query: Query, plan: Plan, columns: Sequence[SynthColumn],
                     ) -> list[Measurement]:
    """AIM's measurements before the release: the one-way marginals (discrete Gaussians)
    and the rounds' budget (one ``zcdp`` measurement: a ρ spent by adaptive rounds, recorded
    as a Gaussian's σ² with Δ₂²/(2σ²) = that ρ). The (ε, δ) recorded with each is its own
    guarantee at an even share of δ; the zcdp accountant composes them to the stated ε."""
    cols = tuple(columns)
    l1, l2_sq = marginal_sensitivity(plan.privacy_unit, plan.neighbouring)
    budget = aim_budget(query, cols, l1, l2_sq)
    single = plan.neighbouring == "add-remove" and l1 == 1
    k = plan.privacy_unit.rows_per_unit
    who = "one row a person" if k == 1 else f"up to {k} rows a person"
    share_delta = query.delta / (len(cols) + 1)
    out = []
    for c in cols:
        comp = Component(
            name=f"oneway:{c.column}", step=1.0, l1=l1, l2_sq=l2_sq, cells=c.size,
            single_cell=single or c.size == 1,
            derivation=(f"counts of {c.column} over its {c.size} declared values (rows with a "
                        f"value outside a declared domain are left out), {who}: "
                        f"sensitivity {l1}"))
        rho = gaussian_rho(l2_sq, budget.one_way_sigma_sq)
        out.append(Measurement(query.id, comp, "gaussian",
                               epsilon_from_rho(float(rho), share_delta), share_delta,
                               sigma_sq=budget.one_way_sigma_sq))
    cap_sigma_sq = Fraction(l2_sq) / (2 * budget.rounds_budget)
    comp = Component(
        name=ROUNDS_NAME, step=1.0, l1=l1, l2_sq=l2_sq, cells=1, single_cell=True,
        derivation=(f"AIM's adaptive rounds (at most {budget.rounds}): each measures, with "
                    f"discrete Gaussian noise, the marginal it chooses by the exponential "
                    f"mechanism, {who}: sensitivity {l1}; together at most "
                    f"ρ = {float(budget.rounds_budget):.6g} (zCDP)"))
    out.append(Measurement(query.id, comp, "zcdp",
                           epsilon_from_rho(float(budget.rounds_budget), share_delta),
                           share_delta, sigma_sq=cap_sigma_sq))
    return out


def budget_of(query: Query, plan: Plan, columns: Sequence[SynthColumn]) -> AimBudget:
    l1, l2_sq = marginal_sensitivity(plan.privacy_unit, plan.neighbouring)
    return aim_budget(query, columns, l1, l2_sq)


# ----------------------------------------------------------------------------- the selection


def exponential_select_exact(source: RandomSource, scores: Sequence[int], epsilon: Fraction,
                             sensitivity: int) -> int:
    """The exponential mechanism at a rational ε, exactly: index i with probability
    proportional to exp(ε·scores[i] / (2·sensitivity)), for integer scores of that
    sensitivity (dp/synthetic.exponential_select's rejection sampler: uniform proposals,
    each accepted by an exact Bernoulli(exp(-ε·(max - score)/(2Δ))))."""
    if not scores:
        raise ValueError("nothing to select from")
    from .mechanisms import bernoulli_exp  # the samplers (numpy), when a table is synthesised

    top = max(scores)
    den = epsilon.denominator * 2 * sensitivity
    while True:
        i = source.randbelow(len(scores))
        num = epsilon.numerator * (top - scores[i])
        if num == 0 or bernoulli_exp(source, num, den):
            return i
