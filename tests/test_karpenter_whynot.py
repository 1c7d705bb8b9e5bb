"""Why not consolidated, per node: every disruption method's verdict and its reason, on the
consolidation seed (the inflate workshop) changed by what-if edits, or by hand where no edit
reaches (a NodeClaim's Drifted condition, a pod's annotation)."""

from dataclasses import replace

import pytest

from karptui.sim import simulate
from karptui.sim.karpenter.versions import V1_14
from karptui.whatif import apply_whatif, parse_whatif

XLARGE = "ip-192-168-118-56.ap-northeast-2.compute.internal"      # c5a.xlarge, on-demand, 3 inflate pods
TWO_XLARGE = "ip-192-168-40-236.ap-northeast-2.compute.internal"  # c5a.2xlarge, on-demand, the do-not-disrupt pod
DO_NOT_DISRUPT_POD = "default/report-generator-q7smww69c-qqgq9"
NO_DO_NOT_DISRUPT = {"target": "Deployment/default/report-generator", "remove": True}
NO_PDB = {"target": "PodDisruptionBudget/default/inflate-pdb", "remove": True}
METHODS = ("emptiness", "drift", "multi", "single")
AS_SPOT = [{"target": f"Node/{name}", "patchType": "merge",
            "patch": {"metadata": {"labels": {"karpenter.sh/capacity-type": "spot"}}}} for name in (XLARGE, TWO_XLARGE)]
