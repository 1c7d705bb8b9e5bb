"""The Disruption pane: what Karpenter's consolidation would do to each node, and what blocks the rest.

The answer is the simulator's (``simulate(consolidate=True)``, as ``karptui simulate
--consolidate``), which on a large cluster takes minutes: a thread worker runs it (in a
forked child process where the platform allows, so it holds no lock the screen needs) and
posts the result back as a message, so keys are never kept waiting, and the pane says
"computing…" until it lands. A newer snapshot, or quitting, cancels the run under way (the
child is killed; in-thread, the simulator's progress callback raises) and a newer result
supersedes an older one still queued (``can_replace``). The words come from
:mod:`karptui.views.disruption`; nothing here knows Karpenter's rules.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from functools import partial

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.message import Message
from textual.widgets import Static

from ..views.budgets import WindowPastCalendar, budgets_lines, budgets_view
from ..views.clock import Clock, recorded_moment
from ..views.disruption import (BLOCKED, DECISION, KEPT, DisruptionView, captured_not_whatif, found_line,
                                simulated_view, with_karpenter_said)
from ..views.nodes import short_name
from . import forked
from .plain import plain, plain_lines
from .widgets import VirtualTable

# A node on one line, why on the next (and what Karpenter said on a third): readable at 80 columns.
COLUMNS = ("would", "saves", "node, and why")
MAX_WIDTHS = {2: 120}
SHRINK = ({2: 30},)  # a narrow terminal cuts the why (the drill-in has it whole): no sideways scroll
PROGRESS_INTERVAL = 0.25  # seconds between progress messages from the worker
GROUPS = ((DECISION, "consolidate"), (BLOCKED, "blocked"), (KEPT, "kept"))


class _Stopped(Exception):
    """Raised from the simulator's progress callback once the worker is cancelled."""


