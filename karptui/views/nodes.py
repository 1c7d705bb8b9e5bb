"""Nodes grouped by availability zone, as the nodes pane shows them."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import datetime

from ..model import Node, Snapshot
from ..model.quantity import human_bytes
from ..model.resources import CPU, MEMORY, PODS
from ..model.snapshot import NO_ZONE
from .format import age, bar, cpu, money


@dataclass(frozen=True)
class NodeRow:
    name: str
    zone: str
    instance_type: str
    capacity_type: str
    group: str
    cpu_requested: int
    cpu_allocatable: int
    memory_requested: int
    memory_allocatable: int
    pods: int
    max_pods: int
    created: datetime | None
    ready: bool
    unschedulable: bool
    labels: dict
    price: float | None = None

    @property
    def cpu_percent(self) -> int:
        return round(100 * self.cpu_requested / self.cpu_allocatable) if self.cpu_allocatable else 0

    @property
    def memory_percent(self) -> int:
        return round(100 * self.memory_requested / self.memory_allocatable) if self.memory_allocatable else 0

    def matches(self, text: str) -> bool:
        """The ``/`` filter: ``key=value`` on labels, else a substring of name, type, NodePool or zone."""
        text = text.strip()
        if not text:
            return True
        if "=" in text:
            key, _, value = text.partition("=")
            return self.labels.get(key.strip()) == value.strip()
        lowered = text.lower()
        return any(lowered in field.lower() for field in (self.name, self.instance_type, self.group,
                                                          self.capacity_type, self.zone))


@dataclass(frozen=True)
class ZoneGroup:
    zone: str
    nodes: tuple[NodeRow, ...]
    capacity_types: dict[str, int]
    price: float = 0.0

    @property
    def cpu_requested(self) -> int:
        return sum(n.cpu_requested for n in self.nodes)

    @property
    def cpu_allocatable(self) -> int:
        return sum(n.cpu_allocatable for n in self.nodes)

    @property
    def memory_requested(self) -> int:
        return sum(n.memory_requested for n in self.nodes)

    @property
    def memory_allocatable(self) -> int:
        return sum(n.memory_allocatable for n in self.nodes)


SORTS = {
    "name": lambda r: r.name,
    "cpu%": lambda r: (-r.cpu_percent, r.name),
    "memory%": lambda r: (-r.memory_percent, r.name),
    "price": lambda r: (-(r.price or 0.0), r.name),
    "age": lambda r: (r.created.timestamp() if r.created else 0.0, r.name),
}


def node_row(node: Node, snapshot: Snapshot, prices: dict | None = None) -> NodeRow:
    pods = snapshot.pods_by_node.get(node.name, [])
    return NodeRow(
        name=node.name,
        zone=node.zone or NO_ZONE,
        instance_type=node.instance_type or "-",
        capacity_type=node.capacity_type or "-",
        group=node.group,
        cpu_requested=sum(p.requests.get(CPU, 0) for p in pods),
        cpu_allocatable=node.allocatable.get(CPU, 0),
        memory_requested=sum(p.requests.get(MEMORY, 0) for p in pods),
        memory_allocatable=node.allocatable.get(MEMORY, 0),
        pods=len(pods),
        max_pods=node.allocatable.get(PODS, 0),
        created=node.created,
        ready=node.ready,
        unschedulable=node.unschedulable,
        labels=dict(node.labels),
        price=(prices or {}).get(node.name),
    )


def node_rows(snapshot: Snapshot, prices: dict | None = None) -> list[NodeRow]:
    """Every node's row, built once per snapshot: sorting and filtering only regroup them."""
    return [node_row(node, snapshot, prices) for node in snapshot.nodes]


def zone_groups(rows: list[NodeRow], sort: str = "name", filter_text: str = "") -> list[ZoneGroup]:
    """One group per zone (by name); nodes sorted by ``sort`` and narrowed by the filter."""
    by_zone: dict[str, list[NodeRow]] = {}
    for row in rows:
        if row.matches(filter_text):
            by_zone.setdefault(row.zone, []).append(row)
    return [
        ZoneGroup(
            zone=zone,
            nodes=tuple(sorted(rows, key=SORTS[sort])),
            capacity_types=dict(Counter(r.capacity_type if r.capacity_type != "-" else "unknown" for r in rows)),
            price=sum(r.price or 0.0 for r in rows),
        )
        for zone, rows in sorted(by_zone.items())
    ]


# ---- the pane's cells ----------------------------------------------------------------------

def usage(requested: int, allocatable: int, fmt) -> str:
    """``████░░░░  52% 2040m/3920m``: a gauge, the percentage, and the amounts."""
    pct = round(100 * requested / allocatable) if allocatable else 0
    return f"{bar(requested, allocatable, 8)} {pct:>3}% {fmt(requested)}/{fmt(allocatable)}"


def node_cells(row: NodeRow, now: datetime) -> tuple[str, ...]:
    """A node's row as the table shows it: formatted once per snapshot, regrouped on sort and filter."""
    flags = ("" if row.ready else " NotReady") + (" Cordoned" if row.unschedulable else "")
    return (f"  {row.name}{flags}", row.instance_type, row.capacity_type, row.group,
            usage(row.cpu_requested, row.cpu_allocatable, cpu),
            usage(row.memory_requested, row.memory_allocatable, human_bytes),
            f"{row.pods}/{row.max_pods}", age(row.created, now), money(row.price))


def zone_cells(group: ZoneGroup) -> tuple[str, ...]:
    split = ", ".join(f"{n} {k}" for k, n in group.capacity_types.items())
    return (f"▼ {group.zone}  {len(group.nodes)} nodes ({split})", "", "", "",
            usage(group.cpu_requested, group.cpu_allocatable, cpu),
            usage(group.memory_requested, group.memory_allocatable, human_bytes), "", "", money(group.price))
