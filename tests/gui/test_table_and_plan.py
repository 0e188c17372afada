"""The table and the plan belong together, in the app: opening a table with a plan open asks
new plan or attach; a saved plan finds its table or says it is missing; the wizard checks the
plan against the table before the confirmation page; the statistic form reads yes/no columns
only as the owner declares and refuses numeric statistics of text columns."""

from __future__ import annotations

import shutil
from pathlib import Path

import pandas as pd
from PySide6.QtWidgets import QFileDialog, QMessageBox

from planner_app.core.support.resources import demo_plan_path, demo_table_path
from planner_app.gui.dialogs.query_dialog import QueryDialog
from planner_app.gui.dialogs.release_wizard import ReleaseWizard, checklist
from planner_app.gui.table_link import ATTACH, NEW, new_or_attach_box
from tests.gui.conftest import SHOTS

SEX = ["F"] * 30 + ["M"] * 70 + ["X"] * 4


def chile(tmp_path: Path) -> Path:
    path = tmp_path / "chile.csv"
    pd.DataFrame({"sex": SEX, "region": ["Maule", "Ñuble"] * 52,
                  "income": range(104)}).to_csv(path, index=False)
    return path


def shoot(widget, name: str) -> None:  # type: ignore[no-untyped-def]
    from PySide6.QtWidgets import QApplication

    for _ in range(3):  # let layouts settle after the last text change
        QApplication.processEvents()
    SHOTS.mkdir(parents=True, exist_ok=True)
    widget.grab().save(str(SHOTS / name))


# ----------------------------------------------------------------------------- new or attach


