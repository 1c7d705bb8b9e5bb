"""The families behind the reader's and the history's misses on held-out sets h and i (issue 30), each tested
across its siblings. Every line is written from the template of the program that writes it (Karpenter, the
AWS provider, Kubernetes' event tables, k9s), never copied from a paste.
"""

import json

import pytest

from karptui.history.builder import build_history
from karptui.history.finish import finish
from karptui.history.why import why
from karptui.logs import LogParser


def parse(lines):
    return {e["line"]: e for e in LogParser().parse(lines)}


def lives(lines):
    return {life.nodeclaim: life for life in finish(build_history(LogParser().parse(lines))).lives}


T = "2022-07-24T21:29:{:02}.000Z"
NODE = "ip-192-168-10-20.us-west-2.compute.internal"


# --- the drain's start: v0.1x "Cordoned node" with the node in its context or its message, v1 "tainted node" -----

@pytest.mark.parametrize("line", [
    f'{T.format(43)}\tINFO\tcontroller.termination\tCordoned node\t{{"commit": "7c21e90", "node": "{NODE}"}}',
    f'{T.format(43)}\tINFO\tcontroller.Termination\tCordoned node {NODE}\t{{"commit": "7c21e90"}}',
    json.dumps({"level": "INFO", "time": T.format(43), "logger": "controller.node.termination",
                "message": "tainted node", "commit": "6d2e8b1", "node": NODE}),
    json.dumps({"level": "INFO", "time": T.format(43), "logger": "controller.node.termination",
                "message": "tainted node", "commit": "6d2e8b1", "node": NODE, "taint.Key": "karpenter.sh/disrupted",
                "taint.Value": "", "taint.Effect": "NoSchedule"}),
])
def test_the_drain_begins_with_every_eras_line(line):
    disrupt = f'{T.format(42)}\tINFO\tcontroller.node\tTriggering termination after 30s for empty node {NODE}\t' \
              '{"commit": "7c21e90"}'
    got = lives([disrupt, line])[NODE]
    assert got.steps == ("disrupted", "drained") and got.drained is not None
    assert parse([line])[1]["node"] == NODE


def test_a_cordoned_node_word_is_no_node():
    assert "node" not in parse([f'{T.format(43)}\tINFO\tcontroller.termination\tCordoned node and more\t{{}}'])[1]


# --- garbage collection: the NodeClaim went because its instance had gone -----------------------------------------

@pytest.mark.parametrize("line,claim", [
    ((f'{T.format(39)}\tDEBUG\tcontroller.machine.garbagecollection\tgarbage collecting machine  with no cloudprovider '
     'representation\t{"commit": "9a3f61c", "provisioner": "gpu", "machine": "gpu-k7d2m", '
     '"provider-id": "aws:///us-east-1b/i-0b3d7f1a9e5c28460"}'), "gpu-k7d2m"),
    (json.dumps({"level": "DEBUG", "time": T.format(39), "logger": "controller",
                 "message": "garbage collecting nodeclaim with no cloudprovider representation", "commit": "4d9b2e7",
                 "controller": "nodeclaim.garbagecollection", "NodeClaim": {"name": "general-x2c9f"},
                 "Node": {"name": NODE}, "provider-id": "aws:///us-west-2a/i-0123456789abcdef0"}), "general-x2c9f"),
])
def test_a_garbage_collected_nodeclaim_went(line, claim):
    found = parse([line])[1]
    assert (found["kind"], found["nodeclaim"], found["reason"]) == ("other", claim, "garbage_collected")
    got = lives([line])[claim]
    assert got.end_reason == "garbage_collected" and got.garbage_collected is not None
    assert "garbage-collected" in why(got) and "not a disruption" in why(got)


# --- v0.9-v0.16: "Created node with ..." right after its own "Launched instance" ---------------------------------

LAUNCH = ("{t}\tINFO\tcontroller.provisioning\tLaunched instance: i-0e5a2c9d71f4b3806, hostname: {host}, type: {type}, "
          'zone: eu-west-1b, capacityType: spot\t{{"commit": "b3e07d2", "provisioner": "default"}}')
CREATED = ('{t}\tINFO\tcontroller.provisioning\tCreated node with 1 pods requesting {{"cpu":"1125m","pods":"3"}} '
           'from types {types}\t{{"commit": "b3e07d2", "provisioner": "default"}}')


@pytest.mark.parametrize("itype,types,gap,paired", [
    ("t3.medium", "c4.large, t3.medium, c5a.large", 0, True),
    ("t3.medium", "c4.large, c6a.large and 306 other(s)", 1, True),         # among the others
    ("t3.medium", "c4.large, c6a.large", 1, False),                          # not among the whole list
    ("t3.medium", "c4.large, t3.medium and 4 other(s)", 30, False),          # half a minute later: another call
])
def test_a_nameless_creation_is_the_launch_just_before_it(itype, types, gap, paired):
    got = lives([LAUNCH.format(t=T.format(10), host=NODE, type=itype),
                 CREATED.format(t=T.format(10 + gap), types=types)])[NODE]
    assert ("created" in got.steps) is paired
    assert (got.nodepool == "default") is paired


def test_a_creation_before_its_launch_still_waits_for_it():
    older = ('{t}\tINFO\tcontroller.provisioning\tLaunching node with 2 pods requesting {{"cpu":"1"}} from types '
             'm5.large\t{{"commit": "5ad27c3", "provisioner": "default"}}')
    got = lives([older.format(t=T.format(1)), LAUNCH.format(t=T.format(3), host=NODE, type="m5.large")])[NODE]
    assert got.steps == ("created", "launched")


@pytest.mark.parametrize("tail,host", [
    (f", hostname: {NODE}", NODE),
    (f", hostname: {NODE}, type: t3.med", NODE),
    (", hostname: ip-192-168-10", None),         # cut inside the hostname: not a node
])
def test_a_launch_line_cut_after_its_hostname(tail, host):
    found = parse([f"{T.format(5)}\tINFO\tcontroller.provisioning\tLaunched instance: i-0f18a6c3e5d2b7940{tail}"])[1]
    assert found["kind"] == "nodeclaim_launched" and found.get("nodeclaim") == host


# --- a disruption line cut inside its list: the command's size outlives the names ---------------------------------

@pytest.mark.parametrize("head", ["deprovisioning via consolidation delete, terminating 8 nodes",
                                  "disrupting via consolidation delete, terminating 8 candidates"])
def test_a_cut_candidate_list_keeps_the_commands_size(head):
    names = [f"ip-10-0-{i}-{i}.ec2.internal/m5.large/spot" for i in range(1, 5)]
    line = f"{T.format(55)}\tINFO\tcontroller.deprovisioning\t{head} {', '.join(names)}, ip-10-0-5-5.ec2.inter"
    found = parse([line])[1]
    assert found["node_count"] == 8 and found["nodes"] == [n.split("/")[0] for n in names]
    got = lives([line])["ip-10-0-1-1.ec2.internal"]
    assert got.disruption.node_count == 8 and got.disruption.to_dict()["node_count"] == 8
    assert len(got.disruption.others) == 3


def test_a_whole_list_names_every_node():
    line = f"{T.format(55)}\tINFO\tcontroller.deprovisioning\tdeprovisioning via consolidation delete, terminating " \
           "2 nodes ip-10-0-1-1.ec2.internal/m5.large/spot, ip-10-0-2-2.ec2.internal/m5.large/spot"
    assert parse([line])[1]["nodes"] == ["ip-10-0-1-1.ec2.internal", "ip-10-0-2-2.ec2.internal"]


# --- records wrapped and then cut ---------------------------------------------------------------------------------

def test_a_record_wrapped_between_pairs_and_cut_keeps_its_later_pairs():
    lines = ['{"level":"INFO","time":"2024-03-10T22:46:10.959Z","logger":"controller.nodeclaim.termination",',
             '"message":"deleted nodeclaim","commit":"6d2e8b1","nodeclaim":"spot-r7k2d","node":"' + NODE + '"', "```"]
    found = parse(lines)[1]
    assert (found["kind"], found["nodeclaim"], found["node"]) == ("node_terminated", "spot-r7k2d", NODE)


def test_a_wrap_inside_a_message_keeps_its_space():
    lines = ['{"level":"INFO","time":"2024-03-10T22:46:09.544Z","logger":"controller.disruption",',
             '"message":"disrupting via emptiness delete, ',
             f'terminating 1 candidates {NODE}/t3.small/spot","commit":"6d2e8b1"}}']
    assert parse(lines)[1]["nodes"] == [NODE]


def test_a_pretty_printed_record_cut_in_its_error_keeps_its_pod():
    record = ["{", '   "level":"ERROR",', '   "time":"2025-01-11T19:37:06.957Z",', '   "logger":"controller",',
              '   "message":"could not schedule pod",', '   "Pod":{', '      "name":"api-5f8c2d9b6e-tq4wx",',
              '      "namespace":"ledger"', "   },",
              '   "error":"incompatible with nodepool \\"metrics\\", did not tolerate a=b:NoSchedule; incompatible w']
    found = parse(record)[1]
    assert (found["kind"], found["pod"]) == ("pod_unschedulable", "ledger/api-5f8c2d9b6e-tq4wx")
    assert found["nodepools"][0]["name"] == "metrics"


