"""The what-if panel: its view model (karptui/views/whatif_form.py) and the screen driven by Pilot.

The scenario is the seed's topology-spread test: host-spread asks for 20
replicas, spread by hostname (maxSkew 2) and by zone (maxSkew 5); only 14 run.
Dropping the hostname constraint puts 7/7/2 on the existing nodes of
ap-northeast-2a/2b/2c, and Karpenter launches one node in 2c for the last 4.
"""

from __future__ import annotations

import copy
import threading
from pathlib import Path

import pytest
from textual.app import App
from textual.widgets import DataTable, Input, ListView, OptionList, Select, Static, Switch

from karptui.catalog import catalog_from_snapshot_region
from karptui.sources import bundled_snapshot, load_snapshot
from karptui.tui.screens import whatif as whatif_screen
from karptui.tui.screens.whatif import WhatIfScreen
from karptui.views import whatif_form as wf
from karptui.whatif.io import parse_edit
from karptui.whatif import AddNodes, Cordon, Patch, RemoveNode, Scale, Target, WhatIf, apply_whatif, load_whatif
from karptui.whatif.session import CANCELLED, ERROR, RunResult

HOST = "Deployment/default/host-spread"
POOL = "Provisioner/default"
NODE_2C = "ip-192-168-13-78.ap-northeast-2.compute.internal"
ZONES = ("ap-northeast-2a", "ap-northeast-2b", "ap-northeast-2c")


@pytest.fixture(scope="module")
def snapshot():
    return load_snapshot(bundled_snapshot("topology-spread"))


@pytest.fixture(scope="module")
def catalog(snapshot):
    return catalog_from_snapshot_region(snapshot)


def drop_hostname(snapshot) -> list:
    before = wf.workload_form(snapshot, [], HOST)
    after = copy.deepcopy(before)
    del after["constraints"][0]
    return wf.workload_edits(HOST, before, after)


# ---------------------------------------------------------------- view model: edit builders

def test_spread_edit_replaces_the_list_and_keeps_the_label_selector(snapshot):
    form = wf.workload_form(snapshot, [], HOST)
    assert [c["topologyKey"] for c in form["constraints"]] == ["kubernetes.io/hostname", "topology.kubernetes.io/zone"]
    assert form["constraints"][0]["maxSkew"] == "2" and form["replicas"] == "20"
    edit = wf.spread_edit(HOST, [{**form["constraints"][1], "minDomains": "3", "nodeTaintsPolicy": "Honor",
                                  "matchLabelKeys": "pod-template-hash, team"}])
    assert edit.target == Target.parse(HOST)
    spread = edit.patch["spec"]["template"]["spec"]["topologySpreadConstraints"]
    assert spread == [{"$patch": "replace"},
                      {"maxSkew": 5, "topologyKey": "topology.kubernetes.io/zone", "whenUnsatisfiable": "DoNotSchedule",
                       "labelSelector": {"matchLabels": {"app": "host-spread"}}, "minDomains": 3,
                       "nodeTaintsPolicy": "Honor", "matchLabelKeys": ["pod-template-hash", "team"]}]
    none = wf.spread_edit(HOST, [])
    assert none.patch["spec"]["template"]["spec"]["topologySpreadConstraints"] is None
    applied = apply_whatif(snapshot, WhatIf("x", (none,))).snapshot
    assert next(w for w in applied.workloads if w.name == "host-spread").template.spread_constraints == ()


@pytest.mark.parametrize("change, message", [
    ({"maxSkew": "0"}, "maxSkew must be a whole number >= 1, got '0'"),
    ({"maxSkew": "abc"}, "maxSkew must be a whole number >= 1, got 'abc'"),
    ({"topologyKey": " "}, "topologyKey is required"),
    ({"whenUnsatisfiable": "Maybe"}, "whenUnsatisfiable must be DoNotSchedule or ScheduleAnyway"),
    ({"minDomains": "2", "whenUnsatisfiable": "ScheduleAnyway"}, "minDomains needs whenUnsatisfiable: DoNotSchedule"),
    ({"minDomains": "x"}, "minDomains must be a whole number >= 1"),
    ({"nodeAffinityPolicy": "Sometimes"}, "nodeAffinityPolicy must be Honor or Ignore"),
])
def test_spread_edit_rejects_what_the_api_server_would(change, message):
    with pytest.raises(ValueError, match=message):
        wf.spread_edit(HOST, [{**wf.new_constraint(), **change}])


def test_spread_edit_rejects_two_constraints_with_the_same_key():
    with pytest.raises(ValueError, match="same topologyKey and whenUnsatisfiable"):
        wf.spread_edit(HOST, [wf.new_constraint(), wf.new_constraint()])


def test_scale_and_pod_template_edits():
    assert wf.scale_edit(HOST, " 7 ") == Scale(Target.parse(HOST), 7)
    for bad in ("-1", "x", "1.5"):
        with pytest.raises(ValueError, match="replicas must be a whole number >= 0"):
            wf.scale_edit(HOST, bad)
    with pytest.raises(ValueError, match="cannot scale a DaemonSet"):
        wf.scale_edit("DaemonSet/kube-system/kube-proxy", 3)
    spec = lambda edit: edit.patch["spec"]["template"]["spec"]  # noqa: E731
    assert spec(wf.node_selector_edit(HOST, "a=b, c = d")) == {
        "nodeSelector": {"$patch": "replace", "a": "b", "c": "d"}}
    assert spec(wf.node_selector_edit(HOST, "")) == {"nodeSelector": None}
    with pytest.raises(ValueError, match="'a' is not key=value"):
        wf.node_selector_edit(HOST, "a")
    assert spec(wf.tolerations_edit(HOST, "dedicated=a:NoSchedule, gpu:NoExecute, spot, *")) == {"tolerations": [
        {"operator": "Equal", "key": "dedicated", "value": "a", "effect": "NoSchedule"},
        {"operator": "Exists", "key": "gpu", "effect": "NoExecute"},
        {"operator": "Exists", "key": "spot"}, {"operator": "Exists"}]}
    with pytest.raises(ValueError, match="'Sometimes' is not NoSchedule"):
        wf.tolerations_edit(HOST, "a=b:Sometimes")
    assert spec(wf.requests_edit(HOST, "host-spread", "500m", "")) == {
        "containers": [{"name": "host-spread", "resources": {"requests": {"cpu": "500m", "memory": None}}}]}
    with pytest.raises(ValueError, match="cpu: '1x' is not a quantity"):
        wf.requests_edit(HOST, "host-spread", "1x", "1Gi")
    with pytest.raises(ValueError, match="memory: '-1Gi' is not a quantity"):
        wf.requests_edit(HOST, "host-spread", "1", "-1Gi")


