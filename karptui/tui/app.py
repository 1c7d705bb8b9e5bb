"""The karptui app: the hub that wires the snapshot, the simulation worker and the screens.

Everything it shows comes from view models (karptui.views); it holds no
Kubernetes or scheduling logic. The simulation runs in a thread worker and
talks back with a message, so the screen never waits for it.
"""

from __future__ import annotations

import os
import threading
import time
from dataclasses import replace
from datetime import datetime
from functools import partial
from pathlib import Path

from textual import events, on, work
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.message import Message

from ..catalog import catalog_from_snapshot_region
from ..logs import LogParser
from ..model import Snapshot
from ..sources.collector import keep_what_the_session_built
from ..sources.manifests import log_line, log_lines, manifest_in_files
from ..views.details import node_detail, pod_detail
from ..views.disruption import SAID_KINDS
from ..views.info import warnings_with_catalog
from ..views.manifest import manifest_lines, not_found_lines, reading_lines, yaml_lines
from ..views.clock import Clock, recorded_moment, snapshot_clock
from ..views.cost import CostPath, cost_path, discount_of
from ..views.overview import Overview, header_cost, header_simulated, overview, shown_pending
from . import forked, hangup
from .plain import notify_plain
from .screens.detail import DetailScreen
from .screens.help import HelpScreen
from .screens.main import MainScreen

EXPLAIN_LIMIT = 200_000  # node x pending-pod verdicts kept for drill-ins; above it, none
LIVE_INTERVAL = 2.0      # seconds between live snapshots at most: watch bursts become one redraw


def _simulate(snapshot, catalog, explain: bool, tell: forked.Tell) -> None:
    """The start-up simulation, told back detached from its snapshot (the pipe carries it)."""
    from ..sim import simulate

    try:
        tell("done", simulate(snapshot, explain=explain, catalog=catalog).detached())
    except Exception as error:  # a simulator bug: said once, not a traceback over the screen
        tell("error", f"{type(error).__name__}: {error}")


class SimulationFinished(Message):
    def __init__(self, result, key: tuple = ()) -> None:
        super().__init__()
        self.result = result
        self.key = key  # the scheduling key of the overview it simulated


class SnapshotUpdated(Message):
    """The live cluster changed: a new immutable snapshot to show and simulate."""

    def __init__(self, snapshot: Snapshot, built: Overview) -> None:
        super().__init__()
        self.snapshot = snapshot
        self.overview = built


def screenshot_directory() -> Path:
    """Where a screenshot goes: the user's Downloads folder, as Textual would put it, when it exists;
    else the current directory (a bastion host seldom has ~/Downloads, and karptui creates no folders)."""
    from platformdirs import user_downloads_path  # Textual's own choice of the Downloads folder

    downloads = user_downloads_path()
    return downloads if downloads.is_dir() else Path.cwd()


def _wait_cancelled(worker) -> None:
    while not worker.is_cancelled:
        time.sleep(0.2)


class MomentReady(Message):
    """A recording's state at ``at``, built off the event loop: what scrubbing shows next."""

    def __init__(self, at: datetime, snapshot: Snapshot, built: Overview, events: list[dict]) -> None:
        super().__init__()
        self.at, self.snapshot, self.overview, self.events = at, snapshot, built, events


class LogsAppended(Message):
    """New log events: ``events``, or none to say the live follower's backlog has some (such a
    wake-up supersedes another still queued: one takes everything waiting). ``initial``: the whole
    log the session opened with, read by the worker that started with the app."""

    def __init__(self, events: list[dict], initial: bool = False) -> None:
        super().__init__()
        self.events = events
        self.initial = initial

    def can_replace(self, message: Message) -> bool:
        return not self.events and isinstance(message, LogsAppended) and not message.events


