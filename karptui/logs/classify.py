"""Karpenter log records -> DESIGN §4.2 event kinds, across every era's wording.

Older terms map onto today's: provisioner -> nodepool, machine -> nodeclaim,
deprovisioning -> disruption. Each extractor reads what its message carries;
fields a line lacks are simply left out.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # record.py reads a bare message through classify(); the type is all this needs
    from .record import Record

_POOL_REASON = re.compile(r'incompatible with (?:nodepool|provisioner) "([^"]+)", ')
_OVERHEAD = re.compile(r"^daemonset overhead=(\{[^}]*\}), ")
_RESOURCES = re.compile(r"resources (\{[^}]*\})")
# v1.9+: the whole command in one string, "Underutilized/ID: Replace: nodepools=[a,b]: [n1, n2] -> [1 replacement] ..."
_COMMAND = re.compile(r"^(\w+)/[^:]*: (\w+): (?:nodepools=\[([^\]]*)\]: )?\[([^\]]*)\]")
_TTL = re.compile(r"^triggering termination (?:for expired node after|after [\w.]+ for empty node)", re.I)
_V1_REASONS = {"underutilized": "underutilized", "empty": "emptiness", "emptiness": "emptiness", "drifted": "drift",
               "drift": "drift", "expired": "expiration", "expiration": "expiration", "consolidation": "consolidation"}
_METHODS = {"consolidation", "drift", "expiration", "emptiness", "underutilized"}


def _name(fields: dict, *keys: str) -> str | None:
    """A name from v1's {"Kind": {"name": ...}} objects or older flat string fields."""
    for key in keys:
        value = fields.get(key)
        if isinstance(value, dict) and isinstance(value.get("name"), str):
            return value["name"]
        if isinstance(value, str) and value:
            return value
    return None


def _pod(fields: dict) -> str | None:
    value = fields.get("Pod")
    if isinstance(value, dict) and "name" in value:
        return f"{value.get('namespace', '')}/{value['name']}"
    value = fields.get("pod")
    return value if isinstance(value, str) and value else None


def _listed(text: str) -> tuple[list[str], int]:
    """``a, b, c and 23 other(s)`` -> (["a", "b", "c"], 23).

    String operations, not a regex: a lazy match with an optional tail rescans the whole
    list, and this runs on most provisioning lines."""
    text = text.strip()
    more = 0
    if text.endswith(" other(s)"):
        head, _, count = text[:-9].rpartition(" and ")
        if count.isdigit():
            text, more = head, int(count)
    return [n for n in map(str.strip, text.split(",")) if n], more


try:  # a third of a scheduling error's cost was decoding its small JSON objects
    from orjson import loads as _loads
except ImportError:  # pragma: no cover
    _loads = json.loads


def _json(text: str | None):
    try:
        return _loads(text) if text else None
    except ValueError:  # orjson's JSONDecodeError is a ValueError too
        return text


_LIMITS = re.compile(r'^all available instance types exceed (?:nodepool |provisioner )?limits'
                     r'(?: for (?:nodepool|provisioner)?:? ?(?:"([^"]+)"|\(NodePool=([^)]+)\)))?')


def unschedulable(error: str, pool_hint: str = "") -> dict:
    """Every NodePool named in a scheduling error, with its own reason (read-only: shared).

    Karpenter logs the same error for every pending pod of a workload, batch after batch
    (and repeats it as each pod's FailedScheduling event), so each distinct text is parsed
    once; callers copy the top level into their event and never change the rest.
    """
    return _unschedulable_text(error, pool_hint)


@lru_cache(maxsize=2048)
def _unschedulable_text(error: str, pool_hint: str) -> dict:
    """Every NodePool named in a scheduling error, with its own reason.

    Pools are separated by "; "; each part is ``incompatible with nodepool
    "NAME", [daemonset overhead={...}, ]REASON``, or (v0.3x) a bare limits
    error that names its pool at the end.
    """
    out: dict = {}
    pools = []
    for part in error.split("; "):
        match = _POOL_REASON.match(part)
        if match:
            name, reason = match.group(1), part[match.end():]
            overhead = _OVERHEAD.match(reason)
            if overhead:
                out.setdefault("daemonset_overhead", _json(overhead.group(1)))
                reason = reason[overhead.end():]
            pools.append({"name": name, "reason": reason})
            continue
        limits = _LIMITS.match(part)
        if limits and (limits.group(1) or limits.group(2) or pool_hint):
            pools.append({"name": limits.group(1) or limits.group(2) or pool_hint, "reason": part})
        elif pools:
            pools[-1]["reason"] += "; " + part  # a reason that itself contained "; "
    resources = _RESOURCES.search(error)
    if resources:
        out["resources"] = _json(resources.group(1))
    if pools:
        out["nodepools"] = pools
    elif error:
        out["error"] = error
    return out


