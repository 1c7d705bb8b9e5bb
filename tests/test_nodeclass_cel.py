"""EC2NodeClass kubelet CEL expressions (Karpenter v1.15, AWS gate NodeClassCEL) set pods and reservations per type.

Expressions as the AWS provider's docs and tests write them; the bundled catalog's m5 types; the gate as the
controller's ``AWS_FEATURE_GATES`` or ``--aws-feature-gates``.
"""

from __future__ import annotations

import dataclasses

import pytest

from karptui.catalog import bundled_catalog
from karptui.model import build_snapshot
from karptui.model.errors import ModelError
from karptui.model.kubelet import parse_kubelet
from karptui.sim import simulate
from karptui.sim.karpenter.nodeclass_cel import ExpressionError, default_kube_reserved, evaluate
from karptui.sim.karpenter.overlays import karpenter_catalog
from karptui.sim.karpenter.featuregates import DEFAULT_GATES
from tests.simkit import pod

MIB = 2**20


def _snapshot(kubelet, version="v1.15.1", gates="NodeClassCEL=true"):
    pool = {"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": "default"},
            "spec": {"template": {"spec": {
                "requirements": [{"key": "node.kubernetes.io/instance-type", "operator": "In",
                                  "values": ["m5.large", "m5.xlarge", "m5.2xlarge"]}],
                "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"}}}}}
    nodeclass = {"apiVersion": "karpenter.k8s.aws/v1", "kind": "EC2NodeClass", "metadata": {"name": "default"},
                 "spec": {"role": "KarpenterNodeRole", "amiSelectorTerms": [{"alias": "al2023@latest"}],
                          "kubelet": kubelet},
                 "status": {"conditions": [{"type": "Ready", "status": "True"}]}}
    controller = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "karpenter", "namespace": "kube-system"},
                  "spec": {"selector": {"matchLabels": {"app": "karpenter"}}, "template": {
                      "metadata": {"labels": {"app": "karpenter"}},
                      "spec": {"containers": [{"name": "controller",
                                               "image": f"public.ecr.aws/karpenter/controller:{version.lstrip('v')}",
                                               "env": [{"name": "AWS_FEATURE_GATES", "value": gates}]}]}}}}
    return build_snapshot([pool, nodeclass, controller])


def _types(snapshot):
    catalog, notes = karpenter_catalog(snapshot, bundled_catalog("us-east-1"), DEFAULT_GATES)
    return {t.name: t for t in catalog if t.name.startswith("m5.")}, notes


def test_the_library_evaluates_the_providers_functions_and_types():
    names = {"vcpus": 4, "memory_mib": 16384, "max_pods": 58, "instance_type": "m5.xlarge"}
    assert evaluate("min(110, vcpus * 8)", names) == 32
    assert evaluate("max(60, vcpus * 30)", names) == 120
    assert evaluate("max(1, 2.5)", names) == 2          # a double result is truncated, as the provider does
    assert evaluate("instance_type.startsWith('m5') ? 20 : max_pods", names) == 20
    with pytest.raises(ExpressionError, match="must return int or double"):
        evaluate("instance_type", names)
    with pytest.raises(ExpressionError, match="'vcpus \\+'"):
        evaluate("vcpus +", names)


def test_max_pods_expression_sets_each_types_pods_and_memory_kube_reserved_follows():
    base, _ = _types(_snapshot({"maxPods": 110}))           # a number: not an expression, nothing applied
    types, notes = _types(_snapshot({"maxPods": "min(110, vcpus * 8)"}))
    assert "EC2NodeClass default: kubelet CEL expressions applied per instance type (NodeClassCEL)" in notes
    for name, vcpus in (("m5.large", 2), ("m5.xlarge", 4), ("m5.2xlarge", 8)):
        pods = min(110, vcpus * 8)
        assert types[name].allocatable["pods"] == pods
        # the default kube-reserved memory is 11 MiB a pod + 255 MiB: more pods, less allocatable memory
        shift = (11 * pods - 11 * base[name].allocatable["pods"]) * MIB
        assert types[name].allocatable["memory"] == base[name].allocatable["memory"] - shift


