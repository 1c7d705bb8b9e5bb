"""The headless what-if session (karptui/whatif/session.py): one run for the panel and ``simulate --whatif``.

The scenario is the bundled topology-spread snapshot (see tests/test_tui_whatif.py).
"""

from __future__ import annotations

import dataclasses
import json
import threading

import pytest

from karptui.catalog import catalog_from_snapshot_region
from karptui.sim.karpenter.disruption import controller
from karptui.sources import bundled_snapshot, load_snapshot
from karptui.views.cost import Cost
from karptui.views import whatif_form as wf
from karptui.whatif import WhatIf, load_whatif
from karptui.whatif.session import DONE, ERROR, WhatIfSession
from tests.conftest import FIXTURES
from tests.test_tui_whatif import HOST, Host, drop_hostname, text

WHATIF = FIXTURES / "whatif"


@pytest.fixture(scope="module")
def snapshot():
    return load_snapshot(bundled_snapshot("topology-spread"))


@pytest.fixture(scope="module")
def catalog(snapshot):
    return catalog_from_snapshot_region(snapshot)


@pytest.fixture
def consolidations(monkeypatch):
    """Counts Karpenter consolidation passes (Disruptor.run) and the simulations each makes."""
    seen = {"runs": 0, "simulations": 0}
    run, simulate = controller.Disruptor.run, controller.Disruptor.simulate

    def counted_run(self, state):
        seen["runs"] += 1
        return run(self, state)

    def counted_simulate(self, candidates, **options):  # counted once it has run: a call the cancel stops at its start did no work
        done = simulate(self, candidates, **options)
        seen["simulations"] += 1
        return done

    monkeypatch.setattr(controller.Disruptor, "run", counted_run)
    monkeypatch.setattr(controller.Disruptor, "simulate", counted_simulate)
    return seen


def test_a_run_is_typed_and_the_baseline_is_kept(snapshot, catalog):
    session = WhatIfSession(snapshot, catalog)
    session.stack.push(*drop_hostname(snapshot))
    first = session.run()
    assert first.status == DONE and first.done and first.edits == 1 and first.name == wf.DEFAULT_NAME
    with pytest.raises(dataclasses.FrozenInstanceError):
        first.status = ERROR  # type: ignore[misc]
    assert (first.diff.counts["pending_before"], first.diff.counts["scheduled_after"]) == (0, 20)
    second = session.run()
    assert second.baseline is first.baseline           # simulated once, kept
    assert second.diff.counts == first.diff.counts     # and the same answer


def test_a_bad_edit_is_an_error_result_not_an_exception(snapshot, catalog):
    run = WhatIfSession(snapshot, catalog).run(WhatIf("bad", (wf.add_nodes_edit("zz.nope", "ap-northeast-2c"),)))
    assert run.status == ERROR and run.error == "bad: edit 1: addNodes: unknown instance type 'zz.nope'"
    assert run.result is None


def test_consolidation_runs_only_when_asked_and_its_baseline_is_kept(snapshot, catalog, consolidations):
    session = WhatIfSession(snapshot, catalog)
    whatif = WhatIf("drop", tuple(drop_hostname(snapshot)))
    plain = session.run(whatif)
    assert consolidations["runs"] == 0 and plain.result.disruptions == () and not plain.consolidated
    consolidated = session.run(whatif, consolidate=True)
    assert consolidations["runs"] == 2 and consolidated.consolidated      # the baseline's, and the what-if's
    assert consolidated.result.disruptions
    session.run(whatif, consolidate=True)
    assert consolidations["runs"] == 3                                      # the baseline's is kept


def test_a_cancelled_run_stops_its_consolidation(snapshot, catalog, consolidations):
    """Bug: a cancelled what-if kept a CPU busy until consolidation of the whole cluster was done.
    The cancel must stop the simulations that follow it, not only the ones of kube-scheduler."""
    cancel = threading.Event()
    after_cancel = []

    def progress(phase: str, done: int, total: int) -> None:
        if "consolidation" in phase and not cancel.is_set():
            cancel.set()                                   # the operator presses escape here
            after_cancel.append(consolidations["simulations"])

    summary = wf.run_whatif(snapshot, catalog, WhatIf("drop", tuple(drop_hostname(snapshot))), consolidate=True,
                            cancelled=cancel.is_set, progress=progress)
    assert summary["cancelled"] is True
    assert consolidations["simulations"] == after_cancel[0]  # not one consolidation simulation after the cancel