class DisruptionPane(Vertical):
    """A status line over a table of nodes; ``marks`` gives the Nodes pane its column. ``b`` swaps
    the table for the budgets view (:mod:`karptui.views.budgets`), computed in a worker too."""

    BINDINGS = [Binding("b", "budgets", "Budgets")]

    class BudgetsComputed(Message):
        def __init__(self, key: object, lines: list[str]) -> None:
            super().__init__()
            self.key, self.lines = key, lines

    class Computed(Message):
        """The worker's answer (``view`` None and ``error`` set when the simulation failed)."""

        def __init__(self, key: object, view: DisruptionView | None, error: str = "") -> None:
            super().__init__()
            self.key, self.view, self.error = key, view, error

        def can_replace(self, message: Message) -> bool:
            return isinstance(message, DisruptionPane.Computed)

    class Partial(Message):
        """A command the worker has found, before the whole plan is (its line, :func:`found_line`)."""

        def __init__(self, key: object, line: str) -> None:
            super().__init__()
            self.key, self.line = key, line

    class Progress(Message):
        def __init__(self, key: object, text: str) -> None:
            super().__init__()
            self.key, self.text = key, text

        def can_replace(self, message: Message) -> bool:
            return isinstance(message, DisruptionPane.Progress)

    def __init__(self, id: str | None = None) -> None:
        super().__init__(id=id)
        self.key: object = None         # what the shown answer was computed for
        self.running: object = None     # what the worker computes now (None: idle)
        self.queued: tuple | None = None  # (key, snapshot, catalog): the newest state, next after this run
        self.simulated: DisruptionView | None = None  # the simulation's answer; ``view`` adds what Karpenter said
        self.view: DisruptionView | None = None
        self.found: list[str] = []      # the commands the run under way has found so far
        self._events: list[dict] = []
        self._snapshot = None
        self._simulating = None         # the snapshot the run under way (or the last) simulates
        self.status = "not computed yet: it starts when this pane is first shown"
        self.filter = ""
        self.error = ""                 # why the last run gave no answer
        self.budgets_shown = False
        self.budgets_key: object = None  # the snapshot the budgets view shows (or is computing)
        self.budget_lines: list[str] = []
        self._said: str | None = None     # the status line's text on screen
        self._shown: tuple | None = None  # (view, filter, commands found, empty words) the table shows

    def compose(self) -> ComposeResult:
        yield Static(id="disruption-status")
        yield VirtualTable(COLUMNS, max_widths=MAX_WIDTHS, shrink=SHRINK, id="disruption-table")
        with VerticalScroll(id="budgets-scroll"):
            yield Static(id="budgets-view")

    def on_mount(self) -> None:
        self.query_one("#budgets-scroll").display = False
        self.fill()

    # ---- the budgets view --------------------------------------------------------------------
    def action_budgets(self) -> None:
        self.show_budgets(not self.budgets_shown)

    def show_budgets(self, shown: bool = True) -> None:
        """Swap the table for the budgets view (or back), computing it for the snapshot shown."""
        self.budgets_shown = shown
        self.query_one("#disruption-table").display = not shown
        scroll = self.query_one("#budgets-scroll", VerticalScroll)
        scroll.display = shown
        if shown:
            app = self.app
            key = app.overview.scheduling_key
            if key != self.budgets_key:
                self.budgets_key, self.budget_lines = key, ["computing the budgets…"]
                self.compute_budgets(key, app.snapshot, app.catalog, app.clock_of(app.snapshot))
            self.query_one("#budgets-view", Static).update(plain_lines(self._budgets_shown()))
            scroll.focus()
        else:
            self.query_one("#disruption-table").focus()

    @work(thread=True, exclusive=True, group="budgets", exit_on_error=False,
          description="disruption budgets over time")
    def compute_budgets(self, key: object, snapshot, catalog, clock: Clock) -> None:
        """The budgets view's lines, in a forked child where the platform forks: finding the
        candidates each budget holds back took 0.9 s of CPU on 5,000 nodes, which a thread would
        hold against the screen's keys."""
        from textual.worker import get_current_worker

        worker = get_current_worker()
        told = forked.answer(partial(_budget_lines, snapshot, catalog, clock), lambda: worker.is_cancelled,
                             "karptui-budgets")
        if told is not None:
            lines = told[1]
            self.post_message(self.BudgetsComputed(key, lines if isinstance(lines, list) else [str(lines)]))

    def on_disruption_pane_budgets_computed(self, message: BudgetsComputed) -> None:
        message.stop()
        if message.key == self.budgets_key:
            self.budget_lines = message.lines
            self.query_one("#budgets-view", Static).update(plain_lines(self._budgets_shown()))

    @property
    def marks(self) -> dict[str, str]:
        return self.view.marks if self.view is not None else {}

    @property
    def shown(self) -> bool:
        """The pane the screen shows: its ``display``, which the pane switch sets at once. Not
        ``is_on_screen``, which waits for the next layout: a first decision told right after the switch
        (a warm run finds one in a fraction of a second) was then neither drawn nor drawn later."""
        return self.display

    @property
    def started(self) -> bool:
        return self.key is not None or self.running is not None

    # ---- the worker --------------------------------------------------------------------------
    def start(self, key: object, snapshot, catalog, events: list[dict]) -> None:
        """Compute for ``key`` (the snapshot shown) unless that answer is here or on its way. A live
        cluster changes every few seconds while a big one takes minutes to simulate: a run under way
        is never restarted (it would never finish); the newest state is queued and computed next,
        and the last answer stays on screen, said to be older, until then."""
        self.said(snapshot, events)
        if key in (self.key, self.running):
            self.queued = None if key == self.running else self.queued
            return
        if self.running is not None:
            self.queued = (key, snapshot, catalog)
            self.status = "computing… (the cluster changed meanwhile: its newest state is computed next)"
            self._say(self.status)
            return
        self._launch(key, snapshot, catalog)

    def _launch(self, key: object, snapshot, catalog) -> None:
        self.running, self.queued, self.error = key, None, ""
        self._simulating = snapshot   # what the answer will be of
        self.found = []
        self.status = ("computing… (consolidation is simulated in the background; keys keep working)"
                       if self.simulated is None else
                       f"{self.simulated.summary} · for an earlier state of the cluster: recomputing…")
        self.fill()
        self.compute(key, snapshot, catalog)

    def said(self, snapshot, events: list[dict]) -> None:
        """What Karpenter's events and logs say of each node: added to the answer shown, without
        simulating again, whenever more of them arrive."""
        if snapshot is self._snapshot and len(events) == len(self._events):
            return
        self._snapshot, self._events = snapshot, events
        if self.simulated is not None:
            self.view = with_karpenter_said(self.simulated, snapshot, events)
            self.fill()

    @work(thread=True, exclusive=True, group="disruption", exit_on_error=False,
          description="consolidation simulated for the Disruption pane")
    def compute(self, key: object, snapshot, catalog) -> None:
        """Post the answer for ``key``, or nothing once cancelled. In a child process where the
        platform forks: a Python thread simulating for minutes would hold the GIL against the
        screen's event loop (keys took seconds on 2,000 nodes); the child shares the snapshot
        without copying it, and cancelling kills it. Elsewhere, in this thread."""
        from textual.worker import get_current_worker

        worker = get_current_worker()

        def tell(kind: str, value) -> None:
            if worker.is_cancelled:
                raise _Stopped
            if kind == "progress":
                self.post_message(self.Progress(key, value))
            elif kind == "partial":
                self.post_message(self.Partial(key, value))
            elif kind == "done":
                self.post_message(self.Computed(key, value))
            else:
                self.post_message(self.Computed(key, None, f"the simulation failed: {value}"))

        try:
            forked.run(partial(_run, snapshot, catalog), tell, lambda: worker.is_cancelled, "karptui-disruption")
        except _Stopped:
            return

    def on_disruption_pane_progress(self, message: Progress) -> None:
        message.stop()
        if message.key == self.running and self.queued is None:
            earlier = f"{self.simulated.summary} · for an earlier state of the cluster: " if self.simulated else ""
            self.status = earlier + message.text
            if self.shown:  # else said when the pane is shown (fill): a Static's update lays out the
                # whole screen, four times a second for minutes, under whatever the operator does elsewhere
                self._say(self._status_lines())

    def on_disruption_pane_partial(self, message: Partial) -> None:
        """The first decisions show while the rest of the plan computes (an earlier answer on
        screen stays until the whole new one is here)."""
        message.stop()
        if message.key == self.running:
            self.found.append(message.line)
            if self.view is None and self.shown:  # else filled when the pane is shown
                self.fill()

    def on_disruption_pane_computed(self, message: Computed) -> None:
        """Shown here; it bubbles on to the screen, whose Nodes pane shows the marks. The state
        queued meanwhile is computed next."""
        if message.key != self.running:
            message.stop()  # a late word from a run no longer wanted
            return
        self.key, self.running, self.error = message.key, None, message.error
        if message.view is not None:
            self.simulated = message.view
            self.view = with_karpenter_said(message.view, self._snapshot, self._events)
        self.status = message.error or f"{message.view.summary} · simulated on {self._simulated_on()}"
        self.fill()
        if self.queued is not None:
            self._launch(*self.queued)

    def _simulated_on(self) -> str:
        """What the answer is of: a recording's moment (the header's words for it), else the snapshot."""
        at = self._simulating.meta.captured_at if self._simulating is not None else None
        if getattr(self.app, "recording", None) is not None and at is not None:
            return f"the cluster {recorded_moment(at)}"
        return "the snapshot as captured"

    # ---- drawing ----------------------------------------------------------------------------
    def _say(self, text: str) -> None:
        """The status line, updated only when its words change: a Static's update lays out the whole
        screen (coming back from a drill-in said the same words again, at a layout's cost)."""
        if text != self._said:
            self._said = text
            self.query_one("#disruption-status", Static).update(plain(text))

    def _status_lines(self) -> str:
        """The status, under a line saying so while the what-if panel holds edits."""
        note = captured_not_whatif(self.app.active_whatif())
        return f"{note}\n{self.status}" if note else self.status

    def _budgets_shown(self) -> list[str]:
        note = captured_not_whatif(self.app.active_whatif())
        return [note, *self.budget_lines] if note else self.budget_lines

    def whatif_changed(self) -> None:
        """Back from the what-if panel: say again whether a what-if is held (see _status_lines)."""
        self._say(self._status_lines())
        if self.budgets_shown:
            self.query_one("#budgets-view", Static).update(plain_lines(self._budgets_shown()))

    def fill(self, text: str | None = None) -> None:
        if text is not None:
            self.filter = text
        self._say(self._status_lines())
        view = self.view
        wanted = self.filter.strip().lower()
        shown = (view, wanted, len(self.found), self._empty_words(bool(wanted)))
        if self._shown is not None and all(a is b or a == b for a, b in zip(shown[1:], self._shown[1:])) \
                and shown[0] is self._shown[0]:
            return  # the same rows: a pane switch on 20,000 nodes need not lay out tens of thousands again
        self._shown = shown
        rows, keys = [], []
        for group, title in GROUPS:
            shown = [r for r in (view.rows if view else ()) if r.group == group and (not wanted or any(
                wanted in cell.lower() for cell in (r.node, r.would, r.because, r.karpenter)))]
            if not shown:
                continue
            rows.append((f"▼ {title} ({len(shown)})",))
            keys.append(f"group:{group}")
            for r in shown:
                rows += [(r.would, r.saves, short_name(r.node)), ("", "", f"  {r.because}")]
                keys += [f"node:{r.node}", f"why:{r.node}"]
                if r.karpenter:
                    rows.append(("", "", f"  Karpenter said: {r.karpenter}"))
                    keys.append(f"said:{r.node}")
                for k, line in enumerate(view.methods.get(r.node, ())):  # each method's verdict
                    rows.append(("", "", f"    {line}"))
                    keys.append(f"method{k}:{r.node}")
        if view is None and self.found:
            rows.append((f"▼ found ({len(self.found)})",))  # short: it sets the column's width (the status says more)
            keys.append("group:found")
            rows += [("", "", line) for line in self.found]
            keys += [f"found:{k}" for k in range(len(self.found))]
        if not rows:
            rows.append(("", "", self._empty_words(bool(wanted))))
            keys.append("empty")
        self.query_one("#disruption-table", VirtualTable).set_rows(rows, keys)


    def _empty_words(self, filtered: bool) -> str:
        if self.view is not None:
            return "(nothing matches)" if filtered else "(no consolidation and nothing blocked)"
        if self.error:
            return "(no answer: see above)"
        return "(computing…)" if self.started else "(press 4 or :disruption to compute)"

