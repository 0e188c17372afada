"""Can the desktop app start here? The rule and its words, decided before Qt is loaded.

On Linux with an X display Qt loads its ``xcb`` platform plugin, which needs about twenty
system libraries. When one is missing Qt prints a misleading message (it names
libxcb-cursor0 whatever is missing) and aborts. So, before the QApplication exists, the
plugin's libraries are listed with ``ldd`` (which resolves them as the loader will, with
LD_LIBRARY_PATH, without running Qt) and those "not found" are named in one line, with the
Debian/Ubuntu and Fedora packages that provide them. No display at all is one line too. This
module never imports PySide6: it finds the plugin through the import system's metadata only.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

# soname -> (Debian/Ubuntu package, Fedora package): the libraries `ldd libqxcb.so` lists
# (PySide6 6.6-6.11), the C and C++ runtimes and PySide6's own bundled libraries left out
LIBRARY_PACKAGES: dict[str, tuple[str, str]] = {
    "libxcb-icccm.so.4": ("libxcb-icccm4", "xcb-util-wm"),
    "libxcb-keysyms.so.1": ("libxcb-keysyms1", "xcb-util-keysyms"),
    "libxcb-cursor.so.0": ("libxcb-cursor0", "xcb-util-cursor"),
    "libxcb-image.so.0": ("libxcb-image0", "xcb-util-image"),
    "libxcb-render-util.so.0": ("libxcb-render-util0", "xcb-util-renderutil"),
    "libxcb-util.so.1": ("libxcb-util1", "xcb-util"),
    "libxcb-randr.so.0": ("libxcb-randr0", "libxcb"),
    "libxcb-render.so.0": ("libxcb-render0", "libxcb"),
    "libxcb-shape.so.0": ("libxcb-shape0", "libxcb"),
    "libxcb-shm.so.0": ("libxcb-shm0", "libxcb"),
    "libxcb-sync.so.1": ("libxcb-sync1", "libxcb"),
    "libxcb-xfixes.so.0": ("libxcb-xfixes0", "libxcb"),
    "libxcb-xkb.so.1": ("libxcb-xkb1", "libxcb"),
    "libxcb.so.1": ("libxcb1", "libxcb"),
    "libX11-xcb.so.1": ("libx11-xcb1", "libX11-xcb"),
    "libX11.so.6": ("libx11-6", "libX11"),
    "libXau.so.6": ("libxau6", "libXau"),
    "libXdmcp.so.6": ("libxdmcp6", "libXdmcp"),
    "libxkbcommon.so.0": ("libxkbcommon0", "libxkbcommon"),
    "libxkbcommon-x11.so.0": ("libxkbcommon-x11-0", "libxkbcommon-x11"),
    "libGL.so.1": ("libgl1", "libglvnd-glx"),
    "libGLX.so.0": ("libglx0", "libglvnd-glx"),
    "libGLdispatch.so.0": ("libglvnd0", "libglvnd"),
    "libEGL.so.1": ("libegl1", "libglvnd-egl"),
    "libOpenGL.so.0": ("libopengl0", "libglvnd-opengl"),
    "libfontconfig.so.1": ("libfontconfig1", "fontconfig"),
    "libfreetype.so.6": ("libfreetype6", "freetype"),
    "libglib-2.0.so.0": ("libglib2.0-0", "glib2"),
    "libgthread-2.0.so.0": ("libglib2.0-0", "glib2"),
    "libdbus-1.so.3": ("libdbus-1-3", "dbus-libs"),
    # the wayland plugin's (named when Qt's abort is caught on a Wayland desktop)
    "libwayland-client.so.0": ("libwayland-client0", "libwayland-client"),
    "libwayland-cursor.so.0": ("libwayland-cursor0", "libwayland-cursor"),
    "libwayland-egl.so.1": ("libwayland-egl1", "libwayland-egl"),
}

PROG = "planner-app"
NO_DISPLAY = (f"{PROG}: error: there is no display to open the desktop app on (neither DISPLAY "
              "nor WAYLAND_DISPLAY is set): start it from a desktop session, or use the "
              f"command line ({PROG} --help); '{PROG} gui --smoke-test' checks the app "
              "without a display")


def platform_plugins_dir() -> Path | None:
    """PySide6's platforms/ folder, found without importing PySide6 (None: not installed)."""
    try:
        spec = importlib.util.find_spec("PySide6")
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    for location in spec.submodule_search_locations:
        folder = Path(location) / "Qt" / "plugins" / "platforms"
        if folder.is_dir():
            return folder
    return None


