"""The History pane: what Karpenter did, from the log the session has (``karptui history`` in a pane).

The Timeline is built by the same code as the command's (:func:`karptui.history.snapshot.events_timeline`:
the builder and ``finish``) from the log events the app has read and the snapshot's events. A day's log
of a large cluster is a million events: a thread worker builds it in a forked child (as the Disruption
pane simulates, :mod:`.forked`), so keys never wait, and the pane says "computing…" until it lands. More
lines arriving meanwhile (``--logs`` followed, the live leader's log) are built next. What the pane
shows comes from :mod:`karptui.views.history`; :meth:`HistoryPane.show` takes any Timeline with the
clock to read it by (a recording gives one the same way).
"""

from __future__ import annotations

import time
from datetime import datetime
from functools import partial

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Static

from ..history.timeline import Timeline
from ..views.filtering import Filter
from ..views.history import (CHAIN_COLUMNS, HISTORY_SORTS, HOUR_COLUMNS, LIFE_COLUMNS, NO_LOG, VIEWS, LifeTable,
                             chain_fields, chain_rows, hour_rows, life_fields, life_rows, life_table, summary)
from . import forked
from .plain import plain
from .widgets import VirtualTable

# Columns cut to fit, a tier at a time, then hidden in DROP's order (named in the crumb): never sideways.
# launch→ready and disrupt→gone give their long titles first (their cells are a few characters); then "end" (its
# action last), then the names a user searches by; at 80 columns "created" is hidden (named in the crumb) rather
# than cut "replaced by" to "default…"
LIFE_SHRINK = ({7: 8, 10: 8}, {8: 14, 12: 14, 0: 16}, {1: 8, 2: 9, 3: 10, 0: 14})   # a replacement's name stays whole
LIFE_DROP = (3, 4, 10, 7, 1, 11, 6)   # at 80 columns: name, type, price, end, when, replaced by
CHAIN_SHRINK = ({4: 10}, {0: 32, 2: 13})   # the reason whole ("underutilized"); at 80 columns the command goes
CHAIN_DROP = (4,)
HOUR_SHRINK = ({1: 10}, {0: 12, 1: 8})   # an hour of another day than the log's is dated: its date gives first
HOUR_DROP = (10, 11, 5, 9, 4)         # at 80 columns: churn, pending pods, launch errors, interruptions


def _build(events: list[dict], snapshot, discounts, tell: forked.Tell) -> None:
    """The Timeline and its NodeClaims' rows, told back down the pipe (frozen dataclasses of plain values:
    they pickle); the rows' durations and times are worked out here, off the screen's process."""
    from ..history.snapshot import events_timeline

    try:
        timeline = events_timeline(events, snapshot, None, discounts)
        tell("done", (timeline, life_table(timeline)))
    except Exception as error:  # noqa: BLE001 -- a bug must not leave "computing…" forever
        tell("error", f"the history could not be built: {type(error).__name__}: {error}")


def _life_style(column: int, cell: str) -> str | None:
    if column == 8:
        if cell.startswith(("interruption", "spot interruption", "launch failed")):
            return "bad"
        if cell.startswith("running"):
            return "good"
        return "warn" if cell not in ("-", "") else None
    if column == 4:
        return {"spot": "spot", "on-demand": "on-demand"}.get(cell)
    return None


