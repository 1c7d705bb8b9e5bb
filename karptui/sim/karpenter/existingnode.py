"""Nodes that already exist (or are on their way) as Karpenter's scheduler sees them.

Karpenter tries every pending pod on the cluster's nodes before it thinks of
launching one: ready nodes, nodes still initializing and NodeClaims launched
but not yet registered. Initialized nodes are tried first, then by name; the
first that takes the pod wins. A node takes a pod when the pod tolerates its
taints (an uninitialized Karpenter node's startup taints and the kubelet's
not-ready taints do not count: they will go), its host ports are free, the
pod's requests fit what is left (less the DaemonSet pods still to arrive),
its labels satisfy the pod's requirements, its CSINode's volume limits have room for the pod's
volumes (:mod:`.volumeusage`), and the topology allows its domain (Karpenter's ``existingnode.go``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from ...model import Node, NodeClaim as NodeClaimObject, Pod
from ...model import labels as L
from ...model.pod import HostPort
from ...model.quantity import MAX_AMOUNT, capped
from ...model.resources import CPU, MEMORY, PODS, Resources
from ...model.taints import NO_EXECUTE, NO_SCHEDULE, Taint, tolerates_all
from ..plugins.node_ports import conflicts
from ..state import NodeIndex
from ..topology import Domains
from .nodeclaim import SchedulingError
from .preferences import PREFER_NO_SCHEDULE_TOLERATION, pod_requirements
from .nodemasks import NodeMasks
from .deleting import marked_for_deletion
from .requirements import Req, Reqs, label_keys
from .topology import Topology, TopologyError
from .volumeusage import NONE, Volumes, exceeds, node_limits, pod_volumes, union, union_all

# Taints a node carries while it comes up (KnownEphemeralTaints)
EPHEMERAL_TAINTS = (
    ("node.kubernetes.io/not-ready", "", NO_SCHEDULE), ("node.kubernetes.io/not-ready", "", NO_EXECUTE),
    ("node.kubernetes.io/unreachable", "", NO_SCHEDULE),
    ("node.cloudprovider.kubernetes.io/uninitialized", "true", NO_SCHEDULE),
    ("karpenter.sh/unregistered", "", NO_EXECUTE),
)
EPHEMERAL_PREFIXES = ("readiness.k8s.io/",)


def ephemeral(taint: Taint) -> bool:
    if taint.key.startswith(EPHEMERAL_PREFIXES):
        return True
    return any(taint.key == k and taint.effect == e and (not v or taint.value == v) for k, v, e in EPHEMERAL_TAINTS)


def _same(a: Taint, b: Taint) -> bool:
    return a.key == b.key and a.effect == b.effect


def lasting(taints, startup) -> tuple[Taint, ...]:
    """The taints of a Karpenter node still coming up that will stay: not the kubelet's and cloud
    provider's ephemeral ones, not its NodeClaim's startup taints (StateNode.Taints)."""
    return tuple(t for t in taints if not ephemeral(t) and not any(_same(t, s) for s in startup))


@dataclass
class ExistingNode:
    name: str
    index: int | None              # position in ClusterState.nodes; None for a NodeClaim without its Node yet
    labels: Mapping[str, str]
    taints: tuple[Taint, ...]
    available: Resources           # allocatable less its pods and the DaemonSet pods still to come
    ports: list[HostPort]
    initialized: bool
    nodepool: str
    capacity: Resources
    reqs: Reqs = None              # its labels (and hostname) as requirements, narrowed as pods join
    pods: list = None
    nodeclaim: str = ""            # its NodeClaim's name ("" for a node Karpenter does not manage)
    volume_limits: Mapping[str, int] = None   # driver -> volumes it attaches at most (its CSINode)
    volumes: Volumes = None        # its pods' volumes by driver (only kept when it has limits)

    def __post_init__(self) -> None:
        hostname = self.labels.get(L.HOSTNAME) or self.name
        self.hostname = hostname
        base = self.reqs if self.reqs is not None else Reqs.from_labels(self.labels)
        present = base.get(L.HOSTNAME)
        # a node's labels nearly always carry its hostname already: the same requirements then
        if present is None or present.complement or present.values != {hostname} or present.gte is not None \
                or present.lte is not None or present.min_values is not None:
            base = base.plus((Req.one(L.HOSTNAME, hostname),))
        self.reqs = base
        self.pods = []
        if self.volume_limits is None:
            self.volume_limits = {}
        if self.volumes is None:
            self.volumes = NONE

    @property
    def row(self) -> tuple[int, ...]:
        """Its room in ``ExistingPool.free``'s columns."""
        available = self.available
        return tuple(available.get(r, 0) for r in BASE)

    mask_labels = None   # its requirements are its own (NodeMasks asks them, not its labels)

    @property
    def over_volume_limit(self) -> bool:
        """Already over a limit: then it takes no pod at all, as upstream's check reads."""
        return bool(self.volume_limits) and exceeds(self.volumes, self.volume_limits, NONE) is not None

    def can_add(self, pod: Pod, data, topology: Topology, volume_reqs: Sequence[Reqs | None] = (None,),
                why: bool = False, volumes: Volumes = NONE) -> Reqs:
        if not tolerates_all(self.taints, pod.tolerations):
            raise SchedulingError("did not tolerate taint")
        if self.volume_limits:
            error = exceeds(self.volumes, self.volume_limits, volumes)
            if error is not None:
                raise SchedulingError(f"checking volume usage, {error}")
        if pod.host_ports and any(conflicts(w, u) for w in pod.host_ports for u in self.ports):
            raise SchedulingError("checking host port usage, pod hostport conflicts with existing hostport configuration")
        if any(v < 0 for v in self.available.values()) or \
                any(amount > self.available.get(name, 0) for name, amount in data.requests.items()):
            raise SchedulingError("exceeds node resources")  # an overcommitted node takes nothing
        error = self.reqs.compatible(data.reqs, why=why)
        if error is not None:
            raise SchedulingError(error or "incompatible requirements")
        base = self.reqs.plus(data.reqs.values())
        last = ""  # why the last option failed: a message (an exception kept in a local would tie this
        # frame and its traceback in a reference cycle, and consolidation's garbage with them)
        for volume in volume_reqs:
            reqs = base
            if volume is not None:
                error = reqs.compatible(volume, why=why)
                if error is not None:
                    last = f"incompatible volume requirements, {error}"
                    continue
                reqs = reqs.plus(volume.values())
            try:
                narrowed = topology.add_requirements(pod, self.taints, data.strict, reqs)
            except TopologyError as exc:
                last = str(exc)
                continue
            error = reqs.compatible(narrowed, why=why)
            if error is not None:
                last = error or "topology"
                continue
            return reqs.plus(narrowed.values())
        raise SchedulingError(last)

    def fresh(self) -> ExistingNode:
        """A copy to schedule onto, this one kept as it was (the pool serves many simulations)."""
        copy = ExistingNode.__new__(ExistingNode)
        copy.__dict__.update(self.__dict__)
        copy.pods = []
        copy.ports = list(self.ports)
        return copy

    def add(self, pod: Pod, data, reqs: Reqs, topology: Topology, volumes: Volumes = NONE) -> None:
        self.pods.append(pod)
        if self.volume_limits and volumes:
            self.volumes = union(self.volumes, volumes)
        self.available = self.available - data.requests
        self.reqs = reqs
        topology.record(pod, self.taints, reqs)
        self.ports.extend(pod.host_ports)


