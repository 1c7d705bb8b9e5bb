"""Karpenter's newer events and log lines as operators paste them (issue 27): v1.15's
InsufficientCapacityError on each nominated pod, the consolidation verdicts' validation classes
and full command text, balanced consolidation's score line, node repair.

Every line here is written for these tests (names, IDs and numbers made up) in the shape the
templates below print; the sources are kubernetes-sigs/karpenter unless said otherwise:
- pod event: PR #3143 (in v1.15.0; not on main as of 2026-08-20), pkg/controllers/nodeclaim/lifecycle/events.go:43
  and launch.go (publishNominatedPodEvents); the NodeClaim's own event: v1.0.0 same file :33
- consolidation verdicts: v1.14.1 pkg/controllers/disruption/events/events.go:142,164; the command text
  types.go:306-351; the failure classes validation.go:359-378 and consolidation_logging_test.go:44-85
- consolidation score: v1.14.0 pkg/controllers/disruption/balanced.go:162
- node repair: v1.9.0 pkg/controllers/node/health/controller.go:173 (``deleting unhealthy node``);
  repair as a disruption method under the budget reason Unhealthy is PR #3311 (v1.15 release notes; not on
  main as of 2026-08-20, so its ``disrupting node(s)`` line is the v1.14 template with that reason)
- lines new on main since v1.14.0 that stay ``other``: pkg/controllers/node/termination/terminator/eviction.go
  :320 (``deleting pod``), pkg/controllers/state/nodeclaimgc/controller.go:73 (``garbage collecting stale unlaunched
  nodeclaim from cluster state``), pkg/controllers/node/health/controller.go:187
"""

import json

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from karptui.logs import LogParser, event
from karptui.logs.classify import consolidation_message
from karptui.logs.join import explain_pending
from karptui.logs.kube_events import event_row, json_event, karpenter_event
from karptui.logs.timeline import snapshot_events
from karptui.sources import load_snapshot
from karptui.views.activity import activity_rows, summary
from karptui.views.details import pod_detail
from tests.conftest import FIXTURES

ICE = "insufficient capacity, all requested instance types were unavailable during launch"
POD_ICE = f"NodeClaim general-m4v8r nominated for this pod failed to launch: {ICE}"


def v1(message, level="INFO", **fields):
    return json.dumps({"level": level, "time": "2026-08-03T09:12:44.517Z", "logger": "controller",
                       "message": message, "commit": "5e1a7c0", **fields})


# ---- 1. InsufficientCapacityError on the pods nominated to a NodeClaim whose launch hit ICE (v1.15) ----

def _event_object(reason, message, kind, name, namespace=""):
    return {"apiVersion": "v1", "kind": "Event", "type": "Warning", "reason": reason, "message": message,
            "involvedObject": {"apiVersion": "v1" if kind == "Pod" else "karpenter.sh/v1", "kind": kind,
                               "name": name, **({"namespace": namespace} if namespace else {})},
            "source": {"component": "karpenter"}, "lastTimestamp": "2026-08-03T09:12:45Z", "count": 1}


@pytest.mark.parametrize("pasted,pod", [
    # kubectl get events -n shop (LAST SEEN, TYPE, REASON, OBJECT, MESSAGE)
    (f"14s         Warning   InsufficientCapacityError   pod/cart-6c9d7f5b8-zt2qw   {POD_ICE}",
     "cart-6c9d7f5b8-zt2qw"),
    # kubectl get events -A: NAMESPACE first
    (f"shop        14s         Warning   InsufficientCapacityError   pod/cart-6c9d7f5b8-zt2qw   {POD_ICE}",
     "shop/cart-6c9d7f5b8-zt2qw"),   # get events -A: the NAMESPACE column names it whole
    # kubectl describe pod's Events table: Type, Reason, Age, From, Message
    (f"  Warning  InsufficientCapacityError  14s   karpenter          {POD_ICE}", None),
    # a log store's "Reason: message (object)"
    (f"InsufficientCapacityError: {POD_ICE} (cart-6c9d7f5b8-zt2qw)", "cart-6c9d7f5b8-zt2qw"),
])
def test_the_pod_event_is_a_launch_failure_in_every_pasted_shape(pasted, pod):
    found = event(3, pasted)
    assert found["kind"] == "launch_failed" and found["event"] == "InsufficientCapacityError"
    assert found["nodeclaim"] == "general-m4v8r" and found["error"] == ICE
    assert found.get("pod") == pod


