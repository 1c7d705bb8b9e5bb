"""``spec.disruption.consolidateAfter`` as the Karpenter simulated reads a NodePool that leaves it out.

From v1.15 the field is optional and the CRD defaults it to ``0s`` (kubernetes-sigs/karpenter#3220;
``pkg/apis/v1/nodepool.go`` on main: ``+kubebuilder:default:="0s"``, ``+optional``). Up to v1.14 it is
``+required``: the API server refuses a NodePool without it, so such a NodePool exists only in a
hand-written snapshot or what-if. Were one to reach a v1.14 controller, Go would leave the
``NillableDuration`` nil, which every reader (``disruption/consolidation.go``, ``emptiness.go``,
``nodeclaim/disruption/consolidation.go`` at v1.14.1) takes as ``Never``: no consolidation. karptui
simulates that, and the node's verdict says the API would have refused the NodePool.
"""

from __future__ import annotations

from dataclasses import replace

from ...model import NodePool, Snapshot
from .versions import V1_15, karpenter_version


def as_read(pool: NodePool, snapshot: Snapshot) -> NodePool:
    """``pool`` as the simulated Karpenter reads it: before v1.15 a missing consolidateAfter is Never."""
    if pool.consolidate_after_missing and karpenter_version(snapshot) < V1_15:
        return replace(pool, consolidate_after=None)
    return pool


def pools_as_read(snapshot: Snapshot) -> dict[str, NodePool]:
    """Every NodePool by name, as the simulated Karpenter reads it (what the disruption methods use)."""
    return {p.name: as_read(p, snapshot) for p in snapshot.nodepools}


def missing_words(pool: NodePool) -> str:
    """Why a NodePool without consolidateAfter does not consolidate before v1.15."""
    return ("consolidateAfter is missing: Karpenter before v1.15 requires it (the API server refuses such a "
            "NodePool) and reads a missing value as Never; v1.15 defaults it to 0s")
