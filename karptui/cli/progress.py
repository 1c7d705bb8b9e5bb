"""A long simulation's progress on stderr, so stdout stays the JSON or the table.

Nothing is shown for the first :data:`DELAY` seconds (most runs end sooner, and a
script's stderr stays quiet). After that a terminal gets one line rewritten in
place a few times a second, cleared at the end; anything else (a CI log, a file)
gets a whole line every :data:`LOG_INTERVAL` seconds. A ticker thread shows the
elapsed time even while one pod takes long (10,000 spread constraints on a pod
take minutes), so a run is never silent for long.
"""

from __future__ import annotations

import sys
import threading
import time
from typing import Self, TextIO

from .output import StatusLine

DELAY = 2.0          # seconds of silence before the first line
TTY_INTERVAL = 0.25  # seconds between redraws on a terminal
LOG_INTERVAL = 10.0  # seconds between lines elsewhere
TICK = 0.5           # how often the ticker looks


class StderrProgress:
    """``simulate(progress=...)``'s callback; use as a context manager around the runs."""

    def __init__(self, stream: TextIO | None = None) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.line = StatusLine(self.stream)
        self.tty = self.line.tty
        self.label = ""
        self.state: tuple[str, int, int] | None = None
        self.started = time.monotonic()
        self.last: float | None = None
        self.shown = False
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._ticker: threading.Thread | None = None

    def __call__(self, phase: str, done: int, total: int) -> None:
        self.state = (phase, done, total)
        self.show()

    def show(self) -> None:
        now = time.monotonic()
        if now - self.started < DELAY:
            return
        if self.last is not None and now - self.last < (TTY_INTERVAL if self.tty else LOG_INTERVAL):
            return
        if not self._lock.acquire(blocking=False):
            return
        try:
            self.last = now
            text = f"karptui: simulating{' ' + self.label if self.label else ''}"
            if self.state is not None:
                phase, done, total = self.state
                text += f": {phase}, {done:,}/{total:,} pods" if total else f": {phase}"
            text += f" ({now - self.started:.0f} s)"
            if self.tty:
                self.line.show(text)
            else:
                self.stream.write(text + "\n")
                self.stream.flush()
            self.shown = True
        except (OSError, ValueError):  # stderr closed: progress is not worth failing for
            pass
        finally:
            self._lock.release()

    def _tick(self) -> None:
        while not self._stop.wait(TICK):
            self.show()

    def __enter__(self) -> Self:
        self.started = time.monotonic()
        self._ticker = threading.Thread(target=self._tick, name="karptui-progress", daemon=True)
        self._ticker.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        if self._ticker is not None:
            self._ticker.join()
        self.line.clear()