def test_the_pod_event_object_names_its_pod_with_its_namespace():
    core = json_event(_event_object("InsufficientCapacityError", POD_ICE, "Pod", "cart-6c9d7f5b8-zt2qw", "shop"))
    assert core["kind"] == "launch_failed" and core["pod"] == "shop/cart-6c9d7f5b8-zt2qw"
    assert core["nodeclaim"] == "general-m4v8r" and core["error"] == ICE
    # events.k8s.io/v1 spells the object "regarding" and the message "note"
    newer = json_event({"apiVersion": "events.k8s.io/v1", "kind": "Event", "reason": "InsufficientCapacityError",
                        "note": POD_ICE, "type": "Warning", "reportingController": "karpenter",
                        "regarding": {"kind": "Pod", "name": "cart-6c9d7f5b8-zt2qw", "namespace": "shop"}})
    assert (newer["kind"], newer["pod"], newer["nodeclaim"]) == ("launch_failed", "shop/cart-6c9d7f5b8-zt2qw",
                                                                 "general-m4v8r")


def test_the_nodeclaims_own_ice_event_is_a_launch_failure_of_no_pod():
    text = f"NodeClaim general-m4v8r event: {ICE}"
    found = json_event(_event_object("InsufficientCapacityError", text, "NodeClaim", "general-m4v8r"))
    assert (found["kind"], found["nodeclaim"], found["error"]) == ("launch_failed", "general-m4v8r", ICE)
    assert "pod" not in found
    stored = event(1, f"InsufficientCapacityError: {text} (general-m4v8r)")  # the object is the NodeClaim
    assert stored["kind"] == "launch_failed" and "pod" not in stored


def test_an_ice_event_in_another_wording_stays_other():
    found = karpenter_event("InsufficientCapacityError", "capacity was short", "pod/shop/cart-1")
    assert found["kind"] == "other" and found["message"] == "capacity was short"


def test_logs_parse_reads_the_event_beside_the_log_line(cli, write):
    lines = [
        "[pod/karpenter-7b9c6d5f4-q8wzt/controller] 2026-08-03T09:12:44.517312000Z "
        + v1("failed launching nodeclaim", level="ERROR", NodeClaim={"name": "general-m4v8r"}, error=ICE),
        json.dumps(_event_object("InsufficientCapacityError", POD_ICE, "Pod", "cart-6c9d7f5b8-zt2qw", "shop")),
        json.dumps(_event_object("InsufficientCapacityError", POD_ICE, "Pod", "cart-6c9d7f5b8-h5kx9", "shop")),
    ]
    path = write("paste.log", "\n".join(lines) + "\n")
    code, out, err = cli("logs", "parse", path, "--output", "jsonl")
    assert code == 0
    found = [json.loads(line) for line in out.splitlines()]
    assert [e["kind"] for e in found] == ["launch_failed"] * 3
    assert [e.get("pod") for e in found] == [None, "shop/cart-6c9d7f5b8-zt2qw", "shop/cart-6c9d7f5b8-h5kx9"]
    assert {e["nodeclaim"] for e in found} == {"general-m4v8r"}
    assert found[0]["source"] == "pod/karpenter-7b9c6d5f4-q8wzt/controller" and found[1]["event"] == \
        "InsufficientCapacityError"


