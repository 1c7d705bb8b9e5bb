"""``karptui history --snapshot S --audit``: each Karpenter decision against karptui's own disruption
simulation at its moment. The snapshots are the bundled ones (as captured: consolidation at
2024-09-10 02:20:07Z, multi-nodepool at 2024-03-16 06:48:13Z); the log lines are v1 JSON and v0.3x
lines in the shapes of tests/log_corpus, their names rewritten to the snapshots' nodes."""

import json
from datetime import timedelta

import pytest

from karptui.catalog import snapshot_catalog
from karptui.history.audit import AGREES, DISAGREES, UNKNOWN, audit, decisions
from karptui.history.builder import build_history
from karptui.history.finish import finish
from karptui.logs import LogParser
from karptui.sources import bundled_snapshot, load_snapshot
from karptui.whatif.apply import apply_whatif
from karptui.whatif.edits import AddNodes, WhatIf
from tests.test_cli import one_line_error

BIG = "ip-192-168-118-56.ap-northeast-2.compute.internal"       # default-hp9st, c5a.xlarge: 4 pods and 3 DaemonSet pods
HELD = "ip-192-168-40-236.ap-northeast-2.compute.internal"      # default-xgblv: a do-not-disrupt pod on it
SPOT = "ip-192-168-1-37.ap-northeast-2.compute.internal"        # multi-nodepool's default-qh5xq, c6i.xlarge spot
NEW = "ip-192-168-1-99.ap-northeast-2.compute.internal"


def disrupting(time: str, reason: str, decision: str, node: str, claim: str, itype: str, pods: int,
               capacity: str = "on-demand", replacements: int = 0) -> str:
    """A v1.x ``disrupting node(s)`` line (disruption/queue.go), as tests/log_corpus/b-008.log has them."""
    more = ([{"capacity-type": capacity, "instance-types": "c6a.large, c5a.large and 35 other(s)"}]
            if replacements else [])
    return json.dumps({
        "level": "INFO", "time": time, "logger": "controller", "caller": "disruption/queue.go:309",
        "message": "disrupting node(s)", "commit": "a2b6190", "controller": "disruption", "namespace": "", "name": "",
        "reconcileID": "fc375b63-d54c-1669-b51a-99c60a303a45", "command-id": f"9f2519a6-{time[11:19].replace(':', '')}",
        "reason": reason, "decision": decision, "disrupted-node-count": 1, "replacement-node-count": replacements,
        "pod-count": pods, "disrupted-nodes": [{"Node": {"name": node}, "NodeClaim": {"name": claim},
                                                 "capacity-type": capacity, "instance-type": itype}],
        "replacement-nodes": more}) + "\n"


def lifecycle(claim: str, node: str, pool: str, itype: str, zone: str, at: str, steps=("created", "launched",
              "registered", "initialized"), by: str = "provisioner") -> str:
    """A NodeClaim's v1.x lifecycle lines (provisioner, nodeclaim.lifecycle), a few seconds apart from ``at``
    (``2024-03-16T06:49``)."""
    lines = {
        "created": {"time": f"{at}:00.120Z", "message": "created nodeclaim", "controller": by,
                    "NodePool": {"name": pool}, "NodeClaim": {"name": claim},
                    "requests": {"cpu": "2230m", "memory": "1246Mi", "pods": "6"}, "instance-types": itype},
        "launched": {"time": f"{at}:02.670Z", "message": "launched nodeclaim", "controller": "nodeclaim.lifecycle",
                     "NodeClaim": {"name": claim}, "provider-id": f"aws:///{zone}/i-0ae8642432aa136da",
                     "instance-type": itype, "zone": zone, "capacity-type": "on-demand",
                     "allocatable": {"cpu": "3920m", "memory": "6584Mi", "pods": "58"}},
        "registered": {"time": f"{at}:33.503Z", "message": "registered nodeclaim", "controller": "nodeclaim.lifecycle",
                       "NodeClaim": {"name": claim}, "provider-id": f"aws:///{zone}/i-0ae8642432aa136da",
                       "Node": {"name": node}},
        "initialized": {"time": f"{at}:44.092Z", "message": "initialized nodeclaim",
                        "controller": "nodeclaim.lifecycle", "NodeClaim": {"name": claim},
                        "provider-id": f"aws:///{zone}/i-0ae8642432aa136da", "Node": {"name": node}},
    }
    return "".join(json.dumps({"level": "INFO", "logger": "controller", "commit": "bac1e2c", **lines[s]}) + "\n"
                   for s in steps)


