"""``karptui serve``: the TUI in a real headless browser, and the command each session runs.

The browser test starts ``karptui serve`` as a user would, opens its page in the system's Chromium
(Playwright's Python package drives it; it never downloads a browser of its own), reads what the
terminal shows from xterm.js's own buffer, and presses keys there.
"""

from __future__ import annotations

import os
import shlex
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from karptui.cli import main
from karptui.cli.parser import build_parser
from karptui.cli.serve import is_loopback, public_url, session_argv
from karptui.sources import bundled_snapshot, load_snapshot
from karptui.text import visible
from karptui.views.nodes import short_name

REPO = Path(__file__).resolve().parent.parent
WAIT_MS = 180_000  # generous: the machine is shared; nothing here measures time

# textual-serve's page keeps its xterm.js Terminal in a closure. Before the page's script runs,
# catch the object assigned to a ``terminal`` property that is a Terminal (it has loadAddon).
CATCH_TERMINAL = """
Object.defineProperty(Object.prototype, 'terminal', {
  configurable: true,
  set(value) {
    Object.defineProperty(this, 'terminal', {value, writable: true, configurable: true, enumerable: true});
    if (value && typeof value.loadAddon === 'function' && !window.karptuiTerminal) window.karptuiTerminal = value;
  },
});
window.karptuiScreen = () => {
  const term = window.karptuiTerminal;
  if (!term) return '';
  const lines = [];
  for (let y = 0; y < term.rows; y++) {
    const line = term.buffer.active.getLine(y);
    lines.push(line ? line.translateToString(true) : '');
  }
  return lines.join('\\n');
};
"""
SHOWS_ALL = "(words) => words.every(w => window.karptuiScreen().includes(w))"
SHOWS_NONE = "(words) => !words.some(w => window.karptuiScreen().includes(w))"
ENDED = "document.body.classList.contains('-closed')"  # the page's "Session ended." dialog


def _wait(page, test: str, words: list[str]) -> None:
    """Until the terminal passes ``test`` on ``words``; a session that ended first fails at once."""
    page.wait_for_function(f"{ENDED} || ({test})({words!r})", timeout=WAIT_MS)
    assert not page.evaluate(ENDED), f"the session ended; the screen: {page.evaluate('window.karptuiScreen()')}"


def _chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    return None


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _wait_listening(server: subprocess.Popen, port: int) -> None:
    """Until the port accepts connections (the snapshot is loaded and checked first)."""
    import time

    deadline = time.monotonic() + WAIT_MS / 1000
    while time.monotonic() < deadline:
        assert server.poll() is None, f"karptui serve ended: {server.communicate()}"
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.2)
    pytest.fail("karptui serve did not listen")


class Served:
    """``karptui serve SNAPSHOT`` (or ``karptui serve ARGS...``) running as a user starts it, and the
    system's Chromium."""

    def __init__(self, tmp_path: Path, snapshot: Path | None, *args: str):
        self.sync_api = pytest.importorskip("playwright.sync_api", reason="pip install playwright (the test extra)")
        self.chromium = _chromium()
        if self.chromium is None:
            pytest.skip("no Chromium on PATH: .ci/run installs it (apt-get install chromium)")
        self.port = _free_port()
        # the session's working folder is tmp_path: karptui is found through the server's own package
        served = [snapshot.name] if snapshot is not None else []
        self.server = subprocess.Popen([sys.executable, "-m", "karptui", "serve", *served, *args, "--port",
                                        str(self.port)], cwd=tmp_path, stdout=subprocess.PIPE,
                                       stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": str(REPO)})
        _wait_listening(self.server, self.port)

    def page(self, playwright):
        browser = playwright.chromium.launch(executable_path=self.chromium, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1600, "height": 900})
        page.add_init_script(CATCH_TERMINAL)
        page.goto(f"http://127.0.0.1:{self.port}/")
        return browser, page

    def stop(self) -> tuple[str, str]:
        self.server.terminate()
        return self.server.communicate(timeout=60)


