"""The families of line shapes behind the reader's misses on a held-out set (issue 30, set f), each
tested across its siblings -- other messages, other eras, other separators -- so that a rule reads
the shape, not the one line that showed it. Every line is written here from Karpenter's templates
of its era (core and AWS provider sources; the Azure provider's wording where it appears), never
copied from the corpus:

- the author's elisions: ``{...}`` for a context, ``... `` for the columns before the logger,
  ``...`` cutting a message or a node's name;
- several records glued onto one line (a web page flattened the code block);
- a JSON record that lost only its opening brace;
- a shortened ``{"message": ..., a few keys}`` copy;
- a provider's own launch line that repeats the core's ``launched nodeclaim`` (Azure);
- Karpenter's event messages pasted without their table (Nominated, DisruptionBlocked);
- client-go's leader-election lines (the lease karptui follows).
"""

import json

import pytest

from karptui.logs import LogParser, event

PREFIX = "[pod/karpenter-6b8d7f9c4-kq2vx/controller] "


def parse(lines):
    return {e["line"]: e for e in LogParser().parse(lines)}


def one(line):
    found = parse([line])
    assert list(found) == [1], line
    return found[1]


# --- the author's {...} in place of a console line's context -------------------------------------------------

# (logger, message, kind, a field its message alone carries) -- v0.3x core lifecycle, v0.2x AWS, v0.3x disruption
ELIDED = [
    ("controller.provisioner", "found provisionable pod(s)", "pods_provisionable", {}),
    ("controller.provisioner", "computed new nodeclaim(s) to fit pod(s)", "nodeclaims_computed", {}),
    ("controller.provisioner", "created nodeclaim", "nodeclaim_created", {}),
    ("controller.nodeclaim.lifecycle", "launched nodeclaim", "nodeclaim_launched", {}),
    ("controller.nodeclaim.lifecycle", "registered nodeclaim", "nodeclaim_registered", {}),
    ("controller.nodeclaim.lifecycle", "initialized nodeclaim", "nodeclaim_initialized", {}),
    ("controller.machine.lifecycle", "launched machine", "nodeclaim_launched", {}),
    ("controller.node.termination", "deleted node", "node_terminated", {}),
    ("controller.provisioner", 'launching machine with 2 pods requesting {"cpu":"1250m","pods":"5"} from types '
     "m5.large, m5a.large", "nodeclaim_created", {"instance_types": ["m5.large", "m5a.large"]}),
    ("controller.deprovisioning", "deprovisioning via consolidation delete, terminating 1 machines "
     "ip-10-1-2-3.ec2.internal/m5.large/spot", "disruption",
     {"method": "consolidation", "action": "delete", "nodes": ["ip-10-1-2-3.ec2.internal"]}),
    ("controller.disruption", "discovered subnets", "other", {"message": "discovered subnets"}),
]
ELISIONS = ["{...}", "{…}", "{ ... }", "{..}"]
SEPARATORS = {"TABs": "\t", "TABs copied as spaces": "    ", "single spaces": " "}


@pytest.mark.parametrize("logger,message,kind,fields", ELIDED, ids=[e[1][:30] for e in ELIDED])
@pytest.mark.parametrize("elision", ELISIONS)
@pytest.mark.parametrize("sep", sorted(SEPARATORS))
def test_an_elided_context_leaves_the_message_whole(logger, message, kind, fields, elision, sep):
    s = SEPARATORS[sep]
    line = s.join(["2023-12-07T11:19:56.748Z", "INFO", logger, message, elision])
    for text in (line, PREFIX + line):
        got = one(text)
        assert got["kind"] == kind and got["level"] == "info" and got["time"] == "2023-12-07T11:19:56.748Z"
        assert {k: got.get(k) for k in fields} == fields


