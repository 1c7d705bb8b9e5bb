"""The Disruption pane on the consolidation seed, driven as a user would; its worker never blocks keys."""

import asyncio
import os
import threading
import time

import pytest
from textual.widgets import Static

import karptui.sim
from karptui.sources import bundled_snapshot, load_snapshot
from karptui.tui import forked
from karptui.tui.app import KarptuiApp
from karptui.tui.disruption import DisruptionPane
from karptui.tui.widgets import VirtualTable
from tests.conftest import settled as after_keys

SIZE = (160, 45)
XLARGE = "ip-192-168-118-56.ap-northeast-2.compute.internal"
TWO_XLARGE = "ip-192-168-40-236.ap-northeast-2.compute.internal"
DO_NOT_DISRUPT_POD = "default/report-generator-q7smww69c-qqgq9"
INFLATE_ON_XLARGE = ", ".join(f"default/inflate-wjq4g8lgtc-{p}" for p in ("n7hj5", "n92md", "smtdw"))


def seed_app(**kwargs) -> KarptuiApp:
    return KarptuiApp(load_snapshot(bundled_snapshot("consolidation")), **kwargs)


def status(app) -> str:
    return str(app.screen.query_one("#disruption-status", Static).render())


def table(app, pane: str) -> VirtualTable:
    return app.screen.query_one(f"#{pane}-table", VirtualTable)


def lines_under(table: VirtualTable, node: str) -> list[str]:
    """The node's row and the lines that explain it, as one string each."""
    keys = table.keys
    start = keys.index(f"node:{node}")
    out = [" ".join(table.rows[start])]
    for key, row in zip(keys[start + 1:], table.rows[start + 1:]):
        if not key.endswith(f":{node}") or key.startswith("node:"):
            break
        out.append(row[-1].strip())
    return out


# how long a held simulation waits for its test at most: a test that fails before it lets the simulation go
# would otherwise leave the worker thread waiting, and the event loop's teardown waiting for it, for ever
HOLD_AT_MOST = 120.0


class Gate:
    """A stand-in for the simulator that waits until opened, reporting progress while it waits
    (as the real one does), so a test can see the pane and the keys while it computes. It talks
    through files, which a forked child shares and a killed one cannot leave locked."""

    def __init__(self, monkeypatch, where) -> None:
        self.flag, self.pidfile = where / "open", where / "pid"
        self.stopped = threading.Event()   # the in-thread run raised out of its progress call
        real = karptui.sim.simulate

        def simulate(snapshot, **options):
            self.pidfile.write_text(str(os.getpid()))
            progress, calls = options.get("progress"), 0
            try:
                held_until = time.monotonic() + HOLD_AT_MOST
                while not self.flag.exists() and time.monotonic() < held_until:
                    time.sleep(0.01)
                    calls += 1
                    progress("consolidation", calls, 4)
            except BaseException:
                self.stopped.set()
                raise
            return real(snapshot, **options)

        monkeypatch.setattr(karptui.sim, "simulate", simulate)

    def open(self) -> None:
        self.flag.touch()

    @property
    def pid(self) -> int:
        return int(self.pidfile.read_text()) if self.pidfile.exists() else 0

    def ended(self, pid: int | None = None) -> bool:
        """The run was stopped: the thread's simulation raised, or its child process is gone."""
        pid = self.pid if pid is None else pid
        if pid in (0, os.getpid()):
            return self.stopped.is_set()
        return _gone(pid)


@pytest.fixture(params=[True, False], ids=["in a child process", "in the worker thread"])
def where(request, monkeypatch):
    """Both ways the pane computes: a forked child (where the platform forks) and the thread."""
    if request.param and not forked.IN_CHILD_PROCESS:
        pytest.skip("this platform does not fork")
    monkeypatch.setattr(forked, "IN_CHILD_PROCESS", request.param)
    return request.param


async def test_the_pane_names_the_do_not_disrupt_pod_and_the_pods_karpenters_pdb_event_blocked():
    app = seed_app()
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        await pilot.press("4")
        assert app.screen.pane == "disruption"
        pane = table(app, "disruption")
        assert app.focused is pane
        blocked = lines_under(pane, TWO_XLARGE)
        assert blocked[0].startswith("blocked")
        assert blocked[1] == f"blocked by pod {DO_NOT_DISRUPT_POD} (karpenter.sh/do-not-disrupt)"
        deleted = lines_under(pane, XLARGE)
        assert deleted[0].startswith("delete #1 $0.1540/h")
        assert deleted[2].startswith("Karpenter said: blocked by PDB default/inflate-pdb (no disruption allowed), "
                                     f"guarding pods {INFLATE_ON_XLARGE}")
        assert status(app).startswith("1 command (1 delete, 0 replace) would save $0.1540/h; 1 node blocked")
        await pilot.press("j", "enter")  # the first node's row drills into that node
        assert app.screen.__class__.__name__ == "DetailScreen"


