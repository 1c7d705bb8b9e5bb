"""Capacity buffers: how a CapacityBuffer becomes virtual pods, per Karpenter release.

Facts from kubernetes-sigs/karpenter at v1.14.0 (``provisioning/buffers.go``) and v1.14.1 / main
(``state/virtualpods/utilities.go``, ``capacitybuffer/{controller,helpers}.go``, ``utils/apps/resolve.go``);
the upstream tests these hold are named in the skipped lists of tests/karpenter_spec/after-v1.14.1/,
virtualpods/ and virtualpods-utilities/.
"""

from __future__ import annotations

import pytest

from karptui.model.build import SnapshotBuilder
from karptui.sim.karpenter.buffers import (
    BUFFER_NAME,
    BUFFER_NAMESPACE,
    FAKE_POD,
    VIRTUAL_POD_PRIORITY,
    buffer_key,
    buffer_pods,
    resolutions,
)
from karptui.sim.karpenter.featuregates import DEFAULT_GATES, FeatureGates
from karptui.sim.karpenter.versions import KarpenterVersion

V1_14_0, V1_14_1, V1_15_0 = (KarpenterVersion.parse(v) for v in ("v1.14.0", "v1.14.1", "v1.15.0"))
ON = FeatureGates(CapacityBuffer=True)

SPEC = {
    "containers": [{"name": "c", "image": "p", "resources": {"requests": {"cpu": "500m", "memory": "1Gi"}},
                    "volumeMounts": [{"name": "data", "mountPath": "/d"}, {"name": "scratch", "mountPath": "/s"},
                                     {"name": "cfg", "mountPath": "/c"}]}],
    "volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": "data"}},
                {"name": "scratch", "ephemeral": {"volumeClaimTemplate": {"spec": {"accessModes": ["ReadWriteOnce"]}}}},
                {"name": "cfg", "configMap": {"name": "cfg"}}],
    "nodeSelector": {"team": "a"},
    "tolerations": [{"key": "dedicated", "operator": "Equal", "value": "a", "effect": "NoSchedule"}],
    "affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
        {"labelSelector": {"matchLabels": {"app": "web"}}, "topologyKey": "kubernetes.io/hostname"}]}},
    "priorityClassName": "high",
    "nodeName": "somewhere",
}


def _template(name="shape", labels=None, spec=None) -> dict:
    return {"apiVersion": "v1", "kind": "PodTemplate", "metadata": {"name": name, "namespace": "team"},
            "template": {"metadata": {"labels": labels or {"app": "web"}}, "spec": spec or SPEC}}


def _buffer(name="buf", uid="u-1", **spec) -> dict:
    return {"apiVersion": "autoscaling.x-k8s.io/v1beta1", "kind": "CapacityBuffer",
            "metadata": {"name": name, "namespace": "team", "uid": uid}, "spec": spec}


def _deployment(replicas) -> dict:
    spec = {"selector": {"matchLabels": {"app": "web"}},
            "template": {"metadata": {"labels": {"app": "web"}}, "spec": SPEC}}
    if replicas is not None:
        spec["replicas"] = replicas
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web", "namespace": "team"},
            "spec": spec}


def _snapshot(*objects):
    builder = SnapshotBuilder()
    for obj in objects:
        builder.add(obj)
    return builder.build()


def _pods(*objects, version=V1_14_1, gates=ON):
    return buffer_pods(_snapshot(*objects), gates, version)


def test_a_buffer_makes_its_replicas_as_named_pending_virtual_pods():
    """utilities_test.go:33 (count and metadata), :67 (deterministic UIDs)."""
    pods = _pods(_template(), _buffer(podTemplateRef={"name": "shape"}, replicas=3))
    assert [p.name for p in pods] == ["capacity-buffer-buf-1", "capacity-buffer-buf-2", "capacity-buffer-buf-3"]
    assert {p.namespace for p in pods} == {"team"}
    assert [p.uid for p in pods] == ["u-1-1", "u-1-2", "u-1-3"]
    assert pods == _pods(_template(), _buffer(podTemplateRef={"name": "shape"}, replicas=3))
    for pod in pods:
        assert pod.annotations[FAKE_POD] == "true"
        assert pod.priority == VIRTUAL_POD_PRIORITY == -2147483648
        assert pod.is_pending and pod.scheduled_reason == "Unschedulable" and not pod.node_name
        assert pod.requests["cpu"] == 500 and pod.requests["memory"] == 1024 ** 3


