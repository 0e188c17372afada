"""Spark's private folder (spill, shuffle and cache files: the plan's cells) is removed when a
release ends, and when the process is ended by SIGTERM; ``--spark-master`` names the master
(over PLANNER_APP_SPARK_MASTER). Each test starts its own process (a JVM: seconds)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from planner_app.core.data import spark_session
from planner_app.core.support.errors import InputError
from tests.conftest import ROOT, plan_dict, run_in_process, with_reasons, write_json

pytest.importorskip("pyspark")
pytest.importorskip("sqlglot")

PLAN = {"queries": [{"id": "n", "kind": "count", "epsilon": 1.0}]}


def _world(tmp_path: Path) -> tuple[list[str], dict[str, str], Path]:
    data = tmp_path / "t.csv"
    data.write_text("a,b\n" + "".join(f"{i},x{i % 3}\n" for i in range(200)))
    plan = write_json(tmp_path / "plan.json", with_reasons(plan_dict(**PLAN)))
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    env = dict(os.environ, PYTHONPATH=str(ROOT), TMPDIR=str(tmp),
               PLANNER_APP_HOME=str(tmp_path / "home"))
    args = [sys.executable, "-m", "planner_app", "release", str(plan), "--data", str(data),
            "--out", str(tmp_path / "b.zip"), "--engine", "spark"]
    return args, env, tmp


def _spark_folders(tmp: Path) -> list[Path]:
    return sorted(tmp.glob("planner-app-spark-*"))


@pytest.mark.subprocess
def test_the_folder_is_gone_after_a_release_on_a_master_named_on_the_command_line(
        tmp_path: Path) -> None:
    args, env, tmp = _world(tmp_path)
    # the environment names a master that cannot start: --spark-master overrides it
    env["PLANNER_APP_SPARK_MASTER"] = "spark://no-such-host.invalid:7077"
    done = subprocess.run([*args, "--spark-master", "local[1]"], capture_output=True,
                          text=True, env=env, cwd=ROOT, timeout=300)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "b.zip").exists()
    assert _spark_folders(tmp) == []


@pytest.mark.subprocess
def test_the_folder_is_gone_after_sigterm(tmp_path: Path) -> None:
    args, env, tmp = _world(tmp_path)
    env["PLANNER_APP_FAULT_PAUSE"] = "requested"  # the aggregates are computed, Spark lives
    proc = subprocess.Popen(args, stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT)
    try:
        assert proc.stderr is not None
        deadline = time.monotonic() + 240
        line = ""
        while "paused at requested" not in line and time.monotonic() < deadline:
            line = proc.stderr.readline()
            assert line or proc.poll() is None, "the release ended before its pause"
        assert "paused at requested" in line
        assert len(_spark_folders(tmp)) == 1
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == -signal.SIGTERM
    time.sleep(1)  # the JVM is stopped before the folder is removed: nothing comes back
    assert _spark_folders(tmp) == []


def test_set_master_overrides_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PLANNER_APP_SPARK_MASTER", "spark://host:7077")
    try:
        spark_session.set_master("local[2]")
        assert spark_session.spark_master() == "local[2]"
        assert spark_session.spark_master("yarn") == "yarn"
        with pytest.raises(InputError):
            spark_session.set_master("  ")
    finally:
        spark_session.set_master(None)
    assert spark_session.spark_master() == "spark://host:7077"


def test_spark_master_without_the_spark_engine_is_one_line(tmp_path: Path) -> None:
    args, _, _ = _world(tmp_path)
    # the command line's own refusal: main() in this process says what a process would
    # (issue 23); the two tests above keep their processes (exit and SIGTERM are the point)
    args = [a for a in args[3:] if a not in ("--engine", "spark")]
    done = run_in_process([*args, "--spark-master", "local[1]"], tmp_path / "home")
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "planner-app: error: argument: --spark-master: is for --engine spark"]
