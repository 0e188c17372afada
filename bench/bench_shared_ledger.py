"""The office's shared ledger under load and under failure (issue 26), at full size, one run
each, on a PostgreSQL server of its own (tests/pg_server.py):

1. 16 processes in 4 app homes releasing against one dataset's cap;
2. the server killed (``pg_ctl stop -m immediate``) and restarted at random points of 50
   releases, then every unfinished release resumed;
3. the server stopped between a charge's INSERT and its COMMIT (5 times).

Writes the section "Shared ledger (issue 26)" of bench/results.md. Run from the repository:
``python bench/bench_shared_ledger.py`` (a few minutes on two cores).
"""

from __future__ import annotations

import os
import random
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench._results import write_section  # noqa: E402
from planner_app.core.release.pending import list_pending  # noqa: E402
from planner_app.core.support.home import app_home  # noqa: E402
from tests import pg_server  # noqa: E402
from tests.conftest import DEMO_TABLE  # noqa: E402
from tests.trust.office_load import attempts_of, check_office, start_workers  # noqa: E402
from tests.trust.shared_office import SECRET, Office, office_policy  # noqa: E402

MARK = "## Shared ledger (issue 26)"


def _database(server_url: str, name: str) -> str:
    import psycopg

    with psycopg.connect(server_url, autocommit=True) as con:
        con.execute(f"CREATE DATABASE {name}")
    return server_url.replace("/planner?", f"/{name}?")


def _homes(office: Office, n: int, cap: float) -> list[Path]:
    policy = office.signed_policy(office_policy(
        office.url, default_lifetime_cap={"epsilon": cap, "delta": 1e-6}))
    homes = [office.home(f"home-{i}", policy) for i in range(n)]
    assert office.run(homes[0], "ledger", "migrate")[0] == 0
    return homes


def _env() -> dict[str, str]:
    return {**os.environ, "PLANNER_OFFICE_SECRET": SECRET, "PYTHONPATH": str(ROOT)}


def concurrency(server_url: str, tmp: Path) -> list[str]:
    office = Office(tmp / "conc", _database(server_url, "conc"))
    homes = _homes(office, 4, cap=10.0)
    start = time.monotonic()
    procs = start_workers(16, homes, office.plan(1.0), DEMO_TABLE, office.tmp / "out",
                          releases=2, env=_env())
    attempts = attempts_of(procs)
    took = time.monotonic() - start
    state = check_office(office.url, office.tmp / "out")
    ok = sum(a.code == 0 for a in attempts)
    refused = sum(a.code == 3 for a in attempts)
    return [
        f"| 16 processes in 4 homes, 2 releases each (ε = 1) against a cap of ε = 10 | "
        f"{len(attempts)} attempts: {ok} released, {refused} refused over the cap (exit 3), "
        f"{len(attempts) - ok - refused} other | spent ε = {state.spent_basic:g} of 10; "
        f"{len(state.rows)} charges, {len(state.bundles)} bundles; chain "
        f"{'intact' if state.chain_problem is None else 'BROKEN'}; cross-check "
        f"{'clean' if not state.crosscheck else state.crosscheck[0]} | {took:.0f} s |"]


