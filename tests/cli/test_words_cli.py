"""`check` and `release` on the command line: one unit per statistic, useless statistics in
plain words, a fine quantile grid that finishes, a warning for one that could not."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.cli.test_release_cli import run
from tests.conftest import DEMO_PLAN, DEMO_TABLE, write_json


def demo_with(tmp_path: Path, **changes: dict) -> Path:
    d = json.loads(DEMO_PLAN.read_text(encoding="utf-8"))
    for q in d["queries"]:
        q.update(changes.get(q["id"], {}))
    return write_json(tmp_path / "plan.json", d)


def test_check_reads_shares_in_points_and_flags_useless(tmp_path: Path) -> None:
    plan = demo_with(tmp_path, smokers={"epsilon": 0.02})
    done = run(["check", str(plan)], tmp_path / "home")
    assert done.returncode == 0, done.stderr
    line = next(x for x in done.stdout.splitlines() if x.startswith("smokers "))
    assert "points" in line
    assert "warning: smokers: this statistic says almost nothing" in done.stdout
    assert "between the 45th and 55th percentile of the data" in done.stdout
    assert "ranks" not in done.stdout


def test_a_fine_quantile_grid_is_released_quickly(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    # 2^28 grid points over [0, 200000]: the old rejection sampler needed about one proposal
    # per grid point in a gap; the release now takes about as long as any other. The work is
    # counted, not timed (issue 23): the sampler's runs are sized by the rows, never the grid,
    # and it draws one uniform word per release (no proposals, no rejections)
    from planner_app.core.dp import mechanisms

    runs: list[int] = []
    words: list[int] = []
    real_runs, real_sampler = mechanisms._quantile_runs, mechanisms.exponential_quantile

    def counted_runs(*args: Any, **kwargs: Any) -> Any:
        out = real_runs(*args, **kwargs)
        runs.append(int(out[0].size))
        return out

    class Counted:  # the release's source, counting the words the quantile sampler draws
        def __init__(self, source: Any) -> None:
            self.source = source

        def words(self, n: int) -> Any:
            words.append(n)
            return self.source.words(n)

        def randbelow(self, n: int) -> int:
            return int(self.source.randbelow(n))

    def counted_sampler(source: Any, *args: Any, **kwargs: Any) -> int:
        return real_sampler(Counted(source), *args, **kwargs)

    monkeypatch.setattr(mechanisms, "_quantile_runs", counted_runs)
    # the quantile kind imports the sampler from mechanisms when it draws
    monkeypatch.setattr(mechanisms, "exponential_quantile", counted_sampler)
    plan = demo_with(tmp_path, income_median={"grid_step": 2.0**-10})
    home = tmp_path / "home"
    # without a stated row count only the grid counts (issue 24: the rule reads the plan's
    # public dataset.expected_rows, never the table's): check warns, release would refuse
    unstated = json.loads(plan.read_text(encoding="utf-8"))
    del unstated["dataset"]["expected_rows"]
    done = run(["check", str(write_json(tmp_path / "unstated.json", unstated))], home)
    assert "the release can only run on a table of at most 2,097,151 rows" in done.stdout
    # the demo plan states 3,800 rows: two runs a row fit, no warning, and it is released
    done = run(["check", str(plan)], home)
    assert "the quantile grid" not in done.stdout
    rows = sum(1 for _ in DEMO_TABLE.open(encoding="utf-8")) - 1
    done = run(["release", str(plan), "--data", str(DEMO_TABLE), "--out",
                str(tmp_path / "b.zip")], home)
    assert done.returncode == 0, done.stderr
    # the sampler ran (a rehearsal with placeholder values, then the release) on arrays of
    # at most two runs per row, and drew one word each time: no proposals, no rejections
    assert runs and all(size <= 2 * rows + 1 < 2**28 for size in runs), runs
    assert words == [1] * len(runs), words
