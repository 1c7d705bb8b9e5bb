"""The DaemonSet controller: one pod per node that its selector, affinity and taints admit.

References (kubernetes/kubernetes pkg/controller/daemon): ``NodeShouldRunDaemonPod`` (node
selector, required node affinity, taints the pod does not tolerate); the controller pins each
pod to its node with a ``metadata.name`` node-affinity term; ``update.go`` rolls a template
change out node by node (``RollingUpdate``, the default: the old pod on a node is deleted and a
new one made for the same node; ``OnDelete``: no pod is replaced until deleted). Whatever the
strategy, a node the new template no longer admits loses its pod and a newly admitted node gets
one. A daemon pod never moves to another node.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

from ...model.node import Node
from ...model.pod import Pod
from ...model.taints import first_untolerated
from ...model.workloads import Workload
from ..edits import Target
from .common import owner_ref
from .ranking import is_active
from .templates import PodTemplate, fresh_names

if TYPE_CHECKING:
    from ..apply import Run

ROLLING = "RollingUpdate"   # the default; OnDelete (or any other) replaces no running pod


def reconcile(run: Run, old: Workload, new: Workload, raw: Mapping, target: Target,
              template_changed: bool) -> None:
    snap = run.snapshot
    pods = [p for p in snap.pods_of(old) if is_active(p)]
    template = PodTemplate(run, new, raw, target, old=old, running=pods)
    strategy = (raw.get("spec") or {}).get("updateStrategy")
    kind = (strategy.get("type") if isinstance(strategy, Mapping) else None) or ROLLING
    probe = template.probe()
    eligible = {n.name for n in snap.nodes if should_run(probe, n)}
    by_node: dict[str, list[Pod]] = {}
    for pod in pods:
        by_node.setdefault(pinned_node(pod), []).append(pod)
    deleted = [p for node, on in by_node.items() if node not in eligible for p in on]
    replace_on = [node for node in by_node if node in eligible] if template_changed and kind == ROLLING else []
    deleted += [p for node in replace_on for p in by_node[node]]
    fresh = [n for n in snap.nodes if n.name in eligible and n.name not in by_node]
    owner = owner_ref(raw, new)
    added = [template.pod(sorted(p.name for p in by_node[node])[0], owner, spec=pinned(template.spec, node))
             for node in replace_on]
    added += daemon_pods(run, new, template, owner, fresh)
    run.replace_pods(deleted, added, [new if w is old else w for w in snap.workloads])
    if template_changed:
        if kind == ROLLING:
            run.notes.append(f"{new.ref}: rolling update, node by node: {len(replace_on)} pod(s) re-created on "
                             "their own nodes")
        else:
            run.notes.append(f"{new.ref}: updateStrategy {kind}: no running pod is replaced until it is deleted")
    dropped = len(deleted) - sum(len(by_node[n]) for n in replace_on)
    if dropped or fresh:
        run.notes.append(f"{new.ref}: {dropped} node(s) no longer run it, {len(fresh)} more node(s) do")


def daemon_pods(run: Run, ds: Workload, template: PodTemplate, owner: dict, nodes: Sequence[Node]) -> list[Pod]:
    """A new pending pod for each of ``nodes`` (already known to admit it), pinned to it."""
    names = fresh_names(run, ds, len(nodes))
    return [template.pod(name, owner, spec=pinned(template.spec, node.name)) for name, node in zip(names, nodes)]


def pods_for_new_nodes(run: Run, nodes: Iterable[Node]) -> list[Pod]:
    """What every DaemonSet of the snapshot makes on nodes just added."""
    snap, nodes = run.snapshot, list(nodes)
    out: list[Pod] = []
    for ds in (w for w in snap.workloads if w.kind == "DaemonSet" and w.raw is not None):
        target = Target("DaemonSet", ds.name, ds.namespace)
        running = [p for p in snap.pods_of(ds) if is_active(p)]
        template = PodTemplate(run, ds, ds.raw, target, running=running)
        probe = template.probe()
        out += daemon_pods(run, ds, template, owner_ref(ds.raw, ds), [n for n in nodes if should_run(probe, n)])
    return out


def pinned(spec: dict, node: str) -> dict:
    """The DaemonSet controller's pin: required node affinity replaced by the node's name."""
    affinity = dict(spec.get("affinity") or {})
    node_affinity = dict(affinity.get("nodeAffinity") or {})
    node_affinity["requiredDuringSchedulingIgnoredDuringExecution"] = {
        "nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": [node]}]}],
    }
    affinity["nodeAffinity"] = node_affinity
    return {**spec, "affinity": affinity}


def pinned_node(pod: Pod) -> str:
    """The node a pod is on, or the one its ``metadata.name`` affinity pins it to."""
    if pod.node_name:
        return pod.node_name
    required = pod.affinity.node_required
    for term in required.terms if required else ():
        for field in term.match_fields:
            if field.key == "metadata.name" and field.operator == "In" and len(field.values) == 1:
                return field.values[0]
    return ""


def should_run(probe: Pod, node: Node) -> bool:
    """The DaemonSet controller's test: node selector, required affinity, untolerated taints."""
    if any(node.labels.get(k) != v for k, v in probe.node_selector.items()):
        return False
    required = probe.affinity.node_required
    if required is not None and not required.matches(node.labels, node.name):
        return False
    return first_untolerated(node.taints, probe.tolerations) is None
