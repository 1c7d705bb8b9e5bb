"""Nodes grouped by availability zone, as the nodes pane shows them."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, replace
from functools import cached_property
from operator import attrgetter
from datetime import datetime

from ..model import Node, Snapshot
from ..model.quantity import human_bytes
from ..model.resources import CPU, MEMORY, PODS
from ..model.snapshot import NO_ZONE
from .cost import DISCOUNT_MARK, ESTIMATED_MARK
from .filtering import Filter, lowered_fields
from .format import age, bar, cpu, money


# EC2's private DNS suffix: ``.ec2.internal`` in us-east-1, ``.REGION.compute.internal`` elsewhere.
_REGION_SUFFIX = re.compile(r"\.(?:ec2|[a-z0-9-]+\.compute)\.internal$")
_REGION_SUFFIX_IN_TEXT = re.compile(r"(?<=[0-9])\.(?:ec2|[a-z]{2}-[a-z]+-[0-9]\.compute)\.internal\b")


def short_name(name: str) -> str:
    """A node's name without EC2's region suffix: what fits a table column (drill-ins keep the full name)."""
    return _REGION_SUFFIX.sub("", name)


def short_names_in(text: str) -> str:
    """Node names inside a message (a scheduler reason, a log line) without EC2's region suffix."""
    return _REGION_SUFFIX_IN_TEXT.sub("", text) if ".internal" in text else text


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
    price_estimated: bool = False  # the catalog estimates this node's price (shown with the cost model's mark)
    price_discounted: bool = False  # the price is after a discount (--discounts; the cost model's * mark)

    @property
    def cpu_percent(self) -> int:
        return round(100 * self.cpu_requested / self.cpu_allocatable) if self.cpu_allocatable else 0

    @property
    def memory_percent(self) -> int:
        return round(100 * self.memory_requested / self.memory_allocatable) if self.memory_allocatable else 0

    @cached_property
    def texts(self) -> tuple[str, ...]:
        """What the ``/`` filter searches: name, type, NodePool, capacity type, zone (kept: a filter
        typed on 20,000 nodes asks every row for them on each key)."""
        return (self.name, self.instance_type, self.group, self.capacity_type, self.zone)

    def matches(self, text: str) -> bool:
        """The ``/`` filter: ``key=value`` on labels, else a substring of name, type, NodePool or zone."""
        text = text.strip()
        if not text:
            return True
        if "=" in text:
            key, _, value = text.partition("=")
            return self.labels.get(key.strip()) == value.strip()
        lowered = text.lower()
        return any(lowered in field.lower() for field in self.texts)


@dataclass(frozen=True)
class ZoneGroup:
    """A zone's nodes; ``nodepools`` are the NodePools that may launch there (a zone with no node yet too).
    The totals are the nodes' sums (:func:`_group` makes them; the same nodes in another order keep them)."""

    zone: str
    nodes: tuple[NodeRow, ...]
    capacity_types: dict[str, int]
    price: float = 0.0
    nodepools: tuple[str, ...] = ()
    price_estimated: bool = False  # a node's price is estimated or unknown: the sum is an estimate
    price_discounted: bool = False  # a node's price is after a discount
    cpu_requested: int = 0
    cpu_allocatable: int = 0
    memory_requested: int = 0
    memory_allocatable: int = 0
    pods: int = 0


# The nodes pane's sorts, one per column in column order (``s`` steps through them, ``S`` reverses):
# the busiest, dearest and oldest first.
SORTS = {
    "name": lambda r: r.name,
    "type": lambda r: (r.instance_type, r.name),
    "capacity": lambda r: (r.capacity_type, r.name),
    "nodepool": lambda r: (r.group, r.name),
    "cpu%": lambda r: (-r.cpu_percent, r.name),
    "memory%": lambda r: (-r.memory_percent, r.name),
    "pods": lambda r: (-r.pods, r.name),
    "age": lambda r: (r.created.timestamp() if r.created else 0.0, r.name),
    "price": lambda r: (-(r.price or 0.0), r.name),
}
# The consolidation column sorts by the Disruption pane's mark of each node (marked nodes first):
# the marks are not the row's, so zone_groups is given them.
NODE_SORTS = (*SORTS, "consolidation")


def node_sort_key(sort: str, marks: Mapping[str, str] | None = None):
    """The key a nodes-pane sort orders rows by (one of :data:`NODE_SORTS`)."""
    if sort == "consolidation":
        marks = marks or {}
        return lambda r: (not marks.get(r.name, ""), marks.get(r.name, ""), r.name)
    return SORTS[sort]


