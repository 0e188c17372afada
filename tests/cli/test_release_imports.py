"""A release imports what its plan needs (issue 24, "imports off the release path"): a plan
of pure-ε statistics composes its total by adding ε, so its release never imports
dp-accounting or scipy (about a second of CPU a process, measured in bench/results.md);
a plan whose total needs a privacy loss distribution still composes one, with code of its
own that imports neither dp-accounting nor scipy.signal and scipy.stats."""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from planner_app.core.support.resources import demo_plan_path
from tests.conftest import DEMO_TABLE

MODULES_CODE = """
import json, sys
from planner_app.cli import main
try:
    main(sys.argv[2:])
except SystemExit as exc:
    if exc.code:
        raise
names = sys.argv[1].split(",")
print(json.dumps(sorted(m for m in sys.modules if m in names or m.split(".")[0] in names)))
"""
HEAVY = "scipy,dp_accounting"


def _plan(tmp_path: Path, gaussian: bool) -> Path:
    plan = json.loads(demo_plan_path().read_text(encoding="utf-8"))
    # counts and histograms with discrete Laplace noise (pure ε), and the Gaussian count
    plan["queries"] = [q for q in plan["queries"] if q["kind"] in ("count", "histogram")
                       and (gaussian or q.get("mechanism") != "gaussian")]
    assert plan["budget"]["delta"] > 0 and "accountant" not in plan["budget"]
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(plan), encoding="utf-8")
    return path


def _release(tmp_path: Path, plan: Path) -> tuple[list[str], dict[str, object]]:
    out = tmp_path / "bundle.zip"
    done = subprocess.run([sys.executable, "-c", MODULES_CODE, HEAVY, "--home",
                           str(tmp_path / "home"), "release", str(plan), "--data",
                           str(DEMO_TABLE), "--out", str(out)],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    with zipfile.ZipFile(out) as z:
        record = json.loads(z.read("release.json"))
    loaded = json.loads(done.stdout.strip().splitlines()[-1])
    return sorted({m.split(".")[0] for m in loaded}), record


@pytest.mark.subprocess
def test_a_pure_epsilon_release_imports_neither_scipy_nor_dp_accounting(
        tmp_path: Path) -> None:
    imported, record = _release(tmp_path, _plan(tmp_path, gaussian=False))
    assert imported == []
    total = record["total"]
    assert isinstance(total, dict) and total["accountant"] == "basic" and total["delta"] == 0
    # ε added up: the plan's statistics' own ε
    plan = record["plan"]
    assert isinstance(plan, dict)
    assert total["epsilon"] == pytest.approx(sum(q["epsilon"] for q in plan["queries"]))
    # the alternatives the release lists: basic and zcdp, not a PLD it did not compose
    alternatives = record["alternatives"]
    assert isinstance(alternatives, list)
    assert [a["accountant"] for a in alternatives] == ["basic", "zcdp"]


GC_CODE = """
import gc, sys
from planner_app.cli import main
collections = []
gc.callbacks.append(lambda phase, info: collections.append(info["generation"])
                    if phase == "stop" else None)
try:
    main(sys.argv[1:])
except SystemExit as exc:
    if exc.code:
        raise
print(len(collections), collections.count(2))
"""


@pytest.mark.subprocess
def test_a_release_collects_cyclic_garbage_rarely(tmp_path: Path) -> None:
    """Issue 24: with Python's default thresholds a release of the demo plan ran the cyclic
    collector hundreds of times, some of them over every object the libraries had loaded
    (about 0.5 CPU s of a 12-statistic release); the release command raises them
    (cli.common.one_shot_gc). Counted, not timed."""
    out = tmp_path / "bundle.zip"
    done = subprocess.run([sys.executable, "-c", GC_CODE, "--home", str(tmp_path / "home"),
                           "release", str(demo_plan_path()), "--data", str(DEMO_TABLE),
                           "--out", str(out)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    assert out.exists()
    every, oldest = map(int, done.stdout.strip().splitlines()[-1].split())
    assert every < 60 and oldest == 0


PLD_LIBRARIES = "dp_accounting,scipy.signal,scipy.stats"


def _loaded(tmp_path: Path, *args: str) -> list[str]:
    """Which of ``PLD_LIBRARIES`` (or their submodules) ``planner-app ARGS`` imported."""
    done = subprocess.run([sys.executable, "-c", MODULES_CODE, PLD_LIBRARIES,
                           "--home", str(tmp_path / "home"), *args],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    return [m for m in json.loads(done.stdout.strip().splitlines()[-1])
            if m in PLD_LIBRARIES.split(",") or m.startswith(("dp_accounting.",
                                                               "scipy.signal.",
                                                               "scipy.stats."))]


@pytest.mark.subprocess
def test_release_check_and_verify_of_a_pld_plan_import_no_dp_accounting_nor_scipy_stats(
        tmp_path: Path) -> None:
    """Issue 24: the demo plan (a Gaussian count, δ > 0) composes its total as a privacy loss
    distribution, with the PLD code carried in planner_app/core/dp (pld_pmf.py,
    pld_mechanisms.py) rather than dp-accounting, whose import pulls in scipy.signal and
    scipy.stats (about 0.65 CPU s of every such process)."""
    out = tmp_path / "bundle.zip"
    assert _loaded(tmp_path, "release", str(demo_plan_path()), "--data", str(DEMO_TABLE),
                   "--out", str(out)) == []
    with zipfile.ZipFile(out) as z:
        record = json.loads(z.read("release.json"))
    assert record["total"]["accountant"] == "pld"  # it did compose a PLD
    assert "pld" in [a["accountant"] for a in record["alternatives"]]
    assert _loaded(tmp_path, "check", str(demo_plan_path())) == []
    assert _loaded(tmp_path, "verify", str(out)) == []
