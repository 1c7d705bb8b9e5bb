"""The History pane, driven as a user would, on real-shaped logs: the NodeClaims' lives, the chains and the
hours ``karptui history`` prints, "why did it go" in the same words as ``--node``, its lines with ``y``,
and a worker that never blocks keys. The expectations quote what the fixture's lines say."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from textual.widgets import Static

import karptui.history.snapshot
from karptui.sources import bundled_snapshot, load_snapshot
from karptui.sources.logs import attach_logs
from karptui.tui import forked
from karptui.tui.app import KarptuiApp
from karptui.tui.history import HistoryPane
from karptui.tui.screens.detail import DetailScreen
from karptui.tui.widgets import VirtualTable
from tests.conftest import settled as after_keys

WIDE = (160, 45)
SMALL = (80, 24)
HERE = Path(__file__).parent
CHAIN = HERE / "fixtures" / "history" / "chain-v1.log"      # a replace, then a drift replace of the replacement
E040 = HERE / "log_corpus" / "e-040.log"                     # lp4k's sample: deletes, an interruption, a launch


def app_with(log: Path | None = None, **kwargs) -> KarptuiApp:
    snapshot = load_snapshot(bundled_snapshot("consolidation"))
    if log is not None:
        snapshot = attach_logs(snapshot, log)
    return KarptuiApp(snapshot, simulate_on_start=False, **kwargs)


def pane(app) -> HistoryPane:
    return app.screen.query_one(HistoryPane)


def status(app) -> str:
    return str(app.screen.query_one("#history-status", Static).render())


def crumb(app) -> str:
    return app.screen.query_one("#crumb").render().plain


def shown(table: VirtualTable) -> list[str]:
    """The table's lines as the terminal shows them (header first)."""
    return [table.render_line(y).text for y in range(table.size.height)]


async def built(app, pilot, *keys: str) -> None:
    """Press ``keys`` (``5`` by default) and wait for the pane's worker."""
    await pilot.press(*(keys or ("5",)))
    await app.workers.wait_for_complete()
    await pilot.pause()


def rows_by_key(table: VirtualTable) -> dict[str, tuple[str, ...]]:
    return dict(zip(table.keys, table.rows))


async def test_5_shows_every_nodeclaims_life_from_the_log():
    app = app_with(CHAIN)
    async with app.run_test(size=WIDE) as pilot:
        await built(app, pilot)
        assert app.screen.pane == "history"
        table = pane(app).table
        assert app.focused is table
        rows = rows_by_key(table)
        assert list(rows) == ["life:general-q7x2k", "life:general-m3v9d", "life:general-h2t8w", "life:general-z5k4r"]
        # line 2: underutilized replace of general-q7x2k (m5.2xlarge on-demand) at 03:12:00.500; line 11: deleted
        # 03:13:40.250; its replacement general-h2t8w (line 5, created by the disruption controller)
        assert rows["life:general-q7x2k"] == ("general-q7x2k", "-", "m5.2xlarge", "-", "on-demand", "$0.384", "-",
                                              "-", "underutilized replace", "03:12:00", "1m40s", "-", "general-h2t8w")
        # lines 5-9 and 13-16: created 03:12:00.560, launched m5.xlarge us-east-1b, ready 48s later, drift
        # replace at 03:31:10, lived 21m14s
        drifted = rows["life:general-h2t8w"]
        assert drifted[2:5] == ("m5.xlarge", "us-east-1b", "on-demand")
        assert drifted[6:] == ("03:12:00", "48s", "drift replace", "03:31:10", "2m05s", "21m14s", "general-z5k4r")
        assert rows["life:general-m3v9d"][8] == "launch failed"              # line 7: ICE
        assert rows["life:general-z5k4r"][8] == "running"
        assert status(app).startswith("4 NodeClaims · 03:00:01–03:33:15 UTC 2025-06-02 · 1 chain · 1 lived <30m · "
                                      "1 launch failure · 0 interruptions")
        assert crumb(app).startswith("history: nodeclaims  · sort created ▲")


