"""Write a plan with one histogram of N declared categories (or G group keys x C categories,
or one binned histogram of E bin edges) and a small table, for timing `planner-app check`
and `planner-app release` on many cells (issue 22). A script, not a test:

    python bench/make_many_cells.py OUT_DIR --categories 1000000 [--rows 5000]
    python bench/make_many_cells.py OUT_DIR --groups 10000 --categories 200
    python bench/make_many_cells.py OUT_DIR --edges 200001
    python bench/make_many_cells.py OUT_DIR --statistics 10000 [--rows 5000]

(--statistics: N simple statistics -- counts, sums, means -- over a few columns.)

writes OUT_DIR/plan.json and OUT_DIR/table.csv."""

from __future__ import annotations

import argparse
import csv
import json
import random
from pathlib import Path
from typing import Any


def many_statistics(n: int) -> list[dict[str, Any]]:
    """N counts, sums and means (in turn) over the columns a, b, c, each at ε = 1/N."""
    out: list[dict[str, Any]] = []
    eps = 1.0 / n
    for i in range(n):
        kind = ("count", "sum", "mean")[i % 3]
        q: dict[str, Any] = {"id": f"s{i:05d}", "label": f"Statistic {i}", "kind": kind,
                             "epsilon": eps}
        if kind != "count":
            col = "abc"[(i // 3) % 3]
            q.update(column=col, lower=0, upper=100,
                     justification={"bounds": "the column's public range (bench)"})
        out.append(q)
    return out


def make(out: Path, categories: int, groups: int, edges: int, rows: int,
         statistics: int = 0) -> None:
    out.mkdir(parents=True, exist_ok=True)
    rng = random.Random(22)
    if statistics:
        plan = {"format": "planner-app/plan@1", "dataset": {"name": "bench"},
                "privacy_unit": {"kind": "row", "rows_are_people": {"reason": "a bench table"}},
                "neighbouring": "add-remove",
                "budget": {"epsilon": 1.0, "delta": 0.0}, "queries": many_statistics(statistics)}
        (out / "plan.json").write_text(json.dumps(plan), encoding="utf-8")
        with open(out / "table.csv", "w", newline="", encoding="utf-8") as f:
            w = csv.writer(f)
            w.writerow(["a", "b", "c"])
            for _ in range(rows):
                w.writerow([rng.randrange(101), rng.randrange(101), rng.randrange(101)])
        return
    q: dict[str, Any]
    if edges:
        q = {"id": "h", "label": "Values", "kind": "histogram", "column": "x",
             "bins": list(range(edges)), "epsilon": 1.0,
             "justification": {"bounds": "the value's range (bench)"}}
    else:
        q = {"id": "h", "label": "Codes", "kind": "histogram", "column": "g",
             "categories": [f"c{i:07d}" for i in range(categories)], "epsilon": 1.0,
             "justification": {"categories": "the code list (bench)"}}
        if groups:
            q["group_by"] = {"column": "k", "keys": [f"k{i:06d}" for i in range(groups)]}
            q["justification"]["keys"] = "the key list (bench)"
    plan = {"format": "planner-app/plan@1", "dataset": {"name": "bench"},
            "privacy_unit": {"kind": "row", "rows_are_people": {"reason": "a bench table"}},
            "neighbouring": "add-remove",
            "budget": {"epsilon": 1.0, "delta": 0.0}, "queries": [q]}
    (out / "plan.json").write_text(json.dumps(plan), encoding="utf-8")
    with open(out / "table.csv", "w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["g", "k", "x"])
        for _ in range(rows):
            w.writerow([f"c{rng.randrange(max(categories, 1)):07d}",
                        f"k{rng.randrange(max(groups, 1)):06d}",
                        rng.randrange(max(edges - 1, 1))])


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("out", type=Path)
    p.add_argument("--categories", type=int, default=0)
    p.add_argument("--groups", type=int, default=0)
    p.add_argument("--edges", type=int, default=0)
    p.add_argument("--rows", type=int, default=5000)
    p.add_argument("--statistics", type=int, default=0)
    a = p.parse_args()
    make(a.out, a.categories, a.groups, a.edges, a.rows, a.statistics)


if __name__ == "__main__":
    main()
