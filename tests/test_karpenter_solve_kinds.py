"""Karpenter's solve answers questions about many nodes and pods once per kind: each shortcut gives
what asking every node (or pod) in turn gives.

- NodeMasks.admitted: a node's compatibility with a requirement set is worked out key by key, once
  per distinct requirement object the nodes hold on that key, and given to every node holding it;
- Reqs.from_node_labels: a node of a kind seen before takes that kind's requirements and puts its own
  values in for the labels that differ;
- Topology._selecting: what the group selectors read of a pod (its namespace and labels) is kept
  per pod, the groups that select it per label set.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from karptui.model import labels as L
from karptui.sim.karpenter import requirements
from karptui.sim.karpenter.nodemasks import NodeMasks
from karptui.sim.karpenter.requirements import Req, Reqs

ZONES = ("us-east-1a", "us-east-1b", "us-east-1c")
TYPES = ("m5.large", "c6g.xlarge", "r5.2xlarge")
POOLS = ("default", "batch", "gpu")


def _labels(rng: random.Random, i: int) -> dict[str, str]:
    zone, kind, pool = rng.choice(ZONES), rng.choice(TYPES), rng.choice(POOLS)
    labels = {L.HOSTNAME: f"ip-10-0-{i // 250}-{i % 250}", L.ZONE: zone, "failure-domain.beta.kubernetes.io/zone": zone,
              "node.kubernetes.io/instance-type": kind, "kubernetes.io/arch": "arm64" if "g." in kind else "amd64",
              "topology.k8s.aws/network-node-layer-1": f"nn-{rng.randint(0, 9)}", "karpenter.sh/nodepool": pool}
    if rng.random() < 0.3:
        labels["karpenter.sh/capacity-type"] = rng.choice(("spot", "on-demand"))
    if rng.random() < 0.1:
        labels["example.com/team"] = rng.choice(("a", "b"))
    return labels


def _requirement_sets(rng: random.Random, nodes: list[dict[str, str]]) -> list[Reqs]:
    keys = (L.ZONE, "kubernetes.io/arch", "karpenter.sh/capacity-type", "example.com/team", L.HOSTNAME,
            "topology.k8s.aws/network-node-layer-1", "karpenter.sh/nodepool", "example.com/absent")
    values = {L.ZONE: ZONES, "kubernetes.io/arch": ("amd64", "arm64"), "karpenter.sh/capacity-type": ("spot", "on-demand"),
              "example.com/team": ("a", "b"), L.HOSTNAME: tuple(n[L.HOSTNAME] for n in nodes[:5]),
              "topology.k8s.aws/network-node-layer-1": ("nn-1", "nn-2"), "karpenter.sh/nodepool": POOLS,
              "example.com/absent": ("x",)}
    sets = [Reqs()]
    for _ in range(40):
        made = []
        for key in rng.sample(keys, rng.randint(1, 3)):
            op = rng.choice(("In", "NotIn", "Exists", "DoesNotExist"))
            made.append(Req.make(key, op, rng.sample(values[key], 1) if op in ("In", "NotIn") else ()))
        sets.append(Reqs(made))
    return sets


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("fresh", [False, True])
def test_admitted_per_kind_of_node_is_compatible_asked_of_every_node(seed, fresh):
    """``fresh``: each node's requirements built anew each time asked (no object shared between
    nodes, nor kept): every node is then a kind of its own, and no id is mistaken for another's."""
    rng = random.Random(seed)
    nodes = [_labels(rng, i) for i in range(300)]
    built = [Reqs.from_node_labels(labels) for labels in nodes]
    reqs_of = (lambda k: Reqs(Req.make(key, "In", (value,)) for key, value in nodes[k].items())) if fresh \
        else built.__getitem__
    masks = NodeMasks([()] * len(nodes), reqs_of)
    answers = set()
    for reqs in _requirement_sets(rng, nodes):
        plain = np.array([built[k].compatible(reqs, why=False) is None for k in range(len(nodes))], dtype=bool)
        assert masks.admitted(reqs).tolist() == plain.tolist(), str(reqs)
        answers.add(int(plain.sum()))
    assert 0 in answers and len(nodes) in answers and len(answers) > 5   # the sets split the nodes many ways


