"""The general guard of test_neighbouring_bundles.py for synthetic tables: the same plan
released on neighbouring tables gives bundles equal in every field but the noised ones (the
noised marginals, what the noise chose -- the pairs, the rows when they come from the noised
counts --, the seed, and the synthetic rows drawn from them)."""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import Any

import pytest

from tests.core.test_neighbouring_bundles import (
    MASK,
    RECORD,
    RESULTS,
    UNITS,
    base_table,
    bundle_view,
    differences,
    neighbour,
    release,
)
from tests.record_rows import edit_rows

pytest.importorskip("mbi")

COLUMNS = [{"column": "cat", "categories": ["red", "green", "blue"]},
           {"column": "g", "categories": ["a", "b", "c"]},
           {"column": "x", "bins": [0, 30, 60, 100]}]  # every pair has 9 cells


def plan_for(unit: str, relation: str, rows: int | None) -> dict[str, Any]:
    q: dict[str, Any] = {"id": "syn", "kind": "synthetic", "columns": COLUMNS,
                         "epsilon": 3.0, "delta": 1e-6,
                         "justification": {"categories": "known lists", "bounds": "bands"}}
    if rows is not None:
        q["rows"] = rows
    return {"format": "planner-app/plan@1", "dataset": {"name": "neighbours"},
            "privacy_unit": UNITS[unit], "neighbouring": relation,
            "budget": {"epsilon": 3.0, "delta": 1e-5},
            "queries": [q]}


def synthetic_view(path: Path, rows_public: bool) -> dict[str, Any]:
    view = bundle_view(path)
    record = view[RECORD]
    t = record["synthetic"]["syn"]
    for m in t["marginals"]:
        m["values"] = MASK
        if m["name"].startswith("twoway:"):
            m["columns"] = MASK  # chosen by the (noisy) selection
    t["one_way_totals"] = MASK  # the noised one-way totals as drawn
    t["selected"] = MASK
    t["seed"] = MASK
    if not rows_public:
        t["rows"] = MASK
    def mask(rows: list[dict[str, Any]]) -> None:
        for row in rows:
            if row["query_id"] == "syn":
                row["group"] = row["cell"] = MASK

    edit_rows(record, mask)
    for row in view[RESULTS]:
        if row["query_id"] == "syn":
            row["group"] = row["cell"] = MASK
    text = view.pop("synthetic/syn.csv")
    table = list(csv.reader(io.StringIO(text)))
    allowed = [{"red", "green", "blue"}, {"a", "b", "c"}, {"[0, 30)", "[30, 60)", "[60, 100]"}]
    view["synthetic/syn.csv"] = {
        "header": table[0], "rows": len(table) - 1 if rows_public else MASK,
        "declared": all(c in allowed[k] for r in table[1:] for k, c in enumerate(r))}
    return view


@pytest.mark.parametrize(("unit", "relation", "rows"), [
    ("row", "add-remove", 200), ("person-k2", "add-remove", None),
    ("person-k2", "replace-one", 150)])
def test_a_synthetic_bundle_depends_on_the_data_only_through_noise(
        tmp_path: Path, unit: str, relation: str, rows: int | None) -> None:
    doc = plan_for(unit, relation, rows)
    frame = base_table(unit)
    a = release(frame, doc, tmp_path / "a")
    b = release(neighbour(frame, unit, relation), doc, tmp_path / "b")
    va, vb = synthetic_view(a, rows is not None), synthetic_view(b, rows is not None)
    assert va["synthetic/syn.csv"]["declared"]
    assert differences(va, vb) == []
