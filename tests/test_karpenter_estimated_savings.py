"""Karpenter's EstimatedSavings and Balanced score arithmetic, per release (sim/karpenter/disruption/savings.py,
balanced.py), where upstream's tests check them on hand-built commands rather than on a cluster.

Sources (kubernetes-sigs/karpenter): pkg/controllers/disruption/consolidation_logging_test.go at v1.14.1
(TestGetCommandEstimatedSavings_MultipleReplacements :100, _EdgeCases :353), balanced_scoring_test.go at v1.14.1
(ScoreMove table :454-470), types.go EstimatedSavings at v1.9.1 :236, v1.14.0 :360, v1.14.1 :363. The cluster-shaped
tests of both files are scenarios in tests/karpenter_spec/{balanced-scoring,consolidation-logging}/.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from karptui.catalog.file import load_catalog_file, parse_catalog
from karptui.cli.karpenter_version import with_flag
from karptui.sim import simulate
from karptui.sources.files import load_snapshot
from karptui.views.disruption import disruption_view
from karptui.model import labels as L
from karptui.sim.karpenter.disruption.balanced import Score
from karptui.sim.karpenter.disruption.savings import estimated_savings, leaked, replacement_estimate
from karptui.sim.karpenter.instancetypes import TypeSet
from karptui.sim.karpenter.requirements import Req, Reqs
from karptui.sim.karpenter.versions import KarpenterVersion
from tests.karpenter_spec.harness import Scenario, run_cli

V1_9_1, V1_14_0, V1_14_1 = (KarpenterVersion.parse(v) for v in ("v1.9.1", "v1.14.0", "v1.14.1"))


def _types(*types: dict) -> TypeSet:
    return TypeSet(parse_catalog({"instanceTypes": [
        {"name": name, "cpu": "4", "memory": "8Gi", "offerings": offerings}
        for name, offerings in types]}))


def _offer(zone, kind, price, available=True):
    return {"zone": zone, "capacityType": kind, "price": price, "available": available}


def _row(types: TypeSet, name: str) -> list[int]:
    return [next(i for i, t in enumerate(types.types) if t.name == name)]


ON_DEMAND_ONLY = Reqs([Req.one(L.CAPACITY_TYPE, "on-demand")])
ANY = Reqs([])


def test_multiple_replacements_are_summed():
    """consolidation_logging_test.go:100: 0.50 - (0.20 + 0.15) = 0.15 over two replacement NodeClaims."""
    types = _types(("dest-1", [_offer("z1", "on-demand", 0.20)]), ("dest-2", [_offer("z1", "on-demand", 0.15)]))
    replacements = [(_row(types, "dest-1"), ANY), (_row(types, "dest-2"), ANY)]
    for version in (V1_9_1, V1_14_0, V1_14_1):
        assert estimated_savings(types, 0.50, replacements, version) == pytest.approx(0.15, abs=0.001)


def test_a_delete_saves_the_candidates_whole_price():
    """consolidation_logging_test.go:353 "delete consolidation - no replacements": all of the source price."""
    types = _types(("dest", [_offer("z1", "on-demand", 0.20)]))
    assert estimated_savings(types, 0.50, [], V1_14_1) == 0.50


@pytest.mark.parametrize("offerings", [[_offer("z1", "on-demand", None)], [_offer("z1", "on-demand", 0.20, available=False)]],
                         ids=["no priced offering", "no available offering"])
def test_a_replacement_with_no_counted_offering_costs_nothing(offerings):
    """consolidation_logging_test.go:353 edge cases: a NodeClaim whose first type has no (available) offering
    (a catalog always lists one; here it has no price, as Go's empty Offerings has none) adds 0 to the destination cost, so the estimate is the whole source price (v1.14.0 on)."""
    types = _types(("dest", offerings))
    for version in (V1_14_0, V1_14_1):
        assert replacement_estimate(types, _row(types, "dest"), ANY, version) == 0.0
    assert replacement_estimate(types, [], ANY, V1_14_1) == 0.0   # "NodeClaim with no InstanceTypeOptions"


def test_what_each_release_counts():
    """types.go: v1.9 takes the cheapest offering even if it cannot be bought, v1.14.0 the cheapest available one,
    v1.14.1 the cheapest available one the NodeClaim's requirements allow (#3217)."""
    types = _types(("dest", [_offer("z2", "spot", 0.05, available=False), _offer("z1", "spot", 0.10),
                             _offer("z1", "on-demand", 0.40)]))
    row = _row(types, "dest")
    assert [replacement_estimate(types, row, ON_DEMAND_ONLY, v) for v in (V1_9_1, V1_14_0, V1_14_1)] == \
        [0.05, 0.10, 0.40]
    assert leaked(types, row, ON_DEMAND_ONLY, V1_14_0) == "a spot offering the NodeClaim cannot use"
    assert leaked(types, row, ON_DEMAND_ONLY, V1_9_1) == "a spot offering in z2 that cannot be bought now"
    assert leaked(types, row, ON_DEMAND_ONLY, V1_14_1) == ""
    assert leaked(types, row, ANY, V1_14_0) == ""  # spot is allowed: v1.14.0 counts what the NodeClaim may launch


# balanced_scoring_test.go:454-470, pool totals cost 100 and disruption 100, k = 2:
# (savings, disruption cost, score, approved; None: +Inf)
SCORE_MOVE = [
    pytest.param(20.0, 5.0, 4.0, True, id="high savings low disruption"),
    pytest.param(10.0, 10.0, 1.0, True, id="equal fractions"),
    pytest.param(5.0, 50.0, 0.10, False, id="low savings high disruption"),
    pytest.param(10.0, 0.0, None, True, id="zero disruption cost"),
    pytest.param(0.0, 10.0, 0.0, False, id="zero savings"),
    pytest.param(-5.0, 10.0, 0.0, False, id="negative savings"),
]


@pytest.mark.parametrize("savings, disruption, score, approved", SCORE_MOVE)
def test_score_move(savings, disruption, score, approved):
    result = Score(("node",), "pool", "delete", savings, disruption, 100.0, 100.0, k=2)
    if score is None:
        assert math.isinf(result.score)
    else:
        assert result.score == pytest.approx(score, abs=0.01)
    assert result.approved is approved


# ---- what an operator sees: simulate's JSON and the Disruption pane ------------------------------------------
# The cluster of tests/karpenter_spec/consolidation-logging/0158: a 0.50 on-demand node in an on-demand-only
# NodePool, whose pod only dest-type (spot 0.10, on-demand 0.40) can hold more cheaply.

SPEC = Path(__file__).parent / "karpenter_spec" / "consolidation-logging" / \
    "0158-estimatedsavings-on-demand-only-nodepool.yaml"


@pytest.fixture
def on_demand_only(tmp_path):
    Scenario(SPEC).run(tmp_path)   # writes the round's snapshot and catalog files (and agrees, or the spec fails)
    return tmp_path / "round-0.yaml", tmp_path / "catalog.yaml"


@pytest.mark.parametrize("version, estimate, counts", [
    ("v1.14.1", 0.10, None), ("v1.15.1", 0.10, None),
    ("v1.14.0", 0.40, "a spot offering the NodeClaim cannot use"),
])
def test_simulate_json_gives_karpenters_estimate_beside_what_the_launch_saves(on_demand_only, version, estimate, counts):
    snapshot, catalog = on_demand_only
    code, out, err = run_cli("simulate", str(snapshot), "--instance-types", str(catalog), "--consolidate",
                             "--karpenter-version", version, "--output", "json")
    assert code == 0, err
    [command] = json.loads(out)["disruptions"]
    assert command["replacement"]["capacity_type"] == "on-demand"
    assert command["savings_per_hour"] == pytest.approx(0.10)
    assert command["estimated_savings_per_hour"] == pytest.approx(estimate)
    assert command["estimate_counts"] == counts


def test_the_disruption_pane_says_karpenters_estimate_only_when_it_differs(on_demand_only):
    snapshot_path, catalog_path = on_demand_only
    snapshot, catalog = load_snapshot(snapshot_path), load_catalog_file(catalog_path)
    rows = {}
    for version in ("v1.14.0", "v1.14.1"):
        pinned = with_flag(snapshot, version)
        view = disruption_view(simulate(pinned, catalog=catalog, consolidate=True), pinned)
        rows[version] = next(r for r in view.rows if r.node == "node-1")
    assert rows["v1.14.0"].saves == rows["v1.14.1"].saves == "$0.1000/h"
    assert rows["v1.14.0"].because.endswith(
        "; Karpenter estimates $0.4000/h (it counts a spot offering the NodeClaim cannot use)")
    assert "estimates" not in rows["v1.14.1"].because