def _unschedulable(record: Record, message: str, lowered: str) -> dict | None:
    if not lowered.startswith(("could not schedule pod", "failed to schedule pod")):
        return None
    error = record.fields.get("error") if isinstance(record.fields.get("error"), str) else ""
    detail = message.split(", ", 1)[1] if ", " in message else error
    pool = _name(record.fields, "NodePool", "nodepool", "Provisioner", "provisioner") or ""
    return {"kind": "pod_unschedulable", "pod": _pod(record.fields), **unschedulable(detail or error, pool)}


_COUNT = re.compile(r"^found (\d+) provisionable pods?")


def _provisionable(record: Record, message: str, lowered: str) -> dict | None:
    if not lowered.startswith("found ") or "provisionable pod" not in lowered:
        return None
    out: dict = {"kind": "pods_provisionable"}
    counted = _COUNT.match(lowered)
    if counted:  # v0.5-v0.2x: "Found 3 provisionable pod(s)"
        out["count"] = int(counted.group(1))
        return out
    count = record.fields.get("pods")
    listed = record.fields.get("Pods", count if isinstance(count, str) else None)  # v0.3x listed them in "pods"
    if isinstance(count, int):
        out["count"] = count
    if isinstance(listed, str):
        names, more = _listed(listed)
        out["pods"] = names
        out["count"] = len(names) + more
    return out


# Every era's "N nodes for M pods": (regex, group of the node count, group of the pod count)
_PACKINGS = (
    (re.compile(r"^computed (\d+) new (?:node|machine|nodeclaim)\(s\) will fit (\d+) pod"), 1, 2),
    (re.compile(r"^computed packing of (\d+) node\(s\) for (\d+) pod"), 1, 2),
    (re.compile(r"^computed packings? for (\d+) pod\(s\) onto (\d+) node"), 2, 1),
    (re.compile(r"^scheduled (\d+) pods? onto (\d+) (?:new )?nodes?"), 2, 1),
)


def _computed(record: Record, message: str, lowered: str) -> dict | None:
    if lowered.startswith("computed new ") and "to fit pod" in lowered:  # v0.3x and v1: counts in fields
        f = record.fields
        claims = next((f[k] for k in ("nodeclaims", "machines", "nodes", "newNodes") if isinstance(f.get(k), int)),
                      None)
        return {"kind": "nodeclaims_computed", "nodeclaims": claims, "pods": f.get("pods")}
    for pattern, claims, pods in _PACKINGS:  # older eras: counts in the message
        match = pattern.match(lowered)
        if match:
            return {"kind": "nodeclaims_computed", "nodeclaims": int(match.group(claims)),
                    "pods": int(match.group(pods))}
    return None


_OPTIONS = re.compile(r"instance type option\(s\) \[([^\]]*)\]")


def _created(record: Record, message: str, lowered: str) -> dict | None:
    f = record.fields
    if lowered in ("created nodeclaim", "created machine"):
        names, more = _listed(str(f.get("instance-types", "")))
        return {"kind": "nodeclaim_created", "nodeclaim": _name(f, "NodeClaim", "nodeclaim", "Machine", "machine"),
                "nodepool": _name(f, "NodePool", "nodepool", "Provisioner", "provisioner"),
                "instance_types": names, "more": more}
    if lowered.startswith(("launching node with ", "launching machine with ", "created node with ",
                           "launching nodeclaim with ")):
        types = message.split(" from types ", 1)[1] if " from types " in message else ""
        names, more = _listed(types)
        return {"kind": "nodeclaim_created", "nodeclaim": _name(f, "machine", "nodeclaim"),
                "nodepool": _name(f, "provisioner", "nodepool"), "instance_types": names, "more": more}
    if lowered.startswith("creating ") and "node(s) with instance type option(s)" in lowered:  # v0.8
        options = _OPTIONS.search(message)
        return {"kind": "nodeclaim_created", "nodepool": _name(f, "provisioner", "nodepool"),
                "instance_types": options.group(1).split() if options else []}
    return None


