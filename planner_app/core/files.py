"""Writing files completely or not at all."""

from __future__ import annotations

import errno
import os
import shutil
import stat
import tempfile
from pathlib import Path
from typing import Callable, Optional

from .errors import InputError


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes,
                       before_rename: Optional[Callable[[], None]] = None) -> None:
    """Write to a temporary file beside ``path``, fsync, then rename: the target is either
    absent (or its old self) or complete, never partial."""
    target = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".partial", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # like any new file, not mkstemp's private 0600
        if before_rename is not None:
            before_rename()
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    try:
        dir_fd = os.open(target.parent, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)
    except OSError:  # pragma: no cover - some filesystems cannot fsync a folder
        pass


def atomic_write_text(path: str | os.PathLike[str], text: str) -> None:
    atomic_write_bytes(path, text.encode("utf-8"))


# ----------------------------------------------------------------------------- checks


MIN_FREE_BYTES = 1024 * 1024  # a bundle, report or plan needs at least this much room
_TEMP_SUFFIX_CHARS = len(".") + 8 + len(".partial") + 1  # what mkstemp adds in atomic_write


def _error(name: str, problem: str) -> InputError:
    return InputError(name, None, problem)


def input_file_size(path: str | os.PathLike[str], what: str = "file") -> int:
    """The size of a file that is about to be read; InputError when it is missing, a folder, or
    not a regular file (a FIFO, socket or device would block the reader or never end)."""
    p = Path(path)
    try:
        st = os.stat(p)
    except FileNotFoundError:
        raise _error(p.name, "no such file") from None
    except OSError as exc:
        raise _error(p.name, f"cannot be read ({exc.strerror})") from None
    if stat.S_ISDIR(st.st_mode):
        raise _error(p.name, f"is a folder, not a {what}")
    if not stat.S_ISREG(st.st_mode):
        raise _error(p.name, f"is not a regular file (a pipe or device?), so not a {what}")
    return st.st_size


def check_output_path(path: str | os.PathLike[str], overwrite: bool = False,
                      need_bytes: int = MIN_FREE_BYTES) -> Path:
    """Refuse, before anything is charged or computed, an output path that cannot be written:
    a folder, a pipe, device or symlink, an existing file (unless ``overwrite``), a missing or
    read-only folder, a name too long for the file system (with atomic_write's temporary name),
    or a disk with less than ``need_bytes`` free. Returns the path. Creates nothing that stays.
    """
    target = Path(path)
    name = target.name or str(target)
    if not target.name:
        raise _error(name, "is a folder, not a file name")
    try:
        st: os.stat_result | None = os.lstat(target)
    except FileNotFoundError:
        st = None
    except OSError as exc:
        if exc.errno == errno.ENAMETOOLONG:
            raise _error(name[:60] + "…", "the file name is too long for this file system") \
                from None
        raise _error(name, f"cannot be written ({exc.strerror})") from None
    if st is not None:
        if stat.S_ISDIR(st.st_mode):
            raise _error(name, "is a folder; choose a file name")
        if not stat.S_ISREG(st.st_mode):
            raise _error(name, "exists and is not a regular file (a link, pipe or device); "
                               "refusing to replace it")
        if not overwrite:
            raise _error(name, "already exists; choose another name")
    parent = target.parent
    if not parent.is_dir():
        raise _error(name, "its folder does not exist")
    try:
        limit = os.pathconf(parent, "PC_NAME_MAX")
    except (OSError, ValueError, AttributeError):  # pragma: no cover - Windows
        limit = 255
    if len(os.fsencode(target.name)) + _TEMP_SUFFIX_CHARS > limit:
        raise _error(name[:60] + ("…" if len(name) > 60 else ""),
                     f"the file name is too long for this file system (at most "
                     f"{limit - _TEMP_SUFFIX_CHARS} bytes here)")
    try:  # the temporary file atomic_write_bytes would make: can the folder take it?
        fd, probe = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".partial", dir=parent)
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        raise _error(name, f"cannot be written in its folder ({exc.strerror})") from None
    try:
        free = shutil.disk_usage(parent).free
    except OSError:  # pragma: no cover - the probe above succeeded
        free = need_bytes
    if free < need_bytes:
        raise _error(name, f"the disk has {free:,} bytes free; writing it needs about "
                           f"{need_bytes:,}")
    return target
