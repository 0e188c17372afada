"""The first start on a stock Linux desktop (issue 22, part 2): what the desktop app needs
is said in one line with exit 2, before Qt is loaded: missing system libraries (with the
packages to install), no display, a plan or table on the command line that cannot be
opened."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from planner_app.cli import main
from planner_app.cli.parser import build_parser
from planner_app.core.support.desktop import (
    desktop_platform,
    missing_libraries,
    missing_libraries_line,
    platform_plugins_dir,
)
from tests.conftest import DEMO_PLAN, DEMO_TABLE

# hidden in the "container": the two that a fresh Debian lacks, and libxcb-cursor0, which it
# has (Qt's own message names only that one, whatever is missing)
HIDDEN = ("libxcb-cursor.so.0", "libxcb-icccm.so.4", "libxcb-keysyms.so.1")
EXPECTED = ("planner-app: error: the desktop app needs system libraries that are missing "
            "(libxcb-cursor.so.0, libxcb-icccm.so.4, libxcb-keysyms.so.1): on Debian/Ubuntu "
            "run 'sudo apt install libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1', on Fedora "
            "'sudo dnf install xcb-util-cursor xcb-util-wm xcb-util-keysyms'")
LIB_DIRS = ("/usr/lib/x86_64-linux-gnu", "/lib/x86_64-linux-gnu", "/usr/lib64", "/lib64",
            "/usr/lib/aarch64-linux-gnu", "/usr/lib", "/lib")

# In a private mount namespace, every library folder that holds one of HIDDEN is replaced by
# a folder of links to all its other entries: the loader (and ldd) then cannot find HIDDEN,
# whatever this machine has installed; the rest of the system is untouched.
CONTAINER = textwrap.dedent("""\
    set -e
    work="$1"; shift
    for dir in $LIB_DIRS; do
        [ -d "$dir" ] && [ ! -L "$dir" ] || continue
        real=$(readlink -f "$dir")
        hit=""
        for name in $HIDDEN; do [ -e "$real/$name" ] || [ -L "$real/$name" ] && hit=1; done
        [ -n "$hit" ] || continue
        key=$(echo "$real" | tr / _)
        mkdir -p "$work/orig$key" "$work/farm$key"
        mount --bind "$real" "$work/orig$key"
        for entry in "$work/orig$key"/* "$work/orig$key"/.[!.]*; do
            [ -e "$entry" ] || [ -L "$entry" ] || continue
            base=$(basename "$entry")
            skip=""
            for name in $HIDDEN; do
                case "$base" in "$name"|"$name".*) skip=1;; esac
            done
            [ -n "$skip" ] || ln -s "$entry" "$work/farm$key/$base"
        done
        mount --bind "$work/farm$key" "$real"
    done
    exec "$@"
""")


def _unshare() -> list[str] | None:
    """How to enter a private mount namespace here: as root, or in a user namespace."""
    if not sys.platform.startswith("linux") or shutil.which("unshare") is None:
        return None
    for command in (["unshare", "--mount"], ["unshare", "--user", "--map-root-user", "--mount"]):
        try:
            done = subprocess.run([*command, "sh", "-c", "mount --bind / /mnt 2>/dev/null "
                                   "|| mount -t tmpfs none /mnt"], capture_output=True,
                                  timeout=30)
        except (OSError, subprocess.SubprocessError):
            continue
        if done.returncode == 0:
            return command
    return None


def _clean_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM", "LD_LIBRARY_PATH",
                        "LD_PRELOAD", "QT_PLUGIN_PATH", "QT_DEBUG_PLUGINS")}
    env["PLANNER_APP_HOME"] = str(tmp_path / "home")
    env.update(extra)
    return env


@pytest.mark.subprocess
@pytest.mark.skipif(platform_plugins_dir() is None, reason="PySide6 is not installed")
def test_the_demo_on_a_desktop_without_the_xcb_libraries_says_what_to_install(
        tmp_path: Path) -> None:
    command = _unshare()
    if command is None:
        pytest.skip("no private mount namespace here (needs root or user namespaces): the "
                    "libraries cannot be hidden")
    script = tmp_path / "container.sh"
    script.write_text(CONTAINER, encoding="utf-8")
    work = tmp_path / "ns"
    work.mkdir()
    env = _clean_env(tmp_path, DISPLAY=":97", HIDDEN=" ".join(HIDDEN),
                     LIB_DIRS=" ".join(LIB_DIRS))
    done = subprocess.run([*command, "sh", str(script), str(work), sys.executable, "-m",
                           "planner_app", "--demo"],
                          capture_output=True, text=True, env=env, timeout=120)
    assert done.stderr.splitlines() == [EXPECTED], done.stderr
    assert done.returncode == 2
    assert done.stdout == ""
    assert "Traceback" not in done.stderr and "qt.qpa" not in done.stderr


@pytest.mark.subprocess
def test_no_display_is_one_line(tmp_path: Path) -> None:
    if not sys.platform.startswith("linux"):
        pytest.skip("a display is a Linux question")
    done = subprocess.run([sys.executable, "-m", "planner_app", "--demo"], capture_output=True,
                          text=True, env=_clean_env(tmp_path), timeout=120)
    lines = done.stderr.splitlines()
    assert done.returncode == 2, done.stderr
    assert len(lines) == 1
    assert lines[0].startswith("planner-app: error: there is no display to open the desktop "
                               "app on (neither DISPLAY nor WAYLAND_DISPLAY is set)")
    assert "--smoke-test" in lines[0]


@pytest.mark.skipif(platform_plugins_dir() is None or shutil.which("ldd") is None,
                    reason="needs PySide6 and ldd")
def test_a_plugin_whose_libraries_all_resolve_misses_nothing() -> None:
    folder = platform_plugins_dir()
    assert folder is not None
    # the offscreen plugin needs only Qt's own libraries (bundled) and the C/C++ runtimes
    assert missing_libraries(folder / "libqoffscreen.so") == []


def test_the_line_names_the_packages_of_both_families() -> None:
    assert missing_libraries_line(["libxcb-icccm.so.4", "libxcb-keysyms.so.1"]) == (
        "planner-app: error: the desktop app needs system libraries that are missing "
        "(libxcb-icccm.so.4, libxcb-keysyms.so.1): on Debian/Ubuntu run 'sudo apt install "
        "libxcb-icccm4 libxcb-keysyms1', on Fedora 'sudo dnf install xcb-util-wm "
        "xcb-util-keysyms'")
    # several sonames of one package name it once
    assert "'sudo dnf install libxcb'" in missing_libraries_line(
        ["libxcb-shm.so.0", "libxcb-sync.so.1"])
    assert missing_libraries_line(["libunknown.so.7"]).endswith(
        "(libunknown.so.7): install the packages of your system that provide them")


@pytest.mark.parametrize(("env", "platform", "expected"), [
    ({"DISPLAY": ":0"}, "linux", "xcb"),
    ({}, "linux", "none"),
    ({"QT_QPA_PLATFORM": "xcb"}, "linux", "none"),
    ({"QT_QPA_PLATFORM": "xcb", "DISPLAY": ":0"}, "linux", "xcb"),
    ({"QT_QPA_PLATFORM": "offscreen"}, "linux", "other"),
    ({"QT_QPA_PLATFORM": "vnc:size=800x600"}, "linux", "other"),
    ({"WAYLAND_DISPLAY": "wayland-0", "DISPLAY": ":0"}, "linux", "wayland"),
    ({"QT_QPA_PLATFORM": "wayland;xcb", "DISPLAY": ":0"}, "linux", "wayland"),
    ({}, "darwin", "other"),
    ({}, "win32", "other"),
])
def test_which_platform_is_probed(env: dict[str, str], platform: str, expected: str) -> None:
    assert desktop_platform(env, platform) == expected


def test_gui_takes_a_plan_and_a_table() -> None:
    args = build_parser().parse_args(["gui", "plan.json", "--data", "survey.csv"])
    assert (args.command, args.plan, args.data) == ("gui", "plan.json", "survey.csv")
    assert build_parser().parse_args(["gui"]).plan is None


@pytest.mark.parametrize(("argv", "message"), [
    (["gui", "{tmp}/missing.json"], "planner-app: error: missing.json: no such file"),
    (["gui", "{tmp}/bad.json"], "planner-app: error: bad.json: "),
    (["gui", str(DEMO_PLAN), "--data", "{tmp}/missing.csv"],
     "planner-app: error: missing.csv: no such file"),
    (["gui", str(DEMO_PLAN), "--data", "{tmp}"], "is a folder, not a table"),
    (["gui", str(DEMO_PLAN), "--data", "{tmp}/empty.csv"],
     "planner-app: error: empty.csv: is empty"),
    (["gui", str(DEMO_PLAN), "--data", str(DEMO_PLAN)],
     "planner-app: error: survey-plan.json: is not a table the app opens (CSV, TSV, .xlsx "
     "or Parquet)"),
])
def test_a_plan_or_table_that_cannot_be_opened_is_one_line_before_any_window(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str],
        message: str) -> None:
    (tmp_path / "bad.json").write_text("{not json", encoding="utf-8")
    (tmp_path / "empty.csv").write_text("", encoding="utf-8")
    code = main([a.replace("{tmp}", str(tmp_path)) for a in argv])
    err = capsys.readouterr().err.splitlines()
    assert code == 2
    assert len(err) == 1 and message in err[0]


@pytest.mark.subprocess
def test_a_bad_start_file_never_loads_qt(tmp_path: Path) -> None:
    code = ("import sys\nfrom planner_app.cli import main\nrc = main(sys.argv[1:])\n"
            "print(rc, 'PySide6' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code, "gui", str(DEMO_PLAN), "--data",
                           str(tmp_path / "nope.csv")], capture_output=True, text=True,
                          env=_clean_env(tmp_path, DISPLAY=":97"), timeout=120)
    assert done.stdout.split() == ["2", "False"], done.stderr
    assert DEMO_TABLE.is_file()


def test_planner_app_gui_takes_the_plan_too(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    from planner_app.cli import gui_main

    monkeypatch.setattr(sys, "argv", ["planner-app-gui", str(tmp_path / "gone.json")])
    assert gui_main() == 2
    assert capsys.readouterr().err.splitlines() == [
        "planner-app: error: gone.json: no such file"]
