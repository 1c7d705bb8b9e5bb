#!/usr/bin/env python3
"""Simulator throughput: the figures interactive what-if depends on.

    python bench/bench_sim.py [--nodes 5000] [--existing 30000] [--pending 10000]

Scenarios (each printed as pods/s, wall time and peak RSS; nothing asserted):
  1. schedule N pending pods (zone + hostname spread, anti-affinity, plain mix) onto the cluster;
  2. re-simulate one 20- and one 100-replica workload from scratch on a 1,000-node cluster,
     as a what-if does.
"""

from __future__ import annotations

import argparse
import copy
import resource
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import gen_cluster  # noqa: E402  (a script beside this one)

from karptui.model import build_snapshot  # noqa: E402
from karptui.sim import simulate  # noqa: E402

KINDS = ("zone-spread", "host-spread", "anti-affinity", "plain")


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


def measure(label: str, snapshot) -> None:
    start = time.perf_counter()
    result = simulate(snapshot)
    elapsed = time.perf_counter() - start
    attempts = len(result.attempts)
    print(f"{label:58s} {attempts:6d} pods in {elapsed:7.3f} s = {attempts / elapsed:8.0f} pods/s  "
          f"({result.scheduled} scheduled, {result.pending} pending)  peak RSS {peak_mib():.0f} MiB", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=5000)
    parser.add_argument("--existing", type=int, default=30000)
    parser.add_argument("--pending", type=int, default=10000)
    args = parser.parse_args()
    big = build_snapshot(cluster(args.nodes, args.existing, args.pending, apps=40))
    measure(f"{args.pending} pending onto {args.nodes} nodes (mixed constraints)", big)
    for replicas in (20, 100):
        small = build_snapshot(cluster(1000, 6000, replicas, apps=1))
        measure(f"re-simulate one {replicas}-replica workload on 1000 nodes", small)
    return 0


if __name__ == "__main__":
    sys.exit(main())
