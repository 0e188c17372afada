"""The core never imports Qt: checked by import-linter and by importing every core module
with PySide6 made unimportable."""

from __future__ import annotations

import os
import pkgutil
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import planner_app.core

ROOT = Path(__file__).resolve().parents[2]

BLOCK_QT = """
import importlib.abc, sys
class Block(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split('.')[0] in ('PySide6', 'shiboken6'):
            raise ImportError('Qt is blocked in this test: ' + name)
sys.meta_path.insert(0, Block())
"""


@pytest.mark.subprocess
def test_every_core_module_imports_without_qt() -> None:
    modules = [m.name for m in pkgutil.walk_packages(planner_app.core.__path__,
                                                     "planner_app.core.")]
    assert len(modules) >= 30
    code = BLOCK_QT + "\nimport importlib\n" + "\n".join(
        f"importlib.import_module({m!r})" for m in modules) + """
assert not any(n.split('.')[0] in ('PySide6', 'shiboken6') or n.startswith('planner_app.gui')
               for n in sys.modules), 'Qt was imported'
print('ok')
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"


@pytest.mark.subprocess
def test_import_linter_contract_holds() -> None:
    exe = shutil.which("lint-imports", path=os.path.dirname(sys.executable)) or shutil.which(
        "lint-imports")
    assert exe, "import-linter is a test extra"
    done = subprocess.run([exe], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert re.search(r"Contracts: [1-9]\d* kept, 0 broken", done.stdout), done.stdout
