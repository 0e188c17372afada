"""The desktop app and a synthetic table (issue 14): the statistic editor opens, edits and
adds one (each column's domain in the histogram's own widgets, the same warnings and
reasons); the statistic pane shows the core's preview; the release goes through the wizard."""

from __future__ import annotations

import copy
import csv
import io
import json
import math
import os
import re
import subprocess
import sys
import zipfile
from dataclasses import replace
from pathlib import Path

import pytest
from PySide6.QtWidgets import QLabel, QTableWidget

from planner_app.core.dp.synthetic import preview_lines, synth_split
from planner_app.core.kinds.synthetic import table_preview as preview
from planner_app.core.release.verify_release import verify_bundle
from planner_app.core.support.resources import demo_table_path
from planner_app.core.support.words import plain_terms
from planner_app.gui.dialogs.query_dialog import QueryDialog
from planner_app.gui.main_window import MainWindow
from tests.cli.test_synthetic_cli import PLAN
from tests.gui.conftest import SHOTS, offscreen_screen, release_with_wizard
from tests.gui.layout_check import clipped_texts


def open_synthetic(window: MainWindow, tmp_path: Path, plan: dict | None = None) -> None:  # type: ignore[type-arg]
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(plan or PLAN))
    window.files.load_table(demo_table_path(), synchronous=True)
    assert window.files.open_plan(path, confirmed=True)


