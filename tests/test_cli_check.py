"""``karptui check``: a NodePool, EC2NodeClass or workload change reviewed for CI, on the bundled
snapshots -- what drifts (the same answer ``simulate --whatif -o json`` gives for the same change),
when the budgets let it happen, what becomes pending, what is launched, the cost delta, the
``--fail-on`` thresholds and their exit status, markdown that reads nothing from the cluster as
markup, and bad manifests and thresholds as one line and exit status 2."""

import json
from dataclasses import replace
from pathlib import Path

import pytest
import yaml

from karptui.sources import bundled_snapshot, load_snapshot
from karptui.views.check import md
from karptui.views.thresholds import parse_thresholds
from karptui.whatif import apply_whatif
from karptui.whatif.manifests import LAST_APPLIED, whatif_from_manifests

ROOT = Path(__file__).resolve().parent.parent
CHECK = Path("tests/fixtures/check")   # relative: the paths are said in the review's notes
ON_DEMAND = CHECK / "nodepool-on-demand.yaml"
SPOT_A, SPOT_B = "ip-192-168-3-76.ap-northeast-2.compute.internal", "ip-192-168-1-37.ap-northeast-2.compute.internal"
TEAM1 = "ip-192-168-2-36.ap-northeast-2.compute.internal"


@pytest.fixture(autouse=True)
def at_root(monkeypatch):
    monkeypatch.chdir(ROOT)


@pytest.fixture(scope="module")
def multi():
    return load_snapshot(bundled_snapshot("multi-nodepool"))


def check_json(cli, *args):
    code, out, err = cli("check", *args, "-o", "json")
    return code, json.loads(out), err


def deployment(name="web", cpu="1", replicas=2, selector=None):
    spec = {"containers": [{"name": "c", "image": "x", "resources": {"requests": {"cpu": cpu}}}]}
    if selector:
        spec["nodeSelector"] = selector
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name, "namespace": "default"},
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": "web"}},
                     "template": {"metadata": {"labels": {"app": "web"}}, "spec": spec}}}


def test_a_nodepool_manifest_drifts_what_simulate_whatif_drifts(cli):
    """The manifest and the what-if file that makes the same change give the same drift, and the
    same as ``simulate --whatif -o json``: one path."""
    code, applied, _ = check_json(cli, "multi-nodepool", "--apply", ON_DEMAND)
    assert code == 0
    code, sim, _ = cli("simulate", "multi-nodepool", "--whatif", CHECK / "nodepool-on-demand.whatif.yaml", "-o", "json")
    assert code == 0
    drift = json.loads(sim)["whatif"]["drift"]
    assert applied["whatif"]["drift"] == drift
    assert {i["node"] for i in drift["nodeclaims"]} == {SPOT_A, SPOT_B}
    assert {r["reason"] for i in drift["nodeclaims"] for r in i["reasons"]} == {"RequirementsDrifted"}
    code, from_file, _ = check_json(cli, "multi-nodepool", "--whatif", CHECK / "nodepool-on-demand.whatif.yaml")
    assert from_file["summary"] == applied["summary"]
    assert applied["change"]["edits"] == ["merge patch of NodePool/default"]


def test_the_review_counts_drift_launches_and_the_cost_delta(cli):
    _, doc, _ = check_json(cli, "multi-nodepool", "--apply", ON_DEMAND)
    drift = doc["whatif"]["drift"]
    # one spot node deleted, the other replaced by one on-demand NodeClaim: one launch
    actions = sorted(i["disruption"]["action"] for i in drift["nodeclaims"])
    assert actions == ["delete", "replace"]
    assert doc["summary"]["drift"] == 2 and doc["summary"]["launches"] == len(doc["launches"]["replacements"]) == 1
    assert doc["launches"]["replacements"][0]["replaces"] == [SPOT_A]
    # not consolidated: the what-if's cost path is unchanged and drift's commands are the delta
    cost = doc["cost"]
    assert cost["before"] == cost["after"]
    assert cost["change_per_hour"] == pytest.approx(drift["hourly_cost_change"]["hourly"])
    assert cost["change_per_month"] == pytest.approx(cost["change_per_hour"] * 730, abs=0.01)
    assert cost["change_percent"] == pytest.approx(cost["change_per_hour"] / cost["before"]["hourly"] * 100, abs=0.01)
    assert cost["change_per_hour"] < 0  # two spot nodes for one t4g.small
    assert doc["pending"] == [] and doc["exit_status"] == 0


