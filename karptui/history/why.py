""""Why did node X go": one answer per NodeClaim, from the lines that concern it."""

from __future__ import annotations

from .life import Life
from .times import span_text, stamp

_METHODS = {"consolidation": "consolidation", "underutilized": "consolidation (underutilized)",
            "emptiness": "consolidation (empty)", "drift": "drift", "expiration": "expiration",
            "repair": "node repair (unhealthy)", "other": "a disruption"}
_INTERRUPTIONS = {"spot_interruption": "a spot interruption warning", "rebalance_recommendation":
                  "a rebalance recommendation", "scheduled_change": "a scheduled change (AWS Health event)",
                  "instance_state_change": "the instance stopping or terminating", "noop": "a message needing no action",
                  "unknown": "an interruption message"}


def _at(when) -> str:
    return f" at {stamp(when)}" if when is not None else ""


def why(life: Life) -> str:
    """The answer, in sentences built only from what the lines said; unknowns are said to be unknown."""
    who = life.nodeclaim + (f" (node {life.node})" if life.node and life.node != life.nodeclaim else "")
    parts = []
    d, i = life.disruption, life.interruption
    if d is not None:
        what = f"{who} was disrupted by {_METHODS.get(d.method, d.method)}"
        if d.action:
            what += f", {d.action}"
        what += _at(d.time)
        if d.command_id:
            what += f" (command {d.command_id})"
        if d.others:
            what += f", with {len(d.others)} other node(s) in the same command: {', '.join(d.others)}"
        if d.pod_count is not None:
            what += f"; {d.pod_count} pod(s) on the command's nodes"
        parts.append(what)
        if life.replaced_by:
            parts.append(f"replaced by {', '.join(life.replaced_by)}")
        elif d.action == "replace":
            parts.append("its replacement's creation is not in the log")
    elif i is not None:
        action = {"cordon_and_drain": "cordoned and drained it", "delete": "deleted it",
                  "remove_offering": "marked its offering unavailable", "none": "took no action"}.get(i.action, i.action)
        parts.append(f"{who} went after {_INTERRUPTIONS.get(i.message_kind, i.message_kind)}{_at(i.time)}: "
                     f"the interruption controller {action}")
    elif "garbage_collected" in life.steps:
        parts.append(f"{who} was garbage-collected{_at(life.garbage_collected)}: its instance was no longer in the "
                     "cloud provider (terminated outside Karpenter), so Karpenter deleted the NodeClaim; not a "
                     "disruption")
    elif "terminated" in life.steps:
        parts.append(f"{who} was deleted{_at(life.terminated)}, and no line in the input says why (a deletion by "
                     "hand, an expiry or disruption logged before the input starts, or a line the log lost)")
    elif life.launch_failures and "launched" not in life.steps:
        when, error = life.launch_failures[-1]
        parts.append(f"{who} never launched: {error}{_at(when)}")
    else:
        return f"{who} did not go: still running at the end of the input" + (
            f" ({', '.join(life.steps)} logged)" if life.steps else "") + "."
    if life.drained is not None:
        parts.append(f"drain began{_at(life.drained)}")
    if "terminated" in life.steps and (d is not None or i is not None):
        gone = f"gone{_at(life.terminated)}"
        if life.disrupt_to_gone is not None:
            gone += f", {span_text(life.disrupt_to_gone)} after the decision"
        parts.append(gone)
    elif d is not None or i is not None:
        parts.append("not yet gone at the end of the input")
    if life.lived is not None:
        parts.append(f"it lived {span_text(life.lived)}")
    for when, event, reason in life.blocked[:3]:
        parts.append(f"earlier, {event}{_at(when)}: {reason}")
    return "; ".join(parts) + "."


def answer(life: Life) -> dict:
    """``--node X --output json``: the sentence and the facts it was made from."""
    return {"nodeclaim": life.nodeclaim, "node": life.node or None, "why": why(life), "end": life.end_reason,
            "life": life.to_dict()}
