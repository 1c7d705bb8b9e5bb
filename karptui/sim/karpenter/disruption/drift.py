"""Drift: replace nodes whose NodeClaim the snapshot shows as Drifted, one at a time.

Static NodePools' drifted nodes first (Karpenter's ``staticdrift.go``, :mod:`.static`: a NodeClaim
from the template while ``limits.nodes`` has room, else from v1.15 terminate-first); then the others,
oldest drift first (the Drifted condition's time), the empty ones before the others; a node goes
when the simulation finds a place for all its pods, with as many new
NodeClaims as that takes (Karpenter's ``drift.go``), or, from v1.15, first when its replacement
fits only in the capacity reservation instance it frees (:mod:`.terminatefirst`).

Which NodeClaims an edit would drift (:func:`drift_preview`) follows Karpenter's
NodeClaim drift check: the NodePool template's hash (every field but the
requirements; compared only when the NodeClaim's hash annotations are of the
NodePool's hash version), requirements the NodeClaim's labels no longer meet,
and the AWS provider's EC2NodeClass hash. Karpenter compares hashes it computes;
an edit changes the hash exactly when it changes a hashed field (zero values
and list order aside), so the preview compares the fields themselves.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from datetime import datetime, timezone

from ....model import Snapshot
from ....model import labels as L
from ....model.fields import parse_duration
from ..launch import choose
from ..requirements import Req, Reqs
from .budgets import DRIFTED
from .candidates import Candidate
from .command import Command, Replacement
from .consolidation import no_room
from . import static, terminatefirst
from .verdicts import SKIPPED, Why

NAME, REASON = "drift", DRIFTED
_NO_TIME = datetime.min.replace(tzinfo=timezone.utc)
NOT_DRIFTED = Why(SKIPPED, "not-drifted", "", "not drifted: its NodeClaim has no Drifted condition that is True")


def should_disrupt(ctx, c: Candidate) -> Why | None:
    if c.claim is not None and c.claim.conditions.get("Drifted") == "True":
        return None
    return NOT_DRIFTED


def drifted_at(c: Candidate) -> datetime:
    """When the candidate's NodeClaim turned Drifted: drift takes the earliest first (``drift.go`` sorts
    by the condition's lastTransitionTime). A condition without a time sorts first, as Go's zero time."""
    since = c.claim.condition_since.get("Drifted") if c.claim is not None else None
    return since if since is not None else _NO_TIME


def static_order(candidates: list[Candidate]) -> list[Candidate]:
    """Static NodePools' drifted nodes, as static drift takes them: the cheaper to disrupt first."""
    return sorted((c for c in candidates if c.pool.replicas is not None), key=lambda c: (c.disruption_cost, c.name))


def drift_order(candidates: list[Candidate]) -> list[Candidate]:
    """The other drifted nodes, as drift takes them: oldest drift first, the empty ones before the others."""
    candidates = sorted((c for c in candidates if c.pool.replicas is None), key=drifted_at)
    return [c for c in candidates if not c.pods] + [c for c in candidates if c.pods]


def order(ctx, candidates: list[Candidate]) -> list[Candidate]:
    """Every drifted candidate in the order the method takes them up (static drift runs first)."""
    return static_order(candidates) + drift_order(candidates)


def compute(ctx, candidates: list[Candidate], budgets: dict[str, int]) -> Command | None:
    for c in static_order(candidates):  # static drift runs before drift
        if budgets.get(c.pool.name, 0) == 0:
            ctx.block(c, ctx.budget_reason(c, REASON), NAME)
            continue
        command, why = static.command(ctx, NAME, REASON, c)
        if command is not None:
            return command
        ctx.note(c, NAME, why)
    for c in drift_order(candidates):
        if budgets.get(c.pool.name, 0) == 0:
            ctx.block(c, ctx.budget_reason(c, REASON), NAME)
            continue
        # drift's SimulateScheduling has no consolidateAfter check on where the pods go
        simulation = ctx.simulate([c], planned=False, consolidating=False)
        if not simulation.all_scheduled:
            command = terminatefirst.for_reservation(ctx, NAME, REASON, c)  # v1.15: a full reservation
            if command is not None:
                return command
            ctx.note(c, NAME, no_room(simulation))
            continue
        replacements = []
        for claim in simulation.claims:
            rows = claim.type_rows()
            reqs = claim.final_requirements()
            replacements.append(Replacement(claim, rows, reqs, choose(ctx.types, rows, reqs)))
        return Command(NAME, REASON, [c], replacements, simulation)
    return None


