"""The cluster as the simulator changes it: per-node usage as vectors, pods per node.

Built once from a Snapshot; every placement or eviction updates it in place,
like kube-scheduler's cache of assumed pods. Vectors are indexed by node
position in ``nodes`` (sorted by name, which is also the tie-break order).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Sequence

import numpy as np

from ..model import Node, Pod, Snapshot
from ..model.affinity import NO_AFFINITY
from ..model.resources import CPU, EPHEMERAL_STORAGE, MEMORY, PODS
from ..model.selectors import IN, LabelSelector
from .topology import MISSING, Domains

# kube-scheduler scores pods that request nothing as if they asked for this much
# (pkg/scheduler/util: DefaultMilliCPURequest, DefaultMemoryRequest).
DEFAULT_MILLI_CPU = 100
DEFAULT_MEMORY = 200 * 1024 * 1024
BASE = (CPU, MEMORY, EPHEMERAL_STORAGE, PODS)
_NONE = np.zeros(0, dtype=np.intp)
_NO_PRIORITY = int(np.iinfo(np.int64).max)  # a node without pods: nothing to preempt


def non_zero(pod: Pod) -> tuple[int, int]:
    cpu = pod.requests.get(CPU, 0)
    memory = pod.requests.get(MEMORY, 0)
    return cpu or DEFAULT_MILLI_CPU, memory or DEFAULT_MEMORY



class NodeIndex(dict):
    """An index about the nodes alone, kept by ``ClusterState.shared``: copies of a state keep the
    very same nodes, so they share it (``copy_for`` gives itself, and a state warmed like one that
    simulated takes its filled one). Entries that depend on more than the nodes key on it."""

    shared_across_copies = True

    def __init__(self, state=None) -> None:
        super().__init__()

    def copy_for(self, state) -> NodeIndex:
        return self

class ClusterState:
    """Mutable per-simulation view of nodes and the pods bound to them."""

    def __init__(self, snapshot: Snapshot, nodes: Iterable[Node] | None = None) -> None:
        self.snapshot = snapshot
        self.nodes: list[Node] = sorted(nodes if nodes is not None else snapshot.nodes, key=lambda n: n.name)
        self.index = {node.name: i for i, node in enumerate(self.nodes)}
        n = len(self.nodes)
        # one pass over the nodes, not one per resource: they lie scattered in memory
        table = np.array([tuple(nd.allocatable.get(r, 0) for r in BASE) for nd in self.nodes],
                         dtype=np.int64).reshape(n, len(BASE))
        self.allocatable = {r: table[:, k].copy() for k, r in enumerate(BASE)}
        self.requested = {r: np.zeros(n, dtype=np.int64) for r in BASE}
        self.non_zero_cpu = np.zeros(n, dtype=np.int64)
        self.non_zero_memory = np.zeros(n, dtype=np.int64)
        by_node = snapshot.pods_by_node
        self.pods: list[list[Pod]] = [list(by_node.get(node.name, ())) for node in self.nodes]
        self.host_ports: dict[int, list] = {}  # node -> HostPorts in use (only nodes that have any)
        # every resource a pod placed here has asked for (an eviction leaves it): when these are all
        # in ``requested``, its vectors count every request of every node's pods
        self.resource_names: set[str] = set()
        self.excluded = np.zeros(n, dtype=bool)  # nodes taken out of the cluster (consolidation candidates)
        self._taken_out: tuple[bytes, int] = (self.excluded.tobytes(), 0)  # see taken_out()
        self._taken_out_numbers: dict[bytes, int] = {self._taken_out[0]: 0}
        self.min_priority = np.full(n, _NO_PRIORITY, dtype=np.int64)
        self._domains: dict[str, Domains] = {}
        self._counters: dict[tuple, tuple[Callable[[Pod], bool], np.ndarray]] = {}
        self._groups: dict[tuple, tuple[Pod, dict[int, int]]] | None = None  # label groups (None: made when asked)
        self._groups_in: dict[str, list[tuple[Pod, dict[int, int]]]] = {}   # the same by namespace
        self._by_label: dict[tuple[str, str], list[tuple[Pod, dict[int, int]]]] | None = None  # see _groups_with
        self._walks = 0   # new counters counted by walking every group (the index is made after a few)
        self._with_affinity: list[tuple[Pod, int]] | None = None  # see bound_with_affinity()
        self._daemonset_pods: dict[int, list[Pod]] | None = None  # see daemonset_pods()
        # per node, (name, amount, priority) of what its bound pods ask beyond the base four: see
        # other_requests() and extended() (None in a copy, whose ``touched`` no longer tells those nodes)
        self._other_requests: dict[int, list[tuple[str, int, int]]] | None = None
        # the same counters by the one namespace they look at (None: several or all), so a
        # placement only tests the counters that could match it
        self._by_namespace: dict[str | None, list[tuple[Callable[[Pod], bool], np.ndarray]]] = {}
        self._matching: dict[tuple, tuple] = {}  # _counters_matching's answers
        self.listeners: list[Callable[[Pod, int, int], None]] = []
        self._shared: dict = {}
        self._totals: dict = {}  # kept per-domain totals (domain_totals)
        self.changes = 0  # placements and evictions so far: equal counts mean an unchanged cluster
        self.touched = np.zeros(n, dtype=np.int64)  # per node, ``changes`` when a pod last came or went there
        self._log: list[int] = []  # the nodes of the latest changes, in order (the last ``len(_log)`` of them)
        # per priority level, what its pods request on each node (base resources and pod
        # count): what preemption could free is the sum over the levels below a pod's
        self._by_priority: dict[int, dict[str, np.ndarray]] = {}
        self._bind_all(snapshot)

    def _bind_all(self, snapshot: Snapshot) -> None:
        """The snapshot's bound pods, accounted in bulk (as _account would, one by one), and their
        label groups (:meth:`_label_groups`) made in the same walk.

        One walk reads each pod once, in the order the snapshot holds them, close to the order
        they lie in memory (:attr:`Snapshot.bound_pods`): on a large cluster the pods lie
        scattered over gigabytes, and a walk node by node paid a cache miss per pod - each
        pass over 160,000 pods in that order cost 5.7x what it cost over 40,000. ``self.pods``
        is the snapshot's ``pods_by_node``, copied node by node (a copy of references, no pod read)."""
        at: list[int] = []
        priorities: list[int] = []
        requested: list[int] = []   # each pod's row in ``rows``
        names = [r for r in BASE if r != PODS]  # cpu, memory, ephemeral-storage
        position: dict[int, int] = {}   # per requests object (replicas share theirs): its row in ``rows``
        rows: list[tuple[int, ...]] = []
        beyond: dict[int, tuple[tuple[str, int], ...]] = {}   # the same: what it asks beyond the base four
        other_requests: dict[int, list[tuple[str, int, int]]] = {}
        self._groups, self._groups_in = groups, groups_in = {}, {}
        with_affinity: list[tuple[Pod, int]] = []
        daemonset_pods: dict[int, list[Pod]] = {}
        # a pod with one owner reference is a DaemonSet pod or not by that reference alone, which
        # replicas share: the model's answer for the first pod holding it, by the reference's id
        # (the snapshot keeps every reference alive: no id is reused in the walk)
        daemonset_owner: dict[int, bool] = {}
        index = self.index
        for pod in snapshot.bound_pods:
            i = index.get(pod.node_name)
            if i is None:  # bound to a node this state leaves out
                continue
            owners = pod.owners
            if owners:   # noted while the pod is at hand (see daemonset_pods)
                if len(owners) == 1:
                    daemon = daemonset_owner.get(id(owners[0]))
                    if daemon is None:
                        daemon = daemonset_owner[id(owners[0])] = pod.is_daemonset_pod
                else:
                    daemon = pod.is_daemonset_pod
                if daemon:
                    daemonset_pods.setdefault(i, []).append(pod)
            at.append(i)
            priorities.append(pod.priority)
            requests = pod.requests
            row = position.get(id(requests))  # every pod holds its requests: no id is reused in the walk
            if row is None:
                row = position[id(requests)] = len(rows)
                rows.append(tuple(requests.get(r, 0) for r in names))
                self.resource_names.update(requests.keys())
                other = tuple((r, amount) for r, amount in requests.items() if r not in BASE)
                if other:
                    beyond[id(requests)] = other
            requested.append(row)
            if beyond:
                other = beyond.get(id(requests))
                if other:
                    other_requests.setdefault(i, []).extend((r, amount, pod.priority) for r, amount in other)
            # _group_add(pod, i, 1), inline: a call per pod was a tenth of the walk
            key = _group_key(pod)
            found = groups.get(key)
            if found is None:
                found = groups[key] = (pod, {})
                groups_in.setdefault(pod.namespace, []).append(found)
            per_node = found[1]
            per_node[i] = per_node.get(i, 0) + 1
            if pod.affinity is not NO_AFFINITY:
                with_affinity.append((pod, i))
            if pod.host_ports:
                self.host_ports.setdefault(i, []).extend(pod.host_ports)
        self._with_affinity = with_affinity
        self._daemonset_pods = daemonset_pods
        self._other_requests = other_requests
        if not at:
            return
        where = np.array(at, dtype=np.intp)
        priority = np.array(priorities, dtype=np.int64)
        table = np.array(rows, dtype=np.int64).reshape(len(rows), len(names))[np.array(requested, dtype=np.intp)]
        amounts = {r: table[:, k] for k, r in enumerate(names)}
        amounts[PODS] = np.ones(len(at), dtype=np.int64)
        for r, values in amounts.items():
            np.add.at(self.requested[r], where, values)
        cpu, memory = amounts[CPU], amounts[MEMORY]
        np.add.at(self.non_zero_cpu, where, np.where(cpu > 0, cpu, DEFAULT_MILLI_CPU))
        np.add.at(self.non_zero_memory, where, np.where(memory > 0, memory, DEFAULT_MEMORY))
        np.minimum.at(self.min_priority, where, priority)
        # the levels in increasing order, as np.unique gave them (which imported numpy.ma, 20 ms)
        for level in sorted(set(priorities)):
            chosen = priority == level
            vectors = self._level(level)
            for r, values in amounts.items():
                np.add.at(vectors[r], where[chosen], values[chosen])

    def _level(self, priority: int) -> dict[str, np.ndarray]:
        found = self._by_priority.get(priority)
        if found is None:
            found = self._by_priority[priority] = {r: np.zeros(len(self.nodes), dtype=np.int64)
                                                   for r in self.requested}
        return found

    def lower_priority_requests(self, priority: int, nodes: np.ndarray | None = None,
                                resources: Iterable[str] | None = None) -> dict[str, np.ndarray]:
        """Per node, what the pods below ``priority`` request (every tracked resource, and pod count).
        ``nodes`` (indices) and ``resources`` (tracked ones) ask about those alone, in that order:
        preemption asks about the few nodes where it might help, for what the pod wants."""
        size = len(self.nodes) if nodes is None else len(nodes)
        total = {r: np.zeros(size, dtype=np.int64) for r in (self.requested if resources is None else resources)}
        for level, vectors in self._by_priority.items():
            if level < priority:
                for r in total:
                    total[r] += vectors[r] if nodes is None else vectors[r][nodes]
        return total

    def copy(self, snapshot: Snapshot | None = None, *, label_groups: bool = False) -> ClusterState:
        """This cluster as it stands, to simulate on separately (a what-if starts from the
        baseline's unsimulated cluster rather than accounting 50k bound pods again).

        ``snapshot`` (same nodes) replaces the one plugins read claims and PDBs from.
        Counters and shared indexes that know how (``copy_for``) come along; the rest
        are rebuilt when first asked for. ``label_groups`` copies the pods' label groups too (a
        copy that will count pods for new selectors: rebuilding them walks every bound pod).
        """
        new = object.__new__(ClusterState)
        new.snapshot = snapshot if snapshot is not None else self.snapshot
        new.nodes, new.index = self.nodes, self.index
        new.allocatable = dict(self.allocatable)  # never written, only added to
        new.requested = {r: v.copy() for r, v in self.requested.items()}
        new.non_zero_cpu, new.non_zero_memory = self.non_zero_cpu.copy(), self.non_zero_memory.copy()
        new.pods = [list(pods) for pods in self.pods]
        new.host_ports = {i: list(ports) for i, ports in self.host_ports.items()}
        new.resource_names = set(self.resource_names)
        new.excluded, new.min_priority = self.excluded.copy(), self.min_priority.copy()
        new._taken_out, new._taken_out_numbers = self._taken_out, dict(self._taken_out_numbers)
        new._domains = dict(self._domains)  # by node labels only
        copied = {id(counts): (matches, counts.copy()) for matches, counts in self._counters.values()}
        new._counters = {key: copied[id(counts)] for key, (_, counts) in self._counters.items()}
        new._by_namespace = {scope: [copied[id(counts)] for _, counts in found]
                             for scope, found in self._by_namespace.items()}
        new._matching = {}
        new.listeners = []
        new._shared = {}
        for key, value in self._shared.items():
            if hasattr(value, "copy_for"):
                new._shared[key] = value.copy_for(new)
        new._totals = {}
        new.changes = 0
        new.touched = np.zeros(len(new.nodes), dtype=np.int64)
        new._log = []
        new._groups, new._groups_in = None, {}
        new._by_label, new._walks = None, 0
        if label_groups and self._groups is not None:
            new._groups = {key: (pod, dict(per_node)) for key, (pod, per_node) in self._groups.items()}
            for group in new._groups.values():
                new._groups_in.setdefault(group[0].namespace, []).append(group)
        new._with_affinity = None
        new._daemonset_pods = new._other_requests = None
        new._by_priority = {level: {r: v.copy() for r, v in vectors.items()}
                            for level, vectors in self._by_priority.items()}
        return new

    def warm_like(self, other: ClusterState) -> None:
        """Build the pod counters and shared indexes ``other`` (a copy of this state that was
        simulated on) ended up using, from this state's own pods, so copies start with them."""
        for resource in other.requested.keys() - self.requested.keys():
            self.extended(resource)
        for selectors, skip_terminating in list(other._counters):
            self.counts(selectors, skip_terminating)
        for key, value in other._shared.items():
            if getattr(value, "shared_across_copies", False):
                self._shared[key] = value   # about the nodes alone, which copies share
            elif hasattr(value, "copy_for") and key not in self._shared:
                self._shared[key] = type(value)(self)

    def rebound(self, snapshot: Snapshot) -> ClusterState | None:
        """A copy for ``snapshot``, a changed version of this state's: the same nodes, some
        bound pods gone or new. None when the nodes differ (then build afresh)."""
        if len(snapshot.nodes) != len(self.nodes) or \
                any(node is not self.nodes[self.index.get(node.name, -1)] for node in snapshot.nodes):
            return None
        before = {id(p): p for p in self.snapshot.bound_pods}
        after = {id(p): p for p in snapshot.bound_pods}
        state = self.copy(snapshot)
        for key in before.keys() - after.keys():
            pod = before[key]
            if pod.node_name in self.index:
                state.evict(pod, self.index[pod.node_name])
        for key in after.keys() - before.keys():
            pod = after[key]
            if pod.node_name in self.index:
                state.place(pod, self.index[pod.node_name])
        state.changes = 0
        state.touched[:] = 0
        state._log = []
        state._totals = {}
        return state

    def bound_with_affinity(self) -> list[tuple[Pod, int]]:
        """(pod, node) for every bound pod that has an affinity of any kind: the pods an index of
        affinity terms starts from. Noted while the snapshot's pods were bound, as long as nothing
        has moved since (a walk over every pod of a large cluster is what that saves); else found.
        In no set order: what is made of them are counts per node."""
        if self._with_affinity is not None:
            return self._with_affinity
        return [(pod, i) for i, pods in enumerate(self.pods) for pod in pods if pod.affinity is not NO_AFFINITY]

    def daemonset_pods(self, i: int) -> Sequence[Pod] | None:
        """Node ``i``'s DaemonSet pods in the order it holds them, noted while the snapshot's pods
        were bound, as long as no pod has come to it or left it since; None when not known (then
        its pods tell). Karpenter's view of every node asks which of its DaemonSets already run
        there: a second walk over every pod of a large cluster, each read again from wherever it
        lies in memory, cost more than the rest of that view."""
        if self._daemonset_pods is None or self.touched[i]:
            return None
        return self._daemonset_pods.get(i, ())

    def other_requests(self, i: int) -> Sequence[tuple[str, int]] | None:
        """What node ``i``'s pods request beyond cpu, memory, ephemeral-storage and pods, as (name,
        amount) pod after pod in the order it holds them, noted as :meth:`daemonset_pods` is; None
        when not known."""
        if self._other_requests is None or self.touched[i]:
            return None
        return [(name, amount) for name, amount, _ in self._other_requests.get(i, ())]

    def taken_out(self) -> int:
        """A number naming the set of nodes taken out now (``excluded``, which callers set
        directly): the same number, the same nodes, in this state. What plugins keep per set of
        nodes is keyed on it; comparing or hashing the vector itself, pod after pod, was a pass
        over the cluster each time."""
        now = self.excluded.tobytes()
        if now != self._taken_out[0]:
            self._taken_out = (now, self._taken_out_numbers.setdefault(now, len(self._taken_out_numbers)))
        return self._taken_out[1]

    def shared(self, key, build):
        """An index built once for this state (plugins that follow placements keep theirs here)."""
        found = self._shared.get(key)
        if found is None:
            found = self._shared[key] = build()
        return found

    # ---- resources ---------------------------------------------------------------
    def extended(self, name: str) -> tuple[np.ndarray, np.ndarray]:
        """(allocatable, requested) vectors for a resource outside the base four.

        The bound pods asking for it are read off what the first walk noted on nodes no pod came to
        or left since; only the others' pods are walked (every pod of a 5,000-node cluster was, for
        the first pending pod asking for a GPU)."""
        if name not in self.allocatable:
            self.allocatable[name] = np.array([nd.allocatable.get(name, 0) for nd in self.nodes], dtype=np.int64)
            requested = self.requested[name] = np.zeros(len(self.nodes), dtype=np.int64)
            for vectors in self._by_priority.values():
                vectors[name] = np.zeros(len(self.nodes), dtype=np.int64)
            walk: Iterable[int] = range(len(self.pods))
            if self._other_requests is not None:   # nodes whose pods asked beyond the base four are few
                touched = self.touched
                for i, asked in self._other_requests.items():
                    if not touched[i]:
                        for r, amount, priority in asked:
                            if r == name and amount:
                                requested[i] += amount
                                self._by_priority[priority][name][i] += amount
                walk = np.flatnonzero(touched).tolist()
            for i in walk:
                for pod in self.pods[i]:
                    amount = pod.requests.get(name, 0)
                    if amount:
                        requested[i] += amount
                        self._by_priority[pod.priority][name][i] += amount
        return self.allocatable[name], self.requested[name]

    def touched_since(self, changes: int) -> np.ndarray:
        """The nodes a pod came to or left since the cluster stood at ``changes``: the only ones
        whose own verdicts (resources, ports) can differ from what was computed then.

        A workload's replicas ask after one or two changes: those are read off the latest
        changes' nodes rather than by comparing every node's stamp."""
        back = self.changes - changes
        if back <= 0:
            return _NONE
        if back <= len(self._log) and back <= 8:
            return np.array(sorted(set(self._log[-back:])), dtype=np.intp)
        return np.flatnonzero(self.touched > changes)

    def domain_totals(self, key: Hashable, per_node: np.ndarray, domains: Domains, mask: np.ndarray) -> np.ndarray:
        """``domains.per_domain(per_node, mask)``, kept under ``key`` (which must name the counter,
        the topology key and the mask) and brought up to date from the nodes touched since: a
        counter only changes where a pod came or went, so a workload's replicas re-add one node's
        count instead of summing every node's again. The caller must not change the result."""
        found = self._totals.get(key)
        if found is None:
            found = self._totals[key] = [domains.per_domain(per_node, mask), per_node.copy(), self.changes]
            return found[0]
        totals, seen, changes = found
        if changes != self.changes:
            touched = self.touched_since(changes)
            touched = touched[mask[touched] & (domains.ids[touched] != MISSING)]
            if touched.size:
                np.add.at(totals, domains.ids[touched], per_node[touched] - seen[touched])
                seen[touched] = per_node[touched]
            found[2] = self.changes
        return totals

    def _stamp(self, i: int) -> None:
        """One change on node ``i`` counted (``changes``, ``touched``, the log of latest changes)."""
        self.changes += 1
        self.touched[i] = self.changes
        self._log.append(i)
        if len(self._log) > 64:
            del self._log[:32]

    def restore_order(self, i: int, pods: tuple[Pod, ...], ports: tuple | None) -> None:
        """Node ``i``'s pods and host ports back in the order they held before a full preemption
        dry run (victims evicted and placed again here, which appends them): kube-scheduler's dry
        run works on a copy of the NodeInfo, and leaves the node itself as it was. The node holds
        the very same pods again; only their order is set."""
        if len(pods) != len(self.pods[i]):
            raise ValueError(f"a dry run on node {i} left {len(self.pods[i])} pods of {len(pods)}")
        self.pods[i][:] = pods
        if ports is not None:
            self.host_ports[i][:] = ports

    def _account(self, pod: Pod, i: int, sign: int) -> None:
        self._stamp(i)
        level = self._level(pod.priority)
        for name, value in pod.requests.items():
            if name in self.requested:
                self.requested[name][i] += sign * value
                if name in level:
                    level[name][i] += sign * value
        self.requested[PODS][i] += sign
        level[PODS][i] += sign
        cpu, memory = non_zero(pod)
        self.non_zero_cpu[i] += sign * cpu
        self.non_zero_memory[i] += sign * memory
        if pod.host_ports:
            used = self.host_ports.setdefault(i, [])
            for port in pod.host_ports:
                used.append(port) if sign > 0 else used.remove(port)
        if sign > 0:
            self.pods[i].append(pod)
            self.resource_names.update(pod.requests.keys())
            self.min_priority[i] = min(self.min_priority[i], pod.priority)
        else:
            _remove(self.pods[i], pod)
            if pod.priority <= self.min_priority[i]:  # above the lowest, the lowest stays
                self.min_priority[i] = min((p.priority for p in self.pods[i]), default=_NO_PRIORITY)
        if self._groups is not None:
            self._group_add(pod, i, sign)
        self._with_affinity = None
        for counts in self._counters_matching(pod):
            counts[i] += sign
        for listener in self.listeners:
            listener(pod, i, sign)

    def _counters_matching(self, pod: Pod) -> list[np.ndarray]:
        """The counters a pod counts toward. A counter's test reads only what _group_key holds, so
        a workload's replicas share one answer. Counters are only ever added, each at the end of
        its scope's list: when some were added since, only those are tested (a large cluster's
        plan adds counters between commands, and carrying out a command moves a thousand pods of
        a few hundred workloads, each of which tested every counter in its scope again)."""
        key = _group_key(pod)
        found = self._matching.get(key)
        if found is not None and found[0] == len(self._counters) and found[2] is pod.labels:
            return found[1]
        scopes = (self._by_namespace.get(pod.namespace, ()), self._by_namespace.get(None, ()))
        if found is None or found[2] is not pod.labels:
            seen, matching = (0, 0), []
        else:
            seen, matching = found[3], list(found[1])
        for scoped, start in zip(scopes, seen):
            matching += [counts for matches, counts in scoped[start:] if matches(pod)]
        # the labels kept alive with the answer: their id is in the key
        self._matching[key] = (len(self._counters), matching, pod.labels, tuple(len(s) for s in scopes))
        return matching

    def place(self, pod: Pod, i: int) -> None:
        """Bind (assume) ``pod`` on node ``i``."""
        self._account(pod, i, +1)

    def evict(self, pod: Pod, i: int) -> None:
        self._account(pod, i, -1)

    # ---- topology and pod counts ---------------------------------------------------
    def domains(self, key: str) -> Domains:
        found = self._domains.get(key)
        if found is None:
            found = self._domains[key] = Domains(key, self.nodes)
        return found

    def _label_groups(self) -> list[tuple[Pod, dict[int, int]]]:
        """Bound pods grouped by what a selector can tell apart (namespace, labels, terminating):
        one representative and its count per node it is on (sparse: a large cluster holds thousands
        of groups, most on few nodes; a vector per group cost ~40 KB each). Replicas share their labels, so a new
        counter tests a few hundred groups instead of every pod."""
        if self._groups is None:
            self._groups = {}
            self._groups_in = {}
            for i, pods in enumerate(self.pods):
                for pod in pods:
                    self._group_add(pod, i, 1)
        return list(self._groups.values())

    def _label_groups_in(self, namespaces) -> list[tuple[Pod, dict[int, int]]]:
        """:meth:`_label_groups` of these namespaces only (a selector looks at its own: a cluster of
        many namespaces then tests its counters against a share of the groups)."""
        self._label_groups()
        return [group for namespace in namespaces for group in self._groups_in.get(namespace, ())]

    # After this many new counters counted by walking every group, the groups are indexed by label: a
    # batch cluster at 20,000 nodes holds ~19,000 groups (a Job's pods have labels of their own) and its
    # kube-scheduler pass made ~1,100 counters, each walking all of them (2.2 s of 18).
    INDEX_AFTER = 8

    def _groups_with(self, selectors) -> list[tuple[Pod, dict[int, int]]] | None:
        """The groups that may match every (selector, namespaces) pair: those holding the label one of
        the selectors requires (``matchLabels``, or an ``In`` of its values) with the fewest groups; None
        (walk them all) while the groups are not indexed yet, or when no selector requires a label.
        A group that matches holds every label its selectors require, so it is among these; the
        counter still tests each one."""
        if self._by_label is None:
            self._walks += 1
            if self._walks <= self.INDEX_AFTER:
                return None
            index: dict[tuple[str, str], list] = {}
            for group in self._label_groups():
                for label in group[0].labels.items():
                    index.setdefault(label, []).append(group)
            self._by_label = index
        index = self._by_label
        best = None
        for selector, _ in selectors:
            if selector is None:
                return []   # matches nothing
            for label in selector.match_labels:
                found = index.get(label, ())
                if best is None or len(found) < len(best):
                    best = found
            for req in selector.match_expressions:
                if req.operator == IN:
                    found = [g for value in dict.fromkeys(req.values) for g in index.get((req.key, value), ())]
                    if best is None or len(found) < len(best):
                        best = found
        return best

    def _group_add(self, pod: Pod, i: int, sign: int) -> None:
        key = _group_key(pod)
        found = self._groups.get(key)
        if found is None:
            found = self._groups[key] = (pod, {})
            self._groups_in.setdefault(pod.namespace, []).append(found)
            if self._by_label is not None:
                for label in pod.labels.items():
                    self._by_label.setdefault(label, []).append(found)
        per_node = found[1]
        per_node[i] = per_node.get(i, 0) + sign

    def counted_by(self, selectors: tuple[tuple[LabelSelector | None, frozenset[str] | None], ...],
                   skip_terminating: bool = False) -> Callable[[Pod], bool]:
        """Whether a pod counts toward :meth:`counts` of these selectors: the counter's own test
        (the one kept, when the counter exists; made afresh, and no counter started, when not)."""
        found = self._counters.get((selectors, skip_terminating))
        if found is not None:
            return found[0]
        parts = [pod_matcher(s, ns) for s, ns in selectors]
        if len(parts) == 1 and not skip_terminating:
            return parts[0]

        def matches(pod: Pod) -> bool:
            return (not skip_terminating or pod.deleted is None) and all(m(pod) for m in parts)

        return matches

    def counts(self, selectors: tuple[tuple[LabelSelector | None, frozenset[str] | None], ...],
               skip_terminating: bool = False) -> np.ndarray:
        """Per-node number of bound pods matching every (selector, namespaces) pair.

        ``namespaces`` None means all. Kept up to date on every place/evict, so
        a workload's constraint is counted once per simulation, not once per pod.
        Topology spread skips terminating pods; pod affinity counts them.
        """
        key = (selectors, skip_terminating)
        found = self._counters.get(key)
        if found is None:
            matches = self.counted_by(selectors, skip_terminating)
            spaces = set()
            for _, namespaces in selectors:
                spaces |= {None} if namespaces is None else set(namespaces)
            counts = np.zeros(len(self.nodes), dtype=np.int64)
            groups = self._groups_with(selectors)
            if groups is None:
                groups = self._label_groups() if None in spaces else self._label_groups_in(sorted(spaces))
            for representative, per_node in groups:
                if matches(representative):
                    for i, count in per_node.items():
                        counts[i] += count
            found = self._counters[key] = (matches, counts)
            scope = next(iter(spaces)) if len(spaces) == 1 else None
            self._by_namespace.setdefault(scope, []).append(found)
        return found[1]


