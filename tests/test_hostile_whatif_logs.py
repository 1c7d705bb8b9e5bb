"""Issue 12, hostile inputs: what-if counts and constraints without bounds (finding 13),
progress of long simulations, and logs that never end a line (finding 10, logs part).

Every test drives what the user sees: ``karptui ...`` in-process (exit status, one
stderr line, stdout), the log reader the CLI and the TUI share, or the what-if panel
through Pilot. Inputs are generated under tmp_path; caps are monkeypatched small
where the real ones would need big inputs.
"""

from __future__ import annotations

import contextlib
import importlib
import io
import json
import threading
import tracemalloc
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from karptui import limits
from karptui.cli import main
from karptui.logs import reader
from tests.test_cli import one_line_error
from tests.test_logs import SEED_DEPROVISIONING, SEED_LINE

INFLATE = "Deployment/default/inflate"
ZONE = "ap-northeast-2a"



def hosting(screen):
    """An app whose only screen is ``screen`` (the what-if panel without the main screen behind it)."""
    from textual.app import App

    class Host(App):
        def on_mount(self) -> None:
            self.push_screen(screen)

    return Host()


def whatif(write, *edits: dict) -> Path:
    return write("hostile.yaml", json.dumps({"apiVersion": "karptui/v1", "kind": "WhatIf", "name": "hostile",
                                             "edits": list(edits)}))


def simulate(cli, path: Path, *extra: str):
    return cli("simulate", "consolidation", "--whatif", path, *extra)


# ---------------------------------------------------------------- finding 13: counts

@pytest.mark.parametrize("edit, message", [
    ({"target": INFLATE, "scale": 10**9},
     "edit 1: scale 1000000000 is over karptui's cap of 200,000 pods for one workload"),
    ({"target": INFLATE, "patch": {"spec": {"replicas": 10**9}}},
     "edit 1: Deployment/default/inflate: replicas 1000000000 is over karptui's cap of 200,000 pods"),
    ({"target": INFLATE, "patch": [{"op": "replace", "path": "/spec/replicas", "value": 10**9}],
      "patchType": "json"},
     "edit 1: Deployment/default/inflate: replicas 1000000000 is over karptui's cap of 200,000 pods"),
    ({"addNodes": {"instanceType": "m5.xlarge", "zone": ZONE, "count": 10**9}},
     "edit 1: addNodes: count 1000000000 is over karptui's cap of 20,000 nodes for one edit"),
])
def test_absurd_counts_are_one_line_naming_the_edit(cli, write, edit, message):
    path = whatif(write, edit)
    one_line_error(*simulate(cli, path), f"karptui: {path}: {message}")


def test_a_count_at_the_cap_is_still_accepted_by_the_file_reader():
    from karptui.whatif.io import parse_edit

    assert parse_edit({"target": INFLATE, "scale": limits.MAX_WHATIF_REPLICAS}).replicas == 200_000
    assert parse_edit({"addNodes": {"instanceType": "m5.xlarge", "zone": ZONE,
                                    "count": limits.MAX_WHATIF_ADD_NODES}}).count == 20_000


def test_nodes_after_all_edits_are_bounded(cli, write, monkeypatch):
    monkeypatch.setattr(limits, "MAX_WHATIF_NODES", 10)  # the snapshot has 4
    add = {"addNodes": {"instanceType": "m5.xlarge", "zone": ZONE, "count": 3}}
    path = whatif(write, add, add, add)
    one_line_error(*simulate(cli, path),
                   f"karptui: {path}: edit 3: the cluster would have 13 nodes, over karptui's cap of 10 for a what-if")


def test_pods_after_all_edits_are_bounded(cli, write, monkeypatch):
    monkeypatch.setattr(limits, "MAX_WHATIF_PODS", 30)  # the snapshot has 24, inflate 6 of them
    path = whatif(write, {"target": INFLATE, "scale": 12},
                  {"target": "Deployment/default/report-generator", "scale": 2})
    one_line_error(*simulate(cli, path),
                   f"karptui: {path}: edit 2: the cluster would have 31 pods, over karptui's cap of 30 for a what-if")


