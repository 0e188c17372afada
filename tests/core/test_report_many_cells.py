"""The report's choice of the cells it shows (report.largest) is the order of Python's stable
reverse sort, ties in the record's order, whatever the number of cells."""

from __future__ import annotations

import random
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
