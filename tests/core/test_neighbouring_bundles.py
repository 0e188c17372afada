"""The general guard: a bundle depends on the private data only through noise.

The same plan is released on two neighbouring tables (one person more, or one person's data
replaced) with the noise source fixed. Both bundles are unzipped and compared structurally:
every file, every JSON field, every CSV row and cell must be equal, except the fields that are
allowed to differ -- noised values and their intervals, the release id, times, and hashes of
files that hold those. Any field that is a deterministic function of the data (a hash of the
file, a count of rows, answers or dropped cells, a fine timestamp) makes the two bundles differ
somewhere else, and this test fails.

Neighbouring tables consume the seeded random stream differently (contribution bounding draws
words per row, randomized response per answer), so the noised numbers themselves are never
compared, only the shapes, keys and every field that is not noise. The data and the ε are
chosen so that no post-processing note depends on the noise (no cell's noisy count near 0, no
count clamped).
"""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from planner_app.core.data.tables import load_table
from planner_app.core.dp.mechanisms import SeededRandomSource
from planner_app.core.planfile import plan_from_dict
from planner_app.core.records.ledger import Ledger
from planner_app.core.release.bundle import (
    AUDIT,
    MANIFEST,
    PLAN,
    README,
    RECORD,
    REPORT_HTML,
    REPORT_PDF,
    RESULTS,
    read_bundle,
)
from planner_app.core.release.publish import publish, readme_text
from planner_app.core.release.report import report_html
from planner_app.core.support.home import app_home
from tests.conftest import with_reasons
from tests.record_rows import edit_rows

MASK = "<differs>"
EPS = 3.0
BOUNDS = {"lower": 0, "upper": 100}
WHERE = [{"column": "w", "op": "==", "value": 1}]
GROUPS = {"column": "g", "keys": ["a", "b", "c"]}

KINDS: dict[str, list[dict[str, Any]]] = {
    "count": [
        {"id": "rows", "kind": "count"},
        {"id": "present", "kind": "count", "column": "x", "where": WHERE},
    ],
    "sum": [
        {"id": "total", "kind": "sum", "column": "x", **BOUNDS, "where": WHERE},
        {"id": "total_imputed", "kind": "sum", "column": "x", **BOUNDS,
         "missing": {"impute": 50}},
    ],
    "mean": [
        {"id": "mean", "kind": "mean", "column": "x", **BOUNDS},
        {"id": "mean_filtered", "kind": "mean", "column": "x", **BOUNDS, "where": WHERE,
         "missing": {"impute": 50}},
    ],
    "variance": [
        {"id": "var", "kind": "variance", "column": "x", **BOUNDS, "where": WHERE},
    ],
    "histogram": [
        {"id": "colours", "kind": "histogram", "column": "cat",
         "categories": ["red", "green", "blue"], "where": WHERE},
        {"id": "bands", "kind": "histogram", "column": "x", "bins": [0, 25, 50, 75, 100],
         "missing": {"impute": 50}},
    ],
    "quantile": [
        {"id": "median", "kind": "quantile", "column": "x", **BOUNDS, "quantile": 0.5},
        {"id": "p90", "kind": "quantile", "column": "x", **BOUNDS, "quantile": 0.9,
         "where": WHERE},
    ],
    "randomized_response": [
        {"id": "answers", "kind": "randomized_response", "column": "ans"},
    ],
    "group-by": [
        {"id": "n_by_g", "kind": "count", "group_by": GROUPS, "where": WHERE},
        {"id": "sum_by_g", "kind": "sum", "column": "x", **BOUNDS, "group_by": GROUPS},
        {"id": "mean_by_g", "kind": "mean", "column": "x", **BOUNDS, "group_by": GROUPS,
         "missing": {"impute": 50}},
        {"id": "colours_by_g", "kind": "histogram", "column": "cat",
         "categories": ["red", "green", "blue"], "group_by": GROUPS},
    ],
    # issue 27: a total and its groups, released with consistent values (CONSISTENCY)
    "consistent": [
        {"id": "all", "kind": "count", "where": WHERE},
        {"id": "all_by_g", "kind": "count", "group_by": GROUPS, "where": WHERE},
    ],
    # issue 25: the keys found are the same on both sides (every group is held by far more
    # people than the threshold), so only the noised counts may differ; the bounds are
    # noise alone. (Which keys clear the threshold is noise too: a key near it would make
    # the row counts differ, so none is.)
    "discovery": [
        {"id": "found_groups", "kind": "discover_keys", "mechanism": "laplace_threshold",
         "column": "g", "delta": 1e-6, "max_keys": 2, "publish_counts": True},
        {"id": "found_groups_only", "kind": "discover_keys", "mechanism": "laplace_threshold",
         "column": "g", "delta": 1e-6, "where": WHERE},
        {"id": "found_range", "kind": "discover_bounds", "column": "x", "lower": -1000,
         "upper": 1000},
        # core25: the Gaussian variant, its counts published with their intervals
        {"id": "found_groups_gauss", "kind": "discover_keys",
         "mechanism": "gaussian_threshold", "column": "g", "delta": 1e-6, "max_keys": 2,
         "publish_counts": True},
    ],
}
CONSISTENCY = {"consistent": {"relations": [{"total": "all", "parts": "all_by_g"}],
                              "non_negative": True, "integer": True,
                              "headline": "consistent"}}

