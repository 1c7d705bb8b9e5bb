"""Where a pod's volumes let it run, as requirement alternatives (Karpenter's ``volumetopology.go``).

A claim bound to a volume contributes the volume's required node affinity
terms (hostname requirements of local and hostPath volumes dropped); an
unbound claim its StorageClass's allowed topologies. Each term is one
alternative; a pod with several volumes gets the combinations that are
compatible (all of them when none is).
"""

from __future__ import annotations

from ...model import Pod, Snapshot
from ...model import labels as L
from .requirements import Req, Reqs


def _volume_alternatives(pod: Pod, claim_name: str, snapshot: Snapshot) -> list[Reqs]:
    index = snapshot.volume_index
    claim = index.claims.get((pod.namespace, claim_name))
    if claim is None:
        return []
    if claim.volume_name:
        volume = index.volumes.get(claim.volume_name)
        if volume is None or volume.node_affinity is None:
            return []
        out = []
        local = bool(volume.raw and (volume.raw.get("spec", {}).get("local") or volume.raw.get("spec", {}).get("hostPath")))
        for term in volume.node_affinity.terms:
            reqs = [r for r in term.match_expressions if not (local and r.key == L.HOSTNAME)]
            if term.match_expressions and not reqs and local:
                out.append(Reqs())
            elif reqs:
                out.append(Reqs(Req.of(r) for r in reqs))
        return out
    storage_class = index.class_of(claim)
    if storage_class is None:
        return []
    return [Reqs(Req.of(r) for r in term) for term in storage_class.allowed_topologies if term]


def volume_requirements(pod: Pod, snapshot: Snapshot) -> list[Reqs]:
    """The pod's volume requirement alternatives; empty when its volumes do not constrain it."""
    if not pod.pvc_names:
        return []
    alternatives: list[Reqs | None] = [None]
    for name in pod.pvc_names:
        found = _volume_alternatives(pod, name, snapshot)
        if not found:
            continue
        merged = [_merge(a, v) for a in alternatives for v in found if a is None or a.intersects(v, why=False) is None]
        alternatives = merged or [_merge(a, v) for a in alternatives for v in found]
    return [] if alternatives == [None] else alternatives


def _merge(existing: Reqs | None, volume: Reqs) -> Reqs:
    return volume if existing is None else existing.plus(volume.values())


BIND_COMPLETED = L.BIND_COMPLETED


def volume_error(pod: Pod, snapshot: Snapshot) -> str | None:
    """Why Karpenter will not provision for ``pod`` because of its claims (ValidatePersistentVolumeClaims):
    a claim that is missing, being deleted or lost; bound to a volume that is missing, being deleted or
    not yet confirmed bound; unbound without a StorageClass, with a missing one, or with one that binds
    immediately (an unbound immediate claim waits for its volume, not for a node)."""
    index = snapshot.volume_index
    for name in pod.pvc_names:
        claim = index.claims.get((pod.namespace, name))
        if claim is None:
            return f"getting persistent volume claim, persistentvolumeclaims \"{name}\" not found"
        where = f"(PersistentVolumeClaim={claim.key})"
        if claim.deleted is not None:
            return f"persistentvolumeclaim is being deleted {where}"
        if claim.phase == "Lost":
            return f"persistentvolumeclaim bound to non-existent persistentvolume {where}"
        if claim.volume_name:
            volume = index.volumes.get(claim.volume_name)
            if volume is None:
                return f'failed to validate pvc, persistentvolumes "{claim.volume_name}" not found {where}'
            if volume.deleted is not None:
                return f"failed to validate pvc, persistentvolume is being deleted {where}"
            if BIND_COMPLETED not in claim.annotations:
                return f"pvc is considered unbound because it does not contain annotation {BIND_COMPLETED} {where}"
            continue
        class_name = index.class_name(claim)
        if not class_name:
            return f"unbound pvc must define a storage class {where}"
        storage_class = index.classes.get(class_name)
        if storage_class is None:
            return f'failed to validate pvc, failed to get storage class "{class_name}" {where}'
        if storage_class.volume_binding_mode == "Immediate":
            return f"failed to validate pvc, pvc with immediate volume binding mode must be bound {where}"
    return None
