"""Karpenter's scheduling simulation: where each pending pod goes, and which NodeClaims to launch.

As Karpenter's ``Scheduler.Solve``: pods are taken largest first (cpu, then
memory, then age); each goes to the first existing node that takes it
(initialized nodes first), else to an open NodeClaim (the one with the fewest
pods first), else to a new NodeClaim from the first NodePool that can take it
(by weight, then name, the later name first). A pod that fits nowhere is
relaxed one preference at a time (:mod:`.preferences`) and tried again; if
it still fails it goes to the back of the queue, and the run ends when a whole
pass over the queue places nothing — pods that depend on each other (affinity,
spread across pools) resolve within one batch.

NodePools being deleted, static ones (``replicas``) and ones not Ready take no
part. A NodePool's limits count every node it already has (capacity, and one
``nodes``); a new NodeClaim may keep only instance types whose capacity fits
what is left, and takes off the largest capacity among the types it keeps.
"""

from __future__ import annotations

import hashlib
from functools import lru_cache
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from ...catalog import Catalog
from ...model import NodePool, Pod, Snapshot
from ...model import labels as L
from ...model.resources import CPU, MEMORY, Resources
from ...model.taints import PREFER_NO_SCHEDULE
from ..plugins.inter_pod_affinity import term_index
from ..signature import signature
from ..state import ClusterState
from .buffers import is_virtual
from .daemons import daemon_pods
from .defaultconstraints import with_default_constraints
from .existingnode import BASE, Daemon, ExistingNode, ExistingPool, NodesView, base_vector, existing_nodes
from .inflight import InFlight
from .instancetypes import TypeSet, type_set
from .nodeclaim import LIMITS, RESERVATIONS, NodeClaim, SchedulingError, Template, build_template, skip_placeholder
from .nodepool_verdicts import pool_verdicts
from .preferences import PodData, relax
from .requirements import Reqs
from .reservations import Reservations, selected_by_pool, tracked
from .settings import karpenter_settings
from .topology import Topology, domain_groups
from .validation import pod_error
from .versions import V1_15, karpenter_version
from .volumes import volume_error, volume_requirements
from .volumeusage import NONE, Volumes, pod_volumes

NAME_ALPHABET = "bcdfghjklmnpqrstvwxz2456789"
NO_NODEPOOLS = "no dynamic nodepools found"
NO_TEMPLATES = "nodepool requirements filtered out all available instance types"


@lru_cache(maxsize=1 << 16)
def claim_name(pool: str, index: int) -> str:
    """A stable NodeClaim name like Karpenter's generated ones: the pool and five letters (kept:
    consolidation's simulations name the same NodeClaims again, hundreds of times)."""
    digest = hashlib.sha256(f"{pool}/{index}".encode()).digest()
    return f"{pool}-" + "".join(NAME_ALPHABET[b % len(NAME_ALPHABET)] for b in digest[:5])


def eligible_pools(snapshot: Snapshot) -> list[NodePool]:
    """NodePools Karpenter provisions from, in its order: weight descending, then name descending."""
    pools = [p for p in snapshot.nodepools if p.deleted is None and p.replicas is None and p.ready]
    return sorted(pools, key=lambda p: (p.weight, p.name), reverse=True)


def queue_order(pods: Sequence[Pod], key=None) -> list[Pod]:
    """Largest first: cpu, then memory (descending), then creation time, then UID. ``key``: where
    each pod's place is kept (:meth:`Prepared.queue_place`), else :func:`queue_place`."""
    return sorted(pods, key=key or queue_place)


def queue_place(pod: Pod) -> tuple:
    """What orders ``pod`` in the queue (:func:`queue_order`)."""
    return (-pod.requests.get(CPU, 0), -pod.requests.get(MEMORY, 0),
            pod.created.timestamp() if pod.created else 0.0, pod.uid or pod.key)


class _PerPod:
    """``make(pod)`` kept per pod object: by its id, the pod kept beside its answer so the id stays its own
    (consolidation asks about the same pods in simulation after simulation). ``of`` is the one call a
    lookup costs: callers hold the bound method itself (Prepared.signature, pod_data, ...)."""

    __slots__ = ("_make", "_answers")

    def __init__(self, make: Callable[[Pod], object]) -> None:
        self._make, self._answers = make, {}

    def of(self, pod: Pod):
        found = self._answers.get(id(pod))
        if found is None or found[0] is not pod:
            found = self._answers[id(pod)] = (pod, self._make(pod))
        return found[1]


def _queue_answers(pod: Pod) -> tuple:
    return queue_place(pod), pod_error(pod)


@dataclass
class Results:
    claims: list[NodeClaim] = field(default_factory=list)
    on_existing: dict[str, ExistingNode] = field(default_factory=dict)   # pod key -> node it joins
    on_claim: dict[str, NodeClaim] = field(default_factory=dict)         # pod key -> new NodeClaim
    errors: dict[str, str] = field(default_factory=dict)                 # pod key -> Karpenter's reason


