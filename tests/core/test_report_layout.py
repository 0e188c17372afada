"""The real build of a release's report reuses what the rehearsal laid out (issue 24): the
scratch document and the heights of the blocks of text alone. The bytes must be those of a
report built alone, from release.json (verify rebuilds it so)."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import pytest

from planner_app.core.data.tables import load_table
from planner_app.core.planfile import load_plan
from planner_app.core.release.bundle import read_bundle
from planner_app.core.release.publish import charge_and_release, prepare
from planner_app.core.release.report import report_pdf
from planner_app.core.release.report_layout import (
    ReportLayout,
    keep_text_together,
    new_document,
)
from planner_app.core.support.home import app_home
from tests.conftest import DEMO_PLAN, DEMO_TABLE


def test_each_block_is_laid_out_once_before_the_charge_and_once_after(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 24: the rehearsal built the whole PDF (each block tried on the scratch page,
    then drawn) and the real build did it all again: each statistic's table was laid out
    four times a release. Now the rehearsal lays each block out once (a trial build, on the
    scratch page) and the real build draws a block whose rehearsed height fits the room left
    straight onto its page: counted by the statistics' tables laid out."""
    from planner_app.core.release import report

    laid_out = {"n": 0}
    real_table_rows = report.table_rows

    def counted(*args: object, **kwargs: object) -> None:
        laid_out["n"] += 1
        real_table_rows(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(report, "table_rows", counted)
    plan = load_plan(DEMO_PLAN)
    n = len(plan.queries)
    prepared = prepare(plan, load_table(DEMO_TABLE), tmp_path / "b.zip",
                       app_home(tmp_path / "home"))
    assert laid_out["n"] == n  # the rehearsal: each statistic once
    assert prepared.rehearsal is not None and prepared.rehearsal.layout is not None
    layout = prepared.rehearsal.layout
    assert layout.drawn == 0 and layout.documents == 1  # a trial: its scratch page only
    assert layout.tried > 2 * n  # every block, the statistics and the text
    rehearsed = layout.tried
    laid_out["n"] = 0
    charge_and_release(prepared)
    assert layout.misses == 0
    # each statistic drawn once; tried first only where its rehearsed height did not fit
    # the room left on the page (the real values may fit where the placeholders did not)
    assert laid_out["n"] == n + (layout.tried - rehearsed) < 2 * n
    assert layout.direct > 0
    files = read_bundle(tmp_path / "b.zip")
    record = json.loads(files["release.json"])
    assert files["report.pdf"] == report_pdf(record)  # as verify rebuilds it, alone


def test_heights_that_miss_lay_the_report_out_afresh(tmp_path: Path) -> None:
    """A block drawn from a rehearsed height that does not fit after all (here: every height
    made 0, so each named block is drawn where it is) is caught when it crosses the page,
    and the report is laid out again without them: the same bytes as a report built alone."""
    plan = load_plan(DEMO_PLAN)
    prepared = prepare(plan, load_table(DEMO_TABLE), tmp_path / "b.zip",
                       app_home(tmp_path / "home"))
    assert prepared.rehearsal is not None and prepared.rehearsal.layout is not None
    layout = prepared.rehearsal.layout
    layout.bounds = dict.fromkeys(layout.bounds, 0.0)
    charge_and_release(prepared)
    assert layout.misses == 1
    files = read_bundle(tmp_path / "b.zip")
    record = json.loads(files["release.json"])
    assert files["report.pdf"] == report_pdf(record)
    # and from the rehearsal's own heights, made to miss as well
    wrong = ReportLayout()
    report_pdf(record, None, wrong, trial=True)
    wrong.bounds = dict.fromkeys(wrong.bounds, 0.0)
    assert report_pdf(record, None, wrong) == files["report.pdf"] and wrong.misses == 1


def _document(blocks: list[list[tuple[str, str, float]]], layout: ReportLayout) -> bytes:
    pdf = new_document()
    pdf.set_creation_date(datetime(2026, 1, 2, 3, 4, 5))
    pdf.add_page()
    width = pdf.w - pdf.l_margin - pdf.r_margin
    for steps in blocks:
        keep_text_together(pdf, steps, width, layout)
    return bytes(pdf.output())


def test_a_remembered_height_gives_the_same_pages_as_a_fresh_layout() -> None:
    """Short blocks that move to a new page, and one taller than a page (no height: it
    starts where it is and flows on), laid out from remembered heights: the same bytes."""
    long = " ".join(f"word{i}" for i in range(2_500))
    blocks = [[("heading", f"Question {i}", 9), ("para", "An answer. " * (5 + 7 * i), 8.5)]
              for i in range(12)]
    blocks.insert(5, [("heading", "A long one", 9), ("para", long, 8.5)])
    shared = ReportLayout()
    first = _document(blocks, shared)
    assert shared.tried == len(blocks) and None in shared.heights.values()
    again = _document(blocks, shared)
    assert shared.tried == len(blocks)  # nothing tried the second time
    assert again == first == _document(blocks, ReportLayout())
    assert first.count(b"/Type /Page\n") > 3
