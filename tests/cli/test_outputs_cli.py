"""Files are never destroyed, two releases to one --out are never both charged, and a release
killed after its noise is completed with `release --resume` (no new noise, no second charge)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from planner_app.cli import main
from planner_app.core.records.audit import AuditLog
from planner_app.core.records.ledger import Ledger
from planner_app.core.release.bundle import read_bundle
from planner_app.core.release.verify_release import verify_bundle
from planner_app.core.support.errors import InputError
from planner_app.core.support.files import check_output
from planner_app.core.support.home import app_home
from tests.cli.test_release_cli import env_for, release_args, run
from tests.conftest import DEMO_PLAN, DEMO_TABLE, ROOT


@pytest.fixture(scope="module")
def bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("bundle")
    out = folder / "b.zip"
    assert main(["--home", str(folder / "home"), *release_args(out)]) == 0
    return out


def cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(args)
    return code, capsys.readouterr().err


# ----------------------------------------------------------------------------- never destroyed


def test_report_never_overwrites_a_file_without_force(tmp_path: Path, bundle: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    precious = tmp_path / "precious-data.csv"
    precious.write_text("id,salary\n1,50000\n")
    code, err = cli(["report", str(bundle), "--pdf", str(precious)], capsys)
    assert code == 2 and "precious-data.csv: already exists" in err and "--force" in err
    assert precious.read_text() == "id,salary\n1,50000\n"
    # both targets are checked before either is written
    html = tmp_path / "r.html"
    code, err = cli(["report", str(bundle), "--html", str(html), "--pdf", str(precious)], capsys)
    assert code == 2 and not html.exists()
    code, err = cli(["report", str(bundle), "--pdf", str(precious), "--force"], capsys)
    assert code == 0, err
    assert precious.read_bytes().startswith(b"%PDF")


@pytest.mark.parametrize("kind", ["symlink", "fifo", "folder"])
def test_report_and_plan_new_never_replace_anything_but_a_regular_file(
        tmp_path: Path, bundle: Path, kind: str, capsys: pytest.CaptureFixture[str]) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    target = tmp_path / "target"
    if kind == "symlink":
        target.symlink_to(victim)
    elif kind == "fifo":
        os.mkfifo(target)
    else:
        target.mkdir()
    commands = [["report", str(bundle), "--html", str(target), "--force"],
                ["report", str(bundle), "--pdf", str(target)],
                ["plan", "new", "--data", str(DEMO_TABLE), "--out", str(target), "--force"]]
    for args in commands:
        code, err = cli(args, capsys)
        assert code == 2, (args, err)
        assert "target: is a" in err and "never replaced" in err, err
        assert len(err.strip().splitlines()) == 1
    assert victim.read_text() == "keep me"
    if kind == "symlink":
        assert target.is_symlink() and os.readlink(target) == str(victim)
    elif kind == "fifo":
        import stat

        assert stat.S_ISFIFO(os.lstat(target).st_mode)
    else:
        assert target.is_dir() and not any(target.iterdir())


def test_a_device_is_never_an_output() -> None:
    """As root, `--html /dev/null` replaced the system's /dev/null. Only the check runs here:
    nothing is ever written to /dev."""
    with pytest.raises(InputError, match="null: is a device"):
        check_output(Path("/dev/null"), overwrite=True)


def test_release_onto_an_existing_bundle_needs_force(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    home = tmp_path / "home"
    out = tmp_path / "b.zip"
    out.write_bytes(b"an older bundle")
    code, err = cli(["--home", str(home), *release_args(out)], capsys)
    assert code == 2 and "b.zip: already exists" in err
    assert out.read_bytes() == b"an older bundle"
    assert not app_home(home).ledger_path.exists() or \
        Ledger(app_home(home).ledger_path).state("demo-survey").releases == []
    code, err = cli(["--home", str(home), *release_args(out), "--force"], capsys)
    assert code == 0, err
    assert verify_bundle(out).valid


# ---------------------------------------------------------------------------- one --out, one charge


def paused(args: list[str], home: Path, stage: str) -> subprocess.Popen[str]:
    proc = subprocess.Popen([sys.executable, "-m", "planner_app", *args],
                            env=env_for(home, PLANNER_APP_FAULT_PAUSE=stage), cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stderr is not None
    deadline = time.time() + 150
    line = ""
    while time.time() < deadline:
        line = proc.stderr.readline()
        if line.startswith("paused at") or not line:
            break
    assert line.strip() == f"paused at {stage}"
    return proc


@pytest.mark.subprocess
def test_a_second_release_to_the_same_out_is_refused_before_its_charge(tmp_path: Path) -> None:
    home = tmp_path / "home"
    out = tmp_path / "same.zip"
    first = paused(release_args(out), home, "requested")  # holds the path, not charged yet
    try:
        second = run(release_args(out), home)
        assert second.returncode == 2, second.stderr
        assert "another release is writing this bundle" in second.stderr
        assert "nothing was charged" in second.stderr
        assert Ledger(app_home(home).ledger_path).state("demo-survey").releases == []
    finally:
        os.kill(first.pid, signal.SIGKILL)
        first.wait(timeout=30)
    # killed before its charge (test_release_cli's kill -9 test leaves this window to this
    # test, ci23): nothing charged, no bundle, no partial one, an audit log that verifies
    assert Ledger(app_home(home).ledger_path).state("demo-survey").releases == []
    assert not out.exists() and list(tmp_path.glob(".same.zip.*.partial")) == []
    assert AuditLog(app_home(home).audit_path).verify() is None
    # the path is free again once its holder is gone
    done = run(release_args(out), home)
    assert done.returncode == 0, done.stderr
    assert len(Ledger(app_home(home).ledger_path).state("demo-survey").releases) == 1


# ----------------------------------------------------------------------------- kill, then resume


@pytest.mark.subprocess
@pytest.mark.parametrize("stage", ["saved", "bundle-temp-written", "renamed"])
def test_a_release_killed_after_its_noise_is_completed_by_resume(tmp_path: Path,
                                                                 stage: str) -> None:
    home = tmp_path / "home"
    out = tmp_path / "k.zip"
    proc = paused(release_args(out), home, stage)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    # what the kill left (these windows' checks moved here from test_release_cli's kill -9
    # test, ci23): the charge, a partial bundle only while it was being written, a whole
    # bundle that verifies only once it was renamed, an audit log that verifies
    ledger = Ledger(app_home(home).ledger_path)
    [row] = ledger.state("demo-survey").releases
    assert row.status == "charged"
    spent = ledger.state("demo-survey").spent.epsilon
    assert spent > 3  # charged at least what was drawn
    leftovers = list(tmp_path.glob(".k.zip.*.partial"))
    assert len(leftovers) == (1 if stage == "bundle-temp-written" else 0)
    if stage == "renamed":
        assert verify_bundle(out).valid
    else:
        assert not out.exists()
    assert AuditLog(app_home(home).audit_path).verify() is None
    saved = json.loads((app_home(home).data_dir / "pending" / f"{row.id}.json").read_text())
    # another release works meanwhile and is charged on top
    done = run(release_args(tmp_path / "next.zip"), home)
    assert done.returncode == 0, done.stderr
    state = ledger.state("demo-survey")
    assert {r.id: r.status for r in state.releases} == {
        row.id: "charged", **{r.id: "completed" for r in state.releases if r.id != row.id}}
    assert len(state.releases) == 2 and state.spent.epsilon > spent
    spent = state.spent.epsilon
    # then the killed one is completed from its saved record
    done = run(["release", "--resume", "--json"], home)
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert summary["release_id"] == row.id and summary["bundle"] == str(out)
    assert verify_bundle(out).valid
    record = json.loads(read_bundle(out)["release.json"])
    assert record["release_id"] == row.id
    assert record["results"] == saved["record"]["results"]  # the same noised values
    state = ledger.state("demo-survey")
    assert row.id in {r.id for r in state.releases}
    assert [r.status for r in state.releases] == ["completed", "completed"]
    assert state.spent.epsilon == spent  # no second charge
    assert list(tmp_path.glob(".k.zip.*.partial")) == []
    assert AuditLog(app_home(home).audit_path).verify() is None
    again = run(["release", "--resume"], home)
    assert again.returncode == 2 and "no unfinished release" in again.stderr


def test_resume_arguments(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    home = tmp_path / "home"
    code, err = cli(["--home", str(home), "release", "--resume", "--data", str(DEMO_TABLE)],
                    capsys)
    assert code == 2 and "give no plan or --data" in err
    code, err = cli(["--home", str(home), "release", str(DEMO_PLAN)], capsys)
    assert code == 2 and "release needs --data, --out" in err
    code, err = cli(["--home", str(home), "release", "--resume", "../../etc"], capsys)
    assert code == 2 and "is not a release id" in err


def test_review_never_replaces_a_linked_plan(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    import shutil

    real = tmp_path / "real-plan.json"
    shutil.copy(DEMO_PLAN, real)
    link = tmp_path / "plan.json"
    link.symlink_to(real)
    home = tmp_path / "home"
    code, err = cli(["--home", str(home), "review", str(link), "--approve", "--reviewer", "Ada"],
                    capsys)
    assert code == 2 and "plan.json: is a symbolic link" in err
    assert link.is_symlink() and real.read_bytes() == DEMO_PLAN.read_bytes()
    assert AuditLog(app_home(home).audit_path).read() == []  # no decision logged either
