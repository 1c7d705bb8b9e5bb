"""The NodePool decision table of one pending pod: every NodePool, in the order Karpenter tries them,
with what each would do with the pod.

Karpenter tries a new NodeClaim from every NodePool template (in parallel, since v1) and keeps the
first one in its order (weight descending, then name descending) that takes the pod; its log joins
the others' errors into one line. Operators ask "why was this NodePool not chosen", and that line
does not say it for NodePools Karpenter left out before scheduling (static, not Ready, being
deleted, no instance type at all) nor how far each filter narrowed the instance types. The answers
here come from the scheduler's own steps (:meth:`Scheduler.open_claim`, :meth:`NodeClaim.narrowing`),
asked at the moment the scheduler tries the pod, so the table cannot disagree with the simulation.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ...model import NodePool, Pod
from ...model.quantity import format_millis, human_bytes
from ...model.resources import CPU, MEMORY
from .launch import Launch, choose
from .nodeclaim import INSTANCE_TYPES, LIMITS, MIN_VALUES, REQUIREMENTS, SchedulingError

if TYPE_CHECKING:
    from .preferences import PodData
    from .scheduler import Scheduler

# verdicts besides the SchedulingError kinds of .nodeclaim
DELETING, STATIC, NOT_READY, NO_INSTANCE_TYPES = "deleting", "static", "not-ready", "no-instance-types"
LAUNCH, ALSO_FITS = "launch", "also-fits"


@dataclass(frozen=True, slots=True)
class PoolVerdict:
    """One NodePool's row. ``verdict``: launch, also-fits (it would, but an earlier NodePool is
    chosen), deleting, static, not-ready, no-instance-types, or what refused the pod (limits,
    taints, requirements, volumes, topology, instance-types, min-values, reservations); ``reason``: Karpenter's
    words; ``details``: what the words leave out (the conflicting requirement from both sides, the
    limit in use); ``removed``: instance types each filter took away, of ``catalog`` types."""

    nodepool: str
    weight: int
    verdict: str
    reason: str
    details: tuple[str, ...] = ()
    launch: Launch | None = None
    removed: tuple[tuple[str, int], ...] = ()
    catalog: int = 0

    @property
    def left(self) -> int:
        """Instance types no filter took away."""
        return self.catalog - sum(n for _, n in self.removed)

    def to_dict(self) -> dict:
        out: dict = {"nodepool": self.nodepool, "weight": self.weight, "verdict": self.verdict,
                     "reason": self.reason, "details": list(self.details),
                     "launch": self.launch.to_dict() if self.launch else None}
        if self.removed:
            out["instance_types"] = {"catalog": self.catalog, "removed": dict(self.removed), "left": self.left}
        return out


def karpenter_order(pools: list[NodePool]) -> list[NodePool]:
    """Karpenter's OrderByWeight: weight descending, equal weights by name descending."""
    return sorted(pools, key=lambda p: (p.weight, p.name), reverse=True)


def pool_verdicts(scheduler: Scheduler, pod: Pod, data: PodData) -> tuple[PoolVerdict, ...]:
    """Every NodePool of the snapshot, in Karpenter's order, with its verdict for ``pod`` as the
    scheduler stands now (earlier pods of the batch have taken limits and domains)."""
    templates = {t.name: t for t in scheduler.templates}
    out, chosen = [], None
    for pool in karpenter_order(list(scheduler.snapshot.nodepools)):
        row = PoolVerdict(pool.name, pool.weight, "", "")
        if pool.deleted is not None:
            out.append(_row(row, DELETING, "ignoring nodepool, it is being deleted"))
        elif pool.replicas is not None:
            out.append(_row(row, STATIC, f"static nodepool (replicas={pool.replicas}): Karpenter keeps its node "
                                         "count and does not provision for pods from it"))
        elif not pool.ready:
            out.append(_row(row, NOT_READY, "ignoring nodepool, not ready"))
        elif pool.name in scheduler.skipped or pool.name not in templates:
            why = scheduler.skipped.get(pool.name, "")
            out.append(_row(row, NO_INSTANCE_TYPES, "skipping, nodepool requirements filtered out all instance "
                                                    "types", (why,) if why else ()))
        else:
            verdict = _try(scheduler, templates[pool.name], pod, data, row, chosen)
            chosen = chosen or (pool.name if verdict.verdict == LAUNCH else None)
            out.append(verdict)
    return tuple(out)


def _row(row: PoolVerdict, verdict: str, reason: str, details: tuple[str, ...] = (), **more) -> PoolVerdict:
    return PoolVerdict(row.nodepool, row.weight, verdict, reason, details, **more)


def _try(scheduler: Scheduler, template, pod: Pod, data: PodData, row: PoolVerdict, chosen: str | None):
    catalog = len(scheduler.types.types)
    opened = scheduler.open_claim(template, pod, data)
    if isinstance(opened, SchedulingError):
        return _refused(scheduler, template, pod, data, row, opened)
    claim, reqs, kept = opened
    removed = claim.narrowing(pod, reqs, data.requests)
    launch = choose(scheduler.types, claim.options(kept, reqs), reqs)
    what = launch_text(launch) if launch else "a NodeClaim"
    if chosen is None:
        return _row(row, LAUNCH, f"would launch {what}", launch=launch, removed=removed, catalog=catalog)
    return _row(row, ALSO_FITS, f'could launch {what} too, but NodePool "{chosen}" comes first',
                launch=launch, removed=removed, catalog=catalog)


def _refused(scheduler: Scheduler, template, pod: Pod, data: PodData, row: PoolVerdict,
             error: SchedulingError) -> PoolVerdict:
    details: tuple[str, ...] = ()
    removed: tuple = ()
    if error.kind == LIMITS:
        details = _limits(template.pool, scheduler.remaining.get(template.name) or {}, error.key == "nodes")
    elif error.kind == REQUIREMENTS and error.key:
        details = (_conflict(error.key, data.reqs.get(error.key), template.reqs.get(error.key)),)
    elif error.kind in (INSTANCE_TYPES, MIN_VALUES) and error.claim is not None:
        removed = error.claim.narrowing(pod, error.reqs, error.requests)
    return _row(row, error.kind, str(error), details, removed=removed,
                catalog=len(scheduler.types.types) if removed else 0)


def _conflict(key: str, pod_req, pool_req) -> str:
    """``kubernetes.io/arch: the pod needs In [amd64], the NodePool allows In [arm64]``."""
    def values(req) -> str:
        return str(req).removeprefix(f"{key} ")

    pool_text = values(pool_req) if pool_req is not None else "no value (it does not set this label)"
    return f"{key}: the pod needs {values(pod_req)}, the NodePool allows {pool_text}"


def _amount(name: str, value: int) -> str:
    if name == CPU:
        return format_millis(value)
    if name == MEMORY:
        return human_bytes(value)
    return str(value)


def _limits(pool: NodePool, remaining: Mapping[str, int], nodes_only: bool) -> tuple[str, ...]:
    """``cpu: 14 of 16 in use, 2 left`` for each limit (just ``nodes`` when that one is spent)."""
    lines = []
    for name, limit in sorted(pool.limits.items()):
        if nodes_only and name != "nodes":
            continue
        left = remaining.get(name, limit)
        lines.append(f"{name}: {_amount(name, limit - left)} of {_amount(name, limit)} in use, "
                     f"{_amount(name, max(left, 0))} left")
    return tuple(lines)


def launch_text(launch: Launch) -> str:
    """``m5.large in zone us-east-1a (on-demand)``; the price is the view's to add (a discount may apply)."""
    return f"{launch.instance_type} in zone {launch.zone} ({launch.capacity_type})"
