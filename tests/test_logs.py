"""Karpenter log lines of every era, kubectl's wrappings, and hostile input."""

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from karptui.logs import LogParser, event
from karptui.logs.kube_events import karpenter_event
from karptui.logs.scheduler import parse_fit_error
from karptui.sim.fit_error import fit_error, preemption_message

# The seed's real v0.27 line (shared/seeds/000), tabs and all.
SEED_LINE = ('2023-05-20T11:03:34.806Z\tERROR\tcontroller.provisioner\tCould not schedule pod, incompatible with '
             'provisioner "default", no instance type satisfied resources {"cpu":"1","memory":"256M","pods":"1"} and '
             'requirements karpenter.k8s.aws/instance-category In [c m t], kubernetes.io/os In [linux], '
             'kubernetes.io/arch In [amd64], karpenter.sh/provisioner-name In [default], karpenter.sh/capacity-type '
             'In [on-demand], topology.kubernetes.io/zone In [ap-northeast-2a]\t{"commit": "d7e22b1-dirty", "pod": '
             '"default/host-spread-fbbf7c9d9-x4lfd"}')
# The seed's deprovisioning message (shared/seeds/001) as the v0.27 console line it came from.
SEED_DEPROVISIONING = (
    '2023-05-25T01:33:21.117Z\tINFO\tcontroller.deprovisioning\tdeprovisioning via consolidation replace, '
    'terminating 2 nodes ip-192-168-118-56.ap-northeast-2.compute.internal/c5a.xlarge/on-demand, '
    'ip-192-168-40-236.ap-northeast-2.compute.internal/c5a.2xlarge/on-demand and replacing with spot node from '
    'types c4.4xlarge, m5ad.4xlarge, c6i.4xlarge, c6i.8xlarge, m5a.4xlarge and 23 other(s)\t{"commit": "982c35f"}')


def v1(message, **fields):
    return json.dumps({"level": fields.pop("level", "INFO"), "time": "2024-09-21T07:03:09.123Z",
                       "logger": "controller", "message": message, **fields})


def test_the_seed_line():
    found = event(1, SEED_LINE)
    assert found["kind"] == "pod_unschedulable" and found["level"] == "error"
    assert found["pod"] == "default/host-spread-fbbf7c9d9-x4lfd"
    assert found["resources"] == {"cpu": "1", "memory": "256M", "pods": "1"}
    (pool,) = found["nodepools"]
    assert pool["name"] == "default" and pool["reason"].endswith("topology.kubernetes.io/zone In [ap-northeast-2a]")


def test_the_seed_deprovisioning_line():
    found = event(1, SEED_DEPROVISIONING)
    assert (found["kind"], found["method"], found["action"]) == ("disruption", "consolidation", "replace")
    assert found["nodes"] == ["ip-192-168-118-56.ap-northeast-2.compute.internal",
                              "ip-192-168-40-236.ap-northeast-2.compute.internal"]
    assert found["replacement_capacity_type"] == "spot"
    assert found["replacement_instance_types"] == ["c4.4xlarge", "m5ad.4xlarge", "c6i.4xlarge", "c6i.8xlarge",
                                                   "m5a.4xlarge"]
    assert found["more"] == 23


