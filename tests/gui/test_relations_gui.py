"""Relations in the app (issue 27): the data checks name a relation the table breaks, the
results chart draws the headline values, the owner edits the relations and chooses the
headline values in the plan (one undo step each)."""

from __future__ import annotations

import json
import zipfile
from html import unescape
from pathlib import Path

import pytest

from tests.census import census_frame, census_plan
from tests.gui.conftest import Dialogs


def _open(window, tmp_path: Path, frame, doc=None) -> None:  # type: ignore[no-untyped-def]
    data, plan = tmp_path / "census.csv", tmp_path / "census-plan.json"
    frame.to_csv(data, index=False)
    plan.write_text(json.dumps(doc or census_plan(1.0)), encoding="utf-8")
    window.files.load_table(data, synchronous=True)
    assert window.files.open_plan(plan, confirmed=True)


def test_the_data_checks_name_a_relation_the_table_breaks(window, qtbot, tmp_path: Path,  # type: ignore[no-untyped-def]
                                                          dialogs: Dialogs) -> None:
    frame = census_frame(400)
    frame.loc[5, "district"] = "R1-D99"  # a district the plan's keys miss
    _open(window, tmp_path, frame)
    said = [text for _kind, title, text in dialogs.shown
            if title == "The plan does not fit the table"]
    assert said and "the cells of 'by_district' do not add up to 'by_region'" in said[-1], \
        dialogs.shown
    wizard = window.launchers.release()
    qtbot.addWidget(wizard)
    wizard.checklist.confirm_unit.setChecked(True)
    assert "do not add up to 'by_region'" in unescape(wizard.checklist.items.text())
    assert not wizard.checklist.isComplete()  # the release would refuse it: nothing spent
    wizard.reject()


def test_a_table_where_the_relations_hold_passes_the_checks(window, qtbot,  # type: ignore[no-untyped-def]
                                                            tmp_path: Path,
                                                            dialogs: Dialogs) -> None:
    _open(window, tmp_path, census_frame(400))
    assert not [t for _k, t, _x in dialogs.shown if t == "The plan does not fit the table"]
    wizard = window.launchers.release()
    qtbot.addWidget(wizard)
    wizard.checklist.confirm_unit.setChecked(True)
    assert "The plan fits census" in wizard.checklist.items.text()
    assert wizard.checklist.isComplete()
    wizard.reject()