async def test_the_nodes_pane_shows_each_nodes_consolidation_mark():
    app = seed_app()
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        nodes = table(app, "nodes")
        assert nodes.columns[-1] == "consolidation"
        assert nodes.row(f"node:{XLARGE}")[-1] == ("#1 delete, saves $0.154/h · "
                                                   "Karpenter said blocked: PDB default/inflate-pdb")
        assert nodes.row(f"node:{TWO_XLARGE}")[-1] == "blocked: do-not-disrupt pod report-generator-q7smww69c-qqgq9"


async def test_slash_filters_the_pane_and_escape_restores_it():
    app = seed_app()
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        await pilot.press("4", "slash", *"do-not-disrupt", "enter")
        keys = table(app, "disruption").keys
        assert f"node:{TWO_XLARGE}" in keys and f"node:{XLARGE}" not in keys
        await pilot.press("escape")
        assert f"node:{XLARGE}" in table(app, "disruption").keys


async def test_colon_disruption_opens_the_pane_and_computes_it_when_the_app_did_not_on_start():
    app = seed_app(simulate_on_start=False)
    async with app.run_test(size=SIZE) as pilot:
        assert "press 4" in " ".join(table(app, "disruption").rows[0])
        await pilot.press("colon", *"disruption", "enter")
        assert app.screen.pane == "disruption"
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert f"node:{TWO_XLARGE}" in table(app, "disruption").keys


