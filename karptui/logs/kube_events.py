"""Karpenter's Kubernetes events as operators paste them beside its logs.

Events tell the other half of the story (which NodeClaim a pod was nominated to, why a
node may not be disrupted) and reach issues and chats as rows of ``kubectl get events``
(``LAST SEEN  TYPE  REASON  OBJECT  MESSAGE``, maybe a NAMESPACE first), of a
``kubectl describe`` Events table (``Type  Reason  Age  From  Message``), as a log
store's ``Reason: message (object)`` lines, as ``COUNT Reason: message`` summaries, or
as event objects in JSON. Only Karpenter's events count; kubelet's and
default-scheduler's rows are other programs' lines.

The reasons are Karpenter's (kubernetes-sigs/karpenter ``pkg/events``), the AWS
provider's interruption events, and Karpenter's status-condition transitions.
"""

from __future__ import annotations

import json
import re

from .classify import consolidation_message, disruption_method, elided_name, unschedulable
from .paste import unwrap

# Karpenter core and the AWS provider; older eras' names too (NominatePod, InstanceSpotRebalanceRecommendation).
KARPENTER_REASONS = frozenset({
    "DisruptionBlocked", "DeprovisioningBlocked", "DisruptionLaunching", "DisruptionTerminating", "DisruptionWaitingReadiness",
    "Unconsolidatable", "ConsolidationCandidate", "ConsolidationRejected", "ConsolidationApproved",
    "NoCompatibleInstanceTypes", "Nominated", "NominatePod", "NodeRepairBlocked", "Disrupted",
    "FailedDraining", "TerminationGracePeriodExpiring", "FailedTermination", "FailedConsistencyCheck",
    "InsufficientCapacityError", "UnregisteredTaintMissing", "NodeClassNotReady",
    "SpotInterrupted", "SpotRebalanceRecommendation", "InstanceSpotRebalanceRecommendation",
    "InstanceSpotInterrupted", "CapacityReservationInstanceInterrupted", "InstanceStopping",
    "InstanceTerminating", "InstanceUnhealthy", "TerminatingOnInterruption", "WaitingOnNodeClaimTermination",
})
# The event source (``From``, ``source.component``) of Karpenter's events: Karpenter's own, and EKS Auto
# Mode's managed Karpenter, which files the same reasons and messages as ``eks-auto-mode/compute``
KARPENTER_SOURCES = ("karpenter", "eks-auto-mode/compute")
_INTERRUPTIONS = {
    "SpotInterrupted": ("spot_interruption", None), "InstanceSpotInterrupted": ("spot_interruption", None),
    "SpotRebalanceRecommendation": ("rebalance_recommendation", None),
    "InstanceSpotRebalanceRecommendation": ("rebalance_recommendation", None),
    "CapacityReservationInstanceInterrupted": ("unknown", None),
    "InstanceStopping": ("instance_state_change", None), "InstanceTerminating": ("instance_state_change", None),
    "InstanceUnhealthy": ("unknown", None), "TerminatingOnInterruption": (None, "delete"),
}
# NodeRepairBlocked (v1.1+, the node health controller): repair held back because too many nodes of the
# NodePool (or the cluster) are unhealthy -- a node Karpenter says it leaves, as DisruptionBlocked does
_KINDS = {"DisruptionBlocked": "disruption_blocked", "NodeRepairBlocked": "disruption_blocked",
          "DeprovisioningBlocked": "disruption_blocked",   # its name to v0.32 ("Cannot deprovision node due to R")
          "Unconsolidatable": "unconsolidatable",
          "ConsolidationCandidate": "consolidation_candidate", "ConsolidationRejected": "consolidation_rejected",
          "ConsolidationApproved": "consolidation_approved"}
