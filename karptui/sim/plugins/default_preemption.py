"""DefaultPreemption (PostFilter): would evicting lower-priority pods make room?

For each node that failed with a resolvable status: remove every pod of lower
priority; if the pod then fits, give victims back one by one (most important
first, PDB-protected ones first) while it still fits. The dry runs stop once
they found the candidates wanted (:func:`candidates_wanted`) and one of them
breaks no PDB. Among nodes with victims, pick the one with the fewest PDB
violations, then the lowest highest victim priority, the lowest priority sum,
the fewest victims, and the most recently started most important victims
(:func:`_best`). Without a candidate, every node explains itself in the
"preemption: ..." part of the FitError. Pods of one priority rank by their start
(:func:`_started`), as kube-scheduler's util.MoreImportantPod has it.
"""

from __future__ import annotations

import math
import operator
from bisect import bisect_right
from collections import Counter
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ...model import Pod
from ...model.resources import PODS
from ..cycle import PodCycle
from ..fit_error import preemption_message
from ..signature import signature
from ..framework import BUT_RESOURCES, Verdicts, filters_at, fits_on, only_resources_see_evictions
from .node_resources_fit import TOO_MANY_PODS, insufficient, wanted

NAME = "DefaultPreemption"
NOT_HELPFUL = "Preemption is not helpful for scheduling"
NO_VICTIMS = "No preemption victims found for incoming pod"
NOT_ELIGIBLE_NEVER = "not eligible due to preemptionPolicy=Never."
MIN_CANDIDATES, CANDIDATE_PERCENT = 100, 10
KEPT_SIZES = 256   # (priority, requests) whose weighed dry runs are kept (Weighed, _kept)


@dataclass(frozen=True)
class Candidate:
    node: int
    victims: tuple[Pod, ...]   # most important first (util.MoreImportantPod), never empty when ranked
    pdb_violations: int

    @property
    def rank(self) -> tuple:
        """Its place in pickOneNodeForPreemption's order (:func:`_best`), worked out once: a
        dry run worked out on the room keeps its candidate (:class:`Weighed`), and the same
        node is ranked again pod after pod."""
        found = self.__dict__.get("_rank")
        if found is None:
            found = _rank(self)
            object.__setattr__(self, "_rank", found)
        return found


def _started(pod: Pod) -> float:
    """When ``pod`` started, as preemption compares pods of one priority (util.GetPodStartTime):
    its status.startTime, not its creation; a pod not started yet (one the simulation placed, or
    still starting) counts as starting now, after every pod that did."""
    return pod.started.timestamp() if pod.started is not None else math.inf


def _importance(pod: Pod) -> tuple:
    """util.MoreImportantPod as a sort key: higher priority first, then the earlier started."""
    return (-pod.priority, _started(pod))


