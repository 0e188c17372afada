"""A census-like table and plan with a three-level hierarchy of counts (issue 27): a nation,
its regions and the districts within each region. Used by tests/core/test_consistent*.py and
bench/bench_consistent.py."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd


def districts_of(regions: int, per_region: int) -> dict[str, list[str]]:
    """Each region's district codes: R1 holds R1-D1, R1-D2, ..."""
    return {f"R{r}": [f"R{r}-D{d}" for d in range(1, per_region + 1)]
            for r in range(1, regions + 1)}


def census_frame(rows: int, regions: int = 4, per_region: int = 5, seed: int = 1) -> \
        pd.DataFrame:
    """One row per person: a district (skewed sizes, some nearly empty) and its region."""
    rng = np.random.default_rng(seed)
    tree = districts_of(regions, per_region)
    names = [d for ds in tree.values() for d in ds]
    sizes = rng.pareto(1.2, len(names)) + 0.02
    sizes[:: max(1, len(names) // 4)] = 0.001  # a few tiny districts: noise makes them < 0
    district = rng.choice(names, rows, p=sizes / sizes.sum())
    region = [d.split("-")[0] for d in district]
    return pd.DataFrame({"person_id": np.arange(rows), "region": region,
                         "district": district, "age": rng.integers(0, 95, rows)})


def census_plan(epsilon: float, regions: int = 4, per_region: int = 5, *,
                non_negative: bool = True, integer: bool = True,
                headline: str = "consistent", mechanism: str = "laplace") -> dict[str, Any]:
    """Counts of people in the nation, by region and by district (ε split in three), with
    the two relations of the hierarchy."""
    tree = districts_of(regions, per_region)
    share = epsilon / 3
    extra: dict[str, Any] = {"mechanism": mechanism}
    if mechanism == "gaussian":
        extra["delta"] = 1e-7
    reasons = {"keys": "the official list of areas"}
    queries = [
        {"id": "nation", "label": "People", "kind": "count", "epsilon": share, **extra},
        {"id": "by_region", "label": "People by region", "kind": "count", "epsilon": share,
         "group_by": {"column": "region", "keys": list(tree)}, "justification": reasons,
         **extra},
        {"id": "by_district", "label": "People by district", "kind": "count",
         "epsilon": share, "justification": reasons,
         "group_by": {"column": "district", "keys": [d for ds in tree.values() for d in ds]},
         **extra},
    ]
    return {
        "format": "planner-app/plan@1",
        "dataset": {"name": "census"},
        "privacy_unit": {"kind": "row"},
        "budget": {"epsilon": epsilon, "delta": 1e-6 if mechanism == "gaussian" else 0.0},
        "queries": queries,
        "consistency": {
            "relations": [{"total": "nation", "parts": "by_region"},
                          {"total": "by_region", "parts": "by_district", "within": tree}],
            "non_negative": non_negative, "integer": integer, "headline": headline},
    }
