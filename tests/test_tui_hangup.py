"""The session ends when its terminal goes without a SIGHUP (a dropped SSH connection, a killed tmux
session), instead of Textual's input thread reading end-of-file at 100% CPU for ever."""

import asyncio
import os
import pty
import subprocess
import sys
import time

import pytest

from karptui.sources import bundled_snapshot, load_snapshot
from karptui.tui import hangup
from karptui.tui.app import KarptuiApp


def test_a_hung_up_terminal_is_gone_and_a_live_one_is_not():
    master, slave = pty.openpty()
    try:
        assert not hangup.gone(slave)
        os.close(master)
        assert hangup.gone(slave)
    finally:
        os.close(slave)


async def test_the_app_ends_with_the_hang_up_status_when_its_terminal_goes(monkeypatch):
    master, slave = pty.openpty()
    monkeypatch.setattr(hangup, "terminal_fd", lambda: slave)
    monkeypatch.setattr(hangup, "CHECK_SECONDS", 0.05)
    app = KarptuiApp(load_snapshot(bundled_snapshot("topology-spread")), simulate_on_start=False)
    try:
        async with app.run_test() as pilot:
            await pilot.pause(0.3)
            assert app.is_running and app.return_code is None   # the terminal is there: nothing ends
            os.close(master)
            for _ in range(200):
                if app.return_code is not None:
                    break
                await asyncio.sleep(0.05)
        assert app.return_code == hangup.EXIT_HANGUP == 129
    finally:
        os.close(slave)


@pytest.mark.skipif(sys.platform != "linux", reason="a pseudo-terminal hung up as Linux does")
def test_karptui_demo_exits_when_its_terminal_is_hung_up():
    """The real process on a real pseudo-terminal: close the terminal's master side (what sshd or
    tmux does when the connection or session goes) with SIGHUP ignored, and the process ends."""
    master, slave = pty.openpty()
    env = dict(os.environ, TERM="xterm-256color", COLUMNS="100", LINES="30")
    proc = subprocess.Popen([sys.executable, "-m", "karptui", "demo"], stdin=slave, stdout=slave, stderr=slave,
                            env=env, start_new_session=True,
                            preexec_fn=lambda: __import__("signal").signal(1, __import__("signal").SIG_IGN))
    os.close(slave)
    try:
        deadline = time.monotonic() + 60
        seen = b""
        while time.monotonic() < deadline and b"Nodes" not in seen:   # the first screen is drawn
            try:
                seen += os.read(master, 65536)
            except OSError:
                break
        assert b"Nodes" in seen and proc.poll() is None
        os.close(master)
        assert proc.wait(timeout=60) == hangup.EXIT_HANGUP
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
