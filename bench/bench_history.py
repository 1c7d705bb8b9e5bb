#!/usr/bin/env python3
"""``karptui history`` on a day of logs of a 5,000-node cluster, beside ``karptui logs parse`` of the same file.

    python bench/bench_history.py [--megabytes 200] [--nodes 5000]

Generates a v1.x JSON log: NodeClaims created, launched, registered, initialized, then disrupted
(consolidation delete or replace, drift, expiration, interruptions) and deleted, at a churn that keeps
``--nodes`` running, between bench_logs.py's provisioning and scheduling lines that fill the day to
``--megabytes``. Each command runs in a fresh process; prints whole-command wall time and peak RSS
(summed over the process tree). Asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta

from bench_logs import V1, varied_doc
from figures import figure

# bench_logs' lines that are no NodeClaim's step (its creations and disruptions name made-up NodeClaims)
FILLER = [doc for doc in V1 if doc["message"] not in ("created nodeclaim",) and not doc["message"].startswith("disrupting")]

TYPES = (("m5.xlarge", "on-demand"), ("m5.2xlarge", "spot"), ("c6i.2xlarge", "spot"), ("r6i.xlarge", "on-demand"),
         ("m6i.4xlarge", "spot"), ("c5.xlarge", "spot"))
ZONES = ("us-east-1a", "us-east-1b", "us-east-1c")
POOLS = ("default", "spot", "batch", "gpu-free")


def _line(when: datetime, message: str, controller: str, **fields) -> str:
    doc = {"level": "INFO", "time": when.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z", "logger": "controller",
           "message": message, "commit": "1c39126", "controller": controller, **fields}
    return json.dumps(doc, separators=(",", ":"))


class Cluster:
    def __init__(self, rng: random.Random) -> None:
        self.rng, self.count, self.running = rng, 0, {}

    def launch(self, when: datetime, controller: str = "provisioner", pool: str | None = None) -> list[str]:
        rng = self.rng
        self.count += 1
        name = f"{pool or rng.choice(POOLS)}-{self.count:06x}"
        node = f"ip-10-{self.count >> 16 & 255}-{self.count >> 8 & 255}-{self.count & 255}.ec2.internal"
        itype, capacity = rng.choice(TYPES)
        zone = rng.choice(ZONES)
        pid = f"aws:///{zone}/i-{self.count:017x}"
        self.running[name] = (node, itype, capacity, pid)
        claim = {"NodeClaim": {"name": name}}
        t = when
        out = [_line(t, "created nodeclaim", controller, NodePool={"name": name.rsplit("-", 1)[0]}, **claim,
                     requests={"cpu": "3150m", "memory": "6Gi", "pods": "9"},
                     **{"instance-types": "c5.xlarge, c5a.xlarge, m5.xlarge, m6i.xlarge and 37 other(s)"})]
        t += timedelta(seconds=2 + rng.random() * 2)
        out.append(_line(t, "launched nodeclaim", "nodeclaim.lifecycle", **claim, **{
            "provider-id": pid, "instance-type": itype, "zone": zone, "capacity-type": capacity}))
        t += timedelta(seconds=20 + rng.random() * 10)
        out.append(_line(t, "registered nodeclaim", "nodeclaim.lifecycle", **claim, Node={"name": node}))
        t += timedelta(seconds=15 + rng.random() * 20)
        out.append(_line(t, "initialized nodeclaim", "nodeclaim.lifecycle", **claim, Node={"name": node}))
        return out

    def disrupt(self, when: datetime) -> list[str]:
        rng = self.rng
        name = rng.choice(list(self.running))
        node, itype, capacity, pid = self.running.pop(name)
        claim, named = {"NodeClaim": {"name": name}}, {"Node": {"name": node}}
        if rng.random() < 0.1:
            out = [_line(when, "initiating delete from interruption message", "interruption", queue="q",
                         messageKind="spot_interrupted", **claim, action="CordonAndDrain", **named)]
        else:
            reason, decision = rng.choice((("underutilized", "delete"), ("underutilized", "replace"),
                                           ("empty", "delete"), ("drifted", "replace"), ("expired", "replace")))
            replacements = 1 if decision == "replace" else 0
            out = [_line(when, "disrupting node(s)", "disruption", **{
                "command-id": f"{rng.getrandbits(64):016x}", "reason": reason, "decision": decision,
                "disrupted-node-count": 1, "replacement-node-count": replacements, "pod-count": rng.randrange(20),
                "disrupted-nodes": [{**named, **claim, "capacity-type": capacity, "instance-type": itype}],
                "replacement-nodes": [{"capacity-type": capacity, "instance-types": "m5.xlarge, c5.xlarge"}] *
                replacements})]
            if replacements:
                out += self.launch(when + timedelta(milliseconds=40), "disruption", name.rsplit("-", 1)[0])
        t = when + timedelta(milliseconds=300)
        out.append(_line(t, "tainted node", "node.termination", **named, **claim, **{
            "taint.Key": "karpenter.sh/disrupted", "taint.Value": "", "taint.Effect": "NoSchedule"}))
        t += timedelta(seconds=30 + rng.random() * 90)
        out.append(_line(t, "deleted node", "node.termination", **named, **claim))
        out.append(_line(t + timedelta(milliseconds=250), "deleted nodeclaim", "nodeclaim.lifecycle", **claim, **named))
        return out


def write_day(path: str, megabytes: int, nodes: int) -> tuple[int, int]:
    """A day from 00:00: ``nodes`` launched in the first hour, then a replace or delete every few seconds
    with a launch to keep the count, and filler lines until the file has ``megabytes``."""
    rng = random.Random(7)
    cluster = Cluster(rng)
    start = datetime(2026, 3, 1, tzinfo=UTC)
    target = megabytes * 2**20
    day = 24 * 3600.0
    churn = 4 * nodes                      # NodeClaims disrupted in the day: each node lives ~6 h on average
    lifecycle_lines = 0
    written = 0
    with open(path, "w") as out:
        # bench_logs' filler lines (provisioning, scheduling errors, disruption, debug) at a rate that fills the file
        events = [(start + timedelta(seconds=i * 3600.0 / nodes), "launch") for i in range(nodes)]
        events += [(start + timedelta(seconds=3600 + i * (day - 7200) / churn), "disrupt") for i in range(churn)]
        per_event = max(1, int(target / (len(events) * 3 * 330)))
        for when, what in events:
            block = cluster.launch(when) if what == "launch" else (
                cluster.disrupt(when) + (cluster.launch(when + timedelta(seconds=5)) if rng.random() < 0.5 else []))
            lifecycle_lines += len(block)
            for text in block:
                out.write(text + "\n")
                written += len(text) + 1
            for _ in range(per_event * 3):
                if written >= target:
                    break
                stamp = (when + timedelta(milliseconds=rng.randrange(3000))).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
                text = json.dumps(varied_doc({**rng.choice(FILLER), "time": stamp}, rng), separators=(",", ":"))
                out.write(text + "\n")
                written += len(text) + 1
    return lifecycle_lines, cluster.count


def _tree_rss(pid: int) -> int:
    """KiB resident in ``pid`` and its descendants now (Linux /proc): history's reading processes count too."""
    total, todo = 0, [pid]
    while todo:
        proc = todo.pop()
        try:
            with open(f"/proc/{proc}/status") as status:
                total += next((int(line.split()[1]) for line in status if line.startswith("VmRSS:")), 0)
            with open(f"/proc/{proc}/task/{proc}/children") as children:
                todo += [int(c) for c in children.read().split()]
        except (OSError, ValueError):
            continue
    return total