@dataclass(frozen=True)
class Daemon:
    """A DaemonSet pod, with what deciding where it runs needs worked out once."""

    pod: Pod
    reqs: Reqs                         # its strict node requirements
    tolerations: tuple                 # its tolerations, PreferNoSchedule added (a DaemonSet ignores it)

    @classmethod
    def of(cls, pod: Pod) -> Daemon:
        return cls(pod, pod_requirements(pod, strict=True), pod.tolerations + (PREFER_NO_SCHEDULE_TOLERATION,))

    def fits(self, reqs: Reqs, taints) -> bool:
        """Would it run on a node with these label requirements and taints?"""
        return tolerates_all(taints, self.tolerations) and reqs.compatible(self.reqs, why=False) is None


NODE_REQS = "karpenter-node-reqs"  # ClusterState.shared key: node index -> its labels as Reqs


class NodeReqs(NodeIndex):
    """Node index -> its labels as requirements, shared by a state's copies: a what-if run no longer
    parses 5,000 nodes' labels again (1.9 s of a +1 replica run at 5,000 nodes)."""


def node_reqs(state, i: int) -> Reqs:
    """Node ``i``'s labels as requirements, built once for a cluster's nodes."""
    cache = state.shared(NODE_REQS, NodeReqs)
    found = cache.get(i)
    if found is None:
        found = cache[i] = Reqs.from_node_labels(state.nodes[i].labels)
    return found


EXISTING = "karpenter-existing-nodes"  # ClusterState.shared key: node index -> its ExistingNode, as last built