def test_budgets_say_when_drift_may_start(cli):
    """Drift held to 0 from 00:00 to 20:00 UTC: at 06:48 both drifted nodes are held back, and the
    window opens at 20:00; the simulation leaves them blocked by the budget."""
    code, doc, _ = check_json(cli, "multi-nodepool", "--apply", CHECK / "nodepool-night-budget.yaml",
                              "--at", "2024-03-16T06:48:13Z")
    assert code == 0
    (window,) = doc["budgets"]["windows"]
    assert window["nodepool"] == "default" and window["drifting"] == 2
    assert window["allowed_now"] == 0 and sorted(window["held_back"]) == sorted([SPOT_A, SPOT_B])
    assert window["drift_can_start"] == "2024-03-16T20:00:00Z"
    assert window["budgets"] == ['nodes 0 at 0 0 * * * for 20h (Drifted)', "nodes 10%"]
    assert {i["blocked"]["kind"] for i in doc["whatif"]["drift"]["nodeclaims"]} == {"budget"}
    code, markdown, _ = cli("check", "multi-nodepool", "--apply", CHECK / "nodepool-night-budget.yaml",
                            "--at", "2024-03-16T06:48:13Z", "-o", "markdown")
    # what replaces them once the window opens: the change simulated again at 20:00
    assert window["when_open"]["at"] == "2024-03-16T20:00:00Z"
    opened = {i["node"]: i for i in window["when_open"]["nodeclaims"]}
    assert sorted(opened) == sorted(window["held_back"])
    assert {i["blocked"] for i in opened.values()} == {None}
    actions = {node: i["disruption"]["action"] for node, i in opened.items()}
    assert sorted(actions.values()) == ["delete", "replace"]
    (replaced,) = [i for i in opened.values() if i["disruption"]["action"] == "replace"]
    (new,) = replaced["disruption"]["replacements"]
    assert markdown.count("budgets let drift start at 2024-03-16T20:00:00Z: then ") == 2
    assert f"then \\#{replaced['disruption']['command']} replace by {new['instance_type']} " in markdown
    # at 21:00 the window is open, and the simulation, asked at 21:00 too, takes them
    _, later, _ = check_json(cli, "multi-nodepool", "--apply", CHECK / "nodepool-night-budget.yaml",
                             "--at", "2024-03-16T21:00Z")
    assert later["budgets"]["windows"][0]["drift_can_start"] == "2024-03-16T21:00:00Z"
    assert later["budgets"]["windows"][0]["allowed_now"] == 1
    assert [i["blocked"] for i in later["whatif"]["drift"]["nodeclaims"]] == [None, None]
    assert sorted(i["disruption"]["action"] for i in later["whatif"]["drift"]["nodeclaims"]) == ["delete", "replace"]
    assert later["summary"]["launches"] == 1 and later["cost"]["change_per_hour"] == pytest.approx(-0.11, abs=1e-4)
    # a 10% budget of two nodes allows one now: the other is held back
    _, plain, _ = check_json(cli, "multi-nodepool", "--apply", ON_DEMAND)
    (window,) = plain["budgets"]["windows"]
    assert window["allowed_now"] == 1 and len(window["held_back"]) == 1
    assert window["drift_can_start"] == plain["budgets"]["at"]