def desktop_platform(environ: Mapping[str, str], platform: str = sys.platform) -> str:
    """The platform plugin Qt will try first: "xcb", "wayland", "none" (Linux without any
    display) or "other" (QT_QPA_PLATFORM names another one; not Linux: nothing to probe)."""
    if not platform.startswith("linux"):
        return "other"
    chosen = environ.get("QT_QPA_PLATFORM", "").split(";")[0].split(":")[0].strip()
    if chosen and chosen not in ("xcb", "wayland"):
        return "other"  # offscreen, minimal, vnc, eglfs...: the user chose; Qt will say
    x11, wayland = bool(environ.get("DISPLAY")), bool(environ.get("WAYLAND_DISPLAY"))
    if chosen == "xcb":
        return "xcb" if x11 else "none"
    if chosen == "wayland" or wayland:
        return "wayland"  # should Wayland fail, Qt falls back to xcb: the abort hint covers it
    return "xcb" if x11 else "none"


def missing_libraries(library: Path, environ: Mapping[str, str] | None = None) -> list[str]:
    """The sonames ``library`` needs that the loader will not find, sorted; [] when
    everything resolves or when ldd is not available (the abort hint is the fallback)."""
    ldd = shutil.which("ldd")
    if ldd is None or not library.is_file():
        return []
    env = dict(os.environ if environ is None else environ)
    env["LC_ALL"] = "C"
    try:
        done = subprocess.run([ldd, str(library)], capture_output=True, text=True,
                              env=env, timeout=30, check=False)
    except (OSError, subprocess.SubprocessError):
        return []
    missing: list[str] = []
    for line in done.stdout.splitlines():
        name, arrow, where = line.strip().partition(" => ")
        if arrow and where.strip() == "not found" and name not in missing:
            missing.append(name)
    return sorted(missing)


def missing_libraries_line(missing: Sequence[str]) -> str:
    """The one line that names what to install for ``missing`` sonames."""
    debian = _unique(LIBRARY_PACKAGES[m][0] for m in missing if m in LIBRARY_PACKAGES)
    fedora = _unique(LIBRARY_PACKAGES[m][1] for m in missing if m in LIBRARY_PACKAGES)
    line = (f"{PROG}: error: the desktop app needs system libraries that are missing "
            f"({', '.join(missing)})")
    if not debian:
        return line + ": install the packages of your system that provide them"
    return (f"{line}: on Debian/Ubuntu run 'sudo apt install {' '.join(debian)}', on Fedora "
            f"'sudo dnf install {' '.join(fedora)}'")


def plugin_failure_line(plugin: str, environ: Mapping[str, str] | None = None) -> str:
    """The one line when Qt itself fails to start its platform plugin (after the probe):
    the plugin's missing libraries when ldd finds some, else how to find out more."""
    folder = platform_plugins_dir()
    if plugin and folder is not None:
        missing = missing_libraries(folder / f"libq{plugin}.so", environ)
        if missing:
            return missing_libraries_line(missing)
    return (f"{PROG}: error: the desktop app could not start Qt's platform plugin "
            f"'{plugin or 'xcb'}': run it again with QT_DEBUG_PLUGINS=1 to see why (often a "
            "missing system library), or set QT_QPA_PLATFORM=wayland or xcb to try the other "
            "display system")


def desktop_problem(environ: Mapping[str, str] | None = None,
                    plugins_dir: Path | None = None,
                    platform: str = sys.platform) -> str | None:
    """The one line that says why the desktop app cannot start here, or None when nothing
    is known to stop it (no PySide6 is another message, given where it is imported)."""
    env = os.environ if environ is None else environ
    kind = desktop_platform(env, platform)
    if kind == "none":
        return NO_DISPLAY
    if kind != "xcb":
        return None
    folder = platform_plugins_dir() if plugins_dir is None else plugins_dir
    if folder is None:
        return None
    missing = missing_libraries(folder / "libqxcb.so", env)
    return missing_libraries_line(missing) if missing else None


def _unique(items: Iterable[str]) -> list[str]:
    out: list[str] = []
    for item in items:
        if item not in out:
            out.append(item)
    return out
