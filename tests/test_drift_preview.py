"""Drift preview: a what-if file edits a NodePool or an EC2NodeClass, and karptui says which NodeClaims
drift (Karpenter's reasons, with the fields or the label and values), and what replacing them costs."""

import json
from dataclasses import replace

import pytest

from karptui.catalog import catalog_from_snapshot_region
from karptui.sim import simulate
from karptui.sim.karpenter.disruption.drift import drift_preview
from karptui.sources import bundled_snapshot, load_snapshot
from karptui.views.whatif_summary import summary, summary_lines
from karptui.whatif import apply_whatif, load_whatif
from karptui.whatif.session import WhatIfSession

SPOT_A, SPOT_B = "ip-192-168-3-76.ap-northeast-2.compute.internal", "ip-192-168-1-37.ap-northeast-2.compute.internal"
TEAM1 = "ip-192-168-2-36.ap-northeast-2.compute.internal"


def short(node: str) -> str:
    """The name the panel's lines use: without EC2's region suffix (the JSON keeps it whole)."""
    return node.split(".")[0]


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


@pytest.mark.parametrize("version, before, after", [("v1.9.2", "v3", "v4"), ("v1.14.3", "v4", "v5"),
                                                    ("v1.15.1", "v5", "v6")])
def test_an_ec2nodeclass_hash_version_bump_is_no_drift(multi, write, version, before, after):
    """Each line writes its own EC2NodeClass hash version (aws pkg/apis/v1/ec2nodeclass.go: v4 at v1.9.2, v5 at
    v1.14.1, v6 on main for v1.15): after an upgrade the class is re-hashed under the new version while NodeClaims
    still say the old one, and Karpenter compares the hashes only at equal versions, so neither the bump nor an
    edit seen across it drifts a NodeClaim by hash (aws nodeclass/hash/controller.go, the same on every line)."""
    multi = replace(multi, karpenter_version=version)
    classes = tuple(replace(c, annotations={**c.annotations, "karpenter.k8s.aws/ec2nodeclass-hash": "9999",
                                            "karpenter.k8s.aws/ec2nodeclass-hash-version": after})
                    for c in multi.nodeclasses)
    claims = tuple(replace(c, annotations={**c.annotations, "karpenter.k8s.aws/ec2nodeclass-hash-version": before})
                   for c in multi.nodeclaims)
    bumped = replace(multi, nodeclasses=classes, nodeclaims=claims)
    assert drift_preview(multi, bumped) == []
    tags = {"target": "EC2NodeClass/team1", "patchType": "merge", "patch": {"spec": {"tags": {"cost-center": "42"}}}}
    assert TEAM1 not in preview(bumped, whatif_file(write, tags))
    assert TEAM1 in preview(multi, whatif_file(write, tags, name="same-version"))  # at equal versions it drifts


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
    alone = json.loads(out)["whatif"]["drift"]
    # drift is no consolidation: Karpenter's drift method alone takes them, here as the full plan does
    assert [i["disruption"] for i in alone["nodeclaims"]] == [i["disruption"] for i in drift["nodeclaims"]]
    assert alone["hourly_cost_of_replacements"] == drift["hourly_cost_of_replacements"]


def test_the_whatif_panel_lines_name_each_nodeclaim_and_reason(multi, write):
    catalog = catalog_from_snapshot_region(multi)
    run = WhatIfSession(multi, catalog).run(load_whatif(whatif_file(write, TAINTED)), consolidate=False)
    lines = summary_lines(summary(run, catalog))
    start = lines.index("drift: 2 NodeClaims would drift")
    assert any(line.startswith(f"  default-ghl6z on {short(SPOT_A)} → #") for line in lines[start + 1:])
    assert "    NodePoolDrifted: the NodePool's hashed fields changed: spec.template.spec.taints" in lines
    assert ("  drifted nodes cost ~$0.127/h (~$93/mo); Karpenter takes 2 (1 replaced, 1 deleted): replacements "
            "~$0.017/h (~$12/mo), change ~-$0.110/h (~-$80/mo) (~: estimated)") in lines


# ---- issue 26: drift replaces whatever the consolidation setting, and a blocked node says what blocks it ----

