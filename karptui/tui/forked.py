"""Long simulations off the screen's process: a forked child computes, a thread worker waits on it.

A Python thread that simulates for seconds holds the global interpreter lock against the
screen's event loop: on 5,000 nodes the first paint took 5.6 s instead of 0.3 s and a key
up to 1.3 s while the start-up simulation ran beside it. A forked child shares the snapshot
without copying or pickling it, runs on the other core, and is killed when its worker is
cancelled (a newer snapshot, quitting). What comes back down the pipe must be small: a
view, or a result detached from its snapshot (:meth:`karptui.sim.result.SimResult.detached`).

Where the platform cannot fork, the same work runs in the calling thread.
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import threading
from collections.abc import Callable

from ..sources.collector import settle_for_simulation

IN_CHILD_PROCESS = "fork" in multiprocessing.get_all_start_methods()

# (kind, value): "progress" and "partial" messages, then one "done" or "error"
Tell = Callable[[str, object], None]

# While a child lives, the objects that existed at the fork stay out of the garbage collector's
# passes (gc.freeze): a full pass writes to every object, and each page it writes to is copied from
# the child's, which cost the screen seconds of CPU on 5,000 nodes. Unfrozen when the last child ends,
# but only when this module froze them: a session opened on a file has frozen its picture for the whole
# session (``cli.tui``), and unfreezing gave it back to the collector, whose next full pass walked it
# all in whichever key set it off (0.3 s at 5,000 nodes). Then the picture, the bulk of the heap, is
# out of the passes already, and nothing more is frozen.
_children = 0
_froze = False
_children_lock = threading.Lock()


def run(work: Callable[[Tell], None], tell: Tell, cancelled: Callable[[], bool], name: str) -> None:
    """``work(tell)`` in a forked child where the platform forks (:func:`run_forked`), else in the
    calling thread (where a cancel only stops it if ``tell`` raises)."""
    if IN_CHILD_PROCESS:
        run_forked(work, tell, cancelled, name)
    else:
        work(tell)


def answer(work: Callable[[Tell], None], cancelled: Callable[[], bool], name: str) -> tuple[str, object] | None:
    """What ``work`` told last (its ``done`` or ``error``) by :func:`run`; None when cancelled or silent."""
    told: list[tuple[str, object]] = []
    run(work, lambda kind, value: told.append((kind, value)), cancelled, name)
    return None if cancelled() or not told else told[-1]


def run_forked(work: Callable[[Tell], None], tell: Tell, cancelled: Callable[[], bool], name: str) -> None:
    """Run ``work(tell)`` in a forked child and pass on what it tells, until it tells something
    other than progress, ends without a word (an "error" is told) or ``cancelled()`` (the child
    is killed)."""
    global _children, _froze
    context = multiprocessing.get_context("fork")
    mine, theirs = context.Pipe(duplex=False)
    process = context.Process(target=_child, args=(theirs, work), daemon=True, name=name)
    with _children_lock:
        if not _children:
            _froze = not gc.get_freeze_count()
            if _froze:
                gc.freeze()
        _children += 1
    try:
        process.start()
    except BaseException:
        _left()
        raise
    theirs.close()
    try:
        while not cancelled():
            if not mine.poll(0.1):
                continue
            try:
                kind, value = mine.recv()
            except EOFError:
                tell("error", f"the simulation process ended without an answer (exit code {process.exitcode})")
                return
            tell(kind, value)
            if kind not in ("progress", "partial"):
                return
    finally:
        if process.is_alive():
            process.kill()
        process.join(2)
        mine.close()
        _left()


def _left() -> None:
    global _children, _froze
    with _children_lock:
        _children -= 1
        if not _children and _froze:
            gc.unfreeze()
            _froze = False


def _child(conn, work: Callable[[Tell], None]) -> None:
    """The forked child: everything it has to say goes down the pipe. Its stdout and stderr are
    the terminal the parent draws on: a warning or a traceback there would scribble over the
    screen, so they go nowhere, and a failure is the pipe's silence."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    os.dup2(devnull, 2)
    settle_for_simulation()  # the child only simulates, over the picture it was forked with
    try:
        work(lambda kind, value: conn.send((kind, value)))
    except BaseException:  # noqa: BLE001  (the parent says "ended without an answer")
        pass
    finally:
        conn.close()
