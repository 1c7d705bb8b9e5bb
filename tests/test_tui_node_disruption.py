"""A node's drill-in on the consolidation seed says why each disruption method leaves or takes it."""

from textual.widgets import Static

from karptui.sources import bundled_snapshot, load_snapshot
from karptui.tui import forked
from karptui.tui.app import KarptuiApp
from karptui.tui.screens.detail import DetailScreen
from karptui.tui.widgets import VirtualTable
from tests.test_tui_disruption import Gate

SIZE = (160, 45)
XLARGE = "ip-192-168-118-56.ap-northeast-2.compute.internal"
TWO_XLARGE = "ip-192-168-40-236.ap-northeast-2.compute.internal"
DO_NOT_DISRUPT_POD = "default/report-generator-q7smww69c-qqgq9"


def seed_app(**kwargs) -> KarptuiApp:
    return KarptuiApp(load_snapshot(bundled_snapshot("consolidation")), **kwargs)


async def drill_into(app, pilot, node: str) -> DetailScreen:
    """`1`, the cursor down to the node's row, `enter`."""
    await pilot.press("1")
    nodes = app.screen.query_one("#nodes-table", VirtualTable)
    await pilot.press(*["j"] * nodes.keys.index(f"node:{node}"))
    await pilot.press("enter")
    assert isinstance(app.screen, DetailScreen) and app.screen.node == node
    return app.screen


def section(screen: DetailScreen, name: str) -> str:
    """A section's lines as the drill-in draws them: after a blank line and its name, up to the next one's."""
    lines = str(screen.query_one("#sections", Static).render()).split("\n")
    names = list(screen.sections)
    start = next(i + 1 for i, line in enumerate(lines) if line == name and i and not lines[i - 1])
    later = set(names[names.index(name) + 1:])
    end = next((i - 1 for i in range(start, len(lines)) if lines[i] in later and not lines[i - 1]), len(lines))
    return "\n".join(lines[start:end])


async def test_the_drill_in_names_the_do_not_disrupt_pod_for_every_method():
    app = seed_app()
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        screen = await drill_into(app, pilot, TWO_XLARGE)
        await app.workers.wait_for_complete()
        await pilot.pause()
        shown = section(screen, "disruption")
        assert f"blocked: blocked by pod {DO_NOT_DISRUPT_POD} (karpenter.sh/do-not-disrupt)" in shown
        assert ('every method: blocked — pod has "karpenter.sh/do-not-disrupt" annotation '
                f'(Pod={DO_NOT_DISRUPT_POD}): set to "true"') in shown


async def test_the_drill_in_fills_in_when_the_simulation_lands_and_tells_karpenters_pdb_event(monkeypatch, tmp_path):
    """Without a simulation on start, `1` `enter` starts it: the section says computing, then each
    method's verdict; the node Karpenter's event said the PDB blocked names the PDB and its pods."""
    monkeypatch.setattr(forked, "IN_CHILD_PROCESS", False)
    gate = Gate(monkeypatch, tmp_path)  # the simulation waits until the test has looked
    app = seed_app(simulate_on_start=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = await drill_into(app, pilot, XLARGE)
        await pilot.pause(0.1)
        assert section(screen, "disruption").startswith("computing…")
        gate.open()
        await app.workers.wait_for_complete()
        await pilot.pause()
        shown = section(screen, "disruption").replace("\n", " ")
        assert "emptiness: skipped — not empty: 4 pod(s) would have to move" in shown
        assert "drift: skipped — not drifted" in shown
        assert ("single-node consolidation: delete — would be deleted (its 4 pod(s) fit on other nodes), saving "
                "$0.1540/h; PDB default/inflate-pdb guards 3 of its pods and allows 1 disruption now") in shown
        assert ("Karpenter said: blocked by PDB default/inflate-pdb (no disruption allowed), guarding pods "
                "default/inflate-wjq4g8lgtc-n7hj5") in shown


async def test_the_disruption_pane_lists_each_methods_verdict_under_the_node():
    app = seed_app()
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        await pilot.press("4")
        pane = app.screen.query_one("#disruption-table", VirtualTable)
        start = pane.keys.index(f"node:{XLARGE}")
        under = [row[-1].strip() for key, row in zip(pane.keys[start:], pane.rows[start:])
                 if key.startswith("method") and key.endswith(f":{XLARGE}")]
        assert under[0] == "emptiness: skipped — not empty: 4 pod(s) would have to move"
        assert under[3].startswith("single-node consolidation: delete — would be deleted")
        assert pane.row(f"method0:{TWO_XLARGE}")[-1].strip().startswith(
            f'every method: blocked — pod has "karpenter.sh/do-not-disrupt" annotation (Pod={DO_NOT_DISRUPT_POD})')
