"""Issue 12, display: nothing from a snapshot, a log or a cluster acts on the operator's terminal.

Hostile names carry Textual action links (``[@click=app.quit]``), Rich markup that does
not parse (``[/x]``, ``[bold``) and terminal controls (OSC title and clipboard writes,
CSI, C1, bidi overrides). Everywhere karptui shows them, in the CLI and in every TUI
pane, they must appear literally, controls written as escapes, and never crash.
"""

from __future__ import annotations

import asyncio
import io
import json
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rich.console import Console
from rich.table import Table
from rich.text import Text
from textual.widgets import Input, Static

from karptui.cluster.connect import connect
from karptui.cluster.informer import SYNCED
from karptui.cluster.live import LiveCluster
from karptui.sources import load_snapshot
from karptui.text import UNSAFE, visible
from karptui.tui.app import KarptuiApp
from karptui.tui.screens.detail import DetailScreen
from karptui.tui.widgets import VirtualTable
from karptui.views.details import node_detail
from karptui.views.pending import pending_rows
from tests.conftest import kube_list, node_obj, pod_obj
from tests.fakeapi import FakeAPI

CLICK = "[@click=app.quit]x[/]"
BAD_MARKUP = "[/x][bold"
ESC = "\x1b]0;pwned\x07\x1b]52;c;Zm9v\x07\x1b[2J\x9b31m\u202eevil\r\x08"
ESC_SHOWN = visible(ESC)
NODE = "ip-10-0-1-1" + BAD_MARKUP + "\t" + ESC
POD = "web" + CLICK
NS = "ns[b]"
# Edit targets are Kind/namespace/name: names with "/" are refused there, so these have none
# (an unclosed action link is a link all the same).
DEPLOYMENT = "web[@click=app.quit]x[b]"
CONTAINER = "app[@click=app.quit]x" + ESC
SNAPSHOT_NAME = "prod" + CLICK + ESC
# What a terminal would act on: anything UNSAFE matches (tab aside, which is fine).
RAW = re.compile(UNSAFE.pattern)


LOG_LINES = [
    json.dumps({"level": "ERROR", "time": "2024-10-03T06:51:38.412Z", "logger": "controller",
                "message": "could not schedule pod", "controller": "provisioner",
                "Pod": {"name": POD, "namespace": NS}, "error": "filtered" + BAD_MARKUP + ESC}),
    "pod-a " + json.dumps({"level": "INFO", "time": "2024-10-03T06:51:39Z", "logger": "controller",
                           "message": "hello" + BAD_MARKUP + ESC}),
]
# A node the what-if panel can target (no "/"), in a zone the add-nodes form offers first.
NODE2 = "ip-10-0-2-2[bold" + ESC
ZONE2 = "a-zone[/x]" + ESC


def hostile_objects() -> list[dict]:
    pending = pod_obj(POD, namespace=NS, labels={"app": "web" + BAD_MARKUP})
    pending["spec"]["containers"][0]["name"] = CONTAINER
    bound = pod_obj("db" + BAD_MARKUP, namespace=NS, node=NODE)
    deployment = {
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": DEPLOYMENT, "namespace": NS, "uid": "uid-dep"},
        "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "web" + BAD_MARKUP}},
                 "template": {"metadata": {"labels": {"app": "web" + BAD_MARKUP}},
                              "spec": {"nodeSelector": {"team": "a" + ESC},
                                       "containers": [{"name": CONTAINER, "image": "app:1",
                                                       "resources": {"requests": {"cpu": "100m"}}}]}}}}
    event = {"apiVersion": "v1", "kind": "Event", "metadata": {"name": "e1", "namespace": "default"},
             "involvedObject": {"kind": "Node", "name": NODE}, "reason": "Hostile" + CLICK,
             "message": "message" + BAD_MARKUP + ESC}
    meta = {"apiVersion": "karptui/v1", "kind": "KarptuiSnapshot", "metadata": {"name": SNAPSHOT_NAME},
            "logs": {"source": "karpenter" + CLICK, "text": "\n".join(LOG_LINES) + "\n"}}
    return [meta, node_obj(NODE, labels={"team": BAD_MARKUP + ESC}), node_obj(NODE2, zone=ZONE2),
            bound, pending, deployment, event]


