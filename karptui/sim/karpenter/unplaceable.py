"""Pending pods no scheduling run over a cluster state can place, known before any run.

Consolidation's simulations (Karpenter's SimulateScheduling) schedule the
cluster's pending pods again with every candidate's pods, hundreds of times
over one cluster state. A pending pod that fails on every existing node and
on every NodePool for a reason no run can lift fails the same way in each of
them, and a pod that fails changes nothing another pod meets: it is neither
counted by a topology group nor holds room, and the run's queue turns without
it as it turned with it. Its own error is not part of the simulation's answer
(pending pods that still fail do not block consolidation). Such pods can
leave the queue; the answer is the same, its cost smaller.

Only reasons that hold whatever a run does are taken, for the pod as given
and for every step of relaxing its preferences (each step is tried as the
scheduler tries it):

- an existing node: its taints not tolerated, its labels not admitted, or less
  room than the pod requests as the cluster stands (a run only takes nodes out
  and fills them);
- a NodePool: its taints not tolerated; a key the NodePool itself restricts to
  values (``In``) none of which the pod accepts (``In``), as every NodeClaim
  it opens only narrows them; or no instance type of the NodePool that meets
  the NodePool's and the pod's requirements, has an offering they allow and
  holds the pod's requests with its DaemonSet overhead: a NodeClaim's
  requirements only narrow (so do the types and offerings they allow) and pods
  joining it only add requests (so not when a pod in the run requests a
  negative amount).

A pod with DRA ResourceClaims, though Karpenter refuses it every time, stays:
the scheduler answers a later pod of the same signature from its failure.
Every other field this reads is part of a pod's signature (requests,
tolerations, affinity, node selector, spread constraints), so pods of one
signature are all left out or all kept, and that answer from an earlier
failure is given as before.

Anything else — requirements the topology or other pods could meet, limits,
minValues — leaves the pod in the queue.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ...model import Pod
from ...model.taints import tolerates_all
from ..signature import signature
from .existingnode import ExistingPool, base_vector
from .preferences import PodData, relax
from .requirements import Reqs

__all__ = ["never_placed", "unplaceable", "any_negative"]


def unplaceable(pods: Sequence[Pod], prepared, pool: ExistingPool) -> frozenset[str]:
    """The keys of ``pods`` no run over ``pool`` with these templates can place (see the module's
    docstring), as long as no pod of the run requests a negative amount (:func:`any_negative`:
    with one among them nothing is; a NodeClaim's requests or a node's room could then come back).

    The signatures found never placed are kept with the pool (``ExistingPool.never_placed``, per
    ``prepared``): a delete carried out keeps the pool, its pods settled on other nodes
    (``ExistingPool.settle``), which only takes room while the masks and templates stay, so what no
    run could place before none can now. Asked again over the pool, only the other pods are tried."""
    if any_negative(pods):
        return frozenset()
    held = pool.never_placed
    if held.get("prepared") is not prepared:
        held.clear()
        held["prepared"], held["signatures"] = prepared, {}
    known = held["signatures"]
    answers: dict = dict(known)  # signature -> the answer: every field read here is part of it (see above)
    out = []
    for p in pods:
        key = signature(p)
        found = answers.get(key) if key is not None and not p.resource_claims else None
        if found is None:
            found = never_placed(p, prepared, pool)
            if key is not None and not p.resource_claims:
                answers[key] = found
                if found:
                    known[key] = True
        if found:
            out.append(p.key)
    return frozenset(out)


def any_negative(pods: Iterable[Pod]) -> bool:
    return any(amount < 0 for p in pods for amount in p.requests.values())


def never_placed(pod: Pod, prepared, pool: ExistingPool) -> bool:
    """True when ``pod`` and each relaxation of it fail on every node of ``pool`` and every template."""
    if pod.resource_claims:
        return False
    current: Pod | None = pod
    data = prepared.pod_data(pod)
    while current is not None:
        if not _fails_everywhere(current, data, prepared, pool):
            return False
        current = relax(current, prepared.tolerate_prefer_no_schedule)
        if current is not None:
            data = PodData.of(current)
    return True


def _fails_everywhere(pod: Pod, data: PodData, prepared, pool: ExistingPool) -> bool:
    if pool.nodes:
        need = base_vector(data.requests)
        mask = pool.room_for(data.requests, need) & pool.masks.tolerated(pod.tolerations) \
            & pool.masks.admitted(data.reqs)
        if mask.any():
            return False
    types = prepared.types
    vector = types.vector(data.requests)
    for template in prepared.templates:
        if not tolerates_all(template.taints, pod.tolerations):
            continue
        if _disjoint(template.reqs, data.reqs):
            continue
        if vector.unknown is not None:
            continue  # a resource no instance type has
        reqs = template.reqs.plus(data.reqs.values())
        rows = template.rows
        fits = (types.allocatable_max[rows] >= vector.values + template.overhead).all(axis=1)  # an upper bound
        if not (fits & types.compatible_mask(reqs)[rows] & types.offered_mask(reqs)[rows]).any():
            continue
        return False
    return True


def _disjoint(template: Reqs, wanted: Reqs) -> bool:
    """A key the template restricts to values (no bounds) that the pod's ``In`` values all miss."""
    for key, want in wanted.items():
        have = template.get(key)
        if have is None or have.complement or want.complement or not want.values:
            continue
        if have.gte is not None or have.lte is not None or want.gte is not None or want.lte is not None:
            continue
        if have.values.isdisjoint(want.values):
            return True
    return False
