"""Why each pending pod is pending, from every source side by side.

kube-scheduler's reason (the PodScheduled condition, or its newest
FailedScheduling event), Karpenter's (its newest "could not schedule pod" log
line or FailedScheduling event, whichever is later: zap samples repeated log
lines, so events fill the gaps), what Karpenter did about the pod (Nominated
NodeClaims, their launches and failures), and the simulator's verdict. Where
the logs and the simulation disagree, the pod is flagged: that is where an
operator should look.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..model import Snapshot
from .kube_events import KARPENTER_SOURCES
from .scheduler import parse_fit_error
from .timeline import merged, snapshot_events


@dataclass(frozen=True)
class PodStory:
    pod: str
    scheduler_reason: str | None = None
    karpenter_reason: str | None = None
    karpenter_time: str | None = None
    karpenter_from: str | None = None           # "log" or "event"
    actions: tuple[dict, ...] = ()
    simulated_reason: str | None = None
    simulated_node: str | None = None
    disagreements: tuple[str, ...] = field(default_factory=tuple)


def _pool_text(found: dict) -> str:
    pools = found.get("nodepools") or []
    if pools:
        return "; ".join(f'incompatible with nodepool "{p["name"]}", {p["reason"]}' for p in pools)
    return found.get("error", "")


def _scheduler_reasons(snapshot: Snapshot) -> dict[str, tuple[float, str]]:
    newest: dict[str, tuple[float, str]] = {}
    for event in snapshot.events:
        if (event.is_failed_scheduling and event.involved_kind == "Pod" and event.source not in KARPENTER_SOURCES
                and event.filed_with_its_object):
            stamp = event.last_seen.timestamp() if event.last_seen else 0.0
            if stamp >= newest.get(event.involved_key, (-1.0, ""))[0]:
                newest[event.involved_key] = (stamp, event.message)
    return newest


_RECORD_ONLY = ("line", "level", "origin", "event")  # a timeline record's bookkeeping, not the pod's story


def _karpenter_from_events(records: list[dict]) -> tuple[dict, dict]:
    """(pod -> newest FailedScheduling text with its time), (pod -> its other Karpenter events),
    from the snapshot's Karpenter events as timeline.snapshot_events reads them."""
    failed: dict[str, tuple[str, str]] = {}
    nominated: dict[str, list[dict]] = {}
    for record in records:
        pod = record.get("pod")
        if not pod or "event" not in record:
            continue
        when = record.get("time", "")
        if record["kind"] == "pod_unschedulable":
            if when >= failed.get(pod, ("", ""))[0]:
                failed[pod] = (when, _pool_text(record))
        else:
            nominated.setdefault(pod, []).append({k: v for k, v in record.items() if k not in _RECORD_ONLY})
    return failed, nominated


def _comparable(reason: str | None) -> tuple | None:
    """A FitError's content, ignoring wording that varies by release (the closing stops)."""
    parsed = parse_fit_error((reason or "").split(" Karpenter: ", 1)[0])
    if parsed is None:
        return None
    return parsed.nodes, tuple(sorted(parsed.reasons.items())), parsed.pre_filter


def explain_pending(snapshot: Snapshot, events: list[dict], result=None,
                    karpenter_events: list[dict] | None = None) -> list[PodStory]:
    """One story per pending pod, in the snapshot's order; ``karpenter_events`` are the snapshot's
    own (timeline.snapshot_events), read here when the caller has not read them already."""
    logged: dict[str, tuple[str, str]] = {}
    by_claim: dict[str, list[dict]] = {}
    for found in events:
        if found["kind"] == "pod_unschedulable" and found.get("pod"):
            logged[found["pod"]] = (found.get("time", ""), _pool_text(found))
        claim = found.get("nodeclaim")
        if claim:
            by_claim.setdefault(claim, []).append(found)
    scheduler = _scheduler_reasons(snapshot)
    failed, nominated = _karpenter_from_events(
        snapshot_events(snapshot) if karpenter_events is None else karpenter_events)
    attempts = {a.pod.key: a for a in result.attempts} if result is not None else {}
    stories = []
    for pod in snapshot.pending_pods:
        key = pod.key
        sched = pod.scheduled_message or scheduler.get(key, (0.0, None))[1]
        options = [(*logged[key], "log")] if key in logged else []
        options += [(*failed[key], "event")] if key in failed else []
        when, karp, origin = max(options, default=(None, None, None), key=lambda o: o[0] or "")
        events_of_pod = nominated.get(key, [])
        logged_about = [e for n in events_of_pod if n.get("nodeclaim") for e in by_claim.get(n["nodeclaim"], [])]
        actions = merged(logged_about, sorted(events_of_pod, key=lambda n: n.get("time", "")))
        attempt = attempts.get(key)
        flags = []
        if attempt is not None:
            if sched and _comparable(sched) != _comparable(attempt.reason or "") and not attempt.new_node \
                    and attempt.node is None:
                flags.append("kube-scheduler's recorded reason differs from the simulation's")
            if karp and attempt.new_node:
                flags.append(f"Karpenter logged it could not schedule the pod; the simulation launches {attempt.node}")
            if attempt.node is not None and not attempt.new_node:
                flags.append(f"the simulation places it on existing node {attempt.node}")
        stories.append(PodStory(key, sched, karp, when, origin, tuple(actions),
                                attempt.reason if attempt else None, attempt.node if attempt else None,
                                tuple(flags)))
    return stories
