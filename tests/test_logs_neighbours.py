"""The families behind the reader's misses on held-out sets g and h (issue 30), each tested across its
siblings. Every line here is written from the templates of the program that writes it (Karpenter core,
the AWS provider, controller-runtime, knative, klog, Kubernetes' event tables), never copied from a paste:

- another program's lines in the same paste (a controller beside a Karpenter-core one): no record;
- Karpenter's own ``other`` messages pasted alone, or as a braceless fragment;
- Karpenter quoted inside a prose line (a code span, a double-quoted event message), maybe cut;
- Karpenter's Evicted rows in an events table without a SOURCE column;
- a record hard-wrapped inside its message and cut before it closed;
- v1.10+'s command text shortened after its NodePools; v0.1 and v0.5 packing lines.
"""

import json
import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from karptui.logs import LogParser, event
from karptui.logs.foreign import CLIENT_GO_FILES


def parse(lines):
    return {e["line"]: e for e in LogParser().parse(lines)}


# --- another program's lines: no record; Karpenter-core lines beside them still read ------------------------------

CONSOLE_LOGGERS = ["", "controller", "controller.provisioner", "controller-runtime.metrics", "webhook"]
CONSOLE_MESSAGES = ["Starting workers", "Starting EventSource", "Metrics server is starting to listen",
                    "Found 2 provisionable pod(s)", "deleted node", "Reconcile succeeded"]
CONTEXTS = ["", '{"commit": "4b1c7d2"}', '{"controller": "workspace", "worker count": 5}', '{"addr": ":8080"}']
STAMPS = st.tuples(st.integers(2019, 2027), st.integers(1, 12), st.integers(1, 28), st.integers(0, 23),
                   st.integers(0, 59), st.integers(0, 59))


def _stamp(parts, fraction):
    y, mo, d, h, mi, s = parts
    return f"{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02}{fraction}Z"


@settings(max_examples=300, deadline=None)
@given(STAMPS, st.integers(0, 999), st.sampled_from(["INFO", "DEBUG", "ERROR"]), st.sampled_from(CONSOLE_LOGGERS),
       st.sampled_from(CONSOLE_MESSAGES), st.sampled_from(CONTEXTS), st.sampled_from(["\t", "    ", " "]),
       st.sampled_from(["", "[pod/karpenter-6b8d7f9c4-kq2vx/controller] ", "> "]))
def test_a_console_line_is_karpenters_only_with_its_encoders_milliseconds(parts, millis, level, logger, message,
                                                                         context, sep, wrap):
    """Karpenter's console encoder wrote ISO 8601 with milliseconds in every era; controller-runtime's
    default writes whole seconds. The same columns with whole seconds are another program's line."""
    columns = [level] + ([logger] if logger else []) + [message] + ([context] if context else [])
    ours = wrap + sep.join([_stamp(parts, f".{millis:03}")] + columns)
    theirs = wrap + sep.join([_stamp(parts, "")] + columns)
    assert event(1, theirs) is None and parse([theirs]) == {}
    if logger or level != "INFO" or sep == "\t":  # (a level and a message alone may be a sentence)
        assert list(parse([ours])) == [1]


def test_a_log_stores_whole_second_column_before_karpenters_own_line_is_not_its_time():
    line = ("2023-08-20T03:09:04+02:00\t2023-08-20T01:09:04.554Z\tINFO\tcontroller.machine.lifecycle\t"
            'launched machine\t{"commit": "5e4a7c1", "machine": "ci-x7k2p", "provisioner": "ci"}')
    got = parse([line])[1]
    assert got["kind"] == "nodeclaim_launched" and got["nodeclaim"] == "ci-x7k2p"


@settings(max_examples=200, deadline=None)
@given(st.text(string.ascii_lowercase + "_", min_size=1, max_size=20), st.integers(1, 999),
       st.sampled_from(['"starting manager"', '"reconcile" workspace="default/ws-1"', "Starting workers"]))
def test_klog_lines_are_karpenters_process_only_from_client_go(stem, lineno, message):
    """Karpenter never logs through klog; client-go does, in its process (leader election, throttling)."""
    name = f"{stem}.go"
    line = f"I0423 15:15:15.391620       1 {name}:{lineno}] {message}"
    got = parse([line])
    if name in CLIENT_GO_FILES:
        assert got[1]["kind"] == "other" and got[1]["level"] == "info"
    else:
        assert got == {}


def test_client_go_klog_lines_stay_other():
    for line in ("I0620 07:17:32.344253       1 leaderelection.go:248] attempting to acquire leader lease "
                 "karpenter/karpenter-leader-election...",
                 "I1102 09:12:40.118012       1 request.go:690] Waited for 1.04s due to client-side throttling, "
                 "not priority and fairness, request: GET:https://10.0.0.1:443/api/v1/nodes"):
        assert parse([line])[1]["kind"] == "other"


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(CONSOLE_MESSAGES), st.sampled_from(["webhook", "controller", "webhook.ValidationWebhook", None]),
       st.dictionaries(st.sampled_from(["knative.dev/key", "duration", "caller"]), st.text(max_size=12), max_size=3))
