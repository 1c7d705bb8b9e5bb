"""Filter plugins, table-driven from the Kubernetes documentation's semantics."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.simkit import HOST, ZONE, node, placed, pod, run, spread

WEB = {"app": "web"}


# ---- NodeResourcesFit -----------------------------------------------------------------
def test_insufficient_cpu_and_memory_are_both_counted():
    result = run(node("n1", cpu="1", memory="1Gi"), pod("big", cpu="2", memory="2Gi"))
    (attempt,) = result.attempts
    assert attempt.reason.startswith("0/1 nodes are available: 1 Insufficient cpu, 1 Insufficient memory.")


def test_too_many_pods():
    result = run(node("n1", pods="1"), pod("a", node="n1"), pod("b"))
    assert "1 Too many pods." in result.attempts[0].reason


def test_requests_add_up_across_pods():
    result = run(node("n1", cpu="1"), pod("a", node="n1", cpu="600m"), pod("b", cpu="500m"))
    assert "Insufficient cpu" in result.attempts[0].reason


def test_extended_resources():
    gpu = node("gpu", labels={"kind": "gpu"})
    gpu["status"]["allocatable"]["nvidia.com/gpu"] = "1"
    want = pod("train")
    want["spec"]["containers"][0]["resources"]["limits"] = {"nvidia.com/gpu": "1"}
    result = run(node("cpu"), gpu, want)
    assert placed(result) == {"train": "gpu"}
    assert result.attempts[0].counts == {"Insufficient nvidia.com/gpu": 1}


def test_init_container_peak_counts():
    want = pod("migrate", cpu="100m", initContainers=[{"name": "init", "resources": {"requests": {"cpu": "3"}}}])
    result = run(node("n1", cpu="2"), want)
    assert "Insufficient cpu" in result.attempts[0].reason


# ---- TaintToleration / NodeUnschedulable / NodeAffinity / NodePorts ----------------------
TAINTED = node("t1", taints=[{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}])


@pytest.mark.parametrize(
    "version,text",
    [((1, 30), "1 node(s) had untolerated taint {dedicated: gpu}"),
     ((1, 23), "1 node(s) had taint {dedicated: gpu}, that the pod didn't tolerate"),
     ((1, 35), "1 node(s) had untolerated taint(s)")],
)
def test_untolerated_taint_wording_follows_the_cluster_version(version, text):
    result = run(TAINTED, pod("p"), version=version)
    assert text in result.attempts[0].reason
    assert "1 Preemption is not helpful for scheduling" in result.attempts[0].reason


def test_tolerations_and_soft_taints():
    soft = node("soft", taints=[{"key": "spot", "value": "true", "effect": "PreferNoSchedule"}])
    tolerant = pod("p", tolerations=[{"key": "dedicated", "operator": "Exists", "effect": "NoSchedule"}])
    assert placed(run(TAINTED, tolerant)) == {"p": "t1"}
    assert placed(run(soft, pod("q"))) == {"q": "soft"}  # PreferNoSchedule only scores


def test_prefer_no_schedule_scores_lower():
    soft = node("a-soft", taints=[{"key": "spot", "value": "true", "effect": "PreferNoSchedule"}])
    assert placed(run(soft, node("b-clean"), pod("p"))) == {"p": "b-clean"}


def test_cordoned_node_unless_the_pod_tolerates_unschedulable():
    cordoned = node("c1", unschedulable=True)
    assert "1 node(s) were unschedulable" in run(cordoned, pod("p")).attempts[0].reason
    tolerant = pod("p", tolerations=[{"key": "node.kubernetes.io/unschedulable", "operator": "Exists",
                                      "effect": "NoSchedule"}])
    assert placed(run(cordoned, tolerant)) == {"p": "c1"}


@pytest.mark.parametrize(
    "constraints,expected",
    [
        ({"nodeSelector": {"team": "a"}}, "n-a"),
        ({"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
            {"matchExpressions": [{"key": "gen", "operator": "Gt", "values": ["5"]}]}]}}}}, "n-b"),
        ({"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
            {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n-b"]}]}]}}}}, "n-b"),
        ({"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
            {"matchExpressions": [{"key": "team", "operator": "NotIn", "values": ["a"]}]}]}}}}, "n-b"),
    ],
)
def test_node_affinity(constraints, expected):
    nodes = node("n-a", labels={"team": "a", "gen": "5"}), node("n-b", labels={"team": "b", "gen": "6"})
    assert placed(run(*nodes, pod("p", **constraints))) == {"p": expected}


def test_node_affinity_failure_reason():
    result = run(node("n1"), pod("p", nodeSelector={"team": "x"}))
    assert result.attempts[0].reason.startswith("0/1 nodes are available: 1 node(s) didn't match Pod's node affinity/selector.")


def test_preferred_node_affinity_scores():
    prefer_b = {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": 50, "preference": {"matchExpressions": [{"key": "team", "operator": "In", "values": ["b"]}]}}]}}
    nodes = node("n-a", labels={"team": "a"}), node("n-b", labels={"team": "b"})
    assert placed(run(*nodes, pod("p", affinity=prefer_b))) == {"p": "n-b"}


def host_port_pod(name, node=None, port=8080, ip=None):
    raw = pod(name, node=node)
    raw["spec"]["containers"][0]["ports"] = [{"containerPort": 80, "hostPort": port, **({"hostIP": ip} if ip else {})}]
    return raw


def test_host_ports():
    busy = host_port_pod("a", node="n1")
    assert "1 node(s) didn't have free ports for the requested pod ports" in run(
        node("n1"), busy, host_port_pod("b")).attempts[0].reason
    assert placed(run(node("n1"), busy, host_port_pod("c", port=9090))) == {"c": "n1"}
    assert placed(run(node("n1"), host_port_pod("a", "n1", ip="10.0.0.1"), host_port_pod("d", ip="10.0.0.2"))) == {"d": "n1"}


# ---- PodTopologySpread -------------------------------------------------------------------
def zones_cluster(*existing):
    """Four nodes over two zones (the documentation's example), with pods already placed."""
    nodes = [node("a1", "zone-a"), node("a2", "zone-a"), node("b1", "zone-b"), node("b2", "zone-b")]
    return nodes + [pod(f"old-{i}", node=n, labels=WEB) for i, n in enumerate(existing)]


def test_zone_spread_sends_the_pod_to_the_emptier_zone():
    cluster = zones_cluster("a1", "a2", "b1")
    result = run(*cluster, pod("new", labels=WEB, topologySpreadConstraints=[spread(ZONE)]))
    assert placed(result)["new"] in ("b1", "b2")


def test_zone_spread_failure_reason_counts_each_node():
    cluster = zones_cluster("a1", "a2", "b1")
    full = [n for n in cluster if n["metadata"]["name"] in ("b1", "b2")]
    for n in full:
        n["status"]["allocatable"]["cpu"] = "150m"  # b-nodes hold one pod at most: b1 is full
    result = run(*cluster, pod("new", labels=WEB, topologySpreadConstraints=[spread(ZONE)]))
    assert placed(result)["new"] == "b2"
    result = run(*cluster, pod("x", node="b2", labels={"other": "1"}, cpu="100m"),
                 pod("new", labels=WEB, topologySpreadConstraints=[spread(ZONE)]))
    assert result.attempts[-1].reason.startswith(
        "0/4 nodes are available: 2 Insufficient cpu, 2 node(s) didn't match pod topology spread constraints.")


def test_min_domains_treats_the_global_minimum_as_zero():
    cluster = zones_cluster("a1", "b1")
    loose = pod("new", labels=WEB, topologySpreadConstraints=[spread(ZONE, max_skew=1)])
    assert placed(run(*cluster, loose))["new"] is not None
    strict = pod("new", labels=WEB, topologySpreadConstraints=[spread(ZONE, max_skew=1, minDomains=3)])
    # only 2 zones exist: the minimum counts as 0, and every zone already holds 1
    assert "4 node(s) didn't match pod topology spread constraints" in run(*cluster, strict).attempts[0].reason


def test_nodes_missing_the_topology_key():
    bare = node("bare")
    bare["metadata"]["labels"].pop(ZONE)
    result = run(bare, pod("new", labels=WEB, topologySpreadConstraints=[spread(ZONE)]))
    assert "1 node(s) didn't match pod topology spread constraints (missing required label)" in result.attempts[0].reason
    assert "1 Preemption is not helpful for scheduling" in result.attempts[0].reason


def test_node_affinity_policy_honor_ignores_domains_the_pod_cannot_use():
    nodes = [node("a1", "zone-a", labels={"pool": "x"}), node("b1", "zone-b", labels={"pool": "x"}),
             node("c1", "zone-c", labels={"pool": "y"})]
    existing = [pod("o1", node="a1", labels=WEB), pod("o2", node="b1", labels=WEB)]
    honor = pod("new", labels=WEB, nodeSelector={"pool": "x"}, topologySpreadConstraints=[spread(ZONE)])
    assert placed(run(*nodes, *existing, honor))["new"] in ("a1", "b1")  # zone-c is not a domain for it
    ignore = pod("new", labels=WEB, nodeSelector={"pool": "x"},
                 topologySpreadConstraints=[spread(ZONE, nodeAffinityPolicy="Ignore")])
    assert placed(run(*nodes, *existing, ignore))["new"] is None  # zone-c (0) counts: 1+1-0 > 1


def test_node_taints_policy_ignore_counts_tainted_nodes_as_domains():
    nodes = [node("a1", "zone-a"), node("f1", "zone-a", taints=[
        {"key": "eks.amazonaws.com/compute-type", "value": "fargate", "effect": "NoSchedule"}])]
    existing = [pod("o1", node="a1", labels=WEB), pod("o2", node="a1", labels=WEB)]
    ignore = pod("new", labels=WEB, topologySpreadConstraints=[spread(HOST, max_skew=2)])
    assert placed(run(*nodes, *existing, ignore))["new"] is None  # f1 holds 0: 2+1-0 > 2
    honor = pod("new", labels=WEB, topologySpreadConstraints=[spread(HOST, max_skew=2, nodeTaintsPolicy="Honor")])
    assert placed(run(*nodes, *existing, honor))["new"] == "a1"


def test_match_label_keys_count_only_the_same_revision():
    old = [pod(f"old-{i}", node="a1", labels={"app": "web", "pod-template-hash": "v1"}) for i in range(3)]
    new = pod("new", labels={"app": "web", "pod-template-hash": "v2"},
              topologySpreadConstraints=[spread(HOST, matchLabelKeys=["pod-template-hash"])])
    nodes = [node("a1"), node("a2")]
    assert placed(run(*nodes, *old, new))["new"] in ("a1", "a2")
    plain = pod("new", labels={"app": "web", "pod-template-hash": "v2"}, topologySpreadConstraints=[spread(HOST)])
    assert placed(run(*nodes, *old, plain))["new"] == "a2"


def test_schedule_anyway_only_scores():
    cluster = zones_cluster("a1", "a2", "a1")
    soft = pod("new", labels=WEB, topologySpreadConstraints=[spread(ZONE, when="ScheduleAnyway")])
    assert placed(run(*cluster, soft))["new"] in ("b1", "b2")


# ---- InterPodAffinity ----------------------------------------------------------------------
def anti(key=HOST, selector=None):
    return {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": selector or WEB}, "topologyKey": key}]}}


def affinity(key=HOST, selector=None, **term):
    return {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": selector or {"app": "cache"}}, "topologyKey": key, **term}]}}


def test_anti_affinity_one_per_node():
    nodes = [node("n1"), node("n2")]
    pods = [pod(f"w{i}", labels=WEB, affinity=anti()) for i in range(3)]
    result = run(*nodes, *pods)
    assert sorted(filter(None, placed(result).values())) == ["n1", "n2"]
    assert result.attempts[2].reason.startswith("0/2 nodes are available: 2 node(s) didn't match pod anti-affinity rules.")
    assert "2 No preemption victims found for incoming pod" in result.attempts[2].reason


def test_existing_pods_anti_affinity_is_symmetric():
    guard = pod("guard", node="n1", labels={"app": "db"}, affinity=anti(selector=WEB))
    result = run(node("n1"), node("n2"), guard, pod("web", labels=WEB))
    assert placed(result) == {"web": "n2"}
    result = run(node("n1"), guard, pod("web", labels=WEB))
    assert "1 node(s) didn't satisfy existing pods anti-affinity rules" in result.attempts[0].reason


def test_affinity_follows_the_matching_pods_domain():
    cache = pod("cache", node="b1", labels={"app": "cache"})
    result = run(node("a1", "zone-a"), node("b1", "zone-b"), node("b2", "zone-b"), cache,
                 pod("web", affinity=affinity(ZONE)))
    assert placed(result)["web"] in ("b1", "b2")


def test_affinity_without_any_match_and_the_first_pod_of_a_group():
    result = run(node("n1"), pod("web", affinity=affinity()))
    assert "1 node(s) didn't match pod affinity rules" in result.attempts[0].reason
    assert "1 Preemption is not helpful for scheduling" in result.attempts[0].reason
    first = pod("cache-0", labels={"app": "cache"}, affinity=affinity())
    assert placed(run(node("n1"), first)) == {"cache-0": "n1"}


def test_affinity_namespaces_and_namespace_selector():
    cache = pod("cache", node="n2", labels={"app": "cache"}, namespace="infra")
    same_ns = pod("web", affinity=affinity())
    assert placed(run(node("n1"), node("n2"), cache, same_ns))["web"] is None
    named = pod("web", affinity=affinity(namespaces=["infra"]))
    assert placed(run(node("n1"), node("n2"), cache, named)) == {"web": "n2"}
    infra_ns = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "infra", "labels": {"tier": "infra"}}}
    by_label = pod("web", affinity=affinity(namespaceSelector={"matchLabels": {"tier": "infra"}}))
    assert placed(run(node("n1"), node("n2"), infra_ns, cache, by_label)) == {"web": "n2"}
    everywhere = pod("web", affinity=affinity(namespaceSelector={}))
    assert placed(run(node("n1"), node("n2"), cache, everywhere)) == {"web": "n2"}


# ---- Volumes ---------------------------------------------------------------------------------
def claim(name, volume=None, storage_class="gp3"):
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": name, "namespace": "default"},
            "spec": {"storageClassName": storage_class, **({"volumeName": volume} if volume else {})}}


