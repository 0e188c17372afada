"""The diff command: what changed between two versions of a plan (for a re-review)."""

from __future__ import annotations

import argparse
from pathlib import Path

from .common import EXIT_OK, _confidence, _home, _print_json


def cmd_diff(args: argparse.Namespace) -> int:
    from ..core.planfile import load_plan
    from ..core.planning.plan_diff import diff_keys, diff_plans

    old_path, new_path = Path(args.old), Path(args.new)
    old, new = load_plan(old_path), load_plan(new_path)  # a bad file: one line naming it
    old_name, new_name = old_path.name, new_path.name
    if old_name == new_name:  # two files of one name in different folders
        old_name, new_name = str(old_path), str(new_path)
    trusted = diff_keys(_home(args), getattr(args, "trust", None) or ())  # as check, release
    diff = diff_plans(old, new, _confidence(args), old_name=old_name, new_name=new_name,
                      trusted=trusted)
    if args.json:
        _print_json(diff.to_dict())
    else:
        print(diff.text, end="")
    return EXIT_OK