def test_an_ec2nodeclass_change_drifts_its_nodepools_nodeclaims(cli, write):
    code, doc, _ = check_json(cli, "multi-nodepool", "--apply", CHECK / "nodeclass-bottlerocket.yaml")
    assert code == 0
    (item,) = doc["whatif"]["drift"]["nodeclaims"]
    assert item["node"] == TEAM1 and item["nodepool"] == "team1"
    assert [r["reason"] for r in item["reasons"]] == ["NodeClassDrift"]
    assert "spec.amiFamily" in item["reasons"][0]["detail"]
    assert doc["budgets"]["windows"][0]["nodepool"] == "team1"
    # the same change as a what-if patch: the same drift
    whatif = write("ami.yaml", {"apiVersion": "karptui/v1", "kind": "WhatIf", "name": "ami", "edits": [
        {"target": "EC2NodeClass/team1", "patchType": "merge", "patch": {"spec": {"amiFamily": "Bottlerocket"}}}]})
    _, sim, _ = cli("simulate", "multi-nodepool", "--whatif", whatif, "-o", "json")
    assert json.loads(sim)["whatif"]["drift"] == doc["whatif"]["drift"]


def test_a_lowered_limit_leaves_the_pods_it_launched_for_pending(cli, write):
    """The snapshot's two pending inflate pods get a team1 NodeClaim; with both NodePools' cpu
    limit lowered to 1 (what they already use is more), Karpenter launches nothing for them."""
    pools = [{"apiVersion": "karpenter.sh/v1beta1", "kind": "NodePool", "metadata": {"name": name},
              "spec": {"limits": {"cpu": "1"}}} for name in ("default", "team1")]
    manifest = write("limits.yaml", "\n---\n".join(json.dumps(d) for d in pools))
    code, doc, _ = check_json(cli, "multi-nodepool", "--apply", manifest, "--fail-on", "pending>1,launches>0")
    assert doc["summary"] == {**doc["summary"], "drift": 0, "pending": 2, "launches": 0}
    assert {p["pod"].rsplit("-", 1)[0] for p in doc["pending"]} == {"default/inflate-5rnk66wq9"}
    assert all(p["before"].startswith("team1-") and not p["new"] for p in doc["pending"])
    assert all("exceed limits for nodepool (NodePool=team1)" in p["reason"] for p in doc["pending"])
    assert doc["cost"]["change_per_hour"] < 0  # the NodeClaim the baseline launched is not launched
    assert doc["crossed"] == ["pending>1"] and code == 3


def test_a_new_deployment_is_created_and_launched_for(cli, write):
    manifest = write("web.yaml", json.dumps(deployment(cpu="3", replicas=3)))
    code, doc, _ = check_json(cli, "multi-nodepool", "--apply", manifest, "--fail-on", "pending>0,launches>0")
    assert "Deployment/default/web created" in doc["whatif"]["notes"]
    assert doc["summary"]["pending"] == 0 and doc["summary"]["launches"] == len(doc["launches"]["provisioning"]) >= 1
    assert doc["crossed"] == ["launches>0"] and code == 3
    assert doc["cost"]["change_per_hour"] > 0
    # one that no node can take: its new pods are the pending ones
    nowhere = write("nowhere.yaml", json.dumps(deployment(cpu="3", replicas=3, selector={"zone": "nope"})))
    _, doc, _ = check_json(cli, "multi-nodepool", "--apply", nowhere)
    assert doc["summary"]["pending"] == 3 and all(p["new"] and not p["before"] for p in doc["pending"])


