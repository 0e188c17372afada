"""Many statistics (issue 22, session 2): a release's work grows with the statistics, never
with their square. The tests count work done (copies of the PDF document, passes), not time."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from planner_app.core.data.tables import Table
from planner_app.core.planfile import plan_from_dict
from planner_app.core.release.publish import publish
from planner_app.core.support.home import app_home
from tests.conftest import ROWS_ARE_PEOPLE, plan_dict, with_reasons


def many(n: int) -> dict[str, Any]:
    queries = []
    for i in range(n):
        kind = ("count", "sum", "mean")[i % 3]
        q: dict[str, Any] = {"id": f"s{i:03d}", "label": f"Statistic {i}", "kind": kind,
                             "epsilon": 1.0 / n}
        if kind != "count":
            q.update(column="a", lower=0, upper=100)
        queries.append(q)
    return with_reasons(plan_dict(privacy_unit=ROWS_ARE_PEOPLE, queries=queries))


def table() -> Table:
    frame = pd.DataFrame({"a": [i % 101 for i in range(300)]})
    return Table(frame, "t.csv", "0" * 64, "csv")


def document_copies(tmp_path: Path, n: int, monkeypatch: pytest.MonkeyPatch) -> int:
    """How many times a release of n statistics copies the PDF document (fpdf copies every
    font and page into a recorder to try a block's layout)."""
    from fpdf.fonts import TTFFont

    copies = [0]
    original = TTFFont.__deepcopy__

    def counted(self: TTFFont, memo: dict[int, Any]) -> TTFFont:
        copies[0] += 1
        return original(self, memo)

    monkeypatch.setattr(TTFFont, "__deepcopy__", counted)
    out = tmp_path / f"r{n}.zip"
    publish(plan_from_dict(many(n)), table(), out, app_home(tmp_path / f"home{n}").ensure())
    assert out.exists()
    monkeypatch.setattr(TTFFont, "__deepcopy__", original)
    return copies[0]


def test_the_pdf_is_not_copied_per_statistic(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """Keeping a statistic's block on one page tried its layout on a deep copy of the whole
    document so far: quadratic in the statistics (150 statistics: minutes)."""
    few = document_copies(tmp_path, 3, monkeypatch)
    more = document_copies(tmp_path, 24, monkeypatch)
    assert more == few


def test_past_a_hundred_statistics_the_pdf_lists_the_rest_in_one_table(tmp_path: Path) -> None:
    """The PDF explains the first MAX_PDF_STATISTICS statistics one by one and lists the
    others, with their values, in one table (the HTML explains every one of them)."""
    import io
    import json
    import zipfile

    from pypdf import PdfReader

    from planner_app.core.release.report import MAX_PDF_STATISTICS

    n = MAX_PDF_STATISTICS + 5
    out = tmp_path / "r.zip"
    publish(plan_from_dict(many(n)), table(), out, app_home(tmp_path / "home").ensure())
    with zipfile.ZipFile(out) as z:
        record = json.loads(z.read("release.json"))
        pdf = z.read("report.pdf")
        html = z.read("report.html").decode()
    text = " ".join((p.extract_text() or "") for p in PdfReader(io.BytesIO(pdf)).pages)
    text = " ".join(text.split())
    assert "The other 5 are listed here" in text and "What (cell)" in text
    last = record["queries"][-1]
    assert f"Statistic {n - 1}" in text and f"<h3>Statistic {n - 1}</h3>" in html
    # the first hundred have their own paragraph in the PDF, the rest do not
    assert text.count("Parameters:") == MAX_PDF_STATISTICS
    assert last["id"]
