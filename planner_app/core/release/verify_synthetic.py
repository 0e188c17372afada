"""What ``verify`` checks of a synthetic table, from the bundle alone (no mbi needed):

* release.json's ``synthetic`` entry of each synthetic statistic: exactly its keys, the
  plan's method, columns, domain texts and source of rows, a seed in [0, SEED_BOUND) and the
  versions of mbi, jax, numpy and the app's synthesis code that wrote the CSV; its
  marginals are the
  measurements the plan gives (names, columns, σ² as the plan computes them, one value per
  declared cell), its selected pairs form a tree over the columns (d - 1 pairs, no cycle),
  and each selected pair is the pair of its two-way marginal;
* results.csv's rows of the statistic are exactly those noised marginals with their stated
  intervals;
* synthetic/<id>.csv has exactly the declared columns, in order, every cell one of its
  column's declared values written as the release writes them (formula-escaped as in
  results.csv: ``synthetic.csv_texts``; a raw "=..." or "@..." cell is refused), and the
  number of rows the plan gives (or, without ``rows``, the rounded mean of the noised one-way
  totals, recomputed here);
* with counts clamped at 0 (release --clamp-counts), no published marginal count is below 0.

And, as information rather than a check (``SyntheticFit``): how far the rows are from each
released noised marginal, the total variation distance between the marginal counted from
the CSV and the released counts with negatives clipped at 0, normalised. No bound holds for
every genuine bundle (the fit and the noise set it), so a large TVD never fails verify.

Opt-in (``regenerate_synthetic``, ``verify --regenerate``): with mbi, jax, numpy and the
app's synthesis code at the recorded versions, the CSV is made again from the released
marginals and the recorded seed and compared byte for byte; a table that could not be
regenerated is marked so (``regenerated`` false and its reason, in Verdict.synthetic), and
``verify --regenerate`` then says "not regenerated: ..." and exits 5.
"""

from __future__ import annotations

import csv
import io
import re
from array import array
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from ..dp.accuracy import measurement_half_width
from ..kinds import kind_of
from ..kinds.params import synth_columns_of, synth_rows_of
from ..kinds.shared_dp import measurements_for
from ..model import Plan, Query
from ..support.progress import Progress
from ..support.progress import report as report_progress
from .result_columns import tables_of
from .synthetic import (
    AIM_PAYLOAD_KEYS,
    CLAMPED_NOTE,
    PAYLOAD_KEYS,
    SEED_BOUND,
    SYNTH_DIR,
    SYNTH_NOTE,
    VERSION_KEYS,
    csv_header,
    csv_texts,
    domain_texts,
    marginal_cells,
    noised_rows,
    round_of,
    rows_from,
    synthesis_versions,
    synthetic_csv,
    total_variation,
)
from .verify_aim import aim_rounds_problem, round_measurements

MARGINAL_KEYS = frozenset({"name", "columns", "sigma_sq_steps", "values"})
VERSION = re.compile(r"[0-9A-Za-z][0-9A-Za-z.+!_-]{0,63}")


@dataclass
class SyntheticFit:
    """What verify found of the synthetic tables: its problems, and for each table whose
    payload and CSV check, how far its rows are from each released noised marginal (TVD,
    information only) in plain values and sentences."""

    problems: list[str] = field(default_factory=list)
    #: {query id: {"csv": name, "marginals": [{"marginal", "columns", "tvd"}],
    #:  "information": [sentences]}}
    tables: dict[str, dict[str, Any]] = field(default_factory=dict)

    @property
    def information(self) -> list[str]:
        return [line for t in self.tables.values() for line in t["information"]]


def synthetic_problems(files: dict[str, bytes], plan: Plan, record: dict[str, Any]) -> list[str]:
    return check_synthetic(files, plan, record).problems


def synthetic_tvd(files: dict[str, bytes], plan: Plan, record: dict[str, Any]
                  ) -> dict[str, dict[str, Any]]:
    """Each checked synthetic table's TVD to its released noised marginals (SyntheticFit)."""
    return check_synthetic(files, plan, record).tables


