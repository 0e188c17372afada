"""The app home is the owner's alone: its folders 0700, its files 0600 (POSIX).

The budget ledger (every release's parameters and the data file's plain SHA-256, which the
bundle's keyed commitment exists to hide), the audit log, the keys, the commitment keys, the
saved noised records, the settings and the app's logs. Each is created with its private mode,
whatever the umask, and ``tighten_tree`` closes a home made by an older version (or copied in
with looser modes) when the home is opened (``AppHome.ensure``).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

PRIVATE_DIR = 0o700
PRIVATE_FILE = 0o600
POSIX = os.name == "posix"


def tighten(path: Path) -> None:
    """Take away group's and others' access to ``path`` (a folder or a regular file of this
    user); a link, a missing file or one that cannot be changed is left alone."""
    if not POSIX:
        return
    try:
        st = os.lstat(path)
        if st.st_uid != os.getuid() or not st.st_mode & 0o077:
            return
        if stat.S_ISDIR(st.st_mode):
            os.chmod(path, PRIVATE_DIR)
        elif stat.S_ISREG(st.st_mode):
            os.chmod(path, stat.S_IMODE(st.st_mode) & 0o700)
    except OSError:
        pass  # what uses the file reports what is wrong with it


def private_folder(path: Path) -> Path:
    """Create ``path`` (and its missing parents) owner-only, and tighten it if it exists."""
    path.mkdir(mode=PRIVATE_DIR, parents=True, exist_ok=True)
    tighten(path)
    return path


def tighten_tree(root: Path) -> None:
    """Tighten ``root`` and everything under it (links are not followed)."""
    if not POSIX:
        return
    tighten(root)
    for folder, dirs, files in os.walk(root):
        for name in dirs + files:
            tighten(Path(folder) / name)


def create_private_file(path: Path) -> None:
    """Create ``path`` empty and owner-only if it does not exist (before SQLite opens it, so
    that the database and the journals it copies the mode to are never readable by others)."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE_FILE)
    except FileExistsError:
        return
    os.close(fd)
