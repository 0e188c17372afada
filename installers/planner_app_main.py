"""Entry point of the frozen app: the same as the planner-app command."""

from planner_app.cli import main

raise SystemExit(main())