def check_synthetic(files: dict[str, bytes], plan: Plan, record: dict[str, Any],
                    progress: Progress = None) -> SyntheticFit:
    """The synthetic tables checked, each CSV read once (its problems and its TVDs);
    ``progress(fraction, message)`` one step a table."""
    fit = SyntheticFit()
    problems = fit.problems
    tables = record.get("synthetic", {})
    if not isinstance(tables, dict):
        problems.append("release.json: its synthetic entry is not an object")
        return fit
    ids = {q.id for q in plan.queries if kind_of(q).makes_table}
    if set(tables) != ids:
        problems.append("release.json: its synthetic tables are not the plan's")
    for name in sorted(files):
        if name.startswith(f"{SYNTH_DIR}/") and name[len(SYNTH_DIR) + 1:-4] not in ids:
            problems.append(f"{name}: a release of this plan never contains this file")
    synthetic = [q for q in plan.queries if kind_of(q).makes_table]
    for q in plan.queries:
        if kind_of(q).makes_table and isinstance(tables.get(q.id), dict):
            i = synthetic.index(q)
            report_progress(progress, i / len(synthetic),
                            f"Checking synthetic table {i + 1} of {len(synthetic)} "
                            f"({q.title})…")
            found, codes = _one(files, plan, record, q, tables[q.id])
            problems.extend(found)
            if not found and codes is not None:
                fit.tables[q.id] = _tvd(q, tables[q.id], codes)
    return fit


def _one(files: dict[str, bytes], plan: Plan, record: dict[str, Any], q: Query,
         payload: dict[str, Any]) -> tuple[list[str], list[np.ndarray] | None]:
    """A table's problems, and its CSV's cells as value indices (None: not read)."""
    found = _payload_problems(plan, record, q, payload)
    if isinstance(found, list):
        return found, None
    problems, want_rows = found
    csv_problem, codes = _read_csv(files, q, want_rows)
    if csv_problem:
        problems.append(csv_problem)
    return problems, codes


def _payload_problems(plan: Plan, record: dict[str, Any], q: Query, payload: dict[str, Any]
                      ) -> list[str] | tuple[list[str], int]:
    """The payload's and results' problems, and the rows the CSV must have (a list alone:
    the payload cannot be read further)."""
    post = record.get("post_processing")
    clamped = isinstance(post, dict) and post.get("clamp_counts_at_zero") is True
    found = payload_problems(plan, q, payload, clamped)
    if isinstance(found, list):
        return found
    problems, want_rows = found
    ms = {m.component.name: m for m in measurements_for(q, plan)}
    if q.mechanism == "aim":
        ms.update(round_measurements(plan, q, payload))
    problem = _result_rows_problem(record, q, list(payload["marginals"]), ms, clamped)
    return ([problem] if problem else []) + problems, want_rows


def payload_problems(plan: Plan, q: Query, payload: dict[str, Any], clamped: bool,
                     where: str | None = None) -> list[str] | tuple[list[str], int]:
    """A synthetic payload's own problems against the plan (its keys, domains, marginals'
    shapes and noise, pairs forming a tree, totals and rows), and the rows the CSV must have
    (a list alone: the payload cannot be read further). verify runs it on a bundle's
    payload; the dry run before the charge on the payload the release's code drew from a
    stand-in source, so a defect in it is refused while nothing is charged."""
    where = where or f"release.json: synthetic table {q.id!r}"
    cols = list(synth_columns_of(q))
    names = [c.column for c in cols]
    ms = {m.component.name: m for m in measurements_for(q, plan)}
    shape = _shape_problem(q, payload)
    if shape:
        return [f"{where}: {shape}"]
    marginals = list(payload["marginals"])
    selected = [tuple(p) for p in payload["selected"]]
    rows = payload["rows"]
    aim = q.mechanism == "aim"
    expected_names = [f"oneway:{n}" for n in names] + (
        [f"round:{t}" for t in range(1, len(marginals) - len(cols) + 1)] if aim else
        [f"twoway:{i}" for i in range(1, len(cols))])
    if [m.get("name") if isinstance(m, dict) else None for m in marginals] != expected_names:
        return [f"{where}: its marginals are not the measurements the plan gives"]
    if aim:
        rounds = aim_rounds_problem(plan, q, payload)
        if rounds:
            return [f"{where}: {rounds}"]
        ms = {**ms, **round_measurements(plan, q, payload)}
    size = {c.column: c.size for c in cols}
    for mg in marginals:
        m = ms[mg["name"]]
        columns = mg.get("columns")
        if not isinstance(columns, list) or not all(c in size for c in columns):
            return [f"{where}: marginal {mg['name']} names undeclared columns"]
        cells = 1
        for c in columns:
            cells *= size[c]
        values = mg.get("values")
        if not isinstance(values, list) or len(values) != cells \
                or not all(isinstance(v, int) and not isinstance(v, bool) for v in values):
            return [f"{where}: marginal {mg['name']} does not hold one whole number a cell"]
        try:
            stated = Fraction(str(mg.get("sigma_sq_steps")))
        except (ValueError, ZeroDivisionError):
            return [f"{where}: marginal {mg['name']} has no noise variance"]
        if stated != m.sigma_sq:
            return [f"{where}: marginal {mg['name']}'s noise is not the plan's"]
    problems: list[str] = []
    pairs = [tuple(mg["columns"]) for mg in marginals if mg["name"].startswith("twoway:")]
    if not aim and (selected != pairs or not _is_tree(names, pairs)):
        problems.append(f"{where}: its selected pairs are not a tree over the columns")
    # each one-way total as drawn: the sum of its counts, or, clamped, at most that sum
    totals = payload["one_way_totals"]
    ones = [sum(mg["values"]) for mg in marginals if mg["name"].startswith("oneway:")]
    if not isinstance(totals, list) or len(totals) != len(ones) \
            or not all(_is_int(t) for t in totals) \
            or not all(t <= s if clamped else t == s for t, s in zip(totals, ones, strict=True)):
        problems.append(f"{where}: its one_way_totals are not the totals of its noised "
                        "one-way marginals" + (" before the clamp" if clamped else ""))
        totals = ones
    planned = synth_rows_of(q)
    want_rows = planned if planned is not None else noised_rows(q, totals)
    if rows != want_rows:
        problems.append(f"{where}: its {rows} rows are not the {want_rows} the plan and the "
                        "noised marginals give")
    if clamped:
        below = next((mg["name"] for mg in marginals if min(mg["values"]) < 0), None)
        if below is not None:
            problems.append(f"{where}: marginal {below} has a count below 0, though the "
                            "release shows negative counts as 0 (clamp_counts_at_zero)")
    return problems, want_rows