class _Order:
    """A node's pods ranked by importance (util.MoreImportantPod; pods alike in importance in the
    node's order, as a stable sort leaves them), kept per node while it holds the very same pods.

    Why: every dry run starts from the node's lower-priority pods in that order, and a batch
    cluster asks it of the same nodes again and again, by pods of a few priorities and many
    sizes. Reading each pod's priority, start and name again for every priority and size was
    most of a first dry run's cost (the pods lie scattered in memory). The pods below a priority
    are a tail of this one ranking (:meth:`below`): a stable sort of some of them keeps the
    order the sort of all of them gives them.

    What a dry run reads off the node's pods below one priority alone, whatever the pod's size
    (the room they leave for the resources it wants, which of them PDBs guard), is kept here
    too (:meth:`shared`): pods of many sizes and one priority ask it of the same node."""

    __slots__ = ("pods", "stamp", "ranked", "ranks", "memo")

    def __init__(self, pods: list[Pod], stamp: int, keys: dict) -> None:
        self.pods = tuple(pods)       # the node's pods it was made for, in the node's order
        self.stamp = stamp            # ClusterState.touched of the node then (the same pods while it stands)
        # keys: id(pod) -> (pod, its importance) for the simulation, kept with the pod so a reused
        # id is never mistaken: a node that gained or lost a pod ranks the others as before
        importance = []
        for pod in pods:
            found = keys.get(id(pod))
            if found is None or found[0] is not pod:
                found = keys[id(pod)] = (pod, _importance(pod))
            importance.append(found[1])
        order = sorted(range(len(pods)), key=importance.__getitem__)
        self.ranked = [pods[k] for k in order]                      # most important first
        self.ranks = [importance[k][0] for k in order]              # their -priority, ascending
        self.memo: dict[int, dict] = {}

    def below(self, priority: int) -> list[Pod]:
        """The pods of lower priority than ``priority``, most important first: what
        ``sorted(lower_priority(pods, priority), key=_importance)`` gives (one list per priority:
        callers do not change it)."""
        shared = self.shared(priority)
        found = shared.get("below")
        if found is None:
            found = shared["below"] = self.ranked[bisect_right(self.ranks, -priority):]
        return found

    def shared(self, priority: int) -> dict:
        """What dry runs of pods of ``priority`` on this node read off its pods alone, kept while
        it holds them: "below" (:meth:`below`), "split" (:func:`_violating` of those pods), and the
        room they leave per tuple of resources (:func:`_weigh`)."""
        found = self.memo.get(priority)
        if found is None:
            found = self.memo[priority] = {}
        return found


def _order(ctx: PodCycle, i: int) -> _Order:
    """Node ``i``'s :class:`_Order` as it stands now, kept per node for the simulation's cluster."""
    state = ctx.state
    table = ctx.cache.get((NAME, "orders"))
    if table is None or table[0] is not state:
        table = ctx.cache[(NAME, "orders")] = (state, {})
    orders = table[1]
    stamp = int(state.touched[i])
    found = orders.get(i)
    if found is not None and found.stamp == stamp:
        return found
    pods = state.pods[i]
    if found is not None and len(found.pods) == len(pods) and all(map(operator.is_, found.pods, pods)):
        found.stamp = stamp
        return found
    found = orders[i] = _Order(pods, stamp, ctx.cache.setdefault((NAME, "importance"), {}))
    return found


def _allowed(pdbs, name: str) -> int:
    """A PDB's disruptionsAllowed as preemption reads it; of two PDBs of one name (a dump that
    holds both), the later one's, as a mapping by name built in the snapshot's order keeps."""
    return next(p.disruptions_allowed or 0 for p in reversed(pdbs) if p.name == name)


def _guarding(ctx: PodCycle, pdbs: tuple, pod: Pod) -> tuple:
    """Of its namespace's ``pdbs``, those that guard ``pod`` for preemption, in their order.

    As upstream's filterPodsWithPDBViolation, an empty or missing selector counts for nothing. A
    PDB reads only the pod's namespace and labels, and a workload's replicas share one labels
    mapping: the answer is kept per mapping for the simulation (with the mapping and the PDBs it
    was found for, so a reused id is never mistaken), not asked of every PDB for every victim of
    every dry run (4.3 million selector tests in a 5,000-node batch cluster's simulation)."""
    key = (NAME, "guarding", id(pdbs), id(pod.labels))
    found = ctx.cache.get(key)
    if found is None or found[0] is not pdbs or found[1] is not pod.labels:
        found = ctx.cache[key] = (pdbs, pod.labels, tuple(pdb for pdb in pdbs if pdb.selects_for_preemption(pod)))
    return found[2]


def _violating(ctx: PodCycle, victims: list[Pod]) -> tuple[list[Pod], list[Pod]]:
    """Split victims into those whose eviction would break a PodDisruptionBudget and the rest.

    A victim is compared only with its namespace's PDBs (no other can select it), and only the
    PDBs that select a victim are counted down: every PDB of the cluster, victim after victim and
    dry run after dry run, was most of preemption's time on a large cluster."""
    by_namespace = ctx.state.snapshot.pdbs_by_namespace
    allowance: dict[tuple[str, str], int] = {}
    violating, fine = [], []
    for pod in victims:
        breaks = False
        pdbs = by_namespace.get(pod.namespace, ())
        for pdb in _guarding(ctx, pdbs, pod) if pdbs else ():
            key = (pdb.namespace, pdb.name)
            left = allowance.get(key)
            left = allowance[key] = (_allowed(pdbs, pdb.name) if left is None else left) - 1
            breaks |= left < 0
        (violating if breaks else fine).append(pod)
    return violating, fine


