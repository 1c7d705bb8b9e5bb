"""NodeClaim templates: what each NodePool can launch, before any pod narrows it.

A template's requirements are the NodePool's, plus its template labels (as
``In`` requirements) and ``karpenter.sh/nodepool In [name]``. Its instance
types are the catalog's types compatible with those requirements through at
least one available offering. DaemonSets whose pods would run on such a node
add their requests to every NodeClaim of the template (daemonset overhead).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass

from ...catalog import Catalog, InstanceType
from ...model import NodePool, Pod, Snapshot
from ...model import labels as L
from ...model.resources import EMPTY, Resources
from ...model.taints import BLOCKING_EFFECTS, EFFECTS as ALL_EFFECTS, Taint, first_untolerated
from .requirements import Req, Reqs

OFFERING_KEYS = (L.ZONE, L.CAPACITY_TYPE, L.REGION)


def _type_label(key: str) -> bool:
    return key.startswith("karpenter.k8s.aws/") or key in (L.INSTANCE_TYPE, L.ARCH, L.OS)


def offering_ok(offering, reqs: Reqs) -> bool:
    """An available offering whose zone, capacity type and region the requirements allow."""
    if not offering.available:
        return False
    zone, kind, region = reqs.get(L.ZONE), reqs.get(L.CAPACITY_TYPE), reqs.get(L.REGION)
    if zone is not None and not zone.has(offering.zone):
        return False
    if kind is not None and not kind.has(offering.capacity_type):
        return False
    return region is None or region.has(offering.labels.get(L.REGION, ""))


def type_compatible(instance_type: InstanceType, reqs: Reqs, keys=None) -> bool:
    """The type's labels meet the requirements (only ``keys``, if given) and some offering does too."""
    labels = instance_type.labels
    for key in reqs if keys is None else keys:
        req = reqs[key]
        if key in OFFERING_KEYS:
            continue
        value = labels.get(key)
        if value is None:
            # the type's own labels it lacks read as DoesNotExist (a GPU name on a CPU type);
            # others (karpenter.sh/nodepool, a NodePool's template labels) the node gets anyway
            if _type_label(key) and not req.complement and req.values:
                return False
            continue
        if not req.has(value):
            return False
    return any(offering_ok(o, reqs) for o in instance_type.offerings)


def resources_text(resources: Resources) -> str:
    """Karpenter's rendering of a resource list: compact JSON, keys sorted."""
    return json.dumps(dict(sorted(resources.to_quantities().items())), separators=(",", ":"))


@dataclass(frozen=True)
class Template:
    nodepool: NodePool
    reqs: Reqs
    taints: tuple[Taint, ...]
    instance_types: tuple[InstanceType, ...]
    daemon_overhead: Resources

    @property
    def name(self) -> str:
        return self.nodepool.name

    def tolerates(self, pod: Pod) -> str | None:
        """Karpenter wants a toleration for every NodePool taint, PreferNoSchedule included."""
        taint = first_untolerated(self.taints, pod.tolerations, ALL_EFFECTS)
        return None if taint is None else f"did not tolerate {taint.key}={taint.value}:{taint.effect}"


def template_reqs(pool: NodePool) -> Reqs:
    reqs = Reqs.from_model(pool.requirements)
    reqs = reqs.plus(Reqs.from_labels(pool.template_labels).values())
    label = L.PROVISIONER_NAME if pool.kind == "Provisioner" else L.NODEPOOL
    return reqs.plus([Req(label, False, frozenset((pool.name,)))])


def pod_reqs(pod: Pod, relax: int = 0) -> Reqs | None:
    """The pod's requirements after ``relax`` relaxations, or None when nothing is left to relax.

    Karpenter starts strict: nodeSelector, required term [0] and the heaviest
    preferred node-affinity term as if required; each relaxation first drops
    a required term (while others remain, they are ORed), then the preferred one.
    """
    required = pod.affinity.node_required.terms if pod.affinity.node_required is not None else ()
    preferred = sorted(pod.affinity.node_preferred, key=lambda p: -p.weight)[:1]
    steps = max(len(required) - 1, 0) + len(preferred)
    if relax > steps:
        return None
    term = min(relax, max(len(required) - 1, 0))
    reqs = Reqs.from_labels(pod.node_selector)
    if required:
        reqs = reqs.plus(Req.of(r) for r in required[term].match_expressions)
    if preferred and relax < steps:
        reqs = reqs.plus(Req.of(r) for r in preferred[0].term.match_expressions)
    return reqs


def daemon_overhead(snapshot: Snapshot, reqs: Reqs, taints: Iterable[Taint]) -> Resources:
    """Requests of the DaemonSet pods that would land on a node of this template."""
    taints = tuple(taints)
    total = EMPTY
    for ds in snapshot.workloads:
        pod = ds.template
        if ds.kind != "DaemonSet" or pod is None:
            continue
        if first_untolerated(taints, pod.tolerations, BLOCKING_EFFECTS) is not None:
            continue
        wanted = pod_reqs(pod)
        if wanted is None or reqs.compatible_error(wanted) is not None:
            continue
        total = total + pod.requests + Resources({"pods": 1})
    return total


def templates(snapshot: Snapshot, catalog: Catalog) -> list[Template]:
    """One template per NodePool (or Provisioner), in Karpenter's order."""
    out = []
    # weight descending, then name descending ("the NodePool with the name later in the alphabet comes first")
    for pool in sorted(snapshot.nodepools, key=lambda p: (-p.weight, [-ord(c) for c in p.name])):
        reqs = template_reqs(pool)
        types = tuple(t for t in catalog if type_compatible(t, reqs))
        out.append(Template(pool, reqs, pool.taints, types, daemon_overhead(snapshot, reqs, pool.taints)))
    return out
