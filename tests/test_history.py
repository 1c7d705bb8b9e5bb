"""``karptui history``: lifecycles, chains and answers labelled by reading the corpus pastes' lines
(the expectations below quote the times and names the lines carry), the JSON and CSV shapes, bad input."""

import csv
import io
import json
from pathlib import Path

import pytest

from karptui.catalog import bundled_catalog
from karptui.catalog.pricing import offering_of
from karptui.history.builder import build_history
from karptui.history.finish import finish
from karptui.history.lp4k import LP4K_COLUMNS
from karptui.history.times import stamp
from karptui.history.why import why
from karptui.logs import LogParser
from karptui.logs.reader import read_lines
from tests.test_cli import one_line_error

CORPUS = Path(__file__).parent / "log_corpus"


def timeline(name: str, **kwargs):
    events = LogParser().parse(read_lines(str(CORPUS / name), []))
    return finish(build_history(events), **kwargs)


def lives(name: str) -> dict:
    return {life.nodeclaim: life for life in timeline(name).lives}


# e-040: LogParserForKarpenter's own sample input (v1.3/v1.4), a later window of it
def test_v1_consolidation_delete_and_its_times():
    life = lives("e-040.log")["nvme-raid-r8xwd"]
    # line 4: disrupting node(s), reason underutilized, decision delete, pod-count 1, i7ie.large spot
    assert (life.disruption.method, life.disruption.action, life.disruption.pod_count) == ("underutilized", "delete", 1)
    assert stamp(life.disrupted) == "2025-03-25T22:36:39.079Z"
    assert (life.instance_type, life.capacity_type, life.node) == (
        "i7ie.large", "spot", "ip-10-0-150-203.eu-west-1.compute.internal")
    assert stamp(life.drained) == "2025-03-25T22:36:39.339Z"          # line 6: tainted karpenter.sh/disrupted
    assert stamp(life.terminated) == "2025-03-25T22:38:20.484Z"       # line 9: deleted node
    assert life.disrupt_to_gone == 101.405
    assert life.created is None and life.lived is None                # created before the paste begins
    assert life.disruption.command_id == "26e7798c-067d-4fd1-a31a-18d94bccbd47"


def test_v1_launch_to_ready_and_interruption():
    found = lives("e-040.log")
    new = found["nvme-raid-j7c2p"]   # lines 16-19: created, launched i7ie.large eu-west-1b spot, registered, initialized
    assert (new.nodepool, new.instance_type, new.zone, new.capacity_type) == ("nvme-raid", "i7ie.large", "eu-west-1b",
                                                                               "spot")
    assert new.launch_to_ready == 58.968 and new.created_to_ready == 60.754
    assert new.end_reason == "running" and new.terminated is None
    gone = found["nvme-raid-h8zr3"]  # line 11: spot_interrupted, CordonAndDrain; line 20: deleted node
    assert (gone.interruption.message_kind, gone.interruption.action) == ("spot_interruption", "cordon_and_drain")
    assert gone.end_reason == "interruption" and gone.disrupt_to_gone == 101.294
    assert found["nvme-raid-b2n9w"].end_reason == "deleted"          # lines 7-8: deleted, no reason in the paste
    assert found["nvme-raid-m3tzv"].end_reason == "emptiness" and found["nvme-raid-m3tzv"].terminated is None
    assert timeline("e-040.log").chains == ()                         # every command here is a delete


def test_v1_price_comes_from_the_catalog_of_the_logs_region():
    life = lives("e-040.log")["nvme-raid-j7c2p"]
    catalog = bundled_catalog("eu-west-1", ("eu-west-1a", "eu-west-1b", "eu-west-1c"))
    expected = offering_of(catalog, "i7ie.large", "eu-west-1b", "spot").price
    assert expected is not None and life.price == expected


