"""Optional packages the app uses when they are installed: one rule each for "is it here"
(without importing it: JAX is heavy), used by the readiness rules and the release alike."""

from __future__ import annotations

from importlib.util import find_spec

MBI_MISSING = ("a synthetic table needs the optional package mbi (Private-PGM, with JAX): "
               "pip install 'planner-app[synth]'")


def mbi_problem() -> str | None:
    """Why a synthetic table cannot be made here (mbi or JAX missing), or None."""
    try:
        found = find_spec("mbi") is not None and find_spec("jax") is not None
    except (ImportError, ValueError):
        found = False
    return None if found else MBI_MISSING
