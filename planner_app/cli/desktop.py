"""``planner-app gui`` (and no sub-command): check what the desktop app needs, then start it.

Everything a person can get wrong is said in one line with exit 2 before any window, and
before PySide6 is imported: a plan or table named on the command line that cannot be opened,
no display, missing system libraries (core/support/desktop.py).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from ..core.support.desktop import desktop_problem
from ..core.support.errors import InputError, PlannerError
from ..core.support.files import input_file_size
from .common import EXIT_INPUT

# the table formats the app opens (core/data/tables.py; not imported here: no pandas)
TABLE_SUFFIXES = (".csv", ".tsv", ".txt", ".tab", ".xlsx", ".xlsm", ".parquet", ".pq")


def start_files(args: argparse.Namespace) -> tuple[Path | None, Path | None]:
    """The plan and table named on the command line, checked: InputError names the first
    that cannot be opened."""
    plan = getattr(args, "plan", None)
    data = getattr(args, "data", None)
    plan_path = Path(plan) if plan else None
    data_path = Path(data) if data else None
    if plan_path is not None:
        from ..core.planfile import load_plan

        load_plan(plan_path, draft=True)  # the whole plan is checked, as the app opens it
    if data_path is not None:
        if input_file_size(data_path, "table") == 0:
            raise InputError(data_path.name, None, "is empty")
        if data_path.suffix.lower() not in TABLE_SUFFIXES:
            raise InputError(data_path.name, None, "is not a table the app opens (CSV, TSV, "
                                                   ".xlsx or Parquet)")
    return plan_path, data_path


def cmd_gui(args: argparse.Namespace) -> int:
    smoke_test = getattr(args, "smoke_test", False)
    if smoke_test:
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    plan, data = start_files(args)
    problem = desktop_problem()
    if problem is not None:
        print(problem, file=sys.stderr)
        return EXIT_INPUT
    try:
        from ..gui.app import run
    except ImportError as exc:
        raise PlannerError(f"the desktop app needs PySide6 ({exc.name or 'Qt'} is missing): "
                           "pip install PySide6-Essentials") from None
    return run(demo=getattr(args, "demo", False), smoke_test=smoke_test, home=args.home,
               plan=plan, data=data)
