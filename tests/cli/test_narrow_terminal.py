"""A terminal that cannot show every character (an ASCII or Latin-1 locale) still gets the
whole answer: characters it cannot show are escaped, never an "internal error" after the
work is done (for a release, after the charge)."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest


@pytest.mark.subprocess
@pytest.mark.parametrize("encoding", ["ascii", "latin-1"])
def test_explain_prints_on_a_narrow_terminal(tmp_path, encoding):
    env = dict(os.environ, PYTHONIOENCODING=encoding, PLANNER_APP_HOME=str(tmp_path / "home"))
    done = subprocess.run([sys.executable, "-m", "planner_app", "explain", "--epsilon", "1"],
                          capture_output=True, env=env, timeout=120)
    err = done.stderr.decode(encoding, errors="replace")
    out = done.stdout.decode(encoding)
    assert done.returncode == 0, err
    assert "internal error" not in err
    # the δ in the last line is written as an escape the terminal can show
    assert "73.2%" in out and "\\u03b4 = 0" in out
