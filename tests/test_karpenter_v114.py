"""Karpenter v1.6–v1.14 in the model and simulator: feature gates, Balanced, NodeOverlay, reserved capacity."""

import json

import pytest
import yaml

from karptui.catalog import bundled_catalog, catalog_from_snapshot_region, parse_catalog
from karptui.model import build_snapshot
from karptui.model.errors import ModelError
from karptui.model.nodeoverlay import adjusted_price, build_nodeoverlay, by_weight
from karptui.sim import simulate
from karptui.sim.karpenter.featuregates import DEFAULT_GATES, parse_feature_gates
from karptui.sim.karpenter.overlays import karpenter_catalog
from karptui.sources import load_snapshot
from karptui.views.disruption import disruption_view
from karptui.whatif import apply_whatif, parse_whatif
from tests.conftest import FIXTURES
from tests.test_cli import one_line_error
from tests.test_karpenter_provisioning import claim_of, nodepool, req
from tests.simkit import pod

BALANCED = FIXTURES / "balanced" / "balanced-policy.yaml"
CATALOG = bundled_catalog("us-east-1", ("us-east-1a",))
ONLY_LARGE = req("node.kubernetes.io/instance-type", "In", "m5.large", "c5.large")


def overlay(name, weight=None, requirements=(), **spec):
    body = {"requirements": list(requirements), **spec}
    if weight is not None:
        body["weight"] = weight
    return {"apiVersion": "karpenter.sh/v1alpha1", "kind": "NodeOverlay", "metadata": {"name": name}, "spec": body}


def launched(*objects, gates=None, catalog=CATALOG):
    result = simulate(build_snapshot(objects), catalog=catalog, gates=gates)
    return result, claim_of(result, "p").launch


# ---- feature gates ------------------------------------------------------------------------------
def test_feature_gate_defaults_are_karpenter_v114s():
    assert DEFAULT_GATES.to_dict() == {"NodeRepair": False, "ReservedCapacity": True, "SpotToSpotConsolidation": False,
                                       "NodeOverlay": False, "StaticCapacity": False, "CapacityBuffer": False}
    gates = parse_feature_gates("NodeOverlay=true, ReservedCapacity=False,SpotToSpotConsolidation=1")
    assert (gates.NodeOverlay, gates.ReservedCapacity, gates.SpotToSpotConsolidation) == (True, False, True)


def test_simulate_json_reports_the_gates_it_ran_with(cli):
    code, out, err = cli("simulate", BALANCED, "--feature-gates", "NodeOverlay=true", "--output", "json")
    assert code == 0, err
    assert json.loads(out)["feature_gates"] == {**DEFAULT_GATES.to_dict(), "NodeOverlay": True}


def test_a_bad_feature_gate_is_one_line(cli):
    one_line_error(*cli("simulate", BALANCED, "--feature-gates", "CapacityBuffer=yes"), "--feature-gates",
                   "'CapacityBuffer=yes' is not NAME=true|false")


def test_a_whatif_sets_feature_gates_over_the_flags(cli, write):
    whatif = write("gates.yaml", "name: gates\nedits:\n- featureGates: {NodeOverlay: true, NodeRepair: true}\n")
    code, out, err = cli("simulate", BALANCED, "--whatif", whatif, "--output", "json")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["feature_gates"]["NodeOverlay"] is True and doc["feature_gates"]["NodeRepair"] is True
    assert "feature gates NodeOverlay=true,NodeRepair=true" in doc["whatif"]["notes"]


def test_a_whatif_with_an_unknown_gate_names_the_file_and_edit(cli, write):
    whatif = write("gates.yaml", "name: gates\nedits:\n- featureGates: {Warp: true}\n")
    one_line_error(*cli("simulate", BALANCED, "--whatif", whatif), "gates.yaml", "edit 1",
                   "unknown Karpenter feature gate 'Warp'")