def test_a_record_that_lost_its_brace_keeps_its_escaped_tabs():
    whole = json.dumps({"level": "FATAL", "time": "2024-07-10T17:15:33.196Z", "logger": "controller",
                        "message": "Checking EC2 API connectivity, AccessDenied\n\tstatus code: 403", "commit": "b8e41d6"})
    found = parse([whole[1:]])[1]
    assert (found["kind"], found["level"]) == ("other", "error")


# --- event rows a viewer reshaped ---------------------------------------------------------------------------------

@pytest.mark.parametrize("row,kind", [
    (('│ Warning FailedScheduling 7s karpenter Failed to schedule pod, incompatible with nodepool "default", '
     'daemonset overhead={"cpu":"150m","pods":"3"}, did not tolerate a=b:NoSchedule │'), "pod_unschedulable"),
    (('│ Warning FailedScheduling 3m (x4 over 9m) karpenter Failed to schedule pod, incompatible with provisioner '
     '"dev", incompatible requirements, key nodeType, nodeType In [dev] not in nod │'), "pod_unschedulable"),
    ("│ Normal DisruptionBlocked 2m karpenter Cannot disrupt Node: state node is nominated for a pending pod │",
     "disruption_blocked"),
    ("│ Normal Nominated 2m default-scheduler Pod should schedule on: nodeclaim/x │", None),   # not Karpenter's
    ("│ Warning FailedScheduling 7s default-scheduler 0/3 nodes are available │", None),
])
def test_a_single_spaced_describe_row(row, kind):
    found = parse([row])
    assert (found[1]["kind"] if found else None) == kind
    if kind == "pod_unschedulable":
        assert found[1]["nodepools"][0]["name"] in ("default", "dev")


@pytest.mark.parametrize("row,want", [
    ("nodeclaim/general-x2c9f    Disrupting NodeClaim: Underutilized",
     {"kind": "other", "event": "DisruptionTerminating", "nodeclaim": "general-x2c9f", "method": "underutilized"}),
    ("node/ip-10-0-33-209.ec2.internal   Disrupting Node: Expiration/Replace",
     {"kind": "other", "method": "expiration", "action": "replace", "node": "ip-10-0-33-209.ec2.internal"}),
    ("nodeclaim/...     Disrupting NodeClaim: Drifted", {"kind": "other", "method": "drift", "nodeclaim": None}),
    ("pod/web-1   Evicted pod: Underutilized", {"kind": "other", "event": "Evicted", "pod": "web-1"}),
    ("pod/web-1   Started container web", None),
])
def test_an_events_table_cut_to_object_and_message(row, want):
    found = parse([row])
    if want is None:
        assert found == {}
    else:
        assert {k: found[1].get(k) for k in want} == want


def test_event_rows_give_the_steps_of_a_life():
    rows = [("  Normal  Launched    9m  karpenter  Status condition transitioned, Type: Launched, Status: Unknown -> True, "
            "Reason: Launched"),
            ("  Normal  Registered  5m  karpenter  Status condition transitioned, Type: Registered, Status: Unknown -> True, "
            "Reason: Registered"),
            "  Normal  DisruptionTerminating  19s  karpenter  Disrupting NodeClaim: Underutilized"]
    events = [dict(e, nodeclaim="pool-q4k8z") for e in LogParser().parse(rows)]
    got = {life.nodeclaim: life for life in finish(build_history(events)).lives}["pool-q4k8z"]
    assert got.steps == ("launched", "registered", "disrupted") and got.disruption.method == "underutilized"


def test_a_nodeclaims_terminating_row_after_its_nodes_is_one_life():
    rows = ["default  0s  Normal   DisruptionTerminating  node/ip-10-0-33-209.ec2.internal   Disrupting Node: Drifted",
            "default  0s  Normal   DisruptionTerminating  nodeclaim/gpu-t7m2p   Disrupting NodeClaim: Drifted",
            ("default  0s  Warning  FailedDraining  node/ip-10-0-33-209.ec2.internal   Failed to drain node, 4 pods are "
            "waiting to be evicted")]
    got = lives(rows)
    assert list(got) == ["gpu-t7m2p"] and got["gpu-t7m2p"].node == "ip-10-0-33-209.ec2.internal"
    assert got["gpu-t7m2p"].steps == ("disrupted", "drained") and got["gpu-t7m2p"].end_reason == "drift"


# --- Karpenter's own words pasted alone, and named in prose -------------------------------------------------------

@pytest.mark.parametrize("line,kind", [
    (('`Provisioning failed, getting volume topology requirements, getting persistent volume claim data\t'
     '{"commit": "6b0d3f2"}`'), "other"),
    ("Provisioning failed, launching node, creating cloud provider instance, no instance types", "launch_failed"),  # set o
    ("I was stuck with the `waiting on cluster sync` logs instead.", None),
    ("karpenter logs `DEBUG\tcontroller.provisioner\twaiting on cluster sync` forever", "other"),
    ("The log says `waiting on cluster sync`", "other"),            # the span ends the line: the line pasted
    ('`Starting workers\t{"commit": "089ce6b", "worker count": 10}`', None),
])
def test_karpenters_words_alone_or_named(line, kind):
    found = parse([line])
    assert (found[1]["kind"] if found else None) == kind


def test_a_clusters_events_add_steps_only_to_lives_the_log_shows():
    """A snapshot's (or --events') events name every NodeClaim of the cluster: they make no life of their own."""
    row = {"line": 0, "time": "2024-05-01T10:00:00Z", "level": "", "kind": "other", "event": "DisruptionTerminating",
           "message": "Disrupting NodeClaim: Drifted", "method": "drift", "origin": "event"}
    launched = {"line": 1, "time": "2024-05-01T09:00:00Z", "level": "info", "kind": "nodeclaim_launched",
                "nodeclaim": "seen-a1b2c", "instance_type": "m5.large"}
    got = {life.nodeclaim: life for life in finish(build_history(
        [launched, dict(row, nodeclaim="seen-a1b2c"), dict(row, nodeclaim="unseen-d3e4f")])).lives}
    assert list(got) == ["seen-a1b2c"] and got["seen-a1b2c"].end_reason == "drift"


# --- set j's families (issue 30): lines written from the templates, not copied ---------------------------------

@pytest.mark.parametrize("line,kind,error", [
    # v0.2x's machine lifecycle: "creating machine, %w", its context cut down to the error pair by the author
    (f'{T.format(1)}\tERROR\tcontroller\tReconciler error ...  "error": "creating machine, creating instance, '
     'no subnets found"}', "launch_failed", "creating machine, creating instance, no subnets found"),
    # the same, and the paste ends inside the error
    (f'{T.format(1)}\tERROR\tcontroller\tReconciler error … "error": "creating machine, creating instance, no subn',
     "launch_failed", "creating machine, creating instance, no subn"),
    # an ellipsis in the message with no pair after it is the message's own
    (f'{T.format(1)}\tINFO\tcontroller.provisioner\twaiting ... for "cluster sync"', "other", None),
])
def test_a_context_cut_down_to_its_last_pairs(line, kind, error):
    found = parse([line])[1]
    assert found["kind"] == kind and found.get("error") == error


@pytest.mark.parametrize("line,kind", [
    ('{"level":"DEBUG","time', "other"),                 # zap's head, cut inside its second key's name
    ('{"level":"DEBUG","logger', "other"),
    ('{"level":"DEBUG","ti', None),                      # too little to say whose
    ('{"level":"DEBUG","caller', None),
])
def test_a_record_cut_inside_its_head(line, kind):
    found = parse([line])
    assert (found[1]["kind"] if found else None) == kind


@pytest.mark.parametrize("line,kind", [
    # Go's log/slog JSON handler (time, level, msg): another program's, whole or cut
    ('{"time":"2025-11-10T21:11:23.281426826Z","level":"ERROR","msg":"finished call","source":"ApiRequestLog",'
     '"status_code":404}', None),
    ('{"time":"2025-11-10T21:11:23.281426826Z","level":"ERROR","msg":"finished call","source":"ApiReq', None),
    # knative's and controller-runtime's "msg" after zap's level: the Karpenter process's own
    ('{"level":"info","ts":1710406885.39,"logger":"fallback","caller":"injection/injection.go:61",'
     '"msg":"Starting informers..."}', "other"),
])
def test_slog_records_are_another_programs(line, kind):
    found = parse([line])
    assert (found[1]["kind"] if found else None) == kind


@pytest.mark.parametrize("row,kind,field", [
    ("0s Normal DisruptionBlocked nodepool/default No allowed disruptions due to blocking budget",
     "disruption_blocked", ("reason", "No allowed disruptions due to blocking budget")),
    ("12m Normal Unconsolidatable node/" + NODE + " Can't replace with a cheaper node",
     "unconsolidatable", ("node", NODE)),
    ("Normal DisruptionBlocked nodeclaim/default-x2x9q Node is deleting or marked for deletion",
     "disruption_blocked", ("nodeclaim", "default-x2x9q")),
    ("5m Normal Pulled pod/web-7d9c Successfully pulled image", None, None),   # not one of Karpenter's reasons
])
def test_a_get_events_row_joined_with_single_spaces(row, kind, field):
    found = parse([row])
    assert (found[1]["kind"] if found else None) == kind
    if field:
        assert found[1][field[0]] == field[1]