@dataclass
class RunQueue:
    """A run's queue as Karpenter's ``Queue`` keeps it, and what the run keeps beside it: how long the
    queue was when each pod went back (a pod met again at that length: a whole pass placed nothing),
    the refusals kept per pod signature (the state's ``changes`` then, why, whose), and signatures."""

    pods: deque
    total: int                                   # pods the run was given (progress counts against it)
    last_len: dict[str, int] = field(default_factory=dict)
    # signature's number -> (changes when it failed, why, pod key): nothing moved since, same answer
    refused: dict = field(default_factory=dict)
    # id(pod) -> its signature's number: a pod waiting goes round the queue again, and a signature
    # (affinity, tolerations, spread constraints: dataclasses hashed field by field) is hashed once per
    # pod to number it, not at every turn
    signatures: dict[int, int | None] = field(default_factory=dict)
    numbered: dict = field(default_factory=dict)   # signature -> its number


class Prepared:
    """What stays the same for every scheduling run over one snapshot's NodePools and DaemonSets:
    the eligible pools, their templates, the DaemonSet pods (consolidation runs many simulations)."""

    def __init__(self, snapshot: Snapshot, catalog: Catalog) -> None:
        self.catalog = catalog
        self.settings = settings = karpenter_settings(snapshot)
        self.types = type_set(catalog)
        self.pools = eligible_pools(snapshot)
        self.daemons = daemon_pods(snapshot)
        self.daemon_checks = [Daemon.of(p) for p in self.daemons]
        built = [(p, build_template(p, self.types, self.daemons, settings.relax_min_values)) for p in self.pools]
        self.templates: list[Template] = [t for _, t in built if isinstance(t, Template)]
        # NodePools whose requirements leave no instance type, and why (Karpenter logs it per pool)
        self.skipped = {p.name: t for p, t in built if isinstance(t, str)}
        self.tolerate_prefer_no_schedule = any(t.effect == PREFER_NO_SCHEDULE for p in self.pools for t in p.taints)
        self._groups: dict[frozenset, dict] = {}
        self._data_shapes: dict[tuple, tuple[tuple, PodData]] = {}   # see pod_data
        self.snapshot = snapshot
        # Each kept per pod object (_PerPod): they read the frozen pod alone, and consolidation queues and
        # moves the same pods in run after run.
        self._pod_data: dict[int, tuple[Pod, PodData]] = {}   # see pod_data
        # the pod's scheduling signature (:func:`..signature.signature`: a dozen fields, hashed once made),
        # by which every run numbers its queue's pods
        self.signature = _PerPod(signature).of
        # :func:`queue_place` and Karpenter's validation (:func:`.validation.pod_error`): queue_place, pod_error
        self._queued: Callable[[Pod], tuple] = _PerPod(_queue_answers).of
        # v1.15's default spread constraints given to a pod with none (scheduled_as)
        self._defaulted: Callable[[Pod], Pod] = _PerPod(
            lambda pod: with_default_constraints(self.snapshot, pod, self.settings.default_constraints)).of
        self._names: tuple[Snapshot, frozenset[str]] | None = None   # see names_taken
        # (NodePool, what its limits leave, as items) -> positions of its types that fit (Scheduler._within_limits)
        self.within_limits: dict[tuple, np.ndarray] = {}
        self._capacity: dict[str, tuple[Template, np.ndarray]] = {}   # see capacity_of
        # reserved offerings that name their reservation: counted as NodeClaims hold them (.reservations)
        self.reservations_named = any(tracked(o) for t in self.types.types for o in t.offerings)
        self.reservations_selected = selected_by_pool(snapshot, self.pools) if self.reservations_named else {}

    def capacity_of(self, template: Template) -> np.ndarray:
        """The capacity of the template's types, one row per resource column (kept: a NodePool's limits
        are checked against it each time what they leave changes, once per NodeClaim opened)."""
        found = self._capacity.get(template.name)
        if found is None or found[0] is not template:
            found = self._capacity[template.name] = (template, np.ascontiguousarray(self.types.capacity[template.rows].T))
        return found[1]

    def names_taken(self, snapshot: Snapshot) -> frozenset[str]:
        """The names of ``snapshot``'s nodes and NodeClaims, which a new NodeClaim may not take (kept for
        the snapshot: consolidation's simulations over one cluster name NodeClaims hundreds of times)."""
        found = self._names
        if found is None or found[0] is not snapshot:
            found = self._names = (snapshot, frozenset(n.name for n in snapshot.nodes)
                                   | frozenset(c.name for c in snapshot.nodeclaims))
        return found[1]

    def scheduled_as(self, pods: Sequence[Pod]) -> Sequence[Pod]:
        """The pods as Karpenter schedules them: v1.15's default spread constraints given to those
        with none (.defaultconstraints), the same copy each time a pod is asked for."""
        if not self.settings.default_constraints:
            return pods
        return [self._defaulted(pod) for pod in pods]

    def queue_place(self, pod: Pod) -> tuple:
        """:func:`queue_place`, kept per pod object."""
        return self._queued(pod)[0]

    def pod_error(self, pod: Pod) -> str | None:
        """:func:`.validation.pod_error`, kept per pod object."""
        return self._queued(pod)[1]

    def pod_data(self, pod: Pod) -> PodData:
        """``PodData.of(pod)``, kept for the pod as given (a relaxed copy is worked out by its run alone). It
        reads the pod's requests, node selector and affinity alone, which a workload's pods share as objects:
        one PodData per those objects, so replicas also share their requirement sets (whose hash and the
        answers kept per set are then found by identity). Kept per pod object as _PerPod does, written out:
        the hottest of these lookups, and a method of the class (a test puts a fresh answer in its place)."""
        found = self._pod_data.get(id(pod))
        if found is None or found[0] is not pod:
            read = (pod.requests, pod.node_selector, pod.affinity)
            shape = tuple(map(id, read))
            made = self._data_shapes.get(shape)
            if made is None:  # the objects kept with it: the same ids are the same objects
                made = self._data_shapes[shape] = (read, PodData.of(pod, self.settings.respect_preferences))
            found = self._pod_data[id(pod)] = (pod, made[1])
        return found[1]

    def domain_groups(self, keys: frozenset[str]) -> dict:
        found = self._groups.get(keys)
        if found is None:
            found = self._groups[keys] = launch_domains(self.pools, self.types, keys)
        return found


