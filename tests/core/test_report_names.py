"""The PDF report never silently drops the dataset's name (issue 22 §6): every name the plan
accepts is drawn, read back from the PDF's text with pypdf; a name with characters the font
lacks never reaches it (refused by the plan's rule, tests/core/test_adversarial_plans.py)."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from planner_app.core.data.tables import load_table
from planner_app.core.planfile import plan_from_dict
from planner_app.core.release.bundle import read_bundle
from planner_app.core.release.publish import publish
from planner_app.core.support.fonts import undrawable
from planner_app.core.support.home import app_home

pypdf = pytest.importorskip("pypdf")


@pytest.mark.parametrize("name", ["Enquête santé – Ωmega Перепись"])
def test_an_accepted_non_ascii_name_is_in_the_pdf(tmp_path: Path, name: str) -> None:
    assert undrawable(name) == []
    table = tmp_path / "t.csv"
    table.write_text("x,g\n1,a\n5,b\n")
    plan = plan_from_dict({"format": "planner-app/plan@1", "dataset": {"name": name},
                           "privacy_unit": {"kind": "row"}, "budget": {"epsilon": 1},
                           "queries": [{"id": "n", "kind": "count", "epsilon": 0.5}]})
    publish(plan, load_table(table), tmp_path / "b.zip", app_home(tmp_path / "home"))
    pdf = pypdf.PdfReader(io.BytesIO(read_bundle(tmp_path / "b.zip")["report.pdf"]))
    text = " ".join(" ".join(page.extract_text().split()) for page in pdf.pages)
    assert name in text
    assert pdf.metadata.title == f"Release report: {name}"


def test_the_font_check_agrees_with_the_font() -> None:
    assert undrawable("ＡＢＣ データ é") == ["Ａ", "Ｂ", "Ｃ", "デ", "ー", "タ"]
    assert undrawable("plain ascii") == []


def test_text_the_font_lacks_is_marked_in_the_pdf_never_dropped(tmp_path: Path) -> None:
    """A label or category in letters DejaVu Sans lacks (the data's own categories may be
    CJK) shows as U+FFFD in the PDF, one mark per character; the HTML report keeps the text."""
    table = tmp_path / "t.csv"
    table.write_text("x,g\n1,東京\n5,b\n", encoding="utf-8")
    plan = plan_from_dict({
        "format": "planner-app/plan@1", "dataset": {"name": "t"},
        "privacy_unit": {"kind": "row"}, "budget": {"epsilon": 1},
        "queries": [{"id": "h", "kind": "histogram", "label": "Counts ＡＢＣ", "column": "g",
                     "categories": ["東京", "b"], "epsilon": 0.5,
                     "justification": {"categories": "the form's options"}}]})
    publish(plan, load_table(table), tmp_path / "b.zip", app_home(tmp_path / "home"))
    files = read_bundle(tmp_path / "b.zip")
    text = " ".join(page.extract_text() for page in pypdf.PdfReader(
        io.BytesIO(files["report.pdf"])).pages)
    assert "Counts \ufffd\ufffd\ufffd" in text and "\ufffd\ufffd" in text.replace("Counts", "")
    html = files["report.html"].decode()
    assert "Counts ＡＢＣ" in html and "東京" in html
