"""The NodeClaims a scheduling run has opened that a pod may still join.

Karpenter tries a pod that no existing node takes on every in-flight NodeClaim, the one with the
fewest pods first (``Scheduler.add``). With a thousand NodeClaims open and thousands of pods to
place, most of those tries are refused at once, for reasons that stay true until the NodeClaim
changes: its instance types have no room for a pod of that size, the pod does not tolerate its
NodePool's taints, or its requirements are incompatible with the pod's. :meth:`InFlight.candidates`
leaves such NodeClaims out, so each pod tries only the NodeClaims the full walk would have tried
further, in the same order: the fewest pods first, then the order they were opened in.

Each reason is kept by what it depends on alone, so every kind of pod that shares it is spared:

- room: every NodeClaim's room (:meth:`NodeClaim.room`) and used resources are rows of two
  matrices, and one comparison over all of them leaves out those without room for the pod's size
  (the same sum and comparison :meth:`NodeClaim.room_for` makes; NodeClaims whose amounts it does
  not add that way are kept for it to decide);
- requirements: per set of pod requirements, the NodeClaims that refused it, each as of its last
  join — a pod joining narrows a NodeClaim's requirements (a key they did not define may now be
  defined), so it may be asked again; requirements are checked after taints (and volumes), and a
  pod refused for either would be refused anyway, so the refusal holds for every pod with those
  requirements whatever its tolerations and size;
- taints: per set of tolerations, the NodeClaims that refused it, for good (a NodeClaim's taints
  are its NodePool's).
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from .nodeclaim import NodeClaim, REQUIREMENTS, TAINTS

# Refusals that hold until the NodeClaim changes (see the module docstring)
UNCHANGED_UNTIL_JOINED = (REQUIREMENTS,)
NEVER_UNTIL_RESET = (TAINTS,)
_NONE = np.iinfo(np.int64).min   # the room of a NodeClaim no type is left for: nothing fits


class InFlight:
    """The run's NodeClaims in the order opened, as rows: their room, used resources and pods."""

    def __init__(self, claims: list[NodeClaim]) -> None:
        self.claims = claims                     # the run's NodeClaims (Results.claims), appended to
        self._position: dict[int, int] = {}      # id(NodeClaim) -> its position in ``claims``
        self._seen = 0                           # claims[:_seen] have their rows
        self._room = np.zeros((0, 0), dtype=np.int64)
        self._used = np.zeros((0, 0), dtype=np.int64)
        self._exact = np.zeros(0, dtype=bool)    # the row sum decides as room_for would
        self._pods = np.zeros(0, dtype=np.int64)
        self._version = np.zeros(0, dtype=np.int64)   # joins per NodeClaim
        self._by_reqs: dict = {}                 # pod requirements -> version at refusal per NodeClaim (-1: none)
        self._by_tolerations: dict = {}          # tolerations -> refused, per NodeClaim
        self._joins: list[int] = []              # positions of the NodeClaims pods joined, in order
        # pod size (its row's bytes) -> [room for it per NodeClaim, rows seen then, len(_joins) then]
        self._fits: dict[bytes, list] = {}

    def _row(self, k: int, claim: NodeClaim) -> None:
        room, used = claim.room(), claim.used
        self._exact[k] = room is not None and used.unknown is None and used.small
        if room is None:
            self._room[k] = _NONE
        else:
            self._room[k] = room
        self._used[k] = used.values
        self._pods[k] = len(claim.pods)

    def _sync(self) -> None:
        """Rows for the NodeClaims opened since last asked (opened with their first pod in)."""
        claims, start = self.claims, self._seen
        if start == len(claims):
            return
        width = len(claims[0].used.values)
        if self._room.shape[1] != width or len(claims) > len(self._pods):
            size = max(64, 2 * len(claims))
            grow = lambda a, shape: np.concatenate([a, np.zeros((size - len(a),) + shape, dtype=a.dtype)]) \
                if a.shape[1:] == shape else np.zeros((size,) + shape, dtype=a.dtype)
            self._room, self._used = grow(self._room, (width,)), grow(self._used, (width,))
            self._exact, self._pods = grow(self._exact, ()), grow(self._pods, ())
            self._version = grow(self._version, ())
            self._fits.clear()   # sized as the rows were
            for key, refused in self._by_reqs.items():
                self._by_reqs[key] = np.concatenate([refused, np.full(size - len(refused), -1, dtype=np.int64)])
            for key, refused in self._by_tolerations.items():
                self._by_tolerations[key] = np.concatenate([refused, np.zeros(size - len(refused), dtype=bool)])
        for k in range(start, len(claims)):
            self._position[id(claims[k])] = k
            self._row(k, claims[k])
        self._seen = len(claims)

    def candidates(self, need, reqs, tolerations) -> Iterator[NodeClaim]:
        """The NodeClaims a pod of this size (``need``, a row), requirements and tolerations may join,
        fewest pods first, then in the order opened."""
        self._sync()
        n = self._seen
        if not n:
            return
        if need.unknown is None and need.small:
            keep = self._room_for(need.values, n).copy()
        else:
            keep = np.ones(n, dtype=bool)
        refused = self._by_reqs.get(reqs)
        if refused is not None:
            keep &= refused[:n] != self._version[:n]
        refused = self._by_tolerations.get(tolerations)
        if refused is not None:
            keep &= ~refused[:n]
        positions = np.flatnonzero(keep)
        if not positions.size:
            return
        order = positions[np.argsort(self._pods[positions], kind="stable")]
        claims = self.claims
        for k in order.tolist():
            yield claims[k]

    def _room_for(self, need: np.ndarray, n: int) -> np.ndarray:
        """Per NodeClaim (the first ``n``): room for a pod of this size, or not decided by the sum
        (left to room_for). Kept per size and mended where NodeClaims were opened or pods joined
        since: a thousand NodeClaims compared for every pod, when a pod changes one of them."""
        key = need.tobytes()
        found = self._fits.get(key)
        if found is None:
            found = self._fits[key] = [np.zeros(len(self._pods), dtype=bool), 0, len(self._joins)]
        keep, seen, joins = found
        if seen < n:
            keep[seen:n] = (self._used[seen:n] + need <= self._room[seen:n]).all(axis=1) | ~self._exact[seen:n]
            found[1] = n
        if joins < len(self._joins):
            rows = np.array(self._joins[joins:], dtype=np.intp)
            rows = rows[rows < seen]   # rows opened since were worked out above, as they are now
            keep[rows] = (self._used[rows] + need <= self._room[rows]).all(axis=1) | ~self._exact[rows]
            found[2] = len(self._joins)
        return keep[:n]

    def refused(self, need, reqs, tolerations, claim: NodeClaim, kind: str) -> None:
        """``claim`` refused such a pod for ``kind`` of reason: left out until that may change."""
        k = self._position.get(id(claim))
        if k is None:
            return
        if kind in UNCHANGED_UNTIL_JOINED:
            found = self._by_reqs.get(reqs)
            if found is None:
                found = self._by_reqs[reqs] = np.full(len(self._pods), -1, dtype=np.int64)
            found[k] = self._version[k]
        elif kind in NEVER_UNTIL_RESET:
            found = self._by_tolerations.get(tolerations)
            if found is None:
                found = self._by_tolerations[tolerations] = np.zeros(len(self._pods), dtype=bool)
            found[k] = True

    def joined(self, claim: NodeClaim, requests) -> None:
        """A pod joined ``claim``: its room, resources and requirements changed (those it refused for
        its requirements may ask again)."""
        self._sync()
        k = self._position.get(id(claim))
        if k is None:
            k = self._position[id(claim)] = self.claims.index(claim)
        self._version[k] += 1
        self._row(k, claim)
        self._joins.append(k)
