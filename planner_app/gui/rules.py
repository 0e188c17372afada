"""The session's rules that read the plan, the table and the app home together: the people
rule (who one person is, against the table's id-like columns) and the release rules (the
core's readiness, cached against everything it reads). The core decides; this asks it with
what the session's three models hold."""

from __future__ import annotations

from ..core.data.repeats import Repeats
from ..core.planning.readiness import Readiness, RuleResult, again_blocked, readiness
from ..core.planning.settings import Settings
from .data_model import DataModel
from .memo import Memo
from .plan_model import PlanModel
from .trust_model import TrustModel


class SessionRules:
    def __init__(self, plans: PlanModel, data: DataModel, trust: TrustModel,
                 settings: Settings) -> None:
        self._plans = plans
        self._data = data
        self._trust = trust
        self._settings = settings
        self._readiness: Memo[Readiness] = Memo()

    def people_question(self) -> Repeats | None:
        """The repeating column the owner has not answered for yet: each row is taken as a
        person, no reason is recorded, and a column repeats like an id (the people rule)."""
        from ..core.planning.readiness import rows_are_people_recorded

        plan = self._plans.plan
        if plan is None or plan.privacy_unit.kind == "person" or \
                rows_are_people_recorded(plan.privacy_unit) or not self._data.repeating:
            return None
        return self._data.repeating[0]

    def unit_unanswered(self) -> str | None:
        """Why statistics wait for who one person is (readiness.unit_unanswered), or None."""
        from ..core.planning.readiness import unit_unanswered

        plan = self._plans.plan
        return None if plan is None else unit_unanswered(plan, self._data.repeating)

    def default_column(self, kind: str) -> str | None:
        """The column a new statistic of ``kind`` starts on (never one that identifies a
        person)."""
        from ..core.planning.starters import default_column

        plan = self._plans.plan
        return default_column(kind, self._data.columns, dict(self._data.column_types),
                              plan.privacy_unit.id_column if plan is not None else None)

    def again_blocked(self) -> RuleResult | None:
        """The lifetime rule when this plan's release cannot happen (core: again_blocked)."""
        plan = self._plans.plan
        if plan is None:
            return None
        state = self._trust.lifetime(plan)
        return again_blocked(plan, self._plans.total(), self._plans.all_measurements(plan),
                             state if state is not None else self._trust.ledger_unreadable(),
                             self._trust.policy, self._trust.programme_history(plan))

    def release_rules(self, unit_confirmed: bool | None = None) -> Readiness:
        """The core's release rules (readiness.py) for the plan as it stands: what the
        wizard's checklist, the meter and `planner-app check` / `release` all decide by."""
        plan = self._plans.plan
        assert plan is not None
        state, table = self._trust.lifetime(plan), self._data.table
        history = self._trust.programme_history(plan)
        key = (plan, state, table, self._trust.approval_required, self._settings.confidence,
               unit_confirmed, self._trust.policy, self._trust.file_datasets(),
               self._trust.known_datasets(), self._trust.approval_keys_in_force, history)

        def decide() -> Readiness:
            return readiness(
                plan, self._plans.total(), self._plans.all_measurements(plan),
                ledger=state if state is not None else self._trust.ledger_unreadable(),
                require_approval=self._trust.approval_required, unit_confirmed=unit_confirmed,
                trusted=self._trust.approval_keys_in_force,
                policy=self._trust.policy, file_datasets=self._trust.file_datasets(),
                known_datasets=self._trust.known_datasets(),
                table_loaded=table is not None,
                table_name=table.name if table is not None else "",
                accuracies=self._plans.all_accuracies(plan),
                repeating=self._data.repeating if table is not None else None,
                programme_history=history)

        return self._readiness.get(key, decide)  # the meter asks on every slider step