def test_instance_terminating_after_a_disruption_is_the_termination():
    """Deleting a disrupted NodeClaim terminates its instance; the state-change notice comes back through the
    interruption queue as InstanceTerminating. That is how the life ended, not an interruption of it; on a
    NodeClaim nothing disrupted, the same row is an interruption."""
    rows = [f"{m}m          Normal    {r:<24}  node/{n}    {text}" for m, r, n, text in (
        (53, "DisruptionTerminating", NODE, "Disrupting Node: Underutilized/Delete"),
        (52, "InstanceTerminating", NODE, "Instance is terminating"),
        (51, "InstanceTerminating", "ip-10-0-0-9.ec2.internal", "Instance is terminating"),
    )]
    got = {life.node: life for life in finish(build_history(LogParser().parse(rows))).lives}
    disrupted, other = got[NODE], got["ip-10-0-0-9.ec2.internal"]
    assert "terminated" in disrupted.steps and "interrupted" not in disrupted.steps
    assert disrupted.end_reason == "underutilized" and disrupted.interruption is None
    assert other.end_reason == "interruption" and "interrupted" in other.steps


def test_a_launch_failure_is_a_step_of_its_life():
    line = json.dumps({"level": "ERROR", "time": T.format(5), "logger": "controller", "message": "Reconciler error",
                       "controller": "nodeclaim.lifecycle", "NodeClaim": {"name": "default-q7x2m"},
                       "error": "launching nodeclaim, creating instance, with fleet error(s), UnauthorizedOperation"})
    life = lives([line])["default-q7x2m"]
    assert life.steps == ("launch_failed",) and life.end_reason == "launch_failed"


# --- set k's families (issue 30) ------------------------------------------------------------------------------

@pytest.mark.parametrize("line,kind", [
    # a log store's event lines: "COUNTx REASON: MESSAGE (OBJECT.EVENTID)", indented by the page
    ("    43x Nominated: Pod should schedule on: nodeclaim/gpu-k7w2p, node/ip-10-0-1-2.ec2.internal (web-1.18081a03c5e7d912)",
     "pod_nominated"),
    ("    FailedScheduling: Failed to schedule pod, would schedule against uninitialized nodeclaim/gpu-k7w2p (web-2.1a)",
     "pod_unschedulable"),
    ("    FailedScheduling: 0/3 nodes are available: 3 Insufficient cpu. (web-2.1a)", None),   # kube-scheduler's
    # a describe table quoted in Go comments of a test
    ("\t\t\t//   Normal  Launched  10m  karpenter  Status condition transitioned, Type: Launched, Status: Unknown -> True, "
     "Reason: Launched", "other"),
    ("//   Normal  DisruptionBlocked  6m57s (x3 over 10m)  karpenter  Nodeclaim does not have an associated node",
     "disruption_blocked"),
])
def test_event_lines_of_log_stores_and_comments(line, kind):
    found = parse([line])
    assert (found[1]["kind"] if found else None) == kind
    if kind == "disruption_blocked":
        assert found[1]["reason"] == "Nodeclaim does not have an associated node"


def test_get_events_across_namespaces_names_the_pods_namespace():
    row = "pets       10m     Normal   Nominated           pod/web-5d9b7c8f46-q7t2x   Pod should schedule on: nodeclaim/default-h8v2c"
    found = parse([row])[1]
    assert found["kind"] == "pod_nominated" and found["pod"] == "pets/web-5d9b7c8f46-q7t2x"
    assert found["nodeclaim"] == "default-h8v2c"


def test_a_message_with_the_pairs_its_author_kept():
    found = parse(['"launched nodeclaim"..."capacity-type":"on-demand"     # fell back to on-demand'])[1]
    assert found["kind"] == "nodeclaim_launched" and found["capacity_type"] == "on-demand"


def test_a_describe_table_without_its_object_is_one_unnamed_life():
    """Every row of a pasted describe table is the described object's: rows a few lines apart make one life,
    keyed by its first line, null as a name in the JSON; a second table further down is another life."""
    row = "  Normal  {0:<12} 4m  karpenter  Status condition transitioned, Type: {0}, Status: Unknown -> True, Reason: {0}"
    lines = [row.format("Launched"), row.format("Registered"), "", "", "", "", row.format("Initialized")]
    got = list(lives(lines).values())
    assert [(life.nodeclaim, life.steps) for life in got] == [
        ("(unnamed, line 1)", ("launched", "registered")), ("(unnamed, line 7)", ("initialized",))]
    assert got[0].to_dict()["nodeclaim"] is None and got[0].to_dict()["lines"] == ["1", "2"]


def test_a_creation_no_launch_followed_is_an_unnamed_life():
    line = json.dumps({"level": "INFO", "time": T.format(1), "logger": "controller.provisioner",
                       "message": "launching machine with 1 pods requesting {\"cpu\":\"1\"} from types c6i.large, "
                                  "c6i.xlarge", "provisioner": "default"})
    (life,) = lives([line]).values()
    assert life.steps == ("created",) and not life.named and life.nodepool == "default"
    assert life.requested_types == ("c6i.large", "c6i.xlarge")


def test_a_nodeclaim_row_before_its_nodes_row_is_one_life():
    rows = ["default  34s  Normal  DisruptionTerminating  nodeclaim/default-z4p9k  Disrupting NodeClaim: Empty",
            "default  34s  Normal  DisruptionTerminating  node/aks-default-z4p9k  Disrupting Node: Empty",
            "default  24s  Normal  DisruptionBlocked  node/aks-default-z4p9k  Node is deleting or marked for deletion",
            "default  18s  Normal  Drained  nodeclaim/default-z4p9k  Status condition transitioned, Type: Drained, "
            "Status: Unknown -> True, Reason: Drained"]
    (life,) = lives(rows).values()
    assert (life.nodeclaim, life.node) == ("default-z4p9k", "aks-default-z4p9k")
    assert life.steps == ("disrupted", "drained") and life.end_reason == "emptiness"


# --- set l's families (issue 30): v0.3's node era -------------------------------------------------------------

NODE3 = "ip-192-168-58-144.us-west-2.compute.internal"


@pytest.mark.parametrize("message,method", [
    (f"Triggering termination for empty node {NODE3}", "emptiness"),                          # v0.3.0
    (f"Triggering termination after 5m0s for empty node {NODE3}", "emptiness"),               # v0.3.4-v0.4
    (f"Triggering termination for expired node {NODE3} after 720h0m0s (+1.13ms)", "expiration"),
    (f"Triggering termination after 1m40s (+1.132343ms) for expired node {NODE3}", "expiration"),   # a dev build
])
def test_v03_ttl_lines_name_their_node(message, method):
    found = parse([f"2021-08-03T14:41:52.463Z\tINFO\tcontroller.Reallocation\t{message}"])[1]
    assert (found["kind"], found["method"], found["nodes"]) == ("disruption", method, [NODE3])


def test_v03_terminated_instance_is_the_nodes_end():
    lines = [f"2021-08-03T14:41:52.463Z\tINFO\tcontroller.Reallocation\tTriggering termination for empty node {NODE3}",
             f"2021-08-03T14:41:52.703Z\tINFO\tcontroller.Termination\tTerminated instance {NODE3}",
             "2021-08-03T14:41:53.000Z\tINFO\tcontroller.Termination\tTerminated instance ..."]
    found = parse(lines)
    assert (found[2]["kind"], found[2]["node"]) == ("node_terminated", NODE3)
    assert found[3]["kind"] == "other"                       # an elided name names nothing
    life = lives(lines)[NODE3]
    assert life.end_reason == "emptiness" and "terminated" in life.steps


@pytest.mark.parametrize("lead", ["_", "*", "  _"])
def test_markdown_emphasis_before_the_level(lead):
    line = (f'{lead}ERROR   controller.provisioner  Could not schedule pod, incompatible with provisioner "generic", '
            'no instance type satisfied resources {"cpu":"1"} and requirements karpenter.sh/capacity-type In [spot]')
    assert parse([line])[1]["kind"] == "pod_unschedulable"


# --- set m's families (issue 30) ------------------------------------------------------------------------------

def test_a_container_runtimes_framing_after_kubectls_timestamp():
    line = ("2023-11-18T04:46:59.278237023Z stdout F 2023-11-18T04:46:59.278Z\tDEBUG\tcontroller.machine.lifecycle\t"
            'initialized machine\t{"commit": "7e41b0c", "machine": "api-t6m3k", "provisioner": "api", "provider-id": "aws:///us-ea')
    found = parse([line])[1]
    assert (found["kind"], found["nodeclaim"]) == ("nodeclaim_initialized", "api-t6m3k")


@pytest.mark.parametrize("line,kind", [
    ('    {"level":"INFO","time"', "other"),          # cut after its second key's name, quote and all
    ('{"level":"INFO","time":', "other"),
    ("# INFO controller.deprovisioning deprovisioning via consolidation delete, terminating 1 machines ...", "disruption"),
    ("# 2023-06-01T10:00:00.000Z\tINFO\tcontroller.termination\tcordoned node ...", "other"),
    ("# Deprovisioning via consolidation", None),      # a heading, not a line
])
def test_cut_heads_and_shell_comments(line, kind):
    found = parse([line])
    assert (found[1]["kind"] if found else None) == kind


@pytest.mark.parametrize("line,kind", [
    # an event's message alone, whole, in a code span mid-sentence: the author quotes what they see
    ("I see the event `Cannot disrupt Node: state node doesn't contain both a node and a nodeclaim` on one node",
     "disruption_blocked"),
    # REASON: MESSAGE in double quotes
    ('All nodes had "Unconsolidatable: not all pods would schedule". One did not.', "unconsolidatable"),
    # the same in a code span is the author's shorthand (j-023), and an elided name names a kind of event
    ("then `Nominated: Pod should schedule on: nodeclaim/default-p4nzt` and it went on", None),
    ("I see `Cannot disrupt Node: ...` everywhere", None),
    # a line's own columns in a span: the line pasted, though its message is no template of ours
    ("In 0.15 I get this: `\tcontroller.provisioning\tIgnoring pod, label karpenter.sh/provisioner-name is restricted` "
     "So maybe", "other"),
])
def test_quoted_in_prose(line, kind):
    found = parse([line])
    assert (found[1]["kind"] if found else None) == kind