def test_edit_opens_on_a_synthetic_table_and_keeps_it(window, qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    open_synthetic(window, tmp_path)
    query = window.session.plan.query("survey_synth")
    dialog = QueryDialog(window.session, query)  # raised ValueError: no "synthetic" kind
    qtbot.addWidget(dialog)
    assert dialog.kind.currentData() == "synthetic"
    dialog.checks.accept()
    assert dialog.error.text() == ""
    assert dialog.result_plan is not None
    again = dialog.result_plan.query("survey_synth")
    # unchanged: the form read every field back as the plan had it (the label shown is the
    # title, as for every kind)
    assert replace(again, label="") == replace(query, label="")
    assert again.title == query.title


def test_add_a_synthetic_table_in_the_histogram_fields(window, qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    open_synthetic(window, tmp_path)
    dialog = QueryDialog(window.session)
    qtbot.addWidget(dialog)
    dialog.label.setText("Synthetic two")
    dialog.kind.setCurrentIndex(dialog.kind.findData("histogram"))
    dialog.column.setCurrentText("employment")
    dialog.categories.setPlainText("employed\nretired")
    dialog.kind.setCurrentIndex(dialog.kind.findData("synthetic"))
    # what was typed becomes the table's first column
    assert dialog.synth_list.item(0).text() == "employment — 2 categories"
    assert dialog.mechanism.currentData() == "mst" and dialog.delta.isVisibleTo(dialog)
    assert not dialog.categories.isHidden() and dialog.synth_list.count() == 1
    dialog.column.setCurrentText("region")
    # the histogram's warning, exactly: the list is the values present in the data
    dialog.categories.setPlainText("North\nSouth\nEast\nWest")
    assert "exactly the values present in the data" in dialog.warning.text()
    dialog.categories.setPlainText("North\nSouth\nEast\nWest\nIslands")
    assert dialog.warning.text() == ""
    dialog.add_synth_column()
    assert dialog.synth_list.count() == 2
    dialog.column.setCurrentText("age")
    dialog.use_bins.setChecked(True)
    dialog.bins.setText("16, 40, 65, 100")
    assert "age — 3 bins" in dialog.synth_list.item(1).text()
    dialog.synth_list.setCurrentRow(0)  # back to the first: its own fields again
    assert dialog.column.currentText() == "region" and not dialog.use_bins.isChecked()
    assert dialog.categories.toPlainText().splitlines()[-1] == "Islands"
    dialog.bounds_reason.setText("reporting age bands")
    dialog.list_reason.setText("official regions")
    dialog.declare.setChecked(True)
    dialog.synth_rows.setText("500")
    dialog.epsilon.setValue(0.5)
    dialog.delta.setText("")  # the core's rule: a synthetic table needs a delta
    dialog.checks.accept()
    assert dialog.result_plan is None and dialog.error.text().startswith("δ:")
    dialog.delta.setText("1e-7")
    dialog.checks.accept()
    assert dialog.result_plan is not None, dialog.error.text()
    q = dialog.result_plan.query(dialog.result_id)
    assert q.kind == "synthetic" and q.params.rows == 500 and q.delta == 1e-7
    assert [(c.column, c.categories, c.bins) for c in q.params.columns] == [
        ("region", ("North", "South", "East", "West", "Islands"), None),
        ("age", None, (16.0, 40.0, 65.0, 100.0))]
    assert q.justification == {"bounds": "reporting age bands", "categories": "official regions"}


def test_a_column_not_in_the_table_is_refused(window, qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    plan = copy.deepcopy(PLAN)
    plan["queries"][0]["columns"][2]["column"] = "smokes"  # not a column of the demo table
    open_synthetic(window, tmp_path, plan)
    dialog = QueryDialog(window.session, window.session.plan.query("survey_synth"))
    qtbot.addWidget(dialog)
    dialog.checks.accept()
    assert dialog.result_plan is None and "smokes" in dialog.error.text()


def test_the_pane_shows_what_the_budget_buys(window, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    open_synthetic(window, tmp_path)
    session, pane = window.session, window.statistic_pane
    session.select("survey_synth")
    q = session.plan.query("survey_synth")
    text = pane.synthetic.text()
    assert pane.synthetic_box.isVisibleTo(pane) and not pane.preview_box.isVisibleTo(pane)
    for line in preview_lines(preview(q, session.plan)):  # the core's words, jargon after
        assert plain_terms(f"{line[0].upper()}{line[1:]}.") in text  # plain words (issue 22)
    # σ of a one-way marginal, independently: ρ from (ε, δ) split in thirds over the 3
    # columns; a person's 3 rows move a marginal by 3² in squared L2 (add-remove)
    rho = synth_split(q, len(q.params.columns)).rho
    sigma = math.sqrt(3 ** 2 / (2 * rho / 3 / 3))
    for column in ("region", "age", "smoker"):
        shown = re.search(rf"counts of {column} \(\d+ cells\): noise scale \(σ\) = ([\d.]+)", text)
        assert shown is not None and float(shown.group(1)) == pytest.approx(sigma, rel=1e-3)
    assert "expected error for about 3,800 rows" in text.lower()
    session.select(None)
    assert not pane.synthetic_box.isVisibleTo(pane)


@pytest.fixture(scope="module")
def synth_bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where the first scale's process releases the plan's bundle and the next one reads it
    (issue 23: the release fits a synthetic table, the same at either scale)."""
    return tmp_path_factory.mktemp("synth-shots") / "synth.zip"


@pytest.mark.subprocess
@pytest.mark.parametrize("scale", ["1", "2"])
def test_editor_and_pane_fit_at_1x_and_2x(tmp_path: Path, scale: str,
                                          synth_bundle: Path) -> None:
    # a screen that holds the 1280x820 window at this scale (windows are fitted to it)
    env = {**os.environ, "QT_SCALE_FACTOR": scale,
           "QT_QPA_PLATFORM": offscreen_screen(tmp_path, scale),
           "PLANNER_APP_SCREENSHOTS": str(SHOTS), "PLANNER_APP_SYNTH_BUNDLE": str(synth_bundle)}
    done = subprocess.run([sys.executable, str(Path(__file__).parent / "synthetic_shots.py"),
                           str(tmp_path)], capture_output=True, text=True, env=env,
                          timeout=240, cwd=Path(__file__).resolve().parents[2])
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout.strip().splitlines()[-1])
    assert all(not texts for texts in answer["clipped"].values()), answer["clipped"]
    assert {"pane", "editor", "editor-bins"} <= set(answer["clipped"])
    assert "counts of region" in answer["pane"]
    names = ["pane", "editor", "editor-bins"]
    try:  # with mbi: the viewer's tab and the comparison opened from it
        import mbi  # noqa: F401
        names += ["bundle-viewer", "compare"]
        assert {"viewer", "compare"} <= set(answer["clipped"])
    except ImportError:
        pass
    for name in names:
        assert (SHOTS / f"synthetic-{name}-{scale}x.png").stat().st_size > 0


def test_release_from_the_app_then_the_viewer_shows_it(window, qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    pytest.importorskip("mbi")
    open_synthetic(window, tmp_path)
    out = tmp_path / "synth.zip"
    wizard = release_with_wizard(window, qtbot, out)
    assert wizard.result is not None and out.exists()
    with zipfile.ZipFile(out) as z:
        rows = list(csv.reader(io.StringIO(z.read("synthetic/survey_synth.csv").decode())))
    assert rows[0] == ["region", "age", "smoker"]
    assert verify_bundle(out).valid
    window.files.open_path(out)
    viewer = window.launchers.bundle_dialog
    qtbot.addWidget(viewer)
    qtbot.waitUntil(lambda: viewer.opened is not None, timeout=60_000)
    assert viewer.opened.verdict.valid
    titles = [viewer.tabs.tabText(i) for i in range(viewer.tabs.count())]
    for i in range(viewer.tabs.count()):  # every part shows; none is "cannot be shown"
        widget = viewer.tabs.widget(i)
        assert not (isinstance(widget, QLabel) and "cannot be shown" in widget.text()), titles[i]
    synthetic = viewer.tabs.widget(titles.index("Synthetic tables"))
    table = synthetic.findChild(QTableWidget)
    headers = [table.horizontalHeaderItem(c).text() for c in range(table.columnCount())]
    assert headers == rows[0]
    assert [table.item(0, c).text() for c in range(3)] == rows[1]
    about = " ".join(w.text() for w in synthetic.findChildren(QLabel))
    assert "TVD" in about and "released noised counts (marginal)" in about  # verify's measure
    viewer.tabs.setCurrentIndex(titles.index("Synthetic tables"))
    viewer.show()
    qtbot.wait(50)
    SHOTS.mkdir(parents=True, exist_ok=True)
    viewer.grab().save(str(SHOTS / "synthetic-bundle-viewer-1x.png"))
    assert clipped_texts(viewer) == []


def test_the_owner_compares_the_synthetic_table_on_screen(window, qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    pytest.importorskip("mbi")
    open_synthetic(window, tmp_path)
    out = tmp_path / "synth.zip"
    wizard = release_with_wizard(window, qtbot, out)
    page = wizard.results
    assert page.compare_button.isVisibleTo(page)
    before = {p for p in tmp_path.rglob("*")}
    dialog = page.compare_synthetic()
    qtbot.addWidget(dialog)
    qtbot.waitUntil(lambda: dialog.distances is not None, timeout=60_000)
    # every one- and two-way marginal, against the engine's own count of the real table
    names = [d.columns for d in dialog.distances]
    assert names == [("region",), ("age",), ("smoker",), ("region", "age"),
                     ("region", "smoker"), ("age", "smoker")]
    assert all(0 <= d.tvd <= 1 for d in dialog.distances)
    assert sum(d.measured for d in dialog.distances) == 3 + 2  # every column, two pairs
    assert len(dialog.figure.axes[0].patches) == 6
    assert {p for p in tmp_path.rglob("*")} == before  # nothing written
    dialog.resize(760, 560)
    qtbot.wait(50)
    dialog.grab().save(str(SHOTS / "synthetic-compare-1x.png"))
    assert clipped_texts(dialog) == []
