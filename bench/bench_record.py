#!/usr/bin/env python3
"""``karptui record`` over a simulated day: the recording's size against its cap, printed.

    python bench/bench_record.py [--nodes 1000] [--pods 10000] [--hours 24] [--every 300]
                                 [--real-every 0.4] [--max-size 1GiB] [--churn 3]

A local API server (tests/fakeapi.py) holding a generated cluster runs in a child process;
this process records it with the real recorder (karptui.cluster.recorder) through the real
client, on a fast clock: each interval of --every simulated seconds lasts --real-every real
seconds (24 h of 5-minute intervals: 288 intervals, about two minutes). In each interval the
child replaces --churn nodes (the old ones and their pods deleted, new ones with ten pods
each added), writes an Event per change and a few Karpenter log lines (launches,
"disrupting node(s)") to the controller's log. Printed: the base segment, the bytes per
interval, the total against the cap, rotations and checkpoints, then the time (CPU and wall,
each in a fresh process) to open the recording at its newest moment and from there step 12 h
back, as ``karptui open`` and ``{`` do, to go straight to 12 h back (as a command reading one
moment does), and to step back from the newest moment an hour at a time, ``--steps`` times (``{``
pressed again and again, across the checkpoints on the way: the total, the slowest step, and how
many full states, the base or a checkpoint, were decoded): read with the checkpoints, and without
them (every state replayed from the base, as a recording of the format before them is read).
Nothing is asserted.

    python bench/bench_record.py --measure DIR [--tree PATH] [--steps 12]

measures an existing recording only; ``--tree`` reads it with another checkout's karptui (the
one before a change: ``git worktree add ../before main``), which may not know checkpoints.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

NS = "kube-system"


def serve(nodes: int, pods: int) -> None:
    """The child: the generated cluster behind a fake API server; ``churn I N`` on stdin."""
    import gen_cluster

    from tests.fakeapi import FakeAPI

    items = gen_cluster.generate(nodes, pods, seed=1)["items"]
    api = FakeAPI(history_size=200_000).start()
    for item in items:
        try:
            api.add(item)
        except KeyError:  # a kind the fake does not serve
            pass
    api.add({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "karpenter-0", "namespace": NS,
             "labels": {"app.kubernetes.io/name": "karpenter"}},
             "spec": {"nodeName": items[0]["metadata"]["name"], "containers": [{"name": "controller", "image": "k"}]},
             "status": {"phase": "Running"}})
    node_items = [i for i in items if i.get("kind") == "Node"]
    by_node: dict[str, list[dict]] = {}
    for item in items:
        if item.get("kind") == "Pod" and (item.get("spec") or {}).get("nodeName"):
            by_node.setdefault(item["spec"]["nodeName"], []).append(item)
    path = api.kubeconfig(Path(tempfile.mkdtemp()) / "kubeconfig")
    print(f"ready {path}", flush=True)
    alive, made = list(node_items), 0
    for line in sys.stdin:
        words = line.split()
        if words[:1] == ["quit"]:
            break
        if words[:1] != ["churn"]:
            continue
        interval, count, when = int(words[1]), int(words[2]), words[3]
        for _ in range(count):
            old = alive.pop(0)
            name = old["metadata"]["name"]
            api.append_log(NS, "karpenter-0", "controller", json.dumps({
                "level": "INFO", "time": when, "logger": "controller", "message": "disrupting node(s)",
                "controller": "disruption", "reason": "underutilized", "decision": "replace",
                "disrupted-nodes": [{"Node": {"name": name}}]}))
            for pod in by_node.pop(name, []):
                api.delete(pod)
            api.delete(old)
            new = json.loads(json.dumps(old))
            made += 1
            new_name = f"churned-{made}"
            new["metadata"]["name"] = new_name
            new["metadata"]["uid"] = f"uid-churned-{made}"
            new["metadata"].setdefault("labels", {})["kubernetes.io/hostname"] = new_name
            api.add(new)
            alive.append(new)
            api.append_log(NS, "karpenter-0", "controller", json.dumps({
                "level": "INFO", "time": when, "logger": "controller", "message": "launched nodeclaim",
                "controller": "nodeclaim.lifecycle", "NodeClaim": {"name": new_name},
                "instance-type": new["metadata"]["labels"].get("node.kubernetes.io/instance-type", ""),
                "zone": new["metadata"]["labels"].get("topology.kubernetes.io/zone", ""),
                "capacity-type": "on-demand"}))
            for p in range(10):
                pod = {"apiVersion": "v1", "kind": "Pod",
                       "metadata": {"name": f"{new_name}-app-{p}", "namespace": "default",
                                    "uid": f"uid-{new_name}-{p}", "labels": {"app": "churn"}},
                       "spec": {"nodeName": new_name, "containers": [{"name": "app", "image": "app:1",
                                "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}}}]},
                       "status": {"phase": "Running"}}
                api.add(pod)
                by_node.setdefault(new_name, []).append(pod)
            api.add({"apiVersion": "v1", "kind": "Event",
                     "metadata": {"name": f"{name}.disrupted.{interval}", "namespace": "default"},
                     "involvedObject": {"kind": "Node", "name": name}, "reason": "DisruptionTerminating",
                     "message": "Disrupting Node: Underutilized/Replace", "type": "Normal",
                     "source": {"component": "karpenter"}, "firstTimestamp": when, "lastTimestamp": when,
                     "count": 1})
        print("done", flush=True)
    api.stop()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--nodes", type=int, default=1000)
    parser.add_argument("--pods", type=int, default=10000)
    parser.add_argument("--hours", type=float, default=24)
    parser.add_argument("--every", type=float, default=300, help="simulated seconds per interval")
    parser.add_argument("--real-every", type=float, default=0.4, help="real seconds per interval")
    parser.add_argument("--max-size", default="1GiB")
    parser.add_argument("--churn", type=int, default=3, help="nodes replaced per interval")
    parser.add_argument("--out", help="where to write the recording (default: a new temporary directory); kept")
    parser.add_argument("--checkpoint-every", type=int, default=12,
                        help="intervals between checkpoints at least (record's --checkpoint-every; 0: none)")
    parser.add_argument("--measure", metavar="DIR", help="only measure opening the recording DIR")
    parser.add_argument("--tree", metavar="PATH", help="with --measure: the karptui checkout to read it with")
    parser.add_argument("--steps", type=int, default=12, help="hours stepped back one at a time from the newest moment")
    parser.add_argument("--serve", nargs=2, type=int, help=argparse.SUPPRESS)
    parser.add_argument("--open", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(*args.serve)
        return
    if args.open:
        opened(*args.open)
        return
    if args.measure:
        measure(Path(args.measure), args.tree, args.steps)
        return

    from karptui.cluster.connect import connect
    from karptui.cluster.recorder import Recorder
    from karptui.recording import Recording, RecordingWriter, parse_size
    from karptui.recording.segments import list_segments
    from karptui.sources.decode import size_text

    child = subprocess.Popen([sys.executable, __file__, "--serve", str(args.nodes), str(args.pods)],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    kubeconfig = child.stdout.readline().split(maxsplit=1)[1].strip()
    scale = args.every / args.real_every
    sim_start = datetime(2026, 11, 27, 6, 0, tzinfo=UTC)
    began = time.monotonic()

    def clock() -> datetime:
        return sim_start + timedelta(seconds=(time.monotonic() - began) * scale)

    out = Path(args.out) if args.out else Path(tempfile.mkdtemp()) / "rec"
    cap = parse_size(args.max_size)
    writer = RecordingWriter(out, cap, checkpoint_every=args.checkpoint_every)
    writer.check()
    recorder = Recorder(connect(kubeconfig), writer, args.real_every, clock=clock, logs_since=0)
    t0 = time.monotonic()
    recorder.start(sync_wait=300)
    print(f"base: {len(recorder.state):,} objects, listed and written in {time.monotonic() - t0:.1f} s, "
          f"{size_text(writer.size())}")
    from karptui.cluster.karpenter_logs import KarpenterLogs
    follower = KarpenterLogs(recorder.connection, recorder._log_lines, since_seconds=None)
    threading.Thread(target=follower.run, daemon=True).start()  # from here: the day's lines only
    intervals = int(args.hours * 3600 / args.every)
    next_at = time.monotonic() + args.real_every
    biggest, sizes = 0, []
    for interval in range(intervals):
        when = clock().strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
        child.stdin.write(f"churn {interval} {args.churn} {when}\n")
        child.stdin.flush()
        child.stdout.readline()
        time.sleep(max(0.0, next_at - time.monotonic()))
        next_at += args.real_every
        recorder.flush()
        size = writer.size()
        sizes.append(size)
        biggest = max(biggest, size)
    follower.stop()
    recorder.stop()
    child.stdin.write("quit\n")
    child.stdin.flush()
    child.wait(30)
    deltas = [f.size for f in list_segments(out) if f.type == "delta"]
    print(f"{intervals} intervals of {args.every:.0f} s ({args.hours:g} h simulated) in {time.monotonic() - t0:.0f} s")
    print(f"recording: {size_text(writer.size())} on disk, the largest it was {size_text(biggest)}, "
          f"cap {size_text(cap)} ({100 * biggest / cap:.2f}% of it at most)")
    if deltas:
        print(f"deltas: {len(deltas)} on disk, {size_text(sum(deltas) // len(deltas))} each on average")
    print(f"rotations: {writer.rotations}, intervals folded into a newer base: {writer.dropped}")
    states = [f for f in list_segments(out) if f.type != "delta"]
    print(f"full states: {len(states)} on disk ({writer.checkpoints} checkpoint(s) written, {writer.thinned} "
          f"thinned), {size_text(sum(f.size for f in states))} of the {size_text(writer.size())}")
    rec = Recording(out)
    print(f"{len(rec.decisions):,} decisions, {len(rec.moments()):,} moments; "
          f"spans {rec.start:%Y-%m-%d %H:%M} to {rec.end:%Y-%m-%d %H:%M} UTC; kept in {out}")
    measure(out, None, args.steps)


def measure(out: Path, tree: str | None, steps: int = 12) -> None:
    """Opening ``out`` at its newest moment then 12 h back, straight to 12 h back, and at its newest
    moment then ``steps`` hours back one at a time, each in a fresh process, with the checkpoints and
    without (or with ``tree``'s karptui)."""
    ways = [("as it reads", tree or "")] if tree else [("with checkpoints", ""), ("without checkpoints", "-")]
    print(f"{'read':<22} {'what':<34} {'CPU s':>7} {'wall s':>7}  state")
    for name, how in ways:
        for what in ("newest, then 12 h back", "12 h back", "newest, then hour by hour"):
            child = subprocess.run([sys.executable, __file__, "--open", str(out), how or "+", what, str(steps)],
                                   capture_output=True, text=True, check=True)
            for row in child.stdout.splitlines():
                said = json.loads(row)
                print(f"{name:<22} {said['what']:<34} {said['cpu']:7.2f} {said['wall']:7.2f}  {said['state']}")


def counting_full_states(reader) -> list[str]:
    """The names of the full states (bases, checkpoints) the reader module decodes from now on: its
    ``decode`` (every reader so far calls the format's decode by that name) wrapped to note them."""
    seen: list[str] = []
    decode = getattr(reader, "decode", None)
    if decode is None:
        return seen

    def noted(path, *args, **kwargs):
        if ".base." in path.name or ".checkpoint." in path.name:
            seen.append(path.name)
        return decode(path, *args, **kwargs)

    reader.decode = noted
    return seen


def opened(out: str, how: str, what: str, steps: str = "12") -> None:
    """In a fresh process: one line of JSON per step (``--open``)."""
    if how not in ("+", "-"):
        sys.path.insert(0, how)   # another checkout's karptui
    import karptui.recording.reader as reader
    from karptui.recording import Recording

    decoded = counting_full_states(reader)

    def step(name: str, work) -> None:
        cpu, wall, before = time.process_time(), time.monotonic(), len(decoded)
        snapshot = work()
        print(json.dumps({"what": name, "cpu": time.process_time() - cpu, "wall": time.monotonic() - wall,
                          "state": f"{snapshot.meta.captured_at:%Y-%m-%d %H:%M}: {len(snapshot.nodes):,} nodes, "
                                   f"{len(snapshot.pods):,} pods; {len(decoded) - before} full state(s) decoded"}),
              flush=True)

    holder = {}

    def newest():
        holder["rec"] = rec = Recording(out, checkpoints=False) if how == "-" else Recording(out)
        return rec.snapshot_at(rec.end)

    def back():
        rec = holder.get("rec")
        if rec is None:
            holder["rec"] = rec = Recording(out, checkpoints=False) if how == "-" else Recording(out)
        return rec.snapshot_at(max(rec.start, rec.end - timedelta(hours=12)))

    def hour_by_hour():
        rec, slowest, shown = holder["rec"], 0.0, None
        at, before = rec.end, len(decoded)
        cpu, wall = time.process_time(), time.monotonic()
        for _ in range(int(steps)):
            if at <= rec.start:
                break
            at = max(rec.start, at - timedelta(hours=1))   # as Recording.step(at, "hour", -1) goes
            one = time.process_time()
            shown = rec.snapshot_at(at)
            slowest = max(slowest, time.process_time() - one)
        print(json.dumps({"what": f"then {steps} h back, hour by hour", "cpu": time.process_time() - cpu,
                          "wall": time.monotonic() - wall,
                          "state": f"{shown.meta.captured_at:%Y-%m-%d %H:%M}; slowest step {slowest:.2f} CPU s; "
                                   f"{len(decoded) - before} full state(s) decoded"}), flush=True)

    if what == "newest, then hour by hour":
        step("open at the newest moment", newest)
        hour_by_hour()
    elif what.startswith("newest"):
        step("open at the newest moment", newest)
        step("then 12 h back (the TUI's {)", back)
    else:
        step("open straight at 12 h back", back)


if __name__ == "__main__":
    main()
