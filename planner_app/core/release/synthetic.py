"""A synthetic table's release: the measurements (noise, once, from the release's source),
then the post-processing into rows.

``measure_synthetic`` runs after the charge, inside the noise step: the one-way marginals get
exact discrete Gaussian noise, the exact exponential mechanism selects the pairs (dp/
synthetic.py), the selected two-way marginals get their noise, and a seed for the sampling
is drawn. What it returns (the ``payload``: noised marginals, selected pairs, the number of
rows, the seed) is saved in the pending record before anything else, so the bundle can be
written, or written again by ``release --resume``, without new noise.

``synthetic_csv`` is pure post-processing of that payload: Private-PGM (the optional
package ``mbi``, with JAX) estimates a graphical model from the noised marginals, and
``tree_sample`` draws ``rows`` rows from it (MST's model is a tree) with the payload's seed.
Nothing in it reads the data.
"""

from __future__ import annotations

import csv
import io
import itertools
import math
import warnings
from fractions import Fraction
from importlib.metadata import PackageNotFoundError, version
from typing import Any

import numpy as np

from ..dp.accuracy import measurement_half_width
from ..dp.measure import Measurement
from ..dp.mechanisms import RandomSource, discrete_gaussian
from ..dp.sensitivity import Component
from ..dp.synthetic import SCORE_UNITS, exponential_select
from ..kinds import kind_of
from ..kinds.params import synth_columns_of, synth_rows_of
from ..kinds.results import Aggregate
from ..kinds.synthetic import cell_text, row_cap, written_texts
from ..model import Query, SynthColumn
from ..support.errors import InputError
from ..support.optional import mbi_problem
from ..support.words import (
    SYNTH_CLAMPED,
    SYNTH_REPORT_ABOUT,
    aim_round_group,
    synth_table_words,
)
from .bundle import safe_cell
from .synthetic_sample import mbi_sample, rounded_counts, tree_sample

__all__ = ["rounded_counts", "tree_sample"]  # the samplers live in synthetic_sample.py

SYNTH_DIR = "synthetic"
ESTIMATION_ITERS = 1000
#: The version of this module's synthesis (ESTIMATION_ITERS, synthetic_codes, tree_sample,
#: rounded_counts), recorded in each payload's ``versions``: bump it whenever the rows drawn
#: from the same payload would change, so verify --regenerate never compares across it.
SYNTHESIS_CODE = "2"
SEED_BOUND = 1 << 31


def domain_texts(c: SynthColumn) -> list[str]:
    """The texts a column's cells may hold in the synthetic CSV, in declared order."""
    return [cell_text(v) for v in c.labels()]


def csv_texts(c: SynthColumn) -> list[str]:
    """The texts a column's cells hold in synthetic/<id>.csv, in declared order: its domain
    texts with the formula escaping of results.csv (``bundle.safe_cell``: a text a
    spreadsheet would run as a formula, such as "=HYPERLINK(...)" or "@x", gets a leading
    quote; a number such as "+1" is kept). Verify accepts exactly these texts. The plan's
    validation keeps them distinct (kinds/synthetic.py, _escape_problem)."""
    return written_texts(c)


def csv_header(query: Query) -> list[str]:
    """synthetic/<id>.csv's header: the declared column names, escaped as the cells are."""
    return [safe_cell(c.column) for c in synth_columns_of(query)]


def require_synthesis(plan_queries: Any) -> None:
    """Refuse, before any charge, a plan with a synthetic table when mbi is missing (two
    declared values or column names written as one text are refused by the plan itself:
    kinds/synthetic.py, _escape_problem)."""
    for q in plan_queries:
        if kind_of(q).makes_table:
            problem = mbi_problem()
            if problem is not None:
                raise InputError("plan", f"queries[{q.id}].kind", problem)


# ----------------------------------------------------------------------------- measurement


def _noised(true: np.ndarray, m: Measurement, source: RandomSource) -> np.ndarray:
    assert m.sigma_sq is not None
    noise = np.asarray(discrete_gaussian(source, m.sigma_sq, true.size), dtype=np.int64)
    out: np.ndarray = np.asarray(true, dtype=np.int64) + noise
    return out


