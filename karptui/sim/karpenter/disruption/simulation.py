"""Where the candidates' pods would go if the candidates were gone (Karpenter's SimulateScheduling).

The candidates leave the cluster; their reschedulable pods, together with the
cluster's pending pods (every pod Karpenter provisions for, those whose
NodeClaims are not created yet included), go through the provisioning
scheduler against the rest of the cluster and new NodeClaims. A moved pod may
not land on a node that is not initialized yet (it would wait there), nor on
one still within its NodePool's consolidateAfter. Pods that were pending before
do not count when they still fail: a pod nothing could place must not block
consolidation. The NodeClaims the pending pods need do count: a command is
only taken when all of them together are none (delete) or one (replace), as
Karpenter's ``computeConsolidation`` counts ``NewNodeClaims``.
"""

from __future__ import annotations

from collections.abc import Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from itertools import islice

import numpy as np

from ....model import Pod
from ....model import labels as L
from ....model.selectors import selected_as
from ....model.taints import tolerates_all
from ...signature import signature
from ...simulate import filter_error
from ...state import ClusterState
from ...version import cluster_version
from ..preferences import PodData, relax
from ..resume import Journal, agreeing, limits_cut, resume
from ..scheduler import Prepared, Results, RunQueue, Scheduler
from ..topologygroup import TopologyGroup
from ..unplaceable import any_negative
from .candidates import Candidate
from .newclaims import homeless


@dataclass
class Simulation:
    results: Results
    moved: list[tuple[Pod, int]]     # (pod, existing node index) placements on existing nodes
    all_scheduled: bool
    errors: dict[str, str]           # moved pods that found no place -> why
    # the first of them -> kube-scheduler's FitError on the nodes left, and each node's reasons
    fit_errors: dict[str, tuple[str, dict[str, tuple[str, ...]]]] = field(default_factory=dict)
    # stopped once more NodeClaims than ``most_claims`` were open (see simulate): the results are
    # partial, the one thing known being that the whole run would open that many too
    cut: bool = False

    @property
    def claims(self):
        return self.results.claims


def simulate(snapshot, state: ClusterState, catalog, prepared: Prepared, candidates: list[Candidate],
             pending: list[Pod], settling: frozenset[str], existing=None,
             unplaceable: frozenset[str] = frozenset(), shared: PendingRun | None = None,
             freed: Mapping[str, int] | None = None, most_claims: int | None = None) -> Simulation:
    """The candidates are taken out of the cluster (``excluded``) for the run. Their pods stay
    bound to them meanwhile: Karpenter's scheduler and topology only count pods on nodes not
    taken out, so evicting and binding them again per simulation (a tenth of a 2,000-node plan)
    changed nothing. kube-scheduler's filters count pods wherever they run, so they are evicted
    for the one question asked of those (why a moved pod found no place).

    ``unplaceable``: keys of pending pods no run over ``existing`` can place
    (:mod:`..unplaceable`); they stay out of the queue (still known to the topology, as the
    scheduler is built with every pod), which changes no placement, only what the run costs.

    ``shared``: the pending pods' run alone over this cluster state (:func:`pending_run`); when
    its conditions hold for these candidates (:func:`_apart`), the pending pods are not scheduled
    again: the answer is the same, its cost that of the candidates' pods.

    Where it does not, the whole run goes on from the first of the candidates' pods in queue order,
    the pending pods before it done again from the shared run's record (:func:`_resumed`).

    ``freed``: capacity reservation instances taken as given back (reservation id -> count), as
    terminate-first simulates with a node already gone (:mod:`.terminatefirst`).

    ``most_claims``: a caller that only asks whether the candidates can go (multi-node consolidation's
    search, which keeps no reason for a prefix that cannot) lets the run stop once more NodeClaims
    than this are open; the simulation is then ``cut``, no command, as the whole run's would be."""
    indices = [c.index for c in candidates]
    state.excluded[indices] = True
    try:
        moving = [p for c in candidates for p in c.pods]
        results = _apart(snapshot, state, catalog, prepared, moving, settling, existing, shared) \
            if shared is not None and shared.usable else None
        if results is None:
            scheduler = Scheduler(snapshot, state, catalog, pending + moving, prepared=prepared, settling=settling,
                                  existing=existing, freed=freed)
            queue = scheduler.queue(_queued(pending, moving, unplaceable) + moving)
            if shared is None or shared.journal is None or _resumed(snapshot, state, catalog, scheduler, queue,
                                                                    moving, shared, most_claims):
                results = scheduler.run(queue, most_claims=most_claims)
            else:
                results = scheduler.results   # stopped within the pending pods' part: the whole run's
        cut = most_claims is not None and len(results.claims) > most_claims
        keyed = [(p, p.key) for p in moving]  # a pod's key is made afresh each time it is read
        errors = {key: results.errors[key] for _, key in keyed if key in results.errors}
        moved = []
        for p, key in keyed:
            node = results.on_existing.get(key)
            if node is None:
                continue
            if not node.initialized:
                errors[key] = uninitialized_error(node)
            if node.index is not None:
                moved.append((p, node.index))
        fits = {}
        first = next((p for p, key in keyed if key in errors), None)
        if first is not None and not cut:  # what it meets on each node left, while the candidates are gone
            with _evicted(state, candidates):
                fits[first.key] = filter_error(first, state, cluster_version(snapshot))
        return Simulation(results, moved, not errors, errors, fits, cut)
    finally:
        state.excluded[indices] = False