_TYPES = ("Normal", "Warning")
_COLUMNS = re.compile(r"\t+| {2,}")
_REASON = re.compile(r"[A-Z][A-Za-z]+")
_LOG_STORE = re.compile(r"(?:(\d+)x? )?([A-Z][A-Za-z]+): (.*?)(?: \(([\w.-]+)\))?$")
_NOMINATED = re.compile(r"(?:(?:nodeclaim|machine)/([^,\s]+))?(?:,? ?node/([^,\s]+))?")
_NOMINATED_OLD = re.compile(r"^Pod should schedule on (?:node: )?([\w.-]+)")
# DisruptionBlocked's "Cannot disrupt Node: R" (v0.33+); DeprovisioningBlocked's "Cannot deprovision node|Node|machine
# due to R" to v0.32, and "Cannot deprovision Node: R" in pastes of the last deprovisioning releases
_CANNOT_DISRUPT = re.compile(r"^Cannot disrupt (?:Node|NodeClaim): ")
_CANNOT_DEPROVISION = re.compile(r"^Cannot deprovision (?:[Nn]ode|[Mm]achine|NodeClaim)(?:: | due to )")
_LEADING_TIME = re.compile(r"\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?\s+")
_NODE_EVENT = re.compile(r"^Node (\S+) event: ")
_AGE = re.compile(r"^(?:\d+[smhdy]|<unknown>|<invalid>)")
# A describe row's Age column cut before its end: "78s (x53 ov", "3m2s (x4"
_CUT_AGE = re.compile(r"^\d+[smhdy](?:\d+[smh])?\s+\(x\d*(?: o?v?e?r?.*)?$")
_TRANSITION = "Status condition transitioned"
_OBJECT = re.compile(r"(?:[nN]ode|nodeclaim|NodeClaim|machine|Machine|[pP]od)/\S+")
# A describe row whose columns a viewer joined with single spaces (k9s' describe view, inside its "│" border):
# TYPE REASON AGE FROM MESSAGE, taken only with Karpenter's own source in the FROM column
_SINGLE_SPACED = re.compile(r"^(Normal|Warning) ([A-Z][A-Za-z]+) (?:\S+(?: \(x\d+ over \S+\))? )?"
                            r"(karpenter|eks-auto-mode/compute) (\S.*)$")
# An author's label before such a row, on one prose line (a markdown bold's stars are off already)
_ROW_LABEL = re.compile(r"^[A-Z][A-Za-z ]{0,30}: (?=(?:Normal|Warning) [A-Z][A-Za-z]+ )")
# A get-events row whose columns an author joined with single spaces: [AGE] TYPE REASON KIND/NAME MESSAGE,
# taken only for one of Karpenter's own reasons
_SINGLE_SPACED_GET = re.compile(r"^(?:(?:\d+[smhdy])+ )?(Normal|Warning) ([A-Z][A-Za-z]+) "
                                r"((?:node|nodeclaim|machine|pod|nodepool|provisioner)/\S+) (\S.*)$")
# DisruptionTerminating: "Disrupting Node: REASON" then "Disrupting NodeClaim: REASON", one event each, filed
# together (pkg/controllers/disruption/events/events.go ``Terminating``); REASON is v1's (Underutilized, Empty,
# Drifted, Expired) or before v1 METHOD/ACTION ("Expiration/Replace")
_TERMINATING = re.compile(r"^Disrupting (?:Node|NodeClaim|Machine): (\w+)(?:/(\w+))?")
_STEPS = {"Launched": "launched", "Registered": "registered", "Initialized": "initialized", "Drained": "drained"}
# InsufficientCapacityError: "NodeClaim NAME event: ERROR" on the NodeClaim (v1.0+), and from v1.15 (#3143) on
# each pod nominated to it, "NodeClaim NAME nominated for this pod failed to launch: ERROR" (a comma after
# NAME accepted: the release notes wrote one)
_ICE = re.compile(r"^NodeClaim ([\w.-]+)(,? nominated for this pod failed to launch| event): (.*)$", re.S)