def _remove(pods: list[Pod], pod: Pod) -> None:
    """``pods.remove(pod)``: the first pod that is ``pod`` or equal to it. Equal pods have equal
    names, so only a pod of the same name is compared whole: ``list.remove`` compared every pod
    before it field by field (dataclass equality builds a tuple of every field of both), which
    made preemption's dry runs, an eviction per victim tried, slower than its Filter phase."""
    name = pod.name
    for k, other in enumerate(pods):
        if other is pod or (other.name == name and other == pod):
            del pods[k]
            return
    raise ValueError(f"{pod.key} is not on the node")


def _group_key(pod: Pod) -> tuple:
    """Pods every selector answers alike (``model.selectors.selected_as``) and alike in being
    terminating or not. By the labels mapping itself rather than its contents: the model gives a
    workload's replicas one mapping, and reading every label of every bound pod, simulation after
    simulation, was the costliest part of binding them. Equal labels in two mappings make two
    groups, which count the same as one."""
    return pod.namespace, id(pod.labels), pod.deleted is None


def pod_matcher(selector: LabelSelector | None, namespaces: frozenset[str] | None) -> Callable[[Pod], bool]:
    """A predicate for pods in ``namespaces`` whose labels match ``selector`` (None matches nothing)."""
    if selector is None:
        return lambda pod: False
    if namespaces is None:
        return lambda pod: selector.matches(pod.labels)
    return lambda pod: pod.namespace in namespaces and selector.matches(pod.labels)
