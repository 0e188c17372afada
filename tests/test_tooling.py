"""The README's test command, the checks it lists and .ci/run stay one and the same."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

tomllib = pytest.importorskip("tomllib")  # Python 3.11+

ROOT = Path(__file__).resolve().parent.parent


def _commands(text: str) -> list[str]:
    """The commands of every ```sh block, without comments."""
    out = []
    for block in re.findall(r"```sh\n(.*?)```", text, flags=re.S):
        for line in block.splitlines():
            line = line.split("  #")[0].strip()
            if line:
                out.append(line)
    return out


def _ci_commands() -> list[str]:
    lines = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    return [line.strip() for line in lines if line.strip() and not line.lstrip().startswith("#")]


def test_ci_runs_the_readme_test_command_and_the_checks_it_lists() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    quick = readme.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    commands = _commands(quick)
    test_command = next(c for c in commands if "[test]" in c)
    ci = _ci_commands()
    # the README's one test command, split at && in .ci/run, in the same order; CI runs the
    # whole suite in one run on both cores (issue 23: two stages cost a second collection)
    halves = [part.strip() for part in test_command.split("&&")]
    assert halves == ["pip install -e '.[test]'", "python -m pytest"], test_command
    stages = [c for c in ci if c.startswith("python -m pytest")]
    assert stages == ['python -m pytest -n 2 --dist loadfile -m "not slow"'], ci
    # the README's everyday fast command deselects only registered markers, slow included
    fast = re.search(r'python -m pytest -m "([^"]+)"', readme)
    assert fast is not None, "the README names no fast command"
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    registered = {m.split(":")[0] for m in project["tool"]["pytest"]["ini_options"]["markers"]}
    named = re.findall(r"not (\w+)", fast.group(1))
    assert set(named) == registered, (named, registered)
    positions = [ci.index(halves[0]), ci.index(stages[0])]
    assert positions == sorted(positions), ci
    # every check the README lists runs in CI, after the install and before the tests
    checks = [c for c in commands if c.split()[0] in ("ruff", "mypy", "lint-imports")]
    assert {c.split()[0] for c in checks} == {"ruff", "mypy", "lint-imports"}, commands
    for check in checks:
        assert check in ci, (check, ci)
        assert positions[0] < ci.index(check) < positions[1], (check, ci)


def test_the_checks_are_configured_and_installed_by_the_test_extra() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    extra = " ".join(project["project"]["optional-dependencies"]["test"])
    for tool in ("ruff", "mypy", "import-linter", "pandas-stubs", "pytest"):
        assert re.search(rf"(^|\s){re.escape(tool)}\b", extra), tool
    tools = project["tool"]
    assert set("E F W I B UP".split()) <= set(tools["ruff"]["lint"]["select"])
    assert tools["ruff"]["line-length"] == 100
    assert tools["mypy"]["strict"] is True
    assert tools["mypy"]["files"] == ["planner_app"]  # the whole package (issue 23)
    assert tools["importlinter"]["contracts"], "no import-linter contract"


#: Modules exempt from mypy (an override with ignore_errors). This list only shrinks.
MYPY_EXEMPT: set[str] = set()
#: The strict flags the GUI and the command line are still spared. This list only shrinks.
GUI_RELAXED = {"disallow_untyped_defs", "disallow_incomplete_defs", "disallow_untyped_calls",
               "disallow_any_generics", "warn_return_any", "warn_unused_ignores"}


def test_mypy_checks_every_module_and_the_exemptions_only_shrink() -> None:
    mypy = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mypy"]
    exempt: set[str] = set()
    relaxed: dict[str, dict[str, object]] = {}
    for override in mypy.get("overrides", []):
        modules = override["module"]
        for module in [modules] if isinstance(modules, str) else modules:
            if not module.startswith("planner_app"):
                continue  # third-party stubs (ignore_missing_imports)
            if override.get("ignore_errors"):
                exempt.add(module)
            relaxed[module] = override
    assert exempt <= MYPY_EXEMPT, f"a new exemption: {sorted(exempt - MYPY_EXEMPT)}"
    # the core is strict: no override reaches it; the GUI and the CLI check every body
    assert not [m for m in relaxed if m.startswith("planner_app.core")], relaxed
    for module in ("planner_app.gui", "planner_app.gui.*", "planner_app.cli",
                   "planner_app.cli.*"):
        assert relaxed[module].get("check_untyped_defs") is True, module
        spared = {flag for flag, value in relaxed[module].items() if value is False}
        assert spared <= GUI_RELAXED, f"{module}: newly relaxed {sorted(spared - GUI_RELAXED)}"