def _victims_on(ctx: PodCycle, i: int, kept: Kept | None = None) -> tuple[Candidate | None, list[str]]:
    """The dry run on node ``i``: every lower-priority pod evicted, then given back one by one
    while the pod still fits. Where only resources can tell (:class:`Weighed`) it is worked out
    on the node's free room, with the same answer; else pods are placed and evicted. ``kept``:
    the room's answers for pods of this one's priority and size, node by node (:func:`_kept`)."""
    state, pod = ctx.state, ctx.pod
    weighed = kept.nodes.get(i) if kept is not None else None
    if weighed is None or not weighed.holds(state.pods[i], int(state.touched[i])):
        order = _order(ctx, i)
        potential = order.below(pod.priority)
        if not potential:
            return None, [NO_VICTIMS]
        weighed = _weigh(ctx, i, potential, order)
        if weighed is not None and kept is not None:
            kept.nodes[i] = weighed
    if weighed is not None:
        if weighed.blind(ctx, kept.signature if kept is not None else None):
            return _by_room(ctx, i, weighed)
        potential = weighed.potential
    # kube-scheduler dry-runs on a copy of the node (NodeInfo.Snapshot): the node's own pods keep
    # their order, which later dry runs' ties and the placements read
    before, ports = tuple(state.pods[i]), state.host_ports.get(i)
    ports = tuple(ports) if ports is not None else None
    for victim in potential:
        state.evict(victim, i)
    fits, reasons = filters_at(ctx, i)
    if not fits:
        for victim in potential:
            state.place(victim, i)
        state.restore_order(i, before, ports)
        return None, reasons
    violating, fine = _violating(ctx, potential)
    victims, violations = [], 0
    for group_violates, group in ((True, violating), (False, fine)):
        for victim in group:
            state.place(victim, i)
            if not fits_on(ctx, i):
                state.evict(victim, i)
                victims.append(victim)
                violations += group_violates
    if violating and fine:
        victims.sort(key=_importance)   # back in order of importance (_give_back says why)
    for victim in victims:
        state.place(victim, i)
    state.restore_order(i, before, ports)
    return Candidate(i, tuple(victims), violations), []


def _uses(pod: Pod, resource: str) -> int:
    """What ``pod`` takes of ``resource`` on its node, as ClusterState accounts it."""
    return pod.requests.get(resource, 0) + (resource == PODS)


def _uses_rows(ctx: PodCycle, pods: list[Pod], resources: list[str]) -> dict[int, list[int]]:
    """id(pod) -> :func:`_uses` for each of ``resources``, each row kept per requests object for the
    simulation (replicas share theirs; kept with it, so a reused id is never mistaken): dry run
    after dry run weighs the same few pod sizes."""
    known = ctx.cache.get((NAME, "uses", *resources))
    if known is None:
        known = ctx.cache[(NAME, "uses", *resources)] = {}
    out = {}
    for pod in pods:
        requests = pod.requests
        found = known.get(id(requests))
        if found is None or found[0] is not requests:
            found = known[id(requests)] = (requests, [_uses(pod, r) for r in resources])
        out[id(pod)] = found[1]
    return out