class HistoryPane(Vertical):
    """A status line over one of three tables (NodeClaims, chains, hours); ``v`` shows the next."""

    BINDINGS = [Binding("v", "next_view", "NodeClaims/chains/hours")]
    REBUILD_INTERVAL = 3.0   # seconds between the end of a build and the next, while lines keep arriving

    class Computed(Message):
        """The worker's (Timeline, LifeTable) for ``key`` (None, with ``error``, when it failed)."""

        def __init__(self, key: object, timeline: tuple | None, error: str = "") -> None:
            super().__init__()
            self.key, self.timeline, self.error = key, timeline, error

        def can_replace(self, message: Message) -> bool:
            return isinstance(message, HistoryPane.Computed)

    def __init__(self, id: str | None = None) -> None:
        super().__init__(id=id)
        self.view = "nodeclaims"
        self.timeline: Timeline | None = None
        self.lives: LifeTable | None = None   # the Timeline's NodeClaim rows, formatted once
        self.now: datetime | None = None
        self.key: object = None           # what the Timeline shown was built from
        self.running: object = None       # what the worker builds now
        self.queued: tuple | None = None  # (key, events, snapshot, discounts, now): built next
        self.status = "not built yet: it starts when this pane is first shown (5)"
        self._status_shown: str | None = None
        self.error = ""
        self.filter = ""
        self.sort: tuple[str, bool] = ("created", False)
        self._finished = 0.0              # when the last build landed (time.monotonic)
        self._waiting = False             # a timer will build the queued input
        self._drawn: tuple | None = None  # what the table shows: a refill of 25,000 lives is not free

    def compose(self) -> ComposeResult:
        yield Static(id="history-status")
        yield VirtualTable(LIFE_COLUMNS, shrink=LIFE_SHRINK, drop=LIFE_DROP, cut_middle=frozenset({0}),
                           styler=_life_style, id="history-table")
        yield VirtualTable(CHAIN_COLUMNS, max_widths={0: 90}, shrink=CHAIN_SHRINK, drop=CHAIN_DROP,
                           id="history-chains-table")
        yield VirtualTable(HOUR_COLUMNS, shrink=HOUR_SHRINK, drop=HOUR_DROP, cut_start=frozenset({0}),
                           id="history-hours-table")

    def on_mount(self) -> None:
        self._show_view()
        self.fill()

    @property
    def table(self) -> VirtualTable:
        """The table of the view shown (the screen's keys move, sort and open in it)."""
        return self.query_one({"nodeclaims": "#history-table", "chains": "#history-chains-table",
                               "hours": "#history-hours-table"}[self.view], VirtualTable)

    @property
    def started(self) -> bool:
        return self.key is not None or self.running is not None or self.timeline is not None

    # ---- views --------------------------------------------------------------------------------
    def action_next_view(self) -> None:
        self.show_view(VIEWS[(VIEWS.index(self.view) + 1) % len(VIEWS)])

    def show_view(self, view: str) -> None:
        self.view = view
        self.table.display = True
        self.table.focus()   # before the table shown until now is hidden: focus must not leave the pane
        self._show_view()
        self.fill()
        self.post_message(self.ViewChanged())

    class ViewChanged(Message):
        """The view shown changed: the crumb under the tables names it."""

    def _show_view(self) -> None:
        for name, selector in (("nodeclaims", "#history-table"), ("chains", "#history-chains-table"),
                               ("hours", "#history-hours-table")):
            self.query_one(selector).display = name == self.view

    # ---- the worker ---------------------------------------------------------------------------
    def start(self, key: object, events: list[dict], snapshot, discounts, now: datetime | None,
              no_log: str = NO_LOG) -> None:
        """Build for ``key`` unless that Timeline is here or on its way; a build under way is let finish and
        the newest input built next (a followed log grows faster than a big one is read). Without a log line
        there is no NodeClaim to show (events only annotate the lives lines tell): ``no_log`` says so."""
        if key in (self.key, self.running):
            self.queued = None if key == self.running else self.queued
            return
        if not events:
            self.key, self.timeline, self.now, self.error, self.status = key, None, now, "", no_log
            self.fill()
            return
        wait = self._finished + self.REBUILD_INTERVAL - time.monotonic() if self.timeline is not None else 0.0
        if self.running is not None or self._waiting or wait > 0:
            self.queued = (key, events, snapshot, discounts, now, no_log)
            if self.running is None and not self._waiting:
                self._wait(wait)
            return
        self.running, self.queued, self.error = key, None, ""
        self.now = now
        self.status = (f"computing… (the history of {len(events):,} log events is built in the background; "
                       "keys keep working)" if self.timeline is None else
                       f"{summary(self.timeline, now)} · newer lines: rebuilding…")
        self.fill()
        self.compute(key, list(events), snapshot, discounts)

    def _wait(self, seconds: float) -> None:
        """The queued input is built after ``seconds``: a log that grows all the time (the live leader's) is
        read again every REBUILD_INTERVAL at most, not without a pause."""
        self._waiting = True
        self.set_timer(max(0.0, seconds), self._start_queued)

    def _start_queued(self) -> None:
        self._waiting = False
        if self.queued is not None:
            queued, self.queued = self.queued, None
            self.start(*queued)

    @work(thread=True, exclusive=True, group="history", exit_on_error=False,
          description="the History pane's timeline")
    def compute(self, key: object, events: list[dict], snapshot, discounts) -> None:
        from textual.worker import get_current_worker

        worker = get_current_worker()
        told = forked.answer(partial(_build, events, snapshot, discounts), lambda: worker.is_cancelled,
                             "karptui-history")
        if told is None:
            return
        kind, value = told
        if kind == "done":
            self.post_message(self.Computed(key, value))
        else:
            self.post_message(self.Computed(key, None, str(value)))

    def on_history_pane_computed(self, message: Computed) -> None:
        message.stop()
        if message.key != self.running:
            return
        self.key, self.running, self._finished = message.key, None, time.monotonic()
        if message.timeline is not None:
            self.show(*message.timeline, now=self.now)
        else:
            self.error = self.status = message.error
            self.fill()
        if self.queued is not None:
            self._wait(self.REBUILD_INTERVAL)

    # ---- drawing ------------------------------------------------------------------------------
    def show(self, timeline: Timeline, table: LifeTable | None = None, now: datetime | None = None) -> None:
        """Show ``timeline``, read by the clock ``now`` (the snapshot's time: the status line says how long
        before it the log ends). Any Timeline will do: a log's, or a recording's; ``table``, its NodeClaims'
        rows, is made here when not given."""
        self.timeline, self.now, self.error = timeline, now, ""
        self.lives = table if table is not None else life_table(timeline)
        self.status = summary(timeline, now)
        self.fill()

    def fill(self, text: str | None = None, sort: tuple[str, bool] | None = None) -> None:
        if text is not None:
            self.filter = text
        if sort is not None:
            self.sort = sort
        if self.status != self._status_shown:   # an update lays the whole screen out again: only a new line
            self._status_shown = self.status
            self.query_one("#history-status", Static).update(plain(self.status))
        match = Filter(self.filter)
        timeline, name, reverse = self.timeline, *self.sort
        table = self.table
        drawn = (timeline, self.view, self.filter, self.sort)
        if timeline is not None and self._drawn is not None and self._drawn[0] is timeline and \
                self._drawn[1:] == drawn[1:]:
            return   # a live cluster's redraw every few seconds: the same rows
        self._drawn = drawn
        if timeline is None:
            words = self.error and "(no history: see above)" or (
                "(computing…)" if self.running is not None else self.status if self.key is not None else
                "(press 5 or :history to build)")
            table.set_rows([(words,)], ["empty"])
            return
        if self.view == "nodeclaims":
            found = life_rows(self.lives, name, reverse, match.predicate(life_fields) if match else None)
            if (table.sort_column, table.sort_reverse) != (HISTORY_SORTS.index(name), reverse):
                table.show_sort(HISTORY_SORTS.index(name), reverse)   # it measures every row: only when it changes
        elif self.view == "chains":
            found = chain_rows(timeline, match.predicate(chain_fields) if match else None)
        else:
            found = hour_rows(timeline, match.predicate(lambda pool: (pool,)) if match else None)
        rows, keys = list(found.rows), list(found.keys)
        if not rows:
            what = {"nodeclaims": "NodeClaim", "chains": "replacement chain", "hours": "hour"}[self.view]
            rows, keys = [(f"(no {what} matches)" if match else f"(no {what} in the log)",)], ["empty"]
        table.set_rows(rows, keys)