def test_a_context_that_is_not_an_elision_still_reads():
    got = one('2023-12-07T11:19:56.748Z\tINFO\tcontroller.provisioner\tcreated nodeclaim\t'
              '{"commit": "a1b2c3d", "NodePool": {"name": "general"}, "NodeClaim": {"name": "general-x7k2p"}}')
    assert (got["nodepool"], got["nodeclaim"]) == ("general", "general-x7k2p")
    # text after a TAB that is neither JSON nor an elision stays part of the message
    got = one("2023-12-07T11:19:56.748Z\tINFO\tcontroller\tStarting workers\tworker count 10")
    assert got["kind"] == "other" and got["message"] == "Starting workers\tworker count 10"


# --- "... " in place of the columns before the logger; "..." cutting the message --------------------------------

@pytest.mark.parametrize("head", ["... ", "… ", "...\t", "... INFO ", "...\tINFO\t", "[...] ", "  [...]\t"])
@pytest.mark.parametrize("logger,message,want", [
    ("controller.deprovisioning", "deprovisioning via consolidation replace ...",
     {"kind": "disruption", "method": "consolidation", "action": "replace"}),
    ("controller.deprovisioning", "deprovisioning via expiration delete …",
     {"kind": "disruption", "method": "expiration", "action": "delete"}),
    ("controller.disruption", "disrupting via drift replace, terminating 1 nodes ip-10-1-2-3.ec2.internal/"
     "m5.large/spot and replacing with on-demand node from types m5.large, m6i.large ...",
     {"kind": "disruption", "method": "drift", "action": "replace", "nodes": ["ip-10-1-2-3.ec2.internal"],
      "replacement_capacity_type": "on-demand"}),
    ("controller.provisioner", "created nodeclaim ...", {"kind": "nodeclaim_created"}),
    ("controller.termination", "deleted node ...", {"kind": "node_terminated"}),
])
def test_an_elided_head_and_a_cut_message(head, logger, message, want):
    got = one(head + logger + "\t" + message)
    assert {k: got.get(k) for k in want} == want
    assert "node" not in got  # "deleted node ..." names no node: the elision is not one


def test_an_elided_node_name_is_not_reported_as_a_node():
    got = one("2023-06-20T07:49:03.276Z\tINFO\tcontroller.deprovisioning\tdeprovisioning via consolidation delete, "
              "terminating 2 machines ip-10-1-2-3.ec2.internal/m5.large/spot, ip-10-9-8-…\t{\"commit\": \"5e1a7d9\"}")
    assert got["nodes"] == ["ip-10-1-2-3.ec2.internal"]


@pytest.mark.parametrize("text", ["...", "…", "... and then the node went away", "...\t\t"])
def test_an_elision_alone_or_before_prose_is_not_a_line(text):
    assert parse([text]) == {}


# --- records glued onto one line ---------------------------------------------------------------------------------

V02_LAUNCHING = ('2023-07-26T17:47:42.015Z{s}INFO{s}controller.provisioner{s}launching machine with 1 pods requesting '
                 '{{"cpu":"155m","nvidia.com/gpu":"1","pods":"6"}} from types g4dn.xlarge, g5.xlarge{s}'
                 '{{"commit": "7b3d0e6", "provisioner": "inference"}}')
V02_LAUNCHED = ('2023-07-26T17:47:44.531Z{s}INFO{s}controller.provisioner.cloudprovider{s}launched instance{s}'
                '{{"commit": "7b3d0e6", "provisioner": "inference", "id": "i-0a1b2c3d4e5f60718", '
                '"hostname": "ip-172-31-7-9.ec2.internal", "instance-type": "g4dn.xlarge", "zone": "us-east-1b", '
                '"capacity-type": "spot"}}')
V02_DEPROVISIONING = ('2023-07-26T17:49:18.043Z{s}INFO{s}controller.deprovisioning{s}deprovisioning via consolidation '
                      'delete, terminating 1 machines ip-172-31-7-9.ec2.internal/g4dn.xlarge/spot{s}'
                      '{{"commit": "7b3d0e6"}}')