def _result_rows_problem(record: dict[str, Any], q: Query, marginals: list[dict[str, Any]],
                         ms: dict[str, Any], clamped: bool) -> str | None:
    """The table's result rows rebuilt from its payload and the plan, every published field
    compared (statistic, label, group, cell, value, interval, confidence, mechanism, note):
    None when they are exactly those. A note says "clamped" only of a 0 of a clamped
    release (a count drawn as 0 and one drawn below it look alike once clamped)."""
    confidence = record["confidence"]
    want: list[tuple[Any, ...]] = []
    for mg in marginals:
        hw = measurement_half_width(ms[mg["name"]], float(confidence))
        group, keys = marginal_cells(q, mg["columns"], round_of(mg["name"]))
        for key, v in zip(keys, mg["values"], strict=True):
            want.append((q.id, q.title, group, key, v, v - hw, v + hw, confidence, "gaussian"))
    table = tables_of(record).get(q.id)
    results = table.rows() if table is not None else []
    fields = ("query_id", "label", "group", "cell", "value", "low", "high", "confidence",
              "mechanism")
    got = [tuple(r.get(k) for k in fields) for r in results]
    where = f"results.csv: the rows of {q.id!r}"
    if [tuple(type(x) for x in row) for row in got] != [tuple(type(x) for x in row)
                                                       for row in want] or got != want:
        return f"{where} are not its noised marginals (group, cell, value, interval, label)"
    for r in results:
        note = r.get("note")
        if note != SYNTH_NOTE and not (clamped and r.get("value") == 0 and note == CLAMPED_NOTE):
            return (f"{where}: the note of {r.get('group')} {r.get('cell')!r} is not what the "
                    f"release writes ({SYNTH_NOTE!r}"
                    + (f", or {CLAMPED_NOTE!r} for a count shown as 0" if clamped else "")
                    + ")")
    return None


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _shape_problem(q: Query, payload: dict[str, Any]) -> str | None:
    """What of the payload is not what the plan makes of it (None: nothing): exactly its
    keys; the plan's method, columns, domain texts and source of rows; whole-number rows; a
    seed in [0, SEED_BOUND); the versions of mbi, jax, numpy and the app's synthesis code;
    each marginal exactly its keys, a text variance, and selected pairs as pairs of texts."""
    keys = AIM_PAYLOAD_KEYS if q.mechanism == "aim" else PAYLOAD_KEYS
    if set(payload) != keys:
        extra = sorted(set(payload) - keys)
        missing = sorted(keys - set(payload))
        return ("its keys are not a synthetic table's"
                + (f" (unexpected: {', '.join(map(str, extra))})" if extra else "")
                + (f" (missing: {', '.join(missing)})" if missing else ""))
    cols = list(synth_columns_of(q))
    if payload["method"] != q.mechanism:
        return f"its method is not the plan's {q.mechanism!r}"
    if payload["columns"] != [c.column for c in cols]:
        return "its columns are not the plan's"
    if payload["domains"] != [domain_texts(c) for c in cols]:
        return "its domains are not the plan's declared values"
    if payload["rows_from"] != rows_from(q):
        return f"its rows_from is not {rows_from(q)!r}, as the plan gives"
    if not _is_int(payload["rows"]) or payload["rows"] < 1:
        return "its rows are not a whole number of at least 1"
    seed = payload["seed"]
    if not _is_int(seed) or not 0 <= seed < SEED_BOUND:
        return f"its seed is not a whole number in [0, {SEED_BOUND:,})"
    versions = payload["versions"]
    if not isinstance(versions, dict) or set(versions) != set(VERSION_KEYS) \
            or not all(isinstance(v, str) and VERSION.fullmatch(v) for v in versions.values()):
        return f"its versions are not those of {', '.join(VERSION_KEYS)}"
    marginals, selected = payload["marginals"], payload["selected"]
    if not isinstance(marginals, list) or not all(
            isinstance(m, dict) and set(m) == MARGINAL_KEYS
            and isinstance(m["sigma_sq_steps"], str) for m in marginals):
        return "its marginals are not the measurements the plan gives"
    width = (1, 2, 3) if q.mechanism == "aim" else (2,)  # AIM's rounds: 1 to 3 columns
    if not isinstance(selected, list) or not all(
            isinstance(p, list) and len(p) in width and all(isinstance(c, str) for c in p)
            for p in selected):
        return "its selected pairs are not pairs of columns"
    return None


