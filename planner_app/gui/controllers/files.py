"""Opening and saving: tables (in a worker, with progress and Cancel), plans, the demo, and
keeping the plan and its table together. A controller the main window composes
(``window.files``): it gets the session, the window's one worker slot and a small host
(host.py) for its dialogs and status lines, never the window itself."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, cast

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QInputDialog, QMessageBox, QWidget

from ...core.planfile import load_plan, plan_from_dict, plan_to_dict, save_plan
from ...core.support.errors import InputError, PlannerError, with_hint
from ...core.support.field_words import on_screen
from ...core.support.resources import demo_plan_path, demo_table_path
from ...core.support.words import plan_open_advice
from ..data_model import Answered
from ..file_dialogs import ask_open_file, ask_save_file
from ..session import Session
from ..table_link import (
    ATTACH,
    NEW,
    ask_new_or_attach,
    plans_table,
    problems_text,
    table_path_text,
)
from ..workers import Worker, WorkerSlot
from .host import WindowHost

if TYPE_CHECKING:
    from ...core.data.tables import Cancel, ColumnInfo, Progress, Table

TABLE_FILTER = "Tables (*.csv *.tsv *.txt *.xlsx *.parquet);;All files (*)"
PLAN_FILTER = "Plans (*.json);;All files (*)"
TABLE_SUFFIXES = {".csv", ".tsv", ".txt", ".tab", ".xlsx", ".xlsm", ".parquet", ".pq"}


def load_table(path: Path, progress: Progress = None, cancel: Cancel = None) -> Table:
    """The core's load_table, imported when a table is first opened (in the worker): the
    window shows without pandas."""
    from ...core.data.tables import load_table as load

    return load(path, progress=progress, cancel=cancel)


def open_table(path: Path, progress: Progress = None, cancel: Cancel = None) -> Table:
    """The core's open_table, imported when a table is first opened (in the worker)."""
    from ...core.data.tables import open_table as open_in_place

    return open_in_place(path, progress=progress, cancel=cancel)


def describe_columns(table: Table, progress: Progress = None,
                     cancel: Cancel = None) -> list[ColumnInfo]:
    from ...core.data.tables import describe_columns as describe

    return describe(table, progress=progress, cancel=cancel)


