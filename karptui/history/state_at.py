"""The cluster at a past moment: a snapshot captured at or before it, brought forward by the log.

Between the capture and the moment, the log tells of NodeClaims launched and nodes gone. A node gone
(deleted, disrupted, drained or interrupted) that held no pod but DaemonSet pods is taken away; a
NodeClaim launched is added as the node Karpenter made (its type, zone, capacity type and NodePool from
the log, its node's name; the what-if's ``addNodes``, the one owner of "a node as Karpenter launches
it", with the NodePool's labels and taints and the DaemonSets' pods), created at its launch.

The state is *known well enough* (docs/history.md, "Decision audit") when, besides a capture at or
before the moment:

- every node the decision names is in the brought-forward state;
- every NodeClaim launched between the capture and the moment, and still there, has its instance type,
  zone, capacity type and NodePool in the log, and its NodePool is in the snapshot (one that never
  launched held no pod);
- no pod is known to have changed: no node that held pods (other than DaemonSet pods) went in between
  (where its pods went is not in the log), no NodeClaim was launched for pods when the snapshot holds
  none pending, and no "found provisionable pod(s)" line tells of pods the snapshot does not hold pending.

Otherwise :func:`state_at` says what is missing, in one sentence, and gives no state.

A recording (``karptui record``) needs no bringing forward: :class:`Recorded` gives its own state just
before the moment, read as every reader of a recording reads it (``Recording.snapshot_at``: the newest
checkpoint at or before it and the intervals after).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta

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


class Forward:
    """What the whole input says happened after the snapshot's capture, read once; :meth:`at` gives the
    cluster at any later moment. A decision after the first change that spoils the snapshot's pods is
    answered at once (a day's log has thousands of decisions and tens of thousands of NodeClaims)."""

    def __init__(self, snapshot: Snapshot, timeline: Timeline, catalog=None) -> None:
        self.snapshot, self.catalog = snapshot, catalog
        self.captured = captured = snapshot.as_of
        self.nodes = nodes = snapshot.node_by_name
        self.node_of = node_of = {c.name: n for n, c in snapshot.nodeclaim_by_node.items()}
        pending = {p.key for p in snapshot.pending_pods}
        pools = {p.name for p in snapshot.nodepools}
        self.went: dict[str, tuple[str, datetime]] = {}              # node or NodeClaim -> how and when it went
        self.launches: list[tuple[datetime, Life, str]] = []          # launched after the capture, with its node
        self.lacking: dict[str, tuple[datetime, str]] = {}            # node or NodeClaim -> its launch's gap
        # (from when, until when or None, why) the state is not known: pods moved or came, a launch's gap
        spoilers: list[tuple[datetime, datetime | None, str]] = []
        if captured is None:
            self.spoilers = spoilers
            return
        as_of = f"the snapshot's pods are as of {moment(captured)}"
        for life in timeline.lives:
            node = life.node or node_of.get(life.nodeclaim, "")
            known = node in nodes or life.nodeclaim in node_of
            went = _went(life, captured)
            if went is not None:
                for name in {node, life.nodeclaim} - {""}:
                    self.went[name] = went
            if known:
                pods = reschedulable(snapshot.pods_by_node.get(node, ())) if went is not None else ()
                if pods:
                    what, when = went
                    why = (f"pods changed since the capture: {node} was {what} at {moment(when)} with {len(pods)} "
                           f"pod(s), and the log does not say where they went; {as_of}")
                    spoilers.append((when, None, why))
                continue
            began = life.launched or life.registered or life.initialized   # one never launched holds no pod
            if began is None or began <= captured:
                continue
            gaps = [w for w, v in (("instance type", life.instance_type), ("zone", life.zone),
                                   ("capacity type", life.capacity_type), ("NodePool", life.nodepool)) if not v]
            gap = (f"the log after the capture misses {life.nodeclaim}'s launch ({', '.join(gaps)} not logged)"
                   if gaps else "" if life.nodepool in pools else
                   f"{life.nodeclaim} was launched for NodePool {life.nodepool}, which the snapshot does not hold")
            if gap:
                for name in {node, life.nodeclaim} - {""}:
                    self.lacking[name] = (began, gap)
                spoilers.append((began, went[1] if went is not None else None, gap))   # while it runs
                continue
            if not pending and not life.replaces:
                why = (f"pods changed since the capture: {life.nodeclaim} was launched at {moment(began)} for pods "
                       f"the snapshot does not hold (it has no pending pods); {as_of}")
                spoilers.append((began, None, why))
            self.launches.append((began, life, node or life.nodeclaim))
        for when, count, pods in timeline.provisionable:
            if captured < when and (count > len(pending) or any(p not in pending for p in pods)):
                why = (f"pods changed since the capture: Karpenter found {count} provisionable pod(s) at "
                       f"{moment(when)} that the snapshot does not hold pending; {as_of}")
                spoilers.append((when, None, why))
        spoilers.sort(key=lambda s: s[0])
        self.spoilers = spoilers
        self.launches.sort(key=lambda a: (a[0], a[2]))
        self.launched = {name: when for when, life, node in self.launches for name in (node, life.nodeclaim)}

    def at(self, at: datetime | None, named: Iterable[str] = ()) -> StateAt:
        """The cluster at ``at`` for a decision naming the nodes (or NodeClaims) ``named``: what happened
        strictly before it counts (the decision's own lines come at or after it)."""
        captured = self.captured
        if at is None:
            return StateAt(None, "the decision's line has no time")
        if captured is None:
            return StateAt(None, "the snapshot has no time to start from (no capture time, no timestamps)")
        if at < captured:
            return StateAt(None, f"no snapshot at or before {moment(at)}: the snapshot's cluster is as of "
                                 f"{moment(captured)}")
        for name in named:
            went = self.went.get(name)
            if went is not None and went[1] < at:
                return StateAt(None, f"{name} was gone at {moment(went[1])}, before the decision")
            if name in self.nodes or name in self.node_of:
                continue
            if name in self.lacking and self.lacking[name][0] < at:
                return StateAt(None, self.lacking[name][1])
            if not self.launched.get(name, at) < at:
                return StateAt(None, f"{name} is in neither the snapshot (as of {moment(captured)}) nor the log's "
                                     "launches after it")
        for start, end, why in self.spoilers:
            if start >= at:
                break
            if end is None or at <= end:
                return StateAt(None, why)
        removed = sorted(n for n, (_, when) in self.went.items() if when < at and n in self.nodes)
        added = [(when, life, node) for when, life, node in self.launches
                 if when < at and not (node in self.went and self.went[node][1] < at)]
        try:
            brought = _brought(self.snapshot, removed, added, self.catalog)
        except InputError as error:   # a launched type the catalog does not offer there: said, not guessed
            return StateAt(None, f"the launches after the capture cannot be added: {error.message}")
        described = (f"the snapshot as of {moment(captured)}, brought to {moment(at)}: "
                     f"{len(added)} NodeClaim(s) launched and {len(removed)} node(s) gone since")
        return StateAt(replace(brought, meta=replace(brought.meta, captured_at=at)), "", described)


class Recorded:
    """The cluster at past moments from a recording: what it recorded strictly before each (a decision's own
    changes come at or after it), with the clock at the moment. Known, not brought forward, so the only
    unknowns are a moment outside the recording and a named node it did not hold then. ``prepare``: what
    the caller does to every snapshot (the Karpenter version and settings given on its command line)."""

    def __init__(self, recording, prepare: Callable[[Snapshot], Snapshot] = lambda s: s) -> None:
        self.recording, self.prepare = recording, prepare

    def at(self, at: datetime | None, named: Iterable[str] = ()) -> StateAt:
        rec = self.recording
        if at is None:
            return StateAt(None, "the decision's line has no time")
        before = at - timedelta(microseconds=1)
        if before < rec.start:
            return StateAt(None, f"no recorded state before {moment(at)}: the recording begins at {moment(rec.start)}")
        if at > rec.end:
            return StateAt(None, f"the recording ends at {moment(rec.end)}, before the decision")
        snapshot = self.prepare(rec.snapshot_at(before))
        claims = {c.name for c in snapshot.nodeclaims}
        for name in named:
            if name not in snapshot.node_by_name and name not in claims:
                return StateAt(None, f"{name} is not in the recording's state before {moment(at)}")
        return StateAt(replace(snapshot, meta=replace(snapshot.meta, captured_at=at)), "",
                       f"the recording's state as at {moment(at)}")


def state_at(snapshot: Snapshot, timeline: Timeline, at: datetime | None, named: Iterable[str] = (),
             catalog=None) -> StateAt:
    """The cluster at ``at`` from ``snapshot`` and ``timeline`` (the whole input's), for a decision naming
    ``named`` (one moment; :class:`Forward` answers many)."""
    return Forward(snapshot, timeline, catalog).at(at, named)


def _went(life: Life, captured: datetime) -> tuple[str, datetime] | None:
    """How and when the node began to go after the capture (its first such line), if it did."""
    seen = []
    if life.disrupted is not None:
        seen.append(("disrupted", life.disrupted))
    if life.drained is not None:
        seen.append(("drained", life.drained))
    if life.interruption is not None and life.interruption.action in _LEAVING and life.interruption.time is not None:
        seen.append(("interrupted", life.interruption.time))
    if life.gone is not None:
        seen.append(("deleted", life.gone))
    after = [(what, when) for what, when in seen if captured < when]
    return min(after, key=lambda s: s[1]) if after else None


def _brought(snapshot: Snapshot, removed: list[str], added: list[tuple[datetime, Life, str]],
             catalog) -> Snapshot:
    """The snapshot with the gone nodes drained away and the launched ones added, each at its time."""
    from ..whatif.apply import apply_whatif
    from ..whatif.edits import AddNodes, RemoveNode, WhatIf

    if removed:
        snapshot = apply_whatif(snapshot, WhatIf("history", tuple(RemoveNode(n) for n in removed)),
                                catalog=catalog).snapshot
    for when, life, name in added:
        edit = AddNodes(life.instance_type, life.zone, capacity_type=life.capacity_type, nodepool=life.nodepool,
                        names=(name,))
        snapshot = apply_whatif(snapshot, WhatIf("history", (edit,)), now=when, catalog=catalog).snapshot
    return snapshot