DND, GUARDED = "ip-192-168-40-236.ap-northeast-2.compute.internal", "ip-192-168-118-56.ap-northeast-2.compute.internal"
REPORT_POD = "default/report-generator-q7smww69c-qqgq9"  # karpenter.sh/do-not-disrupt: "true", on DND
TIGHT_PDB = {"target": "PodDisruptionBudget/default/inflate-pdb", "patchType": "merge",  # 6 inflate pods: none may go
             "patch": {"spec": {"minAvailable": 6}}}
NO_DRIFT_BUDGET = {"target": "NodePool/default", "patchType": "merge",
                   "patch": {"spec": {"disruption": {"budgets": [{"nodes": "0", "reasons": ["Drifted"]}]}}}}


@pytest.fixture(scope="module")
def consolidation():
    return load_snapshot(bundled_snapshot("consolidation"))


def run_summary(snapshot, path, consolidate=False):
    catalog = catalog_from_snapshot_region(snapshot)
    return summary(WhatIfSession(snapshot, catalog).run(load_whatif(path), consolidate=consolidate), catalog)


def test_with_consolidation_off_each_drifted_nodeclaim_says_what_replaces_it_and_the_price(multi, write):
    """Karpenter's drift method replaces Drifted NodeClaims whatever the consolidation setting: the
    panel's default run (consolidation off) prices the replacements and the change."""
    path = whatif_file(write, ON_DEMAND_ONLY)
    s = run_summary(multi, path)
    assert s["consolidated"] is False and s["consolidation"] == []  # no consolidation ran
    drift = s["drift"]
    items = {i["node"]: i for i in drift["nodeclaims"]}
    replace_, delete = items[SPOT_A]["disruption"], items[SPOT_B]["disruption"]
    assert (replace_["command"], replace_["method"], replace_["action"]) == (2, "drift", "replace")
    assert (delete["command"], delete["method"], delete["action"], delete["replacements"]) == (1, "drift", "delete", [])
    (launch,) = replace_["replacements"]  # the spot node's pods go on-demand: the edit allows no spot
    assert launch == {"nodepool": "team1", "instance_type": "t4g.small", "zone": "ap-northeast-2a",
                      "capacity_type": "on-demand", "price": 0.0168, "price_estimated": True,
                      "price_text": "~$0.0168/h"}
    assert items[SPOT_A]["blocked"] is None and items[SPOT_B]["blocked"] is None
    assert drift["hourly_cost_of_replacements"]["hourly"] == pytest.approx(0.0168)
    nodes = drift["hourly_cost_of_drifted_nodes"]["hourly"]
    assert drift["hourly_cost_change"]["hourly"] == pytest.approx(0.0168 - nodes, abs=1e-6)
    lines = summary_lines(s)
    assert (f"  default-ghl6z on {short(SPOT_A)} → #2 replace by t4g.small on-demand in ap-northeast-2a (NodePool team1) "
            "at ~$0.0168/h") in lines
    assert f"  default-qh5xq on {short(SPOT_B)} → #1 delete" in lines
    assert ("  drifted nodes cost ~$0.127/h (~$93/mo); Karpenter takes 2 (1 replaced, 1 deleted): replacements "
            "~$0.017/h (~$12/mo), change ~-$0.110/h (~-$80/mo) (~: estimated)") in lines
    # the replacement is what Karpenter's provisioning launches for those nodes' pods under the edited
    # NodePool: the edited cluster without the drifted nodes, their pods pending, launches the same
    edited = apply_whatif(multi, load_whatif(path)).snapshot
    gone = {SPOT_A, SPOT_B}
    pods = tuple(replace(p, node_name="", phase="Pending") if p.node_name in gone else p for p in edited.pods
                 if p.node_name and not (p.node_name in gone and p.is_daemonset_pod))
    # their NodeClaims go too: a launched NodeClaim without its Node is a node on its way to Karpenter
    claims = tuple(c for c in edited.nodeclaims if c.node_name not in gone)
    provisioned = simulate(replace(edited, nodes=tuple(n for n in edited.nodes if n.name not in gone), pods=pods,
                                   nodeclaims=claims),
                           catalog=catalog_from_snapshot_region(multi))
    assert [(c.nodepool, c.launch["instance_type"], c.launch["zone"], c.launch["capacity_type"], c.launch["price"])
            for c in provisioned.nodeclaims] == [("team1", "t4g.small", "ap-northeast-2a", "on-demand", 0.0168)]


