"""The bundle viewer shows each released value and interval exactly as the bundle's own PDF
and HTML report print them (one rounding rule, core/support/numbers.py), and results.csv
keeps the exact values (issue 22, part 3)."""

from __future__ import annotations

import csv
import io
import json
import zipfile
from pathlib import Path

import pytest
from pypdf import PdfReader

from tests.record_rows import result_rows


@pytest.fixture
def bundle(demo_bundle: Path) -> Path:
    """The demo release, built once for the session (tests/conftest.py)."""
    return demo_bundle


def test_the_viewer_shows_what_the_pdf_and_html_print(  # type: ignore[no-untyped-def]
        window, qtbot, bundle: Path) -> None:
    window.files.open_path(bundle)
    viewer = window.launchers.bundle_dialog
    qtbot.addWidget(viewer)
    qtbot.waitUntil(lambda: viewer.opened is not None, timeout=30_000)
    table = viewer.tabs.widget(0)
    headers = [table.horizontalHeaderItem(c).text() for c in range(table.columnCount())]
    value, interval = headers.index("Value"), next(
        i for i, h in enumerate(headers) if h.startswith("Interval"))
    with zipfile.ZipFile(bundle) as z:
        pdf = " ".join(" ".join(p.extract_text().split())
                       for p in PdfReader(io.BytesIO(z.read("report.pdf"))).pages)
        html = z.read("report.html").decode("utf-8")
        rows = list(csv.DictReader(io.StringIO(z.read("results.csv").decode("utf-8"))))
        record = json.loads(z.read("release.json"))
        readme = z.read("README.txt").decode("utf-8")
    checked = 0
    for r in range(table.rowCount()):
        v, i = table.item(r, value).text(), table.item(r, interval).text()
        if i == "—":
            continue
        assert f"{v} {i}" in pdf, (v, i)  # the same text, side by side in the PDF's table
        assert f">{v}<" in html and f">{i}<" in html, (v, i)
        checked += 1
    assert checked >= 10
    # results.csv keeps every digit of release.json, and README.txt says it is unrounded
    for row, released in zip(rows, result_rows(record), strict=True):
        if isinstance(released["value"], float):
            assert float(row["value"]) == released["value"]
    assert "exact, unrounded" in readme