@pytest.mark.parametrize("version", [V1_14_1, V1_15_0])
def test_from_v1_14_1_the_buffer_names_are_annotations_and_the_template_labels_stay(version):
    pod = _pods(_template(), _buffer(podTemplateRef={"name": "shape"}, replicas=1), version=version)[0]
    assert dict(pod.labels) == {"app": "web"}
    assert pod.annotations[BUFFER_NAME] == "buf" and pod.annotations[BUFFER_NAMESPACE] == "team"
    assert buffer_key(pod, version) == "team/buf"


def test_in_v1_14_0_the_buffer_names_are_the_only_labels():
    pod = _pods(_template(), _buffer(podTemplateRef={"name": "shape"}, replicas=1), version=V1_14_0)[0]
    assert dict(pod.labels) == {BUFFER_NAME: "buf", BUFFER_NAMESPACE: "team"}
    assert BUFFER_NAME not in pod.annotations
    assert buffer_key(pod, V1_14_0) == "team/buf"
    # the other release's reading finds no key: the names moved
    assert buffer_key(pod, V1_14_1) == ""


@pytest.mark.parametrize("missing", [BUFFER_NAMESPACE, BUFFER_NAME])
def test_a_virtual_pod_missing_either_name_belongs_to_no_buffer(missing):
    """buffers_test.go:45 and :57 (v1.14.1): bufferKeyOf is "" without the namespace / name annotation."""
    from dataclasses import replace

    pod = _pods(_template(), _buffer(podTemplateRef={"name": "shape"}, replicas=1))[0]
    stripped = replace(pod, annotations={k: v for k, v in pod.annotations.items() if k != missing})
    assert buffer_key(stripped, V1_14_1) == ""
    assert buffer_key(replace(pod, annotations={}), V1_14_1) == ""   # not a virtual pod at all


def test_claims_are_dropped_and_scheduling_constraints_kept():
    """utilities_test.go:91, :121, :148 (PVC and ephemeral volumes dropped), :175 (tolerations,
    nodeSelector, affinity kept); the template's nodeName is not inherited."""
    pod = _pods(_template(), _buffer(podTemplateRef={"name": "shape"}, replicas=1))[0]
    assert pod.pvc_names == ()
    assert dict(pod.node_selector) == {"team": "a"}
    assert [t.key for t in pod.tolerations] == ["dedicated"]
    assert len(pod.affinity.anti_required) == 1
    assert pod.node_name == ""


def test_zero_replicas_make_no_pods():
    """utilities_test.go:81, :239."""
    assert _pods(_template(), _buffer(podTemplateRef={"name": "shape"}, replicas=0)) == ()


def test_a_buffer_with_neither_ref_or_a_missing_template_makes_none():
    """utilities_test.go:222; virtualpods_test.go:209 (a spec that cannot be resolved is skipped)."""
    snapshot = _snapshot(_template(), _buffer("none", replicas=2),
                         _buffer("lost", podTemplateRef={"name": "gone"}, replicas=2),
                         _buffer("ok", podTemplateRef={"name": "shape"}, replicas=1))
    found = {r.buffer.name: r for r in resolutions(snapshot)}
    assert (found["none"].ready, found["none"].reason) == (False, "ResolutionFailed")
    assert (found["lost"].ready, found["lost"].reason) == (False, "PodTemplateNotFound")
    assert [p.name for p in buffer_pods(snapshot, ON, V1_14_1)] == ["capacity-buffer-ok-1"]


@pytest.mark.parametrize("deployment_replicas,percentage,replicas,want", [
    (10, 20, None, 2),      # controller suite: percentage of the Deployment's replicas
    (10, 25, None, 3),      # rounded up
    (3, 1, None, 1),        # at least one chunk
    (10, 20, 5, 5),         # replicas and percentage: the larger
    (None, 100, None, 1),   # a workload without spec.replicas counts as 1
])
def test_a_scalable_ref_takes_the_workloads_template_and_a_percentage_of_its_replicas(
        deployment_replicas, percentage, replicas, want):
    """utilities_test.go:213 and :260 (scalableRef buffers, without status.podTemplateRef)."""
    spec = {"scalableRef": {"apiGroup": "apps", "kind": "Deployment", "name": "web"}, "percentage": percentage}
    if replicas is not None:
        spec["replicas"] = replicas
    pods = _pods(_deployment(deployment_replicas), _buffer(**spec))
    assert len(pods) == want
    assert dict(pods[0].labels) == {"app": "web"}


