"""A field the statistic editor refuses on OK is scrolled into view (at a large scale or on a
short screen the fields scroll: the red line named a field the person could not see)."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, QRect, Qt
from PySide6.QtWidgets import QDialogButtonBox

from planner_app.gui.dialogs.query_dialog import QueryDialog

# (field, what is typed, where the fields are scrolled to before OK: 0 top, 1 bottom)
CASES = [("quantile", "1.5", 1), ("epsilon", "5000", 0)]


@pytest.mark.parametrize(("field", "typed", "scrolled"), CASES)
def test_a_refused_field_is_scrolled_into_view(  # type: ignore[no-untyped-def]
        demo, qtbot, field: str, typed: str, scrolled: int) -> None:
    session = demo.session
    dialog = QueryDialog(session, session.plan.query("income_median"))
    qtbot.addWidget(dialog)
    dialog.show()
    dialog.resize(dialog.width(), 320)  # a short screen: the fields scroll
    qtbot.waitUntil(lambda: dialog.field_scroll.verticalScrollBar().maximum() > 0)
    box = getattr(dialog, field)
    box.selectAll()
    qtbot.keyClicks(box, typed)
    bar = dialog.field_scroll.verticalScrollBar()
    bar.setValue(bar.maximum() if scrolled else 0)
    viewport = dialog.field_scroll.viewport()

    def in_view() -> bool:
        top_left = box.mapTo(viewport, QPoint(0, 0))
        return viewport.rect().contains(QRect(top_left, box.size()))

    assert not in_view()  # the case is real: the field is out of view before OK
    ok = dialog.findChild(QDialogButtonBox).button(QDialogButtonBox.StandardButton.Ok)
    qtbot.mouseClick(ok, Qt.MouseButton.LeftButton)
    assert dialog.isVisible() and dialog.result_plan is None
    assert dialog.error.text()  # refused, with its red line
    assert in_view()