def test_admitted_asks_once_per_distinct_requirement_and_each_node_takes_its_own(monkeypatch):
    """The comparison above means something: the nodes hold far fewer distinct requirement objects
    than there are nodes (so few questions are asked), and an answer given to the wrong nodes
    (every node taken as holding the first node's object) would show."""
    rng = random.Random(7)
    nodes = [_labels(rng, i) for i in range(300)]
    built = [Reqs.from_node_labels(labels) for labels in nodes]
    asked = []
    original = Reqs.compatible

    def counting(self, other, allow_undefined=frozenset(), why=True):
        asked.append(id(self))
        return original(self, other, allow_undefined, why)

    reqs = Reqs([Req.make(L.ZONE, "In", (ZONES[0],)), Req.make("kubernetes.io/arch", "In", ("amd64",))])
    plain = [built[k].compatible(reqs, why=False) is None for k in range(len(nodes))]
    monkeypatch.setattr(Reqs, "compatible", counting)
    assert NodeMasks([()] * len(nodes), built.__getitem__).admitted(reqs).tolist() == plain
    assert 0 < len(asked) <= len(ZONES) + 2   # one question per zone object and per arch object
    monkeypatch.setattr(Reqs, "compatible", original)
    original_on_key = NodeMasks._on_key

    def first_only(self, key):
        held, objects = original_on_key(self, key)
        return np.zeros_like(held), objects

    monkeypatch.setattr(NodeMasks, "_on_key", first_only)
    assert NodeMasks([()] * len(nodes), built.__getitem__).admitted(reqs).tolist() != plain


def test_a_node_of_a_known_kind_has_the_requirements_of_all_its_own_labels():
    """Nodes of one kind that differ in many plain labels: each gets the requirements its labels
    give, in their order (the kind's keys), whichever of its values differ from the first's."""
    rng = random.Random(3)
    first = _labels(rng, 0)
    first.pop("karpenter.sh/capacity-type", None)
    first.pop("example.com/team", None)
    Reqs.from_node_labels(first)
    kinds = len(requirements._NODE_KINDS)
    for i in range(1, 50):
        labels = dict(first)
        for key in (L.HOSTNAME, "topology.k8s.aws/network-node-layer-1", "karpenter.sh/nodepool"):
            if rng.random() < 0.6:
                labels[key] = f"{key}-{i}"
        assert list(Reqs.from_node_labels(labels).items()) == list(Reqs.from_labels(labels).items())
    assert len(requirements._NODE_KINDS) == kinds


def _plain_admit(self, reqs):
    return np.array([self._reqs_of(k).compatible(reqs, why=False) is None for k in range(len(self._taints))],
                    dtype=bool)


def _plain_selecting(self, pod, inverse):
    scoped = self._inverse_scope if inverse else self._by_namespace
    return [g for scope in (pod.namespace, None) for g in scoped.get(scope, ()) if g.selects(pod)]


