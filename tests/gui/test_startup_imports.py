"""The desktop app shows its window without the heavy libraries: pandas, matplotlib, fpdf,
dp-accounting, DuckDB, pyarrow, openpyxl and scipy are imported when first needed (a table
opened, a chart shown, a total composed, a report written), not to start (they made the cold
start 23 times a bare PySide6 window's)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

HEAVY = ("pandas", "matplotlib", "fpdf", "dp_accounting", "duckdb", "pyarrow", "openpyxl",
         "scipy")

# The real entry point (`planner-app gui`, which planner-app-gui and `python -m planner_app`
# run) up to the event loop: QApplication.exec is replaced by a probe that lets the window
# paint, then reports what is on screen and which heavy modules are loaded.
PROBE = """
import json, sys
from PySide6.QtWidgets import QApplication

def probe(*_args):
    QApplication.processEvents()
    windows = [w for w in QApplication.topLevelWidgets() if w.inherits("QMainWindow")]
    print(json.dumps({"shown": [w.isVisible() for w in windows],
                      "loaded": sorted(m for m in sys.argv[2].split(",") if m in sys.modules)}))
    return 0

QApplication.exec = probe
from planner_app.cli import main
sys.exit(main(["gui", "--home", sys.argv[1]]))
"""


def _start(home: Path, modules: tuple[str, ...] = HEAVY) -> dict:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    done = subprocess.run([sys.executable, "-c", PROBE, str(home), ",".join(modules)],
                          capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def started(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """One start of the app, asked about every module the tests below keep off the start."""
    return _start(tmp_path_factory.mktemp("start") / "home", HEAVY + NUMERIC + PANES)


@pytest.mark.subprocess
def test_the_window_shows_before_any_heavy_library_is_imported(started: dict) -> None:
    assert started["shown"] == [True]
    assert [m for m in started["loaded"] if m in HEAVY] == []


@pytest.mark.subprocess
def test_the_probe_sees_a_heavy_import_when_there_is_one(tmp_path: Path) -> None:
    """The probe itself can fail: the same start with pandas imported first reports it."""
    env_code = PROBE.replace("import json, sys\n", "import json, sys\nimport pandas\n", 1)
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    done = subprocess.run([sys.executable, "-c", env_code, str(tmp_path / "home"),
                           ",".join(HEAVY)], capture_output=True, text=True, env=env,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert "pandas" in json.loads(done.stdout.strip().splitlines()[-1])["loaded"]


# Issue 24 (cold start): numpy is the engine's and the accountants' (the samplers, the
# PLD, the accuracy tables), none of which the welcome page uses; it was imported by the
# start through a settings constant and a dozen core modules, 0.10 of the start's 0.56 CPU s.
# The product's own numeric modules stay off the start too.
NUMERIC = ("numpy", "planner_app.core.dp.mechanisms", "planner_app.core.dp.pld_pmf",
           "planner_app.core.dp.pld_ops", "planner_app.core.dp.laplace_pld",
           "planner_app.core.dp.pld_mechanisms")


@pytest.mark.subprocess
def test_the_welcome_page_shows_without_numpy(started: dict) -> None:
    assert started["shown"] == [True]
    assert [m for m in started["loaded"] if m in NUMERIC] == []


# Issue 24 (cold start): the planner page (the list, the four tabs, the meter) is built when
# a table or plan is first opened; the welcome page needs none of its panes, nor the core's
# preview and risk code they read.
PANES = ("planner_app.gui.widgets.data_pane", "planner_app.gui.widgets.statistic_pane",
         "planner_app.gui.widgets.budget_pane", "planner_app.gui.widgets.risk_pane",
         "planner_app.gui.widgets.statistics_pane", "planner_app.core.planning.preview",
         "planner_app.core.dp.risk")


@pytest.mark.subprocess
def test_the_welcome_page_shows_without_building_the_planner(started: dict) -> None:
    assert started["shown"] == [True]
    assert [m for m in started["loaded"] if m in PANES] == []


# Issue 24: the app's smoke test opens the demo table and plan (a Gaussian count: its total
# composes a privacy loss distribution), edits an ε and renders every pane; the PLD code is
# the product's own (core/dp/pld_pmf.py, pld_mechanisms.py), so none of dp-accounting,
# scipy.signal or scipy.stats (about 0.65 CPU s to import) is loaded for it.
SMOKE = """
import json, sys
from planner_app.cli import main
code = main(["gui", "--smoke-test", "--home", sys.argv[1]])
names = sys.argv[2].split(",")
print(json.dumps({"code": code, "composed": "scipy.fft" in sys.modules,  # a convolution
                  "loaded": sorted(m for m in sys.modules
                                   if m in names or m.startswith(tuple(n + "." for n in names)))}))
"""


@pytest.mark.subprocess
def test_the_demo_edited_in_the_app_composes_its_pld_without_dp_accounting(
        tmp_path: Path) -> None:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    done = subprocess.run([sys.executable, "-c", SMOKE, str(tmp_path / "home"),
                           "dp_accounting,scipy.signal,scipy.stats"],
                          capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["code"] == 0 and seen["composed"]
    assert seen["loaded"] == []