@pytest.mark.parametrize("glue", ["... ", " ", "  ", "…  "])
@pytest.mark.parametrize("sep", sorted(SEPARATORS))
def test_records_glued_on_one_line_read_as_the_first(glue, sep):
    s = SEPARATORS[sep]
    records = [r.format(s=s) for r in (V02_LAUNCHING, V02_LAUNCHED, V02_DEPROVISIONING)]
    got = one(glue.join(records))
    assert got["kind"] == "nodeclaim_created" and got["nodepool"] == "inference"
    assert got["instance_types"] == ["g4dn.xlarge", "g5.xlarge"] and got["time"] == "2023-07-26T17:47:42.015Z"
    got = one(glue.join(records[1:]))
    assert (got["kind"], got["instance_type"], got["zone"], got["capacity_type"]) == (
        "nodeclaim_launched", "g4dn.xlarge", "us-east-1b", "spot")
    got = one(glue.join(records[2:] + records[:1]))
    assert (got["kind"], got["nodes"]) == ("disruption", ["ip-172-31-7-9.ec2.internal"])


def test_prefixed_records_glued_on_one_line_read_as_the_first():
    for sep in ("\t", " "):
        records = [PREFIX + r.format(s=sep) for r in (V02_LAUNCHING, V02_LAUNCHED)]
        got = one(" ".join(records))
        assert (got["kind"], got["nodepool"], got["instance_types"], got["source"]) == (
            "nodeclaim_created", "inference", ["g4dn.xlarge", "g5.xlarge"], "pod/karpenter-6b8d7f9c4-kq2vx/controller")


def test_json_records_glued_on_one_line_read_as_the_first():
    first = json.dumps({"level": "INFO", "time": "2024-05-02T10:00:00.000Z", "logger": "controller",
                        "message": "created nodeclaim", "NodePool": {"name": "a"}, "NodeClaim": {"name": "a-1"}})
    second = json.dumps({"level": "INFO", "time": "2024-05-02T10:00:02.000Z", "logger": "controller",
                         "message": "launched nodeclaim", "NodeClaim": {"name": "a-1"}, "instance-type": "m5.large"})
    for glue in ("", " ", "... "):
        got = one(first + glue + second)
        assert (got["kind"], got["nodeclaim"], got["nodepool"]) == ("nodeclaim_created", "a-1", "a")


def test_a_time_inside_a_message_is_not_a_glued_record():
    got = one("2023-07-26T17:47:42.015Z INFO controller.interruption deleted node from interruption message "
              "scheduled for 2023-07-27T00:00:00Z INFO window {\"commit\": \"7b3d0e6\", \"node\": \"n-1\"}")
    # the time there is followed by a level word, so the reader cuts: what it keeps must still be right
    assert got["kind"] == "interruption" and got["time"] == "2023-07-26T17:47:42.015Z"


# --- a JSON record that lost its opening brace -------------------------------------------------------------------

BRACELESS = [
    ({"level": "INFO", "time": "2025-02-14T06:17:18.104Z", "logger": "controller", "message": "tainted node",
      "controller": "node.termination", "Node": {"name": "ip-10-0-36-145.ec2.internal"},
      "taint.Key": "karpenter.sh/disrupted"}, {"kind": "other", "level": "info", "time": "2025-02-14T06:17:18.104Z"}),
    ({"level": "INFO", "time": "2025-02-14T06:21:03.281Z", "logger": "controller", "message": "deleted node",
      "Node": {"name": "ip-10-0-36-145.ec2.internal"}},
     {"kind": "node_terminated", "node": "ip-10-0-36-145.ec2.internal"}),
    ({"level": "DEBUG", "time": "2024-03-01T00:00:00.000Z", "logger": "controller", "message": "discovered amis"},
     {"kind": "other", "level": "debug"}),
    ({"level": "info", "ts": 1744247481.657, "logger": "fallback", "caller": "imagefamily/image.go:102",
      "msg": "discovered new image id"}, {"kind": "other", "level": "info", "time": "2025-04-10T01:11:21.657000Z"}),
]


