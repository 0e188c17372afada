"""The Keys dialog, the New key dialog and the review window signing with a key, alone (a
short walk of walk.keys_scenes): ``python -m tests.gui.keys_walk OUT_DIR`` prints {scene:
[clipped texts]} and saves keys-<scale>x-<scene>.png."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

from PySide6.QtWidgets import QWidget

from tests.gui.walk import HEIGHT, WIDTH, keys_scenes, main, settle


def scenes(window, folder: Path) -> Iterator[tuple[str, QWidget]]:  # type: ignore[no-untyped-def]
    window.resize(WIDTH, HEIGHT)
    settle()
    yield from keys_scenes(window, folder)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:], scenes=scenes, prefix="keys"))