def test_json_whose_level_is_under_severity_is_another_programs(message, logger, extra):
    """knative's default encoder names the level ``severity`` and the time ``timestamp``; Karpenter's
    encoder has said ``level`` and ``time`` in every era."""
    base = {"message": message, **extra, **({"logger": logger} if logger else {})}
    theirs = {"severity": "INFO", "timestamp": "2024-04-23T15:15:15.410660846Z", **base}
    ours = {"level": "INFO", "time": "2024-04-23T15:15:15.410Z", **base}
    assert parse([json.dumps(theirs)]) == {}
    assert parse([json.dumps(ours)])[1]["level"] == "info"


def test_a_karpenter_core_controller_after_another_programs_block_is_still_read():
    other_program = [
        "I0501 10:00:00.100000       1 main.go:90] \"starting webhook reconcilers\"",
        json.dumps({"severity": "INFO", "timestamp": "2024-05-01T10:00:00.2Z", "logger": "webhook",
                    "message": "Starting controllers..."}),
        "2024-05-01T10:00:01Z\tINFO\tStarting Controller\t{\"controller\": \"workspace\"}",
        "2024/05/01 10:00:01 Registering 2 informers",
    ]
    core = [
        json.dumps({"level": "INFO", "time": "2024-05-01T10:05:00.100Z", "logger": "controller.machine.lifecycle",
                    "message": "launched machine", "machine": "ws1a2b3c4", "provisioner": "default",
                    "provider-id": "azure:///subscriptions/x/virtualMachines/0", "instance-type": "Standard_NC6s_v3",
                    "zone": "eastus-1", "capacity-type": "on-demand"}),
        json.dumps({"level": "INFO", "time": "2024-05-01T10:05:01.000Z", "logger": "controller",
                    "message": "Instance.Get", "id": "azure:///subscriptions/x/virtualMachines/0"}),
    ]
    got = parse(other_program + core)
    assert sorted(got) == [5, 6]
    assert got[5]["kind"] == "nodeclaim_launched" and got[5]["nodeclaim"] == "ws1a2b3c4"
    assert got[6]["kind"] == "other"


FALLBACK = json.dumps({"level": "info", "ts": 1714557600.25, "logger": "fallback",
                       "caller": "injection/injection.go:63", "msg": "Starting informers..."})


@pytest.mark.parametrize("before,theirs", [
    (json.dumps({"severity": "INFO", "timestamp": "2024-05-01T10:00:00.2Z", "message": "Starting configuration manager..."}),
     True),
    ("I0501 10:00:00.100000       1 main.go:90] \"starting manager\"", True),
    ("2022-08-25T07:35:02.076Z\tINFO\tcontroller\tInitializing with version v0.15.0\t{\"commit\": \"6ebc531\"}", False),
    ("", False),
    ("kubectl logs -n karpenter deploy/karpenter", False),
])
def test_a_shared_librarys_line_belongs_to_the_program_before_it(before, theirs):
    """knative's fallback logger writes in Karpenter's process and in other controllers alike."""
    got = parse([before, FALLBACK])
    assert (2 not in got) is theirs
    parser = LogParser()
    parser.feed(before)
    assert (parser.feed(FALLBACK) is None) is theirs


# --- Karpenter's own "other" messages pasted alone, or as a fragment ----------------------------------------------

@settings(max_examples=100, deadline=None)
@given(st.integers(1, 5000), st.integers(0, 5000), st.floats(0.5, 10.0), st.sampled_from(["", "  ", "> ", "`"]))
def test_provisioning_messages_alone_are_karpenters(new, existing, seconds, lead):
    for message in (f"Batched {new} pod(s) in {seconds!r}s", f"Batched {new} pods in {seconds:.3f}s",
                    f"{new} pod(s) will schedule against new capacity, {existing} pod(s) against existing capacity"):
        got = parse([lead + message + ("`" if lead == "`" else "")])
        assert got[1]["kind"] == "other" and got[1]["message"] == message


@pytest.mark.parametrize("message", ["Added TTL to empty node", "waiting on cluster sync",
                                     "failed while checking on-demand fallback", '"failed while checking on-demand fallback"',
                                     "successfully acquired lease karpenter/karpenter-leader-election",
                                     '"message":"Successfully acquired lease","lock":"kube-system/karpenter-leader-election"',
                                     '"message":"tainted node","controller":"node.termination"'])
def test_other_templates_alone_are_karpenters(message):
    assert parse([message])[1]["kind"] == "other"


