"""The NodePool decision table of a pending pod (issue 15, item 2): every NodePool in Karpenter's order,
each with its verdict in Karpenter's words — built from small clusters, as `simulate --explain` and the
pod drill-in show it."""

import json

from karptui.model import build_snapshot
from karptui.sim import simulate
from karptui.views.nodepool_table import nodepool_lines, nodepools_json
from karptui.views.prediction import predict
from tests.simkit import node, pod
from tests.test_karpenter_provisioning import CATALOG, nodepool, req

GPU_TAINT = {"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}


def table(*objects, name="p"):
    """The pod's NodePool rows (as JSON) and the lines shown for them, with the batch's answer (as every
    surface shows them)."""
    result = simulate(build_snapshot(objects), catalog=CATALOG, explain=True)
    attempt = next(a for a in result.attempts if a.pod.name == name)
    rows = nodepools_json(attempt.nodepools, CATALOG, predict(attempt, result.nodeclaims, CATALOG))
    return rows, nodepool_lines(rows)


def verdicts(rows):
    return [(r["nodepool"], r["verdict"]) for r in rows]


def test_every_nodepool_in_karpenters_order_weight_then_name_descending():
    rows, lines = table(nodepool("alpha"), nodepool("beta"), nodepool("heavy", weight=10), pod("p", cpu="1"))
    assert verdicts(rows) == [("heavy", "launch"), ("beta", "also-fits"), ("alpha", "also-fits")]
    launch, claim = rows[0]["launch"], rows[0]["batch"]["nodeclaim"]
    # the batch (this one pod) launches from heavy: its row says so, then what the pod alone would get
    assert lines[0] == (f"1. heavy (weight 10) — chosen: would launch {launch['instance_type']} on-demand in "
                        f"{launch['zone']}, ${launch['price']:.4f}/h (NodeClaim {claim}, NodePool heavy; "
                        "1 pod(s) on it)")
    assert lines[1] == (f"     this pod alone: would launch {launch['instance_type']} in zone {launch['zone']} "
                        f"(on-demand) at ${launch['price']:.4f}/h")
    (beta,) = [line for line in lines if line.startswith("2. beta")]
    assert beta.startswith("2. beta (weight 0) — fits, not first; this pod alone: could launch ")
    assert beta.endswith('too, but NodePool "heavy" comes first' + f" at ${launch['price']:.4f}/h")
    assert [r["batch"] is not None for r in rows] == [True, False, False]


def test_a_taint_not_tolerated_is_named():
    rows, lines = table(nodepool("gpu", weight=50, taints=[GPU_TAINT]), nodepool("general"), pod("p", cpu="1"))
    assert verdicts(rows) == [("gpu", "taints"), ("general", "launch")]
    assert lines[0] == ("1. gpu (weight 50) — taint not tolerated: did not tolerate taint "
                        "(taint=nvidia.com/gpu=true:NoSchedule)")


def test_the_conflicting_requirement_shows_both_sides():
    arm = nodepool("arm", requirements=[req("kubernetes.io/arch", "In", "arm64")])
    rows, lines = table(arm, pod("p", cpu="1", nodeSelector={"kubernetes.io/arch": "amd64"}))
    assert verdicts(rows) == [("arm", "requirements")]
    assert rows[0]["reason"].startswith("incompatible requirements, key kubernetes.io/arch")
    assert rows[0]["details"] == ["kubernetes.io/arch: the pod needs In [amd64], the NodePool allows In [arm64]"]
    rows, _ = table(nodepool("plain"), pod("p", cpu="1", nodeSelector={"team": "a"}))
    assert rows[0]["details"] == ["team: the pod needs In [a], the NodePool allows no value (it does not set this "
                                  "label)"]


def karpenter_node(name, pool, cpu):
    raw = node(name, cpu=cpu, labels={"karpenter.sh/nodepool": pool})
    raw["status"]["capacity"]["cpu"] = cpu
    return raw


def test_limits_exhausted_say_what_is_used_of_the_limit():
    full = karpenter_node("old", "capped", "8")
    never = {"never": "here"}  # the existing node must not take the pod
    rows, lines = table(full, nodepool("capped", limits={"nodes": "1"}), pod("p", cpu="1", nodeSelector=never))
    assert rows[0]["verdict"] == "limits"
    assert lines[0].endswith("limits exhausted: node limits have been exhausted for nodepool (NodePool=capped)")
    assert rows[0]["details"] == ["nodes: 1 of 1 in use, 0 left"]
    rows, lines = table(full, nodepool("capped", limits={"cpu": "8", "memory": "64Gi"}), pod("p", cpu="20"))
    assert rows[0]["reason"] == "all available instance types exceed limits for nodepool (NodePool=capped)"
    assert rows[0]["details"] == ["cpu: 8 of 8 in use, 0 left", "memory: 16Gi of 64Gi in use, 48Gi left"]


def test_no_instance_type_fits_counts_what_each_filter_removed():
    rows, lines = table(nodepool("small", requirements=[req("karpenter.k8s.aws/instance-family", "In", "t3")]),
                        pod("p", cpu="100"))
    (row,) = rows
    assert row["verdict"] == "instance-types" and row["reason"].startswith("no instance type has enough resources")
    counts = row["instance_types"]
    assert counts["catalog"] == len(CATALOG) and counts["left"] == 0
    t3 = sum(1 for t in CATALOG if t.name.startswith("t3."))
    assert counts["removed"]["nodepool requirements"] == len(CATALOG) - t3 and counts["removed"]["resources"] == t3
    assert lines[-1] == f"     instance types: {len(CATALOG)} in the catalog; nodepool requirements " \
                        f"-{len(CATALOG) - t3}, resources -{t3}; 0 left"


def test_daemonset_overhead_is_counted_apart_from_the_pods_own_requests():
    ds = {"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "agent", "namespace": "kube-system"},
          "spec": {"selector": {"matchLabels": {"app": "agent"}}, "template": {"metadata": {"labels": {"app": "agent"}},
                   "spec": {"containers": [{"name": "a", "resources": {"requests": {"cpu": "2"}}}]}}}}
    only_large = nodepool("t3", requirements=[req("node.kubernetes.io/instance-type", "In", "t3.large")])
    rows, _ = table(only_large, ds, pod("p", cpu="1"))  # t3.large: 2 vCPU hold the pod but not it and the agent
    assert rows[0]["verdict"] == "instance-types"
    assert rows[0]["instance_types"]["removed"]["daemonset overhead"] == 1
    assert rows[0]["instance_types"]["removed"]["resources"] == 0


def test_nodepools_karpenter_leaves_out_say_why():
    static = nodepool("static")
    static["spec"]["replicas"] = 3
    sick = nodepool("sick")
    sick["status"] = {"conditions": [{"type": "Ready", "status": "False", "reason": "NodeClassNotReady"}]}
    going = nodepool("going")
    going["metadata"]["deletionTimestamp"] = "2024-01-01T00:00:00Z"
    empty = nodepool("empty", requirements=[req("karpenter.k8s.aws/instance-family", "In", "no-such-family")])
    rows, lines = table(static, sick, going, empty, nodepool("default"), pod("p", cpu="1"))
    by_name = {r["nodepool"]: r for r in rows}
    assert by_name["static"]["verdict"] == "static" and "replicas=3" in by_name["static"]["reason"]
    assert by_name["sick"]["reason"] == "ignoring nodepool, not ready"
    assert by_name["going"]["reason"] == "ignoring nodepool, it is being deleted"
    assert by_name["empty"]["reason"] == "skipping, nodepool requirements filtered out all instance types"
    assert by_name["empty"]["details"][0].startswith("no instance type met the requirements")
    assert by_name["default"]["verdict"] == "launch"
    assert [r["nodepool"] for r in rows] == ["static", "sick", "going", "empty", "default"]


def test_the_table_agrees_with_the_launch_the_simulation_makes():
    result = simulate(build_snapshot([nodepool("gpu", weight=9, taints=[GPU_TAINT]), nodepool("general"),
                                      pod("p", cpu="1")]), catalog=CATALOG, explain=True)
    (attempt,) = result.attempts
    (claim,) = result.nodeclaims
    first = next(v for v in attempt.nodepools if v.verdict == "launch")
    assert first.nodepool == claim.nodepool == "general"
    assert first.launch.to_dict() == claim.launch


def test_simulate_explain_prints_the_table_and_json_has_it(tmp_path, cli):
    cluster = tmp_path / "c.yaml"
    objects = [nodepool("gpu", weight=5, taints=[GPU_TAINT]), nodepool("general"), pod("web", cpu="1")]
    cluster.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": objects}))
    code, out, err = cli("simulate", str(cluster), "--explain", "--instance-types", str(_catalog_file(tmp_path)))
    assert code == 0, err
    assert "NodePools, in the order Karpenter tries them:" in out
    assert "1. gpu (weight 5) — taint not tolerated: did not tolerate taint" in " ".join(out.split())
    code, out, err = cli("simulate", str(cluster), "--explain", "-o", "json",
                         "--instance-types", str(_catalog_file(tmp_path)))
    (pod_doc,) = json.loads(out)["pods"]
    assert [(r["nodepool"], r["verdict"]) for r in pod_doc["nodepools"]] == [("gpu", "taints"), ("general", "launch")]
    assert pod_doc["nodepools"][1]["launch"]["instance_type"] == "m5.large"
    # the batch's launch rides on the row of the NodePool it came from, apart from the pod alone's
    assert [r["batch"] and r["batch"]["nodeclaim"] for r in pod_doc["nodepools"]] == [None, pod_doc["node"]]
    batch = pod_doc["nodepools"][1]["batch"]
    assert batch["launch"] == {"instance_type": "m5.large", "zone": "us-east-1a", "capacity_type": "on-demand",
                               "price": 0.096}
    assert batch["text"] == (f"would launch m5.large on-demand in us-east-1a, $0.0960/h (NodeClaim {pod_doc['node']}, "
                             "NodePool general; 1 pod(s) on it)")


def _catalog_file(tmp_path):
    path = tmp_path / "catalog.yaml"
    path.write_text("instanceTypes:\n"
                    "- name: m5.large\n  cpu: 2\n  memory: 8Gi\n"
                    "  offerings: [{zone: us-east-1a, capacityType: on-demand, price: 0.096}]\n")
    return path


async def test_the_pod_drill_in_shows_the_nodepool_table():
    from textual.widgets import Static

    from karptui.sources import bundled_snapshot, load_snapshot
    from karptui.tui.app import KarptuiApp
    from karptui.tui.screens.detail import DetailScreen

    app = KarptuiApp(load_snapshot(bundled_snapshot("multi-nodepool")))
    async with app.run_test(size=(160, 45)) as pilot:
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        await pilot.press("2")  # the Pending pane: its strip has the table in short, for the first pod
        strip = str(app.screen.query_one("#pending-detail", Static).render())
        assert "NodePools: 1. team1 chosen · 2. default requirements conflict (enter: why, in full)" in strip
        await pilot.press("enter")  # on the Deployment's row: its first pod, the one the strip describes
        assert isinstance(app.screen, DetailScreen) and app.screen.heading.startswith("pod default/inflate-")
        shown = "\n".join(str(s.render()) for s in app.screen.query(Static))
        assert "nodepools, in the order Karpenter tries them" in shown
        assert "1. team1 (weight 0) — chosen: would launch a1.xlarge on-demand in ap-northeast-2a" in shown
        assert "this pod alone: would launch t4g.micro in zone ap-northeast-2a" in shown
        assert ('2. default (weight 0) — requirements conflict: incompatible requirements, label "team" does not '
                "have known values") in shown
        assert "team: the pod needs In [team1], the NodePool allows no value" in shown