def event_row(text: str) -> dict | None:
    """The event fields of one pasted event row or object, or None when it is not Karpenter's."""
    body = unwrap(text).body
    time = _LEADING_TIME.match(body)
    if time:
        body = body[time.end():]
    if not body:
        return None
    if body.startswith("{"):
        return None  # event objects come through json_event()
    parts = _columns(body)
    if len(parts) >= 3:
        found = _table_row(parts)
        if found is not None:
            return found
    elif len(parts) == 1:
        labelled = _ROW_LABEL.match(parts[0])   # "Error Message: Normal DisruptionBlocked ..." in an author's prose
        single = _SINGLE_SPACED.match(parts[0][labelled.end():] if labelled else body)
        if single is not None:
            return _event(single.group(2), single.group(4), "", "")
        single = _SINGLE_SPACED_GET.match(body)
        if single is not None and single.group(2) in KARPENTER_REASONS:
            return _event(single.group(2), single.group(4), single.group(3), "")
    elif len(parts) == 2 and parts[0] in _TYPES and parts[1] in KARPENTER_REASONS:
        return _event(parts[1], "", "", "")  # a row cut after its reason: only Karpenter files that one
    elif len(parts) == 2 and parts[0] in KARPENTER_SOURCES:
        return event_message(parts[1])   # a describe row cut to FROM and MESSAGE: the message names its reason
    elif len(parts) == 2 and _OBJECT.fullmatch(parts[0]):
        # a get-events table cut to its OBJECT and MESSAGE columns: Karpenter's when the message's template is
        told = event_message(parts[1])
        if told is not None:
            name = parts[0].partition("/")[2]
            return _event(told["event"], parts[1], parts[0] if not elided_name(name) else "", "")
    match = _LOG_STORE.match(body)
    if match and _karpenters(match.group(2), match.group(3), ""):
        obj = match.group(4) or ""
        return _event(match.group(2), match.group(3), "", obj.split(".")[0] if obj else "")
    return None


# Karpenter's event messages that name their reason by their own words, for a paste that kept only the
# MESSAGE column: Nominated ("Pod should schedule on NODE" to v0.28, "Pod should schedule on: machine/X,
# node/Y" from v0.29, nodeclaim/ from v0.31) and DisruptionBlocked ("Cannot disrupt Node: ...", v0.3x+;
# "No allowed disruptions [for disruption reason R] due to blocking budget", a NodePool's).
_MESSAGE_REASONS = (
    (re.compile(r"Pod should schedule on(?:: (?:nodeclaim|machine|node)/[\w.-]+(?:, node/[\w.-]+)?| [\w.-]+)"),
     "Nominated"),
    (_CANNOT_DISRUPT, "DisruptionBlocked"),
    (_CANNOT_DEPROVISION, "DeprovisioningBlocked"),
    (re.compile(r"No allowed disruptions (?:for disruption reason \w+ )?due to blocking budget"), "DisruptionBlocked"),
    # DisruptionTerminating's "Disrupting Node|NodeClaim: REASON", and the terminator's Evicted with its reason
    # (v1.1+ "Evicted pod: Underutilized"; kubelet's eviction manager never writes "Evicted pod: ")
    (re.compile(r"Disrupting (?:Node|NodeClaim|Machine): \w+(?:/\w+)?$"), "DisruptionTerminating"),
    (re.compile(r"Evicted pod: \w+$"), "Evicted"),
    # the AWS provider's interruption events (pkg/controllers/interruption/events), each a fixed sentence
    (re.compile(r"Spot interruption warning was triggered$"), "SpotInterrupted"),
    (re.compile(r"Spot rebalance recommendation was triggered$"), "SpotRebalanceRecommendation"),
    (re.compile(r"Capacity Reservation interruption warning was triggered$"), "CapacityReservationInstanceInterrupted"),
    (re.compile(r"Instance is stopping$"), "InstanceStopping"),
    (re.compile(r"Instance is terminating$"), "InstanceTerminating"),
    (re.compile(r"An unhealthy warning was triggered for the instance$"), "InstanceUnhealthy"),
    (re.compile(r"Interruption triggered termination for the (?:NodeClaim|Node)$"), "TerminatingOnInterruption"),
    # Unconsolidatable (pkg/controllers/disruption/consolidation.go, v0.3x-v1.x): the consolidation checks'
    # own sentences; an apostrophe may have become a typographic one in a web page
    (re.compile(r"(?:SpotToSpotConsolidation (?:requires \d+ cheaper instance type options|is disabled, can.t replace)"
                r"|Can.t (?:replace (?:spot node )?with a cheaper (?:spot )?node|remove without creating \d+ candidates)"
                r"|NodePool \"[^\"]+\" has (?:non-empty )?consolidation disabled)"), "Unconsolidatable"),
)