@pytest.mark.parametrize("text", ['"message":"starting server","kind":"health probe","addr":"[::]:8081"',
                                  '"message":"Starting Controller","controller":"provisioner"'])
def test_fragments_of_other_programs_start_up_stay_unread(text):
    """controller-runtime writes these in every controller: a fragment of one says nothing of whose it is."""
    assert parse([text]) == {}


@pytest.mark.parametrize("text", ["Batched the requests over time", "We added TTL to empty node pools",
                                  "3 pods will schedule soon", "Starting workers", "waiting on cluster sync to finish"])
def test_sentences_that_resemble_them_stay_prose(text):
    assert parse([text]) == {}


def test_a_fragment_of_a_drain_start_is_read_with_its_node():
    got = parse(['"message":"tainted node","Node":{"name":"ip-10-4-1-9.ec2.internal"},'
                 '"taint.Key":"karpenter.sh/disrupted","taint.Effect":"NoSchedule"'])[1]
    assert (got["kind"], got["node"], got["taint"]) == ("other", "ip-10-4-1-9.ec2.internal",
                                                        "karpenter.sh/disrupted::NoSchedule")


# --- Karpenter quoted inside a prose line ---------------------------------------------------------------------------

PROSE = st.text(string.ascii_letters + " ,.:;!?()-'", max_size=40)
UNCONSOLIDATABLE = [
    "SpotToSpotConsolidation requires 15 cheaper instance type options than the current candidate to consolidate, got 3",
    "SpotToSpotConsolidation is disabled, can't replace a spot node with a spot node",
    "Can't replace with a cheaper node",
    "Can\u2019t remove without creating 2 candidates",
    'NodePool "batch" has consolidation disabled',
]


@settings(max_examples=150, deadline=None)
@given(PROSE, PROSE, st.sampled_from([m for m in UNCONSOLIDATABLE if '"' not in m]))
def test_an_unconsolidatable_message_quoted_in_prose(before, after, message):
    after = f". {after}"  # prose goes on after a stop or a space
    got = parse([f'It says {before}"{message}"{after}'])  # (prose that is itself a message is another test's)
    assert got[1]["kind"] == "unconsolidatable" and got[1]["reason"] == message


@pytest.mark.parametrize("message", UNCONSOLIDATABLE)
def test_an_unconsolidatable_message_alone(message):
    assert parse([message])[1]["kind"] == "unconsolidatable"


@settings(max_examples=150, deadline=None)
@given(PROSE, PROSE, st.sampled_from(["`", "```"]), st.sampled_from([
    ("controller.node\tAdded TTL to empty node", "other"),
    ("controller.provisioning\tBatched 3 pod(s) in 1.0005s", "other"),
    ("Normal  DisruptionBlocked  2m (x4 over 9m)  karpenter  Cannot disrupt Node: state node is nominated",
     "disruption_blocked"),
]))
def test_a_karpenter_line_in_a_code_span_of_prose(before, after, ticks, quoted):
    span, kind = quoted
    assert parse([f"We saw {before}{ticks}{span}{ticks}{after}"])[1]["kind"] == kind


@pytest.mark.parametrize("cut", ["78s (x53 ov", "3m2s (x4", "12m (x2 over", "5s (x"])
def test_a_describe_row_cut_in_its_age_inside_an_unclosed_span(cut):
    got = parse([f"I saw this on the node:` Normal  DisruptionBlocked  {cut}"])
    assert got[1]["kind"] == "disruption_blocked" and "reason" not in got[1]


@pytest.mark.parametrize("text", [
    "If you see `Nominated  karpenter  Pod should schedule on: nodeclaim/default-x1y2z` it is waiting.",
    'The docs call this "consolidation" and say it is safe.',
    "Run `kubectl describe node` and look for `DisruptionBlocked` events.",
])
def test_prose_that_names_karpenters_words_is_not_a_line(text):
    assert parse([text]) == {}


# --- Karpenter's Evicted rows without a SOURCE column ------------------------------------------------------------------

@pytest.mark.parametrize("message,karpenters", [
    ("Evicted pod: Underutilized", True), ("Evicted pod: Drifted", True), ("Evicted pod", True),
    ("The node was low on resource: memory. Threshold quantity: 100Mi, available: 51Mi.", False),
    ("Evicted pods from node", False),
])
@pytest.mark.parametrize("lead", ["", "shop          "])
def test_evicted_rows_are_karpenters_by_their_message(message, karpenters, lead):
    row = f"{lead}4m          Normal    Evicted            pod/web-6c8f4d9b57-t2w8k       {message}"
    got = parse([row])
    if karpenters:
        pod = f"{lead.split()[0]}/web-6c8f4d9b57-t2w8k" if lead.strip() else "web-6c8f4d9b57-t2w8k"  # -A: NAMESPACE
        assert got[1]["kind"] == "other" and got[1]["event"] == "Evicted" and got[1]["pod"] == pod
    else:
        assert got == {}


