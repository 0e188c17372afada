"""The independent ``minisign`` tool (Debian's package), which the trust tests run so that
compatibility is proven. .ci/run installs it and sets PLANNER_APP_REQUIRE_MINISIGN=1, so that
there a missing tool fails instead of skipping."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest


def minisign() -> str:
    tool = shutil.which("minisign")
    if tool is None:
        if os.environ.get("PLANNER_APP_REQUIRE_MINISIGN"):
            pytest.fail("Debian's minisign is not installed (apt-get install minisign)")
        pytest.skip("Debian's minisign is not installed (apt-get install minisign)")
    return tool


def minisign_verify(public_key: Path, message: Path,
                    signature: Path | None = None) -> subprocess.CompletedProcess[str]:
    args = [minisign(), "-V", "-p", str(public_key), "-m", str(message)]
    if signature is not None:
        args += ["-x", str(signature)]
    return subprocess.run(args, capture_output=True, text=True, timeout=60)
