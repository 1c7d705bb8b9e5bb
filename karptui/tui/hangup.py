"""Ending the session when its terminal is gone.

A terminal can go away without a SIGHUP reaching the process: an SSH connection that drops, a
tmux or screen session killed from outside. The terminal's descriptor then reads end-of-file
forever, and Textual's Linux driver (8.2) reads it again at once, each time: one core at 100% for
as long as the process lives (Textualize/textual#6690 proposes the fix upstream). On a bastion
host that is a process nobody sees, spinning until someone finds it. So the app looks every few
seconds whether the terminal it started on is still a terminal, and ends the session when it is
not, with the status a hang-up gives (128 + SIGHUP).
"""

from __future__ import annotations

import os
import signal
import sys

CHECK_SECONDS = 2.0
EXIT_HANGUP = 128 + signal.SIGHUP


def terminal_fd() -> int | None:
    """The descriptor of the terminal the session reads keys from, when stdin is one now; None
    when it is not (a pipe, a browser session, tests), and nothing is watched."""
    stdin = sys.__stdin__
    try:
        fd = stdin.fileno() if stdin is not None else None
    except (ValueError, OSError):
        return None
    return fd if fd is not None and os.isatty(fd) else None


def gone(fd: int) -> bool:
    """Is the terminal behind ``fd`` gone? A hung-up terminal is no longer a tty (EIO underneath)."""
    return not os.isatty(fd)