def test_browser_shows_the_tui_and_keys_work(tmp_path):
    """A browser session runs karptui's TUI on the served snapshot: the Nodes pane shows every
    node, ``2`` turns to the Pending pane with the pending pods, ``q`` ends the session. The
    snapshot's file name holds shell syntax: the session's command must keep it one word."""
    source = bundled_snapshot("multi-nodepool")
    snapshot = load_snapshot(source)
    nodes = [short_name(n.name) for n in snapshot.nodes]
    pending = [p.name for p in snapshot.pending_pods]
    assert nodes and pending
    served = tmp_path / "team's snap $(touch INJECTED); touch INJECTED `touch INJECTED` \x1b[31mred.yaml"
    shutil.copyfile(source, served)
    serving = Served(tmp_path, served)
    try:
        with serving.sync_api.sync_playwright() as playwright:
            browser, page = serving.page(playwright)
            try:
                _wait(page, SHOWS_ALL, nodes + ["Nodes", "Pending"])
                assert not any(p in page.evaluate("window.karptuiScreen()") for p in pending)
                page.focus(".xterm-helper-textarea")
                page.keyboard.press("2")
                _wait(page, SHOWS_ALL, pending + ["kube-scheduler reason"])
                _wait(page, SHOWS_NONE, nodes[:1])
                page.keyboard.press("q")
                page.wait_for_function(ENDED, timeout=WAIT_MS)
            finally:
                browser.close()
    finally:
        out, err = serving.stop()
    assert out.splitlines()[0] == (f"karptui: serving the snapshot {visible(served.name)} on "
                                   f"http://127.0.0.1:{serving.port} (Ctrl+C stops it)")
    assert "\x1b" not in out
    assert not list(tmp_path.rglob("INJECTED")), "the snapshot's name was run by the shell"


def test_live_cluster_in_the_browser_follows_it_and_only_reads(tmp_path):
    """No SNAPSHOT: each session is the live TUI on the cluster the kubeconfig names (a local API
    server here). A node added to the cluster appears in the browser; nothing but GETs is sent."""
    from tests.conftest import node_obj, pod_obj
    from tests.fakeapi import FakeAPI

    with FakeAPI(bookmark_interval=0.2) as api:
        for i in range(3):
            api.add(node_obj(f"node-{i}", zone=f"us-east-1{'abc'[i]}"))
        api.add(pod_obj("web-0", node="node-0"))
        api.add(pod_obj("pending-0"))
        serving = Served(tmp_path, None, "--kubeconfig", str(api.kubeconfig(tmp_path / "kubeconfig")))
        try:
            with serving.sync_api.sync_playwright() as playwright:
                browser, page = serving.page(playwright)
                try:
                    _wait(page, SHOWS_ALL, ["node-0", "node-1", "node-2"])
                    api.add(node_obj("node-added-later", zone="us-east-1a"))
                    _wait(page, SHOWS_ALL, ["node-added-later"])
                    page.focus(".xterm-helper-textarea")
                    page.keyboard.press("2")
                    _wait(page, SHOWS_ALL, ["pending-0"])
                finally:
                    browser.close()
        finally:
            out, _ = serving.stop()
        assert out.splitlines()[0] == f"karptui: serving the live cluster on http://127.0.0.1:{serving.port} (Ctrl+C stops it)"
        assert api.requests and {method for method, _, _ in api.requests} == {"GET"}