_LAUNCHED = re.compile(r"^launched instance: ([^,\s]+), hostname: ([^,\s]+), type: ([^,\s]+), zone: ([^,\s]+), "
                       r"capacity ?type: ([\w-]+)", re.I)


def _launched(record: Record, message: str, lowered: str) -> dict | None:
    match = _LAUNCHED.match(message)
    if match:  # v0.5-v0.1x: the launched node's hostname stands for the NodeClaim of later eras
        instance, hostname, itype, zone, capacity = match.groups()
        return {"kind": "nodeclaim_launched", "nodeclaim": hostname, "instance_type": itype, "zone": zone,
                "capacity_type": capacity, "provider_id": instance}
    if lowered not in ("launched nodeclaim", "launched machine", "launched instance", "launched node",
                       "launched new instance"):
        return None
    f = record.fields
    return {"kind": "nodeclaim_launched",
            "nodeclaim": _name(f, "NodeClaim", "nodeclaim", "Machine", "machine", "hostname"),
            "instance_type": f.get("instance-type") or f.get("type"), "zone": f.get("zone"),
            "capacity_type": f.get("capacity-type"),
            "provider_id": f.get("provider-id") or f.get("id") or f.get("launched-instance")}


def _lifecycle(record: Record, message: str, lowered: str) -> dict | None:
    for verb in ("registered", "initialized"):
        if lowered in (f"{verb} nodeclaim", f"{verb} machine"):
            f = record.fields
            return {"kind": f"nodeclaim_{verb}", "nodeclaim": _name(f, "NodeClaim", "nodeclaim", "Machine", "machine"),
                    "node": _name(f, "Node", "node")}
    return None


def _method(reason: object) -> str:
    return _V1_REASONS.get(reason.lower(), "other") if isinstance(reason, str) else "other"


def _disruption(record: Record, message: str, lowered: str) -> dict | None:
    f = record.fields
    if lowered == "disrupting node(s)":
        return _structured_disruption(f)
    if lowered.startswith("triggering") and _TTL.match(message):  # v0.2x: TTLs, before disruption had methods
        return {"kind": "disruption", "method": "expiration" if "expired" in lowered else "emptiness",
                "action": "delete", "nodes": [n for n in (_name(f, "node", "Node"),) if n]}
    found = _disrupt_line(message, lowered)
    if found is None:
        return None
    method, action, targets, capacity, types = found
    if not method:
        method = "consolidation" if lowered.startswith("consolidating") else _method(f.get("reason"))
    nodes = [t.split("/", 1)[0].strip() for t in targets.split(",") if t.strip()]
    out = {"kind": "disruption", "method": method if method in _METHODS else "other", "action": action,
           "nodes": nodes}
    if types is not None:
        names, more = _listed(types)
        out.update(replacement_capacity_type=capacity, replacement_instance_types=names, more=more)
    return out


_DISRUPT_HEADS = ("disrupting nodeclaim(s) via ", "deprovisioning via ", "disrupting via ", "consolidating via ")
_CAPACITY_TYPES = ("spot", "on-demand", "reserved")


def _disrupt_line(message: str, lowered: str) -> tuple[str, str, str, str | None, str | None] | None:
    """``<head> [method] delete|replace[ (why)], terminating N nodes [(M pods)] a/t/c, b/t/c
    [and replacing with [spot ]node from types x, y and K other(s)]`` of every era, read with
    string operations (a regex with lazy groups took 3 us a line): (method, action, targets,
    replacement capacity type, replacement types). The line may be cut off anywhere after
    the action."""
    if not lowered.startswith(_DISRUPT_HEADS):
        return None
    head = next(h for h in _DISRUPT_HEADS if lowered.startswith(h))
    rest, low = message[len(head):], lowered[len(head):]
    cut = low.find(",")
    spec = (low if cut < 0 else low[:cut]).split(" (", 1)[0].split()
    if not spec or spec[-1] not in ("delete", "replace") or len(spec) > 2:
        return None
    method, action = (spec[0] if len(spec) == 2 else ""), spec[-1]
    at = low.find(" terminating ")
    if at < 0:
        return method, action, "", None, None
    targets = rest[at + len(" terminating "):]
    words = targets.split(" ", 2)  # "1 nodes (2 pods) a/b/c ..." or "1 nodes a/b/c ..."
    targets = words[2] if len(words) == 3 else ""
    if targets.startswith("("):
        targets = targets.partition(") ")[2]
    targets, sep, replacement = targets.partition(" and replacing with ")
    if not sep:
        return method, action, targets, None, None
    offer, sep, types = replacement.partition(" from types ")
    if not sep:
        return method, action, targets, None, None
    first = offer.split(" ", 1)[0]
    capacity = first if first in _CAPACITY_TYPES and offer.endswith("node") else None
    return method, action, targets, capacity, types


