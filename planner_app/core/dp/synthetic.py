"""The privacy side of a synthetic table (MST: McKenna, Miklau, Sheldon 2021): which
measurements it makes, their sensitivities, their noise, and what the budget buys.

MST measures, on the rows whose every declared column has a declared value:

1. every one-way marginal (the counts of each column's values), with discrete Gaussian noise;
2. it selects d - 1 pairs of columns, one a round, with the exponential mechanism: a pair
   scores the L1 distance between its true two-way marginal and the product of the noised
   one-way marginals (pairs already joined in the tree are out of the running), so the
   pairs worst explained by independence are chosen (a maximum spanning tree);
3. every selected two-way marginal, with discrete Gaussian noise.

The query's (ε, δ) becomes ρ = rho_for(ε, δ) (zCDP), split in thirds as in MST: a third over
the d one-way marginals, a third over the d - 1 selection rounds (each an ε_r-DP exponential
mechanism, ε_r²/8-zCDP), a third over the d - 1 two-way marginals (a table of one column
spends all of ρ on its one-way marginal). A table of two columns has one pair, the only
candidate whatever the data: it is taken without a selection round, and ρ is split in halves,
a half over the two one-way marginals and a half to the pair's two-way marginal. Every
measurement is recorded with the plan's other measurements and composed by the plan's
accountant (zcdp or pld).

Sensitivities: every row lands in exactly one cell of every marginal, or (a value outside
a declared domain, or missing, in any declared column) in none of them. With k rows a person
(after contribution bounding) a marginal moves by at most k in L1 and k² in squared L2 under
add-remove; under replace-one by 2k and 2k². A pair's score is an L1 distance to a fixed
(already noised) estimate, so it moves by at most the marginal's L1 sensitivity.

Everything here is a pure function of public parameters; preview() is what the app shows
before a release (docs/synthetic.md).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from ..model import Plan, Query, SynthColumn
from ..support.errors import InputError
from ..support.words import (
    AIM_PREVIEW_NOTE,
    aim_rounds_line,
    aim_rounds_measured_line,
    synth_measured_line,
    synth_measurement_words,
    synth_pair_line,
    synth_preview_lines,
    synth_preview_note,
)
from .measure import Measurement, epsilon_from_rho, exact_epsilon, rho_for, round_up_fraction
from .sampler_params import RandomSource
from .synthetic_aim import ROUNDS_NAME, aim_measurements, budget_of
from .synthetic_sensitivity import synthetic_components

ONE_WAY_SHARE = Fraction(1, 3)
SELECT_SHARE = Fraction(1, 3)
TWO_WAY_SHARE = Fraction(1, 3)


@dataclass(frozen=True)
class SynthSplit:
    """The query's ρ and its split (MST's thirds; two columns: halves, no selection)."""

    rho: float
    rho_one_way: float  # per one-way marginal
    rho_two_way: float  # per two-way marginal
    select_epsilon: float  # ε of each selection round (pure DP, ε²/8-zCDP)
    columns: int

    @property
    def pairs(self) -> int:
        return self.columns - 1


def synth_split(query: Query, d: int) -> SynthSplit:
    """How a synthetic table of ``d`` columns splits its ρ."""
    rho = rho_for(query.epsilon, query.delta)
    if rho <= 0 or d == 0:
        raise InputError("plan", f"queries[{query.id}].epsilon",
                         "epsilon and delta are too small for a synthetic table")
    if d == 1:
        return SynthSplit(rho, rho, 0.0, 0.0, 1)
    if d == 2:  # one pair, the only candidate (public): no selection, ρ in halves
        return SynthSplit(rho, rho / 4, rho / 2, 0.0, 2)
    one = rho * float(ONE_WAY_SHARE) / d
    two = rho * float(TWO_WAY_SHARE) / (d - 1)
    # ε_r with (d-1)·ε_r²/8 at most the selection's third, rounded down
    select = math.sqrt(8 * rho * float(SELECT_SHARE) / (d - 1))
    select = math.nextafter(select, 0.0)
    return SynthSplit(rho, one, two, select, d)


def synthetic_measurements(query: Query, plan: Plan,
                           columns: Sequence[SynthColumn]) -> list[Measurement]:
    """The measurements of a synthetic table: discrete Gaussian marginals at the split's ρ
    (σ² rounded up, so no measurement spends more than its share) and exponential-mechanism
    selection rounds. The (ε, δ) recorded with each Gaussian marginal is its own guarantee
    at an even share of δ; the zcdp and pld accountants compose them tighter."""
    split = synth_split(query, len(columns))
    parts = synthetic_components(query, plan.privacy_unit, plan.neighbouring, columns)
    gaussians = sum(1 for c in parts if not c.name.startswith("select:"))
    share_delta = query.delta / max(1, gaussians)
    out: list[Measurement] = []
    for comp in parts:
        if comp.name.startswith("select:"):
            out.append(Measurement(query.id, comp, "exponential", split.select_epsilon, 0.0))
            continue
        rho = split.rho_one_way if comp.name.startswith("oneway:") else split.rho_two_way
        sigma_sq = round_up_fraction(Fraction(comp.l2_sq) / (2 * Fraction(rho)))
        actual = comp.l2_sq / (2 * float(sigma_sq))
        out.append(Measurement(query.id, comp, "gaussian",
                               epsilon_from_rho(actual, share_delta), share_delta,
                               sigma_sq=sigma_sq))
    return out


# ----------------------------------------------------------------------------- the preview


@dataclass(frozen=True)
class MarginalPreview:
    """One measurement of the plan, as shown before the release."""

    name: str  # oneway:<column> | select:<i> | twoway:<i>
    what: str  # in words
    cells: int  # cells of the marginal (the widest possible pair for a two-way round)
    sigma: float | None  # the Gaussian noise's standard deviation, in rows (None: selection)
    epsilon: float | None  # a selection round's ε (None: a marginal)


@dataclass(frozen=True)
class SynthPreview:
    """What a synthetic table's budget buys, from public parameters only."""

    query_id: str
    rho: float
    measurements: tuple[MarginalPreview, ...]
    expected_rows: float | None  # the dataset's expected rows, else the query's rows
    one_way_error: float | None  # expected total variation distance of a one-way marginal
    two_way_error: float | None  # the same, of a measured two-way marginal
    note: str
    rounds_rho: float | None = None  # AIM: what its adaptive rounds may spend, at most