# c-020: v1.0 drift, trimmed to messages (no times, lifecycle lines without names)
def test_drift_replacements_make_chains():
    t = timeline("c-020.log")
    chains = {c.nodeclaims[0]: c for c in t.chains}
    # line 6: drift replace of ip-10-0-47-52 (c4.large spot, 2 pods); line 7: created default-v7p4m
    # line 12 deletes its node and line 13, right after, a NodeClaim, each naming only its own object: one life
    first = chains["default-k2d8x"]
    assert first.nodeclaims == ("default-k2d8x", "default-v7p4m")
    assert first.links[0].reason == "drift"
    second = chains["default-w5n2j"]   # line 14: drift replace; line 15: default-r3b9q
    assert second.nodeclaims[1:] == ("default-r3b9q",)
    found = {life.nodeclaim: life for life in t.lives}
    new = found["default-v7p4m"]   # lines 8-10 name no NodeClaim: the one just created is the one launched
    assert (new.instance_type, new.zone, new.node) == ("c4.large", "us-west-2c", "ip-10-0-36-181.us-west-2.compute.internal")
    old = found["default-k2d8x"]
    assert old.node == "ip-10-0-47-52.us-west-2.compute.internal"
    assert old.replaced_by == ("default-v7p4m",) and new.replaces == (old.nodeclaim,)
    assert first.links[0].saving == pytest.approx(old.price - new.price)


# f-036: v0.27 (machines), spot interruptions then four launches named by hostname
def test_v027_interruptions_and_machines_named_by_hostname():
    found = lives("f-036.log")
    interrupted = [n for n, life in found.items() if life.end_reason == "interruption"]
    assert sorted(interrupted) == sorted(f"ip-192-168-{ip}.us-west-2.compute.internal" for ip in
                                         ("136-29", "178-141", "93-218", "44-107", "21-175"))
    launched = found["ip-192-168-70-12.us-west-2.compute.internal"]    # line 32: launched instance m5.2xlarge spot
    assert (launched.nodepool, launched.instance_type, launched.zone, launched.capacity_type) == (
        "default", "m5.2xlarge", "us-west-2a", "spot")                    # line 25: launching machine, provisioner default
    assert stamp(launched.created) == "2023-05-21T13:36:38.317Z"
    assert len(timeline("f-036.log").interruptions) == 10                # 5 remove-offering and 5 delete lines


# e-019: v1.x fork's evidence, a whole life twice
def test_whole_lifecycle_and_short_lived():
    t = timeline("e-019.log")
    life = {x.nodeclaim: x for x in t.lives}["default-v4kpr"]
    assert life.launch_to_ready == 37.721 and life.disrupt_to_gone == 42.66 and life.lived == 254.834
    assert life.disruption.method == "emptiness"
    assert set(t.short_lived) == {"default-v4kpr", "default-j6wsd"}


def test_why_answers():
    found = lives("e-040.log")
    assert "consolidation (underutilized), delete" in why(found["nvme-raid-r8xwd"])
    assert "1m41s after the decision" in why(found["nvme-raid-r8xwd"])
    assert "spot interruption" in why(found["nvme-raid-h8zr3"])
    assert "no line in the input says why" in why(found["nvme-raid-b2n9w"])
    assert "still running" in why(found["nvme-raid-j7c2p"])


def test_cli_node_answer(cli):
    code, out, _ = cli("history", CORPUS / "e-040.log", "--node", "ip-10-0-6-139.eu-west-1.compute.internal",
                         "-o", "json")
    doc = json.loads(out)
    assert code == 0 and doc["nodeclaim"] == "nvme-raid-h8zr3" and doc["end"] == "interruption"
    assert doc["life"]["lines"] == ["11", "12", "13", "20", "21"]   # the lines naming it or its node
    one_line_error(*cli("history", CORPUS / "e-040.log", "--node", "nope"), "no NodeClaim, node or instance")
    code, out, _ = cli("history", CORPUS / "e-040.log", "--node", "i-0c6a2f8e4d17b9305", "-o", "json")  # line 17
    assert code == 0 and json.loads(out)["nodeclaim"] == "nvme-raid-j7c2p"


