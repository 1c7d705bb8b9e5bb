"""Karpenter log records -> the event kinds of docs/logs-jsonl.md, across every era's wording.

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

# (a paste cut right after a NodePool's name still names it: "...; incompatible with nodepool "gpu",")
_POOL_REASON = re.compile(r'incompatible with (?:nodepool|provisioner) "([^"]+)"(?:, |,?$)')
_OVERHEAD = re.compile(r"^daemonset overhead=(\{[^}]*\}), ")
_RESOURCES = re.compile(r"resources (\{[^}]*\})")
# v1.9+: the whole command in one string, "Underutilized/ID: Replace: nodepools=[a,b]: [n1, n2] -> [1 replacement] ..."
# (an author's shortened copy may stop after the NodePools: "Empty/...: delete: nodepools=[general]")
_COMMAND = re.compile(r"^(\w+)/[^:]*: (\w+)(?:: nodepools=\[([^\]]*)\])?(?:: \[([^\]]*)\])?")
# v0.3-v0.2x TTLs; v0.3-v0.4 named the node in the message: "... for empty node NAME" (v0.3.0, no TTL in it),
# "... after TTL for empty node NAME", "... for expired node NAME after TTL (+LATE)" (aws/karpenter-provider-aws
# v0.3.0 reallocation/utilization.go, v0.3.4 node/emptiness.go and expiration.go); an unreleased build wrote the
# expiration's TTL first ("after TTL (+LATE) for expired node NAME")
_TTL = re.compile(r"^triggering termination (?:for expired node(?: (\S+))? after"
                  r"|(?:after [\w.]+(?: \(\+[^)]*\))? )?for (?:empty|expired) node(?: (\S+))?$)", re.I)
_V1_REASONS = {"underutilized": "underutilized", "empty": "emptiness", "emptiness": "emptiness", "drifted": "drift",
               "drift": "drift", "expired": "expiration", "expiration": "expiration", "consolidation": "consolidation",
               # node repair as a voluntary disruption method, budgeted under the reason "Unhealthy" (v1.15, #3311)
               "unhealthy": "repair"}
_METHODS = {"consolidation", "drift", "expiration", "emptiness", "underutilized", "repair"}


def _name(fields: dict, *keys: str) -> str | None:
    """A name from v1's {"Kind": {"name": ...}} objects or older flat string fields; an author's placeholder
    (``<assigned-node-name>``, a docs page's copy of a line) is no name."""
    for key in keys:
        value = fields.get(key)
        if value:
            if type(value) is dict:
                value = value.get("name")
            if type(value) is str:
                return None if value[:1] == "<" and value[-1:] == ">" else value
    # controller-runtime names the object a controller reconciles with "controllerKind" and "name" (a record
    # an author cut down to those keeps no {"NodeClaim": {...}})
    if fields.get("controllerKind") in keys and type(fields.get("name")) is str and fields["name"]:
        return fields["name"]
    return None


def _pod(fields: dict) -> str | None:
    value = fields.get("Pod")
    if isinstance(value, dict) and "name" in value:
        return f"{value.get('namespace', '')}/{value['name']}"
    value = fields.get("pod")
    return value if isinstance(value, str) and value else None


# what is left of "N other(s)" where the paste ended inside it: "8", "80 ", "80 othe"
_CUT_OTHERS = re.compile(r"^(\d+)(?:( )(?:other\(s?|others|other|othe|oth|ot|o)?)?\s*$")


def _listed(text: str) -> tuple[list[str], int]:
    """``a, b, c and 23 other(s)`` -> (["a", "b", "c"], 23).

    C-level string operations only (names hold no whitespace, so it all goes at once): a lazy
    regex with an optional tail rescanned the whole list, and this runs on most provisioning lines."""
    more = 0
    if text.endswith(("other(s)", "other(s) ")):
        head, sep, count = text.rpartition(" and ")
        count = count.rstrip()[:-8].strip()
        if sep and count.isdigit():
            text, more = head, int(count)
    elif " and " in text:   # the paste cut inside "and N other(s)": the names before it are whole
        head, _, tail = text.rpartition(" and ")
        cut = _CUT_OTHERS.match(tail)
        if cut:
            text, more = head, int(cut.group(1)) if cut.group(2) else 0   # the count is whole once a space follows
    names = list(filter(None, "".join(text.split()).split(",")))
    if names and names[-1] in ("...", "…"):   # an author's "..." for the rest of the list: no name
        names.pop()
    return names, more


def _types(text: str) -> tuple[list[str], int]:
    """``_listed`` for instance-type lists, remembered: a NodePool offers the same list to
    every NodeClaim of one shape and to every replacement, so it repeats line after line
    (pod lists do not, and are read afresh). Each caller gets its own list."""
    names, more = _types_listed_more(text)
    return list(names), more


@lru_cache(maxsize=1024)
def _types_listed_more(text: str) -> tuple[tuple[str, ...], int]:
    names, more = _listed(text)
    return tuple(names), more


try:  # a third of a scheduling error's cost was decoding its small JSON objects
    from orjson import loads as _loads
except ImportError:  # pragma: no cover
    _loads = json.loads


def _json(text: str | None):
    try:
        return _loads(text) if text else None
    except ValueError:  # orjson's JSONDecodeError is a ValueError too
        return text


# v1.9+ also "node limits have been exhausted for nodepool", both wrapped with the pool as "(NodePool=NAME)"
# or, as an event's text renders the pair, ", NodePool=NAME"
_LIMITS = re.compile(r'^(?:all available instance types exceed (?:nodepool |provisioner )?limits|'
                     r'node limits have been exhausted)'
                     r'(?: for (?:nodepool|provisioner)?:? ?(?:"([^"]+)"|\(NodePool=([^)]+)\)|, NodePool=([\w.-]+)))?')


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
    error that names its pool at the end. An author's markdown emphasis inside it
    (``**incompatible with nodepool "a",**``) is not Karpenter's and goes.
    """
    if "**" in error:
        error = error.replace("**", "")
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
        named = limits and (limits.group(1) or limits.group(2) or limits.group(3))
        if limits and (named or pool_hint):
            pools.append({"name": named or pool_hint, "reason": part})
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


# Where a NodePool's part of a scheduling error starts (parts are joined with "; ")
POOL_ERROR = re.compile(r'^"?(?:incompatible with (?:nodepool|provisioner) \\?"|all available instance types exceed )')


def _bare_error(f: dict, message: str, lowered: str, level: str, logger: str, line: int,
                when: str) -> dict | None:
    """A scheduling error pasted without its line (the ``error`` value of "could not schedule pod"
    alone): Karpenter's reasons per NodePool, the pod not named."""
    if not lowered.startswith(("incompatible with nodepool ", "incompatible with provisioner ")):
        return None
    return {"line": line, "time": when, "level": level, "kind": "pod_unschedulable", **_unschedulable_text(message, "")}


def _scheduler_error_v09(f: dict, message: str, lowered: str, level: str, logger: str, line: int,
                         when: str) -> dict | None:
    """v0.9's scheduler logged each pod it could not schedule with its error alone as the message and the pod
    in its context (``no instance type satisfied resources ... and requirements ...``). Only a logged line (a
    level): the same text pasted bare is an author quoting an error, which no pod is named by."""
    if not level or not lowered.startswith("no instance type satisfied resources "):
        return None
    out = {"line": line, "time": when, "level": level, "kind": "pod_unschedulable", "pod": _pod(f), "error": message}
    return _present(out)


def _unschedulable(f: dict, message: str, lowered: str, level: str, logger: str, line: int,
                   when: str) -> dict | None:
    if not lowered.startswith(("could not schedule pod", "failed to schedule pod")):
        return None
    error = f.get("error")
    if type(error) is not str:
        error = ""
    pool = ""  # v1's line names no NodePool: four failed lookups in _name cost more than these four tests
    if "NodePool" in f or "nodepool" in f or "Provisioner" in f or "provisioner" in f:
        pool = _name(f, "NodePool", "nodepool", "Provisioner", "provisioner") or ""
    pod = _pod(f)
    out = {"line": line, "time": when, "level": level, "kind": "pod_unschedulable", "pod": pod,
           **_unschedulable_text(message.partition(", ")[2] or error, pool)}
    return out if pod is not None else _present(out)


# v0.6-v0.8 (aws/karpenter pkg/controllers): the selection controller's "Ignoring pod, ERR" (v0.6.0-v0.6.5,
# debug then error), v0.6's scheduler "Unable to schedule pod NS/NAME, ERR" and v0.7-v0.8's "Scheduling pod, ERR"
# (pod in the context). Before v0.9 each provisioner scheduled on its own, so the provisioner in the context is the
# one whose reason the error is. "Ignoring pod, ERR" is read so only from the selection controller (v0.6-v0.9),
# by its logger or, on a line without one, by the selection's own errors (no provisioner matched, a constraint it
# did not support): the provisioner's own "ignoring pod" (v0.16-v1.x: a pod it cannot validate, a missing
# StorageClass) is ``other``.
_SELECTION_ERRORS = re.compile(r"(?:matched 0/\d+ provisioners|.*(?:is not supported|unsupported (?:topology key|operator)))")
_UNSCHEDULABLE_V06 = re.compile(r"^(?:ignoring pod|scheduling pod|unable to schedule pod (?P<pod>[^\s,]+/[^\s,]+)), ")


def _unschedulable_v06(f: dict, message: str, lowered: str, level: str, logger: str, line: int,
                       when: str) -> dict | None:
    match = _UNSCHEDULABLE_V06.match(lowered)
    if match is None or lowered[0] == "i" and logger != "controller.selection" and \
            (logger or not _SELECTION_ERRORS.match(lowered, match.end())):
        return None
    error = message[match.end():]
    pod = message[match.start("pod"):match.end("pod")] if match.group("pod") else _pod(f)
    pool = _name(f, "provisioner", "Provisioner")
    out = {"line": line, "time": when, "level": level, "kind": "pod_unschedulable", "pod": pod}
    if pool:
        out["nodepools"] = [{"name": pool, "reason": error}]
    else:
        out["error"] = error
    return out if pod is not None else _present(out)


_COUNT = re.compile(r"^found (\d+) provisionable pods?")


def _provisionable(f: dict, message: str, lowered: str, level: str, logger: str, line: int,
                   when: str) -> dict | None:
    if not lowered.startswith("found ") or "provisionable pod" not in lowered:
        return None
    if lowered[6:7].isdigit():  # v0.5-v0.2x: "Found 3 provisionable pod(s)"
        counted = _COUNT.match(lowered)
        if counted:
            return {"line": line, "time": when, "level": level, "kind": "pods_provisionable",
                    "count": int(counted.group(1))}
    count = f.get("pods")
    listed = f.get("Pods", count if type(count) is str else None)  # v0.3x listed them in "pods"
    if type(listed) is str:
        names, more = _listed(listed)
        if isinstance(count, int):  # the order the fields have always had in the output
            return {"line": line, "time": when, "level": level, "kind": "pods_provisionable",
                    "count": len(names) + more, "pods": names}
        return {"line": line, "time": when, "level": level, "kind": "pods_provisionable", "pods": names,
                "count": len(names) + more}
    if isinstance(count, int):
        return {"line": line, "time": when, "level": level, "kind": "pods_provisionable", "count": count}
    return {"line": line, "time": when, "level": level, "kind": "pods_provisionable"}


# pre-v0.1's greedy allocator (allocation/greedyallocator.go, early 2021): "Allocating %d pending pods from
# %d constraint groups", that era's count of the pods it was about to provision for
_ALLOCATING = re.compile(r"^allocating (\d+) pending pods? from \d+ constraint groups?")


def _allocating(f: dict, message: str, lowered: str, level: str, logger: str, line: int,
                when: str) -> dict | None:
    match = _ALLOCATING.match(lowered)
    if match is None:
        return None
    return {"line": line, "time": when, "level": level, "kind": "pods_provisionable", "count": int(match.group(1))}


# Every era's "N nodes for M pods": (regex, group of the node count, group of the pod count)
_PACKINGS = (
    (re.compile(r"^computed (\d+) new (?:node|machine|nodeclaim)\(s\) will fit (\d+) pod"), 1, 2),
    (re.compile(r"^computed packing of (\d+) node\(s\) for (\d+) pod"), 1, 2),
    (re.compile(r"^computed packings? for (\d+) pod\(s\) onto (\d+) node"), 2, 1),
    (re.compile(r"^scheduled (\d+) pods? onto (\d+) (?:new )?nodes?"), 2, 1),
    # v0.1 (cloudprovider/aws/fleet/packing): "Successfully packed %d pods onto %d nodes", one node a packing
    (re.compile(r"^successfully packed (\d+) pods? onto (\d+) nodes?"), 2, 1),
)


def _computed(f: dict, message: str, lowered: str, level: str, logger: str, line: int,
              when: str) -> dict | None:
    if lowered.startswith("computed new ") and "to fit pod" in lowered:  # v0.3x and v1: counts in fields
        claims = f.get("nodeclaims")
        if not isinstance(claims, int):
            claims = next((f[k] for k in ("machines", "nodes", "newNodes") if isinstance(f.get(k), int)), None)
        pods = f.get("pods")
        out = {"line": line, "time": when, "level": level, "kind": "nodeclaims_computed",
               "nodeclaims": claims, "pods": pods}
        return out if claims is not None and pods is not None else _present(out)
    for pattern, claims, pods in _PACKINGS:  # older eras: counts in the message
        match = pattern.match(lowered)
        if match:
            out = {"line": line, "time": when, "level": level, "kind": "nodeclaims_computed",
                   "nodeclaims": int(match.group(claims)), "pods": int(match.group(pods))}
            options = _OPTIONS.search(message, match.end())  # v0.5-v0.8: "... with instance type option(s) [a b]"
            if options:
                out["instance_types"] = options.group(1).split()
            return out
    match = _PACKING_V02.match(lowered)
    if match:  # v0.2: the pods by name, one line per packing
        out = {"line": line, "time": when, "level": level, "kind": "nodeclaims_computed",
               "pods": len(match.group(1).split())}
        if match.group(2) is not None:  # the type list, when the line was not cut inside it
            out["instance_types"] = match.group(2).split()
        return out
    match = _PACKING_V04.match(lowered)
    if match:  # v0.3-v0.4: one line per packing; "Incremented node count" may add nodes to it later
        return {"line": line, "time": when, "level": level, "kind": "nodeclaims_computed",
                "pods": int(match.group(1)), "instance_types": match.group(2).split()}
    return None


# v0.3-v0.4 (allocation/binpacking/packer.go): "Computed packing for %d pod(s) with instance type option(s) [a b]"
_PACKING_V04 = re.compile(r"^computed packing for (\d+) pod\(s\) with instance type option\(s\) \[([^\]]*)")


# v0.2 (packing/packer.go): "Successfully computed packing for pod(s) [ns/a ns/b] with instance type option(s) [a b]"
_PACKING_V02 = re.compile(r"^successfully computed packing for pod\(s\) \[([^\]]*)\]"
                          r"(?: with instance type option\(s\) \[(?:([^\]]*)\])?)?")
_OPTIONS = re.compile(r"instance type option\(s\) \[([^\]]*)\]")


def _created(f: dict, message: str, lowered: str, level: str, logger: str, line: int,
             when: str) -> dict | None:
    if lowered in ("created nodeclaim", "created machine"):
        names, more = _types(str(f.get("instance-types", "")))
        claim = _name(f, "NodeClaim", "nodeclaim", "Machine", "machine")
        pool = _name(f, "NodePool", "nodepool", "Provisioner", "provisioner")
        out = {"line": line, "time": when, "level": level, "kind": "nodeclaim_created", "nodeclaim": claim,
               "nodepool": pool, "instance_types": names, "more": more}
        by = _controller(f, logger)
        if by:
            out["controller"] = by
        return out if claim is not None and pool is not None else _present(out)
    if lowered.startswith(("launching node with ", "launching machine with ", "created node with ",
                           "launching nodeclaim with ", "launching node for ")):
        # a v0.8 development build's "launching node for N pods using resources ... from types [a b]" (a PR's
        # reworked line, v-010) lists them in brackets
        types = message.split(" from types ", 1)[1] if " from types " in message else ""
        if types[:1] == "[":
            names, more = (types[1:types.index("]")].split() if "]" in types else []), 0
        else:
            names, more = _types(types)
        return _present({"line": line, "time": when, "level": level, "kind": "nodeclaim_created",
                         "nodeclaim": _name(f, "machine", "nodeclaim"),
                         "nodepool": _name(f, "provisioner", "nodepool"), "instance_types": names, "more": more,
                         "controller": _controller(f, logger)})
    if lowered.startswith("creating ") and "node(s) with instance type option(s)" in lowered:  # v0.8
        options = _OPTIONS.search(message)
        return _present({"line": line, "time": when, "level": level, "kind": "nodeclaim_created",
                         "nodepool": _name(f, "provisioner", "nodepool"),
                         "instance_types": options.group(1).split() if options else []})
    return None


def _controller(f: dict, logger: str) -> str | None:
    """The controller that created a NodeClaim, when the line says: ``provisioner`` for pending pods,
    ``disruption`` (``deprovisioning`` before v0.32) for a disruption command's replacement -- v1 in the
    ``controller`` field, older eras in the logger's name (``controller.deprovisioning``)."""
    named = f.get("controller")
    if type(named) is str and named:
        return named
    if logger.startswith("controller.") and logger.count(".") == 1:
        return logger[11:]
    return None


_LAUNCHED = re.compile(r"^launched instance: ([^,\s]+), hostname: ([^,\s]+), type: ([^,\s]+), zone: ([^,\s]+), "
                       r"capacity ?type: ([\w-]+)", re.I)
# v0.3 (cloudprovider/aws/instance.go): "Launched instance: %s, type: %s, zone: %s, hostname: %s", no capacity type
_LAUNCHED_V03 = re.compile(r"^launched instance: ([^,\s]+), type: ([^,\s]+), zone: ([^,\s]+), hostname: ([^,\s]+)",
                           re.I)


def _launched(f: dict, message: str, lowered: str, level: str, logger: str, line: int,
              when: str) -> dict | None:
    match = _LAUNCHED.match(message)
    if match:  # v0.5-v0.1x: the launched node's hostname stands for the NodeClaim of later eras
        instance, hostname, itype, zone, capacity = match.groups()
        return {"line": line, "time": when, "level": level, "kind": "nodeclaim_launched",
                "nodeclaim": hostname, "instance_type": itype, "zone": zone,
                "capacity_type": capacity, "provider_id": instance}
    match = _LAUNCHED_V03.match(message)
    if match:
        instance, itype, zone, hostname = match.groups()
        return {"line": line, "time": when, "level": level, "kind": "nodeclaim_launched",
                "nodeclaim": hostname, "instance_type": itype, "zone": zone, "provider_id": instance}
    if lowered not in ("launched nodeclaim", "launched machine", "launched instance", "launched node",
                       "launched new instance"):
        return None
    if lowered == "launched new instance" and _azure_repeat(f, logger):
        return None
    return _present({"line": line, "time": when, "level": level, "kind": "nodeclaim_launched",
                     "nodeclaim": _name(f, "NodeClaim", "nodeclaim", "Machine", "machine", "hostname"),
                     "instance_type": f.get("instance-type") or f.get("type"), "zone": f.get("zone"),
                     "capacity_type": f.get("capacity-type"),
                     "provider_id": f.get("provider-id") or f.get("id") or f.get("launched-instance")})


def _azure_repeat(f: dict, logger: str) -> bool:
    """The Azure provider's own ``launched new instance`` (its instance a VM's resource ID, logged by its
    instance provider through controller-runtime's ``fallback`` logger): the same words and keys as the
    AWS provider's v0.2x launch record, but written in the NodeClaim era, beside the core's ``launched
    nodeclaim`` that is the launch -- a repeat, read as ``other``."""
    instance = f.get("launched-instance") or f.get("id") or ""
    return logger == "fallback" or (type(instance) is str and instance.startswith(("/subscriptions/", "azure:")))


def _lifecycle(f: dict, message: str, lowered: str, level: str, logger: str, line: int,
               when: str) -> dict | None:
    for verb in ("registered", "initialized"):
        if lowered in (f"{verb} nodeclaim", f"{verb} machine"):
            return _present({"line": line, "time": when, "level": level, "kind": f"nodeclaim_{verb}",
                             "nodeclaim": _name(f, "NodeClaim", "nodeclaim", "Machine", "machine"),
                             "node": _name(f, "Node", "node")})
    return None


def _method(reason: object) -> str:
    return _V1_REASONS.get(reason.lower(), "other") if isinstance(reason, str) else "other"


def disruption_method(reason: str) -> str:
    """The method a disruption reason names, every era's word (v1's Underutilized, Drifted; Expiration before)."""
    lowered = reason.lower()
    return lowered if lowered in _METHODS else _method(reason)


# the command's reason and decision an author kept between their "..." cuts: "... Empty/delete ..."
_COMMAND_PIECE = re.compile(r"\b([A-Z]\w+)/(?:[\w-]+: )?(delete|replace)\b", re.IGNORECASE)


def _disruption(f: dict, message: str, lowered: str, level: str, logger: str, line: int,
                when: str) -> dict | None:
    if lowered == "disrupting node(s)":
        return _structured_disruption(f, level, line, when)
    if lowered.startswith("disrupting node(s) ..."):   # an author's cut copy that kept a piece of the command
        command = _COMMAND_PIECE.search(message)
        return _structured_disruption({**f, "reason": command.group(1), "decision": command.group(2)} if command
                                      else f, level, line, when)
    ttl = _TTL.match(message) if lowered.startswith("triggering") else None
    if ttl:  # v0.4-v0.2x: TTLs, before disruption had methods
        return {"line": line, "time": when, "level": level, "kind": "disruption",
                "method": "expiration" if "expired" in lowered else "emptiness",
                "action": "delete", "nodes": [n for n in (_name(f, "node", "Node") or ttl.group(1) or ttl.group(2),)
                                              if n]}
    return _disruption_line(f, message, lowered, level, line, when)


def _repair(f: dict, message: str, lowered: str, level: str, logger: str, line: int,
            when: str) -> dict | None:
    """``deleting unhealthy node`` (v1.1+, the node health controller with the NodeRepair gate): a node
    whose unhealthy condition outlasted its repair policy's toleration, its NodeClaim deleted at once
    (forcefully, outside the disruption budgets until repair became a disruption method)."""
    if lowered != "deleting unhealthy node":
        return None
    node = _name(f, "Node", "node")
    claim = _name(f, "NodeClaim", "nodeclaim")
    return _present({"line": line, "time": when, "level": level, "kind": "disruption", "method": "repair",
                     "action": "delete", "nodes": [n for n in (node or claim,) if n], "nodeclaim": claim})


_DISRUPT = re.compile(r"(?:disrupting nodeclaim\(s\) via|deprovisioning via|disrupting via|consolidating via)\s+"
                      r"(?:(\w+)[\s/]+)?(delete|replace)(?:\s+\([^,]*)?(?:,|$)")
_CAPACITY_TYPES = ("spot", "on-demand", "reserved")
_NODE_NAMES = re.compile(r"(?:^|,)\s*([^\s,/]+)[^,]*")  # "node/instance-type/capacity-type, ...": the node names


def _disruption_line(f: dict, message: str, lowered: str, level: str, line: int, when: str) -> dict | None:
    """``<head> [method] delete|replace[ (why)], terminating N nodes [(M pods)] a/t/c, b/t/c
    [and replacing with [spot ]node from types x, y and K other(s)]`` of every era. The line
    may be cut off anywhere after the action. The head is one anchored regex without lazy
    groups (C speed); the tail is split with string operations (a lazy regex over it took
    3 us a line), and the event is built in place: this runs on every disruption line."""
    match = _DISRUPT.match(lowered)
    if match is None:
        return None
    method, action = match.groups()
    if not method:
        method = "consolidation" if lowered.startswith("consolidating") else _method(f.get("reason"))
    out = {"line": line, "time": when, "level": level, "kind": "disruption",
           "method": method if method in _METHODS else "other", "action": action,
           "nodes": []}
    at = lowered.find(" terminating ", match.end() - 1)
    if at < 0:   # no candidate list (cut before it, or an author's copy): the context's node, if it names one
        named = _name(f, "Node", "node") or _name(f, "NodeClaim", "nodeclaim", "Machine", "machine")
        if named and not elided_name(named):
            out["nodes"] = [named]
        return out
    words = message[at + 13:].split(" ", 2)  # "1 nodes (2 pods) a/b/c ..." or "1 nodes a/b/c ..."
    if words[0].isdigit():   # the command's size, which outlives a list cut short
        out["node_count"] = int(words[0])
    targets = words[2] if len(words) == 3 else ""
    if targets.startswith("("):
        targets = targets.partition(") ")[2]
    pods = words[2].partition(" pods) ")[0] if len(words) == 3 and words[2].startswith("(") else ""
    if pods[1:].isdigit():
        out["pod_count"] = int(pods[1:])
    targets, sep, replacement = targets.partition(" and replacing with ")
    parts = targets.split(", ")
    candidates = [_candidate(part) for part in parts if part.count("/") == 2 and not elided_name(part)]
    if not sep and candidates and parts[-1].count("/") < 2:
        # every era writes each candidate as name/instance-type/capacity-type: a last one without them was cut
        # mid-name by the paste ("..., i-0f7c2a9e5d3b18649.ec2.inter"), so it names no node
        targets = ", ".join(parts[:-1])
    out["nodes"] = [n for n in _NODE_NAMES.findall(targets) if not elided_name(n)]
    if candidates:
        out["candidates"] = candidates
    if sep:
        offer, sep, types = replacement.partition(" from types ")
        if sep:
            first = offer.split(" ", 1)[0]
            if first in _CAPACITY_TYPES and offer.endswith("node"):
                out["replacement_capacity_type"] = first
            out["replacement_instance_types"], out["more"] = _types(types)
    return out


def _candidate(text: str) -> dict:
    """``node/instance-type/capacity-type`` of a disruption line's candidate list."""
    node, itype, capacity = text.strip().split("/")
    return {"node": node, "instance_type": itype, "capacity_type": capacity.split(" ", 1)[0]}


def _node_like(name: str) -> bool:
    """A node's name, not a word of a cut sentence ("deleted node from ..."): names carry a digit, a dot
    or a dash (ip-10-1-2-3.ec2.internal, aks-pool-1, node1), and a paste's elided name is none."""
    return not elided_name(name) and any(c.isdigit() or c in ".-" for c in name)


def elided_name(name: str) -> bool:
    """A name a paste shortened (``ip-10-27-91-143…``, ``nodeclaim/...``'s bare ``...``): not an object's
    name, so not reported as one."""
    return not name.strip(".…") or name.endswith(("…", "..."))


def _structured_disruption(f: dict, level: str, line: int, when: str) -> dict:
    """v1.x ``disrupting node(s)``: ``reason``, ``decision``, ``disrupted-nodes`` and (v1.9+) ``command``."""
    out: dict = {"line": line, "time": when, "level": level, "kind": "disruption", "method": _method(f.get("reason"))}
    decision = f.get("decision")
    if isinstance(decision, str) and decision.lower() in ("delete", "replace"):
        out["action"] = decision.lower()
    nodes, candidates = [], []
    for entry in f.get("disrupted-nodes") or []:
        if isinstance(entry, dict):
            name = _name(entry, "Node", "NodeClaim")
            if name:
                nodes.append(name)
                candidates.append(_present({"node": _name(entry, "Node"), "nodeclaim": _name(entry, "NodeClaim"),
                                            "instance_type": entry.get("instance-type"),
                                            "capacity_type": entry.get("capacity-type")}))
    if not nodes and "disrupted-nodes" not in f and ("Node" in f or "NodeClaim" in f):
        # a record cut inside its list of nodes, salvaged flat: the first node's references are the record's
        # own keys (the line has no others); its type and capacity type may be the cut value, so not kept
        name = _name(f, "Node", "NodeClaim")
        if name:
            nodes.append(name)
            candidates.append(_present({"node": _name(f, "Node"), "nodeclaim": _name(f, "NodeClaim")}))
    if candidates:
        out["candidates"] = candidates
    for key, field in (("pod_count", "pod-count"), ("replacement_count", "replacement-node-count")):
        value = f.get(field)
        if type(value) is int or type(value) is str and value.isdigit():   # a str from an author's key=value
            out[key] = int(value)
    if type(f.get("command-id")) is str:
        out["command_id"] = f["command-id"]
    command = _COMMAND.match(f["command"]) if isinstance(f.get("command"), str) else None
    reason_only = f["command"].split(" ", 1)[0].partition("/")[0] if type(f.get("command")) is str else ""
    if command is None and out["method"] == "other" and reason_only.isalpha():
        # an author's copy that kept only the command's reason ("Empty", "Underutilized ... delete")
        out["method"] = _method(reason_only)
    if command:
        reason, decision, pools, names = command.groups()
        out["method"] = _method(reason)
        out.setdefault("action", decision.lower())
        if pools:
            out["nodepools"] = [p.strip() for p in pools.split(",") if p.strip()]
        nodes = nodes or [n.strip() for n in (names or "").split(",") if n.strip() and not elided_name(n.strip())]
    out["nodes"] = nodes
    replacements = [r for r in f.get("replacement-nodes") or [] if isinstance(r, dict)]
    if len(replacements) == 1:
        names, more = _types(str(replacements[0].get("instance-types", "")))
        out.update(replacement_capacity_type=replacements[0].get("capacity-type"),
                   replacement_instance_types=names, more=more)
    return _present(out)


def _terminated(f: dict, message: str, lowered: str, level: str, logger: str, line: int,
                when: str) -> dict | None:
    named = message[13:].strip()
    if lowered.startswith("deleted node ") and " " not in named and _node_like(named):  # v0.3-v0.4: "Deleted node %s"
        return {"line": line, "time": when, "level": level, "kind": "node_terminated", "node": named}
    if lowered.startswith("terminated instance "):  # v0.3.0-v0.3.3's termination controller: "Terminated instance %s"
        instance = message[20:].strip()
        if " " not in instance and _node_like(instance):
            return {"line": line, "time": when, "level": level, "kind": "node_terminated", "node": instance}
    if lowered not in ("deleted node", "deleted nodeclaim", "deleted machine"):
        return None
    return _present({"line": line, "time": when, "level": level, "kind": "node_terminated",
                     "node": _name(f, "Node", "node"),
                     "nodeclaim": _name(f, "NodeClaim", "nodeclaim", "Machine", "machine"),
                     "deleted": "node" if lowered == "deleted node" else "nodeclaim"})


# v0.2x-v0.3x's machine lifecycle wrapped the cloud provider's error as "creating machine, %w"
# (pkg/controllers/machine/lifecycle/launch.go at v0.29)
_LAUNCH_ERRORS = ("launching machine", "launching nodeclaim", "launching node", "creating instance",
                  "creating cloud provider instance", "insufficient capacity", "creating machine")
_LAUNCH_ERRORS_WRAPPED = tuple(f"{words}, " for words in _LAUNCH_ERRORS)
# v0.4's allocator: "launching 1 instance(s), with fleet error(s), ..."
_LAUNCHING_INSTANCES = re.compile(r"launching \d+ instance\(s\), ")


def _launch_failed(f: dict, message: str, lowered: str, level: str, logger: str, line: int,
                   when: str) -> dict | None:
    """``failed launching nodeclaim`` (v1), ``Could not launch ...``, controller-runtime's ``Reconciler error``
    whose error is a launch, an ICE'd offering, or an error-level line that is the cloud provider's error
    itself (v0.2x-v0.3x lifecycle controllers)."""
    error_field = f.get("error") if isinstance(f.get("error"), str) else ""
    pool = _name(f, "NodePool", "nodepool", "Provisioner", "provisioner")
    if lowered.startswith(("failed launching", "could not launch")):
        error = error_field or message.split(", ", 1)[-1]
    elif lowered == "reconciler error" and (error_field.lower().startswith(_LAUNCH_ERRORS)
                                            or _LAUNCHING_INSTANCES.match(error_field)):
        error = error_field
        if pool is None and f.get("reconciler kind") == "Provisioner" and type(f.get("name")) is str:
            pool = f["name"]   # v0.4's allocator: controller-runtime names the Provisioner it reconciled
    elif lowered.startswith("provisioning failed, ") and lowered[21:].startswith(_LAUNCH_ERRORS_WRAPPED):
        error = message[21:].split(", ", 1)[-1]   # v0.5-v0.16: "Provisioning failed, %s" over "launching node, %w"
    elif lowered.startswith("insufficientinstancecapacity for offering"):
        error = message
    elif level == "error" and lowered.startswith(_LAUNCH_ERRORS):
        error = message
    elif not level and lowered.startswith(_LAUNCH_ERRORS_WRAPPED):  # a line pasted from its logger on: Go's
        error = message                                             # "launching node, %w" is the error's wrap
    else:
        return None
    return _present({"line": line, "time": when, "level": level, "kind": "launch_failed",
                     "nodeclaim": _name(f, "NodeClaim", "nodeclaim", "Machine", "machine"),
                     "nodepool": pool, "error": error})


_LIMITED = re.compile(r'(?:for (?:nodepool|provisioner)[: ]*"?([\w.-]+)"?|NodePool=([\w.-]+))')


def _limits(f: dict, message: str, lowered: str, level: str, logger: str, line: int,
            when: str) -> dict | None:
    """A NodePool's limits reached (v1.9+ ``node limits have been exhausted for nodepool``)."""
    if not lowered.startswith(("node limits have been exhausted", "all available instance types exceed limits")):
        return None
    named = _LIMITED.search(message)
    pool = _name(f, "NodePool", "nodepool", "Provisioner", "provisioner") or \
        (named and (named.group(1) or named.group(2)))
    out = {"line": line, "time": when, "level": level, "kind": "limits_exceeded"}
    if pool:
        out["nodepool"] = pool
    return out


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


def _interruption(f: dict, message: str, lowered: str, level: str, logger: str, line: int,
                  when: str) -> dict | None:
    """The AWS provider's interruption controller: an offering marked unavailable, a node deleted for a message."""
    if lowered.startswith("removing offering from offerings"):
        # also logged when a launch hits InsufficientInstanceCapacity: that is not an interruption. Its
        # "reason" is what marked the offering: the EC2 error code after a launch, the message's kind
        # ("SpotInterruptionKind", messages.Kind) when the interruption controller did (cache.MarkUnavailable)
        reason = f.get("reason")
        by_message = type(reason) is str and reason.endswith("Kind")
        if not (f.get("messageKind") or f.get("message-kind") or "interruption" in logger
                or f.get("controller") == "interruption" or by_message):
            return None
        action = "remove_offering"
        if by_message and not (f.get("messageKind") or f.get("message-kind")):
            f = {**f, "messageKind": reason}
    elif "from interruption message" in lowered and ("delete" in lowered or "cordon" in lowered):
        action = _ACTIONS.get(str(f.get("action", "")).lower(), "delete")
    else:
        return None
    return _present({"line": line, "time": when, "level": level, "kind": "interruption",
                     "node": _name(f, "Node", "node"),
                     "nodeclaim": _name(f, "NodeClaim", "nodeclaim", "Machine", "machine"),
                     "message_kind": message_kind(f.get("messageKind") or f.get("message-kind")), "action": action})


# "Consolidation rejected: COMMAND, reason: WHY (savings: $X)". COMMAND is "delete: [a]" (v1.9), or from v1.10
# "Underutilized/ID: replace: nodepools=[p]: [a] -> [1 replacement] (savings: $X)" (a single node's command in
# full), or "delete: [a] (part of N-node consolidation)". WHY: the validation failure's class, budget,
# scheduling, churn or unknown (pkg/controllers/disruption/validation.go, v1.9+).
_CONSOLIDATION_EVENT = re.compile(r"^consolidation (candidate|rejected): (?:(\w+)/[^:\s]*: )?(\w+): "
                                  r"(?:nodepools=\[([^\]]*)\]: )?\[([^\]]*)\]"
                                  r"(?:.*?, reason: ([^(]+?)(?= \(|$))?", re.I)


def consolidation_message(message: str) -> dict | None:
    """The text of ConsolidationCandidate/ConsolidationRejected events (v1.9+):
    ``Consolidation rejected: delete: [node-a], reason: scheduling (savings: $0.11)``."""
    match = _CONSOLIDATION_EVENT.match(message)
    if match is None:
        return None
    which, method, action, pools, names, reason = match.groups()
    nodes = [n.strip() for n in names.split(",") if n.strip()]
    out: dict = {"kind": f"consolidation_{which.lower()}", "nodes": nodes}
    if len(nodes) == 1:
        out["node"] = nodes[0]
    if reason:
        out["reason"] = reason.strip()
    if method:
        out["method"] = _method(method)
    if action.lower() in ("delete", "replace"):
        out["action"] = action.lower()
    if pools:
        out["nodepools"] = [p.strip() for p in pools.split(",") if p.strip()]
    return out


def _consolidation(f: dict, message: str, lowered: str, level: str, logger: str, line: int,
                   when: str) -> dict | None:
    if lowered == "consolidation score":
        return _score(f, level, line, when)
    found = consolidation_message(message)
    return None if found is None else {"line": line, "time": when, "level": level, **found}


def _number(value: object) -> float | None:
    return value if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _score(f: dict, level: str, line: int, when: str) -> dict:
    """Balanced consolidation's V(1) ``consolidation score`` (v1.14+), one line per NodePool a move
    touches: the score against its threshold (savings share over disruption share, scaled by k)."""
    out = {"line": line, "time": when, "level": level, "kind": "consolidation_score",
           "nodepool": _name(f, "nodepool", "NodePool")}
    for key in ("score", "threshold", "savings_fraction", "disruption_fraction", "savings", "disruption_cost"):
        out[key] = _number(f.get(key))
    out["k"] = f["k"] if type(f.get("k")) is int else None
    out["approved"] = f["approved"] if type(f.get("approved")) is bool else None
    decision = f.get("decision")
    out["decision"] = decision.lower() if isinstance(decision, str) and decision else None
    candidates = f.get("candidates")
    if isinstance(candidates, list):
        out["nodes"] = [c for c in candidates if isinstance(c, str) and c]
    elif isinstance(candidates, str):  # a log store that flattened the list
        out["nodes"] = [c.strip() for c in candidates.strip("[]").split(",") if c.strip()]
    return _present(out)


_GARBAGE = re.compile(r"^garbage collecting (?:machine|nodeclaim)\s+with no cloudprovider representation")


def _garbage(f: dict, message: str, lowered: str, level: str, logger: str, line: int,
             when: str) -> dict | None:
    """``garbage collecting nodeclaim with no cloudprovider representation`` (``machine`` in v0.2x-v0.3x; a
    debug line): the garbage-collection controller deleted a NodeClaim whose instance the cloud provider no
    longer has (terminated outside Karpenter), counted in Karpenter's disrupted-NodeClaims metric under the
    reason ``garbage_collected`` (kubernetes-sigs/karpenter v1.9.0
    pkg/controllers/nodeclaim/garbagecollection/controller.go). Still ``other``: it is how a NodeClaim went,
    which :func:`garbage_collected` tells the history."""
    if _GARBAGE.match(lowered) is None:
        return None
    return _present({"line": line, "time": when, "level": level, "kind": "other", "message": message,
                     "nodeclaim": _name(f, "NodeClaim", "nodeclaim", "Machine", "machine"),
                     "node": _name(f, "Node", "node"),
                     "nodepool": _name(f, "NodePool", "nodepool", "Provisioner", "provisioner"),
                     "provider_id": f.get("provider-id") if type(f.get("provider-id")) is str else None,
                     "reason": "garbage_collected"})


def garbage_collected(event: dict) -> bool:
    """Whether an ``other`` event says its NodeClaim was deleted for having no instance behind it."""
    return event.get("reason") == "garbage_collected" and bool(event.get("nodeclaim") or event.get("node"))


def drain_begins(event: dict) -> bool:
    """Whether an ``other`` event is the start of a node's drain: the termination controller's ``tainted node``
    (karpenter.sh/disrupted, v1; the taint is not always printed) or ``cordoned node`` (before v1), never the
    ``annotated nodeclaim`` that precedes it. The history's owner of that rule (docs/history.md, ``drained``);
    whose drain it is, the line's names say (an author may have cut them: then the lines around it do)."""
    message = event.get("message")
    if type(message) is not str:
        return False
    lowered = message.lower()
    return lowered == "tainted node" or lowered.startswith("cordoned node")


def _marked(f: dict, message: str, lowered: str, level: str, logger: str, line: int,
            when: str) -> dict | None:
    """``tainted node`` (v1: karpenter.sh/disrupted), ``cordoned node`` (before v1) and ``annotated nodeclaim``
    (its termination timestamp): still ``other``, with the node or NodeClaim they concern and the taint or
    annotation, so a NodeClaim's history can say when its drain began. Some v0.1x builds put the node's name in
    the message (``Cordoned node ip-10-1-2-3.ec2.internal``), as v0.3-v0.4 did for ``Deleted node``."""
    named = message[14:].strip() if lowered.startswith("cordoned node ") else ""
    if lowered not in ("tainted node", "cordoned node", "annotated nodeclaim") and not (
            named and " " not in named and _node_like(named)):
        return None
    out = {"line": line, "time": when, "level": level, "kind": "other", "message": message,
           "node": named or _name(f, "Node", "node"), "nodeclaim": _name(f, "NodeClaim", "nodeclaim")}
    key = f.get("taint.Key")
    if type(key) is str:
        out["taint"] = f"{key}:{f.get('taint.Value') or ''}:{f.get('taint.Effect') or ''}"
    stamp = f.get("karpenter.sh/nodeclaim-termination-timestamp")
    if type(stamp) is str:
        out["annotation"] = f"karpenter.sh/nodeclaim-termination-timestamp:{stamp}"
    return _present(out)


# Extractors by the message's first word (lowercased): a dict lookup instead of trying
# every pattern on every line, which matters at 50 MB/s.
# v0.20's consolidation logged why a node stayed (karpenter-core's deprovisioning, before the Unconsolidatable
# event of v0.3x told the same): "node NAME can't be consolidated, REASON"
_CANT_CONSOLIDATE = re.compile(r"^node (\S+) can't be consolidated, (.+)$")


def _cant_consolidate(f: dict, message: str, lowered: str, level: str, logger: str, line: int,
                      when: str) -> dict | None:
    if "can't be consolidated, " not in lowered:
        return None
    match = _CANT_CONSOLIDATE.match(message)
    if match is None:
        return None
    return {"line": line, "time": when, "level": level, "kind": "unconsolidatable", "node": match.group(1),
            "reason": match.group(2)}


def _command_copy(f: dict, message: str, lowered: str, level: str, logger: str, line: int,
                  when: str) -> dict | None:
    """``command: REASON/ID: DECISION: nodepools=[...]: [nodes] ...``: an author's copy of one field of a v1.10+
    ``disrupting node(s)`` record, the command text alone (a fork's reason word is kept as method ``other``).
    Only the whole shape, NodePools and nodes included, is taken: "command:" alone begins much prose."""
    text = message[len("command:"):].strip().strip('"')
    command = _COMMAND.match(text)
    if command is None or command.group(3) is None or command.group(4) is None or \
            command.group(2).lower() not in ("delete", "replace"):
        return None
    return _structured_disruption({"command": text}, level, line, when)


BY_FIRST_WORD = {
    "could": (_unschedulable, _launch_failed),
    "ignoring": (_unschedulable_v06,),
    "unable": (_unschedulable_v06,),
    "scheduling": (_unschedulable_v06,),
    "failed": (_unschedulable, _launch_failed),
    "found": (_provisionable,),
    "allocating": (_allocating,),
    "computed": (_computed,),
    "scheduled": (_computed,),
    "successfully": (_computed,),
    "created": (_created,),
    "creating": (_created, _launch_failed),
    "launching": (_created, _launch_failed),
    "insufficient": (_launch_failed,),
    "provisioning": (_launch_failed,),
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
    "terminated": (_terminated,),
    "deleting": (_repair,),
    "removing": (_interruption,),
    "initiating": (_interruption,),
    "node": (_limits, _cant_consolidate),
    "consolidation": (_consolidation,),
    "all": (_limits,),
    "incompatible": (_bare_error,),
    "no": (_scheduler_error_v09,),
    "tainted": (_marked,),
    "cordoned": (_marked,),
    "annotated": (_marked,),
    "garbage": (_garbage,),
    "command:": (_command_copy,),
}


def classify(record: Record) -> dict:
    """The event for one record (see :func:`classify_message`)."""
    if record.preset is not None:
        return {"line": record.line, "time": record.time, "level": record.level, **record.preset}
    return classify_message(record.message, record.fields, record.level, record.logger, record.line, record.time)


def classify_message(message: str, fields: dict, level: str, logger: str, line: int, when: str) -> dict:
    """The event for one log line (``line``, ``time``, ``level``, then what the message says):
    the extractor for its message's first word decides; none that matches means ``other``.

    Takes the line's parts rather than a Record so that the parser's path for a plain zap
    line (nearly every line) builds no Record, and each extractor builds the whole event in
    one dict literal: merging a partial result into a second dict cost a tenth of a line's time."""
    known = _DISPATCH.get(message) if len(message) <= _DISPATCH_TEXT else None  # never hash a long one
    if known is None:
        known = _dispatch(message)
    lowered, extractors = known
    for extract in extractors:
        found = extract(fields, message, lowered, level, logger, line, when)
        if found is not None:
            return found
    if extractors:  # one of Karpenter's first words, but no whole template: maybe one cut short
        cut = _cut_template(fields, lowered, level, line, when)
        if cut is not None:
            return cut
    out = {"line": line, "time": when, "level": level, "kind": "other", "message": message}
    if message == "Reconciler error":   # a NodeClaim controller's error names the NodeClaim it was reconciling
        claim = _name(fields, "NodeClaim", "Machine")
        if claim:
            out["nodeclaim"] = claim
    elif lowered[:1] in "ar" and lowered in _EMPTINESS_TTL:   # v0.5-v0.2x: the node whose emptiness TTL it is
        node = _name(fields, "node", "Node")
        if node:
            out["node"] = node
    elif lowered.startswith("added ttl to nodes ") and " " not in message[19:].strip():
        out["node"] = message[19:].strip()   # a pre-v0.2 development build's reallocator names it in the message
    return out


# v0.5-v0.2x's node controller on an empty node's TTL (pkg/controllers/node/emptiness.go): ``other``, with the node
_EMPTINESS_TTL = ("added ttl to empty node", "removed emptiness ttl from node")


# Karpenter's own messages that have no kind of their own (``other``) but are distinctive enough that the
# message alone -- a paste that kept only the message column, a braceless fragment, a quote in prose -- is
# Karpenter's line, of every era: v0.5-v0.2x provisioning ("Batched N pod(s) in 1.0s", from v0.10.1
# "N pod(s) will schedule against new capacity, M pod(s) against existing capacity", v0.5-v0.16's error
# "Provisioning failed, ERROR"), the v0.5-v0.2x
# emptiness TTL and discovery lines, v1's "waiting on cluster sync", the AWS provider's v1.6+ "failed while
# checking on-demand fallback", the drain's start (``_marked``: tainted node, cordoned node, annotated
# nodeclaim) and the leader lease taken. Sources: aws/karpenter-provider-aws pkg/controllers/provisioning, pkg/controllers/node
# (v0.5-v0.16), pkg/cloudprovider/aws (v0.5-v0.16), pkg/providers/instance/instance.go (v1.6);
# kubernetes-sigs/karpenter pkg/controllers/provisioning (v0.32-v1.x).
_OTHER_TEMPLATES = re.compile(
    r"^(?:batched \d+ pods?(?:\(s\))? in \S+$|\d+ pod\(s\) will schedule against new capacity"
    r"|" + "|".join(f"{text}$" for text in _EMPTINESS_TTL) + r"|relaxing soft constraints for pod"
    r"|waiting for unschedulable pods$|discovered (?:subnets|security groups|kubernetes version"
    r"|ec2 instance types zonal offerings)|(?:created|deleted) launch template"
    r"|waiting on cluster sync$|failed while checking on-demand fallback$|provisioning failed, "
    r"|tainted node$|cordoned node$|annotated nodeclaim$|removing offering from offerings$"
    # v1's NodeClaim disruption controller (nodeclaim/disruption/consolidation.go) at V(1)
    r"|marking consolidatable$|removing consolidatable status condition"
    # errors logged as the message (or pasted alone) in Karpenter's words: the orchestration queue's, the AMI
    # provider's SSM lookup (v0.3x-v1.x), the provisioner's failed NodeClaim create (v0.32-v1.x, provisioner.go),
    # cluster state's volume usage (v0.2x-v0.3x, scheduling/volumeusage.go)
    r"|failed to disrupt nodes, |discovering amis from ssm, |creating node claim, "
    # the disruption controller's error with its method quoted (v0.2x-v0.3x): no command was taken
    r"|deprovisioning via \"\w+\", "
    r"|inconsistent state error adding volume, "
    # the AWS provider's pricing refresh (v0.2x-v1.x, providers/pricing) and the Azure provider's credential
    # helper renewing its token, both pasted as the message alone
    r"|updated on-demand pricing$|adjusting token expireson$"
    r"|garbage collecting (?:machine|nodeclaim)\s+with no cloudprovider representation$"
    # client-go's leader election in Karpenter's output, read as other for the lease (docs/logs-jsonl.md)
    r"|attempting to acquire leader lease|successfully acquired lease)")


def known(found: dict) -> bool:
    """Whether a classified message is one of Karpenter's templates: a kind of its own, or an ``other``
    whose words are Karpenter's (the test for a message that reached us without its log line's head)."""
    return found["kind"] != "other" or _OTHER_TEMPLATES.match(found.get("message", "").lower()) is not None


# The words that begin a template and no other line, of every era (not the disruption controller's error,
# ``deprovisioning via "consolidation", ERR`` (v0.2x-v0.3x, the method quoted): no command was taken): a message cut after them (the paste
# ended, the author wrote "...", a viewer's column was too narrow) is still that template's line, with
# only what survived the cut. Tried only once the whole templates have failed.
_CUT_HEADS = re.compile(
    r"^(?:(?P<launched>launched instance: (?P<instance>[^,\s]+(?=,))?(?:, hostname: (?P<host>[^,\s]+)(?=,|$))?)"
    r"|(?P<created>(?:created|launching) (?:node|machine|nodeclaim) with\b|creating \d+ node\(s\) with\b)"
    r"|(?P<computed>computed (?:\d+ new|new|packings?)\b)"
    r"|(?P<disruption>(?:deprovisioning|disrupting|consolidating) via\b(?! \")(?: (?P<method>\w+))?"
    r"|triggering termination\b)"
    r"|(?P<unschedulable>could not schedule\b)"
    r"|(?P<interruption>initiating delete\b|deleted node from\b))")
_CUT_KINDS = {"launched": "nodeclaim_launched", "created": "nodeclaim_created", "computed": "nodeclaims_computed",
              "disruption": "disruption", "unschedulable": "pod_unschedulable", "interruption": "interruption"}


def _cut_template(f: dict, lowered: str, level: str, line: int, when: str) -> dict | None:
    match = _CUT_HEADS.match(lowered)
    if match is None:
        return None
    which = next(name for name in _CUT_KINDS if match.group(name))
    out = {"line": line, "time": when, "level": level, "kind": _CUT_KINDS[which]}
    if which == "launched" and match.group("instance"):
        out["provider_id"] = match.group("instance")
        host = match.group("host")
        # the hostname (the node, so the NodeClaim of that era) when it is whole: a comma after it, or the
        # line ends on a whole EC2 name (".internal"), not inside one
        if host and _node_like(host) and (lowered[match.end():match.end() + 1] == "," or host.endswith(".internal")):
            out["nodeclaim"] = host
    elif which == "created":
        pool = _name(f, "provisioner", "nodepool", "Provisioner", "NodePool")
        if pool:
            out["nodepool"] = pool
    elif which == "interruption":  # only the interruption controller deletes "from" a message
        out.update(action=_ACTIONS.get(str(f.get("action", "")).lower(), "delete"))
        for key, name in (("node", _name(f, "Node", "node")),
                          ("nodeclaim", _name(f, "NodeClaim", "nodeclaim", "Machine", "machine"))):
            if name:
                out[key] = name
    elif which == "disruption":
        method = match.group("method")
        if method in _METHODS:
            out["method"] = method
        elif lowered.startswith("triggering"):
            out["method"] = "expiration" if "expired" in lowered else "emptiness"
            out["action"] = "delete"
    return out


# Most messages are one of a few dozen fixed texts (v1 puts the details in fields), so each short
# message's lowercase form and extractors are remembered; long ones carry names and are not.
_DISPATCH: dict[str, tuple[str, tuple]] = {}
_DISPATCH_SIZE, _DISPATCH_TEXT = 4096, 64
_ELLIPSIS_ENDS = (".", "…")


def _dispatch(message: str) -> tuple[str, tuple]:
    lowered = message.lower()
    if lowered[-1:] in _ELLIPSIS_ENDS and lowered.endswith(("...", "…")):
        # a message the author cut ("deprovisioning via consolidation replace ..."): read for what is left.
        # Only the end goes, so positions found in ``lowered`` stay those of ``message``.
        lowered = lowered.rstrip(" .…")
    space = lowered.find(" ")
    known = (lowered, BY_FIRST_WORD.get(lowered[:space] if space >= 0 else lowered, ()))
    if len(message) <= _DISPATCH_TEXT:
        if len(_DISPATCH) >= _DISPATCH_SIZE:
            _DISPATCH.clear()
        _DISPATCH[message] = known
    return known


def _present(found: dict) -> dict:
    """Fields the line did not carry are left out. Each extractor calls this where a field may be
    missing (the common extractors only when one is: scanning every value costs more than a
    line's dispatch)."""
    return {k: v for k, v in found.items() if v is not None} if None in found.values() else found
