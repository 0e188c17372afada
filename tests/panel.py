"""A panel table for tests and screenshots (issue 22): 545 persons, each in up to 8 waves,
4,360 rows at most, id column ``nr``; age, region and wave repeat naturally but are not ids."""

from __future__ import annotations

import csv
import random
from pathlib import Path

PERSONS = 545
WAVES = 8
REGIONS = ("North", "East", "South", "West", "Centre")


def panel_rows(persons: int = PERSONS, waves: int = WAVES, seed: int = 22,
               full: bool = True) -> list[dict[str, object]]:
    """One row per person and wave; with ``full`` every person is in every wave (4,360
    rows), else a person misses some waves (never the first)."""
    rng = random.Random(seed)
    rows: list[dict[str, object]] = []
    for p in range(persons):
        nr = 100_001 + p * 7  # an integer code, not 1..n
        age0 = rng.randint(18, 80)
        region = rng.choice(REGIONS)
        income = rng.randint(12_000, 90_000)
        for w in range(1, waves + 1):
            if not full and w > 1 and rng.random() < 0.3:
                continue
            rows.append({"nr": nr, "wave": w, "age": age0 + (w - 1) // 2, "region": region,
                         "income": income + rng.randint(-3000, 3000),
                         "satisfaction": rng.randint(0, 10)})
    return rows


def write_panel(path: Path, **kwargs: object) -> Path:
    rows = panel_rows(**kwargs)  # type: ignore[arg-type]
    with path.open("w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return path


if __name__ == "__main__":  # python -m tests.panel OUT.csv
    import sys

    write_panel(Path(sys.argv[1]))
