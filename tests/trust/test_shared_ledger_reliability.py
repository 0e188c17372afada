"""Reliability of the office's shared ledger on a real PostgreSQL server (issue 26), at a
small size (bench/bench_shared_ledger.py runs the full one):

- processes in several app homes releasing against one dataset's cap: the cap is never
  exceeded, every charge has its audit entries, every bundle its charge;
- the server killed (``pg_ctl stop -m immediate``, as a crash) and restarted at random points of
  a run of releases: no release without a charge, no charge acknowledged and then lost, the
  audit chain intact, and every unfinished release completes with ``release --resume``;
- the server stopped between a charge's INSERT and its COMMIT: refused (exit 4, nothing
  charged, no bundle) or completed, never both.
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from planner_app.core.release.pending import list_pending, pending_path
from planner_app.core.support.home import app_home
from tests import pg_server
from tests.conftest import DEMO_TABLE

from .office_load import ROOT, attempts_of, check_office, start_workers
from .shared_office import SECRET, Office, office_policy

pytestmark = pytest.mark.subprocess


def _env() -> dict[str, str]:
    return {**os.environ, "PLANNER_OFFICE_SECRET": SECRET, "PYTHONPATH": str(ROOT)}


@pytest.fixture
def office(tmp_path: Path, office_db: str, monkeypatch: pytest.MonkeyPatch) -> Office:
    monkeypatch.setenv("PLANNER_OFFICE_SECRET", SECRET)
    return Office(tmp_path, office_db)


@pytest.fixture(scope="module")
def own_server() -> Iterator[tuple[Path, str]]:
    """A server of this module's own, which its tests stop and start (never the shared one)."""
    if os.environ.get("PLANNER_SKIP_POSTGRES") == "1":
        pytest.skip("PLANNER_SKIP_POSTGRES=1")
    folder = pg_server.new_folder()
    try:
        yield folder, pg_server.start(folder)
    finally:
        pg_server.stop(folder.parent)


def _homes(office: Office, n: int, cap: float) -> list[Path]:
    policy = office.signed_policy(office_policy(
        office.url, default_lifetime_cap={"epsilon": cap, "delta": 1e-6}))
    homes = [office.home(f"home-{i}", policy) for i in range(n)]
    assert office.run(homes[0], "ledger", "migrate")[0] == 0
    return homes


def test_processes_in_several_homes_never_exceed_the_cap(office: Office) -> None:
    homes = _homes(office, 2, cap=5.0)
    procs = start_workers(4, homes, office.plan(1.0), DEMO_TABLE, office.tmp / "out",
                          releases=2, env=_env())
    attempts = attempts_of(procs)
    codes = sorted(a.code for a in attempts)
    assert codes == [0] * 5 + [3] * 3, [(a.code, a.line) for a in attempts]
    state = check_office(office.url, office.tmp / "out")
    assert state.spent_basic <= 5.0 and len(state.rows) == 5
    assert state.chain_problem is None and state.crosscheck == []
    assert sorted(state.bundles) == sorted(r[0] for r in state.rows)
    assert all(r[1] == "completed" for r in state.rows)


def _kill_and_restart(folder: Path, url: str, stop: threading.Event, rng: random.Random,
                      kills: list[float]) -> None:
    while not stop.wait(rng.uniform(1.0, 6.0)):
        pg_server.server_stop(folder, "immediate")  # a crash: no checkpoint, clients cut
        kills.append(time.monotonic())
        time.sleep(rng.uniform(0.2, 1.5))
        try:
            pg_server.server_start(folder)
        except RuntimeError as exc:
            kills.append(str(exc))  # type: ignore[arg-type]
            time.sleep(1.0)
            pg_server.server_start(folder)
        pg_server.wait_ready(url, 120)  # crash recovery done before the next kill


def _database(server_url: str, name: str) -> str:
    import psycopg

    with psycopg.connect(server_url, autocommit=True) as con:
        con.execute(f"CREATE DATABASE {name}")
    return server_url.replace("/planner?", f"/{name}?")


