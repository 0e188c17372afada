"""Write the bad-input corpus (tables, plans, bundles) and cases.json.

Run: python tests/corpus/make_corpus.py   (the files are committed; rerun after editing)
Each case names the command to run, the exit code and a fragment of the one-line message.
"""

from __future__ import annotations

import copy
import io
import json
import zipfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).parent
PLAN: dict[str, Any] = {
    "format": "planner-app/plan@1",
    "dataset": {"name": "corpus"},
    "privacy_unit": {"kind": "row"},
    "budget": {"epsilon": 2.0, "delta": 1e-6},
    "queries": [
        {"id": "n", "kind": "count", "epsilon": 0.5},
        {"id": "s", "kind": "sum", "column": "x", "lower": 0, "upper": 10, "epsilon": 0.5,
         "justification": {"bounds": "a 0-10 scale"}},
        {"id": "h", "kind": "histogram", "column": "g", "categories": ["a", "b"],
         "epsilon": 0.5, "justification": {"categories": "the form's two options"}},
    ],
}
cases: list[dict[str, Any]] = []


def table(name: str, data: bytes | str, exit_code: int, message: str) -> None:
    path = HERE / "tables" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
    cases.append({"file": f"tables/{name}", "command": "check-data", "exit": exit_code,
                  "message": message})


def plan(name: str, doc: Any, message: str, raw: bytes | None = None) -> None:
    path = HERE / "plans" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(raw if raw is not None else json.dumps(doc, allow_nan=True).encode())
    cases.append({"file": f"plans/{name}", "command": "check", "exit": 2, "message": message})


def bundle(name: str, members: list[tuple[str, bytes]], exit_code: int, message: str,
           raw: bytes | None = None) -> None:
    path = HERE / "bundles" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    if raw is not None:
        path.write_bytes(raw)
    else:
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as zf:
            for member, data in members:  # fixed dates: the corpus regenerates identically
                info = zipfile.ZipInfo(member, date_time=(2020, 1, 1, 0, 0, 0))
                info.compress_type = zipfile.ZIP_DEFLATED
                zf.writestr(info, data)
        path.write_bytes(buffer.getvalue())
    cases.append({"file": f"bundles/{name}", "command": "verify", "exit": exit_code,
                  "message": message})


def with_query(**changes: Any) -> dict[str, Any]:
    doc = copy.deepcopy(PLAN)
    doc["queries"][1].update(changes)
    return {k: v for k, v in doc.items()}


def with_top(**changes: Any) -> dict[str, Any]:
    doc = copy.deepcopy(PLAN)
    doc.update(changes)
    return doc


GOOD = "x,g\n1,a\n5,b\n9,a\n"

# ---------------------------------------------------------------- tables
table("empty.csv", b"", 2, "is empty")
table("only-header.csv", "x,g\n", 2, "has a header but no rows")
table("binary.csv", bytes(range(256)) * 8, 2, "is a binary file")
table("zip-named-csv.csv", b"PK\x03\x04" + b"\x00" * 64, 2, "is a zip or Excel file")
table("ragged.csv", "x,g\n1,a\n2,b,extra\n", 2, "line 3: has 3 fields where the header has 2")
table("duplicate-header.csv", "x,g,x\n1,a,2\n", 2, "appears twice")
table("blank-header.csv", "x,,g\n1,2,a\n", 2, "the header cell is empty")
table("unclosed-quote.csv", 'x,g\n1,"a\n2,b\n', 2, "a quoted cell is never closed")
table("bad-utf8-late.csv", ("x,g\n" + "1,a\n" * 20000).encode() + b"2,\xff\xfe\n", 2,
      "is not valid utf-8 text")
table("old-format.xls", b"\xd0\xcf\x11\xe0" + b"\x00" * 100, 2, "old .xls workbooks")
table("not-a-workbook.xlsx", b"not a workbook", 2, "is not a readable .xlsx workbook")
table("not-parquet.parquet", b"PAR1 but not really", 2, "is not a readable Parquet file")
table("missing-column.csv", "y,g\n1,a\n", 2, "no column 'x'")
table("utf16-with-bom.csv", "x,g\n1,a\n".encode("utf-16"), 0, "Composed total")
table("formulas.csv", 'x,g\n1,=HYPERLINK("http://x")\n2,+cmd\n3,@SUM(1)\n', 0,
      "Composed total")
table("huge-cell.csv", "x,g\n" + "9" * 300_000 + ",a\n1,b\n", 0, "Composed total")
table("junk-numbers.csv", "x,g\nabc,a\n1e999,b\nNaN,a\n3,b\n", 0, "will be dropped")
table("semicolon.csv", "x;g\n1;a\n2;b\n", 0, "Composed total")

# ---------------------------------------------------------------- plans
plan("truncated.json", None, "invalid JSON", raw=json.dumps(PLAN).encode()[:-20])
plan("empty.json", None, "invalid JSON", raw=b"")
plan("a-list.json", [1, 2, 3], "a plan must be a JSON object")
# cal26: plan@2 exists (a plan with a programme); an unknown version is now plan@3
plan("format-3.json", with_top(format="planner-app/plan@3"), "unknown format version")
plan("no-format.json", {k: v for k, v in PLAN.items() if k != "format"}, "format: is required")
plan("unknown-field.json", with_top(epsilon=1), "epsilon: unknown field")
plan("duplicate-key.json", None, "appears twice",
     raw=b'{"format": "planner-app/plan@1", "format": "planner-app/plan@1"}')
plan("nan.json", with_top(budget={"epsilon": float("nan")}), "NaN is not allowed")
plan("infinity-epsilon.json", with_query(epsilon=float("inf")), "Infinity is not allowed")
plan("unknown-kind.json", with_query(kind="median"), "'median' is not one of")
plan("lower-above-upper.json", with_query(lower=10, upper=0), "must be below upper")
plan("lower-equals-upper.json", with_query(lower=5, upper=5), "must be below upper")
plan("epsilon-zero.json", with_query(epsilon=0), "must be above 0")
plan("epsilon-negative.json", with_query(epsilon=-1), "must be above 0")
plan("epsilon-string.json", with_query(epsilon="1"), "must be a number, not a string")
plan("epsilon-bool.json", with_query(epsilon=True), "must be a number, not true/false")
plan("epsilon-absurd.json", with_query(epsilon=1e9), "at most 1000")
plan("delta-one.json", with_top(budget={"epsilon": 1, "delta": 1}), "must lie in [0, 1)")
plan("gaussian-no-delta.json", with_query(mechanism="gaussian"), "needs a delta above 0")
plan("laplace-with-delta.json", with_query(delta=0.01), "only used by the gaussian")
plan("empty-categories.json", {**PLAN, "queries": [{**PLAN["queries"][2], "categories": []}]},
     "must not be empty")
plan("duplicate-categories.json",
     {**PLAN, "queries": [{**PLAN["queries"][2], "categories": ["a", "a"]}]}, "repeats")
plan("duplicate-ids.json", {**PLAN, "queries": [PLAN["queries"][0], PLAN["queries"][0]]},
     "duplicate id")
plan("id-with-space.json", with_query(id="my stat"), "letters, digits")
plan("id-homoglyph.json", with_query(id="s\u0430m"), "letters, digits")
plan("bidi-label.json", with_query(label="safe\u202eevil"), "invisible direction control")
plan("control-char-name.json", with_top(dataset={"name": "a\x07b"}), "control character")
plan("where-expression.json", with_query(where="x > 1 or __import__('os')"),
     "must be a list of")
