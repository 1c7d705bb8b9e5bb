"""The verdict on one pending pod, for people: what kube-scheduler says, why, what Karpenter would do.

``karptui simulate --explain`` prints it under the table and adds it to the JSON
(``pods[].verdict``); it is made from the simulation's attempt alone, so any
screen can show the same words.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..sim import Attempt
from ..sim.result import NodeClaimPlan
from .prediction import LAUNCH, PENDING, Prediction, predict


def verdict(attempt: Attempt, claims: Mapping[str, NodeClaimPlan], has_nodepools: bool,
            catalog=None, prediction: Prediction | None = None) -> dict[str, str]:
    """``kube_scheduler``: its own words (the FitError, or where it binds the pod); ``why``: karptui's
    one sentence on what would have to change (explain only, when there is one); ``karpenter``: what
    Karpenter would do, when the cluster has NodePools or Provisioners: the batch's answer
    (``prediction``, :func:`karptui.views.prediction.predict`, made here when not given)."""
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
        out["karpenter"] = _karpenter(attempt, prediction or predict(attempt, claims, catalog))
    return out


def _karpenter(attempt: Attempt, prediction: Prediction) -> str:
    if prediction.kind == PENDING:
        why = attempt.karpenter_reason
        return f"Failed to schedule pod, {why}" if why else "leaves it pending"
    if prediction.kind != LAUNCH:
        return f"counts on {prediction.node}, a node still coming up"
    if prediction.nodepool is None:
        return f"launches NodeClaim {prediction.node}"
    return (f"launches NodeClaim {prediction.node} from NodePool {prediction.nodepool}: {prediction.launch_words} "
            f"({prediction.pods} pod(s))")