async def test_it_says_computing_until_the_worker_answers_and_keys_work_meanwhile(where, monkeypatch, tmp_path):
    gate = Gate(monkeypatch, tmp_path)
    app = seed_app(simulate_on_start=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("4")
        await pilot.pause(0.1)
        assert status(app).startswith("computing…")
        assert table(app, "disruption").keys == ["empty"]
        await pilot.press("1", "j", "j")  # the worker is busy; the screen is not
        assert app.screen.pane == "nodes"
        assert table(app, "nodes").cursor_row == 2
        await pilot.press("4")
        assert status(app).startswith("computing… consolidation")
        gate.open()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert status(app).startswith("1 command")
        assert f"node:{XLARGE}" in table(app, "disruption").keys


async def test_a_live_change_while_computing_is_queued_not_restarted(where, monkeypatch, tmp_path):
    """A live cluster changes every few seconds and a big one takes minutes to simulate: restarting
    on every change, the pane never answered. The run under way finishes and shows; only the newest
    state queued meanwhile is computed next; the states in between are skipped."""
    gate = Gate(monkeypatch, tmp_path)
    launched = []
    real = DisruptionPane._launch
    monkeypatch.setattr(DisruptionPane, "_launch", lambda self, key, *rest: (launched.append(key),
                                                                              real(self, key, *rest)))
    app = seed_app(simulate_on_start=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("4")
        await pilot.pause(0.1)
        pane = app.screen.query_one(DisruptionPane)
        (first,) = [w for w in app.workers if w.group == "disruption"]
        shown = pane.running
        pane.start("state 2", app.snapshot, app.catalog, [])
        pane.start("state 3", app.snapshot, app.catalog, [])
        await pilot.pause(0.2)
        assert not first.is_cancelled and pane.running == shown
        assert "its newest state is computed next" in status(app)
        gate.open()
        for _ in range(200):  # the first run's answer, then the queued one's (the worker that posted
            await pilot.pause(0.05)  # an answer may be cancelled on its way out by the next one: harmless)
            if pane.key == "state 3":
                break
        assert launched == [shown, "state 3"]
        assert pane.key == "state 3" and pane.running is None and pane.view is not None


async def test_karpenters_new_log_lines_reach_the_pane_without_simulating_again(monkeypatch):
    from karptui.tui.app import LogsAppended

    runs = []
    real = karptui.sim.simulate
    monkeypatch.setattr(karptui.sim, "simulate", lambda *a, **k: (runs.append(1), real(*a, **k))[1])
    monkeypatch.setattr(forked, "IN_CHILD_PROCESS", False)  # count the runs in this process
    app = seed_app()
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        await pilot.press("4")
        await app.workers.wait_for_complete()
        await pilot.pause()
        before = len(runs)
        assert not any("line 7" in line for line in lines_under(table(app, "disruption"), TWO_XLARGE))
        app.post_message(LogsAppended([{"kind": "disruption_blocked", "line": 7, "node": TWO_XLARGE,
                                        "reason": 'node is annotated with "karpenter.sh/do-not-disrupt", blocked '
                                                  'through the "karpenter.sh/do-not-disrupt" annotation'}]))
        await pilot.pause()
        said = lines_under(table(app, "disruption"), TWO_XLARGE)
        assert "Karpenter said: blocked by the node's own karpenter.sh/do-not-disrupt annotation (log line 7)" \
            in said
        assert len(runs) == before


async def test_quitting_cancels_the_worker(where, monkeypatch, tmp_path):
    """Quitting stops the run, in a child process or the thread. On a busy machine the child may
    start, and be killed, seconds later: the test waits for each event, not for a fixed time."""
    gate = Gate(monkeypatch, tmp_path)
    app = seed_app(simulate_on_start=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("4")
        (worker,) = [w for w in app.workers if w.group == "disruption"]
        await _until(lambda: gate.pid, pilot.pause)  # the simulation is under way
        await pilot.press("q")
    assert worker.is_cancelled
    assert await _until(gate.ended, asyncio.sleep)


async def _until(condition, pause, seconds: float = 60.0):
    """``condition()`` once it holds, polling; its last value when ``seconds`` run out."""
    deadline = time.monotonic() + seconds
    while not (held := condition()) and time.monotonic() < deadline:
        await pause(0.05)
    return held


async def test_a_failing_simulation_is_said_not_left_computing(where, monkeypatch):
    def broken(snapshot, **options):
        raise ValueError("no such offering")

    monkeypatch.setattr(karptui.sim, "simulate", broken)
    app = seed_app(simulate_on_start=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("4")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert status(app) == "the simulation failed: ValueError: no such offering"
        assert table(app, "disruption").rows == [("", "", "(no answer: see above)")]



def hold_after_first_command(monkeypatch, tmp_path):
    """The simulation, once it has told its first command, waits until the returned file exists (a file, so
    a forked child sees it too)."""
    flag = tmp_path / "open"
    real = karptui.sim.simulate

    def simulate(snapshot, **options):
        tell = options["found"]

        def found(command):
            tell(command)
            held_until = time.monotonic() + HOLD_AT_MOST
            while not flag.exists() and time.monotonic() < held_until:
                time.sleep(0.01)

        return real(snapshot, **{**options, "found": found})

    monkeypatch.setattr(karptui.sim, "simulate", simulate)
    return flag

async def test_the_first_decision_shows_while_the_rest_of_the_plan_computes(where, monkeypatch, tmp_path):
    """The simulation is held after telling its first command (a file opens it, which a forked
    child sees too): the pane lists that command under "found so far", then the whole answer. Also when
    the command comes before the pane switch's layout (a warm run, as after another test of this file:
    the pane once waited for its next layout and missed it)."""
    flag = hold_after_first_command(monkeypatch, tmp_path)
    app = seed_app(simulate_on_start=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("4")
        pane = table(app, "disruption")
        for _ in range(400):
            await pilot.pause(0.05)
            if "group:found" in pane.keys:
                break
        assert pane.rows[:2] == [("▼ found (1)",),
                                 ("", "", f"delete #1 (underutilized): {XLARGE}, saves $0.1540/h")]
        assert status(app).startswith("computing…")
        flag.touch()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert "group:found" not in pane.keys
        assert lines_under(pane, XLARGE)[0].startswith("delete #1 $0.1540/h")
        assert status(app).startswith("1 command (1 delete, 0 replace)")


async def test_what_the_worker_tells_while_another_pane_is_shown_is_there_when_the_pane_is(monkeypatch, tmp_path):
    """Issue 28: the pane draws the worker's progress and found commands only while it is shown (a
    status update lays out the whole screen, four times a second for minutes on a big cluster); what
    came meanwhile is on screen as soon as 4 is pressed."""
    flag = hold_after_first_command(monkeypatch, tmp_path)
    app = seed_app(simulate_on_start=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("4", "1")   # started, then the Nodes pane shown while it computes
        pane = app.screen.query_one(DisruptionPane)
        for _ in range(1200):
            await pilot.pause(0.05)
            if pane.found:
                break
        assert pane.found
        await pilot.press("4")
        await pilot.pause()
        assert table(app, "disruption").rows[:2] == [
            ("▼ found (1)",), ("", "", f"delete #1 (underutilized): {XLARGE}, saves $0.1540/h")]
        assert status(app).startswith("computing…")
        flag.touch()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert status(app).startswith("1 command (1 delete, 0 replace)")


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def test_a_newer_answer_supersedes_an_older_one_still_queued():
    older, newer = DisruptionPane.Computed("a", None), DisruptionPane.Computed("b", None)
    assert newer.can_replace(older)
    assert DisruptionPane.Progress("b", "x").can_replace(DisruptionPane.Progress("a", "y"))
    assert not newer.can_replace(DisruptionPane.Progress("a", "y"))




def test_disruption_screen(snap_compare):
    assert snap_compare(seed_app(), terminal_size=SIZE, run_before=after_keys("4"))


def test_disruption_screen_80x24(snap_compare):
    assert snap_compare(seed_app(), terminal_size=(80, 24), run_before=after_keys("4"))
