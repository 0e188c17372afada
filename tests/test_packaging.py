"""Packaging that works outside a checkout: the wheel holds every module and the shipped
resources, installs into a fresh environment, and its commands run from another folder (a
wheel once lacked planner_app.gui.dialogs and planner_app.gui.widgets, so `pip install .` then
`planner-app gui` said "needs PySide6")."""

from __future__ import annotations

import importlib.util
import os
import shutil
import site
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SOURCES = ("pyproject.toml", "setup.py", "README.md", "LICENSE", "planner_app", "resources")


def _copy_sources(dest: Path) -> None:
    """The files a source distribution holds, without the checkout's build leftovers (and
    without the development symlink planner_app/resources)."""
    for name in SOURCES:
        src = ROOT / name
        if src.is_dir():
            shutil.copytree(src, dest / name, symlinks=True, ignore=shutil.ignore_patterns(
                "__pycache__", "*.pyc", "*.egg-info", "_screenshots"))
        else:
            shutil.copy2(src, dest / name)
    link = dest / "planner_app" / "resources"
    if link.is_symlink():
        link.unlink()


def _can_build_offline() -> bool:
    """setuptools builds a wheel by itself from 70.1 on; before that it needs `wheel`."""
    if importlib.util.find_spec("wheel") is not None:
        return True
    import setuptools

    major, minor = (int(x) for x in setuptools.__version__.split(".")[:2])
    return (major, minor) >= (70, 1)


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    src = tmp_path_factory.mktemp("src")
    out = tmp_path_factory.mktemp("wheels")
    _copy_sources(src)
    command = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(out),
               str(src)]
    if _can_build_offline():
        command.insert(4, "--no-build-isolation")
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, cwd=src)
    assert done.returncode == 0, done.stdout + done.stderr
    (built,) = out.glob("planner_app-*.whl")
    return built


@pytest.mark.subprocess
def test_the_wheel_holds_every_package_the_resources_and_the_license(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    packages = {".".join(p.parent.relative_to(ROOT).parts)
                for p in (ROOT / "planner_app").rglob("__init__.py")
                if "resources" not in p.relative_to(ROOT).parts}
    assert {"planner_app.gui.dialogs", "planner_app.gui.widgets", "planner_app.cli",
            "planner_app.core.dp"} <= packages
    missing = sorted(p for p in packages if p.replace(".", "/") + "/__init__.py" not in names)
    assert not missing, missing
    modules = {p.relative_to(ROOT).as_posix() for p in (ROOT / "planner_app").rglob("*.py")
               if "resources" not in p.relative_to(ROOT).parts}
    assert not sorted(modules - names)
    shipped = {f"planner_app/resources/{p.relative_to(ROOT / 'resources').as_posix()}"
               for p in (ROOT / "resources").rglob("*")
               if p.is_file() and p.suffix in (".json", ".md", ".csv", ".png", ".svg")}
    assert shipped and not sorted(shipped - names)
    dist = next(n.split("/")[0] for n in names if n.endswith(".dist-info/METADATA"))
    meta = zipfile.ZipFile(wheel).read(f"{dist}/METADATA").decode()
    assert "Apache-2.0" in meta
    licence = [n for n in names if n.startswith(dist) and n.endswith("LICENSE")]
    assert licence and b"Apache License" in zipfile.ZipFile(wheel).read(licence[0])
    entry_points = zipfile.ZipFile(wheel).read(f"{dist}/entry_points.txt").decode()
    assert "[gui_scripts]\nplanner-app-gui = planner_app.cli:gui_main" in entry_points
    assert "[console_scripts]\nplanner-app = planner_app.cli:main" in entry_points


@pytest.mark.subprocess
def test_the_installed_wheel_runs_outside_the_checkout(wheel: Path, tmp_path: Path) -> None:
    env_dir = tmp_path / "env"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(env_dir)], check=True,
                   timeout=120)
    bindir = env_dir / ("Scripts" if os.name == "nt" else "bin")
    python = bindir / ("python.exe" if os.name == "nt" else "python")
    done = subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install",
                           "--no-deps", "--no-index", "--quiet", str(wheel)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    # the dependencies (PySide6, pandas, ...) come from this environment, appended after the
    # new one's own site-packages, so the installed wheel is the planner_app that runs
    purelib = subprocess.run([str(python), "-c", "import sysconfig; "
                              "print(sysconfig.get_paths()['purelib'])"],
                             capture_output=True, text=True, check=True).stdout.strip()
    parents = [*site.getsitepackages(), sysconfig.get_paths()["purelib"]]
    Path(purelib, "parent-env.pth").write_text("\n".join(dict.fromkeys(parents)) + "\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "VIRTUAL_ENV"))}
    env.update(QT_QPA_PLATFORM="offscreen", PLANNER_APP_HOME=str(tmp_path / "home"))
    cwd = tmp_path / "elsewhere"
    cwd.mkdir()

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([*args], capture_output=True, text=True, cwd=cwd, env=env,
                              timeout=180)

    where = run(str(python), "-c", "import planner_app, sys; print(planner_app.__file__)")
    assert where.returncode == 0, where.stderr
    assert Path(where.stdout.strip()).resolve().is_relative_to(env_dir.resolve())
    exe = ".exe" if os.name == "nt" else ""
    cli, gui = bindir / f"planner-app{exe}", bindir / f"planner-app-gui{exe}"
    assert cli.exists() and gui.exists()

    done = run(str(cli), "--help")
    assert done.returncode == 0 and "usage: planner-app" in done.stdout, done.stderr
    demo = run(str(python), "-c", "from planner_app.core.support.resources import "
                                  "demo_plan_path; print(demo_plan_path())")
    assert demo.returncode == 0, demo.stderr
    plan = Path(demo.stdout.strip())
    assert plan.resolve().is_relative_to(env_dir.resolve()) and plan.is_file()
    done = run(str(cli), "check", str(plan))
    assert done.returncode == 0, done.stderr
    assert "Composed total" in done.stdout
    done = run(str(cli), "gui", "--smoke-test")
    assert done.returncode == 0, done.stdout + done.stderr
    done = run(str(gui), "--smoke-test", "--home", str(tmp_path / "home2"))
    assert done.returncode == 0, done.stdout + done.stderr
    # no wall-clock bound (issue 23): each command has its own timeout against a hang, and the
    # install is offline (--no-index --no-deps), so nothing is downloaded or built
