"""The newcomer flow at 1× and 2× (tests/gui/newcomer.py): the demo, a new table, a panel
with an id column, the release wizard, the review, verifying the bundle — with no clipped
text at any step. The screenshots go to $PLANNER_APP_DOCS_IMAGES when it is set (the docs'
images: docs/images), else to tests/_screenshots."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.gui.conftest import SHOTS
from tests.gui.walk import run_walk

OUT = Path(os.environ["PLANNER_APP_DOCS_IMAGES"]) if os.environ.get(
    "PLANNER_APP_DOCS_IMAGES") else SHOTS
STEPS = 15


@pytest.mark.parametrize("scale", [1, 2])
def test_the_newcomer_flow_has_no_clipped_text(scale: int) -> None:
    found = run_walk(scale, OUT, module="tests.gui.newcomer")
    assert len(found) == STEPS, sorted(found)  # every step was reached
    for step in found:
        shot = OUT / f"newcomer-{scale}x-{step}.png"
        assert shot.exists() and shot.stat().st_size > 0, shot
    clipped = {step: texts for step, texts in found.items() if texts}
    assert not clipped, "\n".join(f"{step}: {t}" for step, texts in clipped.items()
                                  for t in texts)
