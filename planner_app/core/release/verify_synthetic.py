"""What ``verify`` checks of a synthetic table, from the bundle alone (no mbi needed):

* release.json's ``synthetic`` entry of each synthetic statistic: exactly its keys, the
  plan's method, columns, domain texts and source of rows, a seed in [0, SEED_BOUND) and the
  versions of mbi and jax that wrote the CSV; its marginals are the
  measurements the plan gives (names, columns, σ² as the plan computes them, one value per
  declared cell), its selected pairs form a tree over the columns (d - 1 pairs, no cycle),
  and each selected pair is the pair of its two-way marginal;
* results.csv's rows of the statistic are exactly those noised marginals with their stated
  intervals;
* synthetic/<id>.csv has exactly the declared columns, in order, every cell one of its
  column's declared values, and the number of rows the plan gives (or, without ``rows``,
  the rounded mean of the noised one-way totals, recomputed here).
"""

from __future__ import annotations

import csv
import io
import re
from fractions import Fraction
from typing import Any

from ..dp.accuracy import measurement_half_width
from ..dp.measure import measurements_for
from ..model import Plan, Query
from .synthetic import (
    PAYLOAD_KEYS,
    SEED_BOUND,
    SYNTH_DIR,
    SYNTHESIS_PACKAGES,
    domain_texts,
    noised_rows,
    rows_from,
)

MARGINAL_KEYS = frozenset({"name", "columns", "sigma_sq_steps", "values"})
VERSION = re.compile(r"[0-9A-Za-z][0-9A-Za-z.+!_-]{0,63}")


def synthetic_problems(files: dict[str, bytes], plan: Plan, record: dict[str, Any]) -> list[str]:
    problems: list[str] = []
    tables = record.get("synthetic", {})
    if not isinstance(tables, dict):
        return ["release.json: its synthetic entry is not an object"]
    ids = {q.id for q in plan.queries if q.kind == "synthetic"}
    if set(tables) != ids:
        problems.append("release.json: its synthetic tables are not the plan's")
    for name in sorted(files):
        if name.startswith(f"{SYNTH_DIR}/") and name[len(SYNTH_DIR) + 1:-4] not in ids:
            problems.append(f"{name}: a release of this plan never contains this file")
    for q in plan.queries:
        if q.kind == "synthetic" and isinstance(tables.get(q.id), dict):
            problems.extend(_one(files, plan, record, q, tables[q.id]))
    return problems


def _one(files: dict[str, bytes], plan: Plan, record: dict[str, Any], q: Query,
         payload: dict[str, Any]) -> list[str]:
    where = f"release.json: synthetic table {q.id!r}"
    cols = list(q.synth_columns or ())
    names = [c.column for c in cols]
    ms = {m.component.name: m for m in measurements_for(q, plan)}
    shape = _shape_problem(q, payload)
    if shape:
        return [f"{where}: {shape}"]
    marginals = list(payload["marginals"])
    selected = [tuple(p) for p in payload["selected"]]
    rows = payload["rows"]
    expected_names = [f"oneway:{n}" for n in names] + [f"twoway:{i}" for i in range(1, len(cols))]
    if [m.get("name") if isinstance(m, dict) else None for m in marginals] != expected_names:
        return [f"{where}: its marginals are not the measurements the plan gives"]
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
    if selected != pairs or not _is_tree(names, pairs):
        problems.append(f"{where}: its selected pairs are not a tree over the columns")
    results = [r for r in record["results"] if isinstance(r, dict) and r.get("query_id") == q.id]
    want = []
    for mg in marginals:
        hw = measurement_half_width(ms[mg["name"]], float(record["confidence"]))
        for v in mg["values"]:
            want.append((" × ".join(mg["columns"]), v, v - hw, v + hw))
    got = [(r.get("group"), r.get("value"), r.get("low"), r.get("high")) for r in results]
    if got != want:
        problems.append(f"results.csv: the rows of {q.id!r} are not its noised marginals")
    if q.rows is not None:
        want_rows = q.rows
    else:
        ones = [sum(mg["values"]) for mg in marginals if mg["name"].startswith("oneway:")]
        want_rows = noised_rows(q, ones)
    if rows != want_rows:
        problems.append(f"{where}: its {rows} rows are not the {want_rows} the plan and the "
                        "noised marginals give")
    problems.extend(_csv_problems(files, q, want_rows))
    return problems


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _shape_problem(q: Query, payload: dict[str, Any]) -> str | None:
    """What of the payload is not what the plan makes of it (None: nothing): exactly its
    keys; the plan's method, columns, domain texts and source of rows; whole-number rows; a
    seed in [0, SEED_BOUND); the versions of mbi and jax; each marginal exactly its keys, a
    text variance, and selected pairs as pairs of texts."""
    if set(payload) != PAYLOAD_KEYS:
        extra = sorted(set(payload) - PAYLOAD_KEYS)
        missing = sorted(PAYLOAD_KEYS - set(payload))
        return ("its keys are not a synthetic table's"
                + (f" (unexpected: {', '.join(map(str, extra))})" if extra else "")
                + (f" (missing: {', '.join(missing)})" if missing else ""))
    cols = list(q.synth_columns or ())
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
    if not isinstance(versions, dict) or set(versions) != set(SYNTHESIS_PACKAGES) \
            or not all(isinstance(v, str) and VERSION.fullmatch(v) for v in versions.values()):
        return f"its versions are not those of {' and '.join(SYNTHESIS_PACKAGES)}"
    marginals, selected = payload["marginals"], payload["selected"]
    if not isinstance(marginals, list) or not all(
            isinstance(m, dict) and set(m) == MARGINAL_KEYS
            and isinstance(m["sigma_sq_steps"], str) for m in marginals):
        return "its marginals are not the measurements the plan gives"
    if not isinstance(selected, list) or not all(
            isinstance(p, list) and len(p) == 2 and all(isinstance(c, str) for c in p)
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


def _csv_problems(files: dict[str, bytes], q: Query, rows: int) -> list[str]:
    name = f"{SYNTH_DIR}/{q.id}.csv"
    if name not in files:
        return [f"{name}: missing"]
    try:
        table = list(csv.reader(io.StringIO(files[name].decode("utf-8"))))
    except (UnicodeDecodeError, csv.Error):
        return [f"{name}: is not CSV text"]
    cols = list(q.synth_columns or ())
    if not table or table[0] != [c.column for c in cols]:
        return [f"{name}: its header is not the declared columns "
                f"({', '.join(c.column for c in cols)})"]
    allowed = [set(domain_texts(c)) for c in cols]
    for n, row in enumerate(table[1:], start=2):
        if len(row) != len(cols):
            return [f"{name}: line {n}: has {len(row)} cells, not {len(cols)}"]
        for k, cell in enumerate(row):
            if cell not in allowed[k]:
                return [f"{name}: line {n}: {cell!r} is not a declared value of "
                        f"{cols[k].column}"]
    if len(table) - 1 != rows:
        return [f"{name}: has {len(table) - 1} rows, not {rows}"]
    return []
