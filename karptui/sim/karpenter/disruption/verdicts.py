"""Why each node stays or goes: every disruption method's verdict, with the concrete reason.

Karpenter tells an operator little of this (a DisruptionBlocked or Unconsolidatable
event now and then), and re-deriving its reasons from those sentences afterwards
would be a second copy of the rules. So each method records a :class:`Why` where it
decides (the candidate filter, ``should_disrupt``, the budget check, the
consolidation decision), and a :class:`Ledger` keeps them per pass: a node a
command takes keeps the verdicts of that pass, every other node those of the last
pass, the one that found nothing left to do. Headless: plain data only.
"""

from __future__ import annotations

from dataclasses import dataclass, field

# the methods in the order Karpenter's disruption controller runs them (v1.14: emptiness, static drift,
# drift, multi-node then single-node consolidation; expiration is no disruption method since v1.0, the
# NodeClaim's own controller deletes an expired NodeClaim whatever its budgets say)
METHOD_ORDER = ("emptiness", "drift", "multi", "single")
# with the NodeRepair gate, node repair comes before them all: v1.15's voluntary method, or the legacy
# controller that deletes unhealthy nodes on its own (its verdict is shown in the same place)
REPAIR_FIRST = ("repair",) + METHOD_ORDER
METHOD_WORDS = {"repair": "repair", "emptiness": "emptiness", "drift": "drift", "multi": "multi-node consolidation",
                "single": "single-node consolidation"}

# verdicts: what the method does with the node
DELETE, REPLACE = "delete", "replace"
BLOCKED = "blocked"          # something an operator set stops it: a PDB, do-not-disrupt, a budget
WAITING = "waiting"          # consolidateAfter has not passed yet
SKIPPED = "skipped"          # the method does not apply to the node (not empty, not drifted, its policy)
KEPT = "kept"                # the method tried and found nothing better (not cheaper, pods with no place)
NOT_REACHED = "not-reached"  # an earlier method's command took the node first


@dataclass(frozen=True, slots=True)
class Why:
    """One verdict's reason: ``karpenter`` in Karpenter's own words where it has them (its events
    and logs say exactly this), ``detail`` what it leaves unsaid (the pods, the prices, the
    schedule), ``kind`` and ``facts`` the same for machines (docs/simulate-json.md)."""

    verdict: str
    kind: str
    karpenter: str
    detail: str = ""
    facts: tuple[tuple[str, object], ...] = ()

    @property
    def text(self) -> str:
        return f"{self.karpenter}: {self.detail}" if self.detail and self.karpenter else self.karpenter or self.detail


@dataclass(frozen=True, slots=True)
class MethodVerdict:
    method: str              # METHOD_ORDER, or REPAIR_FIRST's
    why: Why


@dataclass(frozen=True, slots=True)
class NodeVerdicts:
    """Every method's verdict on one Karpenter node, in Karpenter's order."""

    node: str
    nodepool: str
    methods: tuple[MethodVerdict, ...]
    command: int = 0         # the number of the command that takes it (1-based), 0 when none does

    def of(self, method: str) -> Why | None:
        """The verdict of ``method`` (METHOD_ORDER) on the node."""
        return next((m.why for m in self.methods if m.method == method), None)

    def to_dict(self) -> list[dict]:
        return [{"method": m.method, "verdict": m.why.verdict, "kind": m.why.kind, "reason": m.why.text,
                 "karpenter": m.why.karpenter or None, "details": dict(m.why.facts)} for m in self.methods]


@dataclass
class Ledger:
    """The verdicts of the pass under way, and the nodes settled by earlier passes."""

    methods: tuple[str, ...] = METHOD_ORDER                            # the methods asked, in order
    pools: dict[str, str] = field(default_factory=dict)                # node -> NodePool
    current: dict[str, dict[str, Why]] = field(default_factory=dict)   # node -> method -> why
    settled: dict[str, NodeVerdicts] = field(default_factory=dict)

    def start_pass(self) -> None:
        self.current = {}

    def note(self, node: str, pool: str, method: str, why: Why) -> None:
        """The first reason a method gives for a node in a pass is the one that decided."""
        self.pools[node] = pool
        self.current.setdefault(node, {}).setdefault(method, why)

    def note_all(self, node: str, pool: str, why: Why) -> None:
        """A node no method may consider (not a candidate): the same reason for every method."""
        for method in self.methods:
            self.note(node, pool, method, why)

    def taken(self, node: str, method: str, why: Why, number: int) -> None:
        """Command ``number`` of ``method`` takes the node: the methods after it never see it."""
        self.current.setdefault(node, {})[method] = why
        later = self.methods[self.methods.index(method) + 1:]
        for m in later:
            self.current[node][m] = Why(NOT_REACHED, "not-reached", "",
                                        f"{METHOD_WORDS[method]} takes the node first (command #{number})")
        self.settled[node] = self._verdicts(node, number)

    def finish(self, stopped: str = "") -> dict[str, NodeVerdicts]:
        """Every node's verdicts once the run is over (``stopped``: why methods a node never saw did not run)."""
        out = dict(self.settled)
        for node in self.current:
            if node not in out:
                out[node] = self._verdicts(node, 0, stopped)
        return {n: out[n] for n in sorted(out)}

    def _verdicts(self, node: str, number: int, stopped: str = "") -> NodeVerdicts:
        seen = self.current.get(node, {})
        gone = Why(NOT_REACHED, "not-reached", "", stopped or "an earlier method found a command first")
        return NodeVerdicts(node, self.pools.get(node, ""),
                            tuple(MethodVerdict(m, seen.get(m, gone)) for m in self.methods), number)


def span(seconds: float) -> str:
    """Seconds as Go writes a duration, to the second: ``1h4m0s``, ``3m12s``, ``45s``."""
    whole = max(0, int(round(seconds)))
    hours, rest = divmod(whole, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}h{minutes}m{secs}s"
    return f"{minutes}m{secs}s" if minutes else f"{secs}s"