def _independent_estimate(noisy_one: list[np.ndarray]) -> tuple[list[np.ndarray], float]:
    """Each column's share of rows from its noised counts (negatives to 0; all 0: even), and
    the rows (the mean of the noised totals, at least 1). Post-processing only."""
    shares = []
    for v in noisy_one:
        pos = np.clip(v.astype(np.float64), 0, None)
        total = pos.sum()
        shares.append(pos / total if total > 0 else np.full(v.size, 1.0 / v.size))
    rows = max(1.0, float(np.mean([float(v.sum()) for v in noisy_one])))
    return shares, rows


def noised_rows(query: Query, one_way_totals: list[int]) -> int:
    """Rows of a table without ``rows``: the rounded mean of its noised one-way totals, at
    least 1 and at most the columns' row cap (kinds/synthetic.py, row_cap). Verify recomputes it."""
    mean = sum(one_way_totals) / max(1, len(one_way_totals))
    return min(row_cap(synth_columns_of(query)), max(1, round(max(1.0, mean))))


def pair_score(true_pair: np.ndarray, share_a: np.ndarray, share_b: np.ndarray,
               rows: float) -> int:
    """A pair's score, in 2^-10 rows: the L1 distance between its true counts and the
    independent estimate rows·share_a⊗share_b (rounded to 2^-10 first, so the sum is exact
    integer arithmetic and moves by at most the marginal's L1 sensitivity times 2^10)."""
    estimate = np.rint(np.outer(share_a, share_b).reshape(-1) * rows * SCORE_UNITS)
    diff = np.abs(true_pair.astype(np.int64) * SCORE_UNITS - estimate.astype(np.int64))
    # exact in int64: the sum is at most (true rows + estimated rows) · 2^10, far below 2^63
    return int(diff.sum(dtype=np.int64))


SYNTH_NOTE = "noised marginal"
CLAMPED_NOTE = "noised marginal, clamped at 0 (post-processing)"


