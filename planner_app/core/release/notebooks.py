"""Jupyter notebooks that reuse a plan or a bundle through the Python API (planner_app.api,
docs/api.md): ``planner-app export-notebook PLAN --out PLAN.ipynb`` and ``planner-app report
BUNDLE --notebook OUT.ipynb``. A notebook holds code that calls the API, never a number of
its own: run, it computes what ``check`` (or ``verify``) computes.

Written as nbformat 4.5 JSON directly (a notebook is a small JSON document; the nbformat
package validates it in the tests, and is not needed to write one). A plan notebook names
the plan file and the table; a bundle notebook names the bundle: nothing in either is read
from the data.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..model import Plan

NOTEBOOK_SUFFIX = ".ipynb"
NOT_A_NOTEBOOK_NAME = "{name!r} must end in .ipynb (a Jupyter notebook)"

_KERNEL = {"display_name": "Python 3", "language": "python", "name": "python3"}


def notebook_name_problem(path: str | os.PathLike[str]) -> str | None:
    """Why ``path`` is no name for a notebook, or None."""
    if Path(path).suffix.lower() == NOTEBOOK_SUFFIX:
        return None
    return NOT_A_NOTEBOOK_NAME.format(name=Path(path).name)


def _from(notebook: Path, target: Path) -> str:
    """``target`` as the notebook's code names it: relative to the notebook's folder (Jupyter
    runs a notebook there), absolute when it is on another drive."""
    try:
        return Path(os.path.relpath(target.absolute(), notebook.absolute().parent)).as_posix()
    except ValueError:  # another drive (Windows)
        return target.absolute().as_posix()


def _cell(kind: str, source: str, number: int) -> dict[str, Any]:
    cell: dict[str, Any] = {"cell_type": kind, "id": f"cell-{number}", "metadata": {},
                            "source": source}
    if kind == "code":
        cell.update(execution_count=None, outputs=[])
    return cell


def _notebook(cells: list[tuple[str, str]]) -> str:
    doc = {"cells": [_cell(kind, source, i + 1) for i, (kind, source) in enumerate(cells)],
           "metadata": {"kernelspec": _KERNEL, "language_info": {"name": "python"}},
           "nbformat": 4, "nbformat_minor": 5}
    return json.dumps(doc, indent=1, ensure_ascii=False) + "\n"


_SETUP = ("import pandas as pd\n"
          "from planner_app import api\n"
          "\n"
          "pd.set_option(\"display.width\", 200)  # a table on one line per row\n")


def home_words(home: Path | None) -> str:
    """The app home a plan notebook uses, as its first cell and export-notebook name it."""
    return (f"the app home at `{home.as_posix()}`" if home is not None
            else "this user's app folders (the app home when neither `--home` nor "
                 "`$PLANNER_APP_HOME` is given)")


def _home_code(home: Path | None) -> str:
    """The notebook's ``HOME``: the home written in, never whatever $PLANNER_APP_HOME says
    where the notebook runs."""
    if home is None:
        return "HOME = api.per_user_home()  # this user's app folders\n"
    return f"HOME = {home.as_posix()!r}  # the app home export-notebook used\n"


def plan_notebook(plan: Plan, plan_path: Path, out: Path, home: Path | None) -> str:
    """The notebook that loads the plan at ``plan_path``, checks it with the app home in
    ``home`` (an absolute folder; None: this user's app folders), shows the accuracy table,
    what the total ε means and each statistic's accuracy, and holds the release commented
    out. ``out``: where it will be written (paths in it are relative to its folder)."""
    name = plan.dataset.name
    table = (plan_path.parent / plan.dataset.path) if plan.dataset.path else Path("TABLE.csv")
    bundle = Path(out).parent / f"{Path(plan_path).stem}-release.zip"
    cells = [
        ("markdown",
         f"# {name}: the plan, checked\n\n"
         f"Made by `planner-app export-notebook` from `{plan_path.name}`. It loads the plan "
         f"and checks it as `planner-app check` does, with {home_words(home)}: its "
         "settings, budget ledger and policy (`HOME` below; change it there to use another "
         "home). It shows the ε, noise and accuracy of each statistic, "
         "the composed total and the release rules. Nothing is released: the last cell's "
         "release is commented out. See docs/api.md for the functions."),
        ("code", _SETUP + _home_code(home)
         + f"plan = api.load_plan({_from(out, plan_path)!r})\n"),
        ("markdown",
         "## The check\n\nEach statistic's ε and δ, its ± (`half_width`, at `confidence`, in "
         "`unit`; a share's ± is a share: 0.05 is 5 points) and its noise (scale or σ), then "
         "the composed total and the release rules."),
        ("code",
         "report = api.check(plan, home=HOME)\n"
         "accuracy = api.accuracy_table(report)\n"
         "print(accuracy.to_string(float_format=\"{:.6g}\".format))\n"
         "print(api.total_line(report))\n"
         "print(\"Ready to release:\", \"yes\" if report.readiness.ready else \"NO\")\n"
         "for rule in report.readiness.results:\n"
         "    print(f\"  {rule.status:<4} {rule.file_line}\")\n"),
        ("markdown",
         "## What this ε means for a person\n\nThe highest and lowest belief an attacker can "
         "hold about one person after the release, for every belief before it."),
        ("code", "belief = api.belief_chart(report)\nprint(belief.caption)\nbelief\n"),
        ("markdown",
         "## Each statistic's accuracy, drawn\n\nAn illustration from the plan, not your "
         "data: the bars or the point are drawn where the plan's bounds put them, with the "
         "planned ±."),
        ("code",
         "for picture in api.accuracy_charts(report):\n"
         "    print(picture.title, picture.caption, sep=\"\\n\")\n"
         "    display(picture)\n"),
        ("markdown",
         "## Release (commented out)\n\nA release charges the budget ledger of `HOME`, "
         "draws the noise once and writes the bundle; it cannot be taken back. Check the "
         "table's path, then remove the `#` signs to release."),
        ("code",
         f"# result = api.release(plan, data={_from(out, table)!r}, "
         f"out={_from(out, bundle)!r}, home=HOME)\n"
         "# print(result.bundle_path, result.release_id)\n"),
    ]
    return _notebook(cells)


def _results_words(record: Mapping[str, Any] | None) -> str:
    """The notebook's words above the results table: which columns there are, and which
    hold the headline values (a release with consistent values, release@3)."""
    words = ("## The results\n\nOne row per released cell: `value` with its interval from "
             "`low` to `high` at `confidence` (results.csv's columns).")
    c = None if record is None else record.get("consistency")
    if not isinstance(c, dict):
        return words
    head = ("the consistent ones: `consistent`, from `consistent_low` to `consistent_high`"
            if c.get("headline") == "consistent"
            else "the raw noised ones: `value`, from `low` to `high`")
    return (words + " This release also has **consistent values**: `consistent` with its "
            "interval from `consistent_low` to `consistent_high`, the values closest to the "
            "raw noised ones that add up exactly as the plan's relations say (computed from "
            "the noised values alone: no privacy cost; empty for a statistic in no "
            f"relation). The plan made the headline values {head}.")


def bundle_notebook(bundle: Path, out: Path,
                    record: Mapping[str, Any] | None = None) -> str:
    """The notebook that verifies and opens ``bundle``, shows its results with their
    intervals and draws them as its report does. ``out``: where it will be written;
    ``record``: the bundle's release.json, to say which columns hold its headline values
    (the notebook prints it again from the bundle when run)."""
    cells = [
        ("markdown",
         f"# {bundle.name}: the released results\n\n"
         "Made by `planner-app report --notebook`. It verifies the bundle as `planner-app "
         "verify` does (its integrity; pass `trust=[\"OWNER.pub\"]` to `open_bundle` to "
         "prove who released it), then reads each released value with its interval and "
         "draws them. See docs/api.md for the functions."),
        ("code",
         _SETUP + f"bundle = api.open_bundle({_from(out, bundle)!r})\n"
         "print(bundle.path.name, \"verified\" if bundle.valid else\n"
         "      \"NOT valid: \" + bundle.verdict.problems[0])\n"),
        ("markdown", _results_words(record)),
        ("code", "results = bundle.results\nprint(bundle.headline_words)\nresults\n"),
        ("markdown", "## The results, drawn"),
        ("code",
         "for picture in api.result_charts(bundle):\n"
         "    print(picture.title, picture.caption, sep=\"\\n\")\n"
         "    display(picture)\n"),
    ]
    return _notebook(cells)
