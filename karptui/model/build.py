"""Raw Kubernetes objects (dicts) -> one immutable :class:`Snapshot`.

Unknown kinds are counted, not fatal; an object that cannot be understood is
skipped with one warning naming it; a duplicate (same kind, namespace, name)
keeps the later copy, since dumps concatenated in time order end newest last.
"""

from __future__ import annotations

import importlib
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from .errors import ModelError
from .meta import describe
from .quantity import MAX_AMOUNT
from .resources import Resources, format_quantity
from .snapshot import Snapshot, SnapshotMeta

MAX_LISTED_WARNINGS = 50

Builder = Callable[[Mapping, str, str], Any]

# What a builder takes: the object (PLAIN), the object and its kind (KIND), or the object, its apiVersion
# and its kind (FULL).
PLAIN, KIND, FULL = "obj", "obj, kind", "obj, api_version, kind"
# (API group, kind) -> (Snapshot field, the model module that reads it, its builder, what the builder
# takes). Older groups that served the same kinds (extensions, apps/v1beta2, policy/v1beta1) are the
# same entries. A module is imported when its kind is first met: a dump without PersistentVolumes
# never builds their reader's classes (:func:`builder_of`).
KINDS: dict[tuple[str, str], tuple[str, str, str, str]] = {
    ("", "Node"): ("nodes", "node", "build_node", PLAIN),
    ("", "Pod"): ("pods", "pod", "build_pod", PLAIN),
    ("", "Event"): ("events", "events", "build_event", PLAIN),
    ("events.k8s.io", "Event"): ("events", "events", "build_event", PLAIN),
    ("", "Namespace"): ("namespaces", "namespace", "build_namespace", PLAIN),
    ("", "Service"): ("services", "service", "build_service", PLAIN),
    ("", "PersistentVolume"): ("pvs", "volumes", "build_pv", PLAIN),
    ("", "PersistentVolumeClaim"): ("pvcs", "volumes", "build_pvc", PLAIN),
    ("policy", "PodDisruptionBudget"): ("pdbs", "disruption", "build_pdb", PLAIN),
    ("scheduling.k8s.io", "PriorityClass"): ("priority_classes", "classes", "build_priority_class", PLAIN),
    ("storage.k8s.io", "StorageClass"): ("storage_classes", "classes", "build_storage_class", PLAIN),
    ("storage.k8s.io", "CSINode"): ("csinodes", "csi", "build_csinode", PLAIN),
    ("batch", "Job"): ("workloads", "workloads", "build_workload", KIND),
    ("karpenter.sh", "NodePool"): ("nodepools", "nodepool", "build_nodepool", FULL),
    ("karpenter.sh", "Provisioner"): ("nodepools", "nodepool", "build_nodepool", FULL),
    ("karpenter.sh", "NodeClaim"): ("nodeclaims", "nodeclaim", "build_nodeclaim", FULL),
    ("karpenter.sh", "Machine"): ("nodeclaims", "nodeclaim", "build_nodeclaim", FULL),
    ("karpenter.sh", "NodeOverlay"): ("nodeoverlays", "nodeoverlay", "build_nodeoverlay", FULL),
    ("autoscaling.x-k8s.io", "CapacityBuffer"): ("capacity_buffers", "capacitybuffer", "build_capacity_buffer", PLAIN),
    ("", "PodTemplate"): ("pod_templates", "capacitybuffer", "build_pod_template", PLAIN),
    ("karpenter.k8s.aws", "EC2NodeClass"): ("nodeclasses", "nodeclass", "build_node_class", FULL),
    ("karpenter.k8s.aws", "AWSNodeTemplate"): ("nodeclasses", "nodeclass", "build_node_class", FULL),
    # Karpenter's own CRDs only (other CRDs count as ignored): they bound the Karpenter release
    ("apiextensions.k8s.io", "CustomResourceDefinition"): ("karpenter_crds", "crd", "build_karpenter_crd", PLAIN),
}
for _group in ("apps", "extensions"):
    for _kind in ("Deployment", "ReplicaSet", "StatefulSet", "DaemonSet"):
        KINDS[(_group, _kind)] = ("workloads", "workloads", "build_workload", KIND)

_BUILDERS: dict[tuple[str, str], tuple[str, Builder]] = {}


def builder_of(group: str, kind: str) -> tuple[str, Builder] | None:
    """(Snapshot field, builder taking (obj, api_version, kind)) for a kind karptui reads, else None."""
    found = _BUILDERS.get((group, kind))
    if found is None:
        entry = KINDS.get((group, kind))
        if entry is None:
            return None
        field_name, module, name, takes = entry
        fn = getattr(importlib.import_module(f".{module}", __package__), name)
        found = _BUILDERS[(group, kind)] = (field_name, fn if takes == FULL else _plain(fn) if takes == PLAIN
                                            else _with_kind(fn))
    return found