# ---- Balanced -----------------------------------------------------------------------------------
def test_balanced_snapshot_scores_each_candidate_against_the_threshold_in_json(cli):
    code, out, err = cli("simulate", BALANCED, "--consolidate", "--output", "json")
    assert code == 0, err
    doc = json.loads(out)
    assert [(d["action"], d["nodes"]) for d in doc["disruptions"]] == [("delete", ["node-light"])]
    scores = {tuple(s["nodes"]): s for s in doc["consolidation_scores"]}
    light, busy = scores[("node-light",)], scores[("node-busy",)]
    assert (light["decision"], light["approved"], light["threshold"], light["k"]) == ("delete", True, 0.5, 2)
    assert light["savings_fraction"] == 0.5  # one of two m5.xlarge
    assert light["disruption_cost"] == 2.0 and light["nodepool_disruption_cost"] == 93.0  # 1 + 1 pod; + 1 + 10 x 9
    assert (busy["decision"], busy["approved"]) == ("replace", False) and busy["score"] < 0.5
    assert busy["text"] == "score 0.22 < threshold 0.50 (Balanced, k=2)"
    assert doc["unconsolidatable"] == [
        {"node": "node-busy", "reason": "replace not worth its disruption: score 0.22 < threshold 0.50 (Balanced, k=2)"}]


def test_balanced_scores_read_in_the_disruption_panes_view_model():
    snapshot = load_snapshot(BALANCED)
    result = simulate(snapshot, catalog=catalog_from_snapshot_region(snapshot), consolidate=True)
    rows = {r.node: r for r in disruption_view(result, snapshot).rows}
    assert rows["node-light"].would == "delete #1"
    assert rows["node-light"].because.endswith("; score 23.25 >= threshold 0.50 (Balanced, k=2)")
    assert rows["node-busy"].group == "kept" and rows["node-busy"].mark == "kept: Balanced score"
    assert "score 0.22 < threshold 0.50 (Balanced, k=2)" in rows["node-busy"].because


def test_the_same_cluster_under_whenemptyorunderutilized_replaces_the_busy_node_too():
    snapshot = load_snapshot(BALANCED)
    whatif = parse_whatif({"edits": [{"target": "NodePool/balanced", "patchType": "merge", "patch": {
        "spec": {"disruption": {"consolidationPolicy": "WhenEmptyOrUnderutilized"}}}}]}, "t", "t")
    snapshot = apply_whatif(snapshot, whatif).snapshot
    result = simulate(snapshot, catalog=catalog_from_snapshot_region(snapshot), consolidate=True)
    assert [(d.action, d.nodes) for d in result.disruptions] == [("delete", ("node-light",)), ("replace", ("node-busy",))]
    assert result.scores == ()  # only Balanced NodePools are scored


def test_an_unknown_consolidation_policy_is_named_and_the_pool_kept_with_the_default():
    """The API server would refuse it; karptui keeps the pool (issue 29: a docs placeholder dropped it)."""
    raw = nodepool()
    raw["spec"]["disruption"] = {"consolidationPolicy": "Frugal"}
    snapshot = build_snapshot([raw])
    assert [p.consolidation_policy for p in snapshot.nodepools] == ["WhenEmptyOrUnderutilized"]
    assert "'Frugal' is not WhenEmpty, WhenEmptyOrUnderutilized or Balanced: Karpenter's API server would " \
           "refuse this NodePool" in " ".join(snapshot.warnings)


# ---- NodeOverlay --------------------------------------------------------------------------------
@pytest.mark.parametrize("price,change,expected", [
    (0.1, "", 0.1), (0.1, "0.5", 0.5), (0.1, "+0.05", 0.15), (0.1, "-0.05", 0.05), (0.2, "+10%", 0.22),
    (0.2, "-15%", 0.17), (0.2, "-100%", 0.0)])
def test_price_adjustments_as_karpenter_reads_them(price, change, expected):
    assert adjusted_price(price, change) == pytest.approx(expected)


@pytest.mark.parametrize("spec,fragment", [
    ({"price": "1.0", "priceAdjustment": "+1"}, "cannot set both 'price' and 'priceAdjustment'"),
    ({"priceAdjustment": "-150%"}, "'-150%' is not +x, -x, +x% or -x%"),
    ({"price": "-1"}, "'-1' is not a non-negative decimal price"),
    ({"capacity": {"cpu": "2"}}, "spec.capacity: cpu is restricted"),
    ({"weight": 20000}, "spec.weight: 20000 is outside 1..10000"),
    ({"price": "1" + "0" * 400}, "spec.price: '1000000000000000000000000000000000000000'… is beyond any price"),
    ({"priceAdjustment": "+" + "9" * 400}, "spec.priceAdjustment:"),
    ({"priceAdjustment": "+" + "9" * 400 + "%"}, "is beyond any price"),
])
def test_nodeoverlay_fields_the_api_would_refuse(spec, fragment):
    with pytest.raises(ModelError, match=None) as caught:
        build_nodeoverlay(overlay("o", **spec), "karpenter.sh/v1alpha1", "NodeOverlay")
    assert fragment in str(caught.value)