def node_row(node: Node, snapshot: Snapshot, prices: dict | None = None,
             estimated: frozenset[str] | set[str] = frozenset(),
             discounted: frozenset[str] | set[str] = frozenset()) -> NodeRow:
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
        price_estimated=node.name in estimated,
        price_discounted=node.name in discounted,
    )


def node_rows(snapshot: Snapshot, prices: dict | None = None,
              estimated: frozenset[str] | set[str] = frozenset(),
              discounted: frozenset[str] | set[str] = frozenset()) -> list[NodeRow]:
    """Every node's row, built once per snapshot: sorting and filtering only regroup them.
    ``estimated``: the nodes whose price the catalog estimates; ``discounted``: priced after a discount."""
    return [node_row(node, snapshot, prices, estimated, discounted) for node in snapshot.nodes]


def zone_groups(rows: list[NodeRow], sort: str = "name", filter_text: str = "",
                launchable: dict[str, tuple[str, ...]] | None = None, reverse: bool = False,
                match=None, folded: frozenset[str] | set[str] = frozenset(),
                marks: Mapping[str, str] | None = None) -> list[ZoneGroup]:
    """One group per zone (by name); nodes sorted by ``sort`` and narrowed by the filter.

    ``launchable`` (zone -> NodePools that may launch there) adds the zones with no node yet,
    so zone balance shows where Karpenter could still put capacity. ``match`` (a row -> bool)
    replaces the plain text filter when given (the screen's regex and inverse filters). The
    nodes of a ``folded`` zone are not shown, so they are left unsorted. ``marks`` are the
    consolidation column's (node name -> mark), for that column's sort.
    """
    if match is None and filter_text.strip():
        match = lambda row: row.matches(filter_text)  # noqa: E731
    return NodeIndex(rows).groups(sort, launchable, reverse, match, folded, marks)


_TEXTS = attrgetter("texts")    # what the / filter searches in a row (NodeRow.texts), and its labels (key=value)
_LABELS = attrgetter("labels")