@pytest.mark.parametrize("line,kind,fields", [
    (v1("could not schedule pod", level="ERROR", Pod={"name": "train-0", "namespace": "ml"},
        error='incompatible with nodepool "gpu", daemonset overhead={"cpu":"180m","pods":"3"}, no instance type '
              'satisfied resources {"cpu":"4180m","pods":"4"} and requirements karpenter.sh/nodepool In [gpu] (no '
              'instance type met the scheduling requirements or had enough resources); incompatible with nodepool '
              '"default", daemonset overhead={"cpu":"180m","pods":"3"}, did not tolerate nvidia.com/gpu=true:NoSchedule'),
     "pod_unschedulable", {"pod": "ml/train-0", "daemonset_overhead": {"cpu": "180m", "pods": "3"}}),
    (v1("found provisionable pod(s)", Pods="default/a, default/b and 12 other(s)", duration="41ms"),
     "pods_provisionable", {"count": 14, "pods": ["default/a", "default/b"]}),
    (v1("computed new nodeclaim(s) to fit pod(s)", nodeclaims=2, pods=14), "nodeclaims_computed",
     {"nodeclaims": 2, "pods": 14}),
    (v1("created nodeclaim", NodePool={"name": "default"}, NodeClaim={"name": "default-x7k2p"},
        **{"instance-types": "c5.xlarge, m5.xlarge and 37 other(s)"}), "nodeclaim_created",
     {"nodeclaim": "default-x7k2p", "nodepool": "default", "instance_types": ["c5.xlarge", "m5.xlarge"], "more": 37}),
    (v1("launched nodeclaim", NodeClaim={"name": "default-x7k2p"}, **{
        "provider-id": "aws:///us-east-1a/i-0abc", "instance-type": "m5.xlarge", "zone": "us-east-1a",
        "capacity-type": "spot"}), "nodeclaim_launched",
     {"nodeclaim": "default-x7k2p", "instance_type": "m5.xlarge", "zone": "us-east-1a", "capacity_type": "spot",
      "provider_id": "aws:///us-east-1a/i-0abc"}),
    (v1("registered nodeclaim", NodeClaim={"name": "default-x7k2p"}, Node={"name": "ip-10-0-1-5.ec2.internal"}),
     "nodeclaim_registered", {"nodeclaim": "default-x7k2p", "node": "ip-10-0-1-5.ec2.internal"}),
    (v1("initialized nodeclaim", NodeClaim={"name": "default-x7k2p"}, Node={"name": "ip-10-0-1-5.ec2.internal"}),
     "nodeclaim_initialized", {"node": "ip-10-0-1-5.ec2.internal"}),
    (v1("disrupting nodeclaim(s) via replace, terminating 1 nodes (2 pods) ip-10-0-3-9.ec2.internal/c6g.4xlarge/"
        "on-demand and replacing with on-demand node from types c6g.2xlarge, c7g.2xlarge and 32 other(s)",
        reason="underutilized"), "disruption",
     {"method": "underutilized", "action": "replace", "nodes": ["ip-10-0-3-9.ec2.internal"],
      "replacement_capacity_type": "on-demand", "replacement_instance_types": ["c6g.2xlarge", "c7g.2xlarge"],
      "more": 32}),
    (v1("disrupting nodeclaim(s) via delete, terminating 1 nodes (0 pods) ip-10-0-9-9.ec2.internal/m5.large/spot",
        reason="empty"), "disruption", {"method": "emptiness", "action": "delete"}),
    (v1("deleted node", Node={"name": "ip-10-0-3-9.ec2.internal"}, NodeClaim={"name": "default-abc"}),
     "node_terminated", {"node": "ip-10-0-3-9.ec2.internal", "nodeclaim": "default-abc"}),
    (v1("failed launching nodeclaim", level="ERROR", NodeClaim={"name": "gpu-q2"},
        error="creating instance, insufficient capacity, all requested instance types were unavailable during launch"),
     "launch_failed", {"nodeclaim": "gpu-q2"}),
    (v1("initiating delete from interruption message", Node={"name": "ip-10-0-4-1.ec2.internal"},
        messageKind="SpotInterruptionKind"), "interruption", {"node": "ip-10-0-4-1.ec2.internal"}),
    (v1("discovered subnets", level="DEBUG"), "other", {"message": "discovered subnets"}),
])
def test_v1_json_lines(line, kind, fields):
    found = event(7, line)
    assert found["kind"] == kind and found["line"] == 7
    assert found["time"] == "2024-09-21T07:03:09.123Z" and found["level"] in ("info", "error", "debug")
    for key, value in fields.items():
        assert found[key] == value, key


def test_v0_3x_terms_map_onto_todays():
    line = json.dumps({"level": "INFO", "time": "2024-03-16T06:48:14.001Z", "logger": "controller.disruption",
                       "message": "disrupting via consolidation delete, terminating 1 candidates "
                                  "ip-192-168-2-36.ap-northeast-2.compute.internal/t4g.xlarge/on-demand",
                       "commit": "8b2d6b4"})
    found = event(1, line)
    assert (found["kind"], found["method"], found["action"]) == ("disruption", "consolidation", "delete")
    assert found["nodes"] == ["ip-192-168-2-36.ap-northeast-2.compute.internal"]