def measure(argv: list[str]) -> tuple[float, float, float]:
    """Wall seconds, CPU seconds (user + system of the command and the processes it waited for: what a
    loaded machine's other work adds least to) and peak RSS (MiB) summed over its process tree, sampled
    every 20 ms, of one command in a fresh process."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    start = time.perf_counter()
    child = subprocess.Popen([sys.executable, "-m", "karptui", *argv], cwd=root, stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE)
    peak = 0
    while True:
        pid, status, usage = os.wait4(child.pid, os.WNOHANG)
        if pid:
            break
        peak = max(peak, _tree_rss(child.pid))
        time.sleep(0.02)
    elapsed = time.perf_counter() - start
    error = child.stderr.read().decode() if child.stderr else ""
    if status:
        raise SystemExit(f"karptui {' '.join(argv)} failed: {error.strip()}")
    return elapsed, usage.ru_utime + usage.ru_stime, max(peak, usage.ru_maxrss) / 1024


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--megabytes", type=int, default=200)
    parser.add_argument("--nodes", type=int, default=5000)
    parser.add_argument("--log", metavar="PATH", help="keep the generated log here; reuse it if it exists")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = args.log or os.path.join(tmp, "karpenter-day.log")
        if not os.path.exists(path):
            start = time.perf_counter()
            lifecycle, claims = write_day(path, args.megabytes, args.nodes)
            print(f"generated {os.path.getsize(path) / 2**20:.0f} MiB ({lifecycle} lifecycle lines, {claims} "
                  f"NodeClaims) in {time.perf_counter() - start:.1f} s", flush=True)
        size = os.path.getsize(path) / 2**20
        parse_s, parse_cpu, parse_rss = measure(["logs", "parse", path, "--output", "jsonl"])
        history_s, history_cpu, history_rss = measure(["history", path, "--output", "json"])
        figure("history", history_s, "s")
        figure("history CPU", history_cpu, "s")
        figure("history peak RSS", history_rss, "MiB")
        figure("logs parse (yardstick)", parse_s, "s")
        print(f"{size:.0f} MiB: karptui history {history_s:.1f} s wall, {history_cpu:.1f} s CPU, peak RSS "
              f"{history_rss:.0f} MiB; karptui logs parse --output jsonl (yardstick) {parse_s:.1f} s wall, "
              f"{parse_cpu:.1f} s CPU, peak RSS {parse_rss:.0f} MiB", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
