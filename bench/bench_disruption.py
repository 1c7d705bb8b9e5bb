#!/usr/bin/env python3
"""Keys while the Disruption pane's worker simulates consolidation on a big cluster.

    python bench/bench_disruption.py [--nodes 2000] [--pods 20000] [--max-wait 600]
    python bench/bench_disruption.py --snapshot FILE

Runs the app headless (Textual's test driver, 160x45) and, while the consolidation worker
computes, times keys as a user presses them: j (cursor), 4 / 1 (to the Disruption pane and
back), s (re-sort every node). Wall time per key, from press to the screen settled, is what
an operator feels; CPU time is not shown, since it counts the worker's thread too. Then it
waits (up to --max-wait seconds) for the answer and prints how long it took and what it says.
Prints figures only; asserts nothing.
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

import gen_cluster

from karptui.model import build_snapshot
from karptui.sources import load_snapshot
from karptui.tui.app import KarptuiApp
from karptui.tui.disruption import DisruptionPane

KEYS = (("j (cursor down)", ("j",), 30), ("4 / 1 (to Disruption and back)", ("4", "1"), 10),
        ("s (re-sort nodes)", ("s",), 5))


async def wall(pilot, *keys: str) -> float:
    start = time.perf_counter()
    await pilot.press(*keys)
    await pilot.pause()
    return time.perf_counter() - start


async def keys_timed(pilot, pane) -> None:
    for label, keys, repeat in KEYS:
        computing = pane.view is None
        times = [await wall(pilot, *keys) for _ in range(repeat)]
        print(f"{label:32} wall mean {statistics.mean(times) * 1000:7.1f} ms  worst {max(times) * 1000:7.1f} ms"
              f"  per key {statistics.mean(times) / len(keys) * 1000:6.1f} ms"
              f"  ({'while computing' if computing and pane.view is None else 'after the answer'})")


async def measure(snapshot, max_wait: float) -> None:
    app = KarptuiApp(snapshot)
    start = time.perf_counter()
    async with app.run_test(size=(160, 45)) as pilot:
        await pilot.pause()
        pane = app.screen.query_one(DisruptionPane)
        print(f"first paint                      {(time.perf_counter() - start) * 1000:8.0f} ms")
        await keys_timed(pilot, pane)
        print(f"pane status now: {pane.status}")
        deadline = time.perf_counter() + max_wait
        while pane.view is None and time.perf_counter() < deadline:
            await asyncio.sleep(0.5)
        took = time.perf_counter() - start
        if pane.view is None:
            print(f"no answer within {max_wait:.0f} s (still: {pane.status}); quitting cancels the worker")
        else:
            print(f"answer after                     {took:8.1f} s: {pane.view.summary}")
            print(f"nodes with a consolidation mark  {len(pane.marks):8d}")
            await pilot.pause()
            await keys_timed(pilot, pane)
        quit_start = time.perf_counter()
        await pilot.press("q")
    print(f"quit (worker cancelled)          {(time.perf_counter() - quit_start) * 1000:8.0f} ms")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--nodes", type=int, default=2000)
    parser.add_argument("--pods", type=int, default=20000)
    parser.add_argument("--snapshot", help="a snapshot file instead of a generated cluster")
    parser.add_argument("--max-wait", type=float, default=600.0, help="seconds to wait for the answer")
    args = parser.parse_args()
    if args.snapshot:
        snapshot = load_snapshot(args.snapshot)
    else:
        snapshot = build_snapshot(gen_cluster.generate(args.nodes, args.pods, seed=1)["items"])
    print(f"{len(snapshot.nodes)} nodes, {len(snapshot.pods)} pods, {len(snapshot.pending_pods)} pending")
    # as `karptui open` does before its screen starts (cli.tui): the loaded picture out of the
    # collector's passes; without it a full pass over every pod lands in some keys and not others
    from karptui.sources.collector import settle_for_simulation

    settle_for_simulation()
    asyncio.run(measure(snapshot, args.max_wait))


if __name__ == "__main__":
    main()
