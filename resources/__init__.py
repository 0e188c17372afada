"""Plain data files shipped with planner_app (schemas, demo data, icons).

Found at run time through ``importlib.resources.files("planner_app.resources")``.
"""
