"""Every top-level window and dialog opens within the screen at 200% (walk 2, finding 20: on
a 1400 × 1000 screen at QT_SCALE_FACTOR=2 the main window opened at 2560 × 1640 and the
release wizard's Next / Cancel were off-screen), and the main window's tabs scroll rather
than squeeze their fields."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from PySide6.QtWidgets import QScrollArea

from planner_app.gui.main_window import MainWindow

PROBE = Path(__file__).with_name("screen_fit_probe.py")


def test_every_window_opens_within_a_small_screen_at_200_percent(tmp_path: Path) -> None:
    screen = tmp_path / "screen.json"
    screen.write_text(json.dumps({"screens": [{
        "name": "laptop", "x": 0, "y": 0, "width": 1400, "height": 1000,
        "logicalDpi": 96, "logicalBaseDpi": 96, "dpr": 1}]}))
    env = dict(os.environ, QT_SCALE_FACTOR="2",
               QT_QPA_PLATFORM=f"offscreen:configfile={screen}")
    done = subprocess.run([sys.executable, str(PROBE), str(tmp_path / "home")], env=env,
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    rows = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    assert len(rows) >= 10, done.stdout
    for row in rows:
        # 1400 × 1000 device pixels at 200%: 700 × 500 to place windows in
        assert (row["room_width"], row["room_height"]) == (700, 500)
        assert row["width"] <= 700 and row["height"] <= 500, row
        assert row["frame_right"] < 700 and row["frame_bottom"] < 500, row


def test_the_tabs_scroll(demo: MainWindow) -> None:
    for i in range(demo.tabs.count()):
        area = demo.tabs.findChildren(QScrollArea)
        page = demo.tabs.widget(i)
        assert any(a.widget() is page for a in area), i
        assert demo.tabs.indexOf(page) == i