UNITS = {
    "row": {"kind": "row"},
    "person-k2": {"kind": "person", "id_column": "pid", "max_rows": 2},
}
RELATIONS = ("add-remove", "replace-one")

# a privacy audit: 40 releases on neighbouring tables (about 200 s of CPU; issue 23)
pytestmark = pytest.mark.audit


# ----------------------------------------------------------------------------- the tables


def base_table(unit: str) -> pd.DataFrame:
    """About 240 rows; x has missing cells, cat has values outside the declared categories,
    ans has missing answers; with persons, some have more rows than k."""
    rng = np.random.RandomState(7)
    n = 240
    if unit == "row":
        pid = [f"R{i:04d}" for i in range(n)]
    else:
        pid = [f"P{i // 3 if i % 5 else i // 2:04d}" for i in range(n)]  # 1 to 3 rows each
    x = rng.randint(5, 96, n).astype(float)
    x[rng.rand(n) < 0.05] = np.nan
    cat = rng.choice(["red", "green", "blue", "purple"], n, p=[0.3, 0.3, 0.3, 0.1]).astype(object)
    cat[rng.rand(n) < 0.05] = None
    ans = rng.choice(["yes", "no"], n).astype(object)
    ans[rng.rand(n) < 0.05] = None
    return pd.DataFrame({"pid": pid, "g": rng.choice(["a", "b", "c"], n),
                         "w": rng.randint(0, 2, n), "x": x, "cat": cat, "ans": ans})


def neighbour(frame: pd.DataFrame, unit: str, relation: str) -> pd.DataFrame:
    if relation == "add-remove":
        rows = 1 if unit == "row" else 3  # a new person; with k = 2, one row more than k
        extra = pd.DataFrame({"pid": ["NEW"] * rows, "g": ["b"] * rows, "w": [1] * rows,
                              "x": [37.0] * rows, "cat": ["red"] * rows, "ans": ["yes"] * rows})
        return pd.concat([frame, extra], ignore_index=True)
    # replace-one: one person's data becomes something else -- a missing number, a category
    # outside the declared ones, another group, the filter flipped, a missing answer; with
    # persons, their number of rows changes too
    who = frame["pid"].iloc[0]
    mine = frame[frame["pid"] == who]
    rows = len(mine) if unit == "row" else len(mine) % 3 + 1
    other = pd.DataFrame({"pid": [who] * rows, "g": ["c"] * rows,
                          "w": [1 - int(mine["w"].iloc[0])] * rows, "x": [np.nan] * rows,
                          "cat": ["purple"] * rows, "ans": [None] * rows})
    rest = frame[frame["pid"] != who]
    return pd.concat([other, rest], ignore_index=True)


