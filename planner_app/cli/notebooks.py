"""export-notebook: a Jupyter notebook that checks a plan through the Python API (the
notebook of a bundle is ``report BUNDLE --notebook``, in releases.py)."""

from __future__ import annotations

import argparse
from pathlib import Path

from ..core.support.errors import InputError
from .common import EXIT_OK, _print_json


def notebook_target(text: str, option: str, overwrite: bool, keep: list[Path]) -> Path:
    """An output notebook's path: named .ipynb, and, as every output, never over an existing
    file without --force, never over an input (support/files.check_output_path)."""
    from ..core.release.notebooks import notebook_name_problem
    from ..core.support.files import check_output_path

    problem = notebook_name_problem(text)
    if problem:
        raise InputError("argument", option, problem)
    return check_output_path(Path(text), overwrite=overwrite, keep=keep)


def cmd_export_notebook(args: argparse.Namespace) -> int:
    from ..core.planfile import load_plan
    from ..core.release.notebooks import home_words, plan_notebook
    from ..core.support.files import atomic_write_text
    from ..core.support.home import home_folder

    plan_path = Path(args.plan)
    out = notebook_target(args.out, "--out", args.force, [plan_path])
    plan = load_plan(plan_path)  # a plan that does not load makes no notebook (exit 2)
    home = home_folder(args.home)  # --home, else $PLANNER_APP_HOME; None: per-user folders
    atomic_write_text(out, plan_notebook(plan, plan_path, out, home), overwrite=args.force)
    if args.json:
        _print_json({"plan": plan_path.name, "notebook": str(out),
                     "home": None if home is None else str(home)})
    else:
        print(f"Wrote {out}: it loads {plan_path.name}, checks it with "
              f"{home_words(home).replace('`', '')}, shows "
              "the accuracy table and what ε means, and holds the release commented out. "
              "Open it with Jupyter (pip install notebook) in the Python that has "
              "planner-app.")
    return EXIT_OK
