#!/usr/bin/env python3
"""A night of a small generated cluster, written as a recording (``karptui record``'s format).

    python tools/gen_recording.py OUT [--nodes 14] [--pods 80] [--every 600] [--hours 8] [--seed 1]

The cluster is bench/gen_cluster.py's (generated names, addresses and IDs: nothing of a real
cluster), cut by the same allow-list as ``karptui record`` keeps. Through the night Karpenter
replaces, deletes and launches nodes, and says so in v1 JSON log lines as the controller writes
them: a NodeClaim replaced by a cheaper one at 01:47, that one replaced again at 03:12:05, the
third drifted and replaced at 05:31 (a chain of four), an underutilized node deleted at 02:20, a
spot interruption at 06:40 and the pending pods it leaves provisioned for. Each change is kept
in the interval it happened in, with the objects as the API server would serve them then: the
NodeClaim and Node added, the old Node tainted, its pods deleted and their replicas created on the
new node, the old Node and NodeClaim deleted, Karpenter's Events. ``karptui open OUT`` opens it;
``[`` ``]`` step to the decisions. Deterministic for a seed.
"""

from __future__ import annotations

import argparse
import copy
import json
import random
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import gen_cluster

from karptui.cluster.redact import redact
from karptui.recording import RecordingWriter

START = datetime(2025, 6, 2, tzinfo=UTC)   # the night after gen_cluster's clock (2025-06-01T12:00Z)
KARPENTER = "1.14.1"
TYPE_LABELS = ("node.kubernetes.io/instance-type", "beta.kubernetes.io/instance-type")


def stamp(when: datetime) -> str:
    return when.strftime("%Y-%m-%dT%H:%M:%SZ")


def log_line(when: datetime, message: str, controller: str, **fields) -> str:
    """One line as Karpenter v1 writes it (JSON, its logger and commit)."""
    doc = {"level": "INFO", "time": when.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z", "logger": "controller",
           "message": message, "commit": "1c39126", "controller": controller, **fields}
    return json.dumps(doc, separators=(",", ":"))


