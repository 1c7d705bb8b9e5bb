"""Disruption budgets count each NodePool's nodes from a table of what they read of every node, made
once per cluster state (karptui.sim.karpenter.disruption.budgets: ``pool_counts``). With any nodes
taken out, any reason and any set of NodePools asked about, the counts must be those a walk over
every node gives: on the bundled snapshots and the benchmark's generated clusters."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from karptui.model import build_snapshot
from karptui.model import labels as L
from karptui.sim.karpenter.deleting import marked_for_deletion
from karptui.sim.karpenter.disruption import budgets as B
from karptui.sim.state import ClusterState
from karptui.sources import load_snapshot
from karptui.sources.bundled import bundled_snapshots

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
import gen_cluster  # noqa: E402  (the benchmark's generated clusters)


def walked(pools, state: ClusterState, reason: str) -> dict[str, B.PoolCount]:
    """Every node looked at in turn, as Karpenter's BuildDisruptionBudgetMapping counts them."""
    counts = {name: [0, 0] for name in pools}
    claims = state.snapshot.nodeclaim_by_node
    for i, node in enumerate(state.nodes):
        pool = node.nodepool
        if state.excluded[i] or pool not in pools:
            continue
        if node.labels.get(L.NODE_INITIALIZED) != "true" and pools[pool].kind != "Provisioner":
            continue
        counts[pool][0] += 1
        if marked_for_deletion(node, claims.get(node.name)) or (not node.ready and reason != B.UNHEALTHY):
            counts[pool][1] += 1
    return {name: B.PoolCount(*c) for name, c in counts.items()}


def snapshots():
    for name, path in sorted(bundled_snapshots().items()):
        yield name, load_snapshot(path)
    for shape, nodes, seed in (("classic", 120, 1), ("batch", 60, 2)):
        s = gen_cluster.SHAPES[shape]
        doc = gen_cluster.generate(nodes, nodes * s.pods_per_node, seed=seed, catalog=gen_cluster.BUILT_IN,
                                   pending_fraction=s.pending_fraction, shape=shape)
        snapshot = build_snapshot(doc["items"])
        # some nodes not Ready, not initialized, being deleted: each changes what budgets count
        nodes = list(snapshot.nodes)
        for k in range(0, len(nodes), 7):
            nodes[k] = replace(nodes[k], ready=False)
        for k in range(3, len(nodes), 11):
            nodes[k] = replace(nodes[k], labels={a: b for a, b in nodes[k].labels.items() if a != L.NODE_INITIALIZED})
        for k in range(5, len(nodes), 13):
            nodes[k] = replace(nodes[k], deleted=nodes[k].created or "2024-01-01T00:00:00Z")
        yield f"{shape}-{nodes and len(nodes)}", replace(snapshot, nodes=tuple(nodes))


@pytest.mark.parametrize("name, snapshot", list(snapshots()), ids=lambda v: v if isinstance(v, str) else "")
def test_counts_are_those_of_a_walk_over_every_node(name, snapshot):
    rng = np.random.default_rng(len(name))
    pools = {p.name: p for p in snapshot.nodepools}
    state = ClusterState(snapshot)
    subsets = [pools, dict(list(pools.items())[: len(pools) // 2]), {}]
    seen_disrupting = False
    for round_ in range(4):
        state.excluded[:] = rng.random(len(state.nodes)) < (0.0, 0.2, 0.5, 1.0)[round_]
        for reason in (*B.REASONS, B.UNHEALTHY):
            for asked in subsets:
                got = B.pool_counts(asked, state, reason)
                assert got == walked(asked, state, reason), (name, round_, reason)
                seen_disrupting |= any(c.disrupting for c in got.values())
    if name.startswith(("classic", "batch")):
        assert seen_disrupting
