"""Make the synthetic demo table resources/demo/survey.csv (run: python resources/demo/make_demo.py).

Synthetic people answering a yearly survey: a person id, one to three rows per person (survey
waves), numeric columns with natural public bounds, categorical columns with public category
lists, a yes/no column and some missing or unreadable cells. No real person is in it.
"""

from __future__ import annotations

import csv
import random
from pathlib import Path

REGIONS = ["North", "South", "East", "West"]
EMPLOYMENT = ["employed", "unemployed", "student", "retired"]


def make(path: Path, people: int = 2000, seed: int = 20261121) -> None:
    rng = random.Random(seed)
    rows = []
    for pid in range(1, people + 1):
        age = rng.randint(16, 90)
        region = rng.choices(REGIONS, weights=[3, 2, 2, 1])[0]
        if age >= 67:
            job = "retired"
        elif age <= 22:
            job = rng.choices(EMPLOYMENT, weights=[3, 1, 6, 0])[0]
        else:
            job = rng.choices(EMPLOYMENT, weights=[8, 1, 1, 0])[0]
        smoker = "yes" if rng.random() < 0.22 else "no"
        waves = rng.choices([1, 2, 3], weights=[4, 3, 3])[0]
        for wave in range(2026 - waves, 2026):
            base = {"employed": 52000, "unemployed": 9000, "student": 7000, "retired": 24000}[job]
            income = max(0, int(rng.lognormvariate(0, 0.5) * base))
            hours = 0 if job in ("unemployed", "retired") else min(80, max(0, int(rng.gauss(
                38 if job == "employed" else 14, 8))))
            satisfaction = min(10, max(1, round(rng.gauss(6.8 if job != "unemployed" else 5, 1.8))))
            row = {
                "person_id": f"P{pid:05d}",
                "wave": wave,
                "age": age + (wave - 2023),
                "region": region,
                "employment": job,
                "income": income,
                "hours_per_week": hours,
                "satisfaction": satisfaction,
                "smoker": smoker,
            }
            if rng.random() < 0.04:
                row["income"] = ""
            if rng.random() < 0.01:
                row["hours_per_week"] = "n/a"
            if rng.random() < 0.02:
                row["satisfaction"] = ""
            rows.append(row)
    rng.shuffle(rows)
    with open(path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


if __name__ == "__main__":
    make(Path(__file__).with_name("survey.csv"))