@pytest.mark.parametrize("threshold, crossed", [
    ("drift>1", True), ("drift>2", False), ("drift>=2", True),
    ("pending>0", False), ("pending>=0", True),
    ("launches>0", True), ("launches>1", False),
    ("cost>+5%", False), ("cost>-20%", True), ("cost>-25%", True), ("cost>-19%", False),
    ("cost>+10/h", False), ("cost>-0.2/h", True), ("cost>-$0.1/h", False),
    ("cost>+500/mo", False), ("cost>-100/mo", True), ("cost > -$80/mo", False),
])
def test_each_fail_on_form_sets_the_exit_status(cli, threshold, crossed):
    """The on-demand change: 2 drift, 0 pending, 1 launch, -$0.110/h (-$80.30/mo, -19.8%)."""
    code, out, err = cli("check", "multi-nodepool", "--apply", ON_DEMAND, "--fail-on", threshold, "-o", "json")
    doc = json.loads(out)
    assert doc["thresholds"][0]["crossed"] is crossed
    assert code == doc["exit_status"] == (3 if crossed else 0)
    assert (f"threshold crossed: {threshold.strip()}" in err) is crossed


def test_thresholds_given_twice_and_in_one_list_all_count(cli):
    code, doc, _ = check_json(cli, "multi-nodepool", "--apply", ON_DEMAND, "--fail-on", "drift>0, pending>0",
                              "--fail-on", "cost>+1/h")
    assert [t["threshold"] for t in doc["thresholds"]] == ["drift>0", "pending>0", "cost>+1/h"]
    assert doc["crossed"] == ["drift>0"] and code == 3


def test_the_markdown_matches_the_reviewed_golden_file(cli):
    code, out, _ = cli("check", "multi-nodepool", "--apply", ON_DEMAND, "--fail-on", "drift>1,pending>0",
                       "-o", "markdown")
    assert code == 3
    assert out == (CHECK / "nodepool-on-demand.md").read_text()
    assert "\x1b" not in out


def test_the_table_says_what_the_json_says(cli, monkeypatch):
    monkeypatch.setenv("COLUMNS", "250")  # no cell folded
    code, out, _ = cli("check", "multi-nodepool", "--apply", ON_DEMAND, "--fail-on", "drift>1")
    assert code == 3
    assert "2 NodeClaims would drift, 0 pods would become pending, 1 NodeClaim launched" in out
    assert "threshold crossed: drift>1" in out
    assert "default-ghl6z" in out and "2024-03-16T06:48:13Z" in out


HOSTILE = "evil|*_`<b>@team[x](y)$1$"


def test_hostile_names_are_text_in_markdown(cli, write):
    manifest = write("evil.yaml", json.dumps(deployment(name=HOSTILE, selector={"zone|*_`<i>\x1b]52;c;": "nope"})))
    code, out, _ = cli("check", "multi-nodepool", "--apply", manifest, "-o", "markdown", "--fail-on", "pending>0")
    assert code == 3
    assert HOSTILE not in out and "<b>" not in out and "<i>" not in out and "\x1b" not in out
    assert md(HOSTILE) in out
    escaped = md(HOSTILE)
    assert escaped == "evil\\|\\*\\_\\`&lt;b&gt;&#64;team\\[x\\](y)\\$1\\$"
    pending_rows = [line for line in out.splitlines() if line.startswith("| default/evil")]
    assert len(pending_rows) == 2
    for row in pending_rows:  # every | in the row is ours or escaped: three cells
        cells = row.replace("\\|", "").strip("|").split("|")
        assert len(cells) == 3
    assert "\\\\x1b\\]52;c;" in out  # the escape character shown as \x1b (its backslash escaped), never sent


def test_md_escapes_what_markdown_reads():
    assert md("a|b") == "a\\|b" and md("*x*") == "\\*x\\*" and md("_x_") == "\\_x\\_"
    assert md("`code`") == "\\`code\\`" and md("<script>") == "&lt;script&gt;"
    assert md("[l](http://x)") == "\\[l\\](http://x)" and md("@org/team") == "&#64;org/team"
    assert md("two\nlines") == "two\\\\x0alines"  # visible's \x0a, its backslash escaped: one line