def test_pods_made_across_all_edits_are_bounded(cli, write, monkeypatch):
    """A thousand ``scale: 200000`` / ``scale: 0`` pairs of one workload keep 200,000 pods but make
    100 million: scaling from 6 to 10 makes 4, each 0 -> 10 after it 10 more."""
    monkeypatch.setattr(limits, "MAX_WHATIF_PODS", 40)
    path = whatif(write, *({"target": INFLATE, "scale": n} for n in (10, 0, 10, 0, 10, 0, 10, 0, 10)))
    one_line_error(*simulate(cli, path),
                   f"karptui: {path}: edit 9: the edits so far make 44 pods and nodes, over karptui's cap of 40 "
                   "made by one what-if (10 for Deployment/default/inflate)")


def test_daemon_pods_of_added_nodes_count_towards_the_pods(cli, write, monkeypatch):
    monkeypatch.setattr(limits, "MAX_WHATIF_PODS", 30)  # 24 + 3 DaemonSets x 3 nodes = 33
    path = whatif(write, {"addNodes": {"instanceType": "m5.xlarge", "zone": ZONE, "count": 3}})
    one_line_error(*simulate(cli, path), f"{path}: edit 1: the cluster would have 33 pods")


def test_absurd_constraint_counts_are_one_line(cli, write, monkeypatch):
    monkeypatch.setattr(limits, "MAX_SPREAD_CONSTRAINTS", 3)
    monkeypatch.setattr(limits, "MAX_AFFINITY_TERMS", 2)
    spread = [{"maxSkew": 1, "topologyKey": f"k{i}", "whenUnsatisfiable": "ScheduleAnyway",
               "labelSelector": {"matchLabels": {"app": "inflate"}}} for i in range(4)]
    path = whatif(write, {"target": INFLATE, "patch": {"spec": {"template": {"spec": {
        "topologySpreadConstraints": spread}}}}})
    one_line_error(*simulate(cli, path), f"{path}: edit 1: Deployment/default/inflate: 4 topologySpreadConstraints, "
                                         "over karptui's cap of 3 (two per label key, for a node with 1 label keys)")
    terms = [{"topologyKey": f"k{i}", "labelSelector": {"matchLabels": {"app": "x"}}} for i in range(2)]
    node = {"nodeSelectorTerms": [{"matchExpressions": [{"key": "a", "operator": "Exists"}]}]}
    path = whatif(write, {"target": INFLATE, "patch": {"spec": {"template": {"spec": {"affinity": {
        "nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": node},
        "podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": terms}}}}}}})
    one_line_error(*simulate(cli, path), f"{path}: edit 1: Deployment/default/inflate: 3 affinity terms, over")


def test_the_affinity_cap_sits_above_what_etcd_can_store():
    etcd = 3 << 19  # 1.5 MiB, etcd's default request size limit
    assert len('{"topologyKey":"k"}') > 16 and limits.MAX_AFFINITY_TERMS * 16 >= etcd


# ---------------------------------------------------------------- progress

def test_simulate_reports_progress_per_pod():
    from karptui.catalog import catalog_from_snapshot_region
    from karptui.sim import simulate as run
    from karptui.sources import bundled_snapshot, load_snapshot
    from karptui.whatif import Scale, Target, WhatIf, apply_whatif

    snapshot = load_snapshot(bundled_snapshot("consolidation"))
    applied = apply_whatif(snapshot, WhatIf("x", (Scale(Target.parse(INFLATE), 18),))).snapshot  # 12 new
    seen: list[tuple[str, int, int]] = []
    run(applied, catalog=catalog_from_snapshot_region(applied), consolidate=True,
        progress=lambda *a: seen.append(a))
    scheduler = [s for s in seen if s[0] == "kube-scheduler"]
    assert [d for _, d, _ in scheduler] == list(range(1, 13)) and {t for *_, t in scheduler} == {12}
    assert any(s[0] == "Karpenter" for s in seen) and seen[-1][0] == "consolidation"