def zonal_volume(name, zone):
    return {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": name},
            "spec": {"storageClassName": "gp3", "claimRef": {"namespace": "default", "name": "data"},
                     "nodeAffinity": {"required": {"nodeSelectorTerms": [{"matchExpressions": [
                         {"key": "topology.ebs.csi.aws.com/zone", "operator": "In", "values": [zone]}]}]}}}}


def with_claim(name, claim_name="data"):
    return pod(name, volumes=[{"name": "data", "persistentVolumeClaim": {"claimName": claim_name}}])


def ebs_node(name, zone):
    return node(name, zone, labels={"topology.ebs.csi.aws.com/zone": zone})


def test_bound_zonal_volume_pins_the_zone():
    result = run(ebs_node("a1", "zone-a"), ebs_node("b1", "zone-b"), claim("data", "pv-1"),
                 zonal_volume("pv-1", "zone-b"), with_claim("db"))
    assert placed(result) == {"db": "b1"}
    cluster = (ebs_node("a1", "zone-a"), claim("data", "pv-1"), zonal_volume("pv-1", "zone-b"), with_claim("db"))
    assert "1 node(s) didn't match PersistentVolume's node affinity" in run(*cluster).attempts[0].reason
    assert "1 node(s) had volume node affinity conflict" in run(*cluster, version=(1, 32)).attempts[0].reason