@pytest.mark.parametrize("record,want", BRACELESS, ids=[r[0].get("message", r[0].get("msg")) for r in BRACELESS])
@pytest.mark.parametrize("wrap", ["", "    ", PREFIX, PREFIX + "2025-02-14T06:17:18.104817Z "])
def test_a_record_that_lost_its_opening_brace(record, want, wrap):
    text = json.dumps(record, separators=(",", ":"))[1:]
    got = one(wrap + text)
    assert {k: got.get(k) for k in want} == want
    cut = one(wrap + text[:-12])  # and cut at its end as well: still a line of its level
    assert cut["level"] == want.get("level", "info")


@pytest.mark.parametrize("text", [
    '"level":"info","message":"hello there"',            # no time: a pair or two of something else
    '"message":"Starting workers","logger":"controller"',  # a shortened copy whose message is not Karpenter's
    '"level": "INFO",',                                   # jq's layout: one pair on a line
])
def test_pairs_without_zaps_head_stay_noise(text):
    assert event(1, text) is None


# --- a shortened {"message": ...} copy --------------------------------------------------------------------------

@pytest.mark.parametrize("data,want", [
    ({"message": "found provisionable pod(s)", "Pods": "shop/web-1, shop/web-2, shop/web-3"},
     {"kind": "pods_provisionable", "count": 3}),
    ({"message": "computed new nodeclaim(s) to fit pod(s)", "nodeclaims": 1, "pods": 5},
     {"kind": "nodeclaims_computed", "nodeclaims": 1, "pods": 5}),
    ({"message": "created nodeclaim", "NodePool": {"name": "general"}, "NodeClaim": {"name": "general-q4x7b"}},
     {"kind": "nodeclaim_created", "nodepool": "general", "nodeclaim": "general-q4x7b"}),
    ({"msg": "launched nodeclaim", "NodeClaim": {"name": "general-q4x7b"}, "instance-type": "m5.large"},
     {"kind": "nodeclaim_launched", "nodeclaim": "general-q4x7b", "instance_type": "m5.large"}),
    ({"message": "disrupting node(s)", "command": "Underutilized/ab12: delete: [ip-10-1-2-3.ec2.internal] "
      "(savings: $0.10)"}, {"kind": "disruption", "method": "underutilized", "action": "delete"}),
    ({"time": "2024-05-02T10:00:00.000Z", "message": "initialized nodeclaim", "NodeClaim": {"name": "g-1"},
      "Node": {"name": "n-1"}}, {"kind": "nodeclaim_initialized", "node": "n-1", "time": "2024-05-02T10:00:00.000Z"}),
])
def test_a_shortened_message_copy_is_read(data, want):
    for text in (json.dumps(data), "    " + json.dumps(data, separators=(",", ":"))):
        got = one(text)
        assert {k: got.get(k) for k in want} == want
    found = parse(json.dumps(data, indent=2).splitlines())  # jq's layout
    assert list(found) == [1] and {k: found[1].get(k) for k in want} == want


@pytest.mark.parametrize("data", [{"message": "hello"}, {"message": "Starting workers", "worker count": 10},
                                  {"name": "x", "message": 3}, {"status": "ok"}])
def test_other_programs_json_is_not_a_line(data):
    assert parse([json.dumps(data)]) == {}


# --- a provider's own launch line: AWS v0.2x is the launch record, Azure's repeats the core's ------------------

def test_aws_launched_new_instance_of_every_era_is_the_launch():
    v020 = ('2022-12-01T10:00:00.000Z\tINFO\tcontroller.provisioner.cloudprovider\tlaunched new instance\t'
            '{"commit": "a1b2c3d", "provisioner": "default", "launched-instance": "i-0a1b2c3d4e5f60718", '
            '"hostname": "ip-10-0-60-12.ec2.internal", "type": "m5.large", "zone": "us-east-1a", '
            '"capacity-type": "spot"}')
    v027 = json.dumps({"level": "INFO", "time": "2023-05-01T10:00:00.000Z",
                       "logger": "controller.provisioner.cloudprovider", "message": "launched new instance",
                       "id": "i-0a1b2c3d4e5f60718", "hostname": "ip-10-0-60-12.ec2.internal",
                       "instance-type": "m5.large", "zone": "us-east-1a", "capacity-type": "spot"})
    for line in (v020, v027):
        got = one(line)
        assert (got["kind"], got["nodeclaim"], got["instance_type"], got["provider_id"]) == (
            "nodeclaim_launched", "ip-10-0-60-12.ec2.internal", "m5.large", "i-0a1b2c3d4e5f60718")


