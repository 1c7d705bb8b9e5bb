"""``karptui snapshot info``: the summary of a snapshot (its JSON contract: README.md, "Commands")."""

from __future__ import annotations

from collections import Counter

from ..model import Snapshot
from ..model.resources import CPU, MEMORY
from ..sim.karpenter.settings import karpenter_settings
from ..sim.karpenter.versions import VersionFound, version_found


def warnings_with_catalog(snapshot: Snapshot, catalog, namespace: str | None = None) -> list[str]:
    """What the loader skipped or doubts, plus the zones ``catalog`` offers nothing in, and a
    ``-n`` namespace with no pods: what `simulate` prints on stderr and the TUI says on start,
    before answering from them."""
    from ..catalog.catalog import zone_warnings  # here: `snapshot info` needs no catalog

    return list(snapshot.warnings) + zone_warnings(snapshot, catalog) + namespace_warnings(snapshot, namespace)


def namespace_warnings(snapshot: Snapshot, namespace: str | None) -> list[str]:
    """``-n nope`` showed empty panes and an empty table as if the namespace were quiet."""
    if not namespace or any(p.namespace == namespace for p in snapshot.pods):
        return []
    having = sorted({p.namespace for p in snapshot.pods})
    listed = ", ".join(having[:8]) + (f" and {len(having) - 8} more" if len(having) > 8 else "")
    return [f"-n {namespace}: no pods of that namespace in this snapshot"
            + (f" (namespaces with pods: {listed})" if having else "")]


def snapshot_info(snapshot: Snapshot) -> dict:
    """The contract keys (nodes, pods, pending, nodepools, zones, warnings) and more.

    ``pending`` counts pods waiting for a node: not bound and not finished.
    ``nodepools`` counts NodePools and v1alpha5 Provisioners.
    """
    meta = snapshot.meta
    return {
        "nodes": len(snapshot.nodes),
        "pods": len(snapshot.pods),
        "pending": len(snapshot.pending_pods),
        "nodepools": len(snapshot.nodepools),
        "zones": snapshot.zones,
        "warnings": list(snapshot.warnings),
        "source": meta.source,
        "name": meta.name,
        "captured_at": meta.captured_at.isoformat() if meta.captured_at else None,
        "context": meta.context,
        "cluster": meta.cluster,
        "kubernetes_version": meta.kubernetes_version or _kubelet_version(snapshot),
        "karpenter_version": version_found(snapshot).to_dict(),
        "karpenter_settings": karpenter_settings(snapshot).to_dict(),
        "nodeclaims": len(snapshot.nodeclaims),
        "nodeclasses": len(snapshot.nodeclasses),
        "nodeoverlays": len(snapshot.nodeoverlays),
        "workloads": dict(sorted(Counter(w.kind for w in snapshot.workloads).items())),
        "pdbs": len(snapshot.pdbs),
        "events": len(snapshot.events),
        "failed_scheduling_events": sum(1 for e in snapshot.events if e.is_failed_scheduling),
        "capacity_types": dict(sorted(Counter(n.capacity_type or "unknown" for n in snapshot.nodes).items())),
        "node_origins": dict(sorted(Counter(n.origin for n in snapshot.nodes).items())),
        "allocatable": _totals(snapshot),
        "karpenter_logs": len(meta.logs_text.splitlines()) if meta.logs_text else 0,
        "ignored": dict(snapshot.ignored),
    }


def karpenter_words(found: VersionFound | dict, settings: dict | None = None) -> str:
    """``Karpenter v1.14.3 (controller image)``, ``... (set by --karpenter-version)``, ``Karpenter v1.0.1
    (controller image; simulated by v1.9's rules)``: the header's and ``snapshot info``'s words. The
    controller settings that are not Karpenter's defaults follow (``PREFERENCE_POLICY=Ignore``,
    ``default spread: zone``): they change the answers as much as the version does."""
    if isinstance(found, VersionFound):
        found = found.to_dict()
    older = "; simulated by v1.9's rules" if found["older_than_modelled"] else ""
    return f"Karpenter {found['version']} ({found['source']}{older}){settings_words(settings)}"


def settings_words(settings: dict | None) -> str:
    """`` PREFERENCE_POLICY=Ignore, default spread: zone, hostname``; "" with Karpenter's defaults."""
    if not settings:
        return ""
    words = []
    if settings["preference_policy"] != "Respect":
        words.append(f"PREFERENCE_POLICY={settings['preference_policy']}")
    if settings["min_values_policy"] != "Strict":
        words.append(f"MIN_VALUES_POLICY={settings['min_values_policy']}")
    if settings["default_constraints"]:
        keys = dict.fromkeys(c["topologyKey"].rpartition("/")[2] for c in settings["default_constraints"])
        words.append(f"default spread: {', '.join(keys)}")
    if settings.get("legacy_node_repair"):
        words.append("LEGACY_NODE_REPAIR=true")
    return f" {', '.join(words)}" if words else ""


def _kubelet_version(snapshot: Snapshot) -> str:
    versions = Counter(n.kubelet_version for n in snapshot.nodes if n.kubelet_version)
    return versions.most_common(1)[0][0] if versions else ""


def _totals(snapshot: Snapshot) -> dict:
    """Cluster allocatable vs requested by bound pods: cpu in millicores, memory in bytes."""
    alloc_cpu = sum(n.allocatable.get(CPU, 0) for n in snapshot.nodes)
    alloc_mem = sum(n.allocatable.get(MEMORY, 0) for n in snapshot.nodes)
    req_cpu = req_mem = 0
    for pod in snapshot.bound_pods:
        req_cpu += pod.requests.get(CPU, 0)
        req_mem += pod.requests.get(MEMORY, 0)
    return {"cpu_millis": alloc_cpu, "memory_bytes": alloc_mem,
            "requested_cpu_millis": req_cpu, "requested_memory_bytes": req_mem}