def test_the_activity_pane_and_the_pods_drill_in_show_the_failed_launch():
    found = list(LogParser().parse([
        json.dumps(_event_object("InsufficientCapacityError", POD_ICE, "Pod", "checkout-5f7d8c9b6d-rx4tp", "shop"))]))
    (row,) = activity_rows(found)
    assert row.kind == "launch failed" and row.summary == f"general-m4v8r {ICE}"
    snapshot = load_snapshot(FIXTURES / "dumps" / "eks-karpenter-v1.yaml")
    pod = next(p for p in snapshot.pending_pods if p.key == "shop/checkout-5f7d8c9b6d-rx4tp")
    lines = pod_detail(pod, snapshot, None, found)["karpenter log"]
    assert lines == [f"2026-08-03T09:12:45Z launch_failed: NodeClaim general-m4v8r: {ICE}"]


def _dump_with_ice_event(tmp_path):
    """The v1 dump with v1.15's event filed on its pending pod, 14 s after the pod's nomination."""
    dump = yaml.safe_load((FIXTURES / "dumps" / "eks-karpenter-v1.yaml").read_text())
    nominated = next(i for i in dump["items"] if i.get("kind") == "Event" and i.get("reason") == "Nominated")
    ice = json.loads(json.dumps(nominated))
    ice.update(reason="InsufficientCapacityError", type="Warning", lastTimestamp="2024-11-05T14:31:52Z",
               firstTimestamp="2024-11-05T14:31:52Z",
               message=f"NodeClaim default-t8wzk nominated for this pod failed to launch: {ICE}")
    ice["metadata"] = {**nominated["metadata"], "name": "checkout-5f7d8c9b6d-rx4tp.180518fe7a1b2c3d",
                       "uid": "0c4f1d2e-9a8b-4c7d-8e6f-5a4b3c2d1e0f"}
    dump["items"].append(ice)
    path = tmp_path / "dump.yaml"
    path.write_text(yaml.safe_dump(dump))
    return load_snapshot(path)


def test_a_snapshots_ice_event_joins_the_pending_pods_story(tmp_path):
    """The event filed on the pod in a dump: the pod's story lists it after its nomination."""
    snapshot = _dump_with_ice_event(tmp_path)
    records = snapshot_events(snapshot)
    failed = [r for r in records if r["kind"] == "launch_failed"]
    assert failed == [{"line": 0, "time": "2024-11-05T14:31:52+00:00", "level": "warn",
                       "event": "InsufficientCapacityError", "pod": "shop/checkout-5f7d8c9b6d-rx4tp",
                       "kind": "launch_failed", "nodeclaim": "default-t8wzk", "error": ICE, "origin": "event"}]
    (story,) = explain_pending(snapshot, [])
    assert [a["kind"] for a in story.actions] == ["pod_nominated", "launch_failed"]
    assert any(r.kind == "launch failed" and "default-t8wzk" in r.summary
               for r in activity_rows([], snapshot_events=records))


async def test_the_activity_pane_lists_the_failed_launch_from_the_snapshot(tmp_path):
    from karptui.tui.app import KarptuiApp
    from karptui.tui.widgets import VirtualTable

    app = KarptuiApp(_dump_with_ice_event(tmp_path), simulate_on_start=False)
    async with app.run_test(size=(160, 45)) as pilot:
        await pilot.press("3")
        table = app.screen.query_one("#activity-table", VirtualTable)
        cells = [" ".join(row) for row in table.rows]
        assert any("launch failed" in c and "default-t8wzk" in c and "insufficient capacity" in c for c in cells)
        await pilot.press("q")


# ---- 2. The consolidation verdicts: full command text and the validation failure classes ----

@pytest.mark.parametrize("which", ["budget", "scheduling", "churn", "unknown"])
def test_a_rejected_single_node_command_keeps_its_class(which):
    text = (f"Consolidation rejected: Underutilized/4c2e9a71: replace: nodepools=[general]: "
            f"[ip-10-40-7-21.eu-west-1.compute.internal] -> [1 replacement] (savings: $0.09), reason: {which} "
            f"(savings: $0.09)")
    found = event(1, f"5m   Normal   ConsolidationRejected   node/ip-10-40-7-21.eu-west-1.compute.internal   {text}")
    assert found["kind"] == "consolidation_rejected" and found["reason"] == which
    assert found["node"] == "ip-10-40-7-21.eu-west-1.compute.internal"
    assert (found["method"], found["action"], found["nodepools"]) == ("underutilized", "replace", ["general"])


