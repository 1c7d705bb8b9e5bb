"""A scheduling run done again up to some pop without searching: what it did, written down and replayed.

Consolidation schedules the cluster's pending pods with each candidate's pods (SimulateScheduling),
hundreds of times over one cluster state. The queue takes pods largest first, so the pending pods
that sort before the candidates' first pod are popped first, in the same order, in every such run;
where the candidates taken out change nothing those pods meet (the caller's to show:
:mod:`.disruption.simulation`), each of them ends where it ended in the pending pods' run alone.
A :class:`Journal` set on that run's scheduler (``Scheduler.journal``) writes down each pop: the
pod, where it went (the NodeClaim it opened or joined, with the requirements and instance types
the NodeClaim had then), the names given, its error and the refusal kept for its signature.
:func:`resume` does the first pops again on another scheduler, built for the simulation, from that
record: each NodeClaim opened and joined as written, the pods that failed back at the end of the
queue, so that ``Scheduler.run`` goes on from the first of the candidates' pods as the whole run
would. What the search cost (trying every NodeClaim in flight and every NodePool per pod) is not
paid again; the bookkeeping (the NodeClaims' resources, the topology's counts) is, on the
simulation's own scheduler.

The record reads the scheduler's own state as it stands after each step; this module and
``Scheduler.run`` and ``_placed``/``_name`` (the journal's three calls) are the only ones that know
of it. The replay goes through the scheduler's ``replay_*`` methods, which keep its books as its own
placements and names do.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ...model import Pod
from ...model.resources import Resources
from .nodeclaim import NodeClaim
from .scheduler import RunQueue, Scheduler


@dataclass(frozen=True, slots=True)
class Placed:
    """A pod (as placed: relaxed or not) onto the run's ``claim``-th NodeClaim, which ``opened`` now
    (then its NodePool's template and its name)."""

    pod: Pod
    claim: int
    opened: bool
    reqs: object          # the NodeClaim's requirements and instance type rows once the pod is in
    rows: object
    data: object          # the pod's PodData as placed
    template: object = None
    name: str = ""


@dataclass(frozen=True, slots=True)
class Named:
    key: tuple            # (NodePool, first index) -> the index the name was given at
    index: int
    name: str


@dataclass(frozen=True, slots=True)
class Pop:
    pod: Pod
    error: str | None
    refused: object       # the signature whose refusal the pop kept (None: none kept)
    changes: int          # the scheduler's changes after the pop
    steps: tuple          # Placed and Named, in the order they happened


def limits_cut(scheduler: Scheduler, template) -> bool:
    """Whether the NodePool's limits, as they stand in the run, cut something from a new NodeClaim of
    ``template``: no node left to launch, or an instance type whose capacity exceeds what they leave.
    They only shrink as NodeClaims open; until they cut, more left changes no NodeClaim."""
    left = scheduler.remaining.get(template.name)
    return bool(left) and (("nodes" in left and left["nodes"] <= 0)
                           or len(scheduler.fit_limits(template, left)) != len(template.rows))


@dataclass
class Journal:
    """Every pop of a run, in order (see the module)."""

    pops: list[Pop] = field(default_factory=list)
    first_existing: int | None = None   # the first pop that put its pod on an existing node
    numbered: dict = field(default_factory=dict)   # the run's signature -> number (its refusals' keys)
    # NodePool -> the first pop that may have met its limits cutting (:func:`limits_cut`): the pops
    # before it are the same with more left
    cuts: dict[str, int] = field(default_factory=dict)
    # what each NodePool's limits left when the run began, and each NodeClaim it opened (the pop, the
    # NodePool's name, what the NodeClaim took off its limits), which alone change what they leave: see
    # agreeing
    limits: dict = field(default_factory=dict)
    opens: list[tuple[int, str, np.ndarray]] = field(default_factory=list)
    _trails: dict = field(default_factory=dict)   # NodePool -> (len(opens) then, its opens' pops, amounts)
    _steps: list = field(default_factory=list)
    _claims: dict[int, int] = field(default_factory=dict)   # id(NodeClaim) -> its position in the run

    def placed(self, scheduler: Scheduler, pod: Pod, claim: NodeClaim) -> None:
        k = self._claims.get(id(claim))
        opened = k is None
        if opened:
            k = self._claims[id(claim)] = len(scheduler.results.claims) - 1
        self._steps.append(Placed(pod, k, opened, claim.reqs, claim.rows, scheduler.data(pod),
                                  claim.template if opened else None, claim.name if opened else ""))

    def watch(self, scheduler: Scheduler) -> None:
        """Note the NodePools whose limits cut from the start, and what every NodePool's limits leave
        (call before the run)."""
        self.limits = dict(scheduler.remaining)
        for template in scheduler.templates:
            if limits_cut(scheduler, template):
                self.cuts.setdefault(template.name, 0)

    def named(self, key: tuple, index: int, name: str) -> None:
        self._steps.append(Named(key, index, name))

    def popped(self, scheduler: Scheduler, pod: Pod, error: str | None, refused) -> None:
        if error is None and self.first_existing is None and pod.key in scheduler.results.on_existing:
            self.first_existing = len(self.pops)
        for step in self._steps:   # a pop opens at most one NodeClaim, as its last step: the next pop meets what it left
            if type(step) is Placed and step.opened:
                self.opens.append((len(self.pops), step.template.name, scheduler.largest(step.template, step.rows)))
                if step.template.name not in self.cuts and limits_cut(scheduler, step.template):
                    self.cuts[step.template.name] = len(self.pops) + 1
        self.pops.append(Pop(pod, error, refused, scheduler.changes, tuple(self._steps)))
        self._steps.clear()

    def trail(self, pool: str) -> tuple[list[int], np.ndarray]:
        """The pops that opened a NodeClaim of the NodePool, and after each what the run's NodeClaims of it
        had taken off its limits in all (a row per pop, a column per resource, as ``Scheduler.largest``)."""
        found = self._trails.get(pool)
        if found is None or found[0] != len(self.opens):
            mine = [(k, amount) for k, name, amount in self.opens if name == pool]
            taken = np.cumsum(np.array([a for _, a in mine]), axis=0) if mine else np.zeros((0, 0), dtype=np.int64)
            found = self._trails[pool] = (len(self.opens), [k for k, _ in mine], taken)
        return found[1], found[2]

    def uncut(self, pool: str, upto: int) -> bool:
        """Whether the NodePool's limits cut nothing in the first ``upto`` pops."""
        cut = self.cuts.get(pool)
        return cut is None or upto <= cut

    def resumed(self, upto: int, scheduler: Scheduler, limits: dict) -> Journal:
        """The record of ``scheduler``'s run, which :func:`resume` brought through this run's first
        ``upto`` pops (clean ones) from what its NodePools' limits left then (``limits``): those pops,
        and the NodeClaims as that scheduler holds them."""
        out = Journal(list(self.pops[:upto]), numbered=self.numbered, limits=limits,
                      opens=[o for o in self.opens if o[0] < upto])
        out._claims = {id(claim): k for k, claim in enumerate(scheduler.results.claims)}
        return out

    def clean(self, upto: int) -> bool:
        """Whether the first ``upto`` pops put no pod on an existing node (only those can be replayed:
        a simulation takes nodes out)."""
        return upto <= len(self.pops) and (self.first_existing is None or upto <= self.first_existing)


def agreeing(scheduler: Scheduler, journal: Journal, upto: int) -> int:
    """How many of the journal's first ``upto`` pops a run starting with ``scheduler``'s limits left would
    make alike, as far as the NodePools' limits go: those before the first from which a NodePool's
    limits, as they stand in the two runs, may answer a new NodeClaim otherwise (other instance types,
    or another refusal). A run reads its limits in that answer alone (``Scheduler.limits_answer``); and
    while the two runs open the same NodeClaims, what each leaves goes down by the same amounts
    (``Scheduler.largest``), so comparing the answers after each NodeClaim opened is enough. A run
    with other limits left (a candidate taken out gives its NodePool room back) so takes a recorded run
    as its own past the first pop its limits cut (:meth:`Journal.uncut`) wherever they cut alike.

    The answers are compared where they may differ: a NodePool's instance types that fit what its
    limits leave are, per resource, those whose capacity is at most that, so the two answers can only
    differ where a type's capacity lies between what the two runs leave of some resource."""
    start = scheduler.remaining
    most = upto
    for template in scheduler.templates:
        name = template.name
        theirs, ours = journal.limits.get(name), start.get(name)
        if theirs == ours:
            continue
        if not theirs or not ours or theirs.keys() != ours.keys() \
                or not _alike(scheduler.limits_answer(template, theirs), scheduler.limits_answer(template, ours)):
            return 0
        pops, amounts = journal.trail(name)
        if not len(pops) or pops[0] >= most:
            continue
        columns = scheduler.types.columns
        counted = [(resource, columns[resource]) for resource in theirs if resource in columns]
        if not counted:
            continue   # no capacity counted against them: what they leave does not move
        capacity = scheduler.prepared.capacity_of(template)
        cut = np.zeros(len(pops), dtype=bool)
        for resource, column in counted:
            sizes = np.sort(capacity[column])
            left = amounts[:, column]
            cut |= np.searchsorted(sizes, theirs[resource] - left, "right") \
                != np.searchsorted(sizes, ours[resource] - left, "right")
        for i in np.flatnonzero(cut).tolist():
            if pops[i] >= most:
                break
            now = {resource: int(theirs[resource] - amounts[i, column]) for resource, column in counted}
            shift = {resource: int(ours[resource] - amounts[i, column]) for resource, column in counted}
            if not _alike(scheduler.limits_answer(template, Resources({**theirs, **now})),
                          scheduler.limits_answer(template, Resources({**ours, **shift}))):
                most = pops[i] + 1
                break
    return most


def _alike(a, b) -> bool:
    """Two of ``Scheduler.limits_answer``'s answers the same: the same instance type positions, or refusals
    that say the same."""
    if isinstance(a, np.ndarray) and isinstance(b, np.ndarray):
        return a.shape == b.shape and bool((a == b).all())
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return False
    return (str(a), a.kind, a.key) == (str(b), b.kind, b.key)


def resume(scheduler: Scheduler, journal: Journal, queue: RunQueue, upto: int,
           most_claims: int | None = None) -> bool:
    """Do the journal's first ``upto`` pops on ``scheduler``, whose ``queue`` (from ``Scheduler.queue``,
    nothing popped yet) starts with the same ``upto`` pods: placed as written, the failed ones at the
    queue's end with the lengths the whole run would have noted. False when the run would have
    stopped within them (more NodeClaims open than ``most_claims``): its results are then the whole
    run's, and there is nothing to go on with."""
    results = scheduler.results
    claims = results.claims
    pods = queue.pods
    queue.numbered.update(journal.numbered)   # the refusals below are kept by the whole run's numbers
    failed = []
    length = len(pods)
    for pop in journal.pops[:upto]:
        for step in pop.steps:
            if type(step) is Named:
                scheduler.replay_name(step.key, step.index, step.name)
                continue
            pod = step.pod
            if pod is not pop.pod:  # placed once relaxed: the topology and its data as _try left them
                scheduler.replay_relaxed(pod, step.data)
            if step.opened:
                scheduler.replay_open(step.template, step.name, pod, step.data, step.reqs, step.rows)
            else:
                scheduler.replay_join(claims[step.claim], pod, step.data, step.reqs, step.rows)
        length -= 1
        if pop.error is not None:
            results.errors[pop.pod.key] = pop.error
            failed.append(pop.pod)
            length += 1
            queue.last_len[pop.pod.key] = length
            if pop.refused is not None:
                queue.refused[pop.refused] = (pop.changes, pop.error, pop.pod.key)
        if most_claims is not None and len(claims) > most_claims:
            return False
    for _ in range(upto):
        pods.popleft()
    pods.extend(failed)
    return True
