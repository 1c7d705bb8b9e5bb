"""Drift preview: a what-if file edits a NodePool or an EC2NodeClass, and karptui says which NodeClaims
drift (Karpenter's reasons, with the fields or the label and values), and what replacing them costs."""

import json
from dataclasses import replace

import pytest

from karptui.catalog import catalog_from_snapshot_region
from karptui.sim.karpenter.disruption.drift import drift_preview
from karptui.sources import bundled_snapshot, load_snapshot
from karptui.views.whatif_summary import summary, summary_lines
from karptui.whatif import apply_whatif, load_whatif
from karptui.whatif.session import WhatIfSession

SPOT_A, SPOT_B = "ip-192-168-3-76.ap-northeast-2.compute.internal", "ip-192-168-1-37.ap-northeast-2.compute.internal"
TEAM1 = "ip-192-168-2-36.ap-northeast-2.compute.internal"


def whatif_file(write, *edits, name="edit"):
    return write(f"{name}.json", {"apiVersion": "karptui/v1", "kind": "WhatIf", "name": name, "edits": list(edits)})


def pool_patch(pool, spec=None, metadata=None):
    template = {**({"spec": spec} if spec else {}), **({"metadata": metadata} if metadata else {})}
    return {"target": f"NodePool/{pool}", "patchType": "merge", "patch": {"spec": {"template": template}}}


