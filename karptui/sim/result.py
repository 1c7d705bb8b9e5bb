"""What a simulation returns: one attempt per pending pod, in queue order."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from ..model import Pod, Snapshot


@dataclass(frozen=True)
class Attempt:
    """One scheduling attempt (DESIGN §4.1 ``pods[]``).

    ``counts`` is the FitError histogram (reason -> nodes) kept as data;
    ``filters`` (explain only) maps every node to its reasons, empty if it fit.
    """

    pod: Pod
    node: str | None
    new_node: bool = False
    reason: str | None = None
    counts: Mapping[str, int] = field(default_factory=dict)
    filters: Mapping[str, tuple[str, ...]] | None = None
    preempted: tuple[str, ...] = ()
    summary: str = ""

    @property
    def scheduled(self) -> bool:
        return self.node is not None


@dataclass(frozen=True, eq=False)
class SimResult:
    snapshot: Snapshot
    attempts: tuple[Attempt, ...]
    placements: Mapping[str, str]   # pod key -> node, for every pod bound when the simulation ends
    notes: tuple[str, ...] = ()

    @property
    def scheduled(self) -> int:
        return sum(1 for a in self.attempts if a.scheduled)

    @property
    def pending(self) -> int:
        return sum(1 for a in self.attempts if not a.scheduled)
