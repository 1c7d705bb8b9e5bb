"""SVG snapshots of the what-if panel at 80x24 (stacked) and 160x45 (side by side), after a run.

Apart from tests/test_tui_whatif.py because that module's ``snapshot`` fixture (the bundled
cluster) would hide pytest-textual-snapshot's own.
"""

from karptui.sources import bundled_snapshot, load_snapshot


def test_whatif_panel_80x24(snap_compare):
    assert snap_compare(panel_app(), terminal_size=(80, 24), run_before=_ran)


def test_whatif_panel_160x45(snap_compare):
    assert snap_compare(panel_app(), terminal_size=(160, 45), run_before=_ran)


def panel_app():
    from karptui.tui.app import KarptuiApp

    return KarptuiApp(load_snapshot(bundled_snapshot("topology-spread")), simulate_on_start=False)


async def _ran(pilot) -> None:
    """The panel on host-spread: the hostname constraint dropped with x, run with ctrl+r."""
    await pilot.press("w")
    await pilot.pause()
    await pilot.press("enter", "x", "ctrl+r")
    screen = pilot.app.screen
    zones = screen.query_one("#zones")
    for _ in range(400):  # the run's worker, then its answer drawn (a bare wait_for_complete could come first)
        await pilot.pause(0.05)
        if screen.worker is not None and screen.worker.is_finished and "Results — what-if" in str(
                screen.query_one("#results-title").render()) and zones.row_count:
            break
    # the tables size their columns to the rows on a later refresh: on a loaded machine a fixed
    # wait caught the zone table's header still at the widths of its titles alone, so wait until
    # looks in a row draw the same screen
    # (an unchanged screen alone was not enough: a loaded machine showed the same unsized header
    # twice), so also until no table has rows whose widths it has yet to take in (Textual's own flag);
    # and three looks alike, each after the screen's queued messages are handled (CI once still
    # caught a screen that was not the settled one)
    shown, alike = None, 0
    for _ in range(200):
        await pilot.pause()
        await pilot.pause(0.05)
        now = pilot.app.export_screenshot()
        settled = not any(table._require_update_dimensions for table in screen.query("DataTable"))
        alike = alike + 1 if now == shown and settled else 0
        if alike == 2:
            break
        shown = now
