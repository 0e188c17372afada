"""Whether the plan's relations hold in the table (issue 27), for the owner only.

A relation the plan allows (the same rows counted, every part within one total) may still
fail in the data: a row whose value is outside a histogram's declared categories, or a
district under another region than the one declared, is counted by the total and by no
part. Its consistent values would then be pulled away from the true total, so the release
refuses such a plan before the charge (``release.consistent.require_relations_hold``);
`check --data` and the app's data checks name the same relations first, from the same exact
counts. The counts never leave the owner's screen: the messages name no number.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..dp.mechanisms import SystemRandomSource
from ..kinds.shared_dp import measurements_for
from ..model import Plan
from ..planfile.relations import cell_tree, relation_data_problems
from ..planfile.serialisation import plan_to_dict
from ..planfile.validation import plan_from_dict
from ..support.errors import InputError
from .engine_names import DEFAULT_ENGINE
from .engines import ReleaseEngine, make_engine
from .fit import plan_problems
from .source import TableSource
from .sql_plan import salt_from


def relation_problems(plan: Plan, engine: ReleaseEngine) -> list[InputError]:
    """Each relation of ``plan`` that does not hold on the exact counts ``engine``
    aggregates (its bounded rows: the release's own), as the release would refuse it;
    [] for a plan without relations, or whose relations no longer fit its statistics (that
    is the plan's own problem, named when it is read)."""
    if plan.consistency is None:
        return []
    try:
        plan_from_dict(plan_to_dict(plan), "plan")  # an app-edited plan: relations still fit
    except InputError:
        return []
    exact = {}
    for qid in cell_tree(plan).query_ids:
        q = plan.query(qid)
        name = measurements_for(q, plan)[0].component.name
        exact[qid] = [int(v) for v in engine.aggregate(q).parts[name].tolist()]
    return [InputError("plan", where, problem)
            for where, problem in relation_data_problems(plan, exact)]


def relation_problems_in(plan: Plan, source: TableSource, table_name: str) -> \
        list[InputError]:
    """``relation_problems`` over a table the caller has open (the app's data checks), read
    by the default engine: only the related statistics are aggregated."""
    if plan.consistency is None:
        return []
    engine = make_engine(DEFAULT_ENGINE, plan, source, salt_from(SystemRandomSource()),
                         table_name)
    try:
        return relation_problems(plan, engine)
    finally:
        engine.close()


def table_problems(plan: Plan, source: TableSource, table_name: str,
                   known: Mapping[str, tuple[int, int]] | None = None) -> list[InputError]:
    """The app's data checks: every way the plan does not fit the table
    (``fit.plan_problems``), or when it fits, every relation the table breaks."""
    problems = plan_problems(plan, source, table_name, known)
    return problems or relation_problems_in(plan, source, table_name)