@pytest.fixture
def hostile(write):
    return write("hostile.json", kube_list(*hostile_objects()))


def assert_shown_safely(text: str) -> None:
    """No character a terminal acts on, our own line breaks and tabs aside."""
    text = text.replace("\t", " ").replace("\n", " ")
    assert RAW.search(text) is None, repr(RAW.search(text))


NAMES = (st.text(alphabet=st.characters(codec=None, exclude_categories=()), max_size=40)
         | st.text(alphabet="[]/@=\\b\x1b\x9b\x07\r\n\t\u202e\u2066ax", max_size=40))


# ---- the one function -------------------------------------------------------------------

def test_visible_writes_each_control_as_its_escape():
    assert visible("a\x1b]0;t\x07b") == "a\\x1b]0;t\\x07b"
    assert visible("\x9b2J\u202e\r\x08\x7f\n") == "\\x9b2J\\u202e\\x0d\\x08\\x7f\\x0a"
    kept = "tab\tkept [b]markup kept[/b] ünïcödé 日本"
    assert visible(kept) == kept
    assert visible("\ud800") == "\\ud800"


def test_rich_and_textual_leave_escape_sequences_in_text():
    """Why visible() exists: Rich and Textual drop only BEL, BS, VT, FF and CR themselves."""
    from textual.content import Content

    raw = "\x1b]52;c;Zm9v\x1b\\\x9b2J\u202e\x00"
    for plain in (Text(raw).plain, Content(raw).plain):
        assert all(ch in plain for ch in "\x1b\x9b\u202e\x00")
    assert "\r" not in Text("a\rb").plain


@given(NAMES)
def test_visible_output_holds_no_control_and_renders_literally(name):
    shown = visible(name)
    for ch in shown:
        code = ord(ch)
        assert ch == "\t" or not (code < 0x20 or 0x7f <= code <= 0x9f or 0x202a <= code <= 0x202e
                                  or 0x2066 <= code <= 0x2069 or 0xd800 <= code <= 0xdfff), repr(ch)
    # Rich draws it exactly (it strips nothing more) and a table cell of the CLI console as well.
    assert Text(shown).plain == shown
    out = io.StringIO()
    console = Console(file=out, width=400, markup=False, highlight=False, color_system=None)
    table = Table(show_header=False, box=None, pad_edge=False)
    table.add_column(no_wrap=True)
    table.add_row(shown)
    console.print(table)
    assert out.getvalue().rstrip("\n").rstrip() == shown.expandtabs(8).rstrip() or "\t" in shown
    assert RAW.search(out.getvalue().replace("\n", "")) is None


@settings(max_examples=40, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(name=NAMES)
def test_any_snapshot_name_prints_literally_in_the_cli(cli, tmp_path, wide, name):
    """Whatever the name, ``snapshot info`` exits 0 and prints it as visible() writes it."""
    path = tmp_path / "named.json"
    meta = {"apiVersion": "karptui/v1", "kind": "KarptuiSnapshot", "metadata": {"name": name or "x"}}
    path.write_text(json.dumps(kube_list(meta, node_obj("n1"))))
    code, out, err = cli("snapshot", "info", path)
    assert code == 0, err
    assert_shown_safely(out)
    lines = out.splitlines()
    title = lines[:next(i for i, line in enumerate(lines) if line.startswith(" source "))]
    # the title wraps at the table's width: compare what is drawn, whitespace aside
    assert "".join("".join(title).split()) == "".join(f"snapshot {visible(name or 'x')}".split())


# ---- the CLI ------------------------------------------------------------------------------

@pytest.fixture
def wide(monkeypatch):
    monkeypatch.setenv("COLUMNS", "400")


@pytest.mark.parametrize(("command", "shown"), [(("snapshot", "info"), [visible(SNAPSHOT_NAME)]),
                                              (("simulate",), [f"{NS}/{POD}", ESC_SHOWN])])
def test_cli_tables_show_hostile_names_literally(cli, hostile, wide, command, shown):
    code, out, err = cli(*command, hostile)
    assert code == 0, err
    assert_shown_safely(out + err)
    for text in shown:
        assert text in out


def test_logs_parse_shows_hostile_log_lines_literally(cli, write, wide):
    path = write("karpenter.log", "\n".join(LOG_LINES) + "\n")
    code, out, err = cli("logs", "parse", path)
    assert code == 0, err
    assert_shown_safely(out + err)
    assert "filtered[/x][bold" + ESC_SHOWN in out
    assert f"{NS}/{POD}" in out


def test_stderr_error_lines_show_controls_escaped(cli, tmp_path):
    missing = tmp_path / ("nope" + ESC + CLICK + ".json")
    code, _, err = cli("snapshot", "info", missing)
    assert code == 2
    assert_shown_safely(err.rstrip("\n"))
    assert err.count("\n") == 1 and visible(ESC) in err


def test_stderr_warnings_show_controls_escaped(cli, write, wide):
    pool = {"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": "p" + ESC},
            "spec": {"template": {"spec": {"requirements": [{"key": "k" + ESC, "operator": "Bogus" + ESC}]}}}}
    path = write("pool.json", kube_list(node_obj("n1"), pool))
    code, out, err = cli("simulate", path)
    assert code == 0, err
    assert "warning" in err
    assert_shown_safely(out + err.replace("\n", " "))


