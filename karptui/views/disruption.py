"""What Karpenter's disruption would do to each node, and what keeps the others, in plain words.

The simulator (``simulate(consolidate=True)``, the same run as ``karptui simulate
--consolidate``) gives its commands (delete, or replace by one cheaper node), the
nodes it may not touch (``blocked``, in Karpenter's DisruptionBlocked wording) and
the candidates single-node consolidation left (``unconsolidatable``: not cheaper,
pods with no place). Karpenter itself says the same things in DisruptionBlocked and
Unconsolidatable events and log lines; those are read beside the simulation, since a
snapshot's events may tell of a PDB that blocked a node when the simulation, on the
cluster as captured, finds it free.

Karpenter's reasons are sentences with the object in parentheses
(``PodDisruptionBudget=ns/name``, ``Pod=ns/name``). :func:`blocker` reads them once
here for the TUI and names the pods a PDB guards on the node with the model's own
rule (:meth:`PodDisruptionBudget.selects`). Headless: no Textual here.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from functools import cached_property

from ..model import Snapshot
from ..model import labels as L
from ..sim.karpenter.disruption import MAX_COMMANDS
from ..sim.karpenter.disruption.verdicts import METHOD_WORDS, NOT_REACHED, SKIPPED

SHOWN_PODS = 3  # pods named in a row; the rest counted

# Karpenter's reason wording (pkg/controllers/disruption, pkg/utils/pdb), case-insensitive: events
# capitalise the first word, the simulator does not.
_PDB = re.compile(r"PodDisruptionBudget=([^\s)\]]+)", re.IGNORECASE)
_PDBS = re.compile(r"PodDisruptionBudget\(s\)=\[([^\]]*)\]", re.IGNORECASE)
_POD = re.compile(r"\(Pod=([^)\s]+)\)", re.IGNORECASE)
_DO_NOT_EVICT = re.compile(r"^pod (\S+) has do not evict annotation", re.IGNORECASE)
_NODE_ANNOTATION = re.compile(r'blocked through the "([^"]+)" annotation', re.IGNORECASE)
_BUDGET = re.compile(r"disruption reason (\w+) due to blocking budget", re.IGNORECASE)
_NEW_NODES = re.compile(r"without creating (\d+) ", re.IGNORECASE)

DECISION, BLOCKED, KEPT = "decision", "blocked", "kept"
SAID_KINDS = ("disruption_blocked", "unconsolidatable")  # the log events in which Karpenter says it leaves a node
# what an operator put in the way (a PDB, an annotation, a budget); the rest is consolidation's own verdict
BLOCKING = frozenset({"pdb", "pdbs", "do-not-disrupt", "do-not-evict", "node-annotation", "budget"})


@dataclass(frozen=True)
class Blocker:
    """Why a node stays, in plain words (``words``) and as a short mark for the Nodes pane."""

    node: str
    kind: str               # pdb, pdbs, do-not-disrupt, do-not-evict, node-annotation, budget, not-cheaper, ...
    words: str
    short: str
    reason: str             # Karpenter's own sentence
    pdb: str = ""           # namespace/name, for kind pdb (or the PDBs, comma-separated, for kind pdbs)
    pods: tuple[str, ...] = ()  # the pods that block: the do-not-disrupt pod, the pods the PDB guards


@dataclass(frozen=True)
class DisruptionRow:
    """One node in the Disruption pane."""

    node: str
    group: str              # DECISION, BLOCKED or KEPT
    would: str              # "delete #1", "replace #2", "blocked", "kept"
    because: str
    saves: str              # "$0.154/h" for a command (its whole saving), else ""
    karpenter: str          # what Karpenter's own events or logs said last about the node, or ""
    mark: str               # the short form for the Nodes pane
    own: str = ""           # the simulation's short reason, when Karpenter saying the same adds nothing


@dataclass(frozen=True)
class DisruptionView:
    rows: tuple[DisruptionRow, ...]
    commands: int
    savings: float
    summary: str
    # node -> each method's verdict, a line each (:func:`verdict_lines`)
    methods: dict[str, tuple[str, ...]] = field(default_factory=dict)

    def node_lines(self, node: str) -> list[str]:
        """The drill-in's Disruption section: the node's row, each method's verdict, what Karpenter said."""
        row = next((r for r in self.rows if r.node == node), None)
        lines = list(self.methods.get(node, ()))
        if row is not None:
            said = row.because if row.because.startswith(f"{row.would}:") else f"{row.would}: {row.because}"
            lines.insert(0, said + (f" ({row.saves})" if row.saves else ""))   # a blocker's words say "kept:" already
            if row.karpenter:
                lines.append(f"Karpenter said: {row.karpenter}")
        return lines or ["(not a Karpenter node: Karpenter's disruption does not touch it)"]

    @cached_property
    def marks(self) -> dict[str, str]:
        """node name -> its short mark, for the Nodes pane's column (made once: the pane's sort by
        this column knows an answer by this very dict)."""
        return {r.node: r.mark for r in self.rows}