class Night:
    """The cluster's objects by identity, and what happened to them: (time, type, object) and log lines."""

    def __init__(self, nodes: int, pods: int, seed: int) -> None:
        self.rng = random.Random(seed)
        self.types = gen_cluster.load_instance_types(gen_cluster.BUILT_IN)
        self.objects: dict[tuple, dict] = {}
        for item in gen_cluster.generate(nodes, pods, seed=seed, pending_fraction=0.0, catalog=gen_cluster.BUILT_IN)["items"]:
            if item["kind"] in ("Deployment", "ReplicaSet", "Pod") and item["metadata"]["name"].startswith("karpenter"):
                text = json.dumps(item).replace("karpenter/controller:1.1.1", f"karpenter/controller:{KARPENTER}")
                item = json.loads(text)   # a release karptui models, whose v1 lines these are
            kept = redact(item)
            if kept:
                self.objects[self.key(kept)] = kept
        self.base = list(self.objects.values())
        self.changes: list[tuple[datetime, str, dict]] = []
        self.logs: list[tuple[datetime, str]] = []

    @staticmethod
    def key(obj: dict) -> tuple:
        meta = obj.get("metadata") or {}
        return obj.get("kind"), meta.get("namespace", ""), meta.get("name")

    def get(self, kind: str, name: str, namespace: str = "") -> dict:
        return self.objects[(kind, namespace, name)]

    def change(self, when: datetime, kind: str, obj: dict) -> None:
        if kind == "DELETED":
            self.objects.pop(self.key(obj), None)
            meta = obj["metadata"]
            obj = {"apiVersion": obj["apiVersion"], "kind": obj["kind"],
                   "metadata": {k: meta[k] for k in ("name", "namespace") if k in meta}}
        else:
            self.objects[self.key(obj)] = obj
        self.changes.append((when, kind, copy.deepcopy(obj)))

    def say(self, when: datetime, message: str, controller: str, **fields) -> None:
        self.logs.append((when, log_line(when, message, controller, **fields)))

    def pods_on(self, node: str) -> list[dict]:
        return [o for o in self.objects.values() if o["kind"] == "Pod" and (o.get("spec") or {}).get("nodeName") == node]

    def suffix(self, n: int = 5) -> str:
        return "".join(self.rng.choice("bcdfghjklmnpqrstvwxz2456789") for _ in range(n))

    def event(self, when: datetime, node: str, reason: str, message: str) -> None:
        self.change(when, "ADDED", {
            "apiVersion": "v1", "kind": "Event",
            "metadata": {"name": f"{node}.{self.suffix(8)}", "namespace": "default"},
            "involvedObject": {"kind": "Node", "name": node}, "reason": reason, "message": message,
            "type": "Normal", "source": {"component": "karpenter"}, "firstTimestamp": stamp(when),
            "lastTimestamp": stamp(when), "count": 1})

    # ---- what Karpenter does ---------------------------------------------------------------
    def launch(self, when: datetime, like: str, itype: str, capacity: str, controller: str,
               command: str = "", pods: tuple[str, ...] = ()) -> str:
        """A NodeClaim made like node ``like``'s, launched as ``itype``; its Node registered. The new node's name."""
        template = self.get("Node", like)
        pool = template["metadata"]["labels"]["karpenter.sh/nodepool"]
        claim_name = f"{pool}-{self.suffix()}"
        zone = template["metadata"]["labels"]["topology.kubernetes.io/zone"]
        octets = [self.rng.randrange(1, 250) for _ in range(2)]
        node_name = f"ip-10-{template['metadata']['name'].split('-')[2]}-{octets[0]}-{octets[1]}.ec2.internal"
        instance = f"i-0{self.rng.getrandbits(64):016x}"
        provider_id = f"aws:///{zone}/{instance}"
        shape = self.types[itype]
        labels = {**template["metadata"]["labels"], **shape.labels, "karpenter.sh/capacity-type": capacity,
                  "kubernetes.io/hostname": node_name, **{k: itype for k in TYPE_LABELS}}
        claim = copy.deepcopy(self.get("NodeClaim", template["metadata"]["ownerReferences"][0]["name"]))
        claim["metadata"].update(name=claim_name, creationTimestamp=stamp(when), labels=labels,
                                 uid=f"generated-{claim_name}")
        claim["status"] = {}
        named = {"NodeClaim": {"name": claim_name}}
        by_command = {"command-id": command} if command else {}
        self.say(when, "created nodeclaim", controller, NodePool={"name": pool}, **named, **by_command,
                 requests={"cpu": "3150m", "memory": "6Gi", "pods": str(len(pods) + 3)},
                 **{"instance-types": f"{itype}, m6i.xlarge, c6i.2xlarge and 31 other(s)"})
        self.change(when, "ADDED", claim)
        t = when + timedelta(seconds=2.8)
        self.say(t, "launched nodeclaim", "nodeclaim.lifecycle", **named, **{
            "provider-id": provider_id, "instance-type": itype, "zone": zone, "capacity-type": capacity})
        t += timedelta(seconds=24.6)
        node = copy.deepcopy(template)
        node["metadata"].update(name=node_name, creationTimestamp=stamp(t), labels=labels, uid=f"generated-{node_name}")
        node["metadata"]["ownerReferences"] = [{**template["metadata"]["ownerReferences"][0], "name": claim_name,
                                                "uid": f"generated-{claim_name}"}]
        node["spec"] = {"providerID": provider_id}
        node["status"] = {**template.get("status", {}), "allocatable": dict(shape.allocatable),
                          "capacity": {**dict(shape.allocatable), "cpu": str(shape.vcpu)}}
        self.change(t, "ADDED", node)
        self.say(t, "registered nodeclaim", "nodeclaim.lifecycle", **named, Node={"name": node_name})
        claim = copy.deepcopy(claim)
        claim["status"] = {"nodeName": node_name, "providerID": provider_id}
        self.change(t, "MODIFIED", claim)
        t += timedelta(seconds=17.9)
        self.say(t, "initialized nodeclaim", "nodeclaim.lifecycle", **named, Node={"name": node_name})
        return node_name

    def disrupt(self, when: datetime, node_name: str, reason: str, decision: str, onto: str | None = None,
                itype: str = "", capacity: str = "on-demand") -> str | None:
        """Karpenter's command on one node: ``replace`` (a new node launched for its pods) or ``delete`` (its
        pods go to ``onto``). The node its pods went to."""
        node = self.get("Node", node_name)
        claim_name = node["metadata"]["ownerReferences"][0]["name"]
        labels = node["metadata"]["labels"]
        pods = self.pods_on(node_name)
        command = f"{self.rng.getrandbits(32):08x}-{self.rng.getrandbits(16):04x}-4{self.rng.getrandbits(12):03x}-" \
                  f"a{self.rng.getrandbits(12):03x}-{self.rng.getrandbits(48):012x}"
        named = {"Node": {"name": node_name}, "NodeClaim": {"name": claim_name}}
        replacing = decision == "replace"
        self.say(when, "disrupting node(s)", "disruption", **{
            "command-id": command, "reason": reason, "decision": decision, "disrupted-node-count": 1,
            "replacement-node-count": int(replacing), "pod-count": len(pods),
            "disrupted-nodes": [{**named, "capacity-type": labels["karpenter.sh/capacity-type"],
                                 "instance-type": labels["node.kubernetes.io/instance-type"]}],
            "replacement-nodes": [{"capacity-type": capacity, "instance-types": f"{itype}, m6i.xlarge"}] if replacing else []})
        method = {"underutilized": "Underutilized", "empty": "Empty", "drifted": "Drifted"}[reason]
        self.event(when, node_name, "DisruptionTerminating", f"Disrupting Node: {method}/{decision.title()}")
        target = self.launch(when + timedelta(milliseconds=60), node_name, itype, capacity, "disruption", command,
                             tuple(p["metadata"]["name"] for p in pods)) if replacing else onto
        t = when + timedelta(seconds=52)
        tainted = copy.deepcopy(node)
        tainted["spec"]["taints"] = [*tainted["spec"].get("taints", []),
                                     {"key": "karpenter.sh/disrupted", "effect": "NoSchedule"}]
        self.change(t, "MODIFIED", tainted)
        self.say(t, "tainted node", "node.termination", **named, **{
            "taint.Key": "karpenter.sh/disrupted", "taint.Value": "", "taint.Effect": "NoSchedule"})
        self._move(t + timedelta(seconds=3), pods, target)
        t += timedelta(seconds=41)
        self.say(t, "deleted node", "node.termination", **named)
        self.change(t, "DELETED", node)
        self.say(t + timedelta(milliseconds=230), "deleted nodeclaim", "nodeclaim.lifecycle", **named)
        self.change(t + timedelta(milliseconds=230), "DELETED", self.get("NodeClaim", claim_name))
        return target

    def _move(self, when: datetime, pods: list[dict], target: str | None) -> list[dict]:
        """Evicted: each pod deleted; its controller's new replica (a new name) placed on ``target`` (pending
        when there is none). The new replicas."""
        made = []
        for pod in pods:
            self.change(when, "DELETED", pod)
            owned = (pod["metadata"].get("ownerReferences") or [{}])[0].get("kind") in ("ReplicaSet", "StatefulSet")
            if not owned or pod["metadata"]["name"].startswith(tuple(d["metadata"]["name"] for d in self.daemonsets())):
                continue
            again = copy.deepcopy(pod)
            base = pod["metadata"]["name"].rsplit("-", 1)[0]
            again["metadata"].update(name=f"{base}-{self.suffix()}", creationTimestamp=stamp(when),
                                     uid=f"generated-{base}-{self.suffix()}")
            if target is None:
                again["spec"].pop("nodeName", None)
                again["status"] = {"phase": "Pending", "conditions": [{
                    "type": "PodScheduled", "status": "False", "reason": "Unschedulable",
                    "message": "0/11 nodes are available: 11 Insufficient cpu. preemption: 0/11 nodes are "
                               "available: 11 No preemption victims found for incoming pod."}]}
            else:
                again["spec"]["nodeName"] = target
            self.change(when + timedelta(seconds=1), "ADDED", again)
            made.append(again)
        return made

    def daemonsets(self) -> list[dict]:
        return [o for o in self.objects.values() if o["kind"] == "DaemonSet"]

    def interrupt(self, when: datetime, node_name: str, itype: str) -> None:
        """A spot interruption: the node cordoned and drained, its pods pending, then provisioned for."""
        node = self.get("Node", node_name)
        claim_name = node["metadata"]["ownerReferences"][0]["name"]
        named = {"NodeClaim": {"name": claim_name}, "Node": {"name": node_name}}
        self.say(when, "initiating delete from interruption message", "interruption", queue="karpenter-night",
                 messageKind="spot_interrupted", action="CordonAndDrain", **named)
        self.event(when, node_name, "SpotInterrupted", "Spot interruption warning was triggered")
        pods = self.pods_on(node_name)
        pending = self._move(when + timedelta(seconds=4), pods, None)
        names = ", ".join(f"{p['metadata']['namespace']}/{p['metadata']['name']}" for p in pending[:5])
        t = when + timedelta(seconds=6)
        self.say(t, "found provisionable pod(s)", "provisioner", Pods=names, duration="14.2ms")
        self.say(t, "computed new nodeclaim(s) to fit pod(s)", "provisioner", nodeclaims=1, pods=len(pending))
        target = self.launch(t + timedelta(milliseconds=40), node_name, itype, "spot", "provisioner")
        t += timedelta(seconds=60)
        for pod in pending:
            placed = copy.deepcopy(pod)
            placed["spec"]["nodeName"] = target
            placed["status"] = {"phase": "Running"}
            self.change(t, "MODIFIED", placed)
        self.say(t + timedelta(seconds=20), "deleted node", "node.termination", **named)
        self.change(t + timedelta(seconds=20), "DELETED", node)
        self.say(t + timedelta(seconds=20.2), "deleted nodeclaim", "nodeclaim.lifecycle", **named)
        self.change(t + timedelta(seconds=20.2), "DELETED", self.get("NodeClaim", claim_name))