@pytest.mark.parametrize("content, says", [
    ("kind: [unclosed", "invalid YAML"),
    ("- a\n- b\n", "document 1: expected an object"),
    ("metadata: {name: x}\n", "object 1: apiVersion and kind missing"),
    ("apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata: {}\n", "NodePool has no metadata.name"),
    ("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\n", "no object karptui models"),
    ("apiVersion: karpenter.sh/v1beta1\nkind: NodePool\nmetadata: {name: default}\nspec: {template: {spec: "
     "{requirements: [{key: karpenter.k8s.aws/instance-cpu, operator: Gt, values: [four]}]}}}\n", "edit 1"),
    ("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: x, namespace: default}\nspec: {replicas: 1000000000}\n",
     "edit 1"),
    ("apiVersion: v1\nkind: List\nitems: 3\n", "items must be a list"),
])
def test_bad_manifests_are_one_line_and_exit_2(cli, write, content, says):
    path = write("bad.yaml", content)
    code, out, err = cli("check", "multi-nodepool", "--apply", path)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and says in err and "Traceback" not in err
    assert "bad.yaml" in err


@pytest.mark.parametrize("threshold, says", [
    ("drift", "is not METRIC>VALUE"), ("drift>x", "whole number"), ("bogus>1", "unknown measure"),
    ("cost>5", "with its unit"), ("cost>+5%%", "with its unit"), ("pending<1", "is not METRIC>VALUE"),
    ("launches>-1", "whole number"),
])
def test_bad_thresholds_are_one_line_and_exit_2(cli, threshold, says):
    code, out, err = cli("check", "multi-nodepool", "--apply", ON_DEMAND, "--fail-on", threshold)
    assert code == 2 and out == ""
    assert err.startswith("karptui: --fail-on: ") and says in err and len(err.strip().splitlines()) == 1


def test_the_change_is_one_of_whatif_or_apply(cli, write):
    for args in ((), ("--whatif", CHECK / "nodepool-on-demand.whatif.yaml", "--apply", ON_DEMAND)):
        code, out, err = cli("check", "multi-nodepool", *args)
        assert code == 2 and "--whatif FILE or --apply MANIFEST" in err and len(err.strip().splitlines()) == 1


def test_parse_thresholds_reads_units_and_signs():
    drift, cost, month = parse_thresholds(["drift>10", "cost>=-$1.5/h,cost>+.5/mo"])
    assert (drift.metric, drift.op, drift.limit) == ("drift", ">", 10)
    assert (cost.op, cost.limit, cost.unit) == (">=", -1.5, "/h")
    assert (month.limit, month.unit) == (0.5, "/mo")


# ---------------------------------------------------------------- kubectl apply's merge


def test_with_a_last_applied_configuration_fields_left_out_are_deleted(multi, write):
    """kubectl apply deletes what its last apply set and the manifest leaves out: a taint list
    applied before and dropped now goes (a JSON merge patch: NodePools are custom resources)."""
    pool = next(p for p in multi.nodepools if p.name == "team1")
    last = {"apiVersion": "karpenter.sh/v1beta1", "kind": "NodePool", "metadata": {"name": "team1"},
            "spec": {"template": {"spec": {"taints": [{"key": "a", "effect": "NoSchedule"}]}},
                     "weight": 5}}
    raw = json.loads(json.dumps(pool.raw))
    raw["metadata"]["annotations"][LAST_APPLIED] = json.dumps(last)
    raw["spec"]["template"]["spec"]["taints"] = [{"key": "a", "effect": "NoSchedule"}]
    raw["spec"]["weight"] = 5
    snapshot = replace(multi, nodepools=tuple(replace(p, raw=raw) if p is pool else p for p in multi.nodepools))
    manifest = write("team1.yaml", json.dumps({"apiVersion": "karpenter.sh/v1beta1", "kind": "NodePool",
                                               "metadata": {"name": "team1"},
                                               "spec": {"template": {"spec": {"nodeClassRef": {"name": "team1"}}}}}))
    whatif, notes = whatif_from_manifests(snapshot, [manifest])
    (edit,) = whatif.edits
    assert edit.patch_type == "merge" and notes == []
    assert edit.patch["spec"]["weight"] is None and edit.patch["spec"]["template"]["spec"]["taints"] is None
    after = next(p for p in apply_whatif(snapshot, whatif).snapshot.nodepools if p.name == "team1")
    assert "taints" not in after.raw["spec"]["template"]["spec"] and "weight" not in after.raw["spec"]
    assert after.raw["spec"]["limits"] == pool.raw["spec"]["limits"]  # never applied: kept


