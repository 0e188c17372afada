"""bundle.json_bytes writes, byte for byte, what json.dumps(indent=2) writes (the bundle's
release.json and plan.json keep their bytes), with json's C encoder."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from planner_app.core.release.bundle import RESULT_COLUMNS, json_bytes, safe_cell
from planner_app.core.release.result_columns import results_csv_of


def reference(obj: Any) -> bytes:
    return (json.dumps(obj, indent=2, ensure_ascii=False, allow_nan=False) + "\n").encode()


TEXTS = ["", "a", "},\n    {", "}, {", '"', "\\", "\n", "\t", "é", "日本", "\u2028", "\x00",
         "{", "}", "[", "]", ",", ": ", "  "]


def scalar(rng: random.Random) -> Any:
    return rng.choice([None, True, False, 0, -1, 2**70, 0.1, -0.0, 1e300, 5e-324,
                       rng.randint(-9, 9), rng.random(), rng.choice(TEXTS)])


def value(rng: random.Random, depth: int) -> Any:
    r = rng.random()
    if depth > 3 or r < 0.4:
        return scalar(rng)
    n = rng.randint(0, 4)
    if r < 0.55:
        return [scalar(rng) for _ in range(n)]
    if r < 0.7:  # a list of flat dicts, like a record's results
        return [{rng.choice(TEXTS + ["k", "v"]): scalar(rng) for _ in range(rng.randint(0, 3))}
                for _ in range(n)]
    if r < 0.85:
        return {rng.choice(TEXTS + ["x", "y", "z"]): value(rng, depth + 1) for _ in range(n)}
    return [value(rng, depth + 1) for _ in range(n)] if rng.random() < 0.8 else \
        tuple(value(rng, depth + 1) for _ in range(n))


def test_random_structures_give_json_dumps_bytes() -> None:
    rng = random.Random(7)
    for _ in range(3000):
        obj = value(rng, 0)
        assert json_bytes(obj) == reference(obj), obj


@pytest.mark.parametrize("obj", [
    {}, [], {"a": {}}, {"a": []}, [{}], [{}, {"a": 1}], [{"a": 1}, {}], [[], [[]]],
    {3: "int key", 2.5: "float", True: "bool", None: "null"}, [{"a": [1]}, {"b": 2}],
    {"results": [{"query_id": "q", "cell": "},\n      {", "value": 1.5}] * 3},
    ("a", 1), [("a", {"b": (1, 2)})], "text", 3, None,
])
def test_edge_cases_give_json_dumps_bytes(obj: Any) -> None:
    assert json_bytes(obj) == reference(obj)


@pytest.mark.parametrize("bad", [{"x": float("nan")}, [float("inf")], [{"a": float("nan")}],
                                 {"x": [{"a": object()}]}])
def test_what_json_refuses_is_refused(bad: Any) -> None:
    with pytest.raises((ValueError, TypeError)):
        reference(bad)
    with pytest.raises((ValueError, TypeError)):
        json_bytes(bad)


def reference_csv(rows: list[dict[str, Any]]) -> bytes:
    import csv
    import io

    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(RESULT_COLUMNS)
    for row in rows:
        writer.writerow([safe_cell(row.get(c)) for c in RESULT_COLUMNS])
    return out.getvalue().encode("utf-8")


def test_results_csv_gives_the_row_by_row_bytes() -> None:
    rng = random.Random(11)
    cells = ["", "a", "=1+1", "+3", "-2", "-x", "@a", "\tq", "\rq", "a,b", 'q"q', "1e5", "é",
             None, True, False, 0, -5, 2**70, 0.5, -0.0, float("nan"), float("inf"), 1e-7]
    for _ in range(300):
        n = rng.randint(0, 6)
        plain = rng.choice([None, int, float, str])
        rows = []
        for i in range(n):
            row: dict[str, Any] = {}
            for c in RESULT_COLUMNS:
                if rng.random() < 0.1:
                    continue  # a missing key
                if plain is int:
                    row[c] = rng.randint(-10, 10) if rng.random() < 0.9 else rng.choice(cells)
                elif plain is float:
                    row[c] = rng.random() - 0.5 if rng.random() < 0.9 else rng.choice(cells)
                elif plain is str:
                    row[c] = f"t{i}" if rng.random() < 0.9 else rng.choice(cells)
                else:
                    row[c] = rng.choice(cells)
            # a statistic's id is one of the plan's ids (a text), as in every record
            row["query_id"] = rng.choice(["s", "t-1", "é"])
            rows.append(row)
        # results.csv (written from the record, release@1's rows here) lists each statistic's
        # cells together, statistics in the order they first appear
        ids = [r["query_id"] for r in rows]
        grouped = sorted(rows, key=lambda r: ids.index(r["query_id"]))
        assert results_csv_of({"results": rows}) == reference_csv(grouped), rows
