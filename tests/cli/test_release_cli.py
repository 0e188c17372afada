"""release, ledger and verify as a user runs them; concurrent releases; kill -9 mid-release."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from planner_app.core.records.audit import AuditLog
from planner_app.core.records.ledger import Ledger
from planner_app.core.support.home import app_home
from tests.conftest import (
    DEMO_PLAN,
    DEMO_TABLE,
    ROOT,
    flip_zip_byte,
    plan_dict,
    run_in_process,
    write_json,
)


def env_for(home: Path, **extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT)
    env["PLANNER_APP_HOME"] = str(home)
    env.pop("PLANNER_APP_DEBUG", None)
    env.update(extra)
    return env


def run(args: list[str], home: Path, **extra: str) -> subprocess.CompletedProcess[str]:
    """The command as a user runs it, in this process (tests.conftest.run_in_process)."""
    return run_in_process(args, home, **extra)


def run_process(args: list[str], home: Path, **extra: str) -> subprocess.CompletedProcess[str]:
    """The command in a process of its own (`python -m planner_app`)."""
    return subprocess.run([sys.executable, "-m", "planner_app", *args], capture_output=True,
                          text=True, env=env_for(home, **extra), cwd=ROOT, timeout=180)


def release_args(out: Path) -> list[str]:
    return ["release", str(DEMO_PLAN), "--data", str(DEMO_TABLE), "--out", str(out)]


def test_release_then_verify_then_ledger(tmp_path: Path) -> None:
    home = tmp_path / "home"
    out = tmp_path / "b.zip"
    done = run([*release_args(out), "--json"], home)
    assert done.returncode == 0, done.stderr
    summary = json.loads(done.stdout)
    assert summary["bundle_sha256"] and summary["ledger"]["spent"]["epsilon"] > 0
    done = run(["verify", str(out)], home)
    assert done.returncode == 0 and "verified" in done.stdout
    done = run(["verify", str(out), "--json"], home)
    assert json.loads(done.stdout)["valid"] is True
    done = run(["ledger", "show", "demo-survey", "--json"], home)
    state = json.loads(done.stdout)
    for key in ("dataset", "cap", "spent", "remaining", "releases"):
        assert key in state
    assert state["cap"] == {"epsilon": 10.0, "delta": 1e-05, "default": True}
    assert len(state["releases"]) == 1
    done = run(["ledger", "show"], home)
    assert "demo-survey: spent" in done.stdout and "(default cap)" in done.stdout
    # --home moves everything
    other = tmp_path / "other"
    done = run(["--home", str(other), "ledger", "show", "--json"], home)
    assert json.loads(done.stdout) == []
    assert (other / "data" / "ledger.sqlite3").exists()


def test_cap_refusal_exits_3_and_writes_nothing(tmp_path: Path) -> None:
    home = tmp_path / "home"
    done = run(["ledger", "set-cap", "demo-survey", "--epsilon", "4", "--delta", "1e-5"], home)
    assert done.returncode == 0, done.stderr
    assert run(release_args(tmp_path / "1.zip"), home).returncode == 0
    done = run(release_args(tmp_path / "2.zip"), home)
    assert done.returncode == 3
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "left of its lifetime cap" in lines[0]
    assert "Nothing was charged or written" in lines[0]
    assert not (tmp_path / "2.zip").exists()
    state = json.loads(run(["ledger", "show", "demo-survey", "--json"], home).stdout)
    assert len(state["releases"]) == 1
    events = [e["event"] for e in AuditLog(app_home(home).audit_path).read()]
    assert events.count("ledger cap set") == 1


def test_verify_exit_codes(tmp_path: Path) -> None:
    home = tmp_path / "home"
    out = tmp_path / "b.zip"
    assert run(release_args(out), home).returncode == 0
    bad = tmp_path / "bad.zip"
    flip_zip_byte(out, bad, "results.csv", 40)
    done = run(["verify", str(bad)], home)
    assert done.returncode == 1
    assert "results.csv: its content does not match its hash" in done.stderr
    notzip = tmp_path / "n.zip"
    notzip.write_text("plain text")
    done = run(["verify", str(notzip)], home)
    assert done.returncode == 2 and "not a zip file" in done.stderr
    assert "Traceback" not in done.stderr


def test_invalid_release_inputs_exit_2(tmp_path: Path) -> None:
    home = tmp_path / "home"
    plan = write_json(tmp_path / "p.json", plan_dict(queries=[
        {"id": "s", "kind": "sum", "column": "nope", "lower": 0, "upper": 1, "epsilon": 1}]))
    done = run(["release", str(plan), "--data", str(DEMO_TABLE), "--out",
                str(tmp_path / "x.zip")], home)
    assert done.returncode == 2 and "queries[s].column: no column 'nope'" in done.stderr
    assert not (tmp_path / "x.zip").exists()
    assert not app_home(home).ledger_path.exists()  # nothing touched the ledger


def sequential_allowance(cap_epsilon: float, cap_delta: float, tries: int) -> int:
    """How many demo releases one after another fit under the cap (the ledger's own rule)."""
    from planner_app.core.dp.measure import measurement_to_dict
    from planner_app.core.planfile import load_plan
    from planner_app.core.planning.check import all_measurements, check_plan
    from planner_app.core.records.ledger import ReleaseRecord, lifetime_total

    report = check_plan(load_plan(DEMO_PLAN))
    ms = all_measurements(report.queries)
    records: list[ReleaseRecord] = []
    for i in range(tries):
        after = lifetime_total(records, ms, report.total, cap_delta)
        if after.epsilon > cap_epsilon or after.delta > cap_delta:
            return i
        records.append(ReleaseRecord(str(i), "d", "t", "f", "0", "0", report.total.epsilon,
                                     report.total.delta, None, report.total.accountant,
                                     "completed", None,
                                     [measurement_to_dict(m) for m in ms]))
    return tries


@pytest.mark.subprocess  # four processes race for the ledger's lock
def test_concurrent_releases_never_pass_the_cap(tmp_path: Path) -> None:
    home = tmp_path / "home"
    assert run(["ledger", "set-cap", "demo-survey", "--epsilon", "8"], home).returncode == 0
    procs = [subprocess.Popen([sys.executable, "-m", "planner_app",
                               *release_args(tmp_path / f"c{i}.zip")],
                              env=env_for(home), cwd=ROOT, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for i in range(4)]
    codes = [p.wait(timeout=240) for p in procs]
    allowed = sequential_allowance(8.0, 1e-5, 4)
    assert 0 < allowed < 4
    assert sorted(codes) == [0] * allowed + [3] * (4 - allowed), codes
    state = Ledger(app_home(home).ledger_path).state("demo-survey")
    assert len(state.releases) == allowed and state.spent.epsilon <= 8
    assert len(list(tmp_path.glob("c*.zip"))) == allowed
    assert AuditLog(app_home(home).audit_path).verify() is None


# kill -9 at each window of a release that leaves a different state on disk (ci23, issue 23:
# each case is a process of its own, 10 to 17 s): "charged" left the same files as "noised"
# (the noise is drawn in memory between the two: same ledger row, audit entries, no pending
# record), so "noised" alone covers that window. "requested" is killed in
# tests/cli/test_outputs_cli.py's test of two releases to one --out; "saved",
# "bundle-temp-written" and "renamed" there too
# (test_a_release_killed_after_its_noise_is_completed_by_resume), which checks the same
# state after the kill, a next release charged on top, then `release --resume`.
STAGES = ["noised", "sealed"]


@pytest.mark.subprocess  # kill -9 of a real process
@pytest.mark.parametrize("stage", STAGES)
def test_kill_9_mid_release_leaves_a_charge_and_no_partial_bundle(tmp_path: Path,
                                                                  stage: str) -> None:
    home = tmp_path / "home"
    out = tmp_path / "k.zip"
    proc = subprocess.Popen([sys.executable, "-m", "planner_app", *release_args(out)],
                            env=env_for(home, PLANNER_APP_FAULT_PAUSE=stage), cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert proc.stderr is not None
    deadline = time.time() + 120
    line = ""
    while time.time() < deadline:
        line = proc.stderr.readline()
        if line.startswith("paused at") or not line:
            break
    assert line.strip() == f"paused at {stage}"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    state = Ledger(app_home(home).ledger_path).state("demo-survey")
    assert list(tmp_path.glob(".k.zip.*.partial")) == []  # no partial bundle...
    assert not out.exists()  # ...nor at the target path
    assert len(state.releases) == 1 and state.releases[0].status == "charged"
    assert state.spent.epsilon > 3  # charged at least what was drawn
    assert AuditLog(app_home(home).audit_path).verify() is None
    # the next release works and is charged on top
    out.unlink(missing_ok=True)
    done = run(release_args(out), home)
    assert done.returncode == 0, done.stderr
    assert len(Ledger(app_home(home).ledger_path).state("demo-survey").releases) == \
        len(state.releases) + 1
    assert list(tmp_path.glob(".k.zip.*.partial")) == []  # the next release tidies up


def test_officer_approves_owner_releases_recipient_verifies(tmp_path: Path) -> None:
    import shutil

    officer, owner = tmp_path / "officer-home", tmp_path / "owner-home"
    plan = tmp_path / "plan.json"
    shutil.copy(DEMO_PLAN, plan)
    out = tmp_path / "b.zip"
    # without approval the owner is refused, nothing written
    done = run(["release", str(plan), "--data", str(DEMO_TABLE), "--out", str(out),
                "--require-approval"], owner)
    assert done.returncode == 3 and "requires an approved plan" in done.stderr
    assert not out.exists()
    # the officer approves on their machine: the decision is in the plan and their audit log
    done = run(["review", str(plan), "--approve", "--reviewer", "Ada Officer", "--comment",
                "bounds from the survey form"], officer)
    assert done.returncode == 0, done.stderr
    events = [e["event"] for e in AuditLog(app_home(officer).audit_path).read()]
    assert events == ["plan approved"]
    # the owner releases on theirs
    done = run(["release", str(plan), "--data", str(DEMO_TABLE), "--out", str(out),
                "--require-approval"], owner)
    assert done.returncode == 0, done.stderr
    # a recipient verifies and reads the report
    done = run(["verify", str(out)], tmp_path / "recipient")
    assert done.returncode == 0 and "verified" in done.stdout
    pdf = tmp_path / "report.pdf"
    done = run(["report", str(out), "--pdf", str(pdf)], tmp_path / "recipient")
    assert done.returncode == 0 and pdf.read_bytes().startswith(b"%PDF")
    # a change after approval is refused again
    doc = json.loads(plan.read_text())
    doc["queries"][0]["epsilon"] = 0.25
    plan.write_text(json.dumps(doc))
    done = run(["release", str(plan), "--data", str(DEMO_TABLE), "--out",
                str(tmp_path / "c.zip"), "--require-approval"], owner)
    assert done.returncode == 3 and "changed after the last review" in done.stderr
    # a rejection is recorded and refuses too
    done = run(["review", str(plan), "--reject", "--reviewer", "Ada Officer"], officer)
    assert done.returncode == 0
    done = run(["release", str(plan), "--data", str(DEMO_TABLE), "--out",
                str(tmp_path / "d.zip"), "--require-approval"], owner)
    assert done.returncode == 3 and "Rejected by Ada Officer" in done.stderr


def test_report_refuses_an_invalid_bundle(tmp_path: Path) -> None:
    home = tmp_path / "home"
    out = tmp_path / "b.zip"
    assert run(release_args(out), home).returncode == 0
    bad = tmp_path / "bad.zip"
    flip_zip_byte(out, bad, "release.json", 100)
    done = run(["report", str(bad), "--pdf", str(tmp_path / "r.pdf")], home)
    assert done.returncode == 1 and "NOT valid" in done.stderr
    assert not (tmp_path / "r.pdf").exists()
    done = run(["report", str(out)], home)
    assert done.returncode == 2  # and says where to write, in one line
    assert done.stderr.strip().splitlines() == [
        "planner-app: error: argument: say where to write the report: --pdf OUT, --html OUT, "
        "--registry OUT.yaml and/or --notebook OUT.ipynb"]