def test_cli_progress_goes_to_stderr_and_stdout_stays_json(cli, write, monkeypatch):
    from karptui.cli import progress

    monkeypatch.setattr(progress, "DELAY", 0.0)  # as if the run had already taken a while
    monkeypatch.setattr(progress, "LOG_INTERVAL", 0.0)  # and every pod's word is shown
    path = whatif(write, {"target": INFLATE, "scale": 18})  # 6 running, 12 new
    code, out, err = simulate(cli, path, "--output", "json")
    assert code == 0, err
    assert json.loads(out)["whatif"]["name"] == "hostile"
    lines = err.splitlines()
    assert lines and all(line.startswith("karptui: simulating ") for line in lines), err
    assert "karptui: simulating the snapshot as it is: kube-scheduler, 0/0 pods" not in err  # nothing pending there
    assert any(line.startswith("karptui: simulating what-if hostile: kube-scheduler, 1/12 pods") for line in lines)
    assert "\x1b" not in err and "\r" not in err  # not a terminal: whole lines


def test_cli_is_silent_on_stderr_for_short_runs(cli, write):
    code, out, err = simulate(cli, whatif(write, {"target": INFLATE, "scale": 7}), "--output", "json")
    assert code == 0 and err == "" and json.loads(out)


async def test_whatif_panel_shows_progress_while_running(monkeypatch):
    from textual.widgets import Static

    sim = importlib.import_module("karptui.sim.simulate")
    from karptui.catalog import catalog_from_snapshot_region
    from karptui.sources import bundled_snapshot, load_snapshot
    from karptui.tui.screens.whatif import WhatIfScreen
    from karptui.whatif import Scale, Target

    snapshot = load_snapshot(bundled_snapshot("consolidation"))
    release, tried = threading.Event(), []
    real = sim.schedule_one

    def slow(ctx, explain):  # the what-if's third pod waits until the test has read the panel
        tried.append(ctx.pod.name)
        if len(tried) == 3:
            release.wait(30)
        return real(ctx, explain)

    monkeypatch.setattr(sim, "schedule_one", slow)
    monkeypatch.setattr(WhatIfScreen, "PROGRESS_INTERVAL", 0.0)
    screen = WhatIfScreen(snapshot, catalog_from_snapshot_region(snapshot))
    screen.stack.push(Scale(Target.parse(INFLATE), 18))  # 6 running, 12 new

    async with hosting(screen).run_test() as pilot:
        await pilot.pause()
        await pilot.press("r")
        title = screen.query_one("#results-title", Static)
        text = ""
        for _ in range(3000):  # until the worker's word arrives (not a speed check)
            await pilot.pause(0.01)
            text = str(title.render())
            if "2/12 pods" in text:  # the third pod is held: the panel stays at 2 of 12
                break
        release.set()
        assert "Results — running… what-if, kube-scheduler: 2/12 pods (escape cancels)" in text, text
        await screen.workers.wait_for_complete()
        await pilot.pause()
        assert str(title.render()) == "Results — what-if tui-whatif"


async def test_escape_stops_a_long_run_between_two_pods(monkeypatch):

    sim = importlib.import_module("karptui.sim.simulate")
    from karptui.sources import bundled_snapshot, load_snapshot
    from karptui.tui.screens.whatif import WhatIfScreen
    from karptui.whatif import Scale, Target

    snapshot = load_snapshot(bundled_snapshot("consolidation"))
    started, tried = threading.Event(), []
    real = sim.schedule_one

    def slow(ctx, explain):
        tried.append(ctx.pod.name)
        if len(tried) == 2:
            started.set()
            for _ in range(3000):  # one slow pod: the run must stop after it, not go on to the others
                if screen.worker is not None and screen.worker.is_cancelled:
                    break
                threading.Event().wait(0.01)
        return real(ctx, explain)

    monkeypatch.setattr(sim, "schedule_one", slow)
    screen = WhatIfScreen(snapshot, None)
    screen.stack.push(Scale(Target.parse(INFLATE), 18))  # 6 running, 12 new

    async with hosting(screen).run_test() as pilot:
        await pilot.pause()
        await pilot.press("r")
        for _ in range(3000):
            await pilot.pause(0.01)
            if started.is_set():
                break
        await pilot.press("escape")
        await screen.workers.wait_for_complete()
        assert len(tried) == 2  # the other ten pods were never tried


