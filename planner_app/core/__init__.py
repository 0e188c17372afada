"""The Qt-free engine of planner_app, in layers (each imports only the layers below it):

    release/     the release pipeline: noise, publish, resume, bundle, verify, report
    planning/    check, readiness, plan edits, settings, starter plans
    data/        tables, fit, aggregation   |   records/   ledger, audit log, reviews
    dp/          the DP mathematics: samplers, sensitivity, accounting, accuracy, risk
    model/       the plan file: dataclasses, validation, serialisation
    support/     errors, file writing, the app home, shipped resources

Nothing in this package may import PySide6, shiboken6, planner_app.gui or planner_app.cli;
import-linter contracts in pyproject.toml (a "forbidden" one and the "layers" ones) and
tests/core/test_boundaries.py enforce it.
"""
