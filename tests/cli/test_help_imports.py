"""`planner-app --help` and `planner-app explain` answer without the heavy libraries (Qt,
pandas, matplotlib, fpdf, dp-accounting, DuckDB, pyarrow, openpyxl)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

HEAVY = ("PySide6", "pandas", "matplotlib", "fpdf", "dp_accounting", "duckdb", "pyarrow",
         "openpyxl")
CODE = """
import json, sys
from planner_app.cli import main
try:
    main(sys.argv[2:])
except SystemExit:
    pass
print(json.dumps(sorted(m for m in sys.argv[1].split(",") if m in sys.modules)))
"""


@pytest.mark.subprocess
@pytest.mark.parametrize("argv", [["--help"], ["plan", "--help"], ["explain", "--epsilon", "1"]])
def test_help_and_explain_import_no_heavy_library(argv: list[str]) -> None:
    done = subprocess.run([sys.executable, "-c", CODE, ",".join(HEAVY), *argv],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.strip().splitlines()[-1]) == []


@pytest.mark.subprocess
@pytest.mark.parametrize("argv", [["--help"], ["release", "--help"], ["ledger", "--help"]])
def test_help_imports_neither_numpy_nor_the_ledger(argv: list[str]) -> None:
    """Issue 24: the CLI's start-up imported the ledger's module for its exception classes,
    and with it numpy and the accountant (0.33 s of CPU for --help; 0.08 s without)."""
    done = subprocess.run([sys.executable, "-c", CODE,
                           "numpy,planner_app.core.records.ledger,planner_app.core.dp.accounting",
                           *argv], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.strip().splitlines()[-1]) == []
