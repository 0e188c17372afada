"""Release bundles whose lists say they were found privately (disc25c), made by the core's
own release path in a test's app home, for the tests of verify, report and the bundle viewer:
the demo plan with its regions found privately, released with them (``main``); the same plan
with one region left out of the declared list but its reason kept, released by ``publish``
itself, which does not check discoveries (``mismatched``: its list differs from the
discovery's output); the discovery bundle (``regions``) and one the plan does not name
(``employment``)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from planner_app.core.data.tables import open_table
from planner_app.core.planfile import plan_from_dict, plan_to_dict
from planner_app.core.release.discovery_steps import FindRequest
from planner_app.core.release.publish import publish
from planner_app.core.support.home import AppHome
from planner_app.core.support.resources import demo_table_path
from tests.gui.discovery_helpers import demo_with_found_regions, discover


@dataclass(frozen=True)
class FoundBundles:
    main: Path
    mismatched: Path
    regions: Path
    employment: Path
    release: str  # the discovery release the plans name
    home: Path | None = None  # the app home they were released in (the conftest fixture's)


def found_bundles(home: AppHome, folder: Path) -> FoundBundles:
    from planner_app.core.release.discovery import read_discovery

    plan, regions = demo_with_found_regions(home, folder)
    table = open_table(demo_table_path())
    main = folder / "main.zip"
    publish(plan, table, main, home)
    doc = plan_to_dict(plan)
    q = next(q for q in doc["queries"] if q["id"] == "region_counts")
    assert len(q["categories"]) >= 2, q["categories"]
    q["categories"] = q["categories"][:-1]  # one region left out, its reason kept
    mismatched = folder / "mismatched.zip"
    publish(plan_from_dict(doc), table, mismatched, home)
    employment = discover(home, FindRequest("keys", "employment", 1.0, 1e-7),
                          folder / "employment.zip")
    return FoundBundles(main, mismatched, regions, employment,
                        read_discovery(regions).release_id)