# ---------------------------------------------------------------- finding 10: logs without newlines

def test_a_nul_only_stream_is_refused_as_binary(cli, write):
    path = write("zeros.log", bytes(3 << 20))
    one_line_error(*cli("logs", "parse", path), f"karptui: {path}: binary data (nothing but NUL bytes), not a log")


@pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero")
def test_dev_zero_is_refused_not_read_forever(cli):
    one_line_error(*cli("logs", "parse", "/dev/zero"), "/dev/zero: binary data")


def test_a_line_over_the_cap_is_skipped_with_one_warning(cli, write, monkeypatch):
    monkeypatch.setattr(limits, "MAX_LOG_LINE_BYTES", 4096)
    monkeypatch.setattr(limits, "LOG_READ_CHUNK", 1000)
    path = write("long.log", "\n".join([SEED_LINE, "x" * 5000, SEED_DEPROVISIONING, "y" * 100_000]) + "\n"
                 + "z" * 9000)  # the last line has no newline
    code, out, err = cli("logs", "parse", path, "-o", "jsonl")
    assert code == 0
    assert [json.loads(line)["line"] for line in out.splitlines()] == [1, 3]
    assert err.splitlines() == [
        f"karptui: {path}: 3 line(s) over 4,096 bytes skipped (first: line 2); Karpenter's lines are a few KiB",
        "5 lines: 2 Karpenter events, 3 skipped (not Karpenter log lines)"]


def test_a_newline_free_log_is_read_in_bounded_memory(tmp_path):
    path = tmp_path / "one-line.log"
    with path.open("wb") as handle:
        for _ in range(32):
            handle.write(b"a" * (1 << 20))  # 32 MiB, not one newline
    warnings: list[str] = []
    tracemalloc.start()
    try:
        lines = sum(1 for _ in reader.read_lines(str(path), warnings))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert lines == 1 and len(warnings) == 1 and "over 1,048,576 bytes skipped" in warnings[0]
    assert peak < 8 << 20, f"peak {peak / 2**20:.1f} MiB for a 32 MiB line"


def test_stdin_without_newlines_is_bounded(cli, monkeypatch):
    import sys

    monkeypatch.setattr(limits, "MAX_LOG_LINE_BYTES", 1024)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"q" * 50_000)))
    code, out, err = cli("logs", "parse", "-", "-o", "jsonl")
    assert code == 0 and out == "" and "1 line(s) over 1,024 bytes skipped (first: line 1)" in err


def test_following_a_file_that_grows_without_newlines_is_bounded(tmp_path, monkeypatch):
    monkeypatch.setattr(limits, "MAX_LOG_LINE_BYTES", 1000)
    path = tmp_path / "growing.log"
    path.write_bytes(b"")
    appends = [b"w" * 700, b"w" * 700, b"w" * 700, b"\n" + SEED_LINE.encode() + b"\n", b""]
    polls = iter(range(100))

    def stop() -> bool:  # each poll, the writer appends its next piece
        n = next(polls)
        if n < len(appends):
            with path.open("ab") as handle:
                handle.write(appends[n])
        return n >= len(appends) + 2

    batches = list(reader.follow_batches(str(path), poll=0, stop=stop))
    assert batches == [["", SEED_LINE]]


