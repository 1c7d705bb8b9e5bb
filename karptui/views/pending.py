"""Pending pods with the scheduler's own reason, as the pending pane shows them."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from ..logs import LogParser
from ..logs.join import explain_pending
from ..model import Pod, Snapshot
from ..model import labels as L
from ..model.resources import CPU, MEMORY
from ..sim.result import Attempt
from .nodepool_table import row_label
from .prediction import COMING_UP, FITS, LAUNCH, PENDING, SIMULATING, Prediction, predict
from .nodes import short_name, short_names_in


@dataclass(frozen=True)
class PendingRow:
    key: str
    owner: str
    cpu: int
    memory: int
    created: datetime | None
    reason: str
    karpenter: str = ""          # Karpenter's newest reason, from its logs or pod events
    karpenter_time: str = ""

    def matches(self, text: str) -> bool:
        """The ``/`` filter: a substring of the pod, its owner or either reason."""
        lowered = text.strip().lower()
        return not lowered or any(lowered in f.lower() for f in (self.key, self.owner, self.reason, self.karpenter))

    @property
    def karpenter_short(self) -> str:
        """``11:04:41 default: no instance type satisfied…`` for a table cell."""
        if not self.karpenter:
            return ""
        clock = self.karpenter_time[11:19] if len(self.karpenter_time) >= 19 else self.karpenter_time
        text = self.karpenter.replace('incompatible with nodepool "', "").replace('", ', ": ", 1)
        return f"{clock} {text[:70]}{'…' if len(text) > 70 else ''}".strip()


def pending_rows(snapshot: Snapshot, events: list[dict] | None = None,
                 karpenter_events: list[dict] | None = None) -> list[PendingRow]:
    """Every pending pod; kube-scheduler's reason (the PodScheduled condition's message, else its
    newest FailedScheduling event's) and Karpenter's from its log events (parsed once by the caller,
    or here from the snapshot's attached logs) and its pod events — all as logs.join tells each
    pod's story (``karpenter_events``: the snapshot's, when the caller read them already)."""
    if events is None:
        events = list(LogParser().parse(snapshot.meta.logs_text.splitlines())) if snapshot.meta.logs_text else []
    stories = {story.pod: story for story in explain_pending(snapshot, events, karpenter_events=karpenter_events)}
    rows = []
    for pod in snapshot.pending_pods:
        story = stories.get(pod.key)
        owner = snapshot.top_owner(pod)
        rows.append(
            PendingRow(
                key=pod.key,
                owner=owner.ref if owner else _owner_text(pod),
                cpu=pod.requests.get(CPU, 0),
                memory=pod.requests.get(MEMORY, 0),
                created=pod.created,
                reason=(story.scheduler_reason or "") if story else pod.scheduled_message,
                karpenter=(story.karpenter_reason or "") if story else "",
                karpenter_time=(story.karpenter_time or "") if story else "",
            )
        )
    return sorted(rows, key=lambda r: (r.owner, r.key))


# The pending pane's sorts, one per column in column order; pods stay grouped under their owner.
PENDING_SORTS = {
    "pod": lambda r, a: r.key,
    "cpu": lambda r, a: (-r.cpu, r.key),
    "memory": lambda r, a: (-r.memory, r.key),
    "age": lambda r, a: (r.created.timestamp() if r.created else 0.0, r.key),
    "simulated": lambda r, a: (not simulated_cell(r, a)[1], simulated_cell(r, a)[0], r.key),  # disagreements first
    "reason": lambda r, a: (r.reason, r.key),
    "karpenter": lambda r, a: (r.karpenter_time == "", r.karpenter_time, r.key),  # newest log time last
}


def sort_pending(rows: list[PendingRow], name: str, attempts: dict, reverse: bool = False) -> list[PendingRow]:
    """Rows by owner, and within each owner by the ``name`` sort (``reverse`` flips only the latter)."""
    key = PENDING_SORTS[name]
    ordered = sorted(rows, key=lambda r: key(r, attempts.get(r.key)), reverse=reverse)
    return sorted(ordered, key=lambda r: r.owner)  # stable: each owner's pods keep the column order


def _owner_text(pod: Pod) -> str:
    owner = pod.controller
    return f"{owner.kind}/{pod.namespace}/{owner.name}" if owner else "-"


def simulated_cell(row: PendingRow, attempt: Attempt | None) -> tuple[str, bool]:
    """The simulator's answer for a pending pod, and whether it disagrees with the cluster.

    They disagree when the simulator binds the pod to an existing node although
    kube-scheduler reported it unschedulable (the snapshot moved on, or we model a
    plugin differently), or when it has Karpenter launch a node while Karpenter's
    own log says it could not: both are worth an operator's second look.
    """
    if attempt is None:
        return "…", False
    if attempt.new_node:
        return f"new {attempt.node}", bool(row.karpenter)
    if attempt.node:
        return f"fits {short_name(attempt.node)}", bool(row.reason)
    reason = attempt.karpenter_reason or attempt.reason or "unschedulable"
    return f"pending: {reason}", False


# ---- the detail strip: the three voices about the selected pod, in full -------------------------------

@dataclass(frozen=True)
class PendingDetail:
    """What the Pending pane's detail strip says about one pod: kube-scheduler's reason in full,
    the simulator's one-line why (always, also when it expects Karpenter to launch), Karpenter's
    reason, and what disagrees (empty when nothing does)."""

    scheduler: str
    simulator: str
    karpenter: str
    disagreement: str = ""
    nodepools: str = ""     # each NodePool's verdict in Karpenter's order, in short (enter: the full table)

    def lines(self) -> list[str]:
        out = [f"≠ {self.disagreement}"] if self.disagreement else []  # what to look at first
        return out + [f"kube-scheduler: {self.scheduler}", f"simulator: {self.simulator}",
                      f"Karpenter: {self.karpenter}"] + ([f"NodePools: {self.nodepools}"] if self.nodepools else [])


def node_called(name: str, snapshot: Snapshot) -> str:
    """A node as the operator knows it: its short name, and Fargate's nodes called Fargate."""
    node = snapshot.node_by_name.get(name)
    if node is not None and node.capacity_type == "fargate":
        return f"Fargate ({short_name(name)})"
    return f"node {short_name(name)}" + (f" ({node.instance_type}, {node.zone})" if node is not None and
                                          node.instance_type else "")


