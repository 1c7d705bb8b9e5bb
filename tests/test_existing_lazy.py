"""Karpenter's view of the existing nodes built as asked (``existing_nodes(..., lazy=True)``) is the
view built node by node: the pool's room, masks and capacity read off the state in bulk equal what
the built nodes say, every node built later equals the eager one, and a scheduling run over either
places every pod alike — on generated clusters of every benchmark shape, with pods placed since
the snapshot (nodes whose noted DaemonSet pods no longer hold)."""

from __future__ import annotations

import io
import random
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from karptui.catalog import snapshot_catalog
from karptui.sim.karpenter.existingnode import ExistingPool, existing_nodes
from karptui.sim.karpenter.scheduler import Prepared, Scheduler
from karptui.sim.karpenter.simulate import provisionable
from karptui.sim.state import ClusterState
from karptui.sources import load_snapshot

BENCH = Path(__file__).resolve().parent.parent / "bench"
sys.path.insert(0, str(BENCH))
import gen_cluster  # noqa: E402

GPU = "nvidia.com/gpu"
CASES = [("classic", 40, 1), ("classic", 60, 3), ("web", 40, 2), ("batch", 40, 5)]


def _snapshot(shape: str, nodes: int, seed: int, tmp_path: Path, edit=None):
    """A generated cluster with GPUs and nodes still waiting for DaemonSet pods; ``edit(items, rng)``
    changes its objects further before it is read."""
    s = gen_cluster.SHAPES[shape]
    doc = gen_cluster.generate(nodes, nodes * s.pods_per_node, seed=seed, pending_fraction=max(s.pending_fraction, 0.1),
                               shape=shape)
    # GPUs on some nodes, asked by some bound and some pending pods: room beyond the base resources
    rng = random.Random(seed)
    nodes_named = [o for o in doc["items"] if o["kind"] == "Node"]
    gpu_nodes = {n["metadata"]["name"] for n in nodes_named[::3]}
    for node in nodes_named[::3]:
        for part in ("allocatable", "capacity"):
            node["status"][part][GPU] = "4"
    # some nodes still wait for DaemonSet pods (their room is less what those will take)
    waiting = {n["metadata"]["name"] for n in nodes_named[1::4]}
    doc["items"] = [o for o in doc["items"] if not (
        o["kind"] == "Pod" and o["spec"].get("nodeName") in waiting and rng.random() < 0.7
        and any(r.get("kind") == "DaemonSet" for r in o["metadata"].get("ownerReferences", ())))]
    for item in doc["items"]:
        if item["kind"] != "Pod" or rng.random() > 0.15:
            continue
        bound = item["spec"].get("nodeName")
        if bound and bound not in gpu_nodes:
            continue
        resources = item["spec"]["containers"][0].setdefault("resources", {})
        for part in ("requests", "limits"):
            resources.setdefault(part, {})[GPU] = str(rng.choice((1, 2, 3)))
    if edit is not None:
        edit(doc["items"], rng)
    out = io.BytesIO()
    gen_cluster.write_json(doc, out)
    path = tmp_path / f"{shape}-{nodes}-{seed}.json"
    path.write_bytes(out.getvalue())
    return load_snapshot(str(path))


def _state(snapshot, seed: int) -> ClusterState:
    """The snapshot's cluster with some pending pods bound since (as the kube pass binds them)."""
    state = ClusterState(snapshot)
    rng = random.Random(seed)
    for pod in snapshot.pending_pods[::3]:
        state.place(pod, rng.randrange(len(state.nodes)))
    return state


def _view(node) -> tuple:
    return (node.name, node.index, dict(node.available.items()), list(node.reqs.items()), node.taints,
            list(node.ports), node.initialized, node.nodepool, dict(node.capacity.items()), node.nodeclaim,
            dict(node.volume_limits))


@pytest.mark.parametrize("shape,nodes,seed", CASES)
def test_the_lazy_view_is_the_eager_one(shape, nodes, seed, tmp_path):
    snapshot = _snapshot(shape, nodes, seed, tmp_path)
    catalog = snapshot_catalog(snapshot, None)
    prepared = Prepared(snapshot, catalog)
    daemons = prepared.daemon_checks
    assert daemons, "a cluster without DaemonSets would not test their room"
    # two states alike: a state keeps the nodes it built, which a second view would take as they are
    eager = ExistingPool(existing_nodes(_state(snapshot, seed), snapshot, daemons, catalog, set()))
    lazy_state = _state(snapshot, seed)
    if seed % 2:   # as kube-scheduler's pass leaves it after a GPU pod asked (else may_hold cannot tell)
        lazy_state.extended(GPU)
    lazy = ExistingPool(existing_nodes(lazy_state, snapshot, daemons, catalog, set(), lazy=True))
    assert lazy.nodes.unbuilt() == len(lazy.nodes) > 0   # nothing built to make the pool
    assert [lazy.nodes.peek(k).name for k in range(len(lazy.nodes))] == [n.name for n in eager.nodes]
    assert np.array_equal(lazy.free, eager.free) and np.array_equal(lazy.indices, eager.indices)
    for pool in {n.nodepool for n in eager.nodes}:
        for resource in ("cpu", "memory", "nodes"):
            alive = np.ones(len(eager.nodes), dtype=bool)
            assert lazy.capacity(pool, resource, alive) == eager.capacity(pool, resource, alive)
    asked_beyond = 0
    for pod in snapshot.pending_pods:
        data = prepared.pod_data(pod)
        assert np.array_equal(lazy.masks.admitted(data.reqs), eager.masks.admitted(data.reqs)), pod.key
        assert np.array_equal(lazy.masks.tolerated(pod.tolerations), eager.masks.tolerated(pod.tolerations))
        beyond = lazy.may_hold(data.requests)
        if beyond is not None:
            asked_beyond += 1
            room = np.array([all(amount <= n.available.get(name, 0) for name, amount in data.requests.items())
                             for n in eager.nodes])
            assert not (room & ~beyond).any(), f"{pod.key}: a node with room ruled out"
    assert lazy.nodes.unbuilt() == len(lazy.nodes)   # the masks built no node either
    assert [_view(n) for n in lazy.nodes] == [_view(n) for n in eager.nodes]
    assert asked_beyond or not seed % 2, "no pod asked for an extended resource: may_hold untested"


