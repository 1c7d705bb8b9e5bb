"""The decision audit: would karptui have taken each disruption command Karpenter logged?

For a decision at time T, the cluster is a snapshot captured at or before T brought forward by what the
log says happened between the capture and T (:mod:`.state_at`); karptui's own disruption simulation
(``simulate(consolidate=True)``, the run of ``karptui simulate --consolidate`` and the Disruption pane)
runs on it with its clock at T, so budgets' schedules and consolidateAfter count as they did then. Its
first command is what Karpenter would have done at T; the answer compares the two (docs/history.md,
"Decision audit"). Where the state at T is not known well enough, the answer is ``unknown`` and says
why, never a guess. Headless: no Textual, no Kubernetes client.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime

from ..catalog import Catalog
from ..model import Snapshot
from ..sim.karpenter.disruption.candidates import reschedulable
from ..sim.karpenter.disruption.verdicts import BLOCKED, KEPT, SKIPPED, WAITING
from .life import Life
from .prices import price
from .state_at import Forward, Recorded, StateAt, moment
from .timeline import Timeline
from .times import stamp

AGREES, DISAGREES, UNKNOWN = "agrees", "disagrees", "unknown"
# the most decisions one run simulates (each is a whole simulation of the cluster): the rest are unknown
MAX_SIMULATED = 200

# Karpenter's method as the log reader names it -> the reasons karptui's commands give for it. Before v1
# consolidation deleted empty nodes under its own name ("consolidation delete"), so it takes both.
_REASONS = {"emptiness": ("empty",), "underutilized": ("underutilized",), "consolidation": ("empty", "underutilized"),
            "drift": ("drifted",), "repair": ("unhealthy",)}
# and the simulation's method whose verdict on a node says why karptui's does not take it
_VERDICT_OF = {"emptiness": "emptiness", "drift": "drift", "repair": "repair"}
_NOT_SIMULATED = {"expiration": "expiration is no disruption method karptui simulates (since v1 the NodeClaim's "
                                "own controller deletes an expired NodeClaim, outside budgets)",
                  "other": "the log does not say which disruption method decided"}


@dataclass(frozen=True)
class Decision:
    """One disruption command as Karpenter logged it: its nodes (node names; a NodeClaim's name when the
    line names no node), their NodeClaims, and the NodeClaims created as its replacements."""

    time: datetime | None
    method: str
    action: str
    command_id: str
    nodes: tuple[str, ...]
    nodeclaims: tuple[str, ...]
    pod_count: int | None
    replacements: tuple[str, ...]
    line: str

    def to_dict(self) -> dict:
        return {"time": stamp(self.time), "method": self.method, "action": self.action or None,
                "command_id": self.command_id or None, "nodes": list(self.nodes),
                "nodeclaims": list(self.nodeclaims), "pod_count": self.pod_count,
                "replacements": list(self.replacements), "line": self.line}


@dataclass(frozen=True)
class Audit:
    """karptui's answer on one decision: ``verdict`` (agrees, disagrees, unknown) and ``why``, in words
    an operator reads; ``karptui`` is what its simulation would do at that moment ("" when it did not run);
    ``state`` how the cluster at the decision was known."""

    decision: Decision
    verdict: str
    why: str
    karptui: str = ""
    state: str = ""

    def to_dict(self) -> dict:
        return {"decision": self.decision.to_dict(), "verdict": self.verdict, "why": self.why,
                "karptui": self.karptui or None, "state": self.state or None}


def decisions(lives: Iterable[Life]) -> list[Decision]:
    """Every disruption command of the history, once, in time order (a command's line is its identity)."""
    found: dict[str, list[Life]] = {}
    for life in lives:
        if life.disruption is not None:
            found.setdefault(life.disruption.line, []).append(life)
    out = []
    for line, group in found.items():
        d = group[0].disruption
        out.append(Decision(d.time, d.method, d.action, d.command_id, tuple(life.node or life.nodeclaim for life in group),
                            tuple(life.nodeclaim for life in group if life.nodeclaim != life.node), d.pod_count,
                            d.replacements, line))
    out.sort(key=lambda d: (d.time is None, d.time or datetime.min, d.line))
    return out


def audit(snapshot: Snapshot, timeline: Timeline, catalog: Catalog, *, gates=None,
          since: datetime | None = None, until: datetime | None = None,
          progress: Callable[[str, int, int], None] | None = None, recorded: Recorded | None = None) -> tuple[Audit, ...]:
    """Each decision of ``timeline`` (within ``since``..``until``) against karptui's simulation at its time.
    ``timeline`` is the whole input's (what happened before the window brings the state forward);
    ``catalog`` prices both sides, as ``simulate`` would (discounts applied); ``progress("decision N of M",
    0, 0)`` before each decision (the shape of ``simulate``'s progress, no pod counts). ``recorded``: when
    ``snapshot`` is a recording's newest state, the recording's own state at each decision instead."""
    chosen = [d for d in decisions(timeline.lives)
              if d.time is None or ((since is None or d.time >= since) and (until is None or d.time <= until))]
    out = []
    simulated = 0
    forward = recorded if recorded is not None else Forward(snapshot, timeline, catalog)
    for number, decision in enumerate(chosen):
        if progress is not None:
            progress(f"decision {number + 1} of {len(chosen)}", 0, 0)
        if decision.method in _NOT_SIMULATED:
            out.append(Audit(decision, UNKNOWN, f"not audited: {_NOT_SIMULATED[decision.method]}"))
            continue
        if not snapshot.nodepools:
            out.append(Audit(decision, UNKNOWN, "the snapshot holds no NodePool (or Provisioner): karptui has no "
                                                "Karpenter configuration to simulate"))
            continue
        state = forward.at(decision.time, decision.nodes)
        if state.unknown:
            out.append(Audit(decision, UNKNOWN, state.unknown, state=state.described))
            continue
        if simulated >= MAX_SIMULATED:
            out.append(Audit(decision, UNKNOWN, f"not simulated: one audit simulates at most {MAX_SIMULATED} "
                                                "decisions (narrow it with --since/--until)", state=state.described))
            continue
        simulated += 1
        out.append(_judge(decision, state, timeline, catalog, gates))
    return tuple(out)


def _judge(decision: Decision, state: StateAt, timeline: Timeline, catalog: Catalog, gates) -> Audit:
    from ..sim import simulate

    result = simulate(state.snapshot, catalog=catalog, consolidate=True, gates=gates)
    mine = set(decision.nodes)
    reasons = _REASONS[decision.method]
    commands = list(result.disruptions)
    first = commands[0] if commands else None
    doing = _command_words(first) if first is not None else "karptui would disrupt nothing"
    at = moment(decision.time)
    said = _pods_said(decision, result, state.snapshot)
    if first is not None and set(first.nodes) == mine and first.reason in reasons:
        if first.action != (decision.action or first.action):
            return Audit(decision, DISAGREES, f"karptui would {first.action} rather than {decision.action} "
                                              f"at {at}: {doing}" + said, doing, state.described)
        if first.action == "replace":
            return _replacement(decision, first, timeline, catalog, doing, state)
        return Audit(decision, AGREES, f"karptui takes the same command at {at}: {doing}" + said, doing, state.described)
    if first is not None and set(first.nodes) == mine:
        return Audit(decision, DISAGREES, f"karptui takes the same node(s) at {at}, but as {first.reason}, not "
                                          f"{decision.method}: {doing}" + said, doing, state.described)
    later = next((n for n, c in enumerate(commands, 1) if set(c.nodes) == mine and c.reason in reasons), None)
    if first is not None and later is not None:
        return Audit(decision, DISAGREES, f"karptui would pick {', '.join(first.nodes)} first ({doing}); it takes "
                                          f"Karpenter's command as its #{later}" + said, doing, state.described)
    if first is not None and first.reason in reasons and mine & set(first.nodes):
        # the same kind of command over other nodes as well, or over fewer of them
        why = [f"karptui's command at {at} is {doing}"]
        extra = [n for n in first.nodes if n not in mine]
        if extra:
            why.append(f"it also takes {', '.join(extra)}")
        why += [_not_taken(node, decision, result, state.snapshot, at) for node in decision.nodes
                if node not in first.nodes]
        return Audit(decision, DISAGREES, "; ".join(why) + said, doing, state.described)
    why = [_not_taken(node, decision, result, state.snapshot, at) for node in decision.nodes]
    if first is not None:
        why.append(f"karptui's first command is {doing}")
    return Audit(decision, DISAGREES, "; ".join(why) + said, doing, state.described)


def _replacement(decision: Decision, mine, timeline: Timeline, catalog: Catalog, doing: str, state: StateAt) -> Audit:
    """Same nodes, both replace: the same type, or one no cheaper than Karpenter's, agrees."""
    ours = mine.replacement
    at = moment(decision.time)
    launched = [life for name in decision.replacements if (life := timeline.life(name)) is not None
                and life.instance_type]
    if not launched:
        return Audit(decision, AGREES, f"karptui takes the same command at {at} ({doing}); the replacement's "
                                       "launch is not in the log, so its type is not compared", doing, state.described)
    theirs = launched[0]
    if ours is None or theirs.instance_type == ours.instance_type:
        return Audit(decision, AGREES, f"karptui takes the same command at {at}: {doing}", doing, state.described)
    their_price = price(catalog, theirs.instance_type, theirs.zone, theirs.capacity_type)[0]
    if ours.price is None or their_price is None:
        unpriced = theirs.instance_type if their_price is None else ours.instance_type
        return Audit(decision, UNKNOWN, f"karptui replaces the same node(s) at {at} but by {ours.instance_type}, "
                                        f"Karpenter by {theirs.instance_type}; the catalog has no price for "
                                        f"{unpriced}, so which is cheaper is not known", doing, state.described)
    if ours.price < their_price - 1e-6:
        return Audit(decision, DISAGREES, f"a cheaper replacement existed: {ours.instance_type} {ours.capacity_type} "
                                          f"in {ours.zone} at ${ours.price:.4f}/h (Karpenter launched "
                                          f"{theirs.instance_type} at ${their_price:.4f}/h)", doing, state.described)
    return Audit(decision, AGREES, f"karptui takes the same command at {at}; Karpenter's {theirs.instance_type} at "
                                   f"${their_price:.4f}/h is no dearer than karptui's {ours.instance_type} at "
                                   f"${ours.price:.4f}/h", doing, state.described)


def _not_taken(node: str, decision: Decision, result, snapshot: Snapshot, at: str) -> str:
    """Why karptui's simulation leaves ``node`` at that moment, in the verdict's own words."""
    verdicts = result.verdicts.get(node)
    if verdicts is None:
        return f"karptui does not count {node} as a node Karpenter may disrupt"
    if verdicts.command > 1:
        return f"karptui takes {node} later, in its command #{verdicts.command}"
    method = _VERDICT_OF.get(decision.method) or ("multi" if len(decision.nodes) > 1 else "single")
    why = verdicts.of(method)
    if why is None or why.verdict not in (BLOCKED, KEPT, SKIPPED, WAITING):
        why = next((m.why for m in verdicts.methods if m.why.verdict in (BLOCKED, WAITING)), why)
    if why is None:
        return f"karptui would not disrupt {node}"
    if why.kind == "budget":
        return f"the budget allowed 0 at {at} for {node} ({why.detail})"
    if decision.method == "emptiness" and why.kind == "not-empty":
        return f"karptui finds {node} not empty: {len(_pods_on(result, snapshot, node))} pod(s)"
    return f"karptui would not disrupt {node}: {why.text}"


def _pods_on(result, snapshot: Snapshot, node: str) -> list:
    """The pods that would need a new home if ``node`` went, as the simulation placed them before
    disrupting (the snapshot's pending pods kube-scheduler bound there included)."""
    keys = [key for key, where in result.placements.items() if where == node]
    return reschedulable(snapshot.pod_by_key[k] for k in keys if k in snapshot.pod_by_key)


def _pods_said(decision: Decision, result, snapshot: Snapshot) -> str:
    """Karpenter's pod count for the command beside the state's, when they differ."""
    if decision.pod_count is None:
        return ""
    ours = sum(len(_pods_on(result, snapshot, node)) for node in decision.nodes)
    if ours == decision.pod_count:
        return ""
    return f" (Karpenter counted {decision.pod_count} pod(s) on its nodes, the state at the decision has {ours})"


def _command_words(d) -> str:
    """karptui's command as one phrase: action, nodes, reason, replacement, saving."""
    by = ""
    if d.action == "replace" and d.replacement is not None:
        r = d.replacement
        by = f" by {r.instance_type} {r.capacity_type} in {r.zone}" + (f" at ${r.price:.4f}/h" if r.price is not None
                                                                        else "")
    return f"{d.action} {', '.join(d.nodes)} ({d.reason}){by}, saving ${d.savings:.4f}/h"


def audit_json(audits: Iterable[Audit]) -> dict:
    """``history -o json``'s ``audit`` section: the counts, then each decision's answer."""
    audits = list(audits)
    counts = {v: sum(1 for a in audits if a.verdict == v) for v in (AGREES, DISAGREES, UNKNOWN)}
    return {**counts, "decisions": [a.to_dict() for a in audits]}


__all__ = ["AGREES", "DISAGREES", "UNKNOWN", "Audit", "Decision", "audit", "audit_json", "decisions"]