class Weighed:
    """A dry run on one node worked out on the node's room (:func:`_weigh`), kept for the next
    pod of the same priority and size while the node holds the very same pods.

    Most of what it says is read off the node's pods and the pod's priority and requests alone:
    which pods are of lower priority and in what order they are tried, the room they leave, which
    of them PDBs guard, and so which are given back. That only NodeResourcesFit sees them leave
    (``framework.only_resources_see_evictions``) also reads the pod's labels, affinity, spread
    and ports: asked once per signature (:meth:`blind`). The filters that do not see them leave
    are asked again every time (:func:`_by_room`): the domain ones read the whole cluster. A
    batch cluster's pods ask the same question of the same nodes one after another (a Job's
    pods, Jobs of one size), and all but the node the last one preempted on are as they were
    (a dry run leaves its node as it found it: kube-scheduler's works on a copy)."""

    __slots__ = ("pods", "stamps", "potential", "room", "shared", "victims", "violations", "candidate", "_blind")

    def __init__(self, pods: tuple[Pod, ...], potential: list[Pod], room: list[int], shared: dict) -> None:
        self.shared = shared                   # _Order.shared for the pod's priority (the split by PDBs)
        self.pods = pods                       # the node's pods it answers for, in their order (kept, so no id is reused)
        self.potential = potential             # its lower-priority pods, most important first
        self.room = room                       # the room they leave, per resource the pod wants
        self.victims: tuple[Pod, ...] | None = None   # None: not worked out yet
        self.violations = 0
        self.candidate: Candidate | None = None       # the dry run's candidate once the filters let the pod in
        self._blind: dict = {}                  # signature's token -> only_resources_see_evictions
        self.stamps: set[int] = set()           # ClusterState.touched of the node when it held ``pods``

    def blind(self, ctx: PodCycle, key) -> bool:
        """``framework.only_resources_see_evictions`` for this pod and these lower-priority pods,
        kept per signature (``key``, its :func:`_token`; None: asked every time)."""
        found = self._blind.get(key) if key is not None else None
        if found is None:
            found = only_resources_see_evictions(ctx, self.potential)
            if key is not None:
                self._blind[key] = found
        return found

    def holds(self, pods: list[Pod], stamp: int) -> bool:
        """Whether the node holds these very pods now, in this order. ``stamp`` (the node's
        ClusterState.touched) answers at once when the node held them at it and has not changed
        since: a Job's pods ask the same nodes again and again."""
        if stamp in self.stamps:
            return True
        kept = self.pods
        if len(kept) == len(pods) and all(map(operator.is_, kept, pods)):
            self.stamps.add(stamp)
            return True
        return False


class Kept(NamedTuple):
    signature: object | None          # the pod's signature's token (_token)
    nodes: dict[int, Weighed]         # node -> its weighed dry run


def _kept(ctx: PodCycle) -> Kept | None:
    """The :class:`Weighed` dry runs for pods of this one's priority and requests, by node, with
    the pod's signature. Kept for the simulation's cluster and the latest ``KEPT_SIZES``
    priorities and sizes: a Job's pods come one after another, its requeued victims later, and
    the Jobs of a batch cluster interleave in the queue (a 20,000-node one asks 138 pairs in turn,
    changing pair at almost every pod: 16 kept made 38% of its dry runs start afresh). Each keeps
    a node's pods alive."""
    key = (ctx.pod.priority, _wants(ctx))
    by_size = ctx.cache.get((NAME, "weighed"))
    if by_size is None or by_size[0] is not ctx.state:
        by_size = ctx.cache[(NAME, "weighed")] = (ctx.state, {})
    sizes = by_size[1]
    found = sizes.pop(key, None)
    if found is None:
        found = {}
        while len(sizes) >= KEPT_SIZES:
            del sizes[next(iter(sizes))]
    sizes[key] = found   # the latest last
    return Kept(_token(ctx), found)


def _wants(ctx: PodCycle) -> tuple[tuple[str, int], ...]:
    """What the pod wants of a node's room (``node_resources_fit.wanted``), by resource name: the
    order a pod's requests were written in says nothing, and pods of one size whose manifests
    list cpu and memory in either order share their kept dry runs (:func:`_kept`)."""
    found = ctx.cycle.get((NAME, "wants"))
    if found is None:
        found = ctx.cycle[(NAME, "wants")] = tuple(sorted(wanted(ctx.pod).items()))
    return found