@pytest.mark.parametrize("consolidate", [False, True])
def test_a_do_not_disrupt_pod_blocking_drift_is_named(consolidation, write, consolidate):
    s = run_summary(consolidation, whatif_file(write, TAINTED), consolidate)
    items = {i["node"]: i for i in s["drift"]["nodeclaims"]}
    blocked = items[DND]["blocked"]
    assert items[DND]["disruption"] is None
    assert (blocked["verdict"], blocked["kind"], blocked["details"]["pod"]) == ("blocked", "do-not-disrupt", REPORT_POD)
    assert blocked["details"]["annotation"] == "karpenter.sh/do-not-disrupt"
    lines = summary_lines(s)
    assert f"  default-xgblv on {short(DND)} → stays" in lines
    assert (f'    blocked: pod has "karpenter.sh/do-not-disrupt" annotation (Pod={REPORT_POD}): set to "true": it '
            "holds the node until the annotation goes") in lines


@pytest.mark.parametrize("consolidate", [False, True])
def test_a_pdb_allowing_no_disruption_blocking_drift_is_named(consolidation, write, consolidate):
    s = run_summary(consolidation, whatif_file(write, TAINTED, TIGHT_PDB), consolidate)
    items = {i["node"]: i for i in s["drift"]["nodeclaims"]}
    blocked = items[GUARDED]["blocked"]
    assert items[GUARDED]["disruption"] is None
    assert (blocked["kind"], blocked["details"]["pdb"], blocked["details"]["disruptions_allowed"]) == (
        "pdb", "default/inflate-pdb", 0)
    assert blocked["details"]["pods"] == ["default/inflate-wjq4g8lgtc-n7hj5", "default/inflate-wjq4g8lgtc-n92md",
                                          "default/inflate-wjq4g8lgtc-smtdw"]
    assert items[DND]["blocked"]["kind"] == "do-not-disrupt"  # the pod comes first on that node, as in Karpenter
    lines = summary_lines(s)
    assert f"  default-hp9st on {short(GUARDED)} → stays" in lines
    assert ("    blocked: pdb prevents pod evictions (PodDisruptionBudget=default/inflate-pdb): it allows 0 "
            "disruptions now and guards pods default/inflate-wjq4g8lgtc-n7hj5, default/inflate-wjq4g8lgtc-n92md, "
            "default/inflate-wjq4g8lgtc-smtdw on this node") in lines
    assert "  drifted nodes cost ~$0.462/h (~$337/mo); Karpenter takes none of them (~: estimated)" in lines


def test_a_disruption_budget_for_drifted_blocking_drift_is_named(consolidation, write):
    s = run_summary(consolidation, whatif_file(write, TAINTED, NO_DRIFT_BUDGET))
    items = {i["node"]: i for i in s["drift"]["nodeclaims"]}
    blocked = items[GUARDED]["blocked"]
    assert (blocked["kind"], blocked["details"]["nodepool"], blocked["details"]["reason"]) == ("budget", "default",
                                                                                              "Drifted")
    assert blocked["details"]["budgets"] == [{"nodes": "0", "schedule": None, "duration_seconds": None,
                                              "reasons": ["Drifted"]}]
    assert ("    blocked: No allowed disruptions for disruption reason Drifted due to blocking budget: NodePool "
            '"default" allows no more Drifted disruptions now (its budgets: nodes "0", for Drifted)'
            ) in summary_lines(s)
    # a budget for Drifted leaves consolidation free: consolidated, the node goes as underutilized
    s = run_summary(consolidation, whatif_file(write, TAINTED, NO_DRIFT_BUDGET, name="c"), consolidate=True)
    taken = {i["node"]: i for i in s["drift"]["nodeclaims"]}[GUARDED]
    assert taken["blocked"] is None and (taken["disruption"]["method"], taken["disruption"]["reason"]) == (
        "consolidation", "underutilized")
    assert f"  default-hp9st on {short(GUARDED)} → #1 delete (consolidation: underutilized)" in summary_lines(s)
