"""NodeClaim templates (one per NodePool) and the NodeClaims a scheduling run opens.

A template holds the NodePool's requirements — its own, its template labels,
``karpenter.sh/nodepool``, and ``karpenter.sh/registered`` /
``karpenter.sh/initialized`` as a node will carry them — its taints, and the
instance types those requirements leave. DaemonSets that would run on its
nodes add their requests to each type they fit (types that differ in which
DaemonSets run on them form separate overhead groups) and their host ports.

A NodeClaim starts from a template and is narrowed by every pod packed in: a
pod joins when it tolerates the taints, its requirements are compatible, the
topology allows a domain, and at least one instance type is left that meets
the narrowed requirements, has an offering they allow, and holds every pod's
requests plus its DaemonSet overhead. Follows Karpenter's ``nodeclaim.go``
and ``nodeclaimtemplate.go``.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from ...model import NodePool, Pod
from ...model import labels as L
from ...model.pod import HostPort
from ...model.resources import PODS, Resources
from ...model.taints import EFFECTS, first_untolerated, tolerates_all
from ..plugins.node_ports import conflicts
from .instancetypes import SMALL, TypeSet, Vector, resources_text
from .preferences import PREFER_NO_SCHEDULE_TOLERATION, pod_requirements
from .requirements import Req, Reqs
from .reservations import RESERVED, ReservedOfferingError, Reservations, tracked
from .topology import Topology, TopologyError
from .volumeusage import NONE, Volumes, union

MAX_INSTANCE_TYPES = 600  # Karpenter hands at most this many types, cheapest first, to the cloud provider


# What ruled a new NodeClaim out for a pod: the NodePool's limits (the scheduler checks them first), then
# in the order NodeClaim.can_add checks; the NodePool decision table (nodepool_verdicts) names its verdict by it
LIMITS, TAINTS, REQUIREMENTS, VOLUMES, TOPOLOGY, INSTANCE_TYPES, MIN_VALUES, RESERVATIONS = (
    "limits", "taints", "requirements", "volumes", "topology", "instance-types", "min-values", "reservations")


class SchedulingError(Exception):
    """Why a pod cannot go on a NodeClaim or node; the text is Karpenter's. ``kind`` says which check
    refused it, ``key`` the requirement's label when requirements conflict, ``reqs`` and ``requests``
    what the instance types were filtered with when none was left, ``claim`` the NodeClaim that refused."""

    def __init__(self, text: str = "", kind: str = "", key: str | None = None, reqs=None, requests=None) -> None:
        super().__init__(text)
        self.kind, self.key, self.reqs, self.requests = kind, key, reqs, requests
        self.claim: NodeClaim | None = None
        self.said: str | None = None   # the text, once asked of ``claim`` (Scheduler._said)


@dataclass(frozen=True, slots=True)
class DaemonGroup:
    """Instance types (rows of the TypeSet) on which the same DaemonSet pods would run."""

    rows: np.ndarray
    overhead: Resources
    ports: tuple[HostPort, ...]


@dataclass(frozen=True, slots=True)
class Template:
    pool: NodePool
    reqs: Reqs
    taints: tuple
    rows: np.ndarray             # TypeSet rows this NodePool can launch
    groups: tuple[DaemonGroup, ...]
    overhead: np.ndarray         # per row of ``rows``: its group's DaemonSet requests, as TypeSet columns
    group_of: np.ndarray         # per row of ``rows``: which group

    @property
    def name(self) -> str:
        return self.pool.name

    @property
    def weight(self) -> int:
        return self.pool.weight


def template_requirements(pool: NodePool) -> Reqs:
    label = L.PROVISIONER_NAME if pool.kind == "Provisioner" else L.NODEPOOL
    labels = {**pool.template_labels, label: pool.name}
    ref = pool.node_class_ref
    if ref is not None and ref.group and ref.kind:
        labels[f"{ref.group}/{ref.kind.lower()}"] = ref.name
    reqs = Reqs.from_model(pool.requirements).plus(Reqs.from_labels(labels).values())
    return reqs.plus((Req.one(L.NODE_REGISTERED, "true"), Req.one(L.NODE_INITIALIZED, "true")))


def daemon_compatible(pod: Pod, reqs: Reqs, taints, types: TypeSet, rows: np.ndarray,
                      allow: frozenset[str]) -> np.ndarray:
    """For each row: would this DaemonSet pod run on a node of the template with that type?

    The pod tolerates PreferNoSchedule (a DaemonSet ignores the preference) and every other
    taint; its required node affinity terms are tried one after another (they are ORed).
    """
    out = np.zeros(len(rows), dtype=bool)
    if not tolerates_all(taints, pod.tolerations + (PREFER_NO_SCHEDULE_TOLERATION,)):
        return out
    required = pod.affinity.node_required
    terms = required.terms if required is not None and required.terms else (None,)
    for k in range(len(terms)):
        current = pod if terms[0] is None else replace(
            pod, affinity=replace(pod.affinity, node_required=replace(required, terms=terms[k:])))
        strict = pod_requirements(current, strict=True)
        if reqs.compatible(strict, allow, why=False) is not None:
            continue
        out |= types.compatible_mask(strict)[rows]
    return out


def build_template(pool: NodePool, types: TypeSet, daemons: Sequence[Pod],
                   relax_min_values: bool = False) -> Template | str:
    """The NodePool's template, or why its requirements leave no instance type. ``relax_min_values``
    (MIN_VALUES_POLICY=BestEffort): a pool whose minValues its types cannot meet is kept, and its
    minValues are lowered when a NodeClaim is made from it."""
    reqs = template_requirements(pool)
    compatible, offered = types.compatible_mask(reqs), types.offered_mask(reqs)
    rows = np.flatnonzero(compatible & offered & (types.allocatable >= 0).all(axis=1))
    if not rows.size:
        if not compatible.any():
            return f"no instance type met the requirements {reqs}"
        return f"no instance type meeting the requirements had an available offering, requirements={reqs}"
    short = types.min_values_shortfall(rows, reqs)
    if short and not relax_min_values:
        return f"minValues requirement is not met for label(s) {sorted(short)}, requirements={reqs}"
    fits = [daemon_compatible(d, reqs, pool.taints, types, rows, types.well_known) for d in daemons]
    keys = [tuple(j for j in range(len(daemons)) if fits[j][r]) for r in range(len(rows))] if daemons else \
        [()] * len(rows)
    groups, group_of = [], np.zeros(len(rows), dtype=np.intp)
    seen: dict[tuple, int] = {}
    for r, key in enumerate(keys):
        g = seen.get(key)
        if g is None:
            g = seen[key] = len(groups)
            pods = [daemons[j] for j in key]
            overhead = sum((p.requests for p in pods), Resources()) + Resources({PODS: len(pods)}) if pods \
                else Resources()
            groups.append((overhead, tuple(p for d in pods for p in d.host_ports), []))
        groups[g][2].append(r)
        group_of[r] = g
    overhead = np.zeros((len(rows), len(types.columns)), dtype=np.int64)
    built = []
    for g, (amount, ports, members) in enumerate(groups):
        overhead[members] = types.vector(amount).values
        built.append(DaemonGroup(np.array(members, dtype=np.intp), amount, ports))
    return Template(pool, reqs, pool.taints, rows, tuple(built), overhead, group_of)


_hostnames = itertools.count(1)


def skip_placeholder() -> None:
    """Use up the placeholder hostname a NodeClaim opened now would have taken: the scheduler gives a
    kept refusal instead of opening one (Scheduler._open_alike), and the NodeClaims opened after it
    keep the hostnames they had."""
    next(_hostnames)


class NodeClaim:
    """A node Karpenter would launch, narrowed by the pods packed into it."""

    def __init__(self, template: Template, topology: Topology, types: TypeSet, rows: np.ndarray,
                 name: str, reservations: Reservations | None = None) -> None:
        self.template, self.topology, self.types = template, topology, types
        # the simulation's capacity reservations, if the catalog names any; those this NodeClaim holds
        self.reservations = reservations
        self.reserved: frozenset[str] = frozenset()
        self._to_reserve: tuple = (None, frozenset())  # (rows can_add answered, the reservations they hold)
        self.name = name
        self.hostname = f"hostname-placeholder-{next(_hostnames):04d}"
        self.reqs = template.reqs.plus((Req.one(L.HOSTNAME, self.hostname),))
        self.rows = rows                      # positions in template.rows still possible
        self.requests = Resources()
        self.volumes: Volumes = NONE              # its pods' volumes by driver (counted from v1.15)
        self.pods: list[Pod] = []
        self.ports: list[list[HostPort]] = [list(g.ports) for g in template.groups]
        self._room: np.ndarray | None = None
        self._used = types.vector(self.requests)   # self.requests as a row, kept with it
        self._said: dict[int, tuple] = {}          # id(pod's row) -> (that row, room_for's answer) until a pod joins
        self._free_of: np.ndarray | None = None    # the rows _free was worked out for
        self._free: tuple = ()                      # (TypeSet rows, allocatable less overhead or None)
        self._options: tuple | None = None          # (rows, reqs, type_rows()'s answer for them)

    @property
    def taints(self):
        return self.template.taints

    def room(self) -> np.ndarray | None:
        """Per resource, the most any remaining type holds less its DaemonSet overhead (None: no type
        left); kept while the types stay. What :meth:`room_for` and the in-flight lists compare with."""
        if self._room is None and len(self.rows):
            self._room = (self.types.allocatable_max[self.template.rows[self.rows]]
                          - self.template.overhead[self.rows]).max(axis=0)
        return self._room

    @property
    def used(self) -> Vector:
        """The NodeClaim's requests as a row (kept with them)."""
        return self._used

    def room_for(self, requests: Resources, need: Vector | None = None) -> bool:
        """A quick necessary test: some remaining type has room, per resource, for these requests too.

        Most in-flight NodeClaims are full for most pods; this spares the requirement and
        topology work for them. ``need``: ``requests`` as a row, if the caller has it; pods of a
        few sizes ask again and again between two pods joining, so the answer is kept per row.
        """
        room = self.room()
        if room is None:
            return False
        if need is None:  # a row of the caller's own: nothing to remember it by
            need = self.types.vector(requests)
            keep = False
        else:
            keep = True
        said = self._said.get(id(need))
        if said is not None and said[0] is need:
            return said[1]
        used = self._used
        if need.unknown is None and used.unknown is None and need.small and used.small:
            # the rows add as the resource lists would: spares summing a list per pod per NodeClaim
            answer = bool((used.values + need.values <= room).all())
        else:
            total = self.types.vector(self.requests + requests)
            answer = total.unknown is None and bool((total.values <= room).all())
        if keep:
            self._said[id(need)] = (need, answer)
        return answer

    def can_add(self, pod: Pod, data, volume_reqs: Sequence[Reqs | None] = (None,), why: bool = True,
                relax_min_values: bool = False, volumes: Volumes | None = None) -> tuple[Reqs, np.ndarray]:
        """The NodeClaim's requirements and instance type rows with ``pod`` in; SchedulingError if not.

        ``volumes``: the pod's volumes, when the instance types' volume limits count (v1.15 on, the
        scheduler decides): types that cannot attach the NodeClaim's volumes and the pod's drop."""
        taints = self.template.taints
        if not tolerates_all(taints, pod.tolerations):
            raise SchedulingError(_taint_error(taints, pod) if why else "", TAINTS)
        rows = self.rows
        if volumes and self.types.has_volume_limits:
            prospective = union(self.volumes, volumes)
            type_rows = self.template.rows[rows]
            rows = rows[self.types.volumes_fit(type_rows, prospective)]
            if not rows.size:
                raise SchedulingError(self.types.volume_limit_error(type_rows, prospective), VOLUMES)
        allow = self.types.well_known
        error = self.reqs.compatible(data.reqs, allow, why)
        if error is not None:
            raise SchedulingError(f"incompatible requirements, {error}" if why else "", REQUIREMENTS,
                                  self.reqs.compatible(data.reqs, allow, why=False) if why else None)
        base = self.reqs.plus(data.reqs.values())
        for n, volume in enumerate(volume_reqs, 1):
            try:
                return self._reserving(*self._try(pod, data, base, volume, why, relax_min_values, rows), why,
                                       pod, data)
            except SchedulingError:
                if n == len(volume_reqs):
                    raise  # the last option's error (not kept in a local: that would make a reference cycle)
        raise SchedulingError("no volume requirements to try")

    def _try(self, pod: Pod, data, base: Reqs, volume: Reqs | None, why: bool, relax_min_values: bool,
             rows: np.ndarray):
        allow = self.types.well_known
        reqs = base
        if volume is not None:
            error = reqs.compatible(volume, allow, why)
            if error is not None:
                raise SchedulingError(f"incompatible volume requirements, {error}" if why else "", VOLUMES)
            reqs = reqs.plus(volume.values())
        try:
            narrowed = self.topology.add_requirements(pod, self.template.taints, data.strict, reqs, allow)
        except TopologyError as exc:
            raise SchedulingError(str(exc) if why else "", TOPOLOGY) from None
        error = reqs.compatible(narrowed, allow, why)
        if error is not None:
            raise SchedulingError(error if why else "", TOPOLOGY)
        reqs = reqs.plus(narrowed.values())
        requests = self.requests + data.requests
        options = rows
        rows = self._remaining(pod, reqs, requests, options)
        if not rows.size:
            raise SchedulingError(self._filter_error(pod, reqs, requests, data.requests, options) if why else "",
                                  INSTANCE_TYPES, reqs=reqs, requests=requests)
        if any(r.min_values is not None for r in reqs.values()):
            short = self.types.min_values_shortfall(self.template.rows[rows], reqs)
            if short and not relax_min_values:
                raise SchedulingError(f"minValues requirement is not met for label(s) {sorted(short)}, "
                                      f"requirements={reqs}, resources={self._resources_text(pod, data.requests)}"
                                      if why else "", MIN_VALUES, reqs=reqs, requests=requests)
            if short:
                # BestEffort: minValues becomes what is left (Karpenter sets it, not intersects it)
                reqs = Reqs(replace(r, min_values=short[k]) if k in short else r for k, r in reqs.items())
        return reqs, rows

    def _reserving(self, reqs: Reqs, rows: np.ndarray, why: bool, pod: Pod, data) -> tuple[Reqs, np.ndarray]:
        """The reservations the NodeClaim would hold with these rows, kept for :meth:`add`;
        SchedulingError (kind RESERVATIONS) where Karpenter refuses the pod for a reservation. From
        v1.15 the types whose only offerings are full reservations drop out (.reservations); none
        left, the pod does not go here: no instance type has an offering to launch into."""
        if self.reservations:
            type_rows = self.template.rows[rows]
            try:
                ids = self.reservations.to_reserve(self.hostname, self.reserved, self.types,
                                                   type_rows, reqs, self.template.name)
            except ReservedOfferingError as exc:
                raise SchedulingError(str(exc) if why else "", RESERVATIONS) from None
            keep = self.reservations.launchable(self.types, type_rows, reqs, ids)
            if keep is not None:
                rows = rows[keep]
                if not rows.size:
                    raise SchedulingError(f"no instance type has the required offering, requirements={reqs}, "
                                          f"resources={self._resources_text(pod, data.requests)} (every compatible "
                                          "capacity reservation is full)" if why else "", INSTANCE_TYPES, reqs=reqs)
            self._to_reserve = (rows, ids)
        return reqs, rows

    def _ports_ok(self, pod: Pod) -> np.ndarray:
        """Per overhead group: the pod's host ports are free on such a node."""
        return np.array([not any(conflicts(w, u) for w in pod.host_ports for u in used) for used in self.ports],
                        dtype=bool)

    def _masks(self, pod: Pod, reqs: Reqs, requests: Resources, rows: np.ndarray):
        """(compatible, fits, offered) over ``rows`` (positions in template.rows)."""
        types, template = self.types, self.template
        if self._free_of is not rows:
            type_rows, overhead = template.rows[rows], template.overhead[rows]
            small = bool(((overhead >= 0) & (overhead <= SMALL)).all())
            self._free = (type_rows, types.allocatable[type_rows] - overhead if small else None)
            self._free_of = rows
        type_rows, free = self._free
        mine = self.reqs
        changed = [k for k, r in reqs.items() if r is not (old := mine.get(k)) and r != old]
        compatible = types.compatible_mask(reqs, changed)[type_rows] if changed else np.ones(len(rows), bool)
        offered = types.offered_mask(reqs)[type_rows]
        need = types.vector(requests)
        if need.unknown is not None:
            fits = np.zeros(len(rows), dtype=bool)
        elif need.small and free is not None:  # both sides stay in int64: the same comparison, rearranged
            fits = (free >= need.values).all(axis=1)
        else:
            fits = (types.allocatable[type_rows] >= need.values + template.overhead[rows]).all(axis=1)
        if types.groups and need.unknown is None:  # offerings with their own allocatable
            fits = types.group_fits(type_rows, fits, need.values + template.overhead[rows], reqs)
        if pod.host_ports:
            fits &= self._ports_ok(pod)[template.group_of[rows]]
        return compatible, fits, offered

    def narrowing(self, pod: Pod, reqs: Reqs, requests: Resources) -> tuple[tuple[str, int], ...]:
        """How many of the catalog's instance types each filter took away, in Karpenter's order: the
        NodePool's requirements and offerings (its template), the limits (the rows this NodeClaim was
        opened with), then the pod's requirements, resources, DaemonSet overhead (and host ports),
        offerings under the merged requirements — the masks :meth:`can_add` decides with, counted
        one after another (Karpenter tests the last three together; this shows which bit)."""
        types, template = self.types, self.template
        pool_compatible = int(types.compatible_mask(template.reqs).sum())
        compatible, fits, offered = self._masks(pod, reqs, requests, self.rows)
        type_rows = template.rows[self.rows]
        need = types.vector(requests)
        bare = np.zeros(len(self.rows), dtype=bool) if need.unknown is not None else \
            (types.allocatable_max[type_rows] >= need.values).all(axis=1)
        steps = [("nodepool requirements", len(types.types) - pool_compatible),
                 ("nodepool offerings", pool_compatible - len(template.rows)),
                 ("limits", len(template.rows) - len(self.rows))]
        left = np.ones(len(self.rows), dtype=bool)
        for name, mask in (("requirements", compatible), ("resources", bare), ("daemonset overhead", fits),
                           ("offerings", offered)):
            steps.append((name, int((left & ~mask).sum())))
            left &= mask
        return tuple(steps)

    def _remaining(self, pod: Pod, reqs: Reqs, requests: Resources, rows: np.ndarray) -> np.ndarray:
        compatible, fits, offered = self._masks(pod, reqs, requests, rows)
        return rows[compatible & fits & offered]

    def _resources_text(self, pod: Pod, requests: Resources) -> str:
        """The pod's requests with the DaemonSet overhead of the groups it could join: one figure,
        or ``min=..., max=...`` when the groups differ (Karpenter's resourcesString)."""
        ports = self._ports_ok(pod) if pod.host_ports else np.ones(len(self.template.groups), dtype=bool)
        overheads = [g.overhead for g, ok in zip(self.template.groups, ports) if ok and g.overhead]
        if not overheads:
            return resources_text(requests)
        names = set().union(*overheads)
        low = Resources({n: min(o.get(n, 0) for o in overheads) for n in names})
        high = Resources({n: max(o.get(n, 0) for o in overheads) for n in names})
        low_text, high_text = resources_text(low + requests), resources_text(high + requests)
        return low_text if low_text == high_text else f"min={low_text}, max={high_text}"

    def _filter_error(self, pod: Pod, reqs: Reqs, requests: Resources, data_requests: Resources,
                      rows: np.ndarray) -> str:
        """Karpenter's InstanceTypeFilterError: which of requirements / resources / offering ruled
        every instance type out, alone or in pairs."""
        compatible, fits, offered = self._masks(pod, reqs, requests, rows)
        has_fit = fits & offered
        met, fit, offer = compatible.any(), has_fit.any(), offered.any()
        req_and_offer = (compatible & offered & ~has_fit).any()
        fit_and_offer = (has_fit & ~compatible).any()
        text = f"requirements={reqs}, resources={self._resources_text(pod, data_requests)}"
        if not met and not fit and not offer:
            return f"no instance type met the scheduling requirements or had enough resources or had a required offering, {text}"
        if not met and not fit:
            return f"no instance type met the scheduling requirements or had enough resources, {text}"
        if not met and not offer:
            return f"no instance type met the scheduling requirements or had a required offering, {text}"
        if not fit and not offer:
            return f"no instance type had enough resources or had a required offering, {text}"
        if not met:
            return f"no instance type met all requirements, {text}"
        if not fit:
            return f"no instance type has enough resources, {text}"
        if not offer:
            return f"no instance type has the required offering, {text}"
        if fit_and_offer:
            return f"no instance type which had enough resources and the required offering met the scheduling requirements, {text}"
        if req_and_offer:
            return f"no instance type which met the scheduling requirements and the required offering had the required resources, {text}"
        return f"no instance type met the requirements/resources/offering tuple, {text}"

    def add(self, pod: Pod, data, reqs: Reqs, rows: np.ndarray, volumes: Volumes | None = None) -> None:
        self.pods.append(pod)
        if volumes:
            self.volumes = union(self.volumes, volumes)
        if len(rows) != len(self.rows):
            self._room = None
        self.rows = rows
        self.requests = self.requests + data.requests
        self._used = self.types.vector(self.requests)
        self._said = {}
        self.reqs = reqs
        if self.reservations:
            held_rows, ids = self._to_reserve
            if held_rows is not rows:
                ids = self.reservations.to_reserve(self.hostname, self.reserved, self.types,
                                                   self.template.rows[rows], reqs, self.template.name)
            self.reservations.hold(self.hostname, self.reserved, ids)
            self.reserved = ids
            self._to_reserve = (None, frozenset())
        self.topology.register(L.HOSTNAME, self.hostname)
        self.topology.record(pod, self.template.taints, reqs, self.types.well_known)
        if pod.host_ports:
            for used in self.ports:
                used.extend(pod.host_ports)

    # ---- after scheduling ----------------------------------------------------------------------
    def type_rows(self) -> list[int]:
        """TypeSet rows left, cheapest first, at most MAX_INSTANCE_TYPES (the NodeClaim's options);
        kept while its rows and requirements stay (the plan asks twice, sorting hundreds of types)."""
        kept = self._options
        if kept is None or kept[0] is not self.rows or kept[1] is not self.reqs:
            kept = self._options = (self.rows, self.reqs, self.options(self.rows, self.reqs))
        return list(kept[2])

    def options(self, rows: np.ndarray, reqs: Reqs) -> list[int]:
        """The instance type options ``rows`` (positions in the template's rows) give under ``reqs``:
        TypeSet rows, cheapest first, at most MAX_INSTANCE_TYPES."""
        return self.types.by_price(self.template.rows[rows].tolist(), reqs)[:MAX_INSTANCE_TYPES]

    def scheduled_requirements(self) -> Reqs:
        """The scheduling result's requirements, as Karpenter's FinalizeScheduling leaves them: no
        placeholder hostname, and a NodeClaim holding reservations pinned to capacity type reserved and
        to those reservations (so it launches into one it holds, not into any reserved offering).
        Consolidation prices and launches its replacement under these."""
        reqs = self.reqs.without(L.HOSTNAME)
        if self.reserved:
            reqs = reqs.plus((Req(L.CAPACITY_TYPE, False, frozenset({RESERVED})),
                              Req(L.CAPACITY_RESERVATION_ID, False, self.reserved)))
        return reqs

    def final_requirements(self) -> Reqs:
        """What the NodeClaim object would say: its scheduled requirements (:meth:`scheduled_requirements`),
        and the instance types and capacity types of its options."""
        reqs = self.scheduled_requirements()
        rows = self.type_rows()
        names = frozenset(self.types.types[i].name for i in rows)
        kinds = self.types.capacity_types(rows, reqs.get(L.ZONE), reqs.get(L.CAPACITY_TYPE), self.reserved)
        extra = [Req(L.INSTANCE_TYPE, False, names, min_values=reqs.get_or_exists(L.INSTANCE_TYPE).min_values)]
        if kinds and not self.reserved:
            extra.append(Req(L.CAPACITY_TYPE, False, kinds))
        return reqs.plus(extra)

    def min_values_relaxed(self) -> bool:
        """Karpenter's ``karpenter.sh/nodeclaim-min-values-relaxed``: some requirement's minValues is
        lower than its NodePool asks (MIN_VALUES_POLICY=BestEffort lowered it)."""
        asked = self.template.reqs
        return any(r.min_values is not None and k in asked and asked[k].min_values is not None
                   and r.min_values < asked[k].min_values for k, r in self.reqs.items())

    def daemon_requests(self) -> Resources:
        """The smallest DaemonSet overhead among the groups some remaining type belongs to."""
        used = set(self.template.group_of[self.rows].tolist())
        amounts = [self.template.groups[g].overhead for g in used]
        if not amounts:
            return Resources()
        names = set().union(*amounts)
        return Resources({n: min(a.get(n, 0) for a in amounts) for n in names})


def _taint_error(taints, pod: Pod) -> str:
    taint = first_untolerated(taints, pod.tolerations, EFFECTS)
    if taint is None:
        return "did not tolerate taint"
    value = f"={taint.value}" if taint.value else ""
    return f"did not tolerate taint (taint={taint.key}{value}:{taint.effect})"
