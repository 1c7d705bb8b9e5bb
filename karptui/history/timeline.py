"""The history of one input as one frozen object: what ``karptui history`` prints and a pane can show."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from datetime import datetime

from .life import Life
from .times import stamp


class Flat:
    """A record whose JSON is its fields as they are, in order: ``to_dict`` is :func:`dataclasses.asdict`,
    written once here for every such record of the timeline."""

    def to_dict(self) -> dict:
        return asdict(self)  # type: ignore[call-overload]  # each subclass is a dataclass


@dataclass(frozen=True)
class Link:
    """One replacement: ``old`` replaced by ``new`` (one or more NodeClaims) for ``reason``; ``saving`` is
    old's price less the replacements' (USD per hour, None when a price is unknown)."""

    old: str
    new: tuple[str, ...]
    time: datetime | None
    reason: str
    saving: float | None
    command_id: str = ""

    def to_dict(self) -> dict:
        return {"from": self.old, "to": list(self.new), "time": stamp(self.time), "reason": self.reason,
                "saving_per_hour": self.saving, "command_id": self.command_id or None}


@dataclass(frozen=True)
class Chain:
    """A NodeClaim replaced by another, replaced by another...: ``nodeclaims`` in order of creation."""

    nodeclaims: tuple[str, ...]
    links: tuple[Link, ...]

    @property
    def saving(self) -> float | None:
        savings = [link.saving for link in self.links]
        return None if None in savings else round(sum(savings), 6)  # type: ignore[arg-type]

    def to_dict(self) -> dict:
        return {"nodeclaims": list(self.nodeclaims), "length": len(self.nodeclaims),
                "saving_per_hour": self.saving, "links": [link.to_dict() for link in self.links]}


@dataclass(frozen=True)
class Churn(Flat):
    """One NodePool's hour: NodeClaims launched, disrupted and gone."""

    nodepool: str
    hour: str
    created: int
    disrupted: int
    terminated: int


@dataclass(frozen=True)
class PendingHour(Flat):
    """Pending pods in one hour: Karpenter's batches (``found provisionable pod(s)``), the pods it could not
    schedule (``could not schedule pod``), the pods with a FailedScheduling event."""

    hour: str
    provisionable_batches: int
    provisionable_max: int
    unschedulable_pods: int
    failed_scheduling_pods: int
    nominated: int


@dataclass(frozen=True)
class CostHour(Flat):
    """The launched NodeClaims' cost in one hour: what was spent (USD), and the rate and node count at its end."""

    hour: str
    spent: float
    per_hour_at_end: float
    nodes_at_end: int
    unpriced_at_end: int


@dataclass(frozen=True)
class Timeline:
    """Every NodeClaim's life, its replacement chains, churn, short-lived nodes, pending pods, launch
    failures, interruptions and cost over time, within ``since``..``until``."""

    lives: tuple[Life, ...]
    chains: tuple[Chain, ...]
    churn: tuple[Churn, ...]
    short_lived: tuple[str, ...]
    short_lived_seconds: float
    pending: tuple[PendingHour, ...]
    cost: tuple[CostHour, ...]
    launch_failures: tuple[dict, ...]
    interruptions: tuple[dict, ...]
    since: datetime | None
    until: datetime | None
    first: datetime | None
    last: datetime | None
    catalog: str
    discounts: str = ""
    # (time, count, pod names) of Karpenter's "found provisionable pod(s)" lines, the whole input's
    provisionable: tuple[tuple[datetime, int, tuple[str, ...]], ...] = ()

    def life(self, name: str) -> Life | None:
        """The NodeClaim named, or the one whose node or instance is."""
        for life in self.lives:
            if name in (life.nodeclaim, life.node) or (
                    name.startswith("i-") and life.provider_id.rpartition("/")[2] == name):
                return life
        return None

    def to_dict(self, lives: bool = True) -> dict:
        """The JSON document (docs/history.md); ``lives=False`` leaves ``nodeclaims`` out, for a writer
        that streams them one by one."""
        doc = self._summary()
        if lives:
            doc["nodeclaims"] = [life.to_dict() for life in self.lives]
        return doc

    def _summary(self) -> dict:
        return {
            "window": {"since": stamp(self.since), "until": stamp(self.until), "first": stamp(self.first),
                       "last": stamp(self.last)},
            "catalog": self.catalog, "discounts": self.discounts or None,
            "chains": [chain.to_dict() for chain in self.chains],
            "churn": [c.to_dict() for c in self.churn],
            "short_lived": {"under_seconds": self.short_lived_seconds, "nodeclaims": list(self.short_lived)},
            "pending": [p.to_dict() for p in self.pending],
            "launch_failures": [{**f, "time": stamp(f["time"])} for f in self.launch_failures],
            "interruptions": [{**i, "time": stamp(i["time"])} for i in self.interruptions],
            "cost": [c.to_dict() for c in self.cost],
        }
