"""The kind registry is the one place that knows the statistic kinds (issue 23).

Code outside ``core/kinds`` asks the registry for a statistic's kind and calls it; it never
tests a kind's name. The search below finds every comparison of something called ``kind``
with a statistic kind's name (or a tuple/table of them), by parsing the package. Files still
being migrated are listed in ``STILL_TESTING`` with their count; the list only shrinks.
"""

from __future__ import annotations

import ast
from pathlib import Path

from planner_app.core.kinds import KINDS, StatisticKind, kind_of
from planner_app.core.kinds.registry import make_query
from tests import kind_table

PACKAGE = Path(__file__).resolve().parents[2] / "planner_app"
NAMES = set(kind_table.KINDS)
# tables of kind names, as the plan model had them before each kind stated its own
TABLES = {"KINDS", "NEEDS_BOUNDS", "NEEDS_COLUMN", "YES_NO_KINDS", "NOT_TAKEN",
          "EXPECTED_COUNT_KINDS", "MECHANISMS_BY_KIND", "COUNT_OF"}

#: file -> how many kind-name tests it still holds (only shrinks; 0 files is the goal)
STILL_TESTING: dict[str, int] = {
}


def _is_kind(node: ast.expr) -> bool:
    name = node.attr if isinstance(node, ast.Attribute) else \
        node.id if isinstance(node, ast.Name) else ""
    return name == "kind" or name.endswith("_kind") and name != "privacy_kind"


def _names_a_kind(node: ast.expr) -> bool:
    if isinstance(node, ast.Constant):
        return node.value in NAMES
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return any(_names_a_kind(e) for e in node.elts)
    if isinstance(node, ast.Name):
        return node.id in TABLES
    if isinstance(node, ast.Attribute):
        return node.attr in TABLES
    return False


def kind_tests(source: str) -> list[int]:
    """Line numbers of comparisons between a ``kind`` and a statistic kind's name."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Compare):
            continue
        sides = [node.left, *node.comparators]
        if any(_is_kind(s) for s in sides) and any(_names_a_kind(s) for s in sides):
            lines.append(node.lineno)
    return lines


def _found() -> dict[str, list[int]]:
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE.parent).as_posix()
        if rel.startswith("planner_app/core/kinds/"):
            continue
        lines = kind_tests(path.read_text(encoding="utf-8"))
        if lines:
            out[rel] = lines
    return out


def test_the_search_finds_a_kind_test_and_ignores_a_unit_test() -> None:
    assert kind_tests('if q.kind == "sum":\n    pass\n') == [1]
    assert kind_tests('x = query.kind in ("mean", "variance")\n') == [1]
    assert kind_tests("x = q.kind not in NEEDS_BOUNDS\n") == [1]
    assert kind_tests('x = "histogram" != self._kind\n') == [1]
    assert kind_tests('if unit.kind == "person":\n    pass\n') == []
    assert kind_tests('if kind_of(q).name:\n    pass\n') == []


def test_no_code_outside_the_kinds_tests_a_kind_name() -> None:
    found = _found()
    grown = {f: lines for f, lines in found.items()
             if len(lines) > STILL_TESTING.get(f, 0)}
    assert not grown, ("these files test a statistic kind's name; ask the registry "
                       f"(core/kinds) instead: {grown}")


def test_the_list_of_files_still_testing_only_shrinks() -> None:
    found = _found()
    stale = {f: n for f, n in STILL_TESTING.items() if len(found.get(f, ())) < n}
    assert not stale, f"lower these counts in STILL_TESTING (fewer tests left): {stale}"


def test_every_kind_of_the_plan_file_is_registered_once() -> None:
    assert list(KINDS) == list(kind_table.KINDS)
    for name, kind in KINDS.items():
        assert isinstance(kind, StatisticKind)
        assert kind.name == name
        assert kind.title


def test_kind_of_finds_a_statistics_kind() -> None:
    q = make_query("histogram", id="a", epsilon=1.0, column="x", categories=("a",))
    assert kind_of(q) is KINDS["histogram"]