def _plain(fn: Callable[[Mapping], Any]) -> Builder:
    return lambda obj, api_version, kind: fn(obj)


def _with_kind(fn: Callable[[Mapping, str], Any]) -> Builder:
    return lambda obj, api_version, kind: fn(obj, kind)


def api_group(api_version: str) -> str:
    """``apps/v1`` -> ``apps``; ``v1`` -> ``""`` (the core group)."""
    return api_version.rpartition("/")[0]


def convert(obj: Mapping) -> tuple[str, tuple[str, str, str], Any] | None:
    """One raw object -> (Snapshot field, (kind, namespace, name), model object); None for a
    kind karptui does not use. Raises ModelError, TypeError, ValueError... on a malformed one."""
    kind, api_version = obj.get("kind"), obj.get("apiVersion")
    if not isinstance(kind, str) or not isinstance(api_version, str):
        raise ModelError("apiVersion or kind missing")
    entry = builder_of(api_group(api_version), kind)
    if entry is None:
        return None
    field_name, builder = entry
    built = builder(obj, api_version, kind)
    if built is None:
        return None
    return field_name, (kind, built.namespace, built.name), built


def assemble(fields: Mapping[str, Iterable[Any]], meta: SnapshotMeta | None = None,
             ignored: Mapping[str, int] | None = None, warnings: Iterable[str] = ()) -> Snapshot:
    """A Snapshot from model objects already built (a file load, or a live cluster's store)."""
    snapshot = Snapshot(**{name: tuple(objs) for name, objs in fields.items()}, meta=meta or SnapshotMeta(),
                        ignored=dict(sorted((ignored or {}).items())))
    object.__setattr__(snapshot, "warnings", tuple(list(warnings) + _consistency(snapshot)))
    return snapshot


class SnapshotBuilder:
    """Collects raw objects one by one; :meth:`build` makes the Snapshot."""

    def __init__(self, converter: Callable[[Mapping], Any] | None = None) -> None:
        """``converter``: :func:`convert`, or one that remembers what it built (a recording's
        states share most objects: scrubbing builds only the ones that changed)."""
        self._convert = converter or convert
        self._objects: dict[str, dict[tuple[str, str, str], Any]] = {}
        self._ignored: Counter[str] = Counter()
        self._skipped: list[str] = []
        self._duplicates: Counter[str] = Counter()
        self.warnings: list[str] = []

    def add(self, obj: object, origin: str = "") -> None:
        """One object as the API returns it; ``origin`` names its file for warnings."""
        if type(obj) is not dict and not isinstance(obj, Mapping):  # type() first: skips the ABC check for JSON's
            self._skip(origin, describe(obj), "not an object")
            return
        try:
            converted = self._convert(obj)
        except ModelError as exc:
            self._skip(origin, describe(obj), str(exc))
            return
        except (TypeError, ValueError, AttributeError, KeyError, IndexError) as exc:
            self._skip(origin, describe(obj), f"malformed ({exc})")
            return
        if converted is None:
            self._ignored[obj["kind"]] += 1
            return
        field_name, identity, built = converted
        bucket = self._objects.setdefault(field_name, {})
        if identity in bucket:
            self._duplicates[identity[0]] += 1
            del bucket[identity]  # the later copy also takes the later position
        bucket[identity] = built

    def _skip(self, origin: str, what: str, why: str) -> None:
        self._skipped.append((origin, what, why))

    def build(self, meta: SnapshotMeta | None = None, warnings: Iterable[str] = ()) -> Snapshot:
        fields = {name: bucket.values() for name, bucket in self._objects.items()}
        return assemble(fields, meta, self._ignored, list(warnings) + self._summary())

    def _summary(self) -> list[str]:
        grouped = _grouped_skips(self._skipped)
        notes = grouped[:MAX_LISTED_WARNINGS]
        if len(grouped) > MAX_LISTED_WARNINGS:
            notes.append(f"... and {len(grouped) - MAX_LISTED_WARNINGS} more warnings about skipped objects")
        for kind, count in sorted(self._duplicates.items()):
            notes.append(f"{count} duplicate {kind} object(s): kept the later copy of each")
        if self._ignored:
            kinds = ", ".join(f"{k} ({n})" for k, n in sorted(self._ignored.items()))
            notes.append(f"ignored {sum(self._ignored.values())} object(s) of kinds karptui does not use: {kinds}")
        return notes


