"""The cluster at a past moment: a snapshot captured at or before it, brought forward by the log.

Between the capture and the moment, the log tells of NodeClaims launched and nodes gone. A node gone
(deleted, disrupted, drained or interrupted) that held no pod but DaemonSet pods is taken away; a
NodeClaim launched is added as the node Karpenter made (its type, zone, capacity type and NodePool from
the log, its node's name; the what-if's ``addNodes``, the one owner of "a node as Karpenter launches
it", with the NodePool's labels and taints and the DaemonSets' pods), created at its launch.

The state is *known well enough* (docs/history.md, "Decision audit") when, besides a capture at or
before the moment:

- every node the decision names is in the brought-forward state;
- every NodeClaim launched between the capture and the moment has its instance type, zone, capacity
  type and NodePool in the log, and its NodePool is in the snapshot;
- no pod is known to have changed: no node that held pods (other than DaemonSet pods) went in between
  (where its pods went is not in the log), no NodeClaim was launched for pods when the snapshot holds
  none pending, and no "found provisionable pod(s)" line tells of pods the snapshot does not hold pending.

Otherwise :func:`state_at` says what is missing, in one sentence, and gives no state.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import UTC, datetime

from ..errors import InputError
from ..model import Snapshot
from ..sim.karpenter.disruption.candidates import reschedulable
from .life import Life
from .timeline import Timeline

_LEAVING = ("cordon_and_drain", "delete")   # interruption actions that take the node away


def moment(when: datetime | None) -> str:
    """An instant as a decision's sentences say it: ``2024-09-10 02:31:00Z``."""
    return when.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%SZ") if when is not None else "an unknown time"


@dataclass(frozen=True)
class StateAt:
    """The brought-forward snapshot (clock at the moment), or ``unknown``: why the state is not known."""

    snapshot: Snapshot | None
    unknown: str = ""
    described: str = ""


