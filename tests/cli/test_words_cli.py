"""`check` and `release` on the command line: one unit per statistic, useless statistics in
plain words, a fine quantile grid that finishes, a warning for one that could not."""

from __future__ import annotations

import json
import time
from pathlib import Path

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


def test_a_fine_quantile_grid_is_released_quickly(tmp_path: Path) -> None:
    # 2^28 grid points over [0, 200000]: the old rejection sampler needed about one proposal
    # per grid point in a gap; the release now takes about as long as any other
    plan = demo_with(tmp_path, income_median={"grid_step": 2.0**-10})
    home = tmp_path / "home"
    done = run(["check", str(plan)], home)
    assert "the release can only run on a table of at most 2,097,151 rows" in done.stdout
    start = time.perf_counter()
    done = run(["release", str(plan), "--data", str(DEMO_TABLE), "--out",
                str(tmp_path / "b.zip")], home)
    assert done.returncode == 0, done.stderr
    assert time.perf_counter() - start < 90
