"""Karpenter provisioning, from its documented scheduling behaviour and the seed scenarios."""

from collections import Counter

import pytest

from karptui.catalog import bundled_catalog, catalog_from_snapshot_region, parse_catalog
from karptui.model import build_snapshot
from karptui.sim import simulate
from karptui.sources import bundled_snapshot, load_snapshot
from tests.simkit import HOST, ZONE, node, pod

ZONES = ("us-east-1a", "us-east-1b", "us-east-1c")
CATALOG = bundled_catalog("us-east-1", ZONES)


def nodepool(name="default", weight=None, requirements=(), taints=(), limits=None, labels=None):
    spec = {"template": {"metadata": {"labels": labels or {}}, "spec": {
        "requirements": list(requirements) or [{"key": "karpenter.sh/capacity-type", "operator": "In",
                                                 "values": ["on-demand"]}],
        "taints": list(taints),
        "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"}}}}
    if weight is not None:
        spec["weight"] = weight
    if limits:
        spec["limits"] = limits
    return {"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": name}, "spec": spec}


def req(key, op, *values):
    return {"key": key, "operator": op, "values": list(values)}


def run(*objects, catalog=CATALOG):
    return simulate(build_snapshot(objects), catalog=catalog)


def claim_of(result, pod_name):
    key = f"default/{pod_name}"
    return next(c for c in result.nodeclaims if key in c.pods)


def test_small_pods_pack_into_one_nodeclaim_of_the_cheapest_fitting_type():
    result = run(nodepool(), *[pod(f"p{i}", cpu="500m", memory="512Mi") for i in range(6)])
    (claim,) = result.nodeclaims
    assert len(claim.pods) == 6 and all(a.new_node for a in result.attempts)
    kept = [CATALOG.get(name) for name in claim.instance_types]
    assert all(t.allocatable["cpu"] >= 3000 and t.allocatable["pods"] >= 6 for t in kept)  # every option fits
    prices = [min(o.price for o in t.offerings if o.capacity_type == "on-demand") for t in kept]
    assert prices == sorted(prices) and claim.launch["price"] == prices[0]  # cheapest first, cheapest launched
    assert claim.launch["instance_type"] == claim.instance_types[0] and claim.launch["capacity_type"] == "on-demand"
    too_small = [t for t in CATALOG if t.allocatable.get("cpu", 0) < 3000]
    assert not set(claim.instance_types) & {t.name for t in too_small}


def test_spot_is_preferred_when_the_nodepool_allows_it():
    spot_ok = nodepool(requirements=[req("karpenter.sh/capacity-type", "In", "spot", "on-demand")])
    (claim,) = run(spot_ok, pod("p", cpu="1")).nodeclaims
    assert claim.launch["capacity_type"] == "spot"


