"""Karpenter provisioning's shortcuts give the plain path's answers.

The scheduler keeps work between pods: a NodeClaim remembers its used resources as a row and its
allocatable-less-overhead matrix while its instance types stay the same, answers ``room_for`` once
per pod size between two pods joining (and skips it for that size once it has no room left), and
checks only the requirement keys a pod changed; the TypeSet remembers resource rows. On random
small clusters the simulation with them must decide exactly as with the plain definitions (sum
the resource lists, compare allocatable with requests plus overhead, filter on every key, try
every NodeClaim) — the NodeClaims, their types and pods, every reason text, and with ``explain``
every NodePool verdict and how many types each filter took away.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from karptui.catalog import bundled_catalog
from karptui.model import build_snapshot
from karptui.sim import simulate
from karptui.sim.karpenter import nodeclaim
from karptui.sim.karpenter.inflight import InFlight
from karptui.sim.karpenter.instancetypes import TypeSet, Vector
from karptui.sim.karpenter.scheduler import Scheduler
from karptui.sim.state import ClusterState
from tests.simkit import HOST, ZONE, node, pod, spread

ZONES = ("us-east-1a", "us-east-1b", "us-east-1c")
CATALOG = bundled_catalog("us-east-1", ZONES)


def plain_vector(self, amounts, remember=False):
    row = np.zeros(len(self.columns), dtype=np.int64)
    unknown = None
    for name, amount in amounts.items():
        column = self.columns.get(name)
        if column is None:
            if amount > 0:
                unknown = name
            continue
        row[column] = amount
    return Vector(row, unknown, small=False)


def plain_room_for(self, requests, need=None):
    rows = self.template.rows[self.rows]
    if not len(rows):
        return False
    room = (self.types.allocatable[rows] - self.template.overhead[self.rows]).max(axis=0)
    total = self.types.vector(self.requests + requests)
    return total.unknown is None and bool((total.values <= room).all())


def plain_masks(self, pod, reqs, requests, rows):
    types, template = self.types, self.template
    type_rows = template.rows[rows]
    compatible = types.compatible_mask(reqs)[type_rows]
    offered = types.offered_mask(reqs)[type_rows]
    need = types.vector(requests)
    if need.unknown is not None:
        fits = np.zeros(len(rows), dtype=bool)
    else:
        fits = (types.allocatable[type_rows] >= need.values + template.overhead[rows]).all(axis=1)
    if pod.host_ports:
        fits &= self._ports_ok(pod)[template.group_of[rows]]
    return compatible, fits, offered


def plain_candidates(self, need, reqs, tolerations):
    """Every in-flight NodeClaim, the fewest pods first, then in the order opened."""
    return sorted(self.claims, key=lambda c: len(c.pods))


def nodepool(name, weight, requirements, taints=(), limits=None):
    spec = {"weight": weight, "template": {"spec": {
        "requirements": requirements, "taints": list(taints),
        "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"}}}}
    if limits:
        spec["limits"] = limits
    return {"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": name}, "spec": spec}


def req(key, op, *values):
    return {"key": key, "operator": op, "values": list(values)}


POOL_REQUIREMENTS = (
    [req("karpenter.sh/capacity-type", "In", "on-demand")],
    [req("karpenter.sh/capacity-type", "In", "spot", "on-demand"), req("kubernetes.io/arch", "In", "amd64", "arm64")],
    [req("karpenter.k8s.aws/instance-category", "In", "c", "m"), req("karpenter.k8s.aws/instance-size", "NotIn",
                                                                       "metal")],
    [req("karpenter.k8s.aws/instance-category", "In", "g"), req("topology.kubernetes.io/zone", "In", "us-east-1b")],
    [req("karpenter.k8s.aws/instance-cpu", "Lt", "9"), req("karpenter.sh/capacity-type", "In", "spot")],
)
SIZES = (("100m", "128Mi"), ("250m", "256Mi"), ("1", "2Gi"), ("2", "4Gi"), ("3500m", "14Gi"), ("7", "60Gi"),
         ("30", "100Gi"), ("500", "1Gi"))


def daemonset(name, cpu, host_port=None, arch=None):
    container = {"name": "d", "resources": {"requests": {"cpu": cpu, "memory": "64Mi"}}}
    if host_port:
        container["ports"] = [{"containerPort": host_port, "hostPort": host_port}]
    spec = {"containers": [container]}
    if arch:
        spec["nodeSelector"] = {"kubernetes.io/arch": arch}
    return {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": name, "namespace": "kube-system"},
            "spec": {"selector": {"matchLabels": {"ds": name}},
                     "template": {"metadata": {"labels": {"ds": name}}, "spec": spec}}}


def random_cluster(seed: int) -> list[dict]:
    rng = random.Random(seed)
    objects = []
    for i in range(rng.randint(1, 3)):
        taints = [{"key": "dedicated", "value": "x", "effect": "NoSchedule"}] if rng.random() < 0.2 else []
        limits = {"cpu": str(rng.choice((8, 40, 200)))} if rng.random() < 0.3 else None
        objects.append(nodepool(f"pool-{i}", rng.randint(0, 20), rng.choice(POOL_REQUIREMENTS), taints, limits))
    if rng.random() < 0.5:
        objects.append(daemonset("agent", rng.choice(("100m", "500m")), host_port=rng.choice((None, 9100))))
    if rng.random() < 0.4:
        objects.append(daemonset("arm-agent", "300m", arch="arm64"))
    for i in range(rng.randint(0, 3)):
        objects.append(node(f"node-{i}", zone=rng.choice(ZONES), cpu=rng.choice(("2", "8")), memory="16Gi"))
    for i in range(rng.randint(5, 30)):
        cpu, memory = rng.choice(SIZES)
        app = f"app-{rng.randint(0, 3)}"
        spec: dict = {}
        roll = rng.random()
        if roll < 0.2:
            spec["topologySpreadConstraints"] = [spread(rng.choice((ZONE, HOST)), selector={"app": app},
                                                        when=rng.choice(("DoNotSchedule", "ScheduleAnyway")))]
        elif roll < 0.3:
            spec["affinity"] = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
                {"labelSelector": {"matchLabels": {"app": app}}, "topologyKey": HOST}]}}
        if rng.random() < 0.2:
            spec["nodeSelector"] = {rng.choice(("kubernetes.io/arch", ZONE)): rng.choice(("arm64", "us-east-1c"))}
        if rng.random() < 0.1:
            spec["tolerations"] = [{"key": "dedicated", "operator": "Exists"}]
        raw = pod(f"p-{i:02d}", cpu=cpu, memory=memory, labels={"app": app}, **spec)
        container = raw["spec"]["containers"][0]
        extra = rng.random()
        if extra < 0.08:
            container["resources"]["requests"]["nvidia.com/gpu"] = "1"
        elif extra < 0.12:
            container["resources"]["requests"]["example.com/widget"] = "1"   # no instance type has it
        elif extra < 0.15:
            container["resources"]["requests"]["ephemeral-storage"] = "100Ei"  # saturates: the plain sums decide
        elif extra < 0.22:
            container["ports"] = [{"containerPort": 9100, "hostPort": 9100}]
        elif extra < 0.26:
            container["resources"]["requests"]["memory"] = "-3Gi"  # a NodeClaim it joins gets room back
        objects.append(raw)
    return objects


def outcome(result):
    return ([(c.name, c.nodepool, dict(c.requirements), c.instance_types, c.launch, c.pods) for c in result.nodeclaims],
            list(result.attempts))


@pytest.mark.parametrize("seed", range(24))
@pytest.mark.parametrize("explain", [False, True])
def test_shortcuts_decide_as_the_plain_path(seed, explain, monkeypatch):
    snapshot = build_snapshot(random_cluster(seed))
    fast = outcome(simulate(snapshot, catalog=CATALOG, explain=explain))
    with monkeypatch.context() as m:
        m.setattr(TypeSet, "vector", plain_vector)
        m.setattr(nodeclaim.NodeClaim, "room_for", plain_room_for)
        m.setattr(nodeclaim.NodeClaim, "_masks", plain_masks)
        m.setattr(InFlight, "candidates", plain_candidates)
        m.setattr(Scheduler, "_alike", lambda self, pod, data: None)   # every new NodeClaim asked afresh
        plain = outcome(simulate(snapshot, catalog=CATALOG, explain=explain))
    assert fast == plain


def test_the_random_clusters_give_kept_answers_to_pods_alike(monkeypatch):
    """The comparison above means something for pods alike (Scheduler._open_alike): new NodeClaims
    are opened, and pods refused, from an answer worked out for an earlier pod; pods that a topology
    group decides for are asked afresh."""
    given, fresh, decided = [], [], []
    original_open, original_alike = Scheduler._open_alike, Scheduler._alike

    def counting_open(self, template, pod, data, alike):
        known = (template.name, self._limited_rows(template), alike)
        kept = not isinstance(known[1], nodeclaim.SchedulingError) and \
            (template.name, known[1].tobytes(), alike) in self._opened
        opened = original_open(self, template, pod, data, alike)
        if kept:
            given.append(isinstance(opened, nodeclaim.SchedulingError))
        else:
            fresh.append(pod.key)
        return opened

    def counting_alike(self, pod, data):
        found = original_alike(self, pod, data)
        if found is None and self.topology.deciding(pod):
            decided.append(pod.key)
        return found

    monkeypatch.setattr(Scheduler, "_open_alike", counting_open)
    monkeypatch.setattr(Scheduler, "_alike", counting_alike)
    for seed in range(24):
        simulate(build_snapshot(random_cluster(seed)), catalog=CATALOG)
    assert True in given and False in given   # kept refusals and kept NodeClaims
    assert fresh and decided


def test_the_random_clusters_leave_nodeclaims_out_for_each_reason(monkeypatch):
    """The comparison above means something for the in-flight lists (.inflight): NodeClaims are
    left out for pods they refuse for taints and for requirements, and pods join NodeClaims after
    that (so ones left out come back)."""
    refused, joined = [], []
    original_refused, original_joined = InFlight.refused, InFlight.joined

    def counting_refused(self, need, reqs, tolerations, claim, kind):
        refused.append(kind)
        return original_refused(self, need, reqs, tolerations, claim, kind)

    def counting_joined(self, claim, requests):
        joined.append(claim.name)
        return original_joined(self, claim, requests)

    monkeypatch.setattr(InFlight, "refused", counting_refused)
    monkeypatch.setattr(InFlight, "joined", counting_joined)
    for seed in range(24):
        simulate(build_snapshot(random_cluster(seed)), catalog=CATALOG)
    assert nodeclaim.REQUIREMENTS in refused and nodeclaim.TAINTS in refused
    assert len(joined) > 24


def test_the_random_clusters_reach_every_shortcut():
    """The comparison means something: the clusters open NodeClaims, fill them (room_for says no),
    leave pods pending with reasons, and hit the unknown-resource and saturated-sum fallbacks."""
    results = [simulate(build_snapshot(random_cluster(seed)), catalog=CATALOG) for seed in range(24)]
    claims = [c for r in results for c in r.nodeclaims]
    reasons = [a.reason for r in results for a in r.attempts if a.reason]
    assert len(claims) >= 24 and any(len(c.pods) > 3 for c in claims)
    assert any("no instance type" in r for r in reasons)
    assert any("example.com/widget" in r for r in reasons)
    assert any('"ephemeral-storage"' in r for r in reasons)


def test_room_for_answers_each_question_as_the_plain_sum(monkeypatch):
    """room_for is only a quick necessary test (can_add decides), so a stale remembered answer would
    not show in the decisions: ask both on every call instead, pods joining between the calls."""
    fast = nodeclaim.NodeClaim.room_for
    asked, differ = [], []

    def both(self, requests, need=None):
        answer = fast(self, requests, need)
        asked.append(answer)
        if answer != plain_room_for(self, requests):
            differ.append((self.name, dict(requests)))
        return answer

    monkeypatch.setattr(nodeclaim.NodeClaim, "room_for", both)
    for seed in range(24):
        simulate(build_snapshot(random_cluster(seed)), catalog=CATALOG)
    assert True in asked and False in asked
    assert differ == []


def test_a_pod_asking_for_less_than_nothing_gives_a_full_nodeclaim_room_back():
    """The scheduler skips a NodeClaim for a pod size it had no room for; a request below zero is the
    one way room comes back, and then the NodeClaim is asked again."""
    snapshot = build_snapshot([nodepool("only", 1, [req("node.kubernetes.io/instance-type", "In", "m5.large")]),
                               pod("big", cpu="1500m"), pod("more", cpu="1"), pod("less", cpu="-1")])
    scheduler = Scheduler(snapshot, ClusterState(snapshot), CATALOG, snapshot.pods)
    big, more, less = (next(p for p in snapshot.pods if p.name == n) for n in ("big", "more", "less"))
    claim, reqs, rows = scheduler.open_claim(scheduler.templates[0], big, scheduler.data(big))
    claim.add(big, scheduler.data(big), reqs, rows)
    need = scheduler.types.vector(scheduler.data(more).requests, remember=True)
    assert not claim.room_for(scheduler.data(more).requests, need)
    reqs, rows = claim.can_add(less, scheduler.data(less))
    claim.add(less, scheduler.data(less), reqs, rows)
    assert claim.room_for(scheduler.data(more).requests, need)


def test_room_on_existing_nodes_counts_pods_that_joined_before_a_size_was_first_asked():
    """The room per pod size on existing nodes starts from the pool's and is mended where pods
    joined: a size first asked after others joined must see those pods too, or a pod nothing
    else refuses lands on a node already full."""
    snapshot = build_snapshot([node("n0", ZONES[0], cpu="2", memory="8Gi"), node("n1", ZONES[1], cpu="2", memory="8Gi"),
                               pod("first", cpu="1500m"), pod("second", cpu="1")])
    scheduler = Scheduler(snapshot, ClusterState(snapshot), CATALOG, snapshot.pods)
    results = scheduler.solve(snapshot.pods)
    placed = {key.split("/")[1]: node.name for key, node in results.on_existing.items()}
    assert placed == {"first": "n0", "second": "n1"}


def test_a_nodeclaim_refused_for_requirements_is_asked_again_once_a_pod_joined_it(monkeypatch):
    """A pod requiring a label the NodeClaim does not define is refused; a pod that only excludes a
    value of that label then joins, defining it, and the first pod fits on the next pass. The
    in-flight lists must bring the NodeClaim back for it, as trying every NodeClaim does."""
    def affinity(op, value):
        return {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
            {"matchExpressions": [{"key": "example.com/team", "operator": op, "values": [value]}]}]}}}

    snapshot = build_snapshot([
        nodepool("only", 1, [req("karpenter.sh/capacity-type", "In", "on-demand")]),
        pod("first", cpu="2"), pod("wants", cpu="1", affinity=affinity("In", "x")),
        pod("excludes", cpu="500m", affinity=affinity("NotIn", "y"))])
    fast = simulate(snapshot, catalog=CATALOG)
    with monkeypatch.context() as m:
        m.setattr(InFlight, "candidates", plain_candidates)
        m.setattr(Scheduler, "_alike", lambda self, pod, data: None)
        plain = simulate(snapshot, catalog=CATALOG)
    assert outcome(fast) == outcome(plain)
    (claim,) = fast.nodeclaims
    assert set(claim.pods) == {"default/first", "default/wants", "default/excludes"}