@pytest.mark.parametrize("name", ["drop-hostname-spread.yaml", "scale-inflate.yaml", "nodes.yaml"])
async def test_simulate_whatif_and_the_panel_give_the_same_answer(cli, snapshot, catalog, name):
    """The same what-if file through ``simulate --whatif`` and through the panel (ctrl+o, ctrl+r)."""
    path = WHATIF / name
    code, out, err = cli("simulate", "topology-spread", "--whatif", path, "--output", "json")
    assert code == 0, err
    diff = json.loads(out)["whatif"]["diff"]
    c, cost = diff["counts"], diff["hourly_cost"]
    async with Host(snapshot, catalog).run_test(size=(160, 50)) as pilot:
        screen = pilot.app.screen
        await pilot.press("ctrl+o")
        screen.query_one("#path").value = str(path)
        await pilot.press("enter")
        await pilot.pause()
        assert screen.stack.edits == load_whatif(path).edits
        await pilot.press("ctrl+r")
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        shown = text(screen, "#summary").splitlines()
    assert shown[0] == (f"scheduled {c['scheduled_before']} → {c['scheduled_after']} · "
                        f"pending {c['pending_before']} → {c['pending_after']}")
    assert shown[2] == (f"{c['added']} added ({c['added_scheduled']} placed, {c['added_pending']} pending) · "
                        f"{c['removed']} removed · {c['newly_scheduled']} newly scheduled · "
                        f"{c['newly_pending']} newly pending · {c['moved']} moved")
    before, after = (Cost.from_dict(cost[key]) for key in ("cost_before", "cost_after"))
    assert shown[3].startswith("cost now ") and after.text() in shown[3]  # the end of the cost model's path
    assert shown[4].startswith(f"without the edits {before.text()}: ")
    launches = [line for line in shown if line.startswith(("+ launch", "- launch"))]
    assert launches == ([f"+ launch {x}" for x in diff["nodeclaims"]["added"]]
                        + [f"- launch {x}" for x in diff["nodeclaims"]["removed"]])


def test_one_key_form_changes():
    form = {"replicas": "20", "constraints": [
        {"topologyKey": "kubernetes.io/hostname", "whenUnsatisfiable": "DoNotSchedule", "minDomains": "2"},
        {"topologyKey": "topology.kubernetes.io/zone", "whenUnsatisfiable": "DoNotSchedule", "minDomains": ""}]}
    assert wf.step_replicas(form, 1)["replicas"] == "21" and wf.step_replicas({"replicas": "0"}, -1)["replicas"] == "0"
    with pytest.raises(ValueError, match="no replica count"):
        wf.step_replicas({"constraints": []}, 1)
    assert [c["topologyKey"] for c in wf.drop_constraint(form)["constraints"]] == ["topology.kubernetes.io/zone"]
    assert [c["topologyKey"] for c in wf.drop_constraint(form, 1)["constraints"]] == ["kubernetes.io/hostname"]
    relaxed = wf.relax_constraint(form)["constraints"]
    assert relaxed[0] == {"topologyKey": "kubernetes.io/hostname", "whenUnsatisfiable": "ScheduleAnyway",
                          "minDomains": ""}                          # minDomains goes: DoNotSchedule only
    assert wf.relax_constraint(form, 1)["constraints"][1]["whenUnsatisfiable"] == "ScheduleAnyway"
    assert form["constraints"][0]["whenUnsatisfiable"] == "DoNotSchedule"   # the form given is left alone
    for change in (wf.drop_constraint, wf.relax_constraint):
        with pytest.raises(ValueError, match="no topologySpreadConstraint"):
            change({"constraints": []})


def test_unapplied_changes_are_counted(snapshot):
    before = wf.workload_form(snapshot, [], HOST)
    assert wf.unapplied("workload", HOST, before, before) == (0, "")
    assert wf.unapplied("workload", HOST, before, wf.drop_constraint(before)) == (1, "")
    assert wf.unapplied("workload", HOST, before, {**wf.step_replicas(before, 1), "node_selector": "a=b"}) == (2, "")
    assert wf.unapplied("workload", HOST, before, {**before, "replicas": "x"}) == (
        1, "replicas must be a whole number >= 0, got 'x'")
    add = wf.add_nodes_form(snapshot)
    assert wf.unapplied("add", "add-nodes", add, add) == (0, "")


@pytest.mark.parametrize("replicas, added, removed", [(21, 1, 0), (25, 5, 0), (19, 0, 1), (14, 0, 6)])
def test_simulate_whatif_json_a_scale_moves_no_pod(cli, tmp_path, snapshot, replicas, added, removed):
    """A scale adds or deletes pods and moves none (ReplicaSet controller, manageReplicas); the
    JSON says so, and the NodeClaims Karpenter launches for the new pods are named."""
    path = tmp_path / "scale.yaml"
    path.write_text(f"edits:\n- target: {HOST}\n  scale: {replicas}\n")
    code, out, err = cli("simulate", "topology-spread", "--whatif", path, "-o", "json")
    assert code == 0, err
    whatif = json.loads(out)["whatif"]
    counts = whatif["diff"]["counts"]
    assert (counts["moved"], counts["added"], counts["removed"]) == (0, added, removed)
    assert whatif["diff"]["moved"] == [] and whatif["rollouts"] == [] and whatif["drains"] == []
    # host-spread's 20 pods: 14 bound, 6 pending; scale-down deletes the unassigned ones first
    unassigned = {p.key for p in snapshot.pending_pods}
    assert {c["pod"] for c in whatif["diff"]["removed"]} <= unassigned
    if added:
        assert whatif["diff"]["nodeclaims"]["after"] >= whatif["diff"]["nodeclaims"]["before"]