def event_message(text: str, obj: str = "") -> dict | None:
    """The event whose message ``text`` is, pasted alone, when the message's template names its reason
    (a sentence that only starts like one, "Pod should schedule on the new node", is prose); ``obj``
    (``kind/name``) the object it is about, where something beside the message names it."""
    for template, reason in _MESSAGE_REASONS:
        match = template.match(text)
        if match and (reason != "Nominated" or match.end() == len(text.rstrip())):
            return _event(reason, text, obj, "")
    return None


# a cut Event object's involvedObject, whole before the cut (its kind and name)
_INVOLVED = re.compile(r'"involvedObject"\s*:\s*(\{[^{}]*\})')


def cut_event_object(data: dict, text: str) -> dict | None:
    """An Event object the paste cut before its ``reason`` (one item of ``kubectl get events -o json``), its
    pairs salvaged as ``data``: the event its message's own template names, about the object its
    ``involvedObject`` names when that came whole before the cut."""
    message = data.get("message")
    if not isinstance(message, str) or not ("firstTimestamp" in data or "eventTime" in data or "count" in data):
        return None
    obj = ""
    involved = _INVOLVED.search(text)
    if involved:
        try:
            named = json.loads(involved.group(1))
        except ValueError:
            named = {}
        kind, name = str(named.get("kind", "")).lower(), named.get("name")
        if kind in ("node", "nodeclaim", "machine") and isinstance(name, str) and name:
            obj = f"{kind}/{name}"
    found = event_message(message, obj)
    if found is not None:
        found["time"] = data.get("lastTimestamp") or data.get("firstTimestamp") or ""
    return found


def _columns(body: str) -> list[str]:
    parts = [p.strip().strip("*") for p in _COLUMNS.split(body.strip()) if p.strip()]
    if parts:
        joined = _TYPE_REASON.match(parts[0])
        if joined:   # TYPE and REASON one space apart (an author's retyped row, a reason as wide as its column)
            parts[0:1] = [joined.group(1), joined.group(2)]
    return parts


_TYPE_REASON = re.compile(r"^(Normal|Warning) ([A-Z][A-Za-z]+)$")


def open_row(text: str) -> bool:
    """A describe row of Karpenter's that stops after its From column (``Normal  Nominated  karpenter``):
    a terminal or a chat put its message on the next line."""
    parts = _columns(unwrap(text).body)
    if len(parts) < 3 or parts[0] not in _TYPES or not _REASON.fullmatch(parts[1]):
        return False
    rest = parts[2:]
    if len(rest) == 2 and _AGE.match(rest[0]):
        rest = rest[1:]
    return len(rest) == 1 and rest[0].split()[-1] in KARPENTER_SOURCES


def wrapped_row(text: str) -> bool:
    """A Karpenter event row whose message stops at a ``,`` or ``;``: wrapped where its text goes on
    (a scheduling error's NodePools are separated by ``; ``)."""
    stripped = text.rstrip()
    return stripped.endswith((",", ";")) and event_row(stripped) is not None


