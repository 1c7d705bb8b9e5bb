"""Pending pods with the scheduler's own reason, as the pending pane shows them."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from ..model import Pod, Snapshot
from ..model.resources import CPU, MEMORY


@dataclass(frozen=True)
class PendingRow:
    key: str
    owner: str
    cpu: int
    memory: int
    created: datetime | None
    reason: str


def _latest_scheduler_messages(snapshot: Snapshot) -> dict[str, str]:
    """Pod key -> message of its newest FailedScheduling event."""
    latest: dict[str, tuple] = {}
    for event in snapshot.events:
        if event.is_failed_scheduling and event.involved_kind == "Pod":
            stamp = event.last_seen.timestamp() if event.last_seen else 0.0
            if event.involved_key not in latest or stamp >= latest[event.involved_key][0]:
                latest[event.involved_key] = (stamp, event.message)
    return {key: message for key, (_, message) in latest.items()}


def pending_rows(snapshot: Snapshot) -> list[PendingRow]:
    """Every pending pod; the PodScheduled condition's message, else the newest event's."""
    messages = _latest_scheduler_messages(snapshot)
    rows = []
    for pod in snapshot.pending_pods:
        owner = snapshot.top_owner(pod)
        rows.append(
            PendingRow(
                key=pod.key,
                owner=owner.ref if owner else _owner_text(pod),
                cpu=pod.requests.get(CPU, 0),
                memory=pod.requests.get(MEMORY, 0),
                created=pod.created,
                reason=pod.scheduled_message or messages.get(pod.key, ""),
            )
        )
    return sorted(rows, key=lambda r: (r.owner, r.key))


def _owner_text(pod: Pod) -> str:
    owner = pod.controller
    return f"{owner.kind}/{pod.namespace}/{owner.name}" if owner else "-"
