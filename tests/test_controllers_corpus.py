"""The workload controllers against a corpus labelled from Kubernetes' own source by someone who
had not read karptui's code (tests/fixtures/controllers/, README there: what was read, and which
version). Each scenario cites the function it follows; these tests only build the scenario's
cluster, make the edit through the what-if file's own edits, and compare.

Scenarios karptui answers differently are strict xfails with the reason: a what-if answers with
the end state and the peak, not sync by sync, so what the corpus says about waiting between
syncs is checked where it changes the answer and named where it does not hold.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest
import yaml

from conftest import node_obj
from karptui.model import build_snapshot
from karptui.whatif import Patch, RemoveNode, Scale, Target, WhatIf, apply_whatif
from karptui.whatif.controllers.daemon import pinned_node
from karptui.whatif.controllers.deployment import fenceposts, rolling_steps

CORPUS = Path(__file__).parent / "fixtures" / "controllers"


def scenarios(name: str) -> list:
    data = yaml.safe_load((CORPUS / name).read_text())
    return [pytest.param(s, id=s["name"], marks=_marks(name, s["name"])) for s in data["scenarios"]]


# Where karptui's what-if answers otherwise, and why (strict: a fix shows up as XPASS).
DIVERGES = {
    ("statefulset.yaml", "scale-up-blocked-by-unready-lower-ordinal"):
        "OrderedReady waits for every lower ordinal to be Ready; the what-if gives the end state",
    ("statefulset.yaml", "scale-down-blocked-by-unready-lower-ordinal"):
        "OrderedReady waits for every lower ordinal to be Ready; the what-if gives the end state",
    ("statefulset.yaml", "scale-up-below-partition-uses-old-template"):
        "new ordinals below the partition get the current revision; the what-if makes every new pod "
        "from the edited template",
    ("drain.yaml", "unmanaged-pod-without-force-aborts-everything"):
        "a what-if's node removal drains as with --force: the unmanaged pod is lost, not refused",
    ("drain.yaml", "emptydir-without-flag-aborts-everything"):
        "a what-if's node removal drains as with --delete-emptydir-data",
    ("drain.yaml", "daemonset-pod-without-ignore-flag-aborts"):
        "a what-if's node removal drains as with --ignore-daemonsets",
    ("drain.yaml", "unready-pod-blocked-when-budget-already-broken"):
        "the PDB counts every bound pod as healthy (the owner shared with Karpenter's consolidation)",
    ("drain.yaml", "min-available-percent-rounds-up-and-blocks"):
        "the PDB counts every bound pod as healthy and takes percentages of them, not of the "
        "controller's replicas",
    ("drain.yaml", "pending-pod-ignores-pdb"):
        "the PDB counts every bound pod as healthy (the owner shared with Karpenter's consolidation)",
}


def _marks(file: str, name: str):
    why = DIVERGES.get((file, name))
    return [pytest.mark.xfail(reason=why, strict=True)] if why else []


def _time(value) -> str | None:
    if value is None:
        return None
    return value if isinstance(value, str) else value.strftime("%Y-%m-%dT%H:%M:%SZ")


def _pod(p: dict, namespace: str, owner: dict, labels: dict) -> dict:
    status: dict = {"phase": p.get("phase", "Running")}
    ready = p.get("ready", True)
    condition = {"type": "Ready", "status": "True" if ready else "False"}
    if p.get("ready_since"):
        condition["lastTransitionTime"] = _time(p["ready_since"])
    status["conditions"] = [condition]
    status["containerStatuses"] = [{"name": "app", "restartCount": p.get("restarts", 0)}]
    meta = {"name": p["name"], "namespace": namespace, "uid": p.get("uid") or f"uid-{p['name']}",
            "creationTimestamp": _time(p.get("created")) or "2026-03-01T00:00:00Z", "labels": labels,
            "ownerReferences": [owner]}
    if "deletion_cost" in p:
        meta["annotations"] = {"controller.kubernetes.io/pod-deletion-cost": str(p["deletion_cost"])}
    spec = {"containers": [{"name": "app", "image": "app:1", "resources": {"requests": {"cpu": "100m"}}}]}
    if p.get("node"):
        spec["nodeName"] = p["node"]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec, "status": status}


def _template(app: str) -> dict:
    return {"metadata": {"labels": {"app": app}},
            "spec": {"containers": [{"name": "app", "image": "app:1", "resources": {"requests": {"cpu": "100m"}}}]}}


def _workload(kind: str, name: str, namespace: str, **spec) -> dict:
    return {"apiVersion": "apps/v1", "kind": kind,
            "metadata": {"name": name, "namespace": namespace, "uid": f"uid-{name}"},
            "spec": {"selector": {"matchLabels": {"app": name}}, "template": _template(name), **spec}}


def _owner(kind: str, name: str) -> dict:
    return {"apiVersion": "apps/v1", "kind": kind, "name": name, "uid": f"uid-{name}", "controller": True}


# ------------------------------------------------------------------ ReplicaSet: which pods a scale deletes

@pytest.mark.parametrize("case", scenarios("replicaset-scale.yaml"))
def test_replicaset_scale(case):
    rs = case["pods"][0]["name"].rsplit("-", 1)[0]
    nodes = sorted({p["node"] for p in case["pods"] if p.get("node")} | set(case.get("nodes") or ()))
    objects = [node_obj(n) for n in nodes] + [_workload("ReplicaSet", rs, "shop", replicas=case["replicas_before"])]
    objects += [_pod(p, "shop", _owner("ReplicaSet", rs), {"app": rs}) for p in case["pods"]]
    snapshot = build_snapshot(objects)
    now = datetime.fromisoformat(_time(case["now"]).replace("Z", "+00:00"))
    applied = apply_whatif(snapshot, WhatIf("t", (Scale(Target("ReplicaSet", rs, "shop"), case["replicas_after"]),)),
                           now=now)
    expect = case["expect"]
    assert sorted(k.split("/")[1] for k in applied.deleted) == sorted(expect["deleted"])
    assert len(applied.added) == expect["added"]
    kept = {p.name for p in applied.snapshot.pods if p.key not in applied.added}
    assert kept == set(expect["kept"])
    moved = [p for p in applied.snapshot.pods if p.key not in applied.added
             and p.node_name != next(q["node"] or "" for q in case["pods"] if q["name"] == p.name)]
    assert moved == []   # a scale never moves a pod


# ------------------------------------------------------------------ Deployment: the rollout's arithmetic

@pytest.mark.parametrize("case", scenarios("deployment-rollout.yaml"))
def test_deployment_rollout_steps(case):
    expect, replicas = case["expect"], case["replicas"]
    strategy = case.get("strategy") or {}
    steps = [tuple(s) for s in expect["steps"]]
    if strategy.get("type") == "Recreate":
        snapshot = _deployment(replicas, strategy)
        applied = apply_whatif(snapshot, WhatIf("t", (_restart(),)))
        (rollout,) = applied.rollouts
        assert list(rollout.steps) == steps and rollout.peak is None
        return
    surge, unavailable = fenceposts(strategy.get("maxSurge"), strategy.get("maxUnavailable"), replicas)
    assert {"max_surge": surge, "max_unavailable": unavailable} == expect["resolved"]
    course = rolling_steps(replicas, surge, unavailable, replicas,
                           new_available=case.get("new_pods_become_available", True))
    assert list(course.steps) == steps
    assert course.peak_total == expect["peak_total"]
    assert course.stalled == ("stalls_at" in expect)
    # and through a real edit: the rollout an operator gets says the same
    if case.get("new_pods_become_available", True):
        applied = apply_whatif(_deployment(replicas, strategy), WhatIf("t", (_restart(),)))
        (rollout,) = applied.rollouts
        assert list(rollout.steps) == steps and rollout.most_pods == expect["peak_total"]
        assert len(applied.deleted) == replicas and len(applied.added) == replicas


def _deployment(replicas: int, strategy: dict):
    spec: dict = {"replicas": replicas}
    if strategy:   # the corpus writes the knobs flat; a Deployment keeps them under rollingUpdate
        knobs = {k: strategy[k] for k in ("maxSurge", "maxUnavailable") if k in strategy}
        spec["strategy"] = {"type": strategy.get("type", "RollingUpdate"), **({"rollingUpdate": knobs} if knobs else {})}
    objects = [node_obj(f"n{i}") for i in range(3)]
    objects += [_workload("Deployment", "web", "shop", **spec),
                {**_workload("ReplicaSet", "web-7d4b9c", "shop", replicas=replicas),
                 "metadata": {"name": "web-7d4b9c", "namespace": "shop", "uid": "uid-web-7d4b9c",
                              "labels": {"pod-template-hash": "7d4b9c"},
                              "annotations": {"deployment.kubernetes.io/revision": "1"},
                              "ownerReferences": [_owner("Deployment", "web")]}}]
    objects += [_pod({"name": f"web-7d4b9c-{i:05d}", "node": f"n{i % 3}", "ready_since": "2026-03-01T00:00:00Z"},
                     "shop", _owner("ReplicaSet", "web-7d4b9c"), {"app": "web", "pod-template-hash": "7d4b9c"})
                for i in range(replicas)]
    return build_snapshot(objects)


def _restart() -> Patch:
    """``kubectl rollout restart``: a template annotation, so a rollout."""
    return Patch(Target("Deployment", "web", "shop"),
                 {"spec": {"template": {"metadata": {"annotations": {"kubectl.kubernetes.io/restartedAt": "now"}}}}})


# ------------------------------------------------------------------ StatefulSet: ordinals

@pytest.mark.parametrize("case", scenarios("statefulset.yaml"))
def test_statefulset(case):
    name, expect = case["statefulset"], case["expect"]
    strategy = dict(case.get("strategy") or {})
    update = {"type": strategy.get("type", "RollingUpdate")}
    if "partition" in strategy:
        update["rollingUpdate"] = {"partition": strategy["partition"]}
    objects = [node_obj("n0"), _workload("StatefulSet", name, "data", replicas=case["replicas_before"],
                                         podManagementPolicy=case.get("policy", "OrderedReady"), updateStrategy=update)]
    not_ready = set(case.get("not_ready_ordinals") or ())
    objects += [_pod({"name": f"{name}-{n}", "node": "n0", "ready": n not in not_ready,
                      "ready_since": None if n in not_ready else "2026-03-01T00:00:00Z"},
                     "data", _owner("StatefulSet", name), {"app": name}) for n in case["existing_ordinals"]]
    snapshot = build_snapshot(objects)
    target = Target("StatefulSet", name, "data")
    patch: dict = {"spec": {"replicas": case["replicas_after"]}}
    if case.get("template_changed"):
        patch["spec"]["template"] = {"metadata": {"annotations": {"kubectl.kubernetes.io/restartedAt": "now"}}}
    applied = apply_whatif(snapshot, WhatIf("t", (Patch(target, patch),)))
    ordinal = {f"data/{name}-{n}": n for n in range(100)}
    deleted = {ordinal[k] for k in applied.deleted}
    added = {ordinal[k] for k in applied.added}
    replaced = deleted & added   # deleted and made again under the same name
    assert sorted(added - replaced) == sorted(expect["created"])
    assert sorted(deleted - replaced) == sorted(expect["deleted"])
    assert sorted(replaced, reverse=True) == expect["updated_order"]
    assert replaced.isdisjoint(expect["unchanged"])
    untouched = {ordinal[p.key] for p in applied.snapshot.pods if p.node_name}
    assert untouched == set(expect["unchanged"])
    for n, revision in (expect.get("created_revisions") or {}).items():
        pod = applied.snapshot.pod_by_key[f"data/{name}-{n}"]
        assert ("kubectl.kubernetes.io/restartedAt" in pod.annotations) == revision.startswith("update"), n


# ------------------------------------------------------------------ drain: evictions and PDBs

@pytest.mark.parametrize("case", [s for s in scenarios("drain.yaml") if "drain" in s.values[0]["command"]])
def test_drain(case):
    node = case["node"]
    objects = [node_obj(node), node_obj("ip-10-0-9-9.ec2.internal")]
    for w in case.get("workloads") or ():
        kind = w["kind"]
        objects.append(_workload(kind, w["name"], _namespace(case, w), replicas=w["replicas"]))
        for i in range(w.get("healthy_elsewhere", 0)):
            objects.append(_pod({"name": f"{w['name']}-else-{i}", "node": "ip-10-0-9-9.ec2.internal"},
                                _namespace(case, w), _owner(kind, w["name"]), {"app": w["name"], "tier": "backend"}))
        for i in range(w.get("unready_elsewhere", 0)):
            objects.append(_pod({"name": f"{w['name']}-unready-{i}", "node": "ip-10-0-9-9.ec2.internal", "ready": False},
                                _namespace(case, w), _owner(kind, w["name"]), {"app": w["name"]}))
    for p in case["pods_on_node"]:
        owner = p.get("owner")
        app = _app_of(case, p)
        pod = _pod({**p, "node": node}, p["namespace"],
                   _owner(_top_kind(case, owner), app) if owner and owner["kind"] != "Node" else None,
                   {"app": app, **({"tier": "backend"} if app == "api" else {})})
        if not owner:
            pod["metadata"].pop("ownerReferences")
        elif owner["kind"] == "Node":
            pod["metadata"]["ownerReferences"] = [{"apiVersion": "v1", "kind": "Node", "name": node, "controller": True}]
        objects.append(pod)
    for pdb in case.get("pdbs") or ():
        selected = pdb["selects"].split()[0]
        spec = {k: pdb[k] for k in ("minAvailable", "maxUnavailable") if k in pdb}
        selector = {"tier": "backend"} if "tier=backend" in pdb["selects"] else {"app": selected}
        objects.append({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
                        "metadata": {"name": pdb["name"], "namespace": _pdb_namespace(case, selected)},
                        "spec": {"selector": {"matchLabels": selector}, **spec}})
    applied = apply_whatif(build_snapshot(objects), WhatIf("t", (RemoveNode(node),)))
    (drain,) = applied.drains
    expect = case["expect"]
    evicted = {k.split("/")[1] for k in drain.evicted + drain.lost}   # --force deletes the unmanaged
    blocked = {k.split("/")[1] for k, _ in drain.blocked}
    if "evicted_one_of" in expect:
        # the corpus leaves the first round's winner to a race; the what-if's end state evicts
        # every pod a PDB lets go in some round, and names none as blocked
        assert set(expect["evicted_one_of"]["from"]) <= evicted
    else:
        assert evicted == set(expect["evicted"])
        assert blocked == {b["pod"] for b in expect["blocked_by_pdb"]} | {r["pod"] for r in expect["refused"]}
    assert drain.removed == (not blocked)


def _namespace(case: dict, w: dict) -> str:
    return next((p["namespace"] for p in case["pods_on_node"] if p["name"] in w.get("pods_on_node", ())), "shop")


def _pdb_namespace(case: dict, app: str) -> str:
    return next((p["namespace"] for p in case["pods_on_node"] if _app_of(case, p) == app), "shop")


def _app_of(case: dict, pod: dict) -> str:
    for w in case.get("workloads") or ():
        if pod["name"] in w.get("pods_on_node", ()):
            return w["name"]
    owner = pod.get("owner") or {}
    return owner.get("name", pod["name"])


def _top_kind(case: dict, owner: dict) -> str:
    """Pods of a Deployment are owned through its ReplicaSet; the corpus names the ReplicaSet, the
    cluster built here owns them by the Deployment directly (the drain reads only the controller)."""
    for w in case.get("workloads") or ():
        if owner and owner["name"].startswith(w["name"]):
            return w["kind"]
    return owner["kind"]


# ------------------------------------------------------------------ DaemonSet: which nodes end with which pod

@pytest.mark.parametrize("case", scenarios("daemonset.yaml"))
def test_daemonset_end_state(case):
    """The end state only: which nodes get a new pod, which lose theirs, which keep the old one.
    The corpus's rounds and the resolved maxUnavailable / maxSurge are the course of the update,
    which a what-if does not step through (docs/whatif-controllers.md)."""
    name, expect = case["daemonset"], case["expect"]
    change = case.get("change", "")
    strategy = dict(case.get("strategy") or {})
    update = {"type": strategy.get("type", "RollingUpdate")}
    knobs = {k: strategy[k] for k in ("maxUnavailable", "maxSurge") if strategy.get(k) is not None}
    if knobs:
        update["rollingUpdate"] = knobs
    nodes = list(case["nodes"])
    gpu = nodes[:case.get("nodes_that_should_run", len(nodes))] if case.get("node_selector") else nodes
    objects = []
    for n in nodes:
        labels = {"nvidia.com/gpu.present": "true"} if n in gpu and case.get("node_selector") else {}
        if "labelled workload-tier=batch" in change:
            labels["workload-tier"] = "batch" if n == "ip-10-0-3-112.ec2.internal" else "general"
        node = node_obj(n, labels=labels)
        if "is cordoned" in change and n == "ip-10-0-2-47.ec2.internal":
            node["spec"]["unschedulable"] = True
            node["spec"]["taints"] = [{"key": "node.kubernetes.io/unschedulable", "effect": "NoSchedule"}]
        objects.append(node)
    ds = _workload("DaemonSet", name, "logging", updateStrategy=update)
    if case.get("node_selector"):
        ds["spec"]["template"]["spec"]["nodeSelector"] = {"nvidia.com/gpu.present": "true"}
    objects.append(ds)
    without = set()
    if "joins the cluster" in change:
        without.add("ip-10-0-4-9.ec2.internal")
    if "deleted by hand" in change:
        without.add("ip-10-0-2-47.ec2.internal")
    running = [n for n in gpu if n not in without]
    objects += [_pod({"name": f"{name}-{i:05d}", "node": n}, "logging", _owner("DaemonSet", name), {"app": name})
                for i, n in enumerate(running)]
    patch: dict = {}
    if change.startswith("template changed"):
        template: dict = {"metadata": {"annotations": {"kubectl.kubernetes.io/restartedAt": "now"}}}
        if "nodeSelector workload-tier=general" in change:
            template["spec"] = {"nodeSelector": {"workload-tier": "general"}}
        patch = {"spec": {"template": template}}
    applied = apply_whatif(build_snapshot(objects), WhatIf("t", (Patch(Target("DaemonSet", name, "logging"), patch),)))
    pods = [p for p in applied.snapshot.pods if p.is_daemonset_pod]
    on: dict[str, list] = {}
    for p in pods:
        on.setdefault(pinned_node(p), []).append(p)
    new_on = {n for n, ps in on.items() if any(p.key in applied.added for p in ps)}
    gone = {n for n in running if n not in on}
    assert all(len(ps) == 1 for ps in on.values())                          # one pod per node at the end
    assert gone == set(expect.get("nodes_without_pod_after") or expect.get("pod_deleted_without_replacement_on") or ())
    if "pods_replaced" in expect:                                            # OnDelete
        assert new_on == set(expect["pods_replaced"]) and not applied.deleted
    elif "pods_created_on" in expect:
        assert new_on == set(expect["pods_created_on"]) and not applied.deleted
    elif "nodes_updated" in expect:
        assert new_on == set(expect["nodes_updated"])
    else:                                                                    # every admitted node updated
        assert new_on == set(expect.get("nodes_touched") or running)