def test_limits_bound_the_count_or_give_it():
    """helpers.go calculateLimitReplicas: floor(limit / request), the smallest over the resources both name."""
    shape = _template()  # 500m cpu, 1Gi memory a chunk
    bounded = _pods(shape, _buffer(podTemplateRef={"name": "shape"}, replicas=10, limits={"cpu": "2", "memory": "3Gi"}))
    assert len(bounded) == 3          # min(10, 2/0.5 = 4, 3Gi/1Gi = 3)
    alone = _pods(shape, _buffer(podTemplateRef={"name": "shape"}, limits={"cpu": "1600m"}))
    assert len(alone) == 3            # floor(1.6 / 0.5)
    unrelated = _pods(shape, _buffer(podTemplateRef={"name": "shape"}, replicas=2, limits={"nvidia.com/gpu": "1"}))
    assert len(unrelated) == 2        # a limit on a resource the chunk does not ask for bounds nothing


def test_unsupported_scalable_refs_resolve_to_nothing():
    snapshot = _snapshot(_deployment(4), _buffer("grp", scalableRef={"apiGroup": "batch", "kind": "Deployment",
                                                                      "name": "web"}, replicas=1),
                         _buffer("kind", scalableRef={"kind": "Job", "name": "web"}, replicas=1))
    assert {r.buffer.name: r.reason for r in resolutions(snapshot)} == {"grp": "ResolutionFailed",
                                                                        "kind": "ResolutionFailed"}
    assert buffer_pods(snapshot, ON, V1_14_1) == ()


def test_the_gate_off_makes_no_virtual_pods():
    assert not DEFAULT_GATES.CapacityBuffer
    assert _pods(_template(), _buffer(podTemplateRef={"name": "shape"}, replicas=3), gates=DEFAULT_GATES) == ()


def test_a_buffer_the_api_server_would_refuse_is_skipped_with_a_warning():
    snapshot = _snapshot(_template(), _buffer("both", podTemplateRef={"name": "shape"}, replicas=1,
                                              scalableRef={"kind": "Deployment", "name": "web"}),
                         _buffer("bare", podTemplateRef={"name": "shape"}))
    assert snapshot.capacity_buffers == ()
    assert any("CapacityBuffer" in w and "both" in w for w in snapshot.warnings)
    assert any("replicas or limits must also be set" in w for w in snapshot.warnings)


def _bundled_with_buffer(write, version_flag):
    from pathlib import Path

    import yaml

    dump = yaml.safe_load((Path(__file__).resolve().parent.parent / "snapshots" / "consolidation.yaml").read_text())
    shape = {"containers": [{"name": "c", "image": "p", "resources": {"requests": {"cpu": "3", "memory": "1Gi"}}}]}
    dump["items"] += [
        {"apiVersion": "v1", "kind": "PodTemplate", "metadata": {"name": "warm", "namespace": "default"},
         "template": {"metadata": {"labels": {"app": "warm"}}, "spec": shape}},
        {"apiVersion": "autoscaling.x-k8s.io/v1beta1", "kind": "CapacityBuffer",
         "metadata": {"name": "warm", "namespace": "default", "uid": "b-1"},
         "spec": {"podTemplateRef": {"name": "warm"}, "replicas": 2}},
    ]
    return write("with-buffer.json", dump), ["--karpenter-version", version_flag]


def test_simulate_provisions_for_a_buffer_only_with_the_gate_on(cli, write):
    import json

    path, version = _bundled_with_buffer(write, "v1.15.1")
    code, out, err = cli("simulate", path, "--output", "json", *version)
    assert code == 0, err
    off = json.loads(out)
    assert "capacity_buffers" not in off
    assert any("1 CapacityBuffer(s) ignored" in n for n in off["notes"])
    assert not any(c["buffer_pods"] for c in off["nodeclaims"])

    code, out, err = cli("simulate", path, "--output", "json", "--feature-gates", "CapacityBuffer=true", *version)
    assert code == 0, err
    on = json.loads(out)
    [buffer] = on["capacity_buffers"]
    assert buffer["buffer"] == "default/warm" and buffer["replicas"] == 2 and buffer["ready_for_provisioning"]
    # 3 cpu a chunk: the snapshot's nodes have room for at most one, so new capacity is launched
    assert buffer["on_existing_nodes"] + buffer["on_new_nodeclaims"] == 2 and buffer["failed"] == 0
    assert buffer["on_new_nodeclaims"] >= 1 and buffer["provisioning"]["reason"] == "RequiresNewCapacity"
    launched = sorted(p for c in on["nodeclaims"] for p in c["buffer_pods"])
    assert len(launched) == buffer["on_new_nodeclaims"]
    assert set(launched) <= {"default/capacity-buffer-warm-1", "default/capacity-buffer-warm-2"}
    # virtual pods are never reported as pods of the cluster
    assert not {p["pod"] for p in on["pods"]} & set(launched)
    assert on["summary"]["pending"] == off["summary"]["pending"]


