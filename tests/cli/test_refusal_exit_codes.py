"""Issue 22 part 6: a refusal before the charge never exits 1, the code that says "charged,
but not written". An app home that is a file (or under one) is bad input (exit 2); an app home
that cannot be created or is full is like a ledger that cannot be used (exit 4); the engine
out of memory is exit 2, as the memory check before the charge. Nothing is charged.

Tests run as root, where chmod does not stop a write: a read-only home is made with
``chattr +i`` (immutable: refused even to root) and a full one with a small tmpfs mounted in a
private mount namespace (``unshare -m``); each is skipped where the system does not allow it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from planner_app.cli import main
from tests.conftest import DEMO_PLAN, DEMO_TABLE, ROOT


def _release_args(home: Path, out: Path) -> list[str]:
    return ["--home", str(home), "release", str(DEMO_PLAN), "--data", str(DEMO_TABLE),
            "--out", str(out)]


def _cli(args: list[str], prefix: tuple[str, ...] = (),
         env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT), **(env or {}))
    env.pop("PLANNER_APP_DEBUG", None)
    return subprocess.run([*prefix, sys.executable, "-m", "planner_app", *args],
                          capture_output=True, text=True, env=env, cwd=ROOT, timeout=300)


@pytest.mark.parametrize("under", [False, True])
def test_a_home_that_is_a_file_is_exit_2(tmp_path: Path, under: bool,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    afile = tmp_path / "afile"
    afile.write_text("not a folder")
    home = afile / "sub" if under else afile
    assert main(_release_args(home, tmp_path / "out.zip")) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "is not a folder" in err, err
    assert "nothing was charged" in err
    assert afile.read_text() == "not a folder" and not (tmp_path / "out.zip").exists()
    assert main(["--home", str(home), "ledger", "show"]) == 2


@pytest.mark.subprocess
def test_the_engine_out_of_memory_is_exit_2(tmp_path: Path) -> None:
    home = tmp_path / "home"
    done = _cli(_release_args(home, tmp_path / "out.zip"),
                env={"PLANNER_APP_ENGINE_MEMORY": "100KB"})  # read when the CLI starts
    assert done.returncode == 2, done.stderr
    assert "more than its memory limit" in done.stderr and "nothing was charged" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "out.zip").exists()
    assert not (home / "data" / "ledger.sqlite3").exists()


@pytest.mark.subprocess
def test_a_read_only_home_is_exit_4(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    if shutil.which("chattr") is None or \
            subprocess.run(["chattr", "+i", str(home)], capture_output=True).returncode != 0:
        pytest.skip("chattr +i is not available here")
    try:
        done = _cli(_release_args(home, tmp_path / "out.zip"))
    finally:
        subprocess.run(["chattr", "-i", str(home)], check=True)
    assert done.returncode == 4, done.stderr
    assert "cannot be created" in done.stderr and "nothing was charged" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "out.zip").exists() and list(home.iterdir()) == []


@pytest.mark.subprocess
def test_a_full_home_is_exit_4(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    if shutil.which("unshare") is None or \
            subprocess.run(["unshare", "-m", "true"], capture_output=True).returncode != 0:
        pytest.skip("no private mount namespace here (unshare -m)")
    # a 300 kB tmpfs as the app home, seen by this one process only
    script = (f"mount -t tmpfs -o size=300k tmpfs {home} && exec \"$@\"")
    done = _cli(_release_args(home, tmp_path / "out.zip"),
                prefix=("unshare", "-m", "sh", "-c", script, "sh"))
    if "mount" in done.stderr and done.returncode != 4:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip()}")
    assert done.returncode == 4, done.stderr
    assert "MB free" in done.stderr and "nothing was charged" in done.stderr, done.stderr
    assert not (tmp_path / "out.zip").exists()
