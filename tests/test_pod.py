"""Pod fields and effective requests by Kubernetes' rules."""

from datetime import datetime, timezone

import pytest

from karptui.model.build import build_snapshot
from karptui.model.errors import ModelError
from karptui.model.meta import meta_fields
from karptui.model.pod import _build_pod, build_pod, effective_requests
from tests.conftest import pod_obj


def c(name, cpu=None, memory=None, limits=None, restart=None):
    container = {"name": name, "resources": {}}
    if cpu or memory:
        container["resources"]["requests"] = {k: v for k, v in (("cpu", cpu), ("memory", memory)) if v}
    if limits:
        container["resources"]["limits"] = limits
    if restart:
        container["restartPolicy"] = restart
    return container


def test_containers_add_up():
    r = effective_requests({"containers": [c("a", "250m", "64Mi"), c("b", "750m", "64Mi")]})
    assert r["cpu"] == 1000 and r["memory"] == 128 * 2**20


def test_init_container_max_wins():
    r = effective_requests({"containers": [c("a", "500m")], "initContainers": [c("i", "2")]})
    assert r["cpu"] == 2000


def test_restartable_sidecars_add_to_containers_and_to_later_inits():
    spec = {
        "initContainers": [c("mesh", "200m", restart="Always"), c("migrate", "1")],
        "containers": [c("app", "500m")],
    }
    # app + sidecar = 700m; the migrate init runs beside the sidecar: 1000m + 200m
    assert effective_requests(spec)["cpu"] == 1200


def test_sidecar_started_after_an_init_does_not_count_for_it():
    spec = {"initContainers": [c("migrate", "1"), c("mesh", "200m", restart="Always")],
            "containers": [c("app", "500m")]}
    assert effective_requests(spec)["cpu"] == 1000


def test_overhead_and_pod_level_resources():
    spec = {"containers": [c("a", "100m", "100Mi")], "overhead": {"cpu": "250m", "memory": "120Mi"}}
    assert effective_requests(spec)["cpu"] == 350
    spec["resources"] = {"requests": {"cpu": "2"}}
    assert effective_requests(spec)["cpu"] == 2250  # pod-level replaces cpu, overhead still added
    assert effective_requests(spec)["memory"] == 220 * 2**20


def test_limits_without_requests_default_to_limits():
    r = effective_requests({"containers": [c("a", limits={"cpu": "1", "memory": "1Gi"})]})
    assert r["cpu"] == 1000 and r["memory"] == 2**30


def test_extended_resources():
    spec = {"containers": [c("a", limits={"nvidia.com/gpu": "1"})]}
    assert effective_requests(spec)["nvidia.com/gpu"] == 1


def test_pod_fields():
    raw = pod_obj("web-1", node=None, priorityClassName="high", priority=1000,
                  nodeSelector={"team": "a"},
                  tolerations=[{"key": "gpu", "operator": "Exists", "effect": "NoSchedule"}],
                  topologySpreadConstraints=[{"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone",
                                              "whenUnsatisfiable": "DoNotSchedule",
                                              "labelSelector": {"matchLabels": {"app": "web"}},
                                              "minDomains": 3, "matchLabelKeys": ["pod-template-hash"]}],
                  volumes=[{"name": "data", "persistentVolumeClaim": {"claimName": "data-web-1"}},
                           {"name": "scratch", "ephemeral": {"volumeClaimTemplate": {}}}])
    raw["spec"]["containers"][0]["ports"] = [{"containerPort": 80, "hostPort": 8080}]
    raw["metadata"]["annotations"] = {"karpenter.sh/do-not-evict": "true"}
    raw["status"]["conditions"] = [{"type": "PodScheduled", "status": "False", "reason": "Unschedulable",
                                    "message": "0/3 nodes are available: 3 Insufficient cpu."}]
    pod = build_pod(raw)
    assert pod.is_pending and pod.priority == 1000 and pod.node_selector == {"team": "a"}
    assert pod.blocks_disruption(legacy=True) and not pod.blocks_disruption()
    assert pod.tolerations[0].key == "gpu"
    spread = pod.spread_constraints[0]
    assert (spread.max_skew, spread.min_domains, spread.node_affinity_policy, spread.node_taints_policy) == (
        1, 3, "Honor", "Ignore")
    assert pod.host_ports[0].port == 8080 and pod.host_ports[0].protocol == "TCP"
    assert pod.pvc_names == ("data-web-1", "web-1-scratch")
    assert pod.scheduled_reason == "Unschedulable" and pod.scheduled_message.startswith("0/3 nodes")