def audited(snapshot, text: str):
    snap = load_snapshot(bundled_snapshot(snapshot)) if isinstance(snapshot, str) else snapshot
    timeline = finish(build_history(LogParser().parse(text.splitlines(keepends=True))))
    return audit(snap, timeline, snapshot_catalog(snap))


def test_agrees_with_an_underutilized_delete():
    [found] = audited("consolidation", disrupting("2024-09-10T02:31:00.180Z", "underutilized", "delete", BIG,
                                                   "default-hp9st", "c5a.xlarge", 4))
    assert found.verdict == AGREES, found.why
    assert found.karptui == f"delete {BIG} (underutilized), saving $0.1540/h"
    assert "brought to 2024-09-10 02:31:00Z: 0 NodeClaim(s) launched and 0 node(s) gone" in found.state


def test_v03x_deprovisioning_via_consolidation_agrees():
    line = (f"2024-09-10T02:40:09.954Z\tINFO\tcontroller.deprovisioning\tdeprovisioning via consolidation delete, "
            f"terminating 1 machines {BIG}/c5a.xlarge/on-demand\t{{\"commit\": \"5480de9-dirty\"}}\n")
    [found] = audited("consolidation", line)
    assert (found.decision.method, found.decision.nodes) == ("consolidation", (BIG,))
    assert found.verdict == AGREES, found.why


def test_disagrees_on_a_node_a_pod_holds_and_names_its_own_pick():
    [found] = audited("consolidation", disrupting("2024-09-10T02:33:00.180Z", "underutilized", "delete", HELD,
                                                   "default-xgblv", "c5a.2xlarge", 4))
    assert found.verdict == DISAGREES
    assert f"karptui would not disrupt {HELD}: pod has \"karpenter.sh/do-not-disrupt\" annotation" in found.why
    assert f"karptui's first command is delete {BIG} (underutilized)" in found.why


@pytest.mark.parametrize("time,verdict", [("2024-09-10T02:31:00.180Z", DISAGREES),
                                          ("2024-09-10T03:05:00.180Z", AGREES)])
def test_a_scheduled_budget_counts_at_the_decision_time(tmp_path, time, verdict):
    """A budget of 0 from 02:30 for 30m: the decision at 02:31 is one karptui's budget forbids; at 03:05,
    after the window, the same command agrees (the clock is the decision's, not the capture's)."""
    text = bundled_snapshot("consolidation").read_text()
    assert text.count("      budgets:\n      - nodes: 10%\n") == 1
    text = text.replace("      budgets:\n      - nodes: 10%\n", "      budgets:\n      - nodes: 10%\n"
                        "      - nodes: \"0\"\n        schedule: \"30 2 * * *\"\n        duration: 30m\n")
    path = tmp_path / "budgeted.yaml"
    path.write_text(text)
    [found] = audited(load_snapshot(path), disrupting(time, "underutilized", "delete", BIG, "default-hp9st",
                                                     "c5a.xlarge", 4))
    assert found.verdict == verdict, found.why
    if verdict == DISAGREES:
        assert found.why.startswith(f"the budget allowed 0 at 2024-09-10 02:31:00Z for {BIG} (NodePool \"default\" "
                                    "allows no more Underutilized disruptions now")
        assert 'schedule "30 2 * * *"' in found.why


def without_do_not_disrupt(tmp_path):
    """The consolidation snapshot with the report-generator's do-not-disrupt annotation taken off (pod and
    templates): karptui then replaces ip-192-168-40-236 first, then ip-192-168-118-56."""
    text = bundled_snapshot("consolidation").read_text()
    path = tmp_path / "no-do-not-disrupt.yaml"
    path.write_text(text.replace('karpenter.sh/do-not-disrupt: "true"', 'team: reports'))
    return load_snapshot(path)


def test_disagrees_on_the_order(tmp_path):
    [found] = audited(without_do_not_disrupt(tmp_path), disrupting(
        "2024-09-10T02:31:00.180Z", "underutilized", "replace", BIG, "default-hp9st", "c5a.xlarge", 4, replacements=1))
    assert found.verdict == DISAGREES
    assert found.why == (f"karptui would pick {HELD} first (replace {HELD} (underutilized) by t3a.xlarge on-demand "
                         "in ap-northeast-2a at $0.1504/h, saving $0.1576/h); it takes Karpenter's command as its #2")


