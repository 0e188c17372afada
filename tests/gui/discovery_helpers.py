"""Discovery bundles made in a test's app home (gui25): a discovery of the demo survey's
keys or bounds released by the core's own path, for the app's tests to give the wizard."""

from __future__ import annotations

from pathlib import Path

from planner_app.core.data.tables import open_table
from planner_app.core.model import Plan
from planner_app.core.planfile import load_plan
from planner_app.core.release.discovery import read_discovery
from planner_app.core.release.discovery_steps import (
    FindRequest,
    discovery_plan,
    found_into_statistic,
)
from planner_app.core.release.publish import publish
from planner_app.core.support.home import AppHome
from planner_app.core.support.resources import demo_plan_path, demo_table_path


def discover(home: AppHome, request: FindRequest, out: Path) -> Path:
    """``request`` released on the demo survey into ``out``, charged in ``home``."""
    plan = discovery_plan(load_plan(demo_plan_path()), request)
    publish(plan, open_table(demo_table_path()), out, home)
    return out


def demo_with_found_regions(home: AppHome, folder: Path) -> tuple[Plan, Path]:
    """The demo plan whose histogram of regions has its categories found privately: the
    plan (as ``plan apply-discovery`` writes it) and the discovery bundle."""
    from planner_app.core.planfile import plan_from_dict, plan_to_dict

    bundle = discover(home, FindRequest("keys", "region", 1.0, 1e-7),
                      folder / "regions.zip")
    main = load_plan(demo_plan_path())
    doc = plan_to_dict(main)
    found = read_discovery(bundle)
    doc["queries"] = [found_into_statistic(q, "categories", found, "region_keys", main)
                      if q["id"] == "region_counts" else q for q in doc["queries"]]
    return plan_from_dict(doc), bundle