VM = "/subscriptions/abc/resourceGroups/MC_rg_aks_westeurope/providers/Microsoft.Compute/virtualMachines/aks-general-x1"


@pytest.mark.parametrize("line", [
    json.dumps({"level": "info", "ts": 1744247571.08, "logger": "fallback", "caller": "instance/instance.go:156",
                "msg": "launched new instance", "launched-instance": VM, "hostname": "aks-general-x1",
                "type": "Standard_D8ls_v5", "zone": "westeurope-3", "capacity-type": "on-demand"}),
    json.dumps({"level": "INFO", "time": "2025-04-10T01:12:51.081Z", "logger": "controller",
                "message": "launched new instance", "launched-instance": VM, "hostname": "aks-general-x1",
                "type": "Standard_D8ls_v5", "zone": "westeurope-3", "capacity-type": "on-demand"}),
])
def test_the_azure_providers_launched_new_instance_repeats_the_core_launch(line):
    assert one(line)["kind"] == "other"


# --- Karpenter's event messages pasted alone ---------------------------------------------------------------------

@pytest.mark.parametrize("message,want", [
    ("Pod should schedule on: machine/default-q8d3n, node/ip-10-1-2-3.eu-central-1.compute.internal",
     {"kind": "pod_nominated", "nodeclaim": "default-q8d3n", "node": "ip-10-1-2-3.eu-central-1.compute.internal"}),
    ("Pod should schedule on: nodeclaim/default-q8d3n", {"kind": "pod_nominated", "nodeclaim": "default-q8d3n"}),
    ("Pod should schedule on: node/ip-10-1-2-3.ec2.internal",
     {"kind": "pod_nominated", "node": "ip-10-1-2-3.ec2.internal"}),
    ("Pod should schedule on ip-10-1-2-3.ec2.internal", {"kind": "pod_nominated", "node": "ip-10-1-2-3.ec2.internal"}),
    ("Cannot disrupt Node: state node is nominated for a pending pod", {"kind": "disruption_blocked"}),
    ("Cannot disrupt NodeClaim: nodeclaim does not have an associated node", {"kind": "disruption_blocked"}),
    ("No allowed disruptions for disruption reason Drifted due to blocking budget", {"kind": "disruption_blocked"}),
    ("No allowed disruptions due to blocking budget", {"kind": "disruption_blocked"}),
])
@pytest.mark.parametrize("wrap", ["", "  ", "> ", "`"])
def test_an_event_message_pasted_alone(message, want, wrap):
    got = one(wrap + message + ("`" if wrap == "`" else ""))
    assert {k: got.get(k) for k in want} == want and "event" in got


@pytest.mark.parametrize("text", ["Pod should schedule on the new node but it never does",
                                  "No allowed disruptions, says the budget", "Cannot disrupt anything today"])
def test_prose_that_starts_like_an_event_message_is_not_one(text):
    assert parse([text]) == {}


# --- client-go's leader election in Karpenter's output (read as other: karptui follows the lease) --------------