async def test_enter_says_why_it_went_in_the_words_of_history_node_and_y_shows_its_lines(cli):
    code, out, _ = cli("history", CHAIN, "--node", "general-q7x2k", "-o", "json")
    assert code == 0
    answer = json.loads(out)["why"]
    app = app_with(CHAIN)
    async with app.run_test(size=WIDE) as pilot:
        await built(app, pilot)
        await pilot.press("enter")
        screen = app.screen
        assert isinstance(screen, DetailScreen) and screen.heading == "NodeClaim general-q7x2k"
        assert screen.sections["Why did it go"] == [answer]
        assert answer.startswith("general-q7x2k (node ip-10-1-4-20.ec2.internal) was disrupted by consolidation "
                                 "(underutilized), replace at 2025-06-02T03:12:00.500Z")
        assert screen.sections["Replacement chain"][0].startswith(
            "general-q7x2k → general-h2t8w → general-z5k4r")
        assert screen.sections["Lines"] == ["1, 2, 10, 11, 12 (y shows them)"]
        await pilot.press("y")
        await app.workers.wait_for_complete()
        await pilot.pause()
        lines = app.screen.sections["Lines"]
        written = CHAIN.read_text().splitlines()
        assert lines == [f"{n}: {written[n - 1]}" for n in (1, 2, 10, 11, 12)]
        await pilot.press("escape", "escape")
        assert app.screen.pane == "history"


async def test_v_shows_the_chains_link_by_link_and_the_hours():
    app = app_with(CHAIN)
    async with app.run_test(size=WIDE) as pilot:
        await built(app, pilot)
        await pilot.press("v")
        table = pane(app).table
        assert app.focused is table and table.id == "history-chains-table"
        assert crumb(app).startswith("history: chains")
        assert table.rows[0][0] == "▼ general-q7x2k → general-h2t8w → general-z5k4r"
        assert table.rows[0][2:4] == ("2 links", "+0.3194")
        # line 2: command 5c1e8a70-...: underutilized; line 13: command 9d2b6f14-...: drift
        assert table.rows[1][:3] == ("  general-q7x2k → general-h2t8w", "03:12:00", "underutilized")
        assert table.rows[2][:3] == ("  general-h2t8w → general-z5k4r", "03:31:10", "drift")
        await pilot.press("j", "j", "enter")    # a link: the NodeClaim it replaced
        assert app.screen.heading == "NodeClaim general-h2t8w"
        await pilot.press("escape", "v")
        hours = pane(app).table
        assert hours.id == "history-hours-table"
        rows = rows_by_key(hours)
        # 03:00Z: three creations of NodePool general, two disruptions (one of a NodeClaim whose NodePool no
        # line names), one launch failure, the 2-pod batch of line 3
        total = rows["hour:2025-06-02T03:00Z"]
        assert total[:9] == ("▼ 03:00Z", "(all)", "3", "2", "2", "1", "2", "1", "0")
        assert rows["pool:2025-06-02T03:00Z:general"][1:6] == ("general", "3", "1", "1", "1")
        # the snapshot's own events (two Nominated, 2024-09-10) are an hour of another day: dated in full
        assert hours.keys[0] == "hour:2024-09-10T02:00Z" and hours.rows[0][0] == "▼ 2024-09-10 02:00Z"
        await pilot.press("j", "enter")
        detail = app.screen.sections
        assert detail["Launch failures"][0].startswith("2025-06-02T03:12:03.200Z  general-m3v9d: creating instance, "
                                                       "insufficient capacity")
        assert detail["Lived under 30m (created this hour)"] == ["general-h2t8w: 21m14s, drift replace"]
        await pilot.press("escape", "v")
        assert pane(app).table.id == "history-table"


async def test_colon_commands_open_each_view():
    app = app_with(CHAIN)
    async with app.run_test(size=WIDE) as pilot:
        await built(app, pilot, "colon", *"chains", "enter")
        assert app.screen.pane == "history"
        assert pane(app).view == "chains"
        await pilot.press("colon", *"hours", "enter")
        assert pane(app).view == "hours"
        await pilot.press("1", "colon", *"history", "enter")
        assert app.screen.pane == "history"


async def test_sorting_and_filtering_the_nodeclaims():
    app = app_with(E040)
    async with app.run_test(size=WIDE) as pilot:
        await built(app, pilot)
        table = pane(app).table
        # e-040: nvme-raid-r8xwd went 1m41s after its decision, nvme-raid-h8zr3 1m41s (101.294 s) after its
        # interruption: X sorts by disrupt→gone, the unknowns after
        await pilot.press("X")
        assert crumb(app).startswith("history: nodeclaims  · sort disrupt→gone ▲")
        gone = [row[10] for row in table.rows]
        known = [g for g in gone if g != "-"]
        assert known and gone[:len(known)] == known
        await pilot.press("S")
        assert [row[10] for row in table.rows][-len(known):] == known[::-1]
        await pilot.press("slash", *"interruption", "enter")
        assert [k for k in table.keys] == ["life:nvme-raid-h8zr3"]
        assert table.rows[0][8] == "spot interruption"
        await pilot.press("escape")
        assert len(table.keys) > 1