def _queued(pending: list[Pod], moving: list[Pod], unplaceable: frozenset[str]) -> list[Pod]:
    """The pending pods a simulation schedules: all but those no run can place (see :mod:`..unplaceable`),
    unless a moved pod requests a negative amount."""
    if unplaceable and not any_negative(moving):
        return [p for p in pending if p.key not in unplaceable]
    return pending


@dataclass
class PendingRun:
    """The pending pods' run alone over one cluster state, no candidate taken out, and whether a
    simulation may take its answer for theirs (``usable``: see :func:`_apart`)."""

    results: Results | None
    usable: bool
    kinds: tuple[Pod, ...] = ()   # one pending pod per namespace and label set (what selectors read)
    limits: dict = field(default_factory=dict)   # NodePool -> what its limits left before the run
    uncut: frozenset[str] = frozenset()          # NodePools whose limits cut nothing in the run
    pending: list[Pod] = field(default_factory=list)   # the pods, and those of them queued
    queued: list[Pod] = field(default_factory=list)
    # the same run with other limits left (candidates taken out give their NodePools room back), by
    # every NodePool's limits left (its limits left at the end, and the run recorded: see _resumed); and
    # how often a whole run met such limits before any was made (_resumed makes one the second time)
    by_limits: dict[tuple, tuple[Results, dict, Journal]] = field(default_factory=dict)
    resumes_seen: dict[tuple, int] = field(default_factory=dict)
    # the topology groups the pending pods own, and the nodes the run took out (see _apart)
    groups: tuple[TopologyGroup, ...] = ()
    out: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.intp))
    left: dict = field(default_factory=dict)   # what each NodePool's limits left at the run's end
    journal: Journal | None = None   # the run, pop by pop (see _resumed)
    _selecting: dict = field(default_factory=dict)   # see selects_a_kind

    def selects_a_kind(self, group: TopologyGroup) -> bool:
        """Whether ``group`` selects one of the pending pods (``kinds``). A selection reads the group's
        selector and namespaces alone, which every simulation's groups of one workload share: asked
        once per those (each simulation builds its own groups, and asks of each)."""
        key = (group.selector, group.namespaces)
        found = self._selecting.get(key)
        if found is None:
            found = self._selecting[key] = _selects_any(group, self.kinds)
        return found


def pending_run(snapshot, state: ClusterState, catalog, prepared: Prepared, pending: list[Pod],
                settling: frozenset[str], existing, unplaceable: frozenset[str] = frozenset()) -> PendingRun:
    """Karpenter's scheduler over the pending pods alone (the ones a simulation queues), once per
    cluster state. Usable only when no anti-affinity but over hostnames answers about them (none of
    them has any other, no bound pod's required anti-affinity over another key selects one: see
    :func:`_per_host`), every group a relaxation of theirs would own is
    one they own already (so a run makes no group of theirs the shared one did not count), no
    tracked reservation is in play, no pod requests a negative amount, none of them lands on an
    existing node and they do not open exactly one NodeClaim. Which NodePools' limits cut no
    instance type even at the run's end is noted. The groups they own are kept: a simulation takes
    the run only where those count as here (:func:`_apart`)."""
    scheduler = Scheduler(snapshot, state, catalog, pending, prepared=prepared, settling=settling, existing=existing)
    limits = _limits_left(scheduler)
    kinds = tuple({selected_as(p): p for p in pending}.values())  # a selector reads a pod's namespace and labels
    topology = scheduler.topology
    if any((g.owners or _selects_any(g, kinds)) and not _per_host(g) for g in topology.inverse.values()) \
            or scheduler.reservations is not None or any_negative(pending) or not _relaxations_owned(scheduler, pending):
        return PendingRun(None, False)
    groups = tuple(topology.groups.values())
    queued = _queued(pending, [], unplaceable)
    journal = scheduler.journal = Journal()
    journal.watch(scheduler)
    results = scheduler.solve(queued)
    usable = not results.on_existing and len(results.claims) != 1
    return PendingRun(results, usable, kinds, limits, _uncut(scheduler), pending, queued, groups=groups,
                      out=topology.taken_out.copy(), left=dict(scheduler.remaining), journal=journal)