def _structured_disruption(f: dict) -> dict:
    """v1.x ``disrupting node(s)``: ``reason``, ``decision``, ``disrupted-nodes`` and (v1.9+) ``command``."""
    out: dict = {"kind": "disruption", "method": _method(f.get("reason"))}
    decision = f.get("decision")
    if isinstance(decision, str) and decision.lower() in ("delete", "replace"):
        out["action"] = decision.lower()
    nodes = []
    for entry in f.get("disrupted-nodes") or []:
        if isinstance(entry, dict):
            name = _name(entry, "Node", "NodeClaim")
            if name:
                nodes.append(name)
    command = _COMMAND.match(f["command"]) if isinstance(f.get("command"), str) else None
    if command:
        reason, decision, pools, names = command.groups()
        out["method"] = _method(reason)
        out.setdefault("action", decision.lower())
        if pools:
            out["nodepools"] = [p.strip() for p in pools.split(",") if p.strip()]
        nodes = nodes or [n.strip() for n in names.split(",") if n.strip()]
    out["nodes"] = nodes
    replacements = [r for r in f.get("replacement-nodes") or [] if isinstance(r, dict)]
    if len(replacements) == 1:
        names, more = _listed(str(replacements[0].get("instance-types", "")))
        out.update(replacement_capacity_type=replacements[0].get("capacity-type"),
                   replacement_instance_types=names, more=more)
    return out


def _terminated(record: Record, message: str, lowered: str) -> dict | None:
    if lowered not in ("deleted node", "deleted nodeclaim", "deleted machine"):
        return None
    f = record.fields
    return {"kind": "node_terminated", "node": _name(f, "Node", "node"),
            "nodeclaim": _name(f, "NodeClaim", "nodeclaim", "Machine", "machine")}


_LAUNCH_ERRORS = ("launching machine", "launching nodeclaim", "launching node", "creating instance",
                  "creating cloud provider instance", "insufficient capacity")


def _launch_failed(record: Record, message: str, lowered: str) -> dict | None:
    """``failed launching nodeclaim`` (v1), ``Could not launch ...``, controller-runtime's ``Reconciler error``
    whose error is a launch, an ICE'd offering, or an error-level line that is the cloud provider's error
    itself (v0.2x-v0.3x lifecycle controllers)."""
    f = record.fields
    error_field = f.get("error") if isinstance(f.get("error"), str) else ""
    if lowered.startswith(("failed launching", "could not launch")):
        error = error_field or message.split(", ", 1)[-1]
    elif lowered == "reconciler error" and error_field.lower().startswith(_LAUNCH_ERRORS):
        error = error_field
    elif lowered.startswith("insufficientinstancecapacity for offering"):
        error = message
    elif record.level == "error" and lowered.startswith(_LAUNCH_ERRORS):
        error = message
    else:
        return None
    return {"kind": "launch_failed", "nodeclaim": _name(f, "NodeClaim", "nodeclaim", "Machine", "machine"),
            "nodepool": _name(f, "NodePool", "nodepool", "Provisioner", "provisioner"), "error": error}


_LIMITED = re.compile(r'(?:for (?:nodepool|provisioner)[: ]*"?([\w.-]+)"?|NodePool=([\w.-]+))')


def _limits(record: Record, message: str, lowered: str) -> dict | None:
    """A NodePool's limits reached (v1.9+ ``node limits have been exhausted for nodepool``)."""
    if not lowered.startswith(("node limits have been exhausted", "all available instance types exceed limits")):
        return None
    named = _LIMITED.search(message)
    pool = _name(record.fields, "NodePool", "nodepool", "Provisioner", "provisioner") or \
        (named and (named.group(1) or named.group(2)))
    return {"kind": "limits_exceeded", "nodepool": pool or None}