def launch_domains(pools: Sequence[NodePool], types: TypeSet, keys: frozenset[str]) -> dict:
    """Key -> DomainGroup: the domains of ``keys`` that ``pools`` could launch new capacity into
    (their requirements and template labels, with the catalog's types laid over them). The
    scheduler's topology and the main screen's zone overview both ask this."""
    cut = _types_on(types, keys)
    sources = [(Reqs.from_model(p.requirements).plus(Reqs.from_labels(p.template_labels).values()), cut, p.taints)
               for p in pools]
    return {k: g for k, g in domain_groups(_only(sources, keys)).items() if k in keys}


def _types_on(types: TypeSet, keys: frozenset[str]) -> list[Reqs]:
    """The catalog's type requirements cut down to ``keys``, each distinct cut once (in first-seen
    order): 1,363 types differ in few zones and capacity types, and every pool lays the same ones
    over its own requirements, so merging each type per pool repeats the same domains."""
    if not keys:
        return []
    distinct: dict[Reqs, None] = {}
    for reqs in types.reqs:
        distinct.setdefault(Reqs(r for k, r in reqs.items() if k in keys))
    return list(distinct)


# Karpenter v1.14's answer to a pod with ResourceClaims (scheduler.go add, IGNORE_DRA_REQUESTS on by default)
DRA_NOT_SUPPORTED = "pod has Dynamic Resource Allocation requirements that are not yet supported by Karpenter"