def _resumed(snapshot, state: ClusterState, catalog, scheduler: Scheduler, queue: RunQueue,
             moving: list[Pod], shared: PendingRun, most_claims: int | None) -> bool:
    """The whole simulation's run (``scheduler``, built for it with the candidates taken out;
    ``queue``, nothing popped yet) brought to its first moved pod without searching, from a
    record of the pending pods' run alone (:mod:`..resume`); False when the run stops before it
    (``most_claims``). Nothing is done (True) where that is not known to be the whole run's own start.

    Karpenter's queue takes pods largest first, then oldest, then by UID, the pending pods and the
    candidates' together (``queue.go``, SimulateScheduling): the pending pods that sort before the
    first moved pod are popped first, in the shared run's order, as long as no moved pod requests a
    negative amount (then every pending pod is queued, not only those some run can place). Each ends
    where it ended in the shared run when what it meets is the same: it put no pod on an existing
    node there (taking candidates out only refuses more, and no topology answers differently, as
    follows); the groups the pending pods own count what they counted there (the candidates hold
    none of their pods and leave each domain a node: :meth:`Topology.counted_as_without`), or else
    the pops stop before the first pod that could own a group (those before it read none); no
    inverse group the candidates' pods bring but over hostnames selects a pending pod (the shared
    run's own ones are so by :func:`pending_run`; over hostnames a NodeClaim's count is its own);
    no tracked reservation; and each NodePool has the limits left it had there, or limits that cut
    nothing in those pops there (taking candidates out only leaves more). Where the candidates
    leave other limits that matter, the pending pods' run with those limits left (:func:`_with_limits`)
    is taken, made the second time a whole run leaves them (or the first, by a simulation that stays
    apart); before that, the pops of the recorded run whose limits answer alike the longest
    (:func:`_closest`).
    The moved pods' own groups are counted by this scheduler, and the recorded placements counted
    into them as they are done again."""
    if any_negative(moving) or scheduler.reservations is not None:
        return True
    topology = scheduler.topology
    if any(g.owners and not _per_host(g) and shared.selects_a_kind(g) for g in topology.inverse.values()):
        return True
    keys = {p.key for p in moving}
    upto = next((k for k, p in enumerate(queue.pods) if p.key in keys), len(queue.pods))
    if not all(topology.counted_as_without(g, shared.out) for g in shared.groups):
        # the groups the pending pods own count otherwise here: only the pods before the first that
        # could own one (:func:`_owns_no_group`) are known to end where they ended
        upto = next((k for k, p in enumerate(islice(queue.pods, upto)) if not _owns_no_group(p)), upto)
    if not upto:
        return True
    journal = shared.journal
    limits = _limits_left(scheduler)
    if any(left != shared.limits.get(pool) and not journal.uncut(pool, upto) for pool, left in limits.items()):
        key = tuple(sorted(limits.items()))
        seen = 0
        if key not in shared.by_limits:
            shared.resumes_seen[key] = seen = shared.resumes_seen.get(key, 0) + 1
        if key in shared.by_limits or seen >= 2:
            journal = _with_limits(snapshot, state, catalog, scheduler, shared, key)[2]
        else:
            # limits met once may never come again: not worth a run of their own yet; the pops of a
            # recorded run (the shared one, or one with other limits) before the first its limits may
            # answer otherwise are this run's too (as _with_limits starts its run): done again from the
            # record that has the most of them, the rest run here
            journal, upto = _closest(scheduler, queue, shared, upto)
            if not upto:
                return True
    if not _replayable(journal, queue, upto):
        return True
    return resume(scheduler, journal, queue, upto, most_claims)