def _table_row(parts: list[str]) -> dict | None:
    """``kubectl get events`` (TYPE in the 2nd or 3rd column) or a describe table (TYPE first), or a
    row quoted from its REASON on (``FailedScheduling  karpenter  MESSAGE``: no TYPE, no AGE), which
    needs Karpenter's source to say whose it is."""
    index = next((i for i in (0, 1, 2) if i < len(parts) and parts[i] in _TYPES), None)
    if index is None:
        if _REASON.fullmatch(parts[0]) and parts[1] in KARPENTER_SOURCES:
            return _event(parts[0], "  ".join(parts[2:]), "", "")
        return None
    if index + 1 >= len(parts) or not _REASON.fullmatch(parts[index + 1]):
        return None
    reason, rest = parts[index + 1], parts[index + 2:]
    if index > 0:  # get events: OBJECT then MESSAGE
        obj = rest[0] if rest and "/" in rest[0] else ""
        if index == 2 and obj.startswith("pod/") and obj.count("/") == 1:
            obj = f"pod/{parts[0]}/{obj[4:]}"   # -A: NAMESPACE, LAST SEEN, TYPE; a pod is named with its namespace
        message = "  ".join(rest[1:] if obj else rest)
        source = ""
    elif rest and _OBJECT.match(rest[0]):  # get events cut of its LAST SEEN column: TYPE REASON OBJECT MESSAGE
        head, _, tail = rest[0].partition(" ")  # a viewer may have joined OBJECT and MESSAGE with one space
        obj = "" if elided_name(head.partition("/")[2]) else head
        message = "  ".join(([tail] if tail else []) + rest[1:])
        source = ""
    else:  # describe: [Age] From Message, Age may be missing
        if len(rest) >= 3 and _AGE.match(rest[0]) or len(rest) == 2 and _AGE.match(rest[0]) \
                and rest[1].split()[-1] in KARPENTER_SOURCES or len(rest) == 1 and _CUT_AGE.match(rest[0]):
            rest = rest[1:]  # the age; or a row cut inside its age ("78s (x53 ov"): nothing after it
        alone = len(rest) == 1 and rest[0].split()[-1] in KARPENTER_SOURCES  # cut after From
        source = rest[0] if len(rest) >= 2 or alone else ""
        message = "  ".join(rest[1:] if source else rest)
        source = source.split()[-1] if source else ""  # "36s karpenter": age and source one space apart
        named = _NODE_EVENT.match(message)
        obj = f"node/{named.group(1)}" if named else ""
    if not _karpenters(reason, message, source):
        return None
    return _event(reason, message, obj, "")


# Reasons Karpenter shares with other programs, and the message that makes a row Karpenter's when no
# source column says whose it is: its terminator's Evicted ("Evicted pod" to v1.0, "Evicted pod: REASON"
# after; kubelet's eviction manager writes "The node was low on resource: ...") and its FailedScheduling
_SHARED_REASONS = {"Evicted": re.compile(r"Evicted pod(?::|\s*$)"), "FailedScheduling": re.compile("Failed to schedule pod")}


def _karpenters(reason: str, message: str, source: str) -> bool:
    if source:
        return source in KARPENTER_SOURCES
    shared = _SHARED_REASONS.get(reason)
    if shared is not None:
        return shared.match(message) is not None
    return reason in KARPENTER_REASONS or message.startswith(_TRANSITION)


