"""Issue 22 part 6: a release killed with SIGKILL leaves its `.NAME.zip.lock` beside the
output. Its lock (flock) died with the process, so the file is not a held lock: the next
release to that path is not refused, and any release into that folder removes the stale file,
never one that a live release holds. A real subprocess, paused by the test hook
PLANNER_APP_FAULT_PAUSE while it holds the lock, killed with SIGKILL."""

from __future__ import annotations

import fcntl
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from planner_app.core.data.tables import load_table
from planner_app.core.planfile import plan_from_dict
from planner_app.core.release.publish import FAULT_ENV, publish
from planner_app.core.support.home import app_home
from tests.conftest import DEMO_TABLE, ROOT, ROWS_ARE_PEOPLE, plan_dict, write_json

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL and flock")


def _held(path: Path) -> bool:
    fd = os.open(path, os.O_RDWR)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return False
    except OSError:
        return True
    finally:
        os.close(fd)


@pytest.mark.subprocess
def test_a_killed_release_leaves_no_held_lock_and_its_file_is_swept(tmp_path: Path) -> None:
    home = app_home(tmp_path / "home")
    plan_path = write_json(tmp_path / "plan.json", plan_dict(privacy_unit=ROWS_ARE_PEOPLE))
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    env = dict(os.environ, PYTHONPATH=str(ROOT), **{FAULT_ENV: "requested"})
    proc = subprocess.Popen(
        [sys.executable, "-m", "planner_app", "--home", str(tmp_path / "home"), "release",
         str(plan_path), "--data", str(DEMO_TABLE), "--out", str(out_dir / "a.zip")],
        env=env, cwd=ROOT, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
    try:
        assert proc.stderr is not None
        for line in proc.stderr:  # the notes, then the pause: the lock is held from its check
            if line.startswith("paused at requested"):
                break
        lock = out_dir / ".a.zip.lock"
        assert lock.exists() and _held(lock)
        plan = plan_from_dict(plan_dict(privacy_unit=ROWS_ARE_PEOPLE))
        table = load_table(DEMO_TABLE)
        publish(plan, table, out_dir / "b.zip", home)  # a live lock in the folder stays
        assert lock.exists() and _held(lock)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=60)
    assert lock.exists() and not _held(lock)  # left behind, but nobody holds it
    publish(plan, table, out_dir / "c.zip", home)  # a release into the folder sweeps it
    assert sorted(p.name for p in out_dir.iterdir()) == ["b.zip", "c.zip"]
    publish(plan, table, out_dir / "a.zip", home)  # and the killed one's path is free
    assert sorted(p.name for p in out_dir.iterdir()) == ["a.zip", "b.zip", "c.zip"]