def test_cli_json_shape(cli):
    code, out, _ = cli("history", CORPUS / "c-020.log", "-o", "json")
    doc = json.loads(out)
    assert code == 0
    assert set(doc) == {"window", "catalog", "discounts", "nodeclaims", "chains", "churn", "short_lived", "pending",
                        "launch_failures", "interruptions", "cost"}
    assert {c["nodeclaims"][0] for c in doc["chains"]} == {"default-k2d8x", "default-w5n2j"}
    life = doc["nodeclaims"][0]
    for key in ("nodeclaim", "created", "launched", "registered", "initialized", "disrupted", "drained", "terminated",
                "launch_to_ready_seconds", "disrupt_to_gone_seconds", "price_per_hour", "replaced_by", "end"):
        assert key in life


def test_cli_csv_has_lp4k_columns_first(cli):
    code, out, _ = cli("history", CORPUS / "e-040.log", "-o", "csv")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert code == 0 and tuple(out.splitlines()[0].split(",")[:33]) == LP4K_COLUMNS
    row = {r["nodeclaim"]: r for r in rows}["nvme-raid-r8xwd"]
    assert (row["disruptiondecision"], row["disruptednodecount"], row["replacementnodecount"],
            row["disruptedpodcount"]) == ("delete", "1", "0", "1")
    # lines 5 and 10: annotated 22:36:39.291Z, deleted nodeclaim 22:38:20.734Z -> lp4k's node termination time
    assert (row["nodeterminationtime"], row["nodeterminationtimesec"]) == ("1m41.443s", "101.4")
    assert (row["deletedtime"], row["providerid"]) == ("2025-03-25T22:38:20.734Z", "")
    assert row["taint"] == "karpenter.sh/disrupted::NoSchedule" and row["deleted"] == "true"
    assert len(rows) == 7


def test_cli_window(cli):
    code, out, _ = cli("history", CORPUS / "e-040.log", "--since", "10m", "-o", "json")
    names = {n["nodeclaim"] for n in json.loads(out)["nodeclaims"]}
    # the last line is 22:56:49.499Z: r8xwd (gone 22:38) and b2n9w (gone 22:37) are before the window
    assert code == 0 and "nvme-raid-r8xwd" not in names and "nvme-raid-b2n9w" not in names
    assert {"nvme-raid-j7c2p", "nvme-raid-h8zr3", "nvme-raid-f6kq4"} <= names
    _, out, _ = cli("history", CORPUS / "e-040.log", "--since", "2025-03-25T22:50:00Z", "-o", "json")
    assert {n["nodeclaim"] for n in json.loads(out)["nodeclaims"]} == names


@pytest.mark.parametrize("args, fragment", [
    (("--since", "yesterday"), "--since"),
    (("--until", "-5m"), "--until"),
    (("--short-lived", "soon"), "--short-lived"),
])
def test_bad_input_is_one_line(cli, args, fragment):
    one_line_error(*cli("history", CORPUS / "e-040.log", *args), fragment)


def test_missing_log_is_one_line(cli, tmp_path):
    one_line_error(*cli("history", tmp_path / "none.log"), "none.log")


def test_events_file_counts_failed_scheduling(cli, write):
    events = write("events.json", {"apiVersion": "v1", "kind": "List", "items": [
        {"apiVersion": "v1", "kind": "Event", "metadata": {"name": "w.1", "namespace": "default"},
         "involvedObject": {"kind": "Pod", "name": "web-1", "namespace": "default"}, "reason": "FailedScheduling",
         "message": "0/3 nodes are available: 3 Insufficient cpu.", "source": {"component": "default-scheduler"},
         "type": "Warning", "lastTimestamp": "2025-03-25T22:40:00Z"}]})
    code, out, _ = cli("history", CORPUS / "e-040.log", "--events", events, "-o", "json")
    pending = json.loads(out)["pending"]
    assert code == 0 and [p["failed_scheduling_pods"] for p in pending] == [1]


