"""Figures a bench prints, also kept for bench/growth.py.

``figure("initial sync", 3.2, "s")`` returns the value; when KARPTUI_BENCH_FIGURES names a
file (growth.py sets it), the figure is appended to it as one JSON line, so the driver
compares sizes by name rather than by reading the printed text. ``peak_mib`` is this
process's peak RSS, which each bench also records as a figure on exit. The variable is
taken out of the environment on import, so a bench's own child processes (a fake API
server, a probe) record nothing: the figures are the bench's.
"""

from __future__ import annotations

import atexit
import json
import os
import resource


_PATH = os.environ.pop("KARPTUI_BENCH_FIGURES", "")


def figure(name: str, value: float, unit: str) -> float:
    path = _PATH
    if path:
        with open(path, "a", encoding="utf-8") as out:
            out.write(json.dumps({"name": name, "value": value, "unit": unit}) + "\n")
    return value


def peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


@atexit.register
def _peak() -> None:
    if _PATH:
        figure("peak RSS (bench process)", peak_mib(), "MiB")
