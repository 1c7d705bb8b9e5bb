"""What a drill-in shows: a node's pods, taints, labels and events; a pod's constraints and verdicts."""

from __future__ import annotations

from collections import defaultdict

from ..model import Node, Pod, Snapshot
from ..model.events import Event
from ..model.quantity import format_millis, human_bytes
from .buffers import node_buffer_lines
from .nodepool_table import nodepool_lines, nodepools_json
from .pending import simulator_answer
from .prediction import predict


DISRUPTION_SECTION = "disruption"
BUFFER_SECTION = "buffer pods"


def node_detail(node: Node, snapshot: Snapshot, events: list[dict],
                disruption: list[str] | None = None, buffers=None) -> dict[str, list[str]]:
    """The sections of a node's drill-in; ``disruption`` (each disruption method's verdict, from
    :meth:`karptui.views.disruption.DisruptionView.node_lines`) when the caller has it; ``buffers``:
    the simulation's capacity buffer tally, whose virtual pods on the node get a section of their own."""
    pods = snapshot.pods_by_node.get(node.name, [])
    claim = snapshot.nodeclaim_by_node.get(node.name)
    names = {node.name} | ({claim.name} if claim else set())
    related = [e for e in events if e.get("node") in names or e.get("nodeclaim") in names
               or node.name in e.get("nodes", [])]
    sections = {
        "pods": [f"{p.key}  cpu {format_millis(p.requests.get('cpu', 0))}  memory "
                 f"{human_bytes(p.requests.get('memory', 0))}  {p.phase}" for p in pods] or ["(none)"],
        "taints": [f"{t.key}={t.value}:{t.effect}" for t in node.taints] or ["(none)"],
        "labels": [f"{k}={v}" for k, v in sorted(node.labels.items())],
        "conditions": [f"{k}: {v}" for k, v in sorted(node.conditions.items())] or ["(none reported)"],
        "karpenter": [f"{e.get('time', '')} {e['kind']}" for e in related] or ["(nothing in the logs)"],
        "events": [f"{e.reason}: {e.message}" for e in snapshot.events if _about_node(e, names)] or ["(none)"],
    }
    held = node_buffer_lines(buffers, node.name)
    if held:   # right after the pods: they are counted as if they were some
        sections = {"pods": sections.pop("pods"), BUFFER_SECTION: held, **sections}
    if disruption is not None and node.nodepool:
        sections = {"pods": sections.pop("pods"), DISRUPTION_SECTION: disruption, **sections}
    return sections


def prepare_node_detail(snapshot: Snapshot) -> None:
    """Build the snapshot's indexes :func:`node_detail` reads (each made once, on first use) before
    the first drill-in: on 20,000 nodes the NodeClaims by node took it over 50 ms on their own. Made
    where the snapshot's overview is built (:func:`karptui.views.overview.overview`), not in a thread
    beside it: a cached property holds a lock while it is made, and a child forked meanwhile (the
    screen's simulations) would wait on that lock for ever."""
    _ = snapshot.pods_by_node, snapshot.nodeclaim_by_node   # each made on its first reading


def _about_node(event: Event, names: set[str]) -> bool:
    """An Event about the node (or its NodeClaim), not one that merely names it: Nodes and
    NodeClaims are cluster-scoped, so their events have no involvedObject namespace and
    are filed in ``default`` (kubelet, kube-scheduler, the node controllers, Karpenter)."""
    return (event.involved_kind in ("Node", "NodeClaim", "Machine") and event.involved_name in names
            and not event.involved_namespace and event.filed_with_its_object)