def plan_for(kind: str, unit: str, relation: str) -> dict[str, Any]:
    queries = [{**q, "epsilon": EPS} for q in KINDS[kind]]
    return {
        "format": "planner-app/plan@1",
        "dataset": {"name": "neighbours"},
        "privacy_unit": UNITS[unit],
        "neighbouring": relation,
        "budget": {"epsilon": EPS * len(queries),
                   "delta": sum(q.get("delta", 0.0) for q in queries)},
        "queries": queries,
        **({"consistency": CONSISTENCY[kind]} if kind in CONSISTENCY else {}),
    }


# ----------------------------------------------------------------------------- the masks


def _noised(value: Any) -> Any:
    return None if value is None else MASK


def masked_record(record: dict[str, Any]) -> dict[str, Any]:
    out = json.loads(json.dumps(record))
    out["release_id"] = MASK
    out["created_utc"] = MASK
    commitment = out.get("dataset", {}).get("file_commitment")
    if isinstance(commitment, dict) and "value" in commitment:
        # a keyed hash under a secret fresh for each release: pseudorandom to a recipient
        commitment["value"] = MASK
    def mask(rows: list[dict[str, Any]]) -> None:
        for row in rows:
            for key in ("value", "low", "high"):
                row[key] = _noised(row[key])

    edit_rows(out, mask)
    for q in (out.get("consistency") or {}).get("queries", []):  # issue 27: noised too
        for key in ("value", "low", "high"):
            q[key] = [_noised(v) for v in q[key]]
    return out


def masked_audit(text: str) -> list[dict[str, Any]]:
    entries = [json.loads(line) for line in text.splitlines() if line.strip()]
    for e in entries:
        e["time"] = e["hash"] = e["prev"] = MASK
        params = e["params"]
        for key in ("release_id", "release_prev"):
            if params.get(key) is not None:
                params[key] = MASK
        if isinstance(params.get("file_commitment"), dict):  # keyed, fresh key per release
            params["file_commitment"]["value"] = MASK
        if "files" in params:  # hashes of files that hold noised values: names only
            params["files"] = sorted(params["files"])
    return entries


def masked_results(text: str) -> list[dict[str, Any]]:
    rows = list(csv.DictReader(io.StringIO(text)))
    for row in rows:
        for key in ("value", "low", "high", "consistent", "consistent_low",
                    "consistent_high"):
            if key in row:
                row[key] = row[key] and MASK
    return rows


def masked_noised(text: str, query: dict[str, Any]) -> dict[str, Any]:
    lines = text.splitlines()
    # each published answer is noise; how many there are is data unless release.json says
    # that number was noised (a "count" component with a mechanism)
    noised_length = any(c.get("name") == "count" and c.get("mechanism") != "none"
                        for c in query.get("components", []))
    return {"header": lines[:1], "answers": MASK if noised_length else len(lines) - 1,
            "only_yes_no": set(lines[1:]) <= {"yes", "no"}}


def masked_text(text: str, record: dict[str, Any]) -> str:
    text = text.replace(record["release_id"], MASK).replace(record["created_utc"], MASK)
    commitment = record["dataset"].get("file_commitment")
    if isinstance(commitment, dict) and commitment.get("value"):
        text = text.replace(commitment["value"], MASK)
    return text