def test_without_one_nothing_is_deleted_and_a_note_says_so(multi, write):
    manifest = write("team1.yaml", json.dumps({"apiVersion": "karpenter.sh/v1beta1", "kind": "NodePool",
                                               "metadata": {"name": "team1"}, "spec": {"weight": 3}}))
    whatif, notes = whatif_from_manifests(multi, [manifest])
    after = next(p for p in apply_whatif(multi, whatif).snapshot.nodepools if p.name == "team1")
    pool = next(p for p in multi.nodepools if p.name == "team1")
    assert after.raw["spec"]["weight"] == 3 and after.raw["spec"]["template"] == pool.raw["spec"]["template"]
    assert len(notes) == 1 and "keeps no last-applied configuration" in notes[0]


def test_built_in_kinds_get_a_strategic_patch_that_deletes_by_merge_key(multi, write):
    """A container dropped since the last apply is deleted by name; one never applied stays."""
    seed = deployment(name="two")
    seed["spec"]["template"]["spec"]["containers"].append({"name": "side", "image": "y"})
    created = apply_whatif(multi, whatif_from_manifests(multi, [write("a.yaml", json.dumps(seed))])[0]).snapshot
    both = write("b.yaml", "\n---\n".join([json.dumps(seed), json.dumps(deployment(name="two"))]))
    whatif, _ = whatif_from_manifests(multi, [both])
    create, patch = whatif.edits
    assert create.describe() == "create Deployment/default/two" and patch.patch_type == "strategic"
    assert {"$patch": "delete", "name": "side"} in patch.patch["spec"]["template"]["spec"]["containers"]
    after = apply_whatif(multi, whatif).snapshot
    web = next(w for w in after.workloads if w.name == "two")
    assert [c["name"] for c in web.raw["spec"]["template"]["spec"]["containers"]] == ["c"]
    assert len([p for p in created.pods if p.name.startswith("two-")]) == 2


def test_a_namespaced_object_without_a_namespace_goes_to_default(multi, write):
    plain = deployment(name="nons")
    del plain["metadata"]["namespace"]
    whatif, notes = whatif_from_manifests(multi, [write("n.yaml", json.dumps(plain))])
    assert str(whatif.edits[0].target) == "Deployment/default/nons"
    assert any("applied to default" in n for n in notes)


def test_the_table_reads_no_markup_from_the_cluster(cli, write, monkeypatch):
    monkeypatch.setenv("COLUMNS", "300")
    manifest = write("m.yaml", json.dumps(deployment(name="x[bold red]boom[/bold red]",
                                                     selector={"[link=http://e]z[/link]": "nope"})))
    code, out, _ = cli("check", "multi-nodepool", "--apply", manifest)
    assert code == 0
    assert "default/x[bold red]boom[/bold red]-whatif-1" in out and '"[link=http://e]z[/link]"' in out


