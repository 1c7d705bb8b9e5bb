"""A topology group's counts kept for the cluster state (counted with no node taken out) and copied into a
run whose taken-out nodes hold none of its pods and leave each of its domains a node, once the state has
served a few runs (Topology._counted): every such copy counts what the group counted afresh for that run
would, domain by domain and in the same order (a group's first domain can decide where a self-selecting
pod goes), through a whole consolidation plan on generated clusters of each shape."""

from __future__ import annotations

import pytest

from karptui.catalog import catalog_from_snapshot_region
from karptui.model import build_snapshot
from karptui.sim.karpenter import topology as topology_module
from karptui.sim.karpenter.topologygroup import TopologyGroup

from tests.simkit import consolidation_document as document
from tests.test_consolidation_resume import generated


@pytest.mark.parametrize("shape, nodes, seed", [("web", 120, 1), ("batch", 80, 2), ("classic", 120, 1)])
def test_kept_counts_are_what_a_fresh_count_gives(shape, nodes, seed, monkeypatch):
    kept, made = topology_module.Topology._counted, TopologyGroup.counting
    copied = []

    def counting(self, domains, empty):
        copied.append(True)
        return made(self, domains, empty)

    def checked(self, identity, pod, kind, key, namespaces, selector, max_skew, min_domains, node_filter):
        copied.clear()
        group = kept(self, identity, pod, kind, key, namespaces, selector, max_skew, min_domains, node_filter)
        if copied:
            fresh = TopologyGroup(kind, key, pod, namespaces, selector, max_skew, min_domains, node_filter,
                                  self.domain_groups.get(key, topology_module.EMPTY_DOMAINS))
            self._count(fresh)
            assert list(group.domains.items()) == list(fresh.domains.items())
            assert group.empty == fresh.empty
            taken.append(bool(self.taken_out.size))
        return group

    taken: list[bool] = []
    monkeypatch.setattr(TopologyGroup, "counting", counting)
    monkeypatch.setattr(topology_module.Topology, "_counted", checked)
    snapshot = build_snapshot(generated(shape, nodes, seed))
    document(snapshot, catalog_from_snapshot_region(snapshot))
    if shape == "batch":   # its Jobs' groups select pods of their own Job, on other nodes than a candidate
        assert any(taken)  # copies went to runs that took nodes out
