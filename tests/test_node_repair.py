"""Node repair as operators see it: ``karptui simulate --consolidate`` with the NodeRepair gate, per
Karpenter release, with AWS's repair policies or a catalog's own, and the Disruption pane's lines.

The upstream tests ported as scenarios live in tests/karpenter_spec/node-health/; these cover what
those cannot: AWS's policies (the scenarios use the fake provider's), the time left on a toleration
(the upstream requeue tests), the flag and the Deployment setting, bad catalog input, the pane."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import yaml

from karptui.catalog import load_catalog_file
from karptui.model.snapshot import SnapshotMeta
from karptui.sources.files import load_snapshot
from karptui.sources.snapshot_file import write_snapshot
from karptui.sim import simulate
from karptui.sim.karpenter.featuregates import FeatureGates
from karptui.views.disruption import simulated_view
from tests.karpenter_spec.harness import NOW, Cluster, named_catalog, run_cli

TYPES = named_catalog("fake-default")


def _cluster(conditions, pool_extra=None, nodes=2, deployment_env=None) -> Cluster:
    cluster = Cluster({t["name"]: t for t in TYPES})
    spec = {"disruption": {"consolidationPolicy": "WhenEmptyOrUnderutilized", "consolidateAfter": "Never"},
            **(pool_extra or {})}
    cluster.apply({"kind": "NodePool", "metadata": {"name": "default"}, "spec": spec})
    for i in range(1, nodes + 1):
        cluster.add_node({"name": f"node-{i}", "instanceType": "default-instance-type", "zone": "test-zone-1",
                          "capacityType": "on-demand", "nodepool": "default",
                          "conditions": conditions if i == 1 else []})
        cluster.add_pods(cluster.pod_manifests({"name": f"app-{i}", "nodeName": f"node-{i}",
                                                "requests": {"cpu": "3"}}, pending=False))
    if deployment_env:
        cluster.objects.append({
            "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "karpenter", "namespace": "kube-system"},
            "spec": {"template": {"spec": {"containers": [{
                "name": "controller", "image": "public.ecr.aws/karpenter/controller:1.15.1",
                "env": [{"name": k, "value": v} for k, v in deployment_env.items()]}]}}}})
    return cluster


def _files(tmp_path: Path, cluster: Cluster, policies=None) -> tuple[str, str]:
    snapshot, catalog = tmp_path / "snap.yaml", tmp_path / "catalog.yaml"
    write_snapshot(snapshot, cluster.manifests(), SnapshotMeta(name="repair", captured_at=NOW))
    doc = {"instanceTypes": TYPES}
    if policies is not None:
        doc["repairPolicies"] = policies
    catalog.write_text(yaml.safe_dump(doc, sort_keys=False))
    return str(snapshot), str(catalog)


def _simulate(tmp_path, cluster, *flags, policies=None) -> dict:
    snapshot, catalog = _files(tmp_path, cluster, policies)
    code, out, err = run_cli("simulate", snapshot, "--instance-types", catalog, "--consolidate", "--output", "json",
                             *flags)
    assert code == 0, err
    return json.loads(out)


def _repair_verdict(doc, node="node-1") -> dict:
    entry = next(n for n in doc["nodes"] if n["node"] == node)
    return next(m for m in entry["disruption"] if m["method"] == "repair")


NOT_READY_45M = [{"type": "Ready", "status": "False", "since": "45m"}]


def test_aws_policies_apply_when_the_catalog_names_none(tmp_path):
    """A catalog without repairPolicies is AWS's provider: Ready=False for 45m is past its 30m toleration."""
    cluster = _cluster(NOT_READY_45M)
    legacy = _simulate(tmp_path, cluster, "--feature-gates", "NodeRepair=true", "--karpenter-version", "v1.14.3")
    first = legacy["disruptions"][0]
    assert (first["method"], first["action"], first["reason"], first["nodes"], first["forceful"]) == \
        ("repair", "delete", "unhealthy", ["node-1"], True)
    assert _repair_verdict(legacy)["verdict"] == "delete"
    voluntary = _simulate(tmp_path, cluster, "--feature-gates", "NodeRepair=true", "--karpenter-version", "v1.15.1")
    first = voluntary["disruptions"][0]
    assert (first["method"], first["action"], first["forceful"]) == ("repair", "replace", False)
    assert first["replacement"]["instance_type"] == "default-instance-type"