def test_a_disruption_naming_nobody_is_the_only_running_nodeclaims():
    """A paste trimmed to ``message`` and a few keys: one NodeClaim launched, then "terminating 1 nodes" naming
    none. It can only be that one; with two running, nothing says which, and the disruption is a life unnamed."""
    launched = [json.dumps({"level": "INFO", "message": "launched nodeclaim", "NodeClaim": {"name": n},
                            "instance-type": "c6i.xlarge"}) for n in ("live-k7t2w", "live-q2m4x")]
    disrupt = json.dumps({"level": "INFO", "message": "disrupting nodeclaim(s) via delete, terminating 1 nodes",
                          "reason": "empty"})
    one = lives([launched[0], disrupt])["live-k7t2w"]
    assert one.end_reason == "emptiness" and "disrupted" in one.steps
    two = lives([*launched, disrupt])   # then the disruption is a life of its own, unnamed
    assert {k: life.end_reason for k, life in two.items() if life.named} == {"live-k7t2w": "running",
                                                                              "live-q2m4x": "running"}
    assert [life.end_reason for life in two.values() if not life.named] == ["emptiness"]


# --- sets n and o (issue 30): every line written from its program's template, not copied from a paste ------------

NODE_B = "ip-10-4-17-203.eu-central-1.compute.internal"


@pytest.mark.parametrize("line,kind,fields", [
    # an author's time of day alone, the message, "..." for the pairs left out, then those kept as key=value
    ("14:22:07.118  disrupting node(s) ... decision=delete", "disruption", {"action": "delete"}),
    ("14:22:07.118  disrupting node(s) ... reason=underutilized decision=replace   (+31,02s)", "disruption",
     {"action": "replace", "method": "underutilized"}),
    # without "..." or pairs, a time of day before prose stays prose
    ("14:22:07.118  we restarted the controller", None, {}),
    # a markdown table row: the first thing its cells quote decides, not a record in a later cell
    ("| pool has no types | `Warning NoCompatibleInstanceTypes karpenter NodePool requirements filtered out all "
     "compatible available instance types` | `{\"level\":\"ERROR\",\"message\":\"could not schedule pod\"}` |",
     "other", {"event": "NoCompatibleInstanceTypes"}),
    ("| `DoNotSchedule` spread | `Warning FailedScheduling karpenter Failed to schedule pod, incompatible with nodepool "
     "\"spot\", no instance type satisfied resources` | `{\"level\":\"ERROR\",\"message\":\"x\"}` |",
     "pod_unschedulable", {}),
    # a log line written by its parts, each in its own code span
    ("| 10:41:02 | log: `disrupting node(s)` `controller: disruption` `decision: delete` |", "disruption",
     {"action": "delete"}),
    ("| 10:41:03 | log: `tainted node` `karpenter.sh/disrupted:NoSchedule` |", "other", {}),
    # get events cut of its LAST SEEN column: TYPE REASON OBJECT MESSAGE; an elided object names nothing
    ("Normal  DisruptionTerminating  node/ip-...  Disrupting Node: Underutilized/Delete", "other",
     {"method": "underutilized"}),
    ("Normal  DisruptionTerminating  node/" + NODE_B + "  Disrupting Node: Empty/Delete", "other", {"node": NODE_B}),
    # kubectl events: OBJECT as Kind/NAME, and TYPE and REASON one space apart in a retyped row
    ("2026-03-02T08:11:57Z Warning FailedScheduling  Pod/api-7d9c8b6f5-x2k4q     Failed to schedule pod, no instance "
     "type has enough resources", "pod_unschedulable", {"pod": "api-7d9c8b6f5-x2k4q"}),
    # v1.9+'s two limits errors name their pool however the pair is written
    ("Warning FailedScheduling karpenter Failed to schedule pod, node limits have been exhausted for nodepool, "
     "NodePool=gpu", "pod_unschedulable", {"nodepools": [{"name": "gpu",
                                                            "reason": "node limits have been exhausted for nodepool, NodePool=gpu"}]}),
    # v0.5-v0.16 launch failures: logger-first (no time, no level), and "Provisioning failed, launching node, ..."
    ("controller.provisioning\tLaunching node, creating cloud provider machine, with fleet error(s), "
     "InsufficientInstanceCapacity: none\t{\"commit\": \"1a2b3c4\", \"provisioner\": \"batch\"}", "launch_failed",
     {"nodepool": "batch"}),
    ("2022-03-04T05:06:07.890Z\tERROR\tcontroller.provisioning\tProvisioning failed, launching node, creating cloud "
     "provider instance, with fleet error(s), InvalidParameter: bad\t{\"commit\": \"1a2b3c4\"}", "launch_failed", {}),
    ("2022-03-04T05:06:07.890Z\tERROR\tcontroller.provisioning\tProvisioning failed, all available instance types "
     "exceed limits\t{\"commit\": \"1a2b3c4\"}", "other", {}),
    # v0.4: controller-runtime's Reconciler error over the allocator's "launching N instance(s)"
    ("2021-09-01T01:02:03.456Z\tERROR\tcontroller.controller.Allocation\tReconciler error\t{\"commit\": \"9f8e7d6\", "
     "\"reconciler group\": \"karpenter.sh\", \"reconciler kind\": \"Provisioner\", \"name\": \"general\", "
     "\"namespace\": \"\", \"error\": \"launching 2 instance(s), with fleet error(s), UnfulfillableCapacity: no\"}",
     "launch_failed", {"nodepool": "general"}),
    # removing an offering: the interruption controller's (its reason is the message's kind), or the ICE cache's
    ('{"level":"DEBUG","message":"removing offering from offerings","reason":"RebalanceRecommendationKind"}',
     "interruption", {"action": "remove_offering", "message_kind": "rebalance_recommendation"}),
    ('{"level":"DEBUG","message":"removing offering from offerings","reason":"InsufficientInstanceCapacity"}',
     "other", {}),
    # v0.20's consolidation said why a node stayed, before the Unconsolidatable event did
    ("2022-12-01T10:00:00.000Z\tINFO\tcontroller.deprovisioning\tnode " + NODE_B + " can't be consolidated, not all "
     "pods would schedule\t{\"commit\": \"abc1234\"}", "unconsolidatable",
     {"node": NODE_B, "reason": "not all pods would schedule"}),
    # a quoted message, then a few of its fields in the author's words, or its object's name alone
    ('"disrupting node(s)"  command: Underutilized, decision: replace, disrupted-node-count: 2', "disruption",
     {"method": "underutilized", "action": "replace"}),
    ('"deleted node"     ' + NODE_B, "node_terminated", {"node": NODE_B}),
])
def test_set_n_and_o_families(line, kind, fields):
    reads_as(line, kind, fields)


def reads_as(line: str, kind: str | None, fields: dict) -> None:
    """One line alone is read as ``kind`` (None: as no line of Karpenter's), with ``fields``."""
    found = parse([line]).get(1)
    assert (found["kind"] if found else None) == kind
    for key, value in fields.items():
        assert found.get(key) == value, key


def test_a_whole_record_in_a_code_span_is_not_joined_with_the_next():
    first = '`{"level":"DEBUG","time":"2024-02-02T10:00:00.000Z","logger":"controller","message":"waiting on cluster sync"}`'
    second = ('`{"level":"ERROR","time":"2024-02-02T10:00:01.000Z","logger":"controller","message":"could not schedule '
              'pod","Pod":{"name":"a","namespace":"b"},"error":"incompatible with nodepool \\"x\\", no instance type '
              'satisfied resources"}`')
    found = parse([first, "", second])
    assert (found[1]["kind"], found[3]["kind"]) == ("other", "pod_unschedulable")


def test_a_braceless_record_one_pair_to_a_line():
    lines = ['"message":"failed launching nodeclaim",', '"NodeClaim":{"name":"spot-x7k2p"},',
             '"error":"creating instance, insufficient capacity"', "", '"message":"waiting on cluster sync",',
             '"controller":"x"']
    found = parse(lines)
    assert found[1]["kind"] == "launch_failed" and found[1]["nodeclaim"] == "spot-x7k2p"
    assert found[5]["kind"] == "other" and set(found) == {1, 5}


def test_a_console_list_hard_wrapped_mid_item():
    head = ("2023-05-01T10:00:00.000Z\tINFO\tcontroller.deprovisioning\tdeprovisioning via emptiness delete, "
            "terminating 3 machines ip-10-0-1-1.ec2.internal/m5.large/on-dem")
    found = parse([head, "and, ip-10-0-1-2.ec2.internal/m5.large/spot, ip-10-0-1-3.ec2.internal/m5.large/spot"])
    assert found[1]["kind"] == "disruption"
    assert found[1]["nodes"] == ["ip-10-0-1-1.ec2.internal", "ip-10-0-1-2.ec2.internal", "ip-10-0-1-3.ec2.internal"]


