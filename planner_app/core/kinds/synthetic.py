"""The statistic kind ``synthetic`` (a differentially private synthetic table): reading its
columns with their public domains, the rows to generate, its ε and δ, and the method.

    {"id": "synth", "kind": "synthetic", "epsilon": 1.0, "delta": 1e-6, "method": "mst",
     "columns": [{"column": "region", "categories": ["north", "south"]},
                 {"column": "age", "bins": [0, 18, 40, 65, 120]}],
     "rows": 1000}

Every domain is declared (categories, or bin edges for a numeric column), never read from
the data. ``rows`` is optional: without it the synthetic table has as many rows as the noised
one-way marginals say (post-processing, no extra budget). docs/synthetic.md explains the
method and its split of the privacy budget.
"""

from __future__ import annotations

import math
from typing import Any

from ..dp.accounting import AIM_PLD_REFUSAL
from ..dp.accuracy import Accuracy, measurement_half_width
from ..dp.measure import Measurement
from ..dp.sensitivity import Component
from ..dp.synthetic import SynthPreview, preview, preview_lines, synthetic_measurements
from ..dp.synthetic_aim import aim_measurements
from ..dp.synthetic_sensitivity import synthetic_components
from ..model import Plan
from ..model.plan import MAX_EPSILON, PrivacyUnit, Query, SynthColumn
from ..model.reader import FieldReader, as_number
from ..model.rules import delta_problem, read_justification
from ..support.cells import formula_escaped
from .base import StatisticKind
from .params import SynthParams, params_of, synth_of
from .results import Aggregate, QueryRelease, ReleasedValue
from .shared_data import AggregateDescription, Marginals
from .shared_form import (
    COLUMN,
    DELTA,
    DOMAIN,
    MST_CITATION,
    SYNTH_COLUMNS,
    SYNTH_ROWS,
    WHOLE_TABLE,
    FormWords,
)
from .shared_release import NoiseDraw, column_domain, synthetic_noise_words
from .synthetic_workload import read_workload, workload_words


def params(query: Query) -> SynthParams:
    """The synthetic table's own fields, typed (shared_plan.SynthParams)."""
    return params_of(query, SynthParams)



def table_preview(query: Query, plan: Plan) -> SynthPreview:
    """Which marginals the synthetic table measures and their expected error, from the plan
    alone (dp/synthetic.py's ``preview`` of its columns and rows)."""
    p = params(query)
    return preview(query, plan, p.columns, p.rows)


MAX_SYNTH_COLUMNS = 32
MAX_SYNTH_VALUES = 1_000  # categories or bins of one column
MAX_PAIR_CELLS = 100_000  # cells of one two-way marginal
MAX_ALL_PAIR_CELLS = 5_000_000  # cells of all two-way marginals (the selection scores them all)
MAX_SYNTH_ROWS = 1_000_000
MAX_SYNTH_CSV_BYTES = 512 * 1024 * 1024  # synthetic/<id>.csv, well within what verify reads
BASIC_REFUSAL = ("a synthetic table's measurements compose in zCDP; use the zcdp or pld "
                 "accountant, or leave the accountant unset")


def id_column_problem(unit: PrivacyUnit, query: Query) -> tuple[str, str] | None:
    """(field, problem) when a synthetic table lists the person id column (a plan-level
    rule: it needs both the privacy unit and the query). Its made-up rows would carry the
    declared ids, and the id only groups a person's rows: it is never a value to model."""
    p = synth_of(query)
    if p is None or unit.kind != "person" or not unit.id_column:
        return None
    for i, c in enumerate(p.columns):
        if c.column == unit.id_column:
            return (f"queries[{query.id}].columns[{i}].column",
                    f"{c.column!r} is the id of a person (privacy_unit.id_column): a "
                    "synthetic table cannot include it")
    return None


_UNUSED = ("column", "lower", "upper", "categories", "bins", "quantile", "group_by", "where",
           "missing", "grid_step", "expected_count", "yes", "no")


