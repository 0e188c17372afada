"""Relations in the app (issue 27): the data checks name a relation the table breaks, the
results chart draws the headline values, the owner edits the relations and chooses the
headline values in the plan (one undo step each)."""

from __future__ import annotations

import json
import zipfile
from html import unescape
from pathlib import Path

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
    assert "Drawn: the consistent values, the headline values" in page.chart_caption.text()
