"""An internal error ends a TUI session with the terminal given back, one line on stderr and exit
status 1, its traceback kept in a file (issue 29: two quick clicks on a notification once killed
the session with Textual's screenful of traceback, and `karptui` exited 0).

The session runs as an operator runs it: `karptui demo` in a child process on a pseudo-terminal,
with an error planted in the app (the help key's action fails as the click handler did)."""

from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest

PLANT = """
import sys
from karptui.tui.app import KarptuiApp

def broken(self):
    raise AttributeError("'NoneType' object has no attribute 'forward_event'")

KarptuiApp.action_help = broken
from karptui.__main__ import main
sys.argv = ["karptui", "demo"]
sys.exit(main())
"""


def read_until(fd: int, done, seconds: float = 60.0) -> bytes:
    """What the child wrote to its terminal until ``done(output)`` holds (or it closed it)."""
    out = b""
    end = time.monotonic() + seconds
    while time.monotonic() < end and not done(out):
        ready, _, _ = select.select([fd], [], [], 0.2)
        if ready:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                break
            if not chunk:
                break
            out += chunk
    return out


@pytest.mark.skipif(sys.platform == "win32", reason="needs a pseudo-terminal")
def test_an_internal_error_is_one_line_and_exit_status_1(tmp_path):
    controller, terminal = pty.openpty()
    fcntl.ioctl(terminal, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 120, 0, 0))   # rows, columns
    env = {**os.environ, "XDG_STATE_HOME": str(tmp_path / "state"), "TERM": "xterm-256color",
           "COLUMNS": "120", "LINES": "40"}
    child = subprocess.Popen([sys.executable, "-c", PLANT], stdin=terminal, stdout=terminal,
                             stderr=terminal, env=env, cwd=Path(__file__).resolve().parent.parent)
    os.close(terminal)
    try:
        first = read_until(controller, lambda out: b"Karpenter" in out)   # the first screen is up
        assert b"Karpenter" in first, first[-2000:]
        os.write(controller, b"?")   # help, planted to fail
        screen = read_until(controller, lambda out: b"the details are in" in out and out.endswith(b"\n"))
        code = child.wait(30)
    finally:
        if child.poll() is None:
            child.kill()
        os.close(controller)
    assert code == 1, screen[-3000:]
    # Textual draws on stderr: after it leaves the alternate screen (the terminal is back), one line
    assert b"\x1b[?1049l" in screen, screen[-2000:]
    after = screen.rsplit(b"\x1b[?1049l", 1)[1].decode(errors="replace")
    text = re.sub(r"\x1b\[[0-9;?]*[a-zA-Z]", "", after).replace("\r", "")   # the terminal's modes reset
    lines = [line for line in text.splitlines() if line.strip()]
    assert "Traceback" not in screen.decode(errors="replace")
    assert len(lines) == 1, after
    assert lines[0].startswith("karptui: internal error, the session ended: AttributeError:")
    saved = Path(lines[0].rsplit("the details are in ", 1)[1])
    assert saved.is_relative_to(tmp_path) and "in broken" in saved.read_text()
