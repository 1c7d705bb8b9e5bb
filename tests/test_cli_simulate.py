"""``karptui simulate``: the docs/simulate-json.md contract, the table, and bad input."""

import json

import pytest

from tests.conftest import FIXTURES, kube_list, node_obj, pod_obj
from tests.test_cli import one_line_error

WHATIF = FIXTURES / "whatif"


def simulate_json(cli, *args):
    code, out, err = cli("simulate", *args, "--output", "json")
    assert code == 0, err
    return json.loads(out)


def test_contract_keys_and_karpenter_launches(cli):
    doc = simulate_json(cli, "topology-spread")
    assert set(doc) >= {"pods", "nodeclaims", "disruptions", "blocked", "summary"}
    assert set(doc["summary"]) == {"scheduled", "pending", "new_nodes", "hourly_cost_before", "hourly_cost_after",
                                   "cost"}
    first = doc["pods"][0]
    assert set(first) == {"pod", "node", "new_node", "reason"}  # no "filters" without --explain
    claims = {c["name"]: c for c in doc["nodeclaims"]}
    assert first["new_node"] is True and first["node"] in claims and first["reason"] is None
    claim = claims[first["node"]]
    assert set(claim) == {"name", "nodepool", "requirements", "labels", "min_values", "annotations", "instance_types",
                          "launch", "pods", "buffer_pods"}
    assert claim["annotations"] == {"karpenter.sh/nodeclaim-min-values-relaxed": "false"}
    assert claim["nodepool"] == "default" and first["pod"] in claim["pods"]
    assert claim["labels"]["karpenter.sh/provisioner-name"] == "default"  # the snapshot runs a v1alpha5 Provisioner
    assert set(claim["launch"]) >= {"instance_type", "zone", "capacity_type", "price"}
    assert claim["launch"]["instance_type"] in claim["instance_types"]
    assert doc["summary"]["new_nodes"] == len(claims) and doc["summary"]["pending"] == 0
    assert doc["summary"]["hourly_cost_after"] > doc["summary"]["hourly_cost_before"] > 0


def test_karpenter_reason_follows_the_schedulers(cli, write):
    tiny = write("tiny.yaml", "instanceTypes:\n- name: t3.nano\n  cpu: '1'\n  memory: 512Mi\n  pods: '4'\n"
                              "  offerings: [{zone: ap-northeast-2a, capacityType: on-demand, price: 0.0052}]\n")
    doc = simulate_json(cli, "topology-spread", "--instance-types", tiny)
    first = doc["pods"][0]
    assert first["node"] is None and doc["nodeclaims"] == []
    assert first["reason"].startswith("0/9 nodes are available: 1 Insufficient cpu")
    # the only type is too small and offered in another zone than the spread needs (Karpenter v1.14's wording)
    why = ("no instance type met the scheduling requirements or had enough resources or had a required offering, "
           "requirements=")
    assert f" Karpenter: Failed to schedule pod, {why}" in first["reason"]
    assert first["karpenter_reason"].startswith(why)


def test_explain_gives_every_node_for_every_pod(cli):
    doc = simulate_json(cli, "overprovisioning", "--explain")
    for entry in doc["pods"]:
        assert len(entry["filters"]) == 5
        assert sorted(map(tuple, entry["filters"].values())).count(("node(s) didn't match Pod's node affinity/selector",)) == 2
        assert entry["new_node"] is True  # Karpenter launches a team1 node for each (anti-affinity)
    assert len({e["node"] for e in doc["pods"]}) == 2


def test_snapshot_without_nodepools_has_no_karpenter_keys(cli, write):
    path = write("plain.json", kube_list(node_obj("n1"), pod_obj("p")))
    doc = simulate_json(cli, path)
    assert "nodeclaims" not in doc and doc["pods"][0]["node"] == "n1"


def test_snapshot_with_no_nodes_is_a_pending_reason(cli, write):
    doc = simulate_json(cli, write("pods.json", kube_list(pod_obj("p"))))
    assert doc["pods"][0]["reason"] == "no nodes available to schedule pods"


