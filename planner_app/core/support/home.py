"""Where planner_app keeps its state: settings, the budget ledger and the audit log.

By default platformdirs' per-user data and config folders. ``--home DIR`` or the environment
variable PLANNER_APP_HOME moves all of it into one folder (tests always use a temporary one).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from .errors import InputError, PlannerError
from .private import private_folder, tighten_tree

ENV = "PLANNER_APP_HOME"
APP = "planner-app"
AUDIT_NAME = "audit.jsonl"  # beside the ledger in data/ (records/ledger.py finds it there)


class HomeUnusable(PlannerError):
    """The app home (where the ledger and the audit log live) cannot be created or written:
    like a ledger that cannot be used, exit 4; nothing was charged."""


@dataclass(frozen=True)
class AppHome:
    data_dir: Path
    config_dir: Path

    @property
    def ledger_path(self) -> Path:
        return self.data_dir / "ledger.sqlite3"

    @property
    def audit_path(self) -> Path:
        return self.data_dir / AUDIT_NAME

    @property
    def settings_path(self) -> Path:
        return self.config_dir / "settings.json"

    def ensure(self) -> AppHome:
        """Create the app home's folders, owner-only (0700), and tighten what an older version
        left readable by others (private.py)."""
        for folder in (self.data_dir, self.config_dir):
            try:
                private_folder(folder)
                tighten_tree(folder)
            except (FileExistsError, NotADirectoryError):  # the home given is a file
                raise InputError(str(folder.parent), None, "is not a folder (or lies under a "
                                 "file), so it cannot be the app home; give a folder with "
                                 "--home DIR; nothing was charged or written") from None
            except OSError as exc:
                raise HomeUnusable(f"the app folder {folder} cannot be created "
                                   f"({exc.strerror}); nothing was charged or written") from None
        return self


def home_folder(override: str | os.PathLike[str] | None = None) -> Path | None:
    """The one folder the app home is in: ``override``, else $PLANNER_APP_HOME (absolute);
    None when it is the per-user folders (``per_user_home``)."""
    chosen = override or os.environ.get(ENV)
    return Path(chosen).expanduser().resolve() if chosen else None


def per_user_home() -> AppHome:
    """The app home in platformdirs' per-user data and config folders (whatever
    $PLANNER_APP_HOME says)."""
    import platformdirs

    return AppHome(data_dir=Path(platformdirs.user_data_dir(APP, appauthor=False)),
                   config_dir=Path(platformdirs.user_config_dir(APP, appauthor=False)))


def app_home(override: str | os.PathLike[str] | None = None) -> AppHome:
    """The app home: ``override``, else $PLANNER_APP_HOME, else platformdirs' folders."""
    root = home_folder(override)
    if root is not None:
        return AppHome(data_dir=root / "data", config_dir=root / "config")
    return per_user_home()
