"""Which pods a controller deletes first when it scales down: the one owner of that rule.

The ReplicaSet controller (``getPodsToDelete``) ranks the active pods with
``ActivePodsWithRanks`` (pkg/controller/controller_utils.go) and deletes from the front:

1. not assigned to a node before assigned;
2. phase Pending before Unknown before Running;
3. not Ready before Ready;
4. lower ``controller.kubernetes.io/pod-deletion-cost`` before higher (the PodDeletionCost
   feature, on by default since 1.22; a missing or malformed value is 0);
5. more pods of the same workload on the pod's node before fewer ("doubled up" first); the
   count includes every active pod of the owner's whole family (a Deployment's older ReplicaSets
   too), unassigned pods counting as one node;
6. both Ready: ready more recently before longer ago;
7. more container restarts before fewer;
8. created more recently before longer ago.

Steps 6 and 8 compare times on a logarithmic scale (the LogarithmicScaleDown feature, on by
default since 1.22): two pods whose ages, in nanoseconds, have the same ``floor(log2)`` tie, and
the lower UID is deleted first. A pod with no time at all comes first.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from datetime import datetime
from functools import cmp_to_key

from ...model import labels as L
from ...model.pod import Pod

DELETION_COST = L.DELETION_COST
_INT = re.compile(r"[+-]?[0-9]+")  # strconv.ParseInt's base 10: no spaces, no underscores
_PHASE_ORDER = {"Pending": 0, "Unknown": 1, "Running": 2}


def is_active(pod: Pod) -> bool:
    """A pod the controller still counts: not finished and not being deleted (IsPodActive)."""
    return not pod.is_terminal and pod.deleted is None


def deletion_cost(pod: Pod) -> int:
    """The pod-deletion-cost annotation as the controller reads it (an int32; else 0)."""
    value = pod.annotations.get(DELETION_COST)
    if value is None or not _INT.fullmatch(value):
        return 0
    cost = int(value)
    return cost if -2**31 <= cost < 2**31 else 0


def deletion_order(pods: Sequence[Pod], related: Iterable[Pod], now: datetime | None, *,
                   job: bool = False) -> list[Pod]:
    """``pods`` (the active pods of one ReplicaSet) in the order the controller deletes them.

    ``related``: every pod of the owner's family, for the "doubled up" count per node; ``now``:
    the moment of the scale-down (the snapshot's capture time), for the logarithmic age buckets.
    ``job``: the Job controller's ``ActivePods`` order, which has no deletion cost, no per-node
    count and compares times plainly.
    """
    on_node = Counter(p.node_name for p in related if is_active(p))
    ranked = [(pod, on_node[pod.node_name]) for pod in pods]
    ranked.sort(key=cmp_to_key(lambda a, b: _compare(a, b, None if job else now, job)))
    return [pod for pod, _ in ranked]


def _compare(a: tuple[Pod, int], b: tuple[Pod, int], now: datetime | None, job: bool = False) -> int:
    """Negative when ``a`` goes first."""
    (p, rank_p), (q, rank_q) = a, b
    if (not p.node_name) != (not q.node_name):
        return -1 if not p.node_name else 1
    phase_p, phase_q = _PHASE_ORDER.get(p.phase, 0), _PHASE_ORDER.get(q.phase, 0)
    if phase_p != phase_q:
        return phase_p - phase_q
    if p.ready != q.ready:
        return -1 if not p.ready else 1
    cost_p, cost_q = (0, 0) if job else (deletion_cost(p), deletion_cost(q))
    if cost_p != cost_q:
        return -1 if cost_p < cost_q else 1
    if rank_p != rank_q and not job:
        return -1 if rank_p > rank_q else 1
    if p.ready and q.ready and p.ready_since != q.ready_since:
        found = _newer_first(p, q, p.ready_since, q.ready_since, now)
        if found:
            return found
    if p.restarts != q.restarts:
        return -1 if p.restarts > q.restarts else 1
    if p.created != q.created:
        return _newer_first(p, q, p.created, q.created, now)
    return 0


def _newer_first(p: Pod, q: Pod, t_p: datetime | None, t_q: datetime | None, now: datetime | None) -> int:
    """The more recent time first, no time before any; by age buckets when ``now`` is known."""
    if t_p is None or t_q is None:
        return -1 if t_p is None else 1
    if now is None:
        return -1 if t_p > t_q else 1
    diff = _bucket(t_p, now) - _bucket(t_q, now)
    if diff == 0:
        return -1 if p.uid < q.uid else (1 if p.uid > q.uid else 0)
    return diff


def _bucket(when: datetime, now: datetime) -> int:
    """``floor(log2(age in ns))``; -1 for a time not in the past."""
    age_ns = (now - when).total_seconds() * 1e9
    return int(math.log2(age_ns)) if age_ns > 0 else -1
