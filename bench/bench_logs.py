#!/usr/bin/env python3
"""Log parsing throughput on a generated Karpenter log (mixed eras and wrappings).

    python bench/bench_logs.py [--megabytes 1024]

Writes the log to a temporary file, parses it in one pass in a fresh process
(one core), and prints MB/s, lines/s and peak RSS. Asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time

from figures import figure

V1 = [
    {"level": "INFO", "logger": "controller", "message": "found provisionable pod(s)", "controller": "provisioner",
     "Pods": "default/web-6d4cf56db6-x2k9p, default/web-6d4cf56db6-8zq4n and 12 other(s)", "duration": "41.2ms"},
    {"level": "INFO", "logger": "controller", "message": "computed new nodeclaim(s) to fit pod(s)",
     "controller": "provisioner", "nodeclaims": 2, "pods": 14},
    {"level": "INFO", "logger": "controller", "message": "created nodeclaim", "controller": "provisioner",
     "NodePool": {"name": "default"}, "NodeClaim": {"name": "default-x7k2p"},
     "requests": {"cpu": "3150m", "memory": "6Gi", "pods": "9"},
     "instance-types": "c5.xlarge, c5a.xlarge, c6a.xlarge, c6i.xlarge, m5.xlarge and 37 other(s)"},
    {"level": "ERROR", "logger": "controller", "message": "could not schedule pod", "controller": "provisioner",
     "Pod": {"name": "train-6d4cf56db6-q7k2m", "namespace": "ml"},
     "error": 'incompatible with nodepool "gpu", daemonset overhead={"cpu":"180m","memory":"120Mi","pods":"3"}, '
              'no instance type satisfied resources {"cpu":"4180m","memory":"16504Mi","nvidia.com/gpu":"1","pods":"4"} '
              'and requirements karpenter.sh/capacity-type In [on-demand], karpenter.sh/nodepool In [gpu] '
              '(no instance type met the scheduling requirements or had enough resources); '
              'incompatible with nodepool "default", daemonset overhead={"cpu":"180m","pods":"3"}, '
              'did not tolerate nvidia.com/gpu=true:NoSchedule'},
    {"level": "INFO", "logger": "controller", "message": "disrupting nodeclaim(s) via replace, terminating 1 nodes "
     "(2 pods) ip-10-0-3-9.ec2.internal/m5.2xlarge/on-demand and replacing with spot node from types m5.xlarge, "
     "m5a.xlarge, m6i.xlarge and 31 other(s)", "controller": "disruption", "command-id": "b1f0", "reason": "underutilized"},
    {"level": "DEBUG", "logger": "controller", "message": "discovered subnets", "controller": "nodeclass"},
]
CONSOLE = [
    "\tINFO\tcontroller.provisioner\tfound provisionable pod(s)\t{\"commit\": \"d7e22b1\", \"pods\": 6}",
    "\tERROR\tcontroller.provisioner\tCould not schedule pod, incompatible with provisioner \"default\", no instance "
    "type satisfied resources {\"cpu\":\"1\",\"memory\":\"256M\",\"pods\":\"1\"} and requirements "
    "karpenter.k8s.aws/instance-category In [c m t], topology.kubernetes.io/zone In [ap-northeast-2a]\t"
    "{\"commit\": \"d7e22b1\", \"pod\": \"default/host-spread-fbbf7c9d9-x4lfd\"}",
    "\tDEBUG\tcontroller.provisioner\tdiscovered subnets\t{\"commit\": \"d7e22b1\"}",
]


_SUFFIX = re.compile(r"(?<=-)[a-z0-9]{5}\b")   # pod, NodeClaim and command names
_IP = re.compile(r"ip-10-0-\d+-\d+")
_CPU = re.compile(r'(?<="cpu":")\d+m')


def varied(line: str, rng: random.Random) -> str:
    """Each line with its own identifiers, as a real log has them: pod and NodeClaim suffixes
    and node IPs differ on every line, and a scheduling error's requests come from one of
    40 workloads (Karpenter repeats one workload's error for each of its pods, not one error
    for the whole cluster)."""
    line = _SUFFIX.sub(lambda m: "".join(rng.choices("bcdfghjklmnpqrstvwxz2456789", k=5)), line)
    line = _IP.sub(lambda m: f"ip-10-0-{rng.randrange(256)}-{rng.randrange(256)}", line)
    workload = rng.randrange(40)
    return _CPU.sub(lambda m: f"{100 * (workload + 1)}m", line)


def varied_doc(doc: dict, rng: random.Random) -> dict:
    """``varied`` on every string of a JSON line's object (before it is encoded, where the
    error's own JSON is still unescaped)."""
    out = {}
    for key, value in doc.items():
        if isinstance(value, str):
            value = varied(value, rng)
        elif isinstance(value, dict):
            value = varied_doc(value, rng)
        out[key] = value
    return out


def write_log(path: str, megabytes: int) -> int:
    rng = random.Random(1)
    target, written, lines = megabytes * 2**20, 0, 0
    with open(path, "w") as out:
        while written < target:
            stamp = f"2024-09-21T07:{rng.randrange(60):02d}:{rng.randrange(60):02d}.{rng.randrange(1000):03d}Z"
            choice = rng.random()
            if choice < 0.6:
                line = json.dumps(varied_doc({**rng.choice(V1), "time": stamp}, rng), separators=(",", ":"))
            elif choice < 0.85:
                line = varied(stamp + rng.choice(CONSOLE), rng)
            elif choice < 0.95:
                line = f"[pod/karpenter-5f7b9d8c6d-abcde/controller] {stamp} " + json.dumps(
                    varied_doc({**rng.choice(V1), "time": stamp}, rng), separators=(",", ":"))
            else:
                line = "goroutine 1 [running]:" if choice < 0.97 else "\tgithub.example/x/y.go:12 +0x1d"
            out.write(line + "\n")
            written += len(line) + 1
            lines += 1
    return lines


PROBE = r"""
import resource, sys, time
from karptui.logs import LogParser
from karptui.logs.reader import read_lines
parser = LogParser()
start = time.perf_counter()
for _ in parser.parse(read_lines(sys.argv[1], [])):
    pass
elapsed = time.perf_counter() - start
print(elapsed, parser.stats.lines, parser.stats.events, parser.stats.skipped,
      resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--megabytes", type=int, default=1024)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "karpenter.log")
        start = time.perf_counter()
        lines = write_log(path, args.megabytes)
        print(f"generated {args.megabytes} MiB, {lines} lines in {time.perf_counter() - start:.1f} s", flush=True)
        done = subprocess.run([sys.executable, "-c", PROBE, path], capture_output=True, text=True, check=True)
        elapsed, total, events, skipped, peak = done.stdout.split()
        size = os.path.getsize(path) / 2**20
        figure("parse", float(elapsed), "s")
        figure("parse rate", size / float(elapsed), "MiB/s")
        figure("parse peak RSS", float(peak), "MiB")
        print(f"parsed {size:.0f} MiB in {float(elapsed):.1f} s = {size / float(elapsed):.1f} MiB/s, "
              f"{int(total) / float(elapsed):,.0f} lines/s ({events} events, {skipped} skipped), "
              f"peak RSS {float(peak):.0f} MiB", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
