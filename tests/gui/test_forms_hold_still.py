"""The statistic editor holds still (issue 22): a hint, a warning or the red message that
appears or goes while typing moves no field and not OK, and the editor fits a 950-pixel-high
screen at QT_SCALE_FACTOR=2 with OK in view (its fields scroll). Run in a process per scale
(the scale is fixed when Qt starts), by tests/gui/editor_still.py."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

SCREEN_HEIGHT = 950


@pytest.mark.subprocess
@pytest.mark.parametrize("scale", ["1", "2"])
def test_the_editor_holds_still_and_fits(tmp_path: Path, scale: str) -> None:
    env = {**os.environ, "QT_SCALE_FACTOR": scale, "QT_QPA_PLATFORM": "offscreen"}
    done = subprocess.run([sys.executable, str(Path(__file__).parent / "editor_still.py"),
                           str(tmp_path)], capture_output=True, text=True, env=env,
                          timeout=240, cwd=Path(__file__).resolve().parents[2])
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout.strip().splitlines()[-1])
    for what, moves in answer["moved"].items():
        assert not any(moves), (what, moves)
    assert answer["refused"]  # the red message did show (and moved nothing)
    fits = answer["fits"]
    room = SCREEN_HEIGHT // int(scale) - 40  # the screen less a title bar, in the app's pixels
    assert fits["height"] <= room and fits["ok shown"] and fits["ok bottom"] <= room, fits
    if scale == "2":
        assert fits["scrolls"], fits  # the fields that do not fit scroll, OK stays
