"""python -m planner_app: the same entry point as the planner-app command."""

from planner_app.cli import main

raise SystemExit(main())