def _is_tree(names: list[str], pairs: list[tuple[Any, ...]]) -> bool:
    if len(pairs) != len(names) - 1:
        return False
    parent = {n: n for n in names}

    def root(n: str) -> str:
        while parent[n] != n:
            n = parent[n]
        return n

    for pair in pairs:
        if len(pair) != 2 or pair[0] not in parent or pair[1] not in parent:
            return False
        a, b = root(pair[0]), root(pair[1])
        if a == b:
            return False
        parent[a] = b
    return True


def _read_csv(files: dict[str, bytes], q: Query, rows: int
              ) -> tuple[str | None, list[np.ndarray] | None]:
    """synthetic/<id>.csv's first problem (None: none), and its cells as value indices, one
    array a column (None when it has a problem)."""
    name = f"{SYNTH_DIR}/{q.id}.csv"
    if name not in files:
        return f"{name}: missing", None
    try:
        table = csv.reader(io.StringIO(files[name].decode("utf-8")))
        header = next(table, None)
    except (UnicodeDecodeError, csv.Error):
        return f"{name}: is not CSV text", None
    cols = list(synth_columns_of(q))
    if header != csv_header(q):
        return (f"{name}: its header is not the declared columns "
                f"({', '.join(c.column for c in cols)})"), None
    lookup = [{t: v for v, t in enumerate(csv_texts(c))} for c in cols]
    codes = [array("H") for _ in cols]  # a column has at most MAX_SYNTH_VALUES values
    n = 1
    try:
        for n, row in enumerate(table, start=2):
            if len(row) != len(cols):
                return f"{name}: line {n}: has {len(row)} cells, not {len(cols)}", None
            for k, cell in enumerate(row):
                code = lookup[k].get(cell)
                if code is None:
                    return (f"{name}: line {n}: {cell[:40]!r} is not a declared value of "
                            f"{cols[k].column} as the release writes it"), None
                codes[k].append(code)
    except csv.Error:
        return f"{name}: line {n + 1}: is not CSV text", None
    if len(codes[0]) != rows:
        return f"{name}: has {len(codes[0])} rows, not {rows}", None
    return None, [np.frombuffer(c, dtype=np.uint16).astype(np.int64) for c in codes]


def _tvd(q: Query, payload: dict[str, Any], codes: list[np.ndarray]) -> dict[str, Any]:
    """TVD between each released noised marginal (negatives clipped at 0, normalised) and the
    same marginal counted from the CSV (``codes``), with the sentences that say it."""
    cols = list(synth_columns_of(q))
    index = {c.column: k for k, c in enumerate(cols)}
    rows = int(codes[0].size)
    out = []
    for mg in payload["marginals"]:
        names = list(mg["columns"])
        flat = np.zeros(rows, dtype=np.int64)
        cells = 1
        for n in names:
            size = cols[index[n]].size
            flat = flat * size + codes[index[n]]
            cells *= size
        counted = np.bincount(flat, minlength=cells)
        released = np.clip(np.asarray(mg["values"], dtype=np.int64), 0, None)
        out.append({"marginal": " × ".join(names), "columns": names,
                    "tvd": total_variation(released, counted)})
    return {"csv": f"{SYNTH_DIR}/{q.id}.csv", "marginals": out,
            "information": tvd_sentences(q.id, out, q.label)}