def test_a_wrapped_record_in_a_diffs_added_lines():
    lines = ['+    {"level":"INFO","time":"2024-06-01T00:00:00.000Z","logger":"controller","message":',
             '+       "registered nodeclaim","NodeClaim":{"name":"general-q8d2k"},',
             '+       "Node":{"name":"ip-10-0-3-4.ec2.internal"}}']
    found = parse(lines)
    assert found[1]["kind"] == "nodeclaim_registered" and found[1]["nodeclaim"] == "general-q8d2k"


# --- the history of lines that name nothing, in a paste -----------------------------------------------------------

def _unnamed(found):
    return [life for life in found.values() if not life.named]


def test_disruptions_naming_nobody_are_lives_of_their_own():
    lines = [f"09:1{i}:00.000  disrupting node(s) ... decision=delete" for i in range(3)]
    assert [life.end_reason for life in _unnamed(lives(lines))] == ["other"] * 3


def test_the_named_drain_right_after_a_nameless_disruption_claims_it():
    lines = ['{"level":"INFO","message":"disrupting nodeclaim(s) via delete, terminating 1 nodes (0 pods)",'
             '"reason":"empty"}',
             '{"level":"INFO","message":"tainted node","Node":{"name":"' + NODE_B + '"}}',
             '{"level":"INFO","message":"deleted node","Node":{"name":"' + NODE_B + '"}}',
             '{"level":"INFO","message":"deleted nodeclaim","NodeClaim":{"name":"default-h2k9x"}}']
    found = lives(lines)
    assert list(found) == ["default-h2k9x"]
    life = found["default-h2k9x"]
    assert life.node == NODE_B and life.end_reason == "emptiness"
    assert {"disrupted", "drained", "terminated"} <= set(life.steps)


def test_an_interruption_naming_nobody_and_its_drain():
    lines = ['{"level":"INFO","message":"initiating delete from interruption message","messageKind":"SpotInterruptionKind"}',
             '{"level":"INFO","message":"tainted node"}', '{"level":"INFO","message":"deleted nodeclaim"}']
    (life,) = _unnamed(lives(lines))
    assert life.end_reason == "interruption" and {"interrupted", "drained", "terminated"} <= set(life.steps)
    # a drain naming nobody with no nameless life just before it tells of none
    assert _unnamed(lives(['{"level":"INFO","message":"tainted node"}'])) == []


def test_a_launch_that_failed_before_any_name():
    line = ("controller.provisioning\tLaunching node, creating cloud provider machine, with fleet error(s), "
            "InsufficientInstanceCapacity: none\t{\"commit\": \"1a2b3c4\", \"provisioner\": \"batch\"}")
    (life,) = _unnamed(lives([line]))
    assert life.end_reason == "launch_failed" and life.nodepool == "batch"


def test_disruption_terminating_rows_with_elided_objects_are_one_life():
    rows = ["Normal  DisruptionTerminating  node/ip-...  Disrupting Node: Empty/Delete",
            "Normal  DisruptionTerminating  nodeclaim/...  Disrupting NodeClaim: Empty/Delete"]
    (life,) = _unnamed(lives(rows))
    assert life.end_reason == "emptiness"


# --- set q (issue 30) ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("line,kind,fields", [
    # a notebook server's spawn progress: time, the event's type in brackets, Karpenter's FailedScheduling message
    ('2025-01-02T03:04:05Z [Warning] Failed to schedule pod, incompatible with nodepool "gpu", no instance type '
     'satisfied resources', "pod_unschedulable", {}),
    # the launch error logged as the message (v0.28-v0.31), pasted alone
    ("creating instance, insufficient capacity, with fleet error(s), InsufficientInstanceCapacity: none in "
     "us-west-2a", "launch_failed", {}),
    # errors logged as the message in Karpenter's words, pasted alone
    ("failed to disrupt nodes, command reached timeout after 10m0s; waiting for replacement initialization",
     "other", {}),
    ('discovering amis from ssm, getting ssm parameter "/aws/service/eks/x", ThrottlingException: Rate exceeded',
     "other", {}),
    # an author's cut copy of v1.10+'s disruption line that kept the command's reason and decision
    ("- `disrupting node(s) ... Underutilized/replace ... (savings: $0.12)` then", "disruption",
     {"method": "underutilized", "action": "replace"}),
    # an author's "..." closing an instance-type list is no type
    ('{"level":"INFO","message":"created nodeclaim","NodePool":{"name":"a"},"instance-types":"m5.large, m6i.large, ..."}',
     "nodeclaim_created", {"instance_types": ["m5.large", "m6i.large"]}),
])
def test_set_q_families(line, kind, fields):
    reads_as(line, kind, fields)


def test_a_nameless_creation_launch_and_disruption_are_one_life():
    lines = ['{"level":"INFO","message":"created nodeclaim","NodePool":{"name":"encode"},"instance-types":"c6i.xlarge"}',
             '{"level":"INFO","message":"launched nodeclaim","instance-type":"c6i.xlarge","capacity-type":"spot"}',
             '{"level":"INFO","message":"waiting on cluster sync"}',
             '{"level":"INFO","message":"disrupting nodeclaim(s) via delete, terminating 1 nodes","reason":"empty"}']
    (life,) = lives(lines).values()
    assert not life.named and life.instance_type == "c6i.xlarge" and life.end_reason == "emptiness"
    assert {"created", "launched", "disrupted"} <= set(life.steps)


# --- set r (issue 30) ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("line,kind,fields", [
    # DeprovisioningBlocked (to v0.32): its reason, and its messages "Cannot deprovision node|Node|machine due to R"
    # and "Cannot deprovision Node: R", in a describe row, alone, and in a row cut to FROM and MESSAGE
    ("  Normal   DeprovisioningBlocked  4m  karpenter  Cannot deprovision node due to Nominated for a pending pod",
     "disruption_blocked", {"reason": "Nominated for a pending pod"}),
    ("Cannot deprovision machine due to machine is not initialized", "disruption_blocked",
     {"reason": "machine is not initialized", "event": "DeprovisioningBlocked"}),
    ("karpenter  Cannot deprovision Node: Nominated for a pending pod", "disruption_blocked",
     {"reason": "Nominated for a pending pod"}),
    ("karpenter  Cannot disrupt Node: state node is nominated for a pending pod", "disruption_blocked",
     {"event": "DisruptionBlocked"}),
    # the AWS provider's interruption events, their fixed sentences pasted alone
    ("Instance is terminating", "interruption", {"message_kind": "instance_state_change"}),
    ("Instance is stopping", "interruption", {"message_kind": "instance_state_change"}),
    ("Spot interruption warning was triggered", "interruption", {"message_kind": "spot_interruption"}),
    ("Interruption triggered termination for the NodeClaim", "interruption", {"action": "delete"}),
    # a describe row flattened onto one prose line after the author's label, in markdown bold
    ("**Error Message: Normal DisruptionBlocked 86s (x2 over 3m28s) karpenter Nodeclaim does not have an "
     "associated node**", "disruption_blocked", {"reason": "Nodeclaim does not have an associated node"}),
    # an author's timeline: a list item's 12-hour time of day, a dash, then v1's message alone
    ("- 9:55:21.358 pm - created nodeclaim", "nodeclaim_created", {}),
    ("- 10:02 AM - launched nodeclaim", "nodeclaim_launched", {}),
    ("* 11:40:05 pm – initiating delete from interruption message", "interruption", {"action": "delete"}),
    # v0.3x's disruption line with no candidate list: the context names the node
    ('INFO    controller.disruption   disrupting via consolidation delete  {"nodeclaim": "default-a1b2c", '
     f'"node": "{NODE}"}}', "disruption", {"method": "consolidation", "nodes": [NODE]}),
    # the interruption line cut after its head: the context's NodeClaim too
    (f'INFO    controller.interruption   initiating delete  {{"node": "{NODE}", "nodeclaim": "default-a1b2c"}}',
     "interruption", {"node": NODE, "nodeclaim": "default-a1b2c"}),
    # a controller's error record that an author cut down to its keys and error: controller-runtime's Reconciler
    # error, the reconciled object named by controllerKind and name
    ('{"level":"ERROR","controller":"nodeclaim.lifecycle","controllerKind":"NodeClaim","name":"batch-7kq2n",'
     '"error":"launching nodeclaim, creating instance, creating nodeclaim, AuthFailure: not permitted"}',
     "launch_failed", {"nodeclaim": "batch-7kq2n"}),
    # the provisioner's failed create of the NodeClaim object (v0.32-v1.x), pasted alone: Karpenter's, no kind of its own
    ('creating node claim, NodeClaim.karpenter.sh \\"spot-x2n7d\\" is invalid: [spec.requirements: Too many: 32: '
     'must have at most 30 items]', "other", {}),
])
def test_set_r_families(line, kind, fields):
    reads_as(line, kind, fields)


@pytest.mark.parametrize("reason,message,kind", [
    ("DisruptionBlocked", 'Pod has "karpenter.sh/do-not-disrupt" annotation', "disruption_blocked"),
    ("DisruptionBlocked", "Pdb prevents pod evictions (PodDisruptionBudget=[lab/guard])", "disruption_blocked"),
    ("DisruptionTerminating", "Disrupting NodeClaim: Underutilized", "other"),
    ("Unconsolidatable", "Can't replace with a cheaper node", "unconsolidatable"),
])
def test_an_events_reason_then_its_message_on_the_next_line_is_one_event(reason, message, kind):
    found = parse(["```text", reason, message, "```"])
    assert list(found) == [2] and found[2]["kind"] == kind and found[2]["event"] == reason


