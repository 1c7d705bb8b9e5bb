"""The main screen answers at a glance: columns that fit, zone balance, pending answers in place, k9s keys."""

from __future__ import annotations

import pytest
from textual.widgets import DataTable, Static

from karptui.model import build_snapshot
from karptui.sources import bundled_snapshot, load_snapshot
from karptui.tui.app import KarptuiApp
from karptui.tui.keybar import KeyBar
from karptui.tui.screens.help import HelpScreen
from karptui.tui.screens.main import MainScreen
from karptui.tui.widgets import VirtualTable
from tests.conftest import node_obj, pod_obj
from tests.conftest import settled as after_keys

WIDE = (160, 45)
SMALL = (80, 24)


def demo_app(**kwargs) -> KarptuiApp:
    return KarptuiApp(load_snapshot(bundled_snapshot("topology-spread")), **kwargs)


def shown(table: VirtualTable) -> list[str]:
    """The table's lines as the terminal shows them (header first)."""
    return [table.render_line(y).text for y in range(table.size.height)]


async def settled(app, pilot) -> None:
    await app.workers.wait_for_complete()
    await pilot.pause()


# ---- bug: at 160 columns the right-hand columns were off-screen -----------------------------------

def fits(table: VirtualTable) -> bool:
    """Every column within the cells the table shows (its vertical scrollbar's excluded)."""
    shown = [w for w in table.widths if w]  # a narrow terminal hides some columns (named in the crumb)
    return 0 < sum(shown) + 2 * (len(shown) - 1) <= table.scrollable_content_region.width


async def test_at_160_columns_every_column_of_every_pane_is_on_screen():
    app = demo_app()
    async with app.run_test(size=WIDE) as pilot:
        await settled(app, pilot)
        nodes = app.screen.query_one("#nodes-table", VirtualTable)
        header = shown(nodes)[0]
        for title in ("pods", "age", "$/h"):
            assert title in header
        assert fits(nodes)
        # tables show the name without the region suffix; the drill-in keeps the full name
        assert any(line.strip().startswith("ip-192-168-11-21 ") for line in shown(nodes))
        assert not any(".compute.internal" in line for line in shown(nodes))
        await pilot.press("2")
        await pilot.pause()
        pending = app.screen.query_one("#pending-table", VirtualTable)
        assert "Karpenter" in shown(pending)[0]
        assert fits(pending)
        await pilot.press("3")
        await pilot.pause()
        activity = app.screen.query_one("#activity-table", VirtualTable)
        assert fits(activity)
        await pilot.press("1", "j", "enter")
        assert app.screen.heading == "node fargate-ip-192-168-11-131.ap-northeast-2.compute.internal"


async def test_at_80_columns_long_columns_are_cut_not_pushed_off():
    app = demo_app()
    async with app.run_test(size=SMALL) as pilot:
        await settled(app, pilot)
        for pane in ("1", "2", "3", "4"):
            await pilot.press(pane)
            await app.workers.wait_for_complete()
            await pilot.pause()
            assert fits(app.screen.table()), pane


async def test_at_80_columns_the_nodes_pane_hides_columns_and_says_which_instead_of_scrolling_sideways():
    """Bug: the Nodes pane's ten columns scrolled sideways at 80 columns, and names cut at their end
    all read ``ip-192-168-…``."""
    app = demo_app()
    async with app.run_test(size=SMALL) as pilot:
        await settled(app, pilot)
        nodes = app.screen.query_one("#nodes-table", VirtualTable)
        assert fits(nodes) and nodes.virtual_size.width <= nodes.scrollable_content_region.width
        assert nodes.hidden_columns == ("nodepool", "age", "consolidation")
        lines = shown(nodes)
        assert lines[0].split() == ["node", "▲", "type", "capacity", "cpu", "memory", "pods", "$/h"]
        names = [line[:16].strip() for line in lines[1:] if line.startswith("  ")]
        assert len(set(names)) == len(names) and "…92-168-11-131" in names  # the end of a name tells nodes apart
        assert any(line.startswith("▼ …-northeast-2a") for line in lines)
        assert "too narrow for nodepool, age, consolidation" in str(app.screen.query_one("#crumb").render())
        app.screen.query_one("#nodes-table").styles.width = 200  # wide again: every column, no crumb note
        await pilot.pause()
        assert nodes.hidden_columns == () and "too narrow" not in str(app.screen.query_one("#crumb").render())


# ---- bug: ctrl+c did not quit ----------------------------------------------------------------------

