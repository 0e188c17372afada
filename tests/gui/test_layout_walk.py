"""Nothing is clipped at the default window size (1280×820), at 100% and at 200% scaling:
every tab of the main window with the demo loaded, the Add dialog with a group-by, the
meter over budget, the review window, the release wizard and the bundle viewer. Each scale
runs in its own process (QT_SCALE_FACTOR is read when the QApplication starts); the
screenshots go to tests/_screenshots (walk-<scale>x-<scene>.png)."""

from __future__ import annotations

import pytest

from tests.gui.conftest import SHOTS
from tests.gui.walk import run_walk


@pytest.mark.parametrize("scale", [1, 2])
def test_nothing_is_clipped_in_any_pane_or_dialog(scale: int) -> None:
    found = run_walk(scale, SHOTS)
    assert len(found) >= 15, found  # every scene was reached
    clipped = {scene: texts for scene, texts in found.items() if texts}
    assert not clipped, "\n".join(f"{scene}: {t}" for scene, texts in clipped.items()
                                  for t in texts)