# ---- the TUI ------------------------------------------------------------------------------

SIZE = (200, 50)


def screen_lines(app) -> tuple[str, list]:
    """Everything the screen draws now: its text, and the meta of every segment's style."""
    strips = app.screen._compositor.render_strips()
    text = "\n".join("".join(segment.text for segment in strip) for strip in strips)
    metas = [segment.style.meta for strip in strips for segment in strip if segment.style and segment.style.meta]
    return text, metas


def assert_screen_safe(app) -> str:
    text, metas = screen_lines(app)
    assert "\t" not in text  # Rich expands tabs; one drawn raw moves the terminal's cursor
    assert not [m for m in metas if "@click" in m], metas  # (scrollbars have their own @mouse actions)
    assert_shown_safely(text.replace("\n", " "))
    return text


def static_text(screen) -> str:
    return "\n".join(str(s.visual) if s.visual is not None else "" for s in screen.query(Static))


async def test_tui_start_and_drill_ins_show_hostile_names_literally(hostile):
    app = KarptuiApp(load_snapshot(hostile))
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        header = str(app.screen.query_one("#source", Static).visual)
        assert visible(SNAPSHOT_NAME) in header  # the literal name, link markup and all
        text = assert_screen_safe(app)
        assert "prod[@click=app.quit]x[/]" in text
        app.drill("node", NODE)
        await pilot.pause()
        assert isinstance(app.screen, DetailScreen)
        shown = static_text(app.screen)
        assert f"node {visible(NODE)}" in shown
        assert "Hostile" + CLICK + ": message" + BAD_MARKUP + ESC_SHOWN in shown
        assert "team=" + BAD_MARKUP + ESC_SHOWN in shown
        assert_screen_safe(app)
        await pilot.press("escape")
        app.drill("pod", f"{NS}/{POD}")
        await pilot.pause()
        assert isinstance(app.screen, DetailScreen)
        shown = static_text(app.screen)
        assert f"pod {NS}/{POD}" in shown
        assert_screen_safe(app)
        await pilot.press("escape", "2")  # pending: the pod, and Karpenter's reason from the log
        await pilot.pause()
        assert f"{NS}/{POD}" in assert_screen_safe(app)
        pending = app.screen.query_one("#pending-table", VirtualTable)
        assert any("filtered" + BAD_MARKUP in cell for cell in pending.row(f"pod:{NS}/{POD}"))
        await pilot.press("3")  # activity: the log's events
        await pilot.pause()
        assert_screen_safe(app)
        activity = app.screen.query_one("#activity-table", VirtualTable)
        assert any("filtered" + BAD_MARKUP + ESC_SHOWN in row[-1] for row in activity.rows), activity.rows
        await pilot.press("1")
        await pilot.pause()
        assert_screen_safe(app)
        nodes = app.screen.query_one("#nodes-table", VirtualTable)
        assert nodes.row(f"zone:{ZONE2}")[0].startswith("▼ " + visible(ZONE2))
        assert nodes.row(f"node:{NODE}")[0].strip() == visible(NODE).replace("\t", " ")
        await pilot.press("q")
    assert app.return_code == 0


