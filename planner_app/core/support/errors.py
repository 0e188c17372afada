"""Exceptions the core raises; each carries a one-line message fit for a user."""

from __future__ import annotations


class PlannerError(Exception):
    """Base class: the message is one line a user can act on."""


class InputError(PlannerError):
    """Bad input (plan, table, bundle, argument): the CLI exits 2 and names the problem.

    ``source`` names the file (or "argument"), ``where`` the line/column/field, and
    ``problem`` what is wrong. Messages never contain values read from a private table.
    """

    def __init__(self, source: str, where: str | None, problem: str,
                 hint: str | None = None) -> None:
        self.source = source
        self.where = where
        self.problem = problem
        # advice the app adds below the message where it helps (a file in no table format:
        # which formats are read); None where the message already says what is wrong
        self.hint = hint
        parts = [p for p in (source, where) if p]
        super().__init__(": ".join(parts + [problem]))


class Cancelled(PlannerError):
    """A long task was cancelled through its cancel callback."""

    def __init__(self, what: str = "task") -> None:
        super().__init__(f"{what} cancelled")


def with_hint(exc: BaseException) -> str:
    """An error's message for a dialog: the message, and its hint (InputError.hint) below it
    when it has one."""
    hint = getattr(exc, "hint", None)
    return f"{exc}\n\n{hint}" if hint else str(exc)


# what a shared library's loader or the C library says when the process has no address space
# left (an ImportError or OSError, not a MemoryError: "failed to map segment from shared object"
# under `ulimit -v`)
_NO_MEMORY_WORDS = ("failed to map segment", "cannot allocate memory", "out of memory",
                    "std::bad_alloc")


def out_of_memory(exc: BaseException | None) -> bool:
    """Whether ``exc`` is the machine (or the process's limit) running out of memory: a
    MemoryError, or an ImportError / OSError raised by one or saying so (a lazy import of
    duckdb, numpy or matplotlib fails that way under a memory limit)."""
    seen = 0
    while exc is not None and seen < 8:
        if isinstance(exc, MemoryError):
            return True
        if isinstance(exc, (ImportError, OSError)) and any(
                w in str(exc).lower() for w in _NO_MEMORY_WORDS):
            return True
        exc = exc.__cause__ or exc.__context__
        seen += 1
    return False


NO_MEMORY = "the machine ran out of memory"
