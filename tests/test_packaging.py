"""The wheel holds every module: each package folder under planner_app is listed in
pyproject.toml (gui.dialogs and gui.widgets were missing, so `pip install .` lacked them)."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_every_package_folder_is_in_the_wheel() -> None:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    listed = set(config["tool"]["setuptools"]["packages"])
    found = {".".join(p.parent.relative_to(ROOT).parts)
             for p in (ROOT / "planner_app").rglob("__init__.py")
             if "resources" not in p.relative_to(ROOT).parts}
    assert found <= listed, sorted(found - listed)
