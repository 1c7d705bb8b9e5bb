"""Karpenter provisioning: NodeClaims for the pods kube-scheduler could not place.

Mirrors Karpenter's Scheduler.Solve: pods largest first (cpu, then memory);
each tries the in-flight NodeClaims (fewest pods first), then a new NodeClaim
from each NodePool by weight; NodePool limits count the capacity of the
pool's existing nodes, and each new NodeClaim reserves its largest remaining
instance type; pods that fail are retried until a full pass places none.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

from ...catalog import Catalog
from ...model import Pod, Snapshot
from ...model.resources import CPU, MEMORY, Resources
from ..signature import signature
from ..state import ClusterState
from .launch import Launch, choose
from .nodeclaim import NewClaim
from .templates import Template, pod_reqs, resources_text, templates

NAME_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"


@dataclass
class Provisioned:
    claims: list[NewClaim] = field(default_factory=list)
    launches: dict[str, Launch | None] = field(default_factory=dict)   # claim name -> launch
    placed: dict[str, str] = field(default_factory=dict)               # pod key -> claim name
    errors: dict[str, str] = field(default_factory=dict)               # pod key -> Karpenter's reason


def _claim_name(pool: str, index: int) -> str:
    digest = hashlib.sha256(f"{pool}/{index}".encode()).digest()
    return f"{pool}-" + "".join(NAME_ALPHABET[b % len(NAME_ALPHABET)] for b in digest[:5])


def _queue(pods: list[Pod]) -> list[Pod]:
    return sorted(pods, key=lambda p: (-p.requests.get(CPU, 0), -p.requests.get(MEMORY, 0),
                                       p.created.timestamp() if p.created else 0.0, p.namespace, p.name))


class Provisioner:
    def __init__(self, snapshot: Snapshot, state: ClusterState, catalog: Catalog,
                 prepared: list[Template] | None = None) -> None:
        self.state = state
        self.templates = prepared if prepared is not None else templates(snapshot, catalog)
        self.remaining: dict[str, Resources] = {}
        for template in self.templates:
            pool = template.nodepool
            used = Resources()
            for i, node in enumerate(state.nodes):
                if node.nodepool == pool.name and not state.excluded[i]:
                    used = used + node.capacity + Resources({"nodes": 1})
            self.remaining[pool.name] = Resources({k: v - used.get(k, 0) for k, v in pool.limits.items()})
        self.result = Provisioned()

    def solve(self, pods: list[Pod], batch: bool = True) -> Provisioned:
        """Every pod onto an in-flight or new NodeClaim, rounds until none moves; ``batch``
        answers a pod from an earlier refused one with its signature (see sim.signature)."""
        queue = _queue(pods)
        refused: dict = {}  # signature -> (placements when it failed, why): nothing changed, same answer
        while queue:
            failed = []
            for pod in queue:
                key = signature(pod) if batch else None
                earlier = refused.get(key) if key is not None else None
                if earlier is not None and earlier[0] == len(self.result.placed):
                    error = earlier[1]
                else:
                    error = self._schedule(pod)
                    if error is not None and key is not None:
                        refused[key] = (len(self.result.placed), error)
                if error is None:
                    self.result.errors.pop(pod.key, None)
                else:
                    self.result.errors[pod.key] = error
                    failed.append(pod)
            if len(failed) == len(queue):
                break
            queue = failed
        for claim in self.result.claims:
            self.result.launches[claim.name] = choose(claim)
        return self.result

    def _schedule(self, pod: Pod) -> str | None:
        claims = self.result.claims
        relax = 0
        errors: list[str] = []
        while (wanted := pod_reqs(pod, relax)) is not None:
            for claim in sorted(claims, key=lambda c: len(c.pods)):
                if claim.try_add(pod, wanted, claims, self.state, why=False) is None:
                    self.result.placed[pod.key] = claim.name
                    return None
            errors = []
            for template in self.templates:
                error = self._open(template, pod, wanted)
                if error is None:
                    return None
                errors.append(error)
            relax += 1
        return "; ".join(errors) if errors else "no NodePool or Provisioner can launch nodes"

    def _open(self, template: Template, pod: Pod, wanted) -> str | None:
        prefix = (f'incompatible with {"provisioner" if template.nodepool.kind == "Provisioner" else "nodepool"} '
                  f'"{template.name}", daemonset overhead={resources_text(template.daemon_overhead)}, ')
        remaining = self.remaining[template.name]
        limited = dict(remaining)
        if "nodes" in limited and limited["nodes"] < 1:
            return prefix + "node limits have been exhausted for nodepool"
        types = tuple(t for t in template.instance_types
                      if all(t.capacity.get(k, 0) <= v for k, v in limited.items() if k != "nodes"))
        if template.instance_types and not types:
            return prefix + f'all available instance types exceed limits for nodepool: "{template.name}"'
        claim = NewClaim(_claim_name(template.name, len(self.result.claims)), template, template.reqs,
                         types, template.daemon_overhead)
        error = claim.try_add(pod, wanted, self.result.claims, self.state)
        if error is not None:
            return prefix + error
        self.result.claims.append(claim)
        self.result.placed[pod.key] = claim.name
        if limited:
            biggest = {k: max((t.capacity.get(k, 0) for t in claim.types), default=0) for k in limited}
            if "nodes" in limited:
                biggest["nodes"] = 1
            self.remaining[template.name] = remaining - Resources(biggest)
        return None