def _grouped_skips(skipped: list[tuple[str, str, str]]) -> list[str]:
    """One line per file, kind and reason: 47 pods with the same bad priority were 47 lines that
    buried the answer. A reason met once keeps its object's own line."""
    groups: dict[tuple[str, str, str], list[str]] = {}
    for origin, what, why in skipped:
        kind, _, name = what.partition(" ")
        if not name or name.startswith(("without ", "where ")):   # nothing to tell them apart by
            kind, name = what, ""
        groups.setdefault((origin, kind, why), []).append(name)
    lines = []
    for (origin, kind, why), names in groups.items():
        where = f"{origin}: " if origin else ""
        if len(names) == 1:
            lines.append(f"{where}skipped {kind}{' ' + names[0] if names[0] else ''}: {why}")
        elif not names[0]:
            lines.append(f"{where}skipped {len(names)} x {kind}: {why}")
        else:
            more = f" and {len(names) - 3} more" if len(names) > 3 else ""
            lines.append(f"{where}skipped {len(names)} {kind} objects ({', '.join(names[:3])}{more}): {why}")
    return lines


def _consistency(snapshot: Snapshot) -> list[str]:
    """Gaps an operator should know about before trusting the picture."""
    notes = []
    orphans = sum(1 for p in snapshot.pods if p.node_name and p.node_name not in snapshot.node_by_name)
    if orphans:
        notes.append(f"{orphans} pod(s) are bound to nodes missing from the snapshot")
    if snapshot.pods and not snapshot.nodes:
        notes.append("the snapshot has pods but no nodes: include nodes in the dump")
    return notes + _refused_by_the_api(snapshot)


def _refused_by_the_api(snapshot: Snapshot) -> list[str]:
    """Values the API server would have refused: karptui simulates them as written, so say so."""
    notes: list[str] = []

    def report(what: str, offenders: list[str], why: str) -> None:
        if offenders:
            more = f" and {len(offenders) - 3} more" if len(offenders) > 3 else ""
            notes.append(f"{what}: {'; '.join(offenders[:3])}{more} ({why})")

    # A workload's replicas share one Resources object (pod templates, instance types): each distinct
    # one is looked at once, and only an offender's words are made.
    negative, capped = _by_identity(_negative), _by_identity(_capped)
    report("negative resource requests", [
        f"Pod {p.namespace}/{p.name} {found}" for p in snapshot.pods if (found := negative(p.requests))],
        "the API refuses them; simulated as written")
    report("negative node resources", [
        f"Node {n.name} {found}" for n in snapshot.nodes
        if (found := negative(n.allocatable) or negative(n.capacity))], "the API refuses them; simulated as written")
    report("quantities past the int64 maximum", [
        f"Pod {p.namespace}/{p.name} requests {found}" for p in snapshot.pods if (found := capped(p.requests))]
        + [f"Node {n.name} allocatable {found}" for n in snapshot.nodes if (found := capped(n.allocatable))],
        "capped there as the API caps them; sums of such amounts are not meaningful")
    for pool in snapshot.nodepools:  # each its own line: the operator fixes the manifest field by field
        for problem, instead in pool.refused:
            notes.append(f"{pool.ref}: {problem}: Karpenter's API server would refuse this NodePool (kubectl "
                         f"apply fails); karptui simulates it with {instead}")
    report("host ports out of range", [
        f"Pod {p.namespace}/{p.name} hostPort {port.port}" for p in snapshot.pods for port in p.host_ports
        if not 1 <= port.port <= 65535], "the API accepts 1-65535 only; simulated as written")
    return notes


def _by_identity(words: Callable[[Resources], str]) -> Callable[[Resources], str]:
    """``words`` remembered per Resources object, for one pass over a snapshot that holds them all."""
    seen: dict[int, str] = {}

    def remembered(resources: Resources) -> str:
        found = seen.get(id(resources))
        if found is None:
            found = seen[id(resources)] = words(resources)
        return found

    return remembered


def _capped(resources: Resources) -> str:
    """The names whose amount sits at the cap: ``cpu, memory``, or empty."""
    return ", ".join(name for name, value in resources.items() if abs(value) >= MAX_AMOUNT)


def _negative(resources: Resources) -> str:
    """``cpu -500m, memory -1Gi`` for the negative amounts, or empty."""
    return ", ".join(f"{name} {format_quantity(name, value)}" for name, value in resources.items() if value < 0)


def build_snapshot(objects: Iterable[object], meta: SnapshotMeta | None = None) -> Snapshot:
    builder = SnapshotBuilder()
    for obj in objects:
        builder.add(obj)
    return builder.build(meta)