class BuiltNodes(NodeIndex):
    """Node index -> (the node, its NodeClaim, its pods, the DaemonSets' fingerprint, the
    ExistingNode made from them, its CSINode). Copies of a cluster state keep the very same nodes and share
    this: a what-if run whose edit left a node's pods alone takes a fresh copy of the node as the
    baseline saw it instead of working out its room again (1.7 s of a +1 replica what-if at 5,000
    nodes on a busy machine). Any difference in those inputs builds the node afresh."""


def _daemons_fingerprint(daemons: Sequence[Daemon]) -> tuple:
    """What about the DaemonSet pods decides a node's room: who they are, what they ask, where they go."""
    return tuple((d.pod.key, d.pod.uid, tuple(sorted(d.pod.requests.items())), d.reqs, d.tolerations)
                 for d in daemons)


def _same_pods(kept: tuple, now: list) -> bool:
    return len(kept) == len(now) and all(a is b for a, b in zip(kept, now))


def existing_nodes(state, snapshot, daemons: Sequence[Daemon], catalog, deleting: set[str],
                   memo: dict | None = None, lazy: bool = False) -> ExistingNodes:
    """Every node Karpenter could still use, initialized first then by name (nodes the state has
    taken out included: a simulation leaves those out itself).

    ``lazy``: a node's full view is built when first asked for (``ExistingNodes``); until then the
    pool reads what it asks of every node (room, taints, labels, pool, capacity) off the state
    in bulk. Only for a caller that changes no pod of the state while it asks (one scheduling run:
    a node asked after a pod came to it or left it is an error, not an answer)."""
    claims_by_node = snapshot.nodeclaim_by_node
    built = state.shared(EXISTING, BuiltNodes)
    fingerprint = _daemons_fingerprint(daemons)
    csinodes = state.snapshot.csinode_by_name
    memo = memo if memo is not None else {}
    out: list = []
    requested = None   # per node, what the state's vectors count on it (made when a node is first built)
    later = _Later(state, daemons, memo, built, fingerprint) if lazy else None
    for i, node in enumerate(state.nodes):
        claim = claims_by_node.get(node.name)
        if node.name in deleting or node.deleted is not None or marked_for_deletion(node, claim):
            continue
        pods = state.pods[i]
        kept = built.get(i)
        csinode = csinodes.get(node.name)   # its volume limits
        if kept is not None and kept[0] is node and kept[1] is claim and kept[3] == fingerprint \
                and kept[5] is csinode and _same_pods(kept[2], pods):
            out.append(kept[4].fresh())
            continue
        if later is not None:
            unbuilt = later.unbuilt(i, node, claim, csinode)
            if unbuilt is not None:
                out.append(unbuilt)
                continue
        if requested is None:
            requested = _requested_rows(state)
        made = _from_node(state, i, node, claim, daemons, memo, requested[i])
        built[i] = (node, claim, tuple(pods), fingerprint, made.fresh(), csinode)
        out.append(made)
    # A NodeClaim is in Karpenter's cluster state once launched (it has a provider ID); without a
    # Node in the snapshot (not registered yet, or its Node not captured) it stands for that node
    present = {n.name for n in state.nodes}
    known = {c.name for name, c in claims_by_node.items() if name in present}
    for claim in snapshot.nodeclaims:
        if claim.name in known or claim.deleted is not None or not (claim.launched or claim.provider_id):
            continue
        out.append(_from_claim(claim, daemons, catalog))
    # initialized first, then by name: the state's nodes come by name already (ClusterState sorts
    # them), so only the others need sorting (a key per node was a tenth of the lazy view's cost)
    ready = [n for n in out if n.initialized]
    if any(ready[k].name > ready[k + 1].name for k in range(len(ready) - 1)):
        ready.sort(key=lambda n: n.name)
    out = ready + sorted((n for n in out if not n.initialized), key=lambda n: n.name)
    return ExistingNodes(out, later.build if later is not None else None)


class _Unbuilt:
    """A node of the view not built yet: what the pool asks of every node, read off the state."""

    __slots__ = ("index", "name", "node", "claim", "csinode", "initialized", "nodepool", "capacity",
                 "taints", "labels", "mask_labels", "row", "stamp", "state")
    volume_limits: Mapping[str, int] = {}   # a node with limits is built at once
    over_volume_limit = False


