"""Karpenter consolidation on the seed (the inflate workshop), driven by what-if edits."""

import pytest

from karptui.catalog import catalog_from_snapshot_region
from karptui.sim import simulate
from karptui.sources import load_snapshot
from karptui.whatif import apply_whatif, parse_whatif
from tests.conftest import FIXTURES

XLARGE = "ip-192-168-118-56.ap-northeast-2.compute.internal"      # c5a.xlarge, on-demand
TWO_XLARGE = "ip-192-168-40-236.ap-northeast-2.compute.internal"  # c5a.2xlarge, on-demand
NO_DO_NOT_DISRUPT = {"target": "Deployment/default/report-generator", "remove": True}
NO_PDB = {"target": "PodDisruptionBudget/default/inflate-pdb", "remove": True}
ALLOW_SPOT = {"target": "NodePool/default", "patchType": "merge", "patch": {"spec": {"template": {"spec": {
    "requirements": [{"key": "kubernetes.io/arch", "operator": "In", "values": ["amd64"]},
                     {"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["on-demand", "spot"]},
                     {"key": "karpenter.k8s.aws/instance-size", "operator": "NotIn",
                      "values": ["nano", "micro", "small", "medium", "large"]}]}}}}}
AS_SPOT = [{"target": f"Node/{name}", "patchType": "merge",
            "patch": {"metadata": {"labels": {"karpenter.sh/capacity-type": "spot"}}}} for name in (XLARGE, TWO_XLARGE)]




def consolidate(seed, *edits, spot_to_spot=False):
    snapshot, catalog = seed
    if edits:
        snapshot = apply_whatif(snapshot, parse_whatif({"edits": list(edits)}, "test", "test")).snapshot
    return simulate(snapshot, catalog=catalog, consolidate=True, spot_to_spot=spot_to_spot)


def test_after_scaling_to_6_the_xlarge_is_deleted_and_do_not_disrupt_blocks_the_2xlarge(seed):
    result = consolidate(seed)
    (delete,) = result.disruptions
    assert (delete.action, delete.reason, delete.nodes, delete.replacement) == ("delete", "underutilized", (XLARGE,), None)
    assert delete.savings == pytest.approx(0.154)  # c5a.xlarge on-demand (us-east-1 price, estimated)
    assert [(b.node, b.reason) for b in result.blocked] == [
        (TWO_XLARGE, 'pod has "karpenter.sh/do-not-disrupt" annotation (Pod=default/report-generator-q7smww69c-qqgq9)')]


def test_scaling_to_3_deletes_the_2xlarge_then_swaps_the_xlarge_for_a_cheaper_one(seed):
    """Karpenter tries the candidate with the best savings per eviction first: the 2xlarge, whose
    three pods fit on the xlarge; then the xlarge alone is replaced by a cheaper 4-vCPU type."""
    result = consolidate(seed, NO_DO_NOT_DISRUPT, NO_PDB, {"target": "Deployment/default/inflate", "scale": 3})
    first, second = result.disruptions
    assert (first.action, first.nodes) == ("delete", (TWO_XLARGE,))
    assert (second.action, second.nodes) == ("replace", (XLARGE,))
    assert second.replacement.instance_type.endswith(".xlarge") and second.replacement.capacity_type == "on-demand"
    assert 0 < second.savings < 0.154 and second.replacement.instance_type in second.replacement_types


def test_on_demand_is_replaced_by_spot_when_the_nodepool_allows_it(seed):
    result = consolidate(seed, NO_DO_NOT_DISRUPT, ALLOW_SPOT)
    assert result.disruptions and all(d.action == "replace" for d in result.disruptions)
    assert {d.replacement.capacity_type for d in result.disruptions} == {"spot"}


def test_spot_nodes_are_only_deleted_unless_spot_to_spot_is_on(seed):
    result = consolidate(seed, NO_DO_NOT_DISRUPT, NO_PDB, ALLOW_SPOT, *AS_SPOT)
    assert [d.action for d in result.disruptions] == ["delete"]
    result = consolidate(seed, NO_DO_NOT_DISRUPT, NO_PDB, ALLOW_SPOT, *AS_SPOT, spot_to_spot=True)
    replaced = [d for d in result.disruptions if d.action == "replace"]
    assert replaced and len(replaced[0].replacement_types) >= 15 and replaced[0].replacement.capacity_type == "spot"


def test_a_pdb_that_allows_no_eviction_blocks_its_nodes(seed):
    strict = {"target": "PodDisruptionBudget/default/inflate-pdb", "patchType": "merge", "patch": {"spec": {"minAvailable": 6}}}
    result = consolidate(seed, NO_DO_NOT_DISRUPT, strict)
    assert result.disruptions == ()
    assert {b.node: b.reason for b in result.blocked} == {
        XLARGE: "pdb prevents pod evictions (PodDisruptionBudget=default/inflate-pdb)",
        TWO_XLARGE: "pdb prevents pod evictions (PodDisruptionBudget=default/inflate-pdb)"}


def test_do_not_evict_blocks_in_the_provisioner_era():
    snapshot = load_snapshot(FIXTURES / "dumps" / "eks-karpenter-v1alpha5.yaml")
    result = simulate(snapshot, catalog=catalog_from_snapshot_region(snapshot), consolidate=True)
    reasons = [b.reason for b in result.blocked]
    assert any(r.startswith("pod ") and r.endswith(" has do not evict annotation") for r in reasons)


def test_consolidation_disabled_and_budgets(seed):
    never = {"target": "NodePool/default", "patchType": "merge", "patch": {"spec": {"disruption": {"consolidateAfter": "Never"}}}}
    result = consolidate(seed, never)
    assert result.disruptions == () and {b.reason for b in result.blocked} >= {'NodePool "default" has consolidation disabled'}
    frozen = {"target": "NodePool/default", "patchType": "merge", "patch": {"spec": {"disruption": {"budgets": [{"nodes": "0"}]}}}}
    result = consolidate(seed, NO_DO_NOT_DISRUPT, frozen)
    assert result.disruptions == ()
    assert "No allowed disruptions for disruption reason Underutilized due to blocking budget" in {b.reason for b in result.blocked}


def test_cli_reports_disruptions_blocked_and_the_cost_change(cli):
    import json

    code, out, err = cli("simulate", "consolidation", "--consolidate", "-o", "json")
    assert code == 0, err
    doc = json.loads(out)
    (delete,) = doc["disruptions"]
    assert set(delete) >= {"method", "action", "nodes", "replacement", "savings_per_hour"}
    assert delete["method"] == "consolidation" and delete["replacement"] is None
    assert doc["blocked"][0]["node"] == TWO_XLARGE
    summary = doc["summary"]
    assert summary["hourly_cost_after"] == pytest.approx(summary["hourly_cost_before"] - 0.154)


def test_consolidate_after_waits_for_the_pods_to_settle(seed):
    patient = {"target": "NodePool/default", "patchType": "merge",
               "patch": {"spec": {"disruption": {"consolidateAfter": "24h"}}}}
    result = consolidate(seed, patient)
    assert result.disruptions == ()
    assert any(b.reason.startswith("not consolidatable yet: consolidateAfter is 86400s") for b in result.blocked)


def test_progress_is_called_before_every_consolidation_pass_and_can_stop_the_run(seed):
    """Called before every pass (one per command and a last one that finds nothing) and every
    simulation within it, with the commands found so far; a callback that raises ends the run
    there (the TUI's worker and the what-if panel stop a cancelled in-thread run that way)."""
    snapshot, catalog = seed
    passes = []
    result = simulate(snapshot, catalog=catalog, consolidate=True,
                      progress=lambda phase, done, total: phase == "consolidation" and passes.append(done))
    assert passes == sorted(passes) and sorted(set(passes)) == list(range(len(result.disruptions) + 1)) == [0, 1]

    class Stop(Exception):
        pass

    def stop(phase, done, total):
        if phase == "consolidation":
            raise Stop

    with pytest.raises(Stop):
        simulate(snapshot, catalog=catalog, consolidate=True, progress=stop)