def test_an_overlay_price_beyond_a_float_is_skipped_and_json_stays_json(cli, tmp_path):
    """400 digits parsed as infinity and `simulate -o json` printed Infinity, which jq refuses (issue 29)."""
    huge = overlay("huge", requirements=[req("node.kubernetes.io/instance-type", "In", "m5.large")],
                   price="1" + "0" * 400)
    path = tmp_path / "c.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List",
                                "items": [nodepool(requirements=[ONLY_LARGE]), huge, pod("p", cpu="1")]}))
    code, out, err = cli("simulate", path, "-o", "json", "--feature-gates", "NodeOverlay=true")
    assert code == 0, err
    doc = json.loads(out, parse_constant=lambda name: pytest.fail(f"{name} in the JSON"))
    assert any("is beyond any price" in w for w in doc["warnings"])


def test_overlays_heaviest_first_then_later_names_first():
    built = [build_nodeoverlay(overlay(n, w), "karpenter.sh/v1alpha1", "NodeOverlay")
             for n, w in (("a", None), ("b", 5), ("c", 5), ("d", None))]
    assert [o.name for o in by_weight(built)] == ["c", "b", "d", "a"]


def test_nodeoverlay_price_is_ignored_while_its_gate_is_off():
    cheap_m5 = overlay("cheap-m5", requirements=[req("node.kubernetes.io/instance-type", "In", "m5.large")],
                       price="0.01")
    result, launch = launched(nodepool(requirements=[ONLY_LARGE]), cheap_m5, pod("p", cpu="1"))
    assert launch["instance_type"] == "c5.large"  # cheaper than m5.large at list price
    assert any("NodeOverlay feature gate is off" in n for n in result.notes)


def test_nodeoverlay_price_decides_the_launch_with_its_gate_on():
    cheap_m5 = overlay("cheap-m5", requirements=[req("node.kubernetes.io/instance-type", "In", "m5.large")],
                       price="0.01")
    gates = DEFAULT_GATES.with_({"NodeOverlay": True})
    _, launch = launched(nodepool(requirements=[ONLY_LARGE]), cheap_m5, pod("p", cpu="1"), gates=gates)
    assert (launch["instance_type"], launch["price"]) == ("m5.large", 0.01)


def test_the_heavier_overlay_wins_and_an_equal_weight_one_conflicts():
    m5 = [req("node.kubernetes.io/instance-type", "In", "m5.large")]
    gates = DEFAULT_GATES.with_({"NodeOverlay": True})
    objects = (nodepool(requirements=[ONLY_LARGE]), overlay("heavy", 10, m5, price="0.02"),
               overlay("light", 1, m5, priceAdjustment="-99%"), pod("p", cpu="1"))
    _, launch = launched(*objects, gates=gates)
    assert launch["price"] == 0.02
    result, launch = launched(*objects, overlay("rival", 10, m5, price="0.01"), gates=gates)
    assert launch["price"] == 0.01  # "rival" sorts first (the later name) and "heavy" is the one refused
    assert any("NodeOverlay heavy not applied: conflict" in n for n in result.notes)


def test_an_overlay_for_one_nodepool_of_two_is_not_applied_and_said():
    by_pool = overlay("team-a", requirements=[req("karpenter.sh/nodepool", "In", "a")], price="0.01")
    gates = DEFAULT_GATES.with_({"NodeOverlay": True})
    result, launch = launched(nodepool("a", requirements=[ONLY_LARGE]), nodepool("b", requirements=[ONLY_LARGE]),
                              by_pool, pod("p", cpu="1"), gates=gates)
    assert launch["instance_type"] == "c5.large"
    assert any("NodeOverlay team-a not applied: it changes instance types for some NodePools" in n
               for n in result.notes)