def test_kubectl_prefix_and_timestamps():
    wrapped = "[pod/karpenter-5f7b9d8c6d-abcde/controller] 2024-09-21T07:03:09.123456789Z " + v1("deleted node", node="n1")
    found = event(1, wrapped)
    assert found["kind"] == "node_terminated" and found["source"] == "pod/karpenter-5f7b9d8c6d-abcde/controller"
    stamped = "2023-05-20T11:03:34.806812345Z " + SEED_LINE
    assert event(1, stamped)["kind"] == "pod_unschedulable"


@pytest.mark.parametrize("line", [
    "", "\n", "goroutine 1 [running]:", "\tgithub.com/x/y.go:12 +0x1d",
    '{"msg": "from some other program", "severity": "info"}',
    "klog-ish line without the header",
    "\x00\x01\x02 binary",
])
def test_not_karpenter_lines_are_skipped(line):
    assert event(1, line) is None


def test_a_line_cut_off_mid_json_is_read_for_what_it_carries():
    """Pastes end mid-line (issue 13's corpus labels them as the events they are)."""
    cut = '{"level":"INFO","time":"2024-09-21T07:03:09Z","message":"created nodeclaim","NodePool":{"name":"gpu"},"Node'
    assert event(1, cut) | {} == {"line": 1, "time": "2024-09-21T07:03:09Z", "level": "info",
                                  "kind": "nodeclaim_created", "nodepool": "gpu", "instance_types": [], "more": 0}
    assert event(1, '{"level":"INFO","time":"2024-09-21T07:03:09Z","message":"created nodecl')["kind"] == "other"


def test_stats_count_what_was_skipped():
    parser = LogParser()
    events = list(parser.parse([SEED_LINE, "goroutine 1 [running]:", "", SEED_DEPROVISIONING]))
    assert [e["line"] for e in events] == [1, 4]
    assert (parser.stats.lines, parser.stats.events, parser.stats.skipped) == (4, 2, 2)


@settings(max_examples=300)
@given(st.text(max_size=300))
def test_any_text_never_raises(text):
    event(1, text)
    event(1, "[pod/a/b] 2024-01-01T00:00:00Z " + text)
    event(1, "2024-01-01T00:00:00Z\tINFO\tlogger\t" + text)


json_values = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=20),
                           lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
                           max_leaves=15)
messages = st.sampled_from(["could not schedule pod", "created nodeclaim", "launched nodeclaim", "deleted node",
                            "disrupting nodeclaim(s) via replace, terminating 1 nodes (1 pods) a/b/c and replacing "
                            "with spot node from types", "found provisionable pod(s)", "registered machine",
                            "launching node with 1 pods requesting {} from types", "Could not schedule pod, "])


@settings(max_examples=300)
@given(messages, st.dictionaries(st.sampled_from(["Pod", "pod", "NodeClaim", "NodePool", "error", "Pods", "pods",
                                                  "instance-types", "reason", "Node", "nodeclaims"]), json_values,
                                 max_size=5))
def test_any_json_fields_never_raise(message, fields):
    found = event(1, json.dumps({"level": "INFO", "time": "t", "message": message, **fields}))
    assert found is not None and found["kind"]


# ---- scheduler events -----------------------------------------------------------------------
@settings(max_examples=200)
@given(st.dictionaries(st.sampled_from(["Insufficient cpu", "Insufficient memory", "Too many pods",
                                        "node(s) had untolerated taint {dedicated: gpu, x}",
                                        "node(s) didn't match pod topology spread constraints"]),
                       st.integers(min_value=1, max_value=500), min_size=1),
       st.sampled_from([(1, 29), (1, 30)]))
def test_fit_errors_parse_back_into_their_counts(counts, version):
    total = sum(counts.values())
    text = fit_error(total, counts, preemption_message(total, {"No preemption victims found for incoming pod": total}),
                     version)
    parsed = parse_fit_error(text)
    assert parsed.nodes == total and parsed.reasons == counts
    assert parsed.preemption == {"No preemption victims found for incoming pod": total}


def test_karpenter_pod_events():
    failed = karpenter_event("FailedScheduling", 'Failed to schedule pod, incompatible with nodepool "team1", '
                                                 'daemonset overhead={"cpu":"180m","pods":"3"}, did not tolerate a=b:NoSchedule')
    assert failed["nodepools"] == [{"name": "team1", "reason": "did not tolerate a=b:NoSchedule"}]
    nominated = karpenter_event("Nominated", "Pod should schedule on: nodeclaim/default-t8wzk, node/ip-10-0-1-5")
    assert (nominated["nodeclaim"], nominated["node"]) == ("default-t8wzk", "ip-10-0-1-5")
    assert karpenter_event("FailedScheduling", "0/3 nodes are available: 3 Insufficient cpu.") is None