def bundle_view(path: Path) -> dict[str, Any]:
    """Every member of a bundle with only the fields that may differ masked."""
    files = read_bundle(path)
    record = json.loads(files[RECORD])
    plan = plan_from_dict(json.loads(files[PLAN]), PLAN)
    # the report and the README are functions of release.json alone, so whatever they show
    # is compared field by field through the record
    assert files[REPORT_HTML].decode("utf-8") == report_html(record)
    assert files[README].decode("utf-8") == readme_text(plan, record)
    assert files[REPORT_PDF][:5] == b"%PDF-"
    view: dict[str, Any] = {"members": sorted(files)}
    for name, data in files.items():
        text = data.decode("utf-8") if name != REPORT_PDF else ""
        if name == RECORD:
            view[name] = masked_record(record)
        elif name == AUDIT:
            view[name] = masked_audit(text)
        elif name == RESULTS:
            view[name] = masked_results(text)
        elif name == MANIFEST:
            view[name] = sorted(line.split("  ", 1)[1] for line in text.splitlines())
        elif name.startswith("noised/"):
            query_id = name[len("noised/"):-len(".csv")]
            query = next(q for q in record["queries"] if q["id"] == query_id)
            view[name] = masked_noised(text, query)
        elif name == README:
            view[name] = masked_text(text, record)
        elif name in (REPORT_HTML, REPORT_PDF):
            continue  # rendered from release.json alone (asserted above and in a test below)
        else:
            view[name] = text
    return view


# ----------------------------------------------------------------------------- the guard


def differences(a: Any, b: Any, where: str = "") -> list[str]:
    """Where two views differ: 'member/field/index: a != b', every difference, not the first."""
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        for key in sorted(set(a) | set(b), key=str):
            if key not in a or key not in b:
                out.append(f"{where}/{key}: only in {'a' if key in a else 'b'}")
            else:
                out += differences(a[key], b[key], f"{where}/{key}")
        return out
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return [f"{where}: {len(a)} items != {len(b)} items"]
        return [d for i, (x, y) in enumerate(zip(a, b, strict=True))
                for d in differences(x, y, f"{where}[{i}]")]
    if a != b:
        if isinstance(a, str) and isinstance(b, str) and len(a) > 200:
            at = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y),
                      min(len(a), len(b)))
            lo = max(0, at - 60)
            return [f"{where}: ...{a[lo:at + 60]!r} != ...{b[lo:at + 60]!r}"]
        return [f"{where}: {a!r} != {b!r}"]
    return []



def release(frame: pd.DataFrame, doc: dict[str, Any], folder: Path) -> Path:
    folder.mkdir()
    data = folder / "table.csv"  # the same file name on both sides
    frame.to_csv(data, index=False)
    out = folder / "bundle.zip"
    home = app_home(folder / "home")
    Ledger(home.ledger_path).set_cap(doc["dataset"]["name"], 100.0, 1e-5)
    publish(plan_from_dict(with_reasons(doc), "plan.json"), load_table(data), out,
            home, source=SeededRandomSource(20261122))
    return out


CASES = [pytest.param(kind, unit, relation, id=f"{kind}-{unit}-{relation}")
         for kind in KINDS for unit in UNITS for relation in RELATIONS]


@pytest.mark.parametrize("kind, unit, relation", CASES)
def test_neighbouring_bundles_differ_only_in_noise(tmp_path: Path, kind: str, unit: str,
                                                   relation: str) -> None:
    doc = plan_for(kind, unit, relation)
    frame = base_table(unit)
    other = neighbour(frame, unit, relation)
    assert not frame.equals(other)
    a = bundle_view(release(frame, doc, tmp_path / "a"))
    b = bundle_view(release(other, doc, tmp_path / "b"))
    assert a["members"] == b["members"]
    found = differences(a, b)
    assert not found, "differ between neighbouring tables:\n" + "\n".join(found)


def test_the_masks_hide_only_what_may_differ(tmp_path: Path) -> None:
    """The guard can fail: the same table released twice gives equal views, a table that
    differs in one person's file bytes gives a different raw record, and an unmasked
    data-dependent field (here the number of rows, planted) is caught."""
    doc = plan_for("count", "row", "add-remove")
    frame = base_table("row")
    a = release(frame, doc, tmp_path / "a")
    b = release(frame, doc, tmp_path / "b")
    assert bundle_view(a) == bundle_view(b)
    record = json.loads(read_bundle(a)[RECORD])
    planted = {**record, "rows": len(frame)}
    other = {**record, "rows": len(frame) + 1}
    assert masked_record(planted) != masked_record(other)
    assert masked_results("value,low,high,note\n1,0,2,among 240 rows\n") != \
        masked_results("value,low,high,note\n1,0,2,among 241 rows\n")