def test_text_fields_round_trip():
    tolerations = wf.parse_toleration_text("dedicated=a:NoSchedule, gpu:NoExecute, *")
    assert wf.parse_toleration_text(wf.format_tolerations(tolerations)) == tolerations
    taints = wf.parse_taint_text("team=a:NoSchedule, spot:PreferNoSchedule")
    assert taints == [{"key": "team", "effect": "NoSchedule", "value": "a"},
                      {"key": "spot", "effect": "PreferNoSchedule"}]
    assert wf.parse_taint_text(wf.format_taints(taints)) == taints
    requirements = wf.parse_requirement_text("karpenter.sh/capacity-type In spot,on-demand; gpu Exists; cpu Gt 4")
    assert requirements[0] == {"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["spot", "on-demand"]}
    assert wf.parse_requirement_text(wf.format_requirements(requirements)) == requirements
    assert wf.parse_labels(wf.format_labels({"a": "1", "b": ""})) == {"a": "1", "b": ""}
    for bad, message in (("a In", "values: In needs at least one value"), ("a Near b", "'Near' is not one of"),
                         ("lonely", "is not 'key Operator"),
                         # issue 29: two requirements typed without ';' became one value with spaces
                         ("karpenter.sh/capacity-type In spot zone In a", "value 'spot zone In a' has a space")):
        with pytest.raises(ValueError, match=message):
            wf.parse_requirement_text(bad)
    with pytest.raises(ValueError, match="is not key=value:Effect"):
        wf.parse_taint_text("team=a")


def test_nodepool_edits_follow_the_api_version():
    assert wf.nodepool_limits_edit(POOL, "100", "").patch == {
        "spec": {"limits": {"resources": {"cpu": "100", "memory": None}}}}
    assert wf.nodepool_limits_edit("NodePool/default", "", "1Ti").patch == {
        "spec": {"limits": {"cpu": None, "memory": "1Ti"}}}
    assert wf.nodepool_taints_edit(POOL, "a=b:NoSchedule").patch == {
        "spec": {"taints": [{"key": "a", "effect": "NoSchedule", "value": "b"}]}}
    assert wf.nodepool_requirements_edit("NodePool/default", "kubernetes.io/arch In arm64").patch == {
        "spec": {"template": {"spec": {"requirements": [
            {"key": "kubernetes.io/arch", "operator": "In", "values": ["arm64"]}]}}}}
    assert wf.nodepool_weight_edit("NodePool/default", "50").patch == {"spec": {"weight": 50}}
    assert wf.nodepool_weight_edit(POOL, "").patch == {"spec": {"weight": None}}
    with pytest.raises(ValueError, match="weight must be between 0 and 100"):
        wf.nodepool_weight_edit(POOL, "101")
    with pytest.raises(ValueError, match="not a NodePool or Provisioner"):
        wf.nodepool_taints_edit(HOST, "")


def test_node_edits():
    assert wf.cordon_edit(NODE_2C) == Cordon(NODE_2C, True)
    assert wf.remove_node_edit(NODE_2C) == RemoveNode(NODE_2C)
    assert wf.add_nodes_edit("m5.xlarge", "ap-northeast-2c", "2", "spot", "default") == AddNodes(
        "m5.xlarge", "ap-northeast-2c", 2, "spot", "default")
    with pytest.raises(ValueError, match="count must be a whole number >= 1"):
        wf.add_nodes_edit("m5.xlarge", "ap-northeast-2c", "0")
    with pytest.raises(ValueError, match="capacityType must be one of"):
        wf.add_nodes_edit("m5.xlarge", "ap-northeast-2c", 1, "cheap")
    with pytest.raises(ValueError, match="instanceType missing"):
        wf.add_nodes_edit("", "ap-northeast-2c")


def test_every_builder_applies_to_the_snapshot(snapshot, catalog):
    edits = [wf.requests_edit(HOST, "host-spread", "500m", "128Mi"),
             wf.node_selector_edit(HOST, "kubernetes.io/os=linux"),
             wf.tolerations_edit(HOST, "dedicated=a:NoSchedule"), wf.nodepool_limits_edit(POOL, "100", "400Gi"),
             wf.nodepool_requirements_edit(POOL, "karpenter.sh/capacity-type In spot,on-demand"),
             wf.nodepool_weight_edit(POOL, "10"), wf.nodepool_taints_edit(POOL, "team=a:NoSchedule"),
             wf.cordon_edit(NODE_2C), wf.remove_node_edit("ip-192-168-12-45.ap-northeast-2.compute.internal"),
             wf.add_nodes_edit("m5.xlarge", "ap-northeast-2c", 2, "spot", "default"), wf.scale_edit(HOST, 10)]
    summary = wf.run_whatif(snapshot, catalog, WhatIf("all", edits))
    assert summary["error"] is None
    pool = wf.nodepool_form(snapshot, edits, POOL)
    assert pool == {"requirements": "karpenter.sh/capacity-type In spot,on-demand", "taints": "team=a:NoSchedule",
                    "cpu": "100", "memory": "400Gi", "weight": "10"}
    form = wf.workload_form(snapshot, edits, HOST)
    assert (form["replicas"], form["node_selector"], form["tolerations"]) == ("10", "kubernetes.io/os=linux",
                                                                              "dedicated=a:NoSchedule")
    assert form["containers"] == [{"name": "host-spread", "cpu": "500m", "memory": "128Mi"}]
    assert wf.node_form(snapshot, edits, f"Node/{NODE_2C}")["cordoned"] is True


def test_form_diffs_give_only_what_changed(snapshot):
    before = wf.workload_form(snapshot, [], HOST)
    assert wf.workload_edits(HOST, before, copy.deepcopy(before)) == []
    after = copy.deepcopy(before)
    after["replicas"], after["containers"][0]["cpu"] = "25", "2"
    edits = wf.workload_edits(HOST, before, after)
    assert [type(e) for e in edits] == [Scale, Patch] and edits[0].replicas == 25
    pool = wf.nodepool_form(snapshot, [], POOL)
    assert wf.nodepool_edits(POOL, pool, {**pool, "weight": "5"}) == [wf.nodepool_weight_edit(POOL, 5)]
    node = wf.node_form(snapshot, [], f"Node/{NODE_2C}")
    assert wf.node_edits(NODE_2C, node, {**node, "cordoned": True, "removed": True}) == [RemoveNode(NODE_2C)]
    gone = wf.node_form(snapshot, [RemoveNode(NODE_2C)], f"Node/{NODE_2C}")
    with pytest.raises(ValueError, match="undo that edit"):
        wf.node_edits(NODE_2C, gone, {**gone, "removed": False})


def test_target_rows_skip_what_cannot_be_edited(snapshot):
    rows = wf.target_rows(snapshot)
    assert rows[0] == wf.TargetRow(HOST, "workload", "Deployment default/host-spread ×20")
    assert not any(r.ref.startswith("ReplicaSet/") for r in rows)   # a Deployment's ReplicaSets: edit the Deployment
    assert [r.ref for r in rows if r.group == "nodepool"] == [POOL]
    assert sum(r.group == "node" for r in rows) == len(snapshot.nodes)


def test_edit_stack_undo_redo():
    a, b, c = (wf.scale_edit(HOST, n) for n in (1, 2, 3))
    stack = wf.EditStack()
    assert stack.undo() is None and stack.redo() is None
    stack.push(a, b)
    assert stack.undo() == b and stack.edits == (a,)
    assert stack.redo() == b and stack.edits == (a, b)
    stack.undo()
    stack.push(c)  # a new edit forgets what was undone
    assert stack.redo() is None and stack.edits == (a, c)
    assert stack.as_whatif("mine") == WhatIf("mine", (a, c))
    stack.replace([b])
    assert len(stack) == 1 and stack.as_whatif("").name == wf.DEFAULT_NAME


# ---------------------------------------------------------------- view model: the run

def test_run_whatif_with_karpenter(snapshot, catalog):
    summary = wf.run_whatif(snapshot, catalog, WhatIf("drop", drop_hostname(snapshot)))
    assert summary["error"] is None
    assert (summary["scheduled_before"], summary["pending_before"]) == (6, 0)   # Karpenter launches 3 nodes
    assert (summary["scheduled_after"], summary["pending_after"]) == (20, 0)    # the whole rollout
    assert (summary["on_new_nodes_before"], summary["on_new_nodes_after"]) == (6, 2)
    [host] = summary["workloads"]
    assert host["workload"] == HOST
    # 16 placed by kube-scheduler, 2 more on existing nodes by Karpenter's scheduler, 2 on a NodeClaim
    assert host["existing_after"] == dict(zip(ZONES, (8, 8, 2)))
    assert host["launched_after"] == {"ap-northeast-2c": 2}
    assert [(c["instance_type"], c["zone"], c["pods"]) for c in summary["nodeclaims"]] == [
        ("t3a.xlarge", "ap-northeast-2c", 2)]
    # one of the baseline's three NodeClaims (t3a.xlarge in 2c) is still wanted; the other two are not
    assert summary["nodeclaims_added"] == [] and len(summary["nodeclaims_removed"]) == 2
    assert summary["consolidation"] and summary["cost_before"] > 0
    assert summary["cost_change"] == pytest.approx(summary["cost_after"] - summary["cost_before"])


def test_run_whatif_kube_scheduler_only(snapshot):
    summary = wf.run_whatif(snapshot, None, WhatIf("drop", drop_hostname(snapshot)))
    assert (summary["pending_before"], summary["pending_after"]) == (6, 4)
    assert summary["workloads"][0]["zones_after"] == dict(zip(ZONES, (7, 7, 2)))
    assert summary["nodeclaims"] == [] and summary["cost_change"] is None
    assert len(summary["pending"]) == 4
    assert "didn't match pod topology spread constraints" in summary["pending"][0]["reason"]


def test_run_whatif_reports_bad_edits_and_cancellation(snapshot, catalog):
    bad = wf.run_whatif(snapshot, catalog, WhatIf("bad", (wf.add_nodes_edit("zz.nope", "ap-northeast-2c"),)))
    assert bad["error"] == "bad: edit 1: addNodes: unknown instance type 'zz.nope'"
    assert wf.run_whatif(snapshot, catalog, WhatIf("x"), cancelled=lambda: True)["cancelled"] is True


def test_summary_text_and_table_rows(snapshot, catalog):
    summary = wf.run_whatif(snapshot, catalog, WhatIf("drop", drop_hostname(snapshot)))
    lines = wf.summary_lines(summary)
    # a template change is a rollout: 20 pods go, 20 new ones come; nothing moves
    # (6 of the 20 old pods are pending, not available: the first sync deletes 5 of them, and the
    # second surges to 10 new pods while 15 old ones still hold their room)
    assert lines[:3] == ["scheduled 6 → 20 · pending 0 → 0", "on existing nodes 0 → 18 · on new NodeClaims 6 → 2",
                         "20 added (20 placed, 0 pending) · 20 removed · 0 newly scheduled · 0 newly pending · "
                         "0 moved"]
    assert lines[5] == ("rollout Deployment/default/host-spread (RollingUpdate, maxSurge 5, maxUnavailable 5): "
                        "5 step(s); peak 25 pods (15 old + 10 new): 1 NodeClaim(s) launched; old and new overlap "
                        "in 4 step(s)")
    del lines[5]
    assert lines[3] == ("cost now ~$2.320/h (~$1,694/mo) → after provisioning ~$2.470/h (~$1,803/mo) → after "
                        "consolidation ~$1.175/h (~$858/mo) (~: 2 unpriced, 9 prices estimated)")
    # without the edits the 6 pending pods need new NodeClaims, and Karpenter consolidates nothing until
    # they are up (its SimulateScheduling schedules pending pods too)
    assert lines[4] == "without the edits ~$2.771/h (~$2,023/mo): change ~-$1.596/h (~-$1,165/mo)"
    assert lines[5] == "- launch default: t3a.xlarge on-demand in ap-northeast-2a for 2 pod(s)"
    tables = wf.result_rows(summary)
    assert tables["zones"][0] == (HOST, "", "")
    assert tables["zones"][3] == ("· ap-northeast-2c", "2 +4 new", "2 +2 new")
    assert tables["claims"] == [("default", "t3a.xlarge", "ap-northeast-2c", "on-demand", "0.1504", "2")]
    assert {row[0] for row in tables["actions"]} <= {"delete", "replace", "blocked"}
    assert wf.summary_lines({"name": "x", "error": "bad"}) == []
    assert wf.result_rows({"name": "x", "error": "bad"}) == {"zones": [], "claims": [], "actions": []}


def test_edits_are_described_briefly():
    assert [wf.describe_edit(e) for e in (
        wf.spread_edit(HOST, [wf.new_constraint()]), wf.spread_edit(HOST, []), wf.scale_edit(HOST, 3),
        wf.nodepool_weight_edit(POOL, 4), wf.nodepool_limits_edit(POOL, "8", ""), wf.cordon_edit(NODE_2C),
        wf.remove_node_edit(NODE_2C))] == [
        "host-spread: topologySpreadConstraints[1]", "host-spread: topologySpreadConstraints removed",
        "host-spread: replicas=3", "default: weight=4", "default: limits", "cordon ip-192-168-13-78",
        "remove ip-192-168-13-78"]


def test_a_request_edit_says_the_new_amounts():
    """The edits list is 34 columns wide: 'containers[1]' said nothing, a container's name twice too much."""
    one = {"spec": {"template": {"spec": {"containers": [{"name": "web", "resources": {"requests": {"cpu": "1500m"}}}]}}}}
    two = {"spec": {"template": {"spec": {"containers": [
        {"name": "web", "resources": {"requests": {"cpu": "1", "memory": None}}},
        {"name": "sidecar", "resources": {"limits": {"memory": "64Mi"}}}]}}}}
    image = {"spec": {"template": {"spec": {"containers": [{"name": "web", "image": "web:2"}]}}}}
    described = [wf.describe_edit(parse_edit({"target": "Deployment/default/web", "patch": p})) for p in (one, two, image)]
    assert described == ["web: requests cpu=1500m",
                         "web: web requests cpu=1, memory=removed, sidecar limits memory=64Mi",
                         "web: containers[1]"]


# ---------------------------------------------------------------- the screen

class Host(App):
    CSS_PATH = str(Path(whatif_screen.__file__).resolve().parent.parent / "app.tcss")  # as the app styles it

    def __init__(self, snapshot, catalog) -> None:
        super().__init__()
        self.whatif = WhatIfScreen(snapshot, catalog)

    def on_mount(self) -> None:
        self.push_screen(self.whatif)


def text(screen, selector: str) -> str:
    return str(screen.query_one(selector, Static).content)


def rows(screen, selector: str) -> list[tuple]:
    table = screen.query_one(selector, DataTable)
    return [tuple(str(cell) for cell in table.get_row_at(i)) for i in range(table.row_count)]


async def select(pilot, ref: str) -> WhatIfScreen:
    """Move the target list's cursor with j/k and press enter."""
    screen = pilot.app.screen
    targets = screen.query_one("#targets", OptionList)
    targets.focus()
    wanted = [r.ref for r in screen.rows].index(ref)
    step = "j" if wanted >= targets.highlighted else "k"
    await pilot.press(*[step] * abs(wanted - targets.highlighted))
    await pilot.press("enter")
    await pilot.pause()
    return screen


async def press_on(pilot, selector: str, key: str = "enter") -> None:
    pilot.app.screen.query_one(selector).focus()
    await pilot.press(key)
    await pilot.pause()


async def run(pilot) -> None:
    pilot.app.screen.query_one("#targets").focus()
    await pilot.press("r")
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


async def test_dropping_the_hostname_constraint(snapshot, catalog):
    async with Host(snapshot, catalog).run_test(size=(160, 50)) as pilot:
        screen = await select(pilot, HOST)
        assert screen.query_one("#c0-topologyKey", Input).value == "kubernetes.io/hostname"
        await press_on(pilot, "#c0-remove")                 # remove the hostname constraint...
        assert screen.query_one("#c0-topologyKey", Input).value == "topology.kubernetes.io/zone"
        assert not screen.query("#c1-topologyKey")
        await press_on(pilot, "#c0-maxSkew")                # ...and enter applies the form
        assert len(screen.query_one("#edits", ListView)) == 1
        assert screen.stack.edits == tuple(drop_hostname(snapshot))
        screen.query_one("#targets").focus()
        await pilot.press("c")                              # consolidation, asked for: minutes on big clusters
        assert "consolidation on" in text(screen, "#results-title")
        await run(pilot)
        assert "with consolidation" in text(screen, "#results-title")
        summary = text(screen, "#summary")
        assert "scheduled 6 → 20 · pending 0 → 0" in summary
        assert "on existing nodes 0 → 18 · on new NodeClaims 6 → 2" in summary
        assert "→ after consolidation ~$1.175/h (~$858/mo)" in summary   # the cost model's words, as the header's
        assert rows(screen, "#zones") == [(HOST, "", ""), ("· ap-northeast-2a", "6 +2 new", "8"),
                                          ("· ap-northeast-2b", "6", "8"),
                                          ("· ap-northeast-2c", "2 +4 new", "2 +2 new")]
        [claim] = rows(screen, "#claims")
        assert claim[:4] == ("default", "t3a.xlarge", "ap-northeast-2c", "on-demand") and claim[5] == "2"
        assert rows(screen, "#actions")                     # consolidation has something to say
        await pilot.press("u")                              # undo: both constraints are back
        assert screen.stack.edits == () and len(screen.query_one("#edits", ListView)) == 0
        assert screen.query_one("#c1-topologyKey", Input).value == "topology.kubernetes.io/zone"
        assert "edits changed" in text(screen, "#results-title")
        await run(pilot)
        assert "scheduled 6 → 6 · pending 0 → 0" in text(screen, "#summary")
        await pilot.press("ctrl+y")                         # redo
        assert screen.stack.edits == tuple(drop_hostname(snapshot))


async def test_raising_max_skew_without_karpenter(snapshot):
    async with Host(snapshot, None).run_test(size=(160, 50)) as pilot:
        screen = await select(pilot, HOST)
        screen.query_one("#c0-maxSkew", Input).value = "3"
        await press_on(pilot, "#c0-maxSkew")
        await run(pilot)
        assert "pending 6 → 4" in text(screen, "#summary")
        assert rows(screen, "#zones") == [(HOST, "", ""), *((f"· {z}", b, a) for z, b, a in zip(ZONES, "662", "772"))]
        assert rows(screen, "#claims") == [] and "hourly cost" not in text(screen, "#summary")


@pytest.mark.parametrize("value", ["0", "abc"])
async def test_an_invalid_value_is_shown_inline(snapshot, catalog, value):
    async with Host(snapshot, catalog).run_test(size=(160, 50)) as pilot:
        screen = await select(pilot, HOST)
        screen.query_one("#c0-maxSkew", Input).value = value
        await press_on(pilot, "#c0-maxSkew")
        error = screen.query_one("#error", Static)
        assert error.display and "error" in error.classes
        assert text(screen, "#error") == f"maxSkew must be a whole number >= 1, got {value!r}"
        assert screen.stack.edits == () and pilot.app.screen is screen
        await pilot.press("escape")                         # leaves the form, not the screen
        assert pilot.app.screen is screen and screen.query_one("#targets").has_focus
        screen.query_one("#c0-maxSkew", Input).value = "2"
        screen.query_one("#replicas", Input).value = "20"
        await press_on(pilot, "#apply")                     # the Apply button; nothing changed
        assert text(screen, "#error") == "nothing changed"


async def test_a_bad_edit_shows_the_run_error_inline(snapshot, catalog):
    async with Host(snapshot, catalog).run_test(size=(160, 50)) as pilot:
        screen = pilot.app.screen
        await pilot.press("a")                              # the add-nodes form
        screen.query_one("#instance_type", Input).value = "zz.nope"
        screen.query_one("#count", Input).value = "2"
        await press_on(pilot, "#instance_type")
        assert screen.stack.edits == (AddNodes("zz.nope", "ap-northeast-2a", 2),)
        await run(pilot)
        assert text(screen, "#error") == "tui-whatif: edit 1: addNodes: unknown instance type 'zz.nope'"
        assert "not run" in text(screen, "#results-title")


async def test_nodepool_and_node_forms(snapshot, catalog):
    async with Host(snapshot, catalog).run_test(size=(160, 50)) as pilot:
        screen = await select(pilot, POOL)
        assert screen.query_one("#requirements", Input).value.startswith("karpenter.k8s.aws/instance-category In t,m,c")
        screen.query_one("#cpu", Input).value = "16"
        await press_on(pilot, "#cpu")
        assert screen.stack.edits == (wf.nodepool_limits_edit(POOL, "16", ""),)
        screen = await select(pilot, f"Node/{NODE_2C}")
        await press_on(pilot, "#cordoned")                  # enter toggles the switch
        assert screen.query_one("#cordoned", Switch).value is True
        await press_on(pilot, "#apply")
        assert screen.stack.edits[-1] == Cordon(NODE_2C)
        await run(pilot)
        assert "error" not in text(screen, "#results-title")
        await pilot.press("a")
        assert screen.query_one("#zone", Select).value == "ap-northeast-2a"


async def test_save_and_load(snapshot, catalog, tmp_path):
    path = tmp_path / "drop.yaml"
    async with Host(snapshot, catalog).run_test(size=(160, 50)) as pilot:
        screen = pilot.app.screen
        screen.stack.push(*drop_hostname(snapshot))
        await pilot.press("ctrl+s")
        prompt = screen.query_one("#path", Input)
        assert prompt.display and prompt.has_focus and prompt.value == "tui-whatif.yaml"
        prompt.value = str(path)
        await pilot.press("enter")
        await pilot.pause()
        assert not prompt.display
    assert load_whatif(path) == WhatIf("tui-whatif", tuple(drop_hostname(snapshot)))
    async with Host(snapshot, catalog).run_test(size=(160, 50)) as pilot:
        screen = pilot.app.screen
        await pilot.press("ctrl+o")
        screen.query_one("#path", Input).value = str(path)
        await pilot.press("enter")
        await pilot.pause()
        assert screen.stack.edits == tuple(drop_hostname(snapshot))
        assert len(screen.query_one("#edits", ListView)) == 1
        await pilot.press("ctrl+o")
        screen.query_one("#path", Input).value = str(tmp_path / "missing.yaml")
        await pilot.press("enter")
        await pilot.pause()
        assert "missing.yaml" in text(screen, "#error") and len(screen.stack) == 1


async def test_escape_cancels_a_run_then_goes_back(snapshot, catalog, monkeypatch):
    started, seen_cancel = threading.Event(), threading.Event()

    def slow_run(self, whatif, *, cancelled, **_):
        started.set()
        for _ in range(500):
            if cancelled():
                seen_cancel.set()
                return RunResult(whatif.name, CANCELLED)
            threading.Event().wait(0.01)
        return RunResult(whatif.name, ERROR, "never cancelled")

    monkeypatch.setattr(whatif_screen.WhatIfSession, "run", slow_run)
    async with Host(snapshot, catalog).run_test(size=(160, 50)) as pilot:
        screen = pilot.app.screen
        await pilot.press("r")
        assert started.wait(5) and "running" in text(screen, "#results-title")
        await pilot.press("escape")                        # cancels the run, stays here
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        assert seen_cancel.wait(5) and pilot.app.screen is screen
        assert "cancelled" in text(screen, "#results-title") and text(screen, "#error") == ""
        await pilot.press("escape")                        # back
        assert pilot.app.screen is not screen


def test_bindings_are_described_for_the_footer_and_help():
    keys = {b.key: b for b in WhatIfScreen.BINDINGS}
    assert {"r", "u", "ctrl+r", "ctrl+s", "ctrl+o", "escape", "j", "k"} <= set(keys)
    assert all(b.description for b in WhatIfScreen.BINDINGS)


# ---- affinity: required node affinity and pod (anti-)affinity terms, as text

@pytest.mark.parametrize("text", [
    "",
    "topology.kubernetes.io/zone In ap-northeast-2a,ap-northeast-2b",
    "karpenter.sh/capacity-type In spot; kubernetes.io/arch In amd64 | node.kubernetes.io/instance-type Exists",
])
def test_node_affinity_text_round_trips(text):
    assert wf.format_node_affinity(wf.parse_node_affinity_text(text)) == text


@pytest.mark.parametrize("text", [
    "app=web @ kubernetes.io/hostname",
    "app=web, tier In (a b), !legacy, canary @ topology.kubernetes.io/zone | team=x @ kubernetes.io/hostname",
])
def test_pod_terms_text_round_trips(text):
    assert wf.format_pod_terms(wf.parse_pod_terms_text(text)) == text


@pytest.mark.parametrize("text, fragment", [
    ("app=web", "is not 'key=value, ... @ topologyKey'"),
    ("app=web @ ", "is not 'key=value, ... @ topologyKey'"),
    ("tier Near (a) @ kubernetes.io/hostname", "Near"),
])
def test_bad_pod_terms_are_one_line_errors(text, fragment):
    with pytest.raises(ValueError) as caught:
        wf.parse_pod_terms_text(text)
    assert fragment in str(caught.value) and "\n" not in str(caught.value)


@pytest.mark.parametrize("parse, render, text", [
    (wf.parse_node_affinity_text, wf.format_node_affinity,
     "kubernetes.io/arch In amd64; field:metadata.name NotIn ip-10-0-0-1 | field:metadata.name In ip-10-0-0-2"),
    (wf.parse_preferred_node_affinity_text, wf.format_preferred_node_affinity,
     "100: topology.kubernetes.io/zone In ap-northeast-2c | 1: karpenter.sh/capacity-type In spot"),
    (wf.parse_preferred_pod_terms_text, wf.format_preferred_pod_terms,
     "50: app=web @ kubernetes.io/hostname | 10: team=x, tier In (a b) @ topology.kubernetes.io/zone"),
])
def test_match_fields_and_preferred_terms_round_trip(parse, render, text):
    assert render(parse(text)) == text


@pytest.mark.parametrize("text, fragment", [
    ("app=web @ kubernetes.io/hostname", "does not start with a weight"),
    ("0: app=web @ kubernetes.io/hostname", "weight must be 1-100"),
    ("101: app=web @ kubernetes.io/hostname", "weight must be 1-100"),
    ("50: app=web", "is not 'key=value, ... @ topologyKey'"),
])
def test_bad_preferred_terms_are_one_line_errors(text, fragment):
    with pytest.raises(ValueError) as caught:
        wf.parse_preferred_pod_terms_text(text)
    assert fragment in str(caught.value) and "\n" not in str(caught.value)


def test_preferred_terms_reach_the_pods_and_survive_a_required_edit(snapshot):
    form = wf.workload_form(snapshot, [], HOST)
    assert form["node_affinity_preferred"] == form["pod_anti_affinity_preferred"] == ""
    edits = wf.workload_edits(HOST, form, dict(
        form, node_affinity_preferred="100: topology.kubernetes.io/zone In ap-northeast-2c",
        pod_anti_affinity_preferred="30: app=host-spread @ kubernetes.io/hostname"))
    edits += wf.workload_edits(HOST, wf.workload_form(snapshot, edits, HOST), dict(
        wf.workload_form(snapshot, edits, HOST), node_affinity="kubernetes.io/arch In amd64"))
    after = wf.workload_form(snapshot, edits, HOST)
    assert after["node_affinity"] == "kubernetes.io/arch In amd64"
    assert after["node_affinity_preferred"] == "100: topology.kubernetes.io/zone In ap-northeast-2c"
    assert after["pod_anti_affinity_preferred"] == "30: app=host-spread @ kubernetes.io/hostname"
    made = apply_whatif(snapshot, wf.EditStack(edits).as_whatif()).snapshot
    pod = next(p for p in made.pending_pods if p.name.startswith("host-spread"))
    assert [(t.weight, t.term.topology_key) for t in pod.affinity.anti_preferred] == [(30, "kubernetes.io/hostname")]
    assert [t.weight for t in pod.affinity.node_preferred] == [100]


def test_anti_affinity_and_node_affinity_change_the_seed_outcome(snapshot):
    form = wf.workload_form(snapshot, [], HOST)
    assert (form["node_affinity"], form["pod_affinity"], form["pod_anti_affinity"]) == ("", "", "")
    # One replica per host instead of the spread constraints: 7 non-Fargate nodes take 7 of 20.
    anti = wf.workload_edits(HOST, form, dict(form, constraints=[],
                                              pod_anti_affinity="app=host-spread @ kubernetes.io/hostname"))
    summary = wf.run_whatif(snapshot, None, wf.EditStack(anti).as_whatif(), consolidate=False)
    assert wf.summary_lines(summary)[0] == "scheduled 0 → 7 · pending 6 → 13"
    # Only zone 2a: the Fargate node there still counts as a hostname domain (nodeTaintsPolicy Ignore),
    # so maxSkew 2 caps each of the three EC2 nodes at 2 pods.
    zone = wf.workload_edits(HOST, form, dict(form, node_affinity="topology.kubernetes.io/zone In ap-northeast-2a"))
    summary = wf.run_whatif(snapshot, None, wf.EditStack(zone).as_whatif(), consolidate=False)
    assert wf.summary_lines(summary)[0] == "scheduled 0 → 6 · pending 6 → 14"
    assert wf.workload_form(snapshot, zone, HOST)["node_affinity"] == "topology.kubernetes.io/zone In ap-northeast-2a"


async def test_anti_affinity_typed_in_the_form(snapshot):
    async with Host(snapshot, None).run_test(size=(160, 50)) as pilot:
        screen = await select(pilot, HOST)
        screen.query_one("#pod_anti_affinity", Input).value = "app=host-spread @ kubernetes.io/hostname"
        await press_on(pilot, "#pod_anti_affinity")
        assert [wf.describe_edit(e) for e in screen.stack.edits] == ["host-spread: affinity"]
        await run(pilot)
        assert "pending 6 → 13" in text(screen, "#summary")
        screen.query_one("#pod_anti_affinity", Input).value = "app=host-spread"
        await press_on(pilot, "#pod_anti_affinity")
        assert "topologyKey" in text(screen, "#error") and len(screen.stack) == 1


# ---- the form runs what it shows (issue 14): no edit is silently left out of a run

async def test_a_change_not_applied_is_named_and_runs_with_ctrl_r(snapshot):
    """Bug: "Remove constraint" without Apply, then a run, ran 0 edits and said "no change"."""
    async with Host(snapshot, None).run_test(size=(160, 50)) as pilot:
        screen = await select(pilot, HOST)
        await press_on(pilot, "#c0-remove")                 # removed in the form, not applied
        pending = screen.query_one("#pending", Static)
        assert pending.display
        assert text(screen, "#pending") == "1 unapplied change — enter applies, ctrl+r runs with it"
        assert screen.stack.edits == ()
        screen.query_one("#c0-maxSkew", Input).focus()      # a text field has the focus: r would type
        await pilot.press("ctrl+r")
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        assert screen.stack.edits == tuple(drop_hostname(snapshot))
        assert "pending 6 → 4" in text(screen, "#summary") and not pending.display


async def test_r_types_in_a_text_field_and_runs_elsewhere(snapshot):
    async with Host(snapshot, None).run_test(size=(160, 50)) as pilot:
        screen = await select(pilot, HOST)
        await press_on(pilot, "#replicas", "r")             # typed (over the value focus selected), not a run
        assert screen.query_one("#replicas", Input).value == "r" and not pilot.app.workers
        assert "not valid yet: replicas must be a whole number" in text(screen, "#pending")
        await press_on(pilot, "#apply", "ctrl+r")           # an invalid change is not run without it
        assert "not run: fix the form" in text(screen, "#results-title") and not pilot.app.workers
        screen.query_one("#replicas", Input).value = "22"
        await press_on(pilot, "#apply", "r")                # a button has the focus: r runs, with the change
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        assert screen.stack.edits == (Scale(Target.parse(HOST), 22),)
        assert "what-if tui-whatif" in text(screen, "#results-title")


async def test_replicas_comes_first_and_j_k_move_between_fields(snapshot):
    """Bug: reaching replicas took ~18 tabs; focus could not be seen and j/k did nothing in the form."""
    async with Host(snapshot, None).run_test(size=(160, 50)) as pilot:
        screen = await select(pilot, HOST)
        await pilot.press("tab")                            # targets -> the form's first field
        assert pilot.app.focused is screen.query_one("#replicas", Input)
        before = screen.query_one("#replicas").styles.background
        await pilot.press("tab")
        assert pilot.app.focused is screen.query_one("#c0-maxSkew", Input)
        assert screen.query_one("#replicas").styles.background != before    # :focus is styled
        screen.query_one("#c0-whenUnsatisfiable").focus()   # not a text field: j and k move
        await pilot.press("j")
        assert pilot.app.focused is screen.query_one("#c0-minDomains")
        await pilot.press("up")                             # in a text field j and k type: up and down move
        assert pilot.app.focused is screen.query_one("#c0-whenUnsatisfiable")
        await pilot.press("k")
        assert pilot.app.focused is screen.query_one("#c0-topologyKey")
        await pilot.press("down")
        assert pilot.app.focused is screen.query_one("#c0-whenUnsatisfiable")


async def test_one_key_actions_on_the_selected_workload(snapshot):
    async with Host(snapshot, None).run_test(size=(160, 50)) as pilot:
        screen = pilot.app.screen
        screen.query_one("#targets").focus()                # the cursor is on host-spread: no enter needed
        await pilot.press("plus", "plus", "minus")
        assert [e.replicas for e in screen.stack.edits] == [21, 22, 21]
        assert screen.query_one("#replicas", Input).value == "21"
        await pilot.press("x")                              # drops the first constraint (hostname)
        await pilot.press("s")                              # relaxes the one left (zone) to ScheduleAnyway
        form = wf.workload_form(snapshot, screen.stack.edits, HOST)
        assert [(c["topologyKey"], c["whenUnsatisfiable"]) for c in form["constraints"]] == [
            ("topology.kubernetes.io/zone", "ScheduleAnyway")]
        assert len(screen.query_one("#edits", ListView)) == 5 and not screen.query_one("#pending").display
        await pilot.press("ctrl+r")
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        assert "pending 6 → 0" in text(screen, "#summary")


async def test_the_first_run_does_not_consolidate_unless_asked(snapshot, catalog, monkeypatch):
    """Bug: every run (the first one twice: baseline and what-if) ran consolidation of the whole
    cluster, minutes on 2,000 nodes; it runs only once `c` asks for it."""
    from karptui.sim.karpenter.disruption import controller

    passes = []
    run = controller.Disruptor.run
    monkeypatch.setattr(controller.Disruptor, "run", lambda self, state: passes.append(1) or run(self, state))
    async with Host(snapshot, catalog).run_test(size=(160, 50)) as pilot:
        await run_keys(pilot, "ctrl+r")
        assert passes == [] and "consolidation off (c)" not in text(pilot.app.screen, "#results-title")
        await run_keys(pilot, "c", "ctrl+r")
        assert len(passes) == 2 and "with consolidation" in text(pilot.app.screen, "#results-title")
        await run_keys(pilot, "ctrl+r")
        assert len(passes) == 3                             # the baseline's consolidation is kept


async def run_keys(pilot, *keys: str) -> None:
    pilot.app.screen.query_one("#targets").focus()
    await pilot.press(*keys)
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


@pytest.mark.parametrize("size", [(80, 24), (100, 30), (129, 40)])
async def test_results_are_visible_on_a_small_terminal(snapshot, catalog, size):
    """Bug: below ~100 columns the results pane had no width, and at 80x24 nothing showed."""
    async with Host(snapshot, catalog).run_test(size=size) as pilot:
        screen = await select(pilot, HOST)
        assert screen.has_class("-narrow")
        await run_keys(pilot, "x", "ctrl+r")
        summary = screen.query_one("#summary", Static)
        visible_region = summary.region.intersection(screen.region)
        assert visible_region.width >= 60 and visible_region.height >= 3
        assert "scheduled 6 → 20" in text(screen, "#summary")
        assert screen.query_one("#replicas").region.height == 1   # the form is still there



async def test_keys_pressed_while_the_form_renders_read_the_draft(snapshot):
    """Seen on a slow terminal: enter on a target then ctrl+r at once ran before the new form was
    mounted, and reading its fields crashed the app (NoMatches '#cpu-0')."""
    async with Host(snapshot, None).run_test(size=(160, 50)) as pilot:
        screen = await select(pilot, HOST)
        await screen.query_one("#form").remove_children()  # as a render in flight leaves it
        screen.query_one("#targets").focus()
        await pilot.press("ctrl+r")
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        assert pilot.app.screen is screen and "what-if tui-whatif" in text(screen, "#results-title")
        assert screen.stack.edits == ()                     # nothing typed, nothing applied
        await pilot.press("j", "enter", "plus")            # inflate ×1, then one more at once
        await pilot.pause()
        assert screen.stack.edits == (Scale(Target.parse("Deployment/default/inflate"), 2),)
        assert screen.query_one("#replicas", Input).value == "2"


async def test_the_disruption_pane_says_it_answers_for_the_captured_cluster_while_a_whatif_is_held(snapshot):
    """Issue 29: a loaded what-if showed in the header, and the Disruption pane and its budgets
    view went on showing the captured cluster without saying so."""
    from karptui.tui.app import KarptuiApp
    from karptui.tui.disruption import DisruptionPane

    async with KarptuiApp(snapshot, simulate_on_start=False).run_test(size=(160, 50)) as pilot:
        await pilot.pause()
        pane = pilot.app.screen.query_one(DisruptionPane)
        status = lambda: str(pane.query_one("#disruption-status", Static).render())  # noqa: E731
        assert "not what-if" not in status()
        await pilot.press("w")
        await pilot.pause()
        screen = await select(pilot, "Deployment/default/inflate")
        await pilot.press("plus")
        await pilot.pause()
        assert screen.stack.edits
        await pilot.press("escape")
        await pilot.pause()
        assert "the cluster as captured, not what-if tui-whatif (1 edit)" in status()
        pane.show_budgets(True)
        await pilot.pause()
        assert "not what-if tui-whatif (1 edit)" in str(pane.query_one("#budgets-view", Static).render())


async def test_g_and_G_move_the_target_list_and_tab_goes_from_it_to_the_form(snapshot):
    """Issue 29 item 8: g did nothing in the target list, tab went to the edits list first, and the
    Apply button was drawn in the focused row's colour whatever had the focus."""
    async with Host(snapshot, None).run_test(size=(160, 50)) as pilot:
        screen = await select(pilot, "Deployment/default/inflate")
        targets = screen.query_one("#targets", OptionList)
        await pilot.press("G")
        assert targets.highlighted == len(screen.rows) - 1
        await pilot.press("g")
        assert targets.highlighted == 0
        await pilot.press("tab")
        assert pilot.app.focused is screen.query_one("#replicas", Input)
        apply = screen.query_one("#apply")
        assert apply.variant == "default" and not apply.has_focus
