"""One cost model (karptui.views.cost): the header, ``simulate`` and the what-if panel agree."""

import json
from datetime import datetime, timezone

import pytest

from karptui.catalog import catalog_from_snapshot_region
from karptui.sim import simulate
from karptui.sources import bundled_snapshot, load_snapshot
from karptui.views.cost import HOURS_PER_MONTH, Cost, CostPath, cost_now, cost_path
from karptui.views.overview import overview
from karptui.views.whatif_form import run_whatif
from karptui.whatif import WhatIf

SEEDS = ["topology-spread", "consolidation", "multi-nodepool", "overprovisioning"]


def test_a_month_is_730_hours_and_estimates_are_marked_the_same_way():
    assert HOURS_PER_MONTH == 730
    assert Cost(2.32).text() == "$2.320/h ($1,694/mo)"
    assert Cost(2.32, unpriced=2).text() == "~$2.320/h (~$1,694/mo)"
    assert Cost(0.5, estimated_prices=1).text() == "~$0.500/h (~$365/mo)"
    path = CostPath(Cost(1.0), Cost(1.5, estimated_prices=2), Cost(1.25, estimated_prices=2))
    assert path.line() == ("now $1.000/h ($730/mo) -> after provisioning ~$1.500/h (~$1,095/mo) -> "
                           "after consolidation ~$1.250/h (~$912/mo) (~: 2 prices estimated)")
    assert CostPath(Cost(1.0), Cost(1.0)).line("→", changes_only=True) == "now $1.000/h ($730/mo)"


@pytest.mark.parametrize("name", SEEDS)
def test_header_simulate_and_whatif_give_the_same_figures(name, cli):
    snapshot = load_snapshot(bundled_snapshot(name))
    catalog = catalog_from_snapshot_region(snapshot)
    path = cost_path(simulate(snapshot, catalog=catalog, consolidate=True), catalog, consolidated=True)
    header = overview(snapshot, catalog, [], datetime(2024, 1, 1, tzinfo=timezone.utc))
    assert header.cost == path.now == cost_now(snapshot.nodes, catalog)
    code, out, err = cli("simulate", name, "--consolidate", "-o", "json")
    assert code == 0, err
    summary = json.loads(out)["summary"]
    assert summary["cost"] == path.to_dict()
    assert (summary["hourly_cost_before"], summary["hourly_cost_after"]) == (round(path.now.hourly, 4),
                                                                             round(path.final.hourly, 4))
    panel = run_whatif(snapshot, catalog, WhatIf("nothing", ()))  # the what-if panel consolidates too
    assert panel["cost_before"] == panel["cost_after"] == pytest.approx(path.final.hourly)


def test_an_unpriced_node_makes_every_figure_estimated():
    snapshot = load_snapshot(bundled_snapshot("topology-spread"))  # two Fargate nodes
    catalog = catalog_from_snapshot_region(snapshot)
    now = cost_now(snapshot.nodes, catalog)
    assert now.unpriced == 2 and now.estimated and now.to_dict()["estimated"] is True
    path = cost_path(simulate(snapshot, catalog=catalog), catalog)
    assert all(cost.estimated for _, cost in path.steps())


def test_without_karpenter_there_is_only_now(cli, write):
    from tests.conftest import kube_list, node_obj, pod_obj

    path = write("plain.json", kube_list([node_obj("n1"), pod_obj("p1")]))
    code, out, err = cli("simulate", path, "-o", "json")
    assert code == 0, err
    cost = json.loads(out)["summary"]["cost"]
    assert cost["after_provisioning"] is None and cost["after_consolidation"] is None


def test_the_nodes_pane_marks_estimated_prices_as_the_header_does():
    """Issue 14: the Nodes pane's $/h column marked no estimate; a node whose price the catalog
    estimates, and a zone whose sum holds one (or an unpriced Fargate node), carry the header's ``~``."""
    from karptui.catalog.pricing import node_offering
    from karptui.views.cost import ESTIMATED_MARK
    from karptui.views.nodes import node_cells, zone_cells, zone_groups

    snapshot = load_snapshot(bundled_snapshot("topology-spread"))
    catalog = catalog_from_snapshot_region(snapshot)
    now = datetime(2024, 1, 1, tzinfo=timezone.utc)
    built = overview(snapshot, catalog, [], now)
    assert built.cost.estimated  # the header says ~ for this seed: its prices are estimates
    for row in built.node_rows:
        offering = node_offering(snapshot.node_by_name[row.name], catalog)
        price_cell = node_cells(row, now)[-1]
        if offering is None or offering.price is None:
            assert price_cell == "-"
        elif offering.price_estimated:
            assert price_cell.startswith(ESTIMATED_MARK + "$"), price_cell
        else:
            assert price_cell.startswith("$"), price_cell
    for group in zone_groups(built.node_rows):
        shown = zone_cells(group)[-1]
        unsure = any(r.price is None or r.price_estimated for r in group.nodes)
        assert shown.startswith(ESTIMATED_MARK) == unsure, (group.zone, shown)
    assert any(zone_cells(g)[-1].startswith(ESTIMATED_MARK) for g in zone_groups(built.node_rows))