def test_one_interruption_told_by_its_line_and_two_events_counts_once(cli, write):
    """Karpenter logs an interruption once and records a SpotInterrupted event on the Node and another on the
    NodeClaim (``kubectl get events`` shows both): e-040's one interruption stays one."""
    node = "ip-10-0-6-139.eu-west-1.compute.internal"

    def event(kind: str, name: str) -> dict:
        return {"apiVersion": "v1", "kind": "Event", "metadata": {"name": f"{name}.spot", "namespace": "default"},
                "involvedObject": {"kind": kind, "name": name}, "reason": "SpotInterrupted",
                "message": "Spot interruption warning was triggered", "source": {"component": "karpenter"},
                "type": "Warning", "lastTimestamp": "2025-03-25T22:52:44Z"}

    events = write("events.json", {"apiVersion": "v1", "kind": "List",
                                   "items": [event("Node", node), event("NodeClaim", "nvme-raid-h8zr3")]})
    code, out, _ = cli("history", CORPUS / "e-040.log", "--events", events, "-o", "json")
    doc = json.loads(out)
    assert code == 0 and [(i["nodeclaim"], i["message_kind"]) for i in doc["interruptions"]] == [
        ("nvme-raid-h8zr3", "spot_interruption")]
    gone = next(life for life in doc["nodeclaims"] if life["nodeclaim"] == "nvme-raid-h8zr3")
    assert gone["end"] == "interruption" and gone["interruption"]["line"] == "11"


# chain-v1.log: a consolidation replace, then a drift replace of the replacement (read from its lines)
CHAIN = Path(__file__).parent / "fixtures" / "history" / "chain-v1.log"


def chain_timeline():
    return finish(build_history(LogParser().parse(read_lines(str(CHAIN), []))))


def test_three_nodeclaim_chain_with_reasons_and_savings():
    t = chain_timeline()
    assert len(t.chains) == 1
    chain = t.chains[0]
    # line 2 replaces general-q7x2k; line 5 (controller disruption) creates general-h2t8w; line 13 replaces
    # h2t8w for drift; line 14 creates general-z5k4r. Line 4's general-m3v9d is the provisioner's.
    assert chain.nodeclaims == ("general-q7x2k", "general-h2t8w", "general-z5k4r")
    assert [(link.old, link.new, link.reason) for link in chain.links] == [
        ("general-q7x2k", ("general-h2t8w",), "underutilized"), ("general-h2t8w", ("general-z5k4r",), "drift")]
    catalog = bundled_catalog("us-east-1", ("us-east-1a", "us-east-1b", "us-east-1c"))
    m5_2xl = offering_of(catalog, "m5.2xlarge", "", "on-demand").price
    m5_xl = offering_of(catalog, "m5.xlarge", "us-east-1b", "on-demand").price
    c5_xl_spot = offering_of(catalog, "c5.xlarge", "us-east-1c", "spot").price
    assert chain.links[0].saving == pytest.approx(m5_2xl - m5_xl)
    assert chain.links[1].saving == pytest.approx(m5_xl - c5_xl_spot)
    found = {life.nodeclaim: life for life in t.lives}
    assert found["general-m3v9d"].replaces == () and found["general-m3v9d"].end_reason == "launch_failed"
    first = found["general-q7x2k"]
    assert (first.disruption.pod_count, first.disrupt_to_gone) == (7, 99.75)   # 03:12:00.500 -> 03:13:40.250
    assert stamp(first.nodeclaim_deleted) == "2025-06-02T03:13:40.500Z"
    assert found["general-h2t8w"].launch_to_ready == 48.1                        # 03:12:02.900 -> 03:12:51.000
    assert found["general-h2t8w"].lived == pytest.approx(20 * 60 + 74.44)        # 03:12:00.560 -> 03:33:15.000


def test_launch_failures_pending_and_churn():
    t = chain_timeline()
    assert [f["nodeclaim"] for f in t.launch_failures] == ["general-m3v9d"]
    assert "InsufficientInstanceCapacity" in t.launch_failures[0]["error"]
    assert [(p.hour, p.provisionable_batches, p.provisionable_max) for p in t.pending] == [("2025-06-02T03:00Z", 1, 2)]
    assert [(c.nodepool, c.created, c.disrupted, c.terminated) for c in t.churn] == [
        ("", 0, 1, 1), ("general", 3, 1, 1)]
    # the hour's cost: q7x2k from the log's start to its deletion, h2t8w and z5k4r from their launches
    hour = t.cost[0]
    assert hour.nodes_at_end == 1 and hour.per_hour_at_end == pytest.approx(
        offering_of(bundled_catalog("us-east-1", ("us-east-1a", "us-east-1b", "us-east-1c")), "c5.xlarge",
                    "us-east-1c", "spot").price, abs=1e-4)