# ---- the computation, in this thread or a forked child (.forked) --------------------------------

def _progress_text(phase: str, done: int, total: int) -> str:
    what = f"{done:,} command(s) found" if phase == "consolidation" else f"{done:,}/{total:,} pods"
    return f"computing… {phase}: {what}"


def _budget_lines(snapshot, catalog, clock: Clock, tell: Callable[[str, object], None]) -> None:
    try:
        tell("done", budgets_lines(budgets_view(snapshot, catalog, clock)))
    except WindowPastCalendar as error:  # a capture time at the calendar's end: said, not a bug
        tell("error", f"no budgets: {error}")
    except Exception as error:  # a bug must not leave "computing" forever
        tell("error", f"the budgets could not be computed: {type(error).__name__}: {error}")


def _run(snapshot, catalog, tell: Callable[[str, object], None]) -> None:
    """simulate --consolidate and its view, telling ``tell`` the progress (a few times a second)
    and then ("done", view) or ("error", text). ``tell`` raising stops the simulation."""
    from ..sim import simulate

    last = [0.0]

    def progress(phase: str, done: int, total: int) -> None:
        now = time.monotonic()
        if now - last[0] >= PROGRESS_INTERVAL:
            last[0] = now
            tell("progress", _progress_text(phase, done, total))

    found = [0]

    def told(disruption) -> None:
        found[0] += 1
        tell("partial", found_line(found[0], disruption))

    try:
        result = simulate(snapshot, catalog=catalog, consolidate=True, progress=progress, found=told)
        view = simulated_view(result, snapshot)
    except _Stopped:
        raise
    except Exception as error:  # a simulator bug must not leave "computing…" forever
        tell("error", f"{type(error).__name__}: {error}")
        return
    tell("done", view)