def test_heavier_nodepool_first_and_taints_need_tolerations():
    gpu = nodepool("gpu", weight=50, taints=[{"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}])
    result = run(nodepool("general"), gpu, pod("web", cpu="1"))
    assert claim_of(result, "web").nodepool == "general"
    tolerant = pod("train", cpu="1", tolerations=[{"key": "nvidia.com/gpu", "operator": "Exists"}])
    assert claim_of(run(nodepool("general"), gpu, tolerant), "train").nodepool == "gpu"


def test_pod_requirements_narrow_instance_types():
    result = run(nodepool(requirements=[req("kubernetes.io/arch", "In", "amd64", "arm64")]),
                 pod("p", cpu="1", nodeSelector={"kubernetes.io/arch": "arm64",
                                                 "karpenter.k8s.aws/instance-family": "m7g"}))
    (claim,) = result.nodeclaims
    assert claim.instance_types and all(t.startswith("m7g.") for t in claim.instance_types)


def test_no_nodepool_can_serve_the_pod():
    result = run(nodepool(), pod("p", cpu="1", nodeSelector={"team": "a"}))
    (attempt,) = result.attempts
    assert attempt.node is None
    assert attempt.karpenter_reason == 'incompatible requirements, label "team" does not have known values'
    result = run(nodepool(), pod("huge", cpu="1000"))
    assert result.attempts[0].karpenter_reason.startswith("no instance type has enough resources, requirements=")



def test_every_nodepool_says_why_it_refused_the_pod_in_the_order_tried():
    # the heavier pool refuses for its taint, the other for its types: each reason, in Karpenter's order
    tainted = nodepool("gpu", weight=10, taints=[{"key": "gpu", "value": "true", "effect": "NoSchedule"}])
    small = nodepool("small", requirements=[req("karpenter.k8s.aws/instance-cpu", "In", "2")])
    (attempt,) = run(tainted, small, pod("p", cpu="3")).attempts
    assert attempt.node is None
    first, second = attempt.karpenter_reason.split("; ")
    assert first == "did not tolerate taint (taint=gpu=true:NoSchedule)"
    assert second.startswith("no instance type has enough resources, requirements=")
    assert "karpenter.sh/nodepool In [small]" in second and 'resources={"cpu":"3"' in second
    # a pool that refuses leaves no trace when a later one takes the pod
    result = run(tainted, nodepool("wide"), pod("p", cpu="3"))
    (claim,) = result.nodeclaims
    assert claim.nodepool == "wide" and result.attempts[0].karpenter_reason is None

def test_limits_count_existing_capacity():
    full = node("old", cpu="8", labels={"karpenter.sh/nodepool": "default"})
    full["status"]["capacity"]["cpu"] = "8"
    result = run(full, nodepool(limits={"cpu": "9"}), pod("p", cpu="2", nodeSelector={"never": "here"}))
    assert result.attempts[0].node is None
    result = run(full, nodepool(limits={"cpu": "8"}), pod("p", cpu="20"))
    assert result.attempts[0].karpenter_reason == "all available instance types exceed limits for nodepool (NodePool=default)"


def test_daemonset_overhead_counts_on_new_nodes():
    ds = {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "agent", "namespace": "kube-system"},
          "spec": {"selector": {"matchLabels": {"app": "agent"}}, "template": {"metadata": {"labels": {"app": "agent"}},
                   "spec": {"containers": [{"name": "a", "resources": {"requests": {"cpu": "500m"}}}]}}}}
    result = run(nodepool(), ds, pod("p", cpu="1"))
    (claim,) = result.nodeclaims
    assert CATALOG.get(claim.launch["instance_type"]).allocatable["cpu"] >= 1500
    result = run(nodepool(), ds, pod("huge", cpu="1000"))
    # Karpenter v1.14 reports the pod's requests with the DaemonSet overhead added
    assert 'resources={"cpu":"1000500m","memory":"128Mi","pods":"2"}' in result.attempts[0].karpenter_reason


def test_zone_spread_across_new_nodes():
    spread = [{"maxSkew": 1, "topologyKey": ZONE, "whenUnsatisfiable": "DoNotSchedule",
               "labelSelector": {"matchLabels": {"app": "web"}}}]
    pods = [pod(f"w{i}", cpu="1", labels={"app": "web"}, topologySpreadConstraints=spread) for i in range(3)]
    result = run(nodepool(), *pods)
    zones = Counter(c.launch["zone"] for c in result.nodeclaims for _ in c.pods)
    assert zones == {"us-east-1a": 1, "us-east-1b": 1, "us-east-1c": 1}


def test_hostname_anti_affinity_one_pod_per_new_node():
    anti = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": HOST}]}}
    result = run(nodepool(), *[pod(f"w{i}", cpu="100m", labels={"app": "web"}, affinity=anti) for i in range(4)])
    assert len(result.nodeclaims) == 4 and all(len(c.pods) == 1 for c in result.nodeclaims)


def test_offerings_marked_unavailable_are_not_launched():
    catalog = parse_catalog({"instanceTypes": [{
        "name": "m5.large", "cpu": "2", "memory": "8Gi", "pods": "29",
        "offerings": [{"zone": "us-east-1a", "capacityType": "on-demand", "price": 0.096, "available": False},
                      {"zone": "us-east-1b", "capacityType": "on-demand", "price": 0.096}]}]})
    (claim,) = run(nodepool(), pod("p", cpu="1"), catalog=catalog).nodeclaims
    assert claim.launch["zone"] == "us-east-1b"


# ---- the seeds --------------------------------------------------------------------------------
def test_topology_seed_launches_nodes_in_the_zones_the_spread_allows():
    snapshot = load_snapshot(bundled_snapshot("topology-spread"))
    result = simulate(snapshot, catalog=catalog_from_snapshot_region(snapshot))
    assert result.pending == 0 and len(result.nodeclaims) == 3
    assert all(len(c.pods) == 2 for c in result.nodeclaims)  # hostname maxSkew 2 against the empty Fargate nodes
    zones = Counter(c.launch["zone"] for c in result.nodeclaims)
    assert zones == {"ap-northeast-2c": 2, "ap-northeast-2a": 1}  # 2c first: it held the fewest (2)


def test_topology_seed_reports_2c_when_its_families_are_unavailable():
    snapshot = load_snapshot(bundled_snapshot("topology-spread"))
    full = catalog_from_snapshot_region(snapshot)
    without_2c = type(full)(tuple(
        type(t)(t.name, t.labels, t.capacity, t.allocatable,
                tuple(o for o in t.offerings if o.zone != "ap-northeast-2c"), t.arch, t.os) for t in full),
        full.region)
    result = simulate(snapshot, catalog=without_2c)
    zones = Counter(c.launch["zone"] for c in result.nodeclaims for _ in c.pods)
    assert "ap-northeast-2c" not in zones and result.pending > 0
    stuck = next(a for a in result.attempts if not a.scheduled)
    assert "topology.kubernetes.io/zone" in stuck.karpenter_reason


def test_team1_pods_only_on_team1_nodepool_nodes():
    snapshot = load_snapshot(bundled_snapshot("multi-nodepool"))
    result = simulate(snapshot, catalog=catalog_from_snapshot_region(snapshot))
    assert result.pending == 0
    assert {c.nodepool for c in result.nodeclaims} == {"team1"}
    assert all(c.requirements["team"] == ("team1",) for c in result.nodeclaims)
    assert all(c.launch["capacity_type"] == "on-demand" for c in result.nodeclaims)


@pytest.mark.parametrize("name", ["topology-spread", "multi-nodepool", "overprovisioning"])
def test_every_pending_seed_pod_gets_a_node_or_karpenters_reason(name):
    snapshot = load_snapshot(bundled_snapshot(name))
    for attempt in simulate(snapshot, catalog=catalog_from_snapshot_region(snapshot)).attempts:
        assert attempt.new_node or attempt.karpenter_reason


def test_whatif_on_a_nodepool_limit_shows_removed_nodeclaims_and_cost(cli):
    import json

    from tests.conftest import FIXTURES

    code, out, err = cli("simulate", "topology-spread", "--whatif", FIXTURES / "whatif" / "nodepool-limits.yaml",
                         "-o", "json")
    assert code == 0, err
    doc = json.loads(out)
    diff = doc["whatif"]["diff"]
    assert (diff["nodeclaims"]["before"], diff["nodeclaims"]["after"]) == (3, 1)
    assert len(diff["nodeclaims"]["removed"]) == 2 and diff["nodeclaims"]["added"] == []
    assert diff["hourly_cost"]["after"] < diff["hourly_cost"]["before"]
    stuck = [p for p in doc["pods"] if p["node"] is None]
    assert len(stuck) == 4 and "all available instance types exceed limits" in stuck[0]["karpenter_reason"]


@pytest.mark.parametrize("requirements,limits,fragment", [
    ([req("karpenter.sh/capacity-type", "In", "on-demand"), req("karpenter.sh/capacity-type", "NotIn", "on-demand")],
     None, 'nodepool requirements filtered out all available instance types (NodePool "default": no instance type '
           'met the requirements'),
    ([req("karpenter.k8s.aws/instance-family", "In", "no-such-family")], None,
     'nodepool requirements filtered out all available instance types (NodePool "default": no instance type met the '
     'requirements karpenter.k8s.aws/ec2nodeclass In [default], karpenter.k8s.aws/instance-family In [no-such-family]'),
    ([], {"cpu": "-4"}, "all available instance types exceed limits for nodepool (NodePool=default)"),
])
def test_bad_nodepools_give_the_pod_a_precise_reason(requirements, limits, fragment):
    result = run(nodepool(requirements=requirements, limits=limits), pod("p", cpu="1"))
    assert result.attempts[0].node is None and fragment in result.attempts[0].karpenter_reason


def test_unknown_instance_types_are_reported_not_fatal():
    odd = node("odd", labels={"karpenter.sh/nodepool": "default", "karpenter.sh/initialized": "true",
                              "node.kubernetes.io/instance-type": "zz9.huge"})
    busy = pod("busy", node="odd")
    result = simulate(build_snapshot([odd, nodepool(), busy]), catalog=CATALOG, consolidate=True)
    assert [(b.node, b.reason) for b in result.blocked] == [("odd", 'Instance Type "zz9.huge" not found')]
    # an empty node is deleted whatever its type: emptiness does not ask for one (as Karpenter)
    result = simulate(build_snapshot([odd, nodepool()]), catalog=CATALOG, consolidate=True)
    assert [(d.action, d.nodes) for d in result.disruptions] == [("delete", ("odd",))]


def test_min_values_keeps_enough_instance_families_open():
    flexible = nodepool(requirements=[req("karpenter.sh/capacity-type", "In", "on-demand"),
                                      {"key": "karpenter.k8s.aws/instance-family", "operator": "In",
                                       "values": ["m5", "m6i", "c5"], "minValues": 3}])
    (claim,) = run(flexible, pod("p", cpu="1")).nodeclaims
    assert {CATALOG.get(t).labels["karpenter.k8s.aws/instance-family"] for t in claim.instance_types} == {"m5", "m6i", "c5"}
    strict = nodepool(requirements=[{"key": "karpenter.k8s.aws/instance-family", "operator": "In",
                                     "values": ["m5", "m6i"], "minValues": 3}])
    reason = run(strict, pod("p", cpu="1")).attempts[0].karpenter_reason
    assert "minValues requirement is not met for label(s) ['karpenter.k8s.aws/instance-family']" in reason


def test_equal_weights_go_by_name_descending_as_go_compares_strings():
    """Karpenter orders NodePools of equal weight by name, the later name first: "ab" before "a"."""
    from karptui.sim.karpenter.scheduler import eligible_pools

    snapshot = build_snapshot([nodepool("a"), nodepool("ab"), nodepool("b"), nodepool("z", weight=10)])
    assert [p.name for p in eligible_pools(snapshot)] == ["z", "b", "ab", "a"]