plan("where-bad-op.json", with_query(where=[{"column": "x", "op": "~=", "value": 1}]),
     "'~=' is not one of")
plan("impute-wrong-type.json", with_query(missing={"impute": "lots"}), "must be a number")
plan("bins-not-increasing.json",
     {**PLAN, "queries": [{"id": "b", "kind": "histogram", "column": "x", "bins": [0, 5, 5],
                           "epsilon": 1}]}, "increase strictly")
plan("quantile-two.json",
     {**PLAN, "queries": [{"id": "q", "kind": "quantile", "column": "x", "lower": 0,
                           "upper": 10, "quantile": 2, "epsilon": 1}]}, "must lie in [0, 1]")
plan("group-by-no-keys.json", with_query(group_by={"column": "g"}), "keys: is required")
plan("person-no-id.json", with_top(privacy_unit={"kind": "person", "max_rows": 2}),
     "id_column: is required")
plan("person-zero-rows.json",
     with_top(privacy_unit={"kind": "person", "id_column": "x", "max_rows": 0}),
     "between 1 and 1,000,000")
plan("too-many-queries.json",
     {**PLAN, "queries": [{"id": f"q{i}", "kind": "count", "epsilon": 0.1}
                          for i in range(10_001)]}, "at most 10,000 are allowed")
plan("forged-approval.json",
     with_top(approvals=[{"reviewer": "x", "decision": "approved", "plan_sha256": "00",
                          "time": "now"}]), "must be a SHA-256")
plan("utf16-plan.json", None, "is not UTF-8 text", raw=json.dumps(PLAN).encode("utf-16"))
plan("deep-nesting.json", None, "invalid JSON", raw=b"[" * 100_000 + b"]" * 100_000)
plan("huge-bound.json", with_query(upper=1e300), "bounds must lie within")
plan("absolute-data-path.json", with_top(dataset={"name": "corpus",
                                                  "path": "/home/owner/private/people.csv"}),
     "absolute path would reveal where the private data lives")

# ---------------------------------------------------------------- bundles
bundle("text-file.zip", [], 2, "is not a zip file", raw=b"just some text")
bundle("truncated.zip", [("MANIFEST.sha256", b"x" * 5000)], 2, "zip",
       raw=None)
