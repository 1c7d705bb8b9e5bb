"""Issue 14 on the TUI: the header's times and cost, ``-n NS`` on a snapshot, screenshots."""

import dataclasses
from datetime import datetime, timezone

import pytest
from textual.widgets import Static

from karptui.sources import bundled_snapshot, load_snapshot
from karptui.tui.app import KarptuiApp
from karptui.tui.widgets import VirtualTable
from karptui.views.clock import UNKNOWN_NOTE, snapshot_clock

SIZE = (160, 45)
UNDATED = ["consolidation", "multi-nodepool", "overprovisioning"]  # kubectl dumps: no capture time


def app_on(name: str, **kwargs) -> KarptuiApp:
    return KarptuiApp(load_snapshot(bundled_snapshot(name)), **kwargs)


def header(app: KarptuiApp) -> str:
    return str(app.screen.query_one("#source", Static).render())


def ages(app: KarptuiApp) -> dict[str, str]:
    """Node -> its age cell, as the Nodes pane shows it."""
    table = app.screen.query_one("#nodes-table", VirtualTable)
    column = [str(c) for c in table.columns].index("age")
    return {k[len("node:"):]: table.row(k)[column] for k in table.keys if k.startswith("node:")}


@pytest.mark.parametrize("name", UNDATED)
async def test_a_dump_without_a_capture_time_counts_ages_from_its_newest_timestamp(name):
    app = app_on(name, simulate_on_start=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert UNKNOWN_NOTE in " ".join(header(app).split())
        shown = ages(app)
        assert shown and not [a for a in shown.values() if a.endswith(("y", "d"))]  # they were all "2y"


async def test_the_consolidation_dumps_ages_read_as_its_operator_saw_them():
    app = app_on("consolidation", simulate_on_start=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert ages(app) == {"ip-192-168-108-178.ap-northeast-2.compute.internal": "65m",
                             "ip-192-168-118-56.ap-northeast-2.compute.internal": "15m",
                             "ip-192-168-40-236.ap-northeast-2.compute.internal": "10m",
                             "ip-192-168-165-252.ap-northeast-2.compute.internal": "65m"}
        assert "(2024-09-10 02:20 UTC)" in header(app)  # the newest timestamp: an Event's lastTimestamp


def test_the_clock_prefers_the_capture_time_then_the_newest_timestamp():
    saved = load_snapshot(bundled_snapshot("topology-spread"))
    clock = snapshot_clock(saved)
    assert clock.known and clock.now == saved.meta.captured_at and clock.note == ""
    dump = snapshot_clock(load_snapshot(bundled_snapshot("consolidation")))
    assert not dump.known and dump.now == datetime(2024, 9, 10, 2, 20, 7, tzinfo=timezone.utc)
    wall = datetime(2030, 1, 1, tzinfo=timezone.utc)
    assert snapshot_clock(saved, live=True, wall=wall).now == wall


async def test_a_saved_snapshot_keeps_its_capture_time():
    app = app_on("topology-spread", simulate_on_start=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        text = header(app)
        assert "captured 2023-05-20T11:05:12+00:00" in text and UNKNOWN_NOTE not in " ".join(text.split())


async def test_the_header_shows_the_one_cost_model():
    app = app_on("topology-spread", simulate_on_start=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        before = " ".join(header(app).split())
        assert "now ~$2.320/h (~$1,694/mo) (~: 2 unpriced, 7 prices estimated)" in before
        app.run_simulation()
        await app.workers.wait_for_complete()
        await pilot.pause()
        after = " ".join(header(app).split())
        assert ("now ~$2.320/h (~$1,694/mo) → after provisioning ~$2.771/h (~$2,023/mo) "
                "(~: 2 unpriced, 10 prices estimated)") in after


@pytest.mark.parametrize("namespace, pods", [("kube-system", 0), ("default", 6)])
async def test_namespace_narrows_the_pending_pane_on_a_snapshot(namespace, pods):
    app = app_on("topology-spread", namespace=namespace)
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        await pilot.press("2")
        keys = list(app.screen.query_one("#pending-table", VirtualTable).keys)
        assert len([k for k in keys if k.startswith("pod:")]) == pods
        text = " ".join(header(app).split())
        assert f"pods of namespace {namespace} (simulated: whole cluster)" in text
        assert "simulated: 6 pods placed, 3 NodeClaims launched" in text  # the simulation is the whole cluster's


def test_namespace_may_follow_open_and_demo():
    from karptui.cli.parser import build_parser

    parser = build_parser()
    assert parser.parse_args(["open", "x", "-n", "team"]).namespace == "team"
    assert parser.parse_args(["-n", "team", "demo"]).namespace == "team"
    assert parser.parse_args(["demo"]).namespace is None
    assert parser.parse_args(["--readonly", "demo"]).readonly is True


async def _screenshot(app: KarptuiApp, pilot) -> list:
    app.action_screenshot()
    for _ in range(100):  # the driver writes it in a thread, then tells the app
        await pilot.pause(0.05)
        said = [n for n in app._notifications if n.title == "Screenshot"]
        if said:
            return said
    return []


@pytest.fixture
def home(tmp_path, monkeypatch):
    """A home directory with no Downloads folder, and a working directory of its own."""
    (tmp_path / "home").mkdir()
    (tmp_path / "work [1]").mkdir()
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "home" / ".config"))
    monkeypatch.delenv("XDG_DOWNLOAD_DIR", raising=False)
    monkeypatch.chdir(tmp_path / "work [1]")
    return tmp_path


async def test_a_screenshot_without_downloads_goes_to_the_current_directory(home):
    app = app_on("topology-spread", simulate_on_start=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        said = await _screenshot(app, pilot)
    (saved,) = (home / "work [1]").glob("*.svg")
    assert [n.message for n in said] == [f"screenshot saved to {saved}"]  # the path's [1] shown, not markup
    assert not (home / "home" / "Downloads").exists()


async def test_a_screenshot_goes_to_downloads_when_it_exists(home):
    (home / "home" / "Downloads").mkdir()
    app = app_on("topology-spread", simulate_on_start=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        said = await _screenshot(app, pilot)
    (saved,) = (home / "home" / "Downloads").glob("*.svg")
    assert [n.message for n in said] == [f"screenshot saved to {saved}"]
    assert not list((home / "work [1]").glob("*.svg"))


def test_a_nodes_heartbeat_counts_and_a_bad_one_is_only_ignored():
    from karptui.model import build_snapshot
    from tests.conftest import node_obj, pod_obj

    beating, broken = node_obj("n1"), node_obj("n2")
    beating["status"]["conditions"] = [{"type": "Ready", "status": "True", "lastHeartbeatTime": "2024-05-02T09:30:00Z",
                                        "lastTransitionTime": "2024-05-01T10:01:00Z"}]
    broken["status"]["conditions"] = [{"type": "Ready", "status": "True", "lastHeartbeatTime": "yesterday"}]
    snapshot = build_snapshot([beating, broken, pod_obj("p")])
    assert [n.name for n in snapshot.nodes] == ["n1", "n2"] and not snapshot.warnings
    clock = snapshot_clock(snapshot)
    assert clock.now == datetime(2024, 5, 2, 9, 30, tzinfo=timezone.utc) and not clock.known


async def test_karpenter_reasons_arriving_later_keep_the_namespace():
    from karptui.logs import LogParser
    from karptui.tui.app import LogsAppended
    from tests.test_logs import SEED_LINE

    app = app_on("topology-spread", namespace="kube-system")
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        await pilot.press("2")
        app.post_message(LogsAppended(list(LogParser().parse([SEED_LINE]))))
        await pilot.pause()
        assert app.pending == [] and list(app.screen.query_one("#pending-table", VirtualTable).keys) == ["empty"]


# ---- the start-up simulation must not hold the screen -----------------------------------------------

async def test_the_start_up_simulation_runs_in_another_process_and_its_answer_comes_back(monkeypatch):
    """On 5,000 nodes the simulation, in a thread beside the screen, held Python's global lock: the
    first paint took 5.6 s and a key up to 1.3 s. Forked, it runs beside the screen, not in it."""
    import os

    import karptui.sim
    from karptui.tui import forked

    if not forked.IN_CHILD_PROCESS:
        pytest.skip("this platform cannot fork: the simulation runs in a thread")
    real = karptui.sim.simulate

    def simulate(snapshot, **kwargs):
        result = real(snapshot, **kwargs)
        return dataclasses.replace(result, notes=(*result.notes, f"pid {os.getpid()}"))

    monkeypatch.setattr(karptui.sim, "simulate", simulate)
    app = app_on("topology-spread")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()                # the simulation starts after the first paint
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.result is not None and f"pid {os.getpid()}" not in app.result.notes
        assert any(note.startswith("pid ") for note in app.result.notes)
        assert app.result.snapshot is app.snapshot                       # joined again to the snapshot shown
        assert all(a.pod is app.snapshot.pod_by_key[a.pod.key] for a in app.result.attempts)
        assert "simulated: 6 pods placed, 3 NodeClaims launched" in " ".join(header(app).split())


async def test_starting_workers_never_prints_the_snapshot(monkeypatch):
    """Textual names a worker after the repr of its arguments unless it is given a description: the
    repr of a 5,000-node snapshot took 6 s before the first paint."""
    from karptui.model import Snapshot

    printed = []
    monkeypatch.setattr(Snapshot, "__repr__", lambda self: printed.append(1) or "Snapshot(...)")
    app = app_on("topology-spread")
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        await pilot.press("4", "w")       # the Disruption pane's worker, the what-if panel's
        await pilot.press("ctrl+r")
        await app.workers.wait_for_complete()
        await pilot.pause()
    assert printed == []


def test_counts_in_the_header_are_said_in_words():
    """Issue 29: "6 schedule", "1 nodepools", "1 new nodes"."""
    from karptui.views.format import counted
    from karptui.views.overview import header_simulated

    assert [counted(n, "nodepool") for n in (0, 1, 2, 5000)] == ["0 nodepools", "1 nodepool", "2 nodepools",
                                                                  "5,000 nodepools"]
    assert header_simulated(1, 1) == "simulated: 1 pod placed, 1 NodeClaim launched"
