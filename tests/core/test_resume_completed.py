"""Issue 22 part 6: `release --resume ID` of a release that is already complete (a kill after
the ledger marked it completed but before its saved record was removed, or simply asked
twice) says so, with its bundle's path, and exits 0: no second bundle, no new audit entry."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from planner_app.cli import main
from planner_app.core.data.tables import load_table
from planner_app.core.planfile import plan_from_dict
from planner_app.core.records.ledger import Ledger
from planner_app.core.release.pending import pending_dir
from planner_app.core.release.publish import publish
from planner_app.core.support.home import AppHome, app_home
from tests.conftest import DEMO_TABLE, ROWS_ARE_PEOPLE, plan_dict


@pytest.fixture
def completed(tmp_path: Path) -> tuple[AppHome, str, Path, Path]:
    """A completed release whose saved record was left behind, as a kill between the
    ledger's 'completed' and the record's removal leaves it: the record is copied while the
    bundle is written (the progress callback) and put back afterwards."""
    home = app_home(tmp_path / "home").ensure()
    kept = tmp_path / "kept"

    def progress(fraction: float, message: str) -> None:
        if message == "Writing the bundle":
            shutil.copytree(pending_dir(home), kept)

    out = tmp_path / "bundle.zip"
    plan = plan_from_dict(plan_dict(privacy_unit=ROWS_ARE_PEOPLE))
    result = publish(plan, load_table(DEMO_TABLE), out, home,
                     progress=progress)
    assert Ledger(home.ledger_path).release(result.release_id).status == "completed"
    shutil.copytree(kept, pending_dir(home), dirs_exist_ok=True)
    record = pending_dir(home) / f"{result.release_id}.json"
    assert record.exists()
    return home, result.release_id, out, record


@pytest.mark.parametrize("elsewhere", [False, True])
def test_resuming_a_completed_release_writes_nothing(
        completed: tuple[AppHome, str, Path, Path], tmp_path: Path, elsewhere: bool,
        capsys: pytest.CaptureFixture[str]) -> None:
    home, release_id, out, record = completed
    bundle, audit = out.read_bytes(), home.audit_path.read_bytes()
    args = ["--home", str(home.data_dir.parent), "release", "--resume", release_id]
    if elsewhere:  # the bundle was moved away: still no second bundle
        args += ["--out", str(tmp_path / "again.zip")]
    assert main(args) == 0
    said = capsys.readouterr()
    assert f"Release {release_id} is already complete: its bundle is {out}" in said.out
    assert "nothing was written" in said.out and said.err == ""
    assert out.read_bytes() == bundle and not (tmp_path / "again.zip").exists()
    assert home.audit_path.read_bytes() == audit  # no new entry
    assert not record.exists()  # the left-over record is gone: nothing is offered again
    assert Ledger(home.ledger_path).releases_charged() == 1


def test_resuming_it_again_without_a_record_says_the_same(
        completed: tuple[AppHome, str, Path, Path],
        capsys: pytest.CaptureFixture[str]) -> None:
    home, release_id, out, record = completed
    record.unlink()
    assert main(["--home", str(home.data_dir.parent), "release", "--resume", release_id]) == 0
    assert f"is already complete: its bundle is {out}" in capsys.readouterr().out
