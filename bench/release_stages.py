"""Where one `planner-app release` spends its CPU, stage by stage (issue 24, "Many
categories"): the release runs in process with the stages' functions wrapped, each timed with
``time.process_time`` (every thread of the process: DuckDB's too, so the machine's load
inflates wall time only). With ``--before DIR`` the same release runs with another
planner_app tree, and the two columns are written side by side into results.md.

    python bench/release_stages.py --before /tmp/before --write -- \\
        PLAN.json --data TABLE.csv

(a fresh app home and bundle under $PLANNER_BENCH_DATA for each run)
"""

from __future__ import annotations

import argparse
import functools
import importlib
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
DATA = Path(os.environ.get("PLANNER_BENCH_DATA", "/tmp/bench-data"))
MARK = "## Many categories: where a release's CPU goes, stage by stage ({}; issue 24, {})"

#: (label, module, function): a stage is the CPU spent inside the function (nested stages
#: are also counted in their parents)
STAGES = [
    ("engine: the CSV parsed into DuckDB's table", "planner_app.core.data.sql_runner",
     "DuckDBRunner.open"),
    ("engine: the coded column (distinct values, codes)", "planner_app.core.data.sql_plan",
     "SqlEngine._derive"),
    ("engine: the bounded table", "planner_app.core.data.sql_plan", "SqlEngine._bound"),
    ("engine: opening, in all", "planner_app.core.data.engines", "open_engine"),
    ("the check, in all", "planner_app.core.planning.check", "check_plan"),
    ("of which the accountant's alternatives (dp-accounting's import)",
     "planner_app.core.planning.check", "alternatives_for"),
    ("of which the owner's column facts", "planner_app.core.planning.check",
     "_check_against_table"),
    ("the aggregates", "planner_app.core.data.sql_plan", "SqlEngine.aggregate"),
    ("the rehearsal before the charge, in all", "planner_app.core.release.publish", "rehearse"),
    ("the report, HTML + PDF (both builds)", "planner_app.core.release.publish",
     "_report_files"),
    ("of which the HTML (both builds)", "planner_app.core.release.publish", "report_html"),
    ("of which the PDF (both builds)", "planner_app.core.release.publish", "report_pdf"),
    ("of which the charts drawn (matplotlib)", "planner_app.core.planning.charts",
     "render_png"),
    ("of which the PDF documents made (their fonts read)",
     "planner_app.core.release.report_layout", "new_document"),
    ("after the charge, in all", "planner_app.core.release.publish", "charge_and_release"),
    ("the noise (dry run and real)", "planner_app.core.release.publish", "privatize"),
    ("release.json", "planner_app.core.release.publish", "record_bytes"),
    ("results.csv", "planner_app.core.release.publish", "results_csv_of"),
    ("the zip", "planner_app.core.release.publish", "zip_bytes"),
]


def inside(args: list[str]) -> None:
    """One release in this process; prints {label: cpu seconds} as JSON."""
    t0 = time.process_time()
    import planner_app.cli as cli
    import planner_app.cli.releases  # noqa: F401
    import planner_app.core.release.publish  # noqa: F401

    spent: dict[str, float] = {"imports of the release command": time.process_time() - t0}

    def wrap(label: str, f: Any) -> Any:
        @functools.wraps(f)
        def timed(*a: Any, **k: Any) -> Any:
            t = time.process_time()
            try:
                return f(*a, **k)
            finally:
                spent[label] = spent.get(label, 0.0) + time.process_time() - t
        return timed

    for label, modname, name in STAGES:
        mod = importlib.import_module(modname)
        if "." in name:
            cls, meth = name.split(".")
            owner = getattr(mod, cls)
            setattr(owner, meth, wrap(label, owner.__dict__[meth]))
            continue
        orig = getattr(mod, name)
        timed = wrap(label, orig)
        for m in list(sys.modules.values()):  # every module that imported it by name
            if getattr(m, "__name__", "").startswith("planner_app") \
                    and getattr(m, name, None) is orig:
                setattr(m, name, timed)
    try:
        cli.main(args)
    except SystemExit:
        pass
    spent["the whole process"] = time.process_time()
    print(json.dumps(spent))


def run(code: Path | None, label: str, args: list[str]) -> dict[str, float]:
    home = DATA / f"stages-{label}"
    shutil.rmtree(home, ignore_errors=True)
    home.mkdir(parents=True)
    env = dict(os.environ)
    if code is not None:
        env["PYTHONPATH"] = str(code)
    cmd = [sys.executable, __file__, "--inside", "--home", str(home), "release", *args,
           "--out", str(home / "bundle.zip"), "--force"]
    out = subprocess.run(cmd, capture_output=True, text=True, env=env, check=True)
    got: dict[str, float] = json.loads(out.stdout.strip().splitlines()[-1])
    if not (home / "bundle.zip").exists():
        raise SystemExit(f"the {label} release wrote no bundle: {out.stdout[-500:]}")
    return got


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--inside":
        inside(sys.argv[2:])
        return
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", type=Path, help="another planner_app tree")
    ap.add_argument("--write", action="store_true")
    ap.add_argument("--name", default="one plan", help="the case, in the section's title")
    ap.add_argument("--tag", default="cats24", help="the session, in the section's title")
    ap.add_argument("release", nargs=argparse.REMAINDER, help="-- PLAN --data TABLE")
    a = ap.parse_args()
    args = [x for x in a.release if x != "--"]
    runs = {}
    if a.before is not None:
        runs["before"] = run(a.before, "before", args)
    runs["after"] = run(None, "after", args)
    labels = ["imports of the release command"] + [s[0] for s in STAGES] + ["the whole process"]
    rev = subprocess.run(["git", "-C", str(HERE.parent), "rev-parse", "--short", "HEAD"],
                         capture_output=True, text=True).stdout.strip()
    mark = MARK.format(a.name, a.tag)
    lines = [mark, "",
             f"`python bench/release_stages.py --before DIR --write -- {' '.join(args)}` "
             f"(before = the tree in DIR, after = {rev}); "
             f"{time.strftime('%Y-%m-%d %H:%M', time.gmtime())} UTC, load average "
             f"{os.getloadavg()[0]:.1f} (CPU seconds of the process's threads: the load "
             "inflates wall time, not these). One run each; stages nest (an 'of which' is "
             "part of the line above it).", "",
             "| stage (CPU seconds) | " + " | ".join(runs) + " |",
             "|---|" + "---:|" * len(runs)]
    for label in labels:
        lines.append(f"| {label} | " + " | ".join(f"{r.get(label, 0.0):.2f}"
                                                  for r in runs.values()) + " |")
    lines.append("")
    print("\n".join(lines))
    if a.write:
        sys.path.insert(0, str(HERE))
        from _results import write_section

        write_section(mark, "\n".join(lines))


if __name__ == "__main__":
    main()