def blocker(node: str, reason: str, snapshot: Snapshot | None = None) -> Blocker:
    """Karpenter's reason for leaving ``node`` alone, read into plain words (the pods named)."""
    found = _PDBS.search(reason)
    if found:
        names = tuple(n.strip(" '\"") for n in re.split(r"[,\s]+", found.group(1)) if n.strip(" '\""))
        pods = _guarded(snapshot, node, names, at_least=2)
        return Blocker(node, "pdbs", f"blocked: {_pods_words(pods) or 'a pod'} guarded by more than one PDB "
                       f"({', '.join(names)}); Karpenter cannot evict such a pod", f"blocked: {len(names)} PDBs",
                       reason, ", ".join(names), pods)
    found = _PDB.search(reason)
    if found:
        name = found.group(1)
        pods = _guarded(snapshot, node, (name,))
        guarded = f", guarding {_pods_words(pods)}" if pods else ""
        return Blocker(node, "pdb", f"blocked by PDB {name} (no disruption allowed){guarded}",
                       f"blocked: PDB {name}", reason, name, pods)
    found = _POD.search(reason)
    if found and L.DO_NOT_DISRUPT in reason:
        pod = found.group(1)
        return Blocker(node, "do-not-disrupt", f"blocked by pod {pod} ({L.DO_NOT_DISRUPT})",
                       f"blocked: do-not-disrupt pod {pod.rpartition('/')[2]}", reason, pods=(pod,))
    found = _DO_NOT_EVICT.search(reason)
    if found:
        pod = found.group(1)
        return Blocker(node, "do-not-evict", f"blocked by pod {pod} ({L.DO_NOT_EVICT})",
                       f"blocked: do-not-evict pod {pod.rpartition('/')[2]}", reason, pods=(pod,))
    found = _NODE_ANNOTATION.search(reason)
    if found:
        return Blocker(node, "node-annotation", f"blocked by the node's own {found.group(1)} annotation",
                       f"blocked: node {found.group(1).rpartition('/')[2]}", reason)
    found = _BUDGET.search(reason)
    if found:
        return Blocker(node, "budget", f"blocked by its NodePool's disruption budget: no {found.group(1)} "
                       "disruption allowed now", "blocked: budget", reason)
    lowered = reason.lower()
    for needle, kind, words, short in _SIMPLE:
        if needle in lowered:
            return Blocker(node, kind, words.format(reason=reason), short, reason)
    found = _NEW_NODES.search(reason)
    if found:
        return Blocker(node, "new-nodes", f"kept: its pods would need {found.group(1)} new nodes, and a replace "
                       "launches one", "kept: needs more nodes", reason)
    return Blocker(node, "other", reason, _short(reason), reason)