async def test_ctrl_c_quits_and_the_key_bar_says_so():
    app = demo_app(simulate_on_start=False)
    async with app.run_test(size=WIDE) as pilot:
        bar = app.screen.query_one(KeyBar).render().plain
        assert "^c" in bar
        await pilot.press("ctrl+c")
        await pilot.pause()
    assert app.return_code == 0


# ---- bug: a big cluster's first screen showed one zone ---------------------------------------------

def big_cluster(nodes: int = 300):
    zones = ("us-east-1a", "us-east-1b", "us-east-1c")
    items = [node_obj(f"ip-10-0-{i // 250}-{i % 250}.ec2.internal", zone=zones[i % 3]) for i in range(nodes)]
    items += [pod_obj(f"web-{i}", node=items[i]["metadata"]["name"], labels={"app": "web"}) for i in range(30)]
    return build_snapshot(items)


async def test_a_big_cluster_starts_with_every_zone_on_the_first_screen():
    app = KarptuiApp(big_cluster(), simulate_on_start=False)
    async with app.run_test(size=WIDE) as pilot:
        await pilot.pause()
        nodes = app.screen.query_one("#nodes-table", VirtualTable)
        first_screen = nodes.keys[: nodes.size.height - 1]
        assert {"zone:us-east-1a", "zone:us-east-1b", "zone:us-east-1c"} <= set(first_screen)
        # enter on a zone row unfolds it, space folds it again
        nodes.move_cursor(nodes.keys.index("zone:us-east-1b"))
        await pilot.press("enter")
        await pilot.pause()
        assert sum(k.startswith("node:") for k in nodes.keys) == 100
        # a terminal one cell wider than the columns: the scrollbar that appears takes its cells
        # from the columns, not from the last column's end
        need = sum(nodes.natural) + 2 * (len(nodes.natural) - 1)
        await pilot.resize_terminal(need + 1, 45)
        await pilot.pause()
        assert fits(nodes)
        await pilot.press("space")
        assert not any(k.startswith("node:") for k in nodes.keys)


