"""The verdict on one pending pod, for people: what kube-scheduler says, why, what Karpenter would do.

``karptui simulate --explain`` prints it under the table and adds it to the JSON
(``pods[].verdict``); it is made from the simulation's attempt alone, so any
screen can show the same words.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..sim import Attempt
from ..sim.result import NodeClaimPlan
from .cost import launch_cost


def verdict(attempt: Attempt, claims: Mapping[str, NodeClaimPlan], has_nodepools: bool,
            catalog=None) -> dict[str, str]:
    """``kube_scheduler``: its own words (the FitError, or where it binds the pod); ``why``: karptui's
    one sentence on what would have to change (explain only, when there is one); ``karpenter``: what
    Karpenter would do, when the cluster has NodePools or Provisioners."""
    out: dict[str, str] = {}
    scheduler = attempt.scheduler_reason or (attempt.reason if not attempt.karpenter_reason else None)
    if scheduler:
        out["kube_scheduler"] = scheduler
    elif attempt.node is not None:
        preempting = f", preempting {len(attempt.preempted)} pod(s)" if attempt.preempted else ""
        out["kube_scheduler"] = f"binds it to {attempt.node}{preempting}"
    else:
        out["kube_scheduler"] = "(no reason recorded)"
    if attempt.summary:
        out["why"] = attempt.summary
    if has_nodepools and attempt.scheduler_reason is not None:
        out["karpenter"] = _karpenter(attempt, claims, catalog)
    return out


def _karpenter(attempt: Attempt, claims: Mapping[str, NodeClaimPlan], catalog=None) -> str:
    if attempt.node is None:
        why = attempt.karpenter_reason
        return f"Failed to schedule pod, {why}" if why else "leaves it pending"
    if not attempt.new_node:
        return f"counts on {attempt.node}, a node still coming up"
    claim = claims.get(attempt.node)
    if claim is None:
        return f"launches NodeClaim {attempt.node}"
    launch = claim.launch or {}
    where = (f": {launch.get('instance_type')} {launch.get('capacity_type')} in {launch.get('zone')}"
             if launch else ": no offering left")
    priced = "" if launch.get("price") is None else f", {launch_cost(launch, catalog).rate_text(3)}"
    return f"launches NodeClaim {claim.name} from NodePool {claim.nodepool}{where}{priced} ({len(claim.pods)} pod(s))"
