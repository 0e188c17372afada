"""Issue 22 part 6: the app home's private parts are the owner's alone. The ledger holds every
release's parameters and the data file's plain SHA-256 (what the bundle's keyed commitment
hides); the audit log, keys, commitment keys, saved records and settings are private too. Every
folder of the app home is 0700 and every file 0600 after real use, whatever the umask, and a
home left readable by an older version is tightened when it is next opened."""

from __future__ import annotations

import os
import sqlite3
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from planner_app.cli import main
from planner_app.core.planning.settings import Settings, save_settings
from planner_app.core.support.home import AppHome, app_home
from tests.conftest import DEMO_PLAN, DEMO_TABLE

pytestmark = pytest.mark.skipif(os.name != "posix", reason="POSIX modes")


@pytest.fixture
def open_umask() -> Iterator[None]:
    """The worst umask: anything created with the default mode is world-readable."""
    old = os.umask(0)
    try:
        yield
    finally:
        os.umask(old)


def _modes(home: AppHome) -> dict[str, str]:
    """Every folder and file under the app home's two folders, with its mode (octal)."""
    out = {}
    for top in (home.data_dir, home.config_dir):
        out[str(top)] = oct(stat.S_IMODE(os.lstat(top).st_mode))
        for folder, dirs, files in os.walk(top):
            for name in dirs + files:
                path = Path(folder) / name
                out[str(path.relative_to(top.parent))] = oct(stat.S_IMODE(os.lstat(path).st_mode))
    return out


def _not_private(home: AppHome) -> dict[str, str]:
    return {path: mode for path, mode in _modes(home).items()
            if mode not in ("0o700", "0o600") or (mode == "0o700" and Path(path).is_file())}


def _use(home: AppHome, tmp_path: Path) -> None:
    """A key, a cap, a signed release, the settings: what an owner does."""
    root = str(home.data_dir.parent)
    assert main(["--home", root, "keys", "new", "alice"]) == 0
    assert main(["--home", root, "ledger", "set-cap", "demo-survey", "--epsilon", "9"]) == 0
    assert main(["--home", root, "release", str(DEMO_PLAN), "--data", str(DEMO_TABLE),
                 "--out", str(tmp_path / "out.zip"), "--sign-with", "alice"]) == 0
    save_settings(Settings(), home.settings_path)


def test_everything_in_the_app_home_is_owner_only(tmp_path: Path, open_umask: None) -> None:
    home = app_home(tmp_path / "home")
    _use(home, tmp_path)
    modes = _modes(home)
    for expected in ("data/ledger.sqlite3", "data/audit.jsonl", "data/keys/alice.key",
                     "data/pending", "data/commitment-keys", "config/settings.json"):
        assert expected in modes, sorted(modes)
    assert _not_private(home) == {}
    # the ledger's journals take its mode (SQLite copies the database's), also in WAL mode
    con = sqlite3.connect(home.ledger_path)
    con.execute("PRAGMA journal_mode = WAL")
    con.execute("INSERT INTO counters(name, value) VALUES ('x', 1)")
    con.commit()
    for suffix in ("-wal", "-shm"):
        journal = home.ledger_path.with_name(home.ledger_path.name + suffix)
        assert stat.S_IMODE(os.lstat(journal).st_mode) == 0o600
    con.close()


def test_a_home_left_readable_is_tightened_when_opened(tmp_path: Path) -> None:
    home = app_home(tmp_path / "home")
    _use(home, tmp_path)
    for path in [home.data_dir, home.config_dir, *home.data_dir.rglob("*"),
                 *home.config_dir.rglob("*")]:
        os.chmod(path, 0o755 if path.is_dir() else 0o644)  # as an older version left it
    assert len(_not_private(home)) > 5
    assert main(["--home", str(home.data_dir.parent), "ledger", "show"]) == 0
    assert _not_private(home) == {}
