"""A disruption command: the nodes to take away, and what (if anything) replaces them.

Its decision is read from what the simulation left: candidates and a
replacement NodeClaim is a replace, candidates alone a delete, nothing a no-op
(Karpenter's ``Command.Decision``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..launch import Launch
from .candidates import Candidate

NO_OP, DELETE, REPLACE = "no-op", "delete", "replace"


@dataclass
class Replacement:
    """The one NodeClaim a replace launches, with the instance types it may still be."""

    claim: object                    # scheduler.NodeClaim
    rows: list[int]                  # TypeSet rows, cheapest first
    reqs: object                     # its final requirements (capacity type pinned as decided)
    launch: Launch | None = None


@dataclass
class Command:
    method: str                      # "repair", "emptiness", "drift", "static-drift", "multi", "single"
    reason: str                      # Unhealthy, Empty, Drifted, Underutilized
    candidates: list[Candidate] = field(default_factory=list)
    replacements: list[Replacement] = field(default_factory=list)
    simulation: object = None        # the Simulation that justified it (None for emptiness)
    # the legacy repair controller's deletion: outside budgets, nothing launched first, pods go pending
    forceful: bool = False
    # v1.15's terminate-first: the NodePool has no room for a replacement, so the node goes first and
    # provisioning refills it (its pods go pending)
    terminate_first: bool = False
    # the capacity reservation a terminate-first frees for the replacement ("" for a static NodePool)
    reservation: str = ""

    @property
    def decision(self) -> str:
        if self.candidates and self.replacements:
            return REPLACE
        return DELETE if self.candidates else NO_OP