def json_event(data: dict) -> dict | None:
    """An Event object (core/v1 or events.k8s.io/v1, or an event exporter's flattening of one, or an
    OpenTelemetry log record made of one: :func:`otel_event`)."""
    attributes = otel_attributes(data)
    if attributes is not None:
        if type(attributes.get("k8s.event.reason")) is str:
            data = otel_event(data, attributes)
        elif type(data["body"]) is str and any(key.startswith("k8s.event.") for key in attributes):
            return event_message(data["body"])   # cut before its reason: the message's own template names it
    reason = data.get("reason")
    message = data.get("message") or data.get("note") or data.get("eventMessage") or ""
    involved = data.get("involvedObject") or data.get("regarding") or {}
    if not isinstance(reason, str) or not isinstance(message, str) or not isinstance(involved, dict):
        return None
    source = data.get("source") or {}
    component = source.get("component", "") if isinstance(source, dict) else ""
    component = component or data.get("reportingComponent") or data.get("reportingController") or ""
    component = str(component)
    if not _karpenters(reason, message, "karpenter" if "karpenter" in component or component in KARPENTER_SOURCES
                       else ""):
        if component or reason not in KARPENTER_REASONS:
            return None
    kind, name = str(involved.get("kind", "")).lower(), involved.get("name", "")
    namespace = involved.get("namespace") or ""
    obj = f"{kind}/{namespace + '/' if namespace and kind == 'pod' else ''}{name}" if kind and name else ""
    found = _event(reason, message, obj, "")
    if found is not None:
        found["time"] = data.get("lastTimestamp") or data.get("eventTime") or data.get("firstTimestamp") or ""
    return found


# the object's name in an Event's own name: NAME.HEX (client-go's recorder names an Event after its object)
_EVENT_NAME = re.compile(r"^(?P<name>.+)\.[0-9a-f]{8,}$")


def otel_attributes(data: dict) -> dict | None:
    """An OpenTelemetry log record's ``attributes`` when it has a ``body`` (a record cut inside them and
    salvaged has them at its top level), else None: not such a record."""
    if "body" not in data:
        return None
    attributes = data.get("attributes")
    if type(attributes) is dict:
        return attributes
    return data if any(key.startswith("k8s.event.") for key in data) else None


def otel_event(data: dict, attributes: dict) -> dict:
    """An Event as the OpenTelemetry Collector's Kubernetes events receiver exports it, as the Event object it
    was: the message in ``body``, the type as ``severity``, the reason and the Event's name under
    ``attributes`` (``k8s.event.reason``, ``k8s.event.name``; the semantic conventions' k8s.event.*), the
    object under the resource's ``k8s.object.kind``/``k8s.object.name``. A paste cut before its resource still
    names the object in the Event's name (``NAME.HEX``): a node when the name is an EC2 node's."""
    body = data.get("body")
    resource = data.get("resource") or data.get("resources") or {}
    if type(resource) is dict and type(resource.get("attributes")) is dict:
        resource = resource["attributes"]
    kind = resource.get("k8s.object.kind") if type(resource) is dict else None
    name = resource.get("k8s.object.name") if type(resource) is dict else None
    if not (type(kind) is str and type(name) is str):
        named = _EVENT_NAME.match(str(attributes.get("k8s.event.name") or ""))
        name = named.group("name") if named else ""
        kind = "Node" if name.endswith(".internal") or name.startswith(("ip-", "i-")) else ""
    return {"reason": attributes["k8s.event.reason"], "message": body if type(body) is str else "",
            "involvedObject": {"kind": kind, "name": name, "namespace": attributes.get("k8s.namespace.name") or ""}}


def _blocked_reason(message: str) -> str:
    """A blocked event's reason: its message without the "Cannot disrupt Node: " of its template."""
    head = _CANNOT_DISRUPT.match(message) or _CANNOT_DEPROVISION.match(message)
    return message[head.end():] if head else message


def karpenter_event(reason: str, message: str, obj: str = "") -> dict | None:
    """Karpenter's event reason and message (and ``kind/name`` of what it is about) as a log event;
    None for a FailedScheduling that is kube-scheduler's, not Karpenter's."""
    if reason == "FailedScheduling" and not message.startswith("Failed to schedule pod"):
        return None
    return _event(reason, message, obj, "")


