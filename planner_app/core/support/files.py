"""Writing files completely or not at all, and never over anything but a regular file.

Every writer goes through ``atomic_write_bytes``: it refuses a target that is a link, a
folder, a pipe or a device (as root, replacing ``/dev/null`` would break the system), and
with ``overwrite=False`` it never replaces an existing file, even one created a moment ago by
another process. ``check_output`` asks the same questions up front, so that a release can
refuse before its ledger is charged; ``OutputLock`` holds an output path for one release.
"""

from __future__ import annotations

import contextlib
import contextvars
import errno
import os
import shutil
import stat
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

from .errors import InputError

PARTIAL_SUFFIX = ".partial"
TEMP_EXTRA = 18  # mkstemp(prefix=".NAME.", suffix=".partial") adds 1 + 1 + 8 + 8 characters
NO_HARD_LINKS = {getattr(errno, name) for name in ("EPERM", "EOPNOTSUPP", "ENOTSUP", "EXDEV",
                                                   "EMLINK", "EACCES") if hasattr(errno, name)}


def _kind(mode: int) -> str:
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a pipe (FIFO)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def existing_kind(path: Path) -> str | None:
    """None when nothing is at ``path``; "file" for a regular file; else what it is. Links
    are not followed."""
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return None
    except OSError as exc:
        if exc.errno == errno.ENAMETOOLONG:
            raise InputError(path.name[:60] + "…", None, "the file name is too long for this "
                                                         "file system") from None
        raise InputError(path.name, None, f"cannot be examined ({exc.strerror})") from None
    return "file" if stat.S_ISREG(mode) else _kind(mode)


def refuse_unless_replaceable(path: Path, overwrite: bool) -> None:
    """Raise InputError unless writing ``path`` would create a file or (``overwrite``)
    replace a regular one."""
    kind = existing_kind(path)
    if kind is None:
        return
    if kind != "file":
        raise InputError(path.name, None, f"is {kind}, not a regular file; it is never "
                                          "replaced: choose another name")
    if not overwrite:
        raise InputError(path.name, None, f"already exists (use {_OVERWRITE.get()} to "
                                          "overwrite, or choose another name)")


# how the caller says "replace it": the command line's option, or the API's argument
_OVERWRITE: contextvars.ContextVar[str] = contextvars.ContextVar("overwrite", default="--force")


@contextlib.contextmanager
def overwrite_named(words: str) -> Iterator[None]:
    """Within it, "already exists" tells how to overwrite in ``words`` (the Python API:
    ``overwrite=True``) instead of the command line's --force."""
    token = _OVERWRITE.set(words)
    try:
        yield
    finally:
        _OVERWRITE.reset(token)


def name_max(folder: Path) -> int:
    try:
        return int(os.pathconf(folder, "PC_NAME_MAX"))
    except (AttributeError, ValueError, OSError):  # pragma: no cover - Windows
        return 255


def _same_or_inside(target: Path, kept: Path) -> bool:
    try:
        t, k = target.resolve(), kept.resolve()
    except (OSError, RuntimeError):
        return False
    if t == k or (k.is_dir() and k in t.parents):
        return True
    try:
        return t.exists() and k.exists() and os.path.samefile(t, k)
    except OSError:
        return False


def refuse_kept(target: Path, keep: Sequence[Path]) -> None:
    """Refuse an output that is one of ``keep`` or lies in one of them that is a folder: a
    command's own inputs, and the app home's folders (its budget ledger, audit log, keys and
    saved records). ``--force`` never reaches them."""
    for kept in keep:
        if _same_or_inside(target, Path(kept)):
            what = ("lies in the app's own folder (its budget ledger, audit log and keys)"
                    if Path(kept).is_dir() else "is one of this command's own inputs")
            raise InputError(target.name, None, f"{what}; it is never written over: choose "
                                                "another place")


def typed_name_problem(text: str) -> str | None:
    """What is wrong with an output file named as typed (a command-line argument), which
    Path() would hide: a name ending with a folder separator names a folder, not a file
    ("out/bundle.zip/" would otherwise be written as out/bundle.zip)."""
    separators = (os.sep, os.altsep or os.sep, "/")
    if text.endswith(separators) and text.strip("/" + os.sep):
        return (f"{text} ends with {text[-1]!r}, so it names a folder, not a file: drop the "
                f"{text[-1]!r}, or add the file's name after it")
    return None


