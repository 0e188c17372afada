"""The Qt-free engine of planner_app.

Nothing in this package may import PySide6, shiboken6, planner_app.gui or planner_app.cli;
an import-linter contract in pyproject.toml and tests/core/test_boundaries.py enforce it.
"""