@pytest.mark.parametrize("launched,verdict", [("m5.xlarge", DISAGREES), ("t3a.xlarge", AGREES)])
def test_a_replacement_compared_with_the_one_karptui_finds(tmp_path, launched, verdict):
    """Without the report-generator's do-not-disrupt annotation karptui replaces ip-192-168-40-236 (c5a.2xlarge)
    by a t3a.xlarge at $0.1504/h; Karpenter's replacement (created by the disruption controller right after the
    command, launched as the log says) is compared with it."""
    log = disrupting("2024-09-10T02:31:00.180Z", "underutilized", "replace", HELD, "default-xgblv", "c5a.2xlarge",
                     4, replacements=1) + \
        lifecycle("default-r7mzd", "ip-192-168-50-7.ap-northeast-2.compute.internal", "default", launched,
                  "ap-northeast-2a", "2024-09-10T02:32", steps=("created", "launched"), by="disruption")
    [found] = audited(without_do_not_disrupt(tmp_path), log)
    assert found.decision.replacements == ("default-r7mzd",)
    assert found.verdict == verdict, found.why
    if verdict == DISAGREES:
        assert found.why == ("a cheaper replacement existed: t3a.xlarge on-demand in ap-northeast-2a at $0.1504/h "
                             "(Karpenter launched m5.xlarge at $0.1920/h)")
    else:
        assert found.why.startswith("karptui takes the same command at 2024-09-10 02:31:00Z: replace "
                                    f"{HELD} (underutilized) by t3a.xlarge on-demand in ap-northeast-2a at $0.1504/h")


def test_disagrees_on_the_action():
    """Karpenter replaced the node karptui deletes (its pods fit on the others)."""
    [found] = audited("consolidation", disrupting("2024-09-10T02:31:00.180Z", "underutilized", "replace", BIG,
                                                   "default-hp9st", "c5a.xlarge", 4, replacements=1))
    assert found.verdict == DISAGREES
    assert found.why == (f"karptui would delete rather than replace at 2024-09-10 02:31:00Z: delete {BIG} "
                         "(underutilized), saving $0.1540/h")


def test_disagrees_when_karptui_finds_no_cheaper_replacement():
    [found] = audited("multi-nodepool", disrupting("2024-03-16T07:00:00.180Z", "underutilized", "replace", SPOT,
                                                    "default-qh5xq", "c6i.xlarge", 3, "spot", 1))
    assert found.verdict == DISAGREES
    assert f"karptui would not disrupt {SPOT}: Can't replace with a cheaper node" in found.why
    assert found.karptui == "karptui would disrupt nothing"


def test_a_launch_after_the_capture_is_brought_forward():
    """team1-kn74d launched at 06:49 for the snapshot's two pending pods: in the state at 06:55 they run on
    it, so an emptiness decision on it is one karptui does not take."""
    log = lifecycle("team1-kn74d", NEW, "team1", "a1.xlarge", "ap-northeast-2a", "2024-03-16T06:49") + \
        disrupting("2024-03-16T06:55:00.180Z", "empty", "delete", NEW, "team1-kn74d", "a1.xlarge", 0)
    [found] = audited("multi-nodepool", log)
    assert found.verdict == DISAGREES
    assert f"karptui finds {NEW} not empty: 2 pod(s)" in found.why
    assert "(Karpenter counted 0 pod(s) on its nodes, the state at the decision has 2)" in found.why
    assert "1 NodeClaim(s) launched and 0 node(s) gone since" in found.state


def test_unknown_before_the_capture_and_for_a_node_nobody_logged():
    log = disrupting("2024-09-10T01:31:00.180Z", "underutilized", "delete", BIG, "default-hp9st", "c5a.xlarge", 4) + \
        disrupting("2024-09-10T02:45:00.180Z", "empty", "delete", "ip-192-168-77-1.ap-northeast-2.compute.internal",
                   "default-zzzzz", "c5a.large", 0)
    early, missing = audited("consolidation", log)
    assert early.verdict == missing.verdict == UNKNOWN
    assert early.why == ("no snapshot at or before 2024-09-10 01:31:00Z: the snapshot's cluster is as of "
                         "2024-09-10 02:20:07Z")
    assert missing.why == ("ip-192-168-77-1.ap-northeast-2.compute.internal is in neither the snapshot (as of "
                           "2024-09-10 02:20:07Z) nor the log's launches after it")
    assert early.karptui == missing.karptui == ""


