"""Capacity buffers as the panes show them: the virtual pods Karpenter provisions room for.

They are no pods of the cluster, and an operator must not take them for pending user pods: the
Pending pane lists them after the pending pods, grouped by their CapacityBuffer and marked as
buffer pods (:func:`buffer_groups`), with where the provisioning pass put each; a node's drill-in
says which of them fit on it, and so why the emptiness method leaves it alone
(:func:`node_buffer_lines`). Everything comes from the simulation's tally
(:class:`karptui.sim.karpenter.buffers.BufferTally`); the text is plain, never markup.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..model.quantity import human_bytes
from ..model.resources import CPU, MEMORY
from ..sim.karpenter.buffers import COMING, NEW, NODE, NOWHERE
from .format import cpu
from .nodes import short_name

MARK = "◇"   # a buffer pod's row: not a pod of the cluster


@dataclass(frozen=True)
class BufferPodRow:
    key: str            # namespace/capacity-buffer-<name>-<i>
    buffer: str         # its CapacityBuffer, namespace/name
    cpu: int
    memory: int
    where: str          # NODE, COMING, NEW or NOWHERE
    place: str          # the node's or NodeClaim's name, or why it has no place

    @property
    def simulated(self) -> str:
        """The Pending pane's "simulated" cell for it."""
        if self.where == NODE:
            return f"fits {short_name(self.place)}"
        if self.where == COMING:
            return f"on {short_name(self.place)} (coming up)"
        if self.where == NEW:
            return f"new {self.place}"
        return "no place"

    def cells(self) -> tuple[str, ...]:
        """Its row in the Pending pane's columns: marked, and plainly no pending pod of the cluster."""
        return (f"  {MARK} {self.key}", cpu(self.cpu), human_bytes(self.memory), "-", self.simulated,
                "virtual: not a pending pod", "-")

    def words(self) -> str:
        """Where the provisioning pass put it, in a sentence."""
        if self.where == NODE:
            return f"fits on node {self.place}: Karpenter counts that room as taken for this pass"
        if self.where == COMING:
            return f"fits on node {self.place}, which is still coming up"
        if self.where == NEW:
            return f"needs new capacity: Karpenter launches NodeClaim {self.place} for it"
        return f"no place: {self.place}" if self.place else "no place"


@dataclass(frozen=True)
class BufferGroup:
    """One CapacityBuffer in the Pending pane: what Karpenter makes of it, and its virtual pods."""

    buffer: str
    ready: bool
    replicas: int | None
    reason: str
    message: str
    from_status: bool
    provisioning: str        # the Provisioning condition's reason the pass writes ("" when left as is)
    provisioning_message: str
    rows: tuple[BufferPodRow, ...]

    def cells(self) -> tuple[str, ...]:
        """The group's header row in the Pending pane's columns (pod, cpu, memory, age, simulated,
        reason, Karpenter): plainly virtual pods, not pending ones."""
        if not self.ready:
            return (f"▼ not ready · CapacityBuffer {self.buffer}", "", "", "", "no buffer pods",
                    f"not ready for provisioning: {self.reason}", "-")
        count = len(self.rows)
        # the buffer's name last: a narrow column keeps a cell's start and end
        return (f"▼ {count} buffer pod{'s' if count != 1 else ''} · CapacityBuffer {self.buffer}", "", "", "",
                _placement(self.rows, short=True), "virtual: not pending pods",
                self.provisioning or "-")

    def lines(self) -> list[str]:
        """The detail strip on the buffer's header row (on one of its pods, :func:`buffer_detail` adds a line)."""
        source = ("its status, as the buffer controller last wrote it" if self.from_status
                  else "its spec, as the buffer controller's next reconcile resolves it")
        out = [f"CapacityBuffer {self.buffer}: room Karpenter keeps for virtual pods, no pods of the cluster; "
               f"read from {source}"]
        if not self.ready:
            out.append(f"not ready for provisioning: {self.reason}" + (f" ({self.message})" if self.message else ""))
            return out
        out.append(f"{self.replicas} buffer pod(s): " + _placement(self.rows))
        if self.provisioning:
            out.append(f"Provisioning: {self.provisioning}"
                       + (f": {self.provisioning_message}" if self.provisioning_message else ""))
        return out


def _placement(rows, short: bool = False) -> str:
    """How many of the pods went where: ``1 on existing nodes, 1 on new NodeClaims`` (``short``:
    ``1 fit, 1 new``, for a table cell)."""
    counts = {NODE: 0, COMING: 0, NEW: 0, NOWHERE: 0}
    for row in rows:
        counts[row.where] += 1
    names = ({NODE: "fit", COMING: "coming up", NEW: "new", NOWHERE: "no place"} if short else
             {NODE: "on existing nodes", COMING: "on nodes coming up", NEW: "on new NodeClaims",
              NOWHERE: "with no place"})
    return ", ".join(f"{n} {names[where]}" for where, n in counts.items() if n) or "none placed"


def buffer_groups(tally) -> list[BufferGroup]:
    """Every CapacityBuffer the simulation resolved, with its virtual pods where the provisioning
    pass put them; [] without a tally (no buffer, or the CapacityBuffer gate off)."""
    if tally is None:
        return []
    rows: dict[str, list[BufferPodRow]] = {}
    for key, buffer, where, place in tally.placed:
        pod = tally.pods.get(key)
        requests = pod.requests if pod is not None else {}
        rows.setdefault(buffer, []).append(BufferPodRow(key, buffer, requests.get(CPU, 0), requests.get(MEMORY, 0),
                                                        where, place))
    out = []
    for key, r in sorted(tally.found.items()):
        _, reason, message = tally.provisioning(r)
        out.append(BufferGroup(key, r.ready_for_provisioning and r.ready, r.replicas, r.reason, r.message,
                               r.from_status, reason, message, tuple(rows.get(key, ()))))
    return out


def buffer_detail(groups: dict[str, BufferGroup], kind: str, name: str) -> list[str]:
    """The Pending pane's detail strip on a buffer's header row (``kind`` "buffer", ``name`` its key) or
    on one of its virtual pods ("bufferpod", the pod's key); [] when it is no longer there."""
    if kind == "buffer":
        group = groups.get(name)
        return group.lines() if group is not None else []
    for group in groups.values():
        for row in group.rows:
            if row.key == name:
                return [f"{MARK} {row.key}: a buffer pod, virtual (Karpenter's own, never an API object, not a "
                        f"pending pod of the cluster); it {row.words()}", *group.lines()]
    return []


def node_buffer_lines(tally, node: str) -> list[str]:
    """A node drill-in's buffer pods section: the virtual pods that fit on it this pass, by buffer, and
    what that means for disruption; [] when none do."""
    if tally is None:
        return []
    mine: dict[str, list[str]] = {}
    for key, buffer, where, place in tally.placed:
        if place == node and where in (NODE, COMING):
            mine.setdefault(buffer, []).append(key.partition("/")[2])
    if not mine:
        return []
    total = sum(len(v) for v in mine.values())
    out = [f"{len(pods)} of CapacityBuffer {buffer}: {', '.join(pods)}" for buffer, pods in sorted(mine.items())]
    return out + [f"Karpenter counts {total} buffer pod(s) on this node (virtual pods, no pods of the cluster): "
                  "while they fit here the emptiness method does not take it for empty (\"has buffer pods\"), "
                  "and consolidation keeps room for them wherever it moves pods"]
