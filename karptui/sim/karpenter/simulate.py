"""Karpenter's turn after kube-scheduler's: launch NodeClaims for what is still pending."""

from __future__ import annotations

from dataclasses import replace

from ...catalog import Catalog
from ...model import Snapshot
from ..result import Attempt, NodeClaimPlan
from ..state import ClusterState
from .launch import ranked_types
from .provision import Provisioner

KARPENTER = "Karpenter: Failed to schedule pod, "


def provision_pending(snapshot: Snapshot, state: ClusterState, catalog: Catalog,
                      attempts: list[Attempt], batch: bool = True) -> tuple[list[Attempt], tuple[NodeClaimPlan, ...]]:
    pending = [a.pod for a in attempts if not a.scheduled]
    if not pending:
        return attempts, ()
    result = Provisioner(snapshot, state, catalog).solve(pending, batch)
    names = {c.name for c in result.claims}
    updated = []
    for attempt in attempts:
        key = attempt.pod.key
        if attempt.scheduled:
            updated.append(attempt)
        elif result.placed.get(key) in names:
            updated.append(replace(attempt, node=result.placed[key], new_node=True, reason=None, summary=""))
        else:
            why = result.errors.get(key, "")
            updated.append(replace(attempt, karpenter_reason=why or None,
                                   reason=f"{attempt.reason} {KARPENTER}{why}" if why else attempt.reason))
    plans = tuple(
        NodeClaimPlan(
            name=claim.name,
            nodepool=claim.template.name,
            requirements={k: tuple(sorted(r.values)) for k, r in claim.reqs.items() if not r.complement},
            instance_types=tuple(t.name for t in ranked_types(claim)),
            launch=result.launches[claim.name].to_dict() if result.launches.get(claim.name) else None,
            pods=tuple(p.key for p in claim.pods),
        )
        for claim in result.claims
    )
    return updated, plans