def test_report_pdf_is_rendered_from_the_record_alone(tmp_path: Path) -> None:
    from planner_app.core.release.report import report_pdf

    doc = plan_for("mean", "row", "add-remove")
    files = read_bundle(release(base_table("row"), doc, tmp_path / "a"))
    record = json.loads(files[RECORD])
    assert files[REPORT_PDF] == report_pdf(record)


def test_published_times_are_whole_seconds(tmp_path: Path) -> None:
    doc = plan_for("quantile", "row", "add-remove")
    files = read_bundle(release(base_table("row"), doc, tmp_path / "a"))
    whole = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")
    record = json.loads(files[RECORD])
    assert whole.match(record["created_utc"]), record["created_utc"]
    times = [json.loads(line)["time"] for line in files[AUDIT].decode().splitlines()]
    assert times and all(whole.match(t) for t in times), times
    # one time for the whole segment: the bundle shows no duration (of sampling or any step)
    assert set(times) == {record["created_utc"]}
    # no finer time anywhere in the text members
    fine = re.compile(r"\d\d:\d\d:\d\d[.,]\d")
    for name, data in files.items():
        if name != REPORT_PDF:
            assert not fine.search(data.decode("utf-8")), name


# ----------------------------------------------------------------------------- a CSV by hand

# The tables above are written by pandas and keep their column types. A CSV written by hand
# can hold one cell that is not a number (or not true/false) in a column of numbers: pandas then
# reads the whole column as text. The neighbour adds exactly such a row; the release must
# not change how any other cell reads (docs/plan-format.md, matching by each cell's own text).
HAND_QUERIES = [
    {"id": "ones", "kind": "count", "where": [{"column": "w", "op": "==", "value": 1}]},
    {"id": "by_region", "kind": "count", "group_by": {"column": "g", "keys": ["01", "02"]}},
    {"id": "years", "kind": "histogram", "column": "year", "categories": [2024, 2025]},
    {"id": "flag", "kind": "randomized_response", "column": "f", "yes": [True], "no": [False]},
    {"id": "total", "kind": "sum", "column": "x", **BOUNDS},
]


def _hand_table(extra: str = "") -> str:
    lines = ["pid,g,w,year,f,x"]
    lines += [f"R{i:04d},{'01' if i % 2 else '02'},{1.0 if i % 3 else 0.0},"
              f"{2025.0 if i % 4 else 2024.0},{bool(i % 5)},{i % 90 + 5}" for i in range(240)]
    return "\n".join(lines) + "\n" + extra


def _release_text(text: str, doc: dict[str, Any], folder: Path) -> Path:
    folder.mkdir()
    data = folder / "table.csv"
    data.write_text(text, encoding="utf-8")
    out = folder / "bundle.zip"
    home = app_home(folder / "home")
    Ledger(home.ledger_path).set_cap(doc["dataset"]["name"], 100.0, 1e-5)
    publish(plan_from_dict(with_reasons(doc), "plan.json"), load_table(data), out,
            home, source=SeededRandomSource(20261122))
    return out


def test_hand_written_csv_with_one_text_row(tmp_path: Path) -> None:
    doc = {"format": "planner-app/plan@1", "dataset": {"name": "neighbours"},
           "privacy_unit": {"kind": "row"}, "neighbouring": "add-remove",
           "budget": {"epsilon": EPS * len(HAND_QUERIES), "delta": 0.0},
           "queries": [{**q, "epsilon": EPS} for q in HAND_QUERIES]}
    a = bundle_view(_release_text(_hand_table(), doc, tmp_path / "a"))
    b = bundle_view(_release_text(_hand_table("NEW,XX,oops,oops,maybe,oops\n"), doc,
                                  tmp_path / "b"))
    assert a["members"] == b["members"]
    found = differences(a, b)
    assert not found, "differ between neighbouring tables:\n" + "\n".join(found)