async def test_without_a_log_it_says_how_to_give_one():
    app = app_with(None)
    async with app.run_test(size=WIDE) as pilot:
        await built(app, pilot)
        assert status(app) == "(no Karpenter log: open with --logs FILE)"
        assert pane(app).table.rows == [("(no Karpenter log: open with --logs FILE)",)]
        await pilot.press("enter", "y")   # nothing to open: no error, no screen
        assert not isinstance(app.screen, DetailScreen)


async def test_at_80x24_every_view_fits_and_the_crumb_names_what_it_hides():
    app = app_with(CHAIN)
    async with app.run_test(size=SMALL) as pilot:
        await built(app, pilot)
        for view, kept in (("nodeclaims", ("nodeclaim", "end", "at", "replaced by")),
                           ("chains", ("replacement chain · link", "reason", "saving $/h")),
                           ("hours", ("hour", "nodepool", "created", "disrupted", "pending", "launch errors",
                                      "interrupted"))):
            table = pane(app).table
            await pilot.pause()   # the table's fit posts ColumnsHidden; the crumb follows it
            assert pane(app).view == view
            titles = [t for t, w in zip(table.columns, table.widths) if w]
            for title in kept:
                assert title in titles, (view, title)
            shown_widths = [w for w in table.widths if w]
            assert sum(shown_widths) + 2 * (len(shown_widths) - 1) <= table.scrollable_content_region.width
            if table.hidden_columns:
                assert f"too narrow for {', '.join(table.hidden_columns)}"[:40] in crumb(app)
            assert all(len(line) <= 80 for line in shown(table))
            await pilot.press("v")


class Gate:
    """A stand-in for the history's build that waits for a file (which a forked child sees too)."""

    def __init__(self, monkeypatch, where: Path) -> None:
        self.flag = where / "open"
        real = karptui.history.snapshot.events_timeline

        def events_timeline(*args, **kwargs):
            import time
            held_until = time.monotonic() + 120   # a failed test that never opens it must not hang the run
            while not self.flag.exists() and time.monotonic() < held_until:
                time.sleep(0.01)
            return real(*args, **kwargs)

        monkeypatch.setattr(karptui.history.snapshot, "events_timeline", events_timeline)

    def open(self) -> None:
        self.flag.touch()


@pytest.fixture(params=[True, False], ids=["in a child process", "in the worker thread"])
def where(request, monkeypatch):
    if request.param and not forked.IN_CHILD_PROCESS:
        pytest.skip("this platform does not fork")
    monkeypatch.setattr(forked, "IN_CHILD_PROCESS", request.param)
    return request.param


async def test_it_says_computing_until_the_worker_answers_and_keys_work_meanwhile(where, monkeypatch, tmp_path):
    gate = Gate(monkeypatch, tmp_path)
    app = app_with(CHAIN)
    async with app.run_test(size=WIDE) as pilot:
        await pilot.press("5")
        await pilot.pause(0.1)
        assert status(app).startswith("computing… (the history of 17 log events is built in the background")
        assert pane(app).table.rows == [("(computing…)",)]
        await pilot.press("1", "j", "j")   # the worker is busy; the screen is not
        assert app.screen.pane == "nodes"
        assert app.screen.query_one("#nodes-table", VirtualTable).cursor_row == 2
        await pilot.press("5", "v")
        assert pane(app).view == "chains" and status(app).startswith("computing…")
        gate.open()
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert status(app).startswith("4 NodeClaims")
        assert pane(app).table.rows[0][0] == "▼ general-q7x2k → general-h2t8w → general-z5k4r"


class SlowParser:
    """The app's parser, held until ``release``: a day's log takes that long to read."""

    def __init__(self, parser) -> None:
        import threading

        self.parser, self.gate = parser, threading.Event()

    def parse(self, lines):
        self.gate.wait(30)
        return self.parser.parse(lines)

    def release(self) -> None:
        self.gate.set()


