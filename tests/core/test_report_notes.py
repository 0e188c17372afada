"""A PDF table's note is wrapped, never cut (issue 11)."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest
from pypdf import PdfReader

from planner_app.core.release.report import report_pdf
from tests.core.test_report_charts import demo_record
from tests.record_rows import edit_rows, result_rows


@pytest.fixture(scope="module")
def record(tmp_path_factory: pytest.TempPathFactory) -> dict:
    return demo_record(tmp_path_factory.mktemp("notes"))


def squeezed(text: str) -> str:
    """The text without its white space: a wrapped cell may break a long word anywhere."""
    return "".join(text.split())


def test_pdf_notes_are_wrapped_not_cut(record) -> None:  # type: ignore[no-untyped-def]
    long_note = ("kept within the declared bounds (post-processing); " * 4
                 + "and this is the end of a long note")
    record = json.loads(json.dumps(record))

    def lengthen(rows: list[dict[str, Any]]) -> None:
        for r in rows:
            if r["query_id"] == "hours_mean":
                r["note"] = long_note

    edit_rows(record, lengthen)
    reader = PdfReader(io.BytesIO(report_pdf(record)))
    assert squeezed(long_note) in squeezed(" ".join(p.extract_text() for p in reader.pages))


def test_every_demo_note_appears_whole_in_the_pdf(record) -> None:  # type: ignore[no-untyped-def]
    reader = PdfReader(io.BytesIO(report_pdf(record)))
    text = squeezed(" ".join(p.extract_text() for p in reader.pages))
    notes = {r["note"] for r in result_rows(record) if r["note"]}
    assert any(len(n) > 60 for n in notes)  # the case that used to be cut
    for note in notes:
        assert squeezed(note) in text, note



def test_post_processing_reads_as_words(record) -> None:  # type: ignore[no-untyped-def]
    """The report said "randomized response share within 0 1" (a JSON key with its
    underscores replaced); every flag the record sets must read as a phrase."""
    from planner_app.core.release.report import transparency

    answer = dict(transparency(record))["Post-processing"]
    assert "within 0 1" not in answer and "_" not in answer
    flags = [k for k, v in record["post_processing"].items() if v is True]
    assert flags and all(k.replace("_", " ") not in answer for k in flags)