@pytest.mark.parametrize("shape,nodes,seed", CASES)
def test_a_run_over_the_lazy_view_places_every_pod_as_over_the_eager_one(shape, nodes, seed, tmp_path):
    snapshot = _snapshot(shape, nodes, seed, tmp_path)
    catalog = snapshot_catalog(snapshot, None)
    answers = []
    for lazy in (False, True):
        state = ClusterState(snapshot)
        # the pending pods, and copies of some bound ones asking again (these fit on nodes that exist)
        again = [replace(p, node_name="", phase="Pending", uid=f"{p.uid}-again", name=f"{p.name}-again")
                 for p in snapshot.bound_pods[::5]]
        pods = [p for p in list(snapshot.pending_pods) + again if provisionable(p)]
        prepared = Prepared(snapshot, catalog)
        existing = None if lazy else ExistingPool(existing_nodes(state, snapshot, prepared.daemon_checks, catalog, set()))
        scheduler = Scheduler(snapshot, state, catalog, pods, prepared=prepared, existing=existing)
        results = scheduler.solve(pods)
        answers.append(({k: n.name for k, n in results.on_existing.items()}, dict(results.errors),
                        [(c.name, [p.key for p in c.pods]) for c in results.claims]))
    assert answers[0] == answers[1]
    assert answers[0][0], "no pod placed on a node that exists: nothing compared"


def test_a_node_asked_after_a_pod_came_to_it_is_an_error_not_a_stale_answer(tmp_path):
    snapshot = _snapshot("classic", 30, 1, tmp_path)
    catalog = snapshot_catalog(snapshot, None)
    state = ClusterState(snapshot)
    nodes = existing_nodes(state, snapshot, Prepared(snapshot, catalog).daemon_checks, catalog, set(), lazy=True)
    k = next(k for k in range(len(nodes)) if nodes.peek(k).index is not None)
    state.place(snapshot.pending_pods[0], nodes.peek(k).index)
    with pytest.raises(RuntimeError, match="came or left"):
        nodes[k]


def test_masks_from_labels_answer_as_requirements_do_where_labels_disagree_or_lack_the_hostname():
    """NodeMasks.admitted read off the labels on a pod's keys: aliases that disagree (no zone at all),
    a node whose hostname is no label of its own (its requirements are built), keys the pod names
    through an alias."""
    from karptui.model import build_snapshot
    from karptui.sim.karpenter.requirements import Req, Reqs
    from tests.simkit import node

    zone, beta_zone, host = "topology.kubernetes.io/zone", "failure-domain.beta.kubernetes.io/zone", \
        "kubernetes.io/hostname"
    nodes = [node("a"), node("b", zone="us-east-1b"), node("c", labels={beta_zone: "us-east-1c"}),
             node("d", labels={"disk": "ssd"}), node("e")]
    nodes[4]["metadata"]["labels"].pop(host, None)   # known by its name alone
    snapshot = build_snapshot(nodes)
    pools = []
    for lazy in (False, True):
        state = ClusterState(snapshot)
        pools.append(ExistingPool(existing_nodes(state, snapshot, [], None, set(), lazy=lazy)))
    eager, lazy = pools
    asked = [Reqs([Req.make(zone, "In", ["us-east-1a"])]), Reqs([Req.make(beta_zone, "In", ["us-east-1c"])]),
             Reqs([Req.make(zone, "NotIn", ["us-east-1a"])]), Reqs([Req.make(host, "In", ["e"])]),
             Reqs([Req.make(host, "In", ["a", "d"]), Req.make("disk", "Exists")]),
             Reqs([Req.make("disk", "DoesNotExist")]), Reqs([Req.make(zone, "Exists")]), Reqs()]
    for reqs in asked:
        assert lazy.masks.admitted(reqs).tolist() == eager.masks.admitted(reqs).tolist(), reqs
    assert lazy.masks.admitted(asked[3]).tolist() == [False, False, False, False, True]
