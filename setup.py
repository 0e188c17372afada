"""Package discovery for the wheel (the rest of the metadata is in pyproject.toml).

Every package under planner_app is found automatically, so a new sub-package can never be left
out of the wheel; resources/, kept at the top of the repository, ships as planner_app.resources.
"""

from setuptools import find_packages, setup

setup(
    packages=[*find_packages(include=["planner_app", "planner_app.*"],
                             exclude=["planner_app.resources", "planner_app.resources.*"]),
              "planner_app.resources"],
    package_dir={"planner_app.resources": "resources"},
)