def test_follow_reads_a_growing_file(tmp_path):
    import threading
    import time

    from karptui.logs.reader import follow

    path = tmp_path / "growing.log"
    path.write_text(SEED_LINE + "\n")
    got: list[str] = []
    done = threading.Event()

    def reader():
        for line in follow(str(path), poll=0.01, stop=done.is_set):
            got.append(line)
            if len(got) == 2:
                done.set()

    thread = threading.Thread(target=reader)
    thread.start()
    time.sleep(0.05)
    with path.open("a") as handle:
        handle.write(SEED_DEPROVISIONING[:50])  # half a line: not yielded until its newline arrives
        handle.flush()
        time.sleep(0.05)
        handle.write(SEED_DEPROVISIONING[50:] + "\n")
    thread.join(timeout=5)
    done.set()
    assert [event(i, line)["kind"] for i, line in enumerate(got)] == ["pod_unschedulable", "disruption"]


def test_the_event_window_is_bounded():
    from karptui.logs import EventWindow

    window = EventWindow(size=3)
    for i in range(10):
        window.add({"line": i})
    assert [e["line"] for e in window.events] == [7, 8, 9]


def test_follow_batches_starts_after_what_was_read_and_survives_copytruncate(tmp_path):
    import threading
    import time

    from karptui.logs.reader import follow_batches

    path = tmp_path / "karpenter.log"
    path.write_text("old line, already read\n")
    read = path.stat().st_size
    batches: list[list[str]] = []
    done = threading.Event()

    def reader():
        for batch in follow_batches(str(path), poll=0.01, stop=done.is_set, start=read):
            batches.append(batch)
            if len(batches) == 2:
                done.set()

    thread = threading.Thread(target=reader)
    thread.start()
    with path.open("a") as handle:
        handle.write(SEED_LINE + "\n" + SEED_DEPROVISIONING + "\n")
    for _ in range(500):  # until the reader has the appended lines
        if batches:
            break
        time.sleep(0.01)
    path.write_text(SEED_LINE + "\n")  # rotated in place: shorter than what was read
    thread.join(timeout=5)
    done.set()
    assert batches[0] == [SEED_LINE, SEED_DEPROVISIONING]  # lines come without their newline
    assert batches[1] == [SEED_LINE]


# Pieces real pastes are made of (tests/log_corpus): record starts, halves of records,
# jq's layout, wrappers and noise, so the look-ahead that joins wrapped records is exercised.
PASTE_PIECES = st.sampled_from([
    "{", "}", '  "level": "INFO",', '  "message": "created nodeclaim",', '{"level":"INFO","time":"2024-01-01T00:0',
    '0:00Z","message":"launched nodeclaim"}', "2024-01-01T00:00:00Z\tERROR\tcontroller\tCould not schedule pod, inc",
    'ompatible with provisioner "a", x\t{"commit": "1"}', "goroutine 1 [running]:", "\tgithub.com/x/y.go:12 +0x1d",
    "```", "> ", "...", "  Normal  Nominated  3m  karpenter  Pod should schedule on: nodeclaim/a-1",
    "kubectl describe node n1", "\\", '"', "[pod/k/controller] ",
])
paste_lines = st.lists(st.one_of(PASTE_PIECES, st.text(max_size=40), st.builds(lambda a, b: a + b, PASTE_PIECES,
                                                                                  st.text(max_size=20))),
                       max_size=40)


@settings(max_examples=300, deadline=None)
@given(paste_lines)
def test_any_paste_is_counted_line_by_line_and_never_raises(lines):
    """Joining wrapped records looks ahead; it must never lose, repeat or reorder a physical line."""
    parser = LogParser()
    events = list(parser.parse(line + "\n" for line in lines))
    assert parser.stats.lines == len(lines)
    numbers = [e["line"] for e in events]
    assert numbers == sorted(set(numbers)) and all(1 <= n <= len(lines) for n in numbers)
    assert parser.stats.events == len(events) and parser.stats.skipped == len(lines) - len(events)