ALLOW_SPOT = {"target": "NodePool/default", "patchType": "merge", "patch": {"spec": {"template": {"spec": {
    "requirements": [{"key": "kubernetes.io/arch", "operator": "In", "values": ["amd64"]},
                     {"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["on-demand", "spot"]},
                     {"key": "karpenter.k8s.aws/instance-size", "operator": "NotIn",
                      "values": ["nano", "micro", "small", "medium", "large"]}]}}}}}


def pool(spec: dict) -> dict:
    return {"target": "NodePool/default", "patchType": "merge", "patch": {"spec": spec}}


def only_types(*types: str, capacity: str = "on-demand") -> dict:
    return pool({"template": {"spec": {"requirements": [
        {"key": "node.kubernetes.io/instance-type", "operator": "In", "values": list(types)},
        {"key": "karpenter.sh/capacity-type", "operator": "In", "values": [capacity]}]}}})




def edited(seed, *edits):
    snapshot, _ = seed
    return apply_whatif(snapshot, parse_whatif({"edits": list(edits)}, "test", "test")).snapshot if edits else snapshot


def verdicts(seed, *edits, snapshot=None, spot_to_spot=False) -> dict[str, dict[str, tuple[str, str, dict]]]:
    """node -> method -> (verdict, reason, details), as docs/simulate-json.md gives them."""
    result = simulate(snapshot or edited(seed, *edits), catalog=seed[1], consolidate=True, spot_to_spot=spot_to_spot)
    return {node: {e["method"]: (e["verdict"], e["reason"], e["details"]) for e in v.to_dict()}
            for node, v in result.verdicts.items()}


def test_the_do_not_disrupt_pod_blocks_every_method_and_is_named(seed):
    two = verdicts(seed)[TWO_XLARGE]
    assert set(two) == set(METHODS)
    for verdict, reason, details in two.values():
        assert verdict == "blocked"
        assert reason == (f'pod has "karpenter.sh/do-not-disrupt" annotation (Pod={DO_NOT_DISRUPT_POD}): '
                          'set to "true": it holds the node until the annotation goes')
        assert details["pod"] == DO_NOT_DISRUPT_POD


def test_a_do_not_disrupt_duration_says_how_long_it_still_holds_the_node(seed):
    # durations are Karpenter's from v1.12.0 (before, only "true" holds a pod: tests/karpenter_spec/drift);
    # the seed's controller is v1.0.1, simulated by v1.9's rules
    snapshot = replace(seed[0], karpenter_version=V1_14, karpenter_version_set_by="test")
    pods = tuple(replace(p, annotations={**p.annotations, "karpenter.sh/do-not-disrupt": "48h"})
                 if p.key == DO_NOT_DISRUPT_POD else p for p in snapshot.pods)
    pod = next(p for p in pods if p.key == DO_NOT_DISRUPT_POD)
    now = replace(snapshot, pods=pods).as_of  # the seed has no capture time: its newest timestamp (02:20:07)
    left = 48 * 3600 - (now - (pod.started or pod.created)).total_seconds()
    verdict, reason, details = verdicts(seed, snapshot=replace(snapshot, pods=pods))[TWO_XLARGE]["single"]
    assert verdict == "blocked" and details["duration_seconds"] == 48 * 3600
    assert details["remaining_seconds"] == pytest.approx(left)
    hours, rest = divmod(int(round(left)), 3600)
    assert reason.endswith(f'set to "48h", a duration: it holds the node {hours}h{rest // 60}m{rest % 60}s more '
                           "(until the pod has run that long)")


def test_the_nodes_own_do_not_disrupt_annotation_blocks_it(seed):
    mark = {"target": f"Node/{XLARGE}", "patchType": "merge",
            "patch": {"metadata": {"annotations": {"karpenter.sh/do-not-disrupt": "true"}}}}
    verdict, reason, _ = verdicts(seed, mark)[XLARGE]["emptiness"]
    assert (verdict, reason) == ("blocked", 'disruption is blocked through the "karpenter.sh/do-not-disrupt" '
                                            'annotation: the node itself carries karpenter.sh/do-not-disrupt: "true"')


def test_a_pdb_that_allows_nothing_names_itself_and_the_pods_it_guards_on_the_node(seed):
    strict = {"target": "PodDisruptionBudget/default/inflate-pdb", "patchType": "merge",
              "patch": {"spec": {"minAvailable": 6}}}
    verdict, reason, details = verdicts(seed, NO_DO_NOT_DISRUPT, strict)[XLARGE]["single"]
    guarded = [f"default/inflate-wjq4g8lgtc-{p}" for p in ("n7hj5", "n92md", "smtdw")]
    assert verdict == "blocked"
    assert reason == ("pdb prevents pod evictions (PodDisruptionBudget=default/inflate-pdb): it allows 0 "
                      f"disruptions now and guards pods {', '.join(guarded)} on this node")
    assert details == {"pdb": "default/inflate-pdb", "pods": guarded, "disruptions_allowed": 0}


def test_a_pod_two_pdbs_guard_cannot_be_evicted(seed):
    snapshot = seed[0]
    pdb = next(p for p in snapshot.pdbs if p.key == "default/inflate-pdb")
    twice = replace(snapshot, pdbs=snapshot.pdbs + (replace(pdb, name="inflate-pdb-too"),))
    verdict, reason, details = verdicts(seed, snapshot=twice)[XLARGE]["drift"]
    assert verdict == "blocked"
    assert reason.startswith("eviction does not support multiple PDBs (PodDisruptionBudget(s)=")
    assert sorted(details["pdbs"]) == ["default/inflate-pdb", "default/inflate-pdb-too"]
    assert "is guarded by 2 PDBs, and the eviction API refuses such a pod" in reason


def test_the_deleted_node_says_so_with_its_saving_and_the_pdb_its_evictions_wait_for(seed):
    xlarge = verdicts(seed)[XLARGE]
    assert xlarge["emptiness"][:2] == ("skipped", "not empty: 4 pod(s) would have to move")
    assert xlarge["drift"][:2] == ("skipped", "not drifted: its NodeClaim has no Drifted condition that is True")
    assert xlarge["multi"][:2] == ("kept", "the only candidate (within the budgets): it needs two or more")
    verdict, reason, details = xlarge["single"]
    assert verdict == "delete"
    assert reason == ("would be deleted (its 4 pod(s) fit on other nodes), saving $0.1540/h; PDB default/inflate-pdb "
                      "guards 3 of its pods and allows 1 disruption now (evictions wait for it)")
    assert details["command"] == 1 and details["moves"]["default/checkpoint-worker"]


def test_a_replaced_node_names_its_replacement_and_the_saving(seed):
    v = verdicts(seed, NO_DO_NOT_DISRUPT, NO_PDB, {"target": "Deployment/default/inflate", "scale": 3})
    assert v[TWO_XLARGE]["single"][0] == "delete" and v[TWO_XLARGE]["single"][2]["command"] == 1
    verdict, reason, details = v[XLARGE]["single"]
    replacement = details["replacement"]
    assert verdict == "replace" and details["command"] == 2
    assert reason == (f"would be replaced by {replacement['instance_type']} on-demand in {replacement['zone']} at "
                      f"${replacement['price']:.4f}/h, saving ${details['savings_per_hour']:.4f}/h")


def test_replacement_not_cheaper_gives_both_prices(seed):
    v = verdicts(seed, NO_PDB, only_types("c5a.xlarge", "c5a.2xlarge"),
                 {"target": "Deployment/default/inflate", "scale": 8})
    verdict, reason, details = v[XLARGE]["single"]
    assert verdict == "kept"
    assert reason == (f"Can't replace with a cheaper node: it costs ${details['price_per_hour']:.4f}/h; the cheapest "
                      f"replacement, c5a.xlarge, ${details['cheapest_replacement_per_hour']:.4f}/h")
    assert details["cheapest_replacement_per_hour"] >= details["price_per_hour"]


def test_a_drifted_node_is_replaced_by_drift_and_consolidation_never_sees_it(seed):
    snapshot = seed[0]
    claims = tuple(replace(c, conditions={**c.conditions, "Drifted": "True"})
                   if c.name == snapshot.nodeclaim_by_node[XLARGE].name else c for c in snapshot.nodeclaims)
    xlarge = verdicts(seed, snapshot=replace(snapshot, nodeclaims=claims))[XLARGE]
    verdict, reason, details = xlarge["drift"]
    assert verdict in ("delete", "replace") and details["command"] == 1
    assert reason.startswith("would be")
    for later in ("multi", "single"):
        assert xlarge[later][:2] == ("not-reached", "drift takes the node first (command #1)")


def test_a_spent_budget_names_the_nodepool_the_reason_and_its_schedule(seed):
    # active from midnight to 08:00 UTC: the seed's clock (its newest pod) reads 02:12 on a Tuesday
    budget = pool({"disruption": {"budgets": [{"nodes": "0", "schedule": "0 0 * * mon-fri", "duration": "8h",
                                                "reasons": ["Underutilized"]}]}})
    verdict, reason, details = verdicts(seed, NO_DO_NOT_DISRUPT, budget)[XLARGE]["single"]
    assert verdict == "blocked"
    assert reason == ("No allowed disruptions for disruption reason Underutilized due to blocking budget: NodePool "
                      '"default" allows no more Underutilized disruptions now (its budgets: nodes "0" on schedule '
                      '"0 0 * * mon-fri" for 8h0m0s, for Underutilized)')
    assert (details["nodepool"], details["reason"], details["allowed"]) == ("default", "Underutilized", 0)
    assert details["budgets"] == [{"nodes": "0", "schedule": "0 0 * * mon-fri", "duration_seconds": 28800.0,
                                   "reasons": ["Underutilized"]}]


def test_a_budget_outside_its_schedule_blocks_nothing(seed):
    budget = pool({"disruption": {"budgets": [{"nodes": "0", "schedule": "0 9 * * mon-fri", "duration": "8h",
                                                "reasons": ["Underutilized"]}]}})  # 09:00-17:00: not at 02:12
    verdict, reason, _ = verdicts(seed, NO_DO_NOT_DISRUPT, budget)[XLARGE]["single"]
    assert "blocking budget" not in reason and verdict != "blocked"


def test_consolidate_after_not_elapsed_says_how_long_to_go(seed):
    verdict, reason, details = verdicts(seed, pool({"disruption": {"consolidateAfter": "24h"}}))[XLARGE]["single"]
    assert verdict == "waiting"
    settled = details["settled_seconds"]
    assert reason.startswith(f"not consolidatable yet: consolidateAfter is 86400s and the node's pods last changed "
                             f"{settled:g}s before the snapshot: ")
    assert details["remaining_seconds"] == pytest.approx(86400 - settled) and reason.endswith(" to go")


def test_when_empty_leaves_a_node_with_pods_and_never_disables_all(seed):
    xlarge = verdicts(seed, pool({"disruption": {"consolidationPolicy": "WhenEmpty"}}))[XLARGE]
    assert xlarge["single"] == ("skipped", 'NodePool "default" has non-empty consolidation disabled: '
                                "consolidationPolicy is WhenEmpty and the node holds 4 pod(s)",
                                {"consolidation_policy": "WhenEmpty"})
    assert xlarge["emptiness"][:2] == ("skipped", "not empty: 4 pod(s) would have to move")
    never = verdicts(seed, pool({"disruption": {"consolidateAfter": "Never"}}))[XLARGE]
    assert never["single"][:2] == never["emptiness"][:2] == (
        "skipped", 'NodePool "default" has consolidation disabled: consolidateAfter is Never')


def test_spot_to_spot_needs_the_feature_gate_then_15_cheaper_types(seed):
    spot = AS_SPOT
    edits = (NO_DO_NOT_DISRUPT, NO_PDB, ALLOW_SPOT, *spot)
    off = verdicts(seed, *edits)
    assert ("kept", "SpotToSpotConsolidation is disabled, can't replace a spot node with a spot node: a spot node is "
            "only deleted, never replaced, unless the feature gate is on") in [m[:2] for m in (
                off[XLARGE]["single"], off[TWO_XLARGE]["single"])]
    on = verdicts(seed, *edits, spot_to_spot=True)
    few = [m for node in (XLARGE, TWO_XLARGE) for m in [on[node]["single"]] if m[0] == "kept"]
    assert few, on
    verdict, reason, details = few[0]
    assert reason.startswith("SpotToSpotConsolidation requires 15 cheaper instance type options than the current "
                             f"candidate to consolidate, got {details['cheaper_types']}")
    assert details["cheaper_types"] < details["needed"] == 15


def test_a_pod_with_no_place_is_named_with_kube_schedulers_words_node_by_node(seed):
    """A pod pinned to the xlarge (a nodeSelector on its hostname) has nowhere else to go: it is
    named, with kube-scheduler's FitError on the nodes left and each node's reasons."""
    snapshot = seed[0]
    pinned = {"kubernetes.io/hostname": XLARGE}
    pods = tuple(replace(p, node_selector=pinned) if p.key == "default/checkpoint-worker" else p for p in snapshot.pods)
    verdict, reason, details = verdicts(seed, snapshot=replace(snapshot, pods=pods))[XLARGE]["single"]
    assert verdict == "kept" and reason.startswith("not all pods would schedule, default/checkpoint-worker => ")
    assert details["pod"] == "default/checkpoint-worker"
    assert details["kube_scheduler"] == "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector."
    assert "pod default/checkpoint-worker would find no place: kube-scheduler: 0/3 nodes are available" in reason
    assert set(details["nodes"]) == {n.name for n in snapshot.nodes} - {XLARGE}
    assert all(r == ["node(s) didn't match Pod's node affinity/selector"] for r in details["nodes"].values())


def test_a_node_left_for_want_of_room_gets_both_prices_once_consolidated_after_the_run(seed):
    """Single-node consolidation skips a candidate whose pods cannot fit on the other nodes and any
    cheaper type by arithmetic; the verdict still says what a full try finds: no cheaper node."""
    spot = AS_SPOT
    edits = (NO_DO_NOT_DISRUPT, NO_PDB, only_types("c5a.large", "c5a.xlarge", "c5a.2xlarge", capacity="spot"), *spot)
    verdict, reason, details = verdicts(seed, *edits, spot_to_spot=True)[TWO_XLARGE]["single"]
    assert verdict == "kept" and reason.startswith("Can't replace with a cheaper node: it costs $")
    assert details["cheapest_replacement_per_hour"] >= details["price_per_hour"]


def test_an_empty_node_is_deleted_by_emptiness_and_later_methods_never_see_it(seed):
    empty = {"addNodes": {"instanceType": "c5a.xlarge", "zone": "ap-northeast-2a", "count": 1,
                          "capacityType": "on-demand", "nodepool": "default"}}
    v = verdicts(seed, empty)
    (added,) = [n for n in v if n not in (XLARGE, TWO_XLARGE)]
    verdict, reason, details = v[added]["emptiness"]
    assert verdict == "delete" and details["command"] == 1
    assert reason.startswith("would be deleted (it is empty), saving $")
    assert [v[added][m][0] for m in ("drift", "multi", "single")] == ["not-reached"] * 3
    assert v[added]["single"][1] == "emptiness takes the node first (command #1)"


def test_a_node_not_initialized_yet_is_said(seed):
    snapshot = seed[0]
    nodes = tuple(replace(n, labels={k: v for k, v in n.labels.items() if k != "karpenter.sh/initialized"})
                  if n.name == XLARGE else n for n in snapshot.nodes)
    v = verdicts(seed, snapshot=replace(snapshot, nodes=nodes))
    assert v[XLARGE]["single"][:2] == ("skipped", "node isn't initialized: no karpenter.sh/initialized label yet: "
                                                  "Karpenter disrupts only initialized nodes")


def test_cli_explain_says_per_node_which_pod_blocks_and_what_karpenter_said(cli, monkeypatch):
    monkeypatch.setenv("COLUMNS", "400")  # one line per verdict
    code, out, err = cli("simulate", "consolidation", "--consolidate", "--explain")
    assert code == 0, err
    lines = [line.rstrip() for line in out.splitlines()]
    start = lines.index("why each Karpenter node stays or goes, method by method (--explain)")
    block = lines[start + 1:]
    two = block.index(f"{TWO_XLARGE} (NodePool default)")
    assert block[two + 1] == (f'  every method: blocked — pod has "karpenter.sh/do-not-disrupt" annotation '
                              f'(Pod={DO_NOT_DISRUPT_POD}): set to "true": it holds the node until the annotation goes')
    assert block[two + 2].startswith(f"  Karpenter said: blocked by pod {DO_NOT_DISRUPT_POD} "
                                     "(karpenter.sh/do-not-disrupt)")
    one = block.index(f"{XLARGE} (NodePool default, command #1)")
    assert block[one + 1:one + 5] == [
        "  emptiness: skipped — not empty: 4 pod(s) would have to move",
        "  drift: skipped — not drifted: its NodeClaim has no Drifted condition that is True",
        "  multi-node consolidation: kept — the only candidate (within the budgets): it needs two or more",
        "  single-node consolidation: delete — would be deleted (its 4 pod(s) fit on other nodes), saving $0.1540/h; "
        "PDB default/inflate-pdb guards 3 of its pods and allows 1 disruption now (evictions wait for it)"]
    assert block[one + 5].startswith(
        "  Karpenter said: blocked by PDB default/inflate-pdb (no disruption allowed), guarding pods "
        "default/inflate-wjq4g8lgtc-n7hj5, default/inflate-wjq4g8lgtc-n92md, default/inflate-wjq4g8lgtc-smtdw "
        "(event 2024-09-10 ")


def test_cli_json_nodes_carry_each_methods_verdict_and_karpenters_word(cli):
    import json

    code, out, err = cli("simulate", "consolidation", "--consolidate", "-o", "json")
    assert code == 0, err
    nodes = {n["node"]: n for n in json.loads(out)["nodes"]}
    assert set(nodes) == {XLARGE, TWO_XLARGE}  # the Karpenter nodes; the managed node group's are not
    two = nodes[TWO_XLARGE]
    assert two["command"] is None and two["nodepool"] == "default"
    assert [(d["method"], d["verdict"], d["kind"]) for d in two["disruption"]] == [
        (m, "blocked", "do-not-disrupt") for m in METHODS]
    assert two["disruption"][0]["karpenter"] == (f'pod has "karpenter.sh/do-not-disrupt" annotation '
                                                 f'(Pod={DO_NOT_DISRUPT_POD})')
    assert two["disruption"][0]["details"] == {"pod": DO_NOT_DISRUPT_POD, "annotation": "karpenter.sh/do-not-disrupt",
                                               "value": "true"}
    one = nodes[XLARGE]
    single = one["disruption"][-1]
    assert (one["command"], single["method"], single["verdict"]) == (1, "single", "delete")
    assert single["details"]["savings_per_hour"] == pytest.approx(0.154)
    assert single["details"]["pdbs"] == [{"pdb": "default/inflate-pdb", "disruptions_allowed": 1, "pods": [
        "default/inflate-wjq4g8lgtc-n7hj5", "default/inflate-wjq4g8lgtc-n92md", "default/inflate-wjq4g8lgtc-smtdw"]}]
    said = one["karpenter_said"]
    assert (said["kind"], said["pdb"]) == ("pdb", "default/inflate-pdb") and len(said["pods"]) == 3
    assert said["reason"] == "Pdb prevents pod evictions (PodDisruptionBudget=default/inflate-pdb)"