def read_synthetic(r: FieldReader, qid: str, label: str) -> Query:
    """The fields of a synthetic table, checked in a fixed order (r.path names the query)."""
    for key in _UNUSED:
        if r.has(key):
            r.fail(key, "is not used by kind synthetic (declare each column's domain under "
                        "columns)")
    if r.has("mechanism"):
        r.fail("mechanism", 'is not used by kind synthetic; write "method": "mst" or "aim"')
    method = r.choice("method", Synthetic.mechanisms, default="mst")
    columns = _read_columns(r)
    pairs, triples = read_workload(r, method, columns)
    rows = r.integer("rows", required=False)
    if rows is not None and not 1 <= rows <= MAX_SYNTH_ROWS:
        r.fail("rows", f"must be between 1 and {MAX_SYNTH_ROWS:,}, not {rows:,}")
    cap = row_cap(columns)
    if rows is not None and rows > cap:
        r.fail("rows", f"{rows:,} rows of these columns would make a file larger than "
                       f"{MAX_SYNTH_CSV_BYTES // 2**20:,} MiB; at most {cap:,} rows")
    epsilon = r.number("epsilon")
    assert epsilon is not None
    if not 0 < epsilon <= MAX_EPSILON:
        r.fail("epsilon", f"must be above 0 and at most {MAX_EPSILON:g}, not {epsilon:g}")
    if not r.has("delta"):
        r.fail("delta", "is required: a synthetic table's Gaussian measurements need a delta "
                        "above 0 (for example 1e-6)")
    delta = r.number("delta")
    assert delta is not None
    problem = delta_problem(delta)
    if problem:
        r.fail("delta", problem)
    if delta <= 0:
        r.fail("delta", "a synthetic table's Gaussian measurements need a delta above 0")
    justification = read_justification(r)
    return Query(id=qid, kind="synthetic", epsilon=epsilon, label=label, mechanism=method,
                 delta=delta, justification=justification,
                 params=SynthParams(columns=columns, rows=rows, pairs=pairs, triples=triples))


def cell_text(value: Any) -> str:
    """How a declared value is written in the synthetic CSV (and read back by verify),
    before formula escaping."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value == int(value) and abs(value) < 2**53:
        return str(int(value))
    return str(value)


def written_texts(c: SynthColumn) -> list[str]:
    """The texts a column's cells hold in synthetic/<id>.csv, in declared order: each
    declared value's text, formula-escaped as every published CSV cell (support.cells)."""
    return [formula_escaped(cell_text(v)) for v in c.labels()]


def _escape_problem(columns: list[SynthColumn], i: int) -> tuple[str | None, str] | None:
    """The field of column ``i`` whose text, once written in the CSV, is another's (two
    declared values, or its name and an earlier column's), with the problem; None: none.
    "=q" is written "'=q", so declaring both would make two values one text."""
    why = ("(a text a spreadsheet would run as a formula is written with a leading quote); "
           "rename one")
    c = columns[i]
    texts = written_texts(c)
    if len(set(texts)) != len(texts):
        twice = next(t for t in texts if texts.count(t) > 1)
        return None, (f"two declared values of {c.column} would both be written {twice!r} "
                      f"in the synthetic table {why}")
    header = formula_escaped(c.column)
    for other in columns[:i]:
        if formula_escaped(other.column) == header:
            return "column", (f"{c.column!r} and the column {other.column!r} would both be "
                              f"written {header!r} in the synthetic table's header {why}")
    return None


def _text_bytes(value: object) -> int:
    """The most bytes a declared value takes in the CSV (quoted, quotes doubled)."""
    return 2 * len(str(value).encode("utf-8")) + 2