def test_snapshot_save_keeps_what_a_buffer_needs(cli, tmp_path):
    """``snapshot save`` lists CapacityBuffers (a Karpenter-era CRD) and PodTemplates, and keeps of them
    what the simulation reads: the saved file makes the same virtual pods as the objects the server held."""
    from karptui.sources import load_snapshot
    from tests.fakeapi import FakeAPI
    from tests.test_live import only_gets

    objects = [_template(), _buffer(podTemplateRef={"name": "shape"}, replicas=2, limits={"cpu": "5"}),
               _deployment(4), _buffer("pct", scalableRef={"kind": "Deployment", "name": "web"}, percentage=50)]
    with FakeAPI(karpenter=False) as api:
        api.add_resource("autoscaling.x-k8s.io", "v1beta1", "capacitybuffers", "CapacityBuffer", True)
        served = [api.add(o) for o in objects]
        out = tmp_path / "saved.json"
        code, _, err = cli("snapshot", "save", out, "--kubeconfig", api.kubeconfig(tmp_path / "k"), "--logs-since", "0")
        assert code == 0, err
        only_gets(api)
    saved = load_snapshot(out)
    assert sorted(b.name for b in saved.capacity_buffers) == ["buf", "pct"]
    assert [t.name for t in saved.pod_templates] == ["shape"]
    whole = _snapshot(*served)
    for version in (V1_14_0, V1_15_0):
        got = buffer_pods(saved, ON, version)
        assert [(p.name, dict(p.labels), p.requests, p.node_selector) for p in got] == \
               [(p.name, dict(p.labels), p.requests, p.node_selector) for p in buffer_pods(whole, ON, version)]
        assert len(got) == 4   # 2 chunks of the template, 50% of the Deployment's 4 replicas


def _status(ready: str, replicas: int | None, reason: str = "Resolved") -> dict:
    status = {"conditions": [{"type": "ReadyForProvisioning", "status": ready, "reason": reason}]}
    if replicas is not None:
        status["replicas"] = replicas
    return status


def test_a_written_status_is_read_as_the_provisioner_reads_it():
    """With a ReadyForProvisioning condition in the snapshot: the count is status.replicas (the spec says
    3), none when the condition is False or the count is 0; the shape still comes from the spec."""
    def made(status):
        return _pods(_template(), {**_buffer(podTemplateRef={"name": "shape"}, replicas=3), "status": status})

    assert len(made(_status("True", 2))) == 2
    assert made(_status("False", 2)) == ()
    assert made(_status("True", 0)) == ()
    assert made(_status("True", None)) == ()
    (found,) = resolutions(_snapshot(_template(), {**_buffer(podTemplateRef={"name": "shape"}, replicas=3),
                                                   "status": _status("True", 2)}))
    assert (found.from_status, found.replicas, found.spec_replicas) == (True, 2, 3)


def test_ready_by_its_status_but_its_template_gone_makes_no_pods():
    """virtualpods_test.go:209 with a status: the provisioner resolves the shape from the spec at that
    moment and skips the buffer it cannot resolve, whatever the status says."""
    buffer = {**_buffer(podTemplateRef={"name": "gone"}, replicas=2), "status": _status("True", 2)}
    assert _pods(buffer) == ()
    (found,) = resolutions(_snapshot(buffer))
    assert found.from_status and found.ready_for_provisioning and found.spec_replicas is None


def test_simulate_says_when_the_status_lags_the_spec(cli, write):
    import json

    path, version = _bundled_with_buffer(write, "v1.15.1")
    dump = json.loads(path.read_text())
    (buffer,) = [o for o in dump["items"] if o["kind"] == "CapacityBuffer"]
    buffer["status"] = _status("True", 1)
    path = write("lagging.json", dump)
    code, out, err = cli("simulate", path, "--output", "json", "--feature-gates", "CapacityBuffer=true", *version)
    assert code == 0, err
    doc = json.loads(out)
    (found,) = doc["capacity_buffers"]
    assert (found["from_status"], found["replicas"], found["spec_replicas"]) == (True, 1, 2)
    assert found["on_existing_nodes"] + found["on_new_nodeclaims"] + found["failed"] == 1
    assert any(n.startswith("CapacityBuffer default/warm: Karpenter provisions for 1 virtual pod(s)")
               and "resolves to 2" in n for n in doc["notes"])
