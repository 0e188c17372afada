"""The dialogs the main window opens: review, release, bundle, keys, policy, statistic form,
help. A controller the window composes (``window.launchers``): it gets the session, the file
controller (a review saves the plan first) and a small host (host.py) to parent its dialogs."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog, QMessageBox, QTextBrowser, QVBoxLayout, QWidget

from ... import __version__
from ...core.planfile import load_plan
from ...core.records.headroom import headroom
from ...core.records.released import again_question
from ...core.support.errors import InputError
from ...core.support.resources import resource_path
from ..file_dialogs import ask_open_file
from ..session import Session
from ..widgets.screen_fit import fit_to_screen
from .files import FileController
from .host import WindowHost

if TYPE_CHECKING:
    from ...core.model import Query
    from ..dialogs.keys_dialog import KeysDialog
    from ..dialogs.relations_dialog import RelationsDialog
    from ..dialogs.release_wizard import ReleaseWizard
    from ..dialogs.review_bundle import BundleDialog, ReviewDialog
    from ..dialogs.timeline_dialog import TimelineDialog

REVIEW_FILTER = "Plans and bundles (*.json *.zip);;All files (*)"


class Launchers:
    """Opens the window's dialogs on the session; the dialogs do the work."""

    def __init__(self, host: WindowHost, session: Session, files: FileController) -> None:
        self.host = host
        self.session = session
        self.files = files
        self.bundle_dialog: BundleDialog | None = None  # the last bundle viewer opened
        self.keys_dialog: KeysDialog | None = None
        self.timeline_dialog: TimelineDialog | None = None  # cal26
        self.relations_dialog: RelationsDialog | None = None

    @property
    def _parent(self) -> QWidget:
        """What this controller's dialogs and message boxes belong to (the window)."""
        return self.host.dialog_parent()

    def open_review_dialog(self) -> None:
        path = ask_open_file(self._parent, "Open a plan or bundle", REVIEW_FILTER)
        if path is not None:
            if path.suffix.lower() == ".json":
                self.review_plan_file(path)
            else:
                self.files.open_path(path)

    def review_plan_file(self, path: Path) -> ReviewDialog | None:
        """The officer's read-only review of a plan file; no data needed."""
        from ..dialogs.review_bundle import ReviewDialog

        try:
            plan = load_plan(path)
            dialog = ReviewDialog(plan, path, self.session.home, self._parent,
                                  confidence=self.session.confidence, session=self.session)
        except InputError as exc:
            self.host.error("This plan cannot be opened", str(exc))
            return None
        # a decision on the open plan's own file comes back into the app at once, whichever
        # menu opened the review: the session's runner records it (Session.reviewed)
        dialog.show()
        return dialog

    def review_current(self) -> None:
        if self.session.plan is None:
            return
        if self.session.dirty or self.session.path is None:
            QMessageBox.information(self._parent, "Save the plan first", "A review is bound to "
                                    "the saved plan file: save it, then review it.")
            if not self.files.save_plan():
                return
        path = self.session.path
        assert path is not None
        self.review_plan_file(path)

    def open_keys_dialog(self) -> KeysDialog:
        """File → Keys…: your keys and the public keys you trust."""
        from ..dialogs.keys_dialog import KeysDialog

        self.session.refresh_trusted()
        dialog = KeysDialog(self.session, self._parent)
        self.keys_dialog = dialog
        dialog.show()
        return dialog

    def edit_relations(self) -> RelationsDialog | None:
        """Edit → Relations between statistics…: which statistics add up, and the headline
        values (gui27)."""
        from ..dialogs.relations_dialog import RelationsDialog

        if self.session.plan is None:
            return None
        dialog = RelationsDialog(self.session, self._parent)
        self.relations_dialog = dialog
        dialog.show()
        return dialog

    def show_policy(self) -> None:
        """The organisation's policy in force (read-only): what it asks, who signed it."""
        from ...core.records.policy import Policy

        self.session.refresh_policy()  # verified again now
        policy = self.session.policy
        if policy is None:
            QMessageBox.information(self._parent, "Organisation's policy", "No policy is "
                                    "installed in this app home. A privacy officer's signed "
                                    "policy is installed with: planner-app policy install "
                                    "POLICY.json --trust OFFICER.pub")
        elif isinstance(policy, Policy):
            QMessageBox.information(self._parent, "Organisation's policy", "\n".join(
                [policy.lines()[0] + ".", "", *policy.lines()[1:], "",
                 "Check, release and this app enforce it; it can only be replaced by a "
                 "policy signed by the same officer's key, with a greater version."]))
        else:
            QMessageBox.warning(self._parent, "Organisation's policy cannot be trusted",
                                f"{policy}\n\nNothing can be released until you install the "
                                "privacy officer's signed policy file again.")

    def show_timeline(self) -> TimelineDialog:
        """Release → Spending over time…: past and planned spending against each cap."""
        from ..dialogs.timeline_dialog import TimelineDialog

        dialog = TimelineDialog(self.session, self._parent)
        self.timeline_dialog = dialog
        dialog.show()
        return dialog

    def release(self) -> ReleaseWizard | None:
        from ..dialogs.release_wizard import ReleaseWizard

        if self.session.plan is None:
            return None
        self.session.refresh_trusted()  # the approval rule's keys, as they are now
        self.session.refresh_lifetime()  # a release from the command line counts too
        earlier = self.session.earlier_releases()
        blocked = self.session.again_blocked() if earlier else None
        if blocked is not None:  # the cap cannot cover it: say so, rather than ask (core rule)
            QMessageBox.warning(self._parent, "This plan cannot be released again",
                                "\n\n".join(filter(None, [blocked.message, blocked.action])))
            return None
        state = self.session.lifetime()
        if earlier and state is not None:  # the same plan again: ask (core rule and words:
            # records/released.py), with what it adds to the dataset's composed total, composed
            # as the charge composes it (headroom, as the wizard's last page)
            plan = self.session.plan
            measurements = [m for q in plan.queries for m in self.session.measurements(q)]
            room = headroom(state, measurements, self.session.total())
            answer = QMessageBox.question(
                self._parent, "Release this plan again?",
                f"{again_question(earlier, room)}\n\nRelease again?",
                QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
                QMessageBox.StandardButton.No)
            if answer != QMessageBox.StandardButton.Yes:
                return None
        wizard = ReleaseWizard(self.session, self._parent)
        # window-modal: the plan cannot change between what the owner confirms and what is
        # released (the wizard reads the session's plan again when it releases)
        wizard.setWindowModality(Qt.WindowModality.WindowModal)
        wizard.show()
        return wizard

    def review_bundle(self, path: Path) -> BundleDialog:
        """The bundle viewer, at once in its "Verifying…" state; the worker fills it in."""
        from ..dialogs.review_bundle import BundleDialog

        dialog = BundleDialog(path, self._parent, session=self.session)
        dialog.unusable.connect(self.host.error)
        self.bundle_dialog = dialog
        dialog.show()
        dialog.verify()
        return dialog

    # -- statistics -------------------------------------------------------------------------

    def _run_query_dialog(self, query: Query | None = None) -> None:
        from ..dialogs.query_dialog import QueryDialog

        dialog = QueryDialog(self.session, query, self._parent)
        if dialog.exec() == QDialog.DialogCode.Accepted and dialog.result_plan is not None:
            new = dialog.result_plan.query(dialog.result_id or "")
            if query is None:
                self.session.add_query(new)
            else:
                self.session.replace_query(new, query.id)
            self._remember_found(dialog.finder.bundles)

    def _remember_found(self, bundles: list[tuple[Path, str]]) -> None:
        """The discovery bundles the form found lists or bounds in, kept for the release of
        the plan (gui25), those the plan still names (the core's reasons)."""
        from ...core.release.discovery import named_discoveries

        plan = self.session.plan
        named = {release for *_, release, _m, _s in named_discoveries(plan)} if plan else set()
        for path, release in bundles:
            if release in named:
                self.session.add_discovery(path)

    def add_statistic(self) -> None:
        if self.session.plan is None:
            return
        if self.session.unit_unanswered() is not None:  # statistics wait for its answer
            self.host.show_unit_question()
            return
        self._run_query_dialog(None)

    def edit_statistic(self, query_id: str) -> None:
        if self.session.plan is not None and query_id:
            self._run_query_dialog(self.session.plan.query(query_id))

    def duplicate_statistic(self, query_id: str) -> None:
        if self.session.plan is not None and query_id:
            self.session.duplicate_query(query_id)

    def remove_statistic(self, query_id: str) -> None:
        if self.session.plan is not None and query_id:
            self.session.remove_query(query_id)

    # -- help -------------------------------------------------------------------------------

    def show_guide(self) -> None:
        dialog = QDialog(self._parent)
        dialog.setWindowTitle("planner_app user guide")
        fit_to_screen(dialog, 760, 640)
        layout = QVBoxLayout(dialog)
        browser = QTextBrowser()
        browser.setMarkdown(resource_path("user-guide.md").read_text(encoding="utf-8"))
        layout.addWidget(browser)
        dialog.exec()

    def show_about(self) -> None:
        QMessageBox.about(self._parent, "About planner_app",
                          f"<b>planner_app {__version__}</b><p>Plan, explain and release "
                          "statistics about people under differential privacy.</p><p>Exact "
                          "discrete noise from the operating system's secure random source; "
                          "composition with Google's dp-accounting.</p>")
