"""A randomized-response release whose answer file would not fit in memory after the charge is
refused before it (issue 13): exit 2, one line, no ledger entry, no audit entry, no bundle."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from planner_app.core.data.tables import load_table
from planner_app.core.planfile import plan_from_dict
from planner_app.core.records.ledger import Ledger
from planner_app.core.release import memory
from planner_app.core.release.publish import publish
from planner_app.core.support.errors import InputError
from planner_app.core.support.home import app_home as home_at
from tests.conftest import ROOT, plan_dict, write_json

RR = {"id": "r", "kind": "randomized_response", "column": "ok", "yes": ["yes"], "no": ["no"],
      "epsilon": 2.0}


def _world(tmp_path: Path) -> tuple[Path, Path]:
    data = tmp_path / "t.csv"
    data.write_text("ok\n" + "yes\nno\n" * 500)
    plan = tmp_path / "plan.json"
    write_json(plan, plan_dict(queries=[RR], budget={"epsilon": 2.0, "delta": 0.0}))
    return data, plan


def _nothing_charged(home: Path, out: Path) -> None:
    h = home_at(home)
    assert not out.exists()
    if h.ledger_path.exists():
        assert not Ledger(h.ledger_path).state("test").releases
    if h.audit_path.exists():
        assert "release requested" not in h.audit_path.read_text()


def test_a_release_that_would_not_fit_in_memory_is_refused_before_the_charge(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data, plan_file = _world(tmp_path)
    plan = plan_from_dict(plan_dict(queries=[RR], budget={"epsilon": 2.0, "delta": 0.0}))
    # 1,000 answers (and the count's noise) need more than 64 MiB at 64 bytes an answer
    monkeypatch.setattr(memory, "available_memory", lambda: 32 << 20)
    with pytest.raises(InputError) as refused:
        publish(plan, load_table(data), tmp_path / "b.zip", home_at(tmp_path / "home"))
    assert "nothing was charged" in str(refused.value) and "\n" not in str(refused.value)
    _nothing_charged(tmp_path / "home", tmp_path / "b.zip")
    # with room, the same release goes through
    monkeypatch.setattr(memory, "available_memory", lambda: 1 << 40)
    publish(plan, load_table(data), tmp_path / "b.zip", home_at(tmp_path / "home"))
    assert (tmp_path / "b.zip").exists()


CLI = """
import sys
from planner_app.core.release import memory
memory.available_memory = lambda: 32 << 20
from planner_app.cli import main
sys.exit(main(sys.argv[1:]))
"""


@pytest.mark.subprocess
def test_the_cli_refuses_it_with_exit_2_and_one_line(tmp_path: Path) -> None:
    data, plan = _world(tmp_path)
    out = tmp_path / "b.zip"
    env = {**__import__("os").environ, "PLANNER_APP_HOME": str(tmp_path / "home"),
           "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", CLI, "release", str(plan), "--data",
                           str(data), "--out", str(out)], capture_output=True, text=True,
                          env=env, cwd=ROOT, timeout=180)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    assert "memory" in lines[0] and "nothing was charged" in lines[0]
    _nothing_charged(tmp_path / "home", out)


PROBE = """
import resource, sys
from planner_app.core.release.memory import available_memory
pages = int(open("/proc/self/statm").read().split()[0])
used = pages * resource.getpagesize()
resource.setrlimit(resource.RLIMIT_AS, (used + (200 << 20), resource.RLIM_INFINITY))
print(available_memory())
"""


@pytest.mark.subprocess
@pytest.mark.skipif(not Path("/proc/self/statm").exists(), reason="Linux /proc")
def test_available_memory_counts_the_address_space_limit() -> None:
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True,
                          cwd=ROOT, timeout=60)
    assert done.returncode == 0, done.stderr
    free = int(done.stdout)
    assert 0 < free <= 200 << 20
