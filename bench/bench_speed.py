"""Speed of the desktop app (issue 13), written to bench/results.md:

* one ε slider step (the PLD total recomposed, the statistics table, the accuracy, the meter
  and the charts updated), CPU time a step, at 10, 100 and 1,000 statistics;
* the cold start to a shown window (the real entry point, `planner-app gui`) against a bare
  PySide6 window, whole processes in turn (A B A B ...), CPU seconds of each process.

With ``--before REF`` (a git commit, e.g. the one before the change) the same measures run on
that commit's code too, exported to a temporary folder, side by side in the same run.

Run: python bench/bench_speed.py [--before REF]   (offscreen; needs no display)
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
MARK = "## Desktop speed: the ε slider and the cold start"
SIZES = (10, 100, 1000)

STEP = r"""
import copy, json, os, sys, tempfile, time
from pathlib import Path
os.environ["QT_QPA_PLATFORM"] = "offscreen"
n, steps = int(sys.argv[1]), int(sys.argv[2])
from PySide6.QtWidgets import QApplication
app = QApplication([])
from planner_app.core.support.resources import demo_plan_path, demo_table_path
from planner_app.gui.app import build_window
plan = json.loads(Path(demo_plan_path()).read_text())
base = plan["queries"]
queries = []
for i in range(n):  # every kind of the demo plan, each statistic with its own epsilon
    q = copy.deepcopy(base[i % len(base)])
    q["id"], q["label"] = f"s{i}", f"Statistic {i}"
    q["epsilon"] = round(0.001 * (1 + i % 97) + 0.0001 * (i // 97), 6)
    queries.append(q)
plan["queries"] = queries
plan["budget"]["epsilon"] = 1000.0
folder = tempfile.mkdtemp()
path = Path(folder) / "plan.json"
path.write_text(json.dumps(plan))
window = build_window(tempfile.mkdtemp())
window.resize(1280, 820)
window.show()
window.files.load_table(demo_table_path(), synchronous=True)
window.files.open_plan(path, confirmed=True)
window.session.select("s1")
window.show_tab(3)  # the risk chart is drawn too (the split view)
app.processEvents()
slider = window.statistic_pane.slider
times = []
for i in range(steps + 2):  # the first two fill the caches
    t0 = time.process_time()
    slider.setValue(200 + (i * 7) % 300)
    app.processEvents()
    times.append(time.process_time() - t0)
print(json.dumps(times[2:]))
"""

START_APP = r"""
import sys
from PySide6.QtWidgets import QApplication
QApplication.exec = lambda *_: (QApplication.processEvents(), 0)[1]  # shown: stop there
from planner_app.cli import main
sys.exit(main(["gui", "--home", sys.argv[1]]))
"""

START_BARE = r"""
from PySide6.QtWidgets import QApplication, QMainWindow
app = QApplication([])
w = QMainWindow()
w.show()
app.processEvents()
"""


# Bytecode as an installed app has it (pip and PyInstaller ship compiled modules): each tree's
# modules are compiled once, by the uncounted first round, into a cache outside the trees.
# Without it (PYTHONDONTWRITEBYTECODE=1 on the shared machine) every start compiled the app's
# ~120 modules from source, about 0.2 CPU s of what earlier runs measured.
PYCACHE = tempfile.mkdtemp(prefix="planner-pycache-")


def _env(tree: Path) -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(tree), "QT_QPA_PLATFORM": "offscreen",
           "PYTHONPYCACHEPREFIX": PYCACHE}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


# `python -c` puts the working folder first on sys.path, before PYTHONPATH: run from a
# neutral folder, or a run started in the checkout measures the checkout as "before" too
NEUTRAL = tempfile.mkdtemp(prefix="planner-cwd-")


def slider(tree: Path, n: int, steps: int) -> list[float]:
    done = subprocess.run([sys.executable, "-c", STEP, str(n), str(steps)], capture_output=True,
                          text=True, env=_env(tree), check=True, timeout=3600, cwd=NEUTRAL)
    return [float(t) for t in json.loads(done.stdout.strip().splitlines()[-1])]


def _cpu_of(cmd: list[str], env: dict[str, str]) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(cmd, capture_output=True, env=env, check=True, timeout=600, cwd=NEUTRAL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def cold_starts(trees: dict[str, Path], runs: int = 7) -> dict[str, list[float]]:
    """CPU seconds of whole processes, in turn: bare, each tree's app, bare, ..."""
    home = tempfile.mkdtemp()
    out: dict[str, list[float]] = {"bare": [], **{name: [] for name in trees}}
    for i in range(runs + 1):  # the first round warms the file and bytecode caches, not counted
        got = {"bare": _cpu_of([sys.executable, "-c", START_BARE], _env(ROOT))}
        for name, tree in trees.items():
            got[name] = _cpu_of([sys.executable, "-c", START_APP, home], _env(tree))
        if i:
            for name, value in got.items():
                out[name].append(value)
    return out


def export(ref: str) -> Path:
    """The code of commit ``ref``, in a temporary folder (resources linked as in a checkout)."""
    folder = Path(tempfile.mkdtemp(prefix="planner-before-"))
    archive = subprocess.run(["git", "archive", ref], cwd=ROOT, capture_output=True,
                             check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
    link = folder / "planner_app" / "resources"
    if not link.exists():
        link.symlink_to(folder / "resources")
    return folder


def _ms(values: list[float]) -> str:
    return f"{1000 * statistics.median(values):.1f} ms"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--before", help="a git commit to measure side by side")
    args = parser.parse_args()
    before = export(args.before) if args.before else None
    started = time.time()
    rows = []
    for n in SIZES:
        new = slider(ROOT, n, 30 if n < 1000 else 15)
        old = slider(before, n, 20 if n < 1000 else 3) if before else None
        rows.append((n, new, old))
    trees = {"app": ROOT, **({"app before": before} if before else {})}
    starts = cold_starts(trees)
    bare = statistics.median(starts["bare"])
    lines = [MARK, "",
             "Offscreen Qt, 2-core machine shared with other work; CPU time (user + system) of "
             "the process. Plans of n statistics of every kind in the demo plan, each with its "
             "own ε (n distinct measurements and more: a mean or variance has two). One step = "
             "the slider moves, the PLD total is recomposed (twice: this release and the "
             "dataset's lifetime), the statistics table, accuracy, meter, picture and risk "
             "chart update.", ""]
    if before:
        lines.append(f"Before = commit {args.before}, measured in the same run; after = "
                     f"this tree.")
        lines.append("")
    lines += ["| statistics | after: median step | after: worst | before: median step | "
              "target |", "|---:|---:|---:|---:|---:|"]
    for n, new, old in rows:
        lines.append(f"| {n:,} | {_ms(new)} | {1000 * max(new):.1f} ms | "
                     f"{_ms(old) if old else '-'} | 50 ms |")
    lines += ["", "Cold start to a shown window (the real `planner-app gui` entry point, up to "
              "the event loop), whole processes in turn, CPU seconds, median of "
              f"{len(starts['bare'])}, with compiled bytecode as an installed app has it:", "",
              "| process | CPU s | / bare PySide6 window |", "|---|---:|---:|",
              f"| bare PySide6 window | {bare:.2f} | 1.0x |"]
    for name in trees:
        value = statistics.median(starts[name])
        lines.append(f"| {name} | {value:.2f} | {value / bare:.1f}x |")
    lines += ["", f"(bench/bench_speed.py, {time.time() - started:.0f} s.)", ""]
    section = "\n".join(lines)
    sys.path.insert(0, str(HERE))
    from _results import write_section

    write_section(MARK, section)
    print(section)
    if before:
        shutil.rmtree(before, ignore_errors=True)
    shutil.rmtree(PYCACHE, ignore_errors=True)


if __name__ == "__main__":
    main()