def test_affinity_parsed():
    term = {"labelSelector": {"matchExpressions": [{"key": "app", "operator": "In", "values": ["inflate"]}]},
            "topologyKey": "kubernetes.io/hostname"}
    pod = build_pod(pod_obj("p", affinity={
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                {"matchExpressions": [{"key": "team", "operator": "In", "values": ["team1"]}]}]},
            "preferredDuringSchedulingIgnoredDuringExecution": [
                {"weight": 10, "preference": {"matchExpressions": [
                    {"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["spot"]}]}}]},
        "podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [term],
                            "preferredDuringSchedulingIgnoredDuringExecution": [
                                {"weight": 50, "podAffinityTerm": term}]},
    }))
    aff = pod.affinity
    assert aff.node_required.matches({"team": "team1"}, "n")
    assert aff.node_preferred[0].weight == 10
    assert aff.anti_required[0].topology_key == "kubernetes.io/hostname"
    assert aff.anti_preferred[0].weight == 50
    assert aff.anti_required[0].label_selector.matches({"app": "inflate"})


@pytest.mark.parametrize(
    "mutate,message",
    [
        (lambda p: p["spec"].update(containers="x"), "spec.containers: expected a list"),
        (lambda p: p["spec"]["containers"][0]["resources"]["requests"].update(cpu="lots"),
         r"spec.containers\[0\].resources.requests.cpu: 'lots' is not a quantity"),
        (lambda p: p["spec"].update(topologySpreadConstraints=[{"maxSkew": 0, "topologyKey": "k"}]),
         "maxSkew"),
        (lambda p: p["spec"].update(tolerations=[{"operator": "Sometimes"}]), "operator"),
        (lambda p: p["metadata"].update(name=None), "metadata.name: missing"),
    ],
)
def test_malformed_pods_fail_with_the_field_path(mutate, message):
    raw = pod_obj("p")
    mutate(raw)
    with pytest.raises(ModelError, match=message):
        build_pod(raw)


def test_terminal_and_daemonset_pods():
    done = pod_obj("job-x", node="n1")
    done["status"]["phase"] = "Succeeded"
    ds = pod_obj("aws-node-abc", "kube-system", node="n1")
    ds["metadata"]["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": "DaemonSet", "name": "aws-node",
                                          "uid": "u", "controller": True}]
    snap = build_snapshot([done, ds])
    assert not snap.pods[0].is_pending and snap.pods[0].is_terminal
    assert snap.pods[1].is_daemonset_pod
    assert [p.name for p in snap.pods_by_node["n1"]] == ["aws-node-abc"]


def test_do_not_disrupt_true_or_a_duration_since_the_pod_started():
    def annotated(name, value, started=None):
        raw = pod_obj(name)
        raw["metadata"]["annotations"] = {"karpenter.sh/do-not-disrupt": value}
        if started:
            raw["status"]["startTime"] = started
        return build_pod(raw)

    assert annotated("a", "true").blocks_disruption()
    assert not annotated("c", "false").blocks_disruption()
    timed = annotated("d", "5m", "2024-05-01T10:00:00Z")
    assert timed.blocks_disruption(datetime(2024, 5, 1, 10, 4, tzinfo=timezone.utc))
    assert not timed.blocks_disruption(datetime(2024, 5, 1, 10, 6, tzinfo=timezone.utc))
    assert not annotated("e", "soon").blocks_disruption()  # Karpenter ignores a malformed value


def _replica(name, node=None, **spec):
    raw = pod_obj(name, node=node, priority=100, tolerations=[{"key": "gpu", "operator": "Exists"}],
                  initContainers=[{"name": "mesh", "image": "mesh:1", "restartPolicy": "Always",
                                   "resources": {"requests": {"cpu": "50m"}}, "ports": [{"hostPort": 15000}]}],
                  **spec)
    raw["metadata"]["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-abc",
                                           "uid": "rs-1", "controller": True}]
    return raw


def test_a_replica_takes_its_siblings_template_and_reads_its_own_fields():
    first = build_pod(_replica("web-1"))
    raw = _replica("web-2", node="n7", volumes=[{"name": "scratch", "ephemeral": {"volumeClaimTemplate": {}}}],
                   affinity={"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
                       "nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In",
                                                               "values": ["n7"]}]}]}}})
    raw["status"] = {"phase": "Running", "startTime": "2024-05-01T12:00:00Z",
                     "conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": "2024-05-01T12:00:05Z"}],
                     "containerStatuses": [{"restartCount": 3}], "nominatedNodeName": "n9"}
    second = build_pod(raw)
    assert second.requests is first.requests and second.host_ports is first.host_ports  # shared, not re-read
    alone = _build_pod(raw, {**meta_fields(raw, keep_raw=False)})
    assert second == alone
    assert (second.node_name, second.pvc_names, second.restarts, second.nominated_node, second.ready) == (
        "n7", ("web-2-scratch",), 3, "n9", True)
    assert second.affinity.node_required is not None and first.affinity.node_required is None
    assert second.requests["cpu"] == 150 and second.host_ports[0].port == 15000


@pytest.mark.parametrize("change,message", [
    (lambda s: s.update(priority=True), "spec.priority: expected an integer, got a boolean"),
    (lambda s: s.update(initContainers=0), "spec.initContainers: expected a list"),
    (lambda s: s.update(initContainers={}), "spec.initContainers: expected a list"),
    (lambda s: s["containers"].append("sidecar"), r"spec.containers\[1\]: expected an object"),
])
def test_a_template_equal_to_a_siblings_only_by_python_equality_is_read_again(change, message):
    """True == 1 and 0 == [] is false in Python but both are falsy: the memo tells them apart."""
    build_pod(_replica("web-1"))
    raw = _replica("web-2")
    change(raw["spec"])
    with pytest.raises(ModelError, match=message):
        build_pod(raw)


def test_a_replica_with_two_faults_names_the_one_it_names_when_built_alone():
    build_pod(_replica("web-1"))
    raw = _replica("web-2")
    raw["status"] = {"phase": ["Running"], "startTime": "yesterday"}
    with pytest.raises(ModelError) as shared:
        build_pod(raw)
    with pytest.raises(ModelError) as alone:
        _build_pod(raw, meta_fields(raw, keep_raw=False))
    assert str(shared.value) == str(alone.value) == "status.phase: expected a string, got list"
