"""The budgets view: 4 then b in the Disruption pane, or :budgets; b again goes back to the table."""

from textual.widgets import Static

from karptui.sources import bundled_snapshot, load_snapshot
from karptui.tui.app import KarptuiApp
from karptui.whatif import apply_whatif, parse_whatif

SIZE = (160, 45)
NIGHT = {"target": "NodePool/default", "patchType": "merge", "patch": {"spec": {"disruption": {"budgets": [
    {"nodes": "10%"}, {"nodes": "0", "schedule": "0 2 * * *", "duration": "3h", "reasons": ["Underutilized"]}]}}}}
NO_DO_NOT_DISRUPT = {"target": "Deployment/default/report-generator", "remove": True}


def night_app() -> KarptuiApp:
    seed = load_snapshot(bundled_snapshot("consolidation"))
    snapshot = apply_whatif(seed, parse_whatif({"edits": [NO_DO_NOT_DISRUPT, NIGHT]}, "t", "t")).snapshot
    return KarptuiApp(snapshot, simulate_on_start=False)


def budgets_text(app) -> str:
    return str(app.screen.query_one("#budgets-view", Static).render())


async def test_4_then_b_shows_the_timeline_with_now_and_the_held_back_nodes_and_b_goes_back():
    app = night_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("4", "b")
        await app.workers.wait_for_complete()
        await pilot.pause()
        text = budgets_text(app)
        assert text.startswith("Disruption budgets at 2024-09-10 02:20 UTC")
        assert "budget 1: nodes 0, schedule '0 2 * * *' for 3h, Underutilized: active, allows 0; ends Tue 05:00" in text
        assert "now" in text and "Underutilized  0001111111111111111111110  0 allowed now; held back: " in text
        assert "ip-192-168-40-236.ap-northeast-2.compute.internal" in text.split("held back: ")[-1]
        assert not app.screen.query_one("#disruption-table").display
        await pilot.press("b")
        assert app.screen.query_one("#disruption-table").display
        assert not app.screen.query_one("#budgets-scroll").display


async def test_colon_budgets_opens_the_pane_on_the_budgets_view():
    app = night_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("colon", *"budgets", "enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.screen.pane == "disruption"
        assert "NodePool default: 2 initialized node(s), 0 already disrupting" in budgets_text(app)


async def test_a_capture_time_at_the_calendars_end_is_said_not_a_crash():
    """Issue 29 item 16, in the TUI: a snapshot captured at 9999-12-31T23:00 has no 24-hour window;
    the budgets view says so in words (the view owns the rule; the CLI says the same, exit 2)."""
    from dataclasses import replace
    from datetime import datetime, timezone

    seed = load_snapshot(bundled_snapshot("consolidation"))
    late = replace(seed, meta=replace(seed.meta, captured_at=datetime(9999, 12, 31, 23, tzinfo=timezone.utc)))
    app = KarptuiApp(late, simulate_on_start=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("4", "b")
        await app.workers.wait_for_complete()
        await pilot.pause()
        text = budgets_text(app)
        assert "no budgets: 9999-12-31T23:00Z leaves no 24-hour window before the year 9999 ends" in text
        assert "could not be computed" not in text