def test_unknown_once_pods_moved_since_the_capture():
    log = disrupting("2024-09-10T02:31:00.180Z", "underutilized", "delete", BIG, "default-hp9st", "c5a.xlarge", 4) + \
        disrupting("2024-09-10T02:33:00.180Z", "underutilized", "delete", HELD, "default-xgblv", "c5a.2xlarge", 4)
    first, second = audited("consolidation", log)
    assert first.verdict == AGREES
    assert second.verdict == UNKNOWN
    assert second.why == (f"pods changed since the capture: {BIG} was disrupted at 2024-09-10 02:31:00Z with 4 pod(s), "
                          "and the log does not say where they went; the snapshot's pods are as of 2024-09-10 02:20:07Z")


def test_unknown_when_the_log_misses_a_launch():
    """The NodeClaim's registration is logged after the capture but not its launch (type, zone unknown)."""
    log = lifecycle("team1-kn74d", NEW, "team1", "a1.xlarge", "ap-northeast-2a", "2024-03-16T06:49",
                    steps=("registered", "initialized")) + \
        disrupting("2024-03-16T06:55:00.180Z", "empty", "delete", NEW, "team1-kn74d", "a1.xlarge", 0)
    [found] = audited("multi-nodepool", log)
    assert found.verdict == UNKNOWN
    assert found.why == "the log after the capture misses team1-kn74d's launch (zone, NodePool not logged)"


def test_unknown_when_pods_appeared_after_the_capture():
    log = ('{"level":"INFO","time":"2024-09-10T02:25:00.100Z","logger":"controller","message":"found provisionable '
           'pod(s)","controller":"provisioner","Pods":"default/web-1, default/web-2","duration":"20ms"}\n') + \
        disrupting("2024-09-10T02:31:00.180Z", "underutilized", "delete", BIG, "default-hp9st", "c5a.xlarge", 4)
    [found] = audited("consolidation", log)
    assert found.verdict == UNKNOWN
    assert found.why.startswith("pods changed since the capture: Karpenter found 2 provisionable pod(s) at "
                                "2024-09-10 02:25:00Z that the snapshot does not hold pending")


def test_expiration_is_said_not_audited():
    line = ('{"level":"INFO","time":"2024-09-10T02:31:00.180Z","logger":"controller","message":"disrupting '
            'nodeclaim(s) via delete, terminating 1 nodes (7 pods) ' + BIG + '/c5a.xlarge/on-demand",'
            '"controller":"disruption","command-id":"x1","reason":"expired"}\n')
    found = audited("consolidation", line)
    assert [(a.decision.method, a.verdict) for a in found] == [("expiration", UNKNOWN)]
    assert found[0].why.startswith("not audited: expiration is no disruption method karptui simulates")


def test_decisions_are_each_command_once():
    log = disrupting("2024-09-10T02:31:00.180Z", "underutilized", "delete", BIG, "default-hp9st", "c5a.xlarge", 4)
    [decision] = decisions(finish(build_history(LogParser().parse(log.splitlines(keepends=True)))).lives)
    assert (decision.nodes, decision.nodeclaims, decision.pod_count) == ((BIG,), ("default-hp9st",), 4)


def test_add_nodes_by_name():
    snap = load_snapshot(bundled_snapshot("multi-nodepool"))
    edit = AddNodes("a1.xlarge", "ap-northeast-2a", nodepool="team1", names=(NEW,))
    assert edit.count == 1 and edit.to_dict()["addNodes"]["names"] == [NEW]
    added = apply_whatif(snap, WhatIf("t", (edit,))).snapshot
    assert added.node_by_name[NEW].nodepool == "team1"
    with pytest.raises(ValueError, match="names must be a list of node names"):
        AddNodes("a1.xlarge", "ap-northeast-2a", names=("Not A Name",))