def simulator_why(attempt: Attempt | None, snapshot: Snapshot, nodeclaims=(), catalog=None,
                  prediction: Prediction | None = None) -> str:
    """The simulator's answer in one line, the batch's (:func:`karptui.views.prediction.predict`): which
    node the pod would go to, the instance Karpenter would launch for it (type, capacity type, zone,
    price, NodeClaim, NodePool) and why no node today takes it, or why it stays pending."""
    if prediction is None:
        prediction = predict(attempt, nodeclaims, catalog)
    answer = simulator_answer(attempt, snapshot, prediction)
    if prediction.kind == LAUNCH and attempt is not None and attempt.counts:
        return f"{answer}; no node today: {existing_refusals(attempt.counts)}"
    if prediction.kind == PENDING and attempt is not None:
        return f"{answer}: {short_names_in(attempt.summary or prediction.reason)}"
    return answer


def simulator_answer(attempt: Attempt | None, snapshot: Snapshot, prediction: Prediction) -> str:
    """The batch's answer alone, as the strip and the drill-in open with it: ``would launch …``, ``would
    fit on node …``, ``Karpenter counts on node …, a node still coming up``, ``stays pending``."""
    if attempt is None or prediction.kind == SIMULATING:
        return "simulating…"
    if prediction.kind == LAUNCH:
        return prediction.launch_text
    if prediction.kind == COMING_UP:
        return f"Karpenter counts on {node_called(prediction.node, snapshot)}, a node still coming up"
    if prediction.kind == FITS:
        return f"would fit on {node_called(prediction.node, snapshot)} as the cluster is now"
    return "stays pending"


FARGATE_TAINT = f"{{{L.EKS_COMPUTE_TYPE}: fargate}}"  # kube-scheduler's rendering of Fargate's taint


def existing_refusals(counts) -> str:
    """kube-scheduler's FitError histogram, most nodes first; nodes refused for Fargate's taint are
    called Fargate, as the operator knows them."""
    parts = []
    for reason, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
        if FARGATE_TAINT in reason:
            parts.append(f"{n} Fargate node(s) (it does not tolerate {L.EKS_COMPUTE_TYPE}=fargate)")
        else:
            parts.append(f"{n} {reason}")
    return ", ".join(parts)


def pending_detail(row: PendingRow, attempt: Attempt | None, snapshot: Snapshot, nodeclaims=(),
                   catalog=None) -> PendingDetail:
    """The detail strip for one pending pod; ``nodeclaims``: the simulation's NodeClaim plans,
    ``catalog``: the one simulated with (its discounts price the launch, as everywhere)."""
    prediction = predict(attempt, nodeclaims, catalog)
    why = simulator_why(attempt, snapshot, prediction=prediction)
    clock = row.karpenter_time[11:16] if len(row.karpenter_time) >= 16 else row.karpenter_time
    if row.karpenter:
        karpenter = f"(log {row.karpenter_time[11:19] or row.karpenter_time}) {row.karpenter}"
    elif attempt is not None and attempt.karpenter_reason:
        karpenter = f"nothing logged; the simulated Karpenter says: {attempt.karpenter_reason}"
    else:
        karpenter = "nothing logged about this pod"
    disagreement = ""
    _, disagrees = simulated_cell(row, attempt)
    if disagrees and attempt is not None and attempt.new_node:
        text = row.karpenter.replace('incompatible with nodepool "', "NodePool ").replace('", ', ": ", 1)
        disagreement = (f"log {clock}: Karpenter could not launch ({_cut(text, 90)}); "
                        f"simulator: {simulator_answer(attempt, snapshot, prediction)}")
    elif disagrees:
        disagreement = f"kube-scheduler: {_cut(row.reason, 90)}; simulator: {why}"
    pools = ""
    if attempt is not None and attempt.nodepools:
        pools = " · ".join(f"{i}. {v.nodepool} {row_label(v.verdict, v.nodepool, prediction)}"
                           for i, v in enumerate(attempt.nodepools, 1)) + " (enter: why, in full)"
    return PendingDetail(short_names_in(row.reason) or "(no reason recorded)", why, karpenter, disagreement, pools)


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"
