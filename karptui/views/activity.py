"""Karpenter's recent decisions as timeline rows: launches, failures, consolidation, interruptions."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..logs.timeline import merged

KIND_LABELS = {
    "pod_unschedulable": "unschedulable", "pods_provisionable": "provisionable", "nodeclaims_computed": "computed",
    "nodeclaim_created": "created", "nodeclaim_launched": "launched", "nodeclaim_registered": "registered",
    "nodeclaim_initialized": "initialized", "disruption": "disruption", "node_terminated": "terminated",
    "launch_failed": "launch failed", "interruption": "interruption", "other": "other",
    "limits_exceeded": "limits", "pod_nominated": "nominated", "disruption_blocked": "blocked",
    "unconsolidatable": "unconsolidatable", "consolidation_candidate": "candidate",
    "consolidation_rejected": "rejected", "consolidation_approved": "approved", "consolidation_score": "score",
}


@dataclass(frozen=True)
class ActivityRow:
    line: int
    time: str
    level: str
    kind: str
    summary: str
    event: dict = field(default_factory=dict, compare=False, repr=False)   # what the row was read from

    def matches(self, text: str) -> bool:
        lowered = text.strip().lower()
        return not lowered or any(lowered in f.lower() for f in (self.kind, self.summary, self.level))


def summary(event: dict) -> str:
    kind = event["kind"]
    if kind == "pod_unschedulable":
        pools = "; ".join(f"{p['name']}: {p['reason']}" for p in event.get("nodepools", []))
        return f"{event.get('pod', '')} — {pools or event.get('error', '')}"
    if kind == "disruption":
        then = ""
        if event.get("replacement_instance_types"):
            more = f" +{event['more']}" if event.get("more") else ""
            then = (f" → {event.get('replacement_capacity_type') or ''} "
                    f"{', '.join(event['replacement_instance_types'][:3])}{more}")
        said = " ".join(filter(None, (event.get("method"), event.get("action"), ", ".join(event.get("nodes", [])))))
        return f"{said}{then}"
    if kind == "nodeclaim_launched":
        return (f"{event.get('nodeclaim', '')} {event.get('instance_type', '')} {event.get('capacity_type', '')} "
                f"in {event.get('zone', '')}")
    if kind == "nodeclaim_created":
        more = f" and {event['more']} other(s)" if event.get("more") else ""
        return f"{event.get('nodepool', '')}: {', '.join(event.get('instance_types', [])[:4])}{more}"
    if kind == "launch_failed":
        return f"{event.get('nodeclaim', '')} {event.get('error', '')}"
    if kind == "other":
        return event.get("message", "")
    if kind in ("disruption_blocked", "unconsolidatable", "consolidation_candidate", "consolidation_rejected",
                "consolidation_approved"):
        what = event.get("node") or event.get("nodeclaim") or ", ".join(event.get("nodes", []))
        return f"{what} — {event.get('reason', event.get('message', ''))}".strip(" —")
    if kind == "interruption":
        told = " ".join(str(event[k]) for k in ("message_kind", "action") if event.get(k))
        return f"{event.get('node') or event.get('nodeclaim') or ''} {told}".strip()
    if kind == "consolidation_score":
        return _score(event)
    if kind == "pod_nominated":
        target = event.get("nodeclaim") or event.get("node")
        return f"{event.get('pod', '')} → {target}" if target else event.get("pod", "")
    keys = ("nodeclaim", "node", "count", "pods", "nodeclaims")
    return " ".join(f"{k}={event[k]}" for k in keys if event.get(k) not in (None, "", []))


def _score(event: dict) -> str:
    """``default 0.42 < 1.00: rejected (replace ip-a, ip-b)``: balanced consolidation's verdict for one NodePool."""
    score, threshold = event.get("score"), event.get("threshold")
    compared = ""
    if isinstance(score, (int, float)) and isinstance(threshold, (int, float)):
        compared = f" {score:.2f} {'>=' if score >= threshold else '<'} {threshold:.2f}"
    verdict = {True: ": approved", False: ": rejected"}.get(event.get("approved"), "")
    what = " ".join(filter(None, (event.get("decision"), ", ".join(event.get("nodes", [])))))
    return f"{event.get('nodepool', '')}{compared}{verdict}{f' ({what})' if what else ''}".strip()


def activity_rows(events: list[dict], include_other: bool = False,
                  snapshot_events: list[dict] | None = None) -> list[ActivityRow]:
    """Newest last, as a tail reads; "other" lines only on request (they are most of a log).

    With the snapshot's Karpenter events (logs.timeline.snapshot_events, worked out once per
    snapshot with its overview), they are interleaved with the log lines by time.
    """
    timeline = merged(events, snapshot_events) if snapshot_events else events
    return [ActivityRow(e["line"], e.get("time", ""), e.get("level", ""), KIND_LABELS.get(e["kind"], e["kind"]),
                        summary(e), e)
            for e in timeline if include_other or e["kind"] != "other"]


def activity_detail(row: ActivityRow, raw: str | None) -> dict[str, list[str]]:
    """``enter`` on an Activity row: the whole line as Karpenter wrote it (the table cuts it at the
    screen's width), and every field karptui read from it -- the same fields `logs parse` prints."""
    where = f"log line {row.line}" if row.line else "Kubernetes event"
    read = [f"{key}: {', '.join(map(str, value)) if isinstance(value, list) else value}"
            for key, value in row.event.items() if key not in ("line",)]
    said = [raw] if raw else ["(the line itself is not at hand: only what was read from it)"]
    return {where: said, "read as": read or [f"{row.kind}: {row.summary}"]}
