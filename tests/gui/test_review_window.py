"""The officer's review window shows the core's pre-release report (check_plan): accuracy at
the configured confidence, the composed total and each statistic's risk."""

from __future__ import annotations

import shutil
from pathlib import Path

from planner_app.core.dp.accounting import compose
from planner_app.core.dp.risk import upper_percent
from planner_app.core.kinds.shared_dp import accuracy_for, measurements_for
from planner_app.core.planfile import load_plan
from planner_app.core.support.resources import demo_plan_path
from planner_app.gui.models import format_accuracy


def test_review_shows_accuracy_at_the_configured_confidence(  # type: ignore[no-untyped-def]
        window, qtbot, tmp_path: Path) -> None:
    plan_file = tmp_path / "plan.json"
    shutil.copy(demo_plan_path(), plan_file)
    plan = load_plan(plan_file)
    window.session.set_confidence(0.8)
    dialog = window.launchers.review_plan_file(plan_file)
    qtbot.addWidget(dialog)
    headers = [dialog.statistics.horizontalHeaderItem(i).text()
               for i in range(dialog.statistics.columnCount())]
    acc_col, risk_col = headers.index("Accuracy"), headers.index("Risk")
    for row, q in enumerate(plan.queries):
        acc = accuracy_for(q, plan, 0.8)
        assert dialog.statistics.item(row, acc_col).text() == format_accuracy(
            acc.half_width, acc.unit, acc.rows), q.id
        eps = sum(m.epsilon for m in measurements_for(q, plan))
        assert upper_percent(0.5, eps) in dialog.statistics.item(row, risk_col).text(), q.id
    total = compose([m for q in plan.queries for m in measurements_for(q, plan)],
                    plan.budget.delta, plan.budget.accountant)
    head = dialog.findChildren(type(dialog.status))[0].text()
    assert f"ε = {total.epsilon:.4g}" in head
