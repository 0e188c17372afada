"""Issue 11, plain words in the app: the risk pane draws the core's belief curves, the review
window says who one person is in the core's words, every technical term on screen has a
tooltip, a count says what it counts, and the reason behind ε can be entered."""

from __future__ import annotations

import pytest

from planner_app.core import risk, words

from .conftest import SHOTS


def test_the_risk_chart_draws_the_cores_curves(demo, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    from planner_app.gui.widgets import risk_pane

    seen = []
    real = risk.belief_curves
    monkeypatch.setattr(risk_pane, "belief_curves",
                        lambda p, e: seen.append(e) or real(p, e))
    demo.risk_pane.chart.show_bounds(2.5, 0.5)
    assert seen == [2.5]
    up = demo.risk_pane.chart.upper.get_ydata()
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
