"""The statistic form shows, for every kind of the registry, exactly the panels the kind names
(``form_fields()``) and offers exactly its mechanisms (``form_mechanisms()``): the form is
driven by the kinds, with no list of kinds of its own."""

from __future__ import annotations

import pytest

from planner_app.core.kinds import KINDS
from planner_app.core.kinds import shared_form as sf
from planner_app.gui.dialogs.query_dialog import QueryDialog
from tests.kind_table import MECHANISMS_BY_KIND


@pytest.mark.parametrize("name", list(KINDS))
def test_the_form_shows_the_kinds_panels_and_mechanisms(demo, qtbot, name: str) -> None:  # type: ignore[no-untyped-def]
    dialog = QueryDialog(demo.session, None, demo)
    qtbot.addWidget(dialog)
    dialog.show()
    dialog.kind.setCurrentIndex(dialog.kind.findData(name))
    dialog.use_bins.setChecked(False)
    fields = KINDS[name].form_fields()
    shown = {
        sf.BOUNDS: dialog.bounds_row, sf.DOMAIN: dialog.use_bins, sf.QUANTILE: dialog.quantile,
        sf.YES_NO: dialog.yes_no_row, sf.SHARE_HINT: dialog.kind_help,
        sf.EXPECTED_COUNT: dialog.expected_count_row, sf.GROUP_BY: dialog.group_column,
        sf.WHERE: dialog._conditions_box, sf.MISSING: dialog.missing,
        sf.SYNTH_COLUMNS: dialog.synth_list, sf.SYNTH_ROWS: dialog.synth_rows,
        sf.COUNT_OF: dialog.count_present, sf.COLUMN: dialog.column,
        sf.MAX_KEYS: dialog.discovery_panel.max_keys,
        sf.PUBLISH_COUNTS: dialog.discovery_panel.publish_counts,
        sf.QUANTILES: dialog.discovery_panel.quantiles_row,
    }
    assert {f for f, widget in shown.items() if widget.isVisible()} == fields - {sf.DELTA}
    # the categories of a domain (bins unticked), with its list's reason
    assert dialog.categories.isVisible() == (sf.DOMAIN in fields)
    offered = [dialog.mechanism.itemData(i) for i in range(dialog.mechanism.count())]
    assert tuple(offered) == MECHANISMS_BY_KIND[name]
    assert dialog.delta.isVisible() == (sf.DELTA in fields
                                        or dialog.mechanism.currentData() == "gaussian")
    label = dialog._form.labelForField(dialog.column_row)
    assert label.text() == KINDS[name].form_words().column_label
    assert dialog.to_dict()["kind"] == name
