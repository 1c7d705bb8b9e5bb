"""v1.15's terminate-first: when a node's replacement cannot be launched before the node goes, the
node is deleted first (a delete-only command, paced by the budgets) and provisioning refills.

Karpenter derives it from what the operator already configured; there is no field for it (RFC
``designs/terminate-first-disruption.md``, kubernetes-sigs/karpenter#3203; drift #3312 and repair
#3342, open on the newest ``main`` karptui could read, 2026-08-20, and in v1.15.0's release notes):

- a static NodePool at ``limits.nodes`` (:mod:`.static`);
- a node holding an instance of a capacity reservation that is full: the replace-first simulation
  finds no place for its pods, so the pipeline simulates again as if the node were already gone,
  its instance back in the reservation (#3312's ``SimulateSchedulingWithReservedFallback``). When
  that places every pod, the replacement can only go into the instance the node frees: terminate
  first. When it does not either, nothing is done, as before.

Drift and repair (v1.15's voluntary method) ask this; consolidation does not (a consolidation that
cannot replace first is no saving).
"""

from __future__ import annotations

from ..reservations import held_by
from ..versions import V1_15, karpenter_version
from .candidates import Candidate
from .command import Command


def applies(ctx) -> bool:
    """Terminate-first exists from v1.15 on; before it drift and repair replace first or wait."""
    return karpenter_version(ctx.snapshot) >= V1_15


def freed_by(candidates: list[Candidate]) -> dict[str, int]:
    """The reservation instances the candidates give back when they go: reservation id -> count."""
    out: dict[str, int] = {}
    for c in candidates:
        rid = held_by(c.node)
        if rid is not None:
            out[rid] = out.get(rid, 0) + 1
    return out


def for_reservation(ctx, method: str, reason: str, c: Candidate, consolidating: bool = False) -> Command | None:
    """The terminate-first command for ``c`` after its replace-first simulation failed: when v1.15
    simulates, ``c`` runs in a capacity reservation, and with its instance back in that reservation
    every pod finds a place. None otherwise (the caller keeps the replace-first simulation's why).
    ``consolidating``: as the method's replace-first simulation was asked (.controller)."""
    if not applies(ctx):
        return None
    freed = freed_by([c])
    if not freed:
        return None
    simulation = ctx.simulate([c], planned=False, consolidating=consolidating, freed=freed)
    if not simulation.all_scheduled:
        return None
    return Command(method, reason, [c], [], None, terminate_first=True, reservation=next(iter(freed)))
