"""Line shapes the blind corpus (issue 30, tests/log_corpus e-*) showed the reader missing, each
written here from Karpenter's own templates of its era, never copied from the corpus:
cut JSON records, contexts that lost their TAB or went to the next line, v0.3-v0.4 messages,
event rows cut, split or quoted in part, EKS Auto Mode's source, scheduling errors pasted alone,
braceless record fragments, and ``kubectl logs --prefix`` lines of unschedulable pods."""

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from karptui.logs import LogParser, event

PREFIX = "[pod/karpenter-6b8d7f9c4-kq2vx/controller] "
ERROR = ('incompatible with nodepool "default", daemonset overhead={"cpu":"200m","pods":"4"}, no instance type '
         'satisfied resources {"cpu":"8200m","pods":"5"} and requirements karpenter.sh/nodepool In [default] '
         '(no instance type met the scheduling requirements or had enough resources); incompatible with nodepool '
         '"gpu", did not tolerate nvidia.com/gpu=true:NoSchedule')


def parse(lines):
    return {e["line"]: e for e in LogParser().parse(lines)}


# --- kubectl logs --prefix: a pod Karpenter could not schedule, every era's template -------------------------

def _unschedulable_lines():
    """(v1.x provisioner.go "could not schedule pod" with Pod/error; v0.3x one-string message with "pod";
    v0.2x console "Could not schedule pod, ERROR" with its {"commit", "pod"} context)."""
    v1 = json.dumps({"level": "ERROR", "time": "2024-09-21T07:03:09.252Z", "logger": "controller",
                     "message": "could not schedule pod", "commit": "8e9cf3a", "controller": "provisioner",
                     "Pod": {"name": "web-1", "namespace": "shop"}, "error": ERROR}, separators=(",", ":"))
    v03 = json.dumps({"level": "ERROR", "time": "2024-01-02T03:04:05.000Z", "logger": "controller.provisioner",
                      "message": "Could not schedule pod, " + ERROR, "commit": "1072d3b", "pod": "shop/web-1"})
    v02 = ("2023-05-20T11:03:34.806Z\tERROR\tcontroller.provisioner\tCould not schedule pod, "
           + ERROR.replace("nodepool", "provisioner") + '\t{"commit": "d7e22b1", "pod": "shop/web-1"}')
    return {"v1": v1, "v0.3x": v03, "v0.2x": v02}


WRAPS = {
    "prefix": lambda line: PREFIX + line,
    "prefix and timestamps": lambda line: PREFIX + "2024-09-21T07:03:09.252717917Z " + line,
    "indented": lambda line: "  " + PREFIX + line,
    "markdown quote": lambda line: "> " + PREFIX + line,
    "TABs copied as spaces": lambda line: PREFIX + line.replace("\t", "    "),
}


@pytest.mark.parametrize("era", ["v1", "v0.3x", "v0.2x"])
@pytest.mark.parametrize("wrap", sorted(WRAPS))
def test_kubectl_prefix_lines_of_unschedulable_pods(era, wrap):
    got = parse([WRAPS[wrap](_unschedulable_lines()[era])])[1]
    assert got["kind"] == "pod_unschedulable" and got["pod"] == "shop/web-1"
    assert [p["name"] for p in got["nodepools"]] == ["default", "gpu"]
    assert got["source"] == "pod/karpenter-6b8d7f9c4-kq2vx/controller"


@pytest.mark.parametrize("era", ["v1", "v0.2x"])
@pytest.mark.parametrize("width", [80, 120, 160])
def test_a_prefix_line_hard_wrapped_by_a_terminal_is_one_event(era, width):
    line = PREFIX + _unschedulable_lines()[era]
    pieces = [line[i:i + width] for i in range(0, len(line), width)]
    found = parse(pieces + ['{"level":"INFO","time":"2024-09-21T07:03:10Z","message":"found provisionable pod(s)"}'])
    assert sorted(found) == [1, len(pieces) + 1]
    assert found[1]["pod"] == "shop/web-1" and [p["name"] for p in found[1]["nodepools"]] == ["default", "gpu"]


# --- cut JSON records ---------------------------------------------------------------------------------------

