"""A synthetic table from the command line: release then verify on the demo table; without
mbi, one line and exit 2 before anything is charged."""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from planner_app.core.records.ledger import Ledger
from planner_app.core.support.home import app_home
from tests.cli.test_release_cli import env_for, run
from tests.conftest import DEMO_TABLE, ROOT

PLAN = {
    "format": "planner-app/plan@1",
    "dataset": {"name": "demo-survey", "expected_rows": 3800},
    "privacy_unit": {"kind": "person", "id_column": "person_id", "max_rows": 3},
    "budget": {"epsilon": 3.0, "delta": 1e-6},
    "queries": [
        {"id": "survey_synth", "kind": "synthetic", "epsilon": 2.0, "delta": 5e-7,
         "columns": [{"column": "region", "categories": ["North", "South", "East", "West"]},
                     {"column": "age", "bins": [16, 25, 35, 45, 55, 65, 75, 100]},
                     {"column": "smoker", "categories": ["yes", "no"]}],
         "justification": {"categories": "official regions; the form's answers",
                           "bounds": "standard reporting age bands"}},
    ],
}


def write_plan(folder: Path) -> Path:
    path = folder / "plan.json"
    path.write_text(json.dumps(PLAN))
    return path


@pytest.mark.subprocess
def test_without_mbi_a_synthetic_plan_exits_2_before_any_charge(tmp_path: Path) -> None:
    plan = write_plan(tmp_path)
    home = tmp_path / "home"
    code = ("import sys; sys.modules['mbi'] = None\n"
            "from planner_app.cli import main\n"
            f"sys.exit(main(['release', {str(plan)!r}, '--data', {str(DEMO_TABLE)!r}, "
            f"'--out', {str(tmp_path / 'b.zip')!r}]))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env_for(home), cwd=ROOT, timeout=180)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "queries[survey_synth].kind" in lines[0]
    assert "pip install 'planner-app[synth]'" in lines[0]
    assert not (tmp_path / "b.zip").exists()
    ledger = app_home(home).ledger_path
    assert not ledger.exists() or Ledger(ledger).releases_charged() == 0


def test_release_and_verify_a_synthetic_table(tmp_path: Path) -> None:
    pytest.importorskip("mbi")
    plan = write_plan(tmp_path)
    out = tmp_path / "synth.zip"
    home = tmp_path / "home"
    done = run(["release", str(plan), "--data", str(DEMO_TABLE), "--out", str(out)], home)
    assert done.returncode == 0, done.stderr
    assert "Warning" not in done.stderr  # JAX/mbi's warnings are not for people
    checked = run(["verify", str(out)], home)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "every synthetic table has the declared columns" in checked.stdout
    assert "info: synthetic table 'survey_synth': " in checked.stdout  # its TVD, as information
    assert "TVD" in checked.stdout and "not checked against them" not in checked.stdout
    again = run(["verify", str(out), "--regenerate"], home)
    assert again.returncode == 0, again.stdout + again.stderr
    assert "ok: synthetic/survey_synth.csv is byte for byte what mbi" in again.stdout
    names = zipfile.ZipFile(out).namelist()
    assert "synthetic/survey_synth.csv" in names
