"""The Budget tab holds still (walk 2, finding 13: after "Use these ε" the preset's
description vanished and the fields moved up about 40 px under the mouse)."""

from __future__ import annotations

from PySide6.QtCore import QPoint

from planner_app.core.planning.editing import HARM_PRESETS

BUDGET_TAB = 2


def test_the_budget_fields_stay_put_when_the_preset_description_goes(demo, qtbot) -> None:  # type: ignore[no-untyped-def]
    demo.show_tab(BUDGET_TAB)
    pane = demo.budget_pane
    pane.preset.setCurrentIndex(2)
    pane.preset.activated.emit(2)
    qtbot.wait(20)
    assert pane.preset_reason.text() == HARM_PRESETS[1].reason
    where = pane.reason.mapTo(pane, QPoint(0, 0))
    pane.epsilon.setValue(HARM_PRESETS[1].epsilon * 2.5)  # no preset has this budget
    pane.epsilon.editingFinished.emit()
    qtbot.wait(20)
    assert pane.preset_reason.text() == ""
    assert pane.reason.mapTo(pane, QPoint(0, 0)) == where