# --- a record hard-wrapped inside its message, then cut ------------------------------------------------------------------

POOLS = ["arm", "graviton", "x86-nvme", "legacy", "gpu-a"]


@settings(max_examples=200, deadline=None)
@given(st.integers(2, 5), st.integers(0, 10_000), st.integers(0, 10_000))
def test_a_wrapped_then_cut_record_reads_every_pool_it_still_names(count, wrap_at, cut_at):
    parts = [f'incompatible with nodepool "{p}", daemonset overhead={{"cpu":"180m","pods":"4"}}, '
             f"incompatible requirements, key karpenter.sh/nodepool In [{p}]" for p in POOLS[:count]]
    record = json.dumps({"level": "ERROR", "time": "2023-12-10T07:49:22.662Z", "logger": "controller.provisioner",
                         "message": "Could not schedule pod, " + "; ".join(parts), "commit": "1072d3b",
                         "pod": "shop/web-1"}, separators=(",", ":"))
    start = record.index("incompatible")
    last = record.rindex('incompatible with nodepool \\"') + len(f'incompatible with nodepool \\"{POOLS[count - 1]}\\", ')
    cut = last + cut_at % (record.index('","commit"') - last)  # the paste ends inside the message
    wrap = start + 1 + wrap_at % (cut - start - 1)
    while record[wrap - 1] in '} \\':
        # not after "}" (a line that ends so reads as whole), a space (a paste drops it at the line's end) or a
        # backslash (a shell's line continuation, taken out): where a wrap leaves nothing to tell it by
        wrap -= 1
    got = parse(["```", record[:wrap], record[wrap:cut], "```"])
    assert list(got) == [2]
    assert [p["name"] for p in got[2]["nodepools"]] == POOLS[:count]


def test_a_cut_record_is_not_joined_with_the_next_record_or_prose_after_a_blank_line():
    cut = '{"level":"INFO","time":"2024-01-02T03:04:05.000Z","logger":"controller","message":"disrupting no'
    got = parse([cut, '{"level":"INFO","time":"2024-01-02T03:04:06.000Z","message":"deleted node","Node":{"name":"n1"}}'])
    assert got[2]["kind"] == "node_terminated"
    got = parse([cut, "", "As you can see, it stops there."])
    assert list(got) == [1]


# --- v1.10+'s command shortened; v0.1 and v0.5 packings -----------------------------------------------------------------

@pytest.mark.parametrize("command,method,action,pools", [
    ("Underutilized/a1b2c3d4: delete: nodepools=[web-spot]", "underutilized", "delete", ["web-spot"]),
    ("Empty/...: delete: nodepools=[general]", "emptiness", "delete", ["general"]),
    ("Drifted/9f8e: replace: nodepools=[a,b]", "drift", "replace", ["a", "b"]),
    ("Underutilized/77aa: replace: nodepools=[web]: [ip-10-0-1-2.ec2.internal] -> [1 replacement] (savings: $0.04)",
     "underutilized", "replace", ["web"]),
])
def test_a_shortened_command_still_names_its_method_and_nodepools(command, method, action, pools):
    for text in ('"message":"disrupting node(s)","command":' + json.dumps(command),
                 json.dumps({"level": "INFO", "time": "2026-06-04T17:26:30.642Z", "logger": "controller",
                             "message": "disrupting node(s)", "command": command})):
        got = parse([text])[1]
        assert (got["kind"], got["method"], got["action"], got["nodepools"]) == ("disruption", method, action, pools)


@pytest.mark.parametrize("message,want", [
    ("Successfully packed 3 pods onto 1 nodes", {"pods": 3, "nodeclaims": 1}),
    ("Successfully packed 1 pods onto 1 nodes", {"pods": 1, "nodeclaims": 1}),
    ("Computed packing of 2 node(s) for 7 pod(s) with instance type option(s) [m5.large m5a.large]",
     {"pods": 7, "nodeclaims": 2, "instance_types": ["m5.large", "m5a.large"]}),
    ("Computed packing of 1 node(s) for 1 pod(s)", {"pods": 1, "nodeclaims": 1}),
])
def test_early_packing_lines(message, want):
    got = parse([f"2021-02-27T21:28:08.712Z\tDEBUG\t{message}"])[1]
    assert got["kind"] == "nodeclaims_computed"
    assert {k: got.get(k) for k in want} == want and ("instance_types" in got) == ("instance_types" in want)


def test_other_successfully_lines_stay_other():
    got = parse(["2021-02-27T21:28:08.712Z\tDEBUG\tSuccessfully discovered launch template Karpenter-dev for cluster dev"])
    assert got[1]["kind"] == "other"