def measure_synthetic(query: Query, aggregate: Aggregate, ms: list[Measurement],
                      source: RandomSource, confidence: float, clamp_counts: bool = False
                      ) -> tuple[list[tuple[str, Any, int, int, str]], dict[str, Any]]:
    """The noise of a synthetic table, drawn once. Returns the released marginal cells
    (marginal, cell, value, half-width, note) and the payload saved with the record. With
    ``clamp_counts`` (release --clamp-counts) every published marginal count below 0 is
    shown as 0, in the payload as in the results (post-processing, after every draw: the
    selection scores the noised counts as drawn), and the rows are fitted to the counts as
    published, so a recipient compares the table with the very counts shown. The number of
    rows (without ``rows``) comes from the one-way totals as drawn, clamped or not
    (``one_way_totals`` in the payload, so verify recomputes it)."""
    cols = list(synth_columns_of(query))
    by_name = {m.component.name: m for m in ms}
    marginals: list[dict[str, Any]] = []
    noisy_one: list[np.ndarray] = []
    raw: list[np.ndarray] = []  # every marginal as drawn, for the notes of clamped cells
    for c in cols:
        m = by_name[f"oneway:{c.column}"]
        noisy = _noised(aggregate.parts[f"oneway:{c.column}"], m, source)
        noisy_one.append(noisy)
        raw.append(noisy)
        marginals.append({"name": m.component.name, "columns": [c.column],
                          "sigma_sq_steps": str(m.sigma_sq),
                          "values": _published(noisy, clamp_counts)})
    shares, rows_estimate = _independent_estimate(noisy_one)
    selected: list[list[str]] = []
    parent = list(range(len(cols)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    scores: dict[tuple[int, int], int] = {}
    for i in range(len(cols)):
        for j in range(i + 1, len(cols)):
            scores[(i, j)] = pair_score(aggregate.parts[f"pair:{i}:{j}"], shares[i], shares[j],
                                        rows_estimate)
    for r in range(1, len(cols)):
        sel = by_name.get(f"select:{r}")
        candidates = [p for p in scores if root(p[0]) != root(p[1])]
        if sel is None:  # two columns: the one pair, the only candidate (no selection round)
            assert len(candidates) == 1
            pick = candidates[0]
        else:
            pick = candidates[exponential_select(
                source, [scores[p] for p in candidates], sel.epsilon,
                sel.component.l1 * SCORE_UNITS)]
        parent[root(pick[0])] = root(pick[1])
        i, j = pick
        m = by_name[f"twoway:{r}"]
        noisy = _noised(aggregate.parts[f"pair:{i}:{j}"], m, source)
        selected.append([cols[i].column, cols[j].column])
        raw.append(noisy)
        marginals.append({"name": m.component.name, "columns": [cols[i].column, cols[j].column],
                          "sigma_sq_steps": str(m.sigma_sq),
                          "values": _published(noisy, clamp_counts)})
    # the rows from the one-way totals as drawn, never as clamped (a clamp shows each
    # negative count as 0, so its totals would add rows); published, so verify recomputes
    totals = [int(v.sum()) for v in noisy_one]
    planned = synth_rows_of(query)
    rows = planned if planned is not None else noised_rows(query, totals)
    seed = source.randbelow(SEED_BOUND)
    payload = {"method": query.mechanism, "columns": [c.column for c in cols],
               "domains": [domain_texts(c) for c in cols], "marginals": marginals,
               "one_way_totals": totals,
               "selected": selected, "rows": int(rows),
               "rows_from": rows_from(query),
               "seed": int(seed), "versions": synthesis_versions()}
    cells: list[tuple[str, Any, int, int, str]] = []
    for mg, drawn in zip(marginals, raw, strict=True):
        hw = measurement_half_width(by_name[mg["name"]], confidence)
        label, keys = marginal_cells(query, mg["columns"])
        for key, value, was in zip(keys, mg["values"], drawn.tolist(), strict=True):
            cells.append((label, key, int(value), hw,
                          CLAMPED_NOTE if was < 0 and clamp_counts else SYNTH_NOTE))
    return cells, payload


def marginal_cells(query: Query, names: list[str], round_no: int | None = None
                   ) -> tuple[str, list[str]]:
    """A released marginal's group in results.csv ("region", "region × age", with AIM also
    "region × age × smoker") and its cells in order ("North", "North | [16, 25)"), row-major,
    as the release writes them and verify rebuilds them."""
    by_column = {c.column: c for c in synth_columns_of(query)}
    texts = [domain_texts(by_column[n]) for n in names]
    group = " × ".join(names)
    if round_no is not None:  # AIM's round t: "region (AIM round 5)"
        group = aim_round_group(group, round_no)
    if len(names) == 1:
        return group, texts[0]
    return group, [" | ".join(x) for x in itertools.product(*texts)]


def round_of(name: str) -> int | None:
    """AIM's round number of a marginal named ``round:t`` (None: another marginal)."""
    kind, _, rest = name.partition(":")
    return int(rest) if kind == "round" and rest.isdigit() else None


def round_measurement(query_id: str, t: int, l1: int, l2_sq: int, cells: int,
                      sigma_sq: Fraction) -> Measurement:
    """AIM's round ``t`` measurement as a Measurement (for its interval: the rounds' ρ is
    accounted once, as the plan's ``rounds`` measurement)."""
    comp = Component(name=f"round:{t}", step=1.0, l1=l1, l2_sq=l2_sq, cells=cells,
                     single_cell=False, derivation=f"AIM's round {t}")
    return Measurement(query_id, comp, "gaussian", 0.0, 0.0, sigma_sq=sigma_sq)


def _published(noisy: np.ndarray, clamp_counts: bool) -> list[int]:
    """A marginal's counts as published: as drawn, or with --clamp-counts below 0 shown as 0."""
    values = np.maximum(noisy, 0) if clamp_counts else noisy
    return [int(x) for x in values.tolist()]


def likely_tree(query: Query, aggregate: Aggregate) -> list[tuple[int, int]]:
    """The pairs the selection is most likely to choose: the pairs' scores taken at the true
    one-way counts (the noised ones the release scores with are centred on them), then each
    round's highest-scoring pair that joins two parts of the tree (the mechanism's mode round
    by round; ties to the first pair, as ``measure_synthetic`` lists them). For the dry run
    only: it never publishes."""
    cols = list(synth_columns_of(query))
    shares, rows_estimate = _independent_estimate(
        [np.asarray(aggregate.parts[f"oneway:{c.column}"]) for c in cols])
    scores = {(i, j): pair_score(aggregate.parts[f"pair:{i}:{j}"], shares[i], shares[j],
                                 rows_estimate)
              for i in range(len(cols)) for j in range(i + 1, len(cols))}
    parent = list(range(len(cols)))

    def root(i: int) -> int:
        while parent[i] != i:
            i = parent[i]
        return i

    chosen = []
    for p in sorted(scores, key=lambda p: -scores[p]):  # stable: ties keep the listed order
        if root(p[0]) != root(p[1]):
            parent[root(p[0])] = root(p[1])
            chosen.append(p)
    return chosen


def dry_run_payload(query: Query, aggregate: Aggregate, payload: dict[str, Any],
                    source: RandomSource, clamp_counts: bool = False) -> dict[str, Any]:
    """The dry run's payload for the synthesis before the charge: ``payload`` (drawn by
    ``measure_synthetic`` from a stand-in source) with its pairs replaced by ``likely_tree``'s
    and their two-way marginals noised by the same sampler at the same σ (and clamped as
    the release clamps them). The payload as drawn is checked before it, as verify checks
    a bundle's (``verify_synthetic.payload_problems``).

    Why: JAX compiles the estimation for the chosen pairs (the model's cliques), and reuses the
    compilation in the same process only for the same pairs. The stand-in's pairs are a
    random draw; the likeliest pairs are the real release's more often, and then the synthesis
    after the charge compiles nothing. The check is the same: the same code on a payload of the
    same shape (one tree of the columns' pairs), which is thrown away."""
    cols = list(synth_columns_of(query))
    ones = [mg for mg in payload["marginals"] if len(mg["columns"]) == 1]
    twos = [mg for mg in payload["marginals"] if len(mg["columns"]) == 2]
    if not twos or payload.get("method") == "aim":  # AIM's rounds are fitted as drawn
        return payload
    marginals = list(ones)
    for (i, j), old in zip(likely_tree(query, aggregate), twos, strict=True):
        true = np.asarray(aggregate.parts[f"pair:{i}:{j}"], dtype=np.int64)
        noise = discrete_gaussian(source, Fraction(old["sigma_sq_steps"]), true.size)
        values = true + np.asarray(noise, dtype=np.int64)
        marginals.append({**old, "columns": [cols[i].column, cols[j].column],
                          "values": _published(values, clamp_counts)})
    return {**payload, "marginals": marginals,
            "selected": [mg["columns"] for mg in marginals[len(ones):]]}


def placeholder_payload(query: Query) -> dict[str, Any]:
    """A payload of the query's shape with made-up numbers (the widest pairs, wide values):
    the report and the bundle's size are checked with it before the charge."""
    cols = list(synth_columns_of(query))
    wide = -888_888_888_888
    marginals: list[dict[str, Any]] = [
        {"name": f"oneway:{c.column}", "columns": [c.column], "sigma_sq_steps": "1",
         "values": [wide] * c.size} for c in cols]
    order = sorted(range(len(cols)), key=lambda k: -cols[k].size)
    selected = [[cols[order[0]].column, cols[k].column] for k in order[1:]]
    for r, (a, b) in enumerate(selected, start=1):
        cells = next(c.size for c in cols if c.column == a) * \
            next(c.size for c in cols if c.column == b)
        marginals.append({"name": f"twoway:{r}", "columns": [a, b], "sigma_sq_steps": "1",
                          "values": [wide] * cells})
    out = {"method": query.mechanism, "columns": [c.column for c in cols],
           "domains": [domain_texts(c) for c in cols], "marginals": marginals,
           "one_way_totals": [wide * c.size for c in cols],
           "selected": selected, "rows": synth_rows_of(query) or 1,
           "rows_from": rows_from(query),
           "seed": SEED_BOUND - 1, "versions": synthesis_versions()}
    if query.mechanism == "aim":  # its rounds: MST's pairs' shape, named as AIM's rounds
        for r, mg in enumerate(marginals[len(cols):], start=1):
            mg["name"] = f"round:{r}"
        out["rounds"] = [{"round": r, "columns": list(p), "epsilon": "1/3",
                          "sigma_sq_steps": "1", "rho": "1/3"}
                         for r, p in enumerate(selected, start=1)]
    return out


def csv_size_bound(query: Query) -> int:
    """The most bytes synthetic/<id>.csv can take, from public parameters only: the header
    plus the plan's rows (without them, the row cap) times the longest line the declared
    texts can make (each cell quoted with its quotes doubled, plus its separator)."""
    cols = list(synth_columns_of(query))

    def cell(text: str) -> int:
        return 2 * len(text.encode("utf-8")) + 3

    header = sum(cell(t) for t in csv_header(query))
    widest = sum(max(cell(t) for t in csv_texts(c)) for c in cols)
    planned = synth_rows_of(query)
    rows = planned if planned is not None else row_cap(tuple(cols))
    return header + rows * widest


#: The keys of release.json's ``synthetic.<id>``, no more, no fewer (verify_synthetic).
PAYLOAD_KEYS = frozenset({"method", "columns", "domains", "marginals", "one_way_totals",
                          "selected", "rows", "rows_from", "seed", "versions"})
#: An AIM table's: MST's and its rounds (each round's columns, ε, σ² and ρ)
AIM_PAYLOAD_KEYS = PAYLOAD_KEYS | {"rounds"}
#: The packages whose versions regenerate the CSV from the payload (public: post-processing).
SYNTHESIS_PACKAGES = ("mbi", "jax", "numpy")
#: The key of ``versions`` that names this app's synthesis code (SYNTHESIS_CODE).
SYNTHESIS_CODE_KEY = "planner_app synthesis"
#: Every key of a payload's ``versions``: the CSV is regenerated only when all match.
VERSION_KEYS = (*SYNTHESIS_PACKAGES, SYNTHESIS_CODE_KEY)


def rows_from(query: Query) -> str:
    """Where a synthetic table's number of rows comes from: the plan, or the noised totals."""
    return "plan" if synth_rows_of(query) is not None else "noised one-way marginals"


def synthesis_versions() -> dict[str, str]:
    """The installed versions of mbi, jax and numpy ("not installed" when one is missing: the
    dry run before the charge then refuses the synthesis anyway) and of this app's synthesis
    code (SYNTHESIS_CODE): what the CSV made from a payload depends on."""
    out = {}
    for name in SYNTHESIS_PACKAGES:
        try:
            out[name] = version(name)
        except PackageNotFoundError:
            out[name] = "not installed"
    out[SYNTHESIS_CODE_KEY] = SYNTHESIS_CODE
    return out


def total_variation(true: np.ndarray, synthetic: np.ndarray) -> float:
    """(1/2)·Σ|p − q| of the two count vectors normalised to shares (an empty side is
    uniform: nothing to compare with). The owner's comparison (synthetic_compare) and
    verify's measure against the released marginals (verify_synthetic) both use it."""
    p = np.asarray(true, dtype=np.float64)
    q = np.asarray(synthetic, dtype=np.float64)
    p = p / p.sum() if p.sum() > 0 else np.full(p.size, 1 / p.size)
    q = q / q.sum() if q.sum() > 0 else np.full(q.size, 1 / q.size)
    return float(0.5 * np.abs(p - q).sum())


# ----------------------------------------------------------------------------- synthesis


def _import_mbi() -> Any:
    with warnings.catch_warnings():  # mbi warns about JAX settings at import: set here
        warnings.simplefilter("ignore")
        import jax

        jax.config.update("jax_enable_x64", True)  # type: ignore[no-untyped-call]
        jax.config.update("jax_enable_compilation_cache", False)  # type: ignore[no-untyped-call]
        import mbi
    return mbi


def synthetic_codes(query: Query, payload: dict[str, Any]) -> np.ndarray:
    """The synthetic rows as value indices (rows × columns), from the payload alone: mbi's
    estimate from the noised marginals, then ``tree_sample`` with the payload's seed."""
    mbi = _import_mbi()
    cols = list(synth_columns_of(query))
    names = [c.column for c in cols]
    domain = mbi.Domain(names, [c.size for c in cols])
    measurements = []
    # the two-way marginals in the columns' order, not the selection's: JAX compiles the
    # estimation for the list of cliques in order, so the same pairs chosen in another order
    # reuse the compilation (the dry run's before the charge)
    position = {n: k for k, n in enumerate(names)}
    for mg in sorted(payload["marginals"], key=lambda mg: (
            len(mg["columns"]), [position.get(c, -1) for c in mg["columns"]])):
        sigma = math.sqrt(float(_fraction(mg["sigma_sq_steps"])))
        measurements.append(mbi.LinearMeasurement(
            np.asarray(mg["values"], dtype=np.float64), tuple(mg["columns"]), sigma))
    rows = int(payload["rows"])
    # the model is fitted at the noised counts' own scale (their one-way totals as drawn),
    # whatever the rows to draw: fitted to another total the fit collapses (300 rows asked of
    # a table of 3,800 drew every row from one value); tree_sample takes its shares
    totals = [float(t) for t in payload["one_way_totals"]]
    scale = max(1.0, sum(totals) / max(1, len(totals)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = mbi.estimation.MirrorDescent().estimate(
            domain, measurements, known_total=scale, iters=ESTIMATION_ITERS)

        def marginal(columns: tuple[str, ...]) -> np.ndarray:
            return np.asarray(model.project(columns).datavector(), dtype=np.float64)

        if payload.get("method") == "aim":  # AIM's model is any graph: mbi's own sampler
            return mbi_sample(model, names, rows, int(payload["seed"]))
        return tree_sample(names, [c.size for c in cols],
                           [(str(a), str(b)) for a, b in payload["selected"]], marginal, rows,
                           int(payload["seed"]))


def _fraction(text: str) -> float:
    return float(Fraction(text))


def synthetic_csv(query: Query, payload: dict[str, Any]) -> bytes:
    """synthetic/<id>.csv: a header of the declared columns, then the rows, each cell one of
    its column's declared values (a category, or a bin's label), formula-escaped as in
    results.csv (``csv_texts``)."""
    cols = list(synth_columns_of(query))
    codes = synthetic_codes(query, payload)
    texts = [csv_texts(c) for c in cols]
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(csv_header(query))
    for row in codes.tolist():
        writer.writerow([texts[k][v] for k, v in enumerate(row)])
    return buf.getvalue().encode("utf-8")


# ----------------------------------------------------------------------------- the report


def _rounds_words(table: dict[str, Any]) -> list[tuple[str, float]] | None:
    """AIM's rounds as the report lists them (each marginal and its ρ); None for MST."""
    rounds = table.get("rounds")
    if not isinstance(rounds, list):
        return None
    return [(" × ".join(map(str, r.get("columns", []))), float(Fraction(str(r.get("rho")))))
            for r in rounds if isinstance(r, dict)]


def synthetic_paragraphs(record: dict[str, Any]) -> list[str]:
    """The report's section on the release's synthetic tables (none: no section): what a
    synthetic table is and is not, and what was measured, from release.json alone (the
    sentences are ``support.words``')."""
    tables = record.get("synthetic") or {}
    if not isinstance(tables, dict) or not tables:
        return []
    out = [SYNTH_REPORT_ABOUT]
    post = record.get("post_processing")
    if isinstance(post, dict) and post.get("clamp_counts_at_zero") is True:
        out.append(SYNTH_CLAMPED)
    for qid, t in sorted(tables.items()):
        if not isinstance(t, dict):
            continue
        out.append(synth_table_words(qid, t.get("rows"), t.get("rows_from") == "plan",
                                     [str(c) for c in t.get("columns", [])],
                                     str(t.get("method", "")),
                                     [tuple(map(str, p)) for p in t.get("selected", [])],
                                     t.get("seed"), _rounds_words(t)))
    return out
