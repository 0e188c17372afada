"""The newcomer flow, for the docs' screenshots: the demo; a new table; a panel with an id
column (a person is an id with at most 3 rows); the release wizard; the officer's review;
verifying the bundle. Each step's top-level widget is checked for clipped text.

``python -m tests.gui.newcomer OUT_DIR`` (run by tests/gui/test_newcomer_screenshots.py at 1×
and 2×) saves OUT_DIR/newcomer-<scale>x-<step>.png and prints {step: [clipped texts]}.
The tables are synthetic (a seeded random generator), written to a temporary folder.
"""

from __future__ import annotations

import csv
import random
import sys
from collections.abc import Iterator
from pathlib import Path

from PySide6.QtWidgets import QWidget

from tests.gui.walk import HEIGHT, WIDTH, main, settle, wait_for

REGIONS = ("North", "South", "East", "West")


def write_survey(path: Path, rows: int = 2700, seed: int = 11) -> Path:
    """A synthetic one-row-per-person survey."""
    rng = random.Random(seed)
    with open(path, "w", newline="", encoding="utf-8") as fh:
        out = csv.writer(fh)
        out.writerow(["age", "region", "hours_per_week", "satisfaction"])
        for _ in range(rows):
            out.writerow([rng.randint(16, 90), rng.choice(REGIONS),
                          round(min(80.0, max(0.0, rng.gauss(32, 12))), 1),
                          rng.randint(1, 10)])
    return path


def write_panel(path: Path, people: int = 545, seed: int = 12) -> Path:
    """A synthetic panel: each person answers in one to five waves (one row per wave)."""
    rng = random.Random(seed)
    with open(path, "w", newline="", encoding="utf-8") as fh:
        out = csv.writer(fh)
        out.writerow(["person_id", "wave", "region", "hours_per_week"])
        for p in range(people):
            for wave in sorted(rng.sample(range(1, 6), rng.randint(1, 5))):
                out.writerow([f"P{p:04d}", wave, rng.choice(REGIONS),
                              round(min(80.0, max(0.0, rng.gauss(30, 14))), 1)])
    return path


def add_statistic(window, fill) -> QWidget:  # type: ignore[no-untyped-def]
    """Open the Add dialog, let ``fill`` complete it, and return it shown (not accepted)."""
    from planner_app.gui.dialogs.query_dialog import QueryDialog

    dialog = QueryDialog(window.session, None, window)
    fill(dialog)
    dialog.show()
    settle()
    return dialog


def accept(window, dialog) -> None:  # type: ignore[no-untyped-def]
    """What the main window does when the dialog is accepted."""
    from planner_app.core.planning.editing import add_query

    dialog.checks.accept()
    assert dialog.result_plan is not None, dialog.error.text()
    new = dialog.result_plan.query(dialog.result_id or "")
    window.session.apply(f"Add {new.title!r}", add_query(window.session.plan, new))
    window.session.select(new.id)
    settle()


def _mean_hours(dialog) -> None:  # type: ignore[no-untyped-def]
    dialog.label.setText("Mean hours worked per week")
    dialog.kind.setCurrentIndex(dialog.kind.findData("mean"))
    dialog.column.setCurrentText("hours_per_week")
    dialog.lower.setText("0")
    dialog.upper.setText("80")
    dialog.bounds_reason.setText("The questionnaire accepts 0 to 80 hours")
    dialog.epsilon.setValue(0.5)


def _count(dialog) -> None:  # type: ignore[no-untyped-def]
    dialog.label.setText("Number of responses")
    dialog.kind.setCurrentIndex(dialog.kind.findData("count"))
    dialog.epsilon.setValue(0.3)


def flow(window, folder: Path) -> Iterator[tuple[str, QWidget]]:  # type: ignore[no-untyped-def]
    from planner_app.core.support.resources import demo_plan_path, demo_table_path
    from planner_app.gui.table_link import NEW

    window.resize(WIDTH, HEIGHT)
    window.files.ask_new_or_attach = lambda _name: NEW  # a newcomer starts a new plan per table
    settle()
    yield "01-welcome", window
    # 1. the demo
    window.files.load_table(demo_table_path(), synchronous=True)
    assert window.files.open_plan(demo_plan_path(), confirmed=True)
    window.session.select(window.session.plan.queries[2].id)
    window.tabs.setCurrentIndex(1)
    settle()
    yield "02-demo-statistic", window
    window.tabs.setCurrentIndex(3)
    settle()
    yield "03-demo-what-it-means", window
    # 2. a new table: a survey, one row per person
    survey = write_survey(folder / "survey-2700.csv")
    window.files.load_table(survey, synchronous=True)
    window.tabs.setCurrentIndex(0)
    window.data_pane.expected_rows.setValue(2700)  # public: the survey's published size
    window.data_pane.expected_rows.editingFinished.emit()
    settle()
    yield "04-new-table", window
    dialog = add_statistic(window, _mean_hours)
    yield "05-add-a-mean", dialog
    accept(window, dialog)
    window.tabs.setCurrentIndex(1)
    settle()
    yield "06-new-table-statistic", window
    # 3. a panel: a person is a person_id with at most 3 rows
    panel = write_panel(folder / "panel-545.csv")
    window.files.load_table(panel, synchronous=True)
    window.tabs.setCurrentIndex(0)
    pane = window.data_pane
    pane.unit_person.setChecked(True)
    pane.id_column.setCurrentText("person_id")
    pane.max_rows.setValue(3)  # typed, then Enter
    pane.max_rows.editingFinished.emit()
    pane.expected_rows.setValue(1600)  # public: about 545 people in about three waves each
    pane.expected_rows.editingFinished.emit()
    settle()
    unit = window.session.plan.privacy_unit
    assert (unit.kind, unit.id_column, unit.max_rows) == ("person", "person_id", 3), unit
    yield "07-panel-id-column", window
    for fill in (_count, _mean_hours):
        accept(window, add_statistic(window, fill))
    window.tabs.setCurrentIndex(2)
    settle()
    yield "08-panel-budget", window
    plan_file = folder / "panel-plan.json"
    assert window.files._write_plan(plan_file)
    # 4. the release wizard
    wizard = window.launchers.release()
    wizard.checklist.confirm_unit.setChecked(True)
    settle()
    yield "09-release-checklist", wizard
    assert wizard.checklist.isComplete(), wizard.checklist.items.text()
    wizard.next()
    out = folder / "panel-release.zip"
    wizard.confirm.path.setText(str(out))
    settle()
    yield "10-release-confirm", wizard
    wizard.next()
    wait_for(lambda: wizard.currentPage() is wizard.results)
    settle()
    yield "11-release-results", wizard
    wizard.close()
    # 5. the officer's review of the saved plan
    review = window.launchers.review_plan_file(plan_file)
    review.reviewer.setText("Ada Officer")
    review.comment.setText("Bounds from the questionnaire; three waves per person at most")
    settle()
    yield "12-review", review
    review.close()
    # 6. verifying the bundle: "Verifying…" at once, then the verdict
    viewer = window.launchers.review_bundle(out)
    yield "13-bundle-verifying", viewer
    wait_for(lambda: viewer.opened is not None)
    assert viewer.opened.verdict.valid, viewer.opened.verdict.problems
    settle()
    yield "14-bundle-verified", viewer
    viewer.tabs.setCurrentIndex(3)
    settle()
    yield "15-bundle-report", viewer
    viewer.close()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:], flow, "newcomer"))