def expected_tvd(sigma: float, cells: int, rows: float) -> float:
    """Expected total variation distance between a marginal's noised counts (normalised by
    the rows) and the true one: (1/2)·Σ E|noise| / n = cells·σ·sqrt(2/π) / (2n). An upper
    estimate for what the synthetic table shows on measured marginals (inference averages
    the noise down; sampling adds a little)."""
    if rows <= 0:
        return math.inf
    return min(1.0, cells * sigma * math.sqrt(2 / math.pi) / (2 * rows))


def preview(query: Query, plan: Plan, columns: Sequence[SynthColumn],
            synth_rows: int | None) -> SynthPreview:
    """Which marginals a synthetic table measures, the noise on each, and the expected error
    of its one- and two-way marginals, from the plan alone (no data): for the app's preview
    and the report (kinds.synthetic.table_preview: the table's own ``columns`` and
    ``synth_rows``). Rows: the dataset's ``expected_rows``, else the table's ``rows``."""
    aim = query.mechanism == "aim"
    ms = aim_measurements(query, plan, columns) if aim else \
        synthetic_measurements(query, plan, columns)
    cols = tuple(columns)
    items = []
    for m in ms:
        c = m.component
        if m.mechanism == "zcdp":  # AIM's rounds: the first round's σ and ε (they anneal)
            b = budget_of(query, plan, cols)
            items.append(MarginalPreview(c.name, synth_measurement_words(c.name), b.rounds,
                                         math.sqrt(float(b.one_way_sigma_sq)),
                                         float(b.first_epsilon)))
            continue
        if m.mechanism == "exponential":
            items.append(MarginalPreview(c.name, synth_measurement_words(c.name),
                                         len(cols) * (len(cols) - 1) // 2, None, m.epsilon))
            continue
        assert m.sigma_sq is not None
        items.append(MarginalPreview(c.name, synth_measurement_words(c.name, len(cols)), c.cells,
                                     math.sqrt(float(m.sigma_sq)), None))
    # the noise is measured against the real rows: the dataset's public approximate count,
    # else the synthetic table's own rows as a stand-in
    rows = float(plan.dataset.expected_rows) if plan.dataset.expected_rows else (
        float(synth_rows) if synth_rows is not None else None)
    one = two = None
    if rows is not None:
        ones = [expected_tvd(i.sigma, i.cells, rows) for i in items
                if i.name.startswith("oneway:") and i.sigma is not None]
        one = sum(ones) / len(ones) if ones else None
        sigma_two = next((i.sigma for i in items
                          if i.name.startswith("twoway:") or i.name == ROUNDS_NAME), None)
        if sigma_two is not None and len(cols) > 1:
            pair_cells = [cols[a].size * cols[b].size for a in range(len(cols))
                          for b in range(a + 1, len(cols))]
            two = sum(expected_tvd(sigma_two, n, rows) for n in pair_cells) / len(pair_cells)
    rounds_rho = float(budget_of(query, plan, cols).rounds_budget) if aim else None
    note = AIM_PREVIEW_NOTE if aim else synth_preview_note(len(cols))
    return SynthPreview(query.id, synth_split(query, len(cols)).rho, tuple(items), rows, one, two,
                        note, rounds_rho)


def measured_lines(p: SynthPreview) -> list[str]:
    """Each measurement of the preview in words (the app's "Measured:" list): a marginal
    with its cells and σ, a selection round with its ε, AIM's rounds as rounds."""
    out = []
    for m in p.measurements:
        if m.name == ROUNDS_NAME:
            out.append(aim_rounds_measured_line(m.cells, m.sigma, m.epsilon))
        elif m.sigma is not None or m.epsilon is not None:
            out.append(synth_measured_line(m.what, m.cells, m.sigma, m.epsilon,
                                           m.name.startswith("twoway:")))
    return out


# ----------------------------------------------------------------------------- the selection

SCORE_UNITS = 1 << 10  # a pair's score is an integer number of 2^-10 rows


def exponential_select(source: RandomSource, scores: list[int], epsilon: float,
                       sensitivity: int) -> int:
    """The exponential mechanism, exactly: index i with probability proportional to
    exp(ε·scores[i] / (2·sensitivity)), for integer scores whose sensitivity is
    ``sensitivity`` (same units). Rejection from uniform proposals: propose i uniformly
    (``randbelow``), accept with probability exp(-ε·(max - scores[i]) / (2·sensitivity))
    (an exact Bernoulli of a rational exponent); the accepted index has exactly the
    mechanism's distribution. At most ``len(scores)`` proposals are expected."""
    if not scores:
        raise ValueError("nothing to select from")
    from .mechanisms import bernoulli_exp  # the samplers (numpy), when a table is synthesised

    eps = exact_epsilon(epsilon)
    top = max(scores)
    den = eps.denominator * 2 * sensitivity
    while True:
        i = source.randbelow(len(scores))
        num = eps.numerator * (top - scores[i])
        if num == 0 or bernoulli_exp(source, num, den):
            return i


def preview_lines(p: SynthPreview) -> list[str]:
    """The preview in words, one line each (the command line's check; the app's pane): the
    sentences are ``support.words.synth_preview_lines``."""
    ones = [m for m in p.measurements if m.name.startswith("oneway:")]
    aim = next((m for m in p.measurements if m.name == ROUNDS_NAME), None)
    if aim is not None:  # AIM: its rounds in a line of their own
        lines = synth_preview_lines(len(ones), ones[0].sigma if ones else None, 0, None, None,
                                    p.expected_rows, p.one_way_error, p.two_way_error)
        return [*lines[:1], aim_rounds_line(aim.cells, aim.sigma, aim.epsilon,
                                            p.rounds_rho or 0.0, p.rho),
                *lines[1:]]
    twos = [m for m in p.measurements if m.name.startswith("twoway:")]
    rounds = [m for m in p.measurements if m.name.startswith("select:")]
    if twos and not rounds:  # two columns: their one pair, measured without a selection
        lines = synth_preview_lines(len(ones), ones[0].sigma if ones else None, 0, None, None,
                                    p.expected_rows, p.one_way_error, p.two_way_error)
        return [*lines[:1], synth_pair_line(twos[0].sigma), *lines[1:]]
    return synth_preview_lines(
        len(ones), ones[0].sigma if ones else None, len(rounds),
        rounds[0].epsilon if rounds else None, twos[0].sigma if twos else None,
        p.expected_rows, p.one_way_error, p.two_way_error)