def kills(server_folder: Path, server_url: str, tmp: Path) -> list[str]:
    office = Office(tmp / "kill", _database(server_url, "kill"))
    (home,) = _homes(office, 1, cap=100.0)
    rng = random.Random(2626)
    stop = threading.Event()
    killed: list[float] = []

    def killer() -> None:
        while not stop.wait(rng.uniform(4.0, 15.0)):
            pg_server.server_stop(server_folder, "immediate")
            killed.append(time.monotonic())
            time.sleep(rng.uniform(0.2, 2.0))
            pg_server.server_start(server_folder)
            pg_server.wait_ready(office.url, 120)

    start = time.monotonic()
    # ε = 0.1 each: the 50 fit the cap in force (the ledger's default ε = 10)
    procs = start_workers(1, [home], office.plan(0.1), DEMO_TABLE, office.tmp / "out",
                          releases=50, env=_env(), retries=1000)
    thread = threading.Thread(target=killer)
    thread.start()
    try:
        attempts = attempts_of(procs)
    finally:
        stop.set()
        thread.join()
    pg_server.server_start(server_folder)
    pg_server.wait_ready(office.url)
    resumed = 0
    for p in list_pending(app_home(home)):
        code, _, _ = office.run(home, "release", "--resume", p.release_id)
        resumed += code == 0
    left = len(list_pending(app_home(home)))
    took = time.monotonic() - start
    state = check_office(office.url, office.tmp / "out")
    rows = {r[0]: r for r in state.rows}
    without_charge = sum(1 for rid in state.bundles
                         if rid not in rows or rows[rid][1] != "completed")
    done = [a for a in attempts if a.code == 0]
    lost = sum(1 for a in done if not Path(a.bundle).exists())
    wasted = sum(1 for r in state.rows if r[0] not in state.bundles)
    return [
        f"| 50 releases, the server killed {len(killed)} times at random points | "
        f"{len(attempts)} attempts ({sum(a.code == 4 for a in attempts)} refused with exit 4 "
        f"while it was down, {sum(a.code == 1 for a in attempts)} charged but unfinished, "
        f"{sum(a.code not in (0, 1, 4) for a in attempts)} other); "
        f"{resumed} completed by release --resume, {left} left | {len(state.bundles)} bundles, "
        f"{len(state.rows)} charges; bundles without a charge: {without_charge}; released "
        f"(exit 0) but lost: {lost}; charged, never noised (budget wasted by a crash): "
        f"{wasted}; chain {'intact' if state.chain_problem is None else 'BROKEN'}; "
        f"cross-check {'clean' if not state.crosscheck else state.crosscheck[0]} | "
        f"{took:.0f} s |"]


def cuts(server_folder: Path, server_url: str, tmp: Path, n: int = 5) -> list[str]:
    office = Office(tmp / "cut", _database(server_url, "cut"))
    (home,) = _homes(office, 1, cap=100.0)
    outcomes = {"refused": 0, "completed": 0, "both": 0}
    start = time.monotonic()
    for i in range(n):
        go = tmp / f"go{i}"
        out = office.tmp / "out" / f"cut{i}.zip"
        env = {**_env(), "PLANNER_APP_FAULT_PAUSE": "charge-before-commit",
               "PLANNER_APP_FAULT_GO": str(go)}
        before = len(check_office(office.url, office.tmp / "out").rows)
        proc = subprocess.Popen([sys.executable, "-m", "planner_app", "--home", str(home),
                                 "release", str(office.plan(1.0)), "--data", str(DEMO_TABLE),
                                 "--out", str(out)], cwd=ROOT, env=env, text=True,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        while not Path(str(go) + ".paused").exists():
            time.sleep(0.1)
        pg_server.server_stop(server_folder, "fast")
        go.write_text("go")
        time.sleep(1.0)
        pg_server.server_start(server_folder)
        proc.communicate(timeout=600)
        charged = len(check_office(office.url, office.tmp / "out").rows) - before
        if proc.returncode == 0 and charged == 1 and out.exists():
            outcomes["completed"] += 1
        elif proc.returncode == 4 and charged == 0 and not out.exists():
            outcomes["refused"] += 1
        else:
            outcomes["both"] += 1
    took = time.monotonic() - start
    return [f"| the server stopped between a charge's INSERT and its COMMIT, {n} times | "
            f"refused (exit 4, nothing charged, no bundle): {outcomes['refused']}; completed: "
            f"{outcomes['completed']}; anything else: {outcomes['both']} | "
            f"{took:.0f} s |"]


def main() -> None:
    os.environ["PLANNER_OFFICE_SECRET"] = SECRET
    folder = pg_server.new_folder()
    url = pg_server.start(folder)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            rows = concurrency(url, Path(tmp))
            rows += kills(folder, url, Path(tmp))
            rows += cuts(folder, url, Path(tmp))
    finally:
        pg_server.stop(folder.parent)
    section = "\n".join([
        MARK, "",
        "One run each on this machine (two cores shared with other work), PostgreSQL 15 on a "
        "Unix socket (fsync on), every release a real `planner-app release` of a one-count "
        "plan on the demo table through the command line's entry point, in worker processes "
        "(tests/trust/office_load.py). An attempt refused with exit 4 while the server was "
        "down is made again (after half a second, until it is not refused). The tests run "
        "the same at a small size (tests/trust/test_shared_ledger_reliability.py).", "",
        "| run | outcome | what the ledger holds afterwards | wall time |",
        "|---|---|---|---:|", *rows, ""])
    write_section(MARK, section)
    print(section)


if __name__ == "__main__":
    main()
