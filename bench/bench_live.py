#!/usr/bin/env python3
"""Live mode on a big cluster: initial sync and steady-state watch, printed.

    python bench/bench_live.py [--nodes 5000] [--pods 50000] [--rate 200] [--seconds 15]

A local API server (tests/fakeapi.py) holding a generated cluster runs in a
child process (so its CPU and memory are not counted as ours); this process
connects through the real client with a generated kubeconfig and prints:
  - list and decode only (in a fresh process, so its memory is its own): every kind's pages
    fetched and decoded as the informers fetch them, nothing built, the decoded items kept;
    the yardstick for the initial sync (target: sync within 2x its time, 2x its memory);
  - initial sync: start until every kind is listed, and the peak RSS after it;
  - snapshot: the time to assemble one immutable Snapshot from the stores, as the
    TUI does at most every 2 s, and to build the screen's data from it (in the worker);
  - steady state: the server modifies pods at --rate events/s for --seconds; we
    print the rate received, how far behind the last event arrived, and the
    snapshot time under that churn. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from figures import figure

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))


def serve(nodes: int, pods: int) -> None:
    """The child: a fake API server with the generated cluster; commands on stdin."""
    import gen_cluster

    from tests.fakeapi import FakeAPI

    items = gen_cluster.generate(nodes, pods, seed=1)["items"]
    api = FakeAPI(history_size=200_000).start()
    for item in items:
        try:
            api.add(item)
        except KeyError:  # a kind the fake does not serve (RuntimeClass)
            pass
    path = api.kubeconfig(Path(tempfile.mkdtemp()) / "kubeconfig")
    print(f"ready {path}", flush=True)
    running = [i for i in items if i.get("kind") == "Pod" and (i.get("spec") or {}).get("nodeName")]
    for line in sys.stdin:
        words = line.split()
        if words[:1] == ["churn"]:
            rate, seconds = float(words[1]), float(words[2])
            sent, start = 0, time.monotonic()
            while time.monotonic() - start < seconds:
                pod = json.loads(json.dumps(running[sent % len(running)]))
                pod.setdefault("metadata", {}).setdefault("annotations", {})["bench/seq"] = str(sent)
                api.modify(pod)
                sent += 1
                ahead = sent / rate - (time.monotonic() - start)
                if ahead > 0:
                    time.sleep(ahead)
            print(f"sent {sent} {time.monotonic() - start:.2f}", flush=True)
        elif words[:1] == ["quit"]:
            break
    api.stop()


def decode_only(kubeconfig: str) -> None:
    """The child: every kind listed in pages and decoded, one thread per kind as the informers
    do, and nothing built; prints seconds and the memory the decoded items hold."""
    import gc

    from karptui.cluster.connect import connect
    from karptui.cluster.live import LiveCluster
    from karptui.cluster.resources import list_pages

    connection = connect(kubeconfig)
    informers = LiveCluster(connection).informers  # not started: only their listers are used
    kept: list = []
    before = rss_mib()
    gc.disable()  # as the informers list: the collector paused

    def read(informer) -> None:
        for listing in list_pages(informer.lister, informer.page, (5, 90)):
            kept.extend(listing.get("items") or ())

    start, cpu = time.perf_counter(), time.process_time()
    threads = [threading.Thread(target=read, args=(i,)) for i in informers]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    took, cpu = time.perf_counter() - start, time.process_time() - cpu
    print(json.dumps({"seconds": took, "cpu": cpu, "objects": len(kept), "mib": rss_mib() - before}), flush=True)


def rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=5000)
    parser.add_argument("--pods", type=int, default=50000)
    parser.add_argument("--rate", type=float, default=200)
    parser.add_argument("--seconds", type=float, default=15)
    parser.add_argument("--sync-timeout", type=float, default=3600,
                        help="seconds the initial sync may take (default 3600); past it, it is reported incomplete")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--decode-only", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.nodes, args.pods)
        return
    if args.decode_only:
        decode_only(args.decode_only)
        return
    child = subprocess.Popen([sys.executable, __file__, "--serve", "--nodes", str(args.nodes), "--pods",
                              str(args.pods)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    start = time.perf_counter()
    ready = child.stdout.readline().split()
    print(f"server ready with {args.nodes} nodes / {args.pods} pods after {time.perf_counter() - start:.1f} s "
          "(not ours: generating and storing the cluster)")
    from karptui.cluster.connect import connect
    from karptui.cluster.live import LiveCluster

    try:
        done = subprocess.run([sys.executable, __file__, "--decode-only", ready[1]], capture_output=True, text=True,
                              check=True)
        base = json.loads(done.stdout)
        print(f"list and decode only   {figure('list and decode only', base['seconds'], 's'):7.1f} s   "
              f"({figure('list and decode only CPU', base['cpu'], 's'):.1f} s CPU; {base['objects']} objects; "
              f"they hold {figure('decoded objects', base['mib'], 'MiB'):.0f} MiB)")
        baseline = rss_mib()
        connection = connect(ready[1])
        live = LiveCluster(connection)
        start, cpu = time.perf_counter(), time.process_time()
        live.start()
        synced = live.wait_synced(args.sync_timeout)
        took, cpu = time.perf_counter() - start, time.process_time() - cpu
        figure("sync complete", 1.0 if synced else 0.0, "flag")
        objects = sum(len(i.objects) for i in live.informers)
        held = rss_mib() - baseline
        print(f"initial sync           {figure('initial sync', took, 's'):7.1f} s   "
              f"({figure('initial sync CPU', cpu, 's'):.1f} s CPU; {objects} objects"
              f"{'' if synced else ', NOT complete'}; peak RSS {rss_mib():.0f} MiB, {baseline:.0f} MiB before "
              f"connecting: {figure('sync memory', held, 'MiB'):.0f} MiB for the sync)")
        cpu_ratio = cpu / max(base["cpu"], 1e-9)
        print(f"  sync / list+decode   {took / base['seconds']:7.2f} x time ({cpu_ratio:.2f} x CPU), "
              f"{held / max(base['mib'], 1):.2f} x memory (targets: at most 2 x each)")
        start = time.perf_counter()
        snapshot = live.snapshot()
        assembly = figure("snapshot assembly", (time.perf_counter() - start) * 1000, "ms")
        print(f"snapshot assembly      {assembly:7.0f} ms ({len(snapshot.nodes)} nodes, "
              f"{len(snapshot.pods)} pods)")
        from karptui.catalog import catalog_from_snapshot_region
        from karptui.views.overview import overview

        catalog = catalog_from_snapshot_region(snapshot)
        start = time.perf_counter()
        overview(snapshot, catalog, [], snapshot.meta.captured_at, live=True, format_cells=True)
        print(f"screen data (worker)   {(time.perf_counter() - start) * 1000:7.0f} ms (rows, cells, header: "
              "built off the UI thread per update)")

        received = lambda: sum(i.counts["events"] for i in live.informers)  # noqa: E731
        before = received()
        timings: list[float] = []
        done = threading.Event()

        def snapshots() -> None:  # what the TUI does during churn: a snapshot every 2 s
            while not done.wait(2.0):
                t = time.perf_counter()
                live.snapshot()
                timings.append(time.perf_counter() - t)

        thread = threading.Thread(target=snapshots, daemon=True)
        thread.start()
        child.stdin.write(f"churn {args.rate} {args.seconds}\n")
        child.stdin.flush()
        words = child.stdout.readline().split()
        sent, sent_in = int(words[1]), float(words[2])
        finished = time.perf_counter()
        while received() - before < sent and time.perf_counter() - finished < 30:
            time.sleep(0.01)
        behind = time.perf_counter() - finished
        done.set()
        got = received() - before
        print(f"steady state           {got}/{sent} events in {sent_in:.1f} s ({sent / sent_in:.0f}/s sent); "
              f"last one {behind * 1000:.0f} ms after it was sent; snapshot under churn "
              f"{max(timings, default=0) * 1000:.0f} ms worst of {len(timings)}; peak RSS {rss_mib():.0f} MiB")
        live.stop()
    finally:
        child.stdin.write("quit\n")
        child.stdin.close()
        child.wait(30)


if __name__ == "__main__":
    main()