class NodeIndex:
    """One snapshot's node rows, kept grouped for the Nodes pane (``Overview.node_index``).

    On 20,000 nodes, regrouping every row on each key (a re-sort, a fold, a filter cleared)
    cost the screen hundreds of milliseconds: here the zones, their totals and each sort's
    order are worked out once and handed out again. A filter still tests every row, but
    each distinct text once (a type, a NodePool, a zone repeat on thousands of rows).
    """

    def __init__(self, rows: list[NodeRow]) -> None:
        self.rows = rows
        by_zone: dict[str, list[NodeRow]] = {}
        for row in rows:
            by_zone.setdefault(row.zone, []).append(row)
        self.by_zone = by_zone
        self._groups: dict[tuple, tuple[object, ZoneGroup]] = {}  # (zone, order, pools) -> (marks, group)
        self._orders: dict[tuple[str, str, bool], tuple[NodeRow, ...]] = {}  # (zone, sort, reverse) -> its nodes
        self._whole: dict[str, ZoneGroup] = {}   # zone -> its group in the rows' order, with its totals
        self._lowered_texts: dict[str, list[str | None]] | None = None

    def groups(self, sort: str = "name", launchable: dict[str, tuple[str, ...]] | None = None,
               reverse: bool = False, match=None, folded: frozenset[str] | set[str] = frozenset(),
               marks: Mapping[str, str] | None = None) -> list[ZoneGroup]:
        """As :func:`zone_groups` says; without ``match`` the groups are the ones made last time
        for the same sort (their totals summed once). ``match``: the ``/`` filter (a :class:`Filter`,
        which looks for plain text in each row's kept lower-cased texts), or a row -> shown? test."""
        launchable = launchable or {}
        if match is not None:
            if isinstance(match, Filter):
                lowered = self.filter_texts()
                kept = {zone: match.select(rows, _TEXTS, _LABELS, lowered[zone])
                        for zone, rows in self.by_zone.items()}
            else:
                kept = {zone: [row for row in rows if match(row)] for zone, rows in self.by_zone.items()}
            # a zone the filter keeps whole (its name, a NodePool of its own typed) is the group kept for the sort
            return [self._kept(zone, sort, reverse, zone in folded, launchable.get(zone, ()), marks)
                    if len(rows) == len(self.by_zone[zone]) else
                    _group(zone, rows, sort, reverse, zone in folded, launchable.get(zone, ()), marks)
                    for zone, rows in sorted(kept.items()) if rows]
        zones = sorted({*self.by_zone, *launchable})
        return [self._kept(zone, sort, reverse, zone in folded, launchable.get(zone, ()), marks) for zone in zones]

    def filter_texts(self) -> dict[str, list[str | None]]:
        """Each zone's rows' filter texts, lower-cased and joined (filtering.lowered_fields), made once
        and kept for every filter key: the screen has a worker make them before the first one is typed
        (on the key, 20,000 rows' took the first filter key over 100 ms)."""
        if self._lowered_texts is None:
            self._lowered_texts = {zone: [lowered_fields(row.texts) for row in rows]
                                   for zone, rows in self.by_zone.items()}
        return self._lowered_texts

    def prepare(self, sort: str, reverse: bool = False) -> dict[str, tuple[NodeRow, ...]]:
        """Every zone's nodes put in ``sort``'s order (the tuple its groups in that order hand out), as its
        first unfolding in that sort would: a screen has this done by a worker before the first unfold (on
        the key, a 7,000-node zone's sort and sums took it past 50 ms on 20,000 nodes). {} for the
        consolidation sort, whose order the Disruption pane's marks make."""
        if sort not in SORTS:
            return {}
        for zone in self.by_zone:
            self._whole_group(zone)
        return {zone: self._order(zone, sort, reverse) for zone in self.by_zone}

    def _kept(self, zone: str, sort: str, reverse: bool, folded: bool, pools: tuple[str, ...],
              marks: Mapping[str, str] | None) -> ZoneGroup:
        order = None if folded else (sort, reverse)
        key = (zone, order, pools)
        found = self._groups.get(key)
        uses_marks = sort == "consolidation" and not folded
        if found is not None and (not uses_marks or found[0] is marks):
            return found[1]
        whole = self._whole_group(zone)
        if folded:
            nodes = whole.nodes
        elif uses_marks:  # the Disruption pane's marks order it: not kept past them
            nodes = tuple(sorted(whole.nodes, key=node_sort_key(sort, marks), reverse=reverse))
        else:
            nodes = self._order(zone, sort, reverse)
        group = replace(whole, nodes=nodes, nodepools=pools)
        self._groups[key] = (marks if uses_marks else None, group)
        return group

    def _whole_group(self, zone: str) -> ZoneGroup:
        """The zone's group in the rows' order: its totals, which every order of it shares."""
        found = self._whole.get(zone)
        if found is None:
            found = self._whole[zone] = _group(zone, self.by_zone.get(zone, []), "name", False, True, (), None)
        return found

    def _order(self, zone: str, sort: str, reverse: bool) -> tuple[NodeRow, ...]:
        """The zone's nodes in a sort of :data:`SORTS`, made once."""
        key = (zone, sort, reverse)
        found = self._orders.get(key)
        if found is None:
            found = self._orders[key] = tuple(sorted(self.by_zone.get(zone, []), key=SORTS[sort], reverse=reverse))
        return found


def _group(zone: str, rows: list[NodeRow], sort: str, reverse: bool, folded: bool, pools: tuple[str, ...],
           marks: Mapping[str, str] | None) -> ZoneGroup:
    """A zone's group; the nodes of a folded zone are not shown, so they are left unsorted. (Its totals
    are summed with map, not a loop a row: a filter typed on 20,000 nodes regroups them on every key.)"""
    kinds: Counter[str] = Counter()
    for kind, count in Counter(map(_CAPACITY_TYPE, rows)).items():
        kinds[capacity_name(kind)] += count
    return ZoneGroup(
        zone=zone,
        nodes=tuple(rows) if folded else tuple(sorted(rows, key=node_sort_key(sort, marks), reverse=reverse)),
        capacity_types=dict(kinds),
        price=sum(filter(None, map(_PRICE, rows)), 0.0),
        nodepools=pools,
        price_estimated=any(map(_PRICE_ESTIMATED, rows)) or None in map(_PRICE, rows),
        price_discounted=any(map(_PRICE_DISCOUNTED, rows)),
        cpu_requested=sum(map(_CPU_REQUESTED, rows)),
        cpu_allocatable=sum(map(_CPU_ALLOCATABLE, rows)),
        memory_requested=sum(map(_MEMORY_REQUESTED, rows)),
        memory_allocatable=sum(map(_MEMORY_ALLOCATABLE, rows)),
        pods=sum(map(_PODS, rows)),
    )


