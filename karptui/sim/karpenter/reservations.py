"""Capacity reservations in one scheduling simulation: who holds which, and what happens when none is left.

Karpenter counts a reserved offering's ``ReservationCapacity`` while it packs pods: a NodeClaim
that could still launch into a reservation holds one instance of *every* compatible reservation
(it does not know which instance type the cloud provider will pick), and gives back those its
later requirements rule out. A reservation with no instance left cannot be held by another
NodeClaim. Offerings without a reservation id (catalogs that do not name reservations) are not
counted, as before.

What a NodeClaim does when it could use a reserved offering but every compatible reservation is
taken depends on the release:

- before v1.15, when provisioning (``ReservedOfferingModeStrict``, core ``scheduling/nodeclaim.go``
  ``offeringsToReserve`` at v1.9.1 and v1.14.1; the provisioner sets it, disruption simulations
  keep the fallback mode, ``provisioner.go``): the pod is refused with a reserved offering error.
  It is not relaxed and no lower-weight NodePool is tried; it waits for a later simulation, when
  the reservation is used up and its offering reported unavailable. A pod that would widen a
  NodeClaim holding reservations to types without any is refused the same way. The AWS provider
  of those releases reports a reserved offering with no instance left as unavailable.
- from v1.15 (core#3456 in v1.15.1, aws#9625 in v1.15.0; from their release notes — neither tag
  nor change is in the upstream history karptui was checked against, see
  docs/karpenter-versions.md): a new NodeClaim whose compatible reservations are all full falls
  through to the on-demand or spot offerings of its types instead of waiting, and a reservation
  with no instance left stays an available offering that is full. An instance type with nothing to
  fall through to (its only offerings those reservations) is no option for the NodeClaim
  (:meth:`Reservations.launchable`): no pod is placed on a NodeClaim that could launch nowhere.

A node running in a reservation holds one of its instances (:func:`held_by`); the catalog's
``reservationCapacity`` is what is left besides it. v1.15's terminate-first disruption simulates
again as if the node were gone, its instance back in the reservation (``freed``,
:mod:`.disruption.reservedfirst`).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ...model import labels as L
from .instancetypes import TypeSet, offering_allowed
from .requirements import Reqs
from .versions import V1_15

RESERVED = "reserved"


class ReservedOfferingError(Exception):
    """Karpenter's ReservedOfferingError: a reservation was compatible but could not be held."""

    REFUSED = ("one or more instance types with compatible reserved offerings are available, "
               "but could not be reserved")
    NARROWED = "satisfying updated nodeclaim constraints would remove all compatible reserved offering options"


def tracked(offering) -> bool:
    """A reserved offering whose reservation is counted."""
    return offering.capacity_type == RESERVED and offering.reservation_id is not None


def held_by(node) -> str | None:
    """The capacity reservation a node runs in (the AWS provider's reservation id label on a
    reserved node), or None."""
    if node.labels.get(L.CAPACITY_TYPE) != RESERVED:
        return None
    return node.labels.get(L.CAPACITY_RESERVATION_ID) or None


def full_is_unavailable(version) -> bool:
    """Before v1.15 the AWS provider reports a reservation with no instance left as unavailable."""
    return version < V1_15


def selected_by_pool(snapshot, pools) -> dict[str, frozenset[str] | None]:
    """Per NodePool, the reservations its EC2NodeClass selected (its ``status.capacityReservations``):
    on AWS each node class offers only the reservations its ``capacityReservationSelectorTerms``
    found. None where the snapshot shows no status of the class (then any reservation counts)."""
    classes = {(c.kind, c.name): c for c in snapshot.nodeclasses}
    out: dict[str, frozenset[str] | None] = {}
    for pool in pools:
        ref = pool.node_class_ref
        found = classes.get((ref.kind, ref.name)) if ref is not None else None
        ids = found.capacity_reservations if found is not None else None
        out[pool.name] = frozenset(ids) if ids is not None else None
    return out


