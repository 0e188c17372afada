"""walk25: right after "Find the categories privately…" filled the list, the statistic form
warned "The categories of region are exactly the values present in the data; a public list
must come from knowledge of the domain" — telling an owner who did the right thing that they
had copied the data. A list found privately is not warned about (as `check --data` already
does); the same list typed by hand still is.

Independent answer: the table's own values (pandas)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from planner_app.core.support.resources import demo_table_path

from .test_find_privately_gui import _find, _new_statistic

COPIED = "are exactly the values present in the data"


def test_a_list_found_privately_is_not_called_copied(  # type: ignore[no-untyped-def]
        demo, qtbot, dialogs, tmp_path: Path) -> None:
    regions = sorted(pd.read_csv(demo_table_path()).region.unique())
    typed = _new_statistic(demo, qtbot, "histogram", "region", "Typed by hand")
    typed.categories.setPlainText("\n".join(regions))
    qtbot.waitUntil(lambda: COPIED in typed.warning.text(), timeout=20_000)
    typed.reject()

    found = _new_statistic(demo, qtbot, "histogram", "region", "Found privately")
    _find(found, qtbot, "categories", tmp_path, epsilon="0.5", delta="1e-7")
    assert found.categories.toPlainText().splitlines() == regions  # the very same list
    qtbot.waitUntil(lambda: "Checking" not in found.warning.text(), timeout=20_000)
    assert COPIED not in found.warning.text()


def test_a_reason_found_privately_shows_its_start(  # type: ignore[no-untyped-def]
        demo, qtbot, dialogs, tmp_path: Path) -> None:
    """walk25: the one-line reason field showed the end of the long reason (a manifest hash
    and "statistic region_keys"), not "found privately in release …"."""
    form = _new_statistic(demo, qtbot, "histogram", "region", "Found privately")
    _find(form, qtbot, "categories", tmp_path, epsilon="0.5", delta="1e-7")
    assert form.list_reason.text().startswith("found privately in release ")
    assert form.list_reason.cursorPosition() == 0