class KarptuiApp(App):
    TITLE = "karptui"
    CSS_PATH = Path(__file__).with_name("app.tcss")
    BINDINGS = [
        Binding("q", "quit", "Quit", key_display="q ^c"),
        Binding("ctrl+c", "quit", "Quit", show=False, priority=True),  # k9s users press it first
        Binding("question_mark", "help", "Help"),
        Binding("w", "whatif", "What-if"),
        Binding("t", "cycle_theme", "Theme"),
        # scrubbing a recording (karptui open OUT of karptui record): the whole TUI as it was then
        Binding("left_square_bracket", "scrub('decision', -1)", "Previous decision (recording)", show=False),
        Binding("right_square_bracket", "scrub('decision', 1)", "Next decision (recording)", show=False),
        Binding("left_curly_bracket", "scrub('hour', -1)", "An hour earlier (recording)", show=False),
        Binding("right_curly_bracket", "scrub('hour', 1)", "An hour later (recording)", show=False),
    ]

    crash: str = ""   # an internal error's traceback, when one ended the session (cli.tui.play says it)

    def _handle_exception(self, error: Exception) -> None:
        """An internal error ends the session as Textual ends it (the terminal given back, the exit
        status 1), but without Textual's screenful of traceback: the command says it in one line
        and keeps the traceback in a file for a bug report (cli.tui.play)."""
        import traceback

        if not self.crash:
            self.crash = "".join(traceback.format_exception(error))
        super()._handle_exception(error)
        self._exit_renderables.clear()

    def __init__(self, snapshot: Snapshot, now: datetime | None = None, catalog=None, theme: str | None = None,
                 simulate_on_start: bool = True, follow_logs: str | None = None,
                 follow_from: int | None = None, live=None, logs_since: float | None = 600.0,
                 live_interval: float = LIVE_INTERVAL, namespace: str | None = None, discounts=None,
                 recording=None, prepare=None) -> None:
        """``discounts`` (karptui.catalog.discounts.Discounts, ``--discounts``): taken off every price shown.
        ``recording`` (karptui.recording.Recording): ``snapshot`` is its state at its end, and ``[`` ``]``
        ``{`` ``}`` step the whole TUI through it; ``prepare`` applies the command line's
        ``--karpenter-version`` and settings to each state shown, as to ``snapshot``."""
        super().__init__()
        self.recording = recording
        self.prepare = prepare or (lambda snapshot: snapshot)
        self.moment: datetime | None = recording.end if recording is not None else None
        self.scrub_to: datetime | None = None   # the moment being built, while a worker builds it
        if "TEXTUAL_ANIMATIONS" not in os.environ:
            # No animations unless asked for: each frame of the tab underline's slide is a full redraw,
            # which doubled a pane switch's cost on 5,000 nodes and goes down an SSH link to the bastion.
            self.animation_level = "none"
        self.namespace = namespace  # -n NS on a snapshot: the panes show its pods (live: only its pods are read)
        self.live = live                # a karptui.cluster.live.LiveCluster, or None for a saved snapshot
        self.logs_since = logs_since
        self.live_interval = live_interval
        self.fixed_now = now
        self.cost_path: CostPath | None = None  # the header's cost, once a simulation is back
        self.catalog = (catalog if catalog is not None else catalog_from_snapshot_region(snapshot)).with_discounts(
            discounts)
        self.log_parser = LogParser()  # one parser: a tailed line is numbered after the lines already read
        # The log the session opens with (--logs, a snapshot's or a recording's) is parsed by a worker once
        # the first screen is up (a day's log is minutes of parsing); its events fill the panes when read.
        self.events: list[dict] = []
        self.logs_reading = bool(snapshot.meta.logs_text)
        self.use_snapshot(snapshot)
        self.simulated_key: tuple | None = None
        self._log_lock = threading.Lock()   # live log events wait here for the screen
        self._log_backlog: list[dict] = []
        self.follow_logs = follow_logs
        self.follow_from = follow_from  # byte offset already read into the snapshot (None: the file's end)
        self.attempts: dict = {}
        self.result = None
        self.requested_theme = theme
        self.simulate_on_start = simulate_on_start
        self.theme_names: list[str] = []

    def use_snapshot(self, snapshot: Snapshot, built: Overview | None = None) -> None:
        """Show ``snapshot``; ``built`` is its overview when a worker made it already."""
        self.overview = built or self._overview(snapshot)

    def clock_of(self, snapshot: Snapshot) -> Clock:
        """The time the panes count ages and budgets from, and whether it is known."""
        return Clock(self.fixed_now, True) if self.fixed_now else snapshot_clock(snapshot, live=self.live is not None)

    def _overview(self, snapshot: Snapshot, events: list[dict] | None = None, format_cells: bool = False) -> Overview:
        clock = self.clock_of(snapshot)
        return overview(snapshot, self.catalog, self.events if events is None else events, clock.now,
                        live=self.live is not None, format_cells=format_cells, time_note=clock.note,
                        namespace=None if self.live is not None else self.namespace,
                        recorded=self.recording is not None)

    # What the screens read, all from the one overview of the snapshot shown.
    snapshot = property(lambda self: self.overview.snapshot)
    now = property(lambda self: self.overview.now)
    pending = property(lambda self: self.overview.pending)
    pod_by_key = property(lambda self: self.overview.pod_by_key)
    totals = property(lambda self: self.overview.totals)

    # ---- start-up ----------------------------------------------------------------------
    SHOWN_WARNINGS = 3  # in the notification; `karptui snapshot info` lists every one

    def _warn_about_snapshot(self) -> None:
        """What the loader skipped or doubts (values the API would refuse, objects it could not
        read, zones the catalog offers nothing in) is said on start, as `simulate` says it on
        stderr: the screen must not simulate them silently."""
        warnings = warnings_with_catalog(self.snapshot, self.catalog, None if self.live is not None else self.namespace)
        if not warnings:
            return
        shown = "; ".join(warnings[: self.SHOWN_WARNINGS])
        more = len(warnings) - self.SHOWN_WARNINGS
        rest = f"; and {more} more (karptui snapshot info lists them)" if more > 0 else ""
        notify_plain(self, f"{len(warnings)} warning(s) about this snapshot: {shown}{rest}",
                     severity="warning", timeout=15)

    async def on_mount(self) -> None:
        from . import themes

        warnings: list[str] = []
        self.theme_names = themes.register_themes(self, warnings)
        for warning in warnings:  # a broken user theme is skipped, and said so, never fatal
            notify_plain(self, warning, severity="warning", timeout=10)
        wanted = self.requested_theme or themes.DEFAULT_THEME
        if wanted in self.theme_names or wanted in self.available_themes:
            self.theme = wanted
        else:
            notify_plain(self, f"no theme named {wanted!r}; using {self.theme}", severity="warning", timeout=10)
        self._warn_about_snapshot()
        watched = hangup.terminal_fd()
        if watched is not None:
            self.set_interval(hangup.CHECK_SECONDS, lambda: self._end_if_hung_up(watched))
        await self._prepare_drill_in()
        await self.push_screen(MainScreen())
        if self.simulate_on_start and forked.IN_CHILD_PROCESS:  # at once: a forked child holds no lock we need
            self.run_simulation()
        elif self.simulate_on_start:  # in a thread: after the first paint, which its GIL would hold up
            self.call_after_refresh(self.run_simulation)
        if self.logs_reading:
            self.read_logs(self.snapshot.meta.logs_text)   # a followed file is tailed once it is read
        elif self.follow_logs:
            self.tail_logs(self.follow_logs)
        if self.recording is not None:
            self.read_decisions()
        if self.live is not None:
            self.follow_cluster()
            if self.logs_since != 0:
                self.follow_karpenter()

    def _end_if_hung_up(self, fd: int) -> None:
        """The terminal went without a SIGHUP: end the session (:mod:`.hangup` says why)."""
        if hangup.gone(fd):
            self.exit(return_code=hangup.EXIT_HANGUP)

    # ---- live ------------------------------------------------------------------------------
    @work(thread=True, exclusive=True, group="live", exit_on_error=False, description="live cluster")
    def follow_cluster(self) -> None:
        """Every ``live_interval``: if any watch brought news, one new snapshot, one redraw;
        if only the cluster's notes changed (a list running slow, a retry), the header."""
        from textual.worker import get_current_worker

        worker, seen, notes = get_current_worker(), self.live.version, self.live.status()
        while not worker.is_cancelled:
            time.sleep(self.live_interval)
            version = self.live.version
            if version != seen:
                seen = version
                snapshot = self.live.snapshot()
                built = self._overview(snapshot, list(self.events), format_cells=True)
                self.post_message(SnapshotUpdated(snapshot, built))
            elif self.live.status() != notes:
                notes = self.live.status()
                self.call_from_thread(self._refresh_header)

    def _refresh_header(self) -> None:
        main = self._main_screen()
        if main is not None:
            main.refresh_header()

    def on_snapshot_updated(self, message: SnapshotUpdated) -> None:
        self.use_snapshot(message.snapshot, message.overview)
        main = self._main_screen()
        if main is not None:
            main.refresh_all()
        if self.simulate_on_start and message.overview.scheduling_key != self.simulated_key:
            self.run_simulation()

    @work(thread=True, exclusive=True, group="karpenter-logs", exit_on_error=False,
          description="Karpenter's log")
    def follow_karpenter(self) -> None:
        """The leader controller's log into the parser and the Activity pane, until the app ends."""
        from textual.worker import get_current_worker

        from ..cluster.karpenter_logs import KarpenterLogs

        worker = get_current_worker()
        follower = KarpenterLogs(self.live.connection, self._log_lines, since_seconds=self.logs_since,
                                 on_note=lambda note: self.call_from_thread(notify_plain, self, note, timeout=8))
        stopper = threading.Thread(target=lambda: (_wait_cancelled(worker), follower.stop()), daemon=True)
        stopper.start()
        follower.run()

    def _log_lines(self, lines: list[str]) -> None:
        """From the follower's thread: parse, and wake the screen once for however many
        events pile up before it gets round to them."""
        events = list(self.log_parser.parse(lines))
        if not events:
            return
        with self._log_lock:
            self._log_backlog.extend(events)
        self.post_message(LogsAppended([]))

    @work(thread=True, exclusive=True, group="logs-read", exit_on_error=False, description="Karpenter's log, read")
    def read_logs(self, text: str) -> None:
        """The log the session opened with, parsed off the event loop: the first screen does not wait
        for it; the Activity, Pending, Disruption and History panes take its events when they land."""
        from textual.worker import get_current_worker

        worker = get_current_worker()
        events = list(self.log_parser.parse(text.splitlines()))
        if not worker.is_cancelled:
            self.post_message(LogsAppended(events, initial=True))

    @work(thread=True, exclusive=True, group="recording-decisions", exit_on_error=False,
          description="the recording's decisions")
    def read_decisions(self) -> None:
        """The recording's Karpenter decisions (``[`` ``]`` step between them) worked out in the background:
        the first key press need not parse the day's log first."""
        _ = self.recording.decisions

    @work(thread=True, exclusive=True, group="tail", exit_on_error=False, description="log file followed")
    def tail_logs(self, path: str) -> None:
        """``tail -f`` the Karpenter log: each poll's new events arrive as one message, one redraw."""
        from textual.worker import get_current_worker

        from ..logs.reader import follow_batches

        worker = get_current_worker()
        for lines in follow_batches(path, poll=0.5, stop=lambda: worker.is_cancelled,
                                    start=self.follow_from):
            events = list(self.log_parser.parse(lines))
            if events:
                self.post_message(LogsAppended(events))

    def on_logs_appended(self, message: LogsAppended) -> None:
        events = message.events
        if message.initial:
            if not self.logs_reading:   # a scrub showed another moment meanwhile, with its own log
                return
            self.logs_reading = False
            if self.follow_logs:   # numbered after the lines just read: the same parser, from where they end
                self.tail_logs(self.follow_logs)
        elif not events:  # the live follower's wake-up: take everything waiting
            with self._log_lock:
                events, self._log_backlog = self._log_backlog, []
        self.events.extend(events)
        newer_reasons = any(e["kind"] == "pod_unschedulable" for e in events)
        if newer_reasons:  # Karpenter has a newer reason for some pending pod
            self.overview = replace(self.overview, pending=shown_pending(self.snapshot, self.events,
                                                                          self.overview.karpenter_events,
                                                                          self.overview.namespace))
        main = self._main_screen()
        if main is not None:
            if message.initial:   # the log's events among the snapshot's, in order
                main.fill_activity()
            else:
                main.append_activity(events)
            if newer_reasons:
                main.fill_pending()
            if any(e["kind"] in SAID_KINDS for e in events):  # the Disruption pane's "Karpenter said"
                main.fill_disruption()
            main.fill_history()   # built again in the background, if the pane has been shown
            main.refresh_header()

    def _main_screen(self) -> MainScreen | None:
        """The main screen, while it is there to draw on (an answer arriving as the app quits finds none)."""
        return next((s for s in self.screen_stack if isinstance(s, MainScreen) and s.is_attached), None)

    def run_simulation(self) -> None:
        """Simulate the snapshot shown (on start, on a live change that matters, from the palette)."""
        self.simulated_key = self.overview.scheduling_key
        self._simulation(self.snapshot, self.simulated_key)

    @work(thread=True, exclusive=True, group="simulate", exit_on_error=False,
          description="pending pods simulated")
    def _simulation(self, snapshot: Snapshot, key: tuple) -> None:
        """The pending pods simulated on ``snapshot``, in a forked child (:mod:`.forked`: a thread
        would hold the GIL against the screen for seconds on a big cluster); a newer run cancels
        this one and kills its child. The answer comes back as a message."""
        from textual.worker import get_current_worker

        worker = get_current_worker()
        explain = len(snapshot.nodes) * max(1, len(snapshot.pending_pods)) <= EXPLAIN_LIMIT
        told = forked.answer(partial(_simulate, snapshot, self.catalog, explain), lambda: worker.is_cancelled,
                             "karptui-simulate")
        if told is None:
            return
        kind, value = told
        if kind == "done":
            self.post_message(SimulationFinished(value.attached(snapshot), key))
        else:
            self.call_from_thread(notify_plain, self, f"simulation: {value}", severity="error")

    def on_simulation_finished(self, message: SimulationFinished) -> None:
        if message.key != self.overview.scheduling_key:
            return  # a live update changed what it depends on; that run is on the way
        first = self.result is None   # the start-up answer: see keep_what_the_session_built below
        self.result = message.result
        self.attempts = {a.pod.key: a for a in message.result.attempts}
        self.cost_path = cost_path(message.result, self.catalog, now=self.overview.cost, consolidated=False)
        main = self._main_screen()
        if main is not None:
            main.fill_pending()
            main.refresh_header()
        if first:
            keep_what_the_session_built()

    # ---- what the screens show -------------------------------------------------------------
    def source_line(self) -> str:
        shown = f"{recorded_moment(self.moment)} · " if self.moment is not None else ""
        return shown + self._source_line()

    def _source_line(self) -> str:
        logs = (" · reading Karpenter's log…" if self.logs_reading else
                f" · {len(self.events)} Karpenter log events" if self.events else "")
        sim = ""
        if self.result is not None:
            sim = f" · {header_simulated(self.result.scheduled, len(self.result.nodeclaims))}"
        whatif = self.active_whatif()
        notes = f" · ⚠ {'; '.join(self.live.status())}" if self.live is not None and self.live.status() else ""
        synced = self.live.progress() if self.live is not None else ""  # the first list, as pages arrive
        synced = f" · {synced}" if synced else ""
        path = self.cost_path if self.cost_path is not None and self.cost_path.now == self.overview.cost else None
        cost = f" · {header_cost(path or CostPath(self.overview.cost, discount=discount_of(self.catalog)))}"
        return self.totals + synced + cost + logs + sim + (f" · what-if {whatif}" if whatif else "") + notes

    # ---- scrubbing a recording ---------------------------------------------------------------
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The scrub keys exist only on a recording: elsewhere they neither act nor show in help."""
        return self.recording is not None if action == "scrub" else True

    def action_scrub(self, by: str, direction: int) -> None:
        """``[`` ``]``: the previous or next Karpenter decision; ``{`` ``}``: an hour earlier or later."""
        target = self.recording.step(self.scrub_to or self.moment, by, direction)  # a key pressed again goes on
        if target is None:
            where = "earlier" if direction < 0 else "later"
            what = "decision of Karpenter's" if by == "decision" else "state"
            notify_plain(self, f"no {where} {what} in this recording", timeout=4)
            return
        self.scrub_to = target
        self.show_moment(target)

    @work(thread=True, exclusive=True, group="scrub", exit_on_error=False, description="a recorded moment")
    def show_moment(self, at: datetime) -> None:
        """The recording's state at ``at``, its log up to then, and their overview, built in a thread."""
        snapshot = self.prepare(self.recording.snapshot_at(at))
        events = self.recording.log_events_until(at)
        self.post_message(MomentReady(at, snapshot, self._overview(snapshot, events, format_cells=True), events))

    def on_moment_ready(self, message: MomentReady) -> None:
        """Swapped in as a live update is: every pane redrawn, the pending pods simulated again
        (a moment superseded by another key press while it was built is not shown)."""
        if message.at != self.scrub_to:
            return
        self.scrub_to = None
        self.moment, self.events = message.at, message.events
        self.log_parser = LogParser()
        if self.logs_reading:   # the newest state's log is no longer the one shown
            self.logs_reading = False
            self.workers.cancel_group(self, "logs-read")
        self.on_snapshot_updated(SnapshotUpdated(message.snapshot, message.overview))

    def missing(self, kind: str) -> str:
        """Why a live pane has nothing of ``kind`` (RBAC, or not served), or ""."""
        if self.live is None:
            return ""
        return next((i.note for i in self.live.informers if i.resource.kind == kind and i.note), "")

    def on_main_screen_open(self, message: MainScreen.Open) -> None:
        """What the main screen asks for: a drill-in, the what-if panel, help."""
        if message.what in ("node", "pod"):
            self.drill(message.what, message.name)
        elif message.what == "whatif":
            self.action_whatif()
        elif message.what == "help":
            self.action_help()

    def log_line(self, number: int) -> str | None:
        """Line ``number`` of the Karpenter log as written (the snapshot's, or the followed file's)."""
        return log_line(number, self.snapshot.meta.logs_text, self.follow_logs)

    def show_yaml(self, kind: str, name: str) -> bool:
        """``y`` on a node or pod (in a pane or its drill-in): its manifest. Pods' manifests are
        not kept in the model (memory at 50,000 pods), so a worker reads that one again from the
        snapshot's file or, live, from the API server; the screen says so meanwhile. False when
        there is no such node or pod."""
        if kind == "nodeclaim":
            return self._show_history_lines(name)
        obj = self.snapshot.node_by_name.get(name) if kind == "node" else \
            self.pod_by_key.get(name) if kind == "pod" else None
        if obj is None:
            return False
        if obj.raw is not None:
            self.push_screen(DetailScreen(f"{kind} {name} (YAML)", {"YAML": manifest_lines(obj)}))
            return True
        where = f"the cluster ({self.live.connection.context})" if self.live is not None else self.snapshot.meta.source
        screen = DetailScreen(f"{kind} {name} (YAML)", {"YAML": reading_lines(obj, where)})
        self.push_screen(screen)
        self._read_manifest(screen, obj, where)
        return True

    def _show_history_lines(self, name: str) -> bool:
        """``y`` on a History pane NodeClaim: the log lines its history came from, read by a worker (a day's
        log is hundreds of MiB of text to walk)."""
        from ..views.history import line_numbers
        from .history import HistoryPane

        main = self._main_screen()
        timeline = main.query_one(HistoryPane).timeline if main is not None else None
        life = timeline.life(name) if timeline is not None else None
        if life is None:
            return False
        title = f"NodeClaim {life.nodeclaim}: the lines about it"
        screen = DetailScreen(title, {"Lines": [f"reading {len(line_numbers(life))} line(s) of the log…"]})
        self.push_screen(screen)
        self._read_history_lines(screen, life)
        return True

    @work(thread=True, group="manifest", exit_on_error=False, description="reading a NodeClaim's log lines")
    def _read_history_lines(self, screen: DetailScreen, life) -> None:
        from ..views.history import line_numbers, lines_detail

        found = log_lines(line_numbers(life), self.snapshot.meta.logs_text, self.follow_logs)
        self.call_from_thread(screen.set_section, "Lines", lines_detail(life, found))

    @work(thread=True, group="manifest", exit_on_error=False, description="reading a manifest")
    def _read_manifest(self, screen: DetailScreen, obj, where: str) -> None:
        try:
            if self.live is not None:
                raw = self.live.manifest(obj.KIND, obj.namespace, obj.name)
            else:
                raw = manifest_in_files(where, obj.KIND, obj.namespace, obj.name)
            lines = yaml_lines(raw) if raw is not None else not_found_lines(obj, where)
        except Exception as exc:  # noqa: BLE001 -- a file gone or an API error is said on the screen
            lines = not_found_lines(obj, where, f"{type(exc).__name__}: {exc}")
        self.call_from_thread(screen.set_section, "YAML", lines)

    def drill(self, kind: str, name: str) -> None:
        snapshot = self.snapshot
        if kind == "node" and name in snapshot.node_by_name:
            node, main = snapshot.node_by_name[name], self._main_screen()
            disruption = main.disruption_lines(name) if main is not None and node.nodepool else None
            buffers = self.result.buffers if self.result is not None else None
            self._drill_in(f"node {name}", node_detail(node, snapshot, self.events, disruption, buffers),
                           node=name, ref=("node", name))
        elif kind == "pod":
            pod = self.pod_by_key.get(name)
            if pod is not None:
                claims = self.result.nodeclaims if self.result is not None else ()
                self._drill_in(f"pod {name}", pod_detail(pod, snapshot, self.attempts.get(name), self.events,
                                                         self.catalog, claims), ref=("pod", name))

    DRILL_IN = "drill-in"   # the installed screen the main screen's drill-ins are shown in

    async def _prepare_drill_in(self) -> None:
        """The screen the main screen's drill-ins are shown in, composed and laid out before the main screen
        is up. Textual composes a screen on its first showing, lays it out and draws it, then lays it out
        and draws it again on its first Resize: 35-40 ms more than showing it again, which took the first
        drill-in past 50 ms on three nodes as on 20,000. Pushed and popped before the first paint, the
        empty screen is never drawn (it is not the current screen when it lays itself out)."""
        screen = DetailScreen("", {"": [""] * (2 * self.size.height)})   # taller than the terminal: scrolled
        self.install_screen(screen, name=self.DRILL_IN)
        self.push_screen(screen)
        await self.pop_screen()   # at once: it is never the current screen while it composes and lays out

    def _drill_in(self, title: str, sections: dict[str, list[str]], node: str = "",
                  ref: tuple[str, str] | None = None) -> None:
        """A node's or pod's drill-in. From the main screen, in the one screen kept for them (installed:
        entering it again only lays it out and draws it); over another screen (a drill-in's own), a new one."""
        if not isinstance(self.screen, MainScreen):
            self.push_screen(DetailScreen(title, sections, node=node, ref=ref))
            return
        if self.is_screen_installed(self.DRILL_IN):
            screen = self.get_screen(self.DRILL_IN)
            screen.show(title, sections, node=node, ref=ref)
        else:
            screen = DetailScreen(title, sections, node=node, ref=ref)
            self.install_screen(screen, name=self.DRILL_IN)
        self.push_screen(screen)

    # ---- actions -------------------------------------------------------------------------
    def action_help(self) -> None:
        from .screens.help import help_rows

        extra = ()
        if isinstance(self.screen, MainScreen):
            from .screens.whatif import WhatIfScreen

            extra = (("what-if panel (w)", WhatIfScreen.BINDINGS),)
        self.push_screen(HelpScreen(help_rows(self, self.screen, extra)))

    def action_whatif(self) -> None:
        try:
            from .screens.whatif import WhatIfScreen
        except ImportError:
            self.notify("the what-if panel is not available in this build", severity="warning")
            return
        # Installed, not just pushed: leaving the panel keeps its edits, form and results.
        if self.is_screen_installed("whatif") and self.live is not None:
            kept = self.get_screen("whatif")
            if kept.snapshot is not self.snapshot and kept not in self.screen_stack:
                if len(kept.stack):  # an experiment under way stays on the cluster it started from
                    taken = kept.snapshot.meta.captured_at
                    self.notify(f"the what-if works on the cluster as of {taken.astimezone():%H:%M:%S}, where its "
                                "edits were made; undo them all to start from now", timeout=6)
                else:  # nothing edited yet: start from the cluster as it is now
                    self.uninstall_screen("whatif")
        if not self.is_screen_installed("whatif"):
            self.install_screen(WhatIfScreen(self.snapshot, self.catalog), name="whatif")
        self.push_screen("whatif")

    def active_whatif(self) -> str:
        """``tui-whatif (3 edits)`` for the header while the what-if panel holds edits."""
        if not self.is_screen_installed("whatif"):
            return ""
        screen = self.get_screen("whatif")
        count = len(screen.stack)
        return f"{screen.whatif_name} ({count} edit{'s' if count != 1 else ''})" if count else ""

    def action_cycle_theme(self) -> None:
        from . import themes

        names = self.theme_names or list(self.available_themes)
        self.theme = themes.next_theme(self.theme, names)
        notify_plain(self, f"theme: {self.theme}")  # a user theme's name

    def get_system_commands(self, screen):
        yield from super().get_system_commands(screen)
        for title, help_text, callback in (
            ("Nodes", "Show nodes grouped by zone", lambda: self._main("nodes")),
            ("Pending pods", "Show pending pods and why", lambda: self._main("pending")),
            ("Karpenter activity", "Show Karpenter's recent decisions", lambda: self._main("activity")),
            ("History", "What Karpenter did: NodeClaims' lives, replacement chains, churn, cost per hour",
             lambda: self._main("history")),
            ("What-if", "Edit constraints and re-run the simulator", self.action_whatif),
            ("Help", "List every key", self.action_help),
            ("Cycle theme", "Switch to the next theme", self.action_cycle_theme),
            ("Re-run simulation", "Simulate the pending pods again", self.run_simulation),
        ):
            yield SystemCommand(title, help_text, callback)
        # and every key of the screen underneath (sort, filter, drill in; run, undo, save, ...)
        seen = {"Nodes", "Pending", "Activity", "History", "What-if", "Help", "Theme", "Quit"}
        for binding in getattr(screen, "BINDINGS", ()):
            if isinstance(binding, Binding) and binding.description and binding.description not in seen:
                seen.add(binding.description)
                yield SystemCommand(binding.description, f"key: {self.get_key_display(binding)}",
                                    partial(screen.run_action, binding.action))

    # ---- screenshots (the command palette's "Screenshot") ----------------------------------
    _delivering = False   # export_screenshot is making a screenshot to save (see cell_aligned_svg)

    def deliver_screenshot(self, filename: str | None = None, path: str | None = None,
                           time_format: str | None = None) -> str | None:
        self._delivering = True
        try:
            return super().deliver_screenshot(filename, str(screenshot_directory()) if path is None else path,
                                              time_format)
        finally:
            self._delivering = False

    def export_screenshot(self, *, simplify: bool = False, title: str | None = None) -> str:
        """Textual's SVG; a screenshot saved for people to share has every character at its cell,
        so converters that ignore SVG's textLength draw the grid straight (tui.screenshot)."""
        svg = super().export_screenshot(simplify=simplify, title=title)
        if self._delivering:
            from .screenshot import cell_aligned_svg

            svg = cell_aligned_svg(svg)
        return svg

    @on(events.DeliveryComplete)
    def _screenshot_saved(self, event: events.DeliveryComplete) -> None:
        """One notification naming the file, as plain text (a path may hold ``[``)."""
        if event.name == "screenshot":
            event.prevent_default()  # Textual's own notice reads the path as markup
            notify_plain(self, f"screenshot saved to {event.path}", title="Screenshot", timeout=10)

    @on(events.DeliveryFailed)
    def _screenshot_failed(self, event: events.DeliveryFailed) -> None:
        if event.name == "screenshot":
            event.prevent_default()
            why = getattr(event.exception, "strerror", None) or str(event.exception)
            notify_plain(self, f"screenshot not saved: {why}", title="Screenshot", severity="error", timeout=10)

    def _main(self, pane: str) -> None:
        main = self._main_screen()
        if main is not None:
            main.action_pane(pane)
