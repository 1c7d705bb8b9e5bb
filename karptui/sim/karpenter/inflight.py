"""The NodeClaims a scheduling run has opened that a pod may still join, kept per kind of pod.

Karpenter tries a pod that no existing node takes on every in-flight NodeClaim, the one with the
fewest pods first (``Scheduler.add``). With a thousand NodeClaims open and a thousand pods to
place, most of those tries are refused at once, for reasons that stay true until the NodeClaim
changes: its instance types have no room for a pod of that size (``NodeClaim.no_room``), the pod
does not tolerate its NodePool's taints, or its requirements are incompatible with the pod's.
These lists leave such NodeClaims out for pods that ask the same (same size, same requirements,
same tolerations), so each pod tries only the NodeClaims the full walk would have tried further,
in the same order: the fewest pods first, then the order they were opened in.

A NodeClaim left out for its requirements comes back when a pod joins it (its requirements
narrow, and a key they did not define may now be defined); one left out for room or taints does
not (a NodeClaim's requests only grow, its types only narrow, its taints never change) unless a
pod with a negative request joins some NodeClaim, when every list starts again.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterator

from .nodeclaim import NodeClaim, REQUIREMENTS, TAINTS

# Refusals that hold until the NodeClaim changes (see the module docstring)
UNCHANGED_UNTIL_JOINED = (REQUIREMENTS,)
NEVER_UNTIL_RESET = (TAINTS,)


class _Kind:
    """One kind of pod's candidates: NodeClaim position -> NodeClaim, and how far it has read the
    run's NodeClaims and its log of joins."""

    __slots__ = ("need", "members", "claims_seen", "joins_seen")

    def __init__(self, need) -> None:
        self.need = need
        self.members: dict[int, NodeClaim] = {}
        self.claims_seen = 0
        self.joins_seen = 0


class InFlight:
    """The run's NodeClaims in the order opened, with each kind of pod's candidates among them."""

    def __init__(self, claims: list[NodeClaim]) -> None:
        self.claims = claims                     # the run's NodeClaims (Results.claims), appended to
        self._position: dict[int, int] = {}      # id(NodeClaim) -> its position in ``claims``
        self._joins: list[int] = []              # positions of NodeClaims pods joined, in order
        self._kinds: dict[tuple, _Kind] = {}

    def candidates(self, need, reqs, tolerations) -> Iterator[NodeClaim]:
        """The NodeClaims a pod of this size (``need``, a remembered row: its identity is the size),
        requirements and tolerations may join, fewest pods first, then in the order opened."""
        key = (id(need), reqs, tolerations)
        kind = self._kinds.get(key)
        if kind is None or kind.need is not need:
            kind = self._kinds[key] = _Kind(need)
        members, claims, row = kind.members, self.claims, id(need)
        if kind.claims_seen < len(claims):
            for k in range(kind.claims_seen, len(claims)):
                self._position.setdefault(id(claims[k]), k)
                members[k] = claims[k]
            kind.claims_seen = len(claims)
        if kind.joins_seen < len(self._joins):
            for k in self._joins[kind.joins_seen:]:
                members[k] = claims[k]
            kind.joins_seen = len(self._joins)
        order = []
        full = []
        for k, claim in members.items():
            if row in claim.no_room:
                full.append(k)
            else:
                order.append((len(claim.pods), k, claim))
        for k in full:
            del members[k]
        # taken in order from a heap: the caller stops at the first NodeClaim that takes the pod, so
        # only what it looks at is put in order
        heapq.heapify(order)
        while order:
            yield heapq.heappop(order)[2]

    def refused(self, need, reqs, tolerations, claim: NodeClaim, kind: str) -> None:
        """``claim`` refused such a pod for ``kind`` of reason: left out until that may change."""
        if kind in UNCHANGED_UNTIL_JOINED or kind in NEVER_UNTIL_RESET:
            found = self._kinds.get((id(need), reqs, tolerations))
            if found is not None and found.need is need:
                found.members.pop(self._position[id(claim)], None)

    def joined(self, claim: NodeClaim, requests) -> None:
        """A pod joined ``claim``: those it refused for its requirements may ask again."""
        if any(amount < 0 for amount in requests.values()):
            self._kinds.clear()   # its room may have grown back (NodeClaim.add forgets no_room)
            return
        position = self._position.get(id(claim))
        if position is None:
            position = self._position[id(claim)] = self.claims.index(claim)
        self._joins.append(position)