@pytest.mark.parametrize("line,leader", [
    ("I0620 07:17:32.344253       1 leaderelection.go:248] attempting to acquire leader lease "
     "karpenter/karpenter-leader-election...", False),
    ("I1229 10:02:23.828649       1 leaderelection.go:253] successfully acquired lease "
     "karpenter/karpenter-leader-election", True),
    (json.dumps({"level": "info", "ts": 1710406900.86, "logger": "fallback", "caller": "leaderelection/leaderelection.go:260",
                 "msg": "successfully acquired lease kube-system/karpenter-leader-election"}), True),
    (json.dumps({"level": "INFO", "time": "2024-10-09T13:00:24.112Z", "logger": "controller",
                 "message": "successfully acquired lease karpenter/karpenter-leader-election"}), True),
])
def test_leader_election_lines_are_other_and_name_the_leader(line, leader):
    parser = LogParser()
    found = list(parser.parse([PREFIX + line]))
    assert [(e["kind"], e["level"]) for e in found] == [("other", "info")]
    assert parser.stats.leaders == (["pod/karpenter-6b8d7f9c4-kq2vx/controller"] if leader else [])


# --- the author's "..." in place of some pairs inside a JSON record -----------------------------------------------

@pytest.mark.parametrize("line,want", [
    ('{"level":"INFO","time":"2024-05-02T10:00:00.000Z","logger":"controller","message":"created nodeclaim",...,'
     '"NodePool":{"name":"a"},"NodeClaim":{"name":"a-1"}}', {"kind": "nodeclaim_created", "nodeclaim": "a-1"}),
    ('{"level":"INFO","time":"2024-05-02T10:00:00.000Z","logger":"controller","message":"launched nodeclaim", …}',
     {"kind": "nodeclaim_launched", "level": "info"}),
    ('{"level":"INFO","time":"2024-05-02T10:00:00.000Z","message":"initialized nodeclaim","NodeClaim":{...},'
     '"Node":{"name":"n-1"}}', {"kind": "nodeclaim_initialized", "node": "n-1"}),
    ('{...,"message":"deleted node","Node":{"name":"n-1"}}', {"kind": "node_terminated", "node": "n-1"}),
    ('{"message":"found provisionable pod(s)", ...}', {"kind": "pods_provisionable"}),
])
def test_elided_pairs_inside_a_record(line, want):
    got = one(line)
    assert {k: got.get(k) for k in want} == want


# --- a context below its console line, itself wrapped (the earlier rule took one line only) ------------------------

@pytest.mark.parametrize("cut", [60, 95, 130])
def test_a_context_below_its_line_and_wrapped_is_joined(cut):
    context = ('{"commit": "a83f61c", "provisioner": "default", "id": "i-0a1b2c3d4e5f60718", "hostname": '
               '"ip-10-1-2-3.ec2.internal", "instance-type": "m5.large", "zone": "us-east-1a", "capacity-type": "spot"}')
    lines = ["2022-11-05T17:14:29.264Z        INFO    controller.provisioner.cloudprovider  launched instance",
             "        " + context[:cut], "        " + context[cut:],
             "2022-11-05T17:14:30.001Z        INFO    controller.provisioner  waiting for unschedulable pods"]
    parser = LogParser()
    found = {e["line"]: e for e in parser.parse(lines)}
    assert sorted(found) == [1, 4] and parser.stats.lines == 4
    got = found[1]
    assert (got["nodeclaim"], got["instance_type"], got["zone"], got["capacity_type"], got["provider_id"]) == (
        "ip-10-1-2-3.ec2.internal", "m5.large", "us-east-1a", "spot", "i-0a1b2c3d4e5f60718")


def test_a_record_below_a_console_line_is_not_its_context():
    lines = ["2022-11-05T17:14:29.264Z        INFO    controller.provisioner  found provisionable pod(s)",
             '        {"level": "INFO", "message": "created nodeclaim",', '         "NodeClaim": {"name": "a-1"}}']
    found = parse(lines)
    assert found[1]["kind"] == "pods_provisionable" and found[2]["kind"] == "nodeclaim_created"


# --- an event object that lost its opening brace; a brace-lost record reads as it would whole -------------------

