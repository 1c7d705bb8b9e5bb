#!/usr/bin/env python3
"""Karpenter simulation figures: provisioning throughput and consolidation time.

    python bench/bench_karpenter.py [--pending 2000] [--nodes 1000,2000,5000] [--max-commands 200] [--growth]

1. provisioning: N pending pods (mixed sizes, zone spread, anti-affinity) on an empty
   cluster with 3 NodePools against the full bundled catalog (1,363 instance types);
2. consolidation: the plan on synthetic 1,000/2,000/5,000-node clusters (pods x10, about half
   utilised): the first decision's time (as the Disruption pane shows it) and the whole plan's.
Prints pods/s, seconds (wall and CPU: the machine may be shared) and peak RSS; asserts nothing.
``--growth``: provisioning only, at 500 / 2,000 / 8,000 pending pods (the pending share of a 1k /
5k / 20k-node cluster), the catalog's arrays built once first and timed apart, so how the cost
per pod grows with the queue is visible.
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
sys.path.insert(1, str(HERE.parent))  # this checkout's karptui, not whichever one is installed

import gen_cluster  # noqa: E402

from karptui.catalog import bundled_catalog  # noqa: E402
from karptui.model import build_snapshot  # noqa: E402
from karptui.sim import simulate  # noqa: E402
from karptui.sim.karpenter.disruption import MAX_COMMANDS, Disruptor  # noqa: E402
from karptui.sim.karpenter.instancetypes import type_set  # noqa: E402
from karptui.sim.state import ClusterState  # noqa: E402
from karptui.sources.collector import settle_for_simulation  # noqa: E402

ZONES = ("us-east-1a", "us-east-1b", "us-east-1c")


def nodepool(name: str, weight: int, requirements: list, taints=()) -> dict:
    return {"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": name},
            "spec": {"weight": weight, "limits": {"cpu": "100000"},
                     "template": {"spec": {"requirements": requirements, "taints": list(taints),
                                           "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass",
                                                            "name": "default"}}}}}


def req(key, op, *values):
    return {"key": key, "operator": op, "values": list(values)}


def pending(i: int) -> dict:
    app = f"app-{i % 25}"
    spec: dict = {"containers": [{"name": "c", "resources": {"requests": {
        "cpu": ("250m", "500m", "1", "2")[i % 4], "memory": ("256Mi", "1Gi", "2Gi", "4Gi")[i % 4]}}}]}
    if i % 5 == 0:
        spec["topologySpreadConstraints"] = [{"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone",
                                              "whenUnsatisfiable": "DoNotSchedule",
                                              "labelSelector": {"matchLabels": {"app": app}}}]
    if i % 7 == 0:
        spec["nodeSelector"] = {"kubernetes.io/arch": "arm64"}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"p-{i:05d}", "namespace": "bench",
                                                             "labels": {"app": app},
                                                             "creationTimestamp": "2025-02-01T12:00:00Z"},
            "spec": spec, "status": {"phase": "Pending"}}


def provisioning(count: int) -> float:
    pools = [
        nodepool("general", 10, [req("karpenter.sh/capacity-type", "In", "spot", "on-demand"),
                                 req("kubernetes.io/arch", "In", "amd64", "arm64")]),
        nodepool("compute", 5, [req("karpenter.k8s.aws/instance-category", "In", "c"),
                                req("karpenter.sh/capacity-type", "In", "on-demand")]),
        nodepool("gpu", 1, [req("karpenter.k8s.aws/instance-category", "In", "g", "p")],
                 taints=[{"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}]),
    ]
    snapshot = build_snapshot(pools + [pending(i) for i in range(count)])
    catalog = bundled_catalog("us-east-1", ZONES)
    settle_for_simulation()  # as `karptui simulate` does once its snapshot is open
    start, cpu = time.perf_counter(), time.process_time()
    result = simulate(snapshot, catalog=catalog)
    elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
    print(f"provisioning {count} pending pods, 3 NodePools, {len(catalog)} instance types: {elapsed:.2f} s = "
          f"{count / elapsed:.0f} pods/s (CPU {cpu:.2f} s = {count / cpu:.0f} pods/s; "
          f"{len(result.nodeclaims)} nodeclaims, {result.pending} pending), "
          f"peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB", flush=True)
    return cpu


def growth() -> None:
    """Provisioning at three queue lengths, with the catalog's arrays (built once per catalog) apart."""
    catalog = bundled_catalog("us-east-1", ZONES)
    start = time.process_time()
    type_set(catalog)
    print(f"catalog arrays (once per catalog): CPU {time.process_time() - start:.2f} s", flush=True)
    per_pod = []
    for count in (500, 2000, 8000):
        per_pod.append(provisioning(count) / count)
    print("CPU per pod, relative to 500 pending: " + ", ".join(f"{p / per_pod[0]:.2f}x" for p in per_pod), flush=True)


def consolidation(nodes: int, max_commands: int = MAX_COMMANDS) -> None:
    """Karpenter's plan on a generated cluster (pods x10, about half utilised), computed command by
    command: when the first decision was told (Disruptor's ``found``), when the whole plan was."""
    doc = gen_cluster.generate(nodes, nodes * 10, seed=2, pending_fraction=0.0)
    snapshot = build_snapshot([copy.deepcopy(i) for i in doc["items"]])
    catalog = bundled_catalog("us-east-1", ZONES)
    told: list[tuple[float, float]] = []

    def found(_command) -> None:
        told.append((time.perf_counter() - start, time.process_time() - cpu))

    disruptor = Disruptor(snapshot, catalog, max_commands=max_commands, found=found)
    state = ClusterState(snapshot)
    del doc
    settle_for_simulation()  # as `karptui simulate` and the screen's forked child do before simulating
    start, cpu = time.perf_counter(), time.process_time()
    commands, blocked = disruptor.run(state)
    elapsed, used = time.perf_counter() - start, time.process_time() - cpu
    first = f"{told[0][0]:.2f} s (cpu {told[0][1]:.2f} s)" if told else "none"
    print(f"consolidation over {nodes} nodes ({len(snapshot.pods)} pods): first decision {first}, "
          f"whole plan {elapsed:.2f} s (cpu {used:.2f} s), {len(commands)} command(s), {len(blocked)} blocked, "
          f"{disruptor.simulations_run} simulations, "
          f"peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB", flush=True)
    for note in disruptor.timeouts:
        print(f"  bound met: {note}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pending", type=int, default=2000)
    parser.add_argument("--nodes", default="1000,2000,5000",
                        help="consolidation cluster sizes, comma-separated (pods x10 each)")
    parser.add_argument("--max-commands", type=int, default=MAX_COMMANDS, help="stop each plan after this many")
    parser.add_argument("--skip-provisioning", action="store_true")
    parser.add_argument("--growth", action="store_true", help="provisioning only, at 500, 2000 and 8000 pending")
    args = parser.parse_args()
    if args.growth:
        growth()
        return 0
    if not args.skip_provisioning:
        provisioning(args.pending)
    for nodes in (int(n) for n in args.nodes.split(",")):
        consolidation(nodes, args.max_commands)
    return 0


if __name__ == "__main__":
    sys.exit(main())