class _Later:
    """Builds the nodes of a lazy view (:func:`existing_nodes`): which can wait, their room in bulk,
    and each one's full view when asked, as :func:`_from_node` makes it."""

    def __init__(self, state, daemons: Sequence[Daemon], memo: dict, built: BuiltNodes, fingerprint: tuple) -> None:
        self.state, self.daemons, self.memo, self.built, self.fingerprint = state, daemons, memo, built, fingerprint
        names = [r for r in BASE]
        self.allocatable = [state.allocatable[r].tolist() if r in state.allocatable else None for r in names]
        self.requested = [state.requested[r].tolist() if r in state.requested else None for r in names]
        self.touched = state.touched.tolist()
        # the labels DaemonSet pods' requirements read (which of them run on a node depends on these alone)
        self.daemon_labels = label_keys(sorted({k for d in daemons for k in d.reqs}))

    def unbuilt(self, i: int, node: Node, claim, csinode) -> _Unbuilt | None:
        """Node ``i`` left to build when asked, or None when it is built now: a NodeClaim's node not
        initialized (its claim fills its room and taints) or a node that counts volumes."""
        initialized = claim is None or node.labels.get(L.NODE_INITIALIZED) == "true"
        if not initialized or (csinode is not None and node_limits(csinode)):
            return None
        state, memo = self.state, self.memo
        u = _Unbuilt()
        u.index, u.name, u.node, u.claim, u.csinode, u.initialized = i, node.name, node, claim, csinode, True
        u.stamp, u.state = self.touched[i], state
        u.nodepool = node.nodepool
        u.taints = taints = node.taints
        u.labels = labels = node.labels
        # its requirements are its labels' when its labels name its hostname (ExistingNode.__post_init__)
        u.mask_labels = labels if labels.get(L.HOSTNAME) else None
        capacity_key = ("capacity", tuple(node.capacity.items()))
        capacity = memo.get(capacity_key)
        if capacity is None:
            capacity = memo[capacity_key] = state_capacity(node, claim, True)
        u.capacity = capacity
        overhead = self._overhead(i, labels, taints)
        row = []
        for allocatable, requested, r in zip(self.allocatable, self.requested, BASE):
            left = (allocatable[i] if allocatable is not None else 0) - (requested[i] if requested is not None else 0)
            left = left if -MAX_AMOUNT <= left <= MAX_AMOUNT else capped(left)
            if overhead is not None:
                left -= overhead.get(r, 0)
                left = left if -MAX_AMOUNT <= left <= MAX_AMOUNT else capped(left)
            row.append(left)
        u.row = tuple(row)
        return u

    def _overhead(self, i: int, labels, taints) -> Resources | None:
        """What the DaemonSets still to come to node ``i`` need (None: none comes), as _from_node works
        it out; which DaemonSets run there is kept per their labels' values and the taints."""
        daemons, memo = self.daemons, self.memo
        if not daemons:
            return None
        key = ("daemons by labels", tuple(map(labels.get, self.daemon_labels)), taints)
        wanted = memo.get(key)
        if wanted is None:
            wanted = memo[key] = _wanted(node_reqs(self.state, i), taints, daemons, memo)
        if not wanted:
            return None
        on_node = self.state.daemonset_pods(i)   # as noted while the state bound its pods, else walked
        if on_node is None:
            on_node = _on_node(self.state, i, memo, {}, True)[1]
        return _daemons_left(wanted, on_node, memo)

    def build(self, u: _Unbuilt) -> ExistingNode:
        state, i = self.state, u.index
        if int(state.touched[i]) != u.stamp:
            raise RuntimeError(f"node {u.name}: a pod came or left since Karpenter's view of the nodes was made")
        names = list(state.requested)
        counted = {name: amount for name in names if (amount := int(state.requested[name][i]))}
        made = _from_node(state, i, u.node, u.claim, self.daemons, self.memo, counted)
        self.built[i] = (u.node, u.claim, tuple(state.pods[i]), self.fingerprint, made.fresh(), u.csinode)
        return made


class ExistingNodes(Sequence):
    """Karpenter's view of the nodes (:func:`existing_nodes`), each node's built when first asked
    for (Karpenter needs a node's full view only when a pod could land there: its requirements,
    room, ports and topology then decide). ``peek(k)`` gives what the pool asks of every node
    without building it: index, name, initialized, nodepool, capacity, taints, labels, volume_limits,
    over_volume_limit, ``row`` (its room in ``ExistingPool.free``'s columns) and ``mask_labels``
    (labels whose requirements are its own, or None)."""

    def __init__(self, items: list, build=None) -> None:
        self._items, self._build = items, build

    def __len__(self) -> int:
        return len(self._items)

    def __getitem__(self, k):
        if isinstance(k, slice):
            return [self[j] for j in range(*k.indices(len(self._items)))]
        item = self._items[k]
        if type(item) is _Unbuilt:
            item = self._items[k] = self._build(item)
        return item

    def __setitem__(self, k: int, node: ExistingNode) -> None:
        self._items[k] = node

    def peek(self, k: int):
        return self._items[k]

    def unbuilt(self) -> int:
        """How many nodes are not built yet."""
        return sum(1 for item in self._items if type(item) is _Unbuilt)


