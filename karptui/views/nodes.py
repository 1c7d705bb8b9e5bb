"""Nodes grouped by availability zone, as the nodes pane shows them."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from datetime import datetime

from ..model import Node, Snapshot
from ..model.resources import CPU, MEMORY, PODS
from ..model.snapshot import NO_ZONE


@dataclass(frozen=True)
class NodeRow:
    name: str
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


@dataclass(frozen=True)
class ZoneGroup:
    zone: str
    nodes: tuple[NodeRow, ...]
    capacity_types: dict[str, int]

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


def node_row(node: Node, snapshot: Snapshot) -> NodeRow:
    pods = snapshot.pods_by_node.get(node.name, [])
    return NodeRow(
        name=node.name,
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
    )


def zone_groups(snapshot: Snapshot) -> list[ZoneGroup]:
    """One group per zone, zones and nodes sorted by name."""
    by_zone: dict[str, list[Node]] = {}
    for node in snapshot.nodes:
        by_zone.setdefault(node.zone or NO_ZONE, []).append(node)
    return [
        ZoneGroup(
            zone=zone,
            nodes=tuple(node_row(n, snapshot) for n in sorted(nodes, key=lambda n: n.name)),
            capacity_types=dict(Counter(n.capacity_type or "unknown" for n in nodes)),
        )
        for zone, nodes in sorted(by_zone.items())
    ]
