"""A release that runs out of memory (here: under an address-space limit, where importing the
engine's shared library fails with "ImportError: failed to map segment from shared object")
ends with one line saying the machine ran out of memory and that nothing was charged, exit 2
(docs/bundle-format.md: the engine out of memory is 2) — never "internal error (ImportError)",
exit 1, and never a charge."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from planner_app.core.records.ledger import Ledger
from planner_app.core.support.home import app_home
from tests.conftest import DEMO_PLAN, DEMO_TABLE

LIMIT = 400_000 * 1024  # bytes: `ulimit -v 400000`, the limit the defect was seen under


def _limited() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (LIMIT, LIMIT))


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS is Linux's")
def test_a_release_out_of_memory_says_so_and_charges_nothing(tmp_path: Path) -> None:
    home = tmp_path / "home"
    env = {**os.environ, "PLANNER_APP_HOME": str(home)}
    env.pop("PLANNER_APP_DEBUG", None)
    done = subprocess.run(
        [sys.executable, "-m", "planner_app", "release", str(DEMO_PLAN), "--data",
         str(DEMO_TABLE), "--out", str(tmp_path / "a.zip")],
        capture_output=True, text=True, timeout=300, env=env, preexec_fn=_limited)
    lines = done.stderr.strip().splitlines()
    if done.returncode == 0:  # pragma: no cover - a machine where 400 MB is enough
        pytest.skip("the release fitted in the limit on this machine")
    assert "internal error" not in done.stderr, done.stderr
    assert "Traceback" not in done.stderr
    assert len(lines) == 1, done.stderr
    assert "ran out of memory" in lines[0] and "nothing was charged" in lines[0], lines[0]
    assert done.returncode == 2, done.stderr
    assert not (tmp_path / "a.zip").exists()
    ledger = app_home(home).ledger_path
    if ledger.exists():  # the independent answer: the ledger holds no charge
        assert Ledger(ledger).state("demo-survey").releases == []


def test_what_counts_as_out_of_memory() -> None:
    """The boundary's test: a MemoryError, an ImportError raised by one, or a loader's
    "failed to map segment" / ENOMEM; not any other ImportError."""
    from planner_app.core.support.errors import out_of_memory

    assert out_of_memory(MemoryError())
    assert out_of_memory(ImportError("/x/_duckdb.so: failed to map segment from shared object"))
    assert out_of_memory(OSError(12, "Cannot allocate memory"))
    try:
        try:
            raise MemoryError
        except MemoryError as inner:
            raise ImportError("numpy could not be imported") from inner
    except ImportError as exc:
        assert out_of_memory(exc)
    assert not out_of_memory(ImportError("No module named 'pyarrow'"))
    assert not out_of_memory(ValueError("failed"))
