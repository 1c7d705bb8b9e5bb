"""The main screen answers at a glance: columns that fit, zone balance, pending answers in place, k9s keys."""

from __future__ import annotations

from textual.widgets import DataTable, Static, TabbedContent

from karptui.model import build_snapshot
from karptui.sources import bundled_snapshot, load_snapshot
from karptui.tui.app import KarptuiApp
from karptui.tui.keybar import KeyBar
from karptui.tui.screens.help import HelpScreen
from karptui.tui.screens.main import MainScreen
from karptui.tui.widgets import VirtualTable
from tests.conftest import node_obj, pod_obj

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
    return 0 < sum(table.widths) + 2 * (len(table.widths) - 1) <= table.size.width


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
        for pane in ("2", "3"):  # the nodes pane's nine columns scroll sideways at 80
            await pilot.press(pane)
            await pilot.pause()
            assert fits(app.screen.table())


# ---- bug: ctrl+c did not quit ----------------------------------------------------------------------

async def test_ctrl_c_quits_and_the_key_bar_says_so():
    app = demo_app(simulate_on_start=False)
    async with app.run_test(size=WIDE) as pilot:
        bar = app.screen.query_one(KeyBar).hints().plain
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
    async with app.run_test(size=SMALL) as pilot:
        await pilot.pause()
        nodes = app.screen.query_one("#nodes-table", VirtualTable)
        first_screen = nodes.keys[: nodes.size.height - 1]
        assert {"zone:us-east-1a", "zone:us-east-1b", "zone:us-east-1c"} <= set(first_screen)
        # enter on a zone row unfolds it, space folds it again
        nodes.move_cursor(nodes.keys.index("zone:us-east-1b"))
        await pilot.press("enter")
        assert sum(k.startswith("node:") for k in nodes.keys) == 100
        await pilot.press("space")
        assert not any(k.startswith("node:") for k in nodes.keys)


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
        assert ("r", "Run what-if") in {(r[0], r[1]) for r in rows}


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
        assert screen.query_one(TabbedContent).active == "pending"