def karpenter_nodes(night: Night, capacity: str) -> list[str]:
    """The Karpenter nodes of one capacity type in the default pool that Karpenter may disrupt (no pod with
    karpenter.sh/do-not-disrupt, none a PodDisruptionBudget guards), the busiest first."""
    guarded = [pdb.get("spec", {}).get("selector", {}).get("matchLabels", {}) for pdb in night.objects.values()
               if pdb["kind"] == "PodDisruptionBudget"]

    def free(pod: dict) -> bool:
        meta = pod["metadata"]
        labels = meta.get("labels") or {}
        return (meta.get("annotations") or {}).get("karpenter.sh/do-not-disrupt") != "true" and not any(
            g and all(labels.get(k) == v for k, v in g.items()) and pdb_ns == meta.get("namespace")
            for g, pdb_ns in zip(guarded, [p["metadata"].get("namespace") for p in night.objects.values()
                                           if p["kind"] == "PodDisruptionBudget"]))

    found = [o["metadata"]["name"] for o in night.objects.values() if o["kind"] == "Node"
             and o["metadata"]["labels"].get("karpenter.sh/nodepool") == "default"
             and o["metadata"]["labels"].get("karpenter.sh/capacity-type") == capacity
             and all(free(p) for p in night.pods_on(o["metadata"]["name"]))]
    return sorted(found, key=lambda n: (-len(night.pods_on(n)), n))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", help="a new directory")
    parser.add_argument("--nodes", type=int, default=14)
    parser.add_argument("--pods", type=int, default=80)
    parser.add_argument("--every", type=int, default=600, help="seconds per interval")
    parser.add_argument("--hours", type=float, default=8)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    night = Night(args.nodes, args.pods, args.seed)
    at = START.__add__
    on_demand, spot = karpenter_nodes(night, "on-demand"), karpenter_nodes(night, "spot")
    first = on_demand[0]
    second = night.disrupt(at(timedelta(hours=1, minutes=47, seconds=20)), first, "underutilized", "replace",
                           itype="m5.xlarge")
    night.disrupt(at(timedelta(hours=2, minutes=20, seconds=41)), on_demand[-1], "underutilized", "delete", onto=second)
    third = night.disrupt(at(timedelta(hours=3, minutes=12, seconds=5)), second, "underutilized", "replace",
                          itype="c6i.xlarge")
    night.disrupt(at(timedelta(hours=5, minutes=31, seconds=12)), third, "drifted", "replace", itype="m7i.xlarge")
    night.interrupt(at(timedelta(hours=6, minutes=40, seconds=3)), spot[0], "c6i.2xlarge")

    writer = RecordingWriter(Path(args.out), None)
    writer.check()
    writer.begin(args.every, START, context="night-shift (generated)", cluster="https://cluster.example.invalid",
                 kubernetes_version="v1.31.4", notes=["generated by tools/gen_recording.py: no real cluster"])
    received = lambda logs: [(t + timedelta(seconds=1), text) for t, text in logs]  # the follower gets it a second later
    writer.base(START, START, night.base)
    step, end = timedelta(seconds=args.every), START + timedelta(hours=args.hours)
    begin = START
    while begin < end:
        until = begin + step
        changes = [c for c in night.changes if begin < c[0] <= until]
        logs = [entry for entry in received(night.logs) if begin < entry[0] <= until]
        writer.delta(begin, until, changes, logs)
        writer.rotate()   # as the recorder does after each interval: a checkpoint when one is due
        begin = until
    print(f"{args.out}: {len(night.base)} objects, then {len(night.changes)} changes and {len(night.logs)} log lines "
          f"in {writer.seq} intervals, {writer.checkpoints} checkpoint(s) ({writer.size():,} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
