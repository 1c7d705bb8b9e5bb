"""What Karpenter asks of a pod, and how it relaxes a pod that does not fit.

Karpenter first treats a pod's preferences as requirements: the heaviest
preferred node-affinity term joins its node requirements, preferred pod
(anti-)affinity terms and ScheduleAnyway spread constraints become topology
groups. A pod that fits nowhere is relaxed one step at a time and tried again
(Karpenter's ``preferences.go``), in this order:

1. drop the first required node-affinity term while others remain (they are ORed);
2. drop the heaviest preferred pod-affinity term;
3. drop the heaviest preferred pod anti-affinity term;
4. drop the heaviest preferred node-affinity term (the lighter ones are kept longest);
5. drop a ScheduleAnyway spread constraint;
6. tolerate PreferNoSchedule taints, when some NodePool has one.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ...model import Pod
from ...model.affinity import SCHEDULE_ANYWAY
from ...model.resources import PODS, Resources
from ...model.selectors import NodeSelector
from ...model.taints import PREFER_NO_SCHEDULE, Toleration
from .requirements import Req, Reqs

PREFER_NO_SCHEDULE_TOLERATION = Toleration(operator="Exists", effect=PREFER_NO_SCHEDULE)


def pod_requirements(pod: Pod, strict: bool = False) -> Reqs:
    """NewPodRequirements: nodeSelector, the first required term and (unless ``strict``) the heaviest
    preferred term, as requirements."""
    reqs = Reqs.from_labels(pod.node_selector)
    affinity = pod.affinity
    if not strict and affinity.node_preferred:
        heaviest = sorted(affinity.node_preferred, key=lambda p: -p.weight)[0]
        reqs = reqs.plus(Req.of(r) for r in heaviest.term.match_expressions)
    required = affinity.node_required
    if required is not None and required.terms:
        reqs = reqs.plus(Req.of(r) for r in required.terms[0].match_expressions)
    return reqs


@dataclass(frozen=True, slots=True)
class PodData:
    """What the scheduler reads of a pod, worked out once per (relaxed) pod."""

    requests: Resources      # the pod's requests and one ``pods`` slot
    reqs: Reqs               # requirements, preferences included
    strict: Reqs             # requirements alone: the domains the pod may use for topology

    @classmethod
    def of(cls, pod: Pod, respect_preferences: bool = True) -> PodData:
        """``respect_preferences`` False: PREFERENCE_POLICY=Ignore, the preferred node-affinity term
        is not a requirement (Karpenter's updateCachedPodData takes the strict requirements)."""
        reqs = pod_requirements(pod, strict=not respect_preferences)
        strict = pod_requirements(pod, strict=True) if pod.affinity.node_preferred else reqs
        return cls(pod.requests + Resources({PODS: 1}), reqs, strict)


def relax(pod: Pod, tolerate_prefer_no_schedule: bool) -> Pod | None:
    """The pod with one preference less, or None when nothing is left to relax."""
    affinity = pod.affinity
    required = affinity.node_required
    if required is not None and len(required.terms) > 1:
        return replace(pod, affinity=replace(affinity, node_required=NodeSelector(required.terms[1:])))
    for field in ("pod_preferred", "anti_preferred", "node_preferred"):
        terms = getattr(affinity, field)
        if terms:
            ordered = sorted(terms, key=lambda t: -t.weight)
            return replace(pod, affinity=replace(affinity, **{field: tuple(ordered[1:])}))
    constraints = list(pod.spread_constraints)
    for i, constraint in enumerate(constraints):
        if constraint.when_unsatisfiable == SCHEDULE_ANYWAY:
            constraints[i] = constraints[-1]  # upstream swaps in the last one
            return replace(pod, spread_constraints=tuple(constraints[:-1]))
    if tolerate_prefer_no_schedule and PREFER_NO_SCHEDULE_TOLERATION not in pod.tolerations:
        return replace(pod, tolerations=pod.tolerations + (PREFER_NO_SCHEDULE_TOLERATION,))
    return None
