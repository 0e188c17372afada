"""Issue 11, plain words in the app: the risk pane draws the core's belief curves, the review
window says who one person is in the core's words, every technical term on screen has a
tooltip, a count says what it counts, and the reason behind ε can be entered."""

from __future__ import annotations

import pytest

from planner_app.core.dp import risk
from planner_app.core.support import words

from .conftest import SHOTS


def test_the_risk_chart_draws_the_cores_curves(demo, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    from planner_app.gui.widgets import canvases  # the risk pane's chart is drawn here

    chart = demo.risk_pane.chart  # made on first use (and drawn then): before the patch
    seen = []
    real = risk.belief_curves
    monkeypatch.setattr(canvases, "belief_curves",
                        lambda p, e: seen.append(e) or real(p, e))
    chart.show_bounds(2.5, 0.5)
    assert seen == [2.5]
    up = chart.upper.get_ydata()
    assert up[100] == pytest.approx(risk.posterior_max(0.5, 2.5))


def test_the_review_window_says_who_one_person_is_in_the_cores_words(demo, qtbot, tmp_path) -> None:  # type: ignore[no-untyped-def]
    from planner_app.gui.dialogs.review_bundle import ReviewDialog

    plan = demo.session.plan
    dialog = ReviewDialog(plan, tmp_path / "plan.json", demo.session.home)
    qtbot.addWidget(dialog)
    from PySide6.QtWidgets import QLabel

    text = " ".join(label.text() for label in dialog.findChildren(QLabel))
    assert words.unit_of(plan.privacy_unit) in text
    assert words.relation_words(plan.neighbouring) in text


# The technical words a data owner may not know, found on screen independently of
# core.words (regex on the shown text -> the glossary entry that must explain it).
TERMS = {r"ε": "ε (epsilon)", r"δ": "δ (delta)", r"σ": "σ (sigma)",
         r"\bsensitivity\b": "Sensitivity", r"\bnoise scale\b|\bof scale\b": "Noise scale",
         r"\baccountant\b": "Accountant", r"\bpld\b": "PLD", r"\bzcdp\b": "zCDP",
         r"\bhoeffding\b": "Hoeffding bound", r"\bgrid step\b": "Grid step",
         r"add-remove": "Add-remove", r"replace-one": "Replace-one",
         r"\bconfidence\b": "Confidence", r"\bclamp": "Clamping", r"\bbounds\b": "Bounds",
         r"rows per person|most rows one person": "Contribution bound k",
         r"\blaplace\b": "Discrete Laplace", r"\bgaussian\b": "Discrete Gaussian",
         r"\bexponential mechanism\b": "Exponential mechanism",
         r"\brandomized response\b": "Randomized response"}


def _untipped(root) -> list[str]:  # type: ignore[no-untyped-def]
    """Every visible label, button, group box or header section under ``root`` that shows a
    technical term whose glossary explanation its tooltip lacks."""
    import re

    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QHeaderView, QWidget

    from planner_app.gui.glossary import header_tip, shown_text, tip_for

    found = []
    for widget in [root, *root.findChildren(QWidget)]:
        if not widget.isVisible():
            continue
        shown = [(shown_text(widget), tip_for(widget))]
        if isinstance(widget, QHeaderView) and widget.model() is not None:
            count = widget.count()
            shown = [(str(widget.model().headerData(i, widget.orientation(),
                                                   Qt.ItemDataRole.DisplayRole) or ""),
                      header_tip(widget, i)) for i in range(count)
                     if not widget.isSectionHidden(i)]
        for text, tip in shown:
            plain = re.sub(r"<[^>]+>", " ", text)
            for pattern, name in TERMS.items():
                if re.search(pattern, plain, re.IGNORECASE) and \
                        words.GLOSSARY[name] not in tip:
                    found.append(f"{type(widget).__name__} {plain[:50]!r}: no tip for {name}")
    return found


def test_every_technical_term_on_screen_has_a_plain_tooltip(demo, qtbot, tmp_path) -> None:  # type: ignore[no-untyped-def]
    from planner_app.gui.dialogs.query_dialog import QueryDialog
    from planner_app.gui.dialogs.review_bundle import ReviewDialog

    missing = []
    for i in range(demo.tabs.count()):
        demo.show_tab(i)
        qtbot.wait(10)
        missing += _untipped(demo)
    session = demo.session
    for q in session.plan.queries:  # every kind's form
        dialog = QueryDialog(session, q, demo)
        qtbot.addWidget(dialog)
        dialog.show()
        missing += _untipped(dialog)
        dialog.close()
    review = ReviewDialog(session.plan, tmp_path / "plan.json", session.home)
    qtbot.addWidget(review)
    review.show()
    missing += _untipped(review)
    wizard = demo.launchers.release()
    qtbot.addWidget(wizard)
    wizard.show()
    missing += _untipped(wizard)  # the checklist
    if wizard.button(wizard.WizardButton.NextButton).isEnabled():
        wizard.next()  # the confirmation page; its Next would spend the budget: not pressed
        missing += _untipped(wizard)
    wizard.close()
    assert not missing, "\n".join(sorted(set(missing)))


def test_hovering_a_term_shows_its_explanation(demo, qtbot) -> None:  # type: ignore[no-untyped-def]
    from PySide6.QtCore import QEvent, QPoint
    from PySide6.QtGui import QHelpEvent
    from PySide6.QtWidgets import QApplication, QLabel, QToolTip

    demo.show_tab(2)  # the budget: "ε" and "δ" labels
    label = next(w for w in demo.budget_pane.findChildren(QLabel)
                 if w.text() == "δ" and w.isVisible())
    event = QHelpEvent(QEvent.Type.ToolTip, QPoint(2, 2), label.mapToGlobal(QPoint(2, 2)))
    QApplication.sendEvent(label, event)
    assert words.GLOSSARY["δ (delta)"] in QToolTip.text()


def test_the_statistic_pane_rounds_and_says_squared_units(demo, qtbot) -> None:  # type: ignore[no-untyped-def]
    import re
    from dataclasses import replace

    from planner_app.core.kinds.params import bounds_of, with_params

    session = demo.session
    plan = session.plan
    odd = replace(plan, queries=tuple(
        with_params(q, lower=0.3, upper=13.98) if bounds_of(q) is not None else q
        for q in plan.queries))
    session.apply("odd bounds", odd)
    demo.show_tab(1)
    pane = demo.statistic_pane
    for q in odd.queries:
        session.select(q.id)
        pane.refresh()
        shown = pane.derivation.text()  # (the ± field is an input: it keeps 6 digits)
        shown = shown.replace("13.98", "").replace("0.3,", "")
        long = [m for m in re.findall(r"\d[\d,]*\.\d+|\d+e[+-]?\d+", shown)
                if "e" in m or len(m.replace(",", "").replace(".", "").lstrip("0")) > 4]
        assert not long, (q.id, shown)
    session.select("age_variance")
    pane.refresh()
    assert pane.accuracy_unit.text() == "squared units of age"
    demo.resize(1280, 820)
    qtbot.wait(50)
    demo.grab().save(str(SHOTS / "80-words-variance.png"))
    from .layout_check import clipped_texts

    assert not [c for c in clipped_texts(pane) if "squared" in c]
    from PySide6.QtCore import Qt

    from planner_app.gui.models import StatisticsModel

    model = StatisticsModel(session)
    row = [q.id for q in odd.queries].index("age_variance")
    assert str(model.data(model.index(row, 3), Qt.ItemDataRole.DisplayRole)).endswith("units²")


NOT_PEOPLE = " (not of people: one person_id has up to 3 rows)"


def test_a_count_counts_all_rows_unless_a_column_is_asked_for(demo, qtbot, tmp_path) -> None:  # type: ignore[no-untyped-def]
    from PySide6.QtCore import Qt

    from planner_app.gui.dialogs.query_dialog import QueryDialog
    from planner_app.gui.models import StatisticsModel

    session = demo.session
    dialog = QueryDialog(session, None, demo)
    qtbot.addWidget(dialog)
    dialog.resize(1280 // 2, 700)
    dialog.show()
    dialog.kind.setCurrentIndex(dialog.kind.findData("count"))
    dialog.label.setText("People")
    assert not dialog.count_present.isChecked() and not dialog.column.isEnabled()
    assert "column" not in dialog.to_dict()  # a count of all rows, as the plan format allows
    # the demo's person (person_id) has up to 3 rows: a count of rows is not of people
    assert dialog.count_words.text() == f"Count of rows{NOT_PEOPLE}."
    dialog.grab().save(str(SHOTS / "81-words-count-all-rows.png"))
    dialog.count_present.setChecked(True)
    dialog.column.setCurrentText("income")
    assert dialog.to_dict()["column"] == "income"
    assert dialog.count_words.text() == \
        f"Count of rows where income is present{NOT_PEOPLE}."
    dialog.grab().save(str(SHOTS / "82-words-count-present.png"))
    dialog.count_present.setChecked(False)
    dialog.checks.accept()
    assert dialog.result_plan is not None
    session.apply("add", dialog.result_plan)
    q = session.plan.query(dialog.result_id)
    assert q.column is None
    model = StatisticsModel(session)
    row = [x.id for x in session.plan.queries].index(q.id)
    assert model.data(model.index(row, 1), Qt.ItemDataRole.DisplayRole) == "Count of rows"
    assert model.data(model.index(row, 1), Qt.ItemDataRole.ToolTipRole) == \
        f"Count of rows{NOT_PEOPLE}"  # the list's column is short: its tooltip says it in full
    session.select(q.id)
    demo.statistic_pane.refresh()
    assert f"Count of rows{NOT_PEOPLE}" in demo.statistic_pane.title.text()
    assert "where" not in demo.statistic_pane.title.text()
    edit = QueryDialog(session, session.plan.query("employed"), demo)  # a count with a filter
    qtbot.addWidget(edit)
    assert edit.count_present.isChecked() == (session.plan.query("employed").column is not None)


def test_the_report_says_which_rows_a_count_counts() -> None:
    from planner_app.core.release.report import _what as what_entry

    def _what(record: dict, q: dict) -> str:  # type: ignore[type-arg]
        """The report's words for ``q``, from an entry shaped as report._statistics makes it."""
        declared = next(d for d in record["plan"]["queries"] if d["id"] == q["id"])
        return what_entry({"query": q, "declared": declared,
                           "unit": record["plan"].get("privacy_unit") or {}})

    record = {"plan": {"queries": [{"id": "a"}, {"id": "b", "column": "income"},
                                   {"id": "c", "column": "income", "missing": {"impute": 0}}]}}
    assert _what(record, {"id": "a", "kind": "count"}) == "Count of rows"
    assert _what(record, {"id": "b", "kind": "count", "column": "income"}) == \
        "Count of rows where income is present"
    assert _what(record, {"id": "c", "kind": "count", "column": "income"}) == "Count of rows"
    # under an id unit whose person has several rows, the words say these are not people
    # (walk 2, finding 6: "Number of households" was a count of member rows)
    record["plan"]["privacy_unit"] = {"kind": "person", "id_column": "household_id",
                                      "max_rows": 6}
    assert _what(record, {"id": "a", "kind": "count"}) == \
        "Count of rows (not of people: one household_id has up to 6 rows)"
    record["plan"]["privacy_unit"] = {"kind": "person", "id_column": "household_id",
                                      "max_rows": 1}
    assert _what(record, {"id": "a", "kind": "count"}) == "Count of rows"


def test_a_reason_for_epsilon_reaches_review_and_report(demo, qtbot, tmp_path) -> None:  # type: ignore[no-untyped-def]
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QLabel

    from planner_app.core.planfile import load_plan
    from planner_app.core.release.report import transparency
    from planner_app.gui.dialogs.review_bundle import ReviewDialog

    session = demo.session
    demo.show_tab(2)
    pane = demo.budget_pane
    reason = "Moderate harm preset; agreed with the officer on 3 May"
    pane.reason.setFocus()
    pane.reason.clear()
    qtbot.keyClicks(pane.reason, reason)
    qtbot.keyClick(pane.reason, Qt.Key.Key_Return)
    assert session.plan.justification == reason, pane.reason.text()
    demo.resize(1280, 820)
    qtbot.wait(20)
    demo.grab().save(str(SHOTS / "83-words-reason-for-epsilon.png"))
    path = tmp_path / "plan.json"
    assert demo.files._write_plan(path)
    saved = load_plan(path)
    assert saved.justification == reason
    review = ReviewDialog(saved, path, session.home)
    qtbot.addWidget(review)
    text = " ".join(label.text() for label in review.findChildren(QLabel))
    assert f"Reason for ε:</i> {reason}" in text and "none given" not in text
    from planner_app.core.planfile import plan_to_dict

    record = {"plan": plan_to_dict(saved), "privacy_unit": plan_to_dict(saved)["privacy_unit"],
              "neighbouring": saved.neighbouring, "queries": [], "post_processing": {},
              "total": {"epsilon": 1, "delta": 0, "accountant": "basic"},
              "ledger": {"spent": {"epsilon": 1}, "cap": {"epsilon": 9},
                         "remaining": {"epsilon": 8}},
              "dataset": {"name": "x"}, "software": {"version": "0"}}
    assert reason in dict(transparency(record))["Justification for ε"]
    session.undo()  # the edit is undoable
    assert session.plan.justification != reason
    assert pane.reason.text() == (session.plan.justification or "")
    assert pane.reason.cursorPosition() == 0  # a long reason reads from its start


SCALED = r'''
import json, os, sys
from pathlib import Path
from PySide6.QtWidgets import QApplication
app = QApplication([])
from planner_app.core.support.resources import demo_plan_path, demo_table_path
from planner_app.gui.app import build_window
from planner_app.gui.dialogs.query_dialog import QueryDialog
from tests.gui.layout_check import clipped_texts
shots, scale = Path(sys.argv[1]), sys.argv[2]
w = build_window(sys.argv[3])
w.resize(1280, 820)
w.show()
w.files.load_table(demo_table_path(), synchronous=True)
w.files.open_plan(demo_plan_path(), confirmed=True)
out = {}
def settle():
    for _ in range(5):
        app.processEvents()
w.session.select("age_variance")
w.show_tab(1)
settle()
w.grab().save(str(shots / f"84-words-variance-{scale}x.png"))
out["statistic"] = clipped_texts(w.statistic_pane)
w.show_tab(2)
settle()
w.grab().save(str(shots / f"85-words-reason-{scale}x.png"))
out["budget"] = [c for c in clipped_texts(w.budget_pane) if "Reason" in c]
d = QueryDialog(w.session, None, w)
d.kind.setCurrentIndex(d.kind.findData("count"))
d.show()
settle()
d.grab().save(str(shots / f"86-words-count-{scale}x.png"))
out["count"] = [c for c in clipped_texts(d) if "rows" in c or "present" in c]
print(json.dumps(out))
w.session.load_plan(w.session.plan)
'''


@pytest.mark.subprocess
@pytest.mark.parametrize("scale", ["1", "2"])
def test_changed_views_unclipped_at_1x_and_2x(scale: str, tmp_path) -> None:  # type: ignore[no-untyped-def]
    import json
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", QT_SCALE_FACTOR=scale,
               PYTHONPATH=str(root))
    SHOTS.mkdir(parents=True, exist_ok=True)
    done = subprocess.run([sys.executable, "-c", SCALED, str(SHOTS), scale,
                           str(tmp_path / "home")], capture_output=True, text=True,
                          timeout=240, env=env, cwd=root)
    assert done.returncode == 0, done.stderr[-2000:]
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert found == {"statistic": [], "budget": [], "count": []}, found