def constraints(pod: Pod) -> list[str]:
    """The pod's scheduling constraints, one readable line each."""
    lines = []
    for c in pod.spread_constraints:
        extra = "".join(f", {k} {v}" for k, v in (("minDomains", c.min_domains),) if v is not None)
        lines.append(f"spread: {c.topology_key} maxSkew {c.max_skew} {c.when_unsatisfiable} "
                     f"selector {c.label_selector}{extra}, nodeAffinityPolicy {c.node_affinity_policy}, "
                     f"nodeTaintsPolicy {c.node_taints_policy}"
                     + (f", matchLabelKeys {list(c.match_label_keys)}" if c.match_label_keys else ""))
    for key, value in pod.node_selector.items():
        lines.append(f"nodeSelector: {key}={value}")
    if pod.affinity.node_required is not None:
        for term in pod.affinity.node_required.terms:
            lines.append("node affinity (required): " + " AND ".join(str(r) for r in term.match_expressions))
    for p in pod.affinity.node_preferred:
        lines.append(f"node affinity (preferred, weight {p.weight}): "
                     + " AND ".join(str(r) for r in p.term.match_expressions))
    for label, terms in (("pod affinity", pod.affinity.pod_required), ("pod anti-affinity", pod.affinity.anti_required)):
        for t in terms:
            lines.append(f"{label} (required): {t.label_selector} per {t.topology_key}")
    for t in pod.tolerations:
        lines.append(f"toleration: {t.key or '*'} {t.operator} {t.value} {t.effect or 'all effects'}".replace("  ", " "))
    return lines or ["(no scheduling constraints)"]


def verdicts_by_reason(filters: dict[str, tuple[str, ...]] | None) -> list[str]:
    """Per-node filter verdicts grouped by reason: ``Insufficient cpu (3): a, b, c``."""
    if not filters:
        return ["(run with the simulator to see per-node verdicts)"]
    grouped: dict[str, list[str]] = defaultdict(list)
    for node, reasons in filters.items():
        for reason in reasons or ("fits",):
            grouped[reason].append(node)
    return [f"{reason} ({len(nodes)}): {', '.join(nodes[:6])}{' …' if len(nodes) > 6 else ''}"
            for reason, nodes in sorted(grouped.items(), key=lambda kv: -len(kv[1]))]


def _pod_log_line(found: dict) -> str:
    """One of the pod's log records in the drill-in: a scheduling failure by NodePool, a launch that
    failed for it (v1.15's InsufficientCapacityError on each nominated pod) by NodeClaim and error."""
    if found["kind"] == "launch_failed":
        told = f"NodeClaim {found['nodeclaim']}: " if found.get("nodeclaim") else ""
        return f"{found.get('time', '')} launch_failed: {told}{found.get('error', '')}"
    return (f"{found.get('time', '')} {found['kind']}: "
            + "; ".join(f"{p['name']}: {p['reason']}" for p in found.get("nodepools", [])))


def pod_detail(pod: Pod, snapshot: Snapshot, attempt, events: list[dict], catalog=None,
               nodeclaims=()) -> dict[str, list[str]]:
    """The pod drill-in's sections; ``nodepools``: Karpenter's NodePool decision table, when the simulation
    kept one (the pod went to Karpenter; ``catalog``: its discounts price the launches). ``simulation``
    opens with the batch's answer in the Pending strip's words (``nodeclaims``: the simulation's plans),
    so the drill-in and the strip cannot name different launches."""
    related = [e for e in events if e.get("pod") == pod.key]
    owner = snapshot.top_owner(pod)
    sim = []
    prediction = predict(attempt, nodeclaims, catalog)
    if attempt is not None:
        sim.append(f"simulated: {simulator_answer(attempt, snapshot, prediction)}")
        if attempt.reason:
            sim.append(attempt.reason)
        if attempt.summary:
            sim.append(attempt.summary)
    return {
        "pod": [f"{pod.key}  owner {owner.ref if owner else '-'}  priority {pod.priority}",
                f"requests: {', '.join(f'{k}={v}' for k, v in pod.requests.to_quantities().items())}"],
        "kube-scheduler": [pod.scheduled_message or "(no reason recorded)"],
        "simulation": sim or ["(simulating…)"],
        "constraints": constraints(pod),
        "verdicts by reason": verdicts_by_reason(attempt.filters if attempt is not None else None),
        **({"nodepools, in the order Karpenter tries them":
            nodepool_lines(nodepools_json(attempt.nodepools, catalog, prediction))}
           if attempt is not None and attempt.nodepools is not None else {}),
        "karpenter log": [_pod_log_line(e) for e in related] or ["(nothing in the logs)"],
    }