def test_a_whatif_saved_in_the_browser_is_downloaded_not_written_on_the_server(tmp_path):
    """In a browser the what-if panel's save (ctrl+s) sends the YAML file to the viewer, and load
    (ctrl+o) says why it reads nothing: a viewer never touches the server's disk."""
    from karptui.whatif import load_whatif

    served = tmp_path / "served.yaml"
    shutil.copyfile(bundled_snapshot("multi-nodepool"), served)
    serving = Served(tmp_path, served)
    try:
        with serving.sync_api.sync_playwright() as playwright:
            browser, page = serving.page(playwright)
            try:
                _wait(page, SHOWS_ALL, ["Nodes", "Pending"])
                page.focus(".xterm-helper-textarea")
                page.keyboard.press("w")
                _wait(page, SHOWS_ALL, ["Targets", "Save what-if"])
                page.keyboard.press("Enter")  # the first target
                page.keyboard.press("+")      # +1 replica
                _wait(page, SHOWS_ALL, ["1. "])
                with page.expect_download(timeout=WAIT_MS) as download:
                    page.keyboard.press("Control+s")
                got = tmp_path / "downloads" / download.value.suggested_filename
                download.value.save_as(got)
                _wait(page, SHOWS_ALL, [f"to the browser as {got.name}"])
                page.keyboard.press("Control+o")
                _wait(page, SHOWS_ALL, ["not loaded"])
                screen = page.evaluate("window.karptuiScreen()")
            finally:
                browser.close()
    finally:
        serving.stop()
    whatif = load_whatif(got)
    assert got.name == f"{whatif.name}.yaml" and len(whatif.edits) == 1
    edit = whatif.edits[0]
    assert f"{edit.target.name}: replicas={edit.replicas}" in screen
    assert [p.name for p in tmp_path.glob("*.yaml")] == ["served.yaml"]  # nothing saved where the session runs


def test_a_session_that_cannot_start_says_it_ended(tmp_path):
    """The snapshot removed after the server started: the session's TUI stops at its one line, and
    the page says the session ended (textual-serve alone left it blank, its connection open)."""
    served = tmp_path / "gone.yaml"
    shutil.copyfile(bundled_snapshot("consolidation"), served)
    serving = Served(tmp_path, served)
    served.unlink()
    try:
        with serving.sync_api.sync_playwright() as playwright:
            browser, page = serving.page(playwright)
            try:
                page.wait_for_function(ENDED, timeout=WAIT_MS)
            finally:
                browser.close()
    finally:
        out, _ = serving.stop()
    assert f"karptui: {served}: no such file or directory" in out  # the session's stderr, on the server's output


def _args(*argv: str):
    return build_parser().parse_args(list(argv))


def test_session_command_is_the_tui_with_the_same_flags(tmp_path, monkeypatch):
    """The session's command, split as the shell splits it, is ``karptui open`` with every flag
    ``serve`` was given, as karptui's own parser reads them; the single-file build runs itself."""
    snapshot = tmp_path / "a b;$(x).yaml"
    args = _args("--theme", "karptui-light", "serve", "s.yaml", "-n", "team-a", "--logs", "k.log",
                 "--discounts", "d.yaml", "--karpenter-version", "v1.14", "--preference-policy", "Ignore",
                 "--scheduler-config", "{podTopologySpread: {}}", "--port", "9000")
    monkeypatch.chdir(tmp_path)
    argv = shlex.split(shlex.join(session_argv(args, snapshot)))
    assert argv[0] == sys.executable and argv[1:3] == ["-P", "-c"]
    again = _args(*argv[4:])
    assert again.snapshot == str(snapshot)
    assert (again.theme, again.namespace, again.karpenter_version, again.preference_policy,
            again.scheduler_config) == ("karptui-light", "team-a", "v1.14", "Ignore", "{podTopologySpread: {}}")
    assert (again.logs, again.discounts) == (str(tmp_path / "k.log"), str(tmp_path / "d.yaml"))
    assert "open" in argv and "serve" not in argv and "--port" not in argv

    monkeypatch.setattr(sys, "frozen", True, raising=False)
    frozen = session_argv(args, snapshot)
    assert frozen[0] == sys.executable and frozen[1:] == argv[4:]