def test_why_names_the_replacement_and_the_command():
    life = {x.nodeclaim: x for x in chain_timeline().lives}["general-h2t8w"]
    text = why(life)
    assert "drift, replace at 2025-06-02T03:31:10.000Z" in text and "replaced by general-z5k4r" in text
    assert "command 9d2b6f14-7a3c-4e85-b0d9-1c6e2a4f8b37" in text


# d-002: v1.x before v1.9, a consolidation replace whose replacement is itself gone six minutes later
def test_replacement_that_died_soon():
    t = timeline("d-002.log")
    found = {life.nodeclaim: life for life in t.lives}
    old, new = found["od-pool-k4v7q"], found["od-pool-w8n3d"]
    # line 1: underutilized replace of od-pool-k4v7q (c6a.4xlarge on-demand, 4 pods); line 2: created by
    # the disruption controller; lines 5-6: od-pool-w8n3d's node and NodeClaim deleted, no reason given
    assert old.replaced_by == ("od-pool-w8n3d",) and old.disruption.pod_count == 4
    assert (old.instance_type, old.capacity_type) == ("c6a.4xlarge", "on-demand")
    assert new.end_reason == "deleted" and new.lived == 372.34   # 01:40:00.242 -> 01:46:12.582
    assert "od-pool-w8n3d" in t.short_lived
    assert found["od-pool-r2t6h"].end_reason == "draining"       # line 3: tainted, nothing says why
    assert [c.nodeclaims for c in t.chains] == [("od-pool-k4v7q", "od-pool-w8n3d")]


# a-054: v0.29, machines
def test_machine_era():
    found = lives("a-054.log")
    machine = found["stateful-w6p3c"]   # launched machine c5a.xlarge eu-central-1c on-demand, registered its node
    assert (machine.instance_type, machine.zone, machine.capacity_type, machine.node) == (
        "c5a.xlarge", "eu-central-1c", "on-demand", "ip-10-88-56-35.eu-central-1.compute.internal")
    assert stamp(machine.launched) == "2023-07-21T14:05:53.845Z" and machine.end_reason == "running"
    assert found["stateful-h9r2f"].end_reason == "deleted"   # "deleted machine", no reason in the paste


def test_hostile_names_reach_the_terminal_escaped(cli, write):
    line = ('{"level":"INFO","time":"2025-06-02T03:00:01.100Z","logger":"controller","message":"launched nodeclaim",'
            '"controller":"nodeclaim.lifecycle","NodeClaim":{"name":"evil-\\u001b]52;c;aGk=\\u0007"},'
            '"instance-type":"[bold]m5.large[/bold]","zone":"us-east-1a","capacity-type":"spot"}\n')
    path = write("hostile.log", line)
    code, out, _ = cli("history", path)
    assert code == 0 and "\x1b" not in out and "\x07" not in out and "[bold]m5.large[/bold]" in out
    code, out, _ = cli("history", path, "--node", "evil-\x1b]52;c;aGk=\x07")
    assert code == 0 and "\x1b" not in out


@pytest.mark.parametrize("name", ["e-040.log", "f-036.log", "c-020.log", "d-002.log", "b-003.log", "a-054.log"])
def test_a_log_read_in_ranges_gives_the_same_history(monkeypatch, name):
    """A large plain file is read by several processes (karptui.history.read); cut small here, each paste
    must give the history it gives read whole -- lines numbered the same, no record split."""
    from karptui.history import read
    from karptui.history.builder import HistoryBuilder

    def history(minimum: int):
        monkeypatch.setattr(read, "PARALLEL_MIN_BYTES", minimum)
        monkeypatch.setattr(read, "workers", lambda: 3)
        builder = HistoryBuilder()
        counts = read.feed_log(builder, str(CORPUS / name), "", [])
        timeline = finish(builder)
        # the provisionable batches too: the decision audit reads them (they were counted apart and dropped)
        return counts, timeline.to_dict(), timeline.provisionable

    whole, split = history(1 << 40), history(1)
    assert len(read._ranges(str(CORPUS / name), 3)) >= 2
    assert split == whole