# The interruption controller's message kinds, every era's spelling (SpotInterruptionKind, spot_interrupted ...)
_MESSAGE_KINDS = (("rebalance", "rebalance_recommendation"), ("spot", "spot_interruption"),
                  ("scheduled", "scheduled_change"), ("state", "instance_state_change"),
                  ("stop", "instance_state_change"), ("terminat", "instance_state_change"), ("noop", "noop"))


def message_kind(value: object) -> str | None:
    if not isinstance(value, str) or not value:
        return None
    lowered = value.lower()
    return next((kind for needle, kind in _MESSAGE_KINDS if needle in lowered), "unknown")


# The controller's own action, when the line carries it (CordonAndDrain deletes the NodeClaim, which drains it)
_ACTIONS = {"cordonanddrain": "cordon_and_drain", "noaction": "none"}


def _interruption(record: Record, message: str, lowered: str) -> dict | None:
    """The AWS provider's interruption controller: an offering marked unavailable, a node deleted for a message."""
    f = record.fields
    if lowered.startswith("removing offering from offerings"):
        # also logged when a launch hits InsufficientInstanceCapacity: that is not an interruption
        if not (f.get("messageKind") or f.get("message-kind") or "interruption" in record.logger
                or f.get("controller") == "interruption"):
            return None
        action = "remove_offering"
    elif "from interruption message" in lowered and ("delete" in lowered or "cordon" in lowered):
        action = _ACTIONS.get(str(f.get("action", "")).lower(), "delete")
    else:
        return None
    return {"kind": "interruption", "node": _name(f, "Node", "node"),
            "nodeclaim": _name(f, "NodeClaim", "nodeclaim", "Machine", "machine"),
            "message_kind": message_kind(f.get("messageKind") or f.get("message-kind")), "action": action}


_CONSOLIDATION_EVENT = re.compile(r"^consolidation (candidate|rejected): (\w+): \[([^\]]*)\]"
                                  r"(?:.*?, reason: ([^(]+?)(?= \(|$))?")


def consolidation_message(message: str) -> dict | None:
    """The text of ConsolidationCandidate/ConsolidationRejected events (v1.9+):
    ``Consolidation rejected: delete: [node-a], reason: scheduling (savings: $0.11)``."""
    match = _CONSOLIDATION_EVENT.match(message.lower())
    if match is None:
        return None
    which, _, names, reason = match.groups()
    start = message.index("[") + 1
    nodes = [n.strip() for n in message[start:start + len(names)].split(",") if n.strip()]
    out = {"kind": f"consolidation_{which}", "nodes": nodes}
    if len(nodes) == 1:
        out["node"] = nodes[0]
    if reason:
        out["reason"] = message[match.start(4):match.end(4)].strip()
    return out


def _consolidation(record: Record, message: str, lowered: str) -> dict | None:
    return consolidation_message(message)


# Extractors by the message's first word (lowercased): a dict lookup instead of trying
# every pattern on every line, which matters at 50 MB/s.
BY_FIRST_WORD = {
    "could": (_unschedulable, _launch_failed),
    "failed": (_unschedulable, _launch_failed),
    "found": (_provisionable,),
    "computed": (_computed,),
    "scheduled": (_computed,),
    "created": (_created,),
    "creating": (_created, _launch_failed),
    "launching": (_created, _launch_failed),
    "insufficient": (_launch_failed,),
    "insufficientinstancecapacity": (_launch_failed,),
    "reconciler": (_launch_failed,),
    "launched": (_launched,),
    "registered": (_lifecycle,),
    "initialized": (_lifecycle,),
    "deprovisioning": (_disruption,),
    "disrupting": (_disruption,),
    "consolidating": (_disruption,),
    "triggering": (_disruption,),
    "deleted": (_terminated, _interruption),
    "removing": (_interruption,),
    "initiating": (_interruption,),
    "node": (_limits,),
    "consolidation": (_consolidation,),
    "all": (_limits,),
}


def classify(record: Record) -> dict:
    """The event fields for one record: the extractor for its message's first word decides;
    none that matches means ``other``."""
    if record.preset is not None:
        return record.preset
    message = record.message
    lowered = message.lower()
    extractors = BY_FIRST_WORD.get(lowered.partition(" ")[0])
    if extractors is not None:
        for extract in extractors:
            found = extract(record, message, lowered)
            if found is not None:
                return _present(found)
    return {"kind": "other", "message": message}


def _present(found: dict) -> dict:
    """Fields the line did not carry are left out (most lines carry them all)."""
    return {k: v for k, v in found.items() if v is not None} if None in found.values() else found