def test_a_record_cut_before_its_message_is_a_line_of_its_level():
    """zap writes level, time, logger, message in that order; a paste that ends before the message
    still shows a Karpenter line, of which only the level is known."""
    assert event(1, '{"level":"ERROR","time":"2025-03-04T05:10:11.655Z","logger":"controller","m') | {} == {
        "line": 1, "time": "2025-03-04T05:10:11.655Z", "level": "error", "kind": "other", "message": ""}
    cut_in_time = event(1, '{"level":"INFO","time":"2024-01-22T23:27:08.47')
    assert cut_in_time["kind"] == "other" and cut_in_time["level"] == "info" and cut_in_time["time"] == ""
    assert event(1, "karpenter-7f4c9b2d1-x8mzt controller " + '{"level":"INFO","time":"2024-02-08T00:17:53.088')[
        "source"] == "pod/karpenter-7f4c9b2d1-x8mzt/controller"


@pytest.mark.parametrize("text", ['{"level":"INF', '{"lev', '{"level":"INFO"', '{"level":"loud","time":"x"',
                                  '{"time":"2024-01-01T00:00:00Z","logger":"x"'])
def test_a_cut_record_without_a_whole_level_and_time_or_logger_is_not_read(text):
    assert event(1, text) is None


RECORDS = [
    {"level": "INFO", "time": "2024-09-21T07:03:09.252Z", "logger": "controller", "message": "created nodeclaim",
     "commit": "8e9cf3a", "controller": "provisioner", "NodePool": {"name": "general"},
     "NodeClaim": {"name": "general-w5rtk"}, "requests": {"cpu": "3040m", "pods": "12"},
     "instance-types": "c5a.2xlarge, m5.2xlarge and 3 other(s)"},
    {"level": "INFO", "time": "2024-02-08T00:17:42.885Z", "logger": "controller.nodeclaim.lifecycle",
     "message": "launched nodeclaim", "commit": "4a9e2c7", "nodeclaim": "ingest-api-h5rtn",
     "provider-id": "aws:///eu-west-1b/i-0b3f8a6d1c7e29054", "instance-type": "r5a.4xlarge", "zone": "eu-west-1b",
     "capacity-type": "spot"},
    {"level": "ERROR", "time": "2024-09-21T07:03:09.252Z", "logger": "controller", "message": "could not schedule pod",
     "controller": "provisioner", "Pod": {"name": "web-1", "namespace": "shop"}, "error": ERROR},
    {"level": "INFO", "time": "2024-01-22T23:26:07.046Z", "logger": "controller.node.termination",
     "message": "deleted node", "commit": "7c0a4f1", "node": "ip-10-115-201-66.us-east-2.compute.internal"},
]
NAMED = ("pod", "nodepool", "nodeclaim", "node", "instance_type", "zone", "capacity_type", "provider_id")


@settings(max_examples=400)
@given(st.sampled_from(RECORDS), st.floats(min_value=0.0, max_value=1.0), st.sampled_from(["", PREFIX, "> "]))
def test_a_cut_record_never_raises_and_invents_nothing(record, at, wrapper):
    """Wherever a paste cuts a record, the reader never takes it for an event (it has no ``event``
    reason), gives a kind no other than the record's own or ``other``, and every name it reports
    is text the record holds; a time it gives is the whole time."""
    whole = json.dumps(record, separators=(",", ":"))
    cut = whole[:int(len(whole) * at)]
    found = event(1, wrapper + cut)
    if found is None:
        return
    assert "event" not in found
    assert found["kind"] in (event(1, whole)["kind"], "other")
    assert found["time"] in ("", record["time"])
    for key in NAMED:
        if found.get(key) is not None:
            assert all(part in whole for part in str(found[key]).split("/")), key
    for pool in found.get("nodepools") or []:
        assert f'"{pool["name"]}"' in ERROR


# --- console lines whose context lost its TAB or went to the next line --------------------------------------------