EVENT = {"apiVersion": "v1", "kind": "Event", "count": 3, "eventNamespace": "default",
         "involvedObject": {"kind": "Node", "name": "ip-10-1-2-3.ec2.internal", "apiVersion": "v1"},
         "reason": "DisruptionBlocked", "message": "Cannot disrupt Node: state node is nominated for a pending pod",
         "source": {"component": "karpenter"}, "type": "Normal"}


@pytest.mark.parametrize("first", ["apiVersion", "count", "eventNamespace"])
def test_an_event_object_that_lost_its_opening_brace(first):
    data = {first: EVENT[first], **{k: v for k, v in EVENT.items() if k != first}}
    whole = json.dumps(data, separators=(",", ":"))
    for text in (whole, whole[1:], "  " + whole[1:]):
        got = one(text)
        assert (got["kind"], got["node"], got["event"]) == (
            "disruption_blocked", "ip-10-1-2-3.ec2.internal", "DisruptionBlocked")


@pytest.mark.parametrize("data", [
    {"level": "INFO", "message": "tainted node", "Node": {"name": "n-1"}},
    {"level": "INFO", "message": "created nodeclaim", "NodePool": {"name": "a"}, "NodeClaim": {"name": "a-1"}},
    {"ts": 1744247481.657, "level": "info", "logger": "fallback", "msg": "Starting workers", "worker count": 10},
    {"reason": "Nominated", "message": "Pod should schedule on: nodeclaim/a-1",
     "involvedObject": {"kind": "Pod", "namespace": "shop", "name": "web-1"}, "source": {"component": "karpenter"}},
])
def test_a_brace_lost_record_reads_as_it_does_whole(data):
    whole = json.dumps(data, separators=(",", ":"))
    assert event(1, whole[1:]) == event(1, whole) and event(1, whole) is not None


# --- a message cut short: the words that begin a template and no other line ---------------------------------------

CUT = [  # (message of its era, kind, fields that survive a cut after the head)
    ("Launched instance: i-0a1b2c3d4e5f60718, hostname: ip-10-1-2-3.ec2.internal, type: m5.large, zone: us-east-1a, "
     "capacityType: spot", "nodeclaim_launched", {"provider_id": "i-0a1b2c3d4e5f60718"}),
    ('Created node with 2 pods requesting {"cpu":"1","pods":"4"} from types m5.large, m5a.large',
     "nodeclaim_created", {}),
    ('launching machine with 2 pods requesting {"cpu":"1","pods":"4"} from types m5.large', "nodeclaim_created", {}),
    ("Computed 2 new node(s) will fit 9 pod(s)", "nodeclaims_computed", {}),
    ("Computed packing of 2 node(s) for 9 pod(s) with instance type option(s) [m5.large m5a.large]",
     "nodeclaims_computed", {}),
    ("deprovisioning via consolidation delete, terminating 1 machines ip-10-1-2-3.ec2.internal/m5.large/spot",
     "disruption", {"method": "consolidation"}),
    ("Triggering termination for expired node after 720h0m0s (+2m3s)", "disruption",
     {"method": "expiration", "action": "delete"}),
    ('Could not schedule pod, incompatible with provisioner "default", no instance type satisfied resources',
     "pod_unschedulable", {}),
    ("initiating delete from interruption message", "interruption", {"action": "delete"}),
    ("deleted node from interruption message", "interruption", {"action": "delete"}),
]


@pytest.mark.parametrize("message,kind,fields", CUT, ids=[c[0][:28] for c in CUT])
@pytest.mark.parametrize("ending", [" ...", "...", " …", ""])
def test_a_message_cut_after_its_templates_head(message, kind, fields, ending):
    words = message.split(" ")
    for keep in range(3 if kind != "disruption" else 4, len(words)):
        cut = " ".join(words[:keep])
        line = f"2023-05-21T12:48:51.090Z\tINFO\tcontroller.provisioner\t{cut}{ending}"
        got = one(line)
        assert got["kind"] == kind, cut
        assert {k: got.get(k) for k in fields if k != "provider_id" or ", " in cut} == \
            {k: v for k, v in fields.items() if k != "provider_id" or ", " in cut}, cut


