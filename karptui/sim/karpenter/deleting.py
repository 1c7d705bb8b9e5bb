"""Pods on nodes being deleted: Karpenter provisions for them before they are evicted.

A node is marked for deletion when its NodeClaim is being deleted (or, for a node
without a NodeClaim, the Node itself is). Karpenter's provisioner leaves such a
node's capacity out — it is going away — and schedules the pods still on it that
will need a new home, alongside the pending pods, so their replacement capacity
is launched while the node drains. A pod counts ("currently reschedulable") when
it is active, or is a terminating StatefulSet pod (its replacement cannot be
created until it is gone); is not a DaemonSet or mirror pod; its
``karpenter.sh/do-not-disrupt`` does not hold it; and no PodDisruptionBudget fully
blocks its eviction (``maxUnavailable: 0`` or ``0%``, ``minAvailable: 100%``, or
more than one PDB, which the eviction API refuses).

Follows Karpenter's ``provisioner.go`` (``Schedule``: ``nodes.Deleting().
CurrentlyReschedulablePods``), ``state/statenode.go`` (``MarkedForDeletion``),
``utils/pod/scheduling.go`` (``IsReschedulable``) and ``utils/pdb/pdb.go``
(``IsCurrentlyReschedulable``).
"""

from __future__ import annotations

from dataclasses import replace

from ...model import Pod, Snapshot
from .donotdisrupt import reads_durations

# PodDisruptionBudget settings that allow no eviction whatever the pod count
_FULLY_BLOCKING_MAX_UNAVAILABLE = ("0", "0%")
_FULLY_BLOCKING_MIN_AVAILABLE = "100%"


def marked_for_deletion(node, claim) -> bool:
    """Karpenter's MarkedForDeletion as a snapshot shows it: the NodeClaim is being deleted, or
    (no NodeClaim) the Node is."""
    if claim is not None:
        return claim.deleted is not None
    return node.deleted is not None


def _fully_blocked(pod: Pod, snapshot: Snapshot) -> bool:
    """A PDB (or more than one) stops this pod's eviction however many pods are healthy."""
    guards = [pdb for pdb in snapshot.pdbs if pdb.selects(pod)]
    if len(guards) > 1:
        return True
    return any(pdb.max_unavailable in _FULLY_BLOCKING_MAX_UNAVAILABLE
               or pdb.min_available == _FULLY_BLOCKING_MIN_AVAILABLE for pdb in guards)


def currently_reschedulable(pod: Pod, snapshot: Snapshot, now) -> bool:
    """Whether Karpenter provisions for ``pod`` while its node is being deleted."""
    active = not pod.is_terminal and pod.deleted is None
    stateful_leaving = pod.deleted is not None and not pod.is_terminal and pod.owner_kind == "StatefulSet"
    if not (active or stateful_leaving) or pod.is_daemonset_pod or pod.is_mirror:
        return False
    if active and pod.blocks_disruption(now, durations=reads_durations(snapshot)):
        return False
    return not (active and _fully_blocked(pod, snapshot))


def pods_to_reschedule(snapshot: Snapshot, state) -> list[Pod]:
    """The pods on nodes being deleted that Karpenter schedules again, as pending pods (unbound
    copies), node by node."""
    claims = snapshot.nodeclaim_by_node
    now = None   # the snapshot's moment, asked only once a node is being deleted (it reads every object)
    out = []
    for i, node in enumerate(state.nodes):
        if not marked_for_deletion(node, claims.get(node.name)):
            continue
        if now is None:
            now = snapshot.as_of
        out += [replace(p, node_name="", phase="Pending") for p in state.pods[i]
                if currently_reschedulable(p, snapshot, now)]
    return out
