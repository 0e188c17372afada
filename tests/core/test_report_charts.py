"""The report draws every statistic's released value with its interval (issue 11)."""

from __future__ import annotations

import base64
import io
import json
import re
from pathlib import Path

import pytest
from pypdf import PdfReader

from planner_app.core.data.tables import load_table
from planner_app.core.planfile import load_plan
from planner_app.core.records.review import review
from planner_app.core.release import report
from planner_app.core.release.bundle import read_bundle
from planner_app.core.release.publish import publish
from planner_app.core.release.report import (
    format_interval,
    format_value,
    report_html,
    report_pdf,
)
from planner_app.core.support.home import app_home
from planner_app.core.support.resources import demo_plan_path
from tests.conftest import DEMO_TABLE
from tests.record_rows import result_rows


def demo_record(folder: Path) -> dict:
    """release.json of an approved release of the demo plan."""
    plan = review(load_plan(demo_plan_path()), "Ada Officer", "approved", "checked")
    out = folder / "b.zip"
    publish(plan, load_table(DEMO_TABLE), out, app_home(folder / "home"))
    return json.loads(read_bundle(out)["release.json"])


@pytest.fixture(scope="module")
def record(tmp_path_factory: pytest.TempPathFactory) -> dict:
    return demo_record(tmp_path_factory.mktemp("charts"))


def figures(page: str) -> list[tuple[str, bytes]]:
    """(alt text, PNG bytes) of every result chart in the HTML."""
    return [(alt, base64.b64decode(data)) for alt, data in re.findall(
        r"<div class='chart'><p><img alt='([^']*)' src='data:image/png;base64,([^']+)'", page)]


def test_the_html_draws_every_statistic_with_its_released_interval(record) -> None:  # type: ignore[no-untyped-def]
    found = figures(report_html(record))
    assert len(found) == len(record["queries"])
    for (alt, png), q in zip(found, record["queries"], strict=True):
        assert png.startswith(b"\x89PNG")
        assert alt.startswith(f"Chart of {q['label']}:")
        rows = [r for r in result_rows(record) if r["query_id"] == q["id"]]
        for r in rows:  # every released value and interval, as the report's table writes it
            assert format_value(r) in alt, q["id"]
            if r["low"] is not None:
                assert f"{format_value(r)} ({format_interval(r)})" in alt, q["id"]


def test_the_pdf_carries_a_chart_per_statistic(record) -> None:  # type: ignore[no-untyped-def]
    reader = PdfReader(io.BytesIO(report_pdf(record)))
    images = sum(len(page.images) for page in reader.pages)
    assert images == len(record["queries"]) + 1  # and the belief chart
    text = " ".join(" ".join(p.extract_text() for p in reader.pages).split())
    assert text.count("The released values with their 95% intervals.") == sum(
        1 for q in record["queries"] if q["cells"] > 1 or q["kind"] == "histogram")


def test_statistics_past_the_chart_limit_say_so(record, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(report, "MAX_REPORT_CHARTS", 3)
    page = report_html(record)
    assert len(figures(page)) == 3
    assert "Charts are drawn for the first 3 statistics" in page