def test_a_context_glued_to_the_message_is_read():
    line = ('2023-08-16T00:34:45.865Z\tERROR\tcontroller.machine.lifecycle\tcreating instance, insufficient capacity, '
            'with fleet error(s), InsufficientInstanceCapacity: We currently do not have sufficient g5.12xlarge '
            'capacity in the Availability Zone you requested (us-west-2a).{"commit": "2b7f0c9", '
            '"machine": "gpu-t4m8q", "provisioner": "gpu"}')
    found = event(1, line)
    assert (found["kind"], found["nodeclaim"], found["nodepool"]) == ("launch_failed", "gpu-t4m8q", "gpu")
    assert found["error"].endswith("(us-west-2a).")
    assert event(1, line.replace("\t", "    "))["nodeclaim"] == "gpu-t4m8q"


def test_a_context_wrapped_onto_the_next_line_is_joined():
    head = ('2022-11-05T17:14:29.264Z        INFO    controller.provisioning Launching node with 1 pods requesting '
            '{"cpu":"1125m","pods":"3"} from types t3a.xlarge, t3.xlarge and 358 other(s)  ')
    found = parse([head, '        {"commit": "a83f61c", "provisioner": "default"}',
                   '2022-11-05T17:14:29.557Z        DEBUG   controller.provisioning Discovered security groups  ',
                   '{"level":"info","ts":1640772126.5,"logger":"fallback","msg":"Starting informers..."}'])
    assert sorted(found) == [1, 3, 4]  # the context is not a line of its own; a record below is not a context
    assert (found[1]["nodepool"], found[1]["instance_types"], found[1]["more"]) == ("default", ["t3a.xlarge",
                                                                                                "t3.xlarge"], 358)


# --- v0.3-v0.4 templates (aws/karpenter v0.3.x-v0.4.x: binpacking/packer.go, cloudprovider/aws/instance.go,
#     node/emptiness.go, node/expiration.go, termination/terminate.go) ---------------------------------------------

V04 = "2021-10-08T20:48:13.689Z\tINFO\tcontroller.allocation.provisioner/default\t{}\t{{\"commit\": \"e40c7a2\"}}"


@pytest.mark.parametrize("message, want", [
    ("Computed packing for 9 pod(s) with instance type option(s) [t3.medium t3a.medium]",
     {"kind": "nodeclaims_computed", "pods": 9, "instance_types": ["t3.medium", "t3a.medium"]}),
    ("Launched instance: i-0b5d3c81e7f2a4906, type: t3.medium, zone: us-east-1b, hostname: ip-192-168-1-2.ec2.internal",
     {"kind": "nodeclaim_launched", "nodeclaim": "ip-192-168-1-2.ec2.internal", "instance_type": "t3.medium",
      "zone": "us-east-1b", "provider_id": "i-0b5d3c81e7f2a4906"}),
    ("Deleted node ip-192-168-1-2.ec2.internal", {"kind": "node_terminated", "node": "ip-192-168-1-2.ec2.internal"}),
    ("Triggering termination after 30s for empty node ip-192-168-1-2.ec2.internal",
     {"kind": "disruption", "method": "emptiness", "action": "delete", "nodes": ["ip-192-168-1-2.ec2.internal"]}),
    ("Triggering termination for expired node ip-192-168-1-2.ec2.internal after 720h0m0s (+1m2s)",
     {"kind": "disruption", "method": "expiration", "action": "delete", "nodes": ["ip-192-168-1-2.ec2.internal"]}),
    ("Triggering termination after 30s for empty node", {"kind": "disruption", "method": "emptiness", "nodes": []}),
    ("Deleted node from interruption message", {"kind": "interruption", "action": "delete"}),
    ("Deleted node", {"kind": "node_terminated"}),
])
def test_v0_4_messages(message, want):
    found = event(1, V04.format(message))
    assert {k: found.get(k) for k in want} == want
    assert "capacity_type" not in found  # v0.3 did not log it


# --- event rows ---------------------------------------------------------------------------------------------

def test_a_row_cut_after_its_reason_is_read_only_for_karpenters_own_reasons():
    assert event(1, "  Normal   DisruptionBlocked") | {} == {"line": 1, "time": "", "level": "",
                                                             "event": "DisruptionBlocked", "kind": "disruption_blocked"}
    assert event(1, "  Warning  FailedScheduling") is None  # kube-scheduler's as much as Karpenter's
    assert event(1, "  Normal   Scheduled") is None