def test_a_whatif_file_may_create_an_object_once(cli, write, multi):
    pdb = {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "p", "namespace": "default"},
           "spec": {"maxUnavailable": 0, "selector": {"matchLabels": {"app": "inflate"}}}}
    whatif = {"apiVersion": "karptui/v1", "kind": "WhatIf", "name": "pdb", "edits": [{"create": pdb}]}
    code, doc, _ = check_json(cli, "multi-nodepool", "--whatif", write("pdb.yaml", json.dumps(whatif)))
    assert code == 0 and doc["change"]["edits"] == ["create PodDisruptionBudget/default/p"]
    assert "PodDisruptionBudget/default/p created" in doc["whatif"]["notes"]
    twice = {**whatif, "edits": [{"create": pdb}, {"create": pdb}]}
    code, _, err = cli("check", "multi-nodepool", "--whatif", write("twice.yaml", json.dumps(twice)))
    assert code == 2 and "edit 2: PodDisruptionBudget/default/p already exists in the snapshot" in err
    bad = {**whatif, "edits": [{"target": "PodDisruptionBudget/default/p", "create": pdb}]}
    code, _, err = cli("check", "multi-nodepool", "--whatif", write("bad.yaml", json.dumps(bad)))
    assert code == 2 and "edit 1: create takes no target" in err
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n"}}
    code, _, err = cli("check", "multi-nodepool", "--whatif",
                       write("node.yaml", json.dumps({**whatif, "edits": [{"create": node}]})))
    assert code == 2 and "cannot create a Node" in err and len(err.strip().splitlines()) == 1


def test_with_consolidate_the_drift_commands_are_in_the_cost_path(cli):
    _, plain, _ = check_json(cli, "multi-nodepool", "--apply", ON_DEMAND)
    _, full, _ = check_json(cli, "multi-nodepool", "--apply", ON_DEMAND, "--consolidate")
    assert full["consolidated"] and full["cost"]["drift_change"] is None
    assert full["cost"]["after"]["hourly"] == pytest.approx(full["cost"]["before"]["hourly"] - 0.11, abs=1e-4)
    assert full["summary"] == plain["summary"]


def test_a_directory_is_its_manifests_in_name_order(cli, write, tmp_path):
    write("pr/b-nodeclass.yaml", (ROOT / CHECK / "nodeclass-bottlerocket.yaml").read_text())
    write("pr/a-nodepool.yml", ON_DEMAND.read_text())
    write("pr/README.md", "not a manifest")
    code, doc, _ = check_json(cli, "multi-nodepool", "--apply", tmp_path / "pr")
    assert code == 0 and [Path(p).name for p in doc["change"]["apply"]] == ["pr"]
    assert doc["change"]["edits"] == ["merge patch of NodePool/default", "merge patch of EC2NodeClass/team1"]
    assert {i["node"] for i in doc["whatif"]["drift"]["nodeclaims"]} == {SPOT_A, SPOT_B, TEAM1}
    write("empty/x.txt", "")
    code, _, err = cli("check", "multi-nodepool", "--apply", tmp_path / "empty")
    assert code == 2 and "a directory with no .yaml, .yml or .json files" in err


def test_the_mcp_whatif_tool_answers_the_same_drift(cli):
    """The same question of ``karptui mcp``'s what-if answer, ``simulate`` and ``check``: one answer."""
    from karptui.mcp.answers import Answers
    from karptui.sim.karpenter.featuregates import parse_feature_gates

    answers = Answers(lambda: load_snapshot(bundled_snapshot("multi-nodepool")), gates=parse_feature_gates(None))
    tool = answers.whatif((CHECK / "nodepool-on-demand.whatif.yaml").read_text())
    _, doc, _ = check_json(cli, "multi-nodepool", "--apply", ON_DEMAND)
    assert tool["whatif"]["drift"] == doc["whatif"]["drift"]
    assert tool["whatif"]["diff"]["hourly_cost"] == doc["whatif"]["diff"]["hourly_cost"]


# ---------------------------------------------------------------- the live cluster


KARPENTER_V1BETA1 = (("karpenter.sh", "v1beta1", "nodepools", "NodePool"),
                     ("karpenter.sh", "v1beta1", "nodeclaims", "NodeClaim"),
                     ("karpenter.k8s.aws", "v1beta1", "ec2nodeclasses", "EC2NodeClass"))


