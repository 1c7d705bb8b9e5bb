"""Karpenter log records -> DESIGN §4.2 event kinds, across every era's wording.

Older terms map onto today's: provisioner -> nodepool, machine -> nodeclaim,
deprovisioning -> disruption. Each extractor reads what its message carries;
fields a line lacks are simply left out.
"""

from __future__ import annotations

import json
import re

from .record import Record

_POOL_REASON = re.compile(r'incompatible with (?:nodepool|provisioner) "([^"]+)", ')
_OVERHEAD = re.compile(r"^daemonset overhead=(\{[^}]*\}), ")
_RESOURCES = re.compile(r"resources (\{[^}]*\})")
_MORE = re.compile(r"^(.*?)(?: and (\d+) other\(s\))?$")
_DISRUPT = re.compile(
    r"^(?:deprovisioning via|disrupting via|disrupting nodeclaim\(s\) via) (?:(\w+) )?(delete|replace), "
    r"terminating \d+ (?:nodes|machines|candidates|nodeclaims)(?: \(\d+ pods\))? (.*?)"
    r"(?: and replacing with (?:(spot|on-demand|reserved) )?node from types (.*))?$")
_V1_REASONS = {"underutilized": "underutilized", "empty": "emptiness", "drifted": "drift", "expired": "expiration"}
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
    """``a, b, c and 23 other(s)`` -> (["a", "b", "c"], 23)."""
    match = _MORE.match(text.strip())
    names = [n.strip() for n in match.group(1).split(",") if n.strip()]
    return names, int(match.group(2) or 0)


def _json(text: str | None):
    try:
        return json.loads(text) if text else None
    except ValueError:
        return text


_LIMITS = re.compile(r'^all available instance types exceed limits for (?:nodepool|provisioner)?:? ?"([^"]+)"')


def unschedulable(error: str) -> dict:
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
        if limits:
            pools.append({"name": limits.group(1), "reason": part})
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


def _unschedulable(record: Record, message: str) -> dict | None:
    lowered = message.lower()
    if not lowered.startswith("could not schedule pod") and not lowered.startswith("failed to schedule pod"):
        return None
    error = record.fields.get("error") if isinstance(record.fields.get("error"), str) else ""
    detail = message.split(", ", 1)[1] if ", " in message else error
    out = {"kind": "pod_unschedulable", "pod": _pod(record.fields), **unschedulable(detail or error)}
    return out


def _provisionable(record: Record, message: str) -> dict | None:
    if not message.startswith("found provisionable pod(s)"):
        return None
    out: dict = {"kind": "pods_provisionable"}
    count = record.fields.get("pods")
    listed = record.fields.get("Pods", count if isinstance(count, str) else None)  # v0.3x listed them in "pods"
    if isinstance(count, int):
        out["count"] = count
    if isinstance(listed, str):
        names, more = _listed(listed)
        out["pods"] = names
        out["count"] = len(names) + more
    return out


def _computed(record: Record, message: str) -> dict | None:
    if not message.startswith("computed new ") or "to fit pod" not in message:
        return None
    f = record.fields
    claims = next((f[k] for k in ("nodeclaims", "machines", "nodes") if isinstance(f.get(k), int)), None)
    return {"kind": "nodeclaims_computed", "nodeclaims": claims, "pods": f.get("pods")}


def _created(record: Record, message: str) -> dict | None:
    f = record.fields
    if message == "created nodeclaim" or message == "created machine":
        names, more = _listed(str(f.get("instance-types", "")))
        return {"kind": "nodeclaim_created", "nodeclaim": _name(f, "NodeClaim", "nodeclaim", "Machine", "machine"),
                "nodepool": _name(f, "NodePool", "nodepool", "Provisioner", "provisioner"),
                "instance_types": names, "more": more}
    if message.startswith("launching node with ") or message.startswith("launching machine with "):
        types = message.split(" from types ", 1)[1] if " from types " in message else ""
        names, more = _listed(types)
        return {"kind": "nodeclaim_created", "nodeclaim": _name(f, "machine"),
                "nodepool": _name(f, "provisioner", "nodepool"), "instance_types": names, "more": more}
    return None