@pytest.mark.heavy
def test_the_server_killed_at_random_points(own_server: tuple[Path, str], tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    folder, server_url = own_server
    monkeypatch.setenv("PLANNER_OFFICE_SECRET", SECRET)
    office = Office(tmp_path, _database(server_url, "kills"))
    (home,) = _homes(office, 1, cap=100.0)
    rng = random.Random(26)
    stop, kills = threading.Event(), []  # type: ignore[var-annotated]
    killer = threading.Thread(target=_kill_and_restart, args=(folder, office.url, stop, rng, kills))
    procs = start_workers(1, [home], office.plan(0.5), DEMO_TABLE, office.tmp / "out",
                          releases=10, env=_env(), retries=20)
    killer.start()
    try:
        attempts = attempts_of(procs)
    finally:
        stop.set()
        killer.join()
    pg_server.server_start(folder)  # started again whatever the killer left
    pg_server.wait_ready(office.url)
    assert kills, "the server was never killed during the run"
    for p in list_pending(app_home(home)):  # every unfinished release completes
        code, _, err = office.run(home, "release", "--resume", p.release_id)
        assert code == 0, err
    assert list_pending(app_home(home)) == []
    state = check_office(office.url, office.tmp / "out")
    assert state.chain_problem is None and state.crosscheck == []
    rows = {r[0]: r for r in state.rows}
    for release_id in state.bundles:  # no release without a charge
        assert release_id in rows and rows[release_id][1] == "completed"
    done = [a for a in attempts if a.code == 0]
    assert len(state.bundles) >= len(done)  # no acknowledged release lost
    assert all(Path(a.bundle).exists() for a in done)
    assert all(a.code in (0, 1, 4) for a in attempts), [(a.code, a.line) for a in attempts]


@pytest.mark.heavy
def test_a_cut_between_begin_and_commit_is_refused_or_completed(
        own_server: tuple[Path, str], tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    folder, server_url = own_server
    monkeypatch.setenv("PLANNER_OFFICE_SECRET", SECRET)
    office = Office(tmp_path, _database(server_url, "cut"))
    (home,) = _homes(office, 1, cap=10.0)
    go = tmp_path / "go"
    env = {**_env(), "PLANNER_APP_FAULT_PAUSE": "charge-before-commit",
           "PLANNER_APP_FAULT_GO": str(go)}
    out = office.tmp / "out" / "cut.zip"
    proc = subprocess.Popen([sys.executable, "-m", "planner_app", "--home", str(home),
                             "release", str(office.plan(1.0)), "--data", str(DEMO_TABLE),
                             "--out", str(out)], cwd=ROOT, env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    paused = Path(str(go) + ".paused")
    for _ in range(3000):  # the release reaches its pause, or has ended (a failure)
        if paused.exists() or proc.poll() is not None:
            break
        time.sleep(0.1)
    assert paused.exists(), proc.communicate(timeout=60)
    pg_server.server_stop(folder, "fast")  # the network cut: the transaction's link is gone
    go.write_text("go")
    time.sleep(1.0)
    pg_server.server_start(folder)
    _, err = proc.communicate(timeout=300)
    state = check_office(office.url, office.tmp / "out")
    if proc.returncode == 0:  # completed: charged once, the bundle written
        assert len(state.rows) == 1 and out.exists()
    else:  # refused: nothing charged, no bundle, one line
        assert proc.returncode == 4, err
        assert state.rows == [] and not out.exists()
        assert "nothing was released" in err and "Traceback" not in err
    assert state.chain_problem is None and state.crosscheck == []
    assert list_pending(app_home(home)) == []


def test_resume_from_another_home_of_the_office(office: Office) -> None:
    """A release killed after its noised record was saved completes from a second home that
    holds that record: no new noise, no second charge, the bundle verifies."""
    homes = _homes(office, 2, cap=5.0)
    out = office.tmp / "out" / "killed.zip"
    env = {**_env(), "PLANNER_APP_FAULT_PAUSE": "saved"}
    proc = subprocess.Popen([sys.executable, "-m", "planner_app", "--home", str(homes[0]),
                             "release", str(office.plan(1.0)), "--data", str(DEMO_TABLE),
                             "--out", str(out)], cwd=ROOT, env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stderr is not None
    for line in proc.stderr:  # the release waits at the checkpoint: kill it there
        if line.startswith("paused at saved"):
            break
    proc.kill()
    proc.wait()
    (waiting,) = list_pending(app_home(homes[0]))
    first = pending_path(app_home(homes[0]), waiting.release_id)
    second = pending_path(app_home(homes[1]), waiting.release_id)
    second.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(first, second)  # the saved record, handed to a colleague
    code, _, err = office.run(homes[1], "release", "--resume", waiting.release_id)
    assert code == 0, err
    state = check_office(office.url, office.tmp / "out")
    assert [r[0] for r in state.rows] == [waiting.release_id]  # charged once
    assert state.rows[0][1] == "completed" and list(state.bundles) == [waiting.release_id]
    assert state.chain_problem is None and state.crosscheck == []
    assert office.run(homes[1], "verify", str(out))[0] == 0
    # the first home sees it complete too: resuming there is "already complete", exit 0
    code, out_text, err = office.run(homes[0], "release", "--resume", waiting.release_id)
    assert code == 0 and "already complete" in out_text + err