def test_a_reason_alone_before_another_reason_or_a_blank_is_no_event_of_two_lines():
    assert parse(["DisruptionBlocked", "", "Unconsolidatable", "DisruptionBlocked"]) == {}


def test_a_message_then_its_values_one_key_value_a_line_is_one_record():
    found = parse(["```text", "disrupting node(s)", 'command="Underutilized ... delete"', 'decision="delete"',
                   "pod-count=1", "```"])
    assert list(found) == [2]
    assert {k: found[2].get(k) for k in ("kind", "method", "action", "pod_count")} == \
        {"kind": "disruption", "method": "underutilized", "action": "delete", "pod_count": 1}


def test_a_viewers_folded_values_in_a_braceless_record_one_pair_a_line():
    lines = ['"message":"failed to update nodeclaim from cost tracking",', '"level":"ERROR",', '"NodeClaim":',
             "{…},", '"controller":"state.nodeclaim",', '"missingLabels":', "(3)[…],",
             '"time":"2026-01-04T05:55:13.773Z"']
    found = parse(lines)
    assert list(found) == [1] and found[1]["kind"] == "other" and found[1]["level"] == "error"
    assert found[1]["time"] == "2026-01-04T05:55:13.773Z"


# --- set s (issue 30) ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("line,kind,fields", [
    # v0.19's "Deprovisioning via consolidation/delete": the method and the action one slash apart
    ('2022-12-26T13:09:33.639Z\tINFO\tcontroller.deprovisioning\tDeprovisioning via consolidation/delete\t'
     '{"commit": "3b9e1c7"}', "disruption", {"method": "consolidation", "action": "delete"}),
    ('2022-12-26T13:09:33.639Z\tINFO\tcontroller.deprovisioning\tDeprovisioning via emptiness/delete\t'
     '{"commit": "3b9e1c7"}', "disruption", {"method": "emptiness", "action": "delete"}),
    # a NodeClaim controller's Reconciler error names the NodeClaim it reconciled
    ('{"level":"ERROR","time":"2024-10-19T08:21:57.842Z","logger":"controller","message":"Reconciler error",'
     '"controller":"nodeclaim.termination","controllerKind":"NodeClaim","NodeClaim":{"name":"batch-w7kpz"},'
     '"name":"batch-w7kpz","error":"removing termination finalizer, conflict"}', "other", {"nodeclaim": "batch-w7kpz"}),
    # a record cut inside its caller's file:line is no Go stack trace: a line of its level
    ('{"level":"ERROR","time":"2024-10-19T08:22:57.852Z","logger":"controller","caller":"controller/controller.go:261',
     "other", {"level": "error"}),
    # cluster state's volume error pasted alone (v0.2x-v0.3x)
    ('inconsistent state error adding volume, StorageClass.storage.k8s.io "manual" not found, please file an issue',
     "other", {}),
])
def test_set_s_families(line, kind, fields):
    reads_as(line, kind, fields)


def test_a_go_stack_traces_file_lines_are_still_no_line():
    assert parse(["\t/go/pkg/mod/sigs.k8s.io/controller-runtime/pkg/internal/controller/controller.go:261 +0x1a5",
                  "sigs.k8s.io/controller-runtime/pkg/internal/controller.(*Controller).Start.func2()"]) == {}


# --- set u (issue 30) ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("line,kind,fields", [
    # v0.6's selection controller declining a pod it cannot provision for (debug in v0.6.1, error from v0.6.5)
    ('2022-02-07T08:11:40.512Z\tDEBUG\tcontroller.selection\tIgnoring pod, pod anti-affinity is not supported\t'
     '{"commit": "5b1c0d2", "pod": "data/kafka-broker-2"}', "pod_unschedulable", {"pod": "data/kafka-broker-2"}),
    # the provisioner's own "ignoring pod" (v0.16-v1.x, a pod it cannot validate) stays other
    ('2023-04-02T10:00:00.000Z\tDEBUG\tcontroller.provisioner\tignoring pod, StorageClass.storage.k8s.io "fast" not '
     'found\t{"commit": "d7e22b1", "pod": "db/pg-0"}', "other", {}),
    # ... and pasted without its logger: the selection's own errors say whose it is
    ('Ignoring pod, pod affinity is not supported\t{"commit": "5b1c0d2", "pod": "data/zk-1"}', "pod_unschedulable",
     {"pod": "data/zk-1"}),
    ('ignoring pod, StorageClass.storage.k8s.io "fast" not found\t{"commit": "d7e22b1", "pod": "db/pg-0"}', None,
     {}),
    # v0.6's scheduler names the pod in its message; before v0.9 the provisioner in the context is the one refusing
    ('2022-03-06T02:41:12.118Z\tINFO\tcontroller.provisioning\tUnable to schedule pod web/front-6c9f7-abcde, '
     'incompatible requirements, key topology.kubernetes.io/zone\t{"commit": "8e3b71c", "provisioner": "edge"}',
     "pod_unschedulable", {"pod": "web/front-6c9f7-abcde", "nodepools": [{"name": "edge", "reason":
                                                                          "incompatible requirements, key topology.kubernetes.io/zone"}]}),
    # v0.7-v0.8's "Scheduling pod, ERR", the pod in the context
    ('2022-04-11T09:02:03.456Z\tERROR\tcontroller.provisioning\tScheduling pod, unsatisfiable pod anti-affinity '
     'topology constraint for key topology.kubernetes.io/zone\t{"commit": "2d4e6f8", "provisioner": "default", '
     '"pod": "web/api-7d8e9-fghij"}', "pod_unschedulable", {"pod": "web/api-7d8e9-fghij"}),
    # v0.2's packer: the pods by name, then the type list (kept only when whole)
    ("2021-07-01T10:00:00.100Z        DEBUG   Successfully computed packing for pod(s) [ns/a-1 ns/a-2 ns/a-3] with "
     "instance type option(s) [m5.large m5a.large]", "nodeclaims_computed",
     {"pods": 3, "instance_types": ["m5.large", "m5a.large"]}),
    ("2021-07-01T10:00:00.100Z        DEBUG   Successfully computed packing for pod(s) [ns/a-1] with instance type "
     "option(s) [m5.large m5a.lar", "nodeclaims_computed", {"pods": 1, "instance_types": None}),
    # an Event as the OpenTelemetry Collector's Kubernetes events receiver exports it: the object in the resource
    ('{"body":"Failed to drain node, 3 pods are waiting to be evicted","severity":"Warning","attributes":'
     '{"k8s.event.reason":"FailedDraining","k8s.event.name":"ip-10-0-1-2.ec2.internal.1a2b3c4d5e6f7a8b",'
     '"k8s.namespace.name":""},"resource":{"k8s.object.kind":"Node","k8s.object.name":"ip-10-0-1-2.ec2.internal"}}',
     "other", {"event": "FailedDraining", "node": "ip-10-0-1-2.ec2.internal"}),
    # ... cut before its resource: the Event's own name (NAME.HEX) names an EC2 node
    ('{"body":"Failed to drain node, 3 pods are waiting to be evicted","severity":"Warning","attributes":'
     '{"k8s.event.reason":"FailedDraining","k8s.event.name":"ip-10-0-1-2.ec2.internal.1a2b3c4d5e6f7a8b"},"resources":',
     "other", {"event": "FailedDraining", "node": "ip-10-0-1-2.ec2.internal"}),
    # ... cut inside its attributes, before the reason: the message's template names the event
    ('{"body":"Cannot disrupt Node: state node is marked for deletion","severity":"Normal","attributes":'
     '{"k8s.event.action":"","k8s', "disruption_blocked", {"reason": "state node is marked for deletion"}),
    # another program's OpenTelemetry record (no Kubernetes Event in it) is no line of Karpenter's
    ('{"body":"GET /healthz 200","severity":"Info","attributes":{"http.route":"/healthz"}}', None, {}),
])
def test_set_u_families(line, kind, fields):
    reads_as(line, kind, fields)


# --- set v (issue 30) ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("line,kind,fields", [
    # the disruption controller's error (its method quoted, v0.2x-v0.3x): no command was taken, other
    ('2023-07-14T09:00:01.100Z\tERROR\tcontroller.deprovisioning\tdeprovisioning via "consolidation", computing '
     'deprovisioning decision, command is no longer valid, delete, terminating 1 machines n-1/m5.large/spot\t'
     '{"commit": "1a2b3c4"}', "other", {"level": "error"}),
    ('2024-02-03T04:05:06.789Z\tERROR\tcontroller.disruption\tdisrupting via "drift", building disruption budgets, '
     'listing nodes\t{"commit": "5d6e7f8"}', "other", {"level": "error"}),
    # ... while the command itself still is one
    ('2023-07-14T09:01:01.100Z\tINFO\tcontroller.deprovisioning\tdeprovisioning via consolidation delete, '
     'terminating 1 machines n-1/m5.large/spot\t{"commit": "1a2b3c4"}', "disruption",
     {"method": "consolidation", "action": "delete", "nodes": ["n-1"]}),
    # a v0.8 development build's launch request, its types in brackets (whole, or cut inside the list)
    ("2022-03-30T10:00:00.000Z\tINFO\tcontroller.provisioning\tlaunching node for 3 pods using resources cpu: 3 "
     "memory: 1Gi  from types [m5.large c5.large]\t{\"commit\": \"9b4e1c2\"}", "nodeclaim_created",
     {"instance_types": ["m5.large", "c5.large"]}),
    ("2022-03-30T10:00:00.000Z\tINFO\tcontroller.provisioning\tlaunching node for 3 pods using resources cpu: 3 "
     "memory: 1Gi  from types [m5.large c5.la", "nodeclaim_created", {"instance_types": []}),
    # v0.5-v0.2x's emptiness TTL lines name their node
    (f'2022-05-01T01:02:03.456Z\tINFO\tcontroller.node\tAdded TTL to empty node\t{{"commit": "c41d8e5", "node": "{NODE}"}}',
     "other", {"node": NODE}),
    # a paste that ended inside a line's level word: the line's time alone, other with no level
    ("2022-12-27T10:01:56.775Z\tI", "other", {"level": "", "time": "2022-12-27T10:01:56.775Z"}),
    ("2022-12-27T10:01:56.775Z    DEB", "other", {"level": ""}),
    # ... but a time of whole seconds before it is another program's encoder, and a word is no level
    ("2022-12-27T10:01:56Z\tI", None, {}),
    ("2022-12-27T10:01:56.775Z\tIt", None, {}),
])
def test_set_v_families(line, kind, fields):
    reads_as(line, kind, fields)