def test_overlay_capacity_adds_an_extended_resource_pods_can_request():
    fpga = overlay("fpga", requirements=[req("node.kubernetes.io/instance-type", "In", "m5.large")],
                   capacity={"example.com/fpga": "1"})
    wants = pod("p", cpu="1")
    wants["spec"]["containers"][0]["resources"]["requests"]["example.com/fpga"] = "1"
    objects = (nodepool(requirements=[ONLY_LARGE]), fpga, wants)
    assert simulate(build_snapshot(objects), catalog=CATALOG).pending == 1
    _, launch = launched(*objects, gates=DEFAULT_GATES.with_({"NodeOverlay": True}))
    assert launch["instance_type"] == "m5.large"


# ---- reserved capacity --------------------------------------------------------------------------
RESERVED = parse_catalog({"instanceTypes": [
    {"name": "m5.large", "cpu": "2", "memory": "8Gi", "pods": "29",
     "offerings": [{"zone": "us-east-1a", "capacityType": "on-demand", "price": 0.096},
                   {"zone": "us-east-1a", "capacityType": "reserved", "price": 0.0001}]},
    {"name": "c5.large", "cpu": "2", "memory": "4Gi", "pods": "29",
     "offerings": [{"zone": "us-east-1a", "capacityType": "on-demand", "price": 0.085}]}]})
ANY_CAPACITY = req("karpenter.sh/capacity-type", "In", "on-demand", "reserved")


def test_reserved_capacity_is_preferred_while_its_gate_is_on():
    _, launch = launched(nodepool(requirements=[ANY_CAPACITY]), pod("p", cpu="1"), catalog=RESERVED)
    assert (launch["instance_type"], launch["capacity_type"]) == ("m5.large", "reserved")


def test_reserved_offerings_are_not_used_with_the_gate_off():
    result, launch = launched(nodepool(requirements=[ANY_CAPACITY]), pod("p", cpu="1"), catalog=RESERVED,
                              gates=parse_feature_gates("ReservedCapacity=false"))
    assert (launch["instance_type"], launch["capacity_type"]) == ("c5.large", "on-demand")
    assert "ReservedCapacity feature gate is off: reserved offerings are not used" in result.notes


# ---- do-not-disrupt with a duration -------------------------------------------------------------
@pytest.mark.parametrize("value,blocked", [("1h", True), ("30m", False), ("true", True), ("soon", False)])
def test_a_do_not_disrupt_duration_blocks_until_the_pod_has_run_that_long(value, blocked):
    """light-0 started at 09:05; the newest pod (the snapshot's now) at 09:40: 35 minutes on."""
    items = yaml.safe_load(BALANCED.read_text())["items"]
    for item in items:
        if item["kind"] == "Pod" and item["metadata"]["name"] == "light-0":
            item["metadata"]["annotations"] = {"karpenter.sh/do-not-disrupt": value}
        elif item["kind"] == "Pod":
            item["metadata"]["creationTimestamp"] = "2026-01-10T09:40:00Z"
    result = simulate(build_snapshot(items), catalog=CATALOG, consolidate=True)
    reasons = {b.node: b.reason for b in result.blocked}
    if blocked:
        assert reasons["node-light"] == 'pod has "karpenter.sh/do-not-disrupt" annotation (Pod=default/light-0)'
        assert all("node-light" not in d.nodes for d in result.disruptions)
    else:
        assert "node-light" not in reasons and result.disruptions[0].nodes == ("node-light",)


# ---- NodeOverlay, from Karpenter's pkg/controllers/nodeoverlay/suite_test.go (v1.14.0) ----------
def _overlaid(*overlays, types=None):
    """The catalog Karpenter's scheduler would see with these overlays (gate on), and the notes."""
    catalog = parse_catalog({"instanceTypes": types or [
        {"name": "default-instance-type", "cpu": "4", "memory": "4Gi", "pods": "5",
         "offerings": [{"zone": "test-zone-1", "capacityType": "spot", "price": 1.02}]}]})
    snapshot = build_snapshot([nodepool(), *overlays])
    return karpenter_catalog(snapshot, catalog, DEFAULT_GATES.with_({"NodeOverlay": True}))


def test_overlay_suite_105_zero_overlays_change_nothing():
    catalog = parse_catalog({"instanceTypes": [{"name": "a", "cpu": "1", "memory": "1Gi", "pods": "5",
                                                "offerings": [{"zone": "z", "capacityType": "spot", "price": 1}]}]})
    assert karpenter_catalog(build_snapshot([nodepool()]), catalog, DEFAULT_GATES.with_({"NodeOverlay": True})) \
        == (catalog, [])