def test_a_table_opened_with_a_plan_open_asks_and_checks(demo, dialogs, tmp_path: Path,
                                                          monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The demo plan used to stay silently on chile.csv until the release failed."""
    asked: list[str] = []
    monkeypatch.setattr(demo.files, "ask_new_or_attach", lambda name: asked.append(name) or ATTACH)
    demo.files.load_table(chile(tmp_path), synchronous=True)
    assert asked == ["chile.csv"]
    plan = demo.session.plan
    assert plan.dataset.name == "demo-survey" and plan.dataset.path == "chile.csv"
    warnings = [d for d in dialogs.shown if d[1] == "The plan does not fit the table"]
    # the app names the control, not the plan's JSON path (issue 22)
    assert warnings and "no column 'person_id' (The id column of a person (Data tab))" \
        in warnings[0][2]
    assert "privacy_unit." not in warnings[0][2]
    assert "statistic “smokers”" in warnings[0][2] and "queries[" not in warnings[0][2]
    # the wizard refuses before the confirmation page
    ok, text = next(item for item in checklist(demo.session) if "fit" in item[1])
    assert not ok and "person_id" in text
    wizard = ReleaseWizard(demo.session, demo)
    wizard.show()
    assert not wizard.checklist.isComplete()
    wizard.checklist.confirm_unit.setChecked(True)
    assert not wizard.checklist.isComplete()
    shoot(wizard, "60-wizard-plan-does-not-fit.png")
    wizard.close()
    # undo puts the plan back on its own table
    demo.session.undo()
    assert demo.session.plan.dataset.path == "survey.csv"


def test_a_new_plan_or_cancel(demo, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(demo.files, "ask_new_or_attach", lambda name: None)
    demo.files.load_table(chile(tmp_path), synchronous=True)
    assert demo.session.table.name == "survey.csv"  # cancelled: nothing changed
    assert demo.session.plan.dataset.name == "demo-survey"
    monkeypatch.setattr(demo.files, "ask_new_or_attach", lambda name: NEW)
    demo.files.load_table(chile(tmp_path), synchronous=True)
    plan = demo.session.plan
    assert demo.session.table.name == "chile.csv"
    assert (plan.dataset.name, plan.dataset.path, plan.queries) == ("chile", "chile.csv", ())
    assert demo.session.fit_problems() == []


def test_the_plans_own_table_is_not_asked_about(demo, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(demo.files, "ask_new_or_attach", lambda name: (_ for _ in ()).throw(
        AssertionError("asked")))
    demo.files.load_table(demo_table_path(), synchronous=True)
    assert demo.session.plan.dataset.name == "demo-survey"


def test_the_question_reads_well(window, qtbot) -> None:  # type: ignore[no-untyped-def]
    from planner_app.core.planfile import load_plan

    box = new_or_attach_box(window, "chile.csv", load_plan(demo_plan_path()))
    qtbot.addWidget(box)
    box.show()
    texts = [b.text() for b in box.buttons()]
    assert "Start a new plan" in texts and "Use the open plan" in texts
    shoot(box, "61-new-plan-or-attach.png")


# ----------------------------------------------------------------------------- a saved plan's table


def test_a_saved_plans_table_is_opened_with_it(window, qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    shutil.copy(demo_plan_path(), tmp_path / "plan.json")
    shutil.copy(demo_table_path(), tmp_path / "survey.csv")
    assert window.files.open_plan(tmp_path / "plan.json", confirmed=True)
    qtbot.waitUntil(lambda: window.session.table is not None, timeout=30_000)
    assert window.session.table.name == "survey.csv" and window.session.fit_problems() == []


def test_a_missing_table_is_named_and_can_be_located(window, qtbot, dialogs, tmp_path: Path,
                                                      monkeypatch) -> None:  # type: ignore[no-untyped-def]
    shutil.copy(demo_plan_path(), tmp_path / "plan.json")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    shutil.copy(demo_table_path(), elsewhere / "survey-2026.csv")
    dialogs.answer = QMessageBox.StandardButton.Open
    monkeypatch.setattr(QFileDialog, "getOpenFileName",
                        staticmethod(lambda *a, **k: (str(elsewhere / "survey-2026.csv"), "")))
    assert window.files.open_plan(tmp_path / "plan.json", confirmed=True)
    question = [d for d in dialogs.shown if d[0] == "question"]
    assert question and question[0][1] == "The plan's table was not found"
    assert "survey.csv was not found in" in question[0][2]
    qtbot.waitUntil(lambda: window.session.table is not None, timeout=30_000)
    plan = window.session.plan
    assert plan.dataset.path == "elsewhere/survey-2026.csv"
    assert window.session.dirty and window.session.fit_problems() == []


# ----------------------------------------------------------------------------- the statistic form


def chile_window(window, tmp_path: Path):  # type: ignore[no-untyped-def]
    window.files.load_table(chile(tmp_path), synchronous=True)
    assert window.session.plan is not None and window.session.table.name == "chile.csv"
    return window.session


def test_the_form_reads_m_f_only_as_declared(window, qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    session = chile_window(window, tmp_path)
    dialog = QueryDialog(session)
    qtbot.addWidget(dialog)
    dialog.label.setText("Share of women")
    dialog.kind.setCurrentIndex(dialog.kind.findData("randomized_response"))
    dialog.column.setCurrentText("sex")
    dialog.show()
    assert dialog.yes_values.isVisible() and dialog.suggest.isVisible()
    assert "declare which values mean yes" in dialog.warning.text()
    dialog.checks.accept()
    # the control, not the plan's JSON path (queries[share_of_women].yes)
    assert dialog.result_plan is None and dialog.error.text().startswith("Yes values: ")
    # the app suggests the column's values; F and M are not guessed
    dialog.checks.suggest_yes_no()
    assert dialog.yes_values.toPlainText() == "" and dialog.no_values.toPlainText() == ""
    assert "F, M, X" in dialog.yes_no_hint.text()
    dialog.yes_values.setPlainText("F")
    dialog.no_values.setPlainText("M")
    hint = dialog.yes_no_hint.text()
    assert "4 cells are in neither list" in hint and "Also in sex: X." in hint
    dialog.checks.accept()
    assert dialog.result_plan is None and "Confirm the yes and no values" in dialog.error.text()
    dialog.list_reason.setText("The survey codes sex as F and M")
    dialog.declare.setChecked(True)
    dialog.error.setText("")
    shoot(dialog, "62-form-yes-no-values.png")
    dialog.checks.accept()
    assert dialog.result_plan is not None, dialog.error.text()
    q = dialog.result_plan.query(dialog.result_id)
    assert (q.params.yes, q.params.no) == (("F",), ("M",))
    assert q.justification == {"values": "The survey codes sex as F and M"}
    # the statistic pane tells the owner how many cells were neither
    session.apply("add", dialog.result_plan)
    session.select(q.id)
    window.show_tab(1)
    window.statistic_pane.refresh()
    shoot(window, "64-statistic-pane-yes-no.png")
    assert "4 cells of sex are neither a yes nor a no value" in \
        window.statistic_pane.warnings.text()
    # editing keeps the lists and the confirmation
    again = QueryDialog(session, session.plan.query(q.id))
    qtbot.addWidget(again)
    assert again.yes_values.toPlainText() == "F" and again.declare.isChecked()
    again.checks.accept()
    assert again.result_plan is not None and again.result_plan.query(q.id) == q


def test_the_form_refuses_a_mean_of_a_text_column(window, qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    session = chile_window(window, tmp_path)
    dialog = QueryDialog(session)
    qtbot.addWidget(dialog)
    dialog.label.setText("Mean region")
    dialog.kind.setCurrentIndex(dialog.kind.findData("mean"))
    dialog.column.setCurrentText("region")
    dialog.lower.setText("0")
    dialog.upper.setText("10")
    dialog.bounds_reason.setText("none")
    assert "holds text, not numbers" in dialog.warning.text()
    dialog.show()
    shoot(dialog, "63-form-mean-of-text.png")
    dialog.checks.accept()
    assert dialog.result_plan is None and "holds text, not numbers" in dialog.error.text()
    dialog.column.setCurrentText("income")
    dialog.checks.accept()
    assert dialog.result_plan is not None, dialog.error.text()
