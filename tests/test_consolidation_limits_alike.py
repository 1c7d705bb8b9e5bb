"""A consolidation simulation whose candidates leave their NodePools other limits than a recorded run of the
pending pods had (a candidate taken out gives its capacity back) takes that run's pops as its own up to the
first from which the two runs' limits may answer a new NodeClaim otherwise (karptui.sim.karpenter.resume
``agreeing``), from whichever recorded run (the shared one, or one made with other limits) has the most of
them (disruption.simulation ``_closest``). ``karptui simulate --consolidate --output json`` must say the same,
word for word, as when those runs are made from their first pop; a replay blind to the limits must not."""

from __future__ import annotations

import pytest

from karptui.catalog import catalog_from_snapshot_region
from karptui.model import build_snapshot
from karptui.sim.karpenter.disruption import simulation

from tests.simkit import consolidation_document as document
from tests.test_consolidation_resume import generated


def from_the_first_pop(monkeypatch) -> None:
    """No recorded run taken for another's: runs with other limits and whole simulations made pop by pop."""
    monkeypatch.setattr(simulation, "_closest", lambda scheduler, queue, shared, bound: (shared.journal, 0))
    monkeypatch.setattr(simulation, "_resumed", lambda *args: True)


@pytest.mark.parametrize("shape, nodes, seed", [("batch", 80, 2), ("batch", 150, 1), ("web", 150, 1),
                                                ("web", 90, 3), ("classic", 120, 1)])
def test_runs_with_other_limits_answer_as_made_from_their_first_pop(shape, nodes, seed, monkeypatch):
    snapshot = build_snapshot(generated(shape, nodes, seed))
    catalog = catalog_from_snapshot_region(snapshot)
    closest, taken = simulation._closest, []

    def noted(scheduler, queue, shared, bound):
        found = closest(scheduler, queue, shared, bound)
        cuts = [shared.journal.cuts.get(pool, bound) for pool, left in scheduler.remaining.items()
                if left != shared.journal.limits.get(pool)]
        taken.append((found[0] is not shared.journal, found[1] > min(cuts, default=bound)))
        return found

    monkeypatch.setattr(simulation, "_closest", noted)
    fast = document(snapshot, catalog)
    from_the_first_pop(monkeypatch)
    whole = document(snapshot, catalog)
    assert fast == whole
    if shape == "batch":
        # some run went on from a run made with other limits, or past the first pop the shared run's
        # limits cut, as its limits cut alike there
        assert any(other or past for other, past in taken)


@pytest.mark.parametrize("shape, nodes, seed", [("batch", 80, 2), ("web", 150, 1)])
def test_a_replay_blind_to_the_limits_is_caught(shape, nodes, seed, monkeypatch):
    """The comparison has teeth: taking a recorded run's pops whatever limits the two runs meet changes
    the answer."""
    snapshot = build_snapshot(generated(shape, nodes, seed))
    catalog = catalog_from_snapshot_region(snapshot)
    monkeypatch.setattr(simulation, "agreeing", lambda scheduler, journal, upto: upto)
    blind = document(snapshot, catalog)
    from_the_first_pop(monkeypatch)
    whole = document(snapshot, catalog)
    assert blind != whole