def test_without_the_gate_no_node_is_repaired_and_no_repair_verdict_is_shown(tmp_path):
    doc = _simulate(tmp_path, _cluster(NOT_READY_45M), "--karpenter-version", "v1.15.1")
    assert doc["disruptions"] == []
    assert all(m["method"] != "repair" for n in doc["nodes"] for m in n["disruption"])


def test_the_time_left_is_that_of_the_condition_whose_toleration_ends_first(tmp_path):
    """Upstream's requeue tests (suite_test.go:203, 234): 27m into a 30m toleration, 3m are left,
    also when another matching condition tolerates 60m."""
    policies = [{"conditionType": "BadNode", "conditionStatus": "False", "tolerationDuration": "60m"},
                {"conditionType": "ValidUnhealthyCondition", "conditionStatus": "False", "tolerationDuration": "30m"}]
    cluster = _cluster([{"type": "ValidUnhealthyCondition", "status": "False", "since": "27m"},
                        {"type": "BadNode", "status": "False", "since": "27m"}])
    doc = _simulate(tmp_path, cluster, "--feature-gates", "NodeRepair=true", "--karpenter-version", "v1.14.3",
                    policies=policies)
    assert doc["disruptions"] == []
    verdict = _repair_verdict(doc)
    assert verdict["verdict"] == "waiting"
    assert verdict["details"]["condition"] == "ValidUnhealthyCondition"
    assert verdict["details"]["remaining_seconds"] == 180


def test_legacy_node_repair_flag_and_its_version(tmp_path):
    cluster = _cluster(NOT_READY_45M)
    doc = _simulate(tmp_path, cluster, "--feature-gates", "NodeRepair=true", "--karpenter-version", "v1.15.1",
                    "--legacy-node-repair")
    assert doc["karpenter_settings"]["legacy_node_repair"] is True
    assert doc["karpenter_settings"]["sources"]["LEGACY_NODE_REPAIR"] == "set by --legacy-node-repair"
    assert doc["disruptions"][0]["forceful"] is True
    off = _simulate(tmp_path, cluster, "--feature-gates", "NodeRepair=true", "--karpenter-version", "v1.15.1",
                    "--legacy-node-repair=false")
    assert off["disruptions"][0]["forceful"] is False
    older = _simulate(tmp_path, cluster, "--feature-gates", "NodeRepair=true", "--karpenter-version", "v1.14.3",
                      "--legacy-node-repair")
    assert older["karpenter_settings"]["legacy_node_repair"] is False
    assert any("LEGACY_NODE_REPAIR" in note and "ignores it" in note for note in older["karpenter_settings"]["notes"])


def test_legacy_node_repair_from_the_controller_deployment(tmp_path):
    cluster = _cluster(NOT_READY_45M, deployment_env={"LEGACY_NODE_REPAIR": "true"})
    doc = _simulate(tmp_path, cluster, "--feature-gates", "NodeRepair=true")
    assert doc["karpenter_version"]["version"] == "v1.15.1"
    assert doc["karpenter_settings"]["sources"]["LEGACY_NODE_REPAIR"] == "Deployment kube-system/karpenter"
    assert doc["disruptions"][0]["forceful"] is True


def test_bad_legacy_node_repair_value_is_one_line_and_exit_2(tmp_path):
    snapshot, catalog = _files(tmp_path, _cluster(NOT_READY_45M))
    code, out, err = run_cli("simulate", snapshot, "--instance-types", catalog, "--legacy-node-repair=maybe")
    assert code == 2 and "LEGACY_NODE_REPAIR" in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


def test_bad_repair_policies_in_a_catalog_is_one_line_and_exit_2(tmp_path):
    snapshot, catalog = _files(tmp_path, _cluster(NOT_READY_45M),
                               policies=[{"conditionType": "Ready", "conditionStatus": "Broken", "tolerationDuration": "5m"}])
    code, out, err = run_cli("simulate", snapshot, "--instance-types", catalog, "--consolidate")
    assert code == 2 and "Traceback" not in err
    assert "catalog.yaml" in err and "repairPolicies[0].conditionStatus" in err
    assert len(err.strip().splitlines()) == 1


def test_catalog_repair_policies_are_read(tmp_path):
    _, catalog = _files(tmp_path, _cluster([]), policies=[
        {"conditionType": "KernelReady", "conditionStatus": "False", "tolerationDuration": "10m"}])
    policies = load_catalog_file(catalog).repair_policies
    assert [(p.condition_type, p.condition_status, p.toleration_seconds) for p in policies] == \
        [("KernelReady", "False", 600.0)]


