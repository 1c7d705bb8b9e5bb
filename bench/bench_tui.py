#!/usr/bin/env python3
"""TUI responsiveness on a big cluster: the figures an operator feels.

    python bench/bench_tui.py [--nodes 5000] [--pods 50000] [--no-whatif]
    python bench/bench_tui.py --snapshot FILE [--no-whatif]

Runs the app headless (Textual's test driver, a 160x45 terminal) on a generated cluster
and prints, without asserting anything:
  - first paint: app start until the main screen's tables are filled;
  - simulation: start until the background simulation has answered every pending pod;
  - what-if: the panel's run after scaling the largest Deployment to 100 replicas, with and
    without the instance catalog: the baseline (simulated once, on the first run) and each run;
  - key latency: CPU time (the work a key causes; per sequence and per key) and wall time
    (which also counts the test driver's idle waits) for j (cursor), 2/1 (switch pane and
    back), s (re-sort all nodes) and a filter typed, applied and cleared (5 keys).  Set TEXTUAL_ANIMATIONS=none to leave out the tab underline animation.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(1, str(HERE.parent))  # this checkout's karptui, not whichever one is installed

import gen_cluster  # noqa: E402  (a script beside this one)

from karptui.model import build_snapshot  # noqa: E402
from karptui.tui.app import KarptuiApp  # noqa: E402
from karptui.views import whatif_form as wf  # noqa: E402


async def timed(pilot, *keys: str) -> tuple[float, float]:
    """Wall time (includes the test driver's idle waits) and CPU time (the work the key caused)."""
    wall, cpu = time.perf_counter(), time.process_time()
    await pilot.press(*keys)
    await pilot.pause()
    return time.perf_counter() - wall, time.process_time() - cpu


async def measure(snapshot) -> None:
    app = KarptuiApp(snapshot)
    start, cpu = time.perf_counter(), time.process_time()
    async with app.run_test(size=(160, 45)) as pilot:
        await pilot.pause()
        painted, cpu = time.perf_counter() - start, time.process_time() - cpu
        print(f"first paint            {painted * 1000:8.0f} ms (cpu {cpu * 1000:.0f} ms)", flush=True)
        while app.result is None:  # the start-up simulation (the Disruption pane's consolidation goes on)
            await pilot.pause(0.05)
        simulated = time.perf_counter() - start
        print(f"simulation answered    {simulated * 1000:8.0f} ms  ({len(app.attempts)} pending pods; the keys below "
              "are pressed while the Disruption pane's consolidation still computes in its child process)", flush=True)
        for label, keys, repeat in (
            ("j (cursor down)", ("j",), 50),
            ("2 / 1 (switch pane)", ("2", "1"), 10),
            ("s (re-sort nodes)", ("s",), 5),
            ("/ filter + enter", ("slash", "2", "a", "enter", "escape"), 3),
        ):
            walls, cpus = zip(*[await timed(pilot, *keys) for _ in range(repeat)])
            per_key = statistics.mean(cpus) / len(keys)
            print(f"{label:22} cpu mean {statistics.mean(cpus) * 1000:7.1f} ms worst {max(cpus) * 1000:7.1f} ms"
                  f" ({per_key * 1000:5.1f} ms a key)   wall mean {statistics.mean(walls) * 1000:7.1f} ms")
        await pilot.press("q")


def whatif(snapshot, catalog) -> None:
    """As the panel runs it: the baseline simulated once and kept, then each what-if against it."""
    deployments = [w for w in snapshot.workloads if w.kind == "Deployment" and w.raw is not None]
    target = max(deployments, key=lambda w: w.replicas or 0)
    ref = f"Deployment/{target.namespace}/{target.name}"
    edits = wf.EditStack([wf.scale_edit(ref, 100)]).as_whatif()
    for label, cat in (("scheduler only", None), ("with Karpenter", catalog)):
        session = wf.WhatIfSession(snapshot, cat)
        start = time.perf_counter()
        session.baseline()
        kept = time.perf_counter() - start
        runs = []
        for _ in range(5):
            start = time.perf_counter()
            summary = wf.summary(session.run(edits), cat)
            runs.append(time.perf_counter() - start)
        took = statistics.median(runs)
        print(f"what-if, {label:15} baseline (first run only) {kept * 1000:6.0f} ms, "
              f"each run {took * 1000:6.0f} ms median of 5 (best {min(runs) * 1000:.0f})"
              f"  ({ref} {target.replicas} -> 100 replicas; {wf.summary_lines(summary)[0]}"
              f"{'; error: ' + summary['error'] if summary.get('error') else ''})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=5000)
    parser.add_argument("--pods", type=int, default=50000)
    parser.add_argument("--no-whatif", action="store_true", help="leave out the what-if figures")
    parser.add_argument("--snapshot", help="a snapshot file (bench/gen_cluster.py --out FILE) instead of a "
                                           "cluster generated in this process (20,000 nodes: keep one under /tmp)")
    args = parser.parse_args()
    start = time.perf_counter()
    if args.snapshot:
        from karptui.sources import load_snapshot

        snapshot = load_snapshot(args.snapshot)
    else:
        snapshot = build_snapshot(gen_cluster.generate(args.nodes, args.pods, seed=1)["items"])
    print(f"cluster: {len(snapshot.nodes)} nodes, {len(snapshot.pods)} pods, "
          f"{len(snapshot.pending_pods)} pending (built in {time.perf_counter() - start:.1f} s)")
    from karptui.catalog import catalog_from_snapshot_region

    if not args.no_whatif:
        whatif(snapshot, catalog_from_snapshot_region(snapshot))
    asyncio.run(measure(snapshot))


if __name__ == "__main__":
    main()