class NodesView:
    """A pool's nodes as one scheduling run sees them: the pool's own (built when first asked),
    but for the nodes the run replaced with its copies (pods joined them)."""

    __slots__ = ("_nodes", "_own")

    def __init__(self, nodes: ExistingNodes) -> None:
        self._nodes, self._own = nodes, {}

    def __len__(self) -> int:
        return len(self._nodes)

    def __getitem__(self, k: int) -> ExistingNode:
        found = self._own.get(k)
        return found if found is not None else self._nodes[k]

    def __setitem__(self, k: int, node: ExistingNode) -> None:
        self._own[k] = node


def _requested_rows(state) -> list[dict[str, int]]:
    """Per node, the amounts the state's vectors count on it (those not zero), read in one pass over
    the vectors: reading four numpy scalars per node, node by node, cost more than the rest of it."""
    names = list(state.requested)
    if not names:
        return [{} for _ in state.nodes]
    table = np.stack([state.requested[name] for name in names], axis=1).tolist()
    return [{name: amount for name, amount in zip(names, row) if amount} for row in table]


def _on_node(state, i: int, memo: dict, counted: dict[str, int], daemons: bool = True) -> tuple[Resources, list[Pod]]:
    """What node ``i``'s pods request (``counted``: the state's vectors' share, from
    :func:`_requested_rows`; the resources the state keeps no vector for are added pod by pod)
    and which of them are DaemonSet pods.

    Both were noted as the state bound the snapshot's pods (``ClusterState.other_requests``,
    ``daemonset_pods``), for the nodes no pod has come to or left since: those need no walk over
    their pods, which a large cluster's memory makes dear (each pod read again from wherever it
    lies). Otherwise one walk finds them, only for what it can find: the pods' other resources
    when some bound pod asks for one the vectors do not count (``ClusterState.resource_names``),
    the DaemonSet pods when ``daemons`` (some DaemonSet runs on the node).

    Replicas share one requests object, and a pod with one owner reference is a DaemonSet pod or
    not by that reference alone, which replicas share too: each is asked once (kept alive with
    the answer)."""
    vectors = state.requested
    extras = not state.resource_names <= vectors.keys()
    noted = state.daemonset_pods(i) if daemons else ()
    other = state.other_requests(i) if extras else ()
    if noted is not None and other is not None:
        if not other:
            return Resources(counted), list(noted)
        amounts = dict(counted)
        for name, amount in other:
            if name not in vectors:
                amounts[name] = amounts.get(name, 0) + amount
        return Resources(amounts), list(noted)
    amounts = dict(counted)
    extra = memo.setdefault("extra requests", {})
    known = memo.setdefault("daemonset owners", {})
    daemon_pods = []
    for pod in state.pods[i]:
        if extras:
            requests = pod.requests
            found = extra.get(id(requests))
            if found is None or found[0] is not requests:
                found = extra[id(requests)] = (requests, tuple((name, amount) for name, amount in requests.items()
                                                               if name not in vectors))
            for name, amount in found[1]:
                amounts[name] = amounts.get(name, 0) + amount
        if not daemons:
            continue
        owners = pod.owners
        if len(owners) != 1:
            if owners and pod.is_daemonset_pod:
                daemon_pods.append(pod)
            continue
        owner = owners[0]
        daemon = known.get(id(owner))
        if daemon is None or daemon[0] is not owner:
            daemon = known[id(owner)] = (owner, pod.is_daemonset_pod)
        if daemon[1]:
            daemon_pods.append(pod)
    return Resources(amounts), daemon_pods


def _wanted(reqs: Reqs, taints: tuple[Taint, ...], daemons, memo: dict) -> list[Pod]:
    """The DaemonSet pods that run on a node of these requirements and taints. Which do depends on
    the node's requirements on their keys alone (a node's whole requirements differ from every
    other's by its hostname: nothing to share), so nodes alike share one answer (and one list)."""
    keys = memo.get("daemon keys")
    if keys is None or keys[0] is not daemons:
        keys = memo["daemon keys"] = (daemons, tuple(sorted({k for d in daemons for k in d.reqs})))
    # by the very requirement objects (nodes of a kind share them): hashing each one's fields, node
    # after node, cost more than the answer; each kept with the answer, so no id is reused
    on_keys = [reqs.get(k) for k in keys[1]]
    key = ("daemons", tuple([id(r) for r in on_keys]), taints)
    found = memo.get(key)
    if found is None or not all(a is b for a, b in zip(found[0], on_keys)):
        found = memo[key] = (on_keys, [d.pod for d in daemons if d.fits(reqs, taints)])
    return found[1]