def test_disruption_pane_says_what_repair_does(tmp_path):
    """The pane's row for the repaired node and its per-method verdict lines, under both controllers."""
    cluster = _cluster(NOT_READY_45M)
    snapshot_path, catalog_path = _files(tmp_path, cluster)
    snapshot, catalog = load_snapshot(snapshot_path), load_catalog_file(catalog_path)
    legacy = simulate(_versioned(snapshot, "v1.14.3"), catalog=catalog, consolidate=True,
                      gates=FeatureGates(NodeRepair=True))
    view = simulated_view(legacy, legacy.snapshot)
    row = next(r for r in view.rows if r.node == "node-1")
    assert "deleted at once by the node repair controller, outside budgets" in row.because
    assert any(line.startswith("repair: delete") for line in view.node_lines("node-1"))
    healthy = view.node_lines("node-2")
    assert any(line.startswith("repair: skipped") and "healthy" in line for line in healthy)
    voluntary = simulate(_versioned(snapshot, "v1.15.1"), catalog=catalog, consolidate=True,
                         gates=FeatureGates(NodeRepair=True))
    view = simulated_view(voluntary, voluntary.snapshot)
    row = next(r for r in view.rows if r.node == "node-1")
    assert row.because.startswith("unhealthy: replaced by one default-instance-type")
    lines = view.node_lines("node-1")
    methods = [line.split(":")[0] for line in lines if ": " in line and line.split(":")[0] in
               ("repair", "emptiness", "drift", "multi-node consolidation", "single-node consolidation")]
    assert methods[:2] == ["repair", "emptiness"]
    assert any(line.startswith("repair: replace") for line in lines)
    assert any(line.startswith("emptiness: not-reached") and "repair takes the node first" in line for line in lines)


def _versioned(snapshot, version):
    return replace(snapshot, karpenter_version=version, karpenter_version_set_by="test")


def test_forceful_repair_leaves_its_pods_pending_for_provisioning(tmp_path):
    """v1.14's controller launches nothing first: the deleted node's pod waits, and the plan's later
    simulations count it as pending (here: no other command, its 3 cpu fit nowhere else)."""
    cluster = _cluster(NOT_READY_45M)
    doc = _simulate(tmp_path, cluster, "--feature-gates", "NodeRepair=true", "--karpenter-version", "v1.14.3")
    first = doc["disruptions"][0]
    assert first["replacement"] is None and first["moves"] == {} and first["pods"] == 1



def test_the_controller_deployments_feature_gates_turn_repair_on(tmp_path):
    """Operators enable NodeRepair through the Helm chart (FEATURE_GATES on the controller): without
    --feature-gates the run follows it, and the flag replaces it whole, as it does for Karpenter."""
    cluster = _cluster(NOT_READY_45M, deployment_env={"FEATURE_GATES": "NodeRepair=true"})
    doc = _simulate(tmp_path, cluster)
    assert doc["feature_gates"]["NodeRepair"] is True
    assert doc["disruptions"][0]["method"] == "repair"
    flagged = _simulate(tmp_path, cluster, "--feature-gates", "SpotToSpotConsolidation=true")
    assert flagged["feature_gates"]["NodeRepair"] is False and flagged["disruptions"] == []


def test_the_tui_disruption_pane_follows_the_deployments_gates(tmp_path):
    cluster = _cluster(NOT_READY_45M, deployment_env={"FEATURE_GATES": "NodeRepair=true"})
    snapshot_path, catalog_path = _files(tmp_path, cluster)
    snapshot, catalog = load_snapshot(snapshot_path), load_catalog_file(catalog_path)
    result = simulate(snapshot, catalog=catalog, consolidate=True)   # as the pane's worker calls it
    view = simulated_view(result, snapshot)
    assert any(line.startswith("repair: replace") for line in view.node_lines("node-1"))


def _static_cluster(limit_nodes: str) -> Cluster:
    cluster = Cluster({t["name"]: t for t in TYPES})
    cluster.apply({"kind": "NodePool", "metadata": {"name": "default"},
                   "spec": {"replicas": 2, "limits": {"nodes": limit_nodes}, "disruption": {"budgets": [{"nodes": "100%"}]}}})
    for i in (1, 2):
        cluster.add_node({"name": f"node-{i}", "instanceType": "default-instance-type", "zone": "test-zone-1",
                          "capacityType": "on-demand", "nodepool": "default", "drifted": i == 1})
    cluster.add_pods(cluster.pod_manifests({"name": "app", "nodeName": "node-1", "requests": {"cpu": "1"}}, pending=False))
    return cluster


