"""Shipped data files (schemas, demo table and plan), found with importlib.resources."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

PACKAGE = "planner_app.resources"


def resource_path(*parts: str) -> Path:
    """A real file path to a shipped resource (the package is installed unzipped)."""
    ref = resources.files(PACKAGE).joinpath(*parts)
    return Path(str(ref))


def demo_table_path() -> Path:
    return resource_path("demo", "survey.csv")


def demo_plan_path() -> Path:
    return resource_path("demo", "survey-plan.json")


def plan_schema_path() -> Path:
    return resource_path("plan.schema.json")
