"""A one-line, operator-facing account of why a pod stays pending.

kube-scheduler's FitError counts nodes per reason; this says what would have
to change, e.g. "needs a node in ap-northeast-2c (topology.kubernetes.io/zone
skew would be 7 > maxSkew 5 in ap-northeast-2a, ap-northeast-2b), but there
it fails: Insufficient cpu".
"""

from __future__ import annotations

import numpy as np

from ..model.affinity import DO_NOT_SCHEDULE
from ..model.quantity import format_millis, human_bytes
from ..model.resources import CPU, MEMORY
from .cycle import PodCycle
from .framework import Verdicts
from .plugins import pod_topology_spread as pts
from .skew import allows, skew
from .topology import MISSING


def summarize(ctx: PodCycle, verdicts: Verdicts) -> str:
    parts = [text for text in (_spread(ctx, verdicts), _resources(ctx, verdicts), _placement(ctx, verdicts)) if text]
    return "; ".join(parts)


def _spread(ctx: PodCycle, verdicts: Verdicts) -> str:
    if not verdicts.counts.get(pts.REASON):
        return ""
    notes = []
    for constraint in ctx.pod.spread_constraints:
        if constraint.when_unsatisfiable != DO_NOT_SCHEDULE:
            continue
        keys = tuple(dict.fromkeys(c.topology_key for c in ctx.pod.spread_constraints
                                   if c.when_unsatisfiable == DO_NOT_SCHEDULE))
        domains, counts, present, selector, floor = pts.domain_counts(ctx, constraint, keys)
        if not present.any():
            continue
        own = 1 if selector is not None and selector.matches(ctx.pod.labels) else 0
        blocked = [d for d in range(domains.size)
                   if present[d] and not allows(int(counts[d]), own, floor, constraint.max_skew)]
        allowed = [d for d in range(domains.size) if present[d] and d not in blocked]
        if not blocked:
            continue
        worst = max(skew(int(counts[d]), own, floor) for d in blocked)
        lowest = [d for d in range(domains.size) if present[d] and counts[d] == floor]
        text = (f"{constraint.topology_key} skew would be {worst} > maxSkew {constraint.max_skew} in "
                f"{_names(domains.values, blocked)} (the minimum, {floor}, is in {_names(domains.values, lowest)})")
        if allowed and constraint.topology_key != pts.HOSTNAME:
            reasons = _reasons_in(ctx, verdicts, domains.ids, allowed)
            text = f"needs a node in {_names(domains.values, allowed)} ({text})"
            if reasons:
                text += f", but there it fails: {reasons}"
        notes.append(text)
    return "; ".join(notes)


def _reasons_in(ctx: PodCycle, verdicts: Verdicts, ids: np.ndarray, wanted: list[int]) -> str:
    """The reasons nodes in the wanted domains failed with (re-run for just those nodes)."""
    inside = np.isin(ids, wanted) & (ids != MISSING)
    reasons: dict[str, int] = {}
    for i in np.flatnonzero(inside):
        from .framework import filters_at

        for reason in filters_at(ctx, int(i))[1]:
            if reason != pts.REASON:
                reasons[reason] = reasons.get(reason, 0) + 1
    return ", ".join(f"{reason} ({n})" if n > 1 else reason for reason, n in sorted(reasons.items()))


def _resources(ctx: PodCycle, verdicts: Verdicts) -> str:
    short = [r for r in verdicts.counts if r.startswith("Insufficient ")]
    if not short:
        return ""
    state, notes = ctx.state, []
    for resource, fmt in ((CPU, format_millis), (MEMORY, human_bytes)):
        mask = verdicts.masks.get(f"Insufficient {resource}")
        if mask is not None and mask.any():
            free = (state.allocatable[resource] - state.requested[resource])[mask]
            notes.append(f"needs {fmt(ctx.pod.requests.get(resource, 0))} {resource}; the {int(mask.sum())} "
                         f"node(s) short of it have at most {fmt(int(free.max()))} free")
    return "; ".join(notes)


def _placement(ctx: PodCycle, verdicts: Verdicts) -> str:
    """A plain note for each constraint reason that applies to the pod."""
    pod, notes = ctx.pod, []
    for reason, nodes in sorted(verdicts.counts.items()):
        if "node affinity/selector" in reason:
            wanted = [f"{k}={v}" for k, v in pod.node_selector.items()]
            if pod.affinity.node_required is not None:
                wanted += [" AND ".join(str(r) for r in t.match_expressions) for t in pod.affinity.node_required.terms]
            notes.append(f"{nodes} node(s) lack {' OR '.join(wanted) or 'the required labels'}")
        elif reason.endswith("didn't match pod anti-affinity rules") and pod.affinity.anti_required:
            term = pod.affinity.anti_required[0]
            notes.append(f"{nodes} node(s) already share a {term.topology_key} with a pod matching "
                         f"{term.label_selector}")
        elif "untolerated taint" in reason or "that the pod didn't tolerate" in reason:
            notes.append(f"{nodes} node(s) carry taints it does not tolerate")
    return "; ".join(notes)


def _names(values: list[str], ids: list[int]) -> str:
    names = [values[d] for d in ids]
    return ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