def test_overlay_suite_189_equal_weights_that_overlap_conflict_and_the_earlier_name_loses():
    arm = overlay("overlay-a", 10, [req("kubernetes.io/arch", "In", "arm64")], price="1.03")
    any_capacity = overlay("overlay-b", 10, [{"key": "karpenter.sh/capacity-type", "operator": "Exists"}],
                           price="23")
    types = [{"name": "arm-instance-type", "cpu": "16", "memory": "128Gi", "pods": "5", "arch": "arm64",
              "offerings": [{"zone": "test-zone-1", "capacityType": "spot", "price": 2.0}]}]
    catalog, notes = _overlaid(arm, any_capacity, types=types)
    assert catalog.get("arm-instance-type").offerings[0].price == 23.0
    assert any(n.startswith("NodeOverlay overlay-a not applied: conflict") for n in notes)


def test_overlay_suite_234_overlays_that_do_not_overlap_both_apply():
    types = [{"name": "arm-instance-type", "cpu": "2", "memory": "2Gi", "pods": "5", "arch": "arm64",
              "offerings": [{"zone": "test-zone-1", "capacityType": "spot", "price": 2.0}]},
             {"name": "amd-instance-type", "cpu": "2", "memory": "2Gi", "pods": "5", "arch": "amd64",
              "offerings": [{"zone": "test-zone-1", "capacityType": "spot", "price": 2.0}]}]
    catalog, notes = _overlaid(overlay("overlay-a", 10, [req("kubernetes.io/arch", "In", "arm64")], price="1.03"),
                               overlay("overlay-b", 10, [req("kubernetes.io/arch", "In", "amd64")], price="23"),
                               types=types)
    assert [catalog.get(n).offerings[0].price for n in ("arm-instance-type", "amd-instance-type")] == [1.03, 23.0]
    assert not any("not applied" in n for n in notes)


def test_overlay_suite_1999_capacity_adds_the_extended_resource():
    fuse = overlay("fuse", 10, [req("node.kubernetes.io/instance-type", "In", "default-instance-type")],
                   capacity={"smarter-devices/fuse": "1"})
    catalog, _ = _overlaid(fuse)
    it = catalog.get("default-instance-type")
    assert it.capacity["smarter-devices/fuse"] == 1 and len(it.offerings) == 1


def test_overlay_suite_2277_the_heavier_capacity_overlay_wins():
    on_default = [req("node.kubernetes.io/instance-type", "In", "default-instance-type")]
    catalog, notes = _overlaid(overlay("overlay-a", 10, on_default, capacity={"smarter-devices/fuse": "5"}),
                               overlay("overlay-b", 20, on_default, capacity={"smarter-devices/fuse": "99"}))
    assert catalog.get("default-instance-type").capacity["smarter-devices/fuse"] == 99
    assert not any("not applied" in n for n in notes)


@pytest.mark.parametrize("extra,fragment", [
    ({"limits": {"cpu": "10"}}, "only 'limits.nodes' is supported on static NodePools"),
    ({"weight": 10}, "'weight' is not supported on static NodePools"),
])
def test_a_static_nodepool_the_api_would_refuse_is_skipped_and_said(extra, fragment):
    raw = nodepool()
    raw["spec"].update({"replicas": 2, **extra})
    snapshot = build_snapshot([raw])
    assert snapshot.nodepools == () and fragment in " ".join(snapshot.warnings)
    raw["spec"]["limits"] = {"nodes": "3"}
    raw["spec"].pop("weight", None)
    assert build_snapshot([raw]).nodepools[0].replicas == 2


def test_snapshot_info_counts_nodeoverlays_and_names_a_bad_one(cli, write):
    good = overlay("cheap-m5", requirements=[req("node.kubernetes.io/instance-type", "In", "m5.large")],
                   priceAdjustment="-10%")
    bad = overlay("both", price="1", priceAdjustment="+1")
    path = write("overlays.json", {"apiVersion": "v1", "kind": "List", "items": [nodepool(), good, bad]})
    code, out, err = cli("snapshot", "info", path, "--output", "json")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["nodeoverlays"] == 1
    assert any("skipped NodeOverlay both" in w and "cannot set both 'price' and 'priceAdjustment'" in w
               for w in doc["warnings"])