# --- set w (issue 30) ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("line,kind,fields", [
    # v1.6-v1.8's disruption record cut inside its node list: the first node's references still name it
    ('{"level":"INFO","time":"2025-09-30T11:03:47.862Z","logger":"controller","message":"disrupting node(s)",'
     '"reason":"drifted","decision":"replace","disrupted-node-count":1,"pod-count":3,"disrupted-nodes":'
     f'[{{"Node":{{"name":"{NODE}"}},"NodeClaim":{{"name":"spot-a1b2c"}},"capacity-type":"spot","instance-type":"m5.la',
     "disruption", {"method": "drift", "action": "replace", "nodes": [NODE],
                    "candidates": [{"node": NODE, "nodeclaim": "spot-a1b2c"}]}),
    # a pre-v0.2 development build's reallocator: the node named in the message
    (f"2021-03-05T17:12:41.616Z\tDEBUG\tAdded TTL to nodes {NODE}", "other", {"node": NODE}),
    # a viewer's "TIME │ MESSAGE" rows: the AWS provider's pricing refresh, the Azure provider's token renewal
    ("2025-10-20T19:09:22.703Z │ updated on-demand pricing", "other", {"time": "2025-10-20T19:09:22.703Z"}),
    ("2025-10-21T03:52:16.983Z │ adjusting token ExpiresOn", "other", {}),
    # ... but another sentence in such a row stays no one's
    ("2025-10-21T03:52:16.983Z │ updated the dashboard", None, {}),
])
def test_set_w_families(line, kind, fields):
    reads_as(line, kind, fields)


@pytest.mark.parametrize("line,kind,fields", [
    # an author's copy of a v1.10+ disruption record's command field alone, with its NodePools and nodes
    (f"command: Underutilized/8d2f31c0-...: replace: nodepools=[general]: [{NODE}] -> [1 replacement] (savings: $0.21)",
     "disruption", {"method": "underutilized", "action": "replace", "nodepools": ["general"], "nodes": [NODE]}),
    (f"command: Empty/8d2f31c0-4b7e-4e0c-9a51-7c2d0e6f9b13: delete: nodepools=[a, b]: [{NODE}] (savings: $0.04)",
     "disruption", {"method": "emptiness", "action": "delete", "nodepools": ["a", "b"]}),
    # a fork's own reason word: the disruption, its method other
    ("command: Balanced/5a1e...: delete: nodepools=[default]: [kwok-node-7] (savings: $0.09)",
     "disruption", {"method": "other", "action": "delete", "nodes": ["kwok-node-7"]}),
    # "command:" in prose, or a command cut before its NodePools, is no one's line
    ("command: kubectl get nodeclaims -o wide", None, {}),
    ("command: Empty/...: delete", None, {}),
])
def test_set_x_families(line, kind, fields):
    reads_as(line, kind, fields)


@pytest.mark.parametrize("command,pod", [
    ("kubectl describe pod ledger-0 -n payments", "payments/ledger-0"),
    ("$ kubectl describe po -n payments ledger-0", "payments/ledger-0"),
    ("kubectl describe pod ledger-0 --namespace=payments | grep -A 20 Events:", "payments/ledger-0"),
    ("kubectl describe pods/ledger-0 --namespace payments", "payments/ledger-0"),
    ("kubectl describe pod ledger-0", "ledger-0"),   # the namespace not given: the name alone
])
def test_a_pods_describe_table_names_the_pod_with_the_namespace_the_command_gave(command, pod):
    rows = [command, "Events:", "  Type    Reason     Age   From       Message",
            "  ----    ------     ----  ----       -------",
            "  Normal  Nominated  9m3s  karpenter  Pod should schedule on: nodeclaim/general-purpose-k2v9r"]
    (nominated,) = LogParser().parse(rows)
    assert (nominated["kind"], nominated["pod"], nominated["nodeclaim"]) == (
        "pod_nominated", pod, "general-purpose-k2v9r")


POD_ERR = ('{"level":"ERROR","time":"2025-04-18T22:09:27.614Z","logger":"controller","message":"could not schedule pod",'
           '"Pod":{"name":"web-1","namespace":"shop"},"error":"')


@pytest.mark.parametrize("line,kind,fields", [
    # pre-v0.1's greedy allocator counts the pods it is about to provision for
    ('{"level":"info","ts":1612493822.7148213,"msg":"Allocating 4 pending pods from 2 constraint groups"}',
     "pods_provisionable", {"count": 4}),
    ("2021-02-05T03:37:02.714Z\tINFO\tAllocating 1 pending pod from 1 constraint group", "pods_provisionable",
     {"count": 1}),
    # a record cut inside "and N other(s)", after a nested object: the whole names before it are its types
    ('{"level":"INFO","time":"2024-03-08T07:17:04.326Z","logger":"controller.provisioner","message":"created nodeclaim",'
     '"nodepool":"batch","nodeclaim":"batch-r7kqz","requests":{"cpu":"3120m","pods":"9"},'
     '"instance-types":"c5.2xlarge, c5.4xlarge and 80 othe', "nodeclaim_created",
     {"nodeclaim": "batch-r7kqz", "instance_types": ["c5.2xlarge", "c5.4xlarge"], "more": 80}),
    ('{"level":"INFO","time":"2024-03-08T07:17:04.326Z","logger":"controller.provisioner","message":"created nodeclaim",'
     '"nodepool":"batch","nodeclaim":"batch-r7kqz","requests":{"cpu":"3120m","pods":"9"},'
     '"instance-types":"c5.2xlarge, c5.4xlarge and 8', "nodeclaim_created",
     {"instance_types": ["c5.2xlarge", "c5.4xlarge"], "more": 0}),   # the count itself may be cut: not given
    # an author's markdown emphasis inside a scheduling error
    (POD_ERR + '**incompatible with nodepool \\"default\\",** no instance type satisfied resources; '
     'incompatible with nodepool \\"gpu\\", did not tolerate nvidia.com/gpu=true:NoSchedule"}',
     "pod_unschedulable", {"pod": "shop/web-1"}),
    # a log store's rows with " | " between its columns: its time, the pod, then the line
    ("Jun 23 07:41:12.708 | karpenter-7c2e5b9d41-k8vrm | 2022-06-23T11:41:12.616Z ERROR controller Launching node, "
     "creating cloud provider machine, creating fleet InvalidLaunchTemplateName.NotFoundException: gone",
     "launch_failed", {"level": "error"}),
    ("Jun 23 07:41:10.101 | karpenter-7c2e5b9d41-k8vrm | 2022-06-23T11:41:10.009Z\tINFO\tcontroller.provisioning\t"
     "Found 3 provisionable pod(s)", "pods_provisionable", {"count": 3}),
    # a controller's logger glued to its message (the TAB lost)
    ("2023-02-12T07:48:39.114Z\tERROR\tcontroller.provisionerlaunching machine, creating cloud provider instance, "
     "with fleet error(s), InsufficientInstanceCapacity: none", "launch_failed", {"level": "error"}),
    ("2023-02-12T07:48:39.114Z\tINFO\tcontroller.provisionerfound provisionable pod(s)", "pods_provisionable", {}),
    # ... but a logger that goes on is whole: "controller.nodeclaim" is not "controller.node" + "claim"
    ('2024-05-01T10:00:00.000Z    INFO    controller.nodeclaim    launched nodeclaim  {"nodeclaim": "default-x1z2k", '
     '"instance-type": "m6i.xlarge", "capacity-type": "spot", "zone": "us-east-1a"}', "nodeclaim_launched",
     {"nodeclaim": "default-x1z2k"}),
    # v1's NodeClaim disruption controller's messages quoted alone
    ('"marking consolidatable"', "other", {}),
    ('"removing consolidatable status condition"', "other", {}),
    ('"marking the node as bad"', None, {}),
])
def test_set_y_families(line, kind, fields):
    reads_as(line, kind, fields)
    if kind == "pod_unschedulable":
        assert [pool["name"] for pool in parse([line])[1]["nodepools"]] == ["default", "gpu"]


