"""An output is never the app's own ledger, audit log or keys, nor one of the command's own
inputs, whatever --force says (found by the adversarial pass: --out on the ledger with
--force charged the budget and then replaced the ledger with the bundle)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import DEMO_PLAN, DEMO_TABLE, run_in_process


def run(args: list[str], home: Path) -> subprocess.CompletedProcess[str]:
    return run_in_process(args, home)  # in this process (issue 23)


@pytest.fixture
def released(tmp_path: Path) -> Path:
    home = tmp_path / "home"
    done = run(["release", str(DEMO_PLAN), "--data", str(DEMO_TABLE), "--out",
                str(tmp_path / "first.zip")], home)
    assert done.returncode == 0, done.stderr
    return home


@pytest.mark.parametrize("name", ["ledger.sqlite3", "audit.jsonl"])
def test_release_never_writes_over_the_apps_own_files(released: Path, name: str) -> None:
    target = released / "data" / name
    before = {p.name: p.read_bytes() for p in (released / "data").iterdir() if p.is_file()}
    done = run(["release", str(DEMO_PLAN), "--data", str(DEMO_TABLE), "--out", str(target),
                "--force"], released)
    assert done.returncode == 2, done.stderr
    assert "app's own folder" in done.stderr and len(done.stderr.strip().splitlines()) == 1
    after = {p.name: p.read_bytes() for p in (released / "data").iterdir() if p.is_file()}
    assert after == before  # nothing charged, nothing replaced


def test_no_command_writes_over_its_own_input(tmp_path: Path) -> None:
    home = tmp_path / "home"
    table = tmp_path / "survey.csv"
    shutil.copy(DEMO_TABLE, table)
    plan = tmp_path / "plan.json"
    shutil.copy(DEMO_PLAN, plan)
    kept = table.read_bytes()
    for args in (["release", str(plan), "--data", str(table), "--out", str(table), "--force"],
                 ["plan", "new", "--data", str(table), "--out", str(table), "--force"]):
        done = run(args, home)
        assert done.returncode == 2, (args, done.stderr)
        assert "own inputs" in done.stderr
        assert table.read_bytes() == kept
    bundle = tmp_path / "b.zip"
    assert run(["release", str(plan), "--data", str(table), "--out", str(bundle)],
               home).returncode == 0
    zipped = bundle.read_bytes()
    done = run(["report", str(bundle), "--pdf", str(bundle), "--force"], home)
    assert done.returncode == 2 and "own inputs" in done.stderr
    assert bundle.read_bytes() == zipped
