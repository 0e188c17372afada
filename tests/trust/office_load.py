"""Many releases against the office's shared ledger, for the reliability tests
(test_shared_ledger_reliability.py, small) and bench/bench_shared_ledger.py (full size).

``python -m tests.trust.office_load worker HOME PLAN DATA OUT_PREFIX N`` releases N times in
one process through the command line's own entry point (``main``), one bundle each, and
prints one line per attempt: ``<exit code> <bundle>``. ``check_office`` then checks what the
issue asks of the shared ledger after any number of such workers, kills and restarts.
"""

from __future__ import annotations

import contextlib
import io
import json
import subprocess
import sys
import time
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import psycopg

from planner_app.core.records.audit import verify_chain
from planner_app.core.records.crosscheck import Row, row_problems

ROOT = Path(__file__).resolve().parents[2]


def worker(home: str, plan: str, data: str, prefix: str, n: int, retries: int = 0) -> None:
    from planner_app.cli import main

    for i in range(n):
        out = f"{prefix}-{i}.zip"
        for _ in range(retries + 1):  # an attempt refused with exit 4 is made again
            err = io.StringIO()
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
                code = main(["--home", home, "release", plan, "--data", data, "--out", out])
            first = err.getvalue().strip().splitlines()
            print(code, out, (first[-1] if first else "")[:300].replace("\n", " "),
                  flush=True)
            if code != 4:
                break
            time.sleep(0.5)


def start_workers(count: int, homes: list[Path], plan: Path, data: Path, out: Path,
                  releases: int, env: dict[str, str], retries: int = 0
                  ) -> list[subprocess.Popen[str]]:
    return [subprocess.Popen(
        [sys.executable, "-m", "tests.trust.office_load", "worker", str(homes[i % len(homes)]),
         str(plan), str(data), str(out / f"w{i}"), str(releases), str(retries)],
        cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for i in range(count)]


@dataclass
class Attempt:
    code: int
    bundle: str
    line: str


def attempts_of(procs: list[subprocess.Popen[str]]) -> list[Attempt]:
    out = []
    for p in procs:
        stdout, stderr = p.communicate(timeout=3600)
        assert p.returncode == 0, stderr[-2000:]
        for line in stdout.splitlines():
            code, bundle, *rest = line.split(" ", 2)
            out.append(Attempt(int(code), bundle, rest[0] if rest else ""))
    return out


@dataclass
class OfficeState:
    rows: list[tuple[str, str, float, str | None]]  # id, status, ε, bundle SHA-256
    chain_problem: str | None
    crosscheck: list[str]
    spent_basic: float
    bundles: dict[str, str] = field(default_factory=dict)  # release id -> bundle path


def check_office(url: str, out: Path) -> OfficeState:
    """What the shared ledger holds, whether its chain and cross-check hold, and which
    release each bundle in ``out`` is."""
    with psycopg.connect(url) as con:
        rows = [(str(i), str(s), float(e), b) for i, s, e, b in con.execute(
            "SELECT id, status, epsilon, bundle_sha256 FROM planner_releases")]
        entries = [json.loads(t) for (t,) in con.execute(
            "SELECT entry FROM planner_audit ORDER BY seq")]
        full = [Row(*r) for r in con.execute(
            "SELECT id, dataset, epsilon, delta, rho, accountant, plan_sha256, file_name,"
            " measurements, audit_seq, audit_hash FROM planner_releases").fetchall()]
        counted = con.execute("SELECT value FROM planner_counters WHERE name = "
                              "'releases_charged'").fetchone()
    broken = verify_chain(entries)
    bundles = {}
    for path in sorted(out.glob("*.zip")):
        with zipfile.ZipFile(path) as z:
            bundles[json.loads(z.read("release.json"))["release_id"]] = str(path)
    return OfficeState(rows, None if broken is None else str(broken),
                       row_problems(full, None if counted is None else int(counted[0]),
                                    entries),
                       sum(r[2] for r in rows), bundles)


if __name__ == "__main__":
    if sys.argv[1] == "worker":
        worker(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5], int(sys.argv[6]),
               int(sys.argv[7]) if len(sys.argv) > 7 else 0)