def _from_node(state, i: int, node: Node, claim: NodeClaimObject | None, daemons, memo: dict,
               counted: dict[str, int]) -> ExistingNode:
    managed = claim is not None
    initialized = not managed or node.labels.get(L.NODE_INITIALIZED) == "true"
    taints = node.taints
    if managed and not initialized:
        taints = lasting(taints, claim.startup_taints)
    allocatable = node.allocatable
    if managed and not initialized:
        allocatable = Resources({**{k: v for k, v in claim.allocatable.items()},
                                 **{k: v for k, v in node.allocatable.items() if v}})
    reqs = node_reqs(state, i)
    wanted = _wanted(reqs, taints, daemons, memo) if daemons else []
    requested, on_node = _on_node(state, i, memo, counted, bool(wanted))
    available = allocatable - requested
    if wanted:
        available = available - _daemons_left(wanted, on_node, memo)
    limits = node_limits(state.snapshot.csinode_by_name.get(node.name))
    volumes = union_all(pod_volumes(p, state.snapshot) for p in state.pods[i] if p.pvc_names) if limits else NONE
    if initialized or not managed:  # its own capacity: nodes of one type report the same
        capacity_key = ("capacity", tuple(node.capacity.items()))
        capacity = memo.get(capacity_key)
        if capacity is None:
            capacity = memo[capacity_key] = state_capacity(node, claim, initialized)
    else:
        capacity = state_capacity(node, claim, initialized)
    return ExistingNode(node.name, i, node.labels, taints, available, list(state.host_ports.get(i, ())),
                        initialized, node.nodepool, capacity, reqs,
                        nodeclaim=claim.name if claim is not None else "", volume_limits=limits, volumes=volumes)


def state_capacity(node: Node | None, claim: NodeClaimObject | None, initialized: bool) -> Resources:
    """What a node counts against its NodePool's limits, and one ``nodes``: Karpenter's
    StateNode.Capacity. An initialized node reports its own capacity; until then the NodeClaim's
    ``status.capacity`` fills what the Node does not report yet (a resource it shows as zero or not
    at all), and a NodeClaim with no Node counts its ``status.capacity`` alone. Karpenter sums this
    over every node and launched NodeClaim of the pool, for provisioning and consolidation alike."""
    if node is None:
        capacity = claim.capacity if claim is not None else Resources()
    elif initialized or claim is None:
        capacity = node.capacity
    else:
        capacity = Resources({**{k: v for k, v in claim.capacity.items()},
                              **{k: v for k, v in node.capacity.items() if v}})
    return capacity + Resources({"nodes": 1})


def _from_claim(claim: NodeClaimObject, daemons, catalog) -> ExistingNode:
    labels = dict(claim.labels)
    for r in claim.requirements:
        if r.operator == "In" and len(r.values) == 1:
            labels.setdefault(r.key, r.values[0])
    taints = lasting(claim.taints, claim.startup_taints)
    allocatable = claim.allocatable
    itype = catalog.get(labels.get(L.INSTANCE_TYPE, "")) if catalog is not None else None
    if not allocatable and itype is not None:  # room to schedule onto: the type's, until it reports
        allocatable = itype.allocatable
    reqs = Reqs.from_labels(labels)
    available = allocatable - _daemon_overhead([d.pod for d in daemons if d.fits(reqs, taints)], [])
    return ExistingNode(claim.name, None, labels, taints, available, [], False, claim.nodepool,
                        state_capacity(None, claim, False), nodeclaim=claim.name)


def _daemons_left(wanted: Sequence[Pod], on_node: Sequence[Pod], memo: dict) -> Resources:
    """What the DaemonSet pods ``wanted`` on a node still need beside those ``on_node`` already runs.
    Nodes alike run the same DaemonSet pods: worked out once per kind (the requests compared by
    identity, which a workload's pods share)."""
    running = tuple(p.requests for p in on_node)
    left_key = ("daemons left", id(wanted), tuple(map(id, running)))
    found = memo.get(left_key)
    if found is None or found[0] is not wanted or not all(a is b for a, b in zip(found[1], running)):
        found = memo[left_key] = (wanted, running,
                                  _daemon_overhead(wanted, on_node, memo.setdefault("daemon totals", {})))
    return found[2]