def test_the_results_chart_draws_the_headline_values(window, qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """With the consistent values as the headline, the chart's bars are the consistent
    values of release.json (not the raw noised ones) and its caption says so."""
    from tests.gui.conftest import release_with_wizard

    _open(window, tmp_path, census_frame(2000))
    out = tmp_path / "census.zip"
    wizard = release_with_wizard(window, qtbot, out)
    record = json.loads(zipfile.ZipFile(out).read("release.json"))
    section = {q["query_id"]: q for q in record["consistency"]["queries"]}
    page = wizard.results
    assert page.chart_choice.currentText() == "People by district"  # the widest chart
    bars = page._drawing.artists["bars"]
    heights = [b.get_height() for b in bars]
    assert heights == [float(v) for v in section["by_district"]["value"]]
    raw = [float(page.table.item(i, 2).text().replace(",", ""))
           for i in range(page.table.rowCount())
           if page.table.item(i, 0).text() == "People by district"]
    assert heights != raw  # the noise made the two differ somewhere
    assert "These are the consistent values (the headline values)" in \
        page.chart_caption.text()


def _relations(window, qtbot, tmp_path: Path):  # type: ignore[no-untyped-def]
    _open(window, tmp_path, census_frame(300))
    dialog = window.launchers.edit_relations()
    qtbot.addWidget(dialog)
    return dialog


def _choose(combo, data) -> None:  # type: ignore[no-untyped-def]
    at = combo.findData(data)
    assert at >= 0, [combo.itemData(i) for i in range(combo.count())]
    combo.setCurrentIndex(at)


def test_the_owner_chooses_the_headline_values_in_the_plan(window, qtbot,  # type: ignore[no-untyped-def]
                                                           tmp_path: Path) -> None:
    from planner_app.core.planfile import plan_digest
    from planner_app.core.records.review import approval_status, review

    dialog = _relations(window, qtbot, tmp_path)
    session = window.session
    # an officer approved this exact plan, its consistent values the headline
    session.load_plan(review(session.plan, "officer", "approved"), session.path)
    assert approval_status(session.plan, ()).state == "approved"
    assert dialog.headline.currentData() == "consistent"
    before = plan_digest(session.plan)
    _choose(dialog.headline, "raw")
    assert session.plan.consistency.headline == "raw"
    # the headline is part of what an officer approves: the approval no longer holds
    assert plan_digest(session.plan) != before
    assert approval_status(session.plan, ()).state != "approved"
    assert session.undo_text == "Choose the headline values"
    session.undo()
    assert session.plan.consistency.headline == "consistent"
    assert dialog.headline.currentData() == "consistent"  # the dialog reads the plan again
    assert approval_status(session.plan, ()).state == "approved"
    dialog.non_negative.setChecked(False)
    assert session.plan.consistency.non_negative is False


def test_the_preview_shows_the_consistent_and_raw_accuracy(window, qtbot,  # type: ignore[no-untyped-def]
                                                           tmp_path: Path) -> None:
    _relations(window, qtbot, tmp_path)
    window.session.select("by_region")
    window.tabs.setCurrentWidget(window.statistic_pane)
    caption = window.statistic_pane.preview_caption.text()
    assert "Consistent values (they add up as the plan's relations say): about ±" in caption
    assert "(the raw noised values: ±" in caption
    assert "The headline values are the consistent values." in caption
    # the pane follows the plan: a new headline, and another related statistic's ε
    window.session.set_consistency_options(headline="raw")
    caption = window.statistic_pane.preview_caption.text()
    assert "The headline values are the raw noised values." in caption
    window.session.set_epsilon("by_district", 2.0)
    assert window.statistic_pane.preview_caption.text() != caption


def test_relations_are_removed_added_and_refused_with_the_core_message(  # type: ignore[no-untyped-def]
        window, qtbot, tmp_path: Path, dialogs: Dialogs) -> None:
    dialog = _relations(window, qtbot, tmp_path)
    session = window.session
    assert dialog.relations.count() == 2
    assert dialog.relations.item(0).text() == "The cells of People by region add up to People"
    assert dialog.relations.item(1).text() == ("The cells of People by district add up to "
                                               "People by region: each district to the "
                                               "region it lies within")
    # the same parts twice: the plan reader's own one-line refusal, nothing changed
    _choose(dialog.total, "nation")
    _choose(dialog.parts, "by_region")
    assert not dialog.add()
    assert dialogs.shown[-1][1] == "This relation cannot be declared"
    assert "consistency.relations[2].parts: 'by_region' is already the parts of " \
           "relations[0]" in dialogs.shown[-1][2]
    assert len(session.plan.consistency.relations) == 2
    # remove the districts' relation (one undo step), then declare it again in the table
    dialog.relations.setCurrentRow(1)
    dialog.remove_selected()
    assert [r.parts for r in session.plan.consistency.relations] == ["by_region"]
    assert dialog.relations.count() == 1
    _choose(dialog.total, "by_region")
    _choose(dialog.parts, "by_district")
    assert dialog.within.rowCount() == 20  # one row per district
    assert not dialog.add()  # no district placed yet
    assert "place each key of 'by_district' within one key of 'by_region'" in \
        dialogs.shown[-1][2]
    _choose(dialog.within.cellWidget(0, 1), "R1")  # one placed, the others not
    assert not dialog.add()
    assert "within: has no entry for 'by_region''s key 'R2'" in \
        dialogs.shown[-1][2]
    for i in range(dialog.within.rowCount()):
        district = dialog.within.item(i, 0).text()
        _choose(dialog.within.cellWidget(i, 1), district.split("-")[0])
    assert dialog.add()
    relations = session.plan.consistency.relations
    assert [(r.total, r.parts) for r in relations] == [("nation", "by_region"),
                                                       ("by_region", "by_district")]
    assert dict(relations[1].within)["R2"] == ("R2-D1", "R2-D2", "R2-D3", "R2-D4", "R2-D5")
    session.undo()
    session.undo()
    assert len(session.plan.consistency.relations) == 2  # as it was opened
    assert dialog.relations.count() == 2
    # every relation removed: no consistency section, and the options wait for one
    dialog.relations.setCurrentRow(0)
    dialog.remove_selected()
    dialog.relations.setCurrentRow(0)
    dialog.remove_selected()
    assert session.plan.consistency is None
    assert not dialog.headline.isEnabled() and dialog.empty.isVisibleTo(dialog)


def test_the_review_window_shows_the_relations_and_headline(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """The officer sees what the approval covers: the relations and the headline values."""
    from PySide6.QtWidgets import QLabel

    from planner_app.core.planfile import plan_from_dict
    from planner_app.core.support.home import app_home
    from planner_app.gui.dialogs.review_bundle import ReviewDialog

    path = tmp_path / "census-plan.json"
    path.write_text(json.dumps(census_plan(1.0)), encoding="utf-8")
    dialog = ReviewDialog(plan_from_dict(census_plan(1.0)), path, app_home(tmp_path / "h"))
    qtbot.addWidget(dialog)
    text = " ".join(unescape(label.text()) for label in dialog.findChildren(QLabel))
    assert "the cells of 'by_region' add up to 'nation'" in text
    assert "Headline values: consistent." in text


def test_a_relation_an_edit_made_stale_is_shown_and_can_be_removed(window, qtbot,  # type: ignore[no-untyped-def]
                                                                  tmp_path: Path,
                                                                  dialogs: Dialogs) -> None:
    """A statistic edited after its relation was declared (its group_by gone): the dialog
    still lists the relation, the release names it, and removing it works."""
    from dataclasses import replace

    dialog = _relations(window, qtbot, tmp_path)
    session = window.session
    session.replace_query(replace(session.plan.query("by_district"), group_by=None))
    assert dialog.relations.count() == 2
    assert dialog.relations.item(1).text().startswith("The cells of People by district")
    dialog.relations.setCurrentRow(1)
    dialog.remove_selected()
    assert [r.parts for r in session.plan.consistency.relations] == ["by_region"]


def test_the_editor_speaks_plain_words(window, qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """The relations editor holds none of the user test's terms (issue 22's scan)."""
    from PySide6.QtWidgets import QAbstractButton, QComboBox, QGroupBox, QLabel

    from tests.gui.test_jargon_scan import jargon

    dialog = _relations(window, qtbot, tmp_path)
    _choose(dialog.total, "by_region")
    _choose(dialog.parts, "by_district")
    texts = [w.text() for kind in (QLabel, QAbstractButton) for w in dialog.findChildren(kind)]
    texts += [w.title() for w in dialog.findChildren(QGroupBox)]
    texts += [w.itemText(i) for w in dialog.findChildren(QComboBox) for i in range(w.count())]
    texts += [dialog.relations.item(i).text() for i in range(dialog.relations.count())]
    assert len(texts) > 20
    found = [text for text in texts if jargon(text) or "_" in text]
    assert not found, found


def test_the_preview_error_bars_are_the_consistent_values_when_they_are_the_headline(  # type: ignore[no-untyped-def]
        window, qtbot, tmp_path: Path) -> None:
    """walk2627: the preview's error bars were the raw ± even with the consistent values as
    the headline. Four region counts that add up to the nation's, each with the same
    Laplace noise (ε = 0.1, one row moves one count by 1: a discrete Laplace of parameter
    0.1, variance 2e^-0.1 / (1 - e^-0.1)^2): the linear consistent value of a region has
    the variance σ² (1 - 1/5) (least squares under one sum of five equal variances), so its
    planned ± at 95% is 1.96 σ √(4/5)."""
    import math

    from scipy.stats import norm

    from tests.census import districts_of

    regions = list(districts_of(4, 5))
    reasons = {"keys": "the official list of areas"}
    doc = {"format": "planner-app/plan@1", "dataset": {"name": "census"},
           "privacy_unit": {"kind": "row"}, "budget": {"epsilon": 0.2, "delta": 0.0},
           "queries": [
               {"id": "nation", "label": "People", "kind": "count", "epsilon": 0.1},
               {"id": "by_region", "label": "People by region", "kind": "count",
                "epsilon": 0.1, "group_by": {"column": "region", "keys": regions},
                "justification": reasons}],
           "consistency": {"relations": [{"total": "nation", "parts": "by_region"}],
                           "headline": "consistent"}}
    _open(window, tmp_path, census_frame(300), doc)
    window.session.select("by_region")
    window.tabs.setCurrentWidget(window.statistic_pane)
    t = 0.1
    variance = 2 * math.exp(-t) / (1 - math.exp(-t)) ** 2
    expected = float(norm.ppf(0.975)) * math.sqrt(variance * 4 / 5)
    chart = window.statistic_pane.preview.drawing.chart
    assert [m.high - m.centre for m in chart.marks] == \
        [pytest.approx(expected, rel=1e-6)] * 4
    assert [m.centre - m.low for m in chart.marks] == [pytest.approx(expected, rel=1e-6)] * 4
    assert "of the consistent values, the headline values" in chart.caption
    raw = window.session.accuracy(window.session.plan.query("by_region")).half_width
    assert raw > expected * 1.05  # the raw ± is wider: the bars changed
    # the raw values as the headline: the bars are the raw ± again
    window.session.set_consistency_options(headline="raw")
    chart = window.statistic_pane.preview.drawing.chart
    assert [m.high - m.centre for m in chart.marks] == [pytest.approx(raw)] * 4