def state_at(snapshot: Snapshot, timeline: Timeline, at: datetime | None, named: Iterable[str] = (),
             exclude: str = "", catalog=None) -> StateAt:
    """The cluster at ``at`` from ``snapshot`` and ``timeline`` (the whole input's), for a decision naming
    the nodes (or NodeClaims) ``named``; ``exclude`` is that decision's line (its own disruption is not
    something that happened before it)."""
    captured = snapshot.as_of
    if at is None:
        return StateAt(None, "the decision's line has no time")
    if captured is None:
        return StateAt(None, "the snapshot has no time to start from (no capture time, no timestamps)")
    if at < captured:
        return StateAt(None, f"no snapshot at or before {moment(at)}: the snapshot's cluster is as of "
                             f"{moment(captured)}")
    nodes = snapshot.node_by_name
    node_of = {c.name: n for n, c in snapshot.nodeclaim_by_node.items()}
    pending = {p.key for p in snapshot.pending_pods}
    pools = {p.name for p in snapshot.nodepools}
    as_of = f"the snapshot's pods are as of {moment(captured)}"
    removed: dict[str, datetime] = {}
    added: list[tuple[datetime, Life, str]] = []
    missing: dict[str, str] = {}      # node or NodeClaim -> what the log lacks of its launch
    problems: list[str] = []
    for life in timeline.lives:
        node = life.node or node_of.get(life.nodeclaim, "")
        known = node in nodes or life.nodeclaim in node_of
        went = _went(life, captured, at, exclude)
        if known and went is not None:
            what, when = went
            pods = reschedulable(p for p in snapshot.pods if p.node_name == node)
            if pods:
                problems.append(f"pods changed since the capture: {node} was {what} at {moment(when)} with "
                                f"{len(pods)} pod(s), and the log does not say where they went; {as_of}")
            else:
                removed[node] = when
            continue
        began = life.launched or life.registered or life.initialized or life.created
        if known or began is None or not captured < began < at or went is not None:
            continue
        lacking = [w for w, v in (("instance type", life.instance_type), ("zone", life.zone),
                                  ("capacity type", life.capacity_type), ("NodePool", life.nodepool)) if not v]
        if lacking:
            missing[life.nodeclaim] = missing[node or life.nodeclaim] = (
                f"the log after the capture misses {life.nodeclaim}'s launch ({', '.join(lacking)} not logged)")
            continue
        if life.nodepool not in pools:
            missing[life.nodeclaim] = missing[node or life.nodeclaim] = (
                f"{life.nodeclaim} was launched for NodePool {life.nodepool}, which the snapshot does not hold")
            continue
        if not pending and not life.replaces:
            problems.append(f"pods changed since the capture: {life.nodeclaim} was launched at {moment(began)} for "
                            f"pods the snapshot does not hold (it has no pending pods); {as_of}")
        added.append((began, life, node or life.nodeclaim))
    for when, count, pods in timeline.provisionable:
        if captured < when < at and (count > len(pending) or any(p not in pending for p in pods)):
            problems.append(f"pods changed since the capture: Karpenter found {count} provisionable pod(s) at "
                            f"{moment(when)} that the snapshot does not hold pending; {as_of}")
            break
    present = (set(nodes) - set(removed)) | {name for _, _, name in added}
    claims_present = {c for c, n in node_of.items() if n in present} | {life.nodeclaim for _, life, _ in added}
    for name in named:
        if name in present or name in claims_present:
            continue
        if name in missing:
            return StateAt(None, missing[name])
        if name in removed:
            return StateAt(None, f"{name} was gone at {moment(removed[name])}, before the decision")
        return StateAt(None, f"{name} is in neither the snapshot (as of {moment(captured)}) nor the log's "
                             "launches after it")
    if problems:
        return StateAt(None, problems[0])
    if missing:
        return StateAt(None, next(iter(missing.values())))
    try:
        brought = _brought(snapshot, removed, added, catalog)
    except InputError as error:   # a launched type the catalog does not offer there: said, not guessed
        return StateAt(None, f"the launches after the capture cannot be added: {error.message}")
    described = (f"the snapshot as of {moment(captured)}, brought to {moment(at)}: "
                 f"{len(added)} NodeClaim(s) launched and {len(removed)} node(s) gone since")
    return StateAt(replace(brought, meta=replace(brought.meta, captured_at=at)), "", described)


def _went(life: Life, captured: datetime, at: datetime, exclude: str) -> tuple[str, datetime] | None:
    """How and when the node began to go between the capture and ``at`` (its first such line), if it did."""
    seen = []
    if life.disruption is not None and life.disruption.line != exclude and life.disrupted is not None:
        seen.append(("disrupted", life.disrupted))
    if life.drained is not None and not (life.disruption is not None and life.disruption.line == exclude):
        seen.append(("drained", life.drained))
    if life.interruption is not None and life.interruption.action in _LEAVING and life.interruption.time is not None:
        seen.append(("interrupted", life.interruption.time))
    if life.terminated is not None:
        seen.append(("deleted", life.terminated))
    inside = [(what, when) for what, when in seen if captured < when < at]
    return min(inside, key=lambda s: s[1]) if inside else None


def _brought(snapshot: Snapshot, removed: dict[str, datetime], added: list[tuple[datetime, Life, str]],
             catalog) -> Snapshot:
    """The snapshot with the gone nodes drained away and the launched ones added, each at its time."""
    from ..whatif.apply import apply_whatif
    from ..whatif.edits import AddNodes, RemoveNode, WhatIf

    if removed:
        snapshot = apply_whatif(snapshot, WhatIf("history", tuple(RemoveNode(n) for n in sorted(removed))),
                                catalog=catalog).snapshot
    for when, life, name in sorted(added, key=lambda a: (a[0], a[2])):
        edit = AddNodes(life.instance_type, life.zone, capacity_type=life.capacity_type, nodepool=life.nodepool,
                        names=(name,))
        snapshot = apply_whatif(snapshot, WhatIf("history", (edit,)), now=when, catalog=catalog).snapshot
    return snapshot