def _launched(record: Record, message: str) -> dict | None:
    if message not in ("launched nodeclaim", "launched machine", "launched instance", "launched node"):
        return None
    f = record.fields
    return {"kind": "nodeclaim_launched",
            "nodeclaim": _name(f, "NodeClaim", "nodeclaim", "Machine", "machine", "hostname"),
            "instance_type": f.get("instance-type"), "zone": f.get("zone"),
            "capacity_type": f.get("capacity-type"), "provider_id": f.get("provider-id") or f.get("id")}


def _lifecycle(record: Record, message: str) -> dict | None:
    for verb in ("registered", "initialized"):
        if message in (f"{verb} nodeclaim", f"{verb} machine"):
            f = record.fields
            return {"kind": f"nodeclaim_{verb}", "nodeclaim": _name(f, "NodeClaim", "nodeclaim", "Machine", "machine"),
                    "node": _name(f, "Node", "node")}
    return None


def _disruption(record: Record, message: str) -> dict | None:
    match = _DISRUPT.match(message)
    if match is None:
        return None
    method, action, targets, capacity, types = match.groups()
    reason = record.fields.get("reason")
    if method is None:
        method = _V1_REASONS.get(reason, "other") if isinstance(reason, str) else "other"
    nodes = [t.split("/", 1)[0].strip() for t in re.split(r",\s*", targets) if t.strip()]
    out = {"kind": "disruption", "method": method if method in _METHODS else "other", "action": action,
           "nodes": nodes}
    if types is not None:
        names, more = _listed(types)
        out.update(replacement_capacity_type=capacity, replacement_instance_types=names, more=more)
    return out


def _terminated(record: Record, message: str) -> dict | None:
    if message not in ("deleted node", "deleted nodeclaim", "deleted machine"):
        return None
    f = record.fields
    return {"kind": "node_terminated", "node": _name(f, "Node", "node"),
            "nodeclaim": _name(f, "NodeClaim", "nodeclaim", "Machine", "machine")}


_LAUNCH_ERRORS = ("launching machine", "launching nodeclaim", "launching node", "creating instance",
                  "creating cloud provider instance", "insufficient capacity")


def _launch_failed(record: Record, message: str) -> dict | None:
    """``failed launching nodeclaim`` (v1), ``Could not launch ...``, or an error-level line that
    is the cloud provider's error itself (v0.2x-v0.3x lifecycle controllers)."""
    lowered = message.lower()
    f = record.fields
    if lowered.startswith(("failed launching", "could not launch")):
        error = f.get("error") if isinstance(f.get("error"), str) else message.split(", ", 1)[-1]
    elif record.level == "error" and lowered.startswith(_LAUNCH_ERRORS):
        error = message
    else:
        return None
    return {"kind": "launch_failed", "nodeclaim": _name(f, "NodeClaim", "nodeclaim", "Machine", "machine"),
            "nodepool": _name(f, "NodePool", "nodepool", "Provisioner", "provisioner"), "error": error}


def _interruption(record: Record, message: str) -> dict | None:
    lowered = message.lower()
    if "interruption" not in lowered and "spot interruption" not in lowered:
        return None
    return {"kind": "interruption", "node": _name(record.fields, "Node", "node"),
            "nodeclaim": _name(record.fields, "NodeClaim", "nodeclaim", "Machine", "machine")}


# Extractors by the message's first word (lowercased): a dict lookup instead of trying
# every pattern on every line, which matters at 50 MB/s.
BY_FIRST_WORD = {
    "could": (_unschedulable, _launch_failed),
    "failed": (_unschedulable, _launch_failed),
    "found": (_provisionable,),
    "computed": (_computed,),
    "created": (_created,),
    "launching": (_created, _launch_failed),
    "creating": (_launch_failed,),
    "insufficient": (_launch_failed,),
    "launched": (_launched,),
    "registered": (_lifecycle,),
    "initialized": (_lifecycle,),
    "deprovisioning": (_disruption,),
    "disrupting": (_disruption,),
    "deleted": (_terminated,),
}


def classify(record: Record) -> dict:
    """The event fields for one record: its kind and whatever the line carries."""
    message = record.message
    for extract in BY_FIRST_WORD.get(message.partition(" ")[0].lower(), ()):
        found = extract(record, message)
        if found is not None:
            return _present(found)
    if "nterruption" in message:
        found = _interruption(record, message)
        if found is not None:
            return _present(found)
    return {"kind": "other", "message": message}


def _present(found: dict) -> dict:
    """Fields the line did not carry are left out (most lines carry them all)."""
    return {k: v for k, v in found.items() if v is not None} if None in found.values() else found
