"""``y``: a node's or pod's manifest, from a pane or from its drill-in (issue 29: on a pod it only ever
said "the snapshot kept no manifest" although the file held it, and in drill-ins it did nothing).

The model keeps no pod manifests (memory at 50,000 pods): the app reads the one asked for again,
from the snapshot's file or, live, from the API server.
"""

from __future__ import annotations

import pytest

from karptui.sources import bundled_snapshot, load_snapshot
from karptui.tui.app import KarptuiApp
from karptui.tui.screens.detail import DetailScreen
from karptui.tui.screens.main import MainScreen

from tests.test_live import api, live  # noqa: F401  (the fake API server and a LiveCluster on it)

SIZE = (160, 45)


async def until_yaml(pilot, app, text: str) -> str:
    """The YAML screen's text once it holds ``text`` (read in a worker: it may take a moment)."""
    for _ in range(400):
        await pilot.pause(0.05)
        screen = app.screen
        if isinstance(screen, DetailScreen) and "(YAML)" in screen.heading:
            body = "\n".join(screen.sections["YAML"])
            if text in body:
                return body
    raise AssertionError(f"no YAML with {text!r}: {getattr(app.screen, 'sections', None)}")


def pending_pod(app) -> str:
    """The first pending pod, the Pending pane's cursor put on it (the first rows group pods by owner)."""
    table = app.screen.query_one("#pending-table")
    key = next(k for k in table.keys if k.startswith("pod:"))
    table.move_cursor(table.keys.index(key))
    return key.partition(":")[2]


@pytest.mark.parametrize("from_drill_in", [False, True], ids=["in the Pending pane", "in the pod's drill-in"])
async def test_y_on_a_pod_shows_its_manifest_from_the_file(from_drill_in):
    path = bundled_snapshot("topology-spread")
    app = KarptuiApp(load_snapshot(path), simulate_on_start=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("2")
        await pilot.pause()
        name = pending_pod(app)
        namespace, _, short = name.partition("/")
        if from_drill_in:
            await pilot.press("enter")
            await pilot.pause()
            assert isinstance(app.screen, DetailScreen) and app.screen.heading == f"pod {name}"
        await pilot.press("y")
        body = await until_yaml(pilot, app, "kind: Pod")
        assert f"  name: {short}" in body and f"  namespace: {namespace}" in body and "containers:" in body
        assert "kept no manifest" not in body
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, DetailScreen if from_drill_in else MainScreen)


async def test_y_in_a_node_drill_in_shows_the_node():
    app = KarptuiApp(load_snapshot(bundled_snapshot("topology-spread")), simulate_on_start=False)
    async with app.run_test(size=SIZE) as pilot:
        node = next(n for n in app.snapshot.nodes if n.name.startswith("ip-"))
        app.drill("node", node.name)
        await pilot.pause()
        await pilot.press("y")
        body = await until_yaml(pilot, app, "kind: Node")
        assert f"  name: {node.name}" in body


async def test_a_pod_gone_from_the_file_is_said_not_an_error(tmp_path):
    path = tmp_path / "cluster.yaml"
    path.write_text(bundled_snapshot("topology-spread").read_text())
    app = KarptuiApp(load_snapshot(path), simulate_on_start=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("2")
        await pilot.pause()
        name = pending_pod(app)
        path.write_text("apiVersion: v1\nkind: List\nitems: []\n")  # the file changed since it was opened
        await pilot.press("y")
        body = await until_yaml(pilot, app, "is not in")
        assert body == f"(Pod {name} is not in {path})"


async def test_live_y_reads_the_pod_from_the_api_server(api, live):  # noqa: F811
    assert live.wait_synced(10)
    app = KarptuiApp(live.snapshot(), live=live, logs_since=0, simulate_on_start=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("2")
        await pilot.pause()
        assert pending_pod(app) == "default/pending-0"
        before = len(api.requests)
        await pilot.press("y")
        body = await until_yaml(pilot, app, "kind: Pod")
        assert "  name: pending-0" in body
        gets = [path for method, path, _ in api.requests[before:] if method == "GET"]
        assert any(p.endswith("/namespaces/default/pods/pending-0") for p in gets), gets
