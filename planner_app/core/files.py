"""Writing files completely or not at all."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Callable, Optional


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
