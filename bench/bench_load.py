#!/usr/bin/env python3
"""Load time and peak memory of a large synthetic snapshot, in JSON and in YAML.

    python bench/bench_load.py [--nodes 5000] [--pods 50000] [--repeat 3] [--formats json,yaml]

Each load runs in a fresh interpreter so peak RSS is the load's own (the figure
printed is the process's peak minus the interpreter and imports measured first).
Prints figures; asserts nothing. The issue's target: JSON under 3 s on 2 cores.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import gen_cluster  # noqa: E402  (a script beside this one, not a package)

PROBE = r"""
import json, resource, sys, time
from karptui.sources import load_snapshot
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
start = time.perf_counter()
snap = load_snapshot(sys.argv[1])
elapsed = time.perf_counter() - start
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"seconds": elapsed, "peak_mib": peak / 1024, "load_mib": (peak - base) / 1024,
                  "nodes": len(snap.nodes), "pods": len(snap.pods), "pending": len(snap.pending_pods),
                  "warnings": len(snap.warnings)}))
"""


def measure(path: Path, repeat: int) -> dict:
    runs = []
    for _ in range(repeat):
        done = subprocess.run([sys.executable, "-c", PROBE, str(path)], capture_output=True, text=True, check=True)
        runs.append(json.loads(done.stdout))
    best = min(runs, key=lambda r: r["seconds"])
    best["median_seconds"] = sorted(r["seconds"] for r in runs)[len(runs) // 2]
    return best


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=5000)
    parser.add_argument("--pods", type=int, default=50000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--formats", default="json,yaml")
    args = parser.parse_args()
    start = time.perf_counter()
    doc = gen_cluster.generate(args.nodes, args.pods, seed=1)
    print(f"generated {len(doc['items'])} objects in {time.perf_counter() - start:.1f} s", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        for fmt in args.formats.split(","):
            path = Path(tmp) / f"cluster.{fmt}"
            with path.open("wb") as fh:
                (gen_cluster.write_json if fmt == "json" else gen_cluster.write_yaml)(doc, fh)
            size = path.stat().st_size / 2**20
            r = measure(path, args.repeat if fmt == "json" else 1)
            print(
                f"{fmt:5s} {size:7.1f} MiB  load {r['seconds']:6.2f} s (median {r['median_seconds']:.2f} s)  "
                f"peak RSS {r['peak_mib']:7.1f} MiB (+{r['load_mib']:.1f} MiB for the load)  "
                f"{r['nodes']} nodes, {r['pods']} pods, {r['pending']} pending, {r['warnings']} warnings",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