def test_table_rows_print_as_they_are_parsed(cli, write, monkeypatch, capsys):
    import karptui.cli.logs as logs_cli

    seen_after_first: list[str] = []

    def lines(path, warnings):
        yield SEED_LINE + "\n"
        yield "not karptui\n"  # the parser asks for the next line only after handing back the first event
        seen_after_first.append(capsys.readouterr().out)
        yield SEED_DEPROVISIONING + "\n"

    monkeypatch.setattr(logs_cli, "read_lines", lines)
    code, out, _ = cli("logs", "parse", "whatever.log")
    assert code == 0
    (before,) = seen_after_first
    header, row = before.splitlines()
    assert header.split() == ["line", "time", "level", "kind", "details"]
    assert row.split()[:4] == ["1", "2023-05-20T11:03:34.806Z", "error", "pod_unschedulable"]
    assert out.split()[:4] == ["3", "2023-05-25T01:33:21.117Z", "info", "disruption"]


def test_table_shows_control_characters_instead_of_sending_them(cli, write):
    evil = json.dumps({"level": "INFO", "time": "2024-05-01T00:00:00Z", "logger": "controller",
                       "message": "hello \x1b]0;pwned\x07\x1b[2J"})
    path = write("evil.log", evil + "\n")
    code, out, _ = cli("logs", "parse", path)
    assert code == 0 and "\x1b" not in out and "\x07" not in out and "\\x1b]0;pwned\\x07" in out


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.lists(st.one_of(
    st.binary(max_size=300),
    st.sampled_from([b"\n", b"\x00" * 40, b"\xff\xfe\xc3\x28", b"\r\n", (SEED_LINE + "\n").encode(),
                     b"{" * 200, b"x" * 700])), max_size=30), output=st.sampled_from(["jsonl", "table"]))
def test_arbitrary_bytes_give_exit_0_or_one_line_and_bounded_lines(tmp_path, monkeypatch, data, output):
    from karptui.logs import parser

    cap = 256
    monkeypatch.setattr(limits, "MAX_LOG_LINE_BYTES", cap)
    monkeypatch.setattr(limits, "LOG_READ_CHUNK", 64)
    longest = [0]
    real = parser.event

    def event(number, text):
        longest[0] = max(longest[0], len(text))
        return real(number, text)

    monkeypatch.setattr(parser, "event", event)
    path = tmp_path / "fuzz.log"
    path.write_bytes(b"".join(data))
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["logs", "parse", str(path), "-o", output])
    lines = err.getvalue().splitlines()
    assert code in (0, 2), err.getvalue()
    if code == 2:
        assert len(lines) == 1 and lines[0].startswith(f"karptui: {path}: ") and out.getvalue() == ""
    else:
        assert lines[-1].endswith("skipped (not Karpenter log lines)") and len(lines) <= 3
        assert "Traceback" not in err.getvalue()
    assert longest[0] <= cap + 1  # no line past the cap ever reached the parser


# ---------------------------------------------------------------- many constraints: linear, not quadratic

class _Counting(dict):
    calls = 0

    def get(self, *args):
        type(self).calls += 1
        return super().get(*args)


def test_merging_thousands_of_list_elements_by_key_is_linear(monkeypatch):
    """Each element used to be compared with every one before it: 10,000 spread
    constraints took minutes in the what-if file's check alone."""
    from karptui.whatif import patch

    monkeypatch.setattr(patch, "KEY_DEFAULTS", _Counting(patch.KEY_DEFAULTS))
    n = 2000
    spread = [{"maxSkew": 1, "topologyKey": f"k{i}", "whenUnsatisfiable": "DoNotSchedule"} for i in range(n)]
    merged = patch.apply_patch({"spec": {"topologySpreadConstraints": spread[:10]}},
                               {"spec": {"topologySpreadConstraints": spread[5:]}}, patch.STRATEGIC)
    assert merged["spec"]["topologySpreadConstraints"] == spread
    assert _Counting.calls < 10 * n, _Counting.calls  # was ~n*n/2


