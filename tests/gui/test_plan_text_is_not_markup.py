"""Text from a plan (written by someone else) is shown as text, never read as markup: a
reason "age<18 excluded; approved by officer" must not lose "<18 excluded; " to the HTML
parser, nor a title inject formatting."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from planner_app.core.planfile import load_plan, save_plan
from planner_app.core.support.resources import demo_plan_path

REASON = "age<18 excluded; approved by officer"
TITLE = "Mean <b>hours</b> & more"


def test_review_window_and_statistic_pane_show_plan_text_as_text(window, qtbot,  # type: ignore[no-untyped-def]
                                                                 tmp_path: Path) -> None:
    from PySide6.QtGui import QTextDocument
    from PySide6.QtWidgets import QLabel

    plan = load_plan(demo_plan_path())
    q = plan.queries[0]
    plan = replace(plan, justification=REASON,
                   queries=(replace(q, label=TITLE), *plan.queries[1:]))
    path = tmp_path / "plan.json"
    save_plan(plan, path)
    dialog = window.launchers.review_plan_file(path)
    qtbot.addWidget(dialog)

    def shown(label: QLabel) -> str:  # what a person reads in a rich-text label
        doc = QTextDocument()
        doc.setHtml(label.text())
        return doc.toPlainText()

    texts = [shown(label) for label in dialog.findChildren(QLabel)]
    assert any(REASON in t for t in texts), texts

    assert window.files.open_plan(path, confirmed=True)
    window.session.select(q.id)
    assert TITLE in shown(window.statistic_pane.title)
