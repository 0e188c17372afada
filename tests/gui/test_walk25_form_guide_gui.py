"""walk25: the statistic form's guide, at its bottom, names the "Find … privately…" buttons
that sit under the lists and bounds it speaks of (before, it said only that they must never
come from the data, leaving a newcomer with no list no way forward)."""

from __future__ import annotations

from PySide6.QtWidgets import QLabel

from planner_app.gui.dialogs.query_dialog import QueryDialog


def test_the_form_guide_points_to_the_find_privately_buttons(demo, qtbot) -> None:  # type: ignore[no-untyped-def]
    form = QueryDialog(demo.session, None, demo)
    qtbot.addWidget(form)
    form.show()
    form.kind.setCurrentIndex(form.kind.findData("histogram"))
    button = form.finder.buttons["categories"]
    assert button.isVisible()
    # the buttons' own text: "Find the categories privately…"
    first, last = button.text().split()[0], button.text().split()[-1]
    guides = [label.text() for label in form.findChildren(QLabel)
              if label.text().startswith("Bounds, categories and group keys")]
    assert len(guides) == 1
    guide = guides[0]
    assert f"{first} … {last}" in guide
    assert "budget" in guide  # and that it is charged, not free