class Scheduler:
    def __init__(self, snapshot: Snapshot, state: ClusterState, catalog: Catalog, pods: Sequence[Pod], *,
                 deleting: frozenset[str] = frozenset(), prepared: Prepared | None = None,
                 settling: frozenset[str] = frozenset(), existing: ExistingPool | None = None,
                 decide: bool = False, provisioning: bool = False, freed: Mapping[str, int] | None = None) -> None:
        """``settling``: nodes still within their NodePool's consolidateAfter, which a consolidation
        simulation may not move bound pods onto. ``decide``: keep each pod's NodePool decision table
        (:mod:`.nodepool_verdicts`) as of its last try, in ``decisions``. ``provisioning``: the
        provisioner's run, which (before v1.15) does not fall back from a compatible reservation it
        cannot hold; a disruption simulation does (.reservations). ``freed``: capacity reservation
        instances taken as given back by nodes gone (terminate-first, .disruption.terminatefirst)."""
        self.snapshot, self.state = snapshot, state
        self.prepared = prepared = prepared if prepared is not None else Prepared(snapshot, catalog)
        self.types = prepared.types
        # PREFERENCE_POLICY and MIN_VALUES_POLICY, as the controller runs (.settings)
        self.respect = respect_preferences = prepared.settings.respect_preferences
        self.relax_min_values = prepared.settings.relax_min_values
        self.pools = pools = prepared.pools
        self.templates = prepared.templates
        self.tolerate_prefer_no_schedule = prepared.tolerate_prefer_no_schedule
        self.skipped = prepared.skipped
        pods = prepared.scheduled_as(pods)
        groups = prepared.domain_groups(_topology_keys(pods, state))
        self.topology = Topology(state, groups, pods, respect_preferences)
        if existing is None:
            # built as asked: only nodes a pod could land on are built in full (no pod moves meanwhile)
            existing = ExistingPool(existing_nodes(state, snapshot, prepared.daemon_checks, catalog, set(deleting),
                                                   lazy=True))
        self.pool = existing
        indices = existing.indices
        known = indices >= 0   # a NodeClaim without its Node yet is never taken out
        self._alive = np.ones(len(indices), dtype=bool)
        self._alive[known] = ~state.excluded[indices[known]]
        self.existing = NodesView(existing.nodes)   # entries are replaced by copies as pods join them
        self.settling = settling
        # (the nodes' hostnames need no registering with the topology: see Topology.register)
        self.remaining: dict[str, Resources] = {}
        for pool in pools:
            limits = Resources(pool.limits)
            self.remaining[pool.name] = Resources(
                {k: v - existing.capacity(pool.name, k, self._alive) for k, v in limits.items()})
        self._copied: set[int] = set()
        self._existing_free = existing.free.copy()
        self._fits: dict[bytes, list] = {}   # pod size -> [the nodes with room, len(_joined) then]; see _room
        self._joined: list[int] = []          # the nodes pods joined, in order
        self.results = Results()
        self.inflight = InFlight(self.results.claims)   # which of them each kind of pod may join
        self._data: dict[str, PodData] = {}
        self._volumes: dict[str, list] = {}
        self._usage: dict[str, Volumes] = {}
        # v1.15 (kubernetes-sigs/karpenter#3202): a new NodeClaim keeps only the instance types whose
        # declared volume limits take its pods' volumes
        self.type_volume_limits = karpenter_version(snapshot) >= V1_15 and self.types.has_volume_limits
        self.changes = 0
        self._taken: set[str] | None = None
        self._named: dict[tuple[str, int], int] = {}   # (pool, first index) -> the index _name gave last
        self.deciding = decide
        self.decisions: dict[str, tuple] = {}   # pod key -> its NodePool verdicts
        self.reservations = Reservations(self.types, karpenter_version(snapshot), prepared.reservations_selected,
                                         strict=provisioning, freed=freed) \
            if prepared.reservations_named else None
        self._reservation_refused = False  # the last _add ended on a reserved offering error
        # (NodePool, its types under the limits, what the pod's answer depends on) -> a new NodeClaim's
        # requirements and types with such a pod in, or its refusal (see _open_alike)
        self._opened: dict[tuple, tuple | SchedulingError] = {}
        # NodePool -> (what its limits left when last asked, _limited_rows' answer then): pods ask
        # for every NodePool they try, and the remainder changes only as NodeClaims open
        self._limited: dict[str, tuple[Resources, np.ndarray | SchedulingError]] = {}

    # ---- the run ---------------------------------------------------------------------------------
    # told of every placement, name and pop when set (consolidation's resumable runs: .resume)
    journal = None

    def solve(self, pods: Sequence[Pod], batch: bool = True, progress=None, most_claims: int | None = None) -> Results:
        """Every pod onto an existing node or a new NodeClaim; ``progress("Karpenter", settled, total)``
        after each try, settled being the pods no longer waiting for another (see :func:`karptui.sim.simulate`).

        ``most_claims``: stop as soon as more NodeClaims than this are open, the results then only
        partly made. NodeClaims are never closed in a run, so the whole run would open more too: a
        caller that only asks whether a run stays within so many NodeClaims has its answer then."""
        return self.run(self.queue(pods), batch, progress, most_claims)

    def queue(self, pods: Sequence[Pod]) -> RunQueue:
        """The run's queue before its first pop: the pods in queue order, those Karpenter ignores
        (its validation) answered at once in ``results.errors``."""
        results = self.results
        queue = RunQueue(deque(), len(pods))
        prepared = self.prepared
        for pod in queue_order(prepared.scheduled_as(pods), prepared.queue_place):
            # capacity buffers' virtual pods join after the provisioner's validation (GetPendingPods)
            error = None if is_virtual(pod) else prepared.pod_error(pod) or volume_error(pod, self.snapshot)
            if error is not None:
                results.errors[pod.key] = f"ignoring pod, {error}"
                continue
            queue.pods.append(pod)
        return queue

    def run(self, queue: RunQueue, batch: bool = True, progress=None, most_claims: int | None = None) -> Results:
        """Pop pods off ``queue`` until it is empty or a whole pass over it places nothing (as
        :meth:`solve`, whose loop this is; a queue may also come part-way, from :mod:`.resume`)."""
        results = self.results
        pods, last_len, refused = queue.pods, queue.last_len, queue.refused
        signatures, numbered = queue.signatures, queue.numbered
        journal = self.journal
        if journal is not None:   # its refusals are kept by these numbers: a resumed run numbers alike
            journal.numbered = numbered
        while pods:
            pod = pods[0]
            name = pod.key   # made afresh each time it is read
            if last_len.get(name) == len(pods):
                break  # a whole pass without progress
            pods.popleft()
            if batch:
                key = signatures.get(id(pod), signatures)
                if key is signatures:
                    found = self.prepared.signature(pod)
                    key = signatures[id(pod)] = None if found is None else numbered.setdefault(found, len(numbered))
            else:
                key = None
            earlier = refused.get(key) if key is not None else None
            tried = earlier is None or earlier[0] != self.changes
            if not tried:
                error = earlier[1]
                if earlier[2] in self.decisions:
                    self.decisions[name] = self.decisions[earlier[2]]
            else:
                error = self._try(pod)
                if error is not None and key is not None:
                    refused[key] = (self.changes, error, name)
            if error is None:
                results.errors.pop(name, None)
            else:
                results.errors[name] = error
                if tried:  # undo its relaxing (a pod answered from another was not relaxed: it is as it was)
                    self.topology.update(pod)
                    self._data[name] = self.prepared.pod_data(pod)
                pods.append(pod)
                last_len[name] = len(pods)
            if journal is not None:
                journal.popped(self, pod, error, key if tried and error is not None else None)
            if progress is not None:
                progress("Karpenter", queue.total - len(pods), queue.total)
            if most_claims is not None and len(results.claims) > most_claims:
                break
        return results

    def _try(self, pod: Pod) -> str | None:
        """Schedule ``pod``, relaxing it step by step; None when placed, else why not."""
        current = pod
        while True:
            self._reservation_refused = False
            error = self._add(current)
            if error is None:
                return None
            if self._reservation_refused:
                # Karpenter does not relax a pod refused for a reservation: it may fit a reservation
                # a later simulation frees (before v1.15, .reservations)
                return str(error)
            relaxed = relax(current, self.tolerate_prefer_no_schedule)
            if relaxed is None:
                return str(error)  # the text of the last try only, asked before anything changes
            current = relaxed
            self.topology.update(current)
            self._data[current.key] = PodData.of(current, self.respect)

    def data(self, pod: Pod) -> PodData:
        found = self._data.get(pod.key)
        if found is None:
            found = self._data[pod.key] = self.prepared.pod_data(pod)
        return found

    def volumes(self, pod: Pod) -> list:
        found = self._volumes.get(pod.key)
        if found is None:
            found = self._volumes[pod.key] = volume_requirements(pod, self.snapshot) or [None]
        return found

    def usage(self, pod: Pod) -> Volumes:
        """The pod's volumes by driver, as Karpenter counts them against volume limits."""
        found = self._usage.get(pod.key)
        if found is None:
            found = self._usage[pod.key] = pod_volumes(pod, self.snapshot) if pod.pvc_names else NONE
        return found

    def claim_volumes(self, pod: Pod) -> Volumes | None:
        """What a new NodeClaim's instance types must attach for ``pod`` (None: not counted)."""
        return self.usage(pod) if self.type_volume_limits else None

    def _add(self, pod: Pod) -> str | _Refusals | None:
        if pod.resource_claims:  # Karpenter's DRAError: the pod is tried, and refused, every time
            return DRA_NOT_SUPPORTED
        data = self.data(pod)
        if self.deciding:
            self.decisions[pod.key] = pool_verdicts(self, pod, data)
        if self._to_existing(pod, data):
            return None
        need = self.types.vector(data.requests, remember=True)
        # the NodeClaims full for a pod this size, or refusing its taints or requirements as they
        # stand, are left out (.inflight): the same tries, in the same order, that would not fail at once
        inflight = self.inflight
        for claim in inflight.candidates(need, data.reqs, pod.tolerations):
            if not claim.room_for(data.requests, need):
                continue
            try:
                reqs, rows = claim.can_add(pod, data, self.volumes(pod), why=False,
                                           relax_min_values=self.relax_min_values, volumes=self.claim_volumes(pod))
            except SchedulingError as exc:
                inflight.refused(need, data.reqs, pod.tolerations, claim, exc.kind)
                continue
            claim.add(pod, data, reqs, rows, self.claim_volumes(pod))
            inflight.joined(claim, data.requests)
            self._placed(pod, claim)
            return None
        if not self.templates:
            if not self.pools:
                return NO_NODEPOOLS
            detail = "; ".join(f'NodePool "{name}": {why}' for name, why in self.skipped.items())
            return f"{NO_TEMPLATES} ({detail})"
        return self._to_new_claim(pod, data)

    def _placed(self, pod: Pod, claim: NodeClaim) -> None:
        self.results.on_claim[pod.key] = claim
        self.changes += 1
        if self.journal is not None:
            self.journal.placed(self, pod, claim)

    # ---- existing nodes -----------------------------------------------------------------------
    def _to_existing(self, pod: Pod, data: PodData) -> bool:
        if not self.existing:
            return False
        need = base_vector(data.requests)
        masks = self.pool.masks
        mask = self._room(need) & masks.tolerated(pod.tolerations) & masks.admitted(data.reqs)
        beyond = self.pool.may_hold(data.requests)
        if beyond is not None:   # a GPU pod asks only nodes that may have its GPUs
            mask &= beyond
        if not mask.any():
            return False
        # what the topology will answer for each node, from its labels alone: spares building
        # requirements for the nodes it rules out
        hosts = []
        deciding = self.topology.deciding(pod)
        volumes = self.volumes(pod)
        counted = self.usage(pod) if self.pool.volume_limited else NONE
        if not deciding and not pod.host_ports and volumes == [None] and data.requests.keys() <= set(BASE) \
                and not counted and not self.pool.over_volume_limit:
            # nothing but the masks can refuse it: the first node they admit takes it
            for i in np.flatnonzero(mask):
                i = int(i)
                if pod.node_name and self.existing[i].name in self.settling:
                    continue
                self._join(i, pod, data, self.existing[i].reqs.plus(data.reqs.values()), need, counted)
                return True
            return False
        for group in deciding:
            if group.key == L.HOSTNAME:
                hosts.append(group)
            else:  # the domains the group leaves this pod, as a mask over the nodes' labels
                mask &= self.pool.within(group.key, group.allowed(pod, data.strict.get_or_exists(group.key)))
        pod_hosts = data.strict.get_or_exists(L.HOSTNAME)
        for i in np.flatnonzero(mask):
            i = int(i)
            node = self.existing[i]
            if pod.node_name and node.name in self.settling:
                continue  # a pod being moved by consolidation does not go to a node still settling
            if hosts and not all(g.allows_host(pod, node.hostname, pod_hosts) for g in hosts):
                continue
            try:
                reqs = node.can_add(pod, data, self.topology, self.volumes(pod), volumes=counted)
            except SchedulingError:
                continue
            self._join(i, pod, data, reqs, need, counted)
            return True
        return False

    def _room(self, need: np.ndarray) -> np.ndarray:
        """The live nodes with room for ``need`` (a copy to narrow). Kept per pod size and mended
        row by row as pods join: a workload's replicas ask with the same few sizes."""
        key = need.tobytes()
        found = self._fits.get(key)
        joined = self._joined
        if found is None:  # the pool's room before this run, then the nodes pods joined since
            found = self._fits[key] = [self._alive & self.pool.fitting(need), 0]
        if found[1] < len(joined):
            rows = np.array(joined[found[1]:], dtype=np.intp)  # a row twice is written twice, alike
            found[0][rows] &= (self._existing_free[rows] >= need).all(axis=1)
            found[1] = len(joined)
        return found[0].copy()

    def _join(self, i: int, pod: Pod, data: PodData, reqs: Reqs, need: np.ndarray, volumes: Volumes = NONE) -> None:
        node = self.existing[i]
        if i not in self._copied:
            node = self.existing[i] = node.fresh()
            self._copied.add(i)
        node.add(pod, data, reqs, self.topology, volumes)
        self._existing_free[i] -= need
        self._joined.append(i)
        self.results.on_existing[pod.key] = node
        self.changes += 1

    # ---- new NodeClaims --------------------------------------------------------------------------
    def _to_new_claim(self, pod: Pod, data: PodData) -> _Refusals | None:
        errors = []
        alike = self._alike(pod, data)
        for template in self.templates:
            # asked without the error's text: most pods a NodePool refuses the next one takes, and
            # the text (the instance type filter's, with every requirement) is only read when none does
            opened = self.open_claim(template, pod, data, self._name, why=False) if alike is None else \
                self._open_alike(template, pod, data, alike)
            if isinstance(opened, SchedulingError):
                errors.append(opened)
                if opened.kind == RESERVATIONS:  # no lower-weight NodePool while a reservation is compatible
                    self._reservation_refused = True
                    break
                continue
            claim, reqs, kept = opened
            remaining = self.remaining.get(template.name)
            claim.add(pod, data, reqs, kept, self.claim_volumes(pod))
            self.results.claims.append(claim)
            self._placed(pod, claim)
            if remaining:
                self.remaining[template.name] = self._less_largest(remaining, claim)
            return None
        return _Refusals(self, errors, pod, data)

    def _said(self, error: SchedulingError, pod: Pod, data: PodData) -> str:
        """The text of ``error``, which :meth:`open_claim` gave without it: the NodeClaim that refused
        the pod asked again, with the text (nothing changed since; asking changes nothing). Kept on
        the error: one refusal kept for pods alike (:meth:`_open_alike`) is read for each of them."""
        claim = error.claim
        if claim is None:  # the limits: their text is always given
            return str(error)
        if error.said is not None:
            return error.said
        try:
            claim.can_add(pod, data, self.volumes(pod), relax_min_values=self.relax_min_values,
                          volumes=self.claim_volumes(pod))
        except SchedulingError as exc:
            error.said = str(exc)
            return error.said
        raise AssertionError(f"NodeClaim {claim.name} took the pod {pod.key} it had refused")

    def _alike(self, pod: Pod, data: PodData) -> tuple | None:
        """What a new NodeClaim's answer to ``pod`` depends on, when nothing else does — then pods
        alike get the same answer from a NodeClaim of the same NodePool opened with the same
        instance types, and :meth:`_open_alike` works it out once. None when the answer also
        depends on the run so far: a topology group decides for the pod (its domains move as pods
        are placed), capacity reservations are counted (held as NodeClaims open), the pod has
        volumes, or it names a hostname (each NodeClaim has its own placeholder)."""
        if self.reservations is not None or L.HOSTNAME in data.reqs or self.volumes(pod) != [None] \
                or self.claim_volumes(pod) or self.topology.deciding(pod):
            return None
        try:
            key = (data.reqs, data.requests, pod.tolerations, pod.host_ports)
            hash(key)
        except TypeError:
            return None
        return key

    def _open_alike(self, template: Template, pod: Pod, data: PodData, alike: tuple) \
            -> tuple[NodeClaim, Reqs, np.ndarray] | SchedulingError:
        """:meth:`open_claim` for a pod whose answer depends only on ``alike`` (:meth:`_alike`), the
        NodePool and the instance types its limits leave: worked out for the first such pod, then
        given again — a new NodeClaim with the first one's requirements (its own hostname in) and
        instance types, or the same refusal. The NodeClaim is named, and a refused one given its
        placeholder hostname, as if it were opened (the names that follow stay the same)."""
        rows = self._limited_rows(template)
        if isinstance(rows, SchedulingError):
            return rows
        key = (template.name, rows.tobytes(), alike)
        found = self._opened.get(key)
        if found is None:
            opened = self.open_claim(template, pod, data, self._name, why=False)
            self._opened[key] = opened if isinstance(opened, SchedulingError) else opened[1:]
            return opened
        name = self._name(template.name)
        if isinstance(found, SchedulingError):
            skip_placeholder()
            return found
        claim = NodeClaim(template, self.topology, self.types, rows, name, self.reservations)
        reqs, kept = found
        return claim, reqs.replacing(claim.reqs[L.HOSTNAME]), kept

    def open_claim(self, template: Template, pod: Pod, data: PodData, name=lambda pool: "", why: bool = True) \
            -> tuple[NodeClaim, Reqs, np.ndarray] | SchedulingError:
        """A new NodeClaim of ``template`` that would take ``pod`` (not yet added: the claim, the
        requirements and instance type rows it would have), or why not — the limits, then
        :meth:`NodeClaim.can_add`. The scheduler opens NodeClaims with it; the NodePool decision
        table (:mod:`.nodepool_verdicts`) asks it about every NodePool. ``name(pool)`` names the claim;
        ``why`` False leaves :meth:`NodeClaim.can_add`'s text out (the error's ``claim`` gives it)."""
        rows = self._limited_rows(template)
        if isinstance(rows, SchedulingError):
            return rows
        claim = NodeClaim(template, self.topology, self.types, rows, name(template.name), self.reservations)
        try:
            reqs, kept = claim.can_add(pod, data, self.volumes(pod), why=why, relax_min_values=self.relax_min_values,
                                       volumes=self.claim_volumes(pod))
        except SchedulingError as exc:
            exc.claim = claim
            # returned, not raised: without its traceback (whose frames lead back to the caller
            # holding it, a reference cycle only the collector would free)
            return exc.with_traceback(None)
        return claim, reqs, kept

    def _limited_rows(self, template: Template) -> np.ndarray | SchedulingError:
        """Positions of the template's types a new NodeClaim may have under its NodePool's limits,
        or the limits' refusal."""
        remaining = self.remaining.get(template.name)
        if not remaining:
            return self.limits_answer(template, remaining)
        last = self._limited.get(template.name)
        if last is not None and last[0] is remaining:  # what the limits leave is replaced, never changed
            return last[1]
        rows = self._limited[template.name] = (remaining, self.limits_answer(template, remaining))
        return rows[1]

    def limits_answer(self, template: Template, remaining: Resources | None) -> np.ndarray | SchedulingError:
        """What a new NodeClaim of ``template`` meets of its NodePool's limits when they leave ``remaining``
        (:meth:`_limited_rows`, for any remainder: .resume compares two runs' answers)."""
        if not remaining:
            return np.arange(len(template.rows), dtype=np.intp)
        return self._limits_leave(template, remaining)

    def _limits_leave(self, template: Template, remaining: Resources) -> np.ndarray | SchedulingError:
        if "nodes" in remaining and remaining["nodes"] == 0:
            return SchedulingError(f"node limits have been exhausted for nodepool (NodePool={template.name})",
                                   LIMITS, key="nodes")
        rows = self._within_limits(template, remaining)
        if not rows.size:
            return SchedulingError(f"all available instance types exceed limits for nodepool "
                                   f"(NodePool={template.name})", LIMITS)
        return rows

    def _name(self, pool: str) -> str:
        """A NodeClaim name no node or NodeClaim of the cluster has yet."""
        taken = self._taken
        if taken is None:
            taken = self._taken = set(self.prepared.names_taken(self.snapshot))
        start = len(self.results.claims)
        # names only get taken: a start asked before goes on after the name it gave last (pods that
        # no NodePool takes ask for a name each try, all at the same start)
        index = self._named.get((pool, start), start)
        while (name := claim_name(pool, index)) in taken:
            index += 1000
        taken.add(name)
        self._named[(pool, start)] = index
        if self.journal is not None:
            self.journal.named((pool, start), index, name)
        return name

    def _within_limits(self, template: Template, remaining: Resources) -> np.ndarray:
        """Positions of template types whose whole capacity fits what the limits leave (kept per
        NodePool and remainder for every run over the same templates: consolidation's simulations
        open the same NodeClaims under the same limits again and again)."""
        cache = self.prepared.within_limits
        key = (template.name, tuple(remaining.items()))  # a zero left is a limit, unlike no entry
        found = cache.get(key)
        if found is None:
            found = cache[key] = self.fit_limits(template, remaining)
            found.setflags(write=False)  # shared by every NodeClaim opened under these limits
        return found

    def fit_limits(self, template: Template, remaining: Resources) -> np.ndarray:
        """Positions of the template's types whose whole capacity fits ``remaining`` (what its
        NodePool's limits leave), asked afresh."""
        types = self.types
        capacity = self.prepared.capacity_of(template)
        ok = np.ones(len(template.rows), dtype=bool)
        for name, left in remaining.items():
            column = types.columns.get(name)
            if column is None:
                if left < 0:
                    ok[:] = False  # no type has any of it, and even none is more than a negative remainder
                continue
            ok &= capacity[column] <= left
        return np.flatnonzero(ok)

    # ---- a run done again from its record (.resume) -----------------------------------------------
    # what :func:`.resume.resume` does to this scheduler, step by recorded step, instead of searching:
    # the same bookkeeping as the run's own placements and names

    def replay_name(self, key: tuple[str, int], index: int, name: str) -> None:
        """A NodeClaim name given at ``index`` for ``key`` ((NodePool, first index)), as :meth:`_name` gives it."""
        if self._taken is None:
            self._taken = set(self.prepared.names_taken(self.snapshot))
        self._taken.add(name)
        self._named[key] = index

    def replay_relaxed(self, pod: Pod, data: PodData) -> None:
        """``pod`` placed as a relaxed copy: its groups and its data as :meth:`_try` leaves them."""
        self.topology.update(pod)
        self._data[pod.key] = data

    def replay_open(self, template: Template, name: str, pod: Pod, data: PodData, reqs: Reqs, rows) -> NodeClaim:
        """A NodeClaim of ``template`` opened for ``pod`` with the requirements and type rows recorded
        (its hostname the one its requirements name), and the NodePool's limits less its largest type."""
        limited = self._limited_rows(template)
        if isinstance(limited, SchedulingError):
            raise AssertionError(f"replayed NodeClaim of {template.name} refused by the limits")
        claim = NodeClaim(template, self.topology, self.types, limited, name, self.reservations)
        claim.hostname = next(iter(reqs[L.HOSTNAME].values))
        claim.add(pod, data, reqs, rows, self.claim_volumes(pod))
        self.results.claims.append(claim)
        self._placed(pod, claim)
        remaining = self.remaining.get(template.name)
        if remaining:
            self.remaining[template.name] = self._less_largest(remaining, claim)
        return claim

    def replay_join(self, claim: NodeClaim, pod: Pod, data: PodData, reqs: Reqs, rows) -> None:
        """``pod`` joined to the run's ``claim`` with the requirements and type rows recorded."""
        claim.add(pod, data, reqs, rows, self.claim_volumes(pod))
        self._placed(pod, claim)

    def new_claim_refusal(self, pod: Pod, data: PodData) -> str | None:
        """Every NodePool's refusal of a new NodeClaim for ``pod``, as its run's error says it; None
        when one takes it (that NodeClaim is then open in this run)."""
        said = self._to_new_claim(pod, data)
        return None if said is None else str(said)

    def _less_largest(self, remaining: Resources, claim: NodeClaim) -> Resources:
        """subtractMax: take off the largest capacity of the types the NodeClaim may still be."""
        largest = self.largest(claim.template, claim.rows)
        out = {}
        for name, left in remaining.items():
            column = self.types.columns.get(name)
            out[name] = left - (int(largest[column]) if column is not None else 0)
        return Resources(out)

    def largest(self, template: Template, rows: np.ndarray) -> np.ndarray:
        """The largest capacity, per resource column, of the template's types at ``rows``: what a NodeClaim
        that may still be those types takes off its NodePool's limits (:meth:`_less_largest`; kept with a
        recorded run too: .resume)."""
        capacity = self.types.capacity[template.rows[rows]]
        return capacity.max(axis=0) if len(capacity) else np.zeros(len(self.types.columns), dtype=np.int64)


