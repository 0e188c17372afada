"""open_bundle: the verifier's verdict and the bundle's parsed contents, read once."""

from __future__ import annotations

import base64
import csv
import io
import json
import re
import zipfile
from pathlib import Path

import pytest

from planner_app.core.planfile import load_plan
from planner_app.core.release.bundle import NotABundle
from planner_app.core.release.opened_bundle import open_bundle
from planner_app.core.release.verify_release import verify_bundle
from planner_app.core.support.resources import demo_plan_path
from tests.conftest import flip_zip_byte
from tests.corpus.crafted import reseal, rezip, unzip


@pytest.fixture
def bundle(demo_bundle: Path) -> Path:
    """The demo release, built once for the session (tests/conftest.py)."""
    return demo_bundle


def _member(path: Path, name: str) -> bytes:
    with zipfile.ZipFile(path) as zf:
        return zf.read(name)


def test_a_good_bundle_opens_with_its_verdict_and_contents(bundle: Path) -> None:
    opened = open_bundle(bundle)
    assert opened.verdict.to_dict() == verify_bundle(bundle).to_dict()
    assert opened.verdict.valid and opened.unreadable == []
    record = json.loads(_member(bundle, "release.json"))
    release = opened.release
    assert release is not None
    assert (release.dataset, release.release_id) == (record["dataset"]["name"],
                                                     record["release_id"])
    assert release.epsilon == record["total"]["epsilon"]
    assert [s.label for s in release.statistics] == [q["label"] for q in record["queries"]]
    assert [s.half_width for s in release.statistics] == [q["accuracy"]["half_width"]
                                                          for q in record["queries"]]
    rows = list(csv.reader(io.StringIO(_member(bundle, "results.csv").decode())))
    assert opened.results is not None
    assert [opened.results.columns, *opened.results.rows] == rows
    assert opened.plan == load_plan(demo_plan_path())
    audit = [json.loads(line) for line in _member(bundle, "audit.jsonl").decode().splitlines()]
    assert opened.audit is not None
    assert [a.event for a in opened.audit] == [e["event"] for e in audit]
    assert opened.audit[-1].hash == audit[-1]["hash"]
    assert opened.readme == _member(bundle, "README.txt").decode()
    assert opened.has_report_pdf


def test_the_report_images_are_taken_out_of_the_page(bundle: Path) -> None:
    page = _member(bundle, "report.html").decode()
    embedded = re.findall(r"data:image/png;base64,([A-Za-z0-9+/=]+)", page)
    assert embedded  # the report embeds at least the belief chart
    report = open_bundle(bundle).report
    assert report is not None
    assert "data:image" not in report.html
    assert list(report.images.values()) == [base64.b64decode(e) for e in embedded]
    for name in report.images:
        assert f"src='{name}'" in report.html
        assert report.images[name].startswith(b"\x89PNG")


def test_a_changed_bundle_is_not_valid_but_still_opens(bundle: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad.zip"
    flip_zip_byte(bundle, bad, "results.csv", 50)
    opened = open_bundle(bad)
    assert not opened.verdict.valid
    assert any("results.csv" in p for p in opened.verdict.problems)
    assert opened.release is not None and opened.audit is not None


def test_a_crafted_record_is_unreadable_not_a_crash(bundle: Path, tmp_path: Path) -> None:
    files = unzip(bundle.read_bytes())
    record = json.loads(files["release.json"])
    record["queries"] = [{"label": {"a": 1}, "kind": [], "accuracy": None}]
    files["release.json"] = json.dumps(record).encode()
    files["audit.jsonl"] += b'"text"\n'
    path = tmp_path / "crafted.zip"
    try:
        sealed = reseal(files)
    except (ValueError, AttributeError):
        sealed = files
    path.write_bytes(rezip(sealed))
    opened = open_bundle(path)
    assert not opened.verdict.valid
    assert opened.release is None and "release.json" in opened.unreadable
    assert opened.audit is not None and opened.audit[-1].damaged


def test_a_file_that_is_not_a_bundle_is_refused(tmp_path: Path) -> None:
    text = tmp_path / "x.zip"
    text.write_text("not a zip")
    with pytest.raises(NotABundle, match="x.zip"):
        open_bundle(text)
