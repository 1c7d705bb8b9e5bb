"""``kubectl drain`` then delete: the node's pods are evicted through the eviction API, which
honours PodDisruptionBudgets; only then does the node go.

References: staging/src/k8s.io/kubectl/pkg/drain (filters.go: DaemonSet pods are left to their
controller, as ``--ignore-daemonsets`` says; mirror pods cannot be evicted and go with the node;
pods no controller owns are deleted only with ``--force`` and nothing re-creates them), the
eviction subresource (a pod guarded by a PDB allowing no disruption is refused with 429 and
``kubectl drain`` retries; a pod selected by more than one PDB is refused outright), and
pkg/controller/disruption (``disruptionsAllowed``). Only the drained node's pods are evicted;
every other pod stays where it is.

A what-if answers at one moment: pods whose PDB allows no disruption now are **blocked**, the
drain cannot finish, and the node stays (cordoned) with them; a PDB that allows fewer evictions
than it guards pods on the node lets the rest go in later rounds, once the first ones'
replacements are Ready (said in the notes, since it needs them to be placed).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from ...model.pod import PENDING, Pod
from ..edits import RemoveNode
from .daemon import pinned_node
from .nodes import cordoned

if TYPE_CHECKING:
    from ..apply import Run


@dataclass(frozen=True)
class Drain:
    """What draining one node did: pods evicted, blocked (with why), lost, and whether it went."""

    node: str
    removed: bool
    evicted: tuple[str, ...] = ()               # finished pods too: the drain deletes them
    blocked: tuple[tuple[str, str], ...] = ()   # (pod key, why)
    lost: tuple[str, ...] = ()                  # no controller: deleted, nothing re-creates them
    later: tuple[tuple[str, int, int], ...] = field(default=())  # (PDB, allowed now, pods it guards here)

    def to_dict(self) -> dict:
        return {"node": self.node, "removed": self.removed, "evicted": list(self.evicted),
                "blocked": [{"pod": pod, "why": why} for pod, why in self.blocked], "lost": list(self.lost),
                "rounds": [{"pdb": pdb, "allowed": allowed, "pods": pods} for pdb, allowed, pods in self.later]}


def drain(run: Run, edit: RemoveNode) -> None:
    snap = run.snapshot
    _, node = run.find(edit.target)
    on_node = [p for p in snap.pods if p.node_name == node.name]
    evictable = [p for p in on_node if not (p.is_daemonset_pod or p.is_terminal or p.is_mirror)
                 and p.controller is not None and p.deleted is None]
    lost = [p for p in on_node if not (p.is_daemonset_pod or p.is_terminal or p.is_mirror) and p.controller is None]
    finished = [p for p in on_node if p.is_terminal and not p.is_mirror]   # deleted by the drain, nothing to re-make
    allowed: dict[str, int] = {}
    guarded: dict[str, int] = {}
    blocked: list[tuple[Pod, str]] = []
    evicted: list[Pod] = []
    for pod in evictable:
        guards = [pdb for pdb in snap.pdbs if pdb.selects(pod)]
        if len(guards) > 1:
            names = ", ".join(g.key for g in guards)
            blocked.append((pod, f"more than one PodDisruptionBudget selects it ({names}): eviction refused"))
            continue
        if guards:
            pdb = guards[0]
            if pdb.key not in allowed:
                allowed[pdb.key] = pdb.allowed(snap.pods)
            guarded[pdb.key] = guarded.get(pdb.key, 0) + 1
            if allowed[pdb.key] == 0:
                blocked.append((pod, f"PodDisruptionBudget {pdb.key} allows 0 disruptions now"))
                continue
        evicted.append(pod)
    later = tuple((key, allowed[key], guarded[key]) for key in sorted(guarded) if 0 < allowed[key] < guarded[key])
    outcome = Drain(node.name, not blocked, tuple(p.key for p in evicted + finished),
                    tuple((p.key, why) for p, why in blocked),
                    tuple(p.key for p in lost), later)
    run.drains.append(outcome)
    moving = {id(p) for p in evicted}
    gone = moving | {id(p) for p in lost} | {id(p) for p in finished}
    if outcome.removed:  # its DaemonSet and mirror pods go with it, and pending daemon pods pinned to it
        gone |= {id(p) for p in on_node}
        gone |= {id(p) for p in snap.pods if not p.node_name and p.is_daemonset_pod and pinned_node(p) == node.name}
    pods: list[Pod] = []
    for pod in snap.pods:
        if id(pod) in moving:
            # the eviction deletes the pod and its controller makes another: pending, waiting for a node
            pods.append(replace(pod, node_name="", phase=PENDING, scheduled_reason="", scheduled_message="",
                                nominated_node="", ready=False, ready_since=None))
        elif id(pod) not in gone:
            pods.append(replace(pod, nominated_node="") if pod.nominated_node == node.name else pod)
    if outcome.removed:
        claim = snap.nodeclaim_by_node.get(node.name)
        run.snapshot = replace(snap, nodes=tuple(n for n in snap.nodes if n is not node),
                               nodeclaims=tuple(c for c in snap.nodeclaims if c is not claim), pods=tuple(pods))
    else:
        run.snapshot = replace(snap, nodes=tuple(cordoned(n, True) if n is node else n for n in snap.nodes),
                               pods=tuple(pods))
    run.notes.append(_words(edit, outcome, sum(1 for p in on_node if p.is_daemonset_pod)))


def _words(edit: RemoveNode, drain: Drain, daemons: int) -> str:
    if drain.removed:
        note = (f"{edit.target} drained and removed: {len(drain.evicted)} pod(s) evicted; "
                f"{daemons} DaemonSet pod(s) gone with it")
    else:
        whys = sorted({why for _, why in drain.blocked})
        note = (f"{edit.target} cannot be drained: {len(drain.blocked)} eviction(s) blocked ({'; '.join(whys)}); "
                f"the node stays, cordoned; {len(drain.evicted)} other pod(s) evicted, pending again")
    if drain.lost:
        note += f", {len(drain.lost)} pod(s) without a controller lost"
    for pdb, allowed, pods in drain.later:
        note += (f"; PodDisruptionBudget {pdb} allows {allowed} at a time for its {pods} pod(s) here: the rest are "
                 "evicted once the first replacements are Ready")
    return note