def _token(ctx: PodCycle) -> object | None:
    """One object per signature for the simulation (None: the pod has none): :meth:`Weighed.blind`
    keys on it, so a signature's fields are hashed once per pod rather than once per node."""
    key = signature(ctx.pod)
    if key is None:
        return None
    tokens = ctx.cache.setdefault((NAME, "tokens"), {})
    found = tokens.get(key)
    if found is None:
        found = tokens[key] = object()
    return found


def _weigh(ctx: PodCycle, i: int, potential: list[Pod], order: _Order) -> Weighed | None:
    """The part of the dry run on node ``i`` that only its pods and the pod's priority and
    requests decide: the room every lower-priority pod leaves (allocatable minus what stays, for
    every resource the pod asks for and one pod's place; kept per priority and resources while
    the node holds the same pods, :meth:`_Order.shared`). None when even then the room is short
    (the full dry run then says why). The victims are worked out when the filters first let the
    pod in (:func:`_give_back`)."""
    resources, amounts = zip(*_wants(ctx))
    shared = order.shared(ctx.pod.priority)
    room = shared.get(resources)
    if room is None:
        state = ctx.state
        uses = _uses_rows(ctx, potential, resources)
        room = [int(state.allocatable[r][i]) - int(state.requested[r][i]) for r in resources]
        for victim in potential:
            room = [left + used for left, used in zip(room, uses[id(victim)])]
        shared[resources] = room
    if any(left < amount for left, amount in zip(room, amounts)):
        return None
    return Weighed(order.pods, potential, room, shared)


def _give_back(ctx: PodCycle, weighed: Weighed) -> None:
    """Each lower-priority pod given back, PDB-protected ones first, while the room it leaves
    still holds the pod: weighed by its requests instead of being placed and every filter asked
    again. Those that do not fit are the victims."""
    resources, amounts = zip(*_wants(ctx))
    uses = _uses_rows(ctx, weighed.potential, resources)
    room = weighed.room
    split = weighed.shared.get("split")
    if split is None:
        split = weighed.shared["split"] = _violating(ctx, weighed.potential)
    violating, fine = split
    victims, violations = [], 0
    for group_violates, group in ((True, violating), (False, fine)):
        for victim in group:
            after = [left - used for left, used in zip(room, uses[id(victim)])]
            if all(left >= amount for left, amount in zip(after, amounts)):
                room = after
            else:
                victims.append(victim)
                violations += group_violates
    if violating and fine:
        # given back in two groups, the victims are put in order of importance again, most
        # important first, as SelectVictimsOnNode does when both groups hold pods
        victims.sort(key=_importance)
    weighed.victims, weighed.violations = tuple(victims), violations


def _by_room(ctx: PodCycle, i: int, weighed: Weighed) -> tuple[Candidate | None, list[str]]:
    """:func:`_victims_on`'s dry run on the node's room: the filters that ignore the node's pods
    asked once, then the victims as :func:`_give_back` found them. No pod is moved and nothing
    is counted as a change: kube-scheduler's dry run works on a copy of the node, and the
    cluster stays as it was (what is kept while ``ClusterState.changes`` stands holds on)."""
    # as they answer with every victim gone; before this dry run the cluster is as the cycle found
    # it (every dry run puts its pods back), so the domain filters' answers hold from node to node
    fits, reasons = filters_at(ctx, i, BUT_RESOURCES, settled=True)
    if not fits:
        return None, reasons
    if weighed.candidate is None:
        _give_back(ctx, weighed)
        weighed.candidate = Candidate(i, weighed.victims, weighed.violations)
    return weighed.candidate, []


PRIORITY_FLOOR = 2**31   # MaxInt32+1: added to each victim's priority before they are summed
_priority = operator.attrgetter("priority")


def _rank(c: Candidate) -> tuple:
    """pickOneNodeForPreemption's default criteria as a key, smallest first (:func:`_best`).

    A candidate's victims are in order of importance (util.MoreImportantPod: every dry run gives
    them so), so the first is of the highest priority and, among those, started earliest: read
    off it rather than every victim walked twice (a batch cluster's candidates hold dozens)."""
    first = c.victims[0]
    return (
        c.pdb_violations,
        first.priority,
        sum(map(_priority, c.victims)) + PRIORITY_FLOOR * len(c.victims),
        len(c.victims),
        -_started(first),
    )