def test_whatif_output_carries_the_diff(cli):
    doc = simulate_json(cli, "topology-spread", "--whatif", WHATIF / "drop-hostname-spread.yaml")
    assert doc["summary"]["pending"] == 0
    on_existing = [p for p in doc["pods"] if p["node"] and not p["new_node"]]
    # kube-scheduler fits 16 on existing nodes; Karpenter, whose new nodes in 2c lift the zone minimum,
    # counts on two more joining existing nodes in 2a/2b once those come up
    assert len(on_existing) == 18
    diff = doc["whatif"]["diff"]
    (spread,) = [w for w in diff["workloads"] if w["workload"] == "Deployment/default/host-spread"]
    # baseline: 6 on existing 2a nodes + 2 on the NodeClaim Karpenter launches there
    assert spread["zones_before"] == {"ap-northeast-2a": 8, "ap-northeast-2b": 6, "ap-northeast-2c": 6}


def test_table_output(cli):
    code, out, _ = cli("simulate", "multi-nodepool")
    assert code == 0 and "2 scheduled, 0 pending, 1 new node" in out


@pytest.mark.parametrize(
    "content,fragment",
    [
        ("edits:\n- target: Deployment/default/nope\n  scale: 3\n", "edit 1: Deployment/default/nope not found"),
        ("edits:\n- target: Deployment/default/host-spread\n  scale: -1\n", "edit 1"),
        ("edits:\n- target: Deployment/default/host-spread\n  patch: [1, 2]\n", "edit 1"),
        ("edits:\n- target: nonsense\n  scale: 1\n", "edit 1"),
        ("edits: [", "invalid YAML at line 2"),
    ],
)
def test_malformed_whatif_files(cli, write, content, fragment):
    path = write("bad-whatif.yaml", content)
    one_line_error(*cli("simulate", "topology-spread", "--whatif", path), "bad-whatif.yaml", fragment)


@pytest.mark.parametrize(
    "args,fragment",
    [
        (["--feature-gates", "SpotToSpotConsolidation=maybe"], "is not NAME=true|false"),
        (["--feature-gates", "Teleport=true"], "unknown Karpenter feature gate 'Teleport'"),
        (["--instance-types", "/nonexistent/catalog.yaml"], "catalog.yaml"),
        (["--whatif", "/nonexistent/w.yaml"], "w.yaml"),
    ],
)
def test_bad_options(cli, args, fragment):
    one_line_error(*cli("simulate", "topology-spread", *args), fragment)


def test_feature_gates_accept_karpenters_names(cli):
    assert simulate_json(cli, "consolidation", "--feature-gates", "SpotToSpotConsolidation=true")["pods"] == []


NODEPOOL_WITH = """apiVersion: v1
kind: List
items:
- apiVersion: karpenter.sh/v1
  kind: NodePool
  metadata: {{name: default}}
  spec:
    template:
      spec:
        nodeClassRef: {{group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}}
        requirements: {requirements}
- apiVersion: v1
  kind: Node
  metadata: {{name: n1, labels: {{topology.kubernetes.io/zone: us-east-1a}}}}
  status: {{allocatable: {{cpu: 100m, memory: 100Mi, pods: "10"}}}}
- apiVersion: v1
  kind: Pod
  metadata: {{name: p, namespace: default}}
  spec: {{containers: [{{name: a, resources: {{requests: {{cpu: "1"}}}}}}]}}
"""


def test_a_nodepool_with_a_non_integer_bound_is_skipped_and_said(cli, write):
    path = write("gte.yaml", NODEPOOL_WITH.format(
        requirements='[{key: karpenter.k8s.aws/instance-cpu, operator: Gte, values: ["four"]}]'))
    code, out, err = cli("simulate", path, "--output", "json")
    assert code == 0
    why = "skipped NodePool default: spec.template.spec.requirements[0].values: Gte needs exactly one integer value"
    assert why in err and any(why in w for w in json.loads(out)["warnings"])


def test_contradictory_nodepool_requirements_are_the_pods_reason(cli, write):
    path = write("arch.yaml", NODEPOOL_WITH.format(
        requirements="[{key: kubernetes.io/arch, operator: In, values: [amd64]}, "
                     "{key: kubernetes.io/arch, operator: In, values: [arm64]}]"))
    doc = simulate_json(cli, path)
    assert doc["pods"][0]["karpenter_reason"].startswith(
        'nodepool requirements filtered out all available instance types (NodePool "default": no instance type met '
        "the requirements ")
    assert "kubernetes.io/arch DoesNotExist" in doc["pods"][0]["karpenter_reason"]


