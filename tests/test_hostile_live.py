"""Live mode against hostile or broken API servers, kubeconfigs and credential plugins
(issue 12: findings 11, 12 and the live part of 7), through the real client and
tests/fakeapi.py over real HTTP.

Bounds are turned down to fractions of a second and kilobytes; a server that is not
cut off keeps going (paced, so memory stays small), and the outer ``ends_within``
guard turns a hang into a failure rather than a stuck test run.
"""

from __future__ import annotations

import logging
import stat
import sys
import threading

import pytest

from karptui import limits
from karptui.cluster.connect import ConnectError, connect
from karptui.cluster.informer import SYNCED
from karptui.cluster.karpenter_logs import KarpenterLogs
from karptui.cluster.live import LiveCluster
from tests.conftest import node_obj, pod_obj
from tests.fakeapi import FakeAPI
from tests.test_live import eventually, nodepool
from tests.test_live_logs import NS, V1_LINE, karpenter_pod, lease

GUARD = 15.0  # seconds before a request nobody cut off counts as a hang


def ends_within(seconds: float, fn, *args):
    """``fn(*args)`` run in a thread; its result, or a failure if it is still running after ``seconds``."""
    box: dict = {}

    def run():
        try:
            box["value"] = fn(*args)
        except BaseException as exc:  # noqa: BLE001 - handed to the test below
            box["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"still running after {seconds} s: nothing cut it off"
    if "error" in box:
        raise box["error"]
    return box["value"]


class Terminal:
    """A stderr that says it is a terminal, keeping what is written."""

    def __init__(self):
        self.text = ""

    def isatty(self):
        return True

    def write(self, text):
        self.text += text
        return len(text)

    def flush(self):
        pass


@pytest.fixture
def small(monkeypatch):
    """Every bound turned down so a test takes a second, not a minute."""
    monkeypatch.setattr(limits, "REQUEST_DEADLINE", 1.5)
    monkeypatch.setattr(limits, "SLOW_REQUEST_NOTICE", 0.3)
    monkeypatch.setattr(limits, "MAX_LIST_PAGE_BYTES", 64 << 10)
    monkeypatch.setattr(limits, "MAX_OBJECT_BYTES", 32 << 10)
    monkeypatch.setattr(limits, "WATCH_GRACE", 0.5)
    monkeypatch.setattr(limits, "MAX_LOG_LINE_BYTES", 4 << 10)
    monkeypatch.setattr(limits, "MAX_LOG_BYTES", 64 << 10)
    monkeypatch.setattr(limits, "EXEC_PLUGIN_DEADLINE", 1.0)


@pytest.fixture
def api():
    with FakeAPI(bookmark_interval=0.2) as fake:
        for i in range(3):
            fake.add(node_obj(f"node-{i}"))
        fake.add(pod_obj("web-0", node="node-0"))
        fake.add(nodepool("default"))
        fake.add(karpenter_pod("karpenter-a"))
        fake.add(lease("karpenter-a"))
        yield fake



def one_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    return lines[0]


def save(cli, tmp_path, kubeconfig, *more):
    return ends_within(GUARD, cli, "snapshot", "save", tmp_path / "out.json.gz", "--kubeconfig", kubeconfig,
                       "--logs-since", "0", *more)


# ---- finding 11: a deadline and a byte cap on every request ---------------------------------------


def noted_then_recovered(cluster, note: str) -> None:
    """The node informer says ``note``, then recovers on its own (its note cleared, synced again)."""
    try:
        nodes = next(i for i in cluster.informers if i.resource.kind == "Node")
        eventually(lambda: note in nodes.note)
        eventually(lambda: nodes.note == "" and nodes.state == SYNCED)
    finally:
        cluster.stop()

def test_a_slowloris_version_is_cut_off_at_the_deadline(api, kubeconfig, small):
    api.hostile("/version", "slowloris", interval=0.1)  # ~300 bytes: 30 s at this pace
    with pytest.raises(ConnectError) as caught:
        ends_within(GUARD, connect, kubeconfig)
    message = str(caught.value)
    assert caught.value.code == 1 and "\n" not in message
    assert "reading the server version (/version): gave up after 1.5 s" in message


def test_a_slowloris_list_is_named_on_screen_then_given_up_and_the_rest_works(api, kubeconfig, small):
    api.hostile("pods", "slowloris", watch=False, interval=0.1)
    cluster = LiveCluster(connect(kubeconfig), read_timeout=5).start()
    try:
        pods = next(i for i in cluster.informers if i.resource.kind == "Pod")
        eventually(lambda: any(note.startswith("listing pods: ") and note.endswith(" s so far")
                               for note in cluster.status()))
        eventually(lambda: "listing pods: gave up after 1.5 s" in pods.note and "retrying" in pods.note)
        assert any("listing pods: gave up" in note for note in cluster.status())
        nodes = next(i for i in cluster.informers if i.resource.kind == "Node")
        assert nodes.state == SYNCED and len(cluster.snapshot().nodes) == 3
    finally:
        cluster.stop()


def test_an_endless_list_body_is_capped_and_snapshot_save_says_so(api, kubeconfig, small, cli, tmp_path):
    api.hostile("nodes", "endless", interval=0.01)
    code, _, err = save(cli, tmp_path, kubeconfig)
    line = one_line(err)
    assert code == 1 and "listing nodes: the API server sent more, over karptui's cap of 64 KiB" in line


def test_a_huge_content_length_is_refused_before_reading_it(api, kubeconfig, small, cli, tmp_path):
    api.hostile("nodes", "huge", interval=0.05)
    code, _, err = save(cli, tmp_path, kubeconfig)
    line = one_line(err)
    assert code == 1 and "listing nodes: the API server announced 10 GiB, over karptui's cap of 64 KiB" in line


def test_an_endless_watch_line_is_capped_and_the_kind_listed_afresh(api, kubeconfig, small):
    api.hostile("nodes", "endless", watch=True, times=1, interval=0.01,
                prefix=b'{"type":"ADDED","object":{"metadata":{"name":"')
    cluster = LiveCluster(connect(kubeconfig), read_timeout=5).start()
    try:
        nodes = next(i for i in cluster.informers if i.resource.kind == "Node")
        eventually(lambda: "watching nodes: one line is over karptui's cap of 32 KiB" in nodes.note)
        before = sum(1 for _, path, q in api.requests if path == "/api/v1/nodes" and "watch" not in q)
        eventually(lambda: nodes.note == "" and nodes.state == SYNCED)  # watching again, after a new list
        after = sum(1 for _, path, q in api.requests if path == "/api/v1/nodes" and "watch" not in q)
        assert after > before
        api.add(node_obj("node-later"))
        eventually(lambda: "node-later" in cluster.snapshot().node_by_name)
    finally:
        cluster.stop()


def test_a_watch_that_never_ends_is_cut_after_its_timeout_and_some_grace(api, kubeconfig, small):
    """The server trickles a byte now and then, so the read timeout never fires."""
    api.hostile("nodes", "slowloris", watch=True, times=1, interval=0.05)
    cluster = LiveCluster(connect(kubeconfig), read_timeout=5, watch_seconds=1).start()
    noted_then_recovered(cluster, "watching nodes: gave up after 1.5 s")


def follow(api, kubeconfig, check):
    got: list[str] = []
    follower = KarpenterLogs(connect(kubeconfig), got.extend, since_seconds=600.0, lease_poll=0.2, read_timeout=5)
    thread = threading.Thread(target=follower.run, daemon=True)
    thread.start()
    try:
        eventually(lambda: check(got))
    finally:
        follower.stop()
        thread.join(5)
    assert not thread.is_alive()
    return got


def test_an_endless_log_line_is_cut_and_marked(api, kubeconfig, small):
    log = f"/api/v1/namespaces/{NS}/pods/karpenter-a/log"
    api.hostile(log, "endless", times=1, interval=0.01, prefix=b"", fill=b"x")
    api.append_log(NS, "karpenter-a", "controller", V1_LINE % (0, 0))
    got = follow(api, kubeconfig, lambda got: any(V1_LINE % (0, 0) == line for line in got))
    cut = [line for line in got if line.startswith("xxxx")]
    assert cut and cut[0] == "x" * (4 << 10) + " … [line cut at 4 KiB]"


def test_an_endless_log_is_read_in_capped_calls(api, kubeconfig, small, cli, tmp_path):
    log = f"/api/v1/namespaces/{NS}/pods/karpenter-a/log"
    api.hostile(log, "endless", interval=0.01, prefix=b"", fill=V1_LINE.encode() % (1, 1) + b"\n")
    code, _, err = ends_within(GUARD, cli, "snapshot", "save", tmp_path / "out.json.gz",
                                 "--kubeconfig", kubeconfig, "--logs-since", "10m")
    assert code == 0, err
    from karptui.sources import load_snapshot
    text = load_snapshot(tmp_path / "out.json.gz").meta.logs_text
    assert 0 < len(text.encode()) <= 64 << 10
    logs = [q for _, path, q in api.requests if path == log]
    assert logs and all(q.get("limitBytes") == str(64 << 10) for q in logs)  # asked of the server too


# ---- finding 12: exec credential plugins -----------------------------------------------------------

def plugin(tmp_path, body: str) -> str:
    path = tmp_path / "plugin.sh"
    path.write_text("#!/bin/sh\n" + body + "\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def test_a_hanging_exec_plugin_is_cut_off_with_one_line(api, tmp_path, small, cli):
    path = api.kubeconfig(tmp_path / "k", exec_command=[plugin(tmp_path, "exec sleep 30")])
    code, _, err = save(cli, tmp_path, path)
    line = one_line(err)
    assert code == 1 and "credential plugin 'plugin.sh' gave no answer within 1 s" in line
    assert not [p for _, p, _ in api.requests]  # nothing went out without credentials


def test_a_failing_exec_plugin_stops_with_one_line_that_does_not_echo_it(api, tmp_path, small, cli, caplog):
    script = plugin(tmp_path, "echo 'error: token FAKE-SECRET-TOKEN-123 expired' >&2\nexit 1")
    path = api.kubeconfig(tmp_path / "k", exec_command=[script])
    with caplog.at_level(logging.DEBUG):
        code, out, err = save(cli, tmp_path, path)
    line = one_line(err)
    assert code == 2 and "credential plugin 'plugin.sh' failed (exit status 1)" in line
    assert "FAKE-SECRET" not in err + out and not any("FAKE-SECRET" in r.getMessage() for r in caplog.records)
    assert not [p for _, p, _ in api.requests]


# ---- finding 7: kubeconfig files and what the server says about itself -----------------------------

def test_a_kubeconfig_nested_5000_deep_is_one_line_exit_2(cli, tmp_path):
    deep = tmp_path / "deep"
    deep.write_text("a: " + "[" * 5000 + "]" * 5000 + "\n")
    code, _, err = ends_within(GUARD, cli, "snapshot", "save", tmp_path / "out.json.gz", "--kubeconfig", deep)
    line = one_line(err)
    assert code == 2 and line.startswith(f"karptui: {deep}: ") and "YAML nested more than 256 levels" in line


def test_a_kubeconfig_over_the_size_cap_is_refused(api, tmp_path, monkeypatch, cli):
    path = api.kubeconfig(tmp_path / "k")
    with open(path, "a") as handle:
        handle.write("# padding\n" * 200)
    monkeypatch.setattr(limits, "MAX_SMALL_FILE_BYTES", 1 << 10)
    code, _, err = save(cli, tmp_path, path)
    assert code == 2 and "too large for a kubeconfig" in one_line(err)


def test_a_non_utf8_version_is_exit_1_and_blames_the_server(api, kubeconfig, cli, tmp_path):
    api.set_version(b'{"major":"1","minor":"30","gitVersion":"v1.30.0-\xff\xfe"}')
    code, _, err = save(cli, tmp_path, kubeconfig)
    line = one_line(err)
    assert code == 1 and "internal error" not in line
    assert f"the server at {api.url} answered /version with something that is not JSON text" in line


def test_a_minimal_version_and_discovery_without_optional_fields_are_read(api, kubeconfig):
    api.set_version({"major": "1", "minor": "31", "gitVersion": "v1.31.2"})
    api.minimal_discovery = True
    connection = ends_within(GUARD, connect, kubeconfig)
    assert connection.version == "v1.31.2"
    cluster = LiveCluster(connection, read_timeout=5).start()
    try:
        assert cluster.wait_synced(10)
        assert [p.name for p in cluster.snapshot().nodepools] == ["default"]
        assert not any("discovery" in note or "Karpenter" in note for note in cluster.status())
    finally:
        cluster.stop()



def test_the_fake_servers_slowloris_sends_one_byte_at_a_time(api):
    """The hostile mode itself, seen from a plain socket: no client in between."""
    import socket
    import time

    api.hostile("/version", "slowloris", interval=0.05)
    host, port = api.url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=5) as sock:
        sock.sendall(b"GET /version HTTP/1.1\r\nHost: fake\r\n\r\n")
        start, got = time.monotonic(), b""
        while len(got) < 5:
            chunk = sock.recv(100)
            assert len(chunk) == 1
            got += chunk
    assert got == b"HTTP/" and time.monotonic() - start >= 0.15


async def test_the_tui_header_says_what_is_slow_and_when_it_gave_up(api, kubeconfig, small):
    from textual.widgets import Static

    from karptui.tui.app import KarptuiApp

    cluster = LiveCluster(connect(kubeconfig), read_timeout=5).start()
    try:
        assert cluster.wait_synced(10)
        pods = next(i for i in cluster.informers if i.resource.kind == "Pod")
        app = KarptuiApp(cluster.snapshot(), live=cluster, logs_since=0, live_interval=0.1, simulate_on_start=False)
        async with app.run_test(size=(200, 45)) as pilot:
            header = app.screen.query_one("#source", Static)

            async def shown(check):
                for _ in range(100):
                    await pilot.pause(0.05)
                    if check(str(header.render())):
                        return True
                return False

            api.hostile("pods", "slowloris", watch=False, interval=0.1)
            pods.resync = 0  # list pods again now, from the slow server
            api.drop_watches()
            assert await shown(lambda text: "listing pods: " in text and " s so far" in text)
            assert await shown(lambda text: "listing pods: gave up after 1.5 s" in text)
            await pilot.press("q")
    finally:
        cluster.stop()


def test_startup_says_which_kind_is_slow_and_why_it_is_missing(api, kubeconfig, small, monkeypatch):
    from karptui.cli import live as cli_live

    monkeypatch.setattr(cli_live, "SYNC_WAIT", 4.0)
    api.hostile("pods", "slowloris", watch=False, interval=0.1)
    cluster = LiveCluster(connect(kubeconfig), read_timeout=5).start()
    terminal = Terminal()
    try:
        saved, sys.stderr = sys.stderr, terminal
        try:
            assert not ends_within(GUARD, cli_live._wait_with_progress, cluster, "fake")
        finally:
            sys.stderr = saved
        assert "kinds listed" in terminal.text and "(listing pods: " in terminal.text  # while it waits
        line = cli_live._not_listed(cluster)
        assert line.startswith("not every kind listed after 4 s (pods: listing pods: gave up after 1.5 s")
    finally:
        cluster.stop()


def test_a_list_page_that_is_not_json_is_one_line_exit_1(api, kubeconfig, small, cli, tmp_path):
    api.hostile("nodes", "garbage", prefix=b"<html>\xff\xfe proxy error</html>")
    code, _, err = save(cli, tmp_path, kubeconfig)
    assert code == 1 and "listing nodes: the API server answered with something that is not JSON" in one_line(err)


def test_a_credential_plugin_failing_mid_session_is_noted_without_its_output(api, tmp_path, small, caplog):
    """The first run gives a token good for 3 s (past the client's 5 min of skew); every later
    run fails with a secret on stderr. The readers say so, and go on retrying."""
    runs = tmp_path / "runs"
    script = plugin(tmp_path, f"""n=$(cat {runs} 2>/dev/null || echo 0); n=$((n+1)); echo $n > {runs}
if [ $n -gt 1 ]; then echo 'token FAKE-SECRET-REFRESH-456' >&2; exit 1; fi
until=$(date -u -d '+303 seconds' +%Y-%m-%dT%H:%M:%SZ)
echo '{{"apiVersion":"client.authentication.k8s.io/v1beta1","kind":"ExecCredential",'\\
'"status":{{"token":"t1","expirationTimestamp":"'$until'"}}}}'""")
    path = api.kubeconfig(tmp_path / "k", exec_command=[script])
    with caplog.at_level(logging.DEBUG):
        cluster = LiveCluster(connect(path), read_timeout=5, watch_seconds=1).start()
        try:
            nodes = next(i for i in cluster.informers if i.resource.kind == "Node")
            eventually(lambda: "credential plugin 'plugin.sh' failed (exit status 1)" in nodes.note, timeout=12)
            assert "retrying" in nodes.note
            assert not any("FAKE-SECRET" in note for note in cluster.status())
        finally:
            cluster.stop()
    assert not any("FAKE-SECRET" in r.getMessage() for r in caplog.records)


def test_an_endless_error_body_on_a_watch_is_capped(api, kubeconfig, small):
    """A watch has no cap on its whole body, but its error answer is one Status object."""
    api.hostile("nodes", "endless", watch=True, times=1, status=500, interval=0.01,
                prefix=b'{"kind":"Status","message":"')
    cluster = LiveCluster(connect(kubeconfig), read_timeout=5).start()
    noted_then_recovered(cluster, "watching nodes: the API server sent more, over karptui's cap of 32 KiB")


def test_a_compressed_body_karptui_did_not_ask_for_is_refused(api, kubeconfig, small, cli, tmp_path):
    """A gzip body could inflate a thousandfold past the byte cap, which counts what arrives."""
    import gzip

    page = b'{"kind":"NodeList","metadata":{},"items":[' + b'{"metadata":{"name":"x"}},' * 9999 + b'{}]}'
    api.hostile("nodes", "garbage", prefix=gzip.compress(page), headers={"Content-Encoding": "gzip"})
    code, _, err = save(cli, tmp_path, kubeconfig)
    assert code == 1 and "listing nodes: the API server sent a gzip body karptui did not ask for" in one_line(err)
    assert {h.get("accept-encoding") for h in api.request_headers} == {"identity"}


def test_snapshot_save_names_a_slow_read_on_a_terminal_then_one_line(api, kubeconfig, small, tmp_path, monkeypatch):
    from karptui.cli import main

    api.hostile("pods", "slowloris", watch=False, interval=0.1)
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    code = ends_within(GUARD, main, ["snapshot", "save", str(tmp_path / "out.json.gz"), "--kubeconfig", kubeconfig,
                                     "--logs-since", "0"])
    monkeypatch.undo()
    assert code == 1
    assert "\rkarptui: listing pods: " in terminal.text and " s so far\x1b[K" in terminal.text
    last = terminal.text.rsplit("\r\x1b[K", 1)[1]  # the progress line cleared, then the error alone
    assert last.startswith("karptui: listing pods: gave up after 1.5 s") and last.count("\n") == 1


def test_a_credential_plugin_that_never_stops_printing_is_cut_at_the_cap(api, tmp_path, small, monkeypatch, cli):
    monkeypatch.setattr(limits, "MAX_SMALL_FILE_BYTES", 4 << 10)
    # one process printing as fast as it can: a loop forking echo and sleep reached the cap only after
    # the deadline on a loaded machine
    script = plugin(tmp_path, "exec yes 0123456789abcdef0123456789abcdef")
    path = api.kubeconfig(tmp_path / "k", exec_command=[script])
    code, _, err = save(cli, tmp_path, path)
    assert code == 2 and "credential plugin 'plugin.sh' printed over 4 KiB" in one_line(err)
