"""``karptui simulate``'s verdicts (--explain), its cost line and JSON cost, ``-n NS`` and ``--readonly``."""

import json

import pytest

from tests.test_cli_simulate import WHATIF, simulate_json


def wide(monkeypatch):
    """A wide terminal, so a table row is one line (the words are what is checked, not the wrapping)."""
    monkeypatch.setenv("COLUMNS", "400")


def test_explain_prints_each_pods_verdict_with_its_brackets(cli, monkeypatch):
    wide(monkeypatch)
    plain_code, plain, _ = cli("simulate", "multi-nodepool")
    code, out, err = cli("simulate", "multi-nodepool", "--explain")
    assert plain_code == code == 0, err
    assert out != plain and "team In [team1]" not in plain
    block = out[out.index("why, pod by pod"):]
    pods = [line for line in block.splitlines() if line.startswith("default/inflate-")]
    assert len(pods) == 2
    assert ("  kube-scheduler: 0/5 nodes are available: 1 Insufficient cpu, 4 node(s) didn't match Pod's node "
            "affinity/selector.") in block
    assert "  in short: needs 1 cpu; the 1 node(s) short of it have at most 740m free; 4 node(s) lack team In [team1]" \
        in block
    assert "  Karpenter: launches NodeClaim team1-kn74d from NodePool team1: a1.xlarge on-demand in ap-northeast-2a, " \
           "~$0.1020/h (2 pod(s))" in block


def test_explain_json_carries_the_same_verdict(cli):
    doc = simulate_json(cli, "multi-nodepool", "--explain")
    verdict = doc["pods"][0]["verdict"]
    assert set(verdict) == {"kube_scheduler", "why", "karpenter"}
    assert verdict["kube_scheduler"].startswith("0/5 nodes are available: 1 Insufficient cpu")
    assert "4 node(s) lack team In [team1]" in verdict["why"] == doc["pods"][0]["summary"]
    assert verdict["karpenter"].startswith("launches NodeClaim team1-kn74d from NodePool team1")
    assert "verdict" not in simulate_json(cli, "multi-nodepool")["pods"][0]


def test_explain_for_a_pod_karpenter_cannot_place_gives_karpenters_reason(cli, write, monkeypatch):
    wide(monkeypatch)
    tiny = write("tiny.yaml", "instanceTypes:\n- name: t3.nano\n  cpu: '1'\n  memory: 512Mi\n  pods: '4'\n"
                              "  offerings: [{zone: ap-northeast-2a, capacityType: on-demand, price: 0.0052}]\n")
    doc = simulate_json(cli, "topology-spread", "--instance-types", tiny, "--explain")
    verdict = doc["pods"][0]["verdict"]
    assert verdict["karpenter"] == f"Failed to schedule pod, {doc['pods'][0]['karpenter_reason']}"
    code, out, _ = cli("simulate", "topology-spread", "--instance-types", tiny, "--explain")
    assert code == 0 and "  Karpenter: Failed to schedule pod, " in out and "[amd64]" in out


def test_cost_line_now_after_provisioning_after_consolidation(cli, monkeypatch):
    wide(monkeypatch)
    code, out, _ = cli("simulate", "topology-spread", "--consolidate")
    doc = simulate_json(cli, "topology-spread", "--consolidate")
    cost = doc["summary"]["cost"]
    assert cost["hours_per_month"] == 730
    for step in ("now", "after_provisioning", "after_consolidation"):
        assert cost[step]["monthly"] == pytest.approx(cost[step]["hourly"] * 730, abs=0.01)
        assert cost[step]["estimated"] is True  # 2 Fargate nodes have no price
    assert cost["now"]["unpriced"] == 2
    assert doc["summary"]["hourly_cost_before"] == cost["now"]["hourly"]
    assert doc["summary"]["hourly_cost_after"] == cost["after_consolidation"]["hourly"]
    (line,) = [line for line in out.splitlines() if line.startswith("cost: ")]
    now, provisioned, consolidated = (cost[k]["hourly"] for k in ("now", "after_provisioning", "after_consolidation"))
    assert line.startswith(f"cost: now ~${now:,.3f}/h (~${now * 730:,.0f}/mo) -> after provisioning "
                           f"~${provisioned:,.3f}/h (~${provisioned * 730:,.0f}/mo) -> after consolidation "
                           f"~${consolidated:,.3f}/h")
    # the 6 pending pods need the 3 NodeClaims provisioning launches: Karpenter consolidates nothing
    # until they are up (its SimulateScheduling schedules pending pods too), so no replacement is priced
    assert line.endswith("(~: 2 unpriced, 10 prices estimated)") and consolidated == provisioned
    assert simulate_json(cli, "topology-spread")["summary"]["cost"]["after_consolidation"] is None


@pytest.mark.parametrize("where", ["before", "after"])
def test_namespace_narrows_the_pods_not_the_simulation(cli, where, monkeypatch):
    wide(monkeypatch)
    everything = simulate_json(cli, "topology-spread")
    args = (["-n", "kube-system", "simulate", "topology-spread"] if where == "before"
            else ["simulate", "topology-spread", "-n", "kube-system"])
    code, out, err = cli(*args, "-o", "json")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["namespace"] == "kube-system" and doc["pods"] == []
    assert (doc["summary"]["scheduled"], doc["summary"]["pending"]) == (0, 0)
    assert doc["nodeclaims"] == everything["nodeclaims"] and doc["summary"]["cost"] == everything["summary"]["cost"]
    mine = simulate_json(cli, "topology-spread", "-n", "default")
    assert [p["pod"] for p in mine["pods"]] == [p["pod"] for p in everything["pods"]]
    code, out, _ = cli("simulate", "topology-spread", "-n", "kube-system")
    assert code == 0 and "0 scheduled, 0 pending in namespace kube-system, 3 new nodes" in out


def test_namespace_is_explained_in_help(cli):
    code, out, _ = cli("simulate", "--help")
    assert code == 0 and "simulation still runs on the whole cluster" in " ".join(out.split())


def test_readonly_is_accepted(cli):
    code, out, err = cli("--readonly", "simulate", "consolidation", "-o", "json")
    assert code == 0, err
    assert json.loads(out)["pods"] == []


def test_whatif_cost_uses_the_cost_model(cli, monkeypatch):
    wide(monkeypatch)
    doc = simulate_json(cli, "topology-spread", "--whatif", WHATIF / "drop-hostname-spread.yaml")
    cost = doc["whatif"]["diff"]["hourly_cost"]
    assert cost["after"] == cost["cost_after"]["hourly"] == doc["summary"]["cost"]["after_provisioning"]["hourly"]
    assert cost["cost_before"]["estimated"] is True
    code, out, _ = cli("simulate", "topology-spread", "--whatif", WHATIF / "drop-hostname-spread.yaml")
    before, after = cost["cost_before"]["hourly"], cost["after"]
    assert code == 0 and f"  cost ~${before:,.3f}/h (~${before * 730:,.0f}/mo) -> ~${after:,.3f}/h" in out
