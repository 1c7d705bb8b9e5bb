"""Events: kube-scheduler's FailedScheduling and Karpenter's pod/node events."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime

from .fields import as_int, as_map, as_str, parse_time
from .meta import KubeObject, meta_fields

FAILED_SCHEDULING = "FailedScheduling"


@dataclass(frozen=True, slots=True, kw_only=True)
class Event(KubeObject):
    """Both core/v1 and events.k8s.io/v1 events, in core/v1's terms."""

    involved_kind: str = ""
    involved_namespace: str = ""
    involved_name: str = ""
    involved_uid: str = ""
    reason: str = ""
    message: str = ""
    type: str = ""
    source: str = ""  # "default-scheduler", "karpenter", ...
    count: int = 1
    first_seen: datetime | None = None
    last_seen: datetime | None = None

    KIND = "Event"

    @property
    def involved_key(self) -> str:
        ns = self.involved_namespace
        return f"{ns}/{self.involved_name}" if ns else self.involved_name

    @property
    def filed_with_its_object(self) -> bool:
        """Whether the Event is where the API server files events about its object.

        An event about a namespaced object lives in that object's namespace; one about a
        cluster-scoped object (a Node, a NodeClaim: empty involvedObject namespace) in
        ``default``, where client-go's recorder puts it, or nowhere. The API server
        refuses any other Event, so one elsewhere comes from an edited file: someone
        writing about another namespace's pod, or any node, from their own namespace.
        """
        if self.involved_namespace:
            return self.namespace == self.involved_namespace
        return self.namespace in ("", "default")

    @property
    def is_failed_scheduling(self) -> bool:
        return self.reason == FAILED_SCHEDULING


def build_event(obj: Mapping) -> Event:
    """core/v1 names first, then the events.k8s.io/v1 ones (``regarding``, ``note``...)."""
    modern = "regarding" in obj or "note" in obj
    involved = as_map(obj.get("regarding") if modern else obj.get("involvedObject"), "involvedObject")
    source = as_map(obj.get("deprecatedSource") if modern else obj.get("source"), "source")
    series = as_map(obj.get("series"), "series")
    first = obj.get("deprecatedFirstTimestamp") if modern else obj.get("firstTimestamp")
    last = obj.get("deprecatedLastTimestamp") if modern else obj.get("lastTimestamp")
    event_time = parse_time(obj.get("eventTime"), "eventTime")
    last_seen = parse_time(last, "lastTimestamp") or parse_time(series.get("lastObservedTime"), "series") or event_time
    count = as_int(series.get("count"), "series.count") or as_int(
        obj.get("deprecatedCount") if modern else obj.get("count"), "count", 1
    )
    return Event(
        **meta_fields(obj, keep_raw=False),
        involved_kind=as_str(involved.get("kind"), "involvedObject.kind"),
        involved_namespace=as_str(involved.get("namespace"), "involvedObject.namespace"),
        involved_name=as_str(involved.get("name"), "involvedObject.name"),
        involved_uid=as_str(involved.get("uid"), "involvedObject.uid"),
        reason=as_str(obj.get("reason"), "reason"),
        message=as_str(obj.get("note") if modern else obj.get("message"), "message"),
        type=as_str(obj.get("type"), "type"),
        source=as_str(
            obj.get("reportingController") or obj.get("reportingComponent") or source.get("component"), "source"
        ),
        count=count or 1,
        first_seen=parse_time(first, "firstTimestamp") or event_time,
        last_seen=last_seen,
    )