def test_tables_print_brackets_as_data_not_markup(cli, write):
    """Karpenter's requirements read `key In [a b]`: a table must show them, and text that looks
    like markup (`[/x]`, `[@click=...]`) is printed as it is, never interpreted."""
    tiny = write("tiny.yaml", "instanceTypes:\n- name: t3.nano\n  cpu: '1'\n  memory: 512Mi\n  pods: '4'\n"
                              "  offerings: [{zone: ap-northeast-2a, capacityType: on-demand, price: 0.0052}]\n")
    code, out, _ = cli("simulate", "topology-spread", "--instance-types", tiny)
    assert code == 0 and "[amd64]" in out and "[on-demand]" in out  # markup would have eaten them
    hostile = write("hostile.yaml", NODEPOOL_WITH.format(requirements="[]").replace(
        "metadata: {name: p, namespace: default}", "metadata: {name: p, namespace: default, labels: {a: b}}").replace(
        "- apiVersion: v1\n  kind: Pod", "- apiVersion: v1\n  kind: Event\n  metadata: {name: e, namespace: default}\n"
        "  reason: Weird\n  message: '[/x] [@click=app.quit]boom[/]'\n- apiVersion: v1\n  kind: Pod"))
    code, out, err = cli("snapshot", "info", hostile)
    assert code == 0, err


def test_consolidate_lists_the_candidates_single_node_consolidation_left(cli, write):
    """Both seed nodes made spot, the do-not-disrupt pod gone, no SpotToSpotConsolidation: the
    xlarge is deleted and the 2xlarge, whose pods fit nowhere cheaper, is listed with why."""
    edits = ["edits:", "- target: Deployment/default/report-generator", "  remove: true"]
    for name in ("ip-192-168-118-56", "ip-192-168-40-236"):
        edits += [f"- target: Node/{name}.ap-northeast-2.compute.internal", "  patchType: merge",
                  "  patch: {metadata: {labels: {karpenter.sh/capacity-type: spot}}}"]
    whatif = write("spot.yaml", "\n".join(["name: spot"] + edits) + "\n")
    doc = simulate_json(cli, "consolidation", "--consolidate", "--whatif", whatif)
    assert [d["nodes"] for d in doc["disruptions"]] == [["ip-192-168-118-56.ap-northeast-2.compute.internal"]]
    (left,) = doc["unconsolidatable"]
    assert left["node"] == "ip-192-168-40-236.ap-northeast-2.compute.internal"
    assert left["reason"].startswith("not all pods would schedule")
    code, out, _ = cli("simulate", "consolidation", "--consolidate", "--whatif", whatif)
    assert code == 0 and "unconsolidatable: ip-192-168-40-236" in out


@pytest.mark.parametrize("width", [30, 80, 160])
def test_a_reason_many_pods_share_prints_as_plain_text_would(width):
    """Every pod of a Job pending for one long reason: the table lays the reason out once and
    prints, at any width, the bytes a table of plain text cells prints."""
    import io

    from rich.table import Table
    from rich.text import Text

    from karptui.cli.output import table_console
    from karptui.cli.simulate import _print_table

    long = ("0/5000 nodes are available: 150 node(s) had untolerated taint {dedicated: gpu}, "
            "4825 node(s) didn't match Pod's node affinity/selector. Karpenter: incompatible requirements, "
            "key topology.kubernetes.io/zone, topology.kubernetes.io/zone In [us-east-1d] not in "
            "topology.kubernetes.io/zone In [us-east-1a us-east-1b]; averyveryveryverylongwordthatmustbefolded" * 2)
    pods = [{"pod": f"batch/job-{k}", "node": "" if k % 3 else "n1", "reason": long if k % 3 else "",
             "preempted": []} for k in range(12)]
    pods[5]["reason"] = "another reason :fire: [b]"
    doc = {"pods": pods, "summary": {"scheduled": 4, "pending": 8, "new_nodes": 0}}

    def printed(fill) -> str:
        console = table_console()
        console.file, console.width = io.StringIO(), width
        fill(console)
        return console.file.getvalue()

    def plain(console) -> None:
        table = Table(title="scheduling attempts, in queue order", title_justify="left", show_lines=False)
        table.add_column("pod", no_wrap=True)
        table.add_column("node")
        table.add_column("reason", overflow="fold")
        for pod in pods:
            table.add_row(pod["pod"], Text(pod["node"]) if pod["node"] else Text("pending", style="red"),
                          Text(pod["reason"]))
        console.print(table)

    ours = printed(lambda console: _print_table(doc, console))
    assert ours.startswith(printed(plain)) and ours.count("averyveryvery") == printed(plain).count("averyveryvery")
    assert width < 80 or ":fire: [b]" in ours   # narrower, the column folds it
