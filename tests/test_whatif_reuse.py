"""A what-if run reuses the session's baseline (its cluster state, the nodes Karpenter built from
it, the prices it sorted); the answer must be the one a simulation from nothing gives.

Each bundled snapshot gets a run of edits one after another in one session, so that every run
finds what the earlier ones left behind; each answer is compared with ``simulate`` of the same
edited snapshot in a fresh cluster state.
"""

from __future__ import annotations

import pytest

from karptui.catalog import catalog_from_snapshot_region
from karptui.sim import simulate
from karptui.sources import bundled_snapshot, load_snapshot
from karptui.whatif.diff import launch_words
from karptui.whatif.io import parse_whatif
from karptui.whatif.session import WhatIfSession

SNAPSHOTS = ["consolidation", "multi-nodepool", "overprovisioning", "topology-spread"]


def answer(result) -> tuple:
    """Where each pod went (a NodeClaim by what it is, its name is made up per run) or why not,
    and the NodeClaims launched."""
    claims = {c.name: launch_words(c) for c in result.nodeclaims}
    pods = sorted((a.pod.key, claims.get(a.node, a.node), a.reason or "") for a in result.attempts)
    return pods, sorted(claims.values())


def edits_for(snapshot) -> list[list[dict]]:
    deployments = sorted((w for w in snapshot.workloads if w.kind == "Deployment" and w.raw is not None),
                         key=lambda w: (-(w.replicas or 0), w.name))
    nodes = sorted(n.name for n in snapshot.nodes)
    runs: list[list[dict]] = [[]]
    for w in deployments[:2]:
        ref = f"Deployment/{w.namespace}/{w.name}"
        runs += [[{"target": ref, "scale": (w.replicas or 0) + 2}],
                 [{"target": ref, "scale": max(0, (w.replicas or 0) - 2)}],
                 [{"target": ref, "patch": {"spec": {"template": {"metadata": {"labels": {"edited": "yes"}}}}}}]]
    if nodes:
        runs += [[{"target": f"Node/{nodes[0]}", "cordon": True}],
                 [{"target": f"Node/{nodes[-1]}", "remove": True}]]
    return runs + [[]]


@pytest.mark.parametrize("name", SNAPSHOTS)
def test_each_run_answers_as_a_simulation_from_nothing(name):
    snapshot = load_snapshot(bundled_snapshot(name))
    catalog = catalog_from_snapshot_region(snapshot)
    session = WhatIfSession(snapshot, catalog)
    for number, edits in enumerate(edits_for(snapshot)):
        run = session.run(parse_whatif({"name": f"run {number}", "edits": edits}))
        assert run.done, run.error
        cold = simulate(run.applied.snapshot, catalog=catalog)
        assert answer(run.result) == answer(cold), edits