def test_cli_audit_json_and_table(cli, write):
    log = write("karpenter.log",
                disrupting("2024-09-10T02:31:00.180Z", "underutilized", "delete", BIG, "default-hp9st", "c5a.xlarge", 4)
                + disrupting("2024-09-10T02:33:00.180Z", "underutilized", "delete", HELD, "default-xgblv",
                             "c5a.2xlarge", 4))
    code, out, err = cli("history", log, "--snapshot", "consolidation", "--audit", "-o", "json")
    assert code == 0, err
    doc = json.loads(out)["audit"]
    assert (doc["agrees"], doc["disagrees"], doc["unknown"]) == (1, 0, 1)
    assert [d["verdict"] for d in doc["decisions"]] == ["agrees", "unknown"]
    assert doc["decisions"][0]["decision"]["nodes"] == [BIG] and doc["decisions"][0]["decision"]["line"] == "1"
    assert "audit: 2 decision(s): 1 agree, 0 disagree, 1 unknown" in err
    code, out, _ = cli("history", log, "--snapshot", "consolidation", "--audit", "--since", "2024-09-10T02:32:00Z")
    assert code == 0
    assert "Decision audit (0 agree, 0 disagree, 1 unknown)" in out and "pods changed since the capture" in out


def test_cli_audit_of_a_log_read_in_ranges_sees_its_provisionable_pods(cli, write, monkeypatch):
    """A log large enough to be read by several processes (cut small here) is audited as one read whole:
    the "found provisionable pod(s)" lines counted apart still tell the audit of pods that appeared."""
    from karptui.history import read

    subnets = ('{"level":"DEBUG","time":"2024-09-10T02:2%d:00.000Z","logger":"controller","message":"discovered '
               'subnets","commit":"a2b6190","controller":"nodeclass","subnets":["subnet-0a1","subnet-0b2"]}\n')
    log = write("karpenter.log", "".join(subnets % n for n in range(3)) +
                '{"level":"INFO","time":"2024-09-10T02:25:00.100Z","logger":"controller","message":"found '
                'provisionable pod(s)","controller":"provisioner","Pods":"default/web-1, default/web-2",'
                '"duration":"20ms"}\n' + "".join(subnets % n for n in range(6, 9)) +
                disrupting("2024-09-10T02:31:00.180Z", "underutilized", "delete", BIG, "default-hp9st", "c5a.xlarge", 4))
    monkeypatch.setattr(read, "PARALLEL_MIN_BYTES", 1)
    monkeypatch.setattr(read, "workers", lambda: 3)
    assert len(read._ranges(log, 12)) >= 4
    code, out, err = cli("history", log, "--snapshot", "consolidation", "--audit", "-o", "json")
    assert code == 0, err
    [decision] = json.loads(out)["audit"]["decisions"]
    assert decision["verdict"] == "unknown"
    assert decision["why"].startswith("pods changed since the capture: Karpenter found 2 provisionable pod(s) at "
                                      "2024-09-10 02:25:00Z")


def test_cli_audit_bad_input(cli, write):
    log = write("karpenter.log", "")
    one_line_error(*cli("history", log, "--audit"), "--audit: needs --snapshot S")
    one_line_error(*cli("history", log, "--snapshot", "consolidation", "--audit", "-o", "csv"),
                   "--audit: the audit is in the table and JSON outputs")


def test_an_emptiness_command_karptui_takes_over_fewer_nodes():
    """Three team1 NodeClaims launched after the capture for its two pending pods; Karpenter deletes all three
    as empty at 06:55, karptui finds the pods on two of them and deletes only the third."""
    names = [(NEW, "team1-kn74d"), ("ip-192-168-1-98.ap-northeast-2.compute.internal", "team1-p2x8c"),
             ("ip-192-168-1-97.ap-northeast-2.compute.internal", "team1-w5r2m")]
    log = "".join(lifecycle(claim, node, "team1", "a1.xlarge", "ap-northeast-2a", f"2024-03-16T06:{49 + n}")
                  for n, (node, claim) in enumerate(names))
    line = json.loads(disrupting("2024-03-16T06:55:00.180Z", "empty", "delete", NEW, "team1-kn74d", "a1.xlarge", 0))
    line["disrupted-node-count"] = 3
    line["disrupted-nodes"] = [{"Node": {"name": node}, "NodeClaim": {"name": claim}, "capacity-type": "on-demand",
                                "instance-type": "a1.xlarge"} for node, claim in names]
    [found] = audited("multi-nodepool", log + json.dumps(line) + "\n")
    assert found.decision.nodes == tuple(node for node, _ in names)
    assert found.verdict == DISAGREES
    assert found.why.startswith(f"karptui's command at 2024-03-16 06:55:00Z is delete {NEW} (empty), saving $0.1020/h; "
                                f"karptui finds {names[1][0]} not empty: 1 pod(s); karptui finds {names[2][0]} not "
                                "empty: 1 pod(s)")
    assert "3 NodeClaim(s) launched and 0 node(s) gone since" in found.state


