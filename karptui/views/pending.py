"""Pending pods with the scheduler's own reason, as the pending pane shows them."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from ..logs import LogParser
from ..logs.join import explain_pending
from ..model import Pod, Snapshot
from ..model.resources import CPU, MEMORY
from ..sim.result import Attempt


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
        return f"fits {attempt.node}", bool(row.reason)
    reason = attempt.karpenter_reason or attempt.reason or "unschedulable"
    return f"pending: {reason}", False