def test_a_rejected_node_of_a_multi_node_command_and_a_candidate():
    part = karpenter_event("ConsolidationRejected", "Consolidation rejected: delete: [ip-10-40-3-5.eu-west-1.compute"
                           ".internal] (part of 4-node consolidation), reason: churn (savings: $0.31)",
                           "nodeclaim/general-k2d9s")
    assert (part["kind"], part["reason"], part["action"]) == ("consolidation_rejected", "churn", "delete")
    assert part["nodeclaim"] == "general-k2d9s" and part["node"] == "ip-10-40-3-5.eu-west-1.compute.internal"
    candidate = karpenter_event("ConsolidationCandidate", "Consolidation candidate: Empty/9d0b3f12: delete: "
                                "nodepools=[batch,general]: [ip-10-40-8-8.eu-west-1.compute.internal] (savings: $0.19) "
                                "(savings: $0.19)", "node/ip-10-40-8-8.eu-west-1.compute.internal")
    assert (candidate["kind"], candidate["method"], candidate["nodepools"]) == (
        "consolidation_candidate", "emptiness", ["batch", "general"])
    assert "reason" not in candidate


@settings(max_examples=200, deadline=None)
@given(names=st.lists(st.from_regex(r"[a-z0-9][a-z0-9.-]{0,30}", fullmatch=True), min_size=1, max_size=4),
       pools=st.lists(st.from_regex(r"[a-z][a-z0-9-]{0,12}", fullmatch=True), min_size=1, max_size=3),
       which=st.sampled_from(["budget", "scheduling", "churn", "unknown"]),
       full=st.booleans(), replace=st.booleans(), savings=st.floats(0, 1000, allow_nan=False))
def test_any_verdict_text_gives_back_its_nodes_and_class(names, pools, which, full, replace, savings):
    decision = "replace" if replace else "delete"
    tail = " -> [1 replacement]" if replace else ""
    if full:
        command = (f"Underutilized/0a1b2c3d: {decision}: nodepools=[{','.join(pools)}]: [{', '.join(names)}]{tail} "
                   f"(savings: ${savings:.2f})")
    else:
        command = f"{decision}: [{', '.join(names)}]{tail}"
    found = consolidation_message(f"Consolidation rejected: {command}, reason: {which} (savings: ${savings:.2f})")
    assert found["nodes"] == names and found["reason"] == which and found["action"] == decision
    assert found.get("nodepools") == (pools if full else None)


# ---- 3. Balanced consolidation's score, one line per NodePool (V(1), so at debug level) ----

SCORE = dict(controller="disruption", nodepool="general", score=0.3816, savings_fraction=0.0412,
             disruption_fraction=0.108, savings=0.0931, disruption_cost=4.25, nodepool_total_cost=2.26,
             nodepool_total_disruption_cost=39.35, threshold=0.5, k=2, approved=False, decision="replace",
             candidates=["ip-10-40-7-21.eu-west-1.compute.internal", "ip-10-40-9-4.eu-west-1.compute.internal"])


def test_the_consolidation_score_line():
    line = v1("consolidation score", level="DEBUG", **SCORE)
    for pasted in (line, "[pod/karpenter-7b9c6d5f4-q8wzt/controller] 2026-08-03T09:12:44.517312000Z " + line):
        found = event(9, pasted)
        assert found["kind"] == "consolidation_score" and found["level"] == "debug"
        assert (found["nodepool"], found["score"], found["threshold"], found["k"]) == ("general", 0.3816, 0.5, 2)
        assert (found["approved"], found["decision"], found["savings"]) == (False, "replace", 0.0931)
        assert found["nodes"] == SCORE["candidates"]
    assert summary(event(9, line)) == ("general 0.38 < 0.50: rejected (replace ip-10-40-7-21.eu-west-1.compute.internal,"
                                       " ip-10-40-9-4.eu-west-1.compute.internal)")
    approved = event(9, v1("consolidation score", level="DEBUG", **{**SCORE, "score": 0.71, "approved": True,
                                                                    "decision": "delete", "candidates": []}))
    assert summary(approved) == "general 0.71 >= 0.50: approved (delete)"
    assert activity_rows([approved])[0].kind == "score"


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(st.sampled_from(sorted(SCORE)), st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=8),
    st.lists(st.one_of(st.text(max_size=8), st.integers()), max_size=3))))
