"""The cyclic garbage collector paused while a big picture is decoded and built.

A snapshot load allocates millions of objects, a live cluster's list page thousands,
and neither makes reference cycles; left on, the collector rescans the young objects
again and again, and now and then the whole heap (a 200 MB dump: json.loads 6.1 s with
it, 1.6 s without; a list page of 500 pods decoded 3-4 times slower). Reference counting
still frees everything that is dropped; cycles made meanwhile wait for the collector to
come back on.

Several threads may pause it at once (one informer per kind lists at the same time):
the collector comes back on when the last of them is done, and only if it was on.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_lock = threading.Lock()
_paused = 0
_was_enabled = False


@contextmanager
def collector_paused() -> Iterator[None]:
    global _paused, _was_enabled
    with _lock:
        if _paused == 0:
            _was_enabled = gc.isenabled()
            gc.disable()
        _paused += 1
    try:
        yield
    finally:
        with _lock:
            _paused -= 1
            if _paused == 0 and _was_enabled:
                gc.enable()


# A consolidation plan makes millions of short-lived objects (requirement sets, pod data, arrays);
# with the default threshold (700) the collector ran 2,000 times on a 2,000-node plan, 2.0 s of its
# 11.8 s of CPU. Collecting the young every 20,000 objects instead took 0.2 s.
YOUNG_THRESHOLD = 20_000


_kept_to_the_end = False   # this process keeps its picture until it exits (keep_to_the_end was called)


def keep_to_the_end() -> None:
    """What exists now leaves the collector's passes for good (``gc.freeze``), in a process that keeps
    its cluster picture until it exits (a command-line command). Called while the collector is still
    paused after a load: re-enabled first, it walked every object the load made at the next
    allocation, again when they reached the older generation, and once more at the interpreter's
    exit, 0.2 s of a 10,000-pod ``snapshot info``. Reference counting frees them as before."""
    global _kept_to_the_end
    _kept_to_the_end = True
    gc.freeze()


def keep_what_the_session_built() -> None:
    """Once, when a session that keeps its picture to the end (a file, the demo, a recording) has
    shown its start-up simulation: the answer and what the screen built from it (its rows, the
    screen's widgets) leave the collector's passes too. They are made after the picture was frozen,
    and in the collector's sight they cost, at 20,000 nodes on the batch shape (44,749 pending pods),
    a 92 ms pass of the middle generation and later 306 ms full passes, each in whichever key set it
    off. A live session's objects come and go: nothing is kept there. Cycles made later are still
    collected; reference counting frees the kept objects when the screen drops them, as before."""
    if _kept_to_the_end:
        gc.freeze()


def settle_for_simulation() -> None:
    """Before a long simulation, in a process that keeps its cluster picture to the end (the command
    line's ``simulate``, the screen's forked child): what exists now leaves the collector's passes
    for good (:func:`keep_to_the_end`: a full pass walks every pod and node of the picture again,
    nine times in one 2,000-node plan), and the young generation is collected less often. Both only
    change when cycles are found; reference counting frees everything else as before."""
    keep_to_the_end()
    young, middle, old = gc.get_threshold()
    gc.set_threshold(max(YOUNG_THRESHOLD, young), middle, old)