def test_missing_claim_is_a_pending_reason_not_a_crash():
    result = run(node("n1"), node("n2"), with_claim("db", "nope"))
    assert result.attempts[0].reason == ('0/2 nodes are available: persistentvolumeclaim "nope" not found. '
                                         "preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.")


def test_unbound_wait_for_first_consumer_claim_goes_anywhere():
    wffc = {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": "gp3"},
            "provisioner": "ebs.csi.aws.com", "volumeBindingMode": "WaitForFirstConsumer"}
    assert placed(run(node("n1"), wffc, claim("data"), with_claim("db"))) == {"db": "n1"}


def test_preferred_pod_affinity_and_its_symmetry_score():
    cache = pod("cache", node="n2", labels={"app": "cache"})
    prefer = {"podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": 100, "podAffinityTerm": {"labelSelector": {"matchLabels": {"app": "cache"}}, "topologyKey": HOST}}]}}
    assert placed(run(node("n1"), node("n2"), cache, pod("web", affinity=prefer))) == {"web": "n2"}
    # the other way round: a bound pod that prefers web pods near it draws the web pod in
    likes_web = pod("cache", node="n2", labels={"app": "cache"}, affinity={"podAffinity": {
        "preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": 100, "podAffinityTerm": {"labelSelector": {"matchLabels": WEB}, "topologyKey": HOST}}]}})
    assert placed(run(node("n1"), node("n2"), likes_web, pod("web", labels=WEB))) == {"web": "n2"}
    avoid = {"podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": 100, "podAffinityTerm": {"labelSelector": {"matchLabels": {"app": "cache"}}, "topologyKey": HOST}}]}}
    # n2 is far emptier (LeastAllocated prefers it), but the preferred anti-affinity outweighs that
    cache_on_big = pod("cache", node="n2", labels={"app": "cache"})
    assert placed(run(node("n1", cpu="2"), node("n2", cpu="16"), cache_on_big, pod("web"))) == {"web": "n2"}
    assert placed(run(node("n1", cpu="2"), node("n2", cpu="16"), cache_on_big, pod("web", affinity=avoid))) == {"web": "n1"}