def test_a_score_line_with_any_field_values_keeps_only_what_is_well_typed(fields):
    found = event(1, v1("consolidation score", level="DEBUG", **fields))
    assert found["kind"] == "consolidation_score"
    for key in ("score", "threshold", "savings", "disruption_cost"):
        assert key not in found or (isinstance(found[key], (int, float)) and not isinstance(found[key], bool))
    assert "approved" not in found or isinstance(found["approved"], bool)
    assert all(isinstance(n, str) and n for n in found.get("nodes", []))
    summary(found)


# ---- 4. Node repair ----

def test_the_health_controllers_repair_is_a_disruption():
    found = event(2, v1("deleting unhealthy node", controller="node.health", namespace="", name="ip-10-40-2-17.eu-"
                        "west-1.compute.internal", Node={"name": "ip-10-40-2-17.eu-west-1.compute.internal"},
                        NodeClaim={"name": "general-w7p3n"}, reconcileID="7d1e2f3a-4b5c-4d6e-8f70-8192a3b4c5d6"))
    assert (found["kind"], found["method"], found["action"]) == ("disruption", "repair", "delete")
    assert found["nodes"] == ["ip-10-40-2-17.eu-west-1.compute.internal"] and found["nodeclaim"] == "general-w7p3n"
    assert summary(found) == "repair delete ip-10-40-2-17.eu-west-1.compute.internal"


def test_repair_as_a_disruption_method_under_its_budget_reason():
    found = event(4, v1("disrupting node(s)", controller="disruption", reason="unhealthy", decision="replace",
                        command="Unhealthy/5f6e7d8c: replace: nodepools=[general]: [ip-10-40-2-17.eu-west-1.compute"
                                ".internal] -> [1 replacement] (savings: $0.00)",
                        **{"disrupted-nodes": [{"Node": {"name": "ip-10-40-2-17.eu-west-1.compute.internal"},
                                                "NodeClaim": {"name": "general-w7p3n"},
                                                "capacity-type": "on-demand", "instance-type": "m7i.xlarge"}],
                           "replacement-nodes": [{"capacity-type": "on-demand",
                                                  "instance-types": "m7i.xlarge, m6i.xlarge and 18 other(s)"}]}))
    assert (found["kind"], found["method"], found["action"]) == ("disruption", "repair", "replace")
    assert found["nodes"] == ["ip-10-40-2-17.eu-west-1.compute.internal"] and found["nodepools"] == ["general"]
    assert found["replacement_instance_types"] == ["m7i.xlarge", "m6i.xlarge"] and found["more"] == 18


# ---- Lines new on main since v1.14.0 that carry no decision ----

@pytest.mark.parametrize("message,fields", [
    ("deleting pod", {"Pod": {"name": "cart-6c9d7f5b8-zt2qw", "namespace": "shop"}, "pod.eviction-cost": 0}),
    ("garbage collecting stale unlaunched nodeclaim from cluster state", {"NodeClaim": {"name": "general-m4v8r"}}),
    ("listing reschedulable pods for disruption metric", {"error": "node not found"}),
])
def test_new_diagnostic_lines_stay_other(message, fields):
    found = event(1, v1(message, level="DEBUG", **fields))
    assert found["kind"] == "other" and found["message"] == message


@settings(max_examples=300, deadline=None)
@given(claim=st.from_regex(r"[a-z0-9][a-z0-9.-]{0,40}", fullmatch=True),
       error=st.text(st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=80).filter(str.strip),
       comma=st.booleans())