ON_DEMAND_ONLY = pool_patch("default", spec={"requirements": [
    {"key": "kubernetes.io/arch", "operator": "In", "values": ["amd64"]},
    {"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["on-demand"]}]})
TAINTED = pool_patch("default", spec={"taints": [{"key": "dedicated", "value": "batch", "effect": "NoSchedule"}]})


@pytest.fixture(scope="module")
def multi():
    return load_snapshot(bundled_snapshot("multi-nodepool"))


def preview(snapshot, path):
    return {d.node: d for d in drift_preview(snapshot, apply_whatif(snapshot, load_whatif(path)).snapshot)}


def test_a_hashed_template_field_drifts_the_pools_nodeclaims_only(multi, write):
    found = preview(multi, whatif_file(write, TAINTED))
    assert set(found) == {SPOT_A, SPOT_B}  # team1's NodeClaim is another NodePool's
    (reason,) = found[SPOT_A].reasons
    assert (reason.reason, reason.detail) == ("NodePoolDrifted",
                                              "the NodePool's hashed fields changed: spec.template.spec.taints")
    labels = preview(multi, whatif_file(write, pool_patch("team1", metadata={"labels": {"team": "team2"}}), name="l"))
    assert [r.detail for r in labels[TEAM1].reasons] == [
        "the NodePool's hashed fields changed: spec.template.metadata.labels"]


def test_requirements_no_longer_met_say_the_label_and_the_requirement(multi, write):
    found = preview(multi, whatif_file(write, ON_DEMAND_ONLY))
    assert set(found) == {SPOT_A, SPOT_B}
    (reason,) = found[SPOT_B].reasons  # requirements are not hashed: only this reason
    assert reason.reason == "RequirementsDrifted"
    assert reason.detail == ("its label karpenter.sh/capacity-type=spot is not in the NodePool's "
                             "karpenter.sh/capacity-type In [on-demand]")
    new_key = pool_patch("team1", spec={"requirements": [
        {"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["on-demand"]},
        {"key": "example.com/tier", "operator": "In", "values": ["gold"]}]})
    (reason,) = preview(multi, whatif_file(write, new_key, name="k"))[TEAM1].reasons
    assert reason.detail == "it has no example.com/tier label, and the NodePool now requires example.com/tier In [gold]"


def test_edits_karpenter_does_not_hash_or_still_met_drift_nothing(multi, write):
    wider = pool_patch("team1", spec={"requirements": [
        {"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["on-demand", "spot"]}]})
    budgets = {"target": "NodePool/default", "patchType": "merge",
               "patch": {"spec": {"disruption": {"budgets": [{"nodes": "0"}]}, "weight": 10}}}
    assert preview(multi, whatif_file(write, wider, budgets)) == {}


def test_no_nodepool_hash_drift_when_the_hash_versions_differ(multi, write):
    """Karpenter compares the hashes only when the NodeClaim's hash version is the NodePool's."""
    older = tuple(replace(c, annotations={**c.annotations, "karpenter.sh/nodepool-hash-version": "v1"})
                  for c in multi.nodeclaims)
    assert preview(replace(multi, nodeclaims=older), whatif_file(write, TAINTED)) == {}


def test_nodeclass_hash_drifts_and_new_ami_selectors_only_maybe(multi, write):
    tags = {"target": "EC2NodeClass/team1", "patchType": "merge", "patch": {"spec": {"tags": {"cost-center": "42"}}}}
    (reason,) = preview(multi, whatif_file(write, tags))[TEAM1].reasons
    assert (reason.reason, reason.detail, reason.certain) == (
        "NodeClassDrift", "the EC2NodeClass's hashed fields changed: spec.tags", True)
    ami = {"target": "EC2NodeClass/team1", "patchType": "merge",
           "patch": {"spec": {"amiSelectorTerms": [{"id": "ami-0123456789abcdef0"}]}}}
    (reason,) = preview(multi, whatif_file(write, ami, name="ami"))[TEAM1].reasons
    assert (reason.reason, reason.certain) == ("AMIDrift", False)


def test_simulate_whatif_json_prices_the_drifted_nodes_and_their_replacements(cli, write):
    path = whatif_file(write, ON_DEMAND_ONLY)
    code, out, err = cli("simulate", "multi-nodepool", "--whatif", path, "--consolidate", "-o", "json")
    assert code == 0, err
    drift = json.loads(out)["whatif"]["drift"]
    items = {i["node"]: i for i in drift["nodeclaims"]}
    assert set(items) == {SPOT_A, SPOT_B}
    assert items[SPOT_A]["nodeclaim"] == "default-ghl6z" and items[SPOT_A]["already_drifted"] is False
    assert items[SPOT_A]["reasons"][0]["reason"] == "RequirementsDrifted"
    methods = {i["disruption"]["method"] for i in items.values()}
    assert methods == {"drift"}  # marked Drifted, Karpenter's drift method replaces them
    replaced = [i for i in items.values() if i["disruption"]["action"] == "replace"]
    assert replaced and replaced[0]["disruption"]["replacement"]["capacity_type"] == "on-demand"
    nodes = sum(i["hourly_cost"]["hourly"] for i in items.values())
    assert drift["hourly_cost_of_drifted_nodes"]["hourly"] == pytest.approx(nodes, abs=1e-4)
    assert drift["hourly_cost_of_replacements"]["hourly"] == pytest.approx(
        replaced[0]["disruption"]["replacement"]["price"], abs=1e-4)
    code, out, err = cli("simulate", "multi-nodepool", "--whatif", path, "-o", "json")  # not consolidated
    drift = json.loads(out)["whatif"]["drift"]
    assert len(drift["nodeclaims"]) == 2 and drift["hourly_cost_of_replacements"] is None
    assert all(i["disruption"] is None for i in drift["nodeclaims"])


def test_the_whatif_panel_lines_name_each_nodeclaim_and_reason(multi, write):
    catalog = catalog_from_snapshot_region(multi)
    run = WhatIfSession(multi, catalog).run(load_whatif(whatif_file(write, TAINTED)), consolidate=False)
    lines = summary_lines(summary(run, catalog))
    start = lines.index("drift: 2 NodeClaims would drift")
    assert f"  default-ghl6z on {SPOT_A}" in lines[start + 1:]
    assert "    NodePoolDrifted: the NodePool's hashed fields changed: spec.template.spec.taints" in lines
    assert ("  drifted nodes cost ~$0.127/h (~$93/mo); consolidate the what-if to price their replacements "
            "(~: estimated)") in lines