# ---- which NodeClaims an edit would drift (Karpenter's NodeClaim drift check, before it runs) ----------
NODEPOOL_HASH, NODEPOOL_HASH_VERSION = L.NODEPOOL_HASH, L.NODEPOOL_HASH_VERSION
NODECLASS_HASH, NODECLASS_HASH_VERSION = L.NODECLASS_HASH, L.NODECLASS_HASH_VERSION
NODEPOOL_DRIFTED, REQUIREMENTS_DRIFTED, NODECLASS_DRIFT = "NodePoolDrifted", "RequirementsDrifted", "NodeClassDrift"
# Karpenter hashes a NodePool's spec.template without its requirements (checked on their own, below);
# v1beta1's template also had resources, never hashed.
_NODEPOOL_UNHASHED = frozenset({"requirements", "resources"})
# The EC2NodeClass fields AWS's provider leaves out of its hash: the selectors drift by what they
# resolve to (AMIDrift, SubnetDrift, SecurityGroupDrift, CapacityReservationDrift), which only AWS
# knows; amiFamily is hashed as resolved (an alias names it), ipPrefixCount not at all.
_NODECLASS_UNHASHED = frozenset({"subnetSelectorTerms", "securityGroupSelectorTerms", "amiSelectorTerms",
                                 "capacityReservationSelectorTerms", "ipPrefixCount", "amiFamily"})
_RESOLVED_BY_AWS = {"amiSelectorTerms": "AMIDrift", "subnetSelectorTerms": "SubnetDrift",
                    "securityGroupSelectorTerms": "SecurityGroupDrift",
                    "capacityReservationSelectorTerms": "CapacityReservationDrift"}
_DURATIONS = frozenset({"expireAfter", "terminationGracePeriod"})
_V1_DEFAULTS = {"expireAfter": "720h"}  # the API server's default, so leaving it out changes no hash


@dataclass(frozen=True)
class DriftReason:
    reason: str          # Karpenter's drift reason (NodePoolDrifted, RequirementsDrifted, NodeClassDrift, AMIDrift...)
    detail: str
    certain: bool = True  # False: it depends on what AWS resolves the new selectors to


@dataclass(frozen=True)
class Drifting:
    """One NodeClaim an edit would drift, and why; ``already``: its Drifted condition was True before."""

    claim: str
    node: str
    nodepool: str
    reasons: tuple[DriftReason, ...]
    already: bool = False


def _hashable(value, key: str = ""):
    """The value as Karpenter's hash sees it: zero values dropped, lists as sets, durations read."""
    if key in _DURATIONS and isinstance(value, str) and value != "Never":
        try:
            return parse_duration(value, key)
        except ValueError:
            return value
    if isinstance(value, dict):
        out = {k: _hashable(v, k) for k, v in value.items()}
        return {k: v for k, v in out.items() if v not in (None, "", 0, False, {}, ())}
    if isinstance(value, (list, tuple)):
        items = [_hashable(v) for v in value]
        return tuple(sorted((json.dumps(i, sort_keys=True, default=str) for i in items if i not in (None, "", {}, ()))))
    return value


def _changed(before: dict, after: dict, prefix: str) -> list[str]:
    return [f"{prefix}.{k}" for k in sorted(set(before) | set(after)) if before.get(k) != after.get(k)]


def nodepool_hash_changes(before, after) -> list[str]:
    """The hashed fields of the NodePool's template an edit changed (``spec.template.spec.taints``...)."""
    out = []
    for pool, parts in ((before, []), (after, [])):
        template = (pool.raw or {}).get("spec", {}).get("template", {}) if pool.kind == "NodePool" else {}
        meta = template.get("metadata") or {}
        spec = {k: v for k, v in (template.get("spec") or {}).items() if k not in _NODEPOOL_UNHASHED}
        if pool.api_version.endswith("/v1"):
            spec = {**_V1_DEFAULTS, **spec}
        parts += [_hashable({k: meta.get(k) for k in ("labels", "annotations")}), _hashable(spec)]
        out.append(parts)
    (meta0, spec0), (meta1, spec1) = out
    return _changed(meta0, meta1, "spec.template.metadata") + _changed(spec0, spec1, "spec.template.spec")


def nodeclass_changes(before, after) -> tuple[list[str], list[str]]:
    """(hashed fields an edit changed, selector fields it changed) of an EC2NodeClass's spec."""
    specs = []
    for nodeclass in (before, after):
        spec = dict((nodeclass.raw or {}).get("spec") or {})
        resolved = {k: v for k, v in spec.items() if k not in _NODECLASS_UNHASHED}
        resolved["amiFamily (as resolved)"] = nodeclass.ami_family
        specs.append((_hashable(resolved), _hashable({k: spec.get(k) for k in _RESOLVED_BY_AWS})))
    (hashed0, selectors0), (hashed1, selectors1) = specs
    return _changed(hashed0, hashed1, "spec"), [k for k in _RESOLVED_BY_AWS if selectors0.get(k) != selectors1.get(k)]