# (what the reason contains, kind, plain words, mark): Karpenter's other reasons
_SIMPLE = (
    ("not all pods would schedule", "no-room", "kept: its pods would not all fit elsewhere ({reason})",
     "kept: pods would not fit"),
    ("cheaper node", "not-cheaper", "kept: no cheaper node would hold its pods", "kept: not cheaper"),
    ("spottospotconsolidation", "spot-to-spot", "kept: {reason}", "kept: spot to spot off"),
    ("minvalues", "min-values", "kept: a cheaper node would break the NodePool's minValues", "kept: minValues"),
    ("non-empty consolidation disabled", "policy", "kept: {reason} (consolidationPolicy WhenEmpty)",
     "kept: WhenEmpty only"),
    ("consolidation disabled", "disabled", "kept: {reason}", "kept: consolidation off"),
    ("not consolidatable yet", "waiting", "waiting: {reason}", "waiting: consolidateAfter"),
    ("deleting", "deleting", "already being deleted", "deleting"),
    ("not found", "unknown-type", "kept: {reason}", "kept: unknown type"),
    ("does not have label", "unlabelled", "kept: {reason}", "kept: label missing"),
    ("worth its disruption", "balanced", "kept: {reason}", "kept: Balanced score"),
)


def _short(reason: str, width: int = 32) -> str:
    return reason if len(reason) <= width else reason[: width - 1] + "…"


def _guarded(snapshot: Snapshot | None, node: str, names: Iterable[str], at_least: int = 1) -> tuple[str, ...]:
    """The pods on ``node`` that at least ``at_least`` of the named PDBs select (the model's rule)."""
    if snapshot is None:
        return ()
    pdbs = [p for p in snapshot.pdbs if p.key in set(names)]
    return tuple(pod.key for pod in snapshot.pods_by_node.get(node, ())
                 if not pod.is_mirror and sum(1 for p in pdbs if p.namespace == pod.namespace and p.selects(pod))
                 >= at_least)


def _pods_words(pods: tuple[str, ...]) -> str:
    if not pods:
        return ""
    shown = ", ".join(pods[:SHOWN_PODS])
    more = f" and {len(pods) - SHOWN_PODS} more" if len(pods) > SHOWN_PODS else ""
    return f"pod{'s' if len(pods) > 1 else ''} {shown}{more}"


def verdict_lines(entries: list[dict]) -> list[str]:
    """One node's ``disruption[]`` (docs/simulate-json.md), a line per method in Karpenter's order;
    a reason every method shares (the node is no candidate at all) said once."""
    if not entries:
        return []
    if len(entries) > 1 and len({(e["verdict"], e["reason"]) for e in entries}) == 1:
        return [f"every method: {entries[0]['verdict']} — {entries[0]['reason']}"]
    return [f"{METHOD_WORDS.get(e['method'], e['method'])}: {e['verdict']} — {e['reason']}" for e in entries]


def deciding(entries: list[dict]) -> dict | None:
    """The verdict that settles the node: the first that neither skips it nor never saw it."""
    return next((e for e in entries if e["verdict"] not in (SKIPPED, NOT_REACHED)), entries[-1] if entries else None)


def said_json(snapshot: Snapshot, events: Iterable[dict]) -> dict[str, dict]:
    """node -> what Karpenter's own events or logs said last about it, read as :func:`blocker` reads it."""
    out = {}
    for node, (reason, where) in karpenter_said(snapshot, events).items():
        found = blocker(node, reason, snapshot)
        out[node] = {"reason": reason, "where": where, "kind": found.kind, "words": found.words,
                     "pdb": found.pdb or None, "pods": list(found.pods)}
    return out


def karpenter_said(snapshot: Snapshot, events: Iterable[dict]) -> dict[str, tuple[str, str]]:
    """node -> (Karpenter's newest DisruptionBlocked / Unconsolidatable reason, where it said it),
    from the snapshot's events and the parsed log; an event on a NodeClaim counts for its node."""
    node_of = {claim.name: node for node, claim in snapshot.nodeclaim_by_node.items()}
    said: dict[str, tuple[str, str]] = {}
    for event in events:
        if event.get("kind") not in SAID_KINDS or not event.get("reason"):
            continue
        node = event.get("node") or node_of.get(event.get("nodeclaim", ""), "")
        if not node:
            continue
        where = f"log line {event['line']}" if event.get("line") else "event"
        if event.get("time"):
            where += f" {str(event['time'])[:19].replace('T', ' ')}"
        said[node] = (event["reason"], where)
    return said


