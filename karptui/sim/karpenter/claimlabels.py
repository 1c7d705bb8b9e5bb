"""The labels Karpenter writes on a NodeClaim when it creates one, which its Node then carries.

A NodeClaim is created with its NodePool's template labels, ``karpenter.sh/nodepool``
and the node class label, and with one concrete value for every other requirement
key that no instance type decides (keys outside the well-known set, the restricted
``kubernetes.io/hostname`` and the keys a scheduling simulation adds only for
DaemonSets). Without this a NodePool requirement such as ``team NotIn [a]`` or
``tier Gt 5`` would never show up on a node, although pods selecting ``team`` or
``tier`` do land there in Karpenter.

The value is the requirement's "any" value (Karpenter's ``Requirement.Any``): for
``In``, one of its values; for ``NotIn``, ``Exists``, ``Gt`` and ``Lt``, an integer
within the bounds (``0`` up when there is no lower one); for ``DoesNotExist``, none.
Karpenter picks that value at random; the simulation takes the lowest one the
requirement admits, so a run is repeatable. Follows Karpenter's
``nodeclaimtemplate.go`` (``resolveCustomLabelsFromRequirements``, ``ToNodeClaim``).
"""

from __future__ import annotations

from collections.abc import Iterable

from ...model import labels as L
from .requirements import Req, Reqs

# a bound no label value reaches (Karpenter draws from [lower, MaxInt64))
_NO_UPPER = 2**63 - 1


def any_value(req: Req) -> str | None:
    """One value the requirement admits, as Karpenter resolves a label from it; None: no label."""
    if not req.complement:
        return min(req.values) if req.values else None
    low = req.gte if req.gte is not None else 0
    high = req.lte if req.lte is not None else _NO_UPPER
    value = low
    while value <= high:  # NotIn excludes finitely many values: this ends after at most len(values) steps
        if str(value) not in req.values:
            return str(value)
        value += 1
    return None


def nodeclaim_labels(reqs: Reqs, well_known: Iterable[str]) -> dict[str, str]:
    """The NodeClaim's own labels from its requirements (the template's labels are among them, as
    single-valued ``In`` requirements): the NodePool label and every custom key resolved."""
    # the reservation id is the cloud provider's to write, from the offering it launched into
    skip = frozenset(well_known) | L.RESTRICTED | L.SIMULATION_KEYS | {L.CAPACITY_RESERVATION_ID}
    labels = {}
    for key, req in reqs.items():
        if key in skip and key not in (L.NODEPOOL, L.PROVISIONER_NAME):
            continue
        value = any_value(req)
        if value is not None:
            labels[key] = value
    return labels
