#!/usr/bin/env python3
"""Simulator throughput: the figures interactive what-if depends on.

    python bench/bench_sim.py [--nodes 5000] [--existing 40000] [--pending 5000] [--plain] [--repeat N]
    python bench/bench_sim.py --growth [--plain] [--repeat 3]

Scenarios (each printed as pods/s, wall and CPU time and peak RSS; nothing asserted):
  1. schedule N pending pods (zone + hostname spread, anti-affinity, plain mix) onto the cluster,
     the snapshot already open (the issue's target: 5,000 nodes / 40,000 running / 5,000 pending);
  2. re-simulate one 20- and one 100-replica workload from scratch on a 1,000-node cluster,
     as a what-if does.
``--plain`` also runs scenario 1 with equivalence classes off (every plugin afresh for every pod),
for comparison. ``--growth`` runs scenario 1 at 1k, 5k and 20k nodes (pods x10 each step down the
same ratios), each in a process of its own so its peak RSS is its own, to show how cost grows.
CPU time (time.process_time) is printed beside wall time: the machine may be shared.
``--growth`` ends with how the simulation's CPU time grew from 5k to 20k nodes, beside the 4.0
that linear growth predicts.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(1, str(HERE.parent))  # this checkout's karptui, not whichever one is installed

import gen_cluster  # noqa: E402  (a script beside this one)
from figures import figure  # noqa: E402

from karptui.model import build_snapshot  # noqa: E402
from karptui.sim import simulate  # noqa: E402
from karptui.sources.collector import settle_for_simulation  # noqa: E402

KINDS = ("zone-spread", "host-spread", "anti-affinity", "plain")
SCENARIO_1 = "schedule pending pods"  # its figures' name (see measure)


def pending_pod(i: int, kind: str, app: str) -> dict:
    labels = {"app": app}
    spec: dict = {"containers": [{"name": "app", "image": "app:1",
                                  "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}}}]}
    term = {"labelSelector": {"matchLabels": labels}}
    if kind == "zone-spread":
        spec["topologySpreadConstraints"] = [{**term, "maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone",
                                              "whenUnsatisfiable": "DoNotSchedule"}]
    elif kind == "host-spread":
        spec["topologySpreadConstraints"] = [{**term, "maxSkew": 2, "topologyKey": "kubernetes.io/hostname",
                                              "whenUnsatisfiable": "DoNotSchedule"},
                                             {**term, "maxSkew": 3, "topologyKey": "topology.kubernetes.io/zone",
                                              "whenUnsatisfiable": "ScheduleAnyway"}]
    elif kind == "anti-affinity":
        spec["affinity"] = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
            {**term, "topologyKey": "kubernetes.io/hostname"}]}}
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": f"{app}-{i:05d}", "namespace": "bench", "labels": labels,
                         "creationTimestamp": "2025-02-01T12:00:00Z"},
            "spec": spec, "status": {"phase": "Pending"}}


def cluster(nodes: int, existing: int, pending: int, apps: int) -> list:
    doc = gen_cluster.generate(nodes, existing, seed=1, pending_fraction=0.0)
    items = [copy.deepcopy(i) for i in doc["items"]]
    for i in range(pending):
        kind = KINDS[i % len(KINDS)]
        items.append(pending_pod(i, kind, f"{kind}-{i % apps}"))
    return items


def peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def measure(label: str, name: str, snapshot, repeat: int = 1, **options) -> None:
    """``repeat`` runs (each from the snapshot, as a fresh simulation), the fastest one printed with
    the slowest beside it: on a shared machine one run's time moves by a fifth either way. ``name``
    names its figures for bench/growth.py: the same at every size, where ``label`` gives the sizes."""
    settle_for_simulation()  # as `karptui simulate` does once its snapshot is open
    runs = []
    for _ in range(repeat):
        start, cpu = time.perf_counter(), time.process_time()
        result = simulate(snapshot, **options)
        runs.append((time.perf_counter() - start, time.process_time() - cpu))
    (elapsed, cpu), slowest = min(runs), max(runs)[0]
    attempts = len(result.attempts)
    figure(f"{name} pods/s", attempts / elapsed, "pods/s")
    figure(f"{name} CPU", cpu, "s")
    spread = f", slowest of {repeat} {slowest:.3f} s" if repeat > 1 else ""
    print(f"{label:58s} {attempts:6d} pods in {elapsed:7.3f} s = {attempts / elapsed:8.0f} pods/s "
          f"(CPU {cpu:7.3f} s = {attempts / cpu:6.0f} pods/s{spread})  "
          f"({result.scheduled} scheduled, {result.pending} pending)  peak RSS {peak_mib():.0f} MiB", flush=True)


def growth(plain: bool, repeat: int) -> int:
    """Scenario 1 at 1k, 5k and 20k nodes (8 running and 1 pending pod per node), a process each;
    then how the simulation's CPU time grew from 5k to 20k nodes."""
    sizes, kept = (1000, 5000, 20000), {}
    with tempfile.TemporaryDirectory() as tmp:
        for nodes in sizes:
            figures = Path(tmp) / f"{nodes}.jsonl"
            command = [sys.executable, __file__, "--nodes", str(nodes), "--existing", str(8 * nodes),
                       "--pending", str(nodes), "--only-big", "--repeat", str(repeat)] + (["--plain"] if plain else [])
            if subprocess.run(command, check=False, env={**os.environ, "KARPTUI_BENCH_FIGURES": str(figures)}).returncode:
                return 1
            lines = [json.loads(line) for line in figures.read_text().splitlines() if line]
            kept[nodes] = next(f["value"] for f in lines if f["name"] == f"{SCENARIO_1} CPU")
    small, large = sizes[-2], sizes[-1]
    print(f"simulation CPU grew {kept[large] / kept[small]:.2f}x from {small} to {large} nodes "
          f"(linear: {large / small:.2f}x)")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=5000)
    parser.add_argument("--existing", type=int, default=40000)
    parser.add_argument("--pending", type=int, default=5000)
    parser.add_argument("--plain", action="store_true", help="also run with equivalence classes off")
    parser.add_argument("--growth", action="store_true", help="scenario 1 at 1k, 5k and 20k nodes")
    parser.add_argument("--repeat", type=int, default=None,
                        help="runs of scenario 1, the fastest printed (default 1; 3 with --growth)")
    parser.add_argument("--only-big", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.growth:
        return growth(args.plain, args.repeat or 3)
    big = build_snapshot(cluster(args.nodes, args.existing, args.pending, apps=40))
    label = f"{args.pending} pending onto {args.nodes} nodes, {args.existing} running"
    measure(label, SCENARIO_1, big, args.repeat or 1)
    if args.plain:
        measure(label + " (plain)", SCENARIO_1 + " (plain)", big, args.repeat or 1, equivalence=False)
    if args.only_big:
        return 0
    for replicas in (20, 100):
        small = build_snapshot(cluster(1000, 6000, replicas, apps=1))
        measure(f"re-simulate one {replicas}-replica workload on 1000 nodes", f"re-simulate {replicas} replicas", small)
    return 0


if __name__ == "__main__":
    sys.exit(main())