def _best(candidates: list[Candidate]) -> Candidate:
    """pickOneNodeForPreemption's default criteria, each one deciding only among the candidates
    the ones before it tie: the fewest PDB violations; the least important highest-priority
    victim; the smallest sum of victims' priorities, each counted from MaxInt32+1 up so that
    more victims never sum smaller (several of negative priority would otherwise beat one);
    the fewest victims; the latest start of the highest-priority victims (their earliest start);
    then the first candidate (PDB-sparing ones come first, each kind in dry-run order)."""
    return min(candidates, key=operator.attrgetter("rank"))


def _still_short(ctx: PodCycle, nodes: np.ndarray) -> tuple[np.ndarray, Counter]:
    """Of ``nodes`` (a mask over every node), those where the pod would not fit even with every
    lower-priority pod gone (a mask over every node: read it at ``nodes``), and how many of
    ``nodes`` give each reason.

    A cheap vector pass over resources that spares the full dry run on most nodes of a large
    cluster; the reasons are the ones the dry run would give. The room is :func:`_room`'s, kept
    between pods, read over every node: the nodes asked about are most of a large cluster
    (12,467 of 20,000 for the median pod of a full batch cluster), and picking them out of each
    resource's room cost more than the comparisons over every node."""
    state, requests = ctx.state, ctx.pod.requests
    wants = [resource for resource, amount in requests.items() if amount > 0 and resource != PODS]
    for resource in wants:
        if resource not in state.requested:
            state.extended(resource)  # tracked from now on, per priority level too
    room = _room(ctx, (PODS, *wants))
    reasons: Counter = Counter()
    short = room[PODS] < 1
    reasons[TOO_MANY_PODS] = int(np.count_nonzero(short & nodes))
    for resource in wants:
        lacking = room[resource] < requests[resource]
        reasons[insufficient(resource)] += int(np.count_nonzero(lacking & nodes))
        short |= lacking
    return short, +reasons


def _room_below(ctx: PodCycle, nodes: np.ndarray, resources: tuple[str, ...]) -> dict[str, np.ndarray]:
    """Per resource, the room each of ``nodes`` (indices) would have with every pod below the pod's
    priority gone: :func:`_room` read at those nodes."""
    return {resource: room[nodes] for resource, room in _room(ctx, resources).items()}


def _room(ctx: PodCycle, resources: tuple[str, ...]) -> dict[str, np.ndarray]:
    """Per resource, the room every node would have with every pod below the pod's priority gone:
    allocatable minus requested plus what those pods request (``ClusterState.lower_priority_requests``).
    Kept over every node per priority and resource for the simulation's cluster, and brought up to
    date at the nodes a pod came to or left since (``ClusterState.touched_since``): the kept
    vectors themselves, to be read, never written.

    Why: pod after pod of a batch cluster asks it, and each time every priority level below its
    own was summed over the nodes, level by level and resource by resource; between two such pods
    the cluster changed on a node or two."""
    state, priority = ctx.state, ctx.pod.priority
    table = ctx.cache.get((NAME, "room below"))
    if table is None or table[0] is not state:
        table = ctx.cache[(NAME, "room below")] = (state, {})
    kept = table[1]
    out = {}
    for resource in resources:
        found = kept.get((priority, resource))
        if found is None:
            freed = state.lower_priority_requests(priority, None, (resource,))[resource]
            found = kept[(priority, resource)] = [
                state.allocatable[resource] - state.requested[resource] + freed, state.changes]
        elif found[1] != state.changes:
            touched = state.touched_since(found[1])
            if touched.size:
                freed = state.lower_priority_requests(priority, touched, (resource,))[resource]
                found[0][touched] = state.allocatable[resource][touched] - state.requested[resource][touched] + freed
            found[1] = state.changes
        out[resource] = found[0]
    return out