async def test_the_first_screen_does_not_wait_for_the_log_and_the_panes_fill_when_it_is_read():
    app = app_with(CHAIN)
    slow = app.log_parser = SlowParser(app.log_parser)
    async with app.run_test(size=WIDE) as pilot:
        await pilot.pause()
        assert app.screen.query_one("#nodes-table", VirtualTable).row_count > 0   # the cluster is shown
        assert "reading Karpenter's log…" in app.source_line() and app.events == []
        await pilot.press("3")
        activity = app.screen.query_one("#activity-table", VirtualTable)
        before = activity.row_count   # the snapshot's own events, until the log's join them
        await pilot.press("5")
        assert pane(app).table.rows[0][0].startswith("(reading Karpenter's log")
        slow.release()
        for _ in range(200):
            await pilot.pause(0.05)
            if pane(app).timeline is not None and pane(app).running is None:
                break
        assert "17 Karpenter log events" in app.source_line()
        assert status(app).startswith("4 NodeClaims")
        assert pane(app).table.rows[0][0] == "general-q7x2k"
        await pilot.press("3")
        from karptui.views.activity import activity_rows
        shown = activity_rows(app.events, snapshot_events=app.overview.karpenter_events)
        assert activity.row_count == len(shown) > before   # as if the log had been there from the start


async def test_lines_appended_to_a_followed_log_are_built_again(tmp_path):
    """``karptui open --logs FILE`` follows the file: a NodeClaim logged after the pane was built appears."""
    log = tmp_path / "karpenter.log"
    written = CHAIN.read_text().splitlines(keepends=True)
    log.write_text("".join(written[:12]))
    app = app_with(log, follow_logs=str(log), follow_from=log.stat().st_size)
    async with app.run_test(size=WIDE) as pilot:
        await pilot.press("5")   # the tail's worker runs until the app ends: wait for the pane's answer
        for _ in range(100):
            await pilot.pause(0.1)
            if pane(app).timeline is not None:
                break
        assert "life:general-h2t8w" in pane(app).table.keys
        assert "life:general-z5k4r" not in pane(app).table.keys
        with log.open("a") as handle:
            handle.write("".join(written[12:]))
        for _ in range(100):   # the tail polls every 0.5 s; the build runs in the background
            await pilot.pause(0.1)
            if "life:general-z5k4r" in pane(app).table.keys and pane(app).running is None:
                break
        assert "life:general-z5k4r" in pane(app).table.keys
        assert status(app).startswith("4 NodeClaims")


async def test_names_from_the_log_are_shown_as_written_never_read_as_markup(tmp_path):
    """A garbled or hostile log's NodeClaim name is text: in the table, the drill-in's title and answer."""
    name, pool = "[@click=app.quit]x[/]", "[b]gen[/b]"
    log = tmp_path / "karpenter.log"
    log.write_text(json.dumps({"level": "INFO", "time": "2025-06-02T03:12:00.530Z", "logger": "controller",
                               "message": "created nodeclaim", "controller": "provisioner",
                               "NodePool": {"name": pool}, "NodeClaim": {"name": name},
                               "instance-types": "c5.large"}) + "\n")
    app = app_with(log)
    async with app.run_test(size=WIDE) as pilot:
        await built(app, pilot)
        table = pane(app).table
        assert table.rows[0][:2] == (name, pool)
        assert shown(table)[1].startswith(f"{name}  {pool}")
        await pilot.press("enter")
        assert app.is_running and isinstance(app.screen, DetailScreen)
        assert str(app.screen.query_one("#source", Static).render()) == f"NodeClaim {name}"
        assert app.screen.sections["Why did it go"][0].startswith(f"{name} did not go")


def pane_built(*keys: str):
    """A snapshot test's ``run_before``: ``5``, then wait until the pane shows its history (its worker
    starts once the tab is shown and answers by message: on a busy machine waiting for the workers
    right after the key found none yet, and the picture was "computing…"), then ``keys``."""
    async def run_before(pilot):
        await after_keys("5")(pilot)
        app = pilot.app
        while pane(app).timeline is None or pane(app).running is not None:
            await app.workers.wait_for_complete()
            await pilot.pause(0.05)
        for key in keys:
            await pilot.press(key)
            await pilot.pause()
    return run_before


def test_history_pane(snap_compare):
    assert snap_compare(app_with(CHAIN), terminal_size=WIDE, run_before=pane_built())


def test_history_pane_chains_80x24(snap_compare):
    assert snap_compare(app_with(CHAIN), terminal_size=SMALL, run_before=pane_built("v"))