def _event(reason: str, message: str, obj: str, pod_hint: str) -> dict | None:
    """Karpenter's event reason and message -> a log event kind and its fields."""
    kind_name, _, name = obj.partition("/")
    kind_name = kind_name.lower()   # ``kubectl events`` writes the object's kind as its type: Pod/NAME, Node/NAME
    out: dict = {"event": reason}
    if kind_name in ("node", "nodeclaim", "machine"):
        out["nodeclaim" if kind_name != "node" else "node"] = name
    elif kind_name == "pod" or pod_hint:
        out["pod"] = name or pod_hint
    if reason in ("Nominated", "NominatePod"):
        out["kind"] = "pod_nominated"
        text = message.split(": ", 1)[1] if message.startswith("Pod should schedule on: ") else ""
        match = _NOMINATED.match(text) if text else None
        if match and (match.group(1) or match.group(2)):
            if match.group(1):
                out["nodeclaim"] = match.group(1)
            if match.group(2):
                out["node"] = match.group(2)
        else:
            old = _NOMINATED_OLD.match(message)
            if old:
                out["node"] = old.group(1)
        return out
    if reason == "FailedScheduling":
        detail = message.split(", ", 1)[1] if ", " in message else ""
        return {**out, "kind": "pod_unschedulable", **unschedulable(detail)}
    if reason in _KINDS:
        told = consolidation_message(message) if reason.startswith("Consolidation") else None
        if told is not None:
            told.pop("nodes", None)
            return {**out, **{k: v for k, v in told.items() if k not in out}}
        return {**out, "kind": _KINDS[reason], **({"reason": _blocked_reason(message)} if message else {})}
    if reason == "InsufficientCapacityError":
        launch = _launch_failed(message, out, obj, pod_hint)
        if launch is not None:
            return launch
    if reason in _INTERRUPTIONS:
        kind, action = _INTERRUPTIONS[reason]
        out["kind"] = "interruption"
        if kind:
            out["message_kind"] = kind
        if action:
            out["action"] = action
        return out
    out.update(kind="other", message=message)
    if reason == "DisruptionTerminating":
        terminating = _TERMINATING.match(message)
        if terminating:
            out["method"] = disruption_method(terminating.group(1))
            if terminating.group(2) and terminating.group(2).lower() in ("delete", "replace"):
                out["action"] = terminating.group(2).lower()
    return out


def lifecycle_step(event: dict) -> str | None:
    """The step of a NodeClaim's life an ``other`` event row shows, for the history: its status conditions
    Launched, Registered, Initialized and (v1.1+) Drained turning True ("Status condition transitioned, Type: Launched,
    Status: Unknown -> True"), ``disrupted`` (DisruptionTerminating) and ``drained`` (FailedDraining: "Failed
    to drain node, N pods are waiting to be evicted", the drain under way)."""
    reason, message = event.get("event"), event.get("message") or ""
    if reason in _STEPS:
        return _STEPS[reason] if message.startswith(_TRANSITION) and "-> True" in message else None
    if reason == "DisruptionTerminating":
        return "disrupted" if "method" in event else None
    return "drained" if reason == "FailedDraining" else None


def _launch_failed(message: str, out: dict, obj: str, pod_hint: str) -> dict | None:
    """An InsufficientCapacityError event as the launch failure it reports (the kind a
    ``failed launching nodeclaim`` log line reads as): the NodeClaim, its error, and (v1.15+)
    the nominated pod the event was filed on. A log store's bare object name is the pod only
    when the message says so: the older event is filed on the NodeClaim itself."""
    match = _ICE.match(message)
    if match is None:
        return None
    claim, which, error = match.groups()
    found = {k: v for k, v in out.items() if k != "pod"}
    on_pod = which != " event"
    if on_pod and (out.get("pod") or pod_hint):
        found["pod"] = out.get("pod") or pod_hint
    elif not on_pod and obj.startswith("pod/") and out.get("pod"):
        found["pod"] = out["pod"]
    found.update(kind="launch_failed", nodeclaim=claim, error=error.strip())
    return found


__all__ = ["KARPENTER_REASONS", "KARPENTER_SOURCES", "event_message", "event_row", "json_event", "karpenter_event",
           "lifecycle_step", "open_row", "wrapped_row"]
