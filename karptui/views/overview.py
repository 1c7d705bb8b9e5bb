"""What the TUI shows of one snapshot, derived once per snapshot.

Sorting, filtering and redraws only regroup what is here. In live mode a new
snapshot's overview is built in a worker thread, node cells formatted and all,
so the screen only swaps it in.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from functools import cached_property
from pathlib import PurePath
from typing import Any

from ..logs.timeline import snapshot_events
from ..model import Pod, Snapshot
from .cost import Cost, CostPath, node_cost, node_costs_total
from .format import counted
from .info import karpenter_words, snapshot_info
from .nodes import NodeIndex, NodeRow, node_cells, node_rows
from .pending import PendingRow, pending_rows


@dataclass(frozen=True, eq=False)
class Overview:
    snapshot: Snapshot
    now: datetime
    prices: dict[str, float | None]
    node_rows: list[NodeRow]
    pending: list[PendingRow]
    pod_by_key: dict[str, Pod]
    totals: str
    karpenter_events: list[dict] = field(default_factory=list)  # the snapshot's, as log records, oldest first
    cost: Cost = field(default_factory=lambda: Cost(0.0))       # the nodes' cost now (views.cost)
    namespace: str | None = None                                 # -n NS: the pending rows are its pods
    recorded: bool = False                                       # a recording's state: its moment is ``now``
    _cells: dict[str, tuple[str, ...]] = field(default_factory=dict, repr=False)

    @cached_property
    def scheduling_key(self) -> tuple:
        """What a simulation's answer depends on, roughly: the pending pods and each node's load.
        A live update that leaves it alone (a label, a status line) needs no new simulation. A recording's
        moment counts too: two moments with the same objects are not the same answer when a budget's
        schedule, consolidateAfter or a do-not-disrupt duration ends between them (scrubbing to 03:12:05
        must not show the answer simulated at 03:00)."""
        return (tuple(sorted(r.key for r in self.pending)),
                tuple((r.name, r.pods, r.cpu_requested, r.memory_requested, r.unschedulable, r.ready)
                      for r in self.node_rows), self.now if self.recorded else None)
        # (cached: an overview never changes, and every pane switch and simulation answer asks for it)

    @cached_property
    def node_index(self) -> NodeIndex:
        """The Nodes pane's zones and sort orders, worked out once for this snapshot."""
        return NodeIndex(self.node_rows)

    def cells(self, row: NodeRow) -> tuple[str, ...]:
        """The node's table cells, formatted on first use."""
        found = self._cells.get(row.name)
        if found is None:
            found = self._cells[row.name] = node_cells(row, self.now)
        return found


def overview(snapshot: Snapshot, catalog: Any, events: list[dict], now: datetime, live: bool = False,
             format_cells: bool = False, time_note: str = "", namespace: str | None = None,
             recorded: bool = False) -> Overview:
    """``time_note``: why ``now`` is what it is, when it is not the capture time (:mod:`.clock`);
    ``namespace``: the pending pods shown are that namespace's (``-n NS`` on a snapshot); ``recorded``:
    a recording's state, whose moment the header names first (:func:`.clock.recorded_moment`)."""
    # imported here: `simulate` imports this module for in_namespace alone
    from .details import prepare_node_detail

    prepare_node_detail(snapshot)
    costs = {n.name: node_cost(n, catalog) for n in snapshot.nodes}  # each node's offering, looked up once
    prices = {name: None if c.unpriced else c.hourly for name, c in costs.items()}
    rows = node_rows(snapshot, prices, {name for name, c in costs.items() if c.estimated_prices},
                     {name for name, c in costs.items() if c.discounted})
    karpenter_events = snapshot_events(snapshot)  # read once: the Activity pane and the pending stories share them
    pending = shown_pending(snapshot, events, karpenter_events, namespace)
    cost = node_costs_total(costs.values())
    built = Overview(snapshot, now, prices, rows, pending, {p.key: p for p in snapshot.pods},
                     header_totals(snapshot, now, live, time_note, namespace, recorded), karpenter_events, cost=cost,
                     namespace=namespace, recorded=recorded)
    if format_cells:
        for row in rows:
            built.cells(row)
    return built


def in_namespace(key: str, namespace: str) -> bool:
    """Whether ``namespace/name`` is in ``namespace``."""
    return key.partition("/")[0] == namespace


def shown_pending(snapshot: Snapshot, events: list[dict], karpenter_events: list[dict],
                  namespace: str | None = None) -> list[PendingRow]:
    """The Pending pane's rows: every pending pod, or those of ``namespace`` (``-n NS``)."""
    rows = pending_rows(snapshot, events, karpenter_events)
    return [r for r in rows if in_namespace(r.key, namespace)] if namespace else rows


def header_totals(snapshot: Snapshot, now: datetime, live: bool = False, time_note: str = "",
                  namespace: str | None = None, recorded: bool = False) -> str:
    """The header's fixed part: where from, when, counts (the cost follows: :func:`header_cost`). A
    recording's state is not said again as a capture time: its moment opens the header."""
    info = snapshot_info(snapshot)
    # the file's name, not its path: the header has one line to spend (`snapshot info` prints the path)
    where = info["name"] or PurePath(info["source"] or "snapshot").name
    when = f" captured {info['captured_at']}" if info["captured_at"] and not recorded else ""
    if live:
        where, when = f"live {snapshot.meta.context}", f" updated {now.astimezone().strftime('%H:%M:%S')}"
    elif time_note:
        when = f" · {time_note} ({now:%Y-%m-%d %H:%M %Z})"
    shown = f" · pods of namespace {namespace} (simulated: whole cluster)" if namespace and not live else ""
    return (f"{where}{when} · {karpenter_words(info['karpenter_version'], info['karpenter_settings'])} · {counted(info['nodes'], 'node')} · "
            f"{counted(info['pods'], 'pod')} · {info['pending']:,} pending · "
            f"{counted(info['nodepools'], 'nodepool')}{shown}")


def header_simulated(scheduled: int, launched: int) -> str:
    """The header's word on the simulation: ``simulated: 6 pods placed, 3 NodeClaims launched``."""
    return f"simulated: {counted(scheduled, 'pod')} placed, {counted(launched, 'NodeClaim')} launched"


def header_cost(path: CostPath) -> str:
    """The header's cost: now, and after the simulated launches once the simulation is back."""
    return path.line("→", changes_only=True)