def check_output(path: str | os.PathLike[str], overwrite: bool, size: int = 0,
                 keep: Sequence[Path] = ()) -> Path:
    """Everything about writing ``path`` that can be known without writing it: not one of
    ``keep`` (refuse_kept), the target (absent, or a regular file with ``overwrite``), its
    folder (exists, is a folder, is writable), the length of its name and of its temporary
    name, and ``size`` bytes of free space. Raises InputError naming the problem; returns the
    path."""
    problem = typed_name_problem(path) if isinstance(path, str) else None
    if problem:
        raise InputError(Path(path).name, None, problem)
    target = Path(path)
    if not target.name or target.name in (".", ".."):
        raise InputError(str(target), None, "is not a file name")
    refuse_kept(target, keep)
    folder = target.parent
    if not folder.exists():
        raise InputError(target.name, None, f"its folder {folder.name or str(folder)!r} does "
                                            "not exist")
    if not folder.is_dir():
        raise InputError(target.name, None, f"{folder.name!r} is not a folder")
    refuse_unless_replaceable(target, overwrite)
    limit = name_max(folder)
    if len(os.fsencode(target.name)) + TEMP_EXTRA > limit:
        raise InputError(target.name[:60] + "…", None,
                         f"the name is too long for this file system (at most "
                         f"{limit - TEMP_EXTRA} bytes here); choose a shorter one")
    # a real probe: the temporary name a write would use, created and removed at once
    try:
        fd, probe = tempfile.mkstemp(prefix=f".{target.name}.", suffix=PARTIAL_SUFFIX,
                                     dir=folder)
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        raise InputError(target.name, None, f"cannot be written in its folder "
                                            f"({exc.strerror})") from None
    if size:
        free = shutil.disk_usage(folder).free
        if free < size:
            raise InputError(target.name, None, f"needs about {size / 1e6:,.1f} MB but its "
                                                f"folder has {free / 1e6:,.1f} MB free")
    return target


def atomic_write_bytes(path: str | os.PathLike[str], data: bytes,
                       before_rename: Callable[[], None] | None = None, *,
                       overwrite: bool = True, private: bool = False) -> None:
    """Write to a temporary file beside ``path``, fsync, then rename: the target is either
    absent (or its old self) or complete, never partial. Never replaces anything but a
    regular file; with ``overwrite=False`` never replaces anything at all. ``private``
    keeps mkstemp's owner-only mode."""
    target = Path(path)
    refuse_unless_replaceable(target, overwrite)
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=PARTIAL_SUFFIX,
                                   dir=target.parent)
    except OSError as exc:
        raise InputError(target.name, None, f"cannot be written ({exc.strerror}); nothing "
                                            "was written") from None
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        if not private:
            umask = os.umask(0)
            os.umask(umask)
            os.chmod(tmp, 0o666 & ~umask)  # like any new file, not mkstemp's private 0600
        if before_rename is not None:
            before_rename()
        _place(tmp, target, overwrite)
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


def _place(tmp: str, target: Path, overwrite: bool) -> None:
    """Move the finished temporary file to ``target``. Without ``overwrite`` a hard link
    makes the step fail if anything appeared there meanwhile (no check-then-replace race)."""
    if overwrite:
        refuse_unless_replaceable(target, True)  # again: it may have changed while writing
        os.replace(tmp, target)
        return
    try:
        os.link(tmp, target)
    except FileExistsError:
        raise InputError(target.name, None, "already exists (another program wrote it "
                                            "meanwhile); nothing was replaced") from None
    except OSError as exc:
        if exc.errno not in NO_HARD_LINKS:
            raise
        refuse_unless_replaceable(target, False)  # no hard links here (FAT, some shares)
        os.replace(tmp, target)
        return
    os.unlink(tmp)


def atomic_write_text(path: str | os.PathLike[str], text: str, *,
                      overwrite: bool = True) -> None:
    atomic_write_bytes(path, text.encode("utf-8"), overwrite=overwrite)