def row_cap(columns: tuple[SynthColumn, ...]) -> int:
    """The most rows a synthetic table of these columns may have: MAX_SYNTH_ROWS, fewer when
    its longest rows would pass MAX_SYNTH_CSV_BYTES (public: the declared values only). A
    noised number of rows is capped at it too (post-processing)."""
    if not columns:
        return MAX_SYNTH_ROWS
    widest = sum(max(_text_bytes(v) for v in c.labels()) + 1 for c in columns)
    header = sum(_text_bytes(c.column) + 1 for c in columns)
    return max(1, min(MAX_SYNTH_ROWS, (MAX_SYNTH_CSV_BYTES - header) // widest))


def _read_columns(r: FieldReader) -> tuple[SynthColumn, ...]:
    if not r.has("columns"):
        r.fail("columns", 'is required: a list of {"column": ..., "categories": [...]} or '
                          '{"column": ..., "bins": [...]}')
    raw = r.obj["columns"]
    if not isinstance(raw, list) or not raw:
        r.fail("columns", "must be a non-empty list of columns with their declared domains")
    if len(raw) > MAX_SYNTH_COLUMNS:
        r.fail("columns", f"has {len(raw)} columns; at most {MAX_SYNTH_COLUMNS} are allowed")
    out: list[SynthColumn] = []
    seen: set[str] = set()
    for i, item in enumerate(raw):
        c = FieldReader(r.source, item, r.where(f"columns[{i}]"),
                        ("column", "categories", "bins"))
        name = c.text("column")
        assert name is not None
        if name in seen:
            c.fail("column", f"{name!r} is already a column of this synthetic table")
        seen.add(name)
        if c.has("categories") == c.has("bins"):
            c.fail(None, "needs exactly one of categories (a public list) or bins (numeric "
                         "bin edges); a domain is never read from the data")
        if c.has("categories"):
            cats = c.scalars("categories", "categories")
            if len(cats) > MAX_SYNTH_VALUES:
                c.fail("categories", f"has {len(cats)} categories; at most "
                                     f"{MAX_SYNTH_VALUES:,} are allowed")
            out.append(SynthColumn(name, categories=cats))
            continue
        edges_raw = c.obj["bins"]
        if not isinstance(edges_raw, list) or len(edges_raw) < 2:
            c.fail("bins", "must be a list of at least two bin edges")
        if len(edges_raw) > MAX_SYNTH_VALUES + 1:
            c.fail("bins", f"has {len(edges_raw) - 1} bins; at most {MAX_SYNTH_VALUES:,} are "
                           "allowed")
        edges = [as_number(v, lambda p, j=j, c=c: c.fail(f"bins[{j}]", p))
                 for j, v in enumerate(edges_raw)]
        for j in range(1, len(edges)):
            if not edges[j] > edges[j - 1]:
                c.fail(f"bins[{j}]", "bin edges must increase strictly")
        if not all(math.isfinite(e) for e in edges):
            c.fail("bins", "bin edges must be finite numbers")
        out.append(SynthColumn(name, bins=tuple(float(e) for e in edges)))
    for i in range(len(out)):  # the CSV's texts, as written, stay distinct
        problem = _escape_problem(out, i)
        if problem is not None:
            r.fail(f"columns[{i}]" + (f".{problem[0]}" if problem[0] else ""), problem[1])
    total = 0
    for a in range(len(out)):
        for b in range(a + 1, len(out)):
            cells = out[a].size * out[b].size
            if cells > MAX_PAIR_CELLS:
                r.fail("columns", f"{out[a].column} and {out[b].column} together have "
                                  f"{cells:,} cells; at most {MAX_PAIR_CELLS:,} are allowed "
                                  "(use fewer categories or wider bins)")
            total += cells
    if total > MAX_ALL_PAIR_CELLS:
        r.fail("columns", f"the pairs of columns have {total:,} cells in all; at most "
                          f"{MAX_ALL_PAIR_CELLS:,} are allowed (use fewer columns or values)")
    return tuple(out)


def synthetic_to_dict(q: Query) -> dict[str, object]:
    """The plan JSON of a synthetic table (serialisation.py)."""
    p = params(q)
    columns: list[dict[str, object]] = []
    for c in p.columns:
        if c.categories is not None:
            columns.append({"column": c.column, "categories": list(c.categories)})
        else:
            columns.append({"column": c.column, "bins": list(c.bins or ())})
    out: dict[str, object] = {"id": q.id, "label": q.label or q.id, "kind": q.kind,
                              "method": q.mechanism, "columns": columns}
    if p.pairs is not None:
        out["pairs"] = [list(x) for x in p.pairs]
    if p.triples:
        out["triples"] = [list(x) for x in p.triples]
    if p.rows is not None:
        out["rows"] = p.rows
    out["epsilon"] = q.epsilon
    out["delta"] = q.delta
    if q.justification:
        out["justification"] = dict(q.justification)
    return out


def stated_epsilon(q: dict[str, Any]) -> float:
    """The ε a statistic's release record states for it. A synthetic table's measurements
    compose in zCDP to exactly the (ε, δ) its plan states (their ρ is rho_for(ε, δ)); the
    sum of their ε (``epsilon_spent``) overstates it about twofold. Any other statistic's is
    ``epsilon_spent``. The report, the registry entry and the bundle viewer all show this."""
    if q.get("kind") == "synthetic" and isinstance(q.get("epsilon"), int | float):
        return float(q["epsilon"])
    return float(q["epsilon_spent"])


class Synthetic(StatisticKind):
    name = "synthetic"
    params_type = SynthParams
    own_keys = ("columns", "rows", "method", "pairs", "triples")
    title = "Synthetic table"
    words = "synthetic table"
    mechanisms = ("mst", "aim")  # written "method" in the plan (docs/synthetic.md)
    needs_column = False
    not_taken = frozenset({"group_by", "where"})

    # --- plan fields -----------------------------------------------------------------------

    basic_accountant_refusal = BASIC_REFUSAL

    def pld_accountant_refusal(self, query: Query) -> str | None:
        return AIM_PLD_REFUSAL if query.mechanism == "aim" else None

    def read_query(self, r: FieldReader, qid: str, label: str) -> Query | None:
        return read_synthetic(r, qid, label)

    def unit_problem(self, unit: PrivacyUnit, query: Query) -> tuple[str, str] | None:
        return id_column_problem(unit, query)

    def query_to_dict(self, query: Query, common: dict[str, Any]) -> dict[str, Any]:
        """Its own JSON (its columns, rows and method), not the common fields."""
        return synthetic_to_dict(query)

    # --- DP ----------------------------------------------------------------------------------

    accuracy_unit = "count"

    def components(self, query: Query, unit: PrivacyUnit, relation: str) -> list[Component]:
        p = params(query)
        return synthetic_components(query, unit, relation, p.columns)

    def measurements(self, query: Query, plan: Plan) -> list[Measurement]:
        """MST's measurements (dp/synthetic.py) or AIM's (dp/synthetic_aim.py): zCDP shares
        of its (ε, δ)."""
        p = params(query)
        if query.mechanism == "aim":
            return aim_measurements(query, plan, p.columns)
        return synthetic_measurements(query, plan, p.columns)

    def accuracy(self, query: Query, plan: Plan, measurements: list[Measurement],
                 confidence: float) -> Accuracy:
        # the noise of one cell of a one-way marginal
        hw = measurement_half_width(measurements[0], confidence)
        return Accuracy(confidence, float(hw), "count",
                        "per cell of one column's counts (one-way marginal)")

    # --- data ----------------------------------------------------------------------------------

    def aggregate_of(self, query: Query) -> AggregateDescription:
        p = params(query)
        return Marginals(tuple(p.columns))

    # --- planning and release ----------------------------------------------------------------
    makes_table = True
    always_shows_delta = True

    def release(self, query: Query, aggregate: Aggregate, ms: list[Measurement],
                draw: NoiseDraw) -> QueryRelease:
        cells, payload = draw.synthesise(query, aggregate, ms, draw.source, draw.confidence,
                                         draw.clamp_counts)
        values = [ReleasedValue(query.id, query.title, marginal, cell, v, v - hw, v + hw,
                                draw.confidence, "gaussian", note)
                  for marginal, cell, v, hw, note in cells]
        return QueryRelease(query.id, values, synthetic=payload)

    def released_value_problem(self, query: Query, value: float, low: float | None,
                               high: float | None, half: float | None) -> str | None:
        return None  # its rows are its noised marginals: release/verify_synthetic.py

    def public_parameters(self, query: Query) -> list[tuple[str, str]]:
        p = params(query)
        columns = p.columns
        out = [("Columns", ", ".join(c.column for c in columns))]
        out += [("Values of " + c.column, column_domain(c).split(": ", 1)[1]) for c in columns]
        rows = p.rows
        out.append(("Rows", f"{rows:,} made-up rows" if rows is not None else
                    "as many as the noised counts say"))
        out.append(("Method", query.mechanism.upper()))
        if query.mechanism == "aim":
            out.append(("Workload", workload_words(p.columns, p.pairs, p.triples)))
        return out

    def missing_words(self, query: Query) -> list[str]:
        p = params(query)
        parts = ["a row with an empty cell in any of its columns, a value not among a "
                 "column's categories, or a number outside a column's bin edges (or not a "
                 "number) is left out of every count the table is made from"]
        if any(c.bins is not None for c in p.columns):
            parts.append("no value is clamped")
        return parts

    def released_value_words(self, column: str) -> str:
        return "noised count"

    def check_lines(self, query: Query, plan: Plan, accuracy: dict[str, Any]) -> list[str]:
        return preview_lines(table_preview(query, plan))  # what its budget buys (dp/synthetic.py)


    def report_meaning(self, record_query: dict[str, Any], query: Query | None,
                       confidence: float) -> str:
        return synthetic_noise_words(record_query, confidence)

    # --- the app's form ------------------------------------------------------------------------
    def form_fields(self) -> frozenset[str]:
        """Its columns, each one's domain edited in the selected column's fields."""
        return frozenset({COLUMN, DOMAIN, SYNTH_COLUMNS, SYNTH_ROWS, DELTA})

    def form_noise_tip(self) -> str:
        return MST_CITATION

    def form_words(self) -> FormWords:
        return WHOLE_TABLE

    def releases_table(self) -> bool:
        return True