@pytest.mark.parametrize("disruptions,gone", [
    (1, True),    # the paste's only disruption: the nameless "deleted node" hours later is its node's
    (2, False),   # two nodes going: the line could be either's, so neither takes it
])
def test_a_nameless_deletion_is_the_only_going_nodes(disruptions, gone):
    lines = ["```"]
    for n in range(disruptions):
        lines.append(f"05:37:2{n}.618 disrupting via consolidation delete, terminating 1 nodes (1 pods) "
                     f"ip-10-31-146-2{n}.ec2.internal/m5a.2xlarge/on-demand")
    lines += ["", "...", "11:07:35.098 deleted node", "```"]
    found = lives(lines)
    assert len(found) == disruptions
    assert all(("terminated" in life.to_dict()["steps"]) == gone for life in found.values())


@pytest.mark.parametrize("line,kind,fields", [
    # client-go's leader election in klog's shape behind stern's "POD CONTAINER " prefix
    ("karpenter-controller-5d9c2f7b41-qk8xw manager I0711 20:13:49.927612       1 leaderelection.go:243] "
     "attempting to acquire leader lease  karpenter/karpenter-leader-election...", "other",
     {"source": "pod/karpenter-controller-5d9c2f7b41-qk8xw/manager"}),
    ("karpenter-6d3b8f1c47-wq9zt controller I0711 20:14:06.667568       1 leaderelection.go:253] "
     "successfully acquired lease karpenter/karpenter-leader-election", "other", {}),
    # the disruption controller's error with its method quoted, its message and context alone
    ('deprovisioning via "consolidation", computing deprovisioning decision, command is no longer valid, delete, '
     'terminating 1 machines ip-10-3-52-77.ec2.internal/t3.medium/spot\t{"commit": "b5d2e94"}', "other", {}),
    # v0.9's scheduler: a pod's error logged as the message, the pod in the context
    ('2022-05-16T04:41:57.423Z\tERROR\tcontroller\tno instance type satisfied resources {"cpu":"1","pods":"1"} and '
     'requirements karpenter.sh/provisioner-name In [workers]\t{"commit": "7e9d1a2", "pod": "odoo/worker-0"}',
     "pod_unschedulable", {"pod": "odoo/worker-0", "level": "error"}),
    ('2022-05-16T04:41:57.423Z\tERROR\tcontroller\tno instance type satisfied resources {"cpu":"1","pods":"1"} and '
     'requirements karpenter.sh/capacity-type In [', "pod_unschedulable", {"level": "error"}),
    # ... the same text quoted bare is an author's, naming no pod: no line
    ('no instance type satisfied resources {"cpu":"1","pods":"1"} and requirements '
     'karpenter.sh/provisioner-name In [workers]', None, {}),
])
def test_set_z_families(line, kind, fields):
    reads_as(line, kind, fields)


NEWEST_FIRST = [  # a log store's export, newest line first, each row its own local time beside the line's
    '2023-08-02T16:57:56+03:00\t2023-08-02T13:57:56.913Z\tINFO\tcontroller.machine.lifecycle\tlaunched machine\t'
    '{"commit": "9e0b6a2", "machine": "arm-q7x2c", "provisioner": "arm", "provider-id": '
    '"aws:///us-east-1d/i-0b81f4d9e27c3a560", "instance-type": "r7g.xlarge", "zone": "us-east-1d", '
    '"capacity-type": "spot"}',
    '2023-08-02T16:57:52+03:00\t2023-08-02T13:57:52.761Z\tINFO\tcontroller.provisioner\tcreated machine\t'
    '{"commit": "9e0b6a2", "provisioner": "arm", "requests": {"cpu":"3380m","pods":"5"}, '
    '"instance-types": "m6g.2xlarge, r7g.xlarge"}',
    '2023-08-02T16:57:52+03:00\t2023-08-02T13:57:52.750Z\tINFO\tcontroller.provisioner\tfound provisionable pod(s)'
    '\t{"commit": "9e0b6a2", "pods": 1}',
]


@pytest.mark.parametrize("order", ["newest first", "oldest first"])
def test_a_paste_listed_newest_first_is_read_in_the_order_it_happened(order, tmp_path):
    from karptui.history.builder import HistoryBuilder
    from karptui.history.read import feed_log

    paste = tmp_path / "paste.log"
    paste.write_text("\n".join(NEWEST_FIRST if order == "newest first" else NEWEST_FIRST[::-1]) + "\n")
    builder = HistoryBuilder()
    feed_log(builder, str(paste), "", [])
    (life,) = [life.to_dict() for life in finish(builder).lives]
    assert (life["nodeclaim"], life["steps"][:2]) == ("arm-q7x2c", ["created", "launched"])
    assert life["requested_instance_types"] == ["m6g.2xlarge", "r7g.xlarge"]


def _events_list(items: list[dict]) -> list[str]:
    """``kubectl get events -o json`` as kubectl prints it (four spaces an indent)."""
    return json.dumps({"apiVersion": "v1", "items": items, "kind": "List", "metadata": {"resourceVersion": ""}},
                      indent=4).splitlines()


def _blocked_event(node: str) -> dict:
    return {"apiVersion": "v1", "count": 6, "eventTime": None, "firstTimestamp": "2024-06-29T11:18:53Z",
            "involvedObject": {"apiVersion": "v1", "kind": "Node", "name": node, "uid": "7e1d4b92"},
            "kind": "Event", "lastTimestamp": "2024-07-09T10:27:35Z",
            "message": 'Cannot disrupt Node: PDB "metrics/prometheus" prevents pod evictions',
            "metadata": {"name": f"{node}.17de0c1f2a3b4c5d", "namespace": "default"},
            "reason": "DisruptionBlocked", "source": {"component": "karpenter"}, "type": "Normal"}


@pytest.mark.parametrize("count", [1, 3])
def test_a_pretty_printed_events_list_gives_each_item_at_its_own_brace(count):
    nodes = [f"ip-10-0-88-{n}.eu-west-1.compute.internal" for n in range(count)]
    lines = _events_list([_blocked_event(n) for n in nodes])
    found = parse(lines)
    braces = [i + 1 for i, text in enumerate(lines) if text == "        {"]
    assert sorted(found) == braces
    assert [(found[b]["kind"], found[b]["node"]) for b in braces] == [("disruption_blocked", n) for n in nodes]


def test_an_events_list_cut_inside_an_item_still_gives_it_from_its_message():
    lines = _events_list([_blocked_event("ip-10-0-88-7.eu-west-1.compute.internal")])
    cut = next(i for i, text in enumerate(lines) if '"metadata"' in text) + 2   # inside metadata.name
    lines = lines[:cut] + [lines[cut][:30]]
    (found,) = parse(lines).values()
    assert (found["kind"], found["node"], found["reason"]) == (
        "disruption_blocked", "ip-10-0-88-7.eu-west-1.compute.internal", 'PDB "metrics/prometheus" prevents pod evictions')


def test_another_kind_of_list_is_no_line():
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "ip-10-0-1-2.ec2.internal"}, "status": {}}
    assert parse(json.dumps({"apiVersion": "v1", "items": [node], "kind": "List"}, indent=4).splitlines()) == {}


def test_a_docs_copy_with_placeholders_is_one_unnamed_life():
    """A docs page's braceless copies of the launch and registration, placeholders where the names go."""
    lines = ['"message":"launched nodeclaim","instance-type":"<picked-type>","zone":"<picked-az>","capacity-type":"spot"',
             '"message":"registered nodeclaim","Node":{"name":"<assigned-node-name>"}']
    found = parse(lines)
    assert [found[n]["kind"] for n in (1, 2)] == ["nodeclaim_launched", "nodeclaim_registered"]
    assert "node" not in found[2]   # a placeholder is no name
    (life,) = [life.to_dict() for life in lives(lines).values()]
    assert (life["nodeclaim"], life["steps"], life["capacity_type"]) == (None, ["launched", "registered"], "spot")


def test_a_nameless_launch_alone_is_a_life_but_a_named_one_is_its_own():
    named = ('{"level":"INFO","time":"2024-05-01T10:00:01.000Z","logger":"controller","message":"launched nodeclaim",'
             '"NodeClaim":{"name":"default-x1z2k"},"instance-type":"m6i.xlarge","zone":"us-east-1a",'
             '"capacity-type":"spot"}')
    assert [life.nodeclaim for life in lives([named]).values()] == ["default-x1z2k"]
    assert len(lives(['"message":"launched nodeclaim","capacity-type":"on-demand"'])) == 1


@pytest.mark.parametrize("line,kind,fields", [
    # set t2: a write-up's shell comment quoting a line as "LEVEL: message, key: value"
    ("# INFO: launched nodeclaim, provider-id: aws:///us-east-1a/i-0a7c3e91f4d25b6e8", "nodeclaim_launched",
     {"level": "info", "provider_id": "aws:///us-east-1a/i-0a7c3e91f4d25b6e8"}),
    ("INFO: registered nodeclaim, NodeClaim: default-q8x2m", "nodeclaim_registered",
     {"level": "info", "nodeclaim": "default-q8x2m"}),
    ("INFO: deleted node, Node: ip-10-1-2-3.ec2.internal", "node_terminated",
     {"level": "info", "node": "ip-10-1-2-3.ec2.internal"}),
    ("ERROR: launched nodeclaim", "nodeclaim_launched", {"level": "error"}),
])
def test_an_author_s_level_word_and_pairs_keep_the_line(line, kind, fields):
    (found,) = parse([line]).values()
    assert found["kind"] == kind
    assert {k: found.get(k) for k in fields} == fields


@pytest.mark.parametrize("line", ["INFO: the rollout went fine, status: done", "Note: launched, zone: a"])
def test_an_author_s_level_word_before_prose_is_no_line(line):
    assert parse([line]) == {}