def test_simulate_whatif_json_a_rollout_has_its_steps_and_a_simulated_peak(cli):
    """A template change rolls out (deployment/rolling.go): the JSON gives the steps and the peak,
    with the NodeClaims Karpenter launches while old and new pods both hold room."""
    code, out, err = cli("simulate", "topology-spread", "--whatif", WHATIF / "drop-hostname-spread.yaml", "-o", "json")
    assert code == 0, err
    whatif = json.loads(out)["whatif"]
    (rollout,) = whatif["rollouts"]
    assert rollout["workload"] == HOST and rollout["strategy"] == "RollingUpdate"
    assert (rollout["max_surge"], rollout["max_unavailable"]) == (5, 5)
    assert rollout["steps"][-1] == [0, 20] and rollout["most_pods"] == 25
    peak = rollout["peak"]
    assert peak["old_pods"] + peak["new_pods"] == peak["pods"] == 25
    assert len(peak["nodeclaims"]) >= 1 and all(c.startswith("default: ") for c in peak["nodeclaims"])
    counts = whatif["diff"]["counts"]
    assert (counts["added"], counts["removed"], counts["moved"]) == (20, 20, 0)


def test_a_reason_that_differs_only_in_its_counts_is_the_same_reason(snapshot):
    """Removing a node turns every pending pod's "0/13 nodes are available: ..." into "0/12 ...":
    no news about those pods, so they are counted as still pending, not listed as changed."""
    from karptui.whatif import RemoveNode
    from karptui.whatif.diff import same_reason

    assert same_reason("0/13 nodes are available: 3 node(s) had taint", "0/12 nodes are available: 2 node(s) had taint")
    assert not same_reason("0/13 nodes are available: 3 node(s) had taint",
                           "0/13 nodes are available: 3 node(s) didn't match pod topology spread constraints")
    session = WhatIfSession(snapshot, None)   # kube-scheduler only: host-spread's pods stay pending
    fargate = next(n.name for n in snapshot.nodes if n.name.startswith("fargate-"))
    run = session.run(WhatIf("drain", (RemoveNode(fargate),)))
    assert run.done, run.error
    before = {a.pod.key: a.reason for a in run.baseline.attempts if not a.scheduled}
    after = {a.pod.key: a.reason for a in run.result.attempts if not a.scheduled}
    both = before.keys() & after.keys()
    assert both and any(before[k] != after[k] for k in both)          # the counts did change
    assert run.diff.reason_changed == ()
    assert run.diff.counts["still_pending"] == len(both)


def test_the_panels_lines_name_nodes_as_the_panes_do_and_the_json_keeps_them_whole(snapshot, catalog):
    """Issue 29 item 5: the what-if results printed node FQDNs (``….ap-northeast-2.compute.internal``)
    and pushed the panel's columns off; the lines use the short name, the summary dict the whole one."""
    whatif = load_whatif(str(FIXTURES / "whatif" / "nodes.yaml"))
    s = wf.run_whatif(snapshot, catalog, whatif, consolidate=False)
    lines = wf.summary_lines(s)
    assert "drain ip-192-168-12-45: " in "\n".join(lines)
    assert not any("compute.internal" in line for line in lines)
    assert s["drains"][0]["node"] == "ip-192-168-12-45.ap-northeast-2.compute.internal"


def test_alike_launches_are_one_row_with_their_count_and_pods():
    """At 5,000 nodes a run listed 195 identical `default c5.4xlarge us-east-1a spot` rows; alike
    launches are one row (NodePool ×N, the price of one, the pods of all), in the order first seen."""
    def claim(pool, kind, zone, pods, price=0.2584):
        return {"nodepool": pool, "instance_type": kind, "zone": zone, "capacity_type": "spot",
                "price": price, "pods": pods}
    s = {"nodeclaims": [claim("default", "c5.4xlarge", "us-east-1a", 1), claim("gpu", "g5.xlarge", "us-east-1b", 2, 1.006),
                        claim("default", "c5.4xlarge", "us-east-1a", 3), claim("default", "c5.4xlarge", "us-east-1c", 1)]}
    assert wf.result_rows(s)["claims"] == [("default ×2", "c5.4xlarge", "us-east-1a", "spot", "0.2584", "4"),
                                           ("gpu", "g5.xlarge", "us-east-1b", "spot", "1.0060", "2"),
                                           ("default", "c5.4xlarge", "us-east-1c", "spot", "0.2584", "1")]
