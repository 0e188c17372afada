"""Review decisions bound to the plan's content; the report answers the transparency list."""

from __future__ import annotations

import io
import json
from dataclasses import replace
from pathlib import Path

import pytest
from pypdf import PdfReader

from planner_app.core.data.tables import load_table
from planner_app.core.planfile import load_plan, plan_digest, plan_from_dict, plan_to_dict
from planner_app.core.records.ledger import Ledger
from planner_app.core.records.review import ApprovalRequired, approval_status, review
from planner_app.core.release.bundle import read_bundle
from planner_app.core.release.publish import publish
from planner_app.core.release.report import report_html, report_pdf, transparency
from planner_app.core.release.verify_release import verify_bundle
from planner_app.core.support.errors import InputError
from planner_app.core.support.home import app_home
from planner_app.core.support.resources import demo_plan_path
from tests.conftest import DEMO_TABLE

TRANSPARENCY = ("Unit of privacy", "Neighbouring datasets", "Privacy parameters",
                "Differential privacy variant", "Model", "One or many releases",
                "Accounting and composition", "Pre-processing: bounds (clamping)",
                "Pre-processing: categories and keys", "Pre-processing: missing values",
                "Quantities released without noise", "Justification for ε", "Review")


def test_a_decision_is_bound_to_the_plans_content() -> None:
    plan = load_plan(demo_plan_path())
    approved = review(plan, "Ada", "approved", "fine")
    assert plan_digest(approved) == plan_digest(plan)  # approvals are about the plan
    status = approval_status(approved)
    assert status.state == "approved" and status.latest["reviewer"] == "Ada"
    changed = approved.with_queries([replace(approved.queries[0], epsilon=0.31),
                                     *approved.queries[1:]])
    assert approval_status(changed).state == "changed"
    rejected = review(approved, "Bo", "rejected", "bounds too wide")
    assert approval_status(rejected).state == "rejected"
    again = plan_from_dict(plan_to_dict(rejected))  # the approvals survive a round trip
    assert again.approvals == rejected.approvals
    with pytest.raises(InputError, match="reviewer"):
        review(plan, "  ", "approved")


def test_a_forged_approval_entry_is_refused_by_the_validator() -> None:
    doc = plan_to_dict(load_plan(demo_plan_path()))
    doc["approvals"] = [{"reviewer": "X", "decision": "approved", "plan_sha256": "abc",
                         "time": "now"}]
    with pytest.raises(InputError, match=r"approvals\[0\].plan_sha256"):
        plan_from_dict(doc)


def test_release_requires_an_approval_for_this_exact_plan(tmp_path: Path) -> None:
    home = app_home(tmp_path / "home")
    table = load_table(DEMO_TABLE)
    plan = load_plan(demo_plan_path())
    with pytest.raises(ApprovalRequired, match="Not reviewed yet"):
        publish(plan, table, tmp_path / "a.zip", home, require_approval=True)
    changed = review(plan, "Ada", "approved").with_queries(
        [replace(plan.queries[0], epsilon=0.2), *plan.queries[1:]])
    with pytest.raises(ApprovalRequired, match="changed after the last review"):
        publish(changed, table, tmp_path / "a.zip", home, require_approval=True)
    assert not (tmp_path / "a.zip").exists()
    assert not home.ledger_path.exists() or not Ledger(home.ledger_path).state(
        "demo-survey").releases
    approved = review(plan, "Ada", "approved", "bounds come from the form")
    publish(approved, table, tmp_path / "a.zip", home, require_approval=True)
    record = json.loads(read_bundle(tmp_path / "a.zip")["release.json"])
    assert record["review"] == "approved" and record["approval"]["reviewer"] == "Ada"


@pytest.fixture(scope="module")
def released(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("report")
    plan = review(load_plan(demo_plan_path()), "Ada Officer", "approved", "checked")
    out = folder / "b.zip"
    publish(plan, load_table(DEMO_TABLE), out, app_home(folder / "home"))
    return out


def test_every_bundle_carries_its_report(released: Path) -> None:
    files = read_bundle(released)
    assert files["report.pdf"].startswith(b"%PDF") and b"<h1>" in files["report.html"]
    assert verify_bundle(released).valid
    seal = json.loads(files["audit.jsonl"].decode().splitlines()[-1])["params"]["files"]
    assert {"report.pdf", "report.html"} <= set(seal)


def test_the_pdf_answers_the_transparency_list(released: Path) -> None:
    files = read_bundle(released)
    record = json.loads(files["release.json"])
    text = " ".join(page.extract_text() for page in PdfReader(io.BytesIO(
        files["report.pdf"])).pages)
    flat = " ".join(text.split())
    for question in TRANSPARENCY:
        assert question in flat, question
    for q in record["queries"]:
        assert q["label"] in flat
    assert "approved by Ada Officer" in flat
    assert record["risk"]["sentence"] in flat
    assert "negative" in flat  # why a noisy count can be negative
    answers = dict(transparency(record))
    # randomized response's number of answers is noised under add-remove (issue 10)
    assert answers["Quantities released without noise"] == "none"
    assert "number of answers published is noised" in answers["Model"]
    assert "up to" not in answers["Unit of privacy"] and "at most 3 rows" in answers[
        "Unit of privacy"]
    # a yes/no share's declared values are public parameters the reader must see
    smokers = next(q for q in record["plan"]["queries"] if q["kind"] == "randomized_response")
    yes_no = f"yes = {', '.join(smokers['yes'])}; no = {', '.join(smokers['no'])}"
    assert yes_no in answers["Pre-processing: categories and keys"]


def test_html_escapes_text_from_the_plan(released: Path) -> None:
    record = json.loads(read_bundle(released)["release.json"])
    record["queries"][0]["label"] = "<script>alert(1)</script>"
    page = report_html(record)
    assert "<script>" not in page and "&lt;script&gt;" in page
    assert report_pdf(record).startswith(b"%PDF")