def test_a_log_read_in_ranges_warns_of_its_overlong_lines_as_read_whole(monkeypatch, tmp_path):
    """A line over the length cap is skipped with one warning naming the first such line: the same
    warning read in ranges (the ranges had counted none) as read whole."""
    from karptui import limits
    from karptui.history import read
    from karptui.history.builder import HistoryBuilder

    monkeypatch.setattr(limits, "MAX_LOG_LINE_BYTES", 4096)
    lines = (CORPUS / "e-040.log").read_text().rstrip("\n").split("\n")
    huge = '{"level":"INFO","time":"2025-03-26T09:00:00.000Z","message":"' + "x" * 5000 + '"}'
    path = tmp_path / "day.log"
    path.write_text("\n".join(lines[:3] + [huge] + lines[3:] + [huge]) + "\n")

    def read_with(minimum: int):
        monkeypatch.setattr(read, "PARALLEL_MIN_BYTES", minimum)
        monkeypatch.setattr(read, "workers", lambda: 3)
        warnings: list[str] = []
        counts = read.feed_log(HistoryBuilder(), str(path), "", warnings)
        return counts, warnings

    whole, split = read_with(1 << 40), read_with(1)
    assert len(read._ranges(str(path), 12)) >= 2
    assert whole[1] == [f"{path}: 2 line(s) over 4,096 bytes skipped (first: line 4); Karpenter's lines are a few KiB"]
    assert split == whole


def test_ranges_end_at_the_logs_last_time_whatever_its_line(monkeypatch, tmp_path):
    """The window's last time (``--since 24h`` counts back from it) is the log's last line's, also when
    history keeps nothing of that line (``discovered subnets``, after a pod's pending hour and a taint):
    read in ranges as read whole (the ranges had ended at the last line they sent on)."""
    from karptui.history import read
    from karptui.history.builder import HistoryBuilder

    tail = [('{"level":"INFO","time":"2025-03-26T09:00:00.000Z","logger":"controller","message":"tainted node",'
             '"controller":"node.termination","Node":{"name":"elsewhere"},"NodeClaim":{"name":"elsewhere"}}'),
            ('{"level":"ERROR","time":"2025-03-26T09:30:00.000Z","logger":"controller","message":"could not '
             'schedule pod","controller":"provisioner","Pod":{"name":"p","namespace":"d"},"error":"incompatible '
             'with nodepool \\"a\\", no instance type satisfied resources"}'),
            ('{"level":"INFO","time":"2025-03-26T10:00:00.000Z","logger":"controller","message":"discovered subnets",'
             '"commit":"c1"}')]
    path = tmp_path / "day.log"
    path.write_text((CORPUS / "e-040.log").read_text().rstrip("\n") + "\n" + "\n".join(tail) + "\n")

    def window(minimum: int):
        monkeypatch.setattr(read, "PARALLEL_MIN_BYTES", minimum)
        monkeypatch.setattr(read, "workers", lambda: 3)
        builder = HistoryBuilder()
        read.feed_log(builder, str(path), "", [])
        return finish(builder).to_dict()["window"]

    whole, split = window(1 << 40), window(1)
    assert whole["last"] == "2025-03-26T10:00:00.000Z"
    assert split == whole


def test_a_chain_whose_links_cancel_out_saved_nothing_rather_than_minus_nothing():
    """The History pane and the table print a saving to four places: a sum that rounds to zero is +0.0000
    (a long drift/expiration chain whose prices come and go), never -0.0000."""
    from karptui.views.history import saving_text

    assert [saving_text(v) for v in (-4e-08, -0.0, 0.148, -0.0316, None)] == [   # -4e-08: links that cancel, in floats
        "+0.0000", "+0.0000", "+0.1480", "-0.0316", "-"]
