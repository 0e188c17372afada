"""planner-app release says where each synthetic table is and how many made-up rows it has
(the rows are published in the bundle anyway: the plan's, or from the noised totals)."""

from __future__ import annotations

import copy
import json
import zipfile
from pathlib import Path

import pytest

from tests.cli.test_release_cli import run
from tests.cli.test_synthetic_cli import PLAN
from tests.conftest import DEMO_TABLE


def test_release_prints_one_line_per_synthetic_table(tmp_path: Path) -> None:
    pytest.importorskip("mbi")
    doc = copy.deepcopy(PLAN)
    q = doc["queries"][0]
    q["columns"] = [c for c in q["columns"] if c["column"] in ("region", "smoker")]
    path = tmp_path / "plan.json"
    path.write_text(json.dumps(doc))
    out = tmp_path / "b.zip"
    done = run(["release", str(path), "--data", str(DEMO_TABLE), "--out", str(out)],
               tmp_path / "home")
    assert done.returncode == 0, done.stderr
    record = json.loads(zipfile.ZipFile(out).read("release.json"))
    rows = record["synthetic"]["survey_synth"]["rows"]
    csv_rows = zipfile.ZipFile(out).read("synthetic/survey_synth.csv").decode().count("\n") - 1
    assert csv_rows == rows
    want = f"synthetic table survey_synth: synthetic/survey_synth.csv, {rows:,} made-up rows"
    assert [line for line in done.stdout.splitlines() if line.startswith("synthetic table")] \
        == [want], done.stdout