def _daemon_overhead(wanted: Sequence[Pod], on_node: list[Pod], totals: dict | None = None) -> Resources:
    """What the DaemonSets that run here still need: their requests less those of the DaemonSet
    pods already running (never below zero).

    ``totals`` keeps each ``wanted`` list's sum by the list's identity (nodes alike share one list,
    kept alive by the caller's memo): 5,000 nodes summed the same few requests 5,000 times."""
    if not wanted:
        return Resources()
    total = totals.get(id(wanted)) if totals is not None else None
    if total is None:
        total = sum((d.requests for d in wanted), Resources()) + Resources({PODS: len(wanted)})
        if totals is not None:
            totals[id(wanted)] = total
    if not on_node:
        return total
    running: dict[str, int] = {PODS: len(on_node)}
    for pod in on_node:
        for name, amount in pod.requests.items():
            running[name] = running.get(name, 0) + amount
    return Resources({k: max(0, v - running.get(k, 0)) for k, v in total.items()})


BASE = (CPU, MEMORY, PODS)  # the resources the node masks compare
ONE_POD = Resources({PODS: 1})


def base_vector(requests) -> np.ndarray:
    """cpu, memory and one pod slot per pod: what ``ExistingPool.free`` is compared with."""
    return np.array([requests.get(r, 0) for r in BASE], dtype=np.int64)


