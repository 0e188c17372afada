"""Start the desktop app. A placeholder main window until the Desktop app issues land: it
shows the demo plan's statistics with the accuracy, ε and risk the core computes."""

from __future__ import annotations

import os
import sys

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (QApplication, QHeaderView, QLabel, QMainWindow, QTableWidget,
                               QTableWidgetItem, QVBoxLayout, QWidget)

from .. import __version__
from ..core.check import CheckReport, check_plan
from ..core.plan import Plan, load_plan
from ..core.resources import demo_plan_path

COLUMNS = ("Statistic", "Kind", "ε", "± at 95%", "Noise", "What it means")


class MainWindow(QMainWindow):
    """Placeholder main window: the plan's statistics as the core reports them."""

    def __init__(self, plan: Plan | None = None) -> None:
        super().__init__()
        self.setWindowTitle(f"planner_app {__version__}")
        self.resize(1100, 520)
        central = QWidget(self)
        layout = QVBoxLayout(central)
        self.summary = QLabel(central)
        self.summary.setWordWrap(True)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.summary)
        self.table = QTableWidget(0, len(COLUMNS), central)
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        self.table.horizontalHeader().setStretchLastSection(True)
        layout.addWidget(self.table)
        self.setCentralWidget(central)
        self.plan: Plan | None = None
        if plan is not None:
            self.show_plan(plan)
        else:
            self.summary.setText("Open a table or a plan to start (the full planner arrives "
                                 "in the next release). Try: planner-app --demo")
            self.statusBar().showMessage("No plan open")

    def show_plan(self, plan: Plan) -> CheckReport:
        self.plan = plan
        report = check_plan(plan)
        data = report.to_dict()
        total = data["total"]
        self.summary.setText(
            f"<b>{plan.dataset.name}</b> — budget ε = {plan.budget.epsilon:g}, "
            f"δ = {plan.budget.delta:g}. Composed total ε = {total['epsilon']:.3g} "
            f"({total['accountant']} accountant), "
            f"{'within' if data['fits_budget'] else 'OVER'} budget.<br>{data['risk']['sentence']}")
        self.table.setRowCount(len(data["queries"]))
        for row, q in enumerate(data["queries"]):
            acc = q["accuracy"]
            hw = acc["half_width"]
            hw_text = "needs row count" if hw is None else f"{hw:.4g}" + (
                " ranks" if acc["unit"] == "rank" else "")
            noise = (f"σ = {q['sigma']:.4g}" if "sigma" in q else
                     f"scale {q['scale']:.4g}" if q.get("scale") is not None else q["mechanism"])
            cells = (q["label"], q["kind"], f"{q['epsilon']:g}", hw_text, noise, q["risk"])
            for col, text in enumerate(cells):
                item = QTableWidgetItem(text)
                item.setToolTip(q["derivation"] if col == 0 else text)
                self.table.setItem(row, col, item)
        self.statusBar().showMessage(f"{len(plan.queries)} statistics")
        return report


def run(demo: bool = False, smoke_test: bool = False) -> int:
    if smoke_test:
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    app = QApplication.instance() or QApplication(sys.argv[:1])
    plan = load_plan(demo_plan_path()) if (demo or smoke_test) else None
    window = MainWindow(plan)
    window.show()
    if smoke_test:
        from dataclasses import replace

        assert window.plan is not None
        first = window.plan.queries[0]
        edited = window.plan.with_queries(
            [replace(first, epsilon=first.epsilon * 2), *window.plan.queries[1:]])
        window.show_plan(edited)
        app.processEvents()
        image = window.grab()
        ok = not image.isNull() and window.table.rowCount() == len(edited.queries)
        print("smoke test:", "ok" if ok else "FAILED")
        window.close()
        return 0 if ok else 1
    QTimer.singleShot(0, window.raise_)
    return app.exec()
