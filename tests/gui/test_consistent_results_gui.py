"""The release wizard's results show the consistent values beside the raw ones (issue 27),
the headline's column named, as release.json holds them."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

from tests.census import census_frame, census_plan
from tests.gui.conftest import SHOTS, release_with_wizard


def test_the_results_show_raw_and_consistent_values(window, qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    data, plan = tmp_path / "census.csv", tmp_path / "census-plan.json"
    census_frame(2000).to_csv(data, index=False)
    plan.write_text(json.dumps(census_plan(1.0)), encoding="utf-8")
    window.files.load_table(data, synchronous=True)
    assert window.files.open_plan(plan, confirmed=True)
    out = tmp_path / "census.zip"
    wizard = release_with_wizard(window, qtbot, out)
    table = wizard.results.table
    headers = [table.horizontalHeaderItem(j).text() for j in range(table.columnCount())]
    assert headers[2] == "Raw value" and headers[4] == "Consistent value (headline)", headers
    record = json.loads(zipfile.ZipFile(out).read("release.json"))
    expected = [f"{v:,}" for q in record["consistency"]["queries"] for v in q["value"]]
    shown = [table.item(i, 4).text() for i in range(table.rowCount())]
    assert shown == expected
    assert "add up exactly as the plan's relations say and are never below 0" in \
        wizard.results.summary.text()
    SHOTS.mkdir(parents=True, exist_ok=True)
    wizard.resize(1000, 760)
    wizard.grab().save(str(SHOTS / "consistent-results.png"))