def test_session_command_live(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    args = _args("serve", "--context", "prod", "--kubeconfig", "kc", "--logs-since", "30m", "-n", "x")
    argv = session_argv(args, None)
    again = _args(*argv[4:])
    assert (again.context, again.kubeconfig, again.logs_since, again.namespace) == ("prod", str(tmp_path / "kc"),
                                                                                   "30m", "x")
    assert "open" not in argv


def test_the_served_command_runs_karptui_from_this_package(tmp_path):
    """Run as the shell would in a session's working folder: the same karptui answers."""
    argv = session_argv(_args("serve"), None)[:4] + ["--version"]
    done = subprocess.run(shlex.join(argv), shell=True, cwd=tmp_path, capture_output=True, text=True, check=True)
    from karptui import __version__

    assert done.stdout.strip() == f"karptui {__version__}"


@pytest.mark.parametrize("host, loopback", [("127.0.0.1", True), ("localhost", True), ("::1", True),
                                            ("0.0.0.0", False), ("10.0.0.5", False), ("bastion", False)])
def test_loopback(host, loopback):
    assert is_loopback(host) is loopback


def test_public_url():
    assert public_url("127.0.0.1", 8000, None) == "http://127.0.0.1:8000"
    assert public_url("::1", 8000, None) == "http://[::1]:8000"
    assert public_url("0.0.0.0", 80, "https://karptui.example.com/") == "https://karptui.example.com"


def test_other_address_warns_then_bind_failure_is_one_line(capsys):
    """An address that is not loopback is said in a warning; one this machine does not have (a
    documentation address) cannot be bound: one line, exit 2."""
    assert main(["serve", "consolidation", "--host", "192.0.2.1", "--port", str(_free_port())]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith("karptui: warning: serving on 192.0.2.1:")
    assert "anyone who can reach this port sees the cluster" in err[0]
    assert len(err) == 2 and err[1].startswith("karptui: --host 192.0.2.1 --port ")


def test_a_hostile_host_is_shown_escaped(capsys):
    host = "no\x1b]52;c;eA==\x07host"
    assert main(["serve", "consolidation", "--host", host]) == 2
    err = capsys.readouterr().err
    assert "\x1b" not in err and "\x07" not in err and err.count("\n") == 2
    assert err.splitlines()[1].startswith(f"karptui: --host {visible(host)} --port 8000: ")


@pytest.mark.parametrize("argv, says", [
    (["serve", "consolidation", "--port", "70000"], "--port: 70000 is not a port number"),
    (["serve", "consolidation", "--public-url", "karptui.example.com"], "--public-url: 'karptui.example.com' does not"),
    (["serve", "consolidation", "--logs", "-"], "--logs: a served session reads its keys from standard input"),
    (["serve", "no-such-snapshot.yaml"], "no-such-snapshot.yaml: no such file"),
    (["serve", "consolidation", "--karpenter-version", "v9"], "--karpenter-version"),
    (["--theme", "nope", "serve", "consolidation"], "--theme: no theme named 'nope'"),
    (["serve", "--kubeconfig", "no-such-kubeconfig"], "no-such-kubeconfig: no such kubeconfig file"),
    (["serve", "--logs", "karpenter.log"], "--logs: attaches a log to a SNAPSHOT"),
    (["serve", "--logs-since", "soon"], "--logs-since"),
])
def test_bad_input_is_one_line(argv, says, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and says in err


def test_without_textual_serve_says_how_to_install(tmp_path):
    """textual-serve is an extra: without it, one line naming the install command, exit 2."""
    code = ("import sys; sys.modules['textual_serve'] = None; from karptui.cli import main; "
            "sys.exit(main(['serve', 'consolidation']))")
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True)
    assert done.returncode == 2
    assert done.stderr == ("karptui: karptui serve needs textual-serve: pip install 'karptui[serve]' "
                           "(or pip install 'textual-serve>=1.1,<2')\n")