def _owns_no_group(pod: Pod) -> bool:
    """No spread constraint and no pod affinity or anti-affinity term, required or preferred: the pod
    owns no topology group, as it is or relaxed (relaxing drops preferences and adds tolerations), so
    no group's counts decide where it goes but the inverse groups that select it (:func:`_resumed`
    checks those apart)."""
    affinity = pod.affinity
    return not (pod.spread_constraints or affinity.pod_required or affinity.pod_preferred
                or affinity.anti_required or affinity.anti_preferred)


def _replayable(journal: Journal, queue: RunQueue, upto: int) -> bool:
    """Whether the journal's first ``upto`` pops can be done again on a run whose queue is ``queue``:
    they popped the same pods and put none on an existing node."""
    return journal.clean(upto) and all(p is pop.pod for p, pop in zip(islice(queue.pods, upto), journal.pops))


def _with_limits(snapshot, state: ClusterState, catalog, scheduler: Scheduler, shared: PendingRun,
                 key: tuple) -> tuple[Results, dict, Journal]:
    """The shared run made again with the limits ``scheduler`` starts with (those its candidates leave),
    once per such limits (``key``): its results, what its limits left at its end, and its record. Over
    the cluster as the shared run had it (the nodes taken out since, the candidates, put back for
    it), so it stands for any simulation that leaves these limits where the shared run would (a pending
    pod on an existing node: then for none). Its first pops are done again from the record, the shared
    run's or one made with other limits, that its limits meet alike the longest
    (:func:`.resume.agreeing`): a candidate gives its NodePool back room that often changes no NodeClaim."""
    found = shared.by_limits.get(key)
    if found is not None:
        return found
    back = np.setdiff1d(np.flatnonzero(state.excluded), shared.out)
    state.excluded[back] = False
    try:
        again = Scheduler(snapshot, state, catalog, shared.pending, prepared=scheduler.prepared,
                          settling=scheduler.settling, existing=scheduler.pool)
        again.remaining = dict(scheduler.remaining)
        start = dict(again.remaining)
        queue = again.queue(shared.queued)
        base, upto = _closest(again, queue, shared, len(queue.pods))
        if upto:
            resume(again, base, queue, upto)
            journal = again.journal = base.resumed(upto, again, start)
        else:
            journal = again.journal = Journal(limits=start)
        again.run(queue)
    finally:
        state.excluded[back] = True
    found = shared.by_limits[key] = (again.results, dict(again.remaining), journal)
    return found


def _closest(scheduler: Scheduler, queue: RunQueue, shared: PendingRun, bound: int) -> tuple[Journal, int]:
    """Of the pending pods' recorded runs (the shared one, those with other limits), the one whose first
    pops (``bound`` at most) ``scheduler``'s run over ``queue`` would make alike the longest (their pods
    the same, the limits met alike: :func:`.resume.agreeing`), and how many; 0 when none."""
    best, most = shared.journal, 0
    for journal in (shared.journal, *(found[2] for found in shared.by_limits.values())):
        upto = bound
        if journal.first_existing is not None:
            upto = min(upto, journal.first_existing)
        upto = agreeing(scheduler, journal, min(upto, len(journal.pops)))
        if upto > most and _replayable(journal, queue, upto):
            best, most = journal, upto
    return best, most


def _relaxations_owned(scheduler: Scheduler, pending: list[Pod]) -> bool:
    """Whether every group the pending pods would own, relaxed one preference after another (as the
    scheduler relaxes a pod it cannot place), is a group they own as they are. A relaxation that drops
    a node affinity term or adds a toleration makes a new node filter, so a new group, which a run
    counts with the nodes it takes out; the shared run may not have made it, or made it elsewhere."""
    topology = scheduler.topology
    owned = topology.groups
    if not owned:
        return True
    seen = set()
    for pod in scheduler.prepared.scheduled_as(pending):
        if not pod.spread_constraints and not pod.affinity.pod_required and not pod.affinity.pod_preferred \
                and not pod.affinity.anti_required and not pod.affinity.anti_preferred:
            continue
        key = signature(pod)
        if key is not None:
            if key in seen:
                continue
            seen.add(key)
        current = relax(pod, scheduler.tolerate_prefer_no_schedule)
        while current is not None:
            if any(identity not in owned for identity in topology.identities(current)):
                return False
            current = relax(current, scheduler.tolerate_prefer_no_schedule)
    return True