def test_a_row_whose_message_went_to_the_next_line_is_joined():
    found = parse(["Normal   Nominated  karpenter", "Pod should schedule on: nodeclaim/shop-general-t5x9q",
                   "Normal   Scheduled  default-scheduler", "Successfully assigned shop/cart-1 to ip-10-0-13-152"])
    assert list(found) == [1]
    assert (found[1]["kind"], found[1]["nodeclaim"]) == ("pod_nominated", "shop-general-t5x9q")
    two_rows = parse(["Normal   Nominated  2m  karpenter", "Normal   Nominated  karpenter  Pod should schedule on: "
                      "nodeclaim/a-1"])
    assert sorted(two_rows) == [1, 2] and two_rows[2]["nodeclaim"] == "a-1"


def test_eks_auto_mode_files_karpenters_events():
    row = "  Normal   Nominated  67s   eks-auto-mode/compute  Pod should schedule on: nodeclaim/gpu-dyn-m4p8s"
    assert event(1, row)["nodeclaim"] == "gpu-dyn-m4p8s"
    assert event(1, row.replace("eks-auto-mode/compute", "eks-auto-mode/storage")) is None


def test_a_row_quoted_from_its_reason_and_wrapped_at_its_nodepools_is_one_event():
    found = parse(['FailedScheduling  karpenter  Failed to schedule pod, incompatible with nodepool "system",',
                   '  daemonset overhead={"cpu":"821m","pods":"10"}, incompatible requirements,',
                   '  label "example.com/tier" does not have known values;',
                   '  all available instance types exceed limits for nodepool "arm";',
                   '  incompatible with nodepool "gpu", did not tolerate gpu=true:NoSchedule',
                   '```'])
    assert list(found) == [1]
    assert [p["name"] for p in found[1]["nodepools"]] == ["system", "arm", "gpu"]
    assert event(1, "FailedScheduling  default-scheduler  0/3 nodes are available") is None
    assert event(1, "prose around `Nominated  karpenter  Pod should schedule on: nodeclaim/a-1` in a post") is None


# --- pieces of records --------------------------------------------------------------------------------------

def test_a_scheduling_error_pasted_alone_is_read_with_its_nodepools():
    quoted = json.dumps(ERROR)
    at = quoted.index("; ") + 1
    found = parse([quoted[:at], quoted[at + 1:]])
    assert list(found) == [1] and found[1]["kind"] == "pod_unschedulable" and "pod" not in found[1]
    assert [p["name"] for p in found[1]["nodepools"]] == ["default", "gpu"]


def test_a_braceless_fragment_is_read_when_its_message_is_karpenters():
    found = parse(['"message":"disrupting node(s)","command":"Underutilized/6f1e: delete: nodepools=[general]:',
                   ' [ip-10-27-91-143…] (savings: $0.05)","disrupted-node-count":1'])
    assert list(found) == [1]
    assert {k: found[1][k] for k in ("kind", "method", "action", "nodepools", "nodes")} == {
        "kind": "disruption", "method": "underutilized", "action": "delete", "nodepools": ["general"], "nodes": []}
    assert event(1, '"message":"hello there","level":"info"') is None
    assert event(1, '    "message": "created nodeclaim",') is None  # jq's layout: one pair, inside an object


NEW_PIECES = st.sampled_from([
    "Normal   Nominated  karpenter", "Pod should schedule on: nodeclaim/a-1", "  Normal   DisruptionBlocked",
    'FailedScheduling  karpenter  Failed to schedule pod, incompatible with nodepool "a",', "  x=y;", "  z",
    '"incompatible with nodepool \\"a\\", x;', 'incompatible with nodepool \\"b\\", y"', '"message":"deleted node","a',
    '":1', "        {\"commit\": \"1\"}", "2022-11-05T17:14:29.264Z        INFO    controller  Deleted node n1  ",
    '{"level":"INFO","time":"2024-01-01T00:0', "```", "",
])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(NEW_PIECES, st.text(max_size=30)), max_size=30))
def test_the_new_joins_never_lose_repeat_or_reorder_a_line(lines):
    parser = LogParser()
    events = list(parser.parse(lines))
    assert parser.stats.lines == len(lines)
    numbers = [e["line"] for e in events]
    assert numbers == sorted(set(numbers)) and all(1 <= n <= len(lines) for n in numbers)