def test_unknown_on_a_snapshot_without_karpenter(tmp_path):
    """A snapshot of nodes only (no NodePool): nothing to simulate Karpenter with."""
    nodes = {"apiVersion": "v1", "kind": "List", "items": [
        {"apiVersion": "v1", "kind": "Node", "metadata": {"name": BIG, "creationTimestamp": "2024-09-10T02:00:00Z"}}]}
    path = tmp_path / "nodes.json"
    path.write_text(json.dumps(nodes))
    [found] = audited(load_snapshot(path), disrupting("2024-09-10T02:31:00.180Z", "underutilized", "delete", BIG,
                                                     "default-hp9st", "c5a.xlarge", 4))
    assert (found.verdict, found.why) == (UNKNOWN, "the snapshot holds no NodePool (or Provisioner): karptui has no "
                                                   "Karpenter configuration to simulate")


def test_a_nodeclaim_that_never_launched_changes_nothing():
    """A NodeClaim created after the capture whose launch failed (insufficient capacity) and which was deleted
    never held a pod: the decision after it is audited."""
    failed = lifecycle("default-9hrmx", "", "default", "c5a.large", "ap-northeast-2a", "2024-09-10T02:25",
                       steps=("created",)) + json.dumps({
        "level": "ERROR", "time": "2024-09-10T02:25:03.196Z", "logger": "controller",
        "message": "failed launching nodeclaim", "commit": "a0a64d0", "controller": "nodeclaim.lifecycle",
        "NodeClaim": {"name": "default-9hrmx"}, "namespace": "", "name": "default-9hrmx",
        "error": "insufficient capacity, all requested instance types were unavailable during launch"}) + "\n"
    [found] = audited("consolidation", failed + disrupting("2024-09-10T02:31:00.180Z", "underutilized", "delete",
                                                             BIG, "default-hp9st", "c5a.xlarge", 4))
    assert found.verdict == AGREES, found.why


def test_on_a_recording_each_decision_is_judged_on_the_recordings_own_state_then(cli, tmp_path):
    """``--snapshot`` a recording: not its newest state brought back (which the decisions all precede, so
    none could be judged), but what it recorded just before each decision, read through its checkpoint;
    without a LOG, the recording's own log is read."""
    from karptui.history.state_at import Recorded
    from karptui.recording import Recording
    from karptui.sources import resolve_snapshot_path

    rec = Recording(resolve_snapshot_path("night-shift"))
    assert rec.checkpoints   # the bundled night has one, at 05:50: the state at its end (08:00) is read from it
    log = tmp_path / "night.log"
    log.write_text("".join(line + "\n" for _, line in rec.logs))
    code, out, err = cli("history", log, "--snapshot", "night-shift", "--audit", "--output", "json")
    assert code == 0, err
    own = cli("history", "--snapshot", "night-shift", "--audit", "--output", "json")   # no LOG: the recording's
    assert own == (0, out, err) and "37 lines: 37 Karpenter events, 7 NodeClaims" in err
    for args in (("history",), ("history", "--snapshot", "consolidation")):
        code, _, said = cli(*args)
        assert code == 2 and said.strip() == ("karptui: LOG: give Karpenter's controller log (files, or - for "
                                              "stdin); only a recording (--snapshot OUT of karptui record) carries "
                                              "its own"), said
    judged = json.loads(out)["audit"]["decisions"]
    assert [a["decision"]["time"][11:19] for a in judged] == ["01:47:20", "02:20:41", "03:12:05", "05:31:12"]
    for a in judged:
        assert a["verdict"] in (AGREES, DISAGREES), a["why"]
        assert a["state"] == f"the recording's state as at 2025-06-02 {a['decision']['time'][11:19]}Z"
    recorded = Recorded(rec)
    node = "ip-10-0-229-214.ec2.internal"   # replaced at 03:12:05, gone by the end
    at = rec.step(rec.start, "decision", 1)
    assert recorded.at(rec.start).unknown.startswith("no recorded state before 2025-06-02 00:00:00Z")
    assert recorded.at(rec.end + timedelta(seconds=1)).unknown.startswith("the recording ends at")
    assert recorded.at(rec.end, [node]).unknown == f"{node} is not in the recording's state before 2025-06-02 08:00:00Z"
    state = recorded.at(at, ["ip-10-0-1-2.ec2.internal"])
    assert state.snapshot.meta.captured_at == at and "ip-10-0-1-2.ec2.internal" in state.snapshot.node_by_name