def _apart(snapshot, state: ClusterState, catalog, prepared: Prepared, moving: list[Pod], settling: frozenset[str],
           existing, shared: PendingRun) -> Results | None:
    """The simulation's results from the pending pods' run and a run of the candidates' pods alone,
    or None when the two could meet (the whole simulation then runs).

    The scheduler takes pods largest first, pending and moved interleaved. They stay apart when
    every moved pod lands on an existing node in a run of its own, no pending pod lands on one in
    theirs, no topology group answers about a pending pod (:func:`pending_run`) and none the moved
    pods own selects one; the groups the pending pods own select no moved pod and count here what
    they counted in the pending pods' run (the candidates hold none of their pods and leave each of
    their domains a node: :meth:`Topology.counted_as_without`), so every answer they give a pending
    pod is the one it had there. Then a moved pod meets only existing nodes, and the groups it answers
    to count the same pods as in its own run; a pending pod meets only NodeClaims: taking nodes
    out and filling them only refuses it again, and the NodeClaims, opened by the pending pods in
    the same order with the limits cutting no type (the candidates' NodePools' limits leave more,
    not less; where they cut something, the pending pods' run is made again with the limits the
    candidates leave, once per such limits), are the ones the whole run opens. A pending pod the whole run answers from an earlier
    failure of its signature is refused the same when tried afresh, as nothing it could use
    changed; and the whole run's extra turns of its queue place nothing. The answer, NodeClaims
    and all, is the whole run's; not its cost. With exactly one NodeClaim (a replacement, whose
    pods a command moves) the whole run is kept, so no command holds the shared run's NodeClaim.

    A moved pod its own run cannot place may stand too, where it is refused alike in every run
    (:func:`refused_alike`): it then fails in every try of the whole run and takes nothing from
    either side; its words are worked out as the whole run's last try would say them."""
    if any_negative(moving) or len(moving) > len(shared.queued):  # then the shared run saves little
        return None
    scheduler = Scheduler(snapshot, state, catalog, moving, prepared=prepared, settling=settling, existing=existing)
    topology = scheduler.topology
    if scheduler.reservations is not None or any(shared.selects_a_kind(g) for g in topology.groups.values()) \
            or any(g.owners and not _per_host(g) and shared.selects_a_kind(g) for g in topology.inverse.values()):
        return None
    if shared.groups:
        kinds = tuple({selected_as(p): p for p in moving}.values())
        if any(_selects_any(g, kinds) for g in shared.groups) \
                or not all(topology.counted_as_without(g, shared.out) for g in shared.groups):
            return None
    limits = _limits_left(scheduler)
    alone = scheduler.solve(moving, most_claims=0)  # a NodeClaim of theirs and the whole run is needed
    if alone.claims or len(alone.on_existing) + len(alone.errors) != len({p.key for p in moving}):
        return None
    pending, left = shared.results, shared.left
    if any(now != shared.limits.get(pool) and pool not in shared.uncut for pool, now in limits.items()):
        # the pending pods alone with these limits left (over the cluster as the shared run had it: with
        # the candidates taken out, none of their nodes takes a pending pod either). Made the first time
        # such limits come, once the candidates' own run is known to stay apart: the whole run it spares
        # would do the same pops from the same first cut (_resumed), and the next candidates leaving
        # these limits (a NodePool's nodes of one instance type give back the same) take it as it is
        pending, left, _ = _with_limits(snapshot, state, catalog, scheduler, shared, tuple(sorted(limits.items())))
        if pending.on_existing or len(pending.claims) == 1:
            return None
    errors = {}
    for p in moving:
        if p.key in alone.errors and p.key not in errors:
            said = alone.errors[p.key] if alone.errors[p.key].startswith("ignoring pod, ") \
                else refused_alike(scheduler, p, left, existing, state)   # (never queued: the same words)
            if said is None:
                return None
            errors[p.key] = said
    return Results(list(pending.claims), dict(alone.on_existing), dict(pending.on_claim), {**pending.errors, **errors})