class Reservations:
    """The remaining capacity of each reservation and which NodeClaim (by hostname) holds which."""

    def __init__(self, types: TypeSet, version, allowed: dict[str, frozenset[str] | None] | None = None,
                 strict: bool = True, freed: Mapping[str, int] | None = None) -> None:
        """``allowed``: per NodePool, the reservations its node class selected (None or absent: any).
        ``strict``: the provisioner's run (``DisableReservedCapacityFallback``); a disruption simulation
        falls back to on-demand or spot on every line (``ReservedOfferingModeFallback``).
        ``freed``: instances given back to reservations by nodes taken as gone (terminate-first)."""
        capacity: dict[str, int] = {}
        for itype in types.types:
            for offer in itype.offerings:
                if tracked(offer):  # several offerings of one reservation: the least capacity counts
                    known = capacity.get(offer.reservation_id)
                    if known is None or known > offer.reservation_capacity:
                        capacity[offer.reservation_id] = offer.reservation_capacity
        for rid, count in (freed or {}).items():
            if rid in capacity:
                capacity[rid] += count
        self.capacity = capacity
        self.held: dict[str, set[str]] = {}
        self.strict = strict and version < V1_15
        # v1.15: a full reservation is an available offering a NodeClaim falls through from (module)
        self.falls_through = version >= V1_15
        self.allowed = allowed or {}

    def __bool__(self) -> bool:
        return bool(self.capacity)

    def to_reserve(self, hostname: str, held: frozenset[str], types: TypeSet, type_rows, reqs: Reqs,
                   pool: str = "") -> frozenset[str]:
        """The reservations a NodeClaim holds with these instance type rows and requirements;
        ReservedOfferingError where Karpenter refuses the pod (before v1.15, see the module)."""
        zone, kind = reqs.get(L.ZONE), reqs.get(L.CAPACITY_TYPE)
        wanted = reqs.get(L.CAPACITY_RESERVATION_ID)
        allowed = self.allowed.get(pool)
        compatible, out = False, set()
        for i in type_rows:
            for offer in types.types[int(i)].offerings:
                if not tracked(offer) or not offer.available:  # (full before v1.15: made unavailable, .overlays)
                    continue
                if (allowed is not None and offer.reservation_id not in allowed) \
                        or (zone is not None and not zone.has(offer.zone)) or (kind is not None and not kind.has(RESERVED)) \
                        or (wanted is not None and not wanted.has(offer.reservation_id)):
                    continue
                compatible = True
                if offer.reservation_id in self.held.get(hostname, ()) or self.capacity[offer.reservation_id] > 0:
                    out.add(offer.reservation_id)
        if self.strict and compatible and not out:
            raise ReservedOfferingError(ReservedOfferingError.REFUSED)
        if held and not out:  # a NodeClaim holding reservations is not widened past them
            raise ReservedOfferingError(ReservedOfferingError.NARROWED)
        return frozenset(out)

    def launchable(self, types: TypeSet, type_rows, reqs: Reqs, ids: frozenset[str]) -> np.ndarray | None:
        """Per type row, whether it keeps an offering to launch into while holding ``ids``: an available
        one ``reqs`` allow that is no counted reservation, or one of those it holds. None when every row
        does, or before v1.15 (full reservations are unavailable offerings then, .overlays)."""
        if not self.falls_through:
            return None
        zone, kind = reqs.get(L.ZONE), reqs.get(L.CAPACITY_TYPE)
        keep = np.array([any(offering_allowed(o, zone, kind) and (not tracked(o) or o.reservation_id in ids)
                             for o in types.types[int(i)].offerings) for i in type_rows], dtype=bool)
        return None if keep.all() else keep

    def hold(self, hostname: str, before: frozenset[str], after: frozenset[str]) -> None:
        """The NodeClaim now holds ``after`` (it held ``before``): take the new ones, give back the rest."""
        mine = self.held.setdefault(hostname, set())
        for rid in after - mine:
            self.capacity[rid] -= 1
            mine.add(rid)
        for rid in before - after:
            if rid in mine:
                mine.discard(rid)
                self.capacity[rid] += 1
