"""A simulation takes the pending pods' shared run even where a moved pod finds no place, when that pod
is refused alike in every run (karptui.sim.karpenter.disruption.simulation: ``refused_alike``): no
existing node left could take it, and every NodePool refuses it for its taints, its requirements or
limits that leave nothing. ``karptui simulate --consolidate --output json`` must say the same, word for
word, as when every simulation schedules every pending pod with the candidates' pods."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from karptui.catalog import catalog_from_snapshot_region
from karptui.model import build_snapshot
from karptui.sim.karpenter.disruption import simulation

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
import gen_cluster  # noqa: E402  (the benchmark's generated clusters)

from tests.simkit import consolidation_document as document
from tests.simkit import every_simulation_whole


def pinned_cluster(shape: str, nodes: int, seed: int, every: int, how: str) -> list[dict]:
    """A generated cluster where one pod a ReplicaSet owns on every ``every``-th node is pinned there:
    ``how="label"``, it selects a label only its node carries (no NodePool knows the key); ``how="taint"``,
    it selects ``pinned=yes``, which no node carries and the new nodes of every tainted NodePool do (a
    taint it does not tolerate). No other node admits it, and no NodePool takes it: the tainted ones
    for their taint, the others for their requirements."""
    s = gen_cluster.SHAPES[shape]
    doc = gen_cluster.generate(nodes, nodes * s.pods_per_node, seed=seed, catalog=gen_cluster.BUILT_IN,
                               pending_fraction=s.pending_fraction, shape=shape)
    items = doc["items"]
    first: dict[str, dict] = {}
    for item in items:
        if item["kind"] == "Pod" and item["spec"].get("nodeName") and \
                (item["metadata"].get("ownerReferences") or [{}])[0].get("kind") == "ReplicaSet":
            first.setdefault(item["spec"]["nodeName"], item)
    chosen = sorted(first)[::every]
    assert len(chosen) >= 3
    for node in chosen:
        spec = first[node]["spec"]
        spec["nodeSelector"] = dict(spec.get("nodeSelector") or {}, pinned=node)
    for item in items:
        if item["kind"] == "Node" and item["metadata"]["name"] in chosen:
            item["metadata"]["labels"]["pinned"] = item["metadata"]["name"]
        if how == "taint" and item["kind"] == "NodePool" and item["spec"]["template"]["spec"].get("taints"):
            meta = item["spec"]["template"].setdefault("metadata", {})
            meta["labels"] = dict(meta.get("labels") or {}, pinned="yes")
    if how == "taint":  # the pinned pods ask for the value every NodePool offers, which no node has (they
        for node in chosen:  # are bound already: where they run is not asked again)
            first[node]["spec"]["nodeSelector"]["pinned"] = "yes"
    return items


def both(snapshot, monkeypatch) -> tuple[dict, int]:
    """The document with the shortcut and with every simulation whole (asserted equal), and how many
    moved pods with no place were taken as refused alike."""
    catalog = catalog_from_snapshot_region(snapshot)
    known = simulation.refused_alike
    alike = [0]

    def counted(*args):
        answer = known(*args)
        alike[0] += answer is not None
        return answer

    monkeypatch.setattr(simulation, "refused_alike", counted)
    fast = document(snapshot, catalog)
    every_simulation_whole(monkeypatch)
    plain = document(snapshot, catalog)
    assert fast == plain
    return fast, alike[0]


@pytest.mark.parametrize("how", ["label", "taint"])
@pytest.mark.parametrize("shape, nodes, seed, every", [("web", 150, 1, 4), ("batch", 80, 2, 3), ("classic", 120, 1, 5)])
def test_pods_refused_alike_answer_as_the_whole_run(shape, nodes, seed, every, how, monkeypatch):
    doc, alike = both(build_snapshot(pinned_cluster(shape, nodes, seed, every, how)), monkeypatch)
    assert alike > 0   # the shortcut was taken
    # single-node consolidation said which pinned pod found no place
    assert any(u["reason"].startswith("not all pods would schedule") for u in doc["unconsolidatable"])


def test_a_nodepool_that_would_take_the_pod_keeps_the_whole_run(monkeypatch):
    """The pinned pods' label is one a NodePool's new nodes carry (no taint): a NodeClaim could take them,
    so the shortcut must not answer for them."""
    items = pinned_cluster("web", 150, 1, 4, "label")
    for item in items:
        if item["kind"] == "NodePool":
            template = item["spec"].setdefault("template", {}).setdefault("metadata", {})
            template["labels"] = dict(template.get("labels") or {}, pinned="any")
    for item in items:
        if item["kind"] == "Pod" and (item["spec"].get("nodeSelector") or {}).get("pinned"):
            item["spec"]["nodeSelector"]["pinned"] = "any"
        if item["kind"] == "Node" and item["metadata"]["labels"].get("pinned"):
            item["metadata"]["labels"]["pinned"] = "any"
    _, alike = both(build_snapshot(items), monkeypatch)
    assert alike == 0
