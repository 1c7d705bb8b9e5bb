"""The main screen: nodes by zone, pending pods, Karpenter activity; k9s keys."""

from __future__ import annotations

from collections import Counter

from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Input, Static, TabbedContent, TabPane

from ...model.quantity import human_bytes
from ...views.activity import activity_rows
from ...views.format import age, cpu
from ...views.nodes import SORTS, zone_cells, zone_groups
from ...views.pending import simulated_cell
from ..disruption import DisruptionPane
from ..keybar import KeyBar
from ..plain import notify_plain, plain
from ..widgets import VirtualTable

PANES = ("nodes", "pending", "activity", "disruption")
REASON_WIDTH = 60
NODE_COLUMNS = ("node", "type", "capacity", "nodepool/group", "cpu", "memory", "pods", "age", "$/h", "consolidation")
PENDING_COLUMNS = ("pod (≠ simulator disagrees)", "cpu", "memory", "age", "simulated", "kube-scheduler reason",
                   "Karpenter (logs)")
ACTIVITY_COLUMNS = ("line", "time", "level", "event", "details")
ACTIVITY_ROWS = 5000  # the newest events shown on (re)fill; a tailed log appends beyond it
MIN_SIZE = (60, 12)  # below this the tables cannot show a node name and its numbers


class MainScreen(Screen):
    BINDINGS = [
        Binding("j", "cursor(1)", "Down", show=False),
        Binding("k", "cursor(-1)", "Up", show=False),
        Binding("g", "jump(0)", "Top", show=False),
        Binding("G", "jump(-1)", "Bottom", show=False),
        Binding("enter", "drill", "Drill in"),
        Binding("slash", "filter", "Filter"),
        Binding("colon", "command", "Command"),
        Binding("s", "sort", "Sort nodes"),
        Binding("escape", "clear", "Back / clear", show=False),
        Binding("1", "pane('nodes')", "Nodes", show=False),
        Binding("2", "pane('pending')", "Pending", show=False),
        Binding("3", "pane('activity')", "Activity", show=False),
        Binding("4", "pane('disruption')", "Disruption", show=False),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.sort = "name"
        self.filters = {pane: "" for pane in PANES}

    def compose(self) -> ComposeResult:
        yield Static(id="source")
        yield Static(id="too-small")
        with TabbedContent(initial="nodes"):
            with TabPane("Nodes", id="nodes"):
                yield VirtualTable(NODE_COLUMNS, id="nodes-table")
            with TabPane("Pending", id="pending"):
                # The scheduler's reason is long; capped so Karpenter's view stays on screen (drill in for all).
                yield VirtualTable(PENDING_COLUMNS, max_widths={5: REASON_WIDTH}, id="pending-table")
            with TabPane("Activity", id="activity"):
                yield VirtualTable(ACTIVITY_COLUMNS, id="activity-table")
            with TabPane("Disruption", id="disruption"):
                yield DisruptionPane(id="disruption-pane")
        yield Input(placeholder="filter: text or label key=value (enter to apply, escape to clear)", id="filter")
        yield Input(placeholder=":nodes :pending :activity :disruption :whatif :help :quit", id="command")
        yield KeyBar()

    def on_mount(self) -> None:
        self.refresh_all()
        self.query_one("#nodes-table", VirtualTable).focus()

    def on_screen_resume(self) -> None:
        """Back from a drill-in or the what-if panel: the header may have news (edits made)."""
        self.refresh_header()

    def refresh_header(self) -> None:
        # snapshot name, context, what-if name and the API server's errors: all data
        self.query_one("#source", Static).update(plain(self.app.source_line()))

    def on_resize(self, event) -> None:
        width, height = event.size
        small = width < MIN_SIZE[0] or height < MIN_SIZE[1]
        self.set_class(small, "too-small")
        if small:
            self.query_one("#too-small", Static).update(
                f"karptui needs a terminal of at least {MIN_SIZE[0]}×{MIN_SIZE[1]} (this one is {width}×{height})")

    # ---- filling -------------------------------------------------------------------------
    def refresh_all(self) -> None:
        self.refresh_header()
        self.fill_nodes()
        self.fill_pending()
        self.fill_activity()
        self.fill_disruption()

    def fill_nodes(self) -> None:
        overview = self.app.overview
        rows, keys = [], []
        marks = self.query_one(DisruptionPane).marks
        groups = zone_groups(overview.node_rows, self.sort, self.filters["nodes"])
        for group in groups:
            rows.append(zone_cells(group))
            keys.append(f"zone:{group.zone}")
            for row in group.nodes:
                rows.append(overview.cells(row) + (marks.get(row.name, ""),))
                keys.append(f"node:{row.name}")
        if not groups:
            rows.append(("(no nodes match)" if self.filters["nodes"] else
                         f"({self.app.missing('Node') or 'the snapshot has no nodes'})",))
            keys.append("empty")
        self.query_one("#nodes-table", VirtualTable).set_rows(rows, keys)

    def fill_pending(self) -> None:
        attempts = self.app.attempts
        pending = [r for r in self.app.pending if r.matches(self.filters["pending"])]
        counts = Counter(r.owner for r in pending)
        rows, keys = [], []
        owner = None
        for row in pending:
            if row.owner != owner:
                owner = row.owner
                rows.append((f"▼ {owner}  {counts[owner]} pending",))
                keys.append(f"owner:{owner}")
            simulated, disagrees = simulated_cell(row, attempts.get(row.key))
            rows.append((f"{'≠ ' if disagrees else '  '}{row.key}", cpu(row.cpu), human_bytes(row.memory),
                         age(row.created, self.app.now), simulated, row.reason or "-", row.karpenter_short or "-"))
            keys.append(f"pod:{row.key}")
        if not pending:
            rows.append((f"({self.app.missing('Pod') or 'no pending pods'})",))
            keys.append("empty")
        self.query_one("#pending-table", VirtualTable).set_rows(rows, keys)

    def fill_activity(self) -> None:
        shown = [r for r in activity_rows(self.app.events, snapshot_events=self.app.overview.karpenter_events)
                 if r.matches(self.filters["activity"])][-ACTIVITY_ROWS:]
        rows, keys = _activity_cells(shown)
        if not shown:
            rows, keys = [("", "", "", "", "(no Karpenter logs: open a snapshot with --logs FILE)")], ["empty"]
        self.query_one("#activity-table", VirtualTable).set_rows(rows, keys)

    def fill_disruption(self, start: bool = False) -> None:
        """The consolidation answer for the snapshot shown: computed in the pane's worker on start
        (or when the pane is first shown, if the app does not simulate on start)."""
        pane = self.query_one(DisruptionPane)
        if start or self.app.simulate_on_start or pane.started:
            overview = self.app.overview
            pane.start(overview.scheduling_key, overview.snapshot, self.app.catalog,
                       [*overview.karpenter_events, *self.app.events])
        pane.fill(self.filters["disruption"])

    def on_disruption_pane_computed(self, message: DisruptionPane.Computed) -> None:
        self.fill_nodes()  # the consolidation column

    def append_activity(self, events: list[dict]) -> None:
        """New lines of a tailed log: appended, and followed if the cursor sat on the last row."""
        table = self.query_one("#activity-table", VirtualTable)
        shown = [r for r in activity_rows(events) if r.matches(self.filters["activity"])]
        if not shown:
            return
        table.remove_key("empty")
        following = table.row_count == 0 or table.cursor_row >= table.row_count - 1
        table.append_rows(*_activity_cells(shown))
        if following:
            table.move_cursor(table.row_count - 1)

    # ---- actions ---------------------------------------------------------------------------
    @property
    def pane(self) -> str:
        return self.query_one(TabbedContent).active or "nodes"

    def table(self) -> VirtualTable:
        return self.query_one(f"#{self.pane}-table", VirtualTable)

    def action_pane(self, pane: str) -> None:
        self.query_one(TabbedContent).active = pane
        self.table().focus()

    def on_tabbed_content_tab_activated(self, event: TabbedContent.TabActivated) -> None:
        if self.pane == "disruption":
            self.fill_disruption(start=True)
        self.table().focus()

    def action_cursor(self, step: int) -> None:
        self.table().action_cursor(step)

    def action_jump(self, row: int) -> None:
        self.table().action_cursor_to(row)

    def action_sort(self) -> None:
        names = list(SORTS)
        self.sort = names[(names.index(self.sort) + 1) % len(names)]
        self.notify(f"nodes sorted by {self.sort}")
        self.fill_nodes()

    def action_filter(self) -> None:
        box = self.query_one("#filter", Input)
        box.value = self.filters[self.pane]
        box.add_class("visible")
        box.focus()

    def action_command(self) -> None:
        box = self.query_one("#command", Input)
        box.value = ""
        box.add_class("visible")
        box.focus()

    def action_clear(self) -> None:
        for box in self.query(Input):
            box.remove_class("visible")
        if self.filters[self.pane]:
            self.filters[self.pane] = ""
            self.refresh_pane()
        self.table().focus()

    def refresh_pane(self) -> None:
        {"nodes": self.fill_nodes, "pending": self.fill_pending, "activity": self.fill_activity,
         "disruption": self.fill_disruption}[self.pane]()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.input.remove_class("visible")
        if event.input.id == "filter":
            self.filters[self.pane] = event.value.strip()
            self.refresh_pane()
            self.table().focus()
            return
        word = event.value.strip().lstrip(":").lower()
        if word in PANES:
            self.action_pane(word)
        elif word in ("whatif", "what-if", "w"):
            self.app.action_whatif()
        elif word in ("help", "?"):
            self.app.action_help()
        elif word in ("q", "quit"):
            self.app.exit()
        else:
            notify_plain(self, f"unknown command :{word} (nodes, pending, activity, disruption, whatif, help, quit)",
                                  severity="warning")
            self.table().focus()

    def action_drill(self) -> None:
        self._open(self.table().cursor_key or "")

    def on_virtual_table_row_selected(self, event: VirtualTable.RowSelected) -> None:
        """enter on a row (the table's own binding): drill into that node or pod."""
        self._open(event.key)

    def _open(self, key: str) -> None:
        kind, _, name = key.partition(":")
        if kind in ("node", "pod"):
            self.app.drill(kind, name)


def _activity_cells(rows) -> tuple[list[tuple[str, ...]], list[str]]:
    """A Kubernetes event has no log line: its line column says "event" and its key is its place."""
    return ([(str(r.line) if r.line else "event", r.time, r.level, r.kind, r.summary) for r in rows],
             [f"line:{r.line}" if r.line else f"event:{i}:{r.time}" for i, r in enumerate(rows)])
