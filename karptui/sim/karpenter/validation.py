"""Pods Karpenter will not provision for, and why (its provisioner's ``Validate``).

A pod that insists on not running on Karpenter's nodes (``karpenter.sh/nodepool
DoesNotExist``), or whose node selector or required node affinity names a
label Karpenter reserves (``kubernetes.io/hostname``, the ``karpenter.sh``
domain but for its well-known keys), uses ``matchFields``, or asks for a
capacity type that does not exist is left to kube-scheduler.
"""

from __future__ import annotations

from ...model import Pod
from ...model import labels as L
from ...model.selectors import DOES_NOT_EXIST, IN, Requirement
from .preferences import pod_requirements

CAPACITY_TYPES = frozenset({"on-demand", "spot", "reserved"})


def restricted(key: str) -> str | None:
    """Karpenter's IsRestrictedLabel, as its message."""
    key = L.NORMALIZED.get(key, key)
    if key in L.WELL_KNOWN:
        return None
    domain = key.split("/", 1)[0] if "/" in key else ""
    if key in L.RESTRICTED or any(domain == d or domain.endswith("." + d) for d in L.RESTRICTED_DOMAINS):
        return (f"using label {key} is not allowed as it might interfere with the internal provisioning logic; "
                f"specify a well known label: {sorted(L.WELL_KNOWN)}, or a custom label that does not use a "
                f"restricted domain: {sorted(L.RESTRICTED_DOMAINS)}")
    return None


def _requirement_error(r: Requirement) -> str | None:
    error = restricted(r.key)
    if error:
        return error
    key = L.NORMALIZED.get(r.key, r.key)
    if key == L.CAPACITY_TYPE and r.operator == IN and not CAPACITY_TYPES & set(r.values):
        return (f"no valid values found in {list(r.values)} for {key}, expected one of: "
                f"{sorted(CAPACITY_TYPES)}, got: {list(r.values)}")
    return None


def pod_error(pod: Pod) -> str | None:
    """Why Karpenter ignores ``pod``, or None when it provisions for it."""
    nodepool = pod_requirements(pod).get(L.NODEPOOL)
    if nodepool is not None and nodepool.operator == DOES_NOT_EXIST:
        return f"configured to not run on a Karpenter provisioned node (requirement={L.NODEPOOL} DoesNotExist)"
    for key, value in pod.node_selector.items():
        error = _requirement_error(Requirement(key, IN, (value,)))
        if error:
            return error
    required = pod.affinity.node_required
    for term in required.terms if required is not None else ():
        if term.match_fields:
            return "node selector term with matchFields is not supported"
        for r in term.match_expressions:
            error = _requirement_error(r)
            if error:
                return error
    return None
