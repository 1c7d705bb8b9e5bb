#!/usr/bin/env python3
"""The what-if panel as an operator drives it, on a big cluster: each step timed as they wait for it.

    python bench/bench_whatif.py --nodes 5000 --pods 50000
    python bench/bench_whatif.py SNAPSHOT                 # a snapshot file instead of a generated cluster

Runs the TUI headless (Textual's test driver, 160x45) and prints, without asserting anything:

  - yardstick: ``simulate()`` of the unedited cluster with the catalog, once, in this process: the
    work the panel's first run cannot avoid, so the figures below can be read against it on any
    machine;
  - panel open: ``w`` until the target list is on screen;
  - form: ``enter`` on the largest Deployment until its form is on screen;
  - first run: ``ctrl+r`` with no edit (the baseline simulated and kept);
  - +1 replica: ``+`` then ``ctrl+r``, until the results are drawn;
  - template change: the largest Deployment's CPU request changed in the form (a rollout of all
    its replicas), ``enter`` and ``ctrl+r``, until the results are drawn;
  - with each run, when the title first names a phase (sampled every 20 ms on the app's own loop:
    what the screen could show then);
  - cancel: ``escape`` 1 s into a run with consolidation; the time until the panel says cancelled.

Each figure is wall time from the key to the screen showing the answer (what the user waits for).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(1, str(HERE.parent))  # this checkout's karptui, not whichever one is installed

import gen_cluster  # noqa: E402  (a script beside this one)

from karptui.catalog import catalog_from_snapshot_region  # noqa: E402
from karptui.model import build_snapshot  # noqa: E402
from karptui.sim import simulate  # noqa: E402
from karptui.sources import load_snapshot  # noqa: E402
from karptui.sources.collector import settle_for_simulation  # noqa: E402
from karptui.tui.app import KarptuiApp  # noqa: E402


async def until(pilot, done, limit: float = 600.0) -> float:
    """Seconds until ``done()`` holds, checked every 10 ms of the app's loop."""
    start = time.perf_counter()
    while not done():
        if time.perf_counter() - start > limit:
            raise TimeoutError("gave up waiting")
        await pilot.pause(0.01)
    return time.perf_counter() - start


def title(screen) -> str:
    return str(screen.query_one("#results-title").render())


async def drive(snapshot, catalog) -> None:
    app = KarptuiApp(snapshot, catalog=catalog, simulate_on_start=False)
    deployments = [w for w in snapshot.workloads if w.kind == "Deployment" and w.raw is not None]
    target = max(deployments, key=lambda w: (w.replicas or 0, w.name))
    ref = f"Deployment/{target.namespace}/{target.name}"
    async with app.run_test(size=(160, 45)) as pilot:
        await pilot.pause()
        start = time.perf_counter()
        await pilot.press("w")
        await until(pilot, lambda: type(app.screen).__name__ == "WhatIfScreen" and app.screen.query("#targets"))
        screen = app.screen
        await pilot.pause()
        show("panel open (w)", time.perf_counter() - start)

        targets = screen.query_one("#targets")
        at = [r.ref for r in screen.rows].index(ref)
        if hasattr(targets, "highlighted"):
            targets.highlighted = at
        else:   # the list before it was an OptionList (to time an older commit)
            targets.index = at
        targets.focus()
        await pilot.pause()
        start = time.perf_counter()
        await pilot.press("enter")
        await until(pilot, lambda: ref in str(screen.query_one("#form-title").render())
                    and screen.query("#apply"))
        show("form (enter)", time.perf_counter() - start, f"{ref}, {target.replicas} replicas")

        async def run(label: str, *keys: str, note: str = "") -> None:
            before = screen.worker
            progress: list[float] = []

            def sample() -> None:   # on the app's own loop: what the screen would show then
                if not progress and "running… " in title(screen) and "(escape cancels)" in title(screen) \
                        and title(screen) != "Results — running… (escape cancels)":   # a phase named
                    progress.append(time.perf_counter() - start)

            sampler = screen.set_interval(0.02, sample)
            start = time.perf_counter()
            await pilot.press(*keys)

            def finished() -> bool:
                worker = screen.worker
                return worker is not None and worker is not before and worker.is_finished \
                    and "Results — what-if" in title(screen)

            await until(pilot, finished)
            took = time.perf_counter() - start   # the key's own handling included
            sampler.stop()
            lines = str(screen.query_one("#summary").render()).splitlines()
            first = f"; a phase named on screen after {progress[0]:.2f} s" if progress else ""
            show(label, took, f"{note}{first}; {lines[2] if len(lines) > 2 else ''}")

        await run("first run (ctrl+r)", "ctrl+r", note="no edit: the baseline simulated and kept")
        await run("+1 replica (+, r)", "plus", "r", note=f"{target.replicas} -> {(target.replicas or 0) + 1}")
        await pilot.press("u")   # undo the +1
        await pilot.pause()
        cpu = next((w for w in screen.query("Input") if w.id == "cpu-0"), None)
        if cpu is not None:
            cpu.value = "333m"
            cpu.focus()
            await pilot.pause()
            await run("template change (enter, ctrl+r)", "enter", "ctrl+r", note=f"cpu request of all {target.replicas} pods")
            screen.query_one("#targets").focus()   # u in a text field is a letter
            await pilot.pause()
            await pilot.press("u")
            await pilot.pause()

        screen.query_one("#targets").focus()
        await pilot.pause()
        await pilot.press("c")   # consolidation on, then cancel a second into the run
        await pilot.press("plus", "r")
        await pilot.pause(1.0)
        start = time.perf_counter()
        await pilot.press("escape")
        await until(pilot, lambda: screen.worker is not None and screen.worker.is_finished)
        took = time.perf_counter() - start
        show("cancel (escape)", took, f"then: {title(screen)}")
        await pilot.press("escape", "q")


def show(label: str, seconds: float, note: str = "") -> None:
    print(f"{label:28} {seconds:7.2f} s  {note}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("snapshot", nargs="?", help="a snapshot file (default: a generated cluster)")
    parser.add_argument("--nodes", type=int, default=5000)
    parser.add_argument("--pods", type=int, default=50000)
    args = parser.parse_args()
    start = time.perf_counter()
    if args.snapshot:
        snapshot = load_snapshot(args.snapshot)
    else:
        snapshot = build_snapshot(gen_cluster.generate(args.nodes, args.pods, seed=1)["items"])
    catalog = catalog_from_snapshot_region(snapshot)
    settle_for_simulation()   # as karptui open does before the TUI starts
    print(f"cluster: {len(snapshot.nodes)} nodes, {len(snapshot.pods)} pods, {len(snapshot.pending_pods)} pending "
          f"(built in {time.perf_counter() - start:.1f} s)", flush=True)
    start = time.perf_counter()
    simulate(snapshot, catalog=catalog)
    show("yardstick: simulate()", time.perf_counter() - start, "the unedited cluster, kube-scheduler and Karpenter")
    asyncio.run(drive(snapshot, catalog))


if __name__ == "__main__":
    main()