truncated = (HERE / "bundles" / "truncated.zip").read_bytes()
(HERE / "bundles" / "truncated.zip").write_bytes(truncated[: len(truncated) // 2])
bundle("path-traversal.zip", [("../../evil.sh", b"rm -rf /"), ("MANIFEST.sha256", b"")], 2,
       "path traversal")
bundle("absolute-path.zip", [("/etc/cron.d/evil", b"x"), ("MANIFEST.sha256", b"")], 2,
       "path traversal")
bundle("backslash-path.zip", [("..\\evil.txt", b"x"), ("MANIFEST.sha256", b"")], 2,
       "path traversal")
bundle("no-manifest.zip", [("results.csv", b"query_id\n")], 2, "has no MANIFEST.sha256")
bundle("zip-bomb.zip", [("bomb.bin", b"\0" * 20_000_000), ("MANIFEST.sha256", b"")], 2,
       "zip bomb")
bundle("bad-manifest-line.zip", [("results.csv", b"x"), ("MANIFEST.sha256", b"not a hash\n")],
       1, "MANIFEST.sha256: line 1")

# ---------------------------------------------------------------- adversarial pass (issue 10 §7)
BIG = "1" + "0" * 400  # a JSON integer no float can hold
big_text = json.dumps(PLAN)


def plan_text(name: str, text: str, message: str) -> None:
    plan(name, None, message, raw=text.encode())


def with_big(doc: dict[str, Any], marker: str) -> str:
    """The plan's JSON with the number 7777 (written as ``marker``) replaced by BIG."""
    return json.dumps(doc).replace(marker, BIG)


plan_text("huge-epsilon.json", with_big(with_query(epsilon=7777), "7777"),
          "queries[s].epsilon: is a 401-digit number, too large for any computation")
plan_text("huge-budget-epsilon.json",
          with_big(with_top(budget={"epsilon": 7777, "delta": 0}), "7777"),
          "budget.epsilon: is a 401-digit number")
plan_text("huge-upper.json", with_big(with_query(upper=7777), "7777"),
          "queries[s].upper: is a 401-digit number")
plan_text("huge-bin-edge.json", with_big(
    {**PLAN, "queries": [{"id": "b", "kind": "histogram", "column": "x", "bins": [0, 5, 7777],
                          "epsilon": 1}]}, "7777"), "queries[b].bins[2]: is a 401-digit number")
plan_text("huge-expected-rows.json",
          with_big(with_top(dataset={"name": "corpus", "expected_rows": 7777}), "7777"),
          "dataset.expected_rows: is a 401-digit number, too large to be a count of rows")
plan("expected-rows-absurd.json", with_top(dataset={"name": "corpus", "expected_rows": 10**15}),
     "dataset.expected_rows: must be between 1 and 2,000,000,000")
plan_text("huge-where-value.json",
          with_big(with_query(where=[{"column": "x", "op": "<", "value": 7777}]), "7777"),
          "queries[s].where[0].value: is a 401-digit number")
plan("denormal-budget-delta.json", with_top(budget={"epsilon": 2, "delta": 1e-320}),
     "budget.delta: 9.99989e-321 is too small for any accountant to handle")
plan("smallest-delta.json", with_top(budget={"epsilon": 2, "delta": 5e-324}),
     "budget.delta: 4.94066e-324 is too small for any accountant to handle")
plan("denormal-query-delta.json",
     with_query(mechanism="gaussian", delta=1e-310), "queries[s].delta: 1e-310 is too small")
plan("rr-tiny-epsilon.json",
     {**PLAN, "queries": [{"id": "r", "kind": "randomized_response", "column": "g",
                           "epsilon": 1e-12}]},
     "queries[r].epsilon: ε = 1e-12 is too small for randomized response")
plan("quantile-tiny-epsilon.json",
     {**PLAN, "queries": [{"id": "q", "kind": "quantile", "column": "x", "lower": 0,
                           "upper": 10, "quantile": 0.5, "epsilon": 1e-300}]},
     "queries[q].epsilon: ε = 1e-300 is too small for the quantile sampler")
plan("laplace-tiny-epsilon.json", with_query(epsilon=5e-324),
     "queries[s].epsilon: the noise scale is too large")
plan("id-trailing-newline.json", with_query(id="r\n"), "queries[1].id: must be 1-64 letters")
# bounds so close that the grid step (or its square, in a variance) underflows: refused
# before any charge, not a ZeroDivisionError while drawing the noise
for name, kind, upper in (("variance-1e-300", "variance", 1e-300),
                          ("variance-1e-170", "variance", 1e-170),
                          ("variance-1e-200", "variance", 1e-200),
                          ("mean-subnormal-upper", "mean", 5e-324),
                          ("sum-subnormal-upper", "sum", 5e-324)):
    plan(f"{name}.json", with_query(kind=kind, lower=0, upper=upper),
         "queries[s].upper: lower and upper are so close that the grid step")
# narrow bounds far from 0: the grid needs more steps than an int64 holds
for kind in ("mean", "variance", "quantile", "sum"):
    extra = {"quantile": 0.5} if kind == "quantile" else {}
    plan(f"{kind}-far-narrow-bounds.json",
         with_query(kind=kind, lower=1e15 - 1, upper=1e15, **extra),
         "queries[s].grid_step: lower and upper are too far from 0 for the grid step")
plan("grid-step-far-bounds.json", with_query(lower=1e12, upper=1e12 + 1, grid_step=2**-20),
     "queries[s].grid_step: lower and upper are too far from 0 for the grid step")


# ---------------------------------------------------------------- synthetic tables (issue 14)
SYN: dict[str, Any] = {
    "id": "syn", "kind": "synthetic", "epsilon": 1.0, "delta": 1e-7,
    "columns": [{"column": "g", "categories": ["a", "b"]}, {"column": "x", "bins": [0, 5, 10]}],
    "justification": {"categories": "the form's two options", "bounds": "a 0-10 scale"}}


def with_synthetic(**changes: Any) -> dict[str, Any]:
    """The corpus plan with a synthetic table; a change of None removes the field."""
    query = {k: v for k, v in {**copy.deepcopy(SYN), **changes}.items() if v is not None}
    return {**PLAN, "queries": [PLAN["queries"][0], query]}


def with_synth_column(i: int, **changes: Any) -> dict[str, Any]:
    """The synthetic table with its column i changed (None removes a field)."""
    columns = copy.deepcopy(SYN["columns"])
    columns[i] = {k: v for k, v in {**columns[i], **changes}.items() if v is not None}
    return with_synthetic(columns=columns)


def synth(name: str, doc: dict[str, Any], message: str) -> None:
    plan(f"synthetic-{name}.json", doc, message)


SYNTH = "queries[syn]"
synth("columns-missing", with_synthetic(columns=None), f"{SYNTH}.columns: is required")
synth("columns-string", with_synthetic(columns="g"), f"{SYNTH}.columns: must be a non-empty list")
synth("columns-empty", with_synthetic(columns=[]), f"{SYNTH}.columns: must be a non-empty list")
synth("columns-item-number", with_synthetic(columns=[1]),
      f"{SYNTH}.columns[0]: must be a JSON object, not a number")
synth("column-no-name", with_synth_column(0, column=None),
      f"{SYNTH}.columns[0].column: is required")
synth("column-duplicate", with_synthetic(columns=[{"column": "g", "categories": ["a"]},
                                                  {"column": "g", "categories": ["b"]}]),
      f"{SYNTH}.columns[1].column: 'g' is already a column of this synthetic table")
synth("column-unknown-field", with_synth_column(0, lower=0),
      f"{SYNTH}.columns[0].lower: unknown field")
synth("column-no-domain", with_synth_column(0, categories=None),
      f"{SYNTH}.columns[0]: needs exactly one of categories")
synth("column-both-domains", with_synth_column(0, bins=[0, 1]),
      f"{SYNTH}.columns[0]: needs exactly one of categories")
synth("categories-empty", with_synth_column(0, categories=[]),
      f"{SYNTH}.columns[0].categories: must not be empty")
synth("categories-repeat", with_synth_column(0, categories=["a", "a"]),
      f"{SYNTH}.columns[0].categories[1]: repeats an earlier entry")
synth("categories-object", with_synth_column(0, categories=[{"a": 1}]),
      f"{SYNTH}.columns[0].categories[0]: must be a string or number")
synth("bins-unsorted", with_synth_column(1, bins=[0, 10, 5]),
      f"{SYNTH}.columns[1].bins[2]: bin edges must increase strictly")
synth("bins-one-edge", with_synth_column(1, bins=[0]),
      f"{SYNTH}.columns[1].bins: must be a list of at least two bin edges")
synth("bins-text-edge", with_synth_column(1, bins=[0, "5", 10]),
      f"{SYNTH}.columns[1].bins[1]: must be a number, not a string")
synth("rows-zero", with_synthetic(rows=0), f"{SYNTH}.rows: must be between 1 and 1,000,000")
synth("rows-negative", with_synthetic(rows=-5), f"{SYNTH}.rows: must be between 1 and 1,000,000")
synth("rows-too-many", with_synthetic(rows=2_000_000),
      f"{SYNTH}.rows: must be between 1 and 1,000,000, not 2,000,000")
synth("rows-fraction", with_synthetic(rows=10.5), f"{SYNTH}.rows: must be a whole number")
synth("rows-text", with_synthetic(rows="100"), f"{SYNTH}.rows: must be a whole number")
synth("method-unknown", with_synthetic(method="gan"), f"{SYNTH}.method: 'gan' is not one of")
synth("person-id-column",
      {**with_synthetic(columns=[SYN["columns"][0], {"column": "pid", "categories": ["1", "2"]}]),
       "privacy_unit": {"kind": "person", "id_column": "pid", "max_rows": 2}},
      f"{SYNTH}.columns[1].column: 'pid' is the id of a person (privacy_unit.id_column): a "
      "synthetic table cannot include it")
synth("mechanism-given", with_synthetic(mechanism="gaussian"),
      f"{SYNTH}.mechanism: is not used by kind synthetic")
synth("column-field-given", with_synthetic(column="g"),
      f"{SYNTH}.column: is not used by kind synthetic")
synth("too-many-pair-cells",
      with_synthetic(columns=[{"column": c, "categories": [f"v{i}" for i in range(400)]}
                              for c in ("g", "x")]),
      f"{SYNTH}.columns: g and x together have 160,000 cells; at most 100,000")
synth("too-many-columns",
      with_synthetic(columns=[{"column": f"c{i}", "categories": ["a", "b"]} for i in range(33)]),
      f"{SYNTH}.columns: has 33 columns; at most 32")
synth("too-many-values", with_synth_column(0, categories=[f"v{i}" for i in range(1001)]),
      f"{SYNTH}.columns[0].categories: has 1001 categories; at most 1,000")
synth("epsilon-missing", with_synthetic(epsilon=None), f"{SYNTH}.epsilon: is required")
synth("epsilon-zero", with_synthetic(epsilon=0), f"{SYNTH}.epsilon: must be above 0")
synth("delta-missing", with_synthetic(delta=None), f"{SYNTH}.delta: is required")
synth("delta-zero", with_synthetic(delta=0), f"{SYNTH}.delta: a synthetic table's Gaussian")
synth("delta-one", with_synthetic(delta=1), f"{SYNTH}.delta: must lie in [0, 1)")
synth("delta-text", with_synthetic(delta="1e-6"), f"{SYNTH}.delta: must be a number")
synth("delta-denormal", with_synthetic(delta=1e-320), f"{SYNTH}.delta: 9.99989e-321 is too small")
# tables that do not fit the synthetic table: checked (and released) with with_synthetic()'s
# plan; each problem named by the plan's own field, counted once
for name, data, message in (
        ("missing-column", "x,h\n1,a\n5,b\n",
         f"{SYNTH}.columns[0].column: no column 'g' in synthetic-missing-column.csv"),
        ("text-bins", "x,g\nlow,a\nhigh,b\n",
         f"{SYNTH}.columns[1].column: 'x' in synthetic-text-bins.csv holds text, not numbers"),
        ("two-problems", "y,h\n1,a\n",
         "no column 'g' in synthetic-two-problems.csv (and 1 more problem with this table)")):
    table(f"synthetic-{name}.csv", data, 2, message)
    cases[-1]["plan"] = "synthetic"
synth("basic-accountant",
      {**with_synthetic(), "budget": {"epsilon": 2.0, "delta": 1e-6, "accountant": "basic"}},
      "budget.accountant: a synthetic table's measurements compose in zCDP")


def xlsx(name: str, parts: dict[str, bytes], exit_code: int, message: str) -> None:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for member, data in parts.items():
            zf.writestr(zipfile.ZipInfo(member, date_time=(2020, 1, 1, 0, 0, 0)), data)
    table(name, buffer.getvalue(), exit_code, message)


def workbook_parts(chart: bool = False) -> dict[str, bytes]:
    """An .xlsx made by openpyxl (x, g and three rows), as its parts, with fixed dates."""
    import re

    import openpyxl
    from openpyxl.chart import BarChart, Reference

    wb = openpyxl.Workbook()
    ws = wb.active
    for row in (("x", "g"), (1, "a"), (5, "b"), (9, "a")):
        ws.append(row)
    if chart:
        sheet = wb.create_chartsheet()
        bars = BarChart()
        bars.add_data(Reference(ws, min_col=1, min_row=1, max_row=4))
        sheet.add_chart(bars)
    buffer = io.BytesIO()
    wb.save(buffer)
    with zipfile.ZipFile(buffer) as zf:
        parts = {i.filename: zf.read(i) for i in zf.infolist()}
    parts["docProps/core.xml"] = re.sub(rb"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ",
                                        b"2020-01-01T00:00:00Z", parts["docProps/core.xml"])
    return parts


def without_worksheet(parts: dict[str, bytes]) -> dict[str, bytes]:
    """The workbook with its worksheet taken out of the sheet list (the chart sheet stays)."""
    import re

    parts = dict(parts)
    parts["xl/workbook.xml"] = re.sub(rb'<sheet name="Sheet"[^>]*/>', b"",
                                      parts["xl/workbook.xml"])
    parts["xl/_rels/workbook.xml.rels"] = re.sub(
        rb'<Relationship[^>]*worksheets/sheet1.xml"[^>]*/>', b"",
        parts["xl/_rels/workbook.xml.rels"])
    del parts["xl/worksheets/sheet1.xml"]
    return parts


PLAIN = workbook_parts()
SHEET = PLAIN["xl/worksheets/sheet1.xml"]
xlsx("minimal.xlsx", PLAIN, 0, "Composed total")
xlsx("truncated-sheet.xlsx", {**PLAIN, "xl/worksheets/sheet1.xml": SHEET[: len(SHEET) // 2]}, 2,
     "is not a readable .xlsx workbook (its first sheet is damaged or missing)")
xlsx("missing-sheet-part.xlsx",
     {k: v for k, v in PLAIN.items() if k != "xl/worksheets/sheet1.xml"}, 2,
     "has no readable worksheet (its sheet part is missing)")
xlsx("only-a-chart-sheet.xlsx", without_worksheet(workbook_parts(chart=True)), 2,
     "has only chart sheets, no worksheet with a table")
table("cr-line-ends.csv", b"x,g\r1,a\r5,b\r9,a\r", 0, "Composed total")
table("nul-after-64kb.csv", b"x,g\n" + b"1,a\n" * 20000 + b"2,\x00b\n", 2,
      "line 20002: contains a NUL byte")
table("duplicate-header-after-64kb.csv",
      ("x,g," + ",".join(f"c{i:06d}" for i in range(9000)) + ",g\n1,a," + "0," * 9000
       + "b\n").encode(), 2, "line 1, column 9003: the column name 'g' appears twice")


def parquet(name: str, columns: dict[str, Any], exit_code: int, message: str) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    sink = io.BytesIO()
    pq.write_table(pa.table(columns), sink)
    table(name, sink.getvalue(), exit_code, message)


def _parquet_cases() -> None:
    import pyarrow as pa

    g = pa.array(["a", "b", "a"])
    parquet("list-column.parquet", {"x": pa.array([[1, 2], [3], [4]]), "g": g}, 2,
            "the column 'x' of list-column.parquet holds lists or records")
    parquet("struct-column.parquet", {"x": pa.array([{"a": 1}, {"a": 2}, {"a": 3}]), "g": g},
            2, "the column 'x' of struct-column.parquet holds lists or records")
    parquet("map-column.parquet",
            {"x": pa.array([[("k", 1)], [("k", 2)], [("k", 3)]],
                           type=pa.map_(pa.string(), pa.int64())), "g": g}, 2,
            "the column 'x' of map-column.parquet holds lists or records")
    parquet("list-group-column.parquet", {"x": pa.array([1, 5, 9]),
                                          "g": pa.array([["a"], ["b"], ["a"]])}, 2,
            "queries[h].column: the column 'g' of list-group-column.parquet holds lists")
    parquet("dictionary-columns.parquet", {"x": pa.array([1.0, 5.0, 9.0]).dictionary_encode(),
                                           "g": g.dictionary_encode()}, 0, "Composed total")


_parquet_cases()

# cases the test builds itself: a special file, an output path, a file too big to commit
special: list[dict[str, Any]] = [
    {"file": "special/plan-fifo.json", "command": "check", "exit": 2,
     "message": "is not a regular file (a pipe or device?), so not a plan file"},
    {"file": "special/table-fifo.csv", "command": "check-data", "exit": 2,
     "message": "is not a regular file (a pipe or device?), so not a table"},
    {"file": "special/dev-zero", "command": "check", "exit": 2,
     "message": "is not a regular file"},
    {"file": "special/long-line.csv", "command": "check-data", "exit": 2,
     "message": "line 2: is longer than 16,777,216 bytes"},
    {"file": "special/long-header.csv", "command": "check-data", "exit": 2,
     "message": "line 1: is longer than 16,777,216 bytes"},
    {"file": "outputs/existing-folder.zip", "command": "release-out", "exit": 2,
     "message": "is a folder, not a regular file; it is never replaced"},
    {"file": "outputs/" + "n" * 240 + ".zip", "command": "release-out", "exit": 2,
     "message": "the name is too long for this file system"},
    {"file": "outputs/read-only/bundle.zip", "command": "release-out", "exit": 2,
     "message": "cannot be written in its folder"},
    {"file": "outputs/full-disk/bundle.zip", "command": "release-out", "exit": 2,
     "message": "MB free"},
    {"file": "outputs/dev-full", "command": "release-out", "exit": 2,
     "message": "is a device, not a regular file; it is never replaced"},
    {"file": "outputs/no-folder/bundle.zip", "command": "release-out", "exit": 2,
     "message": "does not exist"},
]
cases.extend(special)

from crafted import CRAFTED  # noqa: E402

for recipe, exit_code, message in CRAFTED:
    cases.append({"file": f"crafted/{recipe}.zip", "command": "verify", "exit": exit_code,
                  "message": message})

import warnings  # noqa: E402

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    bundle("duplicate-names.zip", [("a.txt", b"1"), ("a.txt", b"2"),
                                   ("MANIFEST.sha256", b"")], 2, "appears twice")

# inputs: the adversarial pass of issue 22 §6 (hostile headers, encodings, paths, ids,
# Unicode forms, tiny ε, invisible reasons and names). A "release" case releases the plan
# file on the good table: refused in one line, nothing charged or written.
table("case-duplicate-header.csv", "x,X,g\n1,2,a\n", 2,
      "line 1, column 2: the column names 'x' (column 1) and 'X' differ only in letter case")
table("header-nfc-twins.csv", "g,\u00e9t\u00e9,e\u0301te\u0301\na,1,2\n", 2,
      "line 1, column 3: the column names '\u00e9t\u00e9' (column 2) and "
      "'e\u0301te\u0301' are one name written with other Unicode code points")
table("bom-only.csv", b"\xef\xbb\xbf", 2, "is empty")
table("utf16-bom-only.csv", b"\xff\xfe", 2, "is empty")
table("utf32-with-bom.csv", "x,g\n1,a\n5,b\n".encode("utf-32"), 2,
      "is UTF-32 text, which is not read here; save it as UTF-8")
table("bom-then-blank-line.csv", b"\xef\xbb\xbf\n", 2, "line 1: has no header row")
table("blank-first-line.csv", "\nx,g\n1,a\n", 2, "line 1: has no header row")
for name, path in (("data-path-dotdot.json", "../../../srv/private/people.csv"),
                   ("data-path-dotdot-inside.json", "data/../../people.csv"),
                   ("data-path-backslash-dotdot.json", "..\\private\\people.csv")):
    plan(name, with_top(dataset={"name": "corpus", "path": path}),
         "dataset.path: must be a file name or a path inside the plan's folder: '..' climbs out")
plan("ids-differ-in-case.json",
     {**PLAN, "queries": [*PLAN["queries"], {"id": "N", "kind": "count", "epsilon": 0.1}]},
     "queries[3].id: ids 'n' and 'N' differ only in letter case")
plan("id-3000-characters.json", with_query(id="a" * 3000),
     "queries[1].id: must be 1-64 letters, digits, '_', '.' or '-' (A-Z, a-z, 0-9), not 3,000 "
     "characters")
plan("categories-nfc-nfd.json",
     {**PLAN, "queries": [{**PLAN["queries"][2], "categories": ["\u00e9", "e\u0301"]}]},
     "queries[h].categories[1]: 'e\u0301' is categories[0] written with other Unicode code "
     "points")
plan("group-keys-nfc-nfd.json", with_query(group_by={"column": "g",
                                                     "keys": ["e\u0301", "\u00e9"]}),
     "queries[s].group_by.keys[1]: '\u00e9' is keys[0] written with other Unicode code points")
plan("gaussian-epsilon-1e-300.json", with_query(mechanism="gaussian", epsilon=1e-300,
                                                delta=1e-7),
     "queries[s].epsilon: ε = 1e-300 is too small for this statistic to say anything")
plan("mean-subnormal-epsilon.json", with_query(kind="mean", epsilon=5e-324),
     "queries[s].epsilon: ε = 4.94066e-324 is too small for this statistic to say anything")
plan("dataset-name-newline.json", with_top(dataset={"name": "corpus\nreleased"}),
     "dataset.name: contains a line break; a dataset name is one line of visible text")
plan("dataset-name-zero-width.json", with_top(dataset={"name": "cor\u200bpus"}),
     "dataset.name: contains the invisible character U+200B")
plan("dataset-name-only-zero-width.json", with_top(dataset={"name": "\u200b\u200b"}),
     "dataset.name: must not be blank")
plan("dataset-name-full-width.json", with_top(dataset={"name": "ＡＢＣ データ"}),
     "dataset.name: contains 'ＡＢＣデー' (U+FF21 and 5 more), which the PDF report's font")
plan("reason-zero-width-space.json", with_query(justification={"bounds": "\u200b"}),
     "queries[s].justification.bounds: no reason is recorded for the bounds of 's'")
cases[-1]["command"] = "release"
plan("reason-invisible-characters.json",
     {**PLAN, "queries": [{**PLAN["queries"][2],
                           "justification": {"categories": " \u200c\u2060\ufeff\u3000 "}}]},
     "queries[h].justification.categories: no reason is recorded for the categories of 'h'")
cases[-1]["command"] = "release"
cases.append({"file": "outputs/o.zip/", "command": "release-out", "exit": 2,
              "message": "o.zip/ ends with '/', so it names a folder, not a file"})
for recipe, exit_code, message in (
        ("release-json-key-twice", 1,
         "release.json: is not valid JSON (the key 'confidence' appears twice in one object)"),
        ("audit-line-key-twice", 1,
         "audit.jsonl: is not JSON lines (the key 'event' appears twice in one object)"),
        ("readme-as-symlink", 2, "the entry 'README.txt' is marked as a symbolic link; a "
                                 "bundle holds only regular files"),
        ("manifest-as-symlink", 2, "the entry 'MANIFEST.sha256' is marked as a symbolic link"),
        ("results-as-fifo", 2, "the entry 'results.csv' is marked as a pipe")):
    cases.append({"file": f"crafted/{recipe}.zip", "command": "verify", "exit": exit_code,
                  "message": message})

# unit: the row unit's recorded decision that the rows are different people (issue 22)
ROW = {"kind": "row"}
plan("rows-are-people-blank-reason.json",
     with_top(privacy_unit={**ROW, "rows_are_people": {"reason": "  "}}),
     "privacy_unit.rows_are_people.reason: is empty: say why the rows are different people")
plan("rows-are-people-no-reason.json", with_top(privacy_unit={**ROW, "rows_are_people": {}}),
     "privacy_unit.rows_are_people.reason: is required")
plan("rows-are-people-text.json",
     with_top(privacy_unit={**ROW, "rows_are_people": "one row per respondent"}),
     "privacy_unit.rows_are_people")
plan("rows-are-people-number-reason.json",
     with_top(privacy_unit={**ROW, "rows_are_people": {"reason": 8}}),
     "privacy_unit.rows_are_people.reason: must be a string")
plan("rows-are-people-with-person.json",
     with_top(privacy_unit={"kind": "person", "id_column": "g", "max_rows": 2,
                            "rows_are_people": {"reason": "one row each"}}),
     'privacy_unit.rows_are_people: is only used with "kind": "row"')
plan("rows-are-people-extra-field.json",
     with_top(privacy_unit={**ROW, "rows_are_people": {"reason": "ok", "by": "me"}}),
     "privacy_unit.rows_are_people")

# ledger: an app home that is a file, or lies under one (--home): exit 2, never 1
cases.extend([
    {"file": "outputs/home-a-file", "command": "release-home", "exit": 2,
     "message": "is not a folder (or lies under a file), so it cannot be the app home"},
    {"file": "outputs/home-a-file/under", "command": "release-home", "exit": 2,
     "message": "is not a folder (or lies under a file), so it cannot be the app home"},
])

# firststart: `planner-app gui PLAN.json --data TABLE` checks both files before any window
# (and before Qt is loaded): command "gui" opens the file as the plan, "gui-data" as the table
plan("gui-truncated.json", None, "line 1 column 34: invalid JSON",
     raw=b'{"format": "planner-app/plan@1", ')
cases[-1]["command"] = "gui"
plan("gui-negative-epsilon.json", with_query(epsilon=-1),
     "queries[s].epsilon: must be above 0 and at most 1000, not -1")
cases[-1]["command"] = "gui"
for name, data, message in [
        ("gui-empty.csv", b"", "is empty"),
        ("gui-a-document.docx", b"PK\x03\x04", "is not a table the app opens (CSV, TSV, "
                                                ".xlsx or Parquet)")]:
    table(name, data, 2, message)
    cases[-1]["command"] = "gui-data"

# unitflow: a person unit whose rows per person are not stated ("max_rows": null, as `plan new`
# and the app write it until the owner types k; or left out): check and release refuse it in
# one line, exit 2, nothing charged (the app alone opens it, to ask for k)
UNSTATED = {"kind": "person", "id_column": "g", "max_rows": None}
ROWS_REQUIRED = ("privacy_unit.max_rows: is required: the most rows one person may have, from "
                 "how the data was collected")
plan("unit-max-rows-null.json", with_top(privacy_unit=UNSTATED), ROWS_REQUIRED)
plan("unit-max-rows-null-release.json", with_top(privacy_unit=UNSTATED), ROWS_REQUIRED)
cases[-1]["command"] = "release"
plan("unit-max-rows-missing.json", with_top(privacy_unit={"kind": "person", "id_column": "g"}),
     ROWS_REQUIRED)

# oldbundles: a release.json whose report format is not a whole number from 1 is not valid;
# one of a later release format names the version that made it
for recipe, message in (
        ("report-format-text", "release.json: software.report_format must be a whole number "
                               "from 1"),
        ("report-format-zero", "release.json: software.report_format must be a whole number "
                               "from 1"),
        ("report-format-true", "release.json: software.report_format must be a whole number "
                               "from 1"),
        ("release-format-4", "release.json: is a planner-app/release@4 record, made by "
                             "planner-app ")):
    cases.append({"file": f"crafted/{recipe}.zip", "command": "verify", "exit": 1,
                  "message": message})

# walkcore: a count of people (distinct ids) needs an id unit; "of" is a count's field only
PEOPLE_COUNT = {"id": "n", "kind": "count", "of": "people", "epsilon": 0.5}
plan("count-people-row-unit.json",
     with_top(queries=[PEOPLE_COUNT] + copy.deepcopy(PLAN["queries"][1:])),
     "queries[n].of: counts people by the unit's id column")
plan("count-of-on-a-sum.json", with_query(of="people"), "queries[s].of: is not used by kind sum")
plan("count-of-unknown.json",
     with_top(privacy_unit={"kind": "person", "id_column": "g", "max_rows": 2},
              queries=[{**PEOPLE_COUNT, "of": "households"}]),
     "queries[n].of: 'households' is not one of: rows, people")

# engine24: a grid too fine for exact sums is refused from the plan's numbers, by check and
# by release before any row is read or anything charged
FINE = with_query(kind="variance", lower=0, upper=2**41, grid_step=1)
plan("grid-too-fine-variance.json", FINE,
     "queries[s].grid_step: is too fine for these bounds (more than 2^40 steps)")
plan("grid-too-fine-variance-release.json", FINE,
     "queries[s].grid_step: is too fine for these bounds (more than 2^40 steps)")
cases[-1]["command"] = "release"

# columnar24: release@2 keeps each statistic's results as arrays; a tampered table is named
for recipe, message in (
        ("columns-unequal-length", "values, not its"),
        ("columns-label-swapped", "cell 1 is labelled")):
    cases.append({"file": f"crafted/{recipe}.zip", "command": "verify", "exit": 1,
                  "message": message})

# params: a field of another kind on a synthetic table is refused, never silently dropped
synth("of-on-synthetic", with_synthetic(of="people"),
      f"{SYNTH}.of: is not used by kind synthetic")

# controllers: a review decision on a plan file that is a symbolic link (the test makes the
# link to a good plan): the reviewer chose no name, so the line says what to review instead
cases.append({"file": "special/review-link.json", "command": "review", "exit": 2,
              "message": "is a symbolic link, not a regular file; a decision is written into "
                         "the plan file itself, never through a link: review "})

# api27: notebooks (export-notebook, report --notebook): a plan or bundle that does not read
# makes no notebook; a notebook's output is named .ipynb and checked as every output is
for name, message in (("truncated.json", "invalid JSON"),
                      ("a-list.json", "a plan must be a JSON object")):
    cases.append({"file": f"plans/{name}", "command": "export-notebook", "exit": 2,
                  "message": message})
cases.append({"file": "bundles/text-file.zip", "command": "report-notebook", "exit": 2,
              "message": "is not a zip file"})
for name, message in (("plan.txt", "'plan.txt' must end in .ipynb (a Jupyter notebook)"),
                      ("read-only/plan.ipynb", "cannot be written in its folder"),
                      ("full-disk/plan.ipynb", "MB free"),
                      ("n.ipynb/", "n.ipynb/ ends with '/', so it names a folder, not a file")):
    cases.append({"file": f"outputs/{name}", "command": "export-notebook-out", "exit": 2,
                  "message": message})
cases.append({"file": "outputs/results.html", "command": "report-notebook-out", "exit": 2,
              "message": "'results.html' must end in .ipynb (a Jupyter notebook)"})

# cons27: relations between statistics (issue 27) are refused at plan read unless the plan
# makes both count the same rows, and at release (before the charge) unless the table's
# exact counts obey them
def with_relations(relations: Any, queries: list[dict[str, Any]] | None = None,
                   **options: Any) -> dict[str, Any]:
    doc = with_top(consistency={"relations": relations, **options})
    if queries is not None:
        doc["queries"] = copy.deepcopy(PLAN["queries"]) + queries
    return doc


BY_G = {"id": "by_g", "kind": "count", "epsilon": 0.1,
        "group_by": {"column": "g", "keys": ["a", "b"]},
        "justification": {"keys": "the form's two options"}}
for name, doc, message in (
        ("relation-unknown-id", with_relations([{"total": "n", "parts": "nope"}]),
         "consistency.relations[0].parts: names no statistic of this plan ('nope')"),
        ("relation-sum-of-a-histogram", with_relations([{"total": "s", "parts": "h"}]),
         "consistency.relations[0].parts: 'h' is a histogram: the parts of a sum must be a "
         "sum with a group_by"),
        ("relation-parts-itself", with_relations([{"total": "n", "parts": "n"}]),
         "consistency.relations[0].parts: is the total itself"),
        ("relation-where-differs",
         with_relations([{"total": "n", "parts": "by_g"}],
                        [{**BY_G, "where": [{"column": "x", "op": ">", "value": 2}]}]),
         "consistency.relations[0].parts: 'by_g' and 'n' have different where filters"),
        ("relation-missing-rule-differs", with_relations([{"total": "n", "parts": "h"}]),
         "consistency.relations[0].parts: 'h' counts rows where g is present, but 'n' "
         "counts every row"),
        ("relation-within-without-groups",
         with_relations([{"total": "n", "parts": "by_g", "within": {"a": ["a"]}}], [BY_G]),
         "consistency.relations[0].within: is only used when the total has a group_by"),
        ("relation-parts-twice",
         with_relations([{"total": "n", "parts": "by_g"}, {"total": "n2", "parts": "by_g"}],
                        [BY_G, {"id": "n2", "kind": "count", "epsilon": 0.1}]),
         "consistency.relations[1].parts: 'by_g' is already the parts of relations[0]"),
        ("relation-not-a-list", with_relations({"total": "n", "parts": "by_g"}, [BY_G]),
         "consistency.relations: must be a non-empty list"),
        ("relation-headline-unknown",
         with_relations([{"total": "n", "parts": "by_g"}], [BY_G], headline="best"),
         "consistency.headline: 'best' is not one of: raw, consistent")):
    plan(f"{name}.json", doc, message)
# a relation the plan allows but the table breaks (a row of g = b is in no cell): the
# release is refused before the charge, naming the relation, never a number
plan("relation-broken-by-table.json",
     with_relations([{"total": "n", "parts": "by_a"}],
                    [{**BY_G, "id": "by_a", "group_by": {"column": "g", "keys": ["a"]}}]),
     "consistency.relations[0]: in this table the cells of 'by_a' do not add up to 'n'")
cases[-1]["command"] = "release"
# a crafted release.json whose consistency section is malformed: named, never a crash
for recipe, message in (
        ("consistency-queries-not-a-list", "release.json: consistency.queries is missing or "
                                           "not list"),
        ("consistency-arrays-unequal", "release.json: consistency.queries[0]: value, low and "
                                       "high must be lists of numbers of one length")):
    cases.append({"file": f"crafted/{recipe}.zip", "command": "verify", "exit": 1,
                  "message": message})

# disc25: discovery plans (issue 25): their own fields, a non-discovery entry given to
# `discover`, a value still naming a discovery, a list that says it was found privately in a
# bundle not given, and a discovery bundle that is no bundle
DISCOVER_KEYS = {"id": "found", "kind": "discover_keys", "mechanism": "laplace_threshold",
                 "column": "g", "epsilon": 0.5, "delta": 1e-7}
DISCOVER_BOUNDS = {"id": "range", "kind": "discover_bounds", "column": "x", "lower": -100,
                   "upper": 100, "epsilon": 0.5, "justification": {"bounds": "a wide grid"}}
plan("discover-keys-no-delta.json", with_top(queries=[{**DISCOVER_KEYS, "delta": 0}]),
     "queries[found].delta: the laplace_threshold mechanism needs a delta above 0")
plan("discover-keys-max-keys-zero.json", with_top(queries=[{**DISCOVER_KEYS, "max_keys": 0}]),
     "queries[found].max_keys: must be between 1 and 1,000")
plan("discover-keys-counts-text.json",
     with_top(queries=[{**DISCOVER_KEYS, "publish_counts": "yes"}]),
     "queries[found].publish_counts: must be true or false")
plan("discover-keys-imputed.json",
     with_top(queries=[{**DISCOVER_KEYS, "missing": {"impute": "a"}}]),
     "queries[found].missing: a discovery of keys finds the values present")
plan("discover-keys-grouped.json",
     with_top(queries=[{**DISCOVER_KEYS, "group_by": {"column": "g", "keys": ["a"]}}]),
     "queries[found].group_by: discover_keys takes no group_by")
plan("discover-bounds-reversed.json",
     with_top(queries=[{**DISCOVER_BOUNDS, "quantiles": [0.9, 0.1]}]),
     "queries[range].quantiles: the lower bound's level must be below the upper bound's")
plan("discover-bounds-one-level.json", with_top(queries=[{**DISCOVER_BOUNDS, "quantiles": [0.5]}]),
     "queries[range].quantiles: must be two numbers")
plan("discovered-name-left.json", with_query(lower="discovered:range", upper="discovered:range"),
     "queries[s].lower: names a discovery (discovered:range): write what it found into the "
     "plan first, with planner-app plan apply-discovery")
plan("discovered-bundle-not-given.json", with_query(justification={
    "bounds": "found privately in release abc123 (ε = 0.5, δ = 0); bundle manifest SHA-256 "
              + "0" * 64 + ", statistic range"}),
     "queries[s].justification.bounds: says it was found privately in release abc123: give "
     "that discovery bundle with --discovery BUNDLE.zip")
plan("discover-not-only-discoveries.json", with_top(queries=[DISCOVER_KEYS] + PLAN["queries"]),
     "a discovery plan holds only discover_keys, discover_bounds statistics; n, s, h are not")
cases[-1]["command"] = "discover"
bundle("discovery-not-a-zip.zip", [], 2, "is not a zip file", raw=b"not a zip at all")
cases[-1]["command"] = "apply-discovery"

# fixed24: a quantile the sampler could not finish is refused by release from public figures
# (its grid and dataset.expected_rows), before the table is read and before the charge
FINE_QUANTILE = with_query(kind="quantile", lower=0, upper=2**30, grid_step=1, quantile=0.5)
plan("quantile-grid-no-rows-release.json", FINE_QUANTILE,
     "query s: the quantile grid has 1,073,741,825 points; the release can only run on a "
     "table of at most 2,097,151 rows: state dataset.expected_rows")
cases[-1]["command"] = "release"
plan("quantile-grid-many-rows-release.json",
     {**FINE_QUANTILE, "dataset": {**FINE_QUANTILE["dataset"], "expected_rows": 3_000_000}},
     "query s: the quantile grid has 1,073,741,825 points and the table more than 2,097,151 "
     "rows (dataset.expected_rows)")
cases[-1]["command"] = "release"

# pg26: a policy's "ledger" section (the office's shared ledger, issue 26): never a password,
# only PostgreSQL, only in a policy@2; the test signs each file with a key it trusts, so the
# refusal is the section's own (policy install, exit 2, nothing installed)
OFFICE_POLICY = {"format": "planner-app/policy@2", "version": 1, "name": "Office"}
for name, ledger, message in (
        ("policy-ledger-password.json", {"url": "postgresql://u:secret@db.example/planner"},
         "ledger.url: holds a password: credentials never go in the policy"),
        ("policy-ledger-password-param.json",
         {"url": "postgresql://u@db.example/planner?password=secret"},
         "ledger.url: holds a password"),
        ("policy-ledger-password-field.json",
         {"url": "postgresql://u@db.example/planner", "password": "secret"},
         "ledger.password: is not a field of the ledger section"),
        ("policy-ledger-not-postgres.json", {"url": "mysql://u@db.example/planner"},
         "ledger.url: must start with postgresql://"),
        ("policy-ledger-no-url.json", {"sslmode": "require"},
         "ledger.url: is missing"),
        ("policy-ledger-not-object.json", "postgresql://u@db.example/planner",
         "ledger: must be an object"),
        ("policy-ledger-number.json", {"url": "postgresql://u@db/p", "connect_timeout": True},
         "ledger.connect_timeout: must be text")):
    cases.append({"file": f"special/{name}", "command": "policy-install", "exit": 2,
                  "doc": {**OFFICE_POLICY, "ledger": ledger}, "message": message})
cases.append({"file": "special/policy-ledger-in-policy-1.json", "command": "policy-install",
              "exit": 2, "doc": {**OFFICE_POLICY, "format": "planner-app/policy@1",
                                 "ledger": {"url": "postgresql://u@db.example/planner"}},
              "message": "format: must be 'planner-app/policy@2' when the policy names a "
                         "shared ledger"})

# aim25: AIM's workload (pairs, triples) is refused with MST, and checked with AIM; an AIM
# table's adaptive rounds compose in zCDP only, so the pld accountant is refused
synth("pairs-with-mst", with_synthetic(pairs=[["g", "x"]]),
      f'{SYNTH}.pairs: is AIM\'s workload; it needs "method": "aim"')
synth("aim-pairs-unknown-column", with_synthetic(method="aim", pairs=[["g", "y"]]),
      f"{SYNTH}.pairs[0]: 'y' is not one of this table's columns")
synth("aim-pairs-empty", with_synthetic(method="aim", pairs=[]),
      f"{SYNTH}.pairs: must name at least one pair")
synth("aim-triples-short", with_synthetic(method="aim", triples=[["g", "x"]]),
      f"{SYNTH}.triples[0]: must be a list of 3 column names")
synth("aim-pld-accountant",
      {**with_synthetic(method="aim"), "budget": {"epsilon": 2.0, "delta": 1e-6,
                                                  "accountant": "pld"}},
      "budget.accountant: a synthetic table by AIM spends its rounds adaptively, which only "
      "zCDP composes")

# fixapi: a bundle given where a plan is expected is named as one (check, apply-discovery);
# a whole number too long to read names its field; a missing bundle is named once
_as_plan = io.BytesIO()
with zipfile.ZipFile(_as_plan, "w") as _zf:  # a bundle's shape: fixed date, one member
    _zf.writestr(zipfile.ZipInfo("release.json", date_time=(2020, 1, 1, 0, 0, 0)), "{}")
plan("bundle-given-as-plan.zip", None, "bundle-given-as-plan.zip: is a zip file (a release "
     "bundle?), not a plan file", raw=_as_plan.getvalue())
plan_text("long-int-epsilon.json", json.dumps(with_query(epsilon=7777)).replace("7777", "9" * 5000),
          "queries[s].epsilon: is a 5,000-digit number, too long to read")
plan_text("long-int-max-keys.json",
          json.dumps(with_top(queries=[{**DISCOVER_KEYS, "max_keys": 7777}])).replace(
              "7777", "1" * 5000),
          "queries[found].max_keys: is a 5,000-digit number, too long to read")
plan_text("long-int-negative-rows.json",
          json.dumps(with_top(dataset={"name": "t", "expected_rows": -7777})).replace(
              "7777", "2" * 4400),
          "dataset.expected_rows: is a 4,400-digit number, too long to read")
cases.append({"file": "bundles/no-such-discovery.zip", "command": "apply-discovery", "exit": 2,
              "message": "error: no-such-discovery.zip: no such file"})

# fixdisc: the review of discovery (issue 25): release refuses a list found privately in a
# bundle not given (as check does), a discovery of keys with a vacuous delta, and a discovery
# of bounds whose grid_step leaves too few grid points, all before any charge
plan("release-discovered-bundle-not-given.json", with_query(justification={
    "bounds": "found privately in release abc123 (ε = 0.5, δ = 0); bundle manifest SHA-256 "
              + "0" * 64 + ", statistic range"}),
     "queries[s].justification.bounds: says it was found privately in release abc123: give "
     "that discovery bundle with --discovery BUNDLE.zip")
cases[-1]["command"] = "release"
plan("discover-keys-vacuous-delta.json", with_top(queries=[{**DISCOVER_KEYS, "delta": 0.9}]),
     "queries[found].delta: is the chance that a key one person alone holds is published: "
     "at most 0.001")
plan("discover-bounds-step-too-wide.json",
     with_top(queries=[{**DISCOVER_BOUNDS, "grid_step": 1048576}]),
     "queries[range].grid_step: is 1,048,576, which leaves fewer than 8 steps")
cases[-1]["command"] = "discover"

# core25: the Gaussian discovery of keys (gaussian_threshold): a plain gaussian is not a
# discovery's mechanism, its delta must be above 0, and an epsilon at which its noise would be
# set by delta alone is refused naming epsilon, all before any charge
plan("discover-keys-plain-gaussian.json",
     with_top(queries=[{**DISCOVER_KEYS, "mechanism": "gaussian"}]),
     "queries[found].mechanism: 'gaussian' is not one of: laplace_threshold, gaussian_threshold")
plan("discover-keys-gaussian-no-delta.json",
     with_top(queries=[{**DISCOVER_KEYS, "mechanism": "gaussian_threshold", "delta": 0}]),
     "queries[found].delta: the gaussian_threshold mechanism needs a delta above 0")
plan("discover-keys-gaussian-tiny-epsilon.json",
     with_top(queries=[{**DISCOVER_KEYS, "mechanism": "gaussian_threshold", "epsilon": 1e-15}]),
     "queries[found].epsilon: ε = 1e-15 is too small for this statistic to say anything")
cases[-1]["command"] = "discover"

# cal26: a programme (a plan released on a schedule, plan@2): its dates named by field, the
# format it needs, and `ledger forecast --plan` given a plan that is no programme (a release
# on a day that is no scheduled date's is a refusal, exit 3: tests/cli/test_programme_cli.py)
_AT2 = "planner-app/plan@2"
plan("programme-not-a-date.json",
     with_top(format=_AT2, programme={"name": "m", "start": "2027-02-30", "every": "month"}),
     "programme.start: '2027-02-30' is not a date of the calendar")
plan("programme-in-plan-at-1.json", with_top(programme={"name": "m", "dates": ["2099-01-01"]}),
     'programme: needs "format": "planner-app/plan@2"')
plan("programme-dates-out-of-order.json",
     with_top(format=_AT2, programme={"name": "m", "dates": ["2099-02-01", "2099-01-01"]}),
     "programme.dates[1]: must come after the date before it")
plan("programme-every-fortnight.json",
     with_top(format=_AT2, programme={"name": "m", "start": "2099-01-01", "every": "fortnight"}),
     "programme.every: 'fortnight' is not one of: week, month, quarter, year")
plan("forecast-plan-not-a-programme.json", with_top(),
     "programme: is required for a forecast: the plan is not released on a schedule")
cases[-1]["command"] = "forecast"
plan("forecast-plan-of-another-dataset.json",
     with_top(format=_AT2, dataset={"name": "other"},
              programme={"name": "m", "dates": ["2099-01-01"]}),
     "dataset.name: is 'other', not the dataset 'corpus' forecast")
cases[-1]["command"] = "forecast"

# gui27: a histogram whose declared categories miss a value the count includes (g = b):
# check --data names it and the release refuses it before the charge, naming the relation
plan("relation-histogram-misses-a-category.json",
     with_relations([{"total": "ng", "parts": "h1"}],
                    [{"id": "ng", "kind": "count", "column": "g", "epsilon": 0.1},
                     {"id": "h1", "kind": "histogram", "column": "g", "categories": ["a"],
                      "epsilon": 0.1, "justification": {"categories": "the first option"}}]),
     "consistency.relations[0]: in this table the cells of 'h1' do not add up to 'ng'")
cases[-1]["command"] = "release"

# walk25c: a discovery of bounds at quantile 0 or 1 (the column's minimum or maximum): check
# said "internal error (ZeroDivisionError)"; it now says why such a bound can land far (exit 0)
plan("discover-bounds-quantiles-at-the-edge.json",
     with_top(queries=[{**DISCOVER_BOUNDS, "quantiles": [0, 1]}]),
     "on a table of any size")
cases[-1]["exit"] = 0

(HERE / "cases.json").write_text(json.dumps({"plan": PLAN, "good_table": GOOD,
                                             "synthetic_plan": with_synthetic(),
                                             "cases": cases}, indent=1) + "\n")
print(f"{len(cases)} cases")