def test_any_ice_pod_event_gives_back_its_nodeclaim_and_error(claim, error, comma):
    message = f"NodeClaim {claim}{',' if comma else ''} nominated for this pod failed to launch: {error}"
    found = karpenter_event("InsufficientCapacityError", message, "pod/shop/cart-0")
    assert (found["kind"], found["nodeclaim"], found["error"], found["pod"]) == (
        "launch_failed", claim, error.strip(), "shop/cart-0")
    row = event_row(f"Warning  InsufficientCapacityError  3s  karpenter  {message}")
    assert row is None or row["kind"] in ("launch_failed", "other")


def test_repair_held_back_by_the_unhealthy_share_is_a_blocked_node():
    """v1.9.0 pkg/controllers/node/health/controller.go:153,262 and events.go: filed on the Node."""
    found = event(1, "2m   Warning   NodeRepairBlocked   node/ip-10-40-2-17.eu-west-1.compute.internal   "
                     "more than 20% nodes are unhealthy in the nodepool")
    assert (found["kind"], found["node"], found["reason"]) == (
        "disruption_blocked", "ip-10-40-2-17.eu-west-1.compute.internal",
        "more than 20% nodes are unhealthy in the nodepool")
    assert activity_rows([found])[0].kind == "blocked"


def test_a_disruption_row_leaves_out_what_the_line_did_not_say():
    """A cut-off ``disrupting node(s)`` line with its reason and nodes but no decision: no "None" in the row."""
    found = event(1, v1("disrupting node(s)", reason="unhealthy",
                        **{"disrupted-nodes": [{"Node": {"name": "ip-10-40-2-17.eu-west-1.compute.internal"}}]}))
    assert "action" not in found
    assert summary(found) == "repair ip-10-40-2-17.eu-west-1.compute.internal"


@pytest.mark.parametrize("prefix", ["", "[pod/karpenter-7b9c6d5f4-q8wzt/controller] "])
def test_the_new_lines_in_zaps_console_shape(prefix):
    """The same records as a console encoder writes them (TIME, LEVEL, LOGGER, MESSAGE, {context}), as log
    shippers re-render JSON lines and operators paste them."""
    score = event(1, prefix + "2026-08-03T09:12:44.517Z\tDEBUG\tcontroller.disruption\tconsolidation score\t"
                  + json.dumps(SCORE))
    assert (score["kind"], score["nodepool"], score["approved"]) == ("consolidation_score", "general", False)
    repair = event(2, prefix + "2026-08-03T09:12:45.002Z\tINFO\tcontroller.node.health\tdeleting unhealthy node\t"
                   + json.dumps({"Node": {"name": "ip-10-40-2-17.eu-west-1.compute.internal"}}))
    assert (repair["kind"], repair["method"], repair["nodes"]) == (
        "disruption", "repair", ["ip-10-40-2-17.eu-west-1.compute.internal"])
    assert repair.get("source", "") == prefix[1:-2]


def test_a_pods_describe_table_names_the_pod_on_its_launch_failure():
    """``kubectl describe pod`` pasted whole: its Events rows carry no object, the command above them does."""
    pasted = ["$ kubectl describe pod -n payments ledger-7c6b5d9f8-k4j2n", "Events:",
              "  Type     Reason                     Age   From       Message",
              "  ----     ------                     ----  ----       -------",
              "  Normal   Nominated                  41s   karpenter  Pod should schedule on: nodeclaim/memory-r5t2v",
              f"  Warning  InsufficientCapacityError  38s   karpenter  NodeClaim memory-r5t2v nominated for this pod "
              f"failed to launch: {ICE}"]
    nominated, failed = LogParser().parse(pasted)
    assert (nominated["kind"], nominated["pod"], nominated["nodeclaim"]) == (
        "pod_nominated", "payments/ledger-7c6b5d9f8-k4j2n", "memory-r5t2v")
    assert (failed["kind"], failed["pod"], failed["nodeclaim"]) == (
        "launch_failed", "payments/ledger-7c6b5d9f8-k4j2n", "memory-r5t2v")
