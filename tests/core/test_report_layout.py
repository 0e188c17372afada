"""The real build of a release's report reuses what the rehearsal laid out (issue 24): the
scratch document and the heights of the blocks of text alone. The bytes must be those of a
report built alone, from release.json (verify rebuilds it so)."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

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


def test_the_real_build_lays_out_again_only_the_statistics(tmp_path: Path) -> None:
    plan = load_plan(DEMO_PLAN)
    prepared = prepare(plan, load_table(DEMO_TABLE), tmp_path / "b.zip",
                       app_home(tmp_path / "home"))
    assert prepared.rehearsal is not None and prepared.rehearsal.layout is not None
    layout = prepared.rehearsal.layout
    scratch, rehearsed = layout.scratch, layout.tried
    charge_and_release(prepared)
    # the statistics' tables hold the noised values now: each is tried again, and the one
    # answer that states the lifetime budget after this release (the rehearsal's counted no
    # release yet); the guarantee and the other answers are the rehearsal's text
    assert layout.tried - rehearsed == len(plan.queries) + 1
    assert rehearsed > 2 * len(plan.queries)
    assert layout.scratch is scratch  # one scratch document (its fonts read once)
    files = read_bundle(tmp_path / "b.zip")
    record = json.loads(files["release.json"])
    assert files["report.pdf"] == report_pdf(record)  # as verify rebuilds it, alone


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
