#!/usr/bin/env python3
"""TUI responsiveness on a big cluster: the figures an operator feels.

    python bench/bench_tui.py [--nodes 5000] [--pods 50000] [--no-whatif]
    python bench/bench_tui.py --snapshot FILE [--no-whatif]
    python bench/bench_tui.py --whole FILE [--repeat 2]

Runs the app headless (Textual's test driver, a 160x45 terminal) on a generated cluster
(or a snapshot file: at 20,000 nodes keep one under /tmp, bench/gen_cluster.py --out) and
prints, without asserting anything:
  - first paint: app start until the main screen's tables are filled;
  - simulation: start until the background simulation has answered every pending pod;
  - what-if: the panel's run after scaling the largest Deployment to 100 replicas, with and
    without the instance catalog: the baseline (simulated once, on the first run) and each run;
  - key latency: CPU time (the work a key causes; per sequence and per key) and wall time
    (which also counts the test driver's idle waits) for j and k (cursor), 2/1 (switch pane and
    back), each pane 1-5 in turn, s (re-sort all nodes), a filter typed, applied and cleared
    (5 keys), enter on a zone (unfold it, and again to fold), enter on a node (its drill-in) and
    escape; the worst key of all, and this process's peak RSS.  Set TEXTUAL_ANIMATIONS=none to
    leave out the tab underline animation.

``--whole FILE`` times the TUI as a user starts it: ``karptui open FILE`` in a pseudo-terminal
(160x45), from launch until the screen shows a zone row, beside ``karptui snapshot info FILE``
run in the same round (alternated, ``--repeat`` rounds): wall and CPU seconds of each process and
their ratio (issue 28's first paint ≤ 1.2× the open), and the TUI process's peak RSS (VmHWM)
when its first screen is up (its forked simulations share its pages and are not counted).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
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
    from figures import figure, peak_mib

    app = KarptuiApp(snapshot)
    start, cpu = time.perf_counter(), time.process_time()
    async with app.run_test(size=(160, 45)) as pilot:
        await pilot.pause()
        painted, cpu = time.perf_counter() - start, time.process_time() - cpu
        print(f"first paint            {painted * 1000:8.0f} ms (cpu {cpu * 1000:.0f} ms)", flush=True)
        figure("first paint (in process) cpu", cpu, "s")
        while app.result is None:  # the start-up simulation (the Disruption pane's consolidation goes on)
            await pilot.pause(0.05)
        simulated = time.perf_counter() - start
        print(f"simulation answered    {simulated * 1000:8.0f} ms  ({len(app.attempts)} pending pods; the keys below "
              "are pressed while the Disruption pane's consolidation still computes in its child process)", flush=True)
        worst = worst_first = 0.0
        worst_first_key = ""
        for label, keys, repeat in KEYS:
            unfolded = False
            if label.startswith("enter on a node"):  # onto the first node of the first zone, unfolded
                await pilot.press("g")
                await pilot.pause()
                table = app.screen.query_one("#nodes-table")
                unfolded = table.cursor_key.removeprefix("zone:") in app.screen.folded  # a big cluster's: folded
                await pilot.press(*(("enter", "j") if unfolded else ("j",)))
                await pilot.pause()
                assert table.cursor_key.startswith("node:"), table.cursor_key
            # The sequence's first pass key by key: each key's first use in the session (what it builds
            # the first time, later uses reuse); then the sequence again and again, its mean and worst.
            first = [(key, (await timed(pilot, key))[1]) for key in keys]
            walls, cpus = zip(*[await timed(pilot, *keys) for _ in range(repeat - 1)])
            if unfolded:
                await pilot.press("k", "enter")  # the zone folded again, as the session started
                await pilot.pause()
            per_key = statistics.mean(cpus) / len(keys)
            worst = max(worst, max(cpus) / len(keys))
            first_key, first_cpu = max(first, key=lambda kc: kc[1])
            if first_cpu > worst_first:
                worst_first, worst_first_key = first_cpu, f"{first_key} in {label}"
            print(f"{label:22} cpu mean {statistics.mean(cpus) * 1000:7.1f} ms worst {max(cpus) * 1000:7.1f} ms"
                  f" ({per_key * 1000:5.1f} ms a key)   wall mean {statistics.mean(walls) * 1000:7.1f} ms"
                  f"   first use {first_cpu * 1000:6.1f} ms ({first_key})", flush=True)
            figure(f"key cpu: {label}", per_key, "s")
            figure(f"first use cpu: {label}", first_cpu, "s")
        print(f"worst key (cpu)        {worst * 1000:7.1f} ms   first use {worst_first * 1000:7.1f} ms"
              f" ({worst_first_key})   peak RSS {peak_mib():.0f} MiB", flush=True)
        figure("worst key cpu", worst, "s")
        figure("worst first use cpu", worst_first, "s")
        await pilot.press("q")


# (label, keys pressed as one sequence, passes); the first pass is timed key by key (each key's first use),
# the others as one sequence whose CPU is divided among its keys
KEYS = (
    ("j (cursor down)", ("j",), 50),
    ("k (cursor up)", ("k",), 20),
    ("2 / 1 (switch pane)", ("2", "1"), 10),
    ("1-5 (every pane)", ("2", "3", "4", "5", "1"), 4),
    ("s (re-sort nodes)", ("s",), 10),
    ("/ filter + enter", ("slash", "2", "a", "enter", "escape"), 4),
    ("enter on a zone", ("g", "enter"), 4),   # home, then unfold (and fold again) the first zone: an even count
    ("enter on a node", ("enter", "escape"), 4),  # its drill-in, and back
)


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


def whole(path: str, repeat: int, size: tuple[int, int] = (160, 45), timeout: float = 3600.0) -> None:
    """``karptui open`` from launch to a zone row on screen, beside ``karptui snapshot info``."""
    from bench_commands import ROOT, karptui, run_child
    from figures import figure

    paints, infos = [], []
    for round_ in range(repeat):
        info, _ = run_child(karptui("snapshot", "info", path), ROOT, timeout)
        infos.append(info)
        paint = open_until_zones(path, size, timeout)
        paints.append(paint)
        print(f"round {round_ + 1}: snapshot info {info.seconds:6.1f} s (cpu {info.cpu:6.1f} s, peak {info.peak_mib:5.0f}"
              f" MiB);  open to zone rows {paint['seconds']:6.1f} s (cpu {paint['cpu']:6.1f} s);  TUI peak "
              f"{paint['peak_mib']:5.0f} MiB;  load {os.getloadavg()[0]:.1f}", flush=True)
    best_info = min(infos, key=lambda r: r.cpu)
    best_paint = min(paints, key=lambda r: r["cpu"])
    print(f"first paint ÷ snapshot info: cpu {best_paint['cpu'] / best_info.cpu:.2f}×, "
          f"wall {min(p['seconds'] for p in paints) / min(r.seconds for r in infos):.2f}× (best of {repeat})")
    figure("first paint whole cpu", best_paint["cpu"], "s")
    figure("snapshot info whole cpu", best_info.cpu, "s")
    figure("first paint / snapshot info (cpu)", best_paint["cpu"] / best_info.cpu, "x")
    figure("TUI peak RSS", max(p["peak_mib"] for p in paints), "MiB")


ZONE_ROW = re.compile("[▶▼] [a-z]{2}(?:-[a-z]+)+-[0-9][a-z]")  # a zone's row: its fold mark and its name


def open_until_zones(path: str, size: tuple[int, int], timeout: float) -> dict:
    """Run ``karptui open PATH`` in a pseudo-terminal of ``size`` until a zone row is drawn; then
    ``q``. Seconds and CPU (user + system, from /proc) at that moment, the process's peak RSS."""
    import fcntl
    import pty
    import select
    import struct
    import termios

    from bench_commands import ROOT

    env = dict(os.environ, TERM="xterm-256color", COLUMNS=str(size[0]), LINES=str(size[1]))
    env.pop("PYTHONPATH", None)
    start = time.perf_counter()
    pid, fd = pty.fork()
    if pid == 0:  # the child: this tree's karptui, as a user runs it
        os.chdir(ROOT)
        os.execve(sys.executable, [sys.executable, "-m", "karptui", "open", path], env)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", size[1], size[0], 0, 0))
    seen, seconds, cpu = b"", None, None
    deadline = start + timeout
    while seconds is None and time.perf_counter() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.05)
        if not ready:
            continue
        try:
            chunk = os.read(fd, 1 << 16)
        except OSError:
            break
        seen = (seen + chunk)[-(1 << 16):]
        if ZONE_ROW.search(seen.decode("utf-8", "replace")):
            seconds, cpu = time.perf_counter() - start, _cpu_seconds(pid)
    peak = _peak_mib(pid)
    os.write(fd, b"q")
    reaped = False
    while not reaped:  # drain the terminal until it exits (the screen given back)
        ready, _, _ = select.select([fd], [], [], 0.2)
        if ready:
            try:
                os.read(fd, 1 << 16)
            except OSError:  # the other side closed: it has exited
                pass
        reaped = os.waitpid(pid, os.WNOHANG)[0] != 0
    os.close(fd)
    if seconds is None:
        raise SystemExit(f"bench_tui.py: no zone row on screen within {timeout:.0f} s")
    return {"seconds": seconds, "cpu": cpu, "peak_mib": peak}


def _cpu_seconds(pid: int) -> float:
    """User + system seconds of ``pid`` so far (its own threads; not its forked children)."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _peak_mib(pid: int) -> float:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=5000)
    parser.add_argument("--pods", type=int, default=50000)
    parser.add_argument("--no-whatif", action="store_true", help="leave out the what-if figures")
    parser.add_argument("--snapshot", help="a snapshot file (bench/gen_cluster.py --out FILE) instead of a "
                                           "cluster generated in this process (20,000 nodes: keep one under /tmp)")
    parser.add_argument("--whole", metavar="FILE", help="time `karptui open FILE` to its first zone row against "
                                                          "`karptui snapshot info FILE`, whole processes")
    parser.add_argument("--repeat", type=int, default=2, help="rounds of --whole (alternated)")
    args = parser.parse_args()
    if args.whole:
        whole(args.whole, args.repeat)
        return
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
    # as `karptui open` does before its screen starts (cli.tui): the loaded picture out of the
    # collector's passes; without it a full pass over every pod lands in some keys and not others
    from karptui.sources.collector import settle_for_simulation

    settle_for_simulation()
    asyncio.run(measure(snapshot))


if __name__ == "__main__":
    main()
