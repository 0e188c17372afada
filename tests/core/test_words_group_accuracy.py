"""The pre-release ± of a mean says what its row count is of (issue 22, part 3): a group-by's
assumes groups of equal size unless the plan states the smallest group's rows
(expected_count), and the ± for that stated size covers the smallest group's error when
groups are unequal, by simulation with the release's own code and exact samplers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from planner_app.cli import main
from planner_app.core.dp.mechanisms import SeededRandomSource
from planner_app.core.kinds.shared_dp import accuracy_for
from planner_app.core.planfile import plan_from_dict
from planner_app.core.release.noise import privatize
from tests.conftest import plan_dict
from tests.oracle.pandas_engine import PandasEngine

SIZES = {"a": 85, "b": 400, "c": 1200, "d": 2315}  # 4,000 rows, very unequal groups
RUNS = 400


def _plan(expected_count: float | None = None, **query: Any):  # type: ignore[no-untyped-def]
    q: dict[str, Any] = {"id": "m", "kind": "mean", "column": "x", "lower": 0, "upper": 10,
                         "epsilon": 0.5, "group_by": {"column": "g", "keys": list(SIZES)}}
    if expected_count is not None:
        q["expected_count"] = expected_count
    q.update(query)
    return plan_from_dict(plan_dict(dataset={"name": "t", "expected_rows": 4000},
                                    queries=[q]))


def _frame() -> pd.DataFrame:
    rng = np.random.default_rng(7)
    groups = np.concatenate([[k] * n for k, n in SIZES.items()])
    return pd.DataFrame({"g": groups, "x": rng.integers(0, 11, len(groups))})


def _coverage(expected_count: float | None, group: str) -> float:
    """The share of RUNS releases whose value for ``group`` lies within the planned ±."""
    plan = _plan(expected_count)
    query = plan.queries[0]
    frame = _frame()
    aggregate = PandasEngine(plan, frame, SeededRandomSource(0)).aggregate(query)
    hw = accuracy_for(query, plan).half_width
    assert hw is not None
    truth = float(frame.loc[frame["g"] == group, "x"].mean())  # whole numbers: on the grid
    at = list(SIZES).index(group)
    hits = 0
    for run in range(RUNS):
        released = privatize(plan, {query.id: aggregate},
                             source=SeededRandomSource(10_000 + run))[0]
        hits += abs(released.values[at].value - truth) <= hw
    return hits / RUNS


def test_the_stated_smallest_group_s_plus_minus_covers_the_smallest_group() -> None:
    # at 95% confidence; 400 runs put the observed share within about ± 0.03 of the truth
    assert _coverage(SIZES["a"], "a") >= 0.92
    assert _coverage(SIZES["a"], "d") >= 0.92  # a larger group is covered as well


def test_the_equal_size_plus_minus_does_not_cover_a_small_group() -> None:
    # why the assumption must be said: 4,000 rows / 4 groups = 1,000 rows a group, and the
    # group of 85 leaves that ± far more often than 5 times in 100
    assert _coverage(None, "a") < 0.6


def test_the_note_says_what_the_row_count_is_of() -> None:
    plan = _plan()
    note = accuracy_for(plan.queries[0], plan).note
    assert "about 1,000 rows a group" in note
    assert "split evenly over its 4 groups" in note
    assert "assumes groups of equal size" in note and "expected_count" in note
    assert "missing" in note  # x's missing cells are dropped: those rows are counted too

    stated = _plan(85)
    note = accuracy_for(stated.queries[0], stated).note
    assert "a group of about 85 rows, the smallest group" in note
    assert "equal size" not in note

    imputed = _plan(missing={"impute": 5})
    assert "missing" not in accuracy_for(imputed.queries[0], imputed).note

    single = plan_from_dict(plan_dict(dataset={"name": "t", "expected_rows": 2700}, queries=[
        {"id": "m", "kind": "mean", "column": "x", "lower": 0, "upper": 10, "epsilon": 1}]))
    note = accuracy_for(single.queries[0], single).note
    assert "about 2,700 rows (the table's rows, rows where x is missing included" in note


def test_check_prints_what_the_row_count_is_of(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    doc = plan_dict(dataset={"name": "t", "expected_rows": 4000}, queries=[
        {"id": "m", "kind": "mean", "column": "x", "lower": 0, "upper": 10, "epsilon": 0.5,
         "group_by": {"column": "g", "keys": list(SIZES)}}])
    path = tmp_path / "p.json"
    path.write_text(json.dumps(doc))
    assert main(["check", str(path)]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "the ± is a guaranteed bound for about 1,000 rows a group" in out
    assert "This assumes groups of equal size" in out