def test_scoring_many_soft_spread_constraints_is_linear_in_them(monkeypatch):
    """Every soft constraint rebuilt the mask of nodes having all the pod's topology keys."""
    from karptui.sim import simulate as run
    from karptui.sim.state import ClusterState
    from karptui.sources import bundled_snapshot, load_snapshot
    from karptui.whatif import Patch, Target, WhatIf, apply_whatif

    n = 250  # under the cap on constraints per pod template (limits.MAX_SPREAD_CONSTRAINTS)
    spread = [{"maxSkew": 1, "topologyKey": f"example.com/k{i}", "whenUnsatisfiable": "ScheduleAnyway",
               "labelSelector": {"matchLabels": {"app": "inflate"}}} for i in range(n)]
    edit = Patch(Target.parse(INFLATE), {"spec": {"replicas": 1, "template": {"spec": {
        "topologySpreadConstraints": spread}}}})
    snapshot = apply_whatif(load_snapshot(bundled_snapshot("consolidation")), WhatIf("x", (edit,))).snapshot
    calls = [0]
    real = ClusterState.domains

    def domains(self, key):
        calls[0] += 1
        return real(self, key)

    monkeypatch.setattr(ClusterState, "domains", domains)
    result = run(snapshot)
    assert len(result.attempts) == 1
    assert calls[0] < 10 * n, calls[0]  # was n*n


def test_progress_on_a_terminal_is_one_line_rewritten_then_cleared(monkeypatch):
    from karptui.cli import progress

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.setattr(progress, "DELAY", 0.0)
    monkeypatch.setattr(progress, "TTY_INTERVAL", 0.0)
    screen = Terminal()
    with progress.StderrProgress(screen) as shown:
        shown.label = "what-if w"
        shown("kube-scheduler", 1, 3)
        shown("kube-scheduler", 2, 3)
    text = screen.getvalue()
    assert "\n" not in text and text.endswith("\r\x1b[K")
    assert text.startswith("\rkarptui: simulating what-if w: kube-scheduler, 1/3 pods (") and text.count("\rkarptui: simulating what-if w: kube-scheduler, 2/3 pods (") == 1


def test_a_long_line_inside_one_big_read_is_caught_too(tmp_path, monkeypatch):
    """follow_batches reads 1 MiB at a time; a line over a smaller cap inside one read is still dropped."""
    monkeypatch.setattr(limits, "MAX_LOG_LINE_BYTES", 100)
    path = tmp_path / "k.log"
    path.write_text(f"{SEED_LINE}\n{'x' * 500}\nshort\n")
    polls = iter(range(3))
    batches = list(reader.follow_batches(str(path), poll=0, stop=lambda: next(polls) >= 2))
    assert batches == [["", "", "short"]]  # the 600-byte seed line is over 100 too


async def test_the_panel_refuses_an_absurd_count_inline():
    from textual.widgets import Static

    from karptui.sources import bundled_snapshot, load_snapshot
    from tests.test_tui_whatif import HOST, Host, press_on, select

    snapshot = load_snapshot(bundled_snapshot("topology-spread"))
    async with Host(snapshot, None).run_test(size=(160, 50)) as pilot:
        screen = await select(pilot, HOST)
        screen.query_one("#replicas").value = "1000000000"
        await press_on(pilot, "#replicas")
        assert "scale 1000000000 is over karptui's cap of 200,000 pods for one workload" in str(
            screen.query_one("#error", Static).render())
        assert screen.stack.edits == ()


async def test_the_panel_refuses_an_absurd_node_count_inline():
    from textual.widgets import Static

    from karptui.sources import bundled_snapshot, load_snapshot
    from tests.test_tui_whatif import Host, press_on

    snapshot = load_snapshot(bundled_snapshot("topology-spread"))
    async with Host(snapshot, None).run_test(size=(160, 50)) as pilot:
        screen = pilot.app.screen
        await pilot.press("a")
        screen.query_one("#instance_type").value = "m5.xlarge"
        screen.query_one("#count").value = "1000000000"
        await press_on(pilot, "#count")
        assert "count 1000000000 is over karptui's cap of 20,000 nodes" in str(
            screen.query_one("#error", Static).render())
        assert screen.stack.edits == ()
