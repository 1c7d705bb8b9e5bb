"""``karptui logs parse`` and ``open --logs``: the docs/logs-jsonl.md contract and bad input."""

import gzip
import json

from karptui.logs import LogParser
from karptui.logs.join import explain_pending
from karptui.sources import bundled_snapshot, load_snapshot
from karptui.sim import simulate
from karptui.catalog import catalog_from_snapshot_region
from tests.test_cli import one_line_error
from tests.test_logs import SEED_DEPROVISIONING, SEED_LINE


def test_jsonl_contract(cli, write):
    path = write("karpenter.log", "\n".join([SEED_LINE, "goroutine 1 [running]:", SEED_DEPROVISIONING]) + "\n")
    code, out, err = cli("logs", "parse", path, "--output", "jsonl")
    assert code == 0
    events = [json.loads(line) for line in out.splitlines()]
    assert [e["line"] for e in events] == [1, 3]
    for e in events:
        assert {"line", "time", "level", "kind"} <= set(e) and e["level"] in ("info", "error", "debug", "warn")
    assert "3 lines: 2 Karpenter events, 1 skipped" in err


def test_table_and_gzip(cli, write):
    path = write("karpenter.log.gz", gzip.compress((SEED_LINE + "\n").encode()))
    code, out, err = cli("logs", "parse", path)
    assert code == 0 and "pod_unschedulable" in out and "1 Karpenter events" in err


def test_stdin(cli, monkeypatch):
    import io
    import sys

    fake = io.TextIOWrapper(io.BytesIO((SEED_LINE + "\n").encode()))
    monkeypatch.setattr(sys, "stdin", fake)
    code, out, _ = cli("logs", "parse", "-", "-o", "jsonl")
    assert code == 0 and json.loads(out)["kind"] == "pod_unschedulable"


def test_hostile_files_are_skipped_not_fatal(cli, write):
    garbage = bytes(range(256)) * 50 + b"\n\xff\xfe invalid utf-8 \xc3\x28\n"
    long_line = b"x" * (10 * 2**20) + b"\n"
    path = write("mixed.log", garbage + long_line + (SEED_LINE + "\n").encode())
    code, out, err = cli("logs", "parse", path, "-o", "jsonl")
    assert code == 0
    (found,) = [json.loads(line) for line in out.splitlines()]
    assert found["kind"] == "pod_unschedulable"


def test_unreadable_input_is_exit_2(cli, tmp_path):
    one_line_error(*cli("logs", "parse", tmp_path / "missing.log"), "missing.log", "no such file")
    one_line_error(*cli("logs", "parse", tmp_path), "is a directory")


def test_a_file_that_fails_mid_read_keeps_what_was_read(cli, write, monkeypatch):
    import karptui.logs.reader as reader

    path = write("karpenter.log", SEED_LINE + "\n")

    def flaky(handle, *rest):  # one read's lines, then the disk fails
        yield [SEED_LINE]
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(reader, "_batches", flaky)
    code, out, err = cli("logs", "parse", path, "-o", "jsonl")
    assert code == 0 and len(out.splitlines()) == 1 and "stopped reading" in err


def test_join_flags_where_logs_and_simulation_disagree():
    snapshot = load_snapshot(bundled_snapshot("topology-spread"))
    events = list(LogParser().parse(snapshot.meta.logs_text.splitlines()))
    result = simulate(snapshot, catalog=catalog_from_snapshot_region(snapshot))
    stories = {s.pod: s for s in explain_pending(snapshot, events, result)}
    assert len(stories) == 6
    logged = stories["default/host-spread-fbbf7c9d9-x4lfd"]
    assert logged.karpenter_from == "log" and logged.karpenter_time == "2023-05-20T11:04:41.917Z"  # the newest
    assert logged.karpenter_reason.startswith('incompatible with nodepool "default", no instance type satisfied')
    assert logged.scheduler_reason.startswith("0/9 nodes are available")
    assert any("the simulation launches" in flag for flag in logged.disagreements)
    quiet = stories["default/host-spread-fbbf7c9d9-4b7tq"]
    assert quiet.karpenter_reason is None and quiet.disagreements == ()


def test_join_uses_karpenters_pod_events_when_logs_are_silent():
    from tests.conftest import FIXTURES

    snapshot = load_snapshot(FIXTURES / "dumps" / "eks-karpenter-v1.yaml")
    (story,) = explain_pending(snapshot, [])
    assert story.pod == "shop/checkout-5f7d8c9b6d-rx4tp" and story.karpenter_from == "event"
    assert story.karpenter_reason.startswith(
        'incompatible with nodepool "default", all available instance types exceed limits for nodepool: "default"; '
        'incompatible with nodepool "gpu", did not tolerate nvidia.com/gpu=true:NoSchedule')
    assert story.actions[0] == {"kind": "pod_nominated", "pod": "shop/checkout-5f7d8c9b6d-rx4tp",
                                "nodeclaim": "default-t8wzk", "time": "2024-11-05T14:31:38+00:00"}


def test_the_seed_log_keeps_every_bracketed_value_in_the_table(cli):
    """The seed's Karpenter v0.27 line ends `topology.kubernetes.io/zone In [ap-northeast-2a]`: the
    table prints it as data (read as markup, `[ap-northeast-2a]` would vanish)."""
    from tests.conftest import FIXTURES

    code, out, _ = cli("logs", "parse", FIXTURES / "logs" / "v0.27-console.log")
    assert code == 0
    rows = [line for line in out.splitlines() if "default/host-spread-fbbf7c9d9-x4lfd" in line]
    assert rows and rows[0].endswith("karpenter.sh/capacity-type In [on-demand], topology.kubernetes.io/zone "
                                     "In [ap-northeast-2a]")
    assert "instance-category In [c m t]" in rows[0]


def test_parse_names_the_leader_from_client_gos_klog_line(cli, write):
    """client-go's leader-election lines are read as ``other`` (tests/log_corpus/README.md), and the
    replica whose ``successfully acquired lease`` line is in the log is named as the leader."""
    lines = ["[pod/karpenter-7d9f8c6b5-abcde/controller] I1229 10:02:06.542175       1 leaderelection.go:243] "
             "attempting to acquire leader lease karpenter/karpenter-leader-election...",
             "[pod/karpenter-7d9f8c6b5-fghij/controller] I1229 10:02:06.601337       1 leaderelection.go:243] "
             "attempting to acquire leader lease karpenter/karpenter-leader-election...",
             "[pod/karpenter-7d9f8c6b5-fghij/controller] I1229 10:02:23.828649       1 leaderelection.go:253] "
             "successfully acquired lease karpenter/karpenter-leader-election"]
    code, out, err = cli("logs", "parse", write("karpenter.log", "\n".join(lines) + "\n"), "--output", "jsonl")
    assert code == 0
    assert [(e["kind"], e["level"]) for e in map(json.loads, out.splitlines())] == [("other", "info")] * 3
    assert "leader: pod/karpenter-7d9f8c6b5-fghij/controller" in err and "abcde" not in err.split("leader:")[1]