def varied_cluster(nodes: int = 300):
    """Nodes of three types in three zones, with pods of different loads (so each sort orders them differently)."""
    zones = ("us-east-1a", "us-east-1b", "us-east-1c")
    types = ("m5.large", "c5.xlarge", "r5.2xlarge")
    items = [node_obj(f"ip-10-0-{i // 250}-{i % 250}.ec2.internal", zone=zones[i % 3],
                      labels={"node.kubernetes.io/instance-type": types[(i // 3) % 3]}) for i in range(nodes)]
    items += [pod_obj(f"web-{i}", node=items[i % nodes]["metadata"]["name"], cpu=f"{100 + 37 * (i % 11)}m",
                      labels={"app": "web"}) for i in range(2 * nodes)]
    return build_snapshot(items)


def expected_zone(app, zone: str, sort: str, reverse: bool, keep=lambda row: True) -> list[str]:
    """A zone's node keys as the pane should list them, worked out here from the rows alone."""
    from karptui.views.nodes import node_sort_key

    rows = [r for r in app.overview.node_rows if r.zone == zone and keep(r)]
    return [f"node:{r.name}" for r in sorted(rows, key=node_sort_key(sort, {}), reverse=reverse)]


def zone_keys(table: VirtualTable, zone: str) -> list[str]:
    start = table.keys.index(f"zone:{zone}") + 1
    end = next((i for i in range(start, len(table.keys)) if table.keys[i].startswith("zone:")), len(table.keys))
    return table.keys[start:end]


async def test_a_big_clusters_nodes_pane_stays_right_through_sorts_filters_and_folds():
    """Issue 28: the Nodes pane keeps each zone's rows and each sort's order per snapshot, so keys stay
    fast on 20,000 nodes; whatever it hands out again must be what the keys ask for: every sort both
    ways, a filter typed and cleared, a zone folded and unfolded again, the rows each one shows."""
    app = KarptuiApp(varied_cluster(), simulate_on_start=False)
    async with app.run_test(size=WIDE) as pilot:
        await pilot.pause()
        screen = app.screen
        nodes = screen.query_one("#nodes-table", VirtualTable)
        nodes.move_cursor(nodes.keys.index("zone:us-east-1b"))
        await pilot.press("enter")
        await pilot.pause()
        assert zone_keys(nodes, "us-east-1b") == expected_zone(app, "us-east-1b", "name", False)
        for letter, sort in (("C", "cpu%"), ("T", "type"), ("N", "name"), ("P", "pods")):
            for reverse in (False, True):
                await pilot.press(letter)
                await pilot.pause()
                assert screen.sorts["nodes"] == (sort, reverse)
                assert zone_keys(nodes, "us-east-1b") == expected_zone(app, "us-east-1b", sort, reverse), sort
                assert "zone:us-east-1a" in nodes.keys and zone_keys(nodes, "us-east-1a") == []  # still folded
        await pilot.press("C")   # cpu% ▲ again, as before: the order handed out again is still right
        await pilot.pause()
        expected = expected_zone(app, "us-east-1b", "cpu%", False)
        assert zone_keys(nodes, "us-east-1b") == expected
        assert [nodes.row(k)[0].strip() for k in expected[:3]] == [k[5:].removesuffix(".ec2.internal")
                                                                     for k in expected[:3]]
        await pilot.press("slash", "c", "5", "enter")   # the instance type: hundreds of rows share it
        await pilot.pause()
        assert zone_keys(nodes, "us-east-1b") == expected_zone(app, "us-east-1b", "cpu%", False,
                                                               lambda r: r.instance_type == "c5.xlarge")
        assert all(nodes.row(k)[1] == "c5.xlarge" for k in nodes.keys if k.startswith("node:"))
        await pilot.press("escape")
        await pilot.pause()
        assert zone_keys(nodes, "us-east-1b") == expected
        nodes.move_cursor(nodes.keys.index("zone:us-east-1b"))
        await pilot.press("enter")   # folded
        await pilot.pause()
        assert zone_keys(nodes, "us-east-1b") == []
        await pilot.press("enter")   # and unfolded again
        await pilot.pause()
        assert zone_keys(nodes, "us-east-1b") == expected
        # the table's widths come with the rows: the widest node name fits its column
        widest = max(len(nodes.row(k)[0]) for k in expected)
        assert nodes.natural[0] >= widest



async def test_what_a_first_unfold_and_a_first_filter_need_is_made_before_the_keys():
    """Issue 28: a key's first use built what later uses reuse (a 7,000-node zone's rows sorted, formatted,
    made visible and measured on the first unfold; every row's filter texts on the first filter key).
    A worker makes them once the screen is up; what the first unfold then shows is what formatting the
    rows on the key would have shown."""
    from karptui.text import visible_rows
    from karptui.views.nodes import node_cells

    app = KarptuiApp(varied_cluster(), simulate_on_start=False)
    async with app.run_test(size=WIDE) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        screen, index = app.screen, app.overview.node_index
        assert set(screen._zone_rows) == set(index.by_zone)   # every zone's rows, before any unfold
        assert index._lowered_texts is not None               # the filter's texts, before any filter key
        assert {(zone, "name", False) for zone in index.by_zone} <= set(index._orders)
        assert {id(index._orders[(zone, "name", False)]) for zone in index.by_zone} <= set(screen._blocks)
        nodes = screen.query_one("#nodes-table", VirtualTable)
        nodes.move_cursor(nodes.keys.index("zone:us-east-1c"))
        await pilot.press("enter")
        await pilot.pause()
        keys = zone_keys(nodes, "us-east-1c")
        assert keys == expected_zone(app, "us-east-1c", "name", False)
        rows = {r.name: r for r in app.overview.node_rows}
        assert [nodes.row(k) for k in keys] == list(visible_rows(
            [node_cells(rows[k[5:]], app.now) + ("",) for k in keys]))
        assert fits(nodes)


def test_a_zone_in_any_order_keeps_the_totals_of_its_nodes():
    """The Nodes pane's zone groups share their totals between the orders of a zone (made once); each
    order is the sort's, and the totals are the sums of the zone's nodes."""
    from karptui.views.nodes import SORTS, NodeIndex

    rows = KarptuiApp(varied_cluster(), simulate_on_start=False).overview.node_rows
    index = NodeIndex(rows)
    index.prepare("cpu%")
    for sort in SORTS:
        for reverse in (False, True):
            for group in index.groups(sort, reverse=reverse):
                mine = [r for r in rows if r.zone == group.zone]
                assert list(group.nodes) == sorted(mine, key=SORTS[sort], reverse=reverse)
                assert (group.cpu_requested, group.memory_requested, group.pods) == (
                    sum(r.cpu_requested for r in mine), sum(r.memory_requested for r in mine),
                    sum(r.pods for r in mine))
                assert group.cpu_allocatable == sum(r.cpu_allocatable for r in mine)
    folded = index.groups("cpu%", folded={"us-east-1a"})
    assert folded[0].zone == "us-east-1a" and len(folded[0].nodes) == 100


async def test_the_drill_in_screen_is_ready_before_the_first_drill_in():
    """Textual composes a screen on its first showing and lays it out twice (its resume, its first
    Resize): the main screen's drill-in screen is composed and laid out before the first paint, without
    being drawn, so the first drill-in costs what the next ones do."""
    from karptui.tui.screens.detail import DetailScreen

    app = KarptuiApp(big_cluster(), simulate_on_start=False)
    async with app.run_test(size=WIDE) as pilot:
        await pilot.pause()
        assert app.is_screen_installed(app.DRILL_IN)
        ready = app.get_screen(app.DRILL_IN)
        assert ready.is_running and ready.size == WIDE   # composed and laid out, before any drill-in
        assert isinstance(app.screen, MainScreen)
        nodes = app.screen.query_one("#nodes-table", VirtualTable)
        nodes.move_cursor(nodes.keys.index("zone:us-east-1a"))
        await pilot.press("enter", "j", "enter")
        await pilot.pause()
        assert app.screen is ready and isinstance(ready, DetailScreen)
        assert ready.heading == f"node {nodes.cursor_key[5:]}"
        assert "pods" in ready.sections


async def test_a_pane_shown_for_the_first_time_is_laid_out_for_the_terminals_width():
    """A table not shown yet was fitted to no width: its first showing laid it out with every column at
    its widest, with a horizontal scrollbar that stayed after the columns were fitted (the 80-column
    Pending pane lost a row of its table to it). It is fitted to its terminal's width from the start."""
    app = demo_app()
    async with app.run_test(size=SMALL) as pilot:
        await settled(app, pilot)
        await pilot.press("2")
        await pilot.pause()
        pending = app.screen.query_one("#pending-table", VirtualTable)
        assert pending.virtual_size.width <= pending.size.width
        assert not pending.show_horizontal_scrollbar
        assert fits(pending)

# ---- bug: ? showed internal key names and left out the what-if keys; s sorted the hidden pane --------

async def test_help_names_keys_as_typed_and_lists_the_whatif_keys():
    app = demo_app(simulate_on_start=False)
    async with app.run_test(size=WIDE) as pilot:
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        table = app.screen.query_one(DataTable)
        rows = [tuple(str(c) for c in table.get_row_at(i)) for i in range(table.row_count)]
        keys = {r[0] for r in rows}
        assert "question_mark" not in keys and "slash" not in keys
        assert {"?", "/", ":", "j", "k", "ctrl+c", "ctrl+p"} <= keys
        assert ("ctrl+r", "Run what-if") in {(r[0], r[1]) for r in rows}


async def test_s_sorts_the_pane_shown_and_its_header_says_by_what():
    app = demo_app()
    async with app.run_test(size=WIDE) as pilot:
        await settled(app, pilot)
        screen = app.screen
        assert isinstance(screen, MainScreen)
        nodes = screen.query_one("#nodes-table", VirtualTable)
        nodes_before = list(nodes.keys)
        await pilot.press("2")
        pending = screen.query_one("#pending-table", VirtualTable)
        await pilot.press("s")
        await pilot.pause()
        assert list(nodes.keys) == nodes_before
        header = shown(pending)[0]
        assert "▲" in header or "▼" in header
        assert screen.pane == "pending"


# ---- 1. zone overview -----------------------------------------------------------------------------

def pool(name: str, zones: list[str]) -> dict:
    return {"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": name},
            "spec": {"template": {"spec": {"requirements": [
                {"key": "topology.kubernetes.io/zone", "operator": "In", "values": zones}],
                "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"}}}}}


def spread_cluster():
    """Two zones with nodes (one spot, one Fargate), a NodePool that may also launch in us-east-1c,
    and a Deployment-like set of pods spread over zones with maxSkew 1."""
    spread = [{"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone", "whenUnsatisfiable": "DoNotSchedule",
               "labelSelector": {"matchLabels": {"app": "web"}}}]
    items = [node_obj("ip-10-0-1-1.ec2.internal", zone="us-east-1a",
                      labels={"karpenter.sh/capacity-type": "spot", "karpenter.sh/nodepool": "default"}),
             node_obj("ip-10-0-2-1.ec2.internal", zone="us-east-1b",
                      labels={"karpenter.sh/capacity-type": "on-demand", "karpenter.sh/nodepool": "default"}),
             node_obj("fargate-ip-10-0-2-9.ec2.internal", zone="us-east-1b",
                      labels={"eks.amazonaws.com/compute-type": "fargate"}),
             pool("default", ["us-east-1a", "us-east-1b", "us-east-1c"])]
    items += [pod_obj(f"web-{i}", node="ip-10-0-1-1.ec2.internal", labels={"app": "web"},
                      topologySpreadConstraints=spread) for i in range(3)]
    items += [pod_obj("web-9", node="ip-10-0-2-1.ec2.internal", labels={"app": "web"},
                      topologySpreadConstraints=spread)]
    items += [pod_obj("web-pending", labels={"app": "web"}, topologySpreadConstraints=spread)]
    return build_snapshot(items)


def test_launchable_zones_come_from_the_nodepools_requirements():
    from karptui.catalog import catalog_from_snapshot_region
    from karptui.views.zones import launchable_zones

    snapshot = spread_cluster()
    zones = launchable_zones(snapshot, catalog_from_snapshot_region(snapshot))
    assert zones == {"us-east-1a": ("default",), "us-east-1b": ("default",), "us-east-1c": ("default",)}


def test_workload_spread_counts_pods_per_zone_and_the_skew_of_each_constraint():
    from karptui.views.zones import workload_spread

    snapshot = spread_cluster()
    pod = next(p for p in snapshot.pods if p.name == "web-pending")
    spread = workload_spread(snapshot, pod, "web", ("us-east-1a", "us-east-1b", "us-east-1c"))
    assert spread.per_zone == {"us-east-1a": 3, "us-east-1b": 1, "us-east-1c": 0}
    (check,) = spread.checks
    # kube-scheduler counts only zones with a node: 1a 3, 1b 1 -> skew 2 > maxSkew 1
    assert (check.floor, check.skew, check.ok, check.room) == (1, 2, False, ("us-east-1b",))
    assert "skew 2 > 1" in check.describe() and "another pod may go only to us-east-1b" in check.describe()


async def test_zone_rows_show_the_split_the_load_and_the_zones_a_nodepool_may_launch_into():
    app = KarptuiApp(spread_cluster())
    async with app.run_test(size=WIDE) as pilot:
        await settled(app, pilot)
        nodes = app.screen.query_one("#nodes-table", VirtualTable)
        assert [k for k in nodes.keys if k.startswith("zone:")] == ["zone:us-east-1a", "zone:us-east-1b",
                                                                    "zone:us-east-1c"]
        b = nodes.row("zone:us-east-1b")
        assert (b[0], b[1], b[2]) == ("▼ us-east-1b", "2 nodes", "1 on-demand 1 Fargate")
        assert "%" in b[4] and "%" in b[5]
        c = nodes.row("zone:us-east-1c")
        assert c[1] == "0 nodes" and "NodePool default may launch here" in c[2]
        assert nodes.row("node:fargate-ip-10-0-2-9.ec2.internal")[2] == "Fargate"
        balance = str(app.screen.query_one("#zone-balance", Static).render())
        assert "pods per zone us-east-1a 3 · us-east-1b 1 · us-east-1c 0" in balance
        assert "topology.kubernetes.io/zone maxSkew 1 (DoNotSchedule): skew 2 > 1" in balance


# ---- 2. pending answers in place ------------------------------------------------------------------

async def test_detail_strip_gives_the_three_voices_and_says_what_disagrees():
    app = demo_app()
    async with app.run_test(size=WIDE) as pilot:
        await settled(app, pilot)
        await pilot.press("2", "j", "j", "j", "j")
        await pilot.pause()
        assert app.screen.table().cursor_key == "pod:default/host-spread-fbbf7c9d9-bh2ns"
        strip = str(app.screen.query_one("#pending-detail", Static).render())
        lines = strip.splitlines()
        assert lines[0].startswith("≠ log 11:03: Karpenter could not launch (NodePool default: no instance type")
        assert "simulator: would launch t3a.xlarge on-demand in ap-northeast-2a" in lines[0]
        assert "kube-scheduler: 0/9 nodes are available: 1 Insufficient cpu" in strip
        assert "No preemption victims found for incoming pod" in strip  # in full, not cut
        assert "2 Fargate node(s)" in strip
        assert "Karpenter: (log 11:03:34) incompatible with nodepool" in strip
        await pilot.press("k")
        await pilot.pause()
        strip = str(app.screen.query_one("#pending-detail", Static).render())
        assert not strip.startswith("≠") and "simulator: would launch t3a.xlarge" in strip
        assert "Karpenter: nothing logged about this pod" in strip


def test_the_simulators_why_calls_fargate_nodes_fargate():
    from karptui.sim.result import Attempt
    from karptui.views.pending import pending_rows, simulator_why

    snapshot = load_snapshot(bundled_snapshot("topology-spread"))
    pod = snapshot.pending_pods[0]
    fargate = next(n.name for n in snapshot.nodes if n.capacity_type == "fargate")
    assert simulator_why(Attempt(pod=pod, node=fargate), snapshot) == \
        "would fit on Fargate (fargate-ip-192-168-11-131) as the cluster is now"
    assert pending_rows(snapshot)  # the rows the strip reads


# ---- 3. k9s habits --------------------------------------------------------------------------------

async def test_live_filter_regex_inverse_and_the_crumb():
    app = demo_app(simulate_on_start=False)
    async with app.run_test(size=WIDE) as pilot:
        nodes = app.screen.query_one("#nodes-table", VirtualTable)
        await pilot.press("slash", *"2[ab]")
        await pilot.pause()  # live: no enter needed
        assert [k for k in nodes.keys if k.startswith("zone:")] == ["zone:ap-northeast-2a", "zone:ap-northeast-2b"]
        await pilot.press("enter")
        assert "/2[ab]" in app.screen.query_one("#crumb").render().plain
        await pilot.press("slash", "ctrl+u", *"!fargate", "enter")
        assert not any("fargate" in k for k in nodes.keys) and sum(k.startswith("node:") for k in nodes.keys) == 7
        assert "/!fargate" in app.screen.query_one("#crumb").render().plain
        await pilot.press("2")  # the filter belongs to its pane
        assert "/!fargate" not in app.screen.query_one("#crumb").render().plain
        await pilot.press("1", "escape")
        assert len(nodes.keys) == 12


async def test_colon_aliases_switch_panes_or_say_where_the_answer_is():
    app = demo_app(simulate_on_start=False)
    async with app.run_test(size=WIDE) as pilot:
        box = app.screen.query_one("#command")
        assert box.suggester is not None
        await pilot.press("colon", "p", "o", "enter")
        assert app.screen.pane == "pending"
        await pilot.press("colon", "e", "v", "enter")
        assert app.screen.pane == "activity"
        await pilot.press("colon", "n", "c", "enter")
        await pilot.pause()
        assert app.screen.pane == "history"   # NodeClaims' lives, from the log
        assert any("the History pane (5) has every NodeClaim the log names" in str(n.message)
                   for n in app._notifications)
        await pilot.press("colon", "n", "o", "enter")
        assert app.screen.pane == "nodes"
        await pilot.press("colon", "a", "c", "t", "right", "enter")  # → takes the completion
        assert app.screen.pane == "activity"


async def test_y_shows_the_selected_objects_yaml():
    from karptui.tui.screens.detail import DetailScreen

    app = demo_app(simulate_on_start=False)
    async with app.run_test(size=WIDE) as pilot:
        await pilot.press("j", "y")
        assert isinstance(app.screen, DetailScreen)
        assert app.screen.heading.endswith("(YAML)")
        text = "\n".join(str(s.render()) for s in app.screen.query(Static))
        assert "kind: Node" in text


async def test_sort_arrow_moves_with_s_and_flips_with_S_on_the_nodes_pane():
    app = demo_app(simulate_on_start=False)
    async with app.run_test(size=WIDE) as pilot:
        nodes = app.screen.query_one("#nodes-table", VirtualTable)
        assert shown(nodes)[0].startswith("node ▲")
        await pilot.press("s")
        assert "type ▲" in shown(nodes)[0] and app.screen.sort == "type"
        await pilot.press("S")
        assert "type ▼" in shown(nodes)[0]


async def test_shift_letters_sort_by_one_column_and_again_the_other_way():
    """Issue 29 item 11: s stepped through nine columns one at a time; shift+letter picks one (k9s),
    and the consolidation column sorts too (marked nodes first)."""
    app = demo_app(simulate_on_start=False)
    async with app.run_test(size=WIDE) as pilot:
        nodes = app.screen.query_one("#nodes-table", VirtualTable)
        await pilot.press("C")
        assert "cpu ▲" in shown(nodes)[0] and app.screen.sorts["nodes"] == ("cpu%", False)
        await pilot.press("C")
        assert "cpu ▼" in shown(nodes)[0]
        app.screen.query_one("DisruptionPane").view = None
        await pilot.press("D")
        assert "consolidation ▲" in shown(nodes)[0]
        await pilot.press("2", "R")
        assert app.screen.sorts["pending"] == ("reason", False) and app.screen.sorts["nodes"][0] == "consolidation"


def test_the_consolidation_sort_puts_marked_nodes_first():
    from karptui.views.nodes import NODE_SORTS, node_sort_key

    rows = [type("Row", (), {"name": n})() for n in ("a", "b", "c")]
    key = node_sort_key("consolidation", {"c": "delete", "b": ""})
    assert [r.name for r in sorted(rows, key=key)] == ["c", "a", "b"]
    assert NODE_SORTS[-1] == "consolidation"


async def test_help_moves_with_g_G_home_end_j_k():
    app = demo_app(simulate_on_start=False)
    async with app.run_test(size=WIDE) as pilot:
        await pilot.press("question_mark")
        await pilot.pause()
        table = app.screen.query_one(DataTable)
        await pilot.press("G")
        assert table.cursor_row == table.row_count - 1
        await pilot.press("k")
        assert table.cursor_row == table.row_count - 2
        await pilot.press("home")
        assert table.cursor_row == 0
        await pilot.press("end", "g", "j")
        assert table.cursor_row == 1


# ---- snapshots: the zone overview and the detail strip at 80x24 and 160x45 ------------------------



def test_zone_overview_160(snap_compare):
    assert snap_compare(KarptuiApp(spread_cluster()), terminal_size=WIDE, run_before=after_keys())


def test_zone_overview_80(snap_compare):
    assert snap_compare(KarptuiApp(spread_cluster()), terminal_size=SMALL, run_before=after_keys())


def test_detail_strip_160(snap_compare):
    assert snap_compare(demo_app(), terminal_size=WIDE, run_before=after_keys("2", "j", "j", "j", "j"))


def test_detail_strip_80(snap_compare):
    assert snap_compare(demo_app(), terminal_size=SMALL, run_before=after_keys("2", "j", "j", "j", "j"))


def test_filter_reads_regex_inverse_labels_and_falls_back_to_text():
    from karptui.views.filtering import Filter

    rows = [("web-1", {"app": "web"}), ("db-1", {"app": "db"}), ("web[2]", {})]
    fields, labels = (lambda r: (r[0],)), (lambda r: r[1])

    def names(text):
        keep = Filter(text).predicate(fields, labels)
        return [r[0] for r in rows if keep(r)]

    assert names("^web") == ["web-1", "web[2]"]
    assert names("!^web") == ["db-1"]
    assert names("app=db") == ["db-1"]
    assert names("web[") == ["web[2]"]          # not a valid regex: searched as typed
    assert names("WEB-1") == ["web-1"]          # case-insensitive
    assert Filter("!x").crumb() == "/!x" and Filter("  ").crumb() == ""


def test_filter_select_over_kept_lowered_texts_shows_what_the_predicate_shows():
    """The Nodes pane looks for plain text in each row's kept lower-cased texts; every kind of filter
    typed (plain, regex, inverse, label, not ASCII) shows the rows the row-by-row predicate shows."""
    from operator import attrgetter

    from karptui.views.filtering import Filter, lowered_fields

    rows = demo_app(simulate_on_start=False).overview.node_rows   # 9 nodes in 3 zones, Fargate among them
    texts, labels = attrgetter("texts"), attrgetter("labels")
    lowered = [lowered_fields(r.texts) for r in rows]
    lowered[1] = None   # a row with text that is not ASCII is tested field by field
    zone = rows[0].zone
    for typed in ("ip-192", "IP-192-168-12", "2XLARGE", "fargate", "!fargate", zone, zone.upper(), "c5|m5",
                  "^ip.*78$", "!^ip", "192.168", "[", "nothing-like-this", f"topology.kubernetes.io/zone={zone}",
                  "on-demand"):
        keep = Filter(typed).predicate(texts, labels)
        expected = [r.name for r in rows if keep(r)]
        assert [r.name for r in Filter(typed).select(rows, texts, labels, lowered)] == expected, typed
        assert [r.name for r in Filter(typed).select(rows, texts, labels)] == expected, typed
    assert Filter("ip-192").plain == "ip-192" and Filter("192.168").plain is None and Filter("é").plain is None
    assert len(Filter("ip-192-168-11").select(rows, texts, labels, lowered)) == 4   # a Fargate node among them


async def test_a_filter_that_is_not_a_usable_regex_says_so_and_never_freezes():
    """Issue 29: an invalid regex said only "no nodes match"; `(.+)+#` froze the TUI for good (a
    backtracking match never lets go of the interpreter, ctrl+c included)."""
    app = demo_app(simulate_on_start=False)
    async with app.run_test(size=WIDE) as pilot:
        nodes = app.screen.query_one("#nodes-table", VirtualTable)
        await pilot.press("slash", *"(.+)+#", "enter")   # on names of 50 characters: 2^50 steps
        await pilot.pause()
        assert nodes.rows == [("(no nodes match: a repetition inside a repetition would take forever on some "
                               "names: searched for as text)",)]
        assert "searched for as text" in app.screen.query_one("#crumb").render().plain
        await pilot.press("slash", "ctrl+u", *"ip-[", "enter")
        await pilot.pause()
        assert nodes.rows[0][0].startswith("(no nodes match: not a valid regular expression (unterminated")
        await pilot.press("slash", "ctrl+u", *"ip-192-168-1[12]", "enter")
        await pilot.pause()
        assert sum(k.startswith("node:") for k in nodes.keys) == 8   # fargate-ip-... too
        assert "searched for as text" not in app.screen.query_one("#crumb").render().plain


async def test_activity_sorts_by_its_columns_and_line_numbers_as_numbers():
    app = demo_app(simulate_on_start=False)
    async with app.run_test(size=WIDE) as pilot:
        await pilot.press("3")
        activity = app.screen.query_one("#activity-table", VirtualTable)
        lines = [int(k.split(":")[1]) for k in activity.keys if k.startswith("line:")]
        assert lines == sorted(lines)
        await pilot.press("S")
        lines = [int(k.split(":")[1]) for k in activity.keys if k.startswith("line:")]
        assert lines == sorted(lines, reverse=True) and "line ▼" in shown(activity)[0]
        await pilot.press("s", "s", "s")  # line -> time -> level -> event
        assert "event ▲" in shown(activity)[0]
        events = [activity.row(k)[3] for k in activity.keys]
        assert events == sorted(events)


# ---- bug: keys typed right after / or : were lost ---------------------------------------------------

async def test_keys_typed_at_once_after_slash_and_colon_land_in_the_box():
    """A fast typist (or a paste) sends "/fargate" in one go: the characters after "/" reached the
    table before the box had focus (and "t" cycled the theme). Same for ":dis" + enter."""
    from textual import events

    def type_at_once(app, text: str) -> None:
        names = {"/": "slash", ":": "colon", "\r": "enter"}
        for ch in text:
            app.post_message(events.Key(names.get(ch, ch), None if ch == "\r" else ch))

    app = demo_app(simulate_on_start=False)
    async with app.run_test(size=WIDE) as pilot:
        await pilot.pause()
        theme = app.theme
        type_at_once(app, "/fargate")
        await pilot.pause()
        assert app.screen.query_one("#filter").value == "fargate" and app.theme == theme
        assert app.screen.filters["nodes"] == "fargate"
        type_at_once(app, "/x")  # "/" inside the box is a character of the filter (a regex may hold one)
        await pilot.pause()
        assert app.screen.query_one("#filter").value == "fargate/x"
        await pilot.press("escape")
        type_at_once(app, ":dis\r")
        await pilot.pause()
        assert app.screen.pane == "disruption"


async def test_at_80_columns_pending_pods_keep_the_end_of_their_names():
    """Issue 29: at 80 columns every pending pod read `default/host-sp…`; replicas differ at the end."""
    app = demo_app(simulate_on_start=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("2")
        await pilot.pause()
        table = app.screen.query_one("#pending-table", VirtualTable)
        width = table.widths[0]
        keys = [k for k in table.keys if k.startswith("pod:")]
        names = [k.partition(":")[2] for k in keys]
        shown = [table._line(table.keys.index(k))[0][:width].rstrip() for k in keys]  # the row as drawn
        assert len(names) == 6 and width < max(map(len, names))  # cut, and still told apart
        assert len(set(shown)) == len(names), shown
        assert all(s.endswith(n[-5:]) for s, n in zip(shown, names))


@pytest.mark.parametrize("key", ["enter", "y"])
async def test_an_activity_row_opens_the_whole_line_and_what_was_read_from_it(key):
    """Issue 29: Activity lines were cut at the screen's width and enter and y did nothing."""
    from karptui.tui.screens.detail import DetailScreen

    app = demo_app(simulate_on_start=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("3")
        await pilot.pause()
        table = app.screen.query_one("#activity-table", VirtualTable)
        row = table.keys.index("line:4")    # "launching node with 6 pods ... and 38 other(s)"
        table.move_cursor(row)
        await pilot.press(key)
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, DetailScreen) and screen.heading == "Karpenter log line 4"
        (line,) = screen.sections["log line 4"]
        assert line.startswith("2023-05-20T11:02:11.393Z\tINFO\tcontroller.provisioner\tlaunching node with 6 pods")
        assert line.endswith('{"commit": "d7e22b1-dirty", "provisioner": "default"}')   # past 80 columns
        assert "kind: nodeclaim_created" in screen.sections["read as"]
        assert "more: 38" in screen.sections["read as"]
        await pilot.press("escape")
        assert app.screen.pane == "activity"


def test_cpu_reads_in_cores_once_it_is_a_zones_sum():
    """Issue 29: `6180500m/9882250m` in zone rows; a node's own amounts stay in millicores, as k9s has them."""
    from karptui.views.format import cpu
    from karptui.views.nodes import usage

    assert [cpu(m) for m in (0, 7465, 99_999, 100_000, 6_180_500)] == ["0m", "7465m", "99999m", "100c", "6,180c"]
    assert usage(6_180_500, 9_882_250, cpu) == " 63% ███▌░░ 6,180c/9,882c"