_CAPACITY_TYPE, _PRICE = attrgetter("capacity_type"), attrgetter("price")
_CPU_REQUESTED, _CPU_ALLOCATABLE = attrgetter("cpu_requested"), attrgetter("cpu_allocatable")
_MEMORY_REQUESTED, _MEMORY_ALLOCATABLE = attrgetter("memory_requested"), attrgetter("memory_allocatable")
_PODS = attrgetter("pods")
_PRICE_ESTIMATED, _PRICE_DISCOUNTED = attrgetter("price_estimated"), attrgetter("price_discounted")


def capacity_name(capacity_type: str) -> str:
    """How the panes name a capacity type: Karpenter's ``on-demand``/``spot``, AWS's ``Fargate``."""
    if capacity_type == "fargate":
        return "Fargate"
    return capacity_type if capacity_type not in ("-", "") else "unknown"


# ---- the pane's cells ----------------------------------------------------------------------

WARN_PERCENT, BAD_PERCENT = 70, 90  # requests over allocatable: amber from here, red from there
_PERCENT = re.compile(r"(\d+)%")


def usage_level(cell: str) -> str | None:
    """``good``, ``warn`` or ``bad`` for a usage cell (its percentage), for the theme's colours."""
    found = _PERCENT.search(cell)
    if found is None:
        return None
    pct = int(found.group(1))
    return "bad" if pct >= BAD_PERCENT else "warn" if pct >= WARN_PERCENT else "good"


def usage(requested: int, allocatable: int, fmt) -> str:
    """`` 52% ███░░░ 2040m/3920m``: the percentage, a six-cell gauge (with half cells, twelve steps:
    enough beside the percentage, and two cells fewer per column leave the names whole at 160
    columns), and the amounts (a narrow column cut to fit keeps the first two)."""
    pct = round(100 * requested / allocatable) if allocatable else 0
    return f"{pct:>3}% {bar(requested, allocatable, 6)} {fmt(requested)}/{fmt(allocatable)}"


def node_cells(row: NodeRow, now: datetime) -> tuple[str, ...]:
    """A node's row as the table shows it: formatted once per snapshot, regrouped on sort and filter."""
    flags = ("" if row.ready else " NotReady") + (" Cordoned" if row.unschedulable else "")
    return (f"  {short_name(row.name)}{flags}", row.instance_type,
            capacity_name(row.capacity_type) if row.capacity_type != "-" else "-", row.group,
            usage(row.cpu_requested, row.cpu_allocatable, cpu),
            usage(row.memory_requested, row.memory_allocatable, human_bytes),
            f"{row.pods}/{row.max_pods}", age(row.created, now),
            money(row.price, ESTIMATED_MARK if row.price_estimated else "",
                  DISCOUNT_MARK if row.price_discounted else ""))


def capacity_split(counts: dict[str, int]) -> str:
    """``3 on-demand 2 spot 1 Fargate``: a zone's nodes by capacity type, in that order."""
    order = {"on-demand": 0, "spot": 1, "Fargate": 2}
    return " ".join(f"{n} {k}" for k, n in sorted(counts.items(), key=lambda kv: (order.get(kv[0], 3), kv[0])))


def zone_cells(group: ZoneGroup, folded: bool = False) -> tuple[str, ...]:
    """A zone's row: fold mark, node count and capacity split, load bars, cost; a zone the NodePools
    allow but no node is in yet says which NodePools may launch there."""
    mark = "▶" if folded else "▼"
    if not group.nodes:
        pools = ", ".join(group.nodepools)
        return (f"{mark} {group.zone}", "0 nodes", f"NodePool {pools} may launch here" if pools else "", "",
                "", "", "", "", money(0.0))
    count = len(group.nodes)
    return (f"{mark} {group.zone}", f"{count} node{'' if count == 1 else 's'}",
            capacity_split(group.capacity_types), "",
            usage(group.cpu_requested, group.cpu_allocatable, cpu),
            usage(group.memory_requested, group.memory_allocatable, human_bytes),
            str(group.pods), "",
            money(group.price, ESTIMATED_MARK if group.price_estimated else "",
                  DISCOUNT_MARK if group.price_discounted else ""))