@pytest.mark.parametrize("seed", range(24))
def test_the_solve_with_answers_per_kind_decides_as_asking_each(seed, monkeypatch):
    """Whole simulations on random clusters (spread, anti-affinity, limits, taints, node selectors):
    the same NodeClaims, pods and reasons (and NodePool verdicts) with every per-kind answer, and
    the limits' answer kept per remainder, as with each asked afresh."""
    from karptui.model import build_snapshot
    from karptui.sim import simulate
    from karptui.sim.karpenter.preferences import PodData
    from karptui.sim.karpenter.scheduler import Prepared, Scheduler
    from karptui.sim.karpenter.topology import Topology
    from tests.test_karpenter_fastpaths import CATALOG, outcome, random_cluster

    snapshot = build_snapshot(random_cluster(seed))
    fast = outcome(simulate(snapshot, catalog=CATALOG, explain=seed % 2 == 1))
    with monkeypatch.context() as m:
        m.setattr(NodeMasks, "_admit", _plain_admit)
        m.setattr(Topology, "_selecting", _plain_selecting)
        m.setattr(Scheduler, "_limited_rows", _plain_limited_rows)
        m.setattr(Prepared, "pod_data", lambda self, pod: PodData.of(pod, self.settings.respect_preferences))
        plain = outcome(simulate(snapshot, catalog=CATALOG, explain=seed % 2 == 1))
    assert fast == plain


def _plain_limited_rows(self, template):
    """Scheduler._limited_rows asked afresh each time (a new refusal each time)."""
    remaining = self.remaining.get(template.name)
    if not remaining:
        return np.arange(len(template.rows), dtype=np.intp)
    return self._limits_leave(template, remaining)


def test_the_room_kept_per_pod_size_over_the_inflight_nodeclaims_is_the_sum_asked_afresh(monkeypatch):
    """InFlight keeps, per pod size, which NodeClaims have room and mends the rows opened or joined
    since it last asked: on every ask it must be the comparison over every NodeClaim as they stand
    (a row left unmended after a pod joined would keep a full NodeClaim in, or a freed one out)."""
    from karptui.model import build_snapshot
    from karptui.sim import simulate
    from karptui.sim.karpenter.inflight import InFlight
    from tests.test_karpenter_fastpaths import CATALOG, random_cluster

    fast = InFlight._room_for
    differ, answers, mended = [], set(), []

    def both(self, need, n):
        mended.append(len(self._joins) - self._fits[need.tobytes()][2] if need.tobytes() in self._fits else 0)
        kept = fast(self, need, n).tolist()
        plain = ((self._used[:n] + need <= self._room[:n]).all(axis=1) | ~self._exact[:n]).tolist()
        answers.update(plain)
        if kept != plain:
            differ.append((kept, plain))
        return np.array(kept, dtype=bool)

    monkeypatch.setattr(InFlight, "_room_for", both)
    for seed in range(24):
        simulate(build_snapshot(random_cluster(seed)), catalog=CATALOG)
    assert answers == {True, False} and any(mended)
    assert differ == []


def _plain_terms(topology, pod):
    """Topology._terms worked out for the pod alone, nothing kept."""
    from karptui.model.affinity import DO_NOT_SCHEDULE
    from karptui.sim.karpenter.topologygroup import (
        AFFINITY,
        ANTI_AFFINITY,
        SPREAD,
        UNBOUNDED,
        NodeFilter,
    )
    from karptui.sim.plugins.inter_pod_affinity import term_namespaces, term_selector
    from karptui.sim.plugins.pod_topology_spread import effective_selector

    terms = [(SPREAD, c.topology_key, frozenset((pod.namespace,)), effective_selector(c, pod.labels), c.max_skew,
              c.min_domains, NodeFilter.for_pod(pod, c.node_taints_policy, c.node_affinity_policy))
             for c in pod.spread_constraints if topology.respect or c.when_unsatisfiable == DO_NOT_SCHEDULE]
    affinity = pod.affinity
    kinds = [(AFFINITY, t) for t in affinity.pod_required]
    kinds += [(AFFINITY, w.term) for w in affinity.pod_preferred] if topology.respect else []
    kinds += [(ANTI_AFFINITY, t) for t in affinity.anti_required]
    kinds += [(ANTI_AFFINITY, w.term) for w in affinity.anti_preferred] if topology.respect else []
    return terms + [(kind, t.topology_key, term_namespaces(t, pod.namespace, topology.state),
                     term_selector(t, pod.labels), UNBOUNDED, None, None) for kind, t in kinds]


