#!/usr/bin/env python3
"""The what-if panel's run on a big cluster, through the session the panel and ``simulate --whatif`` use.

    python bench/gen_cluster.py --nodes 2000 --pods 20000 --format json --out /tmp/big.json
    python bench/bench_whatif.py /tmp/big.json

Prints, without asserting anything:
  - the first run (the baseline simulated, then the what-if: the largest Deployment +5
    replicas) and a second run (the baseline kept), both without consolidation, the default;
  - how long a cancelled run goes on working: a run with consolidation is cancelled
    --cancel-after seconds into the baseline's consolidation, and the time from the cancel to
    the run's return is measured.
"""

from __future__ import annotations

import argparse
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # this checkout's karptui, not an installed one

from karptui.catalog import catalog_from_snapshot_region  # noqa: E402
from karptui.sources import load_snapshot  # noqa: E402
from karptui.whatif.session import WhatIfSession  # noqa: E402
from karptui.whatif.stack import EditStack  # noqa: E402
from karptui.views.whatif_builders import scale_edit  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("snapshot")
    parser.add_argument("--skip-cancel", action="store_true", help="only the first and second runs")
    parser.add_argument("--cancel-after", type=float, default=5.0,
                        help="seconds into consolidation to cancel (default 5)")
    args = parser.parse_args()
    start = time.perf_counter()
    snapshot = load_snapshot(args.snapshot)
    catalog = catalog_from_snapshot_region(snapshot)
    print(f"cluster: {len(snapshot.nodes)} nodes, {len(snapshot.pods)} pods, {len(snapshot.pending_pods)} pending "
          f"(loaded in {time.perf_counter() - start:.1f} s)", flush=True)
    target = max((w for w in snapshot.workloads if w.kind == "Deployment" and w.raw is not None),
                 key=lambda w: w.replicas or 0)
    whatif = EditStack([scale_edit(target, (target.replicas or 0) + 5)]).as_whatif("bench")
    session = WhatIfSession(snapshot, catalog)
    for label in ("first run (baseline + what-if)", "second run (baseline kept)"):
        start = time.perf_counter()
        run = session.run(whatif)
        print(f"{label:32} {time.perf_counter() - start:7.1f} s  ({run.status}; "
              f"{run.diff.counts['pending_before']} -> {run.diff.counts['pending_after']} pending)", flush=True)
    if args.skip_cancel:
        return
    fresh = WhatIfSession(snapshot, catalog)
    cancel, consolidating = threading.Event(), threading.Event()

    def progress(phase: str, done: int, total: int) -> None:
        if phase.endswith("consolidation"):
            consolidating.set()

    returned: dict = {}

    def work() -> None:
        returned["run"] = fresh.run(whatif, consolidate=True, cancelled=cancel.is_set, progress=progress)
        returned["at"] = time.perf_counter()

    thread = threading.Thread(target=work)
    start = time.perf_counter()
    thread.start()
    consolidating.wait()
    time.sleep(args.cancel_after)
    cancel.set()
    cancelled_at = time.perf_counter()
    thread.join()
    print(f"cancel during consolidation     {returned['at'] - cancelled_at:7.2f} s from the cancel to the run's "
          f"return ({returned['run'].status}; cancelled {cancelled_at - start:.1f} s into the run, "
          f"{args.cancel_after:g} s into consolidation)")


if __name__ == "__main__":
    main()
