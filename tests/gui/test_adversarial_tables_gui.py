"""Opening a hostile table in the app (issue 22 §6) shows the core's own line in a dialog,
never "Something went wrong"."""

from __future__ import annotations

import codecs
from pathlib import Path

import pytest


@pytest.mark.parametrize(("name", "data", "message"), [
    ("case.csv", b"x,X,g\n1,2,a\n", "'x' (column 1) and 'X' differ only in letter case"),
    ("bom-only.csv", codecs.BOM_UTF8, "bom-only.csv: is empty"),
    ("utf32.csv", "x,g\n1,a\n".encode("utf-32"), "is UTF-32 text"),
])
def test_a_hostile_table_gets_its_own_message(window, dialogs, qtbot, tmp_path: Path,  # type: ignore[no-untyped-def]
                                              name: str, data: bytes, message: str) -> None:
    path = tmp_path / name
    path.write_bytes(data)
    window.files.load_table(path)  # the worker, as a person opening the file
    qtbot.waitUntil(lambda: bool(dialogs.shown), timeout=30_000)
    kind, title, text = dialogs.shown[-1]
    assert message in text, text
    assert "went wrong" not in title + text
    assert window.session.table is None  # nothing was opened


@pytest.mark.parametrize(("typed", "message"), [
    ("ＡＢＣ データ", "which the PDF report's font (DejaVu Sans) cannot draw"),
    ("survey\u200b2025", "contains the invisible character U+200B"),
])
def test_a_dataset_name_the_plan_file_refuses_is_refused_in_the_pane(demo, dialogs, typed: str,  # type: ignore[no-untyped-def]
                                                                     message: str) -> None:
    pane, session = demo.data_pane, demo.session
    before = session.plan.dataset.name
    pane.dataset_name.setText(typed)
    pane.dataset_name.editingFinished.emit()
    kind, title, text = dialogs.shown[-1]
    assert (kind, title) == ("warning", "Cannot use this dataset name")
    assert text.startswith("plan: dataset.name: contains ") and message in text
    assert session.plan.dataset.name == before and pane.dataset_name.text() == before