class _Refusals:
    """Every NodePool's refusal of a pod, its text made when read (``str``). A pod relaxed after
    failing is tried again, so only its last try's text is ever read (the run's error for it): the
    texts of the tries before it, each NodePool's filter asked again, were made for nothing. Read
    before the scheduler changes (:meth:`Scheduler._try` reads it as soon as it gives up), the text
    is the one made at once."""

    __slots__ = ("scheduler", "errors", "pod", "data")

    def __init__(self, scheduler: Scheduler, errors: list[SchedulingError], pod: Pod, data: PodData) -> None:
        self.scheduler, self.errors, self.pod, self.data = scheduler, errors, pod, data

    def __str__(self) -> str:
        return "; ".join(self.scheduler._said(error, self.pod, self.data) for error in self.errors)


def _topology_keys(pods: Sequence[Pod], state: ClusterState) -> frozenset[str]:
    """The topology keys this run can ask about: the pending pods' and the bound pods' anti-affinity."""
    keys = set()
    read = set()   # a workload's pods share these objects: each read once
    for pod in pods:
        shape = (id(pod.spread_constraints), id(pod.affinity))
        if shape in read:
            continue
        read.add(shape)
        keys |= {c.topology_key for c in pod.spread_constraints}
        affinity = pod.affinity
        for terms in (affinity.pod_required, affinity.anti_required):
            keys |= {t.topology_key for t in terms}
        for terms in (affinity.pod_preferred, affinity.anti_preferred):
            keys |= {w.term.topology_key for w in terms}
    keys |= {key for (_, key) in term_index(state).anti}
    return frozenset(keys)


def _only(sources, keys: frozenset[str]):
    """The pools' requirements cut down to the keys that matter (the types' are already cut)."""
    for pool_reqs, type_reqs, taints in sources:
        yield Reqs(r for k, r in pool_reqs.items() if k in keys), type_reqs, taints