class OutputLock:
    """Holds an output path for one writer: an advisory lock on ``.NAME.lock`` beside it.

    A second release to the same path is refused at once (before its charge), instead of
    being charged and then silently replacing the first bundle."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.lock_path = path.parent / f".{path.name}.lock"
        self.fd: int | None = None

    def acquire(self) -> OutputLock:
        for _ in range(5):
            try:
                fd = os.open(self.lock_path, os.O_RDWR | os.O_CREAT, 0o600)
            except OSError as exc:
                raise InputError(self.path.name, None, f"cannot be written in its folder "
                                                       f"({exc.strerror})") from None
            if not _try_lock(fd):
                os.close(fd)
                raise InputError(self.path.name, None, "another release is writing this "
                                                       "bundle right now; nothing was charged")
            if _same_file(fd, self.lock_path):
                self.fd = fd
                _mark(fd)
                remove_stale_locks(self.path.parent, keep=self.lock_path)
                return self
            os.close(fd)  # the holder removed it as we locked it: take the new one
        raise InputError(self.path.name, None, "another release is writing this bundle right "
                                               "now; nothing was charged")

    def release(self) -> None:
        if self.fd is None:
            return
        try:
            os.unlink(self.lock_path)  # while still held: a waiter then finds the bundle
        except OSError:
            pass
        os.close(self.fd)  # closing drops the lock
        self.fd = None

    def __enter__(self) -> OutputLock:
        return self.acquire()

    def __exit__(self, *exc: object) -> None:
        self.release()


LOCK_MARK = b"planner-app output lock\n"  # what a lock file holds: only such files are swept


def _mark(fd: int) -> None:
    try:
        if os.pread(fd, len(LOCK_MARK) + 1, 0) != LOCK_MARK:
            os.ftruncate(fd, 0)
            os.pwrite(fd, LOCK_MARK, 0)
    except (OSError, AttributeError):  # pragma: no cover - no pread on Windows
        pass


def remove_stale_locks(folder: Path, keep: Path | None = None) -> list[Path]:
    """Remove the output locks in ``folder`` that no process holds: a release killed with
    SIGKILL (or a power cut) leaves its ``.NAME.lock`` behind, but its lock (flock) died with
    it. Only files that hold LOCK_MARK are touched; a held one is left alone. Returns what
    was removed."""
    removed: list[Path] = []
    if sys.platform == "win32":  # pragma: no cover - Windows cannot unlink an open file
        return removed
    try:
        names = [n for n in os.listdir(folder) if n.startswith(".") and n.endswith(".lock")]
    except OSError:
        return removed
    for name in names:
        path = folder / name
        if keep is not None and path == keep:
            continue
        try:
            fd = os.open(path, os.O_RDWR | getattr(os, "O_NOFOLLOW", 0))
        except OSError:
            continue
        try:
            if os.pread(fd, len(LOCK_MARK) + 1, 0) == LOCK_MARK and _try_lock(fd) \
                    and _same_file(fd, path):
                os.unlink(path)  # while holding it: a process that opened it meanwhile
                removed.append(path)  # finds it gone when it checks (_same_file) and retries
        except OSError:
            pass
        finally:
            os.close(fd)
    return removed


def _same_file(fd: int, path: Path) -> bool:
    try:
        here, there = os.fstat(fd), os.stat(path)
    except OSError:
        return False
    return (here.st_dev, here.st_ino) == (there.st_dev, there.st_ino)


def _try_lock(fd: int) -> bool:
    if sys.platform == "win32":  # pragma: no cover - Windows
        import msvcrt

        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
            return True
        except OSError:
            return False
    import fcntl

    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return True
    except OSError:
        return False


# ----------------------------------------------------------------------------- checks


MIN_FREE_BYTES = 1024 * 1024  # a bundle, report or plan needs at least this much room


def _error(name: str, problem: str) -> InputError:
    return InputError(name, None, problem)


# a zip file's first bytes (a local file header; an empty zip's end record): a release bundle
# given where a text file (a plan, a policy) is expected
ZIP_SIGNATURES = (b"PK\x03\x04", b"PK\x05\x06")


def text_of(raw: bytes, source: str, what: str) -> str:
    """A text file's bytes as text (UTF-8, a leading BOM dropped); InputError naming the file
    when they are a zip file (a bundle given in place of ``what``) or not UTF-8."""
    if raw.startswith(ZIP_SIGNATURES):
        raise _error(source, f"is a zip file (a release bundle?), not a {what} (a {what} "
                             "is JSON text)")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(source, f"byte {exc.start}", f"is not UTF-8 text, so not a "
                                                      f"{what}") from None


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
                      need_bytes: int = MIN_FREE_BYTES, keep: Sequence[Path] = ()) -> Path:
    """``check_output`` with a floor of free space: what the command line checks before
    writing a report, a plan or a bundle (publish estimates the bundle's size itself)."""
    return check_output(path, overwrite, size=need_bytes, keep=keep)