def _plain_update(self, pod):
    """Topology.update finding each group by its identity, pod by pod."""
    from karptui.sim.karpenter.topologygroup import TopologyGroup

    for group in self._owned.pop(pod.key, ()):
        group.owners.discard(pod.key)
    affinity = pod.affinity
    if affinity.anti_required or (self.respect and affinity.anti_preferred):
        self._inverse_for(pod, None)
    owned = []
    for term in _plain_terms(self, pod):
        kind, key, namespaces, selector, max_skew, _, node_filter = term
        found = self.groups.get(TopologyGroup.identity_of(kind, key, namespaces, max_skew, node_filter, selector))
        owned.append(found if found is not None else self._group(pod, *term))
        owned[-1].owners.add(pod.key)
    self._owned[pod.key] = owned


def _replicas():
    """Pods that share labels and constraints but for one field each (their parsed objects shared
    where equal): tolerations, node selector, namespace, affinity, spread, labels."""
    from tests.simkit import HOST, ZONE, node, pod, spread

    honor = spread(ZONE, selector={"app": "web"}, nodeTaintsPolicy="Honor", nodeAffinityPolicy="Honor", matchLabelKeys=["v"])
    anti = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": HOST}]}}
    preferred = {"podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": 10, "podAffinityTerm": {"labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": ZONE}}]}}
    tainted = node("tainted", ZONES[1])
    tainted["spec"]["taints"] = [{"key": "dedicated", "value": "x", "effect": "NoSchedule"}]
    objects = [node("plain", ZONES[0]), tainted, node("other", ZONES[2], labels={"disk": "ssd"})]
    variants = [{}, {"tolerations": [{"key": "dedicated", "operator": "Exists"}]}, {"nodeSelector": {"disk": "ssd"}},
                {"namespace": "other"}, {"affinity": anti}, {"affinity": preferred},
                {"topologySpreadConstraints": [spread(HOST, selector={"app": "web"})]}, {"labels": {"app": "web", "v": "2"}},
                {"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                    {"matchExpressions": [{"key": "disk", "operator": "In", "values": ["ssd"]}]}]}}}}]
    for i, extra in enumerate(variants * 3):
        spec = {"topologySpreadConstraints": [honor], **extra}
        labels = spec.pop("labels", {"app": "web"})
        namespace = spec.pop("namespace", "default")
        objects.append(pod(f"r-{i:02d}", cpu="500m", labels=labels, namespace=namespace, **spec))
    return objects


def test_each_pod_gets_the_terms_its_own_fields_give():
    """The terms kept per shared objects are the terms worked out for each pod alone, whichever pod
    asked first (pods differing in one field each, asked in two orders)."""
    from dataclasses import replace

    from karptui.model import build_snapshot
    from karptui.model.taints import Toleration
    from karptui.sim.karpenter.topology import Topology
    from karptui.sim.state import ClusterState

    snapshot = build_snapshot(_replicas())
    pods = [p for p in snapshot.pods if p.name.startswith("r-")]
    first, other = pods[0], pods[4]
    # copies of the first that share every object with it but one (as a relaxed pod does)
    pods += [replace(first, name="copy-tolerations", tolerations=(Toleration(key="dedicated", operator="Exists"),)),
             replace(first, name="copy-selector", node_selector={"disk": "ssd"}),
             replace(first, name="copy-namespace", namespace="other"),
             replace(first, name="copy-labels", labels={"app": "web", "v": "3"}),
             replace(first, name="copy-affinity", affinity=other.affinity),
             replace(first, name="copy-spread", spread_constraints=other.spread_constraints[:0])]
    for order in (pods, pods[::-1]):
        state = ClusterState(snapshot)
        for respect in (True, False):
            topology = Topology(state, {}, (), respect)
            for p in order:
                assert topology._terms(p) == _plain_terms(topology, p), p.name
    topology = Topology(ClusterState(snapshot), {}, (), True)
    replicas = [p for p in pods if p.name.startswith("r-")]
    assert len({id(topology._terms(p)) for p in replicas}) <= len(replicas) / 3   # the replicas share them


@pytest.mark.parametrize("seed", range(12))
def test_groups_found_per_terms_decide_as_found_pod_by_pod(seed, monkeypatch):
    """Whole simulations with the groups found once per shared terms and with each pod's found by
    identity, its terms worked out afresh: the same NodeClaims, placements and reasons."""
    from karptui.model import build_snapshot
    from karptui.sim import simulate
    from karptui.sim.karpenter.topology import Topology
    from tests.test_karpenter_fastpaths import CATALOG, outcome, random_cluster

    objects = random_cluster(seed) + (_replicas() if seed % 3 == 0 else [])
    snapshot = build_snapshot(objects)
    fast = outcome(simulate(snapshot, catalog=CATALOG))
    with monkeypatch.context() as m:
        m.setattr(Topology, "update", _plain_update)
        plain = outcome(simulate(snapshot, catalog=CATALOG))
    assert fast == plain


def test_a_resource_list_hashes_and_compares_by_its_amounts_however_often_and_whenever_asked():
    """Resources keeps its hash once worked out: equal lists (a zero amount or none alike) hash
    alike whether asked before or after copying, and a pickled copy (made before or after the
    hash was kept) still hashes as a fresh list does; lists with the same amounts by name compare
    equal at once, others by amount."""
    import pickle

    from karptui.model.resources import Resources

    made = [Resources({"cpu": 500, "memory": 1 << 30}), Resources({"memory": 1 << 30, "cpu": 500, "pods": 0})]
    fresh = hash(Resources({"cpu": 500, "memory": 1 << 30}))
    copied = pickle.loads(pickle.dumps(made[0]))
    assert [hash(r) for r in made] == [fresh, fresh] == [hash(r) for r in made]
    assert hash(copied) == fresh and hash(pickle.loads(pickle.dumps(made[1]))) == fresh
    assert len({made[0], made[1], copied, Resources({"cpu": 501, "memory": 1 << 30})}) == 2
    # equality by amount, a missing name reading as zero, whether the names match or not
    assert made[0] == made[1] == copied == {"cpu": 500, "memory": 1 << 30}
    assert made[0] != Resources({"cpu": 500}) and made[1] != Resources({"cpu": 500, "memory": 1 << 30, "pods": 1})


def test_each_pod_gets_the_pod_data_its_own_fields_give():
    """PodData kept per the objects it reads (requests, node selector, affinity) is each pod's own,
    whichever pod asked first: copies of one pod differing in one of them (or in anything else,
    which PodData does not read) get what PodData.of gives them."""
    from dataclasses import replace

    from karptui.model import build_snapshot
    from karptui.model.resources import Resources
    from karptui.sim.karpenter.preferences import PodData
    from karptui.sim.karpenter.scheduler import Prepared
    from tests.test_karpenter_fastpaths import CATALOG

    snapshot = build_snapshot(_replicas())
    pods = [p for p in snapshot.pods if p.name.startswith("r-")]
    first, other = pods[0], pods[8]
    assert other.affinity.node_required is not None
    copies = [replace(first, name="copy-requests", requests=Resources({"cpu": 2000})),
              replace(first, name="copy-selector", node_selector={"disk": "ssd"}),
              replace(first, name="copy-affinity", affinity=other.affinity),
              replace(first, name="copy-labels", labels={"app": "other"})]
    for order in (pods + copies, (pods + copies)[::-1]):
        prepared = Prepared(snapshot, CATALOG)
        for pod in order:
            assert prepared.pod_data(pod) == PodData.of(pod, prepared.settings.respect_preferences), pod.name
    prepared = Prepared(snapshot, CATALOG)
    assert prepared.pod_data(copies[3]) is prepared.pod_data(first)   # shared where it reads the same objects
