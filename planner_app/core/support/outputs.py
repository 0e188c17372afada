"""Where the app proposes to write a bundle (disc25c): one rule for the release wizard and
the "Find … privately" dialog. Beside the plan file (else beside the table), as a person
expects; but never inside the installed package's resources (the demo plan opened with
``planner-app --demo`` lives there, often not writable, and an upgrade would delete it) nor in
a folder that cannot be written: then the app home's own ``releases`` folder, which moves
with ``--home``/$PLANNER_APP_HOME and is created owner-only when first proposed."""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from datetime import datetime, timezone
from pathlib import Path

from .home import AppHome
from .private import private_folder
from .resources import resource_path

#: the app home's folder for bundles whose plan has no usable folder of its own
RELEASES_DIR = "releases"


def releases_folder(home: AppHome) -> Path:
    """The app home's folder for bundles (``data/releases``)."""
    return home.data_dir / RELEASES_DIR


def _inside_resources(folder: Path) -> bool:
    try:
        folder.resolve().relative_to(resource_path().resolve())
    except ValueError:
        return False
    return True


def _writable(folder: Path) -> bool:
    return folder.is_dir() and os.access(folder, os.W_OK | os.X_OK)


def default_output_folder(plan_path: Path | None, table_path: Path | None,
                          home: AppHome) -> Path:
    """The folder a new bundle is proposed in: the plan's, else the table's, unless it lies
    in the package's resources or cannot be written; then the app home's ``releases``
    folder (created, owner-only). With neither a plan file nor a table: that folder too."""
    for path in (plan_path, table_path):
        if path is None:
            continue
        folder = Path(path).parent
        if not _inside_resources(folder) and _writable(folder):
            return folder
        break  # the plan's folder decides; a table beside an unusable plan does not
    folder = releases_folder(home)
    try:
        private_folder(folder)
    except OSError:
        pass  # said when the bundle is written there (the release's own check)
    return folder


def bundle_file_name(parts: Sequence[str], when: datetime | None = None) -> str:
    """The proposed file name of a new bundle: ``parts`` (the dataset's name, what it is, a
    column…) and the UTC time, joined by dashes. Each part keeps its letters (any script),
    digits, dots and underscores; spaces, slashes and the rest become single dashes, so the
    name is one file name that a shell takes as it is (walk25c)."""
    stamp = (when or datetime.now(timezone.utc)).strftime("%Y%m%d-%H%M%S")
    words = [re.sub(r"[^\w.]+", "-", part).strip("-.") for part in parts]
    return "-".join([w for w in words if w] + [stamp]) + ".zip"