class FileController(QObject):
    """Opens tables, plans and the demo, saves plans, and asks before unsaved changes go."""

    remembered = Signal()  # a file went to the top of File → Recent
    bundleChosen = Signal(object)  # a .zip was opened: the Path, for the bundle viewer

    def __init__(self, host: WindowHost, session: Session, workers: WorkerSlot) -> None:
        super().__init__(host.dialog_parent())
        self.host = host
        self.session = session
        self.workers = workers  # the window's one slot: a new load cancels the one before
        self._fit_wanted = False  # the plan's fit is shown when a large table's answer comes

    @property
    def _parent(self) -> QWidget:
        """What this controller's dialogs and message boxes belong to (the window)."""
        return self.host.dialog_parent()

    def confirm_discard(self) -> bool:
        """Ask before losing unsaved changes; True when it is fine to go on."""
        if not self.session.dirty:
            return True
        answer = QMessageBox.question(
            self._parent, "Unsaved changes",
            "The plan has changes that are not saved. Save them?",
            QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Discard
            | QMessageBox.StandardButton.Cancel, QMessageBox.StandardButton.Save)
        if answer == QMessageBox.StandardButton.Save:
            return self.save_plan()
        return answer == QMessageBox.StandardButton.Discard

    def remember(self, path: Path) -> None:
        """Put a file at the top of File → Recent (the menus refresh on ``remembered``)."""
        self.session.remember_file(path)
        self.remembered.emit()

    def open_path(self, path: Path) -> None:
        suffix = path.suffix.lower()
        if suffix in TABLE_SUFFIXES:
            self.load_table(path)
        elif suffix == ".zip":
            self.bundleChosen.emit(path)
        else:
            self.open_plan(path)

    def open_table_dialog(self) -> None:
        path = ask_open_file(self._parent, "Open a table", TABLE_FILTER)
        if path is not None:
            self.load_table(path)

    def open_plan_dialog(self) -> None:
        if not self.confirm_discard():
            return
        path = ask_open_file(self._parent, "Open a plan", PLAN_FILTER)
        if path is not None:
            self.open_plan(path, confirmed=True)

    def load_table(self, path: Path, then: Callable[[], object] | None = None,
                   synchronous: bool = False, ask: bool = True, starter: bool = True) -> None:
        """Load a table; with a plan open (and ``ask``), first ask: new plan or attach. With
        no plan open a starter plan is made, unless ``starter`` is False (a plan follows)."""
        def work(progress: Progress, cancel: Cancel) -> tuple[Table, list[ColumnInfo]]:
            # opened in place: only the header is read here; the engine then counts the
            # rows and describes the columns in one pass (progress, and Cancel interrupts it)
            table = open_table(path, progress=progress, cancel=cancel)
            return table, describe_columns(table, progress=progress, cancel=cancel)

        worker: Worker | None = None

        def done(result: object) -> None:
            if worker is not None and worker is not self.workers.current:
                return  # a load the person replaced by another: never applied
            if worker is not None and worker.is_cancelled():  # done before it saw the cancel
                self._busy(False)
                self.host.show_status("Loading cancelled", 5000)
                return
            table, columns = cast("tuple[Table, list[ColumnInfo]]", result)  # work's answer
            self._busy(False)
            plan = self.session.plan
            choice = None
            if ask and plan is not None and Path(plan.dataset.path or "").name != path.name:
                choice = self.ask_new_or_attach(path.name)
                if choice is None or choice == NEW and not self.confirm_discard():
                    self.host.show_status(f"{path.name} was not opened", 8000)
                    return
            self.session.set_table(table, path, columns)
            if self.session.plan is None and starter or choice == NEW:
                self.session.new_plan(path.stem)
            elif choice == ATTACH:
                self.attach_plan_to_table(path)
            # who one person is, first
            self.host.show_planner(data_tab=self.session.people_question() is not None)
            self.host.show_status(f"Loaded {table.n_rows:,} rows from {path.name}", 8000)
            self.remember(path)
            if then is not None:
                then()

        if synchronous:
            done(work(lambda *_: None, lambda: False))
            return
        worker = Worker(work)
        worker.signals.progress.connect(self._progress)
        worker.signals.finished.connect(done)
        this = worker
        worker.signals.failed.connect(
            lambda exc: self._load_failed(exc) if this is self.workers.current else None)
        self._busy(True, f"Loading {path.name}…")
        self.workers.start(worker)

    def _load_failed(self, exc: object) -> None:
        self._busy(False)
        from ...core.support.errors import Cancelled

        if isinstance(exc, Cancelled):
            self.host.show_status("Loading cancelled", 5000)
            return
        if isinstance(exc, PlannerError):  # the core's message, with its hint where it helps
            self.host.error("Cannot open the table", with_hint(exc))
        else:
            self.host.error("Cannot open the table",
                            f"Something went wrong ({type(exc).__name__}).")

    def _busy(self, on: bool, message: str = "") -> None:
        self.host.show_busy(on, message)

    def _progress(self, fraction: float, message: str) -> None:
        self.host.show_progress(fraction, message)

    def cancel(self) -> None:
        """Stop the running load (the status bar's Cancel; the window closing)."""
        if self.workers.current is not None:
            self.workers.current.cancel()

    def open_plan(self, path: Path, confirmed: bool = False, own_table: bool = True) -> bool:
        """Open a plan file; with ``own_table`` also its table (else the table open stays)."""
        if not confirmed and not self.confirm_discard():
            return False
        try:
            plan = load_plan(path, draft=True)  # may ask for its rows per person
        except InputError as exc:
            self.host.error("This plan cannot be opened",
                            f"{exc}\n\n{plan_open_advice(exc.where is not None)}")
            return False
        self.session.load_plan(plan, path)
        self.host.show_planner()
        self.remember(path)
        if own_table:
            self._find_plans_table(path)
        else:
            self.show_fit_problems()
        return True

    # -- the table and the plan belong together (see table_link.py) ---------------------------

    def ask_new_or_attach(self, table_name: str) -> str | None:
        assert self.session.plan is not None
        return ask_new_or_attach(self._parent, table_name, self.session.plan)

    def attach_plan_to_table(self, path: Path) -> None:
        """Point the open plan at this table (an undoable edit), then show what does not fit."""
        plan = self.session.plan
        if plan is None:
            return
        text = table_path_text(path, self.session.path)
        if plan.dataset.path != text:
            self.session.attach_table(text, path.name)
        self.show_fit_problems()

    def show_fit_problems(self) -> bool:
        """Name every way the plan does not fit the loaded table; True when it fits (or while
        a large table is checked on a worker: the dialog then comes when the answer does)."""
        problems = self.session.ask_fit_problems()
        if problems is None:
            self._fit_wanted = True  # shown by fit_answered
            return True
        self._fit_wanted = False
        if problems and self.session.table is not None:
            self.host.error("The plan does not fit the table",
                       problems_text(self.session.table.name, problems))
        return not problems

    def fit_answered(self, answer: Answered) -> None:
        """A large table's fit arrived from its worker: say what does not fit, if asked."""
        if answer is Answered.FIT and self._fit_wanted:
            self.show_fit_problems()

    def _find_plans_table(self, plan_path: Path) -> None:
        """Open a saved plan's own table, or say it is missing and offer to locate it."""
        plan = self.session.plan
        assert plan is not None
        wanted = plans_table(plan, plan_path)
        table = self.session.table
        if wanted is None or table is not None and table.name == wanted.name:
            self.show_fit_problems()
            return
        if wanted.is_file():
            self.load_table(wanted, then=self.show_fit_problems, ask=False)
            return
        now = (f"\n\nUntil then the plan is checked against {table.name}, which is open."
               if table is not None else "")
        answer = QMessageBox.question(
            self._parent, "The plan's table was not found",
            f"The plan's table {wanted.name} was not found in {wanted.parent}. Locate it?{now}",
            QMessageBox.StandardButton.Open | QMessageBox.StandardButton.Ignore,
            QMessageBox.StandardButton.Open)
        if answer == QMessageBox.StandardButton.Open:
            chosen = ask_open_file(self._parent, f"Locate {wanted.name}", TABLE_FILTER,
                                   folder=plan_path.parent)
            if chosen is not None:
                name = str(chosen)
                self.load_table(Path(name), ask=False,
                                then=lambda: self.attach_plan_to_table(Path(name)))
                return
        if table is not None:
            self.show_fit_problems()

    def open_demo(self, synchronous: bool = False) -> None:
        if not self.confirm_discard():
            return
        # no starter plan for the table: the demo's own plan follows (a starter "survey",
        # unsaved, was made and then replaced without a word)
        self.load_table(demo_table_path(), ask=False, starter=False, synchronous=synchronous,
                        then=lambda: self.open_plan(demo_plan_path(), confirmed=True))

    def open_start_files(self, plan: Path | None, table: Path | None,
                         synchronous: bool = False) -> None:
        """``planner-app gui PLAN.json --data TABLE``: that plan on that table (without
        --data, the plan's own table, as File → Open plan does; without a plan, the table
        with a starter plan)."""
        if table is None:
            if plan is not None:
                self.open_plan(plan, confirmed=True)
            return
        then = None if plan is None else (
            lambda: self.open_plan(plan, confirmed=True, own_table=False))
        self.load_table(table, ask=False, starter=plan is None, synchronous=synchronous,
                        then=then)

    def save_plan(self) -> bool:
        if self.session.path is None:
            return self.save_plan_as()
        return self._write_plan(self.session.path)

    def save_plan_as(self) -> bool:
        plan = self.session.plan
        if plan is None:
            return False
        suggested = f"{plan.dataset.name}-plan.json"
        path = ask_save_file(self._parent, "Save the plan", suggested, PLAN_FILTER)
        if path is None:
            return False
        if path.suffix.lower() != ".json":
            path = path.with_suffix(".json")
        return self._write_plan(path)

    def _write_plan(self, path: Path) -> bool:
        plan = self.session.plan
        assert plan is not None
        try:
            # the saved file must be valid (as the app reads it: rows per person may wait)
            plan_from_dict(plan_to_dict(plan), path.name, draft=True)
            save_plan(plan, path)
        except InputError as exc:
            self.host.error("The plan is not complete",
                       f"{on_screen(str(exc))}\n\nThe plan was not saved.")
            return False
        except OSError as exc:
            self.host.error("Cannot save the plan", f"{path}: {exc.strerror}")
            return False
        self.session.mark_saved(path)
        self.remember(path)
        self.host.show_status(f"Saved {path.name}", 5000)
        return True

    def new_plan(self) -> None:
        if not self.confirm_discard():
            return
        default = self.session.table_path.stem if self.session.table_path else "my-dataset"
        name, ok = QInputDialog.getText(self._parent, "New plan", "Name of the dataset (the budget "
                                        "ledger keeps its budget under this name):",
                                        text=default)
        if ok and name.strip():
            self.session.new_plan(name.strip())
            self.host.show_planner()