async def test_tui_whatif_form_shows_hostile_names_literally(hostile, write):
    app = KarptuiApp(load_snapshot(hostile), simulate_on_start=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("w")
        await pilot.pause()
        screen = app.screen
        refs = [r.ref for r in screen.rows]
        for ref in (f"Deployment/{NS}/{DEPLOYMENT}", f"Node/{NODE}"):
            screen.query_one("#targets").highlighted = refs.index(ref)
            screen.query_one("#targets").focus()
            await pilot.press("enter")
            await pilot.pause()
            assert_screen_safe(app)
        # "/" in the node's name makes it no edit target: said in the form, nothing raised
        assert "cluster-scoped" in str(screen.query_one("#error", Static).visual)
        screen.query_one("#targets").highlighted = refs.index(f"Node/{NODE2}")
        screen.query_one("#targets").focus()
        await pilot.press("enter")
        await pilot.pause()
        assert_screen_safe(app)
        assert str(screen.query_one("#form-title", Static).visual) == visible(f"Node/{NODE2}")
        await pilot.press("a")  # add nodes: the zone Select offers the snapshot's zones
        await pilot.pause()
        assert visible(ZONE2)[:20] in assert_screen_safe(app)  # (the field is narrower than the zone)
        screen.query_one("#targets").highlighted = refs.index(f"Deployment/{NS}/{DEPLOYMENT}")
        screen.query_one("#targets").focus()
        await pilot.press("enter")
        await pilot.pause()
        assert_screen_safe(app)
        labels = [str(label.visual) for label in screen.query("#form Label")]
        assert f"{visible(CONTAINER)} cpu" in labels, labels
        # the nodeSelector field shows its value made visible; applied untouched, it is no edit
        box = screen.query_one("#node_selector", Input)
        assert box.value == "team=a" + ESC_SHOWN
        box.focus()
        await pilot.press("enter")
        await pilot.pause()
        assert len(screen.stack) == 0 and "nothing changed" in str(screen.query_one("#error", Static).visual)
        # a what-if file with a hostile name, loaded with ctrl+o, then run
        whatif = write("w.yaml", "apiVersion: karptui/v1\nkind: WhatIf\nname: " + json.dumps("wi" + CLICK + ESC)
                       + "\nedits:\n- target: " + json.dumps(f"Deployment/{NS}/{DEPLOYMENT}") + "\n  scale: 3\n")
        await pilot.press("ctrl+o")
        await pilot.pause()
        screen.query_one("#path").value = str(whatif)
        await pilot.press("enter")
        await pilot.pause()
        assert len(screen.stack) == 1, static_text(screen)
        screen.query_one("#targets").focus()
        await pilot.press("r")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert_screen_safe(app)
        assert str(screen.query_one("#results-title", Static).visual) == "Results — what-if wi" + CLICK + ESC_SHOWN
        await pilot.press("escape")
        await pilot.pause()
        assert_screen_safe(app)  # the main screen's header names the what-if under way
        assert "what-if wi" + CLICK + ESC_SHOWN in str(app.screen.query_one("#source", Static).visual)


class FakeLive:
    """Just enough of LiveCluster for the header: a status line holding an API server's error text."""

    version = 0

    def __init__(self, note: str) -> None:
        self.note = note
        self.informers: list = []

    def status(self) -> list[str]:
        return [self.note]

    def progress(self) -> str:  # the first list is done
        return ""


async def test_live_header_shows_api_server_error_text_literally(hostile):
    note = "nodes: 500 Internal" + CLICK + BAD_MARKUP + ESC + "; retrying"
    app = KarptuiApp(load_snapshot(hostile), simulate_on_start=False, live=FakeLive(note), logs_since=0)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert_screen_safe(app)
        assert visible(note) in str(app.screen.query_one("#source", Static).visual)
        app.workers.cancel_all()


# ---- node drill-in events ---------------------------------------------------------------

def test_node_drill_in_lists_only_the_nodes_own_events(write):
    def event(name, namespace, kind, involved_ns=""):
        return {"apiVersion": "v1", "kind": "Event", "metadata": {"name": name, "namespace": namespace},
                "involvedObject": {"kind": kind, "name": "n1", "namespace": involved_ns},
                "reason": name, "message": f"from {name}"}

    path = write("events.json", kube_list(
        node_obj("n1"),
        event("RealNodeEvent", "default", "Node"),
        event("PodNamedLikeNode", "tenant-a", "Pod", "tenant-a"),
        event("NodeKindInTenant", "tenant-a", "Node"),
        event("NodeKindClaimsTenant", "tenant-a", "Node", "tenant-a"),
        event("NodeKindNamespacedInDefault", "default", "Node", "tenant-a"),
    ))
    snapshot = load_snapshot(path)
    shown = node_detail(snapshot.node_by_name["n1"], snapshot, [])["events"]
    assert shown == ["RealNodeEvent: from RealNodeEvent"]


async def test_a_watch_error_from_the_api_server_reaches_the_header_literally(tmp_path):
    """A watch ERROR event's reason and message (the server's words) in the live header."""
    reason, message = "Internal" + CLICK, "etcd" + BAD_MARKUP + ESC
    line = json.dumps({"type": "ERROR", "object": {"kind": "Status", "code": 500, "reason": reason,
                                                    "message": message}}).encode()
    with FakeAPI(bookmark_interval=0.2) as api:
        api.add(node_obj("node-0"))
        live = LiveCluster(connect(api.kubeconfig(tmp_path / "kubeconfig")), read_timeout=5).start()
        try:
            assert live.wait_synced(10)
            api.wait_for_streams(sum(1 for i in live.informers if i.state == SYNCED))
            api.slow("nodes", 3.0)  # the reconnect takes a while: the note stays up meanwhile
            api.send_garbage(line)
            deadline = time.monotonic() + 8
            while not any(reason in note for note in live.status()) and time.monotonic() < deadline:
                await asyncio.sleep(0.05)
            app = KarptuiApp(live.snapshot(), live=live, logs_since=0, simulate_on_start=False)
            async with app.run_test(size=SIZE) as pilot:
                await pilot.pause()
                header = str(app.screen.query_one("#source", Static).visual)
                assert visible(f"nodes: 500 {reason}: {message}; retrying") in header, header
                assert_screen_safe(app)
                app.workers.cancel_all()
        finally:
            api.clear_faults()
            live.stop()


def test_a_lone_surrogate_in_a_log_is_shown_not_a_crash(write):
    """JSON may hold "\\ud800", which UTF-8 cannot encode: printing it raw failed with exit 1."""
    line = json.dumps({"level": "ERROR", "time": "2024-10-03T06:51:38.412Z", "logger": "controller",
                       "message": "could not schedule pod", "controller": "provisioner",
                       "Pod": {"name": "p", "namespace": "n"}, "error": "bad \ud800 value"})
    path = write("surrogate.log", line + "\n")
    done = subprocess.run([sys.executable, "-m", "karptui", "logs", "parse", str(path)], capture_output=True,
                          cwd=Path(__file__).resolve().parent.parent, env={"COLUMNS": "300", "PATH": ""},
                          timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert "bad \\ud800 value" in done.stdout.decode()


def test_a_pods_reasons_come_only_from_events_in_its_namespace(write):
    """An Event in tenant-a naming default/web (the API server would refuse it) changes nothing."""
    def failed(name, namespace, message, component="default-scheduler"):
        return {"apiVersion": "v1", "kind": "Event", "metadata": {"name": name, "namespace": namespace},
                "involvedObject": {"kind": "Pod", "name": "web", "namespace": "default"},
                "reason": "FailedScheduling", "message": message, "source": {"component": component},
                "lastTimestamp": "2024-05-01T11:05:00Z"}

    path = write("pods.json", kube_list(
        node_obj("n1"), pod_obj("web"),
        failed("real", "default", "0/1 nodes are available: 1 Insufficient cpu."),
        failed("forged", "tenant-a", "0/1 nodes are available: forged by tenant-a"),
        failed("forged-karpenter", "tenant-a", 'Failed to schedule pod, incompatible with nodepool "x"',
               component="karpenter"),
    ))
    [row] = pending_rows(load_snapshot(path))
    assert row.reason == "0/1 nodes are available: 1 Insufficient cpu."
    assert row.karpenter == ""