def preempt(ctx: PodCycle, verdicts: Verdicts) -> tuple[Candidate | None, str]:
    """The chosen candidate, or the PostFilter message saying why preemption cannot help."""
    if ctx.pod.preemption_policy == "Never":
        return None, f"preemption: {NOT_ELIGIBLE_NEVER}"
    statuses: Counter = Counter()
    statuses[NOT_HELPFUL] = int(np.count_nonzero(verdicts.unresolvable))
    resolvable = ~(verdicts.unresolvable | verdicts.feasible)
    helpful = int(np.count_nonzero(resolvable))
    # a node whose every pod is of the pod's priority or higher has no victim to give (the vector
    # passes are few: most pods of a full batch cluster get here, one after another)
    maybe = resolvable & (ctx.state.min_priority < ctx.pod.priority)
    victims_somewhere = int(np.count_nonzero(maybe))
    statuses[NO_VICTIMS] = helpful - victims_somewhere
    if victims_somewhere:
        short, reasons = _still_short(ctx, maybe)
        statuses.update(reasons)
        maybe &= ~short
    potential = np.flatnonzero(maybe)
    # counted among the nodes where preemption might help (resolvable ones, victims or not), as
    # upstream does; its dry runs start at a random offset into them, ours at the first (a
    # simulation answers the same every time)
    enough = candidates_wanted(helpful)
    sparing, violating = [], []   # candidates that break no PDB, and those that break one
    for i, candidate, reasons in _dry_runs(ctx, potential):
        if candidate is None:
            for reason in reasons:
                statuses[reason] += 1
            continue
        if not candidate.victims:
            continue   # fits with nothing evicted: upstream's dry run calls that an error, not a candidate
        found = violating if candidate.pdb_violations else sparing
        if len(found) < enough:   # each kind holds at most that many, later ones are dropped
            found.append(candidate)
        if sparing and len(sparing) + len(violating) >= enough:
            break   # enough of them, and at least one breaks no PDB (DryRunPreemption)
    if sparing or violating:
        return _best(sparing + violating), ""   # those that break no PDB first
    return None, preemption_message(ctx.size, +statuses)


def _dry_runs(ctx: PodCycle, nodes: np.ndarray):
    """(node, candidate, reasons) of the dry run on each of ``nodes`` in turn (:func:`_victims_on`),
    as the caller asks for the next one.

    Why: a pod that preempts on a large batch cluster dry-runs a hundred and more nodes before
    it has the candidates it wants (402,501 dry runs in a 20,000-node batch cluster's
    simulation), most of them answered by a dry run kept from an earlier pod of its priority
    and size (:class:`Weighed`, its :meth:`Weighed.blind` known for the pod's signature). Those
    are read here in one loop, each node's stamp read off one vector for all of ``nodes``; any
    other node takes the whole dry run."""
    if not nodes.size:
        return
    kept = _kept(ctx)
    token = kept.signature if kept is not None else None
    if token is None:   # nothing kept, or Weighed.blind asked afresh for every node
        for i in nodes.tolist():
            yield (i, *_victims_on(ctx, i, kept))
        return
    table, pods = kept.nodes, ctx.state.pods
    for i, stamp in zip(nodes.tolist(), ctx.state.touched[nodes].tolist()):
        weighed = table.get(i)
        if weighed is not None and weighed._blind.get(token) and weighed.holds(pods[i], stamp):
            yield (i, *_by_room(ctx, i, weighed))
        else:
            yield (i, *_victims_on(ctx, i, kept))


def candidates_wanted(nodes: int) -> int:
    """How many candidates the dry runs collect among ``nodes`` nodes where preemption might help:
    ``MinCandidateNodesPercentage`` (10) percent of them, at least ``MinCandidateNodesAbsolute``
    (100), at most all of them (DefaultPreemption's calculateNumCandidates, default args)."""
    return min(max(nodes * CANDIDATE_PERCENT // 100, MIN_CANDIDATES), nodes)