def refused_alike(scheduler: Scheduler, pod: Pod, left: dict, existing, state: ClusterState) -> str | None:
    """What a moved pod the candidates' own run (``scheduler``, after it) could not place is told in the
    whole run, the pending pods' NodeClaims in flight beside it, known without that run; None when not
    known so.

    Known when no existing node left could take it or any relaxation of it (:func:`.newclaims.homeless`:
    room, taints, admission, ports, as the cluster stands; a run only fills nodes), and every NodePool
    refuses a fresh NodeClaim for it, at every step of relaxing it, for a reason no run changes: its
    taints or its requirements (a NodeClaim of it in flight only narrows the requirements, so refuses
    it too), or limits that leave nothing as the candidates leave them (no node, or no type within
    them: no NodeClaim of that NodePool opens in any run). It then fails in every try of the whole run.
    A failed pod goes back in the queue and the run ends after a whole turn of it places nothing, so its
    words are those of its last try, made with everything placed: each NodePool's refusal with the
    limits the pending pods' run left (``left``: the whole run opens its NodeClaims), asked of the
    candidates' scheduler with those limits. No hostname requirement of the pod's (the one key a
    NodeClaim's own value would name) and no volume limits counted (checked before the requirements)."""
    if pod.resource_claims or not scheduler.templates:
        return None
    known = existing.indices >= 0
    alive = np.ones(len(existing.indices), dtype=bool)
    alive[known] = ~state.excluded[existing.indices[known]]
    if pod.node_name:  # a moved pod never goes to a node still settling
        alive &= np.array([n.name not in scheduler.settling for n in existing.nodes], dtype=bool)
    if not homeless(pod, scheduler.prepared, existing, alive):
        return None
    allow = scheduler.types.well_known
    current = scheduler.prepared.scheduled_as([pod])[0]
    data = scheduler.prepared.pod_data(current)
    while True:
        if data.reqs.get(L.HOSTNAME) is not None or (scheduler.type_volume_limits and current.pvc_names):
            return None
        for template in scheduler.templates:
            limits = scheduler.remaining.get(template.name)
            if limits and (("nodes" in limits and limits["nodes"] == 0)
                           or not scheduler.fit_limits(template, limits).size):
                continue  # refused by the limits, in every run
            if tolerates_all(template.taints, current.tolerations) \
                    and template.reqs.compatible(data.reqs, allow, why=False) is None:
                return None
        relaxed = relax(current, scheduler.tolerate_prefer_no_schedule)
        if relaxed is None:
            break
        current, data = relaxed, PodData.of(relaxed, scheduler.respect)
    before = scheduler.remaining
    scheduler.remaining = dict(left)
    try:
        return scheduler.new_claim_refusal(current, data)
    finally:
        scheduler.remaining = before


def _per_host(group: TopologyGroup) -> bool:
    """An anti-affinity group over hostnames keeps apart pods on the same node only. In a simulation
    that takes the shared run, moved pods land on existing nodes and pending pods on new NodeClaims
    only, each NodeClaim a hostname of its own: what the group counts on one side is never a domain
    the other side asks about, and taking candidates out only lowers counts on their own, excluded,
    nodes. So such a group, whoever owns it and whomever it selects, leaves both runs' answers as
    they are."""
    return group.key == L.HOSTNAME


def _selects_any(group, pods) -> bool:
    return any(group.selects(p) for p in pods)


def _uncut(scheduler: Scheduler) -> frozenset[str]:
    """The NodePools whose limits, at the run's end (they only shrink as NodeClaims open), still hold
    each of their instance types and leave nodes to launch: they refused nothing, and a run with
    more left (a candidate taken out gives its NodePool its capacity back) keeps the same types."""
    return frozenset(t.name for t in scheduler.templates if not limits_cut(scheduler, t))


def _limits_left(scheduler: Scheduler) -> dict:
    """What each NodePool's limits leave, as the scheduler keys them (a zero left is a limit, unlike
    no entry)."""
    return {name: tuple(left.items()) for name, left in scheduler.remaining.items()}


def uninitialized_error(node) -> str:
    """Karpenter's UninitializedNodeError: a moved pod would land on a node (or a NodeClaim with no
    Node yet) that is not initialized, so the decision would rest on a node that may never come up."""
    names = ([f"nodeclaim/{node.nodeclaim}"] if node.nodeclaim else []) + \
        ([f"node/{node.name}"] if node.index is not None else [])
    return f"would schedule against uninitialized {', '.join(names)}"


@contextmanager
def _evicted(state: ClusterState, candidates: list[Candidate]):
    """The candidates' pods off their nodes, and back after."""
    evicted = [(pod, c.index) for c in candidates for pod in list(state.pods[c.index])]
    for pod, i in evicted:
        state.evict(pod, i)
    try:
        yield
    finally:
        for pod, i in evicted:
            state.place(pod, i)