class ExistingPool:
    """The cluster's nodes as Karpenter's scheduler starts from them, with the per-pod masks it
    keeps asking for (which nodes a set of tolerations, or of requirements, admits).

    Built once per cluster state and shared by every simulation over it (consolidation runs
    hundreds); a simulation takes nodes out with ``alive`` and copies a node only when it
    schedules onto it.
    """

    def __init__(self, nodes: Sequence[ExistingNode]) -> None:
        if not isinstance(nodes, ExistingNodes):
            nodes = ExistingNodes(list(nodes))
        self.nodes = nodes
        items = [nodes.peek(k) for k in range(len(nodes))]   # what every node is asked, none built
        self.free = np.array([n.row for n in items], dtype=np.int64).reshape(len(items), len(BASE))
        self.indices = np.array([-1 if n.index is None else n.index for n in items], dtype=np.int64)
        # which nodes a pod's tolerations tolerate, and whose labels its requirements admit
        # (narrowing only ever removes values, so what the labels rule out stays out)
        self.masks = NodeMasks([n.taints for n in items], lambda k: nodes[k].reqs, [n.mask_labels for n in items])
        self._fitting: dict[bytes, tuple[np.ndarray, int]] = {}   # see fitting
        self._settled: list[np.ndarray] = []   # the rows each settle changed, in turn (see fitting)
        self._columns: dict[str, np.ndarray] = {}     # see room_for
        self._upper: dict[str, np.ndarray | None] = {}   # see may_hold
        self._sound: np.ndarray | None = None
        # the pod signatures no run over the pool can place, found by .unplaceable and kept by it
        # (with the Prepared they were found with): settling pods only takes room, so they stay true
        self.never_placed: dict = {}
        self._domains: dict[str, Domains] = {}   # key -> each node's domain of it (see within)
        self._capacity: dict[tuple[str, str], tuple[np.ndarray, np.ndarray]] = {}  # see capacity
        self._pool_rows: dict[str, list[int]] = {}   # NodePool -> positions of its nodes (see capacity)
        # some node counts volumes (a CSINode with limits): pods with volumes ask each node in turn
        self.volume_limited = any(n.volume_limits for n in items)
        self.over_volume_limit = any(n.over_volume_limit for n in items)

    def fitting(self, need: np.ndarray) -> np.ndarray:
        """Nodes with room for ``need`` (``free``'s columns) as the pool stands: kept per pod size,
        as every simulation over the pool starts from the same room. Pods settling change the rows
        they came to only (:meth:`settle` notes them), so a size asked again after a delete has those
        rows read again, in a copy (a mask given out is never changed): a 20,000-node plan's hundred
        deletes each made every size's mask over every node again."""
        key = need.tobytes()
        found = self._fitting.get(key)
        settled = self._settled
        if found is None:
            found = self._fitting[key] = ((self.free >= need).all(axis=1), len(settled))
        elif found[1] < len(settled):
            rows = np.unique(np.concatenate(settled[found[1]:]))
            mask = found[0].copy()
            mask[rows] = (self.free[rows] >= need).all(axis=1)
            found = self._fitting[key] = (mask, len(settled))
        return found[0]

    def room_for(self, requests, need: np.ndarray) -> np.ndarray:
        """Nodes with room for every one of ``requests`` (``need``: its ``base_vector``) and nothing
        overcommitted (no negative amount left), as the pool stands: what a pass over each node's
        ``available`` would find, as columns kept until pods settle (unplaceable asks it of every
        pending pod, once per cluster state)."""
        if self._sound is None:
            self._sound = np.array([not any(v < 0 for v in n.available.values()) for n in self.nodes], dtype=bool)
        mask = self.fitting(need) & self._sound
        for name, amount in requests.items():
            if name in BASE:
                continue
            column = self._columns.get(name)
            if column is None:
                column = self._columns[name] = np.array([n.available.get(name, 0) for n in self.nodes],
                                                        dtype=np.int64)
            mask = mask & (column >= amount)
        return mask

    def may_hold(self, requests) -> np.ndarray | None:
        """Nodes that may have room for what ``requests`` asks beyond ``free``'s columns: a node this
        rules out has none (its room on each such resource is at most the column's), one it keeps
        is asked in full. Read off the built nodes' room and, for a node not built, its allocatable
        less what the state's vectors count on it (the DaemonSets still to come only take more);
        None when ``requests`` asks nothing beyond, or a resource the state keeps no vector for."""
        mask = None
        for name, amount in requests.items():
            if name in BASE:
                continue
            column = self._upper.get(name)
            if column is None:
                column = self._upper[name] = self._upper_column(name)
            if column is None:
                return None
            mask = column >= amount if mask is None else mask & (column >= amount)
        return mask

    def _upper_column(self, name: str) -> np.ndarray | None:
        nodes = self.nodes
        state = None
        for k in range(len(nodes)):
            item = nodes.peek(k)
            if type(item) is _Unbuilt:
                state = item.state
                break
        if state is not None and name not in state.requested:
            return None
        allocatable = state.allocatable[name].tolist() if state is not None else None
        requested = state.requested[name].tolist() if state is not None else None
        out = []
        for k in range(len(nodes)):
            item = nodes.peek(k)
            if type(item) is _Unbuilt:
                i = item.index
                out.append(capped(allocatable[i] - requested[i]))
            else:
                out.append(item.available.get(name, 0))
        return np.array(out, dtype=np.int64)

    def capacity(self, nodepool: str, resource: str, alive: np.ndarray) -> int:
        """What the ``alive`` nodes of ``nodepool`` hold of ``resource`` in all (its limits count it)."""
        found = self._capacity.get((nodepool, resource))
        if found is None:
            members = self._pool_rows.get(nodepool)
            if members is None:  # every pool's nodes in one walk (a pool's limits ask for several resources)
                by_pool: dict[str, list[int]] = {}
                nodes = self.nodes
                for k in range(len(nodes)):
                    by_pool.setdefault(nodes.peek(k).nodepool, []).append(k)
                self._pool_rows.update(by_pool)
                members = self._pool_rows.setdefault(nodepool, [])
            rows = np.array(members, dtype=np.intp)
            peek = self.nodes.peek
            values = np.array([peek(k).capacity.get(resource, 0) for k in members], dtype=np.int64)
            found = self._capacity[(nodepool, resource)] = (rows, values)
        rows, values = found
        return int(values[alive[rows]].sum())

    def within(self, key: str, domains) -> np.ndarray:
        """Nodes whose ``key`` label is one of ``domains`` (a node without the label is in none)."""
        found = self._domains.get(key)
        if found is None:
            nodes = self.nodes
            found = self._domains[key] = Domains(key, [nodes.peek(k) for k in range(len(nodes))])
        return found.holding(domains)

    def settle(self, moved) -> None:
        """Pods moved onto these nodes for good (a delete carried out): less room, more ports taken.
        The masks stay true: labels and taints did not change."""
        peek = self.nodes.peek
        rows = {n.index: k for k in range(len(self.nodes)) if (n := peek(k)).index is not None}
        changed = set()
        for pod, index in moved:
            k = rows.get(index)
            if k is None:
                continue
            node = self.nodes[k] = self.nodes[k].fresh()
            node.available = node.available - pod.requests - ONE_POD
            node.ports.extend(pod.host_ports)
            self.free[k] -= base_vector(pod.requests + ONE_POD)
            changed.add(k)
        self._settled.append(np.array(sorted(changed), dtype=np.intp))
        if any(amount < 0 for pod, _ in moved for amount in pod.requests.values()):
            self.never_placed.clear()   # a negative request gives room back: what none could place may fit now
        if self.nodes.unbuilt():   # a node not built answers _upper_column from the state, which moved
            self._upper.clear()
        # the per-node columns read each node's room: only the nodes pods came to have other room,
        # so those rows are read again (a pass over every node per command, otherwise)
        for k in changed:
            available = self.nodes[k].available
            if self._sound is not None:
                self._sound[k] = not any(v < 0 for v in available.values())
            for name, column in self._columns.items():
                column[k] = available.get(name, 0)
            for name, column in self._upper.items():
                if column is not None:   # a built node's column is its own room (_upper_column)
                    column[k] = available.get(name, 0)

