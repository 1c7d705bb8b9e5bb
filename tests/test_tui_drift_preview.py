"""The what-if panel's result names the NodeClaims a NodePool edit drifts (a loaded what-if file), and
what replaces them, with consolidation off as the panel starts."""

from pathlib import Path

from textual.app import App
from textual.widgets import Static

from karptui.catalog import catalog_from_snapshot_region
from karptui.sources import bundled_snapshot, load_snapshot
from karptui.tui.screens import whatif as whatif_screen
from karptui.tui.screens.whatif import WhatIfScreen
from karptui.whatif import load_whatif

TAINT = """apiVersion: karptui/v1
kind: WhatIf
name: taint-default
edits:
- target: NodePool/default
  patchType: merge
  patch: {spec: {template: {spec: {taints: [{key: dedicated, value: batch, effect: NoSchedule}]}}}}
"""


class Host(App):
    CSS_PATH = str(Path(whatif_screen.__file__).resolve().parent.parent / "app.tcss")

    def __init__(self, snapshot, catalog) -> None:
        super().__init__()
        self.whatif = WhatIfScreen(snapshot, catalog)

    def on_mount(self) -> None:
        self.push_screen(self.whatif)


async def test_running_a_nodepool_taint_lists_the_drifting_nodeclaims(tmp_path):
    snapshot = load_snapshot(bundled_snapshot("multi-nodepool"))
    path = tmp_path / "taint.yaml"
    path.write_text(TAINT)
    async with Host(snapshot, catalog_from_snapshot_region(snapshot)).run_test(size=(160, 50)) as pilot:
        screen = pilot.app.screen
        screen.stack.push(*load_whatif(path).edits)
        screen.query_one("#targets").focus()
        await pilot.press("r")
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        summary = str(screen.query_one("#summary", Static).content)
        assert "drift: 2 NodeClaims would drift" in summary
        assert "default-ghl6z on ip-192-168-3-76" in summary
        assert "NodePoolDrifted: the NodePool's hashed fields changed: spec.template.spec.taints" in summary
        # consolidation is off in the panel by default: drift replaces the nodes all the same, priced
        assert ("default-ghl6z on ip-192-168-3-76 → #2 replace by t4g.small "
                "on-demand in ap-northeast-2a (NodePool team1) at ~$0.0168/h") in summary
        assert ("Karpenter takes 2 (1 replaced, 1 deleted): replacements ~$0.017/h (~$12/mo), "
                "change ~-$0.110/h") in summary