def disruption_view(result, snapshot: Snapshot, events: Iterable[dict] = ()) -> DisruptionView:
    """Every command of ``result`` (a consolidating SimResult) node by node, then the blocked nodes,
    then those consolidation left; each with what Karpenter's own events or logs said of it."""
    return with_karpenter_said(simulated_view(result, snapshot), snapshot, events)


def simulated_view(result, snapshot: Snapshot) -> DisruptionView:
    """The simulation's part of :func:`disruption_view` (what Karpenter said is added by
    :func:`with_karpenter_said`): the TUI computes this once in a worker and adds what the logs
    say as they grow, without simulating again."""
    rows: list[DisruptionRow] = []
    seen: set[str] = set()
    # Balanced NodePools' scores by the nodes of the move they scored (the command's own, for a decision)
    scored = {score.nodes: score for score in result.scores}
    for number, d in enumerate(result.disruptions, 1):
        then = ""
        if d.replacement is not None:
            r = d.replacement
            estimated = ", price estimated" if r.price_estimated else ""
            then = f"{r.instance_type} {r.capacity_type} in {r.zone} (${r.price or 0:.4f}/h{estimated})"
        moves = sum(1 for _, to in d.moves if to != d.replacement_name) if d.moves else 0
        for node in d.nodes:
            seen.add(node)
            kind = "drifted" if d.method == "drift" else d.reason
            if d.action == "replace":
                because = f"{kind}: replaced by one {then}" + (f"; {moves} pod(s) move to other nodes" if moves else "")
                would = f"replace #{number}"
                mark = f"#{number} replace by {d.replacement.instance_type if d.replacement else '?'}, " \
                       f"saves ${d.savings:.3f}/h"
            elif d.forceful:  # the legacy NodeRepair controller: no budgets, no replacement first
                because = (f"{kind}: deleted at once by the node repair controller, outside budgets"
                           + (f"; its {d.pods} pod(s) go pending" if d.pods else ""))
                would = f"delete #{number}"
                mark = f"#{number} repair, forceful delete"
            elif d.terminate_first and d.reservation:  # v1.15: its replacement needs the instance it frees
                because = (f"{kind}: terminated before its replacement (capacity reservation {d.reservation} is "
                           "full: the replacement needs the instance this node frees)"
                           + (f"; its {d.pods} pod(s) go pending until provisioning launches into it" if d.pods else ""))
                would = f"delete #{number}"
                mark = f"#{number} terminate first"
            elif d.terminate_first:  # v1.15: no room in its NodePool for a replacement first
                because = (f"{kind}: terminated before its replacement (its NodePool has no room for one first)"
                           + (f"; its {d.pods} pod(s) go pending until provisioning refills it" if d.pods else ""))
                would = f"delete #{number}"
                mark = f"#{number} terminate first"
            else:
                because = f"{kind}: {'it is empty' if not d.pods else f'its {d.pods} pod(s) fit on other nodes'}"
                if len(d.nodes) > 1:
                    because += f" (one command for {len(d.nodes)} nodes)"
                would = f"delete #{number}"
                mark = f"#{number} delete, saves ${d.savings:.3f}/h"
            score = scored.get(d.nodes)
            if score is not None:
                because += f"; {score.text()}"
            because += estimate_words(d)
            saves = f"${d.savings:.4f}/h"
            if len(d.nodes) > 1:
                # one saving for the whole command: on every node it added up to N times the truth
                saves = saves if node == d.nodes[0] else f"in #{number}"
                mark = f"{mark} for {len(d.nodes)} nodes" if node == d.nodes[0] else \
                    f"#{number} {d.action} with {len(d.nodes) - 1} other node(s), saving shown once"
            rows.append(DisruptionRow(node, DECISION, would, because, saves, "", mark))
    for b in (*result.blocked, *result.unconsolidatable):
        if b.node in seen:
            continue
        seen.add(b.node)
        mine = blocker(b.node, b.reason, snapshot)
        group = BLOCKED if mine.kind in BLOCKING else KEPT
        rows.append(DisruptionRow(b.node, group, group, mine.words, "", "", mine.short, own=mine.short))
    verdicts = {node: v.to_dict() for node, v in result.verdicts.items()}
    for node, entries in verdicts.items():
        if node in seen or node not in snapshot.node_by_name:
            continue
        seen.add(node)
        rows.append(DisruptionRow(node, KEPT, "no change", deciding(entries)["reason"], "", "", ""))
    methods = {node: tuple(verdict_lines(entries)) for node, entries in verdicts.items()}
    savings = round(sum(d.savings for d in result.disruptions), 6)
    blocked = sum(1 for r in rows if r.group == BLOCKED)
    commands = len(result.disruptions)
    summary = (f"{commands} command{'s' if commands != 1 else ''} "
               f"({sum(1 for d in result.disruptions if d.action == 'delete')} delete, "
               f"{sum(1 for d in result.disruptions if d.action == 'replace')} replace) would save ${savings:.4f}/h; "
               f"{blocked} node{'s' if blocked != 1 else ''} blocked")
    if commands >= MAX_COMMANDS:  # the rest would come in later passes, on the cluster these leave
        summary += f" (the simulation stops after {MAX_COMMANDS} commands)"
    return DisruptionView(tuple(rows), commands, savings, summary, methods)


