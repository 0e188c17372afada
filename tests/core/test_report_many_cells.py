"""The report's choice of the cells it shows (report.largest) is the order of Python's stable
reverse sort, ties in the record's order, whatever the number of cells."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from planner_app.core.release.report import largest


def reference(rows: list[dict[str, Any]], limit: int, smallest: int = 0
              ) -> list[dict[str, Any]]:
    def key(r: dict[str, Any]) -> float:
        v = r.get("value")
        return float(v) if isinstance(v, (int, float)) else float("-inf")

    if len(rows) <= limit:
        return rows
    ranked = sorted(rows, key=key, reverse=True)
    return ranked[:limit - smallest] + (ranked[-smallest:] if smallest else [])


def test_the_largest_cells_in_sorted_order_ties_kept() -> None:
    rng = random.Random(5)
    pool: list[Any] = [None, True, False, 0, -0.0, 0.0, 3, 3.0, -2.5, 1e300, -1e300,
                       float("inf"), float("-inf"), "text", float("nan")]
    for _ in range(400):
        n = rng.randint(0, 80)
        rows = [{"i": i, "value": rng.choice(pool) if rng.random() < 0.3 else rng.randint(-3, 3)}
                for i in range(n)]
        if rng.random() < 0.5:
            rows = [r for r in rows  # without NaN: numpy's path, not the fallback
                    if not (isinstance(r["value"], float) and r["value"] != r["value"])]
        limit = rng.randint(1, 60)
        smallest = rng.randint(0, limit)
        assert [r["i"] for r in largest(rows, limit, smallest)] == \
            [r["i"] for r in reference(rows, limit, smallest)]


def test_many_cells_give_the_fifty_largest() -> None:
    rng = random.Random(1)
    rows = [{"value": rng.randint(-1000, 1000)} for _ in range(200_000)]
    assert largest(rows) == reference(rows, 50)
    assert largest(rows, 50, 10) == reference(rows, 50, 10)


def test_a_release_of_a_hundred_thousand_categories_verifies(tmp_path: Path) -> None:
    """A histogram of 10^5 declared categories (codes as text and as numbers in the table)
    releases, verifies; plan.json is json.dumps(indent=2)'s bytes and release.json keeps the
    cells as arrays, one line each (release@2); the report shows 50 cells and says where the
    others are."""
    import numpy as np
    import pandas as pd

    from planner_app.core.data.tables import Table
    from planner_app.core.planfile import plan_from_dict
    from planner_app.core.release.bundle import read_bundle
    from planner_app.core.release.publish import publish
    from planner_app.core.release.verify_release import verify_bundle
    from planner_app.core.support.home import app_home
    from tests.conftest import plan_dict, with_reasons

    k = 100_000
    rng = np.random.default_rng(3)  # test data only
    codes = rng.integers(0, k, 5000)
    frame = pd.DataFrame({"g": [f"{c:06d}" if c % 2 else str(c) for c in codes]})
    plan = plan_from_dict(with_reasons(plan_dict(queries=[
        {"id": "h", "label": "Codes", "kind": "histogram", "column": "g",
         "categories": list(range(k)), "epsilon": 1,
         "justification": {"categories": "the code list"}}])))
    out = tmp_path / "h.zip"
    publish(plan, Table(frame, "t.csv", "0" * 64, "csv"), out,
            app_home(tmp_path / "home").ensure())
    verdict = verify_bundle(out)
    assert verdict.valid, verdict.problems
    files = read_bundle(out)
    obj = json.loads(files["plan.json"])
    assert files["plan.json"] == (json.dumps(obj, indent=2, ensure_ascii=False) + "\n").encode()
    record = json.loads(files["release.json"])
    assert [e["cells"] for e in record["results"]] == [k]
    assert record["results"][0]["columns"]["cell"] == list(range(k))
    assert len(files["release.json"].splitlines()) < 200_000  # the plan's list, not the cells
    html = files["report.html"].decode()
    assert "The 40 largest and the 10 smallest of its 100,000 cells are shown" in html