@pytest.fixture
def api():
    """The bundled multi-nodepool snapshot's objects served by the stand-in API server
    (tests/fakeapi.py), Karpenter's v1beta1 API as that cluster ran it."""
    from tests.fakeapi import FakeAPI

    with FakeAPI(karpenter=False) as fake:
        for spec in KARPENTER_V1BETA1:
            fake.add_resource(*spec)
        for obj in yaml.safe_load((ROOT / "snapshots" / "multi-nodepool.yaml").read_text())["items"]:
            fake.add(obj)
        yield fake


def test_without_a_snapshot_the_live_cluster_is_reviewed_as_its_snapshot_is(cli, api, kubeconfig):
    """``check --kubeconfig K --apply ...`` lists the cluster once, read-only, and reviews the change
    exactly as on the snapshot of the same objects: the same JSON, the same pull-request comment."""
    at = ("--at", "2024-03-16T06:48:13Z")  # live, the capture time is now: the same moment asked of both
    code, live, err = check_json(cli, "--kubeconfig", kubeconfig, "--apply", ON_DEMAND, *at, "--fail-on", "drift>1")
    assert code == 3, err
    _, saved, _ = check_json(cli, "multi-nodepool", "--apply", ON_DEMAND, *at, "--fail-on", "drift>1")
    assert live == saved
    assert live["summary"]["drift"] == 2 and live["budgets"]["windows"][0]["allowed_now"] == 1
    requests = list(api.requests)
    assert requests and {method for method, _, _ in requests} == {"GET"}
    assert not [path for _, path, _ in requests if path.endswith("/log")]  # the review reads no Karpenter log
    code, markdown, _ = cli("check", "--kubeconfig", kubeconfig, "--apply", ON_DEMAND, *at, "-o", "markdown")
    assert code == 0 and markdown == cli("check", "multi-nodepool", "--apply", ON_DEMAND, *at, "-o", "markdown")[1]


def test_live_a_bad_change_is_one_line_before_the_cluster_is_listed(cli, api, kubeconfig, write):
    for flag, content, says in (
            ("--apply", "kind: [", "bad.yaml: "),
            ("--whatif", "edits: [{target: NodePool/default, scael: 1}]", "edit 1: unknown key 'scael'")):
        code, out, err = cli("check", "--kubeconfig", kubeconfig, flag, write("bad.yaml", content))
        assert code == 2 and out == "" and says in err and len(err.splitlines()) == 1, err
    assert api.requests == []
    code, _, err = cli("check", "--kubeconfig", kubeconfig, "--context", "nope", "--apply", ON_DEMAND)
    assert code == 2 and "nope" in err and len(err.splitlines()) == 1, err


def test_manifests_past_the_edit_cap_are_one_line_and_exit_2(cli, write, monkeypatch):
    """Each object changed is a what-if edit, applied to the whole cluster in turn: past the cap
    of a what-if's edits (limits.MAX_WHATIF_EDITS, here lowered to 3) the check stops at once,
    naming the manifest and the object, as a what-if file past it is refused."""
    from karptui import limits

    monkeypatch.setattr(limits, "MAX_WHATIF_EDITS", 3)
    manifest = write("many.yaml", "\n---\n".join(json.dumps(deployment(name=f"web-{i}")) for i in range(4)))
    code, out, err = cli("check", "multi-nodepool", "--apply", manifest)
    assert code == 2 and out == "" and len(err.splitlines()) == 1
    assert err.strip().endswith("many.yaml: object 4: 4 edits, more than karptui's cap of 3 for one what-if "
                                "(each is applied to the whole cluster in turn)")
    whatif = write("many-edits.yaml", {"edits": [{"target": "Deployment/default/inflate", "scale": 1}] * 4})
    code, _, err = cli("check", "multi-nodepool", "--whatif", whatif)
    assert code == 2 and err.strip().endswith("many-edits.yaml: 4 edits, more than karptui's cap of 3 for one "
                                              "what-if (each is applied to the whole cluster in turn)")