def captured_not_whatif(whatif: str) -> str:
    """Said over the Disruption pane and its budgets view while the what-if panel holds edits
    (``whatif`` as the header names it): they answer for the cluster as captured, and an operator
    who just loaded a what-if would otherwise read them as its answer."""
    return (f"the cluster as captured, not what-if {whatif}: its consolidation is in the what-if panel "
            "(w, then c and ctrl+r)") if whatif else ""


def estimate_words(d) -> str:
    """Karpenter's own estimate of a command's savings, when it is not what the launch saves: the
    figure its log line and events print (``savings: $0.40``) and a Balanced pool scores by."""
    if abs(d.estimated_savings - d.savings) < 0.00005:
        return ""
    counts = f" (it counts {d.estimate_counts})" if d.estimate_counts else ""
    return f"; Karpenter estimates ${d.estimated_savings:.4f}/h{counts}"


def found_line(number: int, d) -> str:
    """A command as soon as the simulation finds it, before the plan is whole (the Disruption pane
    shows these while the rest computes): what it does, to which nodes, and what it saves."""
    shown = ", ".join(d.nodes[:SHOWN_PODS]) + (f" and {len(d.nodes) - SHOWN_PODS} more" if len(d.nodes) > SHOWN_PODS
                                                else "")
    kind = "drifted" if d.method == "drift" else d.reason
    by = f" by {d.replacement.instance_type}" if d.action == "replace" and d.replacement is not None else ""
    return f"{d.action} #{number}{by} ({kind}): {shown}, saves ${d.savings:.4f}/h"


def with_karpenter_said(view: DisruptionView, snapshot: Snapshot, events: Iterable[dict]) -> DisruptionView:
    """``view`` with what Karpenter's own events and log lines said last of each node (the nodes it
    spoke of that the simulation leaves alone get a row of their own); the marks name it when it
    adds to the simulation's own reason."""
    said = karpenter_said(snapshot, events)
    rows = []
    for r in view.rows:
        words, short = _told(said, r.node, snapshot)
        rows.append(replace(r, karpenter=words, mark=_with_said(r.mark, short, r.own)))
    seen = {r.node for r in view.rows}
    for node in sorted(said):
        if node in seen or node not in snapshot.node_by_name:
            continue
        words, short = _told(said, node, snapshot)
        rows.append(DisruptionRow(node, KEPT, "no change", "the simulation finds nothing to do", "", words,
                                  f"Karpenter said {short}"))
    return replace(view, rows=tuple(rows))


def _told(said: dict[str, tuple[str, str]], node: str, snapshot: Snapshot) -> tuple[str, str]:
    """What Karpenter said of ``node`` in plain words (and where), and its short mark."""
    if node not in said:
        return "", ""
    reason, where = said[node]
    found = blocker(node, reason, snapshot)
    return f"{found.words} ({where})", found.short


def _with_said(mark: str, short: str, own: str) -> str:
    if not short or short == own:
        return mark
    return f"{mark} · Karpenter said {short}" if mark else f"Karpenter said {short}"
