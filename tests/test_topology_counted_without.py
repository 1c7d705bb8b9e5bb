"""``Topology.counted_as_without`` (karptui.sim.karpenter.topology) tells consolidation's simulations
whether a pending pods' group counts what it counted in the shared pending run. It works out the
nodes taken out besides the shared run's once per such run and narrows them per group's filter; it
must answer, on every call consolidation makes and on other nodes taken out before, what the plain
per-group difference answers."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from karptui.catalog import catalog_from_snapshot_region
from karptui.model import build_snapshot
from karptui.model import labels as L
from karptui.sim import simulate
from karptui.sim.karpenter import topology as topo
from karptui.sim.topology import MISSING

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
import gen_cluster  # noqa: E402  (the benchmark's generated clusters)


def plain(topology: topo.Topology, group, before: np.ndarray) -> bool:
    """The answer over each group's own difference of the nodes taken out, no shortcut."""
    state = topology.state
    mask = topology._filter_mask(group.node_filter)
    out = topology.taken_out[mask[topology.taken_out]]
    extra = np.setdiff1d(out, before, assume_unique=True)
    if not extra.size:
        return True
    if group.selector is not None:
        per_node = state.counts(((group.selector, group.namespaces),), skip_terminating=True)
        if per_node[extra].any():
            return False
    if group.key == L.HOSTNAME:
        return True
    domains = state.domains(group.key)
    left = topo._less(topology._nodes_per_domain(group, mask), domains, out, np.ones(len(out), dtype=np.int64))
    ids = domains.ids[extra]
    return bool((left[ids[ids != MISSING]] > 0).all())


@pytest.mark.parametrize("shape, nodes, seed", [("batch", 60, 2), ("batch", 40, 5)])
def test_every_answer_is_the_plain_one(shape, nodes, seed, monkeypatch):
    s = gen_cluster.SHAPES[shape]
    doc = gen_cluster.generate(nodes, nodes * s.pods_per_node, seed=seed, catalog=gen_cluster.BUILT_IN,
                               pending_fraction=s.pending_fraction, shape=shape)
    snapshot = build_snapshot(doc["items"])
    asked = topo.Topology.counted_as_without
    rng = np.random.default_rng(seed)
    calls, differing = [0], [0]

    def checked(self, group, before):
        got = asked(self, group, before)
        assert got == plain(self, group, before)
        calls[0] += 1
        # the same topology asked again about other nodes taken out before: never a stale difference
        out = self.taken_out
        for other in (np.zeros(0, dtype=np.intp), out, np.sort(rng.choice(out, size=len(out) // 2, replace=False))):
            answer = asked(self, group, other)
            assert answer == plain(self, group, other)
            differing[0] += answer != got
        assert asked(self, group, before) == got
        return got

    monkeypatch.setattr(topo.Topology, "counted_as_without", checked)
    simulate(snapshot, catalog=catalog_from_snapshot_region(snapshot), consolidate=True)
    assert calls[0] > 0   # consolidation asked
    if shape == "batch":
        assert differing[0] > 0   # and other nodes taken out before changed some answer
