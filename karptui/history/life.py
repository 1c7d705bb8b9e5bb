"""One NodeClaim's life as the log tells it: frozen, so a pane can hold it as its view model does."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from .times import seconds_between, stamp


@dataclass(frozen=True)
class Disruption:
    """The disruption command that took the NodeClaim: Karpenter's method (consolidation, drift,
    expiration, emptiness, underutilized, repair) and action (delete, replace), with the other
    nodes of the same command and the replacements it launched."""

    time: datetime | None
    method: str
    action: str = ""
    command_id: str = ""
    others: tuple[str, ...] = ()          # the other nodes (or NodeClaims) of the same command
    pod_count: int | None = None          # the pods on the disrupted nodes, when logged
    replacements: tuple[str, ...] = ()    # NodeClaims created for this command
    nodepools: tuple[str, ...] = ()       # v1.10+: the NodePools the command spans
    line: str = ""
    node_count: int | None = None         # the command's size as logged: more than 1 + others when names were cut


    def to_dict(self) -> dict:
        return {"time": stamp(self.time), "method": self.method, "action": self.action or None,
                "command_id": self.command_id or None, "other_nodes": list(self.others),
                "pod_count": self.pod_count, "replacements": list(self.replacements),
                "nodepools": list(self.nodepools), "line": self.line,
                "node_count": self.node_count if self.node_count is not None else 1 + len(self.others)}


@dataclass(frozen=True)
class Interruption:
    """The interruption message (spot interruption, rebalance, scheduled change, state change) the
    AWS provider acted on for this node, and what it did."""

    time: datetime | None
    message_kind: str
    action: str
    line: str = ""

    def to_dict(self) -> dict:
        return {"time": stamp(self.time), "message_kind": self.message_kind, "action": self.action,
                "line": self.line}


@dataclass(frozen=True)
class Life:
    """Created, launched, registered, initialized, disrupted, drained, terminated -- each None when
    no line in the input says it (a NodeClaim made before the log starts has no ``created``).

    ``nodeclaim`` is the NodeClaim's name; before v0.28 (no NodeClaims nor Machines) the launched
    node's hostname, which the log reader reports as the NodeClaim; "(unnamed, line N)" for a life no
    line names (``named`` False, null in the JSON): a describe table pasted without its object, a
    creation line no launch line followed. ``price`` is USD per hour for the
    launched offering from the catalog, after discounts (``price_discounted``).
    """

    nodeclaim: str
    nodepool: str = ""
    node: str = ""
    provider_id: str = ""
    requested_types: tuple[str, ...] = ()
    requested_more: int = 0
    instance_type: str = ""
    zone: str = ""
    capacity_type: str = ""
    price: float | None = None
    price_estimated: bool = False
    price_discounted: bool = False
    created: datetime | None = None
    launched: datetime | None = None
    registered: datetime | None = None
    initialized: datetime | None = None
    disrupted: datetime | None = None
    drained: datetime | None = None       # tainted karpenter.sh/disrupted (v1) or cordoned (before): the drain began
    annotated: datetime | None = None     # the termination-timestamp annotation was set (v1)
    terminated: datetime | None = None    # the first "deleted node" / "deleted nodeclaim" line
    nodeclaim_deleted: datetime | None = None  # the "deleted nodeclaim" line (the finalizer done: instance gone)
    garbage_collected: datetime | None = None  # deleted for having no cloud provider instance behind it
    taint: str = ""
    annotation: str = ""
    disruption: Disruption | None = None
    interruption: Interruption | None = None
    launch_failures: tuple[tuple[datetime | None, str], ...] = ()
    blocked: tuple[tuple[datetime | None, str, str], ...] = ()   # (time, event, reason): DisruptionBlocked, ...
    replaces: tuple[str, ...] = ()
    replaced_by: tuple[str, ...] = ()
    steps: tuple[str, ...] = ()           # the steps a line showed, also those whose line had no time
    named: bool = True                    # False: no line names it; ``nodeclaim`` is "(unnamed, line N)"
    lines: tuple[str, ...] = field(default=(), compare=False)  # every input line about it ("N" or "FILE:N")

    @property
    def start(self) -> datetime | None:
        return self.created or self.launched or self.registered or self.initialized

    @property
    def gone(self) -> datetime | None:
        """When it was last in the cluster: the first deletion line, else its garbage collection."""
        return self.terminated or self.garbage_collected

    @property
    def launch_to_ready(self) -> float | None:
        """Seconds from launch (the cloud provider's instance) to initialized (Ready, resources registered)."""
        return seconds_between(self.launched, self.initialized)

    @property
    def created_to_ready(self) -> float | None:
        """Seconds from the NodeClaim's creation to initialized (LogParserForKarpenter's node ready time)."""
        return seconds_between(self.created, self.initialized)

    @property
    def disrupt_to_gone(self) -> float | None:
        """Seconds from the disruption (or interruption) decision to the first deletion line."""
        began = self.disrupted or (self.interruption.time if self.interruption else None)
        return seconds_between(began, self.terminated)

    @property
    def lived(self) -> float | None:
        """Seconds from creation (or launch) to termination, when both are in the log (a NodeClaim seen first
        registered or initialized began before the log: how long it lived is unknown)."""
        return seconds_between(self.created or self.launched, self.terminated)

    @property
    def end_reason(self) -> str:
        """Why it went, in one word: the disruption method, ``interruption``, ``deleted`` (no reason logged),
        ``garbage_collected`` (its instance had gone from the cloud provider), ``launch_failed``, ``draining``
        (the drain began, no reason logged) or ``running``."""
        if self.disruption is not None:
            return self.disruption.method
        if self.interruption is not None:
            return "interruption"
        if "garbage_collected" in self.steps:
            return "garbage_collected"
        if self.terminated is not None or "terminated" in self.steps:
            return "deleted"
        if self.launch_failures and self.launched is None:
            return "launch_failed"
        if "drained" in self.steps:
            return "draining"   # tainted or cordoned, and no line in the input says why
        return "running"

    def to_dict(self) -> dict:
        return {
            "nodeclaim": self.nodeclaim if self.named else None, "nodepool": self.nodepool or None, "node": self.node or None,
            "provider_id": self.provider_id or None,
            "requested_instance_types": list(self.requested_types), "requested_more": self.requested_more,
            "instance_type": self.instance_type or None, "zone": self.zone or None,
            "capacity_type": self.capacity_type or None, "price_per_hour": self.price,
            "price_estimated": self.price_estimated, "price_discounted": self.price_discounted,
            "created": stamp(self.created), "launched": stamp(self.launched), "registered": stamp(self.registered),
            "initialized": stamp(self.initialized), "disrupted": stamp(self.disrupted),
            "drained": stamp(self.drained), "terminated": stamp(self.terminated),
            "nodeclaim_deleted": stamp(self.nodeclaim_deleted), "garbage_collected": stamp(self.garbage_collected),
            "launch_to_ready_seconds": self.launch_to_ready, "created_to_ready_seconds": self.created_to_ready,
            "disrupt_to_gone_seconds": self.disrupt_to_gone, "lived_seconds": self.lived,
            "end": self.end_reason,
            "disruption": self.disruption.to_dict() if self.disruption else None,
            "interruption": self.interruption.to_dict() if self.interruption else None,
            "launch_failures": [{"time": stamp(t), "error": e} for t, e in self.launch_failures],
            "blocked": [{"time": stamp(t), "event": e, "reason": r} for t, e, r in self.blocked],
            "replaces": list(self.replaces), "replaced_by": list(self.replaced_by),
            "steps": list(self.steps), "lines": list(self.lines),
        }