def test_terminate_first_in_the_pane_and_per_version(tmp_path):
    """A static NodePool at limits.nodes: v1.14's drift waits and says why; v1.15 deletes the node first
    and the pane says its pod waits for the NodePool to refill."""
    snapshot_path, catalog_path = _files(tmp_path, _static_cluster("2"))
    snapshot, catalog = load_snapshot(snapshot_path), load_catalog_file(catalog_path)
    old = simulate(_versioned(snapshot, "v1.14.3"), catalog=catalog, consolidate=True)
    assert old.disruptions == ()
    drift = old.verdicts["node-1"].of("drift")
    assert drift.kind == "node-limit" and "limits.nodes 2" in drift.detail
    new = simulate(_versioned(snapshot, "v1.15.1"), catalog=catalog, consolidate=True)
    first = new.disruptions[0]
    assert (first.method, first.action, first.terminate_first, first.nodes, first.pods) == \
        ("drift", "delete", True, ("node-1",), 1)
    row = next(r for r in simulated_view(new, new.snapshot).rows if r.node == "node-1")
    assert row.because.startswith("drifted: terminated before its replacement")
    assert "1 pod(s) go pending" in row.because
    room = _static_cluster("3")
    snapshot_path, _ = _files(tmp_path, room)
    roomy = simulate(_versioned(load_snapshot(snapshot_path), "v1.15.1"), catalog=catalog, consolidate=True)
    assert roomy.disruptions[0].action == "replace" and not roomy.disruptions[0].terminate_first


def _budgets(tmp_path, cluster, *flags) -> dict:
    snapshot, catalog = _files(tmp_path, cluster)
    code, out, err = run_cli("budgets", snapshot, "--instance-types", catalog, "--hours", "0", "-o", "json", *flags)
    assert code == 0, err
    (pool,) = json.loads(out)["nodepools"]
    return {r["reason"]: r for r in pool["reasons"]}


def test_budgets_show_reason_unhealthy_where_repair_is_paced_by_budgets(tmp_path):
    """v1.15 with the gate: repair is a disruption method under budgets for reason Unhealthy, and a node
    not Ready does not spend that budget (it is what repair takes); earlier lines, the legacy controller
    and no gate: no such reason (the forceful controller ignores budgets)."""
    cluster = _cluster(NOT_READY_45M, pool_extra={"disruption": {
        "consolidateAfter": "Never", "budgets": [{"nodes": "50%"}, {"nodes": "0", "reasons": ["Drifted"]}]}})
    reasons = _budgets(tmp_path, cluster, "--feature-gates", "NodeRepair=true", "--karpenter-version", "v1.15.1")
    assert list(reasons) == ["Unhealthy", "Empty", "Drifted", "Underutilized"]
    assert (reasons["Unhealthy"]["allowed"], reasons["Unhealthy"]["candidates"]) == (1, ["node-1"])
    assert reasons["Unhealthy"]["binding_budgets"] == [0]
    assert reasons["Empty"]["allowed"] == 0  # node-1 not Ready spends the other reasons' 50% of 2
    for flags in (("--feature-gates", "NodeRepair=true", "--karpenter-version", "v1.14.3"),
                  ("--karpenter-version", "v1.15.1"),
                  ("--feature-gates", "NodeRepair=true", "--karpenter-version", "v1.15.1", "--legacy-node-repair")):
        assert list(_budgets(tmp_path, cluster, *flags)) == ["Empty", "Drifted", "Underutilized"], flags


def test_budgets_follow_the_controller_deployments_gates(tmp_path):
    cluster = _cluster(NOT_READY_45M, deployment_env={"FEATURE_GATES": "NodeRepair=true"})
    assert "Unhealthy" in _budgets(tmp_path, cluster)


def test_legacy_repair_leaves_a_nodeclaim_already_being_deleted(tmp_path):
    """The node.health controller does nothing for a NodeClaim that has a deletionTimestamp (deleteNodeClaim
    returns early): a second unhealthy node is deleted alone."""
    cluster = _cluster(NOT_READY_45M, nodes=6)
    cluster.add_node({"name": "node-7", "instanceType": "default-instance-type", "zone": "test-zone-1",
                      "capacityType": "on-demand", "nodepool": "default", "conditions": NOT_READY_45M})
    cluster.mark_for_deletion("node-1")
    doc = _simulate(tmp_path, cluster, "--feature-gates", "NodeRepair=true", "--karpenter-version", "v1.14.3")
    assert doc["disruptions"][0]["forceful"] is True
    assert doc["disruptions"][0]["nodes"] == ["node-7"]
