"""A what-if that only adds pods goes on from the baseline's kube-scheduler pass
(karptui.sim.scheduler_pass): kube-scheduler takes the new pods after every pod it took then, so
the answer must be the one a simulation of the edited cluster from nothing gives, and only the
new pods may be scheduled again. Anything else (pods removed, a pod queued before the old ones)
is simulated afresh."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest

from karptui.catalog import catalog_from_snapshot_region
from karptui.model import build_snapshot
from karptui.sim import simulate
from karptui.whatif.io import parse_whatif
from karptui.whatif.session import WhatIfSession

from test_whatif_reuse import answer

simulate_module = importlib.import_module("karptui.sim.simulate")   # the package names its function so

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
import gen_cluster  # noqa: E402  (the benchmarks' cluster generator)


def cluster(seed: int):
    """A small generated cluster with a tenth of its pods pending (kube-scheduler places many of
    them on the nodes there are, Karpenter launches for the rest). Made from the generator's built-in
    instance data, so a seed makes the same cluster whether or not the shared data file is beside
    the checkout."""
    found = gen_cluster._catalog_path
    gen_cluster._catalog_path = lambda explicit: None
    try:
        return build_snapshot(gen_cluster.generate(60, 900, seed=seed, pending_fraction=0.1)["items"])
    finally:
        gen_cluster._catalog_path = found


def deployments(snapshot, count: int = 3):
    found = sorted((w for w in snapshot.workloads if w.kind == "Deployment" and w.raw is not None),
                   key=lambda w: (-(w.replicas or 0), w.name))
    return found[:count]


def counting(monkeypatch) -> list:
    """Every pod kube-scheduler's simulation runs a cycle for, from now on."""
    seen: list = []
    real = simulate_module.schedule_one

    def schedule_one(ctx, explain):
        seen.append(ctx.pod.key)
        return real(ctx, explain)

    monkeypatch.setattr(simulate_module, "schedule_one", schedule_one)
    return seen


@pytest.mark.parametrize("seed", [1, 6])
def test_scaling_up_schedules_only_the_new_pods_and_answers_as_from_nothing(seed, monkeypatch):
    snapshot = cluster(seed)
    catalog = catalog_from_snapshot_region(snapshot)
    session = WhatIfSession(snapshot, catalog)
    kept = session.baseline()
    assert kept.scheduler_pass is not None and len(kept.scheduler_pass.attempts) > 10
    assert not kept.scheduler_pass.preempted   # these seeds' pending pods preempt nothing (seeds 2-5 do)
    for w in deployments(snapshot):
        ref = f"Deployment/{w.namespace}/{w.name}"
        seen = counting(monkeypatch)
        run = session.run(parse_whatif({"name": "up", "edits": [{"target": ref, "scale": (w.replicas or 0) + 3}]}))
        assert run.done, run.error
        added = {p.key for p in run.applied.snapshot.pending_pods} - {p.key for p in snapshot.pending_pods}
        assert len(added) == 3
        assert kept.scheduler_pass.holds_for(run.applied.snapshot)
        assert set(seen) <= added            # the baseline's pending pods were not scheduled again
        monkeypatch.undo()
        assert answer(run.result) == answer(simulate(run.applied.snapshot, catalog=catalog)), ref


@pytest.mark.parametrize("seed", [1, 2])
def test_other_edits_are_simulated_afresh(seed):
    snapshot = cluster(seed)
    catalog = catalog_from_snapshot_region(snapshot)
    session = WhatIfSession(snapshot, catalog)
    kept = session.baseline()
    w = deployments(snapshot, 1)[0]
    ref = f"Deployment/{w.namespace}/{w.name}"
    urgent = {"spec": {"template": {"spec": {"priorityClassName": "", "priority": 1000000}}}}
    for edits in ([{"target": ref, "scale": max(0, (w.replicas or 0) - 3)}],   # pods deleted
                  [{"target": ref, "patch": urgent}, {"target": ref, "scale": (w.replicas or 0) + 2}]):
        run = session.run(parse_whatif({"name": "other", "edits": edits}))
        assert run.done, run.error
        assert not kept.scheduler_pass.holds_for(run.applied.snapshot)
        assert answer(run.result) == answer(simulate(run.applied.snapshot, catalog=catalog)), edits


def test_a_pass_that_preempted_is_not_gone_on_from():
    """Seed 2's pending pods preempt: their victims were queued again after the rest, where new
    pods would have come before them, so a scale is simulated afresh (and answers the same)."""
    snapshot = cluster(2)
    catalog = catalog_from_snapshot_region(snapshot)
    session = WhatIfSession(snapshot, catalog)
    kept = session.baseline()
    assert kept.scheduler_pass.preempted
    w = deployments(snapshot, 1)[0]
    run = session.run(parse_whatif({"name": "up", "edits": [{"target": f"Deployment/{w.namespace}/{w.name}",
                                                              "scale": (w.replicas or 0) + 3}]}))
    assert not kept.scheduler_pass.holds_for(run.applied.snapshot)
    assert answer(run.result) == answer(simulate(run.applied.snapshot, catalog=catalog))


def test_a_new_pod_queued_before_the_old_ones_is_not_taken_up_after_them():
    """A pod of higher priority would be taken before the pass's pods: going on from the pass
    would schedule it last, so the pass does not hold."""
    snapshot = cluster(9)
    session = WhatIfSession(snapshot, catalog_from_snapshot_region(snapshot))
    kept = session.baseline()
    first = min(kept.scheduler_pass.attempts, key=lambda a: a.pod.priority).pod
    from dataclasses import replace

    sooner = replace(first, name=first.name + "-sooner", uid="sooner", priority=first.priority + 1)
    edited = replace(snapshot, pods=snapshot.pods + (sooner,))
    assert not kept.scheduler_pass.holds_for(edited)
    later = replace(sooner, priority=-1_000_000)
    assert kept.scheduler_pass.holds_for(replace(snapshot, pods=snapshot.pods + (later,)))