def daemon_pod(name, target, **extra):
    pinned = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchFields": [{"key": "metadata.name", "operator": "In", "values": [target]}]}]}}}
    return pod(name, affinity=pinned, **extra)


@pytest.mark.parametrize("version,expected", [
    ((1, 32), "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) didn't satisfy plugin(s) [NodeAffinity]."),
    ((1, 31), "0/3 nodes are available: 1 Insufficient cpu."),
])
def test_daemonset_style_pinning_narrows_before_filtering(version, expected):
    result = run(node("n1", cpu="1"), node("n2"), node("n3"), daemon_pod("ds-n1", "n1", cpu="2"), version=version)
    assert result.attempts[0].reason.startswith(expected)
    assert placed(run(node("n1"), node("n2"), daemon_pod("ds-n2", "n2"))) == {"ds-n2": "n2"}


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["1", "2", "4"]), st.sampled_from(["1Gi", "4Gi"])), min_size=1, max_size=6),
       st.lists(st.tuples(st.sampled_from(["500m", "1500m", "3", "8"]), st.sampled_from(["256Mi", "2Gi", "8Gi"]),
                          st.integers(0, 5)), min_size=1, max_size=8),
       st.sampled_from([(1, 33), (1, 34)]))
def test_resources_fit_answers_with_the_kept_too_small_nodes_as_asked_afresh(sizes, pods, version):
    """Pod after pod, each placed where the test says: NodeResourcesFit's failures over every node and
    over a few nodes, with what one simulation keeps (the nodes too small for a set of requests,
    asked once), are what a cycle with nothing kept finds; the few nodes' masks are the whole's."""
    import numpy as np

    from karptui.model import build_snapshot
    from karptui.sim.cycle import PodCycle
    from karptui.sim.plugins import node_resources_fit
    from karptui.sim.state import ClusterState

    snapshot = build_snapshot([node(f"n{i}", cpu=cpu, memory=memory) for i, (cpu, memory) in enumerate(sizes)]
                              + [pod(f"p{k}", cpu=cpu, memory=memory) for k, (cpu, memory, _) in enumerate(pods)])
    state = ClusterState(snapshot)
    kept: dict = {}

    def plain(failures):
        return [(f.reason, f.code, f.nodes.tolist()) for f in failures]

    some = np.array([i for i in range(len(sizes)) if i % 2 == 0], dtype=np.intp)
    for p, (_, _, where) in zip(snapshot.pods, pods):
        ctx = PodCycle(p, state, version, kept)
        afresh = PodCycle(p, state, version, {})
        assert plain(node_resources_fit.filter(ctx)) == plain(node_resources_fit.filter(afresh))
        assert plain(node_resources_fit.filter(ctx, some)) == plain(node_resources_fit.filter(afresh, some))
        whole = node_resources_fit.filter(afresh)
        assert [(f.reason, f.code, f.nodes[some].tolist()) for f in whole if f.nodes[some].any()] == \
            plain(node_resources_fit.filter(ctx, some))
        state.place(p, where % len(sizes))