def _hash_drifted(claim, obj, key: str, version: str) -> bool | None:
    """Whether the claim's hash differs from the object's; None when Karpenter does not compare
    them (an annotation missing, or hashes of different versions), so no edit drifts it by hash."""
    theirs = obj.annotations.get(key), obj.annotations.get(version)
    mine = claim.annotations.get(key), claim.annotations.get(version)
    if None in mine or None in theirs or mine[1] != theirs[1]:
        return None
    return mine[0] != theirs[0]


def requirement_drift(claim, pool) -> DriftReason | None:
    """RequirementsDrifted: a NodePool requirement the NodeClaim's labels no longer meet (the labels
    and the requirement, both sides)."""
    labels = Reqs.from_labels(claim.labels)
    for requirement in pool.requirements:
        req = Req.of(requirement)
        if labels.compatible(Reqs([req]), why=False) is None:
            continue
        if req.key in claim.labels:
            detail = f"its label {req.key}={claim.labels[req.key]} is not in the NodePool's {req}"
        else:
            detail = f"it has no {req.key} label, and the NodePool now requires {req}"
        return DriftReason(REQUIREMENTS_DRIFTED, detail)
    return None


def drift_preview(before: Snapshot, after: Snapshot) -> list[Drifting]:
    """The NodeClaims (with a node) that ``after`` -- ``before`` with NodePools or NodeClasses edited --
    drifts: by the NodePool template's hash, by requirements the NodeClaim's labels no longer meet, by
    the EC2NodeClass's hash, and (maybe) by new AMI, subnet or security group selectors."""
    if after.nodepools is before.nodepools and after.nodeclasses is before.nodeclasses:
        return []   # nothing edited that drifts: no walk over every NodeClaim (most what-ifs)
    pools0 = {p.name: p for p in before.nodepools}
    pools1 = {p.name: p for p in after.nodepools}
    classes0 = {(c.kind, c.name): c for c in before.nodeclasses}
    classes1 = {(c.kind, c.name): c for c in after.nodeclasses}
    pool_fields = {name: nodepool_hash_changes(pools0[name], pool) for name, pool in pools1.items()
                   if name in pools0 and pool.kind == "NodePool"}
    class_fields = {key: nodeclass_changes(classes0[key], c) for key, c in classes1.items() if key in classes0}
    out = []
    for claim in after.nodeclaims:
        pool = pools1.get(claim.nodepool)
        if pool is None or not claim.node_name or pool.kind != "NodePool":
            continue
        reasons = []
        fields = pool_fields.get(pool.name, [])
        if fields and _hash_drifted(claim, pools0[pool.name], NODEPOOL_HASH, NODEPOOL_HASH_VERSION) is not None:
            reasons.append(DriftReason(NODEPOOL_DRIFTED, "the NodePool's hashed fields changed: " + ", ".join(fields)))
        found = requirement_drift(claim, pool)
        if found is not None and requirement_drift(claim, pools0.get(pool.name, pool)) is None:
            reasons.append(found)
        ref = claim.node_class_ref or pool.node_class_ref
        key = (ref.kind, ref.name) if ref is not None else None
        hashed, selectors = class_fields.get(key, ([], []))
        if hashed and _hash_drifted(claim, classes0[key], NODECLASS_HASH, NODECLASS_HASH_VERSION) is not None:
            reasons.append(DriftReason(NODECLASS_DRIFT,
                                       f"the {ref.kind}'s hashed fields changed: " + ", ".join(hashed)))
        reasons += [DriftReason(_RESOLVED_BY_AWS[f], f"{ref.kind} {f} changed: drifts if what it resolves to "
                                f"no longer includes the node's", certain=False) for f in selectors]
        if not reasons:
            continue
        out.append(Drifting(claim.name, claim.node_name, pool.name, tuple(reasons),
                            claim.conditions.get("Drifted") == "True"))
    return out


def mark_drifted(snapshot: Snapshot, drifting: list[Drifting]) -> Snapshot:
    """The snapshot with each certainly drifting NodeClaim's Drifted condition set, as Karpenter's
    NodeClaim disruption controller would: the drift method then replaces them. They are named in
    ``whatif_drifted`` too, so that a simulation without consolidation still runs the drift method
    (:func:`karptui.sim.karpenter.disruption.drift_alone`): Karpenter's drift does not wait for it."""
    names = {d.claim for d in drifting if any(r.certain for r in d.reasons)}
    if not names:
        return snapshot
    claims = tuple(replace(c, conditions={**c.conditions, "Drifted": "True"}) if c.name in names else c
                   for c in snapshot.nodeclaims)
    return replace(snapshot, nodeclaims=claims, whatif_drifted=snapshot.whatif_drifted | frozenset(names))
