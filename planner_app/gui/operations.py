"""The operation runner: every persistent change the app makes (a release, a review, a key, a
policy or approval setting) runs through here (Anki's ``CollectionOp``).

    session.op(parent, work, changes=OpChanges(ledger=True), failed="The release did not
               happen").success(on_done).failure(on_failed).run_in_background()

``work`` is the core call (on a worker with ``run_in_background``, on this thread with
``run``). When it returns, the runner hands the change set to the session, which forgets
what it made stale and emits it once; then ``success(result)`` runs. When it raises, nothing
is emitted (except what ``still_changed(exc)`` says a failure still changed: a release whose
charge stands) and ``failure(exc)`` runs, or, without one, a dialog with the error's first
line (titled ``failed``). So no dialog calls a core mutation itself nor asks the session to
refresh after one."""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, TypeVar, Union

from PySide6.QtWidgets import QMessageBox, QWidget

from ..core.planning.changes import OpChanges
from ..core.support.errors import PlannerError
from ..core.support.field_words import on_screen
from ..core.support.words import OPERATION_DEFECT, OPERATION_FAILED_TITLE
from .workers import Worker, WorkerSlot

T = TypeVar("T")

Progress = Callable[[float, str], None]
Cancel = Callable[[], bool]
Work = Callable[[Progress, Cancel], T]
Changes = Union[OpChanges, Callable[[T], OpChanges]]  # noqa: UP007 - a runtime alias on 3.10


def _no_progress(fraction: float, message: str) -> None:
    pass


def _never() -> bool:
    return False


def failure_text(exc: BaseException) -> str:
    """The one line a failed operation shows: a user's error's first line, or, for a
    defect, that it is one (never a traceback)."""
    if isinstance(exc, PlannerError):
        text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        return on_screen(text)
    return OPERATION_DEFECT.format(name=type(exc).__name__)


class OperationRunner:
    """Owned by the session: ``commit(changes)`` forgets what is stale and emits once."""

    def __init__(self, commit: Callable[[OpChanges], None]) -> None:
        self._commit = commit

    def op(self, parent: QWidget | None, work: Work[T], changes: Changes[T],
           failed: str = OPERATION_FAILED_TITLE) -> Operation[T]:
        return Operation(self, parent, work, changes, failed)

    def call(self, work: Callable[[], T], changes: Changes[T]) -> T:
        """Run ``work()`` here and emit its changes; an error is raised to the caller, with
        nothing emitted (for the session's own methods, whose callers catch it)."""
        result = work()
        self._commit(changes(result) if callable(changes) else changes)
        return result

    def commit(self, changes: OpChanges) -> None:
        self._commit(changes)


class Operation(Generic[T]):
    """One persistent change: its work, what it changes, and what follows."""

    def __init__(self, runner: OperationRunner, parent: QWidget | None, work: Work[T],
                 changes: Changes[T], failed: str) -> None:
        self._runner = runner
        self._parent = parent
        self._work = work
        self._changes = changes
        self._failed_title = failed
        self._success: Callable[[T], object] | None = None
        self._failure: Callable[[BaseException], object] | None = None
        self._progress: Progress | None = None
        self._still_changed: Callable[[BaseException], OpChanges] | None = None

    def success(self, fn: Callable[[T], object]) -> Operation[T]:
        self._success = fn
        return self

    def failure(self, fn: Callable[[BaseException], object]) -> Operation[T]:
        """Handle the error here (the default shows it in a dialog)."""
        self._failure = fn
        return self

    def progress(self, fn: Progress) -> Operation[T]:
        self._progress = fn
        return self

    def still_changed(self, fn: Callable[[BaseException], OpChanges]) -> Operation[T]:
        """What a failure still changed (a release whose charge stands); default nothing."""
        self._still_changed = fn
        return self

    def _done(self, result: T) -> None:
        changes = self._changes(result) if callable(self._changes) else self._changes
        self._runner.commit(changes)
        if self._success is not None:
            self._success(result)

    def _fail(self, exc: BaseException) -> None:
        if self._still_changed is not None:
            self._runner.commit(self._still_changed(exc))
        if self._failure is not None:
            self._failure(exc)
        else:
            QMessageBox.warning(self._parent, self._failed_title, failure_text(exc))

    def run(self) -> T | None:
        """Run on this thread (a quick change: a key, a review, a setting); the result, or
        None when it failed (already reported). A defect that is not a ``PlannerError`` is
        raised on, to the app's error dialog (errors.py), after nothing was emitted."""
        try:
            result = self._work(_no_progress, _never)
        except PlannerError as exc:
            self._fail(exc)
            return None
        except Exception as exc:
            if self._failure is None:
                raise
            self._fail(exc)
            return None
        self._done(result)
        return result

    def run_in_background(self, slot: WorkerSlot | None = None) -> Worker:
        """Run on a worker (a release); the follow-ups run on this thread."""
        worker = Worker(self._work)
        if self._progress is not None:
            worker.signals.progress.connect(self._progress)
        worker.signals.finished.connect(self._done)
        worker.signals.failed.connect(
            lambda exc: self._fail(exc if isinstance(exc, BaseException)
                                   else RuntimeError(str(exc))))
        return slot.start(worker) if slot is not None else worker.start()