@pytest.mark.parametrize("message", ["created launch template", "deleted launch template", "Created node event",
                                     "computed instance type offerings", "launching the webhook server",
                                     "deleted nodes are gone", "Could not find an image", "initiating shutdown"])
def test_lines_that_begin_with_the_same_first_word_stay_other(message):
    got = one(f"2023-05-21T12:48:51.090Z\tINFO\tcontroller\t{message}\t{{\"commit\": \"5ad27c3\"}}")
    assert got["kind"] == "other", message


# --- an author's shortened copy of a console line: the message and its context, no time, level or logger --------

@pytest.mark.parametrize("line,want", [
    ('launched machine\t{"commit": "089ce6b", "machine": "workers-m3rtx", "provisioner": "workers", '
     '"provider-id": "aws:///us-east-1a/i-04b7e1d5a2c3f6890", "instance-type": "m5.large", "zone": "us-east-1a", '
     '"capacity-type": "spot"}',
     {"kind": "nodeclaim_launched", "nodeclaim": "workers-m3rtx", "instance_type": "m5.large", "zone": "us-east-1a"}),
    ('deleted node  {"commit": "ffa9924", "node": "ip-10-75-28-242.eu-central-1.compute.internal"}',
     {"kind": "node_terminated", "node": "ip-10-75-28-242.eu-central-1.compute.internal"}),
    ('removing offering from offerings {"commit": "4b82e24", "queue": "q", "messageKind": "SpotInterruptionKind", '
     '"node": "ip-1-2-3-4.ec2.internal"}', {"kind": "interruption", "message_kind": "spot_interruption"}),
    ("registered machine\t{...}", {"kind": "nodeclaim_registered"}),
    ('created nodeclaim {…}', {"kind": "nodeclaim_created"}),
])
def test_a_console_lines_message_and_context_alone(line, want):
    got = one(line)
    assert {k: got.get(k) for k in want} == want and got["level"] == "" and got["time"] == ""


@pytest.mark.parametrize("line", ['Starting workers\t{"commit": "089ce6b", "worker count": 10}',
                                  'We saw this {"commit": "089ce6b"} and then nothing'])
def test_prose_or_other_messages_with_a_context_stay_noise(line):
    assert parse([line]) == {}


# --- the wrappers of one paste around the shapes of another ------------------------------------------------------

@pytest.mark.parametrize("quote", ["> ", ">> ", "  > "])
def test_quoted_exports_time_columns_and_cut_times(quote):
    csv = '"2022-09-03T16:22:18.485Z","""karpenter""","Deleted node ip-10-36-70-175.eu-west-1.compute.internal"'
    assert one(quote + csv)["kind"] == "node_terminated"
    column = "2026-09-17T18:03:31Z  deleted nodeclaim"
    got = one(quote + column)
    assert (got["kind"], got["time"]) == ("node_terminated", "2026-09-17T18:03:31Z")
    cut_time = '22-09-21T01:05:00.176Z\tINFO\tcontroller.provisioner\tcreated nodeclaim\t{"commit": "17ac0fb"}'
    assert one(quote + cut_time)["kind"] == "nodeclaim_created"


def test_a_bare_controller_logger_with_its_context_when_time_and_level_are_elided():
    got = one('... controller Reconciler error {"commit": "a81c4f2", "controller": "provisioner", "error": '
              '"launching nodeclaim, creating instance, insufficient capacity"}')
    assert got["kind"] == "launch_failed"
    assert parse(["... controller is where it went wrong"]) == {}


def test_a_bare_message_behind_zaps_caller_column():
    got = one('scheduling/scheduler.go:190\tCould not schedule pod, incompatible with provisioner "capped", '
              'did not tolerate a=b:NoSchedule\t{"commit": "f430280", "pod": "default/web-1"}')
    assert (got["kind"], got["pod"], [p["name"] for p in got["nodepools"]]) == (
        "pod_unschedulable", "default/web-1", ["capped"])