def tvd_sentences(qid: str, marginals: list[dict[str, Any]],
                  label: str | None = None) -> list[str]:
    """What verify and the bundle viewer say of a table's TVDs (information, not a check);
    the table named by its id, and its label when it has one."""
    name = f"{qid!r}" + (f" (“{label}”)" if label and label != qid else "")
    how = ("each marginal counted from the CSV against its released noised counts, negatives "
           "clipped at 0 and normalised; information, not a pass/fail check")
    worst = max(marginals, key=lambda m: m["tvd"])
    mean = sum(m["tvd"] for m in marginals) / len(marginals)
    return [f"synthetic table {name}: {worst['marginal']}: TVD {worst['tvd']:.3f} to the "
            f"released noised marginal (the largest of {len(marginals)}; mean {mean:.3f}; "
            f"{how})",
            f"synthetic table {name}, TVD of each marginal to its released noised counts: "
            + "; ".join(f"{m['marginal']} {m['tvd']:.3f}" for m in marginals)]


# ----------------------------------------------------------------------------- regenerate


def regenerate_synthetic(files: dict[str, bytes], plan: Plan, record: dict[str, Any],
                         progress: Progress = None
                         ) -> tuple[list[str], list[str], dict[str, dict[str, Any]]]:
    """Each synthetic CSV made again from the released marginals and the recorded seed
    (``synthetic.synthetic_csv``, post-processing of public values) and compared byte for
    byte, when every recorded version (mbi, jax, numpy, the app's synthesis code) is the one
    installed here. Returns the checks passed, the problems, and each table's outcome
    ({query id: {"regenerated": bool, "reason": why not, or None}}: a table not regenerated
    was not checked against its marginals and seed, and ``verify --regenerate`` says so and
    exits 5). Call it on a bundle whose synthetic tables passed ``check_synthetic``.
    ``progress(fraction, message)``: one step a table."""
    checks: list[str] = []
    problems: list[str] = []
    outcome: dict[str, dict[str, Any]] = {}
    here = synthesis_versions()
    tables = record.get("synthetic") or {}
    synthetic = [q for q in plan.queries if kind_of(q).makes_table]
    for q in plan.queries:
        if not kind_of(q).makes_table or not isinstance(tables.get(q.id), dict):
            continue
        name = f"{SYNTH_DIR}/{q.id}.csv"
        i = synthetic.index(q)
        report_progress(progress, i / len(synthetic),
                        f"Regenerating synthetic table {i + 1} of {len(synthetic)} "
                        f"({q.title}) from its noised marginals…")
        payload = tables[q.id]
        recorded = payload.get("versions") or {}
        differ = [f"{p} {here[p]} here, {recorded.get(p)} recorded" for p in VERSION_KEYS
                  if here[p] != recorded.get(p)]
        if differ:
            outcome[q.id] = {"regenerated": False, "reason": "; ".join(differ)}
            continue
        try:
            made = synthetic_csv(q, payload)
        except Exception as exc:  # the post-processing failing here says nothing of the bundle
            outcome[q.id] = {"regenerated": False,
                             "reason": f"regenerating it failed here ({type(exc).__name__})"}
            continue
        outcome[q.id] = {"regenerated": True, "reason": None}
        versions = ", ".join(f"{p} {here[p]}" for p in VERSION_KEYS)
        if made == files.get(name):
            checks.append(f"{name} is byte for byte what {versions} make of its released "
                          "noised marginals and recorded seed (regenerated here)")
        else:
            got = (files.get(name) or b"").split(b"\n")
            want = made.split(b"\n")
            line = next((i for i, (a, b) in enumerate(zip(got, want, strict=False), start=1)
                         if a != b), min(len(got), len(want)) + 1)
            problems.append(f"{name}: line {line}: is not what {versions} make of its released "
                            "noised marginals and recorded seed (regenerated here; the fit is "
                            "floating point, so a machine of another kind could differ)")
    return checks, problems, outcome


def not_regenerated_lines(synthetic: dict[str, Any]) -> list[str]:
    """One line a table that ``verify --regenerate`` did not regenerate (Verdict.synthetic's
    ``regenerated`` false), saying why."""
    return [f"not regenerated: {t.get('csv', f'{SYNTH_DIR}/{qid}.csv')}: {t.get('reason')} "
            "(so not checked against its marginals and seed)"
            for qid, t in sorted(synthetic.items()) if t.get("regenerated") is False]
