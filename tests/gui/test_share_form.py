"""The Yes/no share form offers only what the core takes (walk 2, finding 2: it offered Group
by and then refused it) and points to the central share by group (finding 3)."""

from __future__ import annotations

from planner_app.core.support.words import CENTRAL_SHARE_HINT
from planner_app.gui.dialogs.query_dialog import QueryDialog
from tests.kind_table import kind_takes


def test_the_yes_no_share_form_offers_no_group_by_and_says_how_to_get_one(demo, qtbot) -> None:  # type: ignore[no-untyped-def]
    session = demo.session
    dialog = QueryDialog(session, None, demo)
    qtbot.addWidget(dialog)
    dialog.resize(700, 800)
    dialog.show()
    # a group chosen for a count stays behind when the kind becomes a yes/no share
    dialog.kind.setCurrentIndex(dialog.kind.findData("count"))
    dialog.group_column.setCurrentText("region")
    dialog.group_keys.setPlainText("North\nSouth\nEast\nWest")
    assert dialog.group_column.isVisible() and not dialog.kind_help.isVisible()
    dialog.kind.setCurrentIndex(dialog.kind.findData("randomized_response"))
    assert not kind_takes("randomized_response", "group_by")
    assert not dialog.group_column.isVisible() and not dialog.group_keys.isVisible()
    assert not dialog._conditions_box.isVisible()
    assert dialog.kind_help.isVisible() and dialog.kind_help.text() == CENTRAL_SHARE_HINT
    assert "Mean" in CENTRAL_SHARE_HINT and "by group" in CENTRAL_SHARE_HINT
    dialog.label.setText("Share of smokers")
    dialog.column.setCurrentText("smoker")
    dialog.yes_values.setPlainText("yes")
    dialog.no_values.setPlainText("no")
    dialog.list_reason.setText("The questionnaire's answers are yes and no")
    dialog.declare.setChecked(True)
    assert "group_by" not in dialog.to_dict()
    dialog.checks.accept()
    assert dialog.result_plan is not None, dialog.error.text()
    assert dialog.result_plan.query(dialog.result_id).group_by is None
    # back to a kind that takes groups: the group is offered again, as it was typed
    dialog.kind.setCurrentIndex(dialog.kind.findData("count"))
    assert dialog.group_column.isVisibleTo(dialog)  # (OK closed the dialog)
    assert dialog.to_dict()["group_by"]["column"] == "region"


def test_the_count_form_offers_a_count_of_people(demo, qtbot) -> None:  # type: ignore[no-untyped-def]
    """Walk 2, finding 6: under an id unit the count form offers to count people (distinct
    ids), and the plan says so (``"of": "people"``)."""
    session = demo.session
    dialog = QueryDialog(session, None, demo)
    qtbot.addWidget(dialog)
    dialog.show()
    dialog.kind.setCurrentIndex(dialog.kind.findData("count"))
    assert dialog.count_people.isVisible()
    assert dialog.count_people.text() == "Count people (distinct person_id)"
    assert "of" not in dialog.to_dict()
    dialog.count_people.setChecked(True)
    assert dialog.count_words.text() == "Count of people (distinct person_id)."
    dialog.label.setText("Number of people")
    assert dialog.to_dict()["of"] == "people"
    dialog.checks.accept()
    assert dialog.result_plan is not None, dialog.error.text()
    q = dialog.result_plan.query(dialog.result_id)
    assert q.params.of == "people"
    session.apply("add", dialog.result_plan)
    edit = QueryDialog(session, session.plan.query(q.id), demo)
    qtbot.addWidget(edit)
    assert edit.count_people.isChecked()


def test_a_costly_yes_no_share_points_to_the_central_share(demo) -> None:  # type: ignore[no-untyped-def]
    """Walk 2, finding 3: beside a randomized-response ± wider than 5 points the pane says a
    central share (a Mean of a 1/0 column) costs far less; a narrow one says nothing."""
    from planner_app.core.dp.accuracy import shown_half_width
    from planner_app.core.support.words import CENTRAL_SHARE_ACCURACY

    session = demo.session
    pane = demo.statistic_pane
    session.set_epsilon("smokers", 0.5)
    session.select("smokers")
    pane.refresh()
    assert shown_half_width(session.accuracy(session.plan.query("smokers"))) > 5
    assert CENTRAL_SHARE_ACCURACY in pane.accuracy_note.text()
    session.select("hours_mean")  # a mean: no such note
    pane.refresh()
    assert CENTRAL_SHARE_ACCURACY not in pane.accuracy_note.text()
