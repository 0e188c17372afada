"""Issue 22 part 3, the rest, on screen: with δ > 0 (the demo's plan) the review window's
belief chart and the risk pane's Groups sentence state the bound that holds with δ (that of
ε + ln 2), not the pure-ε bound."""

from __future__ import annotations

import math

import pytest


def _upper(prior: float, eps: float) -> float:
    e = math.exp(eps)
    return prior * e / (1 + prior * (e - 1))


def test_the_review_windows_chart_draws_the_bound_with_delta(demo, qtbot, tmp_path) -> None:  # type: ignore[no-untyped-def]
    from planner_app.gui.dialogs.review_bundle import ReviewDialog

    total = demo.session.total()
    assert total.delta > 0
    dialog = ReviewDialog(demo.session.plan, tmp_path / "plan.json", demo.session.home)
    qtbot.addWidget(dialog)
    up = dialog.chart.upper.get_ydata()
    assert up[100] == pytest.approx(_upper(0.5, total.epsilon + math.log(2)))
    assert "ε + ln 2" in dialog.chart.note.get_text()


def test_the_groups_sentence_states_the_bound_with_delta(demo) -> None:  # type: ignore[no-untyped-def]
    pane = demo.risk_pane
    total = demo.session.total()
    assert total.delta > 0
    text = pane.group_text.text()
    g_eps = 2 * total.epsilon  # the example group of two
    assert "except with a chance of at most" in text
    pure = f"{math.ceil(1000 * _upper(0.5, g_eps)) / 10:g}%"
    assert f"at most {pure}" not in text
