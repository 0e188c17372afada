"""``--home DIR`` moves everything the app keeps: its help must say so (keys, trusted keys and
the installed policy live there as well as the settings, the ledger and the audit log)."""

from __future__ import annotations

import re

import pytest

from planner_app.cli import main


def test_the_home_help_names_everything_kept_there(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    text = " ".join(capsys.readouterr().out.split())
    home = re.search(r"--home DIR (.*?)\(default", text)
    assert home, text
    for thing in ("settings", "ledger", "audit log", "keys", "trust", "policy"):
        assert thing in home.group(1), thing
