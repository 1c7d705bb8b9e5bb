"""The TUI on the bundled demo snapshot, driven as a user would."""

from karptui.sources import bundled_snapshot, load_snapshot
from karptui.tui.app import KarptuiApp


def demo_app() -> KarptuiApp:
    return KarptuiApp(load_snapshot(bundled_snapshot("topology-spread")))


async def test_nodes_grouped_by_zone_and_pending_pods_listed():
    app = demo_app()
    async with app.run_test(size=(160, 45)) as pilot:
        nodes = app.query_one("#nodes")
        keys = [row.value for row in nodes.rows]
        assert keys[0] == "zone:ap-northeast-2a"
        zone_rows = [k for k in keys if k.startswith("zone:")]
        assert zone_rows == ["zone:ap-northeast-2a", "zone:ap-northeast-2b", "zone:ap-northeast-2c"]
        assert len(keys) == 9 + 3
        pending = app.query_one("#pending")
        assert pending.row_count == 6
        first = pending.get_row_at(0)
        assert first[1] == "Deployment/default/host-spread"
        assert "didn't match pod topology spread constraints" in first[6]
        await pilot.press("j", "j")
        assert nodes.cursor_row == 2
        await pilot.press("tab", "j")
        assert app.focused is pending and pending.cursor_row == 1
        await pilot.press("q")
    assert app.return_code == 0


def test_demo_screen(snap_compare):
    assert snap_compare(demo_app(), terminal_size=(160, 45))