def test_kube_and_system_reserved_expressions_replace_the_defaults_in_their_units():
    base, _ = _types(_snapshot({}))
    types, _ = _types(_snapshot({"kubeReserved": {"cpu": "max(60, vcpus * 30)", "memory": "memory_mib / 100"},
                                 "systemReserved": {"cpu": "vcpus * 4", "memory": "100Mi"}}))
    m5 = base["m5.xlarge"]
    default = default_kube_reserved(m5.capacity["cpu"], m5.allocatable["pods"])
    # kube-reserved cpu 120m replaces the default; system-reserved cpu 16m rounds up to 20m and is taken off too
    assert types["m5.xlarge"].allocatable["cpu"] == m5.allocatable["cpu"] + default["cpu"] - 120 - 20
    # memory_mib / 100 = 163 MiB, rounded up to 176 MiB; "100Mi" is a quantity, static (karptui's catalog does not
    # apply static kubelet values, with or without the gate)
    assert types["m5.xlarge"].allocatable["memory"] == m5.allocatable["memory"] + default["memory"] - 176 * MIB


@pytest.mark.parametrize("version, gates, why", [
    ("v1.9.2", "NodeClassCEL=true", "read from Karpenter v1.15"),
    ("v1.14.3", "NodeClassCEL=true", "read from Karpenter v1.15"),
    ("v1.15.1", "NodeClassCEL=false", "need the AWS feature gate NodeClassCEL"),
])
def test_expressions_apply_only_from_v1_15_with_the_gate(version, gates, why):
    base, _ = _types(_snapshot({}))
    types, notes = _types(_snapshot({"maxPods": "min(110, vcpus * 8)"}, version=version, gates=gates))
    assert types["m5.large"].allocatable == base["m5.large"].allocatable
    assert any(why in note and "not applied" in note for note in notes), notes


def test_an_expression_reading_eni_figures_is_not_applied_and_said_so():
    base, _ = _types(_snapshot({}))
    types, notes = _types(_snapshot({"maxPods": "default_enis * (ips_per_eni - 1) + 2"}))
    assert types["m5.large"].allocatable == base["m5.large"].allocatable
    assert any("default_enis or ips_per_eni" in note for note in notes), notes


def test_the_simulation_packs_by_the_evaluated_pods():
    """m5.large holds 29 pods by its ENIs; with maxPods min(110, vcpus * 8) it holds 16 (a node more for 20 pods)."""
    def new_nodes(kubelet):
        snapshot = _snapshot(kubelet)
        pending = []
        for i in range(20):
            raw = pod(f"web-{i}", cpu="10m", memory="16Mi")
            raw["status"]["conditions"] = [{"type": "PodScheduled", "status": "False", "reason": "Unschedulable"}]
            raw["spec"]["nodeSelector"] = {"node.kubernetes.io/instance-type": "m5.large"}
            pending.append(raw)
        snapshot = build_snapshot([*(o.raw for o in (*snapshot.nodepools, *snapshot.nodeclasses, *snapshot.workloads)),
                                   *pending])
        return len(simulate(snapshot, catalog=bundled_catalog("us-east-1")).nodeclaims)
    assert new_nodes({}) == 1
    assert new_nodes({"maxPods": "min(110, vcpus * 8)"}) == 2


def test_the_model_keeps_expressions_apart_from_quantities():
    kubelet = parse_kubelet({"maxPods": "min(110, vcpus * 8)", "kubeReserved": {"cpu": "100m", "memory": "memory_mib / 100"}},
                            "spec.kubelet")
    assert kubelet.max_pods is None and kubelet.max_pods_expression == "min(110, vcpus * 8)"
    assert dict(kubelet.kube_reserved) == {"cpu": 100} and dict(kubelet.kube_reserved_expressions) == {"memory": "memory_mib / 100"}
    assert parse_kubelet({"maxPods": "110"}, "k").max_pods == 110
    with pytest.raises(ModelError, match="maxPods: empty"):
        parse_kubelet({"maxPods": " "}, "k")
